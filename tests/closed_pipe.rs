//! A reader of standard output that goes away (`rpprof ... | head`) ends the run quietly, in
//! every mode: exit status 0, no panic, no "Broken pipe" message (README: "Exit status").
//!
//! Each mode runs twice on profiles of the test data: with the pipe closed before rpprof
//! writes anything, and with the reader taking one byte and then closing it (what `head -c1`
//! does; the write that fails is then a later one).

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

/// How the reader treats the pipe.
#[derive(Clone, Copy, Debug)]
enum Reader {
    /// Closes its end before rpprof starts writing.
    ClosedAtOnce,
    /// Reads one byte, then closes its end.
    OneByte,
}

/// Runs rpprof in `dir` with `args` (and `input` on standard input) under `reader`; asserts a
/// quiet end with exit status 0.
fn run(dir: &Path, args: &[&str], input: Option<&str>, reader: Reader) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rpprof");
    // Standard input first (and closed): rpprof reads all of it before writing.
    if let Some(text) = input {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(text.as_bytes());
    }
    let mut stdout = child.stdout.take().expect("stdout");
    match reader {
        Reader::ClosedAtOnce => drop(stdout),
        Reader::OneByte => {
            let mut one = [0u8; 1];
            let _ = stdout.read(&mut one);
            drop(stdout);
        }
    }
    let out = child.wait_with_output().expect("wait for rpprof");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!("{args:?} ({reader:?})");
    assert_eq!(out.status.code(), Some(0), "{what}: stderr:\n{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.to_lowercase().contains("broken pipe"),
        "{what}: stderr:\n{stderr}"
    );
}

fn both(dir: &Path, args: &[&str]) {
    for reader in [Reader::ClosedAtOnce, Reader::OneByte] {
        run(dir, args, None, reader);
    }
}

#[test]
fn report_modes() {
    let heap = common::root().join("testdata/t-heap");
    let profile = ["--lib_prefix=.", "theap", "theap.hprof.0003.heap"];
    let modes: &[&[&str]] = &[
        &["--text"],
        &["--text", "--stacks"],
        &["--text", "--lines"],
        &["--collapsed"],
        &["--raw"],
        &["--traces"],
        &["--flame"],
        &["--proto"],
        &["--callgrind"],
        &["--dot"],
        &["--list=main"],
        &["--base=theap.hprof.0001.heap", "--text"],
        &["--base=theap.hprof.0001.heap", "--flame"],
    ];
    for m in modes {
        let mut args: Vec<&str> = m.to_vec();
        args.extend(profile);
        both(&heap, &args);
    }
    // A CPU profile, and a jemalloc profile (jeprof's rules, --thread).
    let cpu = common::root().join("testdata/t-cpu");
    both(
        &cpu,
        &["--text", "--lib_prefix=.", "tcpu-pie", "tcpu-pie.prof"],
    );
    let je = common::root().join("testdata/t-jemalloc");
    both(
        &je,
        &[
            "--text",
            "--thread=*",
            "--lib_prefix=.",
            "tje",
            "tje.0003.heap",
        ],
    );
}

#[test]
fn graphviz_modes() {
    if !common::have("dot") {
        return common::skip("graphviz_modes", "graphviz (dot) is not installed");
    }
    let heap = common::root().join("testdata/t-heap");
    for mode in ["--svg", "--ps", "--gif", "--pdf"] {
        both(
            &heap,
            &[mode, "--lib_prefix=.", "theap", "theap.hprof.0003.heap"],
        );
    }
}

#[test]
fn disasm_mode() {
    if !common::have("objdump") {
        return common::skip("disasm_mode", "objdump (binutils) is not installed");
    }
    let heap = common::root().join("testdata/t-heap");
    both(
        &heap,
        &[
            "--disasm=main",
            "--lib_prefix=.",
            "theap",
            "theap.hprof.0003.heap",
        ],
    );
}

#[test]
fn symbols_mode() {
    let heap = common::root().join("testdata/t-heap");
    let maps = std::fs::read_to_string(heap.join("theap.hprof.0003.heap")).unwrap();
    let maps = maps
        .split("MAPPED_LIBRARIES:\n")
        .nth(1)
        .expect("a memory map");
    let input = format!("0x1000\n0x2000\n{maps}");
    for reader in [Reader::ClosedAtOnce, Reader::OneByte] {
        run(&heap, &["--symbols", "theap"], Some(&input), reader);
    }
}

#[test]
fn completions_help_and_version() {
    let dir = common::root();
    // clap_complete used to panic on the failed write ("failed to write completion file").
    for shell in ["bash", "zsh", "fish"] {
        both(&dir, &["--completions", shell]);
    }
    both(&dir, &["--help"]);
    both(&dir, &["--version"]);
}
