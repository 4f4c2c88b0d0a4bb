//! Criterion benchmarks: each reader's throughput (MB/s) on large generated profiles, the
//! symbolizer on the project's test programs (and on the shared corpus's large program when
//! it is there), and a whole `--text` run. The demangler's benchmark is the rpprof-demangle
//! crate's (`crates/demangle/benches/demangle.rs`).
//!
//!     cargo bench                      # all, the demangler's too
//!     cargo bench -p rpprof -- readers # one group
//!
//! The comparison with google-pprof, Go pprof and the addr2line crate's tool is
//! `scripts/compare-speed.sh` (README, "Speed").

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

use rpprof::symbolize::local::Local;
use rpprof::symbolize::{Options, Symbolize};

const MAPS: &str = "00400000-00800000 r-xp 00000000 08:01 1234 /usr/local/bin/server\n\
                    7f0000000000-7f0000400000 r-xp 00000000 08:01 5678 /lib/libfoo.so.1\n";

/// A small deterministic generator (xorshift), so that every run reads the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn stack(&mut self, depth: usize) -> Vec<u64> {
        (0..depth)
            .map(|i| {
                if i % 4 == 3 {
                    0x7f00_0000_0000 + self.next() % 0x40_0000
                } else {
                    0x40_0000 + self.next() % 0x40_0000
                }
            })
            .collect()
    }
}

/// A tcmalloc heap profile of `records` records of depth 20 (about 1 MB per 3,500 records).
fn heap_profile(records: usize) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = String::from("heap profile: 1000: 100000 [ 2000: 200000] @ heapprofile\n");
    for _ in 0..records {
        let n = rng.next() % 1000 + 1;
        let b = n * (rng.next() % 4096 + 1);
        let _ = write!(s, "{n:6}: {b:8} [{:6}: {:8}] @", n * 2, b * 2);
        for a in rng.stack(20) {
            let _ = write!(s, " 0x{a:x}");
        }
        s.push('\n');
    }
    s.push_str("\nMAPPED_LIBRARIES:\n");
    s.push_str(MAPS);
    s.into_bytes()
}

/// A jemalloc heap profile (`heap_v2/524288`) with per-thread lines.
fn jemalloc_profile(records: usize) -> Vec<u8> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut s = String::from("heap_v2/524288\n  t*: 1000: 100000 [0: 0]\n");
    for t in 0..4 {
        let _ = writeln!(s, "  t{t}: 250: 25000 [0: 0]");
    }
    for _ in 0..records {
        s.push('@');
        for a in rng.stack(20) {
            let _ = write!(s, " 0x{a:x}");
        }
        s.push('\n');
        let n = rng.next() % 1000 + 1;
        let b = n * (rng.next() % 4096 + 1);
        let _ = writeln!(s, "  t*: {n}: {b} [0: 0]");
        let _ = writeln!(s, "  t{}: {n}: {b} [0: 0]", rng.next() % 4);
    }
    s.push_str("\nMAPPED_LIBRARIES:\n");
    s.push_str(MAPS);
    s.into_bytes()
}

/// A binary CPU profile (64-bit, little-endian) of `records` records of depth 20.
fn cpu_profile(records: usize) -> Vec<u8> {
    let mut rng = Rng(0xd1b5_4a32_d192_ed03);
    let mut out: Vec<u8> = Vec::new();
    let put = |v: u64, out: &mut Vec<u8>| out.extend_from_slice(&v.to_le_bytes());
    for v in [0, 3, 0, 10_000, 0] {
        put(v, &mut out);
    }
    for _ in 0..records {
        put(rng.next() % 10 + 1, &mut out);
        put(20, &mut out);
        for a in rng.stack(20) {
            put(a, &mut out);
        }
    }
    for v in [0, 1, 0] {
        put(v, &mut out);
    }
    out.extend_from_slice(MAPS.as_bytes());
    out
}

/// A brpc contention profile.
fn contention_profile(records: usize) -> Vec<u8> {
    let mut rng = Rng(0x8cb9_2ba7_2f3d_8dd7);
    let mut s = String::from("--- contention\ncycles/second=1000000000\n");
    for _ in 0..records {
        let _ = write!(s, "{} {} @", rng.next() % 1_000_000, rng.next() % 100 + 1);
        for a in rng.stack(20) {
            let _ = write!(s, " 0x{a:x}");
        }
        s.push('\n');
    }
    s.push_str(MAPS);
    s.into_bytes()
}

fn readers(c: &mut Criterion) {
    let mut g = c.benchmark_group("readers");
    g.sample_size(10);
    let inputs: [(&str, Vec<u8>); 4] = [
        ("heap", heap_profile(35_000)),
        ("jemalloc", jemalloc_profile(20_000)),
        ("cpu", cpu_profile(60_000)),
        ("contention", contention_profile(35_000)),
    ];
    for (name, data) in &inputs {
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| {
                let p = rpprof::profile::parse(black_box(data), Path::new(name))
                    .expect("generated profile parses");
                black_box(p.samples.len())
            })
        });
    }
    g.finish();
}

/// A testdata case directory.
fn testdata(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(case)
}

/// Symbolizes every address of `profile` in a fresh symbolizer (every file opened and
/// parsed again, as in one rpprof run).
fn bench_symbolize(c: &mut Criterion, name: &str, dir: &Path, program: &str, profile: &str) {
    let Ok(data) = std::fs::read(dir.join(profile)) else {
        eprintln!("skipping {name}: {} is absent", dir.join(profile).display());
        return;
    };
    let p = rpprof::profile::parse(&data, Path::new(profile)).expect("profile parses");
    let addrs = p.addresses();
    let opts = Options {
        address_width: p.address_width,
        lib_prefix: vec![dir.display().to_string()],
        ..Default::default()
    };
    let prog = dir.join(program);
    let mut g = c.benchmark_group("symbolize");
    g.sample_size(10);
    g.throughput(Throughput::Elements(addrs.len() as u64));
    g.bench_function(name, |b| {
        b.iter_batched(
            || Local::new(&prog, &p.mappings, &opts),
            |mut local| {
                let mut warnings = Vec::new();
                black_box(local.symbolize(black_box(&addrs), &mut warnings).len())
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn symbolize(c: &mut Criterion) {
    bench_symbolize(
        c,
        "t-heap (C++, PIE)",
        &testdata("t-heap"),
        "theap",
        "theap.hprof.0003.heap",
    );
    bench_symbolize(
        c,
        "t-cpu (C, shared libraries)",
        &testdata("t-cpu"),
        "tcpu-pie",
        "tcpu-pie.prof",
    );
    bench_symbolize(
        c,
        "t-rust (Rust)",
        &testdata("t-rust"),
        "trust",
        "trust.hprof.0003.heap",
    );
    // The shared corpus's large program: 156,000 addresses, 54 MB of DWARF.
    let large = PathBuf::from("/tmp/rpprof-corpus/large");
    if large.join("src/large").is_file() {
        bench_symbolize(
            c,
            "large (156k addresses)",
            &large,
            "src/large",
            "large-cpu.prof",
        );
    } else {
        eprintln!(
            "skipping symbolize/large: /tmp/rpprof-corpus/large/src/large is absent (see ../shared/corpus/large)"
        );
    }
}

fn text_report(c: &mut Criterion) {
    let dir = testdata("t-heap");
    let opts = rpprof::cli::Args::default()
        .into_options(false)
        .map(|mut o| {
            o.args = vec![
                dir.join("theap").display().to_string(),
                dir.join("theap.hprof.0003.heap").display().to_string(),
            ];
            o.lib_prefix = vec![dir.display().to_string()];
            o
        });
    let Ok(opts) = opts else {
        eprintln!("skipping text: no options");
        return;
    };
    let mut g = c.benchmark_group("text");
    g.sample_size(20);
    g.bench_function("t-heap --text", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            let mut err = Vec::new();
            rpprof::pipeline::run(&opts, &mut out, &mut err).expect("rpprof runs");
            black_box(out.len())
        })
    });
    g.finish();
}

criterion_group!(benches, readers, symbolize, text_report);
criterion_main!(benches);
