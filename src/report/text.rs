//! `--text`: one line per node — flat, flat%, sum%, cum, cum%, name — sorted by flat (or
//! `--cum`) value, then by name; plus, with `--stacks`, every stack and (heap profiles) every
//! record as the heap profiler's leak report lists it.

use std::io::{self, Write};

use crate::graph::{Granularity, Node, Reduced, Stacks, addr_key};
use crate::split::Work;
use crate::symbolize::SymbolTable;
use crate::units::{Measure, perl_int, perl_num, push_percent, push_right};

/// What the text report needs besides the data.
#[derive(Debug, Clone)]
pub struct TextOptions {
    /// Sort by cumulative value.
    pub cum: bool,
    /// How values print.
    pub measure: Measure,
    /// Granularity (addresses prefix the symbol).
    pub granularity: Granularity,
    /// Keep template arguments in names.
    pub keep_templates: bool,
    /// Hex digits in an address.
    pub address_width: usize,
    /// Print at most this many lines (`None`: all).
    pub limit: Option<usize>,
    /// `--stacks` leak records: print the allocation site as `unknown`, as pprof does.
    pub unknown_leaf: bool,
}

/// The `Total:` line: printed only when the total is not zero; `thread` labels jeprof's
/// per-thread reports.
pub fn write_total(
    out: &mut dyn Write,
    total: f64,
    measure: Measure,
    thread: Option<&str>,
) -> io::Result<()> {
    if total != 0.0 {
        let label = thread.map(|t| format!(" (t{t})")).unwrap_or_default();
        writeln!(
            out,
            "Total{label}: {} {}",
            measure.unparse(total),
            measure.units()
        )?;
    }
    Ok(())
}

/// pprof's `PrintText`: the table of nodes.
pub fn write_table(
    out: &mut dyn Write,
    reduced: &Reduced,
    symbols: &SymbolTable,
    o: &TextOptions,
) -> io::Result<()> {
    let (flat, cum, seen) = reduced.flat_cum();
    let total = crate::units::sum(flat);
    let sort_by = if o.cum { cum } else { flat };
    // By value, then by name (node names are unique: the order is total). Many nodes share
    // a value (most callers have no flat value): the value and the names' first 16 bytes are
    // compared as numbers, the names in full only when those are the same.
    let mut order: Vec<(u64, u128, usize)> = (0..reduced.nodes.len())
        .filter(|&i| seen[i])
        .map(|i| {
            (
                descending(sort_by[i]),
                name_prefix(&reduced.nodes[i].key),
                i,
            )
        })
        .collect();
    let by_value = |a: &(u64, u128, usize), b: &(u64, u128, usize)| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| reduced.nodes[a.2].key.cmp(&reduced.nodes[b.2].key))
    };
    // With a line limit (the shell's top), only the first lines are put in order.
    if let Some(l) = o.limit
        && l < order.len()
    {
        if l == 0 {
            order.clear();
        } else {
            order.select_nth_unstable_by(l - 1, by_value);
            order.truncate(l);
        }
    }
    // The order is total, so an unstable sort gives the same lines (and is faster).
    order.sort_unstable_by(by_value);
    // The running sum, added up in the lines' order; the lines of a long table are then
    // put together in two halves on two cores.
    let mut running = 0.0;
    let runs: Vec<f64> = order
        .iter()
        .map(|&(_, _, i)| {
            running += flat[i];
            running
        })
        .collect();
    let lines = |part: &[(u64, u128, usize)], runs: &[f64]| {
        let mut text = Vec::with_capacity(part.len() * 64);
        let mut field = Vec::with_capacity(32);
        for (&(_, _, i), &running) in part.iter().zip(runs) {
            let (f, c) = (flat[i], cum[i]);
            if f == 0.0 && c == 0.0 {
                continue;
            }
            // The line is put together by hand: the formatting machinery costs more than
            // the rest of the report on a profile of many functions.
            for (width, value) in [(8, f), (6, f), (6, running), (8, c), (6, c)] {
                field.clear();
                if width == 8 {
                    o.measure.push_unparse(&mut field, value);
                } else {
                    push_percent(&mut field, value, total);
                }
                push_right(&mut text, width, &field);
                text.push(b' ');
            }
            push_node_name(&mut text, &reduced.nodes[i], symbols, o.granularity);
            text.push(b'\n');
        }
        text
    };
    if Work::TextTable.halves(order.len()) {
        let half = order.len() / 2;
        let (a, b) = std::thread::scope(|scope| {
            let b = scope.spawn(|| lines(&order[half..], &runs[half..]));
            let a = lines(&order[..half], &runs[..half]);
            (a, b.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        });
        out.write_all(&a)?;
        out.write_all(&b)
    } else {
        out.write_all(&lines(&order, &runs))
    }
}

/// A number whose ascending order is `v`'s descending order (-0 as 0; a NaN, which no
/// profile's arithmetic makes, at one end).
fn descending(v: f64) -> u64 {
    let bits = (v + 0.0).to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    !ascending
}

/// The first 16 bytes of `name` as a big-endian number (zeros past its end): names whose
/// numbers differ are in the order of the numbers; equal numbers say nothing.
fn name_prefix(name: &str) -> u128 {
    let mut b = [0u8; 16];
    let n = name.len().min(16);
    b[..n].copy_from_slice(&name.as_bytes()[..n]);
    u128::from_be_bytes(b)
}

/// Appends the name a report line gives `node`: its key, or, for a node named after an
/// address that has a name, that name and place (after the address at `--addresses`).
pub fn push_node_name(line: &mut Vec<u8>, node: &Node, symbols: &SymbolTable, g: Granularity) {
    match node
        .addr
        .and_then(|a| symbols.get(a))
        .and_then(|f| f.first())
    {
        Some(first) => {
            if g == Granularity::Addresses {
                line.extend_from_slice(node.key.as_bytes());
                line.push(b' ');
            }
            line.extend_from_slice(first.short.as_bytes());
            line.push(b' ');
            first
                .fileline
                .with_text(|t| line.extend_from_slice(t.as_bytes()));
        }
        None => line.extend_from_slice(node.key.as_bytes()),
    }
}

/// [`push_node_name`], as a string.
pub fn node_name(node: &Node, symbols: &SymbolTable, g: Granularity) -> String {
    let mut b = Vec::new();
    push_node_name(&mut b, node, symbols, g);
    String::from_utf8_lossy(&b).into_owned()
}

/// pprof's `ExtractSymbolLocation`: `file:line:function` of an address's outer frame.
fn location(symbols: &SymbolTable, a: u64) -> String {
    match symbols.get(a).and_then(|f| f.first()) {
        Some(f) => {
            let file = if f.fileline == "?" || f.fileline == ":0" {
                "??:0".to_string()
            } else {
                f.fileline.to_string()
            };
            format!("{file}:{}", f.short)
        }
        None => "??:0:unknown".to_string(),
    }
}

/// `--stacks`: every stack of the profile with its value, each frame as
/// `(address) file:line:function`.
pub fn write_stacks(
    out: &mut dyn Write,
    stacks: &Stacks,
    symbols: &SymbolTable,
    o: &TextOptions,
) -> io::Result<()> {
    writeln!(out, "Stacks:\n")?;
    let mut all = stacks.sorted();
    all.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    let w = o.address_width;
    for (stack, v) in all {
        let frames: Vec<String> = stack
            .iter()
            .map(|&a| format!("({}) {}", addr_key(a, w), location(symbols, a)))
            .collect();
        let count = perl_int(v);
        writeln!(out, "{count:<8} {}\n", frames.join("\n         "))?;
    }
    Ok(())
}

/// One record of a heap profile for the leak listing of `--stacks`: in-use objects and bytes
/// and the stack.
pub struct LeakRecord<'a> {
    /// In-use objects.
    pub objects: f64,
    /// In-use bytes.
    pub bytes: f64,
    /// The stack, leaf first.
    pub stack: &'a [u64],
}

/// The heap profiler's leak listing that pprof's `--stacks` appends for heap profiles:
/// records by in-use bytes, largest first (file order among equals).
pub fn write_leaks(
    out: &mut dyn Write,
    records: &[LeakRecord<'_>],
    symbols: &SymbolTable,
    o: &TextOptions,
) -> io::Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let mut order: Vec<&LeakRecord<'_>> = records.iter().collect();
    order.sort_by(|a, b| {
        b.bytes
            .partial_cmp(&a.bytes)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let w = o.address_width;
    for r in order {
        writeln!(
            out,
            "Leak of {} bytes in {} objects allocated from:",
            perl_num(r.bytes),
            perl_num(r.objects)
        )?;
        for (i, &a) in r.stack.iter().enumerate() {
            if i == 0 && o.unknown_leaf {
                // pprof looks the leaf up by the text of the file ("0x..." without padding),
                // which is never a key of its symbol table.
                writeln!(out, "\t@ {a:x} unknown")?;
                continue;
            }
            let sym = match symbols.get(a).and_then(|f| f.first()) {
                Some(f) => format!("{} {}", f.short, f.fileline),
                None => "unknown".to_string(),
            };
            writeln!(out, "\t@ {} {sym}", addr_key(a, w))?;
        }
    }
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;
    use std::sync::Arc;

    /// A table put together in two halves is the table put together in one, with a line
    /// limit and without.
    #[test]
    fn a_table_made_in_halves_is_made_as_in_one() {
        let n = 3000;
        // Values of every sign, many equal, some nodes on no stack; names with a long common
        // prefix.
        let value = |i: usize| ((i * 7919) % 23) as f64 * 1024.0 * 37.5 - 4096.0 * 40.0;
        let reduced = Reduced {
            nodes: Arc::new(
                (0..n)
                    .map(|i| Node {
                        key: Arc::from(format!("ns::module::function_{}", (i * 31) % n)),
                        addr: None,
                    })
                    .collect(),
            ),
            flat: (0..n)
                .map(|i| if i % 3 == 0 { 0.0 } else { value(i) })
                .collect(),
            cum: (0..n).map(|i| value(i) + 1024.0 * (i % 5) as f64).collect(),
            seen: (0..n).map(|i| i % 11 != 0).collect(),
        };
        for (cum, limit) in [
            (false, None),
            (true, None),
            (false, Some(100)),
            (false, Some(0)),
        ] {
            let o = TextOptions {
                cum,
                measure: Measure::Bytes { show_bytes: false },
                granularity: Granularity::Functions,
                keep_templates: false,
                address_width: 16,
                limit,
                unknown_leaf: false,
            };
            let table = |from: usize| {
                crate::split::set(Work::TextTable, Some(from));
                let mut out = Vec::new();
                let r = write_table(&mut out, &reduced, &SymbolTable::new(), &o);
                crate::split::set(Work::TextTable, None);
                r.map(|()| String::from_utf8_lossy(&out).into_owned())
                    .unwrap_or_default()
            };
            let one = table(usize::MAX);
            assert!(
                one.lines().count() >= limit.unwrap_or(1000).min(1000),
                "{one}"
            );
            assert_eq!(table(2), one);
        }
    }

    /// The numbers the table sorts by order values and names as the values and names do.
    #[test]
    fn sort_keys_keep_the_order_of_values_and_names() {
        let values = [
            f64::INFINITY,
            1e300,
            2.5,
            1.0,
            1e-300,
            0.0,
            -0.0,
            -1e-300,
            -1.0,
            -2.5,
            -1e300,
            f64::NEG_INFINITY,
        ];
        for a in values {
            for b in values {
                let want = b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal);
                assert_eq!(descending(a).cmp(&descending(b)), want, "{a} {b}");
            }
        }
        let names = [
            "",
            "a",
            "a\0",
            "ab",
            "lg::m033::f16914",
            "lg::m033::f169140",
            "lg::m033::f16915",
            "lg::m033::f1691",
            "é",
            "zzzzzzzzzzzzzzzzzzzz",
            "zzzzzzzzzzzzzzzzzzzy",
        ];
        for a in names {
            for b in names {
                let (pa, pb) = (name_prefix(a), name_prefix(b));
                if pa != pb {
                    assert_eq!(pa.cmp(&pb), a.cmp(b), "{a:?} {b:?}");
                }
            }
        }
    }
}
