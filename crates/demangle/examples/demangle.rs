//! Development aid: demangles each line of standard input as binutils does (`nm --demangle`).
//!
//! With `--check`, standard input holds `mangled<TAB>expected` lines (as
//! `scripts/demangle-harvest.py` writes them): prints how many this crate demangles identically
//! and the first differences (`--max N` of them, 20 by default), and the time taken.
//! With `--raw`, prints the bare demangler's answer for each line, `<<NONE>>` where it fails.
//!
//!     cargo run --release -p rpprof-demangle --example demangle [--raw | --check [--max N]]
//!
//! `scripts/demangle-diff.sh` (in the repository's root) runs it on names harvested from ELF
//! files.
use std::io::{BufRead, Write};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    if args.iter().any(|a| a == "--raw") {
        // The bare demangler (no prefix/version handling), `<<NONE>>` where it fails.
        for line in stdin.lock().lines().map_while(Result::ok) {
            let d = rpprof_demangle::demangle_core(&line);
            let _ = writeln!(out, "{}", d.as_deref().unwrap_or("<<NONE>>"));
        }
        return;
    }
    if !args.iter().any(|a| a == "--check") {
        for line in stdin.lock().lines().map_while(Result::ok) {
            let _ = writeln!(out, "{}", rpprof_demangle::demangle(&line));
        }
        return;
    }
    let max: usize = args
        .iter()
        .position(|a| a == "--max")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let pairs: Vec<(String, String)> = stdin
        .lock()
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| {
            let (m, d) = l.split_once('\t')?;
            Some((m.to_string(), d.to_string()))
        })
        .collect();
    let start = std::time::Instant::now();
    let mut same = 0usize;
    let mut diffs = Vec::new();
    for (m, want) in &pairs {
        let got = rpprof_demangle::demangle(m);
        if &got == want {
            same += 1;
        } else if diffs.len() < max {
            diffs.push(format!("mangled: {m}\n   want: {want}\n    got: {got}"));
        }
    }
    let elapsed = start.elapsed();
    for d in diffs {
        let _ = writeln!(out, "{d}");
    }
    let _ = writeln!(
        out,
        "identical: {same}/{} ({:.3}%), {:.1} ms",
        pairs.len(),
        100.0 * same as f64 / pairs.len().max(1) as f64,
        elapsed.as_secs_f64() * 1000.0
    );
}
