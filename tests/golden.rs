//! Every `--text` command recorded in `testdata/*/refs/INDEX.tsv` — google-pprof 2.10 and
//! jeprof 5.3.0 run on profiles of the project's own programs — gives byte-identical output
//! when rpprof runs it: with `--pprof_quirks` in every case, and without it in the cases where
//! google-pprof's answers involve none of its documented mistakes.
//!
//! The references name functions of the system libraries (libc, libstdc++, tcmalloc, ...) the
//! programs ran with; on a machine whose libraries differ (`testdata/system-libs.sha256`) the
//! test says so and is skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Cases whose references contain no inlined function without a linkage name and no
/// `--stacks` of a heap profile: rpprof's default output equals google-pprof's there, but
/// for the addresses google-pprof named after a symbol that does not hold them.
const DEFAULT_EQUAL: &[&str] = &["t-contention", "t-cpu", "t-jemalloc", "t-stripped"];

struct Row {
    case: String,
    name: String,
    args: Vec<String>,
    reference: PathBuf,
}

fn text_rows() -> Vec<Row> {
    rows(|a| a == "--text")
}

/// The recorded rows with an argument for which `pick` is true.
fn rows(pick: impl Fn(&str) -> bool) -> Vec<Row> {
    let testdata = common::root().join("testdata");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&testdata)
        .expect("testdata/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("refs").join("INDEX.tsv").is_file())
        .collect();
    cases.sort();
    let mut rows = Vec::new();
    for dir in cases {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        for r in common::ref_index(&dir) {
            let tool = r.command.first().map(String::as_str).unwrap_or("");
            if r.exit != 0
                || !(tool.ends_with("/google-pprof") || tool.ends_with("/jeprof"))
                || !r.command.iter().any(|a| pick(a))
            {
                continue;
            }
            let out = dir.join("refs").join(&r.profile).join(&r.output);
            rows.push(Row {
                case: case.clone(),
                name: format!("{case}/{}/{}", r.profile, r.output),
                args: r.command[1..].to_vec(),
                reference: out,
            });
        }
    }
    rows
}

/// The reference's bytes (`.out`, or `.out.xz` through `xz -dc`), or `None` when there is no
/// way to read it here.
fn reference(base: &Path) -> Option<Vec<u8>> {
    let plain = PathBuf::from(format!("{}.out", base.display()));
    if let Ok(b) = std::fs::read(&plain) {
        return Some(b);
    }
    let xz = PathBuf::from(format!("{}.xz", plain.display()));
    if !xz.is_file() || !common::have("xz") {
        return None;
    }
    let out = Command::new("xz").arg("-dc").arg(&xz).output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// `--stacks` listings are compared as sets of blocks: google-pprof prints them in Perl's
/// hash order, rpprof in a fixed one.
fn normalise(out: &[u8], stacks: bool) -> Vec<u8> {
    if !stacks {
        return out.to_vec();
    }
    let text = String::from_utf8_lossy(out);
    let mut blocks: Vec<&str> = text.split("\n\n").collect();
    if blocks.len() > 1 {
        blocks[1..].sort_unstable();
    }
    blocks.join("\n\n").into_bytes()
}

/// Runs every row (in parallel) and returns the names of those that differ, with the first
/// differing line.
fn replay(rows: &[Row], extra: &[&str]) -> (usize, Vec<String>) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = rows.len().div_ceil(threads).max(1);
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = rows
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut compared = 0;
                    let mut failures = Vec::new();
                    for row in part {
                        let Some(want) = reference(&row.reference) else {
                            continue;
                        };
                        compared += 1;
                        let dir = common::root().join("testdata").join(&row.case);
                        let mut args: Vec<&str> = extra.to_vec();
                        args.extend(row.args.iter().map(String::as_str));
                        let out = common::rpprof(&dir, &args);
                        let stacks = row.args.iter().any(|a| a == "--stacks");
                        if !out.status.success()
                            || normalise(&out.stdout, stacks) != normalise(&want, stacks)
                        {
                            failures.push(format!(
                                "{} (exit {:?}): {}\n  stderr: {}",
                                row.name,
                                out.status.code(),
                                common::first_difference(
                                    &String::from_utf8_lossy(&want),
                                    &String::from_utf8_lossy(&out.stdout)
                                ),
                                String::from_utf8_lossy(&out.stderr).trim()
                            ));
                        }
                    }
                    (compared, failures)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("replay thread"))
            .collect()
    });
    let compared = results.iter().map(|r| r.0).sum();
    let failures = results.into_iter().flat_map(|r| r.1).collect();
    (compared, failures)
}

#[test]
fn text_rows_equal_google_pprof_with_pprof_quirks() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("text_rows_equal_google_pprof_with_pprof_quirks", &why);
    }
    let rows = text_rows();
    // (t-split's .dwo files are found under its units' build directory.)
    link_cases(&rows);
    let (compared, failures) = replay(&rows, &["--pprof_quirks"]);
    eprintln!("{compared} of {} recorded --text rows compared", rows.len());
    assert!(compared >= 250, "only {compared} rows compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// True for a name rpprof gives an address that no symbol holds: `libfoo.so+0x1a2b`.
fn outside_name(name: &str) -> bool {
    name.rsplit_once("+0x").is_some_and(|(file, hex)| {
        !file.is_empty()
            && !file.contains(' ')
            && !hex.is_empty()
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// `--text` rows: (values without the running sum%, name); other lines whole.
fn text_table(out: &str) -> Vec<(String, String)> {
    out.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() > 5 && f[1].ends_with('%') && f[2].ends_with('%') {
                (
                    format!("{} {} {} {}", f[0], f[1], f[3], f[4]),
                    f[5..].join(" "),
                )
            } else {
                (l.to_string(), String::new())
            }
        })
        .collect()
}

/// True when `got` is `want` but for rows renamed to `<file>+0x<address>` (in another order
/// among equal values, since ties are sorted by name).
fn only_renamed(want: &str, got: &str) -> bool {
    let (w, g) = (text_table(want), text_table(got));
    let mut wv: Vec<&String> = w.iter().map(|r| &r.0).collect();
    let mut gv: Vec<&String> = g.iter().map(|r| &r.0).collect();
    wv.sort();
    gv.sort();
    if w.len() != g.len() {
        return false;
    }
    let renamed = |r: &(String, String)| {
        r.0.split_whitespace()
            .chain(r.1.split_whitespace())
            .any(outside_name)
    };
    // Table rows: the same values; names the same or renamed.
    let table_ok = {
        let wt: Vec<&String> = wv.iter().copied().filter(|v| !v.contains('(')).collect();
        let gt: Vec<&String> = gv.iter().copied().filter(|v| !v.contains('(')).collect();
        wt.len() == gt.len()
    };
    let mut rest: Vec<&(String, String)> = w.iter().collect();
    let mut new = 0;
    for r in &g {
        match rest.iter().position(|x| *x == r) {
            Some(i) => {
                rest.swap_remove(i);
            }
            None if renamed(r) => new += 1,
            None => {
                // A row whose values are the same and whose name changed only in a part
                // that is an address in a file.
                match rest.iter().position(|x| x.0 == r.0 && renamed(r)) {
                    Some(i) => {
                        rest.swap_remove(i);
                    }
                    None => return false,
                }
            }
        }
    }
    table_ok && rest.len() == new
}

/// True when `got` is `want` but for the frames of the functions that inlined code of a
/// stripped library was in: google-pprof asks addr2line for inlined frames only in a file
/// whose own symbols have `_fini`, which a stripped library's `.dynsym` has not, so it names
/// such code after the innermost function alone even where the library's debug file (libc's
/// and libm's, `libc6-dbg`) names the others (README, "Differences from pprof"). Every
/// function of google-pprof's keeps its row and its flat value (its name may gain
/// ` (inline)`), no cumulative value falls (with no negative value: a frame added to a
/// stack only adds to the functions', and base rows are let change), and only rows of flat
/// 0 are added; other lines are the same; the blocks of `--stacks` have the same values
/// and addresses (the function an address's line names is then its outermost one).
fn only_inlined_callers_added(want: &str, got: &str) -> bool {
    use std::collections::BTreeMap;
    // A stack's line: `1        (00007f...) file:line:function` or `         (...) ...`,
    // as its value and address.
    fn stack_line(l: &str) -> Option<String> {
        let (head, rest) = l.split_once('(')?;
        let (addr, _) = rest.split_once(')')?;
        let head_ok = head
            .trim()
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-');
        (head_ok && !addr.is_empty() && addr.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| format!("{} ({addr})", head.trim()))
    }
    /// A table's rows by name: (flat, cumulative, rows).
    type Table = BTreeMap<String, (f64, f64, usize)>;
    /// The stacks' blocks (sorted), the tables, the other lines.
    fn parts(out: &str) -> (Vec<Vec<String>>, Vec<Table>, Vec<String>) {
        let mut blocks: Vec<Vec<String>> = vec![Vec::new()];
        let mut tables: Vec<Table> = vec![BTreeMap::new()];
        let mut other = Vec::new();
        for l in out.lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if let Some(s) = stack_line(l) {
                if let Some(b) = blocks.last_mut() {
                    b.push(s);
                }
            } else if f.len() > 5 && f[1].ends_with('%') && f[2].ends_with('%') {
                let name = f[5..].join(" ").replace(" (inline)", "");
                if let Some(t) = tables.last_mut() {
                    let e = t.entry(name).or_insert((0.0, 0.0, 0));
                    e.0 += f[0].parse::<f64>().unwrap_or(f64::NAN);
                    e.1 += f[3].parse::<f64>().unwrap_or(f64::NAN);
                    e.2 += 1;
                }
            } else if l.is_empty() {
                blocks.push(Vec::new());
            } else {
                other.push(l.to_string());
                tables.push(BTreeMap::new());
            }
        }
        blocks.retain(|b| !b.is_empty());
        blocks.sort();
        (blocks, tables, other)
    }
    let ((wb, wt, wo), (gb, gt, go)) = (parts(want), parts(got));
    if wb != gb || wo != go || wt.len() != gt.len() {
        return false;
    }
    // (Values printed to a tenth, summed over the rows of one name.)
    let close = |a: f64, b: f64, rows: usize| (a - b).abs() <= 0.05 + 0.1 * rows as f64;
    // Without negative values (a base), a frame added to stacks can only add to a
    // cumulative value.
    let signed = want.contains(" -") || got.contains(" -");
    wt.iter().zip(&gt).all(|(w, g)| {
        let mut g = g.clone();
        // Each of google-pprof's functions keeps its flat value, under its name or under a
        // `<file>+0x<address>` name (an address google-pprof named after a symbol that
        // does not hold it), and no cumulative value falls.
        let mut unmatched = Vec::new();
        for (name, &(flat, cum, n)) in w {
            match g.remove(name) {
                Some((f, c, m)) => {
                    if !close(flat, f, n + m)
                        || (!signed && c + 0.05 + 0.1 * ((n + m) as f64) < cum)
                    {
                        return false;
                    }
                }
                None => unmatched.push((flat, n)),
            }
        }
        for (flat, n) in unmatched {
            let renamed = g
                .iter()
                .find(|(k, v)| k.split_whitespace().any(outside_name) && close(flat, v.0, n + v.2));
            match renamed.map(|(k, _)| k.clone()) {
                Some(k) => {
                    g.remove(&k);
                }
                None => return false,
            }
        }
        // The rows added: the functions inlined code was in, of flat 0.
        g.values().all(|&(f, _, m)| close(f, 0.0, m))
    })
}

/// What [`only_inlined_callers_added`] lets through, and what not.
#[test]
fn inlined_callers_check() {
    let want = "Total: 10 samples\n       6  60.0%  60.0%        6  60.0% outstring_func\n       4  40.0% 100.0%        4  40.0% main\n       0   0.0% 100.0%       10 100.0% _start\n";
    // The inlined code's function marked, its caller added with the cumulative value.
    let got = "Total: 10 samples\n       6  60.0%  60.0%        6  60.0% outstring_func (inline)\n       4  40.0% 100.0%        4  40.0% main\n       0   0.0% 100.0%        6  60.0% __vfprintf_internal\n       0   0.0% 100.0%       10 100.0% _start\n";
    assert!(only_inlined_callers_added(want, got));
    // A flat value changed, a row gone, a cumulative value fallen, a row of flat value
    // added: refused.
    for bad in [
        got.replace(
            "4  40.0% 100.0%        4  40.0% main",
            "5  40.0% 100.0%        4  40.0% main",
        ),
        got.replace("       4  40.0% 100.0%        4  40.0% main\n", ""),
        got.replace("10 100.0% _start", " 9  90.0% _start"),
        got.replace(
            "0   0.0% 100.0%        6  60.0% __vf",
            "1   0.0% 100.0%        6  60.0% __vf",
        ),
        got.replace("Total: 10", "Total: 11"),
    ] {
        assert!(!only_inlined_callers_added(want, &bad), "{bad}");
    }
}

/// `out` with the file of every place in glibc's sources (`./csu/../sysdeps/...`, the only
/// DWARF 5 units of these cases whose line tables' entries 0 and 1 name different files) as
/// `./?`, the line kept: binutils starts a DWARF 5 line program at file 0, rpprof at file
/// 1 as the standard says (`--pprof_quirks`: at 0).
fn without_glibc_files(out: &str) -> String {
    let mut o = String::with_capacity(out.len());
    for line in out.split_inclusive('\n') {
        let mut rest = line;
        while let Some(i) = rest.find(" ./") {
            o.push_str(&rest[..i + 3]);
            rest = &rest[i + 3..];
            let end = rest
                .find(|c: char| c == ':' || c.is_whitespace())
                .unwrap_or(rest.len());
            o.push('?');
            rest = &rest[end..];
        }
        o.push_str(rest);
    }
    o
}

/// rpprof's default `--text` differs from google-pprof's in these cases only where
/// google-pprof named an address after a symbol that does not hold it (issue 17): those
/// rows carry `<file>+0x<address>` instead, with the same values; and in the files of
/// glibc's places ([`without_glibc_files`]). Every other row is the same.
#[test]
fn text_rows_equal_google_pprof_by_default() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("text_rows_equal_google_pprof_by_default", &why);
    }
    let rows: Vec<Row> = text_rows()
        .into_iter()
        .filter(|r| DEFAULT_EQUAL.contains(&r.case.as_str()))
        .collect();
    let (compared, failures) = replay(&rows, &[]);
    assert!(compared >= 100, "only {compared} rows compared");
    let mut real = Vec::new();
    let (mut renamed, mut glibc_files, mut inlined) = (0, 0, 0);
    for f in &failures {
        let name = f.split(' ').next().unwrap_or("");
        let Some(row) = rows.iter().find(|r| r.name == name) else {
            real.push(f.clone());
            continue;
        };
        let want =
            String::from_utf8_lossy(&reference(&row.reference).unwrap_or_default()).into_owned();
        let dir = common::root().join("testdata").join(&row.case);
        let out = common::rpprof(
            &dir,
            &row.args.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let got = String::from_utf8_lossy(&out.stdout).into_owned();
        let stacks = row.args.iter().any(|a| a == "--stacks");
        let (want, got) = (without_glibc_files(&want), without_glibc_files(&got));
        let same_places =
            |a: &str, b: &str| normalise(a.as_bytes(), stacks) == normalise(b.as_bytes(), stacks);
        // At file granularity glibc's rows are files: only the other rows are compared;
        // and jeprof's rows of a line with a discriminator (`f.c:114 (discriminator 3)`,
        // a "file" jeprof failed to cut the line from) are rpprof's file's (README).
        let other_files = |t: &str| -> String {
            t.lines()
                .filter(|l| {
                    !text_table(l).first().is_some_and(|r| {
                        r.1.starts_with("./")
                            || r.1.ends_with(')') && r.1.contains(" (discriminator ")
                    })
                })
                .map(|l| format!("{l}\n"))
                .collect()
        };
        let (want, got) = if row.args.iter().any(|a| a == "--files") {
            (other_files(&want), other_files(&got))
        } else {
            (want, got)
        };
        if same_places(&want, &got) {
            glibc_files += 1;
        } else if only_renamed(&want, &got) {
            renamed += 1;
        } else if only_inlined_callers_added(&want, &got) {
            inlined += 1;
        } else {
            real.push(f.clone());
        }
    }
    eprintln!(
        "{compared} rows compared, {renamed} differ only by <file>+0x<address> names, {glibc_files} only in the files of glibc's places, {inlined} only by the callers of a stripped library's inlined code"
    );
    assert!(real.is_empty(), "{}", real.join("\n"));
}

/// Links `/tmp/rpprof-corpus/<case>` to the testdata case of each row when nothing is there.
fn link_cases(rows: &[Row]) {
    for r in rows {
        common::link_case(&r.case);
    }
}

/// `--list` reads the programs' sources where their DWARF says they are, under
/// `/tmp/rpprof-corpus/<case>` (where they were built); the test links them there when
/// nothing is.
#[test]
fn list_rows_equal_google_pprof() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("list_rows_equal_google_pprof", &why);
    }
    let rows = rows(|a| a.starts_with("--list"));
    link_cases(&rows);
    let (compared, failures) = replay(&rows, &[]);
    assert!(compared >= 6, "only {compared} rows compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--disasm` prints objdump's instructions (as pprof does) under the source lines, which it
/// reads as `--list` does.
#[test]
fn disasm_rows_equal_google_pprof() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("disasm_rows_equal_google_pprof", &why);
    }
    let has_objdump = std::process::Command::new("objdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_objdump {
        return common::skip(
            "disasm_rows_equal_google_pprof",
            "objdump (binutils) is not installed",
        );
    }
    let rows = rows(|a| a.starts_with("--disasm"));
    link_cases(&rows);
    let (compared, failures) = replay(&rows, &[]);
    assert!(compared >= 5, "only {compared} rows compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The default answers differ from google-pprof's where google-pprof is wrong: t-heap's
/// inlined `copy_bytes` is named after itself, not after `make_record`.
#[test]
fn inlined_helper_named_after_itself_by_default() {
    let dir = common::root().join("testdata").join("t-heap");
    let args = [
        "--text",
        "--lib_prefix=.",
        "./theap",
        "theap.hprof.0003.heap",
    ];
    let default = common::rpprof(&dir, &args);
    assert!(default.status.success());
    let text = String::from_utf8_lossy(&default.stdout);
    assert!(text.contains("tdata::store::copy_bytes (inline)"), "{text}");
    assert!(!text.contains("make_record@27f0 (inline)"), "{text}");
    let mut quirk_args = vec!["--pprof_quirks"];
    quirk_args.extend(args);
    let quirks = common::rpprof(&dir, &quirk_args);
    let text = String::from_utf8_lossy(&quirks.stdout);
    assert!(!text.contains("copy_bytes"), "{text}");
}

/// A program stripped after `objcopy --only-keep-debug` (`theap-stripped`, its symbols and
/// DWARF in `theap-stripped.debug`, found through its `.gnu_debuglink`; the profile is
/// `theap.hprof.0003.heap` with the map naming that file): google-pprof asks addr2line for
/// inlined frames only when its `nm` finds `_fini` in the file, which the stripped file has
/// not, and names inlined code after the innermost function alone: `std::vector::push_back`
/// as a function of its own, `one_round` without the 1.2% it holds through it. rpprof reads
/// the inlined frames from the debug file, as for the unstripped program: every row of that
/// program's report is in the stripped one's, but the two overloads of `make_record`, which
/// only a symbol table tells apart. With `--pprof_quirks`, google-pprof's answer (the golden
/// rows of `theap-stripped.0003.heap`).
#[test]
fn stripped_programs_inlined_frames_from_their_debug_file() {
    let dir = common::root().join("testdata").join("t-heap");
    let run = |args: &[&str]| {
        let out = common::rpprof(&dir, args);
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stripped = run(&["--text", "./theap-stripped", "theap-stripped.0003.heap"]);
    let whole = run(&["--text", "./theap", "theap.hprof.0003.heap"]);
    let rows = text_table(&stripped);
    let mut compared = 0;
    for row in text_table(&whole) {
        if !row.1.contains("make_record") {
            assert!(rows.contains(&row), "{row:?} not in\n{stripped}");
            compared += 1;
        }
    }
    assert!(compared > 20, "{whole}");
    assert!(
        stripped.contains("% std::vector::push_back (inline)\n"),
        "{stripped}"
    );
    let quirks = run(&[
        "--pprof_quirks",
        "--text",
        "./theap-stripped",
        "theap-stripped.0003.heap",
    ]);
    assert!(quirks.contains("% std::vector::push_back\n"), "{quirks}");
    assert!(quirks.contains("2.8  98.7% one_round\n"), "{quirks}");
    assert!(stripped.contains("2.8  99.9% one_round\n"), "{stripped}");
}

/// A DWARF 5 line program's file register starts at 1 (the standard's table 6.4), where
/// binutils 2.40 starts it at 0: libc's `__sin_fma` is in `s_sin.c` (included by the
/// ten-line `s_sin-fma.c`, whose line 201 does not exist), and an LTO unit's first rows are
/// not in a file `<artificial>`. `--pprof_quirks` reads as binutils.
#[test]
fn dwarf5_line_programs_start_at_file_1() {
    if let Some(why) = common::system_libraries_differ() {
        return common::skip("dwarf5_line_programs_start_at_file_1", &why);
    }
    let dir = common::root().join("testdata").join("t-cpu");
    common::link_case("t-cpu");
    let run = |extra: &[&str]| {
        let mut a = vec!["--text", "--lines", "--lib_prefix=."];
        a.extend_from_slice(extra);
        a.extend(["./tcpu-nopie", "tcpu-nopie.prof"]);
        String::from_utf8_lossy(&common::rpprof(&dir, &a).stdout).into_owned()
    };
    let spec = run(&[]);
    assert!(
        spec.contains(" __sin_fma ./math/../sysdeps/ieee754/dbl-64/s_sin.c:201\n"),
        "{spec}"
    );
    assert!(!spec.contains("s_sin-fma.c"), "{spec}");
    let binutils = run(&["--pprof_quirks"]);
    assert!(
        binutils.contains(" __sin_fma ./math/../sysdeps/x86_64/fpu/multiarch/s_sin-fma.c:201\n"),
        "{binutils}"
    );
}
