//! The output modes: `--collapsed`, `--callgrind` and `--dot` against google-pprof's recorded
//! outputs (`../shared/peer`), `--raw` round trips (rpprof's own, google-pprof's files, and
//! google-pprof reading rpprof's when it is installed), the Graphviz modes (when `dot` is
//! installed), `--traces`, and the refusal of bases and added profiles that do not match.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::make;

fn peer() -> Option<PathBuf> {
    let p = common::shared()?.join("peer").join("google-pprof");
    p.is_dir().then_some(p)
}

/// A scratch directory with the builders' profiles written into it.
fn scratch(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("modes-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (name, data) in make::all() {
        std::fs::write(d.join(format!("{name}.prof")), data).unwrap();
    }
    d
}

fn run(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = common::rpprof(dir, args);
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// compare.py's normalisation of the modes whose order is Perl's hash order.
fn normalise(kind: &str, s: &str) -> String {
    if kind.contains("collapsed") {
        let mut lines: Vec<String> = s
            .lines()
            .filter(|l| !l.is_empty())
            .map(strip_nm_tags)
            .collect();
        lines.sort();
        return lines.join("\n");
    }
    if kind.contains("callgrind") {
        return expand_callgrind(s);
    }
    if kind.contains("dot") {
        let mut lines: Vec<&str> = s.lines().collect();
        lines.sort();
        return lines.join("\n");
    }
    s.to_string()
}

/// Removes `<` + 16 hex digits + `>`.
fn strip_nm_tags(l: &str) -> String {
    let b = l.as_bytes();
    let mut out = String::with_capacity(l.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'<'
            && i + 17 < b.len()
            && b[i + 17] == b'>'
            && b[i + 1..i + 17]
                .iter()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        {
            i += 18;
            continue;
        }
        let c = l[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Expands callgrind's `(N)` name compression and sorts the blocks after the first.
fn expand_callgrind(s: &str) -> String {
    let mut names: HashMap<(char, String), String> = HashMap::new();
    let mut out = Vec::new();
    for line in s.lines() {
        let mut l = line.to_string();
        if let Some((key, val)) = line.split_once('=')
            && matches!(key, "fl" | "fn" | "cfl" | "cfn")
            && let Some(rest) = val.strip_prefix('(')
            && let Some((n, name)) = rest.split_once(')')
            && n.bytes().all(|c| c.is_ascii_digit())
        {
            let k = (key.chars().last().unwrap(), n.to_string());
            if let Some(name) = name.strip_prefix(' ') {
                names.insert(k.clone(), name.to_string());
            }
            l = format!("{key}={}", names.get(&k).map_or("?", String::as_str));
        }
        out.push(l);
    }
    let joined = out.join("\n");
    let mut blocks: Vec<&str> = joined
        .split("\n\n")
        .map(|b| b.trim_matches('\n'))
        .filter(|b| !b.trim().is_empty())
        .collect();
    if blocks.len() > 1 {
        blocks[1..].sort();
    }
    blocks.join("\n\n")
}

/// Every `--collapsed`, `--callgrind` and `--dot` row google-pprof recorded for Go pprof's
/// test profiles.
#[test]
fn graph_modes_equal_google_pprof() {
    let Some(dir) = peer() else {
        return common::skip("graph_modes_equal_google_pprof", "../shared/peer is absent");
    };
    if !Path::new("/bin/true").is_file() {
        return common::skip("graph_modes_equal_google_pprof", "/bin/true is absent");
    }
    let mut compared = 0;
    let mut failures = Vec::new();
    for row in common::ref_index(&dir) {
        let mode = row.output.trim_start_matches("google-pprof.");
        if !matches!(mode, "collapsed" | "callgrind" | "dot") || row.exit != 0 {
            continue;
        }
        let want = std::fs::read_to_string(
            dir.join("refs")
                .join(&row.profile)
                .join(format!("{}.out", row.output)),
        )
        .unwrap();
        let args: Vec<&str> = row.command[1..].iter().map(String::as_str).collect();
        let (code, out, err) = run(&dir, &args);
        compared += 1;
        let (w, g) = (normalise(mode, &want), normalise(mode, &text(&out)));
        if code != 0 || w != g {
            failures.push(format!(
                "{}/{} (exit {code}, {err}): {}",
                row.profile,
                row.output,
                common::first_difference(&w, &g)
            ));
        }
    }
    assert!(compared >= 18, "only {compared} rows found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The outputs of rpprof are the same from run to run (pprof's are not).
#[test]
fn hash_ordered_modes_are_deterministic() {
    let d = scratch("deterministic");
    for mode in ["--collapsed", "--callgrind", "--dot", "--traces", "--raw"] {
        let first = run(&d, &[mode, "missing-program", "heap.prof", "heap.prof"]);
        assert_eq!(first.0, 0, "{mode}: {}", first.2);
        for _ in 0..3 {
            let again = run(&d, &[mode, "missing-program", "heap.prof", "heap.prof"]);
            assert_eq!(first.1, again.1, "{mode}");
        }
    }
}

/// `--text` of rpprof's `--raw` output is `--text` of the profile, for every value column.
fn assert_raw_round_trip(dir: &Path, prog: &str, profile: &str, options: &[&str]) {
    let mut args = vec!["--raw"];
    args.extend_from_slice(options);
    args.extend([prog, profile]);
    let (code, raw, err) = run(dir, &args);
    assert_eq!(code, 0, "--raw {profile} {options:?}: {err}");
    let tag: String = options
        .join("")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let raw_path = dir.join(format!(
        "{}.{tag}.raw",
        Path::new(profile).file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&raw_path, &raw).unwrap();
    let values: &[&str] = if profile.contains("contention") {
        // A record's mean delay is its delay over its count, so a base's records, negated,
        // add their means: --mean_delay of a difference does not survive --raw.
        if options.iter().any(|o| o.starts_with("--base")) {
            &["--total_delay", "--contentions"]
        } else {
            &["--total_delay", "--contentions", "--mean_delay"]
        }
    } else {
        &[
            "--inuse_space",
            "--inuse_objects",
            "--alloc_space",
            "--alloc_objects",
        ]
    };
    for v in values {
        let mut a = vec!["--text", v];
        a.extend(options.iter().filter(|o| o.starts_with("--thread")));
        let mut want_args = a.clone();
        want_args.extend(options.iter().filter(|o| o.starts_with("--base")));
        want_args.extend([prog, profile]);
        let want = run(dir, &want_args);
        let raw_str = raw_path.to_string_lossy().into_owned();
        a.push(&raw_str);
        let got = run(dir, &a);
        assert_eq!(want.0, 0, "{want_args:?}: {}", want.2);
        assert_eq!(got.0, 0, "{a:?}: {}", got.2);
        assert_eq!(
            text(&want.1),
            text(&got.1),
            "{profile} {options:?} {v}: {}",
            common::first_difference(&text(&want.1), &text(&got.1))
        );
    }
}

#[test]
fn raw_round_trips_the_builders_profiles() {
    let d = scratch("raw_round_trip");
    for name in [
        "heap",
        "heap_v2",
        "growth",
        "jemalloc",
        "contention",
        "cpu64le",
        "cpu64be",
        "cpu32le",
    ] {
        assert_raw_round_trip(&d, "missing-program", &format!("{name}.prof"), &[]);
    }
    assert_raw_round_trip(&d, "missing-program", "jemalloc.prof", &["--thread=*"]);
    // With a base, the raw file holds the difference (negative values included).
    assert_raw_round_trip(&d, "missing-program", "heap.prof", &["--base=heap_v2.prof"]);
    assert_raw_round_trip(&d, "missing-program", "heap_v2.prof", &["--base=heap.prof"]);
    assert_raw_round_trip(
        &d,
        "missing-program",
        "contention.prof",
        &["--base=contention.prof"],
    );
    // A CPU difference has negative counts.
    std::fs::write(
        d.join("cpu_base.prof"),
        make::cpu(
            8,
            false,
            10000,
            &[(7, &[0x400100, 0x400200, 0x7f0000000200])],
            make::MAPS,
        ),
    )
    .unwrap();
    assert_raw_round_trip(
        &d,
        "missing-program",
        "cpu64le.prof",
        &["--base=cpu_base.prof"],
    );
    assert_raw_round_trip(
        &d,
        "missing-program",
        "cpu32le.prof",
        &["--base=cpu32le.prof"],
    );
}

/// A sampled profile less itself (or less a dump sharing most of its records) round-trips:
/// a base record equal to one of the profile's is left out with it, where, read back, the
/// pair summed in file order left rounding residue (`Total: -0.0 MB`, rows at -25%).
#[test]
fn raw_round_trips_differences_of_real_sampled_profiles() {
    let d = scratch("raw_real_diff");
    let t = common::root().join("testdata");
    let path = |p: &str| t.join(p).to_string_lossy().into_owned();
    let v2 = path("t-heap/theap.heapv2");
    assert_raw_round_trip(&d, "missing-program", &v2, &[&format!("--base={v2}")]);
    let (raw_code, raw, _) = run(
        &d,
        &["--raw", &format!("--base={v2}"), "missing-program", &v2],
    );
    assert_eq!(raw_code, 0);
    let records = String::from_utf8_lossy(&raw)
        .lines()
        .filter(|l| l.contains(" @ 0x"))
        .count();
    assert_eq!(records, 0, "a profile less itself leaves no record");
    let je = path("t-jemalloc/tje.0003.heap");
    for base in ["t-jemalloc/tje.0002.heap", "t-jemalloc/tje.0003.heap"] {
        let b = format!("--base={}", path(base));
        assert_raw_round_trip(&d, "missing-program", &je, &[&b]);
        // A thread's report is of the profile alone, with a base too (jeprof's).
        assert_raw_round_trip(&d, "missing-program", &je, &[&b, "--thread=*"]);
    }
}

#[test]
fn raw_round_trips_the_peer_profiles() {
    let Some(dir) = peer() else {
        return common::skip(
            "raw_round_trips_the_peer_profiles",
            "../shared/peer is absent",
        );
    };
    let d = scratch("raw_peer");
    for p in [
        "profile/cppbench.heap",
        "profile/cppbench.growth",
        "profile/cppbench.contention",
        "profile/cppbench.cpu",
        "profile/cppbench.thread",
        "profile/gobench.cpu",
        "profile/go.crc32.cpu",
        "profile/java.cpu",
        "driver/cppbench.cpu",
    ] {
        let path = dir.join(p).to_string_lossy().into_owned();
        assert_raw_round_trip(&d, "/bin/true", &path, &[]);
    }
    let base = dir
        .join("driver/cppbench.small.contention")
        .to_string_lossy()
        .into_owned();
    let path = dir
        .join("profile/cppbench.contention")
        .to_string_lossy()
        .into_owned();
    assert_raw_round_trip(&d, "/bin/true", &path, &[&format!("--base={base}")]);
}

/// rpprof reads every `--raw` output google-pprof wrote for the corpus.
#[test]
fn reads_google_pprof_raw_files() {
    let Some(shared) = common::shared() else {
        return common::skip("reads_google_pprof_raw_files", "../shared is absent");
    };
    let corpus = shared.join("corpus");
    let d = scratch("google_raw");
    let mut read = 0;
    for case in std::fs::read_dir(&corpus).unwrap().flatten() {
        let refs = case.path().join("refs");
        let Ok(profiles) = std::fs::read_dir(&refs) else {
            continue;
        };
        for p in profiles.flatten() {
            let f = p.path().join("google-pprof.raw.out");
            // Large ones are stored compressed; an empty file is a run pprof refused.
            if !f.is_file() || std::fs::metadata(&f).unwrap().len() == 0 {
                continue;
            }
            let (code, out, err) = run(&d, &["--text", &f.to_string_lossy()]);
            assert_eq!(code, 0, "{}: {err}", f.display());
            assert!(text(&out).starts_with("Total: "), "{}", f.display());
            // google-pprof's CPU raw files have no end-of-data record: not a damaged file.
            assert!(!err.contains("end-of-data"), "{}: {err}", f.display());
            read += 1;
        }
    }
    assert!(read >= 20, "only {read} raw files found");
}

/// google-pprof reads rpprof's `--raw` files and reports what rpprof reports (except that it
/// appends " ?" to addresses without a symbol, which it takes for names).
#[test]
fn google_pprof_reads_rpprof_raw_files() {
    let Some(dir) = peer() else {
        return common::skip(
            "google_pprof_reads_rpprof_raw_files",
            "../shared/peer is absent",
        );
    };
    if !common::have("google-pprof") {
        return common::skip(
            "google_pprof_reads_rpprof_raw_files",
            "google-pprof is not installed",
        );
    }
    let d = scratch("google_reads_raw");
    for p in [
        "profile/cppbench.heap",
        "profile/cppbench.growth",
        "profile/cppbench.contention",
        "profile/cppbench.cpu",
    ] {
        let path = dir.join(p).to_string_lossy().into_owned();
        let (code, raw, err) = run(&d, &["--raw", "/bin/true", &path]);
        assert_eq!(code, 0, "{err}");
        let f = d.join(format!("{}.raw", p.replace('/', "_")));
        std::fs::write(&f, raw).unwrap();
        let fs = f.to_string_lossy().into_owned();
        let ours = text(&run(&d, &["--text", &fs]).1);
        let out = std::process::Command::new("google-pprof")
            .args(["--text", &fs])
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(out.status.success(), "google-pprof --text {fs}");
        let theirs: String = text(&out.stdout)
            .lines()
            .map(|l| format!("{}\n", l.strip_suffix(" ?").unwrap_or(l)))
            .collect();
        assert_eq!(
            ours,
            theirs,
            "{p}: {}",
            common::first_difference(&ours, &theirs)
        );
    }
}

/// A base or an added profile whose values mean something else is refused before any
/// output, with exit status 1 and one line saying why.
#[test]
fn mismatched_profiles_are_refused() {
    let d = scratch("refused");
    std::fs::write(
        d.join("cpu_other_period.prof"),
        make::cpu(8, false, 1000, &[(1, &[0x400100, 0x400200])], make::MAPS),
    )
    .unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--base=cpu64le.prof", "p", "heap.prof"],
            "sample types differ",
        ),
        (
            &["--base=heap.prof", "p", "cpu64le.prof"],
            "sample types differ",
        ),
        (
            &["--base=contention.prof", "p", "heap.prof"],
            "sample types differ",
        ),
        (
            &["--base=cpu64le.prof", "p", "contention.prof"],
            "sample types differ",
        ),
        (
            &["--base=contention.prof", "p", "cpu64le.prof"],
            "sample types differ",
        ),
        (
            &["--base=heap.prof", "p", "growth.prof"],
            // (Both values are named inuse_space: the kinds differ.)
            "the kinds of profile differ",
        ),
        (
            &["--base=growth.prof", "p", "heap.prof"],
            // (Both values are named inuse_space: the kinds differ.)
            "the kinds of profile differ",
        ),
        (
            &["--base=cpu_other_period.prof", "p", "cpu64le.prof"],
            "sampling periods differ",
        ),
        (
            &["--base=jemalloc.prof", "p", "heap.prof"],
            "value pairs differ",
        ),
        (
            &["--base=heap.prof", "p", "jemalloc.prof"],
            "value pairs differ",
        ),
        // Profiles added together are checked the same way.
        (&["p", "heap.prof", "cpu64le.prof"], "sample types differ"),
        (
            &["p", "cpu64le.prof", "cpu_other_period.prof"],
            "sampling periods differ",
        ),
    ];
    for mode in ["--text", "--dot", "--collapsed", "--raw"] {
        for (args, why) in cases {
            let mut a = vec![mode];
            a.extend_from_slice(args);
            let (code, out, err) = run(&d, &a);
            assert_eq!(code, 1, "{a:?}: {err}");
            assert!(out.is_empty(), "{a:?}: printed {}", text(&out));
            assert_eq!(err.lines().count(), 1, "{a:?}: {err}");
            assert!(err.starts_with("rpprof: cannot "), "{a:?}: {err}");
            assert!(err.trim_end().ends_with(why), "{a:?}: {err}");
        }
    }
    let (code, _, err) = run(&d, &["--text", "--base=cpu64le.prof", "p", "heap.prof"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("rpprof: cannot subtract a cpu profile (samples, cpu64le.prof) from a heap profile (inuse_space, heap.prof)"),
        "{err}"
    );
    // Same kinds, same period: fine.
    let (code, _, err) = run(&d, &["--text", "--base=cpu32le.prof", "p", "cpu64be.prof"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn dot_without_nodes_fails_as_pprof_does() {
    let d = scratch("no_nodes");
    let (code, out, err) = run(&d, &["--dot", "--nodecount=0", "p", "heap.prof"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("no nodes to print"), "{err}");
    // Said once (it was said twice, as a note and as the error).
    assert_eq!(
        err.to_lowercase().matches("no nodes to print").count(),
        1,
        "{err}"
    );
}

#[test]
fn dot_options_shape_the_graph() {
    let d = scratch("dot_options");
    let (code, out, err) = run(&d, &["--dot", "--heapcheck", "p", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    let s = text(&out);
    assert!(s.starts_with("digraph \"p; 0.0 MB\" {\n"), "{s}");
    assert!(s.contains(",style=filled,fillcolor=gray];"), "{s}");
    let (_, out, _) = run(&d, &["--dot", "--nodecount=1", "p", "heap.prof"]);
    assert_eq!(
        text(&out).matches(" [label=\"").count(),
        1,
        "{}",
        text(&out)
    );
    let (_, out, _) = run(&d, &["--dot", "--maxdegree=0", "p", "heap.prof"]);
    // Only the edges needed to reach a node are left.
    assert!(text(&out).contains(" -> N"), "{}", text(&out));
}

#[test]
fn graphviz_modes() {
    let d = scratch("graphviz");
    if !common::have("dot") {
        return common::skip("graphviz_modes", "graphviz's dot is not installed");
    }
    let (code, out, err) = run(&d, &["--svg", "p", "cpu64le.prof"]);
    assert_eq!(code, 0, "{err}");
    let svg = text(&out);
    assert!(svg.starts_with("<?xml"), "{svg}");
    assert!(svg.contains("<svg width=\"100%\" height=\"100%\""), "{svg}");
    assert!(svg.contains("SVGPan"), "{svg}");
    assert!(svg.contains("<g id=\"viewport\""), "{svg}");
    for (mode, magic) in [
        ("--ps", &b"%!PS"[..]),
        ("--pdf", &b"%PDF"[..]),
        ("--gif", &b"GIF8"[..]),
    ] {
        let (code, out, err) = run(&d, &[mode, "p", "cpu64le.prof"]);
        assert_eq!(code, 0, "{mode}: {err}");
        assert!(out.starts_with(magic), "{mode}");
    }
}

#[test]
fn graphviz_missing_is_one_clear_line() {
    let d = scratch("no_graphviz");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--svg", "p", "cpu64le.prof"])
        .current_dir(&d)
        .env("PATH", d.join("nowhere"))
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.lines()
            .any(|l| l == "rpprof: cannot run dot: not found; install the Debian package graphviz"),
        "{err}"
    );
}

#[test]
fn traces_print_every_stack() {
    let d = scratch("traces");
    let (code, out, err) = run(&d, &["--traces", "p", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        text(&out),
        "File: p\nType: inuse_space\n\
         -----------+-------------------------------------------------------\n\
         \x20   2.93kB   0000000000400100\n\
         \x20            00000000004001ff\n\
         \x20            00007f00000000ff\n\
         -----------+-------------------------------------------------------\n\
         \x20   1.95kB   0000000000400300\n\
         \x20            00000000004001ff\n\
         -----------+-------------------------------------------------------\n"
    );
    let (_, out, _) = run(&d, &["--traces", "p", "cpu64le.prof"]);
    assert!(text(&out).contains("Type: cpu\n"), "{}", text(&out));
    assert!(text(&out).contains("      50ms   "), "{}", text(&out));
}

#[test]
fn collapsed_and_callgrind_of_the_builders() {
    let d = scratch("collapsed");
    let (code, out, err) = run(&d, &["--collapsed", "p", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        text(&out),
        "00000000004001ff;0000000000400300 2000\n\
         00007f00000000ff;00000000004001ff;0000000000400100 3000\n"
    );
    let (code, out, err) = run(&d, &["--callgrind", "p", "heap.prof"]);
    assert_eq!(code, 0, "{err}");
    let s = text(&out);
    assert!(
        s.starts_with("events: Hits\n\nfl=??\nfn=(1) unknown\n"),
        "{s}"
    );
    // pprof leaves out the outermost call of every stack.
    assert!(s.contains("calls=3000 0\n"), "{s}");
    assert!(!s.contains("calls=2000"), "{s}");
}

/// `--symbols`: addresses on standard input (the first `0x...` of each line), the other lines
/// the memory map; one name per address, in input order. The expected names are what
/// google-pprof 2.10 printed for the same input (libc's addresses left out: they depend on the
/// installed libc); `0x1`, outside every mapping, is named like pprof names it with
/// `--pprof_quirks`.
#[test]
fn symbols_names_addresses_from_standard_input() {
    use std::process::{Command, Stdio};
    let case = common::root().join("testdata").join("t-heap");
    let heap = std::fs::read_to_string(case.join("theap.hprof.0001.heap")).unwrap();
    let map = heap.split("MAPPED_LIBRARIES:\n").nth(1).unwrap();
    let input = format!(
        "0x560063244ae6\n0x5600632450be\n0x5600632444ef\n0x560063244671\n\
         foo 0x560063244abc bar 0x1\n0x1\n{map}"
    );
    let prog = case.join("theap");
    let symbols = |extra: &[&str]| {
        let mut args = extra.to_vec();
        args.extend(["--symbols", prog.to_str().unwrap()]);
        let out = common::rpprof_with_input(&case, &args, input.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    // google-pprof names 0x1 after the first symbol of the program (__abi_tag, a note, above
    // it); rpprof by the file and the address, as no symbol holds it (issue 17), unless asked
    // for pprof's answers.
    assert_eq!(
        symbols(&[]),
        "tdata::store::Slab::take\none_round\nmain\n_start\ntdata::render::paint\ntheap+0x1\n"
    );
    assert_eq!(
        symbols(&["--pprof_quirks"]),
        "tdata::store::Slab::take\none_round\nmain\n_start\ntdata::render::paint\n__abi_tag\n"
    );

    // Without map lines, addresses are the program file's; one in no function (padding
    // after a function) is said to be so, not to be from a profile cut short.
    let out = common::rpprof_with_input(
        &case,
        &["--symbols", prog.to_str().unwrap()],
        b"0x22a5\n0x2645\n",
    );
    assert_eq!(text(&out.stdout), "main\ntheap+0x2645\n");
    let err = text(&out.stderr);
    assert!(
        err.starts_with("Warning: 1 address (0x2645) lies in no function of ")
            && err.contains("the input has no memory map")
            && !err.contains("profile"),
        "{err}"
    );

    // A program that does not exist is an error, before anything is read.
    let out = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--symbols", "/nonexistent/prog"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("/nonexistent/prog"),
        "{}",
        text(&out.stderr)
    );
}

/// `--disasm` runs objdump; without it the mode fails with one line naming the package,
/// exit status 2, and nothing on standard output.
#[test]
fn disasm_without_objdump_names_the_package() {
    let dir = common::root().join("testdata").join("t-cpu");
    let empty = scratch("disasm_without_objdump");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args([
            "--disasm=sieve",
            "--lib_prefix=.",
            "./tcpu-nopie",
            "tcpu-nopie.prof",
        ])
        .current_dir(&dir)
        .env("PATH", &empty)
        .output()
        .expect("run rpprof");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("objdump") && stderr.contains("binutils"),
        "{stderr}"
    );
}

/// `--list --pprof_quirks` asks objdump where a relocated routine's last instruction starts
/// (pprof's cut); a routine loaded where it is linked (a program that is not a PIE) has no
/// cut, and its listing does not look for objdump (`--tools` naming none failed it).
#[test]
fn list_pprof_quirks_needs_objdump_only_for_relocated_routines() {
    let dir = common::root().join("testdata").join("t-cpu");
    let list = |program: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rpprof"))
            .args([
                "--list=sieve_count",
                "--pprof_quirks",
                "--tools=/nonexistent/",
                "--lib_prefix=.",
                &format!("./{program}"),
                &format!("{program}.prof"),
            ])
            .current_dir(&dir)
            .output()
            .expect("run rpprof")
    };
    let plain = list("tcpu-nopie");
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    assert!(
        text(&plain.stdout).contains("ROUTINE ====================== sieve_count"),
        "{}",
        text(&plain.stdout)
    );
    let pie = list("tcpu-pie");
    assert_ne!(pie.status.code(), Some(0), "{}", text(&pie.stderr));
    assert!(text(&pie.stderr).contains("No 'objdump' found"));
    assert!(pie.stdout.is_empty());
}
