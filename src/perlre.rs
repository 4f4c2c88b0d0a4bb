//! Perl's regular expression syntax where it differs from the `regex` crate's and Perl's
//! meaning is plain: pprof's `--focus`, `--ignore`, `--list`... are Perl regular
//! expressions, and C++ names hold braces (`{lambda(int)#1}`).

use std::borrow::Cow;

/// Perl's `\v`, vertical white space, as the members of a class (`regex`'s `\v` is the
/// vertical tab alone).
macro_rules! vertical_space {
    () => {
        r"\n\x0B\x0C\r\x85\u{2028}\u{2029}"
    };
}

/// `pattern` rewritten for the `regex` crate: a `{` that does not start a quantifier is a
/// literal brace (Perl takes `{lambda`, `a{,}` and `f{x}` literally; `regex` refuses them),
/// a quantifier may hold blanks and leave out its lower bound (`{ 2 , }`, `{,3}`), `\Z`
/// is the end or a final newline, `\v` is vertical white space (not only the vertical tab),
/// and `\<` and `\>` are the characters `<` and `>`, in a class too (word boundaries in
/// `regex`; C++ template names hold them). What has no equivalent (look-around,
/// back-references) is left for `regex` to refuse by name.
pub fn to_rust(pattern: &str) -> Cow<'_, str> {
    if !pattern.contains(['{', '\\', '[']) {
        return Cow::Borrowed(pattern);
    }
    let b = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 8);
    // The start of the text not yet copied to `out`.
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let Some(&c) = b.get(i + 1) else {
                    break;
                };
                if matches!(c, b'Z' | b'<' | b'>' | b'v') {
                    out.push_str(&pattern[copied..i]);
                    out.push_str(match c {
                        b'Z' => r"(?:\n?\z)",
                        b'<' => "<",
                        b'>' => ">",
                        _ => concat!("[", vertical_space!(), "]"),
                    });
                    i += 2;
                    copied = i;
                    continue;
                }
                i += 2;
                // `\x{263a}`, `\p{L}`, `\N{U+263A}`...: the braces belong to the escape.
                if b"xpPNogkb".contains(&c) && b.get(i) == Some(&b'{') {
                    i = b[i..]
                        .iter()
                        .position(|&c| c == b'}')
                        .map_or(b.len(), |p| i + p + 1);
                }
            }
            b'[' => {
                let Some(end) = class_close(b, i) else {
                    // Not closed: left for `regex` to refuse.
                    break;
                };
                out.push_str(&pattern[copied..i]);
                class(pattern, i, end, &mut out);
                i = end;
                copied = i;
            }
            b'{' => match quantifier(&b[i..]) {
                Some((len, q)) => {
                    out.push_str(&pattern[copied..i]);
                    out.push_str(&q);
                    i += len;
                    copied = i;
                }
                None => {
                    out.push_str(&pattern[copied..i]);
                    out.push_str(r"\{");
                    i += 1;
                    copied = i;
                }
            },
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(pattern);
    }
    out.push_str(&pattern[copied..]);
    Cow::Owned(out)
}

/// The character class `pattern[start..end]` (from its `[` to its `]`) as `regex` reads
/// Perl's meaning, appended to `out`. Perl takes `[`, `&&`, `--` and `~~` in a class as
/// members; `regex` takes them for a nested class and set operations (`[o&&x]` would match
/// nothing, `[[o]]` would end a character later): they are escaped. A `-` is a range only
/// between two single members, as in Perl: after a class such as `\d`, or where the
/// range's end would be one, it is a member (Perl warns "False [] range"; `regex` refuses
/// it). `\<` and `\>` are the characters, `\v` vertical white space.
fn class(pattern: &str, start: usize, end: usize, out: &mut String) {
    let b = pattern.as_bytes();
    out.push('[');
    let mut j = start + 1;
    if b.get(j) == Some(&b'^') {
        out.push('^');
        j += 1;
    }
    // A member's text (in `regex`'s syntax), and whether it is a single character (a
    // range's end may be one).
    let member = |j: usize| -> (usize, Cow<'_, str>, bool) {
        match b[j] {
            b'\\' if j + 1 < end - 1 => {
                let c = b[j + 1];
                // (The escaped character may take several bytes.)
                let mut k = j + 1 + pattern[j + 1..].chars().next().map_or(1, char::len_utf8);
                // `\x{263a}`, `\p{L}`, `\N{U+263A}`: the braces belong to the escape.
                if b"xpPNo".contains(&c) && b.get(k) == Some(&b'{') {
                    k = b[k..end]
                        .iter()
                        .position(|&c| c == b'}')
                        .map_or(end - 1, |p| k + p + 1);
                }
                let single = !b"dDwWsShHvVpPN".contains(&c);
                let text = match c {
                    b'<' | b'>' => Cow::Borrowed(&pattern[j + 1..k]),
                    b'v' => Cow::Borrowed(vertical_space!()),
                    _ => Cow::Borrowed(&pattern[j..k]),
                };
                (k, text, single)
            }
            b'[' if b.get(j + 1) == Some(&b':') => {
                let k = b[j + 2..end]
                    .windows(2)
                    .position(|w| w == b":]")
                    .map_or(j + 1, |p| j + 2 + p + 2);
                if k == j + 1 {
                    (k, Cow::Borrowed(r"\["), true)
                } else {
                    (k, Cow::Borrowed(&pattern[j..k]), false)
                }
            }
            b'[' | b'&' | b'~' | b'-' => (j + 1, Cow::Owned(format!("\\{}", b[j] as char)), true),
            _ => {
                // One character, however many bytes.
                let len = pattern[j..].chars().next().map_or(1, char::len_utf8);
                (j + len, Cow::Borrowed(&pattern[j..j + len]), true)
            }
        }
    };
    // Whether the last member written may start a range.
    let mut may_start = false;
    // A `]` first in the class is a member.
    if b.get(j) == Some(&b']') {
        out.push_str(r"\]");
        j += 1;
        may_start = true;
    }
    while j < end - 1 {
        if b[j] == b'-' && may_start && j + 1 < end - 1 {
            let (k, text, single) = member(j + 1);
            if single {
                out.push('-');
                out.push_str(&text);
                j = k;
                may_start = false;
                continue;
            }
        }
        let (k, text, single) = member(j);
        out.push_str(&text);
        // The `-` of a false range (after `\d`) starts none.
        may_start = single && !(b[j] == b'-' && j > start + 1 && !may_start);
        j = k;
    }
    out.push(']');
}

/// Why `pattern` cannot be matched as Perl means it, for what `regex` would misread rather
/// than refuse: Perl's named and relative back-references (`\k<name>`, `\g1`, `\g{-1}`;
/// `regex` calls them unknown escapes) and a POSIX class Perl does not know (`[[:foo:]]`, which
/// `regex` takes as a set of characters).
pub fn unsupported(pattern: &str) -> Option<String> {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let next = b.get(i + 2).copied();
                match b.get(i + 1) {
                    Some(b'k') if matches!(next, Some(b'<' | b'\'' | b'{')) => {
                        return Some("back-references are not supported".into());
                    }
                    Some(b'g')
                        if next.is_some_and(|c| c.is_ascii_digit() || c == b'{' || c == b'-') =>
                    {
                        return Some("back-references are not supported".into());
                    }
                    // Digits: `\1`-`\9` are back-references (`regex` says so); `\0...` is an
                    // octal escape, and `\12`, `\123` one or a back-reference by how many
                    // groups the pattern has (`regex` would call them all back-references).
                    Some(d) if d.is_ascii_digit() => {
                        return Some(digits_escape(b, i, false));
                    }
                    // Perl quotes with them only in a program's source; in a pattern read
                    // from the command line they are the letters Q and E.
                    Some(b'Q' | b'E') => {
                        return Some(
                            r"\Q...\E is not supported (escape each special character with \ instead)"
                                .into(),
                        );
                    }
                    _ => {}
                }
                i += escape_len(b, i);
            }
            // Perl's backtracking control verbs and alpha assertions (`(*FAIL)`, `(*SKIP)`,
            // `(*pla:...)`): `regex` would say "repetition operator missing expression".
            b'(' if b.get(i + 1) == Some(&b'*')
                && b.get(i + 2)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b':') =>
            {
                return Some("backtracking control verbs and alpha assertions ((*FAIL), (*SKIP), (*pla:...)...) are not supported".into());
            }
            // Perl's group forms `regex` does not have: said by name (`regex` would say
            // "unrecognized flag").
            b'(' if b.get(i + 1) == Some(&b'?') => {
                let what = match b.get(i + 2) {
                    Some(b'#') => Some("comments (?#...)"),
                    Some(b'>') => Some("atomic groups (?>...)"),
                    Some(b'|') => Some("branch reset groups (?|...)"),
                    Some(b'^') => Some("(?^...) flag groups"),
                    _ => None,
                };
                if let Some(what) = what {
                    return Some(format!("{what} are not supported"));
                }
                // (Its `?` is no quantifier.)
                i += 2;
            }
            // A possessive quantifier (`o*+`, `o?+`, `o++`, `o{2}+`): `regex` would read a
            // repetition of the repetition, and match where Perl does not.
            b'*' | b'+' | b'?' | b'}' if b.get(i + 1) == Some(&b'+') && i > 0 => {
                let quantifier = b[i] != b'}' || quantifier_ends_at(b, i);
                if quantifier {
                    return Some("possessive quantifiers (*+, ++, ?+, {n}+) are not supported (a + that is meant is written \\+)".into());
                }
                i += 1;
            }
            // A quantifier right after another (`a**`, `a+*`, `a{2}{3}`, `a*??`; the `?`
            // of a lazy one is its own): Perl refuses it, `regex` would repeat the repetition.
            b'*' | b'+' | b'?' | b'{' if i > 0 => {
                let len = match b[i] {
                    b'{' => match quantifier(&b[i..]) {
                        Some((n, _)) => n,
                        None => {
                            i += 1;
                            continue;
                        }
                    },
                    _ => 1,
                };
                let mut k = i + len;
                match b.get(k) {
                    Some(b'+') => {
                        return Some("possessive quantifiers (*+, ++, ?+, {n}+) are not supported (a + that is meant is written \\+)".into());
                    }
                    Some(b'?') => k += 1,
                    _ => {}
                }
                let next = match b.get(k) {
                    Some(b'*' | b'+' | b'?') => true,
                    Some(b'{') => quantifier(&b[k..]).is_some(),
                    _ => false,
                };
                if next {
                    return Some("nested quantifiers (a quantifier right after another, as in a** or x{2}{3}) are not allowed (a * or + that is meant is written \\* or \\+)".into());
                }
                i = k;
            }
            b'[' => {
                let end = class_end(b, i);
                let mut j = i + 1;
                while j + 1 < end {
                    if b[j] == b'\\' {
                        // In a class, digits are an octal escape (`[\101]`: `A`).
                        if b[j + 1].is_ascii_digit() {
                            return Some(digits_escape(b, j, true));
                        }
                        j += 2;
                        continue;
                    }
                    if b[j] == b'[' && matches!(b[j + 1], b'.' | b'=') {
                        let close = [b[j + 1], b']'];
                        if b[j + 2..end].windows(2).any(|w| w == close) {
                            return Some(format!(
                                "POSIX syntax [{0} {0}] is reserved for future extensions",
                                b[j + 1] as char
                            ));
                        }
                    }
                    if b[j] == b'[' && b[j + 1] == b':' {
                        let rest = &b[j + 2..end];
                        if let Some(p) = rest.windows(2).position(|w| w == b":]") {
                            let name = &rest[..p];
                            let name = name.strip_prefix(b"^").unwrap_or(name);
                            if !POSIX_CLASSES.iter().any(|c| c.as_bytes() == name) {
                                return Some(format!(
                                    "POSIX class [:{}:] unknown",
                                    String::from_utf8_lossy(name)
                                ));
                            }
                            j += 2 + p + 2;
                            continue;
                        }
                    }
                    j += 1;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    None
}

/// Why the escape of digits at `b[at]` (a `\` and a digit) cannot be matched: an octal
/// escape (`\0...`, any in a class `in_class`), one or a back-reference by the number of
/// groups (`\12`, `\123`), or a back-reference (`\1`-`\9`, or digits that are not octal).
fn digits_escape(b: &[u8], at: usize, in_class: bool) -> String {
    let digits: Vec<u8> = b[at + 1..]
        .iter()
        .take(3)
        .take_while(|c| c.is_ascii_digit())
        .copied()
        .collect();
    let octal: Vec<u8> = digits
        .iter()
        .take_while(|c| (b'0'..=b'7').contains(*c))
        .copied()
        .collect();
    // (The callers see a digit after the `\`.)
    let Some(&first) = digits.first() else {
        return "back-references are not supported".into();
    };
    let value = octal.iter().fold(0u32, |v, c| v * 8 + u32::from(c - b'0'));
    let text = String::from_utf8_lossy(&octal);
    let write = format!("\\x{{{value:02x}}}");
    if in_class && octal.is_empty() {
        let d = first as char;
        return format!(
            "\\{d} in a character class (Perl's digit {d}) is not supported: write {d}"
        );
    }
    if in_class || first == b'0' {
        format!("octal escapes (\\{text}) are not supported: write the character as {write}")
    } else if digits.len() >= 2 && !octal.is_empty() {
        // `\19` with fewer than 19 groups is `\1` (octal) and a `9`.
        let all = String::from_utf8_lossy(&digits);
        let rest = String::from_utf8_lossy(&digits[octal.len()..]);
        format!(
            "\\{all} is an octal escape or a back-reference (by the number of groups): neither is supported (as octal it is written {write}{rest})"
        )
    } else {
        "back-references are not supported".into()
    }
}

/// Whether the `}` at `b[at]` closes a quantifier (`{2}`, `{2,}`, `{,3}`), not a literal
/// brace (`\{2}`) or the end of an escape's braces (`\x{41}`).
fn quantifier_ends_at(b: &[u8], at: usize) -> bool {
    b[..at]
        .iter()
        .rposition(|&c| c == b'{')
        .is_some_and(|open| {
            quantifier(&b[open..=at]).is_some()
                && !(open >= 1 && b[open - 1] == b'\\')
                && !(open >= 2
                    && b[open - 2] == b'\\'
                    && matches!(b[open - 1], b'x' | b'o' | b'N' | b'p' | b'P'))
        })
}

/// The length of the escape at `b[at]` (a `\`): two bytes, or through its braces for those
/// that take them (`\x{41}`, `\o{101}`, `\N{U+41}`, `\p{L}`, `\P{L}`), whose digits are no
/// quantifier.
fn escape_len(b: &[u8], at: usize) -> usize {
    if matches!(b.get(at + 1), Some(b'x' | b'o' | b'N' | b'p' | b'P'))
        && b.get(at + 2) == Some(&b'{')
        && let Some(close) = b[at + 3..].iter().position(|&c| c == b'}')
    {
        return 3 + close + 1;
    }
    2
}

/// The POSIX classes Perl knows.
const POSIX_CLASSES: [&str; 14] = [
    "alpha", "alnum", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Where the character class opening at `b[at]` (a `[`) ends: the index after its `]`
/// (`b.len()` when it does not end, for `regex` to report).
fn class_end(b: &[u8], at: usize) -> usize {
    class_close(b, at).unwrap_or(b.len())
}

/// [`class_end`], `None` when the class does not end.
fn class_close(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    if b.get(i) == Some(&b'^') {
        i += 1;
    }
    // A `]` first in the class is a member.
    if b.get(i) == Some(&b']') {
        i += 1;
    }
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'[' if b.get(i + 1) == Some(&b':') => {
                // `[:alpha:]`
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b":]")
                    .map_or(i + 1, |p| i + 2 + p + 2);
            }
            b']' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// A Perl quantifier at the start of `b` (`{n}`, `{n,}`, `{n,m}`, `{,m}`, blanks allowed
/// inside): its length and its `regex` form.
fn quantifier(b: &[u8]) -> Option<(usize, String)> {
    let end = b.iter().position(|&c| c == b'}')?;
    let inner = std::str::from_utf8(&b[1..end]).ok()?;
    let number = |s: &str| -> Option<Option<u32>> {
        let s = s.trim_matches([' ', '\t']);
        if s.is_empty() {
            Some(None)
        } else if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().ok().map(Some)
        } else {
            None
        }
    };
    let q = match inner.split_once(',') {
        None => format!("{{{}}}", number(inner)??),
        Some((lo, hi)) => match (number(lo)?, number(hi)?) {
            (None, None) => return None,
            (lo, None) => format!("{{{},}}", lo.unwrap_or(0)),
            (lo, Some(hi)) => format!("{{{},{hi}}}", lo.unwrap_or(0)),
        },
    };
    Some((end + 1, q))
}

#[cfg(test)]
mod tests {
    use super::{to_rust, unsupported};

    #[test]
    fn braces_that_start_no_quantifier_are_literal() {
        for (perl, rust) in [
            ("main", "main"),
            ("{lambda", r"\{lambda"),
            ("::{lambda\\(int\\)#1}", r"::\{lambda\(int\)#1}"),
            ("a{,}", r"a\{,}"),
            ("a{}", r"a\{}"),
            ("f{x}", r"f\{x}"),
            ("a{2}", "a{2}"),
            ("a{2,}", "a{2,}"),
            ("a{2,3}", "a{2,3}"),
            ("a{ 2 , 3 }", "a{2,3}"),
            ("a{,3}", "a{0,3}"),
            ("a{", r"a\{"),
            ("[{]", "[{]"),
            ("[]{]x{", r"[\]{]x\{"),
            ("[[:alpha:]{]{", r"[[:alpha:]{]\{"),
            (r"\{a", r"\{a"),
            (r"\x{41}{", r"\x{41}\{"),
            (r"\p{L}+", r"\p{L}+"),
            (r"foo\Z", r"foo(?:\n?\z)"),
            ("x\\", "x\\"),
            // An escaped character of two bytes in a class is copied whole.
            ("[\\\u{e9}x]", "[\\\u{e9}x]"),
        ] {
            assert_eq!(to_rust(perl), rust, "{perl}");
        }
    }

    #[test]
    fn what_perl_matches_the_translation_matches() {
        for (perl, text, matches) in [
            ("{lambda", "main::{lambda()#1}::operator()", true),
            ("^a{,2}$", "aa", true),
            ("^a{,2}$", "aaa", false),
            ("^a{,}$", "a{,}", true),
            ("^a{ 2 }$", "aa", true),
            (r"main\Z", "main\n", true),
            (r"main\Z", "mainx", false),
            (r"\<", "vector<int>", true),
            (r"\<", "grow", false),
            (r"int\>", "vector<int>", true),
            (r"grow\>", "grow", false),
            (r"\<grow", "grow", false),
            (r"vector[\<]int", "vector<int>", true),
            (r"int[\>\]]", "vector<int>", true),
            (r"int[^\>]", "vector<int>", false),
            (r"[\\<]", "a\\b", true),
            (r"a\vb", "a\nb", true),
            (r"a[\v]b", "a\rb", true),
            (r"a[^\v]b", "a\nb", false),
            (r"a\vb", "a b", false),
            // Perl's members where `regex` sees nested classes and set operations.
            ("^[o&&x]ne", "one", true),
            ("^[o&&x]ne", "&ne", true),
            ("^[[o]]ne", "o]ne", true),
            ("^[[o]]ne", "one", false),
            ("round[[]", "round[", true),
            ("^[a~~b]$", "~", true),
            ("^[\\d-z]$", "-", true),
            ("^[\\d-z]$", "m", false),
            ("^[--/]$", ".", true),
            ("^[a-c-e]$", "-", true),
            ("^[a-c-e]$", "d", false),
            ("^[^-]$", "-", false),
            ("^[]-a]$", "_", true),
            ("operator[[]]", "operator[]", true),
        ] {
            // unwrap: a test, on the patterns written above (no input reaches it); a
            // failure is the test failing.
            let re = regex::Regex::new(&to_rust(perl)).unwrap();
            assert_eq!(re.is_match(text), matches, "{perl} on {text:?}");
        }
    }

    #[test]
    fn what_regex_would_misread_is_refused() {
        for (p, why) in [
            (r"(?<n>a)\k<n>", "back-references are not supported"),
            (r"(?'n'a)\k'n'", "back-references are not supported"),
            (r"(a)\k{a}", "back-references are not supported"),
            (r"(a)\g1", "back-references are not supported"),
            (r"(a)\g{-1}", "back-references are not supported"),
            ("[[:foo:]]", "POSIX class [:foo:] unknown"),
            ("x[a[:^bar:]]", "POSIX class [:bar:] unknown"),
            (
                "gro*+ow",
                "possessive quantifiers (*+, ++, ?+, {n}+) are not supported (a + that is meant is written \\+)",
            ),
            (
                "gro?+w",
                "possessive quantifiers (*+, ++, ?+, {n}+) are not supported (a + that is meant is written \\+)",
            ),
            (
                "a++",
                "possessive quantifiers (*+, ++, ?+, {n}+) are not supported (a + that is meant is written \\+)",
            ),
            (
                "a{2}+",
                "possessive quantifiers (*+, ++, ?+, {n}+) are not supported (a + that is meant is written \\+)",
            ),
            ("(?#c)grow", "comments (?#...) are not supported"),
            ("(?>grow)", "atomic groups (?>...) are not supported"),
            ("(?|grow)", "branch reset groups (?|...) are not supported"),
            ("(?^i:GROW)", "(?^...) flag groups are not supported"),
            (
                "[[.a.]]",
                "POSIX syntax [. .] is reserved for future extensions",
            ),
            (
                "x[b[=e=]]",
                "POSIX syntax [= =] is reserved for future extensions",
            ),
            (
                r"\Qa.b\E",
                r"\Q...\E is not supported (escape each special character with \ instead)",
            ),
            (r"(a)\1", "back-references are not supported"),
            (
                r"\19",
                r"\19 is an octal escape or a back-reference (by the number of groups): neither is supported (as octal it is written \x{01}9)",
            ),
            (r"\91", "back-references are not supported"),
            (
                "(*:m)",
                "backtracking control verbs and alpha assertions ((*FAIL), (*SKIP), (*pla:...)...) are not supported",
            ),
            (
                r"\012",
                r"octal escapes (\012) are not supported: write the character as \x{0a}",
            ),
            (
                r"x\0",
                r"octal escapes (\0) are not supported: write the character as \x{00}",
            ),
            (
                r"\123",
                r"\123 is an octal escape or a back-reference (by the number of groups): neither is supported (as octal it is written \x{53})",
            ),
            (
                r"[\101]",
                r"octal escapes (\101) are not supported: write the character as \x{41}",
            ),
            (
                r"[a\9]",
                r"\9 in a character class (Perl's digit 9) is not supported: write 9",
            ),
            (
                "(*FAIL)",
                "backtracking control verbs and alpha assertions ((*FAIL), (*SKIP), (*pla:...)...) are not supported",
            ),
            (
                "a(*SKIP)b",
                "backtracking control verbs and alpha assertions ((*FAIL), (*SKIP), (*pla:...)...) are not supported",
            ),
            (
                "(*pla:x)",
                "backtracking control verbs and alpha assertions ((*FAIL), (*SKIP), (*pla:...)...) are not supported",
            ),
        ] {
            assert_eq!(unsupported(p).as_deref(), Some(why), "{p}");
        }
        // Perl: "Nested quantifiers in regex".
        for p in [
            "a**",
            "a+*",
            "a?*",
            "x{2}{3}",
            "a*??",
            "a{2,}*",
            "a*{2}",
            "(ab)+?+*",
            r"\x{41}{2}*",
        ] {
            let why = unsupported(p);
            assert!(
                why.as_deref().is_some_and(
                    |w| w.starts_with("nested quantifiers") || w.starts_with("possessive")
                ),
                "{p}: {why:?}"
            );
        }
        assert_eq!(
            unsupported("a**").as_deref(),
            Some(
                "nested quantifiers (a quantifier right after another, as in a** or x{2}{3}) are not allowed (a * or + that is meant is written \\* or \\+)"
            )
        );
        for p in [
            r"\\k<n>",
            r"[\[:foo:]]",
            "[[:alpha:][:^digit:]]",
            "std::vector<int>",
            r"a\kb",
            "{lambda()#1}",
            "[:foo:]",
            "operator+",
            "a+b",
            r"\++",
            "[+]+",
            "f{x}+",
            "(?i)grow",
            "(?:a)+",
            // Lazy quantifiers, a quantified group, a brace that is no quantifier.
            "a*?b",
            "a+?",
            "a??",
            "a{2,3}?x",
            "(a*)*",
            "a*{x}",
            "(?i)a*",
            "(?=x)",
            r"a\*\*",
            "[*+?]+",
            // An escape's braces are no quantifier; an escaped brace starts none.
            r"\x{41}*",
            r"\x{20}{2}",
            r"\o{101}*",
            r"\x{41}+b",
            r"\p{L}+x",
            r"a\{2}+",
            r"\N{U+41}*",
        ] {
            assert_eq!(unsupported(p), None, "{p}");
        }
    }
}
