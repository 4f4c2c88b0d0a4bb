//! `--collapsed`: one line per stack, `root;caller;...;leaf value`, the input of FlameGraph's
//! `flamegraph.pl` and of inferno (pprof's `PrintCollapsedStacks`).
//!
//! Each address becomes the full names of its frames, the real function first and the
//! functions inlined into it after, marked `[inline]`; an address without symbols is its hex
//! value, a frame without a name its `file:line`. Two differences from google-pprof, both
//! deliberate: names carry no `<0000000000001170>` symbol-address tag (pprof leaks the tag of
//! names it took from `nm`), and lines come in a fixed order (sorted by text) rather than in
//! Perl's hash order.

use std::io::{self, Write};

use crate::graph::{Stacks, addr_key};
use crate::symbolize::SymbolTable;
use crate::units::perl_int;

/// A full name without pprof's trailing symbol-address tag: `<` and the address in 16 hex
/// digits (8 in 32-bit programs) `>`. Template arguments (`_M_invoke<0>`) stay.
pub fn untagged(full: &str) -> &str {
    if let Some(body) = full.strip_suffix('>')
        && let Some(open) = body.rfind('<')
    {
        let hex = &body[open + 1..];
        if (hex.len() == 16 || hex.len() == 8)
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return &full[..open];
        }
    }
    full
}

/// How frames are named in the lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// pprof's `--collapsed`: full names, inlined frames marked `[inline]`.
    Full,
    /// `--text`'s short names (no arguments, no template arguments), inlined frames marked
    /// ` (inline)`: what `--flame` draws unless asked for full names.
    Short,
}

/// What stands for a `;` inside a name in the lines of a flame graph: `;` separates the
/// frames there (Rust's `[u8; 2]` would be cut in two). GREEK QUESTION MARK looks the same.
pub const FLAME_SEMICOLON: &str = "\u{37e}";

/// pprof's `ExtractSymbolNameInlineStack`: the names at one address, innermost first.
fn names_at(symbols: &SymbolTable, a: u64, width: usize, how: Names, out: &mut Vec<String>) {
    match symbols.get(a) {
        Some(frames) => {
            for (i, f) in frames.iter().enumerate().rev() {
                let file = if f.fileline == "?" || f.fileline == ":0" {
                    "??:0".to_string()
                } else {
                    f.fileline.to_string()
                };
                let name = if &*f.function == "??" {
                    &file
                } else if how == Names::Short {
                    &f.short
                } else {
                    untagged(&f.function)
                };
                let suffix = match (i, how) {
                    (0, _) => "",
                    (_, Names::Full) => "[inline]",
                    (_, Names::Short) => " (inline)",
                };
                out.push(format!("{name}{suffix}"));
            }
        }
        None => out.push(addr_key(a, width)),
    }
}

/// The collapsed stacks of `stacks`: `root;...;leaf` and its value, sorted by text. Stacks
/// of different addresses can give the same text (two call sites in one function); they
/// stay separate lines, as pprof prints them.
pub fn lines(stacks: &Stacks, symbols: &SymbolTable, width: usize) -> Vec<(String, f64)> {
    lines_named(stacks, symbols, width, Names::Full, false)
}

/// [`lines`], with frames named as `how` says; for a flame graph (`flame`), a `;` in a
/// name as [`FLAME_SEMICOLON`].
pub fn lines_named(
    stacks: &Stacks,
    symbols: &SymbolTable,
    width: usize,
    how: Names,
    flame: bool,
) -> Vec<(String, f64)> {
    let mut lines: Vec<(String, f64)> = Vec::with_capacity(stacks.map.len());
    let mut names: Vec<String> = Vec::new();
    for (stack, &v) in &stacks.map {
        names.clear();
        for &a in stack {
            names_at(symbols, a, width, how, &mut names);
        }
        if flame {
            for n in names.iter_mut().filter(|n| n.contains(';')) {
                *n = n.replace(';', FLAME_SEMICOLON);
            }
        }
        names.reverse();
        lines.push((names.join(";"), v));
    }
    lines.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
    });
    lines
}

/// Writes the collapsed stacks of `stacks`.
pub fn write(
    out: &mut dyn Write,
    stacks: &Stacks,
    symbols: &SymbolTable,
    width: usize,
) -> io::Result<()> {
    for (text, v) in lines(stacks, symbols, width) {
        writeln!(out, "{text} {}", perl_int(v))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_address_tags_are_removed() {
        assert_eq!(untagged("main<0000000000001170>"), "main");
        assert_eq!(untagged("f<00401000>"), "f");
        assert_eq!(untagged("_M_invoke<0>"), "_M_invoke<0>");
        assert_eq!(untagged("std::vector<int>"), "std::vector<int>");
    }
}
