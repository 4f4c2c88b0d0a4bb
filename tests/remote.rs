//! Remote profiles against a real gperftools server on loopback: `testdata/t-remote`'s
//! `tremote` (tcmalloc and the CPU profiler behind the `/pprof/*` pages), built here when g++
//! and libgoogle-perftools-dev are installed (skipped, saying so, otherwise). Each test starts
//! its own server on a free port of 127.0.0.1 and its own `PPROF_TMPDIR`; nothing reaches
//! beyond loopback, and the server exits on its own after ten minutes at most.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

/// The built server, or why there is none.
fn server_binary() -> Result<PathBuf, String> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if !common::have("g++") {
                return Err("g++ is not installed".into());
            }
            if !Path::new("/usr/include/gperftools/malloc_extension.h").exists() {
                return Err("libgoogle-perftools-dev is not installed".into());
            }
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tremote");
            let src = common::root().join("testdata/t-remote/tremote.cc");
            let st = Command::new("g++")
                .args([
                    "-O1",
                    "-g",
                    "-fno-omit-frame-pointer",
                    "-pthread",
                    "-rdynamic",
                    "-o",
                ])
                .arg(&out)
                .arg(&src)
                .arg("-ltcmalloc_and_profiler")
                .status()
                .map_err(|e| format!("g++: {e}"))?;
            if !st.success() {
                return Err("g++ could not build tremote".into());
            }
            Ok(out)
        })
        .clone()
}

/// A running server; killed when dropped.
struct Server {
    child: Child,
    port: u16,
    binary: PathBuf,
    tmpdir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(test: &str) -> Option<Server> {
    let binary = match server_binary() {
        Ok(b) => b,
        Err(why) => {
            common::skip(test, &why);
            return None;
        }
    };
    let mut child = Command::new(&binary)
        .arg("0")
        .env("TCMALLOC_SAMPLE_PARAMETER", "4096")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tremote");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("port line");
    let port: u16 = line.trim().parse().expect("a port number");
    let tmpdir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("pprof-{test}"));
    let _ = std::fs::remove_dir_all(&tmpdir);
    Some(Server {
        child,
        port,
        binary,
        tmpdir,
    })
}

impl Server {
    fn url(&self, page: &str) -> String {
        format!("127.0.0.1:{}{page}", self.port)
    }

    fn rpprof(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rpprof"));
        c.args(args).env("PPROF_TMPDIR", &self.tmpdir);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("run rpprof")
    }

    /// The files saved in PPROF_TMPDIR.
    fn saved(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&self.tmpdir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// rpprof run with `args` and no server of its own (profiles it fetches are saved in the
/// target's temporary directory).
fn alone<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(args)
        .env("PPROF_TMPDIR", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The fetched profile, with and without the local program: named functions either way, and
/// with the program the report of the saved copy.
fn check_page(test: &str, page: &str, extra: &[&str], names: &[&str]) {
    let Some(s) = start(test) else { return };
    let url = s.url(page);
    let bin = s.binary.to_string_lossy().into_owned();

    // Without the program: names from /pprof/symbol, the program's name from /pprof/cmdline.
    let mut args = vec!["--text"];
    args.extend_from_slice(extra);
    args.push(&url);
    let out = s.rpprof(&args, &[]);
    let report = ok(&out);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("Using remote profile at {url}.")),
        "{err}"
    );
    assert!(err.contains("Wrote profile to "), "{err}");
    for n in names {
        assert!(report.contains(n), "no {n} in\n{report}");
    }
    let saved = s.saved();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let name = saved[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("tremote.") && name.contains(".127.0.0.1"),
        "{name}"
    );

    // With the program: symbolized locally, and the same report as the saved copy's.
    let mut args = vec!["--text"];
    args.extend_from_slice(extra);
    args.push(&bin);
    args.push(&url);
    let report = ok(&s.rpprof(&args, &[]));
    for n in names {
        assert!(report.contains(n), "no {n} in\n{report}");
    }
    let newest = s
        .saved()
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .unwrap();
    let mut args = vec!["--text"];
    args.extend_from_slice(extra);
    let newest = newest.to_string_lossy().into_owned();
    args.push(&bin);
    args.push(&newest);
    assert_eq!(report, ok(&s.rpprof(&args, &[])));
}

#[test]
fn heap_page() {
    check_page(
        "heap_page",
        "/pprof/heap",
        &[],
        &["remote_alloc_big", "remote_alloc_small"],
    );
}

#[test]
fn growth_page() {
    check_page("growth_page", "/pprof/growth", &[], &["remote_alloc_big"]);
}

#[test]
fn cpu_profile_page() {
    check_page(
        "cpu_profile_page",
        "/pprof/profile",
        &["--seconds=1"],
        &["remote_busy_spin", "remote_busy_hash"],
    );
}

/// One failing fetch: exit status 1, nothing on stdout, one `rpprof:` line with `want`.
fn fails(s: &Server, args: &[&str], env: &[(&str, &str)], want: &str) {
    let out = s.rpprof(args, env);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty());
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("rpprof:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains(want), "{err}");
}

#[test]
fn failures_are_one_clear_line() {
    let Some(s) = start("failures_are_one_clear_line") else {
        return;
    };
    let bin = s.binary.to_string_lossy().into_owned();
    let u = |p: &str| s.url(p);
    fails(
        &s,
        &["--text", &bin, &u("/status/500/pprof/heap")],
        &[],
        "HTTP 500 Internal Server Error",
    );
    fails(
        &s,
        &["--text", &bin, &u("/auth/pprof/heap")],
        &[],
        "HTTP 401 Unauthorized (authentication",
    );
    fails(
        &s,
        &["--text", &bin, &u("/garbage/pprof/heap")],
        &[],
        "not a profile: \"<html>hello</html>\"",
    );
    fails(
        &s,
        &["--text", &bin, &u("/missing/pprof/heap")],
        &[],
        "HTTP 404",
    );
    fails(
        &s,
        &["--text", &u("/status/500/pprof/heap")],
        &[],
        "/pprof/cmdline: HTTP 500",
    );
    // https:// to this plain HTTP server, which waits for a request line that never comes:
    // the connection's time runs out (tests/remote_https.rs has the HTTPS server, and servers
    // that answer a handshake with HTTP or close the connection).
    fails(
        &s,
        &[
            "--text",
            &bin,
            &format!("https://127.0.0.1:{}/pprof/heap", s.port),
        ],
        &[("RPPROF_HTTP_TIMEOUT", "1")],
        "within 1 s",
    );
    let port = common::free_port();
    fails(
        &s,
        &["--text", &bin, &format!("127.0.0.1:{port}/pprof/heap")],
        &[],
        "cannot connect",
    );
    // A page that begins its answer and stalls (3 s), with a 1 s timeout (first: the server
    // answers one request at a time).
    fails(
        &s,
        &["--text", &bin, &u("/dribble/pprof/heap")],
        &[("RPPROF_HTTP_TIMEOUT", "1")],
        "/dribble/pprof/heap: the answer began but was not complete within 1 s (timed out)",
    );
    // One that answers after 10 s, with a 1 s timeout.
    fails(
        &s,
        &["--text", &bin, &u("/slow/pprof/heap")],
        &[("RPPROF_HTTP_TIMEOUT", "1")],
        "/slow/pprof/heap: no answer within 1 s (timed out)",
    );
    // $PPROF_TMPDIR a file: said before the profile is asked for (not after its seconds).
    let not_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pprof-tmpdir-is-a-file");
    std::fs::write(&not_dir, b"").unwrap();
    fails(
        &s,
        &["--text", &bin, &u("/pprof/profile?seconds=30")],
        &[("PPROF_TMPDIR", not_dir.to_str().unwrap())],
        "pprof-tmpdir-is-a-file: not a directory, where fetched profiles are saved",
    );
    // Nothing was saved for the failures.
    assert!(
        s.saved()
            .iter()
            .all(|p| !p.file_name().unwrap().to_string_lossy().starts_with(".tmp"))
    );
}

/// A mistyped local file is never taken for a URL, server or not.
#[test]
fn missing_file_is_not_a_url() {
    let out = alone(&["--text", "heap.prof"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("heap.prof: No such file"),
        "{}",
        text(&out.stderr)
    );
}

/// Without a local program: a server whose symbol page has no symbols is told before its
/// profile is asked for (the profile page of `/stripped` fails, so a client that asked it
/// first would say that instead), and one that names only some addresses is said.
#[test]
fn symbol_page_checked_first_and_its_gaps_said() {
    let Some(s) = start("symbol_page_checked_first_and_its_gaps_said") else {
        return;
    };
    fails(
        &s,
        &["--text", &s.url("/stripped/pprof/profile?seconds=1")],
        &[],
        "/stripped/pprof/symbol: the server has no symbols",
    );
    assert!(s.saved().is_empty(), "{:?}", s.saved());
    let out = s.rpprof(&["--text", &s.url("/few/pprof/heap")], &[]);
    let err = text(&out.stderr);
    ok(&out);
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("/few/pprof/symbol named"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    // "named N of the M addresses asked": about half.
    let words: Vec<&str> = said[0].split_whitespace().collect();
    let at = words.iter().position(|w| *w == "named").unwrap() + 1;
    let (n, m): (usize, usize) = (words[at].parse().unwrap(), words[at + 3].parse().unwrap());
    assert!(n < m && n <= m.div_ceil(2), "{err}");
}

/// A symbol page that fails the addresses' POST (the profile was fetched and saved by then):
/// a warning saying so, and the report with hex addresses, as when a program file is missing.
#[test]
fn a_failed_symbol_post_is_a_warning() {
    let Some(s) = start("a_failed_symbol_post_is_a_warning") else {
        return;
    };
    let out = s.rpprof(&["--text", &s.url("/nopost/pprof/heap")], &[]);
    let err = text(&out.stderr);
    ok(&out);
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("/nopost/pprof/symbol: HTTP 500"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].starts_with("Warning: "), "{err}");
    assert!(said[0].contains("print as hex"), "{err}");
    let report = text(&out.stdout);
    assert!(report.starts_with("Total: "), "{report}");
    // Every row is an address.
    let rows: Vec<&str> = report.lines().skip(1).collect();
    assert!(!rows.is_empty(), "{report}");
    for r in &rows {
        let name = r.split_whitespace().last().unwrap_or("");
        assert!(name.starts_with("0x"), "{report}");
    }
    assert_eq!(s.saved().len(), 1, "{:?}", s.saved());
}

/// The web UI on such a server: the warning is said once on the terminal and on the pages
/// of the profile, fetched at the start and from the page.
#[test]
fn a_failed_symbol_post_is_said_on_the_web_pages() {
    let Some(s) = start("a_failed_symbol_post_is_said_on_the_web_pages") else {
        return;
    };
    std::fs::create_dir_all(&s.tmpdir).unwrap();
    let tmp = s.tmpdir.to_str().unwrap();
    let web = common::web::start(
        &s.tmpdir,
        &[&s.url("/nopost/pprof/heap")],
        &[("PPROF_TMPDIR", tmp)],
    );
    let said = "/nopost/pprof/symbol: HTTP 500 Internal Server Error";
    let top = common::web::get(&format!("{}/ui/top", web.url)).text();
    assert!(top.contains(said), "{top}");
    let err = web.stderr.lock().unwrap().clone();
    assert_eq!(err.matches(said).count(), 1, "{err}");
}

/// The symbol page's POST redirected (307, and 302, which an HTTP client would turn into a
/// GET without the addresses) is sent again to where it points, as pprof does; mangled names
/// after a space (Go's handler) are read and demangled, as pprof reads them through c++filt.
#[test]
fn redirected_and_mangled_symbol_pages() {
    let Some(s) = start("redirected_and_mangled_symbol_pages") else {
        return;
    };
    for prefix in ["/moved", "/found", "/mangled"] {
        let out = s.rpprof(&["--text", &s.url(&format!("{prefix}/pprof/heap"))], &[]);
        let report = ok(&out);
        let err = text(&out.stderr);
        assert!(
            report.contains(" remote_alloc_big\n"),
            "{prefix}: {report}\n{err}"
        );
        assert!(!report.contains("_Z"), "{prefix}: {report}");
    }
}

/// A server without /pprof/cmdline: its profile is fetched and named all the same, saved
/// under `unknown`, as the warning says (google-pprof carries on too).
#[test]
fn a_server_without_cmdline_is_still_read() {
    let Some(s) = start("a_server_without_cmdline_is_still_read") else {
        return;
    };
    let out = s.rpprof(&["--text", &s.url("/nocmd/pprof/heap")], &[]);
    let err = text(&out.stderr);
    let report = ok(&out);
    assert!(
        err.contains("/nocmd/pprof/cmdline: no such page (HTTP 404): the program is named unknown"),
        "{err}"
    );
    assert!(report.contains("remote_alloc_big"), "{report}\n{err}");
    assert!(
        s.saved().iter().any(|p| p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("unknown.")),
        "{:?}",
        s.saved()
    );
}

/// A program-name page in `/proc/self/cmdline` form (the arguments after NULs) names the
/// program by its first argument, as pprof cuts it; a page that is not a symbol page is
/// quoted in the error only in part.
#[test]
fn a_cmdline_of_nuls_and_a_long_answer() {
    let Some(s) = start("a_cmdline_of_nuls_and_a_long_answer") else {
        return;
    };
    let out = s.rpprof(&["--text", &s.url("/argv/pprof/heap")], &[]);
    let report = ok(&out);
    assert!(report.contains("remote_alloc_big"), "{report}");
    let saved = s.saved();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let name = saved[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("tremote.") && !name.contains('\0') && !name.contains("--"),
        "{name:?}"
    );
    let out = s.rpprof(&["--text", &s.url("/longsym/pprof/heap")], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains("not a symbol page"), "{err}");
    assert!(err.len() < 400, "{} bytes of error", err.len());
}

/// A `seconds=` in the argument's own query is the profile's: not asked twice, said in the
/// message, which comes before the wait (the file is not there yet when it is read).
#[test]
fn seconds_of_the_url_and_the_message_before_the_wait() {
    let Some(s) = start("seconds_of_the_url_and_the_message_before_the_wait") else {
        return;
    };
    let bin = s.binary.to_string_lossy().into_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpprof"))
        .args(["--text", &bin, &s.url("/pprof/profile?seconds=2")])
        .env("PPROF_TMPDIR", &s.tmpdir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    while !first.starts_with("Gathering") {
        first.clear();
        assert!(err.read_line(&mut first).unwrap() > 0, "no Gathering line");
    }
    // Read while the server profiles: nothing is saved yet.
    assert!(s.saved().is_empty(), "{:?}", s.saved());
    assert!(
        first.ends_with("/pprof/profile?seconds=2 for 2 seconds to\n"),
        "{first}"
    );
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    assert!(rest.contains("Wrote profile to"), "{rest}");
}

/// A `name:digits` argument that is neither a file nor a host: both are said.
#[test]
fn host_not_found_says_there_is_no_such_file_either() {
    let out = alone(&["--text", "heap.invalid:3"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("cannot connect: host not found (and there is no local file heap.invalid:3)"),
        "{err}"
    );
}

/// Any number of seconds is a request, not a crash (the timeout overflowed a Duration).
#[test]
fn huge_seconds_do_not_crash() {
    let port = common::free_port();
    for args in [
        vec![
            "--text".to_string(),
            "/bin/true".to_string(),
            format!("127.0.0.1:{port}/pprof/profile?seconds=18446744073709551615"),
        ],
        vec![
            "--text".to_string(),
            "--seconds=18446744073709551615".to_string(),
            "/bin/true".to_string(),
            format!("127.0.0.1:{port}/pprof/profile"),
        ],
    ] {
        let out = alone(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot connect"), "{args:?}: {err}");
    }
}
