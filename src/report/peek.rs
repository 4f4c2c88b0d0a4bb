//! `--peek=<re>` (Go pprof's `peek`): for every node whose name matches, the nodes that call
//! it and the nodes it calls, each with the value that went through that call.
//!
//! ```text
//! -----------------------------------------------------+-------------
//!      flat  flat%      cum   cum%      calls  calls% | context
//! -----------------------------------------------------+-------------
//!                                          0.9  100.0% |   main
//!       0.9  30.8%      0.9  30.8%                    | index::grow
//!                                          0.5   55.0% |   Slab::alloc
//! ```
//!
//! Callers are above the node, callees below, heaviest first; a call counts once per stack
//! however often it recurs there. Values and percentages print as in `--text`.

use std::io::{self, Write};

use regex::Regex;
use rustc_hash::FxHashMap;

use crate::graph::KeyPaths;
use crate::units::{Measure, push_percent, push_right};

/// One node's line and the calls into and out of it (other nodes by their ids).
#[derive(Default)]
struct Entry {
    flat: f64,
    cum: f64,
    callers: FxHashMap<u32, f64>,
    callees: FxHashMap<u32, f64>,
}

const RULE: &str = "-----------------------------------------------------+-------------\n";

/// Writes the peek report of `paths` (each stack's nodes, innermost first, with its value:
/// [`crate::graph::translate_stack_ids`]) for the nodes matching `re`. `total` is the
/// profile's total (for the percentages). False when no node matches.
pub fn write(
    out: &mut dyn Write,
    paths: &KeyPaths,
    re: &Regex,
    measure: Measure,
    total: f64,
) -> io::Result<bool> {
    let names = &paths.names;
    // Nodes printed alike are one (two frames of unknown file, keyed apart by address, both
    // print as `cfree ??:0`): each id stands for the first of its name.
    let mut first: FxHashMap<&str, u32> = FxHashMap::default();
    let one: Vec<u32> = names
        .iter()
        .enumerate()
        .map(|(i, n)| *first.entry(n).or_insert(i as u32))
        .collect();
    let mut entries: FxHashMap<u32, Entry> = FxHashMap::default();
    // Per node: whether it matches, once looked at.
    let mut matched: Vec<Option<bool>> = vec![None; names.len()];
    // Each node, caller and callee once per stack.
    let mut seen_node: Vec<u32> = Vec::new();
    let mut seen_edge: Vec<(u32, u32, bool)> = Vec::new();
    for (path, v) in &paths.paths {
        seen_node.clear();
        seen_edge.clear();
        for (i, &node) in path.iter().enumerate() {
            let node = one[node as usize];
            let m =
                *matched[node as usize].get_or_insert_with(|| re.is_match(&names[node as usize]));
            if !m {
                continue;
            }
            let e = entries.entry(node).or_default();
            if i == 0 {
                e.flat += v;
            }
            if !seen_node.contains(&node) {
                seen_node.push(node);
                e.cum += v;
            }
            if let Some(&caller) = path.get(i + 1) {
                let caller = one[caller as usize];
                let k = (node, caller, true);
                if !seen_edge.contains(&k) {
                    seen_edge.push(k);
                    *e.callers.entry(caller).or_default() += v;
                }
            }
            if i > 0 {
                let callee = one[path[i - 1] as usize];
                let k = (node, callee, false);
                if !seen_edge.contains(&k) {
                    seen_edge.push(k);
                    *e.callees.entry(callee).or_default() += v;
                }
            }
        }
    }
    if entries.is_empty() {
        return Ok(false);
    }
    let name_of = |id: u32| -> &str { &names[id as usize] };
    let mut order: Vec<(&str, &Entry)> = entries.iter().map(|(&k, e)| (name_of(k), e)).collect();
    order.sort_by(|a, b| {
        b.1.cum
            .abs()
            .partial_cmp(&a.1.cum.abs())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.0.cmp(b.0))
    });
    out.write_all(RULE.as_bytes())?;
    out.write_all(b"     flat  flat%      cum   cum%      calls  calls% | context\n")?;
    out.write_all(RULE.as_bytes())?;
    let mut line: Vec<u8> = Vec::new();
    let mut field: Vec<u8> = Vec::new();
    let mut cell = |line: &mut Vec<u8>, width: usize, value: Option<(f64, f64)>, pct: bool| {
        field.clear();
        if let Some((v, of)) = value {
            if pct {
                push_percent(&mut field, v, of);
            } else {
                measure.push_unparse(&mut field, v);
            }
        }
        push_right(line, width, &field);
        line.push(b' ');
    };
    for (name, e) in order {
        let mut buf: Vec<u8> = Vec::new();
        for (list, is_callers) in [(&e.callers, true), (&e.callees, false)] {
            if !is_callers {
                line.clear();
                cell(&mut line, 9, Some((e.flat, 0.0)), false);
                cell(&mut line, 6, Some((e.flat, total)), true);
                cell(&mut line, 8, Some((e.cum, 0.0)), false);
                cell(&mut line, 6, Some((e.cum, total)), true);
                line.extend_from_slice(&[b' '; 19]);
                line.extend_from_slice(b"| ");
                line.extend_from_slice(name.as_bytes());
                line.push(b'\n');
                buf.extend_from_slice(&line);
            }
            let mut v: Vec<(&str, &f64)> = list.iter().map(|(&k, v)| (name_of(k), v)).collect();
            v.sort_by(|a, b| {
                b.1.abs()
                    .partial_cmp(&a.1.abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| a.0.cmp(b.0))
            });
            for (other, value) in v {
                line.clear();
                line.extend_from_slice(&[b' '; 33]);
                cell(&mut line, 10, Some((*value, 0.0)), false);
                cell(&mut line, 7, Some((*value, e.cum)), true);
                line.extend_from_slice(b"|   ");
                line.extend_from_slice(other.as_bytes());
                line.push(b'\n');
                buf.extend_from_slice(&line);
            }
        }
        out.write_all(&buf)?;
        out.write_all(RULE.as_bytes())?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nodes printed alike (frames of unknown file, keyed apart by their addresses) are
    /// one entry, one caller and one callee, their values added: the report is the same
    /// whichever of the two a stack has.
    #[test]
    fn nodes_printed_alike_are_one() {
        let k = |paths: &[(&[u32], f64)]| KeyPaths {
            names: ["cfree ??:0", "main", "cfree ??:0", "run"]
                .iter()
                .map(|&s| std::sync::Arc::from(s))
                .collect(),
            addrs: vec![Some(0x10), None, Some(0x20), None],
            paths: paths.iter().map(|(p, v)| (p.to_vec(), *v)).collect(),
        };
        // (unwrap: on the test's own expression and output, which are valid.)
        let write_of = |k: &KeyPaths| {
            let mut out = Vec::new();
            let re = Regex::new("cfree|run").unwrap();
            assert!(write(&mut out, k, &re, Measure::Samples, 10.0).unwrap());
            String::from_utf8(out).unwrap()
        };
        let two = write_of(&k(&[(&[0, 1], 3.0), (&[2, 1], 4.0), (&[3, 2, 1], 2.0)]));
        let one = write_of(&k(&[(&[0, 1], 3.0), (&[0, 1], 4.0), (&[3, 0, 1], 2.0)]));
        assert_eq!(two, one);
        assert_eq!(two.matches("| cfree ??:0\n").count(), 1, "{two}");
        assert!(two.contains("        7  70.0%        9  90.0%"), "{two}");
    }
}
