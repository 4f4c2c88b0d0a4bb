//! Issue 17, on the profiles of `testdata/t-trust` (written by gperftools' and jemalloc's own
//! profilers; see its README): a frame without a name says why, a frame is never named after
//! a symbol that does not hold it, and what a crash left is read.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn dir() -> PathBuf {
    common::root().join("testdata").join("t-trust")
}

fn run(args: &[&str]) -> (String, String, Option<i32>) {
    let out: Output = common::rpprof(&dir(), args);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// The names of the `--text` rows.
fn names(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(|l| l.split_whitespace().skip(5).collect::<Vec<_>>().join(" "))
        .collect()
}

/// True when `lib` on this machine is the file the profile was recorded with.
fn same_system_library(lib: &str) -> bool {
    let list = common::root().join("testdata").join("system-libs.sha256");
    let Ok(text) = std::fs::read_to_string(list) else {
        return false;
    };
    let Some(want) = text
        .lines()
        .find(|l| l.ends_with(lib))
        .and_then(|l| l.split_whitespace().next())
    else {
        return false;
    };
    let Ok(out) = std::process::Command::new("sha256sum").arg(lib).output() else {
        return false;
    };
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        == Some(want)
}

/// Item 2: libtsecret.so is stripped to its exported functions; the samples are in its
/// static functions. pprof names them after the exports before them (`secret_version`, a
/// few bytes long, and `secret_nosize`, an assembler entry without a size, which only the
/// unwind table's function ranges show not to hold them); rpprof by the library and the
/// address in it, and says why.
#[test]
fn stripped_library_frames_are_not_named_after_a_distant_export() {
    let args = [
        "--text",
        "--lib_prefix=.",
        "./ttrust",
        "ttrust-stripped.prof",
    ];
    let (out, err, code) = run(&args);
    assert_eq!(code, Some(0), "{err}");
    let n = names(&out);
    assert!(
        !n.iter()
            .any(|n| n == "secret_version" || n == "secret_nosize"),
        "{out}"
    );
    let in_lib = n
        .iter()
        .filter(|n| n.starts_with("libtsecret.so+0x"))
        .count();
    assert!(in_lib >= 5, "{out}");
    assert!(n.iter().any(|n| n == "own_work") && n.iter().any(|n| n == "main"));
    assert!(
        err.contains("./libtsecret.so: 11 addresses lie in no function its symbols name"),
        "{err}"
    );
    // --pprof_quirks keeps pprof's nearest-symbol names (google-pprof's reference).
    let mut quirks = vec!["--pprof_quirks"];
    quirks.extend(args);
    let (out, _, code) = run(&quirks);
    assert_eq!(code, Some(0));
    let reference =
        std::fs::read_to_string(dir().join("refs/ttrust-stripped.prof/google-pprof.text.out"))
            .unwrap();
    assert!(reference.contains("secret_version") && reference.contains("secret_nosize"));
    let n = names(&out);
    assert!(n.contains(&"secret_version".to_string()), "{out}");
    assert!(n.contains(&"secret_nosize".to_string()), "{out}");
}

/// An address in a stripped library's code past its last symbol (here in `.fini`, past
/// `secret_digest`) is named by the library and the address in it, as one between symbols
/// is (it printed as the process's hex address); one past the library's code is hex.
#[test]
fn stripped_library_code_past_its_last_symbol_is_named_by_the_library() {
    let lib = dir().join("libtsecret.so");
    let map = format!(
        "7f63cdc96000-7f63cdc97000 r--p 00000000 00:00 1 {lib}\n\
         7f63cdc97000-7f63cdc98000 r-xp 00001000 00:00 1 {lib}\n\
         7f63cdc98000-7f63cdc99000 r--p 00002000 00:00 1 {lib}\n",
        lib = lib.display()
    );
    let input = format!("0x7f63cdc97165\n0x7f63cdc971b4\n0x7f63cdc97123\n0x7f63cdc98f00\n{map}");
    let out = common::rpprof_with_input(&dir(), &["--symbols", "ttrust"], input.as_bytes());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "secret_digest\nlibtsecret.so+0x11b4\nlibtsecret.so+0x1123\n0x00007f63cdc98f00\n",
        "{err}"
    );
}

/// A symbolized profile (`--raw`) of a profile with unnamed frames says, when read, that
/// its own symbols do not name them: the note on the share of unnamed functions points to
/// the warnings above it, and there was none.
#[test]
fn a_symbolized_profile_says_which_addresses_it_does_not_name() {
    let raw = common::rpprof(
        &dir(),
        &[
            "--raw",
            "--lib_prefix=.",
            "./ttrust",
            "ttrust-stripped.prof",
        ],
    );
    assert_eq!(raw.status.code(), Some(0));
    let raw = raw.stdout;
    let file = std::env::temp_dir().join(format!("rpprof-trust-raw-{}", std::process::id()));
    std::fs::write(&file, &raw).unwrap();
    let (out, err, code) = run(&["--text", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("libtsecret.so+0x1123"), "{out}");
    let said = err
        .find("Warning: 11 addresses have no name in the symbolized profile's own symbols (named when it was written, by the tool that wrote it): they print as <file>+0x<address in the file>, as the profile names them\n")
        .expect(&err);
    let note = err
        .find("of the total is in functions without a name")
        .expect(&err);
    assert!(said < note, "{err}");
    // Of two kinds: an address whose symbol line is gone has no name at all, and prints as
    // hex.
    // (The symbol lines are text; the profile after them is binary.)
    let name = b" libtsecret.so+0x1104\n";
    let end = raw
        .windows(name.len())
        .position(|w| w == name)
        .expect("the raw profile names libtsecret.so+0x1104")
        + name.len();
    let start = raw[..end - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut cut = raw[..start].to_vec();
    cut.extend_from_slice(&raw[end..]);
    std::fs::write(&file, cut).unwrap();
    let (_, err, code) = run(&["--text", file.to_str().unwrap()]);
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("Warning: 11 addresses have no name in the symbolized profile's own symbols (named when it was written, by the tool that wrote it): 10 print as <file>+0x<address in the file>, as the profile names them, 1 as addresses\n"),
        "{err}"
    );
}

/// Item 2: jemalloc's operator new jumps to newImpl, a static function of the stripped
/// libjemalloc.so.2. jeprof names it `malloc_usable_size` (the export before it) and charges
/// it 95.9% of the profile; rpprof drops it with the other allocator frames, so the callers
/// in the program carry the bytes.
#[test]
fn unnamed_allocator_frames_are_dropped() {
    let lib = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
    if !same_system_library(lib) {
        return common::skip(
            "unnamed_allocator_frames_are_dropped",
            "this machine's libjemalloc.so.2 is not the one the profile was recorded with",
        );
    }
    let reference =
        std::fs::read_to_string(dir().join("refs/tjenew.0001.heap/jeprof.text.out")).unwrap();
    assert!(names(&reference)[0] == "malloc_usable_size", "{reference}");
    let (out, err, code) = run(&["--text", "./tjenew", "tjenew.0001.heap"]);
    assert_eq!(code, Some(0), "{err}");
    let n = names(&out);
    assert_eq!(n[0], "tjenew::make_table", "{out}");
    assert!(
        !n.iter()
            .any(|n| n.contains("malloc_usable_size") || n.starts_with("libjemalloc")),
        "{out}"
    );
    // jeprof's answer, with --pprof_quirks.
    let (out, _, _) = run(&["--pprof_quirks", "--text", "./tjenew", "tjenew.0001.heap"]);
    assert_eq!(out, reference);
}

/// Item 1: a library dlclose()d before the profiler wrote its memory map.
#[test]
fn addresses_outside_every_mapping_are_explained() {
    let (out, err, code) = run(&[
        "--text",
        "--lib_prefix=.",
        "./ttrust",
        "ttrust-dlclose.prof",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("100.0% 0x0000"), "{out}");
    assert!(
        err.contains("outside every mapping of the profile's memory map")
            && err.contains("dlclose()d"),
        "{err}"
    );
    assert!(
        err.contains("Warning: 100.0% of the total is in functions without a name"),
        "{err}"
    );
}

/// Item 1: a CPU profile whose process was killed has no memory map; the program is PIE.
#[test]
fn a_profile_without_a_memory_map_is_explained() {
    let (_, err, code) = run(&["--text", "./ttrust", "ttrust-killed.prof"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("the profile has no memory map"), "{err}");
    assert!(err.contains("./ttrust is position-independent"), "{err}");
    assert!(err.contains("ProfilerStop or exit"), "{err}");
}

/// Item 1: the program in the short `start-end: path` map form (GetHeapGrowthStacks with
/// Google's DumpAddressMap lines) is read; google-pprof (and --pprof_quirks) print its
/// frames as hex.
#[test]
fn the_program_in_the_short_map_form_is_symbolized() {
    let (out, err, code) = run(&["--text", "./ttrust", "ttrust.growth"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(names(&out).contains(&"allocate_at".to_string()), "{out}");
    let (out, err, _) = run(&["--pprof_quirks", "--text", "./ttrust", "ttrust.growth"]);
    assert!(!out.contains("allocate_at"), "{out}");
    assert!(
        err.contains("in the short \"start-end: path\" form"),
        "{err}"
    );
}

/// Item 1: a mistyped program name while the path the profile names exists: that file is
/// used, with a warning.
#[test]
fn a_mistyped_program_uses_the_mapped_one() {
    let mapped = Path::new("/tmp/rpprof-corpus/t-trust/ttrust");
    if !mapped.is_file() {
        return common::skip(
            "a_mistyped_program_uses_the_mapped_one",
            "the profile's program path /tmp/rpprof-corpus/t-trust/ttrust is not there",
        );
    }
    let (out, err, code) = run(&[
        "--text",
        "--lib_prefix=.",
        "./ttrusst",
        "ttrust-stripped.prof",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(
            "Warning: ./ttrusst: No such file; using /tmp/rpprof-corpus/t-trust/ttrust, the program the profile maps"
        ),
        "{err}"
    );
    assert!(names(&out).contains(&"own_work".to_string()), "{out}");
}

/// Item 1: a library that is not where the profile says: where rpprof looked, and what to
/// try.
#[test]
fn a_missing_library_says_where_it_was_looked_for() {
    let scratch = common::empty_dir("trust_missing_lib");
    // The profile, its map naming the library at a path that exists nowhere.
    let data = std::fs::read(dir().join("ttrust-stripped.prof")).unwrap();
    let from = b"/tmp/rpprof-corpus/t-trust/libtsecret.so";
    let to = b"/nonexistent/t-trust/libtsecret.so";
    let edited = common::replace_bytes(&data, from, to);
    assert_ne!(edited, data);
    let prof = scratch.join("moved.prof");
    std::fs::write(&prof, edited).unwrap();
    let program = dir().join("ttrust");
    let out = common::rpprof(
        &scratch,
        &[
            "--text",
            "--lib_prefix=/also/nowhere",
            program.to_str().unwrap(),
            prof.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Warning: /nonexistent/t-trust/libtsecret.so: No such file (looked for it at /also/nowhere/nonexistent/t-trust/libtsecret.so, /also/nowhere/t-trust/libtsecret.so, /also/nowhere/libtsecret.so, /nonexistent/t-trust/libtsecret.so)"),
        "{err}"
    );
    assert!(err.contains("check --lib_prefix"), "{err}");
}

/// Item 1: a debug file of another build next to a stripped program (its .gnu_debuglink
/// checksum differs) is not used, and the warning says so.
#[test]
fn a_debug_file_of_another_build_is_named() {
    let scratch = common::empty_dir("trust_debuglink");
    let stripped = common::root().join("testdata").join("t-stripped");
    std::fs::copy(stripped.join("tstrip"), scratch.join("tstrip")).unwrap();
    std::fs::copy(stripped.join("tstrip.prof"), scratch.join("tstrip.prof")).unwrap();
    // Another build's debug file under the name the link gives.
    let mut other = std::fs::read(stripped.join("tstrip.debug")).unwrap();
    other.push(0);
    std::fs::write(scratch.join("tstrip.debug"), other).unwrap();
    let out = common::rpprof(&scratch, &["--text", "./tstrip", "tstrip.prof"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("its debug file") && err.contains("is from another build"),
        "{err}"
    );
}

/// Issue 16: the file with the most addresses (here the program) is read on another core
/// while the files before it are looked up; what each file says comes in the files' order
/// all the same: the library mapped above the program (not an ELF file) before the program
/// (its debug file of another build), as when each is read in its turn.
#[test]
fn files_read_ahead_speak_in_their_turn() {
    let scratch = common::empty_dir("trust_read_ahead");
    let stripped = common::root().join("testdata").join("t-stripped");
    std::fs::copy(stripped.join("tstrip"), scratch.join("tstrip")).unwrap();
    let mut other = std::fs::read(stripped.join("tstrip.debug")).unwrap();
    other.push(0);
    std::fs::write(scratch.join("tstrip.debug"), other).unwrap();
    // The profile's libc is a text file of the scratch folder; its program is the copy.
    let fake = scratch.join("libfake.so.6");
    std::fs::write(&fake, "not a library\n").unwrap();
    let replace = |data: Vec<u8>, from: &str, to: &Path| {
        common::replace_bytes(&data, from.as_bytes(), to.as_os_str().as_encoded_bytes())
    };
    let prof = std::fs::read(stripped.join("tstrip.prof")).unwrap();
    let prof = replace(prof, "/usr/lib/x86_64-linux-gnu/libc.so.6", &fake);
    let prof = replace(
        prof,
        "/tmp/rpprof-corpus/t-stripped/tstrip",
        &scratch.join("tstrip"),
    );
    std::fs::write(scratch.join("tstrip.prof"), prof).unwrap();
    let out = common::rpprof(&scratch, &["--text", "./tstrip", "tstrip.prof"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let at = |what: &str| {
        err.find(what)
            .unwrap_or_else(|| panic!("no {what:?} in:\n{err}"))
    };
    let library = at("libfake.so.6: ");
    let program = at("is from another build");
    assert!(library < program, "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("Total: 359 samples\n"),
        "{err}"
    );
}

/// A program in a folder with a blank in its name is recognized in the memory map (pprof
/// takes a map line's path up to its first blank there, and prints the program's frames in
/// hex): the report is the one of the same program and profile elsewhere.
#[test]
fn a_program_in_a_folder_with_a_blank_is_named() {
    let scratch = common::empty_dir(Path::new("trust_blank").join("my dir"));
    let case = common::link_case("t-heap");
    std::fs::copy(case.join("theap"), scratch.join("theap")).unwrap();
    let text = std::fs::read_to_string(case.join("theap.hprof.0003.heap")).unwrap();
    let moved = text.replace(
        "/tmp/rpprof-corpus/t-heap/theap",
        &scratch.join("theap").to_string_lossy(),
    );
    assert_ne!(moved, text);
    std::fs::write(scratch.join("theap.hprof.0003.heap"), moved).unwrap();
    let args = ["--text", "--lines", "./theap", "theap.hprof.0003.heap"];
    let there = common::rpprof(&case, &args);
    let here = common::rpprof(&scratch, &args);
    let err = String::from_utf8_lossy(&here.stderr);
    assert_eq!(here.status.code(), Some(0), "{err}");
    // (Libraries missing on this machine are said in both runs alike.)
    assert!(
        !err.lines()
            .any(|l| l.contains("theap") && l.contains("hex")),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&there.stdout).contains(" main "));
    assert_eq!(
        String::from_utf8_lossy(&here.stdout),
        String::from_utf8_lossy(&there.stdout)
    );
}

/// A program replaced while it ran (its map lines end in ` (deleted)`): the file now at that
/// path is used, with a warning that names the path once, marked once.
#[test]
fn a_deleted_program_is_said_once() {
    let scratch = common::empty_dir("trust_deleted");
    let case = common::link_case("t-heap");
    let text = std::fs::read_to_string(case.join("theap.hprof.0003.heap")).unwrap();
    let marked: String = text
        .lines()
        .map(|l| {
            if l.ends_with("/t-heap/theap") {
                format!("{l} (deleted)\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_ne!(marked, text);
    std::fs::write(scratch.join("theap.hprof.0003.heap"), marked).unwrap();
    let program = case.join("theap");
    let out = common::rpprof(
        &scratch,
        &["--text", program.to_str().unwrap(), "theap.hprof.0003.heap"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let said: Vec<&str> = err.lines().filter(|l| l.contains("(deleted)")).collect();
    assert_eq!(
        said,
        [
            "Warning: the profile maps /tmp/rpprof-corpus/t-heap/theap (deleted); using the file now at that path, which may not be the one that ran"
        ],
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(" main\n"));
}

/// A program that is not position-independent runs where it is linked: given in place of
/// the PIE that ran (its segments the same size), it is said to be another file; the right
/// programs are not.
#[test]
fn a_fixed_address_program_mapped_elsewhere_is_said() {
    let scratch = common::empty_dir("trust_fixed_address");
    let src = common::root().join("testdata").join("t-cpu");
    for f in ["libtwork.so", "libtplugin.so", "tcpu-pie.prof"] {
        std::fs::copy(src.join(f), scratch.join(f)).unwrap();
    }
    std::fs::copy(src.join("tcpu-nopie"), scratch.join("tcpu-pie")).unwrap();
    let said = |dir: &Path, program: &str, profile: &str| -> Vec<String> {
        let out = common::rpprof(dir, &["--text", "--lib_prefix=.", program, profile]);
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains("not the file that ran"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        said(&scratch, "./tcpu-pie", "tcpu-pie.prof"),
        [
            "Warning: ./tcpu-pie: it is linked to run at 401000 (it is not position-independent), but the profile maps it at 5639f722c000: it is probably not the file that ran"
        ]
    );
    for (program, profile) in [
        ("./tcpu-pie", "tcpu-pie.prof"),
        ("./tcpu-nopie", "tcpu-nopie.prof"),
    ] {
        assert_eq!(
            said(&src, program, profile),
            Vec::<String>::new(),
            "{program}"
        );
    }
}

/// An address that no symbol names in a file that has debug information is in code that is
/// part of no function (t-cpu's libtplugin.so: a PLT stub): the warning does not advise
/// installing debug symbols; for a stripped file without them (t-trust's libtsecret.so) it
/// does.
#[test]
fn unnamed_code_in_a_file_with_dwarf_is_not_blamed_on_stripping() {
    let cpu = common::root().join("testdata").join("t-cpu");
    let out = common::rpprof(
        &cpu,
        &["--text", "--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let said: Vec<&str> = err.lines().filter(|l| l.contains("libtplugin")).collect();
    assert_eq!(
        said,
        [
            "Warning: ./libtplugin.so: 1 address lies in no function its symbols name (code that is part of no function, such as the PLT's stubs): they print as libtplugin.so+0x<address in the file> rather than after the nearest symbol below"
        ],
        "{err}"
    );
    let (_, err, _) = run(&[
        "--text",
        "--lib_prefix=.",
        "./ttrust",
        "ttrust-stripped.prof",
    ]);
    assert!(
        err.contains("./libtsecret.so: 11 addresses lie in no function its symbols name (it keeps only some symbols, e.g. the exported ones): they print as libtsecret.so+0x<address in the file> rather than after the nearest symbol below; install its debug symbols"),
        "{err}"
    );
}

/// A change made to a file's bytes.
type Change<'a> = &'a dyn Fn(&[u8]) -> Vec<u8>;

/// Runs `--text` and `--pprof_quirks --text` on t-stripped's `tstrip` and `tstrip.prof`
/// copied into the scratch folder `name`, with its debug file `tstrip.debug` changed by
/// `change` (the program's `.gnu_debuglink` checksum made to fit), or without one: the
/// (stdout, stderr) of each, each run having succeeded.
fn tstrip_runs(name: &str, change: Option<Change<'_>>) -> [(String, String); 2] {
    let d = common::empty_dir(name);
    let src = common::root().join("testdata").join("t-stripped");
    // (Test code: reading and writing copies of test-data files.)
    let mut program = std::fs::read(src.join("tstrip")).unwrap();
    if let Some(change) = change {
        let debug = std::fs::read(src.join("tstrip.debug")).unwrap();
        let changed = change(&debug);
        assert_ne!(changed, debug);
        let (old, new) = (crc32fast::hash(&debug), crc32fast::hash(&changed));
        program = common::replace_bytes(&program, &old.to_le_bytes(), &new.to_le_bytes());
        std::fs::write(d.join("tstrip.debug"), &changed).unwrap();
    }
    std::fs::write(d.join("tstrip"), &program).unwrap();
    std::fs::copy(src.join("tstrip.prof"), d.join("tstrip.prof")).unwrap();
    [&["--text"][..], &["--pprof_quirks", "--text"][..]].map(|opts| {
        let mut args = opts.to_vec();
        args.extend(["./tstrip", "tstrip.prof"]);
        let out = common::rpprof(&d, &args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {err}");
        (String::from_utf8_lossy(&out.stdout).into_owned(), err)
    })
}

/// A file with neither symbols nor debug information (t-stripped's `tstrip` without the
/// `tstrip.debug` its link names): its addresses print as `tstrip+0x<address in the file>`,
/// one row each, as the warning says; google-pprof (and `--pprof_quirks`) prints each as
/// `?? ??:0`, rows that cannot be told apart and that `--collapsed` merges.
#[test]
fn a_file_without_symbols_names_its_addresses_by_the_file() {
    let [(text, err), (quirks, quirks_err)] = tstrip_runs("file-without-symbols", None);
    assert!(
        err.contains("./tstrip: no symbol table and no debug information: its 49 addresses print as tstrip+0x<address in the file>; install"),
        "{err}"
    );
    assert!(text.contains("% tstrip+0x14e8\n"), "{text}");
    assert!(!text.contains("??"), "{text}");
    assert!(quirks.contains("13.9% ?? ??:0\n"), "{quirks}");
    assert!(
        quirks_err.contains("its 49 addresses have no name (`??`)"),
        "{quirks_err}"
    );
}

/// A stripped program whose separate debug file has no DWARF (a build without -g, its
/// symbols kept by `objcopy --only-keep-debug`; here t-stripped's `tstrip.debug` with its
/// `.debug_info` renamed): its addresses are named from the debug file's symbol table.
/// binutils reads only a debug file's DWARF, so google-pprof (and `--pprof_quirks`) prints
/// `?? ??:0`.
#[test]
fn a_debug_file_without_dwarf_names_by_its_symbols() {
    let rename = |d: &[u8]| common::replace_bytes(d, b".debug_info\0", b".xebug_info\0");
    let [(text, _), (quirks, _)] = tstrip_runs("debug-file-without-dwarf", Some(&rename));
    assert!(text.contains("35.4% kmp_count\n"), "{text}");
    assert!(!quirks.contains("kmp_count"), "{quirks}");
}

/// A stripped program whose separate debug file's DWARF cannot be read (t-stripped's
/// `tstrip.debug` with its `.debug_str` marked compressed, `SHF_COMPRESSED`, without being
/// so): named from the debug file's symbol table, as the warning says; with
/// `--pprof_quirks`, from the program's own symbols (none: `??`), as the warning says then.
#[test]
fn a_debug_file_whose_dwarf_cannot_be_read_names_by_its_symbols() {
    // (Test code: the ELF64 header of a test-data file, whose layout is known.)
    let mark = |debug: &[u8]| {
        let u16_at = |o: usize| u16::from_le_bytes([debug[o], debug[o + 1]]) as usize;
        let u32_at = |o: usize| u32::from_le_bytes(debug[o..o + 4].try_into().unwrap()) as usize;
        let u64_at = |o: usize| u64::from_le_bytes(debug[o..o + 8].try_into().unwrap());
        let (shoff, shentsize) = (u64_at(0x28) as usize, u16_at(0x3a));
        let (shnum, shstrndx) = (u16_at(0x3c), u16_at(0x3e));
        let names = u64_at(shoff + shstrndx * shentsize + 0x18) as usize;
        let header = (0..shnum)
            .map(|i| shoff + i * shentsize)
            .find(|&h| debug[names + u32_at(h)..].starts_with(b".debug_str\0"))
            .expect(".debug_str in tstrip.debug");
        let mut marked = debug.to_vec();
        let flags = u64_at(header + 8) | 0x800;
        marked[header + 8..header + 16].copy_from_slice(&flags.to_le_bytes());
        marked
    };
    let [(text, err), (quirks, quirks_err)] =
        tstrip_runs("debug-file-unreadable-dwarf", Some(&mark));
    assert!(text.contains("35.4% kmp_count\n"), "{text}");
    assert!(
        err.contains("tstrip.debug: cannot read its DWARF (")
            && err.contains("); using its symbol table"),
        "{err}"
    );
    assert!(!quirks.contains("kmp_count"), "{quirks}");
    assert!(
        quirks_err.contains("./tstrip's addresses are named from its own symbols (--pprof_quirks)"),
        "{quirks_err}"
    );
}

/// Item 3: a CPU profile whose process ran out of file space (ulimit -f 16: the file ends at
/// byte 16384, inside a record) is read up to the last complete record, with a warning giving
/// the byte of the cut.
#[test]
fn a_cpu_profile_cut_short_is_read_up_to_the_cut() {
    let (out, err, code) = run(&["--text", "./ttrust", "ttrust-cut.prof"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("Total: 81 samples\n"), "{out}");
    assert!(
        err.contains("ttrust-cut.prof: byte 16296: the CPU profile is cut short (a record of depth 13 is cut after 9 of its addresses")
            && err.contains("the 75 complete records before it are read"),
        "{err}"
    );
    // A killed process: whole records, no end-of-data record, no map.
    let (out, err, code) = run(&["--text", "./ttrust", "ttrust-killed.prof"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("Total: 686 samples\n"), "{out}");
    assert!(err.contains("no end-of-data marker") && err.contains("ProfilerStop or exit"));
}

/// Item 3: a heap dump cut at 4096 bytes (ulimit -f 4), in the middle of its line 11: the
/// records before it are read; pprof read the cut address `0x5631596` as a frame.
#[test]
fn a_heap_profile_cut_short_is_read_up_to_the_cut() {
    let (out, err, code) = run(&["--text", "./ttrust", "ttrust-cut.0001.heap"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("ttrust-cut.0001.heap:11: the profile is cut short at byte 4096")
            && err.contains("the 9 complete records before that line are read"),
        "{err}"
    );
    assert!(out.starts_with("Total: 3.7 MB\n"), "{out}");
}

/// Item 3: damage before the end is still an error, with its place; an empty CPU profile
/// says when the profiler writes its file.
#[test]
fn damage_in_the_middle_is_still_an_error() {
    let scratch = common::empty_dir("trust_damage");
    let heap = std::fs::read_to_string(dir().join("ttrust-cut.0001.heap")).unwrap_or_default();
    let mut lines: Vec<&str> = heap.split('\n').collect();
    lines[4] = "  1x: 2 [3: 4] @ 0x1";
    std::fs::write(scratch.join("damaged.heap"), lines.join("\n")).unwrap();
    std::fs::write(scratch.join("empty.prof"), b"").unwrap();
    let program = dir().join("ttrust");
    let p = program.to_str().unwrap();
    let out = common::rpprof(&scratch, &["--text", p, "damaged.heap"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.starts_with("rpprof: damaged.heap:5: bad sample line"),
        "{err}"
    );
    let out = common::rpprof(&scratch, &["--text", p, "empty.prof"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("empty file") && err.contains("ProfilerStop"),
        "{err}"
    );
}
