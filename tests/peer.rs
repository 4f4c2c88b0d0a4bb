//! Go pprof's legacy test profiles (`../shared/peer/google-pprof`): rpprof's `--text` equals
//! google-pprof's recorded output, and rpprof's parse of the C++ profiles equals Go pprof's
//! `.string` parse results up to the documented differences in rules.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rpprof::profile::{self, Kind, Profile};

fn peer() -> Option<PathBuf> {
    let p = common::shared()?.join("peer").join("google-pprof");
    p.is_dir().then_some(p)
}

/// Every `--text` row google-pprof recorded (run with /bin/true as the program).
#[test]
fn text_rows_equal_google_pprof() {
    let Some(dir) = peer() else {
        return common::skip("text_rows_equal_google_pprof", "../shared/peer is absent");
    };
    if !Path::new("/bin/true").is_file() {
        return common::skip("text_rows_equal_google_pprof", "/bin/true is absent");
    }
    let mut compared = 0;
    let mut failures = Vec::new();
    for row in common::ref_index(&dir) {
        if !row.output.starts_with("google-pprof.text") || row.exit != 0 {
            continue;
        }
        let want = std::fs::read_to_string(
            dir.join("refs")
                .join(&row.profile)
                .join(format!("{}.out", row.output)),
        )
        .unwrap();
        let args: Vec<&str> = row.command[1..].iter().map(String::as_str).collect();
        let out = common::rpprof(&dir, &args);
        let got = String::from_utf8_lossy(&out.stdout);
        compared += 1;
        if !out.status.success() || got != want {
            failures.push(format!(
                "{}/{}: {}",
                row.profile,
                row.output,
                common::first_difference(&want, &got)
            ));
        }
    }
    assert!(compared >= 50, "only {compared} rows found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Go pprof's parse of a legacy profile, from its `.string` dump.
struct GoProfile {
    samples: Vec<(Vec<i64>, Vec<u64>)>,
    mappings: Vec<(u64, u64, u64, String)>,
}

fn parse_go_string(text: &str) -> GoProfile {
    let mut section = "";
    let mut raw_samples: Vec<(Vec<i64>, Vec<u64>)> = Vec::new();
    let mut locations: HashMap<u64, u64> = HashMap::new();
    let mut mappings = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        match t {
            "Samples:" => {
                section = "samples-header";
                continue;
            }
            "Locations" => {
                section = "locations";
                continue;
            }
            "Mappings" => {
                section = "mappings";
                continue;
            }
            _ => {}
        }
        match section {
            "samples-header" => section = "samples",
            "samples" => {
                if t.is_empty() || !t.contains(':') || t.starts_with("bytes:") {
                    continue;
                }
                let (vals, locs) = t.split_once(':').unwrap();
                let values = vals
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect();
                let ids = locs
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect();
                raw_samples.push((values, ids));
            }
            "locations" => {
                let (id, rest) = t.split_once(':').unwrap();
                let addr = rest.split_whitespace().next().unwrap();
                let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16).unwrap();
                locations.insert(id.trim().parse().unwrap(), addr);
            }
            "mappings" => {
                if t.is_empty() {
                    continue;
                }
                let (_, rest) = t.split_once(": ").unwrap();
                let mut it = rest.splitn(2, ' ');
                let range = it.next().unwrap();
                let path = it.next().unwrap_or("").trim().to_string();
                let r: Vec<u64> = range
                    .split('/')
                    .map(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).unwrap())
                    .collect();
                mappings.push((r[0], r[1], r[2], path));
            }
            _ => {}
        }
    }
    let samples = raw_samples
        .into_iter()
        .map(|(v, ids)| (v, ids.iter().map(|i| locations[i]).collect()))
        .collect();
    GoProfile { samples, mappings }
}

/// Go's post-processing of CPU profiles, which the Perl pprof does not do when reading:
/// it removes up to two second frames shared by all but 1/32 of the samples, and a leaf
/// duplicated as its caller plus one.
fn go_cpu_cleanup(stacks: &mut [Vec<u64>]) {
    let margin = stacks.len() / 32;
    for _ in 0..2 {
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for s in stacks.iter() {
            if s.len() > 1 {
                *counts.entry(s[1]).or_default() += 1;
            }
        }
        if let Some((&a, _)) = counts.iter().find(|(_, c)| **c >= stacks.len() - margin) {
            for s in stacks.iter_mut() {
                if s.len() > 1 && s[1] == a {
                    s.remove(1);
                }
            }
        }
    }
    for s in stacks.iter_mut() {
        if s.len() > 1 && s[0] == s[1].wrapping_add(1) {
            s.remove(1);
        }
    }
}

/// Go's adjustment of the main mapping: one that would start at 0x400000 without its
/// offset does.
fn go_main_mapping(mut m: Vec<(u64, u64, u64, String)>) -> Vec<(u64, u64, u64, String)> {
    if let Some(first) = m.first_mut()
        && first.0.wrapping_sub(first.2) == 0x400000
    {
        first.0 = 0x400000;
        first.2 = 0;
    }
    m
}

/// Values of a sample as Go names them, from rpprof's values.
fn go_values(p: &Profile, values: &[f64]) -> Vec<f64> {
    match p.kind {
        // Go: objects/space (in-use) when the in-use and allocated pairs are equal or the
        // allocated ones zero, else alloc_objects/alloc_space/inuse_objects/inuse_space.
        Kind::Heap | Kind::Growth => values.to_vec(),
        Kind::Contention => vec![values[1], values[0]],
        // Go adds CPU time: samples times the period (microseconds) in nanoseconds.
        Kind::Cpu => vec![values[0], values[0] * p.period as f64 * 1000.0],
        Kind::Thread => vec![values[0]],
    }
}

fn compare(name: &str) {
    let Some(dir) = peer() else {
        return common::skip(name, "../shared/peer is absent");
    };
    let path = dir.join("profile").join(name);
    let data = std::fs::read(&path).unwrap();
    let p = profile::parse(&data, &path).unwrap_or_else(|e| panic!("{e}"));
    let go = parse_go_string(
        &std::fs::read_to_string(dir.join("profile").join(format!("{name}.string"))).unwrap(),
    );
    // Stacks: equal, after Go's own CPU clean-up.
    let mut ours: Vec<Vec<u64>> = p.samples.iter().map(|s| s.stack.clone()).collect();
    if p.kind == Kind::Cpu {
        go_cpu_cleanup(&mut ours);
    }
    // Go moves every frame of heap, growth and contention stacks back one byte, the leaf
    // too; pprof (and rpprof) keep the leaf as recorded.
    if matches!(p.kind, Kind::Heap | Kind::Growth | Kind::Contention) {
        for s in &mut ours {
            if let Some(leaf) = s.first_mut() {
                *leaf = leaf.wrapping_sub(1);
            }
        }
    }
    // Go keeps the samples rpprof keeps, in the same order, except heap records with no
    // in-use and no allocated values, which it drops when it reports only in-use values.
    let go_stacks: Vec<Vec<u64>> = go.samples.iter().map(|s| s.1.clone()).collect();
    assert_eq!(ours.len(), go_stacks.len(), "{name}: sample count");
    for (i, (a, b)) in ours.iter().zip(&go_stacks).enumerate() {
        assert_eq!(a, b, "{name}: sample {i} stack");
    }
    // Values: Go truncates each value to an integer.
    for (i, (s, (gv, _))) in p.samples.iter().zip(&go.samples).enumerate() {
        let ov = go_values(&p, &s.values);
        let pick: Vec<f64> = match (p.kind, gv.len()) {
            // Go's two heap columns are the in-use pair.
            (Kind::Heap | Kind::Growth, 2) => vec![ov[0], ov[1]],
            // Four columns: allocated pair first.
            (Kind::Heap | Kind::Growth, 4) => vec![ov[2], ov[3], ov[0], ov[1]],
            _ => ov,
        };
        assert_eq!(pick.len(), gv.len(), "{name}: sample {i} value count");
        for (x, g) in pick.iter().zip(gv) {
            assert!(
                (x.trunc() as i64 - g).abs() <= 1,
                "{name}: sample {i}: rpprof {x} vs Go {g}"
            );
        }
    }
    // Mappings: Go keeps executable ones (all of the short form), and moves a main mapping
    // to 0x400000; its catch-all fake mapping (no file) has no counterpart.
    let ours_maps: Vec<(u64, u64, u64, String)> = p
        .mappings
        .iter()
        .filter(|m| m.executable())
        .map(|m| (m.start, m.limit, m.offset, m.path.clone()))
        .collect();
    let ours_maps = go_main_mapping(ours_maps);
    let go_maps: Vec<(u64, u64, u64, String)> = go
        .mappings
        .iter()
        .filter(|m| !(m.0 == 0 && m.1 == u64::MAX && m.3.is_empty()))
        .cloned()
        .collect();
    assert_eq!(ours_maps, go_maps, "{name}: mappings");
}

#[test]
fn cppbench_heap_parses_as_go_pprof() {
    compare("cppbench.heap");
}

#[test]
fn cppbench_growth_parses_as_go_pprof() {
    compare("cppbench.growth");
}

#[test]
fn cppbench_cpu_parses_as_go_pprof() {
    compare("cppbench.cpu");
}

#[test]
fn cppbench_contention_parses_as_go_pprof() {
    compare("cppbench.contention");
}

#[test]
fn cppbench_threadz_parse_as_go_pprof() {
    compare("cppbench.thread");
    compare("cppbench.thread.all");
    compare("cppbench.thread.none");
}

/// gobench.heap is `heap/1048576` (version 1 sampling) with `0: 0` in-use pairs, where
/// google-pprof dies with "Illegal division by zero". rpprof keeps pprof's version 1 math
/// (R = N/2; a record is scaled by R/(bytes/count) when that is above 1) and leaves zero
/// pairs alone. Go pprof instead applies the version 2 formula with R = N/2.
#[test]
fn gobench_heap_follows_pprof_v1_math() {
    let Some(dir) = peer() else {
        return common::skip(
            "gobench_heap_follows_pprof_v1_math",
            "../shared/peer is absent",
        );
    };
    let path = dir.join("profile").join("gobench.heap");
    let p = profile::parse(&std::fs::read(&path).unwrap(), &path).unwrap();
    assert_eq!(
        p.sampling,
        profile::HeapSampling::V1 {
            adjustment: 524288.0
        }
    );
    // "1: 10240 [642: 6574080]": mean 10240 < R: scaled by R/10240 = 51.2.
    let s = p
        .samples
        .iter()
        .find(|s| s.values[1] > 524287.0 && s.values[1] < 524289.0 && s.values[0] > 51.0)
        .expect("the 10240-byte record scaled to R");
    assert_eq!(s.values[0], 51.2);
    // "0: 0 [1: 1024]": the in-use pair stays 0, the allocated pair is scaled.
    let z = p.samples.iter().find(|s| s.values[0] == 0.0).unwrap();
    assert_eq!(z.values[1], 0.0);
    assert_eq!(z.values[2], 512.0);
    assert_eq!(z.values[3], 524288.0);
    // And the report prints instead of dying.
    let out = common::rpprof(&dir, &["--text", "/bin/true", "profile/gobench.heap"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Total: 6.5 MB\n"), "{text}");
}
