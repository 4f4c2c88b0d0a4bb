//! pprof's short function names (`ShortFunctionName`).

/// pprof's `ShortFunctionName`: drops argument lists (and a `const` after them), the
/// `<address>` tag pprof puts on nm names, template arguments (unless `keep_templates`), and
/// a leading return type.
///
/// Perl applies regular expressions until nothing changes; the same result comes from
/// removing balanced groups in one pass, which this does:
/// * `\([^()]*\)(\s*const)?`, repeated: every balanced `(...)` and a `const` right after it;
/// * `<[0-9a-f]*>$`: a trailing address tag;
/// * `<[^<>]*>`, repeated: every balanced `<...>`;
/// * `^.*\s+(\w+::)` → `$1`: everything before the last blank that precedes `word::`.
pub fn short_name(full: &str, keep_templates: bool) -> String {
    let b = full.as_bytes();
    if !b.iter().any(|&c| c == b'(' || c == b'<' || is_space(c)) {
        return full.to_string();
    }
    // Balanced parentheses, each with a `\s*const` that follows it. `open` holds where each
    // open group starts in `out` (shared with the template pass below).
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // The bytes up to the next parenthesis, kept as they are.
        let run = memchr::memchr2(b'(', b')', &b[i..]).unwrap_or(b.len() - i);
        if run > 0 {
            out.extend_from_slice(&b[i..i + run]);
            i += run;
            continue;
        }
        let c = b[i];
        if c == b'(' {
            open.push(out.len());
            out.push(c);
        } else if c == b')' && !open.is_empty() {
            let at = open.pop().unwrap_or(0);
            out.truncate(at);
            let mut j = i + 1;
            while j < b.len() && is_space(b[j]) {
                j += 1;
            }
            if b[j..].starts_with(b"const") {
                i = j + 5;
                continue;
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    // A trailing `<hex>` address tag.
    if out.last() == Some(&b'>')
        && let Some(lt) = out.iter().rposition(|&c| c == b'<')
        && out[lt + 1..out.len() - 1]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
    {
        out.truncate(lt);
    }
    if !keep_templates && out.contains(&b'<') {
        // Balanced `<...>` groups, removed in place (what is kept never outruns what is
        // read).
        open.clear();
        let (mut w, mut r) = (0, 0);
        while r < out.len() {
            // The bytes up to the next angle bracket, moved down as they are.
            let run = memchr::memchr2(b'<', b'>', &out[r..]).unwrap_or(out.len() - r);
            if run > 0 {
                out.copy_within(r..r + run, w);
                (w, r) = (w + run, r + run);
                continue;
            }
            let c = out[r];
            r += 1;
            if c == b'>' && !open.is_empty() {
                w = open.pop().unwrap_or(0);
                continue;
            }
            if c == b'<' {
                open.push(w);
            }
            out[w] = c;
            w += 1;
        }
        out.truncate(w);
    }
    // The last blank followed by `word::` ends a leading type.
    let mut cut = None;
    // (Blanks are among the bytes up to b' ': most names have none.)
    if out.iter().any(|&c| c <= b' ') {
        for k in 0..out.len() {
            if is_space(out[k]) && k + 1 < out.len() && starts_scope(&out[k + 1..]) {
                cut = Some(k + 1);
            }
        }
    }
    if let Some(k) = cut {
        // `.` does not match a newline: the blank must be on the first line.
        if !out[..k].contains(&b'\n') {
            out.drain(..k);
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `\w+::` at the start of `s`.
fn starts_scope(s: &[u8]) -> bool {
    let n = s.iter().take_while(|&&c| is_word(c)).count();
    n > 0 && s[n..].starts_with(b"::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names() {
        assert_eq!(
            short_name("corpus::util::Pool<double>::make(unsigned long)", false),
            "corpus::util::Pool::make"
        );
        assert_eq!(
            short_name("corpus::util::Pool<double>::make(unsigned long)", true),
            "corpus::util::Pool<double>::make"
        );
        assert_eq!(short_name("main<0000000000001170>", false), "main");
        assert_eq!(
            short_name(
                "void std::vector<char*, std::allocator<char*> >::_M_realloc_insert<char*>(__gnu_cxx::__normal_iterator<char**, std::vector<char*, std::allocator<char*> > >, char*&&)",
                false
            ),
            "std::vector::_M_realloc_insert"
        );
        assert_eq!(short_name("Foo::bar() const", false), "Foo::bar");
        assert_eq!(
            short_name(
                "std::__throw_ios_failure(char const*, int)@@GLIBCXX_3.4.26<00000000000a1b2c>",
                false
            ),
            "std::__throw_ios_failure@@GLIBCXX_3.4.26"
        );
        assert_eq!(
            short_name("0x0000000000c635c8", false),
            "0x0000000000c635c8"
        );
        assert_eq!(short_name("f((x)) const", false), "f");
        assert_eq!(short_name("f(a", false), "f(a");
        assert_eq!(short_name("f(a(b) const", false), "f(a");
        assert_eq!(short_name("a<b<c>d", false), "a<bd");
        assert_eq!(short_name("a>b<c>", false), "a>b");
        assert_eq!(short_name("a b::c d::e", false), "d::e");
    }

    /// The one-pass `short_name` against a literal transcription of pprof's regexes.
    #[test]
    fn short_name_matches_perl_regexes() {
        fn perl(full: &str, keep: bool) -> String {
            let args = regex::Regex::new(r"\([^()]*\)(?:\s*const)?").unwrap();
            let tag = regex::Regex::new(r"<[0-9a-f]*>$").unwrap();
            let tmpl = regex::Regex::new(r"<[^<>]*>").unwrap();
            let lead = regex::Regex::new(r"^.*\s+((?-u:\w)+::)").unwrap();
            let mut s = full.to_string();
            while args.is_match(&s) {
                s = args.replace_all(&s, "").into_owned();
            }
            s = tag.replace(&s, "").into_owned();
            if !keep {
                while tmpl.is_match(&s) {
                    s = tmpl.replace_all(&s, "").into_owned();
                }
            }
            lead.replace(&s, "$1").into_owned()
        }
        let cases = [
            "void std::vector<char*, std::allocator<char*> >::_M_realloc_insert<char*>(__gnu_cxx::__normal_iterator<char**, std::vector<char*, std::allocator<char*> > >, char*&&)",
            "corpus::app::handle_request(int, int)<00000000000016b0>",
            "std::_Rb_tree_iterator<std::pair<int const, corpus::net::Session*> > std::_Rb_tree<int>::_M_emplace_hint_unique<std::piecewise_construct_t const&>(int)",
            "operator()(int) const",
            "foo(bar(baz)) const volatile",
            "{lambda(int)#1}::operator()(int) const",
            "unsigned long std::foo<1>::bar(std::map<int, int> const&)",
            "bool std::operator< <char>(int)",
            "a  b::c",
            "x<y",
            "x>y",
            "(anonymous namespace)::f(int)",
            "f() constant",
            "f(a(b) const",
            "a<b<c>d>e",
            "main",
            "0x000000000040651a",
            "std::__cxx11::basic_string<char>::_M_mutate(unsigned long)@@GLIBCXX_3.4.21",
        ];
        for c in cases {
            for keep in [false, true] {
                assert_eq!(short_name(c, keep), perl(c, keep), "{c} keep={keep}");
            }
        }
        // Names made of the pieces that matter, in any order.
        let pieces = [
            "a", "b::", "(", ")", "<", ">", " ", "\t", "const", "int", "0", "f", "<00ab>", "x::y",
        ];
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..3_000 {
            let n = 1 + next() % 10;
            let c: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            for keep in [false, true] {
                assert_eq!(short_name(&c, keep), perl(&c, keep), "{c:?} keep={keep}");
            }
        }
    }
}
