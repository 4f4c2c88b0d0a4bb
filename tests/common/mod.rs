//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod pty;
pub mod web;

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared reference material (`../shared`), when this checkout has it next to it.
pub fn shared() -> Option<PathBuf> {
    let p = root().join("..").join("shared");
    p.join("corpus").is_dir().then_some(p)
}

/// Why the testdata references cannot be replayed exactly on this machine: its system
/// libraries (libc, libstdc++, tcmalloc, ...) are not the ones they were made with.
pub fn system_libraries_differ() -> Option<String> {
    if !have("sha256sum") {
        return Some("sha256sum is absent".into());
    }
    let list = root().join("testdata").join("system-libs.sha256");
    let out = Command::new("sha256sum")
        .arg("--check")
        .arg("--quiet")
        .arg(&list)
        .current_dir("/")
        .output()
        .ok()?;
    if out.status.success() {
        return None;
    }
    let bad: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.to_string())
        .collect();
    Some(format!(
        "this machine's system libraries are not the ones the references were made with (testdata/SYSTEM-LIBS.md): {}",
        bad.join("; ")
    ))
}

/// Links `/tmp/rpprof-corpus/<case>` to `testdata/<case>` when nothing is there: the
/// programs' DWARF names their sources there (where they were built). Returns that path.
pub fn link_case(case: &str) -> PathBuf {
    let runs = Path::new("/tmp/rpprof-corpus");
    let _ = std::fs::create_dir_all(runs);
    let at = runs.join(case);
    // A link left by a checkout since removed points nowhere: made again (one to another
    // checkout, whose testdata is the same, is left for that checkout's tests).
    let dangling = std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_symlink()) && !at.exists();
    if dangling {
        let _ = std::fs::remove_file(&at);
    }
    if std::fs::symlink_metadata(&at).is_err() {
        let _ = std::os::unix::fs::symlink(root().join("testdata").join(case), &at);
    }
    at
}

/// An empty folder `rel` (a path under the tests' scratch folder), made anew.
pub fn empty_dir(rel: impl AsRef<Path>) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(rel);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("make a scratch folder");
    d
}

/// Prints why a test is skipped (visible with `--nocapture`, and in CI logs).
pub fn skip(test: &str, why: &str) {
    eprintln!("SKIPPED {test}: {why}");
}

/// Runs the rpprof binary with `args` in `dir`.
pub fn rpprof(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run rpprof")
}

/// [`rpprof`] with `input` on its standard input (`--symbols`).
pub fn rpprof_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rpprof");
    // (rpprof may stop reading early, on an error: its answer is what the test looks at.)
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().expect("wait for rpprof")
}

/// A port of 127.0.0.1 nothing listens on (taken, then freed).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// True when `program` is on PATH.
pub fn have(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Splits a recorded command line the way a POSIX shell would for the simple quoting the
/// reference index uses.
pub fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// One row of a reference index (`refs/INDEX.tsv`).
pub struct RefRow {
    pub profile: String,
    pub output: String,
    pub exit: i32,
    pub command: Vec<String>,
}

/// Reads `refs/INDEX.tsv` of a case directory.
pub fn ref_index(case: &Path) -> Vec<RefRow> {
    let text = std::fs::read_to_string(case.join("refs").join("INDEX.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            if f.len() < 5 {
                return None;
            }
            Some(RefRow {
                profile: f[0].to_string(),
                output: f[1].to_string(),
                exit: f[2].parse().unwrap_or(-1),
                command: shell_words(f[4]),
            })
        })
        .collect()
}

/// `data` with every `from` replaced by `to` (a profile's paths moved, binary or text).
pub fn replace_bytes(data: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// A short unified view of the first difference between two texts.
pub fn first_difference(want: &str, got: &str) -> String {
    let w: Vec<&str> = want.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    for i in 0..w.len().max(g.len()) {
        let a = w.get(i).copied().unwrap_or("<none>");
        let b = g.get(i).copied().unwrap_or("<none>");
        if a != b {
            return format!("line {}\n  want: {a}\n  got:  {b}", i + 1);
        }
    }
    "identical".to_string()
}

/// Builders of small, valid profiles in each format, for tests that must not depend on
/// files outside the repository.
pub mod make {
    /// A binary CPU profile: records of (count, stack leaf first), then the maps text.
    pub fn cpu(
        word: usize,
        big_endian: bool,
        period: u64,
        records: &[(u64, &[u64])],
        maps: &str,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let put = |v: u64, out: &mut Vec<u8>| match (word, big_endian) {
            (4, false) => out.extend_from_slice(&(v as u32).to_le_bytes()),
            (4, true) => out.extend_from_slice(&(v as u32).to_be_bytes()),
            (_, false) => out.extend_from_slice(&v.to_le_bytes()),
            (_, true) => out.extend_from_slice(&v.to_be_bytes()),
        };
        for v in [0, 3, 0, period, 0] {
            put(v, &mut out);
        }
        for (count, stack) in records {
            put(*count, &mut out);
            put(stack.len() as u64, &mut out);
            for a in *stack {
                put(*a, &mut out);
            }
        }
        for v in [0, 1, 0] {
            put(v, &mut out);
        }
        out.extend_from_slice(maps.as_bytes());
        out
    }

    /// The memory map used by the builders: a program at 0x400000 and one library.
    pub const MAPS: &str = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/local/bin/server\n7f0000000000-7f0000010000 r-xp 00000000 08:01 5678 /lib/libfoo.so.1\n";

    /// A tcmalloc heap profile (`@ heapprofile`).
    pub fn heap() -> Vec<u8> {
        format!(
            "heap profile:      5:     5000 [    10:    10000] @ heapprofile\n\
             \x20    3:     3000 [     6:     6000] @ 0x400100 0x400200 0x7f0000000100\n\
             \x20    2:     2000 [     4:     4000] @ 0x400300 0x400200\n\
             \nMAPPED_LIBRARIES:\n{MAPS}"
        )
        .into_bytes()
    }

    /// A sampled heap profile (`@ heap_v2/524288`).
    pub fn heap_v2() -> Vec<u8> {
        format!(
            "heap profile:      2:  1048576 [     2:  1048576] @ heap_v2/524288\n\
             \x20    1:   524288 [     1:   524288] @ 0x400100 0x400200\n\
             \x20    1:      512 [     1:      512] @ 0x400300 0x400200\n\
             \nMAPPED_LIBRARIES:\n{MAPS}"
        )
        .into_bytes()
    }

    /// A growth profile.
    pub fn growth() -> Vec<u8> {
        "heap profile:      2:  2097152 [     2:  2097152] @ growthz\n\
             \x20    1:  1048576 [     1:  1048576] @ 0x400100 0x400200\n\
             \x20    1:  1048576 [     1:  1048576] @ 0x400300 0x400200\n\
             --- Memory map: ---\n  00400000-00401000: /usr/local/bin/server\n"
            .to_string()
            .into_bytes()
    }

    /// A jemalloc threaded heap profile.
    pub fn jemalloc() -> Vec<u8> {
        format!(
            "heap_v2/1024\n  t*: 3: 3072 [0: 0]\n  t0: 2: 2048 [0: 0]\n  t1: 1: 1024 [0: 0]\n\
             @ 0x400100 0x400200\n  t*: 2: 2048 [0: 0]\n  t0: 2: 2048 [0: 0]\n\
             @ 0x400300 0x400200\n  t*: 1: 1024 [0: 0]\n  t1: 1: 1024 [0: 0]\n\
             \nMAPPED_LIBRARIES:\n{MAPS}"
        )
        .into_bytes()
    }

    /// A brpc contention profile.
    pub fn contention() -> Vec<u8> {
        format!(
            "--- contention\ncycles/second=1000000000\nsampling period=1\n\
             1000000 10 @ 0x400100 0x400200\n\
             -500 1 @ 0x400300 0x400200\n{MAPS}"
        )
        .into_bytes()
    }

    /// A symbolized profile as `pprof --raw` writes it, around a CPU profile.
    pub fn symbolized() -> Vec<u8> {
        let mut out = b"--- symbol\nbinary=/usr/local/bin/server\n0x0000000000400100 leaf(int)\n0x00000000004001ff main--inlined_helper(char)\n---\n--- profile\n".to_vec();
        // The writer already moved callers back: 0x4001ff is a call site.
        out.extend(cpu(
            8,
            false,
            10000,
            &[(7, &[0x400100, 0x4001ff]), (3, &[0x400300, 0x4003ff])],
            "",
        ));
        out
    }

    /// A CPU profile of the builders' program.
    pub fn cpu64() -> Vec<u8> {
        cpu(
            8,
            false,
            10000,
            &[
                (5, &[0x400100, 0x400200, 0x7f0000000200]),
                (3, &[0x400300, 0x400200]),
            ],
            MAPS,
        )
    }

    /// Every builder, named.
    pub fn all() -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("heap", heap()),
            ("heap_v2", heap_v2()),
            ("growth", growth()),
            ("jemalloc", jemalloc()),
            ("contention", contention()),
            ("symbolized", symbolized()),
            ("cpu64le", cpu64()),
            (
                "cpu64be",
                cpu(8, true, 1000, &[(2, &[0x400100, 0x400200])], MAPS),
            ),
            (
                "cpu32le",
                cpu(4, false, 1000, &[(2, &[0x400100, 0x400200])], MAPS),
            ),
            (
                "cpu32be",
                cpu(4, true, 1000, &[(2, &[0x400100, 0x400200])], MAPS),
            ),
        ]
    }
}

/// The first `n` lines of `data` (each with its line end); all of it when it has fewer.
pub fn first_lines(data: &[u8], n: usize) -> &[u8] {
    let end = data
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(n.saturating_sub(1))
        .map_or(data.len(), |(i, _)| i + 1);
    &data[..end.min(data.len())]
}
