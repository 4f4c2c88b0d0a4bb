//! `--traces`: every stack with its value, as Go pprof's `-traces` prints them (google-pprof
//! has no such mode).
//!
//! ```text
//! File: leak
//! Type: inuse_space
//! -----------+-------------------------------------------------------
//!     1.56MB   std::__cxx11::basic_string::_M_mutate
//!              corpus::app::handle_request
//!              main
//! -----------+-------------------------------------------------------
//! ```
//!
//! Values are in Go pprof's units (bytes scaled to kB/MB/..., CPU time from samples × the
//! sampling period, delays as durations). Frames are named as in the other reports, inlined
//! ones marked ` (inline)`. Unlike Go pprof, which prints the records of the file in file
//! order with their numeric labels (`bytes:`), rpprof prints each distinct stack once, after
//! frame removal, `--focus`/`--ignore` and `--base`, largest value first.

use std::io::{self, Write};

/// How Go pprof prints a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoUnit {
    /// Bytes: `B`, `kB`, `MB`, ... (powers of 1024).
    Bytes,
    /// A duration in nanoseconds: `ns`, `us`, `ms`, `s`, `mins`, `hrs`, ...
    Nanoseconds,
    /// A plain count.
    Count,
}

/// What the traces report needs besides the stacks.
#[derive(Debug, Clone)]
pub struct TracesOptions {
    /// The program's file name (without directories), if known.
    pub file: Option<String>,
    /// The sample type, e.g. `inuse_space`, `cpu`.
    pub type_name: String,
    /// How values print.
    pub unit: GoUnit,
    /// Multiplies every value first (CPU: nanoseconds per sample).
    pub scale: f64,
}

const SEPARATOR: &str = "-----------+-------------------------------------------------------";

/// Go's `%.2f` with a trailing `.00` dropped, and `0` for zero.
fn go_number(v: f64, unit: &str) -> String {
    let s = format!("{v:.2}");
    let s = s.strip_suffix(".00").unwrap_or(&s);
    if s == "0" || s == "-0" {
        return "0".to_string();
    }
    format!("{s}{unit}")
}

/// Go pprof's `measurement.ScaledLabel` with the "minimum" output unit.
pub fn go_label(value: i64, unit: GoUnit) -> String {
    let v = value as f64;
    match unit {
        GoUnit::Count => go_number(v, ""),
        GoUnit::Bytes => {
            const K: f64 = 1024.0;
            let (div, u) = if value < 1024 {
                (1.0, "B")
            } else if value < 1024 * 1024 {
                (K, "kB")
            } else if value < 1024 * 1024 * 1024 {
                (K * K, "MB")
            } else if value < 1024_i64.pow(4) {
                (K * K * K, "GB")
            } else if value < 1024_i64.pow(5) {
                (K * K * K * K, "TB")
            } else {
                (K * K * K * K * K, "PB")
            };
            go_number(v / div, u)
        }
        GoUnit::Nanoseconds => {
            const US: i64 = 1_000;
            const MS: i64 = 1_000_000;
            const S: i64 = 1_000_000_000;
            const MIN: i64 = 60 * S;
            const HR: i64 = 60 * MIN;
            const DAY: i64 = 24 * HR;
            const WK: i64 = 7 * DAY;
            const YR: i64 = 365 * DAY;
            let (div, u) = if value < US {
                (1, "ns")
            } else if value < MS {
                (US, "us")
            } else if value < S {
                (MS, "ms")
            } else if value < MIN {
                (S, "s")
            } else if value < HR {
                (MIN, "mins")
            } else if value < DAY {
                (HR, "hrs")
            } else if value < WK {
                (DAY, "days")
            } else if value < YR {
                (WK, "wks")
            } else {
                (YR, "yrs")
            };
            go_number(v / div as f64, u)
        }
    }
}

/// Writes the traces of `paths` (each stack's frame names, innermost first, and its value).
pub fn write(
    out: &mut dyn Write,
    paths: &[(Vec<std::sync::Arc<str>>, f64)],
    o: &TracesOptions,
) -> io::Result<()> {
    if let Some(f) = &o.file {
        writeln!(out, "File: {f}")?;
    }
    writeln!(out, "Type: {}", o.type_name)?;
    let mut order: Vec<&(Vec<std::sync::Arc<str>>, f64)> =
        paths.iter().filter(|p| !p.0.is_empty()).collect();
    order.sort_by(|a, b| {
        b.1.abs()
            .partial_cmp(&a.1.abs())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.0.iter().rev().cmp(b.0.iter().rev()))
            // Two stacks of the same names (other addresses) growing and shrinking by the
            // same amount: the growth first, whichever order the stacks came in.
            .then_with(|| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal))
    });
    for (frames, v) in order {
        writeln!(out, "{SEPARATOR}")?;
        let scaled = v * o.scale;
        let value = if scaled.is_finite() {
            scaled.trunc() as i64
        } else {
            0
        };
        for (i, name) in frames.iter().enumerate() {
            let vs = if i == 0 {
                go_label(value, o.unit)
            } else {
                String::new()
            };
            writeln!(out, "{vs:>10}   {name}")?;
        }
    }
    writeln!(out, "{SEPARATOR}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two stacks of the same names growing and shrinking alike print in one order (the
    /// growth first), whichever order they come in.
    #[test]
    fn equal_traces_in_a_fixed_order() {
        let names = |n: &[&str]| {
            n.iter()
                .map(|&s| std::sync::Arc::from(s))
                .collect::<Vec<_>>()
        };
        let o = TracesOptions {
            file: None,
            type_name: "inuse_space".to_string(),
            unit: GoUnit::Bytes,
            scale: 1.0,
        };
        let grow = (names(&["new_node", "main"]), 32.0);
        let shrink = (names(&["new_node", "main"]), -32.0);
        let run = |paths: &[(Vec<std::sync::Arc<str>>, f64)]| {
            let mut out = Vec::new();
            write(&mut out, paths, &o).map(|()| String::from_utf8_lossy(&out).into_owned())
        };
        let a = run(&[grow.clone(), shrink.clone()]);
        let b = run(&[shrink, grow]);
        assert_eq!(a.ok(), b.as_ref().ok().cloned());
        let b = b.unwrap_or_default();
        let first = b.find("      32B").unwrap_or(usize::MAX);
        let second = b.find("     -32B").unwrap_or(0);
        assert!(first < second, "{b}");
    }

    #[test]
    fn go_labels() {
        assert_eq!(go_label(1635778, GoUnit::Bytes), "1.56MB");
        assert_eq!(go_label(538685, GoUnit::Bytes), "526.06kB");
        assert_eq!(go_label(100, GoUnit::Bytes), "100B");
        assert_eq!(go_label(8192, GoUnit::Bytes), "8kB");
        assert_eq!(go_label(151_000_000, GoUnit::Nanoseconds), "151ms");
        assert_eq!(go_label(0, GoUnit::Count), "0");
        assert_eq!(go_label(3, GoUnit::Count), "3");
    }
}
