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

/// Splits `a--b--c` as Perl's `split("--", ...)` does: empty trailing fields are dropped.
pub fn split_names(s: &str) -> impl Iterator<Item = &str> {
    let mut parts: Vec<&str> = s.split("--").collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts.into_iter()
}
