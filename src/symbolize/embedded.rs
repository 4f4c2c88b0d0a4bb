//! Symbols that came with the profile: a symbolized profile's `--- symbol` section (and, later,
//! a server's `/pprof/symbol` answers). Each address's line lists full names separated by
//! `--`, the real function first; an address without a line is named by its hex value.

use std::collections::BTreeMap;

use super::{Frame, SymbolTable, Symbolize};

/// Symbolizes from an address → `name--name...` map, as google-pprof's `FetchSymbols`.
pub struct Embedded<'a> {
    /// The names by address.
    pub names: &'a BTreeMap<u64, String>,
    /// Hex digits in an address.
    pub address_width: usize,
    /// Keep template arguments in short names.
    pub keep_templates: bool,
}

impl Symbolize for Embedded<'_> {
    fn symbolize(&mut self, addrs: &[u64], _warnings: &mut Vec<String>) -> SymbolTable {
        let mut t = SymbolTable::new();
        let w = self.address_width;
        for &a in addrs {
            let frames: Vec<Frame> = match self.names.get(&a) {
                Some(names) => split_names(names)
                    .map(|n| Frame::new(n.to_string(), "?".to_string(), self.keep_templates))
                    .collect(),
                None => vec![Frame::new(
                    format!("0x{a:0w$x}"),
                    "?".to_string(),
                    self.keep_templates,
                )],
            };
            t.insert(a, frames);
        }
        t
    }
}

/// Splits `a--b--c` as Perl's `split("--", ...)` does (empty trailing fields are dropped),
/// except that dashes right after `operator` belong to the name: C++'s `operator--` and
/// `operator-` (`X::operator--(int)--main` is two names, `X::operator---main` too), which
/// pprof cuts into pieces.
pub fn split_names(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let mut parts: Vec<&str> = Vec::new();
    let (mut start, mut i) = (0usize, 0usize);
    while i + 1 < b.len() {
        if b[i] != b'-' || b[i + 1] != b'-' {
            i += 1;
            continue;
        }
        let mut at = i;
        // (The keyword, not a name ending in it: `my_operator--main` is two names.)
        let before = &s[start..i];
        if before.ends_with("operator")
            && !before[..before.len() - 8]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            let run = b[i..].iter().take_while(|&&c| c == b'-').count();
            if run == 2 {
                // `operator--` and no separator after it.
                i += 2;
                continue;
            }
            // The operator's one or two dashes, then the separator.
            at = i + (run - 2).min(2);
        }
        parts.push(&s[start..at]);
        start = at + 2;
        i = start;
    }
    parts.push(&s[start..]);
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts.into_iter()
}

#[cfg(test)]
mod tests {
    use super::split_names;

    fn split(s: &str) -> Vec<&str> {
        split_names(s).collect()
    }

    #[test]
    fn names_split_at_separators_not_in_operators() {
        assert_eq!(split("f--g--main"), ["f", "g", "main"]);
        assert_eq!(split("f--g----"), ["f", "g"]);
        assert_eq!(split("--f"), ["", "f"]);
        assert_eq!(split("a---b"), ["a", "-b"]);
        assert_eq!(split(""), Vec::<&str>::new());
        assert_eq!(
            split("It::operator--(int)--main"),
            ["It::operator--(int)", "main"]
        );
        assert_eq!(split("It::operator--(int)"), ["It::operator--(int)"]);
        assert_eq!(
            split("It::operator-(It const&)--f"),
            ["It::operator-(It const&)", "f"]
        );
        assert_eq!(split("a::operator----b"), ["a::operator--", "b"]);
        assert_eq!(split("a::operator---b"), ["a::operator-", "b"]);
        assert_eq!(split("a::operator--"), ["a::operator--"]);
        assert_eq!(
            split("f--It::operator->()--g"),
            ["f", "It::operator->()", "g"]
        );
        assert_eq!(
            split("f--It::operator-=(int)"),
            ["f", "It::operator-=(int)"]
        );
        // Odd runs of dashes make odd names, never a panic.
        assert_eq!(split("a::operator-----b"), ["a::operator--", "-b"]);
        assert_eq!(split("operator--é--ü"), ["operator--é", "ü"]);
        // A name that ends in the word is no operator.
        assert_eq!(split("my_operator--main"), ["my_operator", "main"]);
        assert_eq!(split("Xoperator---b"), ["Xoperator", "-b"]);
        assert_eq!(split("a::operator--(int)--b"), ["a::operator--(int)", "b"]);
    }
}
