//! Rendering the `--dot` graph with Graphviz, and showing it: `--svg`, `--pdf`, `--ps`,
//! `--gif`, `--web`, `--gv`, `--evince`.
//!
//! As google-pprof, rpprof pipes the graph into `dot` (`-Tps2`, `-Tsvg`, `-Tgif`) — but runs
//! it directly, never through a shell, with file names as separate arguments. `--pdf` asks
//! `dot -Tpdf` instead of pprof's `dot -Tps2 | ps2pdf`, which would need Ghostscript. SVG is
//! rewritten as pprof's `RewriteSvg` does: full-window size, and the SVGPan script for
//! panning and zooming in a browser.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use regex::Regex;

use crate::error::{Error, Result};

/// pprof's SVGPan script (BSD license, see the file), inserted into SVG output.
const SVG_JAVASCRIPT: &str = include_str!("svgpan.js");

/// An output format of `dot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PostScript (`-Tps2`).
    Ps,
    /// PDF (`-Tpdf`).
    Pdf,
    /// SVG (`-Tsvg`), rewritten for browsers.
    Svg,
    /// GIF (`-Tgif`).
    Gif,
}

impl Format {
    fn flag(self) -> &'static str {
        match self {
            Format::Ps => "-Tps2",
            Format::Pdf => "-Tpdf",
            Format::Svg => "-Tsvg",
            Format::Gif => "-Tgif",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Format::Ps => "ps",
            Format::Pdf => "pdf",
            Format::Svg => "svg",
            Format::Gif => "gif",
        }
    }
}

/// The program that renders DOT: `dot`, found on `PATH`.
const DOT: &str = "dot";

/// Runs `program args`, feeding it `input`; returns its standard output. `what` names the
/// package to install when the program is missing.
fn run_filter(program: &str, args: &[&str], input: &[u8], package: &str) -> Result<Vec<u8>> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                Error::internal(format!(
                    "cannot run {program}: not found; install the Debian package {package}"
                ))
            } else {
                Error::internal(format!("cannot run {program}: {e}"))
            }
        })?;
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let (out, err) = std::thread::scope(|s| {
        let writer = s.spawn(move || {
            if let Some(w) = stdin.as_mut() {
                // A program that stops reading early says why on its stderr.
                let _ = w.write_all(input);
            }
            drop(stdin);
        });
        let errs = s.spawn(move || {
            let mut e = Vec::new();
            if let Some(r) = stderr.as_mut() {
                let _ = r.read_to_end(&mut e);
            }
            e
        });
        let mut o = Vec::new();
        let read = match stdout.as_mut() {
            Some(r) => r.read_to_end(&mut o).map(|_| ()),
            None => Ok(()),
        };
        let _ = writer.join();
        let e = errs.join().unwrap_or_default();
        (read.map(|_| o), e)
    });
    let status = child
        .wait()
        .map_err(|e| Error::internal(format!("{program}: {e}")))?;
    let out = out.map_err(|e| Error::internal(format!("{program}: {e}")))?;
    if !status.success() {
        let msg = String::from_utf8_lossy(&err);
        let first = msg.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(Error::internal(format!(
            "{program} {} failed ({status}){}{}",
            args.join(" "),
            if first.is_empty() { "" } else { ": " },
            first.trim()
        )));
    }
    Ok(out)
}

/// Renders `dot_text` in `format` (SVG rewritten as pprof does).
pub fn render(dot_text: &[u8], format: Format) -> Result<Vec<u8>> {
    let out = run_filter(DOT, &[format.flag()], dot_text, "graphviz")?;
    if format == Format::Svg {
        return Ok(rewrite_svg(&String::from_utf8_lossy(&out)).into_bytes());
    }
    Ok(out)
}

fn re(pattern: &str) -> Regex {
    // SANITY: constant patterns, exercised by the tests.
    #[allow(clippy::unwrap_used)]
    Regex::new(pattern).unwrap()
}

/// pprof's `RewriteSvg`: size the picture to the window, drop the view box, and wrap the
/// graph in a `viewport` group driven by the SVGPan script.
pub fn rewrite_svg(svg: &str) -> String {
    // Fix width, height; drop viewBox.
    let svg = re(r#"(?s)<svg width="[^"]+" height="[^"]+"(.*?)viewBox="[^"]+""#)
        .replace(svg, r#"<svg width="100%" height="100%"${1}"#)
        .into_owned();
    // Insert the script and a viewport <g> above the first <g>.
    let viewport = "<g id=\"viewport\" transform=\"translate(0,0)\">\n";
    let first_g = re(r#"<g id="graph\d""#);
    let svg = match first_g.find(&svg) {
        Some(m) => format!(
            "{}{SVG_JAVASCRIPT}{viewport}{}",
            &svg[..m.start()],
            &svg[m.start()..]
        ),
        None => svg,
    };
    // Insert the final </g> above </svg>.
    let svg = re(r"(.*)(</svg>)")
        .replace(&svg, "${1}</g>${2}")
        .into_owned();
    re(r#"<g id="graph\d"(.*?)"#)
        .replace(&svg, r#"<g id="viewport"${1}"#)
        .into_owned()
}

/// A file in the temporary directory that nobody else has: `rpprof<pid>.<n>.<ext>`.
fn temp_file(ext: &str, data: &[u8]) -> Result<PathBuf> {
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    for n in 0..1000 {
        let path = dir.join(format!("rpprof{pid}.{n}.{ext}"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(data).map_err(|e| Error::io(&path, e))?;
                return Ok(path);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    Err(Error::internal(format!(
        "cannot create a temporary file in {}",
        dir.display()
    )))
}

/// The commands `$BROWSER` names to open `target` with, in order: a list separated by `:`
/// (as `xdg-open` and Python's `webbrowser` read it), each a program and its arguments
/// separated by blanks, where `%s` stands for the target (which else comes last). The web
/// UI, `--web` and the shell's `web` and `weblist` read it alike.
pub fn browser_commands(target: &str) -> Vec<Vec<String>> {
    std::env::var("BROWSER")
        .map(|b| parse_browser(&b, target))
        .unwrap_or_default()
}

/// [`browser_commands`] of the value `b`.
fn parse_browser(b: &str, target: &str) -> Vec<Vec<String>> {
    b.split(':')
        .filter_map(|one| {
            let mut words: Vec<String> = one.split_whitespace().map(str::to_string).collect();
            if words.is_empty() {
                return None;
            }
            if words.iter().any(|w| w.contains("%s")) {
                for w in &mut words {
                    *w = w.replace("%s", target);
                }
            } else {
                words.push(target.to_string());
            }
            Some(words)
        })
        .collect()
}

/// Runs a viewer on `file` and waits for it; true when it ran and exited 0.
fn run_viewer(program: &str, args: &[&str], file: &Path, err: &mut dyn Write) -> bool {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    all.push(file.as_os_str());
    run_command(program, &all, err)
}

/// Runs `program` with `args` and waits for it; true when it ran and exited 0.
fn run_command<A: AsRef<std::ffi::OsStr>>(program: &str, args: &[A], err: &mut dyn Write) -> bool {
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .status()
    {
        Ok(s) => s.success(),
        Err(e) => {
            let _ = writeln!(err, "rpprof: cannot run {program}: {e}");
            false
        }
    }
}

/// `--web`: writes the SVG to a temporary file and opens it in a browser: `$BROWSER` if set,
/// then the ones pprof's `RunWeb` tries. The file is removed as [`open_in_browser`] says.
pub fn web(svg: &[u8], in_shell: bool, err: &mut dyn Write) -> Result<()> {
    open_in_browser(Format::Svg.extension(), svg, in_shell, err)
}

/// Writes `data` to a temporary file ending in `.ext` and opens it in a browser, as
/// [`web`] does. A browser often hands the file to one already running and returns before
/// it is read, so the file stays a while, as with pprof: until the shell ends (`in_shell`),
/// else five seconds (removed in the background; rpprof does not wait). When no browser
/// could be run, the file stays and its path is said.
pub fn open_in_browser(ext: &str, data: &[u8], in_shell: bool, err: &mut dyn Write) -> Result<()> {
    let path = temp_file(ext, data)?;
    let _ = writeln!(err, "Loading web page file://{}", path.display());
    let target = path.display().to_string();
    let mut browsers = browser_commands(&target);
    let named = browsers.len();
    for b in [
        "/etc/alternatives/gnome-www-browser",
        "/etc/alternatives/x-www-browser",
        "google-chrome",
        "firefox",
    ] {
        browsers.push(vec![b.to_string(), target.clone()]);
    }
    for (i, argv) in browsers.iter().enumerate() {
        let Some((b, args)) = argv.split_first() else {
            continue;
        };
        let found = if b.contains('/') {
            Path::new(b).exists()
        } else {
            in_path(b)
        };
        if !found && i < named {
            let _ = writeln!(err, "rpprof: $BROWSER names {b}, which is not found");
        }
        if found && run_command(b, args, err) {
            if in_shell {
                keep_until_shell_ends(&path);
            } else {
                remove_later(&path);
            }
            return Ok(());
        }
    }
    // A failure, as a viewer that is not installed is: the page was not shown.
    Err(Error::internal(format!(
        "Could not load web browser; the page is in {}",
        path.display()
    )))
}

/// Removes `file` five seconds from now, after rpprof has exited (pprof forks a child that
/// sleeps and unlinks): a shell left to do it, detached from the terminal's signals. If
/// even `sh` cannot be run, the file stays.
fn remove_later(file: &Path) {
    use std::os::unix::process::CommandExt;
    let child = Command::new("sh")
        .args(["-c", "sleep 5; exec rm -f -- \"$1\"", "rpprof"])
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    // Waited for in a process that lives on (a library's caller), so that it leaves no
    // zombie; when rpprof exits first, it carries on alone.
    if let Ok(mut child) = child {
        let _ = std::thread::Builder::new().spawn(move || child.wait());
    }
}

/// Registers `file` to be removed by [`remove_viewer_files`] when the shell ends.
fn keep_until_shell_ends(file: &Path) {
    if let Ok(mut f) = VIEWER_FILES.lock() {
        f.push(file.to_path_buf());
    }
}

/// The shell's files still shown (pages given to a browser, graphs of viewers started in the
/// background and not yet closed): removed by [`remove_viewer_files`] when the shell ends,
/// as pprof removes its temporary files.
static VIEWER_FILES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes the shell's files still shown (see [`VIEWER_FILES`]).
pub fn remove_viewer_files() {
    let files = match VIEWER_FILES.lock() {
        Ok(mut f) => std::mem::take(&mut *f),
        Err(_) => return,
    };
    for f in files {
        let _ = std::fs::remove_file(f);
    }
}

/// Runs a viewer on `file` without waiting for it to be closed (the shell's `gv` and
/// `evince`, as pprof runs them): the file is removed when the viewer exits 0 (or the shell
/// ends). When the viewer cannot start or fails at once, the error says where the graph is;
/// a failure later is said as it happens.
fn start_viewer(program: &str, args: &[&str], file: &Path) -> Result<()> {
    let child = Command::new(program)
        .args(args)
        .arg(file)
        .stdin(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return Err(Error::internal(format!(
                "cannot run {program}: {e}; the graph is in {}",
                file.display()
            )));
        }
    };
    // A viewer that cannot show the graph (no display) fails at once: waited for a moment,
    // so that what it says and where the graph is come before the shell's next prompt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(300);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => {
                let _ = std::fs::remove_file(file);
                return Ok(());
            }
            Ok(Some(_)) => {
                return Err(Error::internal(format!(
                    "{program} failed; the graph is in {}",
                    file.display()
                )));
            }
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            _ => break,
        }
    }
    keep_until_shell_ends(file);
    let (program, file) = (program.to_string(), file.to_path_buf());
    // The thread only waits (no zombie is left) and tidies up; it ends with the process.
    let waited = std::thread::Builder::new().spawn(move || {
        let ok = child.wait().is_ok_and(|s| s.success());
        if ok {
            let _ = std::fs::remove_file(&file);
        } else {
            // (Said as it happens, perhaps over the line being typed: it is rare.)
            eprintln!(
                "rpprof: {program} failed; the graph is in {}",
                file.display()
            );
        }
        // Removed, or kept where the message says: not the shell's to remove any more.
        if let Ok(mut f) = VIEWER_FILES.lock() {
            f.retain(|x| *x != file);
        }
    });
    // (Without a thread to wait, the file goes when the shell ends.)
    let _ = waited;
    Ok(())
}

/// `--gv`: renders PostScript to a temporary file and shows it with `gv`; in the
/// background (`background`: the shell's `gv`) or waiting for it.
pub fn gv(dot_text: &[u8], scale: i64, background: bool, err: &mut dyn Write) -> Result<()> {
    let ps = render(dot_text, Format::Ps)?;
    let path = temp_file(Format::Ps.extension(), &ps)?;
    if !in_path("gv") {
        return Err(Error::internal(format!(
            "cannot run gv: not found; install the Debian package gv (the graph is in {})",
            path.display()
        )));
    }
    let scale_arg = format!("--scale={scale}");
    let args = [scale_arg.as_str(), "--noantialias"];
    if background {
        return start_viewer("gv", &args, &path);
    }
    if !run_viewer("gv", &args, &path, err) {
        return Err(Error::internal(format!(
            "gv failed; the graph is in {}",
            path.display()
        )));
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

/// `--evince`: renders PDF to a temporary file and shows it with `evince`, in the
/// background or waiting for it (as [`gv`]).
pub fn evince(dot_text: &[u8], background: bool, err: &mut dyn Write) -> Result<()> {
    let pdf = render(dot_text, Format::Pdf)?;
    let path = temp_file(Format::Pdf.extension(), &pdf)?;
    if !in_path("evince") {
        return Err(Error::internal(format!(
            "cannot run evince: not found; install the Debian package evince (the graph is in {})",
            path.display()
        )));
    }
    if background {
        return start_viewer("evince", &[], &path);
    }
    if !run_viewer("evince", &[], &path, err) {
        return Err(Error::internal(format!(
            "evince failed; the graph is in {}",
            path.display()
        )));
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

/// True when `program` is an executable file in a `PATH` directory.
pub fn in_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|d| {
        std::fs::metadata(d.join(program))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_lists_as_xdg_open_reads_them() {
        let t = "/tmp/x.svg";
        let v = |l: &[&[&str]]| -> Vec<Vec<String>> {
            l.iter()
                .map(|c| c.iter().map(|w| w.to_string()).collect())
                .collect()
        };
        assert_eq!(parse_browser("firefox", t), v(&[&["firefox", t]]));
        assert_eq!(
            parse_browser("chromium --new-window:firefox", t),
            v(&[&["chromium", "--new-window", t], &["firefox", t]])
        );
        assert_eq!(
            parse_browser("echo open %s now", t),
            v(&[&["echo", "open", t, "now"]])
        );
        assert_eq!(parse_browser(" : ::", t), Vec::<Vec<String>>::new());
    }

    #[test]
    fn svg_is_rewritten_as_pprof_does() {
        let svg = "<?xml?>\n<svg width=\"100pt\" height=\"50pt\"\n viewBox=\"0.00 0.00 100.00 50.00\" xmlns=\"x\">\n<g id=\"graph0\" class=\"graph\">\n<title>t</title>\n</g>\n</svg>\n";
        let got = rewrite_svg(svg);
        assert!(
            got.contains("<svg width=\"100%\" height=\"100%\"\n  xmlns=\"x\">"),
            "{got}"
        );
        assert!(got.contains("]]></script>\n<g id=\"viewport\" transform=\"translate(0,0)\">\n<g id=\"viewport\" class=\"graph\">"), "{got}");
        assert!(got.ends_with("</g>\n</g></svg>\n"), "{got}");
    }
}
