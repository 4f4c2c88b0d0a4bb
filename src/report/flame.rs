//! `--flame`: an SVG flame graph, drawn by inferno from the `--collapsed` stacks (pprof never
//! had one; users piped `--collapsed` into FlameGraph's `flamegraph.pl`).
//!
//! Frames are named as `--text` names them (short names: no argument lists, no template
//! arguments, which fill whole frames in C++), or in full with `--full_names`.
//!
//! With `--base`, a differential flame graph: each stack's base and profile values are given
//! to inferno as `stack before after`, so frame widths are the profile's values and the colour
//! says what grew (red) and what shrank (blue), as in FlameGraph's `difffolded.pl`.
//!
//! inferno counts in whole units: values are truncated as `--collapsed` prints them, and
//! stacks whose value is below one (negative contention counts, stacks only in the base of a
//! differential graph) are not drawn.

use std::collections::BTreeMap;
use std::io::{self, Write};

use inferno::flamegraph::{self, Palette, color::BasicPalette};

use crate::graph::Stacks;
use crate::report::collapsed::{self, Names};
use crate::symbolize::SymbolTable;

/// What the graph is of, for its title and labels.
#[derive(Debug, Clone)]
pub struct FlameOptions {
    /// The title: program and profile.
    pub title: String,
    /// The line under the title: what is measured, and the base of a differential graph.
    pub subtitle: String,
    /// The unit of the values ("bytes", "samples", ...), in the frames' tooltips.
    pub count_name: String,
    /// A memory profile: inferno's memory palette instead of the CPU one.
    pub memory: bool,
    /// Full function names (arguments, template arguments) instead of `--text`'s short ones
    /// (`--full_names`).
    pub full_names: bool,
}

/// Why no graph was drawn.
#[derive(Debug)]
pub enum FlameError {
    /// No stack has a value of one or more.
    Empty,
    /// Writing failed.
    Io(io::Error),
}

/// Whole units, as inferno reads them; `None` below one.
fn count(v: f64) -> Option<u64> {
    let t = v.trunc();
    // Saturating: values past u64 are not real counts.
    (t >= 1.0).then_some(t as u64)
}

/// The folded lines inferno reads: `stack value`, or `stack before after` with a base;
/// frames named as `names` says.
pub fn folded(
    stacks: &Stacks,
    base: Option<&Stacks>,
    symbols: &SymbolTable,
    width: usize,
    names: Names,
) -> Vec<String> {
    let now = collapsed::lines_named(stacks, symbols, width, names, true);
    match base {
        None => now
            .into_iter()
            .filter_map(|(s, v)| count(v).map(|c| format!("{s} {c}")))
            .collect(),
        Some(base) => {
            // Stacks of different addresses with the same names are summed per side.
            let mut both: BTreeMap<String, (f64, f64)> = BTreeMap::new();
            for (s, v) in collapsed::lines_named(base, symbols, width, names, true) {
                both.entry(s).or_default().0 += v;
            }
            for (s, v) in now {
                both.entry(s).or_default().1 += v;
            }
            both.into_iter()
                .filter_map(|(s, (before, after))| {
                    count(after).map(|a| format!("{s} {} {a}", count(before).unwrap_or(0)))
                })
                .collect()
        }
    }
}

/// Writes the flame graph of `stacks` (against `base` when given) as SVG.
pub fn write(
    out: &mut dyn Write,
    stacks: &Stacks,
    base: Option<&Stacks>,
    symbols: &SymbolTable,
    width: usize,
    fo: &FlameOptions,
) -> Result<(), FlameError> {
    let names = if fo.full_names {
        Names::Full
    } else {
        Names::Short
    };
    let lines = folded(stacks, base, symbols, width, names);
    if lines.is_empty() {
        return Err(FlameError::Empty);
    }
    let mut opts = flamegraph::Options::default();
    opts.title = fo.title.clone();
    opts.subtitle = Some(fo.subtitle.clone());
    opts.count_name = fo.count_name.clone();
    opts.colors = Palette::Basic(if fo.memory {
        BasicPalette::Mem
    } else {
        BasicPalette::Hot
    });
    // The same profile draws the same picture: colours from the names, not at random.
    opts.hash = true;
    opts.deterministic = true;
    flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out).map_err(FlameError::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `;` inside a name (Rust's `[u8; 2]`) does not cut its frame in two; the stack's
    /// own frames stay apart.
    #[test]
    fn a_semicolon_in_a_name_is_no_frame_boundary() {
        use crate::symbolize::Frame;
        let mut symbols = SymbolTable::new();
        let f = |n: &str| vec![Frame::new(n, "a.rs:1".to_string(), true)];
        symbols.insert(0x10, f("alloc::new_uninit<[u8; 2]>"));
        symbols.insert(0x20, f("main"));
        let mut stacks = Stacks::default();
        stacks.add(vec![0x10, 0x20], 3.0);
        let lines = folded(&stacks, None, &symbols, 16, Names::Full);
        assert_eq!(lines, ["main;alloc::new_uninit<[u8\u{37e} 2]> 3"]);
        let lines = folded(&stacks, None, &symbols, 16, Names::Short);
        assert_eq!(lines, ["main;alloc::new_uninit<[u8\u{37e} 2]> 3"]);
        // --collapsed keeps the name as pprof prints it.
        let collapsed = crate::report::collapsed::lines(&stacks, &symbols, 16);
        assert_eq!(collapsed[0].0, "main;alloc::new_uninit<[u8; 2]>");
    }

    #[test]
    fn counts_are_whole_and_positive() {
        assert_eq!(count(2.9), Some(2));
        assert_eq!(count(1.0), Some(1));
        assert_eq!(count(0.99), None);
        assert_eq!(count(-5.0), None);
        assert_eq!(count(f64::NAN), None);
    }
}
