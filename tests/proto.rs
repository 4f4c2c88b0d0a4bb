//! `--proto`: the gzipped profile.proto is decoded here (a small protobuf reader, so the
//! test runs without Go) and checked against rpprof's own `--text` totals and names; when Go
//! is installed, `go tool pprof` reads it too and must name the same top functions.

mod common;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A testdata case, linked where its profiles' maps name its files (the libraries).
fn case(name: &str) -> PathBuf {
    common::link_case(name);
    common::root().join("testdata").join(name)
}

/// A decoded message: field number → its raw values (varints, or bytes of length-delimited).
#[derive(Default, Debug)]
struct Msg {
    ints: HashMap<u32, Vec<u64>>,
    bytes: HashMap<u32, Vec<Vec<u8>>>,
}

fn varint(b: &[u8], i: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let byte = b[*i];
        *i += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return v;
        }
        shift += 7;
    }
}

fn decode(b: &[u8]) -> Msg {
    let mut m = Msg::default();
    let mut i = 0;
    while i < b.len() {
        let key = varint(b, &mut i);
        let (field, wire) = ((key >> 3) as u32, key & 7);
        match wire {
            0 => m.ints.entry(field).or_default().push(varint(b, &mut i)),
            2 => {
                let n = varint(b, &mut i) as usize;
                m.bytes.entry(field).or_default().push(b[i..i + n].to_vec());
                i += n;
            }
            w => panic!("wire type {w} in field {field}"),
        }
    }
    m
}

fn packed(b: &[u8]) -> Vec<u64> {
    let mut i = 0;
    let mut v = Vec::new();
    while i < b.len() {
        v.push(varint(b, &mut i));
    }
    v
}

impl Msg {
    fn int(&self, f: u32) -> u64 {
        self.ints
            .get(&f)
            .and_then(|v| v.first().copied())
            .unwrap_or(0)
    }
    fn msgs(&self, f: u32) -> Vec<Msg> {
        self.bytes
            .get(&f)
            .map(|v| v.iter().map(|b| decode(b)).collect())
            .unwrap_or_default()
    }
}

struct Decoded {
    types: Vec<String>,
    default_type: String,
    /// Per sample: values, and whether it carries the pprof::base label.
    samples: Vec<(Vec<i64>, bool)>,
    functions: Vec<String>,
    strings: Vec<String>,
}

fn proto(dir: &Path, args: &[&str]) -> (Vec<u8>, Decoded) {
    let mut a = vec!["--proto"];
    a.extend_from_slice(args);
    let out = common::rpprof(dir, &a);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&out.stdout[..])
        .read_to_end(&mut raw)
        .expect("gzip");
    let p = decode(&raw);
    let strings: Vec<String> = p.bytes[&6]
        .iter()
        .map(|b| String::from_utf8(b.clone()).unwrap())
        .collect();
    assert_eq!(strings[0], "");
    let s = |i: u64| strings[i as usize].clone();
    let base_key = strings.iter().position(|x| x == "pprof::base");
    let samples = p
        .msgs(2)
        .iter()
        .map(|sm| {
            let values = sm.bytes.get(&2).map(|v| packed(&v[0])).unwrap_or_default();
            let labelled = sm
                .msgs(3)
                .iter()
                .any(|l| Some(l.int(1) as usize) == base_key);
            (values.into_iter().map(|v| v as i64).collect(), labelled)
        })
        .collect();
    let d = Decoded {
        types: p.msgs(1).iter().map(|t| s(t.int(1))).collect(),
        default_type: s(p.int(14)),
        samples,
        functions: p.msgs(5).iter().map(|f| s(f.int(2))).collect(),
        strings: strings.clone(),
    };
    // Every location id used by a sample exists.
    let locs: Vec<u64> = p.msgs(4).iter().map(|l| l.int(1)).collect();
    for sm in p.msgs(2) {
        for id in sm.bytes.get(&1).map(|v| packed(&v[0])).unwrap_or_default() {
            assert!(locs.contains(&id), "sample uses location {id}, not written");
        }
    }
    (out.stdout, d)
}

/// `Total:` of rpprof --text with `args`, as a number.
fn text_total(dir: &Path, args: &[&str]) -> f64 {
    let mut a = vec!["--text"];
    a.extend_from_slice(args);
    let out = common::rpprof(dir, &a);
    let t = String::from_utf8_lossy(&out.stdout);
    let first = t.lines().next().unwrap_or("");
    first
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no total in {first:?}"))
}

fn column(d: &Decoded, name: &str, base: Option<bool>) -> i64 {
    let i = d.types.iter().position(|t| t == name).expect(name);
    d.samples
        .iter()
        .filter(|(_, b)| base.is_none_or(|want| *b == want))
        .map(|(v, _)| v[i])
        .sum()
}

#[test]
fn heap_profile_round_trips() {
    let dir = case("t-heap");
    let args = ["./theap", "theap.hprof.0003.heap"];
    let (_, d) = proto(&dir, &args);
    assert_eq!(
        d.types,
        [
            "alloc_objects",
            "alloc_space",
            "inuse_objects",
            "inuse_space"
        ]
    );
    assert_eq!(d.default_type, "inuse_space");
    let total = text_total(&dir, &["--show_bytes", "./theap", "theap.hprof.0003.heap"]);
    assert_eq!(column(&d, "inuse_space", None) as f64, total);
    let objects = text_total(
        &dir,
        &["--inuse_objects", "./theap", "theap.hprof.0003.heap"],
    );
    assert_eq!(column(&d, "inuse_objects", None) as f64, objects);
    for f in [
        "tdata::index::grow(int, long)",
        "one_round(long, tdata::render::Shape const* const*)",
        "main",
    ] {
        assert!(
            d.functions.iter().any(|n| n == f),
            "no function {f}: {:?}",
            d.functions
        );
    }
    // No nm address tags in names, and the allocator's frames are gone as from --text.
    assert!(
        !d.functions
            .iter()
            .any(|n| n.ends_with('>') && n.contains("<0000"))
    );
    assert!(
        !d.functions
            .iter()
            .any(|n| n == "malloc" || n.starts_with("tcmalloc::"))
    );

    // The chosen value becomes the default sample type.
    let (_, d) = proto(
        &dir,
        &["--alloc_objects", "./theap", "theap.hprof.0003.heap"],
    );
    assert_eq!(d.default_type, "alloc_objects");
}

#[test]
fn cpu_profile_has_samples_and_nanoseconds() {
    let dir = case("t-cpu");
    let (_, d) = proto(&dir, &["./tcpu-pie", "tcpu-pie.prof"]);
    assert_eq!(d.types, ["samples", "cpu"]);
    let total = text_total(&dir, &["./tcpu-pie", "tcpu-pie.prof"]);
    let samples = column(&d, "samples", None);
    assert_eq!(samples as f64, total);
    assert_eq!(column(&d, "cpu", None) % samples, 0);
    assert!(d.strings.iter().any(|s| s == "nanoseconds"));
}

/// A CPU profile whose header gives a sampling period of 0 says nothing of time: its
/// --proto has the samples column only, and its --traces counts samples (neither reads the
/// period as 1 us).
#[test]
fn cpu_period_zero_has_no_time() {
    let dir = case("t-cpu");
    let mut data = std::fs::read(dir.join("tcpu-pie.prof")).unwrap();
    assert_eq!(&data[24..32], &1000u64.to_le_bytes());
    data[24..32].fill(0);
    let p0 = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tcpu-pie-period0.prof");
    std::fs::write(&p0, &data).unwrap();
    let p0 = p0.to_str().unwrap();
    let (_, d) = proto(&dir, &["./tcpu-pie", p0]);
    assert_eq!(d.types, ["samples"]);
    assert_eq!(d.default_type, "samples");
    let total = text_total(&dir, &["./tcpu-pie", p0]);
    assert_eq!(column(&d, "samples", None) as f64, total);
    let out = common::rpprof(&dir, &["--traces", "./tcpu-pie", p0]);
    let traces = String::from_utf8_lossy(&out.stdout);
    assert!(traces.contains("\nType: samples\n"), "{traces}");
    assert!(!traces.contains("us "), "{traces}");
    let out = common::rpprof(&dir, &["--traces", "./tcpu-pie", "tcpu-pie.prof"]);
    let traces = String::from_utf8_lossy(&out.stdout);
    assert!(traces.contains("\nType: cpu\n"), "{traces}");
    assert!(traces.contains("ms "), "{traces}");
}

#[test]
fn contention_profile_names_delay_and_contentions() {
    let dir = case("t-contention");
    let (_, d) = proto(&dir, &["--contentions", "./tcont", "tcont.contention"]);
    assert_eq!(d.types, ["contentions", "delay"]);
    assert_eq!(d.default_type, "contentions");
    let total = text_total(&dir, &["--contentions", "./tcont", "tcont.contention"]);
    assert_eq!(column(&d, "contentions", None) as f64, total);
}

#[test]
fn base_is_written_negated_and_labelled() {
    let dir = case("t-heap");
    let (_, d) = proto(
        &dir,
        &[
            "--base",
            "theap.hprof.0001.heap",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    assert!(d.samples.iter().any(|(_, b)| *b));
    assert!(column(&d, "inuse_space", Some(true)) <= 0);
    let diff = text_total(
        &dir,
        &[
            "--show_bytes",
            "--base",
            "theap.hprof.0001.heap",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    assert_eq!(column(&d, "inuse_space", None) as f64, diff);
}

/// Go pprof reads the file and names the same hottest functions as rpprof --text.
#[test]
fn go_pprof_reads_it() {
    if !common::have("go") {
        common::skip("go_pprof_reads_it", "go is not installed");
        return;
    }
    let dir = case("t-cpu");
    let (bytes, _) = proto(&dir, &["./tcpu-pie", "tcpu-pie.prof"]);
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tcpu-pie.pb.gz");
    std::fs::write(&file, bytes).unwrap();
    let out = std::process::Command::new("go")
        .args(["tool", "pprof", "-text"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let go = String::from_utf8_lossy(&out.stdout);
    let rows = |s: &str, skip: usize, name_col: usize| -> Vec<String> {
        s.lines()
            .skip(skip)
            .take(3)
            .map(|l| {
                l.split_whitespace()
                    .skip(name_col)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let header = go
        .lines()
        .position(|l| l.trim_start().starts_with("flat"))
        .unwrap()
        + 1;
    let ours = common::rpprof(&dir, &["--text", "./tcpu-pie", "tcpu-pie.prof"]);
    assert_eq!(
        rows(&go, header, 5),
        rows(&String::from_utf8_lossy(&ours.stdout), 1, 5)
    );
}

/// The sum of the values of `--collapsed` with `args` (a line per stack, its value last).
fn collapsed_sum(dir: &Path, args: &[&str]) -> f64 {
    let mut a = vec!["--collapsed"];
    a.extend_from_slice(args);
    let out = common::rpprof(dir, &a);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

/// --focus and --ignore keep the samples whose stacks the reports keep, and jeprof's
/// --thread the chosen thread's: written profiles add up to what --collapsed and --text
/// say of them (they used to be ignored, the whole profile written).
#[test]
fn focus_ignore_and_thread_choose_the_samples() {
    let dir = case("t-cpu");
    let whole = text_total(&dir, &["./tcpu-pie", "tcpu-pie.prof"]);
    for filter in ["--focus=twork", "--ignore=twork", "--focus=main"] {
        let args = [filter, "./tcpu-pie", "tcpu-pie.prof"];
        let (_, d) = proto(&dir, &args);
        let kept = collapsed_sum(&dir, &args);
        assert_eq!(column(&d, "samples", None) as f64, kept, "{filter}");
        assert!(
            kept > 0.0 && (kept < whole || filter == "--focus=main"),
            "{filter}: {kept}"
        );
    }
    let dir = case("t-jemalloc");
    let args = ["--thread=1", "--show_bytes", "./tje", "tje.0002.heap"];
    let (_, d) = proto(&dir, &args);
    let out = common::rpprof(
        &dir,
        &[
            "--text",
            "--thread=1",
            "--show_bytes",
            "./tje",
            "tje.0002.heap",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    assert!(first.starts_with("Total (t1): "), "{first}");
    let total: f64 = first
        .split_whitespace()
        .nth(2)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no total in {first:?}"));
    assert_eq!(column(&d, "inuse_space", None) as f64, total);
    assert!(total < text_total(&dir, &["--show_bytes", "./tje", "tje.0002.heap"]));
}

/// What --proto cannot apply to samples written with all their values is refused, not
/// left out unsaid: a usage error before any work, nothing written.
#[test]
fn options_it_cannot_apply_are_refused() {
    let dir = case("t-jemalloc");
    for opt in ["--retain=grow", "--exclude=grow"] {
        let out = common::rpprof(&dir, &["--proto", opt, "./tje", "tje.0002.heap"]);
        assert_eq!(out.status.code(), Some(1), "{opt}");
        assert!(out.stdout.is_empty(), "{opt}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot be used with --proto"), "{opt}: {err}");
        assert!(
            !err.contains("Warning"),
            "{opt}: refused after the work: {err}"
        );
    }
    let dir = case("t-heap");
    let out = common::rpprof(
        &dir,
        &[
            "--proto",
            "--drop_negative",
            "--base=theap.hprof.0003.heap",
            "./theap",
            "theap.hprof.0001.heap",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--drop_negative cannot be used with --proto"),
        "{err}"
    );
    assert!(!err.contains("Warning"), "refused after the work: {err}");
    // The shell names the option and the command as they are typed there.
    let commands = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("proto-refused.in");
    std::fs::write(&commands, "hide=tdata\nproto\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--interactive", "./theap", "theap.hprof.0003.heap"])
        .current_dir(&dir)
        .stdin(std::fs::File::open(&commands).unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rpprof: hide= cannot be used with proto, which writes"),
        "{err}"
    );
}
