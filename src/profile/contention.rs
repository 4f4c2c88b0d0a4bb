//! Text lock-contention profiles: brpc's `--- contention`, `--- contentionz N ---`, and the old
//! `--- Stacks:` format.
//!
//! ```text
//! --- contention
//! cycles/second=1000000000
//! sampling period=1
//! <cycles> <count> @ 0x... 0x...
//! ...
//! --- Memory map: ---   (or /proc/self/maps lines)
//! ```
//!
//! Cycles become nanoseconds with the `cycles/second` attribute (google-pprof guesses 2.8 GHz
//! without one, and says so); cycles and counts are multiplied by the `sampling period`.
//! Each record carries three values: total delay (ns), contentions, and the record's mean delay,
//! which pprof's `--mean_delay` sums per stack. Attributes apply to the records after them, as
//! in pprof. brpc can write negative cycle counts; they are kept.

use std::path::Path;

use super::lines::{self, Lines};
use super::{CONTENTION_TYPES, Format, Header, Kind, Profile, Sample, maps};
use crate::error::{Error, Location, Result};

/// pprof's note on an old-format profile (`--- Stacks:`), among a profile's notes.
pub const OLD_FORMAT_NOTE: &str = "Old format contention profile: mistakenly reports condition variable signals as lock contentions.";

/// Reads a contention profile whose header line is `header`; `old` for `--- Stacks:`.
pub fn parse(
    lines: &mut Lines<'_>,
    header: &Header<'_>,
    path: &Path,
    old: bool,
) -> Result<Profile> {
    let mut p = Profile::new(
        Kind::Contention,
        Format::Contention,
        String::from_utf8_lossy(header.text).into_owned(),
    );
    p.sample_types = CONTENTION_TYPES.to_vec();
    // Lines ending in `\r` alone make the whole file one header line, "cut short".
    super::heap::refuse_cr_only("contention", header, path)?;
    super::heap::header_cut(&mut p, path, header);
    if old {
        p.notes.push(OLD_FORMAT_NOTE.to_string());
    }
    let mut cycles_per_ns = 2.8f64;
    let mut seen_clock = false;
    let mut period = 1.0f64;
    let mut vars = maps::Vars::default();
    // The first line that is none of what a contention profile holds, and how many.
    let mut unread: Option<(usize, usize)> = None;
    while let Some(l) = lines.next_line() {
        let t = l.text;
        if let Some((left, stack)) = split_at_sign(t) {
            if !l.terminated {
                // The file ends in the middle of this record: its last address may be cut.
                super::heap::cut_short(&mut p, path, &l);
                break;
            }
            let nums: Vec<&[u8]> = lines::fields(left).collect();
            let parsed: Option<Vec<i64>> = nums.iter().map(|f| lines::parse_i64(f)).collect();
            match parsed.as_deref() {
                Some([cycles, count]) => {
                    let delay = *cycles as f64 / cycles_per_ns * period;
                    let n = *count as f64 * period;
                    let mean = if n == 0.0 { 0.0 } else { delay / n };
                    p.samples.push(Sample {
                        stack: super::heap::parse_stack(stack, path, l.number, header.adjust)?,
                        values: vec![delay, n, mean],
                    });
                    continue;
                }
                Some([cycles]) => {
                    // Old format: cycles only.
                    let delay = *cycles as f64 / cycles_per_ns * period;
                    p.samples.push(Sample {
                        stack: super::heap::parse_stack(stack, path, l.number, header.adjust)?,
                        values: vec![delay, 0.0, 0.0],
                    });
                    continue;
                }
                _ => {
                    return Err(Error::format(
                        path,
                        Location::Line(l.number),
                        format!("bad contention record {:?}", lines::shorten(t, 60)),
                    ));
                }
            }
        }
        if !l.terminated && p.mappings.is_empty() && (cut_record(t) || attribute(t).is_some()) {
            // The file ends in a record before its ` @`, or in an attribute (whose value
            // may be cut): not a memory-map line.
            super::heap::cut_short(&mut p, path, &l);
            break;
        }
        if let Some((var, value)) = attribute(t) {
            // (A value as the messages quote it: its start.)
            let quoted = lines::shorten(value.as_bytes(), 60);
            let num = || -> Result<f64> {
                value.parse::<f64>().map_err(|_| {
                    Error::format(
                        path,
                        Location::Line(l.number),
                        format!("bad value {quoted:?} for {var:?}"),
                    )
                })
            };
            match var.as_str() {
                "cycles/second" => {
                    cycles_per_ns = num()? / 1e9;
                    if !(cycles_per_ns > 0.0 && cycles_per_ns.is_finite()) {
                        return Err(Error::format(
                            path,
                            Location::Line(l.number),
                            format!("bad value {quoted:?} for \"cycles/second\""),
                        ));
                    }
                    seen_clock = true;
                }
                "sampling period" => {
                    period = num()?;
                    // Counts are multiplied by it: 0 or less would zero or negate them all.
                    if !(period > 0.0 && period.is_finite()) {
                        return Err(Error::format(
                            path,
                            Location::Line(l.number),
                            format!(
                                "bad value {quoted:?} for \"sampling period\" (it must be positive)"
                            ),
                        ));
                    }
                    p.period = period as u64;
                }
                "ms since reset" | "discarded samples" => {}
                _ => p.notes.push(format!(
                    "Ignoring unnknown variable in /contention output: '{var}' = '{value}'"
                )),
            }
            continue;
        }
        // Anything else belongs to the memory map; what is not a map line either is
        // counted (pprof ignores it without a word: a heap profile under a contention
        // header read as an empty report).
        // (Not counted: a section's `--- Memory map: ---` line, the `0x... name` lines of a
        // Java profile's symbols, and the `#\t0x...\tfunction\tfile:line` comments after
        // each record of a Go block or mutex profile, `?debug=1`.)
        let start = t.trim_ascii_start();
        let known = [&b"---"[..], b"0x", b"#"]
            .iter()
            .any(|k| start.starts_with(k));
        if !maps::take_line(&l, path, &mut vars, &mut p) && l.terminated && !known {
            let at = unread.get_or_insert((l.number, 0));
            at.1 += 1;
        }
    }
    if let Some((first, n)) = unread {
        p.notes.push(format!(
            "Warning: {}: {n} line{} from line {first} on {} neither a contention record, an attribute nor a memory-map line: ignored",
            path.display(),
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
        ));
    }
    if !seen_clock {
        p.notes.push(format!(
            "No cycles/second entry in profile; Guessing {cycles_per_ns:.1} GHz"
        ));
    }
    if p.period == 0 {
        p.period = 1;
    }
    Ok(p)
}

/// True for the start of a record cut before its ` @` (decimal numbers only), or of an
/// attribute cut before its `=`.
fn cut_record(t: &[u8]) -> bool {
    let t = t.trim_ascii();
    !t.is_empty()
        && (t
            .iter()
            .all(|&b| b.is_ascii_digit() || b == b' ' || b == b'-')
            || [
                "cycles/second",
                "sampling period",
                "ms since reset",
                "discarded samples",
            ]
            .iter()
            .any(|a| a.as_bytes().starts_with(t)))
}

/// Splits a record `<numbers> @ <stack>` at its ` @`; `None` when the line is no record: it
/// has no ` @`, or its first field is not a decimal number (a memory-map line whose path holds
/// ` @`). A record whose other numbers do not parse is an error for the caller.
fn split_at_sign(t: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = t.windows(2).position(|w| w == b" @")?;
    let left = &t[..i];
    let first = lines::fields(left).next()?;
    let digits = first.strip_prefix(b"-").unwrap_or(first);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((left, &t[i + 2..]))
}

/// A `name = value` attribute line: the name starts with a lowercase letter.
fn attribute(t: &[u8]) -> Option<(String, String)> {
    if !t.first().is_some_and(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let eq = t.iter().position(|&b| b == b'=')?;
    let var = String::from_utf8_lossy(t[..eq].trim_ascii()).into_owned();
    let value = String::from_utf8_lossy(t[eq + 1..].trim_ascii()).into_owned();
    Some((var, value))
}
