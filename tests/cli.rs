//! The command line as users type it: Getopt::Long forms, errors and exit statuses.

mod common;

use std::path::PathBuf;

use common::make;

/// A scratch directory with the builders' profiles written into it.
fn scratch(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (name, data) in make::all() {
        std::fs::write(d.join(format!("{name}.prof")), data).unwrap();
    }
    d
}

fn run(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = common::rpprof(dir, args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_and_version() {
    let d = scratch("help_and_version");
    let (code, out, _) = run(&d, &["--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("--inuse_space") && out.contains("--base"),
        "{out}"
    );
    let (code, out, _) = run(&d, &["-version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("rpprof "), "{out}");
}

#[test]
fn option_forms_are_equivalent() {
    let d = scratch("option_forms_are_equivalent");
    let reference = run(
        &d,
        &["--text", "--inuse_objects", "missing-program", "heap.prof"],
    );
    assert_eq!(reference.0, 0, "{}", reference.2);
    assert!(
        reference.1.starts_with("Total: 5 objects\n"),
        "{}",
        reference.1
    );
    for args in [
        &["-text", "-inuse_objects", "missing-program", "heap.prof"][..],
        &["missing-program", "heap.prof", "--text", "--inuse_obj"][..],
        &["--TEXT", "missing-program", "--inuse-objects=x"][..],
        &["--tex", "--inuse_o", "missing-program", "heap.prof"][..],
    ] {
        let got = run(&d, args);
        if args.contains(&"--inuse-objects=x") {
            // Not an option name: a mistake is reported, not guessed.
            assert_eq!(got.0, 1, "{args:?}");
            continue;
        }
        assert_eq!(got.1, reference.1, "{args:?}");
    }
    // --base f and --base=f.
    let a = run(
        &d,
        &["--text", "--base", "heap.prof", "missing", "heap.prof"],
    );
    let b = run(&d, &["--text", "--base=heap.prof", "missing", "heap.prof"]);
    assert_eq!(a.0, 0, "{}", a.2);
    assert_eq!(a.1, b.1);
    // Switches turn off with --no<name>.
    let c = run(&d, &["--text", "--cum", "--nocum", "missing", "heap.prof"]);
    let e = run(&d, &["--text", "missing", "heap.prof"]);
    assert_eq!(c.1, e.1);
}

#[test]
fn usage_errors_exit_1_with_one_line() {
    let d = scratch("usage_errors_exit_1_with_one_line");
    for (args, want) in [
        (&["--t", "a", "b"][..], "rpprof: Option t is ambiguous ("),
        (
            &["--nosuch", "a", "b"][..],
            "rpprof: Unknown option: nosuch",
        ),
        (
            &["--text", "--dot", "a", "b"][..],
            "rpprof: Only specify one output mode",
        ),
        (
            &["--lines", "--files", "a", "b"][..],
            "rpprof: Only specify one output granularity option",
        ),
        (
            &["--seconds=abc", "a", "b"][..],
            "rpprof: Value \"abc\" invalid",
        ),
        (&["--base"][..], "rpprof: Option base requires an argument"),
        (
            &["--text", "--focus=", "a", "b"][..],
            "rpprof: Option focus requires an argument",
        ),
        (
            &["--text", "--seconds=-5", "a", "b"][..],
            "rpprof: Value \"-5\" invalid for option seconds (a number of 0 or more expected)",
        ),
        (&[][..], "rpprof: Did not specify program"),
    ] {
        let (code, out, err) = run(&d, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: stdout {out}");
        assert!(err.starts_with(want), "{args:?}: {err}");
    }
    // Getopt::Long: a separate empty argument is one.
    let (code, _, err) = run(
        &d,
        &["--text", "--focus", "", "missing-program", "heap.prof"],
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn missing_profile_is_no_such_file_not_a_url() {
    let d = scratch("missing_profile_is_no_such_file_not_a_url");
    let (code, out, err) = run(&d, &["--text", "/bin/true", "nosuch.heap"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.trim(), "rpprof: nosuch.heap: No such file");
    let (code, _, err) = run(&d, &["--text", "nosuch.heap"]);
    assert_eq!(code, 1);
    assert_eq!(err.trim(), "rpprof: nosuch.heap: No such file");
}

#[test]
fn bad_profile_gives_no_partial_output() {
    let d = scratch("bad_profile_gives_no_partial_output");
    std::fs::write(d.join("empty.heap"), b"").unwrap();
    std::fs::write(
        d.join("bad.heap"),
        b"heap profile: 1: 8 [1: 8] @ heapprofile\ngarbage\n",
    )
    .unwrap();
    let (code, out, err) = run(&d, &["--text", "/bin/true", "empty.heap"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.starts_with("rpprof: empty.heap: empty file"), "{err}");
    let (code, out, err) = run(&d, &["--text", "/bin/true", "bad.heap"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with("rpprof: bad.heap:2: bad sample line"),
        "{err}"
    );
}

#[test]
fn missing_program_is_a_warning_and_the_report_prints() {
    let d = scratch("missing_program_is_a_warning_and_the_report_prints");
    let (code, out, err) = run(&d, &["--text", "./no-such-server", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no-such-server: No such file"), "{err}");
    // Addresses of missing files print as bare hex, as pprof prints them.
    assert!(out.contains(" 0000000000400100\n"), "{out}");
}

#[test]
fn a_program_the_map_does_not_name_is_a_warning() {
    let d = scratch("a_program_the_map_does_not_name_is_a_warning");
    // An ELF file that exists, under another name than the mapped /usr/local/bin/server.
    let other = env!("CARGO_BIN_EXE_rpprof");
    let (code, out, err) = run(&d, &["--text", other, "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: "), "{out}");
    assert!(
        err.contains("the profile maps the program /usr/local/bin/server, not "),
        "{err}"
    );
    // A program the map names (here by file name, as after a move) draws no such warning.
    std::fs::copy(other, d.join("server")).unwrap();
    let (code, _, err) = run(&d, &["--text", "./server", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("maps the program"), "{err}");
}

#[test]
fn profile_as_first_argument_takes_program_from_map() {
    let d = scratch("profile_as_first_argument_takes_program_from_map");
    let (code, out, err) = run(&d, &["--text", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: 0.0 MB\n"), "{out}");
    // The program named by the map does not exist here: a warning names it.
    assert!(err.contains("/usr/local/bin/server"), "{err}");
}

#[test]
fn several_profiles_are_added() {
    let d = scratch("several_profiles_are_added");
    let (code, out, _) = run(
        &d,
        &["--text", "--show_bytes", "x", "heap.prof", "heap.prof"],
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("Total: 10000 B\n"), "{out}");
}

#[test]
fn formats_read_end_to_end() {
    let d = scratch("formats_read_end_to_end");
    for (name, first_line) in [
        ("heap_v2", "Total: "),
        ("growth", "Total: 2.0 MB"),
        ("jemalloc", "Total: 0.0 MB"),
        ("contention", "Total: 0.001 seconds"),
        ("cpu64le", "Total: 8 samples"),
        ("cpu32be", "Total: 2 samples"),
    ] {
        let (code, out, err) = run(&d, &["--text", "x", &format!("{name}.prof")]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.starts_with(first_line), "{name}: {out}");
    }
    // A symbolized profile needs no program; names come from the file.
    let (code, out, err) = run(&d, &["--text", "symbolized.prof"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Total: 10 samples\n       \
         7  70.0%  70.0%        7  70.0% leaf\n       \
         3  30.0% 100.0%        3  30.0% 0x0000000000400300\n       \
         0   0.0% 100.0%        3  30.0% 0x00000000004003ff\n       \
         0   0.0% 100.0%        7  70.0% inlined_helper (inline)\n       \
         0   0.0% 100.0%        7  70.0% main\n"
    );
}

#[test]
fn jemalloc_thread_reports() {
    let d = scratch("jemalloc_thread_reports");
    let (code, out, err) = run(
        &d,
        &[
            "--text",
            "--thread=*",
            "--inuse_objects",
            "x",
            "jemalloc.prof",
        ],
    );
    assert_eq!(code, 0, "{err}");
    // Values are scaled for jemalloc's sampling (rate 1024), as jeprof does.
    assert!(out.starts_with("Total (t0): 3 objects\n"), "{out}");
    assert!(out.contains("\nTotal (t1): 1 objects\n"), "{out}");
    // jeprof compares thread numbers as numbers: 1.0 is thread 1.
    let one = |t: &str| run(&d, &["--text", t, "--inuse_objects", "x", "jemalloc.prof"]);
    let (code, out, err) = one("--thread=1.0");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total (t1): 1 objects\n"), "{out}");
    assert_eq!(one("--thread=1").1, out);
    // A thread the profile does not have is said, not an empty report alone.
    let (code, out, err) = one("--thread=7");
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("no thread 7 (its threads are 0, 1)"), "{err}");
    let (code, out, err) = one("--thread=main");
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("--thread: \"main\" is not a thread number or *"),
        "{err}"
    );
}

#[test]
fn not_implemented_options_exit_2() {
    let d = scratch("not_implemented_options_exit_2");
    let (code, out, err) = run(&d, &["--test", "x", "heap.prof"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("not implemented yet"), "{err}");
}

/// pprof's regular expressions are Perl's: a `{` that starts no quantifier is a brace, as in
/// the names of Rust closures (`{closure#0}`) and C++ lambdas (`{lambda()#1}`).
#[test]
fn a_brace_in_a_regular_expression_is_perls_literal_brace() {
    let d = common::root().join("testdata").join("t-rust");
    let text = |opt: &str| {
        let (code, out, err) = run(
            &d,
            &[
                "--text",
                opt,
                "--lib_prefix=.",
                "./trust",
                "trust.hprof.0003.heap",
            ],
        );
        assert_eq!(code, 0, "{opt}: {err}");
        out
    };
    for (braces, plain) in [
        ("--focus={closure#0}", "--focus=closure#0"),
        ("--focus=^{closure#\\d}", "--focus=^.closure#\\d"),
        ("--ignore={closure#0}", "--ignore=closure#0"),
        ("--focus={closure#0{,1}}", "--focus=closure#0"),
    ] {
        let (with, without) = (text(braces), text(plain));
        assert!(with.lines().count() > 1, "{braces}: {with}");
        assert_eq!(with, without, "{braces} against {plain}");
    }
    let (code, _, err) = run(
        &d,
        &[
            "--text",
            "--focus=(?<=a)b",
            "./trust",
            "trust.hprof.0003.heap",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("look-around"), "{err}");
    // A long pattern (made by a script) is quoted by its start and its length.
    let long = format!("--focus=({}", "z".repeat(5000));
    let (code, out, err) = run(&d, &["--text", &long, "./trust", "trust.hprof.0003.heap"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains(&format!(
            "--focus: bad regular expression \"({}\"... (5001 characters): unclosed group",
            "z".repeat(99)
        )),
        "{err}"
    );
    assert!(err.len() < 400, "{err}");
}

/// `--list` and `--disasm` that list nothing say why (pprof prints nothing at all).
#[test]
fn an_empty_listing_says_why() {
    let d = common::root().join("testdata").join("t-heap");
    for (mode, what) in [
        ("--list=no_such_routine", "list"),
        ("--disasm=no_such_routine", "disasm"),
    ] {
        let (code, out, err) = run(&d, &[mode, "./theap", "theap.hprof.0003.heap"]);
        if what == "disasm" && code == 2 {
            // No objdump here: said by its own test.
            continue;
        }
        assert_eq!(code, 0, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(&format!(
                "Warning: --{what}: no routine of ./theap or of its libraries with samples matches \"no_such_routine\""
            )),
            "{err}"
        );
    }
    // A map of the program alone: no library is spoken of.
    let only = common::empty_dir("listing-program-alone");
    // (Test code: a test-data profile, its map cut to the program's lines.)
    let text = std::fs::read_to_string(d.join("theap.hprof.0003.heap")).unwrap();
    let (head, map) = text.split_once("MAPPED_LIBRARIES:\n").unwrap();
    let map: String = map
        .lines()
        .filter(|l| l.ends_with("/t-heap/theap"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(
        only.join("p.heap"),
        format!("{head}MAPPED_LIBRARIES:\n{map}"),
    )
    .unwrap();
    let theap = d.join("theap");
    let (code, _, err) = run(
        &only,
        &["--list=no_such_routine", theap.to_str().unwrap(), "p.heap"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("/theap with samples matches \"no_such_routine\""),
        "{err}"
    );
}

/// A pattern anchored at its end (`^main$`) matches none of nm's names, which pprof tags with
/// their address (`main<4011d6>`), and pprof lists nothing: rpprof then matches the short
/// names, and lists what `^main<` lists (with `--pprof_quirks`, nothing, as pprof).
#[test]
fn a_listing_anchored_at_the_end_matches_short_names() {
    let d = common::root().join("testdata").join("t-heap");
    let (code, want, err) = run(&d, &["--list=^main<", "./theap", "theap.hprof.0003.heap"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        want.starts_with("ROUTINE ====================== main in "),
        "{want}"
    );
    for re in ["^main$", "^main\\z"] {
        let (code, out, err) = run(
            &d,
            &[&format!("--list={re}"), "./theap", "theap.hprof.0003.heap"],
        );
        assert_eq!((code, &out), (0, &want), "{re}: {err}");
        assert!(!err.contains("no routine"), "{err}");
    }
    let (code, out, err) = run(
        &d,
        &[
            "--list=^main$",
            "--pprof_quirks",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(
        err.contains("no routine of ./theap or of its libraries with samples matches \"^main$\""),
        "{err}"
    );
    // The shell's list, the same.
    let shell = common::rpprof_with_input(
        &d,
        &["--interactive", "./theap", "theap.hprof.0003.heap"],
        b"list ^main$\n",
    );
    let said = String::from_utf8_lossy(&shell.stdout);
    assert!(said.contains(&want), "{said}");
    // And --disasm, where objdump is.
    if common::have("objdump") {
        let (_, want, _) = run(&d, &["--disasm=^main<", "./theap", "theap.hprof.0003.heap"]);
        assert!(
            want.starts_with("ROUTINE ====================== main"),
            "{want}"
        );
        let (code, out, err) = run(&d, &["--disasm=^main$", "./theap", "theap.hprof.0003.heap"]);
        assert_eq!((code, &out), (0, &want), "{err}");
    }
}

/// `--files` of a jemalloc dump whose places carry a discriminator (`f.cc:63
/// (discriminator 3)`): one row per file, where jeprof (and `--pprof_quirks`) makes one per
/// line, failing to cut the line off.
#[test]
fn files_of_places_with_a_discriminator() {
    let d = common::root().join("testdata").join("t-trend");
    let dump = "ttrend-je.1386.14.f.heap";
    let (code, quirks, err) = run(
        &d,
        &["--text", "--files", "--pprof_quirks", "./ttrend-je", dump],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        quirks.contains("/ttrend.cc:63 (discriminator 3)\n"),
        "{quirks}"
    );
    let (code, out, err) = run(&d, &["--text", "--files", "./ttrend-je", dump]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("discriminator"), "{out}");
    // The file's rows of the quirks' table, added up.
    let sum: f64 = quirks
        .lines()
        .filter(|l| l.contains("/ttrend.cc:"))
        .map(|l| l.split_whitespace().next().unwrap().parse::<f64>().unwrap())
        .sum();
    let row = out
        .lines()
        .find(|l| l.ends_with("/ttrend.cc"))
        .unwrap_or_else(|| panic!("{out}"));
    let flat: f64 = row.split_whitespace().next().unwrap().parse().unwrap();
    assert!(
        (flat - sum).abs() <= 0.15,
        "{flat} against {sum}: {out}\n{quirks}"
    );
}

/// `--disasm` of a profile whose total is 0 (less itself): the share is 0.0%, where
/// google-pprof dies dividing by the total.
#[test]
fn disasm_of_a_zero_total() {
    let d = common::root().join("testdata").join("t-heap");
    let (code, out, err) = run(
        &d,
        &[
            "--disasm=main",
            "--base=theap.hprof.0003.heap",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    if code == 2 && err.contains("objdump") {
        return common::skip("disasm_of_a_zero_total", "objdump is not installed");
    }
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(" MB (flat, cumulative) 0.0% of total\n"),
        "{out}"
    );
    assert!(!out.contains("nan"), "{out}");
}

/// The program given after the profile: the error says which file is which.
#[test]
fn a_program_given_as_the_profile_is_said_so() {
    let d = common::root().join("testdata").join("t-heap");
    let (code, out, err) = run(&d, &["--text", "theap.hprof.0003.heap", "./theap"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert_eq!(
        err,
        "rpprof: ./theap: byte 0: an ELF file (a program or a library), not a profile: the program comes first, then the profiles (rpprof [options] <program> <profile>...)\n"
    );
}

/// `--list` and `--disasm` of a stripped program find its routines in the separate debug
/// file its addresses were named from (pprof, reading `nm` of the stripped file, lists
/// nothing: so does `--pprof_quirks`).
#[test]
fn routines_of_a_stripped_program_are_listed_from_its_debug_file() {
    common::link_case("t-stripped");
    let d = common::root().join("testdata").join("t-stripped");
    let (code, out, err) = run(&d, &["--list=kmp", "./tstrip", "tstrip.prof"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("ROUTINE ====================== kmp_count in /tmp/rpprof-corpus/t-stripped/tstrip.c\n   127    127 Total samples (flat / cumulative)\n"),
        "{out}"
    );
    assert!(out.contains("    83     83   97:"), "{out}");
    let (code, out, err) = run(
        &d,
        &["--list=kmp", "--pprof_quirks", "./tstrip", "tstrip.prof"],
    );
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(
        err.contains("no routine of ./tstrip or of its libraries with samples matches \"kmp\""),
        "{err}"
    );
    if !common::have("objdump") {
        common::skip(
            "routines_of_a_stripped_program_are_listed_from_its_debug_file",
            "no objdump: --disasm not tried",
        );
        return;
    }
    let (code, out, err) = run(&d, &["--disasm=kmp_count", "./tstrip", "tstrip.prof"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("ROUTINE ====================== kmp_count\n   127    127 samples (flat, cumulative) 35.4% of total\n"),
        "{out}"
    );
}

/// A value option for another kind of profile changes nothing, and says so (pprof says
/// nothing); one for the profile's kind says nothing.
#[test]
fn a_value_option_for_another_kind_of_profile_is_said_to_be_ignored() {
    let root = common::root().join("testdata");
    let said = |case: &str, args: &[&str]| -> Vec<String> {
        let (code, out, err) = run(&root.join(case), args);
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("Total: "), "{out}");
        err.lines()
            .filter(|l| l.contains(": ignored"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        said(
            "t-heap",
            &[
                "--text",
                "--contentions",
                "./theap",
                "theap.hprof.0003.heap"
            ]
        ),
        ["Warning: --contentions is for contention profiles; this is a heap profile: ignored"]
    );
    assert_eq!(
        said(
            "t-contention",
            &["--text", "--alloc_space", "./tcont", "tcont.contention"]
        ),
        ["Warning: --alloc_space is for heap profiles; this is a contention profile: ignored"]
    );
    assert!(
        said(
            "t-heap",
            &[
                "--text",
                "--alloc_space",
                "./theap",
                "theap.hprof.0003.heap"
            ]
        )
        .is_empty()
    );
}

/// `--thread` picks records only jemalloc's dumps have: on a tcmalloc dump it is said to
/// change nothing (the report is the one without it); on a jemalloc dump it picks the thread
/// and says nothing of the kind, and a thread it does not have is said once.
#[test]
fn thread_on_a_profile_without_threads_is_said_to_be_ignored() {
    let root = common::root().join("testdata");
    let heap = root.join("t-heap");
    let (code, out, err) = run(
        &heap,
        &["--text", "--thread=1", "./theap", "theap.hprof.0003.heap"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("Warning: --thread is for jemalloc's heap profiles (their records per thread); theap.hprof.0003.heap is none: ignored"),
        "{err}"
    );
    let (_, without, _) = run(&heap, &["--text", "./theap", "theap.hprof.0003.heap"]);
    assert_eq!(out, without);
    let (code, out, err) = run(
        &root.join("t-jemalloc"),
        &["--text", "--thread=1", "./tje", "tje.0002.heap"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total (t1): "), "{out}");
    assert!(!err.contains("--thread is for"), "{err}");
    // A thread the dump does not have: nothing, and one warning saying why.
    let (code, out, err) = run(
        &root.join("t-jemalloc"),
        &["--text", "--thread=9", "./tje", "tje.0002.heap"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("Warning: tje.0002.heap: no thread 9 (its threads are 0, 1, 2)"),
        "{err}"
    );
    assert!(!err.contains("the report is empty"), "{err}");
}

/// `--stacks` and `--show_addresses` work on jemalloc dumps as on tcmalloc's (jeprof has
/// neither; rpprof took them and printed plain `--text`).
#[test]
fn stacks_and_addresses_on_jemalloc_dumps() {
    let d = common::root().join("testdata").join("t-jemalloc");
    let (_, plain, _) = run(&d, &["--text", "./tje", "tje.0003.heap"]);
    let (code, out, err) = run(&d, &["--text", "--stacks", "./tje", "tje.0003.heap"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: 2.0 MB\nStacks:\n\n"), "{out}");
    assert!(out.contains(":grow_block\n"), "{out}");
    assert!(out.contains("Leak of "), "{out}");
    // The table follows, as without --stacks.
    let table = plain.strip_prefix("Total: 2.0 MB\n").unwrap_or("?");
    assert!(out.ends_with(table), "{out}");
    let (code, out, err) = run(
        &d,
        &["--text", "--show_addresses", "./tje", "tje.0003.heap"],
    );
    assert_eq!(code, 0, "{err}");
    let grow = out
        .lines()
        .find(|l| l.contains(" grow_block "))
        .unwrap_or("");
    assert!(grow.ends_with(" grow_block (000055ff6496623c)"), "{out}");
}

/// A base of another program is allowed, as in pprof, and said.
#[test]
fn a_base_of_another_program_is_said() {
    // (The map names the programs in /tmp/rpprof-corpus/t-cpu.)
    common::link_case("t-cpu");
    let d = common::root().join("testdata").join("t-cpu");
    let (code, _, err) = run(
        &d,
        &[
            "--text",
            "--base=tcpu-leaf.prof",
            "./tcpu-nopie",
            "tcpu-nopie.prof",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("Warning: the base tcpu-leaf.prof maps the program /tmp/rpprof-corpus/t-cpu/tcpu-pie, the profile /tmp/rpprof-corpus/t-cpu/tcpu-nopie: a profile of another program"),
        "{err}"
    );
    // Its addresses print as hex because they are another program's, not for want of
    // symbols (tcpu-pie has them).
    assert!(
        err.contains("Warning: 10 addresses in /tmp/rpprof-corpus/t-cpu/tcpu-pie print as hex: it is neither the program (./tcpu-nopie) nor a library, and is not looked up\n"),
        "{err}"
    );
    assert!(!err.contains("no symbols for"), "{err}");
    let (code, _, err) = run(
        &d,
        &[
            "--text",
            "--base=tcpu-nopie.prof",
            "./tcpu-nopie",
            "tcpu-nopie.prof",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("another program"), "{err}");
}

/// A symbolized profile (`--raw`) has function names, not source lines: `--lines` is
/// refused as pprof refuses it, rather than printing `?` for every line.
#[test]
fn lines_of_a_symbolized_profile_are_refused() {
    let d = common::root().join("testdata").join("t-heap");
    let (code, raw, err) = run(&d, &["--raw", "./theap", "theap.hprof.0003.heap"]);
    assert_eq!(code, 0, "{err}");
    let t = scratch("lines_of_a_symbolized_profile_are_refused");
    std::fs::write(t.join("heap.raw"), raw).unwrap();
    let (code, out, err) = run(&t, &["--text", "heap.raw"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: "), "{out}");
    let (code, out, err) = run(&t, &["--text", "--lines", "heap.raw"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.starts_with("rpprof: --lines cannot be used without a binary"),
        "{err}"
    );
    // A remote profile without a local program is named by its server: refused at once,
    // before anything is fetched (a closed port would say it cannot connect).
    let url = format!("127.0.0.1:{}/pprof/profile", common::free_port());
    let (code, out, err) = run(&t, &["--text", "--lines", &url]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.starts_with("rpprof: --lines cannot be used without a binary"),
        "{err}"
    );
}

/// `--alloc_space` on a jemalloc dump written without `prof_accum` (every record's
/// allocation totals 0) prints nothing, as jeprof does, and says why.
#[test]
fn allocation_totals_that_are_all_zero_are_said() {
    let d = common::root().join("testdata").join("t-jemalloc");
    let (code, out, err) = run(&d, &["--text", "--alloc_space", "./tje", "tje.0003.heap"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(
        err.contains("Warning: the profile records no allocation totals: the bracketed counts of every record are 0 (jemalloc writes them only with prof_accum:true); alloc_space reports nothing\n"),
        "{err}"
    );
    // (Said once: not also as an empty report.)
    assert!(!err.contains("report is empty"), "{err}");
    let (code, out, err) = run(&d, &["--text", "./tje", "tje.0003.heap"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: "), "{out}");
    assert!(!err.contains("allocation totals"), "{err}");
}

/// A text report of a total of 0 (a dump less itself) is nothing at all, as in pprof, and
/// says why.
#[test]
fn an_empty_report_says_why() {
    let d = common::root().join("testdata").join("t-heap");
    let (code, out, err) = run(
        &d,
        &[
            "--text",
            "--base=theap.hprof.0003.heap",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(
        err.ends_with("Warning: the report is empty: the profile less its base is 0 everywhere (the same profile, or one that did not change)\n"),
        "{err}"
    );
    let (code, out, err) = run(&d, &["--text", "./theap", "theap.hprof.0003.heap"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: "), "{out}");
    assert!(!err.contains("report is empty"), "{err}");
    // A dump without records (a process that had nothing live, or a CPU profile of one that
    // never ran long enough to be sampled): nothing was recorded.
    let text = std::fs::read_to_string(d.join("theap.hprof.0003.heap")).unwrap();
    let maps = &text[text.find("MAPPED_LIBRARIES:").unwrap()..];
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-records.heap");
    std::fs::write(
        &path,
        format!("heap profile:    0:        0 [     0:        0] @ heapprofile\n{maps}"),
    )
    .unwrap();
    let (code, out, err) = run(&d, &["--text", "./theap", path.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(
        err.ends_with(
            "Warning: the report is empty: the profile holds no samples (nothing was recorded)\n"
        ),
        "{err}"
    );
    // An old-format contention profile has delays and no counts: --contentions is empty
    // because of the format (pprof counts each delay's cycles as contentions).
    let c = common::link_case("t-contention");
    let text = std::fs::read_to_string(c.join("tcont.contention")).unwrap();
    let old: String = text
        .lines()
        .map(|l| match l.split_once(" @ ") {
            Some((nums, stack)) => {
                format!("{} @ {stack}\n", nums.split(' ').next().unwrap_or(""))
            }
            None if l == "--- contention" => "--- Stacks:\n".to_string(),
            None => format!("{l}\n"),
        })
        .collect();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("old.contention");
    std::fs::write(&path, old).unwrap();
    let p = path.to_str().unwrap();
    let (code, out, err) = run(&c, &["--text", "--contentions", "./tcont", p]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(
        err.ends_with("Warning: the report is empty: an old-format contention profile (--- Stacks:) records delays only, no counts: --contentions has nothing to show (without it, the report shows the delays)\n"),
        "{err}"
    );
    let (code, out, err) = run(&c, &["--text", "./tcont", p]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Total: "), "{out}");
}

/// google-pprof's `--raw` of a remote heap profile: its symbols, then `--- profile` and the
/// server's answer as it came (a text heap profile, its caller addresses as recorded, the
/// symbols naming them moved back). google-pprof cannot read it back; rpprof reads it as
/// it reads its own `--raw`.
#[test]
fn a_remote_raw_of_google_pprof_is_read() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // rpprof's --raw of `profile` in case `case`, and google-pprof's remote form of it: the
    // same symbols, then `--- profile` and the profile file as it is. Their text reports
    // are the same, every address named; returns the report.
    let same = |case: &str, program: &str, profile: &str| -> String {
        let d = common::link_case(case);
        let out = common::rpprof(&d, &["--raw", program, profile]);
        assert_eq!(out.status.code(), Some(0), "{case}");
        let raw = out.stdout;
        let end = raw
            .windows(5)
            .position(|w| w == b"\n---\n")
            .expect("the symbol section's end")
            + 5;
        let mut remote = raw[..end].to_vec();
        remote.extend_from_slice(b"--- profile\n");
        remote.extend_from_slice(&std::fs::read(d.join(profile)).unwrap());
        let (ours, theirs) = (
            tmp.join(format!("ours-{case}.raw")),
            tmp.join(format!("remote-{case}.raw")),
        );
        std::fs::write(&ours, &raw).unwrap();
        std::fs::write(&theirs, &remote).unwrap();
        let (code, want, err) = run(&d, &["--text", ours.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let (code, got, err) = run(&d, &["--text", theirs.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("no name"), "{case}: {err}");
        assert_eq!(got, want, "{case}");
        want
    };
    // A text heap profile (callers as recorded, the symbols naming them moved back).
    let heap = same("t-heap", "./theap", "theap.hprof.0003.heap");
    assert!(heap.contains(" tdata::index::grow\n"), "{heap}");
    // Of the CPU page, the profile as it came is binary, its callers as recorded: rpprof
    // moves them back when the symbols name them so (google-pprof prints them as hex).
    same("t-cpu", "./tcpu-nopie", "tcpu-nopie.prof");
}
