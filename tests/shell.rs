//! The interactive shell: transcripts driven through a pipe print what google-pprof (jeprof)
//! prints (`testdata/shell/`, recorded by `testdata/shell/record.sh`, and run live when the
//! tools are installed, also on the shared corpus); with no output mode and a terminal on
//! standard output rpprof starts the shell as pprof does; the options that persist give the
//! reports the command line gives; and the line editor works on a real terminal.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::pty::Pty;

/// One row of `testdata/shell/transcripts.tsv`.
struct Row {
    name: String,
    case: String,
    tool: String,
    transcript: PathBuf,
    args: Vec<String>,
    extra: Vec<String>,
}

fn shell_dir() -> PathBuf {
    common::root().join("testdata").join("shell")
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(shell_dir().join("transcripts.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Row {
                name: f[0].to_string(),
                case: f[1].to_string(),
                tool: f[2].to_string(),
                transcript: shell_dir().join(f[3]),
                args: f[4].split_whitespace().map(str::to_string).collect(),
                extra: f
                    .get(5)
                    .map(|e| e.split_whitespace().map(str::to_string).collect())
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// Runs rpprof in `dir` with `args`, the transcript on standard input.
fn piped(dir: &Path, args: &[String], transcript: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .current_dir(dir)
        .env("BROWSER", "true")
        .stdin(std::fs::File::open(transcript).unwrap())
        .output()
        .unwrap()
}

/// [`piped`], which must succeed; (stdout, stderr).
fn rpprof_piped(dir: &Path, args: &[String], transcript: &Path) -> (String, String) {
    let out = piped(dir, args, transcript);
    assert!(
        out.status.success(),
        "rpprof {args:?} < {}: {}",
        transcript.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn with_interactive(r: &Row) -> Vec<String> {
    let mut a = vec!["--interactive".to_string()];
    a.extend(r.extra.iter().cloned());
    a.extend(r.args.iter().cloned());
    a
}

#[test]
fn recorded_transcripts_equal_google_pprof() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("recorded_transcripts_equal_google_pprof", &why);
    }
    let rows = rows();
    assert!(rows.len() >= 6);
    for r in &rows {
        common::link_case(&r.case);
        let dir = Path::new("/tmp/rpprof-corpus").join(&r.case);
        let (out, err) = rpprof_piped(&dir, &with_interactive(r), &r.transcript);
        let want =
            std::fs::read_to_string(shell_dir().join("refs").join(format!("{}.out", r.name)))
                .unwrap();
        assert!(want.lines().count() > 50, "{}: a short reference", r.name);
        assert_eq!(
            out,
            want,
            "{}: {}",
            r.name,
            common::first_difference(&want, &out)
        );
        // The banner and the prompts are on standard error, as pprof (jeprof, on a jemalloc
        // profile) prints them.
        let tool = if r.tool == "jeprof" {
            "jeprof"
        } else {
            "pprof"
        };
        assert!(
            err.contains(&format!(
                "Welcome to {tool}!  For help, type 'help'.\n({tool}) "
            )),
            "{err}"
        );
        let want_err =
            std::fs::read_to_string(shell_dir().join("refs").join(format!("{}.err", r.name)))
                .unwrap();
        assert!(want_err.contains(&format!("({tool}) ")), "{want_err}");
    }
}

/// pprof starts its shell when no output mode is given and standard output is a terminal.
#[test]
fn no_output_mode_on_a_terminal_is_the_shell() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("no_output_mode_on_a_terminal_is_the_shell", &why);
    }
    for r in rows()
        .iter()
        .filter(|r| r.name == "cpu" || r.name == "heap")
    {
        common::link_case(&r.case);
        let dir = Path::new("/tmp/rpprof-corpus").join(&r.case);
        let pty = Pty::open(true);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rpprof"));
        cmd.args(r.extra.iter().chain(r.args.iter()))
            .current_dir(&dir)
            .env("BROWSER", "true")
            .stdin(std::fs::File::open(&r.transcript).unwrap())
            .stdout(pty.stdio())
            .stderr(Stdio::piped());
        let screen = pty.reader();
        let child = pty.spawn(&mut cmd);
        // The command holds a copy of the terminal for the child's output: gone with it.
        drop(cmd);
        let _master = pty.close_slave();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The reader thread has everything once the terminal is closed on both sides.
        let want =
            std::fs::read_to_string(shell_dir().join("refs").join(format!("{}.out", r.name)))
                .unwrap();
        let got = screen.all();
        assert_eq!(
            got,
            want,
            "{}: {}",
            r.name,
            common::first_difference(&want, &got)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("(pprof) "));
    }
    // Through a pipe, no output mode is --text, as before.
    let dir = Path::new("/tmp/rpprof-corpus/t-cpu");
    common::link_case("t-cpu");
    let out = common::rpprof(dir, &["--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"]);
    let text = common::rpprof(
        dir,
        &["--text", "--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"],
    );
    assert_eq!(out.stdout, text.stdout);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("(pprof)"));
}

/// A private copy of the files of a case, in a real directory (google-pprof resolves the
/// program with abs_path and prints hex through a symbolic link), the profiles' memory maps
/// naming the copy instead of `from`.
fn private_copy(src: &Path, files: &[&str], from: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpprof-shell-live-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let to = format!("{}/", dir.display());
    for f in files {
        let data = std::fs::read(src.join(f)).unwrap();
        let is_profile = f.ends_with(".heap") || f.ends_with(".prof") || f.ends_with(".heapv2");
        let data = if is_profile {
            common::replace_bytes(&data, from.as_bytes(), to.as_bytes())
        } else {
            data
        };
        std::fs::write(dir.join(f), data).unwrap();
        let mode = std::fs::metadata(src.join(f)).unwrap().permissions();
        std::fs::set_permissions(dir.join(f), mode).unwrap();
    }
    dir
}

/// Runs google-pprof (or jeprof) and rpprof on the same transcript and copy.
fn live(tool: &str, dir: &Path, args: &[String], extra: &[String], transcript: &str, name: &str) {
    let tfile = dir.join("transcript.in");
    std::fs::write(&tfile, transcript).unwrap();
    let theirs = Command::new(tool)
        .arg("--interactive")
        .args(args)
        .current_dir(dir)
        .env("PERL_HASH_SEED", "0")
        .env("PERL_PERTURB_KEYS", "0")
        .stdin(std::fs::File::open(&tfile).unwrap())
        .output()
        .unwrap();
    let mut ours_args = vec!["--interactive".to_string()];
    ours_args.extend(extra.iter().cloned());
    ours_args.extend(args.iter().cloned());
    let (ours, _) = rpprof_piped(dir, &ours_args, &tfile);
    let theirs = String::from_utf8_lossy(&theirs.stdout).into_owned();
    assert!(
        theirs.lines().count() > 20,
        "{name}: {tool} printed little:\n{theirs}"
    );
    assert_eq!(
        ours,
        theirs,
        "{name}: {}",
        common::first_difference(&theirs, &ours)
    );
}

#[test]
fn live_transcripts_equal_google_pprof() {
    if !common::have("google-pprof") || !common::have("jeprof") || !common::have("dot") {
        return common::skip(
            "live_transcripts_equal_google_pprof",
            "google-pprof, jeprof or graphviz is not installed",
        );
    }
    let mut n = 0;
    for r in rows() {
        let src = common::root().join("testdata").join(&r.case);
        common::link_case(&r.case);
        let files: Vec<String> = std::fs::read_dir(&src)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        let from = format!("/tmp/rpprof-corpus/{}/", r.case);
        let dir = private_copy(&src, &files, &from, &r.name);
        let transcript = std::fs::read_to_string(&r.transcript).unwrap();
        live(&r.tool, &dir, &r.args, &r.extra, &transcript, &r.name);
        let _ = std::fs::remove_dir_all(&dir);
        n += 1;
    }
    // The shared corpus: a leak series, a sampled heap, a CPU profile with libraries.
    let Some(shared) = common::shared() else {
        common::skip(
            "live_transcripts_equal_google_pprof (shared corpus)",
            "../shared is absent",
        );
        assert!(n >= 6);
        return;
    };
    let corpus = shared.join("corpus");
    let cases: &[(&str, &[&str], &str, &str)] = &[
        (
            "leak",
            &[
                "leak",
                "leak.hprof.0001.heap",
                "leak.hprof.0006.heap",
                "leak.cc",
            ],
            "--base=leak.hprof.0001.heap --lib_prefix=. ./leak leak.hprof.0006.heap",
            "top\ntop --cum\ntop -Pool\nlist Pool::make\nweb Session -make\ntext --lines\n",
        ),
        (
            "heapv2",
            &["sampler", "heap.prof", "sampler.cc"],
            "--lib_prefix=. ./sampler heap.prof",
            "top\ntop25 --cum\ntop0\ntop --lines\nlist big_buffer\nweb -big_buffer\n",
        ),
        (
            "cpu",
            &[
                "cpu-pie",
                "libhot.so",
                "libplugin.so",
                "cpu-pie.prof",
                "cpu.c",
                "hot.c",
            ],
            "--lib_prefix=. ./cpu-pie cpu-pie.prof",
            "top\ntop30 --cum\ntop -hot_crc32\nlist count_primes\ntop --lines\nweb fib\n",
        ),
    ];
    for (case, files, args, transcript) in cases {
        let src = corpus.join(case);
        let link = Path::new("/tmp/rpprof-corpus").join(case);
        if std::fs::symlink_metadata(&link).is_err() {
            let _ = std::os::unix::fs::symlink(&src, &link);
        }
        let from = format!("/tmp/rpprof-corpus/{case}/");
        let dir = private_copy(&src, files, &from, case);
        let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        let extra = vec!["--pprof_quirks".to_string()];
        live("google-pprof", &dir, &args, &extra, transcript, case);
        let _ = std::fs::remove_dir_all(&dir);
        n += 1;
    }
    assert!(n >= 9);
}

/// Runs a transcript on t-heap's third dump (with --pprof_quirks, as the references), which
/// must succeed, and returns its standard output cut at each `Total:` line, and the standard
/// error.
fn t_heap(transcript: &str, extra: &[&str]) -> (Vec<String>, String) {
    let (blocks, err, code) = t_heap_status(transcript, extra);
    assert_eq!(code, Some(0), "{err}");
    (blocks, err)
}

/// [`t_heap`], successful or not; with the exit status.
fn t_heap_status(transcript: &str, extra: &[&str]) -> (Vec<String>, String, Option<i32>) {
    common::link_case("t-heap");
    let dir = std::env::temp_dir().join(format!("rpprof-shell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tfile = dir.join(format!("t{}.in", transcript.len()));
    std::fs::write(&tfile, transcript).unwrap();
    let mut args: Vec<String> = vec!["--interactive".into(), "--pprof_quirks".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(
        ["--lib_prefix=.", "./theap", "theap.hprof.0003.heap"]
            .iter()
            .map(|s| s.to_string()),
    );
    let run = piped(Path::new("/tmp/rpprof-corpus/t-heap"), &args, &tfile);
    let out = String::from_utf8_lossy(&run.stdout);
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    let mut blocks: Vec<String> = Vec::new();
    for line in out.split_inclusive('\n') {
        if line.starts_with("Total:") || blocks.is_empty() {
            blocks.push(String::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push_str(line);
        }
    }
    (blocks, err, run.status.code())
}

/// The first `n` lines of what the command line prints for `args` on t-heap's third dump.
fn cli_head(args: &[&str], n: usize) -> String {
    let mut a = vec!["--pprof_quirks", "--lib_prefix=."];
    a.extend_from_slice(args);
    a.extend_from_slice(&["./theap", "theap.hprof.0003.heap"]);
    let out = common::rpprof(Path::new("/tmp/rpprof-corpus/t-heap"), &a);
    assert!(out.status.success(), "{a:?}");
    String::from_utf8_lossy(&out.stdout)
        .split_inclusive('\n')
        .take(n)
        .collect()
}

/// `block` (a `top` of the shell) is the beginning of what the command line prints for
/// `args`: its `Total:` line and its first rows, at most `n` lines in all. (pprof's `topN`
/// counts the entries whose values are all zero without printing them, so it may print
/// fewer.)
fn assert_begins(block: &str, args: &[&str], n: usize) {
    let cli = cli_head(args, usize::MAX);
    assert!(
        cli.starts_with(block),
        "{args:?}:\n{block}\nis not the beginning of\n{cli}"
    );
    let lines = block.lines().count();
    assert!(
        lines <= n && lines >= n.min(6),
        "{args:?}: {lines} lines:\n{block}"
    );
}

#[test]
fn options_persist_and_give_the_command_line_reports() {
    let (blocks, err) = t_heap(
        "sample_index=alloc_space\ntop\n\
         granularity=lines\ntop\n\
         granularity=functions\nfocus=index::grow\ntop\n\
         focus=\nbase=theap.hprof.0001.heap\ntop\n\
         base=\nsample_index=inuse_objects\ncum=true\ntop25\n\
         hide=std::\nshow_bytes=true\ntop\n",
        &[],
    );
    assert_eq!(blocks.len(), 6, "{blocks:?}\n{err}");
    assert_begins(&blocks[0], &["--text", "--alloc_space"], 11);
    assert_begins(&blocks[1], &["--text", "--alloc_space", "--lines"], 11);
    assert_begins(
        &blocks[2],
        &["--text", "--alloc_space", "--focus=index::grow"],
        11,
    );
    assert_begins(
        &blocks[3],
        &["--text", "--alloc_space", "--base=theap.hprof.0001.heap"],
        11,
    );
    assert_begins(&blocks[4], &["--text", "--inuse_objects", "--cum"], 26);
    // hide= drops frames: no std:: line is left; show_bytes prints bytes.
    assert!(!blocks[5].contains("std::"), "{}", blocks[5]);
    assert!(blocks[5].starts_with("Total: "), "{}", blocks[5]);
    assert!(
        blocks[5].lines().next().unwrap().ends_with(" objects"),
        "{}",
        blocks[5]
    );
    assert!(err.contains("Subtracting theap.hprof.0001.heap"), "{err}");
}

#[test]
fn top_honours_its_focus_words_unless_pprof_quirks() {
    common::link_case("t-heap");
    let dir = Path::new("/tmp/rpprof-corpus/t-heap");
    let tfile = std::env::temp_dir().join(format!("rpprof-focus-{}.in", std::process::id()));
    std::fs::write(&tfile, "top20 index::grow -Slab\n").unwrap();
    let args = |quirks: bool| -> Vec<String> {
        let mut a = vec!["--interactive".to_string()];
        if quirks {
            a.push("--pprof_quirks".into());
        }
        a.extend(
            ["--lib_prefix=.", "./theap", "theap.hprof.0003.heap"]
                .iter()
                .map(|s| s.to_string()),
        );
        a
    };
    let (out, err) = rpprof_piped(dir, &args(false), &tfile);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Total: 2.8 MB"), "{out}");
    assert!(
        lines[1].starts_with("After focusing on 'index::grow': 0.3 MB of 2.8 ("),
        "{out}"
    );
    assert!(lines[2].starts_with("After ignoring 'Slab': "), "{out}");
    assert!(err.contains("Ignoring samples in call stacks that match 'Slab'"));
    // The rows are those of --focus and --ignore on the command line.
    let cli = common::rpprof(
        dir,
        &[
            "--text",
            "--focus=index::grow",
            "--ignore=Slab",
            "--lib_prefix=.",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    let cli = String::from_utf8_lossy(&cli.stdout).into_owned();
    let cli_rows: Vec<&str> = cli.lines().skip(1).collect();
    assert!(!cli_rows.is_empty());
    assert_eq!(&lines[3..], &cli_rows[..], "{out}\n{cli}");
    // pprof reads the focus words of top and then ignores them.
    let (quirks, _) = rpprof_piped(dir, &args(true), &tfile);
    assert!(!quirks.contains("After focusing"), "{quirks}");
    assert!(quirks.lines().count() > lines.len(), "{quirks}");
    // A focus that keeps nothing leaves 0.0, not the -0.0 of an empty f64 sum: with and
    // without the shell's own focus option (the sums of two paths).
    std::fs::write(
        &tfile,
        "top nothing_matches_this\nfocus=main\ntop nothing_matches_this\n",
    )
    .unwrap();
    let (none, _) = rpprof_piped(dir, &args(false), &tfile);
    assert_eq!(
        none.matches("After focusing on 'nothing_matches_this': 0.0 MB of 2.8 (0.0%)")
            .count(),
        2,
        "{none}"
    );
    // What the focus= and ignore= options in force took is said in a line of its own, before
    // the command's words: the words' lines alone would seem to take it (ignoring Slab alone
    // leaves 45.1%). A command without words prints no such line.
    std::fs::write(
        &tfile,
        "focus=index::grow\ntop3 -Slab\nignore=Slab\ntop3 grow\ntop3\n",
    )
    .unwrap();
    let (opts, _) = rpprof_piped(dir, &args(false), &tfile);
    let said: Vec<&str> = opts
        .lines()
        .map(|l| l.trim_start_matches("(pprof) "))
        .filter(|l| l.starts_with("After "))
        .collect();
    assert_eq!(
        said,
        [
            "After the option focus=index::grow: 0.3 MB of 2.8 (9.6%)",
            "After ignoring 'Slab': 0.3 MB of 2.8 (9.6%)",
            "After the options focus=index::grow ignore=Slab: 0.3 MB of 2.8 (9.6%)",
            "After focusing on 'grow': 0.3 MB of 2.8 (9.6%)",
        ],
        "{opts}"
    );
    std::fs::write(&tfile, "ignore=Slab\ntop3 -nothing_matches_this\n").unwrap();
    let (ign, _) = rpprof_piped(dir, &args(false), &tfile);
    assert!(
        ign.contains("After the option ignore=Slab: 1.3 MB of 2.8 (45.1%)\n"),
        "{ign}"
    );
}

#[test]
fn beyond_pprof_commands() {
    let dir = std::env::temp_dir().join(format!("rpprof-shell-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let top_file = dir.join("top.txt");
    let collapsed = dir.join("c.txt");
    let flame = dir.join("f.svg");
    let (blocks, err, code) = t_heap_status(
        &format!(
            "top15 >{}\ncollapsed > {}\nflame >{}\npeek index::grow\nsample_idx=alloc_space\n\
             sample_index=contentions\ngranularity=pages\nlines\ntop3\nfunctions\n\
             traces\nhelp peek\nhelp\nfoo\nlist\noptions\n",
            top_file.display(),
            collapsed.display(),
            flame.display()
        ),
        &[],
    );
    // Four commands failed (the three settings and `list` alone), each said; the others ran.
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.ends_with("\nrpprof: 4 shell commands failed (said above)\n"),
        "{err}"
    );
    // >file: the report in the file, nothing on standard output.
    let top = std::fs::read_to_string(&top_file).unwrap();
    assert_begins(&top, &["--text"], 16);
    let c = std::fs::read_to_string(&collapsed).unwrap();
    let cli = common::rpprof(
        Path::new("/tmp/rpprof-corpus/t-heap"),
        &[
            "--pprof_quirks",
            "--collapsed",
            "--lib_prefix=.",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    assert_eq!(c.as_bytes(), &cli.stdout[..]);
    assert!(std::fs::read_to_string(&flame).unwrap().contains("<svg"));
    let out: String = blocks.concat();
    // peek: the callers and callees of index::grow (it calls itself).
    assert!(out.contains("| tdata::index::grow\n"), "{out}");
    assert!(out.contains("|   one_round\n"), "{out}");
    // the lines shortcut and top3: three rows at line granularity.
    let (lines, _) = t_heap(
        "lines
top3
",
        &[],
    );
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].lines().count(), 4, "{}", lines[0]);
    assert_begins(&lines[0], &["--text", "--lines"], 4);
    // traces, after "functions": Go pprof's layout.
    assert!(
        out.contains("-----------+-------------------------------------------------------"),
        "{out}"
    );
    for want in [
        "did you mean sample_index?",
        "sample_index=contentions: this heap profile has inuse_objects (0), inuse_space (1), alloc_objects (2), alloc_space (3)",
        "granularity=pages: say one of functions, lines, files, addresses",
        "peek <regexp>",
        "Unknown command: try 'help'.",
        "list needs a regular expression",
        "sample_index    = inuse_space",
        "granularity     = functions",
        // help names this profile's sample types only.
        "  sample_index=inuse_objects | inuse_space | alloc_objects | alloc_space\n",
    ] {
        assert!(err.contains(want), "{want:?} not in:\n{err}");
    }
    assert!(!err.contains("| contentions"), "{err}");
    // The help fits a terminal of 80 columns.
    let (_, help) = t_heap("help\n", &[]);
    let from = help.find("rpprof's shell:").unwrap();
    for line in help[from..].lines() {
        assert!(line.chars().count() <= 80, "{} columns: {line}", line.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An option's name alone is said to take a value (not suggested as itself, nor as
/// another option it begins like); `help` knows the words that set an option alone and
/// `topN`; `>>` alone is said as `>>`.
#[test]
fn option_names_alone_and_help_of_option_words() {
    let (_, err, _) = t_heap_status(
        "cum\nshow_bytes\nfocus\ngran\nhelp lines\nhelp alloc_space\nhelp topN\ntop3 >>\ntopfoo\nquitnow\nlins\n",
        &[],
    );
    for want in [
        "(cum is an option: set it with cum=true | false)",
        "(show_bytes is an option: set it with show_bytes=true | false)",
        "(focus is an option: set it with focus=<regexp>)",
        "(did you mean granularity?)",
        "lines\n    the same as granularity=lines: ",
        "alloc_space\n    the same as sample_index=alloc_space: ",
        "top [N] [--cum]",
        "rpprof: top: '>>' needs the name of a file to add the report to",
        // A command run into its argument, as pprof reads it; an option word mistyped.
        "(did you mean top foo?)",
        "(did you mean quit?)",
        "(did you mean lines?)",
    ] {
        assert!(err.contains(want), "{want:?} not in:\n{err}");
    }
    assert!(!err.contains("did you mean cum?"), "{err}");
    assert!(!err.contains("did you mean show?"), "{err}");
    assert!(!err.contains("Unknown command: lines"), "{err}");
}

/// A fresh folder for the shell's history (`XDG_STATE_HOME`) of one test.
fn state_dir(test: &str) -> PathBuf {
    let state = std::env::temp_dir().join(format!("rpprof-state-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    state
}

/// The shell on testdata's t-heap program and third dump.
const T_HEAP_SHELL: [&str; 3] = ["--lib_prefix=.", "./theap", "theap.hprof.0003.heap"];

/// rpprof with `args` in `dir`, on the terminal `pty` (standard input and error; standard
/// output too unless `stdout` says otherwise), its history in `state`.
fn on_terminal(
    pty: &Pty,
    dir: &Path,
    args: &[&str],
    state: &Path,
    stdout: Option<Stdio>,
) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rpprof"));
    cmd.args(args)
        .current_dir(dir)
        .env("XDG_STATE_HOME", state)
        .env("TERM", "xterm")
        .stdin(pty.stdio())
        .stdout(stdout.unwrap_or_else(|| pty.stdio()))
        .stderr(pty.stdio());
    pty.spawn(&mut cmd)
}

/// The line editor on a real terminal: typing, completion of a command and of a function
/// name, history recall (also in a second session, from the history file), reverse search.
#[test]
fn terminal_editing_history_and_completion() {
    let dir = common::link_case("t-heap");
    let state = state_dir("editing");
    let session = |keys: &[&[u8]], waits: &[&str]| -> String {
        let pty = Pty::open(false);
        let screen = pty.reader();
        let mut child = on_terminal(&pty, &dir, &T_HEAP_SHELL, &state, None);
        let mut at = screen.wait_for(0, "(pprof) ");
        for (k, w) in keys.iter().zip(waits) {
            pty.type_keys(k);
            at = screen.wait_for(at, w);
            if k.ends_with(b"\r") {
                // The next prompt: keys typed before the editor takes the terminal again
                // may be flushed when it does (a lost ^D left the session waiting).
                at = screen.wait_for(at, "(pprof) ");
            }
        }
        pty.type_keys(b"\x04");
        let status = child.wait().unwrap();
        assert!(status.success(), "{}", screen.text());
        screen.text()
    };
    let text = session(
        &[
            b"top3\r",
            b"lis\t",
            b"tdata::index::g\t",
            b"\r",
            b"\x1b[A",
            b"\x15",
            b"\x12top",
            b"\r",
        ],
        &[
            "Total: 2.8 MB",
            "list",
            "tdata::index::grow",
            "ROUTINE ======================",
            "list tdata::index::grow",
            "\x1b[K",
            "top3",
            "Total: 2.8 MB",
        ],
    );
    assert!(
        text.contains("ROUTINE ====================== tdata::index::grow"),
        "{text}"
    );
    // ^D ends the prompt's line once: no blank line after it.
    assert!(!text.ends_with("\r\n\r\n"), "{text:?}");
    let history = std::fs::read_to_string(state.join("rpprof").join("history")).unwrap();
    assert!(history.contains("top3"), "{history}");
    assert!(history.contains("list tdata::index::grow"), "{history}");
    // A second session recalls the first one's lines, the newest first.
    let text = session(
        &[b"\x1b[A", b"\x1b[A", b"\r"],
        &["top3", "list tdata::index::grow", "ROUTINE"],
    );
    assert!(
        text.contains("ROUTINE ====================== tdata::index::grow"),
        "{text}"
    );
    // A history that cannot be read is put aside, said, and a new one kept.
    let file = state.join("rpprof").join("history");
    std::fs::write(&file, b"top3\n\xff\xfe\n").unwrap();
    let text = session(&[b"top1\r"], &["Total: 2.8 MB"]);
    assert!(
        text.contains(&format!(
            "history not read (stream did not contain valid UTF-8); kept as {}.bad, a new one is started",
            file.display()
        )),
        "{text}"
    );
    assert_eq!(
        std::fs::read(state.join("rpprof").join("history.bad")).unwrap(),
        b"top3\n\xff\xfe\n"
    );
    let history = std::fs::read_to_string(&file).unwrap();
    assert!(history.contains("top1"), "{history}");
    // A second one is put aside under a name not taken: the first stays.
    std::fs::write(&file, b"\xfftop9\n").unwrap();
    let text = session(&[b"top1\r"], &["Total: 2.8 MB"]);
    assert!(
        text.contains("history.bad.1, a new one is started"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(state.join("rpprof").join("history.bad")).unwrap(),
        b"top3\n\xff\xfe\n"
    );
    let _ = std::fs::remove_dir_all(&state);
    let _ = std::io::stderr().flush();
}

/// Lines that reach the terminal in one piece all run, each in its turn: typed ahead (or
/// pasted by a terminal without bracketed paste) and pasted in brackets (which the editor
/// takes as one line); a line that is not UTF-8 text is dropped with a word and the shell
/// goes on.
#[test]
fn lines_typed_ahead_or_pasted_all_run() {
    let dir = common::link_case("t-heap");
    let state = state_dir("paste");
    let pty = Pty::open(false);
    let screen = pty.reader();
    let mut child = on_terminal(&pty, &dir, &T_HEAP_SHELL, &state, None);
    let at = screen.wait_for(0, "(pprof) ");
    // Three lines at once: the third report's third row is make_record's.
    pty.type_keys(b"top1\rtop2\rtop3\r");
    let at = screen.wait_for(at, "tdata::store::make_record");
    let at = screen.wait_for(at, "(pprof) ");
    // A bracketed paste of two lines, then Enter.
    pty.type_keys(b"\x1b[200~top2\ntop1\n\x1b[201~");
    pty.type_keys(b"\r");
    let at = screen.wait_for(at, "tdata::store::copy_bytes");
    let at = screen.wait_for(at, "(pprof) top1");
    let at = screen.wait_for(at, "Total: 2.8 MB");
    let at = screen.wait_for(at, "(pprof) ");
    // A byte that is not UTF-8, then a command.
    pty.type_keys(b"\xff\r");
    let at = screen.wait_for(at, "not UTF-8 text");
    let at = screen.wait_for(at, "(pprof) ");
    pty.type_keys(b"top1\r");
    let at = screen.wait_for(at, "Total: 2.8 MB");
    screen.wait_for(at, "(pprof) ");
    pty.type_keys(b"\x04");
    let status = child.wait().unwrap();
    assert!(status.success(), "{}", screen.text());
    let text = screen.text();
    assert_eq!(text.matches("Total: 2.8 MB").count(), 6, "{text}");
    let history = std::fs::read_to_string(state.join("rpprof").join("history")).unwrap();
    let lines: Vec<&str> = history.lines().filter(|l| l.starts_with("top")).collect();
    // (A line the same as the one before it is kept once.)
    assert_eq!(lines, ["top1", "top2", "top3", "top2", "top1"], "{history}");
    let _ = std::fs::remove_dir_all(&state);
}

/// Ctrl-C while a command prints stops that command, not the shell: the profiles stay
/// loaded and the next command runs. (Reports go to a pipe the test reads only in part, so
/// that the command is still writing when the key comes.)
#[test]
fn ctrl_c_stops_the_command_not_the_shell() {
    use std::io::Read;
    let dir = common::root().join("testdata").join("t-cpu");
    let state = state_dir("interrupt");
    let pty = Pty::open(false);
    let screen = pty.reader();
    let mut child = on_terminal(
        &pty,
        &dir,
        &[
            "--interactive",
            "--lib_prefix=.",
            "./tcpu-pie",
            "tcpu-pie.prof",
        ],
        &state,
        Some(Stdio::piped()),
    );
    let mut out = child.stdout.take().unwrap();
    let at = screen.wait_for(0, "(pprof) ");
    // `traces` prints about 90 KB: more than a pipe holds.
    pty.type_keys(b"traces\r");
    let mut first = [0u8; 1000];
    out.read_exact(&mut first).unwrap();
    // The command is writing (the editor has given the terminal back): the key is a signal.
    pty.type_keys(b"\x03");
    let at = screen.wait_for(at, "rpprof: interrupted (Ctrl-C)");
    let at = screen.wait_for(at, "(pprof) ");
    // What the pipe still holds, then what comes next.
    let reader = std::thread::spawn(move || {
        let mut rest = Vec::new();
        out.read_to_end(&mut rest).unwrap();
        rest
    });
    pty.type_keys(b"top3\r");
    let at = screen.wait_for(at, "(pprof) ");
    pty.type_keys(b"quit\r");
    let rest = reader.join().unwrap();
    let status = child.wait().unwrap();
    screen.wait_for(at, "");
    assert!(status.success(), "{}", screen.text());
    let rest = String::from_utf8_lossy(&rest);
    // The traces were cut short; top3 printed whole after them.
    let (traces, top) = rest.split_once("Total: ").unwrap();
    let full = common::rpprof(
        &dir,
        &["--traces", "--lib_prefix=.", "./tcpu-pie", "tcpu-pie.prof"],
    )
    .stdout;
    assert!(full.len() > 80_000, "{}", full.len());
    assert!(
        first.len() + traces.len() < full.len(),
        "{} of {}",
        first.len() + traces.len(),
        full.len()
    );
    assert_eq!(top.lines().count(), 4, "{top}");
    let _ = std::fs::remove_dir_all(&state);
}

/// The graph commands print the report's lines (`Total:`, the focus line) before the viewer
/// starts, and keep them when it cannot start; `gv` runs in the background, as pprof runs it:
/// the next command does not wait for it to be closed.
#[test]
fn viewers_come_after_the_lines_and_gv_does_not_hold_the_shell() {
    if !common::have("dot") {
        common::skip(
            "viewers_come_after_the_lines_and_gv_does_not_hold_the_shell",
            "Graphviz (dot) is not installed",
        );
        return;
    }
    common::link_case("t-heap");
    let dir = std::env::temp_dir().join(format!("rpprof-viewers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A gv that says who it is and stays open.
    let pid_file = dir.join("gv.pid");
    let gv = bin.join("gv");
    std::fs::write(
        &gv,
        format!(
            "#!/bin/sh\nPATH=/usr/bin:/bin\necho $$ > {}.tmp\nmv {0}.tmp {0}\nexec sleep 60\n",
            pid_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&gv, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let dot = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v dot"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::os::unix::fs::symlink(dot.trim(), bin.join("dot")).unwrap();
    // The shell on t-heap, `transcript` its input, with only `path`'s programs.
    let shell = |transcript: &str, path: &Path| {
        let input = dir.join("in.txt");
        std::fs::write(&input, transcript).unwrap();
        let mut c = Command::new(env!("CARGO_BIN_EXE_rpprof"));
        c.args([
            "--interactive",
            "--lib_prefix=.",
            "./theap",
            "theap.hprof.0003.heap",
        ])
        .current_dir("/tmp/rpprof-corpus/t-heap")
        .env("PATH", path)
        .env("BROWSER", "true")
        .env("TMPDIR", &dir)
        .stdin(std::fs::File::open(&input).unwrap());
        c
    };
    let run = |transcript: &str, path: &Path| {
        let (out, err) = (dir.join("out.txt"), dir.join("err.txt"));
        // Files, not pipes: a viewer left running would hold a pipe open.
        let status = shell(transcript, path)
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .status()
            .unwrap();
        (
            std::fs::read_to_string(&out).unwrap(),
            std::fs::read_to_string(&err).unwrap(),
            status.code(),
        )
    };
    let focused = "Total: 2.8 MB\nAfter focusing on 'tdata': 2.8 MB of 2.8 (98.7%)\n";
    let (out, err, code) = run("gv tdata\ntop1\n", &bin);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with(focused), "{out}");
    assert!(out.contains("std::vector::push_back (inline)\n"), "{out}");
    // The shell is gone; the viewer it started is not.
    let mut pid = None;
    for _ in 0..200 {
        if let Ok(p) = std::fs::read_to_string(&pid_file) {
            pid = Some(p.trim().to_string());
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = pid.unwrap_or_else(|| panic!("gv never started: {err}"));
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "the shell waited for gv to be closed"
    );
    // The shell took its graph's file with it (as pprof removes its temporary files).
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ps"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = Command::new("kill").arg(&pid).status();
    // No viewer (evince), no Graphviz (web): the lines, then why.
    for (cmd, path, says) in [
        (
            "evince tdata",
            bin.as_path(),
            "cannot run evince: not found",
        ),
        ("web tdata", dir.as_path(), "cannot run dot"),
    ] {
        // (The command failed: the exit status says so at the end.)
        let (out, err, code) = run(&format!("{cmd}\n"), path);
        assert_eq!(code, Some(1), "{err}");
        assert_eq!(out, focused, "{cmd}: {err}");
        assert!(err.contains(says), "{cmd}: {err}");
    }
    // A gv that cannot open a display fails at once: its message and the graph's place come
    // before the next command's report (standard output and error into one file, in order).
    let failing = dir.join("failing");
    std::fs::create_dir_all(&failing).unwrap();
    let gv = failing.join("gv");
    std::fs::write(
        &gv,
        "#!/bin/sh\necho 'gv: Unable to open the display.' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&gv, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(dot.trim(), failing.join("dot")).unwrap();
    let both = dir.join("both.txt");
    let file = std::fs::File::create(&both).unwrap();
    let status = shell("gv tdata\ntop1\n", &failing)
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap();
    let text = std::fs::read_to_string(&both).unwrap();
    // (A viewer that failed is a failed command, as one that is not installed is.)
    assert_eq!(status.code(), Some(1), "{text}");
    let at = |what: &str| text.find(what).unwrap_or_else(|| panic!("{what}: {text}"));
    let top = text.rfind("Total: 2.8 MB\n").unwrap();
    assert!(at("gv: Unable to open the display.") < top, "{text}");
    let said = at("rpprof: gv failed; the graph is in ");
    assert!(said < top, "{text}");
    // The graph is kept where the message says.
    let kept = text[said..].lines().next().unwrap();
    let kept = kept.trim_start_matches("rpprof: gv failed; the graph is in ");
    assert!(Path::new(kept).exists(), "{text}");
    // A mistyped command, an unknown help topic and a bad expression each fail (a script's
    // run ends with status 1); the expression's error names the option as typed here.
    let (out, err, code) = run(
        "# a script's comment\nbogus\nhelp bogus\nhide=(\ntpo5\ntop -[\ntop1\n",
        &bin,
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("(did you mean top5?)"), "{err}");
    // (A bad ignore word is said alone, not after a line that takes it.)
    assert!(
        err.contains("rpprof: ignore: bad regular expression \"[\""),
        "{err}"
    );
    assert!(!err.contains("match '['"), "{err}");
    assert!(out.contains("std::vector::push_back (inline)\n"), "{out}");
    assert!(err.contains("Unknown command: try 'help'."), "{err}");
    assert!(err.contains("Unknown command: bogus"), "{err}");
    assert!(
        err.contains("rpprof: hide: bad regular expression"),
        "{err}"
    );
    assert!(
        err.contains("rpprof: 5 shell commands failed (said above)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The focus and ignore lines quote the words as typed, not the regular expression they were
/// read as (`{` is a literal brace there, `\{` to the regex crate), as pprof quotes them; an
/// error names the command, not a flag of the command line.
#[test]
fn after_lines_quote_the_words_as_typed() {
    let (blocks, err, code) = t_heap_status("top1 -x{1,\ntop1 -{\nlist (\ntop1\n", &[]);
    // A bad expression is named by the command it was typed in, not by a flag.
    assert!(
        err.contains("rpprof: list: bad regular expression \"(\": unclosed group\n"),
        "{err}"
    );
    // The shell goes on (`top1` after it printed), and commands from a pipe with one that
    // failed end with exit status 1 (pprof dies at it, with Perl's status).
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.ends_with("\nrpprof: a shell command failed (said above)\n"),
        "{err}"
    );
    let out = blocks.concat();
    assert!(
        out.contains("\nAfter ignoring 'x{1,': 2.8 MB of 2.8 (100.0%)\n"),
        "{out}"
    );
    assert!(out.contains("\nAfter ignoring '{': "), "{out}");
}

/// A `>` with no file name after it is an error, not a report on standard output.
#[test]
fn a_redirection_without_a_file_is_an_error() {
    let (blocks, err, code) = t_heap_status("top >\ntop1\ntraces >\n", &[]);
    assert!(
        err.contains("rpprof: top: '>' needs the name of a file to write the report to\n"),
        "{err}"
    );
    // (Named by the word typed: "report", it said.)
    assert!(
        err.contains("rpprof: traces: '>' needs the name of a file to write the report to\n"),
        "{err}"
    );
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert_eq!(code, Some(1), "{err}");
}

/// `>>file` adds the report at the end of the file, `callgrind` takes `>file` as the other
/// reports do (and a file name alone, as pprof's), `help` knows the names commands also go
/// by, and a listing's warning names the command typed and the words that emptied it.
#[test]
fn append_callgrind_file_help_names_and_listing_warnings() {
    let dir = std::env::temp_dir().join(format!("rpprof-shell-append-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let top = dir.join("top.txt");
    let grind = dir.join("c.callgrind");
    let _ = std::fs::remove_file(&top);
    let _ = std::fs::remove_file(&grind);
    let (_, err, code) = t_heap_status(
        &format!(
            "top3 >{t}\ntop2 >>{t}\ntop1 >> {t}\ncallgrind >{g}\nhelp exit\nhelp o\nhelp top5\n\
             list .* -.*\npeek grow nosuchcaller\nhelp 5\n",
            t = top.display(),
            g = grind.display()
        ),
        &[],
    );
    // The peek that found nothing failed (an unknown help topic is no failure with
    // --pprof_quirks, as in pprof).
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.ends_with("\nrpprof: a shell command failed (said above)\n"),
        "{err}"
    );
    assert!(err.contains(") Unknown command: 5\n"), "{err}");
    // The three tables one after the other.
    let text = std::fs::read_to_string(&top).unwrap();
    assert_eq!(text.matches("Total:").count(), 3, "{text}");
    assert_eq!(text.lines().count(), 3 + 2 + 1 + 3, "{text}");
    let first: String = text.split_inclusive('\n').take(4).collect();
    assert_begins(&first, &["--text"], 4);
    // callgrind: the file, not one named '>...'.
    assert!(
        err.contains(&format!("Writing callgrind file to '{}'.", grind.display())),
        "{err}"
    );
    assert!(
        std::fs::read_to_string(&grind)
            .unwrap()
            .starts_with("events:")
    );
    // help: exit is quit's, o options', top5 top's.
    assert!(err.contains(") quit\n    leave the shell"), "{err}");
    assert!(
        err.contains(") options\n    the options and their values"),
        "{err}"
    );
    assert!(err.contains(") top [N] [--cum]"), "{err}");
    // The listing: the shell's command and its words, not the command line's option.
    assert!(
        err.contains("Warning: list: no routine of ./theap or of its libraries with samples matches \".*\" in the stacks left by the ignore \".*\"; routines go by their symbols' names"),
        "{err}"
    );
    assert!(!err.contains("--list"), "{err}");
    assert!(
        err.contains("rpprof: no function matches \"grow\" in the stacks left by the focus \"nosuchcaller\"\n"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `weblist` with `>file` writes its page there, as the other reports do, and opens no
/// browser.
#[test]
fn weblist_writes_its_page_to_a_file() {
    let page = std::env::temp_dir().join(format!("rpprof-weblist-{}.html", std::process::id()));
    let _ = std::fs::remove_file(&page);
    let (_, err, code) = t_heap_status(&format!("weblist index::grow >{}\n", page.display()), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("Generating report in {}\n", page.display())),
        "{err}"
    );
    assert!(!err.contains("Loading web page"), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("tdata::index::grow"), "{html}");
    // The lines that say what a focus= option and the command's words took go to the
    // terminal, however many there are; the page holds the listing only.
    let (_, err, code) = t_heap_status(
        &format!(
            "focus=index::grow\nweblist grow -Slab >{}\n",
            page.display()
        ),
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(!html.contains("After "), "{html}");
    assert!(html.contains("tdata::index::grow"), "{html}");
    // A viewer's graph goes to no file: said, rather than a file of its Total line.
    let (_, err, code) = t_heap_status(&format!("web >{}\n", page.display()), &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "rpprof: web: a viewer's graph is not written to a file (>{}): svg, pdf or ps write it there\n",
            page.display()
        )),
        "{err}"
    );
    assert!(!page.exists());
}

/// A page given to a browser stays while the browser may still be reading it, and no longer,
/// as with pprof: the shell's (`weblist`, `web`) until the shell ends, the command line's
/// (`--web`) a few seconds after rpprof has exited.
#[test]
fn pages_for_the_browser_are_removed_once_shown() {
    common::link_case("t-heap");
    let dir = std::env::temp_dir().join(format!("rpprof-pages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (tmp, seen) = (dir.join("tmp"), dir.join("seen"));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&seen).unwrap();
    // A browser that keeps a copy of what it was given, and returns at once.
    let browser = dir.join("browser");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\ncp \"$1\" {}/\n", seen.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let names = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let run = |args: &[&str], input: &str| {
        let in_file = dir.join("in.txt");
        std::fs::write(&in_file, input).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_rpprof"))
            .args(args)
            .args(["--lib_prefix=.", "./theap", "theap.hprof.0003.heap"])
            .current_dir("/tmp/rpprof-corpus/t-heap")
            .env("BROWSER", &browser)
            .env("TMPDIR", &tmp)
            .stdin(std::fs::File::open(&in_file).unwrap())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The shell: the browser had the listing; the shell took it with it.
    let err = run(&["--interactive"], "weblist one_round\nquit\n");
    assert!(err.contains("Loading web page file://"), "{err}");
    assert_eq!(names(&seen).len(), 1, "{err}");
    assert!(names(&seen)[0].ends_with(".html"), "{:?}", names(&seen));
    // The listing, its lines opening to their instructions when objdump can give them.
    let page = std::fs::read_to_string(seen.join(&names(&seen)[0])).unwrap();
    assert!(page.contains("<div class=\"head\">ROUTINE ====="), "{page}");
    assert!(!page.contains("Total:"), "{page}");
    if common::have("objdump") {
        assert!(page.contains("<details class=\"src\"><summary>"), "{page}");
        assert!(page.contains("<div class=\"insn\">"), "{page}");
    }
    assert_eq!(names(&tmp), Vec::<String>::new(), "{err}");
    if !common::have("dot") {
        common::skip(
            "pages_for_the_browser_are_removed_once_shown (--web)",
            "Graphviz (dot) is not installed",
        );
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    // The command line: rpprof is gone and the page is still there for the browser, then not.
    let err = run(&["--web"], "");
    assert_eq!(names(&seen).len(), 2, "{err}");
    let left = names(&tmp);
    assert!(
        left.len() == 1 && left[0].ends_with(".svg"),
        "{left:?}: {err}"
    );
    let mut gone = false;
    for _ in 0..300 {
        if names(&tmp).is_empty() {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(gone, "{:?} still in {}", names(&tmp), tmp.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report of allocation totals from dumps that record none (jemalloc's without
/// prof_accum) says why it is empty in the shell too, each time, as the command line does.
#[test]
fn alloc_values_of_dumps_without_totals_say_why() {
    let dir = common::link_case("t-jemalloc");
    let tfile = std::env::temp_dir().join(format!("rpprof-alloc-{}.in", std::process::id()));
    std::fs::write(
        &tfile,
        "alloc_space\ntop3\nsample_index=inuse_space\ntop3\n",
    )
    .unwrap();
    let args: Vec<String> = ["--interactive", "--lib_prefix=.", "./tje", "tje.0003.heap"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (out, err) = rpprof_piped(&dir, &args, &tfile);
    let _ = std::fs::remove_file(&tfile);
    assert_eq!(
        err.matches("Warning: the profile records no allocation totals: the bracketed counts of every record are 0 (jemalloc writes them only with prof_accum:true); alloc_space reports nothing\n")
            .count(),
        1,
        "{err}"
    );
    assert!(out.contains("Total: 0.0 MB\n"), "{out}");
    assert!(out.contains("Total: 2.0 MB\n"), "{out}");
}
