//! Criterion benchmark: the demangler's throughput (names per second) on the names of
//! `testdata/pairs.txt` (harvested with binutils from real libraries and programs), all of
//! them and by kind of name.
//!
//!     cargo bench -p rpprof-demangle
//!
//! `demangle/binutils pairs` is the measurement rpprof's own benchmark made before the
//! demanglers became this crate.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The kind of a mangled name, as `scripts/demangle-diff.sh` counts them.
fn kind(name: &str) -> &'static str {
    let n = name.trim_start_matches(['.', '$']);
    if n.starts_with("_R") {
        "rust v0"
    } else if n.starts_with("_ZN") && n.contains("17h") && n.ends_with('E') {
        "rust legacy"
    } else {
        "c++"
    }
}

fn demangle(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/pairs.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split('\t').next())
        .filter(|n| n.starts_with("_Z") || n.starts_with("_R"))
        .collect();
    if names.is_empty() {
        eprintln!("skipping demangle: {path} is absent");
        return;
    }
    let mut g = c.benchmark_group("demangle");
    let mut run = |label: &str, names: &[&str]| {
        g.throughput(Throughput::Elements(names.len() as u64));
        g.bench_function(label, |b| {
            b.iter(|| {
                names
                    .iter()
                    .map(|n| rpprof_demangle::demangle(black_box(n)).len())
                    .sum::<usize>()
            })
        });
    };
    run("binutils pairs", &names);
    for k in ["c++", "rust legacy", "rust v0"] {
        let some: Vec<&str> = names.iter().copied().filter(|n| kind(n) == k).collect();
        if !some.is_empty() {
            run(k, &some);
        }
    }
    g.finish();
}

criterion_group!(benches, demangle);
criterion_main!(benches);
