//! `--text`: one line per node — flat, flat%, sum%, cum, cum%, name — sorted by flat (or
//! `--cum`) value, then by name; plus, with `--stacks`, every stack and (heap profiles) every
//! record as the heap profiler's leak report lists it.

use std::io::{self, Write};

use crate::graph::{Granularity, Node, Reduced, Stacks, addr_key};
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
    let mut order: Vec<usize> = (0..reduced.nodes.len()).filter(|&i| seen[i]).collect();
    // By value, then by name (node names are unique: the order is total).
    let by_value = |&a: &usize, &b: &usize| {
        sort_by[b]
            .partial_cmp(&sort_by[a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| reduced.nodes[a].key.cmp(&reduced.nodes[b].key))
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
    let mut running = 0.0;
    // The lines are put together by hand: the formatting machinery costs more than the rest
    // of the report on a profile of many functions.
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut field: Vec<u8> = Vec::with_capacity(32);
    for (lines, i) in order.into_iter().enumerate() {
        if o.limit.is_some_and(|l| lines >= l) {
            break;
        }
        let f = flat[i];
        let c = cum[i];
        running += f;
        if f == 0.0 && c == 0.0 {
            continue;
        }
        let node = &reduced.nodes[i];
        line.clear();
        for (width, value) in [(8, f), (6, f), (6, running), (8, c), (6, c)] {
            field.clear();
            if width == 8 {
                o.measure.push_unparse(&mut field, value);
            } else {
                push_percent(&mut field, value, total);
            }
            push_right(&mut line, width, &field);
            line.push(b' ');
        }
        push_node_name(&mut line, node, symbols, o.granularity);
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
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
            line.extend_from_slice(first.fileline.as_bytes());
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
                "??:0"
            } else {
                f.fileline.as_str()
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
