//! Bad input: truncated and bit-flipped profiles, absurd numbers, broken memory maps and
//! programs, paths that are not files. rpprof must refuse them cleanly: no panic, exit status
//! 0, 1 or 2 (never 101 or a signal), one error line on stderr and nothing on stdout when it
//! fails.
//!
//! The readers are driven in-process for the dense cases (every truncation offset, thousands of
//! bit flips); the command runs on a sample of them and on every hand-made case.

mod common;

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// One profile of the test data: its case directory, program and file name.
struct Case {
    dir: PathBuf,
    binary: String,
    profile: String,
}

impl Case {
    fn data(&self) -> Vec<u8> {
        std::fs::read(self.dir.join(&self.profile)).unwrap()
    }
}

/// Every profile listed in `testdata/*/profiles.tsv`.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(common::root().join("testdata"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("profiles.tsv").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let tsv = std::fs::read_to_string(dir.join("profiles.tsv")).unwrap();
        for line in tsv.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() >= 3 {
                out.push(Case {
                    dir: dir.clone(),
                    binary: f[1].to_string(),
                    profile: f[2].to_string(),
                });
            }
        }
    }
    assert!(out.len() >= 10, "profiles.tsv lists too few profiles");
    out
}

/// A deterministic xorshift64 generator: the same "random" inputs on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("bad_input")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Truncation offsets: every offset of a small file; of a larger one, 200 evenly spaced
/// offsets and the first and last 64.
fn offsets(len: usize) -> Vec<usize> {
    if len < 4096 {
        return (0..len).collect();
    }
    let mut v: Vec<usize> = (0..64).chain(len - 64..len).collect();
    v.extend((0..200).map(|i| i * len / 200));
    v.sort_unstable();
    v.dedup();
    v
}

/// Reads `data` with the library's entry point; a panic fails the test with `what`. Errors
/// must be one non-empty line; profiles read must print and list their addresses.
fn parse_checked(data: &[u8], what: &str) {
    let r = catch_unwind(AssertUnwindSafe(|| {
        match rpprof::profile::parse(data, Path::new("bad.prof")) {
            Ok(p) => {
                let _ = p.addresses();
                let _ = p.to_string();
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        }
    }));
    match r {
        Err(_) => panic!("{what}: the reader panicked"),
        Ok(Err(msg)) => {
            assert!(!msg.trim().is_empty(), "{what}: empty error message");
            assert!(!msg.contains('\n'), "{what}: multi-line error {msg:?}");
        }
        Ok(Ok(())) => {}
    }
    // A file refused by its first bytes (before the rest is read) is refused for the same
    // reason when read whole.
    let head = &data[..data.len().min(rpprof::profile::HEAD_BYTES)];
    if let Err(e) = rpprof::profile::check_head(head, Path::new("bad.prof")) {
        match rpprof::profile::parse(data, Path::new("bad.prof")) {
            Err(whole) => assert_eq!(whole.to_string(), e.to_string(), "{what}"),
            Ok(_) => panic!("{what}: its start is refused ({e}), the whole of it read"),
        }
    }
}

/// Runs rpprof in `dir` with standard input empty.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Checks the exit discipline of one run and returns its exit status: 0, 1 or 2, never a
/// panic or a signal; on failure nothing on stdout and one `rpprof:` error line on stderr
/// (after any warnings, before at most a hint).
fn check(out: &Output, what: &str) -> i32 {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let Some(code) = out.status.code() else {
        panic!(
            "{what}: killed by a signal ({:?}); stderr:\n{stderr}",
            out.status
        );
    };
    assert!(
        matches!(code, 0..=2),
        "{what}: exit status {code}; stderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "{what}: panic; stderr:\n{stderr}"
    );
    if code != 0 {
        assert!(
            out.stdout.is_empty(),
            "{what}: exit status {code} with {} bytes on stdout",
            out.stdout.len()
        );
        let lines: Vec<&str> = stderr.lines().collect();
        let errors: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with("rpprof: "))
            .collect();
        assert_eq!(
            errors.len(),
            1,
            "{what}: want one error line; stderr:\n{stderr}"
        );
        let at = errors[0];
        assert!(
            at + 2 >= lines.len(),
            "{what}: the error line is not last; stderr:\n{stderr}"
        );
        assert!(
            lines[at].len() < 600,
            "{what}: error line too long: {}",
            lines[at]
        );
    }
    code
}

/// Writes `data` to `name` in `dir`.
fn write(dir: &Path, name: &str, data: &[u8]) -> String {
    std::fs::write(dir.join(name), data).unwrap();
    dir.join(name).display().to_string()
}

#[test]
fn truncated_profiles_are_read_or_refused() {
    for c in cases() {
        let data = c.data();
        for n in offsets(data.len()) {
            parse_checked(&data[..n], &format!("{} cut at {n}", c.profile));
        }
    }
}

/// A file cut in its header line, in a contention profile's attribute or in a record
/// before its ` @` says so, with the byte where it ends (not as a memory-map line, nor as a
/// whole header whose type or rate may be cut). (A contention profile cut in its first line
/// is no profile rpprof knows: an error.)
#[test]
fn cuts_in_headers_attributes_and_records_are_said() {
    let t = common::root().join("testdata");
    let heap = std::fs::read(t.join("t-heap/theap.hprof.0001.heap")).unwrap();
    let je = std::fs::read(t.join("t-jemalloc/tje.0001.heap")).unwrap();
    let cont = std::fs::read(t.join("t-contention/tcont.contention")).unwrap();
    let line_end = |d: &[u8], k: usize| {
        d.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(k)
            .unwrap()
            .0
    };
    let mut cases: Vec<(&str, &[u8], usize, usize)> = vec![
        ("heap header", &heap, line_end(&heap, 0) - 3, 1),
        ("jemalloc header", &je, line_end(&je, 0) - 2, 1),
    ];
    // The contention profile's attribute lines, cut in their name and in their value, and
    // its first record, cut before its ` @`.
    let attr = line_end(&cont, 0) + 1;
    let first_record = (0..)
        .map(|k| line_end(&cont, k) + 1)
        .find(|&at| cont[at].is_ascii_digit())
        .unwrap();
    let record_line = cont[..first_record].iter().filter(|b| **b == b'\n').count() + 1;
    cases.push(("contention attribute name", &cont, attr + 3, 2));
    cases.push((
        "contention attribute value",
        &cont,
        line_end(&cont, 1) - 1,
        2,
    ));
    cases.push(("contention record", &cont, first_record + 3, record_line));
    for (what, data, at, line) in cases {
        let p = rpprof::profile::parse(&data[..at], Path::new("cut.prof"))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let said = format!("Warning: cut.prof:{line}: the profile is cut short at byte {at}");
        assert!(
            p.notes.iter().any(|n| n.starts_with(&said)),
            "{what}: {said:?} not in {:?}",
            p.notes
        );
        assert!(
            !p.notes.iter().any(|n| n.contains("memory-map line")),
            "{what}: {:?}",
            p.notes
        );
    }
}

#[test]
fn truncated_profiles_through_the_command() {
    let d = scratch("truncated_command");
    for c in cases() {
        let data = c.data();
        let prog = c.dir.join(&c.binary).display().to_string();
        for n in [0, 7, data.len() / 3, data.len() - 1] {
            let p = write(&d, "cut.prof", &data[..n]);
            let out = run(&d, &["--text", &prog, &p]);
            let code = check(&out, &format!("{} cut at {n}", c.profile));
            if n == 0 {
                assert_eq!(code, 1, "an empty profile is refused");
            }
        }
    }
}

#[test]
fn bit_flipped_profiles_are_read_or_refused() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for c in cases() {
        let data = c.data();
        for i in 0..300 {
            let mut m = data.clone();
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                // Half the flips hit the header, where the format is sniffed.
                let pos = if i % 2 == 0 {
                    rng.below(m.len().min(128))
                } else {
                    rng.below(m.len())
                };
                m[pos] ^= 1 << rng.below(8);
            }
            parse_checked(&m, &format!("{} flip #{i}", c.profile));
        }
        // Runs of garbage bytes.
        for i in 0..50 {
            let mut m = data.clone();
            let at = rng.below(m.len());
            let len = (1 + rng.below(64)).min(m.len() - at);
            for b in &mut m[at..at + len] {
                *b = rng.next() as u8;
            }
            parse_checked(&m, &format!("{} garbage #{i} at {at}", c.profile));
        }
    }
}

#[test]
fn bit_flipped_profiles_through_the_command() {
    let d = scratch("flipped_command");
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    for c in cases().iter().step_by(2) {
        let data = c.data();
        let prog = c.dir.join(&c.binary).display().to_string();
        for _ in 0..2 {
            let mut m = data.clone();
            for _ in 0..16 {
                let pos = rng.below(m.len());
                m[pos] ^= 1 << rng.below(8);
            }
            let p = write(&d, "flipped.prof", &m);
            let out = run(&d, &["--text", &prog, &p]);
            check(&out, &format!("{} flipped", c.profile));
        }
    }
}

/// A heap profile with one record: `counts` are the four numbers, `stack` the addresses.
fn heap_profile(counts: [&str; 4], stack: &str) -> Vec<u8> {
    format!(
        "heap profile: {0}: {1} [{2}: {3}] @ heapprofile\n{0}: {1} [{2}: {3}] @ {stack}\n",
        counts[0], counts[1], counts[2], counts[3]
    )
    .into_bytes()
}

/// A 64-bit little-endian binary CPU profile from words.
fn cpu_words(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn absurd_numbers() {
    let d = scratch("absurd_numbers");
    let deep: String = (0..100_000)
        .map(|i| format!("0x{:x}", 0x40_0000 + i * 16))
        .collect::<Vec<_>>()
        .join(" ");
    let max_i = "9223372036854775807";
    let max_u = "18446744073709551615";
    let huge_dec = format!("{}.5", "9".repeat(400));
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "deep max counts",
            heap_profile(["2147483647", max_i, "2147483647", max_i], &deep),
        ),
        ("u64 max", heap_profile([max_u, max_u, max_u, max_u], "0x1")),
        (
            "u64 max + 1",
            heap_profile(["18446744073709551616", "1", "1", "1"], "0x1"),
        ),
        (
            "i64 min",
            heap_profile(
                ["-9223372036854775808", "-9223372036854775808", "1", "1"],
                "0x1",
            ),
        ),
        (
            "infinite decimals",
            heap_profile(["1", &huge_dec, "1", &huge_dec], "0x1"),
        ),
        (
            "address too wide",
            heap_profile(["1", "1", "1", "1"], "0x1ffffffffffffffffff"),
        ),
        (
            "address max",
            heap_profile(["1", "1", "1", "1"], "0xffffffffffffffff 0x0"),
        ),
    ];
    // +inf and -inf on one stack: the sums are NaN.
    let mut nan = heap_profile(["1", &huge_dec, "1", &huge_dec], "0x1 0x2");
    nan.extend_from_slice(format!("1: -{huge_dec} [1: -{huge_dec}] @ 0x1 0x2\n").as_bytes());
    cases.push(("inf minus inf", nan));
    for rate in ["0", "1", max_u, "18446744073709551616"] {
        let text = format!(
            "heap profile: 1: {max_i} [1: {max_i}] @ heap_v2/{rate}\n1: {max_i} [1: {max_i}] @ 0x1\n3: 1 [5: 0] @ 0x2\n"
        );
        cases.push(("heap_v2 rate", text.into_bytes()));
    }
    cases.push((
        "jemalloc huge",
        format!(
            "heap_v2/{max_u}\n  t*: 1: 1 [0: 0]\n  t{max_u}: 1: 1 [0: 0]\n@ 0x1 0x2\n  t*: {max_u}: {max_u} [{max_u}: {max_u}]\n  t{max_u}: 1: 1 [1: 1]\n  t18446744073709551616: 1: 1 [1: 1]\n"
        )
        .into_bytes(),
    ));
    // CPU: a header claiming a huge depth; a record with the largest depth read, cut short;
    // the largest count; a zero period and an absurd one.
    cases.push((
        "cpu huge depth",
        cpu_words(&[0, 3, 0, 10000, 0, 1, u64::MAX, 1]),
    ));
    cases.push((
        "cpu depth 65536 cut",
        cpu_words(&[0, 3, 0, 10000, 0, 1, 65536, 0x40_1000]),
    ));
    let mut deep_cpu = vec![0, 3, 0, 0, 0, u64::MAX, 65536];
    deep_cpu.extend((0..65536).map(|i| 0x40_1000 + i));
    deep_cpu.extend([0, 1, 0]);
    cases.push(("cpu depth 65536 max count", cpu_words(&deep_cpu)));
    cases.push((
        "cpu header size huge",
        cpu_words(&[0, u64::MAX, 0, 10000, 0]),
    ));
    cases.push((
        "cpu header size 2^32",
        cpu_words(&[0, 1 << 32, 0, 10000, 0]),
    ));
    cases.push((
        "cpu period max",
        cpu_words(&[0, 3, 0, 1 << 32, 0, 1, 1, 0x1, 0, 1, 0]),
    ));
    let mut cpu32: Vec<u8> = [0u32, 3, 0, 10000, 0, u32::MAX, u32::MAX, 1]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    cpu32.extend_from_slice(&[1, 2, 3]);
    cases.push(("cpu 32-bit huge", cpu32));
    for (var, value) in [
        ("cycles/second", "nan"),
        ("cycles/second", "inf"),
        ("cycles/second", "1e-300"),
        ("cycles/second", "-5"),
        ("sampling period", "nan"),
        ("sampling period", "1e308"),
        ("sampling period", "-1"),
    ] {
        let text = format!(
            "--- contention\n{var}={value}\n{max_i} {max_i} @ 0x1 0x2\n-{max_i} 1 @ 0x1 0x2\n-9223372036854775808 0 @ 0x3\n"
        );
        cases.push(("contention attribute", text.into_bytes()));
    }
    cases.push((
        "contention count past i64",
        b"--- contention\n99999999999999999999 1 @ 0x3\n".to_vec(),
    ));
    cases.push((
        "symbolized",
        format!(
            "--- symbol\nbinary=/nonexistent\n0xffffffffffffffff {}\n0x1\n---\n--- heap\nheap profile: 1: 1 [1: 1] @ heapprofile\n1: 1 [1: 1] @ 0xffffffffffffffff 0x1\n",
            "f--".repeat(10000)
        )
        .into_bytes(),
    ));
    cases.push((
        "threadz",
        format!(
            "--- threadz 1 ---\n--- Thread 1 (name: a) stack: ---\n  PC: {}\n--- Thread 2 same as previous thread\n",
            "0xffffffffffffffff ".repeat(5000)
        )
        .into_bytes(),
    ));
    let prog = common::root().join("testdata/t-heap/theap");
    let prog = prog.display().to_string();
    for (i, (what, data)) in cases.iter().enumerate() {
        parse_checked(data, what);
        let p = write(&d, &format!("absurd{i}.prof"), data);
        for args in [
            &["--text", "missing-program", &p][..],
            &["--text", "--stacks", &prog, &p][..],
            &["--collapsed", &prog, &p, &p][..],
            &["--raw", &prog, &p][..],
        ] {
            let out = run(&d, args);
            check(&out, &format!("{what} ({args:?})"));
        }
    }
}

/// Counts and sampling rates past what a profiler writes are refused where they stand (a
/// CPU count from 2^53 on printed as Perl's overflowed -1; a rate past 2^40 made the heap
/// report infinite); the largest ones accepted still read.
#[test]
fn counts_and_rates_no_profiler_writes_are_refused() {
    let d = scratch("counts_and_rates");
    let cpu = |count: u64| {
        cpu_words(&[
            0, 3, 0, 10000, 0, 1, 1, 0x40_1000, count, 1, 0x40_2000, 0, 1, 0,
        ])
    };
    let v2 = |rate: u64| {
        format!("heap profile: 1: 100 [1: 100] @ heap_v2/{rate}\n1: 100 [1: 100] @ 0x1\n")
            .into_bytes()
    };
    let je = |rate: u64| {
        format!("heap_v2/{rate}\n  t*: 1: 100 [0: 0]\n@ 0x1\n  t*: 1: 100 [0: 0]\n").into_bytes()
    };
    let limit = 1u64 << 40;
    for (what, data, error) in [
        ("cpu 2^53", cpu(1 << 53), None),
        (
            "cpu 2^53 + 1",
            cpu((1 << 53) + 1),
            Some("byte 64: bad CPU record: count 9007199254740993 (more than 2^53 samples)"),
        ),
        (
            "cpu u64 max",
            cpu(u64::MAX),
            Some("byte 64: bad CPU record: count 18446744073709551615"),
        ),
        ("heap_v2 2^40", v2(limit), None),
        (
            "heap_v2 2^40 + 1",
            v2(limit + 1),
            Some(":1: sampling rate 1099511627777 is out of range (at most 2^40 bytes)"),
        ),
        ("jemalloc 2^40", je(limit), None),
        (
            "jemalloc u64 max",
            je(u64::MAX),
            Some(":1: sampling rate 18446744073709551615 is out of range"),
        ),
    ] {
        let p = write(&d, "p.prof", &data);
        let out = run(&d, &["--text", "missing-program", &p]);
        let code = check(&out, what);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match error {
            None => {
                assert_eq!(code, 0, "{what}: {stderr}");
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(
                    !text.contains("inf") && !text.contains("NaN") && !text.contains("-1 "),
                    "{what}: {text}"
                );
            }
            Some(says) => {
                assert_eq!(code, 1, "{what}: {stderr}");
                assert!(
                    stderr.contains(&format!(
                        "rpprof: {p}{}",
                        if says.starts_with(':') { "" } else { ": " }
                    )),
                    "{what}: {stderr}"
                );
                assert!(stderr.contains(says), "{what}: {stderr}");
            }
        }
    }
}

/// A byte that is no text in a heap record is named with its column, however long the line.
#[test]
fn a_byte_that_is_no_text_is_shown_where_it_is() {
    let d = scratch("not_text");
    let stack: String = (0..40).map(|i| format!("0x{:x} ", 0x40_1000 + i)).collect();
    let mut data =
        format!("heap profile: 1: 1 [1: 1] @ heapprofile\n1: 1 [1: 1] @ {stack}").into_bytes();
    let at = data.len() - 5;
    data[at] = 0xcc;
    data.push(b'\n');
    let p = write(&d, "p.heap", &data);
    let out = run(&d, &["--text", "missing-program", &p]);
    assert_eq!(check(&out, "not text"), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let column = at - data.iter().position(|&b| b == b'\n').unwrap();
    assert!(
        stderr.contains(&format!(
            "rpprof: {p}:2: bad sample line: byte 0xcc at column {column} is not text"
        )),
        "{stderr}"
    );
}

#[test]
fn cyclic_and_overlapping_maps() {
    let d = scratch("maps");
    let prog = common::root().join("testdata/t-heap/theap");
    let prog = prog.display().to_string();
    let head = "heap profile: 2: 16 [2: 16] @ heapprofile\n1: 8 [1: 8] @ 0x401000 0x7f0000001000\n1: 8 [1: 8] @ 0x7f0000002000\nMAPPED_LIBRARIES:\n";
    let mut maps: Vec<String> = vec![
        // Overlapping and identical ranges, all naming the program.
        format!(
            "00400000-00500000 r-xp 00000000 fe:00 1 {prog}\n00400000-00500000 r-xp 00000000 fe:00 1 {prog}\n00450000-00460000 r-xp 00001000 fe:00 1 {prog}\n00000000-ffffffffffffffff r-xp 00000000 fe:00 1 {prog}\n"
        ),
        // Start above the end, offsets past the file.
        format!(
            "7f0000002000-7f0000001000 r-xp ffffffffffffffff fe:00 1 {prog}.so\n7f0000000000-7f0000100000 r-xp fffffffffffff000 fe:00 1 /lib/libc.so.6\n"
        ),
        // Variables that refer to themselves and to each other.
        "build=$build/x\n7f0000000000-7f0000100000: $build/lib.so\na=$b$b\nb=$a$a\n7f0000000000-7f0000100000: /$a$b.so\n".to_string(),
        // Variables that would blow up exponentially if expanded again and again.
        {
            let mut s = String::new();
            for i in 0..40 {
                s.push_str(&format!("v{i}={}\n", format!("$v{}", i + 1).repeat(8)));
            }
            s.push_str(&format!("7f0000000000-7f0000100000: /{}.so\n", "$v0".repeat(8)));
            s
        },
        // The same line many times.
        format!("7f0000000000-7f0000100000 r-xp 00000000 fe:00 1 {prog}\n").repeat(5000),
        // Libraries that are directories and devices.
        "7f0000000000-7f0000100000 r-xp 00000000 fe:00 1 /tmp/.so\n7f0000000000-7f0000100000 r-xp 00000000 fe:00 1 /dev/zero.so\n7f0000000000-7f0000100000: /dev/zero\n".to_string(),
    ];
    // A variable as long as a line can be, expanded many times on one line.
    maps.push(format!(
        "v={}\n7f0000000000-7f0000100000: /{}.so\n",
        "x".repeat(100_000),
        "$v".repeat(10_000)
    ));
    for (i, m) in maps.iter().enumerate() {
        let data = format!("{head}{m}");
        parse_checked(data.as_bytes(), &format!("maps #{i}"));
        let p = write(&d, &format!("maps{i}.heap"), data.as_bytes());
        for args in [
            &["--text", &prog, &p][..],
            &["--text", &p][..],
            &["--raw", &prog, &p][..],
        ] {
            let out = run(&d, args);
            check(&out, &format!("maps #{i} ({args:?})"));
        }
    }
}

/// A minimal ELF header (no sections, no segments): `class` 1 or 2, `data` 1 (little) or 2
/// (big endian), `machine` e.g. 183 for aarch64.
fn elf_header(class: u8, data: u8, machine: u16) -> Vec<u8> {
    let mut h = vec![0x7f, b'E', b'L', b'F', class, data, 1, 0];
    h.resize(16, 0);
    let half = |v: u16| {
        if data == 2 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let word = |v: u32| {
        if data == 2 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    h.extend(half(3)); // ET_DYN
    h.extend(half(machine));
    h.extend(word(1)); // version
    let (addr, ehsize, phentsize, shentsize) = if class == 2 {
        (8, 64u16, 56u16, 64u16)
    } else {
        (4, 52, 32, 40)
    };
    h.extend(std::iter::repeat_n(0, addr * 3)); // entry, phoff, shoff
    h.extend(word(0)); // flags
    h.extend(half(ehsize));
    h.extend(half(phentsize));
    h.extend(half(0));
    h.extend(half(shentsize));
    h.extend(half(0));
    h.extend(half(0));
    assert_eq!(h.len(), ehsize as usize);
    h
}

/// The file range of section `name` in an ELF file.
fn section_range(data: &[u8], name: &str) -> std::ops::Range<usize> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(data).unwrap();
    let s = f.section_by_name(name).unwrap();
    let (off, len) = s.file_range().unwrap();
    off as usize..(off + len) as usize
}

/// DWARF that cannot be read (a whole section, or a unit's entries from somewhere on) is
/// said, naming the file and where, and the report prints from the symbol table; the warning
/// comes again when the answers are reused from the symbol cache. The intact file says
/// nothing of the kind.
#[test]
fn damaged_dwarf_is_said() {
    let d = scratch("damaged_dwarf");
    let heap = common::root().join("testdata/t-heap");
    let theap = std::fs::read(heap.join("theap")).unwrap();
    let info = section_range(&theap, ".debug_info");
    let line = section_range(&theap, ".debug_line");
    let fill = |r: std::ops::Range<usize>| {
        let mut m = theap.clone();
        m[r].fill(0xff);
        m
    };
    let half = (info.start + info.end) / 2;
    for (what, data, says) in [
        ("intact", theap.clone(), None),
        (
            ".debug_info all 0xff",
            fill(info.clone()),
            Some(".debug_info cannot be read from byte 0 on"),
        ),
        (
            ".debug_line all 0xff",
            fill(line.clone()),
            Some("1 of its 1 units cannot be read, the first at .debug_info byte 0"),
        ),
        (
            "the second half of .debug_info 0xff",
            fill(half..info.end),
            Some("the entries of 1 of its units cannot be read to their end"),
        ),
    ] {
        let dir = d.join(what.replace(' ', "_"));
        std::fs::create_dir_all(&dir).unwrap();
        let prog = write(&dir, "theap", &data);
        let profile = heap.join("theap.hprof.0003.heap").display().to_string();
        for pass in ["cold", "from the cache"] {
            let out = Command::new(env!("CARGO_BIN_EXE_rpprof"))
                .args(["--text", "--lines", "--debug", &prog, &profile])
                .env("XDG_CACHE_HOME", dir.join("cache"))
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert_eq!(check(&out, what), 0, "{what}");
            assert!(out.stdout.starts_with(b"Total: "), "{what}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            // The second run's answers come from the cache (the program's among them).
            let hits = if pass == "cold" { "0 files" } else { "3 files" };
            assert!(
                stderr.contains(&format!("rpprof: {hits} answered from the symbol cache")),
                "{what}, {pass}: {stderr}"
            );
            match says {
                None => assert!(
                    !stderr.contains("DWARF is damaged"),
                    "{what}, {pass}: {stderr}"
                ),
                Some(says) => assert!(
                    stderr.contains(&format!("Warning: {prog}: its DWARF is damaged: {says}")),
                    "{what}, {pass}: {stderr}"
                ),
            }
        }
    }
}

#[test]
fn bad_programs() {
    let d = scratch("programs");
    let heap = common::root().join("testdata/t-heap");
    let theap = std::fs::read(heap.join("theap")).unwrap();
    let mut programs: Vec<(String, Vec<u8>)> = vec![
        (
            "text file".into(),
            b"#!/bin/sh\necho not a program\n".to_vec(),
        ),
        ("empty file".into(), Vec::new()),
        ("ELF magic only".into(), b"\x7fELF".to_vec()),
        ("aarch64 header".into(), elf_header(2, 1, 183)),
        ("big-endian ppc64 header".into(), elf_header(2, 2, 21)),
        ("32-bit arm header".into(), elf_header(1, 1, 40)),
        ("bad class".into(), {
            let mut h = elf_header(2, 1, 62);
            h[4] = 9;
            h
        }),
    ];
    for n in [64, 1000, theap.len() / 2, theap.len() - 1] {
        programs.push((format!("theap cut at {n}"), theap[..n].to_vec()));
    }
    // theap with the wrong machine and byte order in its header.
    let mut arm = theap.clone();
    arm[18..20].copy_from_slice(&183u16.to_le_bytes());
    programs.push(("theap as aarch64".into(), arm));
    let mut be = theap.clone();
    be[5] = 2;
    programs.push(("theap marked big-endian".into(), be));
    // Broken DWARF: garbage over parts of .debug_info and .debug_line, and unit lengths that
    // claim the whole address space.
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for (name, seed) in [(".debug_info", 1), (".debug_line", 2), (".debug_abbrev", 3)] {
        let r = section_range(&theap, name);
        for k in 0..3 {
            let mut m = theap.clone();
            let _ = seed;
            for _ in 0..(8 << k) {
                let at = r.start + rng.below(r.len());
                m[at] = rng.next() as u8;
            }
            programs.push((format!("theap with garbage in {name} #{k}"), m));
        }
        let mut m = theap.clone();
        m[r.start..r.start + 4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        programs.push((format!("theap with a huge unit in {name}"), m));
        let mut m = theap.clone();
        for b in &mut m[r.clone()] {
            *b = 0xff;
        }
        programs.push((format!("theap with {name} all 0xff"), m));
    }
    for (i, (what, data)) in programs.iter().enumerate() {
        // Each in its own directory under the program's own name, so that the profile's map
        // line for /tmp/rpprof-corpus/t-heap/theap takes it.
        let dir = d.join(format!("p{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let prog = write(&dir, "theap", data);
        let profile = heap.join("theap.hprof.0003.heap").display().to_string();
        for args in [
            &["--text", &prog, &profile][..],
            &["--text", "--lines", &prog, &profile][..],
        ] {
            let out = run(&dir, args);
            check(&out, &format!("{what} ({args:?})"));
        }
    }
    // The same file given to --add_lib.
    let out = run(
        &d,
        &[
            "--text",
            "--add_lib=p0/theap",
            "missing",
            &heap.join("theap.hprof.0003.heap").display().to_string(),
        ],
    );
    check(&out, "--add_lib text file");
}

/// testdata's heap program and its last dump, as arguments.
fn theap_and_dump() -> (String, String) {
    let heap = common::root().join("testdata/t-heap");
    (
        heap.join("theap").display().to_string(),
        heap.join("theap.hprof.0003.heap").display().to_string(),
    )
}

#[test]
fn empty_files_and_directories() {
    let d = scratch("paths");
    let empty = write(&d, "empty.prof", b"");
    let dir = d.join("a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.display().to_string();
    let (prog, profile) = theap_and_dump();
    for (what, args) in [
        ("empty profile", vec!["--text", &prog, &empty]),
        ("empty profile alone", vec!["--text", &empty]),
        ("directory as profile", vec!["--text", &prog, &dir]),
        ("directory as the only argument", vec!["--text", &dir]),
        ("directory as program", vec!["--text", &dir, &profile]),
        (
            "directory as base",
            vec!["--text", "--base", &dir, &prog, &profile],
        ),
        (
            "empty base",
            vec!["--text", "--base", &empty, &prog, &profile],
        ),
        ("missing profile", vec!["--text", &prog, "no-such.prof"]),
        ("/dev/null as profile", vec!["--text", &prog, "/dev/null"]),
    ] {
        let out = run(&d, &args);
        let code = check(&out, what);
        assert_eq!(code, 1, "{what}: a refused input exits with 1");
    }
    let out = run(&d, &["--text", &empty, &profile]);
    check(&out, "empty program");
}

/// A file that is no profile by its first bytes is refused before the rest is read: here a
/// pipe whose writer sends 4 KB of zeros and then neither writes nor closes (rpprof used to
/// wait for its end; a 2 GB file of zeros took 12 s and 2 GB).
#[cfg(target_os = "linux")]
#[test]
fn a_file_refused_by_its_start_is_not_read_to_its_end() {
    let d = scratch("head");
    let fifo = d.join("zeros.prof");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let path = fifo.clone();
    let writer = std::thread::spawn(move || {
        // Opening waits for the reader.
        let mut w = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let _ = w.write_all(&[0u8; 4096]);
        // Open, silent, until the test is over.
        let _ = done_rx.recv_timeout(std::time::Duration::from_secs(30));
    });
    let (prog, _) = theap_and_dump();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--text", &prog, &fifo.display().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if start.elapsed() > std::time::Duration::from_secs(10) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let _ = done_tx.send(());
    let _ = writer.join();
    assert!(status.is_some(), "still reading after 10 s");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(check(&out, "a pipe of zeros"), 1);
    assert!(
        err.contains("zeros.prof: byte 8: not a CPU profile: bad header size 0"),
        "{err}"
    );
}

/// Of several profiles that cannot be read, the error names the one pprof reads first: the
/// first argument, then the others from the last back (rpprof reads them on every core).
#[test]
fn of_several_bad_profiles_the_first_read_is_named() {
    let d = scratch("several");
    let (prog, good) = theap_and_dump();
    let bad_a = write(&d, "a.prof", b"not a profile\n");
    let bad_b = write(&d, "b.prof", b"");
    for (args, named) in [
        (vec![&good, &bad_a, &good, &bad_b, &good], &bad_b),
        (vec![&good, &bad_a, &good, &good, &good], &bad_a),
        (vec![&bad_a, &good, &good, &bad_b], &bad_a),
    ] {
        let mut all = vec!["--text", prog.as_str()];
        all.extend(args.iter().map(|a| a.as_str()));
        for _ in 0..3 {
            let out = run(&d, &all);
            assert_eq!(check(&out, "several profiles"), 1);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(named.as_str()), "{all:?}: {stderr}");
        }
    }
}

/// `/dev/zero` as the profile or the base was read until memory ran out.
#[cfg(unix)]
#[test]
fn a_device_is_not_read_as_a_profile() {
    let d = scratch("device");
    let (prog, profile) = theap_and_dump();
    for args in [
        vec!["--text", &prog, "/dev/zero"],
        vec!["--text", "/dev/zero"],
        vec!["--text", "--base=/dev/zero", &prog, &profile],
    ] {
        let out = run_with_timeout(&d, &args, 60);
        assert_eq!(check(&out, "/dev/zero"), 1, "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("/dev/zero: a device, not a profile file"),
            "{err}"
        );
    }
}

#[test]
fn exit_statuses() {
    let d = scratch("exit_statuses");
    let (prog, profile) = theap_and_dump();
    let ok = run(&d, &["--text", &prog, &profile]);
    assert_eq!(check(&ok, "plain run"), 0);
    assert!(!ok.stdout.is_empty());
    for (what, args, want) in [
        ("no arguments", vec![], 1),
        (
            "unknown option",
            vec!["--no-such-option", &prog, &profile],
            1,
        ),
        ("bad number", vec!["--nodecount=many", &prog, &profile], 1),
        ("bad regexp", vec!["--focus=(", &prog, &profile], 1),
        ("program only", vec!["--text", &prog], 1),
        ("not implemented", vec!["--test", &prog, &profile], 2),
        (
            "remote profile, nothing listening",
            vec!["--text", "127.0.0.1:1/pprof/heap"],
            1,
        ),
    ] {
        let out = run(&d, &args);
        assert_eq!(check(&out, what), want, "{what}");
    }
}

#[cfg(unix)]
#[test]
fn arguments_that_are_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .arg("--text")
        .arg(OsStr::from_bytes(b"prog\xff"))
        .arg(OsStr::from_bytes(b"heap\xfe.prof"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(check(&out, "non-UTF-8 arguments"), 1);
}

#[test]
fn closed_stdout_ends_quietly() {
    let heap = common::root().join("testdata/t-heap");
    for mode in ["--text", "--stacks", "--collapsed", "--raw", "--traces"] {
        let mut args = vec![mode];
        if mode == "--stacks" {
            args.push("--text");
        }
        args.extend(["theap", "theap.hprof.0003.heap"]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
            .args(&args)
            .current_dir(&heap)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before rpprof writes anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{mode}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{mode}: {stderr}"
        );
    }
}

#[test]
fn symbols_mode_on_bad_input() {
    let heap = common::root().join("testdata/t-heap");
    for input in [
        &b""[..],
        b"0xffffffffffffffff 0x0 0x1ffffffffffffffffffff\n",
        b"\xff\xfe garbage\n",
        b"7f0000000000-7f0000100000 r-xp ffffffffffffffff fe:00 1 /lib/libc.so.6\n0x7f0000000010\n",
    ] {
        let out = common::rpprof_with_input(&heap, &["--symbols", "theap"], input);
        check(&out, &format!("--symbols with {input:?}"));
    }
}

/// Runs rpprof in `dir`, killing it after `secs` seconds: for inputs that used to make it
/// wait forever.
fn run_with_timeout(dir: &Path, args: &[&str], secs: u64) -> Output {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read while it runs: a report larger than a pipe's buffer would otherwise wait for
    // room forever.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed().as_secs() >= secs {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rpprof {args:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

#[test]
fn debug_links_to_devices_are_not_read() {
    // Found by review: a .gnu_debuglink of "/dev/zero" made rpprof read /dev/zero for its
    // CRC until memory ran out.
    let d = scratch("debuglink");
    let case = common::root().join("testdata/t-stripped");
    let orig = std::fs::read(case.join("tstrip")).unwrap();
    let r = section_range(&orig, ".gnu_debuglink");
    let profile = case.join("tstrip.prof").display().to_string();
    for (i, name) in [&b"/dev/zero"[..], b"/dev/stdin"].iter().enumerate() {
        // The name, NUL-padded to 4 bytes, then the CRC, over the 20-byte section.
        let mut link = name.to_vec();
        link.push(0);
        while link.len() % 4 != 0 {
            link.push(0);
        }
        link.extend_from_slice(&0x3978_6652u32.to_le_bytes());
        assert!(link.len() <= r.len());
        let mut m = orig.clone();
        m[r.start..r.start + link.len()].copy_from_slice(&link);
        let dir = d.join(format!("d{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let prog = write(&dir, "tstrip", &m);
        let out = run_with_timeout(&dir, &["--text", &prog, &profile], 60);
        check(
            &out,
            &format!("debuglink {}", String::from_utf8_lossy(name)),
        );
    }
}

#[cfg(unix)]
#[test]
fn fifos_in_the_memory_map_are_not_opened() {
    if !common::have("mkfifo") {
        common::skip("fifos_in_the_memory_map_are_not_opened", "no mkfifo");
        return;
    }
    let d = scratch("fifo");
    let fifo = d.join("libfifo.so");
    let ok = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(ok.success());
    let data = format!(
        "heap profile: 1: 8 [1: 8] @ heapprofile\n1: 8 [1: 8] @ 0x7f0000001000\nMAPPED_LIBRARIES:\n7f0000000000-7f0000100000 r-xp 00000000 fe:00 1 {}\n",
        fifo.display()
    );
    let p = write(&d, "fifo.heap", data.as_bytes());
    let out = run_with_timeout(&d, &["--text", "missing-program", &p], 60);
    check(&out, "a FIFO as a library");
    let out = run_with_timeout(
        &d,
        &[
            "--text",
            "--add_lib",
            &fifo.display().to_string(),
            "missing-program",
            &p,
        ],
        60,
    );
    check(&out, "a FIFO as --add_lib");
}

/// `elf` (64-bit little-endian) with section `name` zlib-compressed in place
/// (SHF_COMPRESSED), its header claiming `claim` uncompressed bytes (None: the true size).
fn compress_section(elf: &[u8], name: &str, claim: Option<u64>) -> Vec<u8> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(elf).unwrap();
    let s = f.section_by_name(name).unwrap();
    let index = s.index().0;
    let (off, len) = s.file_range().unwrap();
    let (off, len) = (off as usize, len as usize);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&elf[off..off + len]).unwrap();
    let z = z.finish().unwrap();
    let mut chdr = Vec::new();
    chdr.extend(1u32.to_le_bytes()); // ELFCOMPRESS_ZLIB
    chdr.extend(0u32.to_le_bytes());
    chdr.extend(claim.unwrap_or(len as u64).to_le_bytes());
    chdr.extend(1u64.to_le_bytes());
    let body = [chdr, z].concat();
    assert!(body.len() <= len, "{name} does not shrink");
    let mut out = elf.to_vec();
    out[off..off + body.len()].copy_from_slice(&body);
    let shoff = u64::from_le_bytes(elf[0x28..0x30].try_into().unwrap()) as usize;
    let shentsize = u16::from_le_bytes(elf[0x3a..0x3c].try_into().unwrap()) as usize;
    let sh = shoff + index * shentsize;
    let flags = u64::from_le_bytes(out[sh + 8..sh + 16].try_into().unwrap()) | 0x800;
    out[sh + 8..sh + 16].copy_from_slice(&flags.to_le_bytes());
    out[sh + 32..sh + 40].copy_from_slice(&(body.len() as u64).to_le_bytes());
    out
}

#[test]
fn compressed_dwarf_claiming_huge_sizes() {
    let d = scratch("compressed");
    let heap = common::root().join("testdata/t-heap");
    let theap = std::fs::read(heap.join("theap")).unwrap();
    let profile = heap.join("theap.hprof.0003.heap").display().to_string();
    let lines = |dir: &Path| {
        let out = run(dir, &["--text", "--lines", "theap", &profile]);
        check(&out, "compressed DWARF");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Compressed honestly: read as before.
    let ok = d.join("ok");
    std::fs::create_dir_all(&ok).unwrap();
    write(&ok, "theap", &compress_section(&theap, ".debug_info", None));
    let (out, err) = lines(&ok);
    assert!(out.contains("theap.cc:"), "{out}\n{err}");
    // Claiming 8 GiB, or the most a u64 holds: refused without reserving it, the symbol
    // table still names the functions.
    for claim in [8u64 << 30, u64::MAX] {
        let dir = d.join(format!("claim{claim}"));
        std::fs::create_dir_all(&dir).unwrap();
        write(
            &dir,
            "theap",
            &compress_section(&theap, ".debug_info", Some(claim)),
        );
        let (out, err) = lines(&dir);
        assert!(err.contains("cannot read its DWARF"), "{err}");
        assert!(out.contains("main"), "{out}");
    }
}

/// A section header whose offset points past the file: the warning says so (it spoke of
/// "compressed data size or offset" of a section that is not compressed), and the symbol
/// table still names the functions.
#[test]
fn a_dwarf_section_past_the_end_of_the_file() {
    use object::{Object, ObjectSection};
    let d = scratch("section-past-end");
    let heap = common::root().join("testdata/t-heap");
    let mut theap = std::fs::read(heap.join("theap")).unwrap();
    let index = object::File::parse(&*theap)
        .unwrap()
        .section_by_name(".debug_info")
        .unwrap()
        .index()
        .0;
    let shoff = u64::from_le_bytes(theap[0x28..0x30].try_into().unwrap()) as usize;
    let shentsize = u16::from_le_bytes(theap[0x3a..0x3c].try_into().unwrap()) as usize;
    let sh = shoff + index * shentsize;
    theap[sh + 24..sh + 32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    write(&d, "theap", &theap);
    let profile = heap.join("theap.hprof.0003.heap").display().to_string();
    let out = run(&d, &["--text", "theap", &profile]);
    check(&out, "a section past the end");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot read its DWARF (.debug_info: its bytes 1099511627776..")
            && err.contains("lie past the end of the file"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(" main\n"));
}

#[test]
fn jemalloc_thread_lines_cannot_multiply_a_stack() {
    // Each thread line copies its stack: 40000 addresses and 40000 thread lines (1 MB of
    // file) would hold 1.6 billion addresses (13 GB).
    let mut text = String::from("heap_v2/524288\n  t*: 1: 1 [0: 0]\n@");
    for i in 0..40_000u64 {
        text.push_str(&format!(" 0x{:x}", 0x40_0000 + i));
    }
    text.push('\n');
    text.push_str(&"  t1: 1: 1 [1: 1]\n".repeat(40_000));
    let err = rpprof::profile::parse(text.as_bytes(), Path::new("bomb.heap")).unwrap_err();
    assert!(err.to_string().contains("too many thread records"), "{err}");
    // A real profile is read as before.
    let data = std::fs::read(common::root().join("testdata/t-jemalloc/tje.0003.heap")).unwrap();
    rpprof::profile::parse(&data, Path::new("tje.0003.heap")).unwrap();
}

#[test]
fn many_map_variables_read_in_linear_time() {
    // Each definition used to scan all earlier ones: 200000 names took minutes.
    let mut text = String::from(
        "heap profile: 1: 8 [1: 8] @ heapprofile\n1: 8 [1: 8] @ 0x1\nMAPPED_LIBRARIES:\n",
    );
    for i in 0..200_000 {
        text.push_str(&format!("v{i}=/x{i}\n"));
    }
    text.push_str("7f0000000000-7f0000100000: $v199999/lib.so\n");
    let start = std::time::Instant::now();
    let p = rpprof::profile::parse(text.as_bytes(), Path::new("vars.heap")).unwrap();
    assert_eq!(p.mappings[0].path, "/x199999/lib.so");
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
}

#[test]
fn output_that_cannot_be_written_exits_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        common::skip("output_that_cannot_be_written_exits_2", "no /dev/full");
        return;
    };
    let heap = common::root().join("testdata/t-heap");
    let out = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--text", "theap", "theap.hprof.0003.heap"])
        .current_dir(&heap)
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(check(&out, "stdout on /dev/full"), 2);
    // Said as the report that could not be written.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with("rpprof: cannot write the report: No space left on device\n"),
        "{stderr}"
    );
}

#[test]
fn contention_attributes_that_are_not_numbers_are_refused() {
    for (var, value) in [
        ("cycles/second", "nan"),
        ("cycles/second", "inf"),
        ("cycles/second", "0"),
        ("sampling period", "nan"),
        ("sampling period", "-inf"),
        ("sampling period", "0"),
        ("sampling period", "-2"),
        ("sampling period", &"9".repeat(1 << 20)),
        ("cycles/second", &format!("1{}", "x".repeat(1 << 20))),
    ] {
        let text = format!("--- contention\n{var}={value}\n10 1 @ 0x1\n");
        let err = rpprof::profile::parse(text.as_bytes(), Path::new("c.prof")).unwrap_err();
        let err = err.to_string();
        assert!(err.contains("bad value"), "{var}={value}: {err}");
        // A long value is quoted by its start (a 1 MB value made a 1 MB message).
        assert!(err.len() < 200, "{var}: {}", &err[..200]);
    }
}

/// Lines a contention profile does not hold (not a record, an attribute or a memory-map
/// line) are counted in a warning naming the first (pprof ignores them without a word: a
/// heap profile under a contention header was an empty report, and nothing said why).
#[test]
fn contention_lines_that_are_nothing_are_said() {
    let c = common::root().join("testdata/t-contention/tcont.contention");
    let data = std::fs::read_to_string(&c).unwrap();
    let clean = rpprof::profile::parse(data.as_bytes(), &c).unwrap();
    assert!(
        !clean.notes.iter().any(|n| n.contains("neither")),
        "{:?}",
        clean.notes
    );
    let mut lines: Vec<&str> = data.lines().collect();
    // A Go block profile (`/debug/pprof/block?debug=1`) follows each record with comment
    // lines naming its frames: they are no garbage.
    lines.insert(
        3,
        "#\t0x43d5a6\tsync.(*Mutex).Lock+0x1a6\t/usr/lib/go/src/sync/mutex.go:81",
    );
    let commented = lines.join("\n") + "\n";
    let p = rpprof::profile::parse(commented.as_bytes(), &c).unwrap();
    assert_eq!(p.samples.len(), clean.samples.len());
    assert!(
        !p.notes.iter().any(|n| n.contains("neither")),
        "{:?}",
        p.notes
    );
    lines.remove(3);
    lines.insert(3, "garbage");
    lines.insert(5, "1: 4096 [ 1: 4096] @ 0x1 0x2");
    let text = lines.join("\n") + "\n";
    let p = rpprof::profile::parse(text.as_bytes(), &c).unwrap();
    assert_eq!(p.samples.len(), clean.samples.len());
    let said = format!(
        "{}: 2 lines from line 4 on are neither a contention record, an attribute nor a memory-map line: ignored",
        c.display()
    );
    assert!(p.notes.iter().any(|n| n.contains(&said)), "{:?}", p.notes);
}

/// testdata's contention profile (written by the program's own contention recorder) cut in
/// the middle of a record, or with a count damaged: the cut record is left out with a
/// warning (its last address may be cut short), the damaged one is an error naming its line
/// (it was taken for a memory-map line, and its delay dropped from the total).
#[test]
fn contention_records_cut_or_damaged() {
    let file = common::root().join("testdata/t-contention/tcont.contention");
    let data = std::fs::read(&file).unwrap();
    let records = |d: &[u8]| {
        d.split(|&b| b == b'\n')
            .filter(|l| l.windows(2).any(|w| w == b" @"))
            .count()
    };
    let whole = rpprof::profile::parse(&data, &file).unwrap();
    assert_eq!(whole.samples.len(), records(&data));
    // Inside the fourth record, after its first address's first digits.
    let fourth = data
        .split(|&b| b == b'\n')
        .take(5)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let at = fourth
        + data[fourth..]
            .windows(4)
            .position(|w| w == b"@ 0x")
            .unwrap()
        + 6;
    let cut = rpprof::profile::parse(&data[..at], &file).unwrap();
    assert_eq!(cut.samples.len(), 3);
    assert!(
        cut.notes
            .iter()
            .any(|n| n.contains(":6: the profile is cut short at byte")
                && n.contains("the 3 complete records before that line are read")),
        "{:?}",
        cut.notes
    );
    let text = String::from_utf8(data.clone()).unwrap();
    let line = text.lines().position(|l| l.contains(" @ ")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let (cycles, rest) = lines[line].split_once(' ').unwrap();
    let (_, stack) = rest.split_once(' ').unwrap();
    lines[line] = format!("{cycles} 7x {stack}");
    let err = rpprof::profile::parse(lines.join("\n").as_bytes(), &file).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!(":{}: bad contention record", line + 1)),
        "{err}"
    );
}

/// A CPU record whose first address is 0 ends the samples (pprof's reading of the
/// end-of-data marker, count 0, depth 1, address 0); when it is not that marker, a warning
/// says where the samples stopped, which pprof did not.
#[test]
fn a_cpu_record_starting_at_address_0_ends_the_samples_with_a_warning() {
    let file = common::root().join("testdata/t-cpu/tcpu-pie.prof");
    let mut data = std::fs::read(&file).unwrap();
    let word = |d: &[u8], i: usize| u64::from_le_bytes(d[i * 8..i * 8 + 8].try_into().unwrap());
    let whole = rpprof::profile::parse(&data, &file).unwrap();
    assert!(
        !whole.notes.iter().any(|n| n.contains("address 0")),
        "{:?}",
        whole.notes
    );
    let mut i = 2 + word(&data, 1) as usize;
    for _ in 0..4 {
        i += 2 + word(&data, i + 1) as usize;
    }
    data[(i + 2) * 8..(i + 3) * 8].fill(0);
    let p = rpprof::profile::parse(&data, &file).unwrap();
    assert_eq!(p.samples.len(), 4);
    let at = format!("byte {}: a record of count", i * 8);
    assert!(
        p.notes.iter().any(|n| n.contains(&at)
            && n.contains("starts with address 0")
            && n.contains("the 4 records before it are read")),
        "{:?}",
        p.notes
    );
}

/// `data` with its line ends turned into `\r` alone (old Mac line ends).
fn cr_only(data: &[u8]) -> Vec<u8> {
    data.iter()
        .map(|&b| if b == b'\n' { b'\r' } else { b })
        .collect()
}

/// A heap header cut short, or a heap (jemalloc, contention) profile whose lines end in `\r`
/// alone, was read as a profile of no records (an empty report, exit status 0): now an error
/// naming line 1.
#[test]
fn a_heap_header_that_is_not_one_is_refused() {
    let file = common::root().join("testdata/t-heap/theap.hprof.0001.heap");
    let data = std::fs::read(&file).unwrap();
    let header_end = data.iter().position(|&b| b == b'\n').unwrap();
    let bracket = data.iter().position(|&b| b == b'[').unwrap();
    let cut = rpprof::profile::parse(&data[..bracket], &file)
        .unwrap_err()
        .to_string();
    assert!(
        cut.contains(":1: bad heap profile header") && cut.contains("cut short?"),
        "{cut}"
    );
    let cr = rpprof::profile::parse(&cr_only(&data), &file)
        .unwrap_err()
        .to_string();
    assert!(
        cr.contains(":1: bad heap profile header") && cr.contains("carriage return"),
        "{cr}"
    );
    // The header alone, whole, is an empty profile; a negative total (rpprof's --raw of a
    // difference) is a header.
    assert!(rpprof::profile::parse(&data[..header_end], &file).is_ok());
    let negative = b"heap profile: -1: -100 [ 2: 200] @ heapprofile\n";
    assert!(rpprof::profile::parse(negative, &file).is_ok());
    // jemalloc's: `\r` said as such (it was "needs a sampling rate"); the rate is the digits
    // after `heap_v2/`, what follows them not read, as jeprof reads it.
    let je = common::root().join("testdata/t-jemalloc/tje.0003.heap");
    let data = std::fs::read(&je).unwrap();
    let cr = rpprof::profile::parse(&cr_only(&data), &je)
        .unwrap_err()
        .to_string();
    assert!(
        cr.contains(":1: bad jemalloc profile header") && cr.contains("carriage return"),
        "{cr}"
    );
    let header_end = data.iter().position(|&b| b == b'\n').unwrap();
    let mut odd = b"heap_v2/4096x".to_vec();
    odd.extend_from_slice(&data[header_end..]);
    let p = rpprof::profile::parse(&odd, &je).unwrap();
    assert_eq!(p.period, 4096);
    // A contention profile's: it was "cut short in its header line", and an empty report.
    // Its lines ending in \r\n are read.
    let c = common::root().join("testdata/t-contention/tcont.contention");
    let data = std::fs::read(&c).unwrap();
    let cr = rpprof::profile::parse(&cr_only(&data), &c)
        .unwrap_err()
        .to_string();
    assert!(
        cr.contains(":1: bad contention profile header") && cr.contains("carriage return"),
        "{cr}"
    );
    let crlf: Vec<u8> = data
        .iter()
        .flat_map(|&b| {
            if b == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![b]
            }
        })
        .collect();
    let p = rpprof::profile::parse(&crlf, &c).unwrap();
    assert_eq!(
        p.samples.len(),
        rpprof::profile::parse(&data, &c).unwrap().samples.len()
    );
}

/// A thread profile cut in a thread's lines: the threads before it are read, the cut one is
/// left out (it was counted as "same as the previous thread", or kept with a cut address).
#[test]
fn a_thread_profile_cut_short_keeps_the_whole_threads() {
    let text = "--- threadz 1 ---\n\n--- Thread 1 (name: main/1) stack: ---\n  PC:  0x00bc8f1c: helper(arg *)\n  0x0040be31: main\n--- Thread 2 (name: t1/2) stack: ---\n  PC:  0x7f794a32bf7d: nanosleep\n  0x7f794a32414e: start_thread\n      creator: 0xa45b96 0xa460b4\n--- Thread 3 (name: t2/3) stack: ---\n  PC:  0x00bc8f1c: Wait(int)\n";
    let whole = rpprof::profile::parse(text.as_bytes(), Path::new("t.prof")).unwrap();
    assert_eq!(whole.samples.len(), 3);
    for (cut_in, threads) in [
        ("t2/3", 2),
        ("0x7f794a32414e", 1),
        ("0xa460b4", 1),
        ("name: main", 0),
    ] {
        let at = text.find(cut_in).unwrap() + 3;
        let p = rpprof::profile::parse(&text.as_bytes()[..at], Path::new("t.prof")).unwrap();
        assert_eq!(p.samples.len(), threads, "cut in {cut_in}");
        assert!(
            p.notes.iter().any(|n| n.contains("cut short")
                && n.contains(&format!(
                    "the {threads} threads before the cut one are read"
                ))),
            "cut in {cut_in}: {:?}",
            p.notes
        );
    }
}

#[cfg(unix)]
#[test]
fn a_pipe_as_the_first_argument_is_read_once() {
    // `rpprof --text <(cat heap)`: the first argument used to be opened twice (once to see
    // whether it is a program), and the second open of a pipe waits for a writer forever.
    if !common::have("mkfifo") {
        common::skip("a_pipe_as_the_first_argument_is_read_once", "no mkfifo");
        return;
    }
    let d = scratch("pipe_first");
    let fifo = d.join("heap.pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let data = std::fs::read(common::root().join("testdata/t-heap/theap.hprof.0003.heap")).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // Opening for writing waits for rpprof to open the reading end.
            if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&fifo) {
                let _ = f.write_all(&data);
            }
        })
    };
    let child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--text", &fifo.display().to_string()])
        .current_dir(&d)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            panic!("rpprof still waiting on the pipe after 60 s");
        }
    };
    writer.join().unwrap();
    assert_eq!(check(&out, "profile from a pipe"), 0);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Total: "));
}

/// Inputs the fuzzers (fuzz/) found problems with, kept in `tests/data/fuzz/`.
fn fuzz_input(name: &str) -> Vec<u8> {
    std::fs::read(common::root().join("tests/data/fuzz").join(name)).unwrap()
}

/// A Rust v0 name whose binder claims an enormous number of lifetimes while nothing is
/// printed: the demangler looped on the count (demangle target, timeout). The input is the
/// demangler crate's (`crates/demangle/tests/data/fuzz/`, its own regression test is in
/// `demangle_robust.rs`); here its answer also goes through pprof's short names, as in the
/// fuzz target.
#[test]
fn fuzz_regression_demangle_binder_count() {
    let data = std::fs::read(
        common::root().join("crates/demangle/tests/data/fuzz/demangle-timeout-d616c0e1"),
    )
    .unwrap();
    let name = rpprof::symbolize::demangle::nm_name(&data);
    assert!(!name.is_empty());
    let _ = rpprof::symbolize::names::short_name(&name, false);
}

/// An ELF whose empty DWARF section's data is not inside the mapped file: the section's
/// offset in the mapping was computed by a subtraction that overflowed (elf_symbolize
/// target, a panic with overflow checks on, as in this test build).
#[test]
fn fuzz_regression_elf_section_outside_the_mapping() {
    let d = scratch("fuzz_regression_elf");
    let prog = write(&d, "prog", &fuzz_input("elf_symbolize-crash-efdf78b5"));
    let profile = write(
        &d,
        "p.heap",
        &heap_profile(["1", "1024", "1", "1024"], "0x1000 0x1010 0x401000"),
    );
    check(
        &run(&d, &["--text", &prog, &profile]),
        "fuzzed ELF as program",
    );
    check(
        &run(&d, &["--text", "--lines", &prog, &profile]),
        "fuzzed ELF, --lines",
    );
}

#[test]
fn a_symbol_moved_far_away_does_not_make_listing_walk_the_gap() {
    // Found by an audit: one damaged symbol value (0x69 in its fifth byte) made the routine
    // below it span about 450 GB, and --list and --disasm looked at each of its bytes.
    use object::{Object, ObjectSection, ObjectSymbol};
    let d = scratch("far_symbol");
    let heap = common::root().join("testdata/t-heap");
    let mut theap = std::fs::read(heap.join("theap")).unwrap();
    let (value_at, symtab) = {
        let f = object::File::parse(&theap[..]).unwrap();
        let symtab = f
            .section_by_name(".symtab")
            .unwrap()
            .file_range()
            .unwrap()
            .0 as usize;
        let sym = f.symbols().find(|s| s.name() == Ok("main")).unwrap();
        // Elf64_Sym: name (4), info, other, shndx (2), then the value.
        (symtab + sym.index().0 * 24 + 8, symtab)
    };
    assert!(value_at > symtab);
    theap[value_at + 4] = 0x69;
    let prog = write(&d, "theap", &theap);
    let profile = heap.join("theap.heapv2").display().to_string();
    for mode in ["--list=.", "--disasm=."] {
        let out = run_with_timeout(&d, &[mode, &prog, &profile], 120);
        assert_eq!(check(&out, mode), 0, "{mode}");
        assert!(!out.stdout.is_empty(), "{mode}");
    }
}

/// A directory given as a profile is said to be one, with what to give instead (it was
/// "Is a directory (os error 21)").
#[test]
fn a_directory_is_not_a_profile() {
    let case = common::root().join("testdata/t-heap");
    let dir = case.to_str().unwrap();
    for args in [vec!["--text", dir], vec!["--text", "./theap", dir]] {
        let out = common::rpprof(&case, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
        assert!(
            err.contains(": a directory, not a profile file (its dumps: name them"),
            "{args:?}: {err}"
        );
    }
}
