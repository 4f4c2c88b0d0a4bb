//! `--raw`: a symbolized profile, readable without the program (pprof's
//! `PrintSymbolizedProfile`).
//!
//! ```text
//! --- symbol
//! binary=<program>
//! 0x<address> <function>--<inlined function>...
//! ---
//! <the profile>
//! ```
//!
//! The symbol section names every address of the profile, the real function first and the
//! functions inlined into it after, as pprof writes it. An address that has no symbol is named
//! by its own hex digits (pprof leaves it out, and reading the file back then names it
//! `0x<address>`); rpprof reads that name back as "no symbol", so that a report of the raw
//! file is the report of the profile.
//!
//! The profile section depends on the kind of profile:
//!
//! * CPU: `--- profile` and pprof's binary CPU format, one record per stack after frame
//!   removal, `--focus`/`--ignore` and `--base`, as pprof writes it — with the profile's own
//!   sampling period (pprof writes 1), an end-of-data record, 32-bit words for 32-bit
//!   profiles, and negative counts (from `--base`) as two's complement;
//! * heap and growth: the profile's own text format, with the first profile's header, one
//!   record per record read (base records negated), values un-scaled back to what the header's
//!   sampling scales — so every value column survives (pprof writes the selected column as a
//!   CPU sample count, changing units). When the profiles added or subtracted were sampled
//!   differently, the values are written as they are, under a header without sampling, with
//!   decimals where they have them;
//! * jemalloc: jeprof's `--- heap` marker, the `heap_v2/N` header and `@` stack blocks with
//!   their `t*:` and per-thread lines (jeprof itself refuses local `--raw`);
//! * contention: `--- contention` at one cycle per nanosecond, one record per record read;
//! * thread: `--- threadz` blocks, one per thread.
//!
//! `--focus` and `--ignore` keep the records of non-CPU profiles whose stacks match, judged on
//! the stacks as read.

use std::io::{self, Write};

use crate::graph::{Stacks, addr_key};
use crate::profile::{HeapSampling, Sample};
use crate::symbolize::SymbolTable;

/// Writes the symbol section for `addrs` (sorted, unique).
pub fn write_symbols(
    out: &mut dyn Write,
    program: &str,
    addrs: &[u64],
    symbols: &SymbolTable,
    width: usize,
) -> io::Result<()> {
    writeln!(out, "--- symbol")?;
    writeln!(out, "binary={program}")?;
    for &a in addrs {
        let key = addr_key(a, width);
        match symbols.get(a) {
            Some(frames) if !frames.is_empty() => {
                let names: Vec<&str> = frames.iter().map(|f| &*f.function).collect();
                writeln!(out, "0x{key} {}", names.join("--"))?;
            }
            _ => writeln!(out, "0x{key} {key}")?,
        }
    }
    writeln!(out, "---")
}

/// True when `frames` is the "no symbol" name [`write_symbols`] gives an address: its own hex
/// digits, at the profile's width.
pub fn is_no_symbol(a: u64, width: usize, functions: &[&str]) -> bool {
    functions.len() == 1 && functions[0] == addr_key(a, width)
}

/// Writes the CPU section: `--- profile` and the binary records of `stacks` (sorted by
/// stack), in 64-bit little-endian words, or 32-bit ones when `width` is 8.
pub fn write_cpu(
    out: &mut dyn Write,
    stacks: &Stacks,
    period: u64,
    width: usize,
) -> io::Result<()> {
    writeln!(out, "--- profile")?;
    let narrow = width <= 8;
    let mut buf: Vec<u8> = Vec::new();
    let word = |buf: &mut Vec<u8>, v: u64| {
        if narrow {
            buf.extend_from_slice(&(v as u32).to_le_bytes());
        } else {
            buf.extend_from_slice(&v.to_le_bytes());
        }
    };
    for v in [0, 3, 0, period, 0] {
        word(&mut buf, v);
    }
    for (stack, v) in stacks.sorted() {
        if stack.is_empty() {
            continue;
        }
        let count = if v.is_finite() { v.trunc() as i64 } else { 0 };
        word(&mut buf, count as u64);
        word(&mut buf, stack.len() as u64);
        for &a in stack {
            word(&mut buf, a);
        }
    }
    for v in [0, 1, 0] {
        word(&mut buf, v);
    }
    out.write_all(&buf)
}

/// The factor the reader multiplies a (count, bytes) pair by under `sampling`; see
/// `profile::heap::scale_pair`. The ratio bytes/count is the same before and after scaling,
/// so the factor can be found from scaled values too.
fn scale_factor(sampling: HeapSampling, n: f64, s: f64) -> f64 {
    if n == 0.0 || s == 0.0 {
        return 1.0;
    }
    match sampling {
        HeapSampling::None => 1.0,
        HeapSampling::V2 { rate } => 1.0 / (1.0 - (-(s / n) / rate).exp()),
        HeapSampling::V1 { adjustment } => {
            let ratio = (s / n) / adjustment;
            if ratio < 1.0 { 1.0 / ratio } else { 1.0 }
        }
    }
}

/// How heap values are written.
#[derive(Debug, Clone, Copy)]
pub enum HeapValues {
    /// As the profiler wrote them: integers that read back as the values under the
    /// header's sampling (every record comes from a profile sampled that way).
    Unscaled(HeapSampling),
    /// As they are, under a header without sampling; values that are not integers are
    /// written with decimals, which rpprof reads and pprof skips (records of profiles
    /// sampled differently, added or subtracted).
    Scaled,
}

/// A value as written in a record: an integer, or the shortest decimal that reads back
/// exactly.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The four values of a record (in-use and allocated pairs), times `sign`, as written.
fn heap_values(how: HeapValues, values: &[f64], sign: f64) -> [String; 4] {
    let mut r: [String; 4] = Default::default();
    for pair in 0..2 {
        let n = sign * values.get(2 * pair).copied().unwrap_or(0.0);
        let s = sign * values.get(2 * pair + 1).copied().unwrap_or(0.0);
        let (n, s) = match how {
            HeapValues::Unscaled(sampling) => {
                let f = scale_factor(sampling, n, s);
                ((n / f).round(), (s / f).round())
            }
            HeapValues::Scaled => (n, s),
        };
        r[2 * pair] = number(n);
        r[2 * pair + 1] = number(s);
    }
    r
}

/// The header for `how`: the profile's own, or one without sampling.
fn heap_header(how: HeapValues, header: &str, records: &[Record<'_>]) -> String {
    match how {
        HeapValues::Unscaled(_) => header.to_string(),
        HeapValues::Scaled => {
            let mut t = [0.0f64; 4];
            for (s, sign) in records {
                for (i, v) in s.values.iter().take(4).enumerate() {
                    t[i] += sign * v;
                }
            }
            let t: Vec<String> = t.iter().map(|v| number(v.trunc())).collect();
            let kind = if header.contains("growth") {
                "growth"
            } else {
                "heapprofile"
            };
            format!(
                "heap profile: {}: {} [{}: {}] @ {kind}",
                t[0], t[1], t[2], t[3]
            )
        }
    }
}

fn write_addrs(
    out: &mut dyn Write,
    stack: &[u64],
    width: usize,
    callers_plus_one: bool,
) -> io::Result<()> {
    for (i, &a) in stack.iter().enumerate() {
        let a = if i > 0 && callers_plus_one {
            a.wrapping_add(1)
        } else {
            a
        };
        write!(out, " 0x{}", addr_key(a, width))?;
    }
    Ok(())
}

/// A record to write: the sample and +1 (profile) or -1 (base).
pub type Record<'a> = (&'a Sample, f64);

/// Writes a `heap profile:` section: the header (see [`HeapValues`]), then `records`.
pub fn write_heap(
    out: &mut dyn Write,
    header: &str,
    how: HeapValues,
    records: &[Record<'_>],
    width: usize,
) -> io::Result<()> {
    writeln!(out, "{}", heap_header(how, header, records))?;
    for (s, sign) in records {
        let v = heap_values(how, &s.values, *sign);
        write!(out, "{:>6}: {:>8} [{:>6}: {:>8}] @", v[0], v[1], v[2], v[3])?;
        write_addrs(out, &s.stack, width, false)?;
        writeln!(out)?;
    }
    Ok(())
}

/// Writes a jemalloc section: jeprof's marker, `header`, and a block per record; the
/// per-thread records follow with their thread ids. Caller addresses are written as the
/// profiler wrote them (jeprof moves them back even in symbolized profiles).
pub fn write_jemalloc(
    out: &mut dyn Write,
    header: &str,
    how: HeapValues,
    records: &[Record<'_>],
    threads: &[(u64, Record<'_>)],
    width: usize,
) -> io::Result<()> {
    writeln!(out, "--- heap")?;
    match how {
        HeapValues::Unscaled(_) => writeln!(out, "{header}")?,
        // A rate of 0: jeprof and rpprof scale nothing.
        HeapValues::Scaled => writeln!(out, "heap_v2/0")?,
    }
    let block = |out: &mut dyn Write, thread: &str, (s, sign): &Record<'_>| -> io::Result<()> {
        let v = heap_values(how, &s.values, *sign);
        write!(out, "@")?;
        write_addrs(out, &s.stack, width, true)?;
        writeln!(out)?;
        writeln!(out, "  t{thread}: {}: {} [{}: {}]", v[0], v[1], v[2], v[3])
    };
    for r in records {
        block(out, "*", r)?;
    }
    for (t, r) in threads {
        block(out, &t.to_string(), r)?;
    }
    Ok(())
}

/// Writes a contention section: delays in nanoseconds (one cycle per nanosecond), counts
/// already multiplied by their sampling period.
pub fn write_contention(
    out: &mut dyn Write,
    records: &[Record<'_>],
    width: usize,
) -> io::Result<()> {
    writeln!(out, "--- contention")?;
    writeln!(out, "cycles/second = 1000000000")?;
    writeln!(out, "sampling period = 1")?;
    for (s, sign) in records {
        let delay = (sign * s.values.first().copied().unwrap_or(0.0)).round() as i64;
        let count = (sign * s.values.get(1).copied().unwrap_or(0.0)).round() as i64;
        write!(out, "{delay} {count} @")?;
        write_addrs(out, &s.stack, width, false)?;
        writeln!(out)?;
    }
    Ok(())
}

/// Writes a thread section: one `--- Thread` block per thread (callers as the profiler wrote
/// them; the reader moves them back). Negative counts (from `--base`) cannot be written and
/// are left out.
pub fn write_threads(out: &mut dyn Write, records: &[Record<'_>], width: usize) -> io::Result<()> {
    writeln!(out, "--- threadz 1 ---")?;
    let mut id = 0u64;
    for (s, sign) in records {
        let n = (sign * s.values.first().copied().unwrap_or(0.0)).round();
        if n < 1.0 || s.stack.is_empty() {
            continue;
        }
        for i in 0..n as u64 {
            id += 1;
            writeln!(out, "--- Thread {id:x} stack: ---")?;
            if i == 0 {
                write!(out, "  PC:")?;
                write_addrs(out, &s.stack, width, true)?;
                writeln!(out)?;
            } else {
                writeln!(out, "  same as previous thread")?;
            }
        }
    }
    Ok(())
}
