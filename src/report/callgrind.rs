//! `--callgrind`: the call graph in callgrind's format, for KCachegrind (pprof's
//! `ExtractCalls` and `PrintCallgrind`).
//!
//! Every stack charges its value to its leaf (`fl=`/`fn=` block with a cost line) and to each
//! caller → callee pair on it (a block with `cfl=`/`cfn=` and `calls=`). google-pprof names a
//! frame `file:line:function`, expands inlined frames (marked `[inline]`), and — a mistake
//! rpprof keeps so that the output is the same — skips the outermost call of every stack and
//! counts call pairs by address index while walking the inline-expanded frames. jeprof does
//! neither: one frame per address, every call.
//!
//! Blocks are sorted by caller file and line, as pprof sorts them, then by the rest of the
//! call (pprof leaves those ties in hash order), and the `(N)` name compression is numbered in
//! that order, so the output is deterministic. Calls are split into file, line and function
//! by pprof's own pattern, with its flaws (see [`split_call`]), so that the output is the
//! same.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::OnceLock;

use regex::Regex;

use crate::graph::Stacks;
use crate::symbolize::SymbolTable;
use crate::units::perl_int;

/// pprof's `ExtractSymbolLocation` (jeprof's when `jeprof`): `file:line:function` of the
/// outer frame.
fn location(symbols: &SymbolTable, a: u64, jeprof: bool) -> String {
    match symbols.get(a).and_then(|f| f.first()) {
        Some(f) => {
            let file = if f.fileline == "?" || (!jeprof && f.fileline == ":0") {
                "??:0".to_string()
            } else {
                f.fileline.to_string()
            };
            format!("{file}:{}", f.short)
        }
        None => "??:0:unknown".to_string(),
    }
}

/// pprof's `ExtractSymbolLocationInlineStack`: the frames at an address, innermost first.
fn inline_locations(symbols: &SymbolTable, a: u64, out: &mut Vec<String>) {
    match symbols.get(a) {
        Some(frames) => {
            for (i, f) in frames.iter().enumerate().rev() {
                let file = if f.fileline == "?" || f.fileline == ":0" {
                    "??:0".to_string()
                } else {
                    f.fileline.to_string()
                };
                let suffix = if i == 0 { "" } else { "[inline]" };
                out.push(format!("{file}:{}{suffix}", f.short));
            }
        }
        None => out.push("??:0:unknown".to_string()),
    }
}

/// pprof's `ExtractCalls`: `callee` and `caller -> callee` → value.
pub fn extract_calls(stacks: &Stacks, symbols: &SymbolTable, jeprof: bool) -> HashMap<String, f64> {
    let mut calls: HashMap<String, f64> = HashMap::new();
    let mut add = |k: String, v: f64| *calls.entry(k).or_insert(0.0) += v;
    let mut frames: Vec<String> = Vec::new();
    for (stack, &v) in &stacks.map {
        if jeprof {
            let Some(&leaf) = stack.first() else {
                add("??:0:unknown".to_string(), v);
                continue;
            };
            let mut dest = location(symbols, leaf, true);
            add(dest.clone(), v);
            for &a in &stack[1..] {
                let src = location(symbols, a, true);
                add(format!("{src} -> {dest}"), v);
                dest = src;
            }
            continue;
        }
        frames.clear();
        match stack.first() {
            Some(&leaf) => inline_locations(symbols, leaf, &mut frames),
            // Perl looks up an undefined address: no symbol.
            None => frames.push("??:0:unknown".to_string()),
        }
        for &a in stack.iter().skip(1) {
            inline_locations(symbols, a, &mut frames);
        }
        // Perl reads past the end of a short list as undefined: "".
        let at = |i: usize| frames.get(i).map_or("", String::as_str);
        add(at(0).to_string(), v);
        // pprof's loop runs while i < $#address: up to the number of addresses less one.
        let last = stack.len().saturating_sub(1);
        for i in 1..last {
            add(format!("{} -> {}", at(i), at(i - 1)), v);
        }
    }
    calls
}

/// One call, split as pprof's pattern splits it: caller file, line, function, and the
/// callee's, if the pattern found one. What the pattern does not match is empty (Perl's
/// undefined captures).
struct Call<'a> {
    caller_file: &'a str,
    caller_line: &'a str,
    caller_function: &'a str,
    callee: Option<(&'a str, &'a str, &'a str)>,
}

fn call_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // SANITY: a constant pattern.
        #[allow(clippy::unwrap_used)]
        Regex::new(r"([^:]+):([0-9]+):([^ ]+)( -> ([^:]+):([0-9]+):(.+))?").unwrap()
    })
}

/// pprof's `/([^:]+):(\d+):([^ ]+)( -> ([^:]+):(\d+):(.+))?/` on a call: unanchored, so
/// a caller's function ends at its first space (and then the callee is lost), and a place
/// without a line number (`file:?`, jeprof's `file:12 (discriminator 3)`) matches nothing.
fn split_call(k: &str) -> Call<'_> {
    match call_re().captures(k) {
        Some(c) => {
            let g = |i: usize| c.get(i).map_or("", |m| m.as_str());
            Call {
                caller_file: g(1),
                caller_line: g(2),
                caller_function: g(3),
                callee: c.get(6).map(|_| (g(5), g(6), g(7))),
            }
        }
        None => Call {
            caller_file: "",
            caller_line: "",
            caller_function: "",
            callee: None,
        },
    }
}

/// pprof's `CompressedCGName`: a name the first time with its number, the number after.
fn compressed(
    out: &mut dyn Write,
    key: &str,
    val: &str,
    map: &mut HashMap<String, usize>,
) -> io::Result<()> {
    if val.len() <= 3 {
        return writeln!(out, "{key}={val}");
    }
    if let Some(idx) = map.get(val) {
        return writeln!(out, "{key}=({idx})");
    }
    let idx = map.len() + 1;
    map.insert(val.to_string(), idx);
    writeln!(out, "{key}=({idx}) {val}")
}

/// Writes the callgrind file for `calls` (see [`extract_calls`]).
pub fn write(out: &mut dyn Write, calls: &HashMap<String, f64>) -> io::Result<()> {
    writeln!(out, "events: Hits\n")?;
    let mut entries: Vec<(&str, Call<'_>, f64)> = calls
        .iter()
        .map(|(k, &count)| (k.as_str(), split_call(k), count))
        .collect();
    let line_num = |s: &str| s.parse::<f64>().unwrap_or(0.0);
    entries.sort_by(|a, b| {
        a.1.caller_file
            .cmp(b.1.caller_file)
            .then(
                line_num(a.1.caller_line)
                    .partial_cmp(&line_num(b.1.caller_line))
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
            .then(a.0.cmp(b.0))
    });
    let mut files: HashMap<String, usize> = HashMap::new();
    let mut functions: HashMap<String, usize> = HashMap::new();
    for (_, c, count) in &entries {
        let count = perl_int(*count);
        compressed(out, "fl", c.caller_file, &mut files)?;
        compressed(out, "fn", c.caller_function, &mut functions)?;
        if let Some((file, line, function)) = c.callee {
            compressed(out, "cfl", file, &mut files)?;
            compressed(out, "cfn", function, &mut functions)?;
            writeln!(out, "calls={count} {line}")?;
        }
        writeln!(out, "{} {count}\n", c.caller_line)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_split_as_pprof_splits_them() {
        let c = split_call("a.c:12:f -> b.c:3:g h");
        assert_eq!(
            (c.caller_file, c.caller_line, c.caller_function),
            ("a.c", "12", "f")
        );
        assert_eq!(c.callee, Some(("b.c", "3", "g h")));
        // A caller with a space loses its callee.
        let c = split_call("a.c:12:operator new -> b.c:3:g");
        assert_eq!(c.caller_function, "operator");
        assert!(c.callee.is_none());
        // jeprof keeps addr2line's discriminators: nothing matches.
        let c = split_call("a.c:68 (discriminator 3):main");
        assert_eq!(
            (c.caller_file, c.caller_line, c.caller_function),
            ("", "", "")
        );
    }
}
