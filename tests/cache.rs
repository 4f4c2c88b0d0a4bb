//! The symbol cache: a second run answers from it, byte for byte as the first and as a run
//! without it; a rebuilt program, a damaged entry, `--no_cache`, `RPPROF_NO_CACHE`, the size
//! cap, `--cache_list` and `--cache_clear`, on the testdata programs and their profiles.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh cache folder (`$XDG_CACHE_HOME`) for one test.
fn cache_home(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rpprof-cache-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(dir: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rpprof"));
    c.args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", home)
        .env_remove("RPPROF_NO_CACHE")
        .env_remove("RPPROF_CACHE_MAX_MB");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The entries in a cache folder.
fn entries(home: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(home.join("rpprof"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "sym"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Standard error without `--debug`'s lines.
fn messages(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.starts_with("rpprof: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The first two numbers of the first line of standard error that `is` picks, if any.
fn two_numbers(o: &Output, is: impl Fn(&str) -> bool) -> Option<(usize, usize)> {
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err.lines().find(|l| is(l))?;
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    Some((n[0], n[1]))
}

/// `(answered from the cache, to write)` from `--debug`'s line.
fn cache_counts(o: &Output) -> (usize, usize) {
    two_numbers(o, |l| l.contains("answered from the symbol cache"))
        .unwrap_or_else(|| panic!("no cache line in:\n{}", String::from_utf8_lossy(&o.stderr)))
}

/// Several programs and profiles: a second run (from the cache) prints what the first one and
/// a run without the cache print, on both streams.
#[test]
fn a_second_run_answers_from_the_cache_as_the_first() {
    let cases: &[(&str, &[&str])] = &[
        (
            "t-cpu",
            &["--text", "--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"],
        ),
        (
            "t-cpu",
            &[
                "--text",
                "--lib_prefix=.",
                "./tcpu-nopie",
                "tcpu-nopie.prof",
            ],
        ),
        (
            "t-heap",
            &["--text", "--lines", "./theap", "theap.hprof.0003.heap"],
        ),
        (
            "t-heap",
            &["--traces", "--alloc_space", "./theap", "theap.heapv2"],
        ),
    ];
    let home = cache_home("second-run");
    for (case, args) in cases {
        let dir = common::link_case(case);
        let with_debug: Vec<&str> = args.iter().copied().chain(["--debug"]).collect();
        let mut no_cache = with_debug.clone();
        no_cache.push("--no_cache");
        let plain = run(&dir, &home, &no_cache, &[]);
        let cold = run(&dir, &home, &with_debug, &[]);
        let warm = run(&dir, &home, &with_debug, &[]);
        let (hits, written) = cache_counts(&cold);
        assert_eq!(hits, 0, "{case} {args:?}: first run");
        assert!(written >= 1, "{case} {args:?}: first run wrote nothing");
        assert_eq!(
            cache_counts(&warm),
            (written, 0),
            "{case} {args:?}: second run"
        );
        for (name, o) in [("first", &cold), ("second", &warm)] {
            assert!(
                o.stdout == plain.stdout,
                "{case} {args:?}: {name} run's report differs from --no_cache's: {}",
                common::first_difference(
                    &String::from_utf8_lossy(&plain.stdout),
                    &String::from_utf8_lossy(&o.stdout)
                )
            );
            assert_eq!(messages(o), messages(&plain), "{case} {args:?}: {name} run");
        }
        assert!(!plain.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&home);
}

/// A program rebuilt at the same path (another build id) is read again, not answered from
/// the entry of the one before; its libraries, unchanged, still are.
#[test]
fn a_rebuilt_program_is_read_again() {
    let case = &common::link_case("t-cpu");
    let home = cache_home("rebuilt");
    let work = home.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let prog = work.join("tcpu-pie");
    std::fs::copy(case.join("tcpu-pie"), &prog).unwrap();
    let prog_s = prog.to_str().unwrap();
    let args = [
        "--text",
        "--debug",
        "--lib_prefix=.",
        prog_s,
        "tcpu-pie.prof",
    ];
    let first = run(case, &home, &args, &[]);
    let (_, written) = cache_counts(&first);
    assert!(written >= 2, "{}", String::from_utf8_lossy(&first.stderr));
    // Another build in its place: the non-PIE program, whose build id differs.
    std::fs::remove_file(&prog).unwrap();
    std::fs::copy(case.join("tcpu-nopie"), &prog).unwrap();
    let again = run(case, &home, &args, &[]);
    let mut no_cache = args.to_vec();
    no_cache.push("--no_cache");
    let fresh = run(case, &home, &no_cache, &[]);
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        String::from_utf8_lossy(&fresh.stdout)
    );
    assert_eq!(messages(&again), messages(&fresh));
    assert_ne!(again.stdout, first.stdout, "the two builds name alike");
    let (hits, written_again) = cache_counts(&again);
    assert_eq!(
        (hits, written_again),
        (written - 1, 1),
        "the libraries from the cache, the program read"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// A damaged entry is ignored with a warning naming it, the report is as without the cache,
/// and the entry is written again.
#[test]
fn a_damaged_entry_is_ignored_with_a_warning() {
    let dir = &common::link_case("t-heap");
    let home = cache_home("damaged");
    let args = ["--text", "--debug", "./theap", "theap.hprof.0003.heap"];
    let first = run(dir, &home, &args, &[]);
    let files = entries(&home);
    assert!(!files.is_empty());
    for (i, f) in files.iter().enumerate() {
        let data = std::fs::read(f).unwrap();
        // Cut short, or garbage of the same length.
        let bad = if i % 2 == 0 {
            data[..data.len() / 2].to_vec()
        } else {
            data.iter().map(|b| b ^ 0x5a).collect()
        };
        std::fs::write(f, bad).unwrap();
    }
    let second = run(dir, &home, &args, &[]);
    assert_eq!(second.stdout, first.stdout);
    let err = messages(&second);
    for f in &files {
        let name = f.display().to_string();
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("Warning: {name}: "))
                    && l.ends_with("ignored (it is written again)")),
            "no warning for {name} in:\n{err}"
        );
    }
    assert_eq!(cache_counts(&second), (0, files.len()));
    let third = run(dir, &home, &args, &[]);
    assert_eq!(third.stdout, first.stdout);
    assert_eq!(messages(&third), messages(&first));
    assert_eq!(cache_counts(&third), (files.len(), 0));
    let _ = std::fs::remove_dir_all(&home);
}

/// `--no_cache` and `RPPROF_NO_CACHE=1` neither read nor write; `RPPROF_CACHE_MAX_MB=0`
/// keeps nothing.
#[test]
fn no_cache_the_environment_switch_and_the_size_cap() {
    let dir = &common::link_case("t-cpu");
    let home = cache_home("off");
    let args = ["--text", "--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"];
    let with = |extra: &'static str| -> Vec<&str> { args.iter().copied().chain([extra]).collect() };
    run(dir, &home, &with("--no_cache"), &[]);
    assert!(entries(&home).is_empty());
    run(dir, &home, &args, &[("RPPROF_NO_CACHE", "1")]);
    assert!(entries(&home).is_empty());
    run(dir, &home, &args, &[("RPPROF_CACHE_MAX_MB", "0")]);
    assert!(entries(&home).is_empty());
    // "0" does not turn it off.
    run(dir, &home, &args, &[("RPPROF_NO_CACHE", "0")]);
    let n = entries(&home).len();
    assert!(n >= 3, "{n} entries");
    // Off means not read either: a damaged entry gives no warning.
    for f in entries(&home) {
        std::fs::write(f, b"garbage").unwrap();
    }
    let o = run(dir, &home, &with("--no_cache"), &[]);
    assert!(!messages(&o).contains("ignored"), "{}", messages(&o));
    let _ = std::fs::remove_dir_all(&home);
}

/// `--cache_list` names each entry's file; `--cache_clear` removes them all, and the ledger.
#[test]
fn list_and_clear() {
    let dir = &common::link_case("t-cpu");
    let home = cache_home("list");
    run(
        dir,
        &home,
        &["--text", "--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"],
        &[],
    );
    let n = entries(&home).len();
    let list = run(dir, &home, &["--cache_list"], &[]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(
        text.starts_with(&format!(
            "Symbol cache {}: {n} entries, ",
            home.join("rpprof").display()
        )),
        "{text}"
    );
    for file in ["./tcpu-pie", "./libtwork.so"] {
        assert!(
            text.lines()
                .any(|l| l.contains(" addresses ") && l.ends_with(file)),
            "{file} not in:\n{text}"
        );
    }
    let ledger = home.join("rpprof").join(".ledger");
    assert!(ledger.is_file(), "a run that wrote entries keeps no ledger");
    let clear = run(dir, &home, &["--cache_clear"], &[]);
    assert!(
        String::from_utf8_lossy(&clear.stdout).starts_with(&format!("Removed {n} entries (")),
        "{}",
        String::from_utf8_lossy(&clear.stdout)
    );
    assert!(entries(&home).is_empty());
    assert!(!ledger.exists(), "--cache_clear left the ledger");
    let list = run(dir, &home, &["--cache_list"], &[]);
    assert!(String::from_utf8_lossy(&list.stdout).contains(": 0 entries, 0.0 MiB"));
    let _ = std::fs::remove_dir_all(&home);
}

/// `--debug` says how much of each file's DWARF a run read: of the Rust program's units,
/// only those holding the profile's addresses; in a run answered from the cache, none.
#[test]
fn a_run_reads_only_the_dwarf_units_its_addresses_need() {
    let dir = &common::link_case("t-rust");
    let home = cache_home("units-read");
    let args = ["--text", "--debug", "./trust", "trust.hprof.0003.heap"];
    // `(units read, units)` from the program's line.
    let units = |o: &Output| two_numbers(o, |l| l.starts_with("rpprof: ./trust: read "));
    let cold = run(dir, &home, &args, &[]);
    let (read, all) = units(&cold).unwrap_or_else(|| {
        panic!(
            "no DWARF line for ./trust in:\n{}",
            String::from_utf8_lossy(&cold.stderr)
        )
    });
    assert!(
        read >= 1 && read < all,
        "{read} of {all} units read: the profile's addresses lie in some of them"
    );
    let warm = run(dir, &home, &args, &[]);
    assert_eq!(
        cache_counts(&warm).1,
        0,
        "the second run has nothing to write"
    );
    assert_eq!(units(&warm), None, "answered from the cache: no DWARF read");
    assert_eq!(warm.stdout, cold.stdout);
    let _ = std::fs::remove_dir_all(&home);
}

/// A program whose DWARF went through `dwz -m` answers from the file its
/// `.gnu_debugaltlink` names: that file showing up (the debug package installed) after a
/// first run changes the answers, which then come from the DWARF, not the cache.
#[test]
fn the_dwz_file_showing_up_is_not_answered_from_the_cache() {
    let case = &common::link_case("t-dwz");
    let home = cache_home("dwz");
    let dir = std::env::temp_dir().join(format!("rpprof-cache-dwz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["tdwz", "tdwz.hprof.0001.heap"] {
        std::fs::copy(case.join(f), dir.join(f)).unwrap();
    }
    let args = ["--text", "./tdwz", "tdwz.hprof.0001.heap"];
    let without = run(&dir, &home, &args, &[]);
    assert!(
        messages(&without).contains("shares entries with the file tdwz.dwz"),
        "{}",
        messages(&without)
    );
    std::fs::copy(case.join("tdwz.dwz"), dir.join("tdwz.dwz")).unwrap();
    let with = run(&dir, &home, &args, &[]);
    let fresh = run(&dir, &home, &[&args[..], &["--no_cache"]].concat(), &[]);
    assert_ne!(with.stdout, without.stdout);
    assert_eq!(with.stdout, fresh.stdout);
    assert!(
        String::from_utf8_lossy(&with.stdout).contains("tdwz::make_record (inline)"),
        "{}",
        String::from_utf8_lossy(&with.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&home);
}
