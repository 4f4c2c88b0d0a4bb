//! Profile readers: what each format reads to, and what damaged input gives (a clear error
//! naming the file and the line or byte offset, never a panic).

mod common;

use std::path::{Path, PathBuf};

use common::make;
use rpprof::error::{ErrorKind, Location};
use rpprof::profile::{self, Format, HeapSampling, Kind};

fn parse(data: &[u8]) -> Result<profile::Profile, rpprof::error::Error> {
    profile::parse(data, Path::new("test.prof"))
}

#[test]
fn heapprofile_reads_unscaled_with_callers_moved_back() {
    let p = parse(&make::heap()).unwrap();
    assert_eq!(p.kind, Kind::Heap);
    assert_eq!(p.sampling, HeapSampling::None);
    assert_eq!(p.samples.len(), 2);
    assert_eq!(p.samples[0].values, vec![3.0, 3000.0, 6.0, 6000.0]);
    // Leaf as recorded, callers minus one.
    assert_eq!(p.samples[0].stack, vec![0x400100, 0x4001ff, 0x7f00000000ff]);
    assert_eq!(p.mappings.len(), 2);
    assert_eq!(p.mappings[1].path, "/lib/libfoo.so.1");
}

#[test]
fn heap_v2_is_scaled_by_poisson_probability() {
    let p = parse(&make::heap_v2()).unwrap();
    assert_eq!(p.sampling, HeapSampling::V2 { rate: 524288.0 });
    assert_eq!(
        p.notes,
        [
            "Adjusting heap profiles for 1-in-524288 sampling rate",
            "Heap version 2"
        ]
    );
    // One object of 524288 bytes at rate 524288: scale 1/(1-e^-1).
    let scale = 1.0 / (1.0 - (-1.0f64).exp());
    assert_eq!(p.samples[0].values[0], scale);
    assert_eq!(p.samples[0].values[1], 524288.0 * scale);
    // A small object is scaled a lot more.
    let small = 1.0 / (1.0 - (-(512.0f64 / 524288.0)).exp());
    assert_eq!(p.samples[1].values[1], 512.0 * small);
}

#[test]
fn heap_v1_and_untyped_headers() {
    // heap/N: version 1 with R = N/2; a record of mean size below R is scaled by R/mean.
    let p =
        parse(b"heap profile: 1: 100 [1: 100] @ heap/400\n1: 100 [1: 100] @ 0x1 0x2\n").unwrap();
    assert_eq!(p.sampling, HeapSampling::V1 { adjustment: 200.0 });
    assert_eq!(p.samples[0].values, vec![2.0, 200.0, 2.0, 200.0]);
    // No type and equal pairs: version 1 at 128 KiB.
    let p = parse(b"heap profile: 1: 100 [1: 100]\n1: 100 [1: 100] @ 0x1\n").unwrap();
    assert_eq!(
        p.sampling,
        HeapSampling::V1 {
            adjustment: 131072.0
        }
    );
    assert_eq!(
        p.notes,
        ["Adjusting heap profiles for 1-in-128KB sampling rate"]
    );
    // Zero pairs do not divide by zero.
    let p = parse(b"heap profile: 0: 0 [1: 8] @ heap/64\n0: 0 [1: 8] @ 0x1\n").unwrap();
    assert_eq!(p.samples[0].values, vec![0.0, 0.0, 4.0, 32.0]);
}

#[test]
fn growth_is_not_scaled_and_reads_short_maps() {
    let p = parse(&make::growth()).unwrap();
    assert_eq!(p.kind, Kind::Growth);
    assert_eq!(p.sampling, HeapSampling::None);
    assert_eq!(p.samples[1].values[1], 1048576.0);
    assert!(p.mappings[0].is_short_form());
    assert_eq!(p.mappings[0].path, "/usr/local/bin/server");
}

#[test]
fn crlf_and_warn_lines() {
    let text = "%warn this profile is old\r\n%unknown\r\nheap profile: 1: 8 [1: 8] @ heapprofile\r\n1: 8 [1: 8] @ 0x10 0x20\r\n";
    let p = parse(text.as_bytes()).unwrap();
    assert_eq!(p.samples[0].stack, vec![0x10, 0x1f]);
    assert_eq!(p.notes[0], "WARNING: this profile is old");
    assert!(p.notes[1].starts_with("Ignoring unknown command from profile header: %unknown"));
}

#[test]
fn jemalloc_threads() {
    let p = parse(&make::jemalloc()).unwrap();
    assert_eq!(p.format, Format::Jemalloc);
    assert!(p.is_jemalloc());
    assert_eq!(p.samples.len(), 2);
    assert_eq!(p.threads.len(), 2);
    assert_eq!(p.threads[&0][0].stack, vec![0x400100, 0x4001ff]);
    assert_eq!(p.threads[&1][0].stack, vec![0x400300, 0x4001ff]);
    // jeprof says nothing about the sampling rate.
    assert!(p.notes.is_empty());
}

#[test]
fn cpu_word_sizes_and_byte_orders() {
    for (name, data) in make::all() {
        if !name.starts_with("cpu") {
            continue;
        }
        let p = parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.kind, Kind::Cpu, "{name}");
        assert_eq!(p.samples[0].stack[..2], [0x400100, 0x4001ff], "{name}");
        assert_eq!(
            p.address_width,
            if name.starts_with("cpu32") { 8 } else { 16 }
        );
        assert_eq!(p.mappings.len(), 2, "{name}");
    }
    let p = parse(&make::cpu64()).unwrap();
    assert_eq!(p.period, 10000);
    assert_eq!(p.samples[0].values, vec![5.0]);
}

#[test]
fn contention_units_and_negative_values() {
    let p = parse(&make::contention()).unwrap();
    assert_eq!(p.kind, Kind::Contention);
    // 1e6 cycles at 1 GHz = 1e6 ns; 10 contentions; mean 1e5.
    assert_eq!(p.samples[0].values, vec![1e6, 10.0, 1e5]);
    // brpc can write negative cycle counts: kept.
    assert_eq!(p.samples[1].values[0], -500.0);
    // Without cycles/second, pprof guesses 2.8 GHz and says so.
    let p = parse(b"--- contention\n2800 1 @ 0x1\n").unwrap();
    assert!((p.samples[0].values[0] - 1000.0).abs() < 1e-9);
    assert_eq!(
        p.notes,
        ["No cycles/second entry in profile; Guessing 2.8 GHz"]
    );
    // contentionz with its attributes and sampling period.
    let p = parse(
        b"--- contentionz 1 ---\ncycles/second = 2000000000\nsampling period = 10\nms since reset = 5\n4000 2 @ 0x1 0x2\n",
    )
    .unwrap();
    assert_eq!(p.samples[0].values, vec![20000.0, 20.0, 1000.0]);
    assert_eq!(p.period, 10);
}

#[test]
fn symbolized_profile_keeps_its_names_aside() {
    let p = parse(&make::symbolized()).unwrap();
    assert_eq!(p.kind, Kind::Cpu);
    let s = p.symbols.as_ref().unwrap();
    assert_eq!(s.binary.as_deref(), Some("/usr/local/bin/server"));
    assert_eq!(s.names[&0x400100], "leaf(int)");
    assert_eq!(s.names[&0x4001ff], "main--inlined_helper(char)");
    // Its writer already moved caller addresses back: they are kept as written.
    assert_eq!(p.samples[0].stack, vec![0x400100, 0x4001ff]);
}

#[test]
fn truncated_map_line_is_a_warning() {
    let mut data = make::heap();
    data.extend_from_slice(b"7f00000a0000-7f00000b0000 r-xp 0000");
    let p = parse(&data).unwrap();
    assert_eq!(p.mappings.len(), 2);
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("truncated memory-map line")),
        "{:?}",
        p.notes
    );
}

/// A heap profile cut in the middle of a line (issue 17): the records before it are read, the
/// cut line is left out, and a warning gives the line and byte of the cut.
#[test]
fn a_cut_last_line_is_left_out_with_a_warning() {
    let p =
        parse(b"heap profile: 1: 8 [1: 8] @ heapprofile\n1: 8 [1: 8] @ 0x1\n1: 8 [1: ").unwrap();
    assert_eq!(p.samples.len(), 1);
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("test.prof:3: the profile is cut short at byte 67")),
        "{:?}",
        p.notes
    );
}

#[test]
fn errors_name_file_and_place() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "test.prof: empty file"),
        (
            "garbage text",
            b"hello world\n".to_vec(),
            "test.prof:1: unrecognized profile format",
        ),
        (
            "bad sample",
            b"heap profile: 1: 8 [1: 8] @ heapprofile\n1x: 8 [1: 8] @ 0x1\n".to_vec(),
            "test.prof:2: bad sample line",
        ),
        (
            "bad address",
            b"heap profile: 1: 8 [1: 8] @ heapprofile\n1: 8 [1: 8] @ 0xzz\n".to_vec(),
            "test.prof:2: bad address",
        ),
        (
            "wrong cpu magic",
            vec![0, 0, 0, 0, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0],
            "test.prof: byte 0: not a profile",
        ),
        (
            "absurd depth",
            absurd_depth(),
            "test.prof: byte 48: bad stack depth",
        ),
    ];
    for (what, data, want) in cases {
        let e = parse(&data).expect_err(what);
        let msg = e.to_string();
        assert!(msg.starts_with(want), "{what}: {msg}");
        assert!(matches!(e.kind, ErrorKind::Format(_)), "{what}");
        if what != "empty" {
            assert_ne!(e.location, Location::None, "{what}");
        }
    }
}

/// A CPU profile whose first record claims a depth of 2^20 frames.
fn absurd_depth() -> Vec<u8> {
    let mut d = make::cpu(8, false, 1, &[(1, &[1; 2])], "");
    d[48..56].copy_from_slice(&(1u64 << 20).to_le_bytes());
    d
}

/// Seeds for damage: the builders' profiles and any real profiles the repository or the
/// shared corpus holds.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = make::all()
        .into_iter()
        .map(|(n, d)| (n.to_string(), d))
        .collect();
    let mut dirs: Vec<PathBuf> = vec![common::root().join("testdata")];
    if let Some(s) = common::shared() {
        dirs.push(s.join("peer").join("google-pprof").join("profile"));
        for case in ["leak", "cpu", "jemalloc", "heapv2"] {
            dirs.push(s.join("corpus").join(case));
        }
    }
    for d in dirs {
        let Ok(entries) = walk(&d) else { continue };
        for p in entries {
            let name = p.to_string_lossy().to_string();
            let interesting = [
                ".heap",
                ".prof",
                ".contention",
                ".cpu",
                ".growth",
                ".thread",
            ]
            .iter()
            .any(|e| name.ends_with(e) || name.contains(&format!("{e}.")));
            if !interesting || name.ends_with(".string") {
                continue;
            }
            if let Ok(d) = std::fs::read(&p)
                && d.len() <= 64 * 1024
            {
                v.push((name, d));
            }
        }
    }
    v
}

fn walk(d: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d)? {
        let p = e?.path();
        if p.is_dir() {
            if let Ok(mut sub) = walk(&p) {
                out.append(&mut sub);
            }
        } else {
            out.push(p);
        }
    }
    Ok(out)
}

/// A small deterministic generator for the damage below.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check_no_panic(what: &str, data: &[u8]) {
    let r = std::panic::catch_unwind(|| parse(data));
    match r {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => {
            let msg = e.to_string();
            assert!(msg.starts_with("test.prof"), "{what}: {msg}");
        }
        Err(_) => panic!("{what}: the reader panicked"),
    }
}

#[test]
fn truncation_at_every_offset_never_panics() {
    for (name, data) in seeds() {
        let step = (data.len() / 500).max(1);
        for cut in (0..data.len()).step_by(step) {
            check_no_panic(&format!("{name} cut at {cut}"), &data[..cut]);
        }
    }
}

/// A CPU profile cut inside a record (issue 17: the process was killed, the disk filled) is
/// read up to the last complete record, with a warning giving the byte of the cut.
#[test]
fn truncated_cpu_records_are_warnings_with_offsets() {
    let data = make::cpu64();
    // Cut inside the first record (after the 40-byte header).
    for cut in [44, 48, 52, 60] {
        let p = parse(&data[..cut]).expect("complete records before the cut");
        assert!(p.samples.is_empty(), "{cut}");
        assert!(
            p.notes
                .iter()
                .any(|n| n.starts_with("Warning: test.prof: byte 40: the CPU profile is cut short")),
            "{cut}: {:?}",
            p.notes
        );
    }
}

#[test]
fn bit_flips_and_random_bytes_never_panic() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for (name, data) in seeds() {
        for i in 0..100 {
            let mut d = data.clone();
            if d.is_empty() {
                break;
            }
            for _ in 0..=(rng.next() % 4) {
                let pos = (rng.next() as usize) % d.len();
                d[pos] ^= 1 << (rng.next() % 8);
            }
            check_no_panic(&format!("{name} flip {i}"), &d);
        }
    }
    for n in 0..500 {
        let len = (rng.next() % 300) as usize;
        let d: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        check_no_panic(&format!("random {n}"), &d);
    }
}

#[test]
fn absurd_counts_and_depths() {
    // A count that does not fit.
    let e = parse(
        b"heap profile: 1: 8 [1: 8] @ heapprofile\n99999999999999999999999: 8 [1: 8] @ 0x1\n",
    )
    .expect_err("overflow");
    assert!(e.to_string().contains("test.prof:2"), "{e}");
    // A CPU record that claims more addresses than the file holds.
    let mut d = make::cpu(8, false, 1, &[], "");
    d.truncate(40);
    d.extend_from_slice(&1u64.to_le_bytes());
    d.extend_from_slice(&60000u64.to_le_bytes());
    d.extend_from_slice(&5u64.to_le_bytes());
    let e = parse(&d).expect_err("short record");
    assert!(e.to_string().contains("byte 40"), "{e}");
    // Addresses longer than 64 bits.
    let e = parse(b"heap profile: 1: 8 [1: 8] @ heapprofile\n1: 8 [1: 8] @ 0x10000000000000000\n")
        .expect_err("long address");
    assert!(e.to_string().contains("bad address"), "{e}");
}

/// A gzip-compressed profile (a dump compressed by log rotation) reads as the profile; a
/// damaged one, and a protobuf profile (Go's, or rpprof --proto's), are refused by name.
#[test]
fn gzip_compressed_profiles_are_read() {
    use std::io::Write;
    let gz = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let root = common::root().join("testdata");
    for f in [
        "t-heap/theap.hprof.0001.heap",
        "t-cpu/tcpu-nopie.prof",
        "t-jemalloc/tje.0003.heap",
    ] {
        let path = root.join(f);
        let data = std::fs::read(&path).unwrap();
        let plain = rpprof::profile::parse(&data, &path).unwrap();
        let packed = gz(&data);
        assert!(
            rpprof::profile::looks_like_profile(&packed[..packed.len().min(4096)]),
            "{f}"
        );
        let read = rpprof::profile::parse(&packed, &path).unwrap();
        assert_eq!(read, plain, "{f}");
        // Cut short (being compressed): what it holds is read, and where it is cut kept.
        let half = &packed[..packed.len() / 2];
        let cut = rpprof::profile::parse(half, &path).unwrap();
        assert_eq!(cut.cut_at, Some(half.len() as u64), "{f}");
        // Bytes after the gzip data (zeros left by a preallocating writer, or other bytes):
        // ignored with a warning, as gzip(1) does.
        for (tail, what) in [
            (vec![0u8; 1000], "are zeros"),
            (b"junk\n".to_vec(), "are not gzip"),
            (b"\x1f\x8b\x08".to_vec(), "are not gzip"),
        ] {
            let mut padded = packed.clone();
            padded.extend_from_slice(&tail);
            let mut read = rpprof::profile::parse(&padded, &path).unwrap();
            let note = read.notes.pop().unwrap_or_default();
            assert_eq!(read, plain, "{f}");
            let at = format!(
                "the {} bytes after its gzip data (from byte {}) {what}",
                tail.len(),
                packed.len()
            );
            assert!(note.contains(&at), "{f}: {note}");
        }
        // Two members (files concatenated): read one after the other, as gzip(1) reads them.
        let mut two = gz(&data[..data.len() / 2]);
        two.extend(gz(&data[data.len() / 2..]));
        assert_eq!(rpprof::profile::parse(&two, &path).unwrap(), plain, "{f}");
        // Damaged: said.
        let mut bad = packed.clone();
        bad[12..20].fill(0xff);
        let err = rpprof::profile::parse(&bad, &path).unwrap_err().to_string();
        assert!(err.contains("gzip-compressed, and damaged"), "{f}: {err}");
    }
    // Not every gzip file is a profile (a rotated log): it does not look like one.
    let log: Vec<u8> = (1..5000)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    assert!(!rpprof::profile::looks_like_profile(&gz(&log)));
    let path = root.join("t-heap/theap.hprof.0001.heap");
    let pb = b"\x0a\x04\x08\x01\x10\x02";
    for data in [pb.to_vec(), gz(pb)] {
        let err = rpprof::profile::parse(&data, &path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("a protobuf profile"), "{err}");
    }
    let err = rpprof::profile::parse(&gz(&gz(b"heap profile:")), &path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("compressed twice"), "{err}");
}

/// What a watched folder reads as a profile by its first bytes: section markers (`---`,
/// blanks, a word, as pprof matches them), not a text report's rule of dashes (a saved
/// `--peek`), which is left unread without a message.
#[test]
fn section_markers_look_like_profiles_and_rules_do_not() {
    use rpprof::profile::looks_like_profile;
    for head in [
        &b"--- symbol\nbinary=x\n"[..],
        b"---symbol\n",
        b"--- contention\ncycles/second=1\n",
        b"--- heapz 1 ---\n",
        b"heap profile:    1:  2 [ 3: 4] @ heapprofile\n",
        b"heap_v2/524288\n",
        b"%\n",
    ] {
        assert!(
            looks_like_profile(head),
            "{}",
            String::from_utf8_lossy(head)
        );
    }
    for head in [
        &b"-----------------------------------------------------+-------------\n"[..],
        b"---\n",
        b"--- \n",
        b"Total: 2.8 MB\n",
    ] {
        assert!(
            !looks_like_profile(head),
            "{}",
            String::from_utf8_lossy(head)
        );
    }
}
