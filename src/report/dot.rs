//! `--dot`: the call graph in Graphviz's DOT language (pprof's `PrintDot`).
//!
//! Nodes are the report nodes with the largest cumulative values: at most `--nodecount`, and
//! none at or below `--nodefraction` of the total. A node's label is its name (split at spaces
//! and `::`), its flat value and share, and its cumulative value when that differs; its font
//! grows with the square root of its flat share. Edges join the nodes that are next to each
//! other on a stack, heaviest first; an edge is kept when it is its callee's first, or above
//! `--edgefraction` of the total and within `--maxdegree` edges of both ends.
//!
//! The text is google-pprof's to the byte. Where pprof meets edges of equal weight in hash
//! order — which decides which of them `--maxdegree` drops — rpprof takes them by the order of
//! their nodes, so the output is deterministic.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::graph::Reduced;
use crate::units::{Measure, percent, perl_int};

/// What the call graph needs besides the data.
#[derive(Debug, Clone)]
pub struct DotOptions {
    /// `--nodecount` (default 80).
    pub nodecount: i64,
    /// `--nodefraction` (default 0.005).
    pub nodefraction: f64,
    /// `--edgefraction` (default 0.001).
    pub edgefraction: f64,
    /// `--maxdegree` (default 8).
    pub maxdegree: i64,
    /// `--heapcheck`: highlight nodes with a flat value.
    pub heapcheck: bool,
    /// How values print.
    pub measure: Measure,
    /// The program, as pprof names it in the title and legend.
    pub program: String,
    /// `--pdf`: set a page size.
    pub page_size: bool,
    /// `--svg` and `--web`: no edge thinner than 1.
    pub min_width_one: bool,
}

impl Default for DotOptions {
    fn default() -> DotOptions {
        DotOptions {
            nodecount: 80,
            nodefraction: 0.005,
            edgefraction: 0.001,
            maxdegree: 8,
            heapcheck: false,
            measure: Measure::Samples,
            program: String::new(),
            page_size: false,
            min_width_one: false,
        }
    }
}

/// Perl's `int()` of a float.
fn trunc(v: f64) -> f64 {
    if v.is_finite() { v.trunc() } else { v }
}

/// `s` inside a DOT quoted string: `"` and `\` escaped (pprof writes them as they are,
/// which ends the string early: invalid DOT, or attributes taken from a name).
fn quoted(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['"', '\\']) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut o = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            o.push('\\');
        }
        o.push(c);
    }
    std::borrow::Cow::Owned(o)
}

/// pprof's label of a node: whitespace runs and `::` become line breaks (and `"` and `\`
/// are escaped, see [`quoted`]).
fn label(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 8);
    let mut in_space = false;
    for c in name.chars() {
        // Perl's \s: space, \t, \n, \r, \f and \v.
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '\x0b') {
            if !in_space {
                s.push_str("\\n");
            }
            in_space = true;
        } else {
            in_space = false;
            if matches!(c, '"' | '\\') {
                s.push('\\');
            }
            s.push(c);
        }
    }
    s.replace("::", "\\n")
}

/// Writes the graph of `reduced` whose edges come from `paths` (each stack's node keys,
/// innermost first, with its value); `overall_total` is the profile's total before
/// `--focus`/`--ignore`. Returns `false`, having written nothing, when no node is left to
/// print; messages for the user go to `notes`.
pub fn write(
    out: &mut dyn Write,
    reduced: &Reduced,
    paths: &[(Vec<std::sync::Arc<str>>, f64)],
    overall_total: f64,
    o: &DotOptions,
    notes: &mut Vec<String>,
) -> io::Result<bool> {
    let m = o.measure;
    let (flat, cum, seen) = reduced.flat_cum();
    let local_total = crate::units::sum(flat);
    let nodelimit = trunc(o.nodefraction * local_total);
    let edgelimit = trunc(o.edgefraction * local_total);

    let mut list: Vec<usize> = (0..reduced.nodes.len()).filter(|&i| seen[i]).collect();
    list.sort_by(|&a, &b| {
        cum[b]
            .abs()
            .partial_cmp(&cum[a].abs())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| reduced.nodes[a].key.cmp(&reduced.nodes[b].key))
    });
    let mut last: i64 = o.nodecount.saturating_sub(1);
    if last > list.len() as i64 - 1 {
        last = list.len() as i64 - 1;
    }
    while last >= 0 && cum[list[last as usize]].abs() <= nodelimit {
        last -= 1;
    }
    if last < 0 {
        // The caller says "no nodes to print", once.
        return Ok(false);
    }
    if nodelimit > 0.0 || edgelimit > 0.0 {
        notes.push(format!(
            "Dropping nodes with <= {} {}; edges with <= {} abs({})",
            m.unparse(nodelimit),
            m.units(),
            m.unparse(edgelimit),
            m.units()
        ));
    }

    writeln!(
        out,
        "digraph \"{}; {} {}\" {{",
        quoted(&o.program),
        m.unparse(overall_total),
        m.units()
    )?;
    if o.page_size {
        writeln!(out, "size=\"8,11\"")?;
    }
    writeln!(out, "node [width=0.375,height=0.25];")?;
    writeln!(
        out,
        "Legend [shape=box,fontsize=24,shape=plaintext,label=\"{}\\l{}\\l{}\\l{}\\l{}\\l\"];",
        quoted(&o.program),
        format_args!("Total {}: {}", m.units(), m.unparse(overall_total)),
        format_args!("Focusing on: {}", m.unparse(local_total)),
        format_args!(
            "Dropped nodes with <= {} abs({})",
            m.unparse(nodelimit),
            m.units()
        ),
        format_args!(
            "Dropped edges with <= {} {}",
            m.unparse(edgelimit),
            m.units()
        ),
    )?;

    // Node key → its number in the graph (1-based, in the order printed).
    let mut node: HashMap<&str, usize> = HashMap::new();
    for (n, &i) in list[..=last as usize].iter().enumerate() {
        let f = flat[i];
        let c = cum[i];
        let fs = if local_total > 0.0 {
            8.0 + 50.0 * (f / local_total).abs().sqrt()
        } else {
            8.0
        };
        let key: &str = &reduced.nodes[i].key;
        node.insert(key, n + 1);
        let extra = if f != c {
            format!("\\rof {} ({})", m.unparse(c), percent(c, local_total))
        } else {
            String::new()
        };
        let style = if !o.heapcheck {
            ""
        } else if f > 0.0 {
            ",style=filled,fillcolor=gray"
        } else if f < 0.0 {
            ",peripheries=3"
        } else {
            ""
        };
        writeln!(
            out,
            "N{} [label=\"{}\\n{} ({}){}\\r\",shape=box,fontsize={:.1}{}];",
            n + 1,
            label(key),
            m.unparse(f),
            percent(f, local_total),
            extra,
            fs,
            style
        )?;
    }

    // Edges between printed nodes, summed over the stacks.
    let mut edges: HashMap<(usize, usize), f64> = HashMap::new();
    let mut inline_dst: HashMap<usize, bool> = HashMap::new();
    for (path, v) in paths {
        for i in 1..path.len() {
            let (src, dst): (&str, &str) = (&path[i], &path[i - 1]);
            if let (Some(&s), Some(&d)) = (node.get(src), node.get(dst)) {
                *edges.entry((s, d)).or_insert(0.0) += v;
                inline_dst
                    .entry(d)
                    .or_insert_with(|| dst.contains("(inline)"));
            }
        }
    }
    let mut order: Vec<((usize, usize), f64)> = edges.into_iter().collect();
    order.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
    });
    let mut indegree: HashMap<usize, i64> = HashMap::new();
    let mut outdegree: HashMap<usize, i64> = HashMap::new();
    for ((src, dst), n) in order {
        let outd = *outdegree.entry(src).or_insert(0);
        let ind = *indegree.entry(dst).or_insert(0);
        let keep = if ind == 0 {
            // Needed for reachability.
            true
        } else if n.abs() <= edgelimit {
            false
        } else {
            !(outd >= o.maxdegree || ind >= o.maxdegree)
        };
        if !keep {
            continue;
        }
        *outdegree.entry(src).or_insert(0) += 1;
        *indegree.entry(dst).or_insert(0) += 1;
        let mut fraction = if local_total != 0.0 {
            (3.0 * (n / local_total)).abs()
        } else {
            0.0
        };
        if fraction > 1.0 {
            fraction = 1.0;
        }
        let mut w = fraction * 2.0;
        if w < 1.0 && o.min_width_one {
            w = 1.0;
        }
        let mut weight = n.abs().powf(0.7);
        if weight > 100000.0 {
            weight = 100000.0;
        }
        let mut style = format!("setlinewidth({w:.6})");
        if inline_dst.get(&dst).copied().unwrap_or(false) {
            style.push_str(",dashed");
        }
        writeln!(
            out,
            "N{src} -> N{dst} [label={}, weight={}, style=\"{style}\"];",
            m.unparse(n),
            perl_int(weight)
        )?;
    }
    writeln!(out, "}}")?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_split_like_pprof() {
        assert_eq!(label("a::b c  d"), "a\\nb\\nc\\nd");
        assert_eq!(label("f (inline)"), "f\\n(inline)");
    }

    /// A name with `"` or `\` stays inside its label (pprof's ends the string there: a
    /// C++ literal operator `operator"" _km` made invalid DOT, and a symbol section could
    /// add attributes such as `URL=`).
    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(label("operator\"\" _km"), "operator\\\"\\\"\\n_km");
        assert_eq!(
            label("f\",URL=\"javascript:x\",k=\""),
            "f\\\",URL=\\\"javascript:x\\\",k=\\\""
        );
        assert_eq!(label("a\\b"), "a\\\\b");
        assert_eq!(quoted("/tmp/x\"y"), "/tmp/x\\\"y");
        assert_eq!(quoted("/tmp/plain"), "/tmp/plain");
    }
}
