//! The stacks of a report as JSON: what the web UI's flame graph (`/ui/flamegraph`) draws.
//!
//! Each stack is the list of its report nodes at the view's granularity (the names `--text`
//! prints: short function names, `name file:line` with `--lines`, ...), root first, with its
//! value; stacks that name the same nodes are summed. For a differential graph the base's
//! stacks are given beside them (as `--flame` draws them), not subtracted: the page sizes
//! frames by the profile and colours them by the change.
//!
//! ```text
//! {"measure":"bytes","units":"MB","total":123.0,
//!  "names":["main","alloc",...],
//!  "stacks":[[value,base,name index (root),...,name index (leaf)],...]}
//! ```
//!
//! Values are in the profile's own unit (bytes, objects, samples, nanoseconds, threads), as
//! `measure` says; `units` and `total` are what `--text` prints in its `Total:` line.

use std::io::{self, Write};

use rustc_hash::FxHashMap;

use crate::graph::KeyPaths;
use crate::units::Measure;

/// What the page needs besides the stacks.
#[derive(Debug, Clone, Copy)]
pub struct StacksOptions {
    /// How the values print.
    pub measure: Measure,
    /// pprof's `Total:` (before uninteresting frames were removed).
    pub total: f64,
}

/// Appends `s` as a JSON string.
pub fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // `<` too, so that the JSON can sit in an HTML <script> element.
            c if (c as u32) < 0x20 || c == '<' || c == '>' || c == '&' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a finite number as JSON (non-finite values as 0).
pub fn push_json_number(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push('0');
    } else if v == v.trunc() && v.abs() < 1e15 {
        let n = v as i64;
        if n < 0 {
            out.push('-');
        }
        push_u64(out, n.unsigned_abs());
    } else {
        out.push_str(&format!("{v}"));
    }
}

/// Appends `n` in decimal.
fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    out.extend(
        crate::units::decimal(n, &mut digits)
            .iter()
            .map(|&d| char::from(d)),
    );
}

/// The name of a measure in the JSON.
fn measure_name(m: Measure) -> &'static str {
    match m {
        Measure::Bytes { .. } => "bytes",
        Measure::Objects => "objects",
        Measure::Samples => "samples",
        Measure::Nanoseconds => "nanoseconds",
        Measure::Threads => "threads",
    }
}

/// Writes the stacks `paths` (node keys innermost first, as
/// [`crate::graph::translate_stack_ids`] gives them) and, for a differential graph, the
/// base's.
pub fn write(
    out: &mut dyn Write,
    paths: &KeyPaths,
    base: Option<&KeyPaths>,
    o: &StacksOptions,
) -> io::Result<()> {
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    let mut names: Vec<&str> = Vec::new();
    // Root-first name ids, value, and whether it is the base's: in the order given, then
    // sorted by the ids (stably: equal stacks are summed in the order given).
    let mut rows: Vec<(Vec<u32>, f64, bool)> = Vec::new();
    let sides = [(paths, false)].into_iter().chain(base.map(|b| (b, true)));
    for (list, is_base) in sides {
        // Each of the list's names is looked up once, at its first use.
        let mut remap = vec![u32::MAX; list.names.len()];
        rows.reserve(list.paths.len());
        for (path, v) in &list.paths {
            let key: Vec<u32> = path
                .iter()
                .rev()
                .map(|&n| {
                    let r = &mut remap[n as usize];
                    if *r == u32::MAX {
                        let name: &str = &list.names[n as usize];
                        *r = *ids.entry(name).or_insert_with(|| {
                            names.push(name);
                            (names.len() - 1) as u32
                        });
                    }
                    *r
                })
                .collect();
            rows.push((key, *v, is_base));
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut stacks: Vec<(&[u32], f64, f64)> = Vec::new();
    for (key, v, is_base) in &rows {
        if stacks.last().is_none_or(|l| l.0 != key.as_slice()) {
            stacks.push((key, 0.0, 0.0));
        }
        if let Some(e) = stacks.last_mut() {
            if *is_base {
                e.2 += v;
            } else {
                e.1 += v;
            }
        }
    }
    let mut s = String::with_capacity(64 + stacks.len() * 32);
    s.push_str("{\"measure\":");
    push_json_string(&mut s, measure_name(o.measure));
    s.push_str(",\"units\":");
    push_json_string(&mut s, o.measure.units());
    s.push_str(",\"total\":");
    push_json_number(&mut s, o.total);
    s.push_str(",\"diff\":");
    s.push_str(if base.is_some() { "true" } else { "false" });
    s.push_str(",\"names\":[");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        push_json_string(&mut s, n);
    }
    s.push_str("],\"stacks\":[");
    let mut first = true;
    for (key, v, b) in &stacks {
        if *v == 0.0 && *b == 0.0 {
            continue;
        }
        if !first {
            s.push(',');
        }
        first = false;
        s.push('[');
        push_json_number(&mut s, *v);
        s.push(',');
        push_json_number(&mut s, *b);
        for &id in *key {
            s.push(',');
            push_u64(&mut s, u64::from(id));
        }
        s.push(']');
    }
    s.push_str("]}\n");
    out.write_all(s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_for_script_elements() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\c</script>\u{1}");
        assert_eq!(s, r#""a\"b\\c\u003c/script\u003e\u0001""#);
    }

    #[test]
    fn numbers_as_rust_prints_them() {
        for v in [
            0.0,
            -0.0,
            5.0,
            -5.0,
            10.0,
            999_999_999_999_999.0,
            -999_999_999_999_999.0,
            1e15,
            2.5,
            -0.125,
            f64::NAN,
            f64::INFINITY,
        ] {
            let mut s = String::new();
            push_json_number(&mut s, v);
            let want = if !v.is_finite() {
                "0".to_string()
            } else if v == v.trunc() && v.abs() < 1e15 {
                format!("{}", v as i64)
            } else {
                format!("{v}")
            };
            assert_eq!(s, want, "{v}");
        }
    }

    #[test]
    fn stacks_are_summed_by_name_root_first() {
        // Names in another order in each list, as each translation gives them.
        let k = |names: &[&str], paths: &[(&[u32], f64)]| KeyPaths {
            names: names.iter().map(|&s| std::sync::Arc::from(s)).collect(),
            addrs: vec![None; names.len()],
            paths: paths.iter().map(|(p, v)| (p.to_vec(), *v)).collect(),
        };
        let paths = k(&["leaf", "main"], &[(&[0, 1], 2.0), (&[0, 1], 3.0)]);
        let base = k(&["main", "other"], &[(&[1, 0], 1.5)]);
        let mut out = Vec::new();
        let o = StacksOptions {
            measure: Measure::Samples,
            total: 7.0,
        };
        write(&mut out, &paths, Some(&base), &o).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"measure\":\"samples\",\"units\":\"samples\",\"total\":7,\"diff\":true,\"names\":[\"main\",\"leaf\",\"other\"],\"stacks\":[[5,0,0,1],[0,1.5,0,2]]}\n"
        );
    }
}
