//! pprof's interactive shell, over one [`Session`]: the profiles are read and symbolized
//! once, and every command renders a [`View`] of them.
//!
//! It speaks google-pprof's commands as google-pprof 2.10 does when driven through a pipe —
//! the banner and the `(pprof) ` prompt on standard error, the reports on standard output,
//! `top`, `list`, `disasm`, `web`, ... with their focus and `-ignore` words — and Go pprof's
//! additions: `name=value` options that persist (`sample_index=`, `granularity=`, `focus=`,
//! `base=`, ...), `options`, `help <command>`, `peek`, `traces`, every output mode of the
//! command line as a command, and `>file` after a command. On a terminal, lines are edited
//! with history (kept under `$XDG_STATE_HOME/rpprof/`), reverse search and completion of
//! commands, options, their values and the profile's function names ([`terminal`]).

pub mod commands;
mod complete;
pub mod terminal;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::graph::Granularity;
use crate::pipeline::Options;
use crate::report::{Mode, graphviz};
use crate::session::{ContentionValue, HeapValue, Session, Value};
use crate::view::{Command, View};
use commands::{COMMANDS, GRANULARITIES, Line, MODES, OPTIONS, Request, Verb};

/// The most routines `weblist`'s page may list for their instructions to be shown (a click
/// on a line opens them; past that, none, and the terminal is told): objdump takes about
/// 20 ms a routine of a big program, and a broad expression matches thousands (the large
/// test program's `weblist lg::m0`: 26 s and 245 MB with all of them).
pub const WEBLIST_DISASSEMBLED: usize = 100;

/// Where the shell's lines come from.
pub trait Input {
    /// The next line, without its end; `None` at the end of input.
    fn read_line(&mut self, prompt: &str, err: &mut dyn Write) -> Option<String>;
}

/// Lines read from a pipe or a file: the prompt is printed on `err` before each, as pprof
/// does without a terminal.
pub struct Plain<R: BufRead>(pub R);

impl<R: BufRead> Input for Plain<R> {
    fn read_line(&mut self, prompt: &str, err: &mut dyn Write) -> Option<String> {
        let _ = write!(err, "{prompt}");
        let _ = err.flush();
        let mut buf = Vec::new();
        match self.0.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let s = String::from_utf8_lossy(&buf);
                Some(s.trim_end_matches(['\n', '\r']).replace('\r', ""))
            }
        }
    }
}

/// The shell's state: the session and the options that persist between commands.
pub struct Shell {
    session: Session,
    /// The persistent options, as a view (its mode and command are set per command).
    view: View,
    /// The command line's options (for what a view does not hold).
    opts: Options,
    /// Numbers the files reports are written to (`rpprof001.svg`, ...).
    next_file: usize,
    /// `pprof`, or `jeprof` when rpprof runs as jeprof or on a jemalloc profile (its banner
    /// and prompt).
    name: &'static str,
    /// How many commands failed (said on standard error; the shell went on).
    failed: usize,
}

impl Shell {
    /// A shell over `session`, its options starting as the command line set them.
    pub fn new(mut session: Session, opts: &Options) -> Shell {
        session.cache_views = true;
        let mut view = opts.view();
        view.exit_after = false;
        view.mode = Mode::Text;
        view.routines = None;
        view.graph.nodecount = opts.graph.nodecount;
        if opts.pprof_quirks {
            // pprof clears --cum before every command.
            view.cum = false;
        }
        // A jemalloc profile is jeprof's, whatever the command's name.
        let jeprof = opts.jeprof || session.jeprof();
        Shell {
            session,
            view,
            opts: opts.clone(),
            next_file: 1,
            name: if jeprof { "jeprof" } else { "pprof" },
            failed: 0,
        }
    }

    /// The prompt: `(pprof) `, or `(jeprof) ` as jeprof.
    pub fn prompt(&self) -> String {
        format!("({}) ", self.name)
    }

    /// The session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Reads and runs commands until `quit` or the end of input. Reports go to `out`,
    /// everything else to `err`.
    pub fn run(
        &mut self,
        input: &mut dyn Input,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<()> {
        let _ = writeln!(err, "Welcome to {}!  For help, type 'help'.", self.name);
        // The files of viewers still open go with the shell, however it ends.
        struct Tidy;
        impl Drop for Tidy {
            fn drop(&mut self) {
                graphviz::remove_viewer_files();
            }
        }
        let _tidy = Tidy;
        let prompt = self.prompt();
        while let Some(line) = input.read_line(&prompt, err) {
            let start = std::time::Instant::now();
            let go_on = self.execute(&line, out, err)?;
            if self.opts.debug {
                let _ = writeln!(
                    err,
                    "rpprof: command {:?}: {:.4} s",
                    line.trim(),
                    start.elapsed().as_secs_f64()
                );
            }
            if !go_on {
                return Ok(());
            }
        }
        Ok(())
    }

    /// How many commands have failed so far (each said on standard error when it failed).
    pub fn failed(&self) -> usize {
        self.failed
    }

    /// The names `sample_index=` takes for this profile.
    pub fn sample_types(&self) -> Vec<&'static str> {
        self.session
            .main()
            .sample_types
            .iter()
            .map(|t| t.name)
            .collect()
    }

    /// Runs one line; false for `quit`. Errors in a command are printed on `err` and the
    /// shell goes on; an error writing to `out` ends it.
    pub fn execute(
        &mut self,
        line: &str,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<bool> {
        let types = self.sample_types();
        let r = match commands::parse(line, &types) {
            Line::Empty => Ok(()),
            Line::Quit => return Ok(false),
            Line::Help(topic) => {
                // (An unknown topic is a failed command, as an unknown command is.)
                if !help(topic.as_deref(), &types, err) && !self.opts.pprof_quirks {
                    self.failed += 1;
                }
                Ok(())
            }
            Line::Options => {
                self.print_options(err);
                Ok(())
            }
            Line::Set { name, value } => self.set(&name, &value, err),
            // A script's comment line: nothing to do (pprof says "Unknown command").
            Line::Unknown(word) if word.starts_with('#') && !self.opts.pprof_quirks => Ok(()),
            Line::Unknown(word) => {
                let _ = writeln!(err, "Unknown command: try 'help'.");
                // Commands, options, and the words that set an option alone (`lins`).
                let names = COMMANDS
                    .iter()
                    .map(|c| c.0)
                    .chain(OPTIONS.iter().map(|o| o.0))
                    .chain(GRANULARITIES.iter().copied())
                    .chain(types.iter().copied());
                // (`tpo5`: `top` with its count, `top5`.)
                let stem = word.trim_end_matches(|c: char| c.is_ascii_digit());
                let count = &word[stem.len()..];
                // A command run into its argument (`topfoo`, `quitnow`: pprof's reading is
                // `top foo`), the longest.
                let command = COMMANDS
                    .iter()
                    .filter(|c| word.starts_with(c.0))
                    .max_by_key(|c| c.0.len());
                if let Some((name, values, _)) = OPTIONS.iter().find(|o| o.0 == word) {
                    // An option's name alone: it takes a value.
                    let _ = writeln!(err, "({name} is an option: set it with {name}={values})");
                } else if let Some((c, args, _)) = command {
                    // (A command without arguments, `quitnow`: the command.)
                    if args.is_empty() {
                        let _ = writeln!(err, "(did you mean {c}?)");
                    } else {
                        let _ = writeln!(err, "(did you mean {c} {}?)", &word[c.len()..]);
                    }
                } else if let Some(m) = commands::did_you_mean(&word, names) {
                    let _ = writeln!(err, "(did you mean {m}?)");
                } else if !count.is_empty()
                    && !stem.is_empty()
                    && commands::did_you_mean(stem, ["top"].into_iter()).is_some()
                {
                    let _ = writeln!(err, "(did you mean top{count}?)");
                }
                // A script's mistyped command makes its run fail, as a bad value does
                // (pprof's run does not fail: nor does one with --pprof_quirks).
                if !self.opts.pprof_quirks {
                    self.failed += 1;
                }
                Ok(())
            }
            Line::Callgrind(file) => self.callgrind(file, err),
            Line::Report(r) => self.report(&r, out, err),
        };
        match r {
            Ok(()) => Ok(true),
            Err(e) if e.is_broken_pipe() => Err(e),
            Err(e) => {
                // The command line's names of what was typed here (`--list: bad regular
                // expression`): the shell's.
                let msg = e.to_string();
                let msg = ["focus", "ignore", "hide", "show", "list", "disasm", "peek"]
                    .iter()
                    .find_map(|w| {
                        msg.strip_prefix("--")
                            .filter(|m| m.starts_with(&format!("{w}:")))
                    })
                    .unwrap_or(&msg);
                // (`--hide cannot be used with --proto`: the option and command typed here;
                // an option the shell has not, such as --retain, came from the command line.)
                let msg = match msg.split_once(" cannot be used with --proto, ") {
                    Some((opt, why)) => match opt.strip_prefix("--") {
                        Some(o) if OPTIONS.iter().any(|x| x.0 == o) => {
                            format!("{o}= cannot be used with proto, {why}")
                        }
                        _ => format!(
                            "{opt} (given on the command line) cannot be used with proto, {why}"
                        ),
                    },
                    _ => msg.to_string(),
                };
                let _ = writeln!(err, "rpprof: {msg}");
                self.failed += 1;
                Ok(true)
            }
        }
    }

    /// `name=value`.
    fn set(&mut self, name: &str, value: &str, err: &mut dyn Write) -> Result<()> {
        let bool_value = || match value {
            "" | "true" | "t" | "yes" | "1" => Ok(true),
            "false" | "f" | "no" | "0" => Ok(false),
            _ => Err(Error::usage(format!("{name}={value}: say true or false"))),
        };
        let regex = |what: &str| -> Result<Option<String>> {
            if value.is_empty() {
                return Ok(None);
            }
            crate::view::compile(&Some(value.to_string()), what)?;
            Ok(Some(value.to_string()))
        };
        match name {
            "sample_index" => self.view.value = self.sample_index(value)?,
            "granularity" => {
                self.view.granularity = match value {
                    "functions" => Granularity::Functions,
                    "lines" => Granularity::Lines,
                    "files" => Granularity::Files,
                    "addresses" => Granularity::Addresses,
                    _ => {
                        return Err(Error::usage(format!(
                            "granularity={value}: say one of {}",
                            GRANULARITIES.join(", ")
                        )));
                    }
                }
            }
            "focus" => self.view.focus = regex("focus")?,
            "ignore" => self.view.ignore = regex("ignore")?,
            "hide" => self.view.hide = regex("hide")?,
            "show" => self.view.show = regex("show")?,
            "nodecount" => {
                self.view.graph.nodecount = value
                    .parse()
                    .map_err(|_| Error::usage(format!("nodecount={value}: not a number")))?
            }
            "cum" => self.view.cum = bool_value()?,
            "drop_negative" => self.view.drop_negative = bool_value()?,
            "show_bytes" => self.view.show_bytes = bool_value()?,
            "base" => {
                let base = (!value.is_empty()).then_some(value);
                self.session = self.session.with_base(base, err)?;
                self.session.cache_views = true;
                match base {
                    Some(b) => {
                        let _ = writeln!(err, "Subtracting {b} from every report.");
                    }
                    None => {
                        let _ = writeln!(err, "No base profile.");
                    }
                }
            }
            _ => {
                let mut msg = format!("unknown option {name:?}");
                if let Some(m) = commands::did_you_mean(name, OPTIONS.iter().map(|o| o.0)) {
                    msg.push_str(&format!("; did you mean {m}?"));
                }
                msg.push_str(" (\"options\" lists them)");
                return Err(Error::usage(msg));
            }
        }
        Ok(())
    }

    /// The value column named `name` (or numbered), when the profile has it.
    fn sample_index(&self, name: &str) -> Result<Value> {
        let types = self.sample_types();
        let name = match name.parse::<usize>() {
            Ok(i) if i < types.len() => types[i],
            _ => name,
        };
        if !types.contains(&name) {
            let numbered: Vec<String> = types
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{t} ({i})"))
                .collect();
            return Err(Error::usage(format!(
                "sample_index={name}: this {} profile has {}",
                self.session.kind().name(),
                numbered.join(", ")
            )));
        }
        let mut v = self.view.value;
        match name {
            "inuse_space" => v.heap = HeapValue::InuseSpace,
            "inuse_objects" => v.heap = HeapValue::InuseObjects,
            "alloc_space" => v.heap = HeapValue::AllocSpace,
            "alloc_objects" => v.heap = HeapValue::AllocObjects,
            "delay" => v.contention = ContentionValue::TotalDelay,
            "contentions" => v.contention = ContentionValue::Contentions,
            "mean_delay" => v.contention = ContentionValue::MeanDelay,
            _ => {}
        }
        Ok(v)
    }

    /// The name of the value column a view reports.
    fn sample_index_name(&self) -> &'static str {
        let kind = self.session.kind();
        self.session
            .main()
            .sample_types
            .get(self.view.value.index(kind))
            .map_or("?", |t| t.name)
    }

    /// `options`.
    fn print_options(&self, err: &mut dyn Write) {
        let v = &self.view;
        let q = |s: &Option<String>| s.clone().unwrap_or_else(|| "\"\"".to_string());
        let gran = GRANULARITIES[match v.granularity {
            Granularity::Functions => 0,
            Granularity::Lines => 1,
            Granularity::Files => 2,
            Granularity::Addresses => 3,
        }];
        let base = self
            .session
            .base
            .map(|b| self.session.profiles[b].path.display().to_string())
            .unwrap_or_else(|| "\"\"".to_string());
        let rows: Vec<(&str, String, String)> = vec![
            (
                "sample_index",
                self.sample_index_name().to_string(),
                format!("[{}]", self.sample_types().join(" | ")),
            ),
            (
                "granularity",
                gran.to_string(),
                format!("[{}]", GRANULARITIES.join(" | ")),
            ),
            ("focus", q(&v.focus), String::new()),
            ("ignore", q(&v.ignore), String::new()),
            ("hide", q(&v.hide), String::new()),
            ("show", q(&v.show), String::new()),
            ("nodecount", v.graph.nodecount.to_string(), String::new()),
            ("cum", v.cum.to_string(), String::new()),
            ("base", base, String::new()),
            ("drop_negative", v.drop_negative.to_string(), String::new()),
            ("show_bytes", v.show_bytes.to_string(), String::new()),
        ];
        for (name, value, comment) in rows {
            let line = format!("  {name:<15} = {value:<20} {comment}");
            let _ = writeln!(err, "{}", line.trim_end());
        }
    }

    /// The view of a report command: the persistent options, then the command's words.
    fn view_of(&self, r: &Request, verb: Verb) -> View {
        let mut v = self.view.clone();
        v.limit = None;
        v.command = None;
        if r.cum {
            v.cum = true;
        }
        // (pprof's --addresses on the command line stays: its address rows carry the lines.)
        if r.by_lines && v.granularity != Granularity::Addresses {
            v.granularity = Granularity::Lines;
        }
        let quirks = self.opts.pprof_quirks;
        match verb {
            Verb::Top => {
                v.mode = Mode::Text;
                v.limit = Some(match r.lines {
                    // pprof counts a line before it compares: `top0` prints one.
                    Some(0) if quirks => 1,
                    Some(n) => n,
                    None => 10,
                });
                v.command = Some(Command {
                    // pprof reads the focus words of top and then ignores them.
                    focus: if quirks { None } else { r.focus.clone() },
                    ignore: r.ignore.clone(),
                });
            }
            Verb::List | Verb::Weblist | Verb::Disasm => {
                v.mode = if verb == Verb::Disasm {
                    Mode::Disasm
                } else {
                    Mode::List
                };
                v.granularity = Granularity::Addresses;
                v.routines = r.routines.clone();
                v.listing_html = verb == Verb::Weblist;
                v.max_disassembled = Some(WEBLIST_DISASSEMBLED);
                v.command = Some(Command {
                    focus: None,
                    ignore: r.ignore.clone(),
                });
            }
            Verb::Graph(mode) => {
                v.mode = mode;
                v.command = Some(Command {
                    focus: r.focus.clone(),
                    ignore: r.ignore.clone(),
                });
            }
            Verb::Peek => {
                v.mode = Mode::Peek;
                v.routines = r.routines.clone();
                add_words(&mut v, r);
            }
            Verb::Mode(mode) => {
                v.mode = mode;
                add_words(&mut v, r);
            }
        }
        v
    }

    /// A report command.
    fn report(&mut self, r: &Request, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
        let Some(verb) = r.verb else {
            return Ok(());
        };
        if matches!(verb, Verb::List | Verb::Weblist | Verb::Disasm | Verb::Peek)
            && r.routines.is_none()
        {
            return Err(Error::usage(format!(
                "{} needs a regular expression (\"help {}\")",
                verb_name(verb),
                verb_name(verb)
            )));
        }
        if let (Verb::Graph(_), Some(f)) = (verb, &r.output) {
            return Err(Error::usage(format!(
                "{}: a viewer's graph is not written to a file (>{f}): svg, pdf or ps write it there",
                verb_name(verb)
            )));
        }
        if let (Some(first), Some(second)) = (&r.output, r.more_outputs.first()) {
            return Err(Error::usage(format!(
                "{}: one '>' at most (>{first} and >{second})",
                verb_name(verb)
            )));
        }
        if r.output.as_deref() == Some("") {
            let (sign, what) = if r.append {
                (">>", "add the report to")
            } else {
                (">", "write the report to")
            };
            return Err(Error::usage(format!(
                "{}: '{sign}' needs the name of a file to {what}",
                verb_name(verb)
            )));
        }
        let view = self.view_of(r, verb);
        // (A bad expression is said alone, not after a line that takes it.)
        view.check()?;
        if let Some(ignore) = &r.ignore
            && verb.is_pprof()
        {
            let _ = writeln!(err, "Ignoring samples in call stacks that match '{ignore}'");
        }
        if matches!(view.mode, Mode::Web | Mode::Gv | Mode::Evince) && r.output.is_none() {
            // The lines go to the terminal before the viewer starts, and stay if it fails.
            return view.render(&self.session, out, err);
        }
        let mut buf: Vec<u8> = Vec::new();
        view.render(&self.session, &mut buf, err)?;
        if verb == Verb::Weblist {
            // The Total and After lines go to the terminal, the listing to the browser.
            let mut lines = buf.split_inclusive(|&b| b == b'\n').peekable();
            while let Some(l) =
                lines.next_if(|l| l.starts_with(b"Total:") || l.starts_with(b"After "))
            {
                out.write_all(l).map_err(out_err)?;
            }
            let listing: Vec<u8> = lines.flatten().copied().collect();
            if listing.iter().all(u8::is_ascii_whitespace) {
                // (The warning said why: no page of nothing.)
                return Ok(());
            }
            let html = listing_html(&self.session.program_name, &listing);
            // `>file` keeps the page there, as the other reports' go to theirs.
            if let Some(f) = &r.output {
                let path = PathBuf::from(f);
                write_file(&path, html.as_bytes(), r.append)?;
                let _ = writeln!(err, "Generating report in {}", path.display());
                return Ok(());
            }
            return graphviz::open_in_browser("html", html.as_bytes(), true, err);
        }
        let binary = matches!(
            view.mode,
            Mode::Svg | Mode::Pdf | Mode::Ps | Mode::Gif | Mode::Flame | Mode::Proto
        );
        let file = match (&r.output, binary) {
            (Some(f), _) => Some(PathBuf::from(f)),
            (None, true) => Some(self.new_file(extension(view.mode))),
            (None, false) => None,
        };
        match file {
            Some(path) => {
                write_file(&path, &buf, r.append && r.output.is_some())?;
                let _ = writeln!(err, "Generating report in {}", path.display());
            }
            None => {
                out.write_all(&buf).map_err(out_err)?;
                out.flush().map_err(out_err)?;
            }
        }
        Ok(())
    }

    /// `callgrind [file]`: pprof writes the whole profile (no focus) to the file, or to a
    /// temporary one that it opens in kcachegrind.
    fn callgrind(&mut self, file: Option<String>, err: &mut dyn Write) -> Result<()> {
        match file.as_deref() {
            Some("") => {
                return Err(Error::usage(
                    "callgrind: '>' needs the name of a file to write the report to",
                ));
            }
            Some(f) if f.starts_with('>') => {
                return Err(Error::usage(format!(
                    "callgrind: a callgrind file is written whole, not added to ('>{f}'): write it with '>{}'",
                    &f[1..]
                )));
            }
            _ => {}
        }
        let mut v = self.view.clone();
        v.mode = Mode::Callgrind;
        v.command = None;
        let mut buf = Vec::new();
        v.render(&self.session, &mut buf, err)?;
        let (path, open) = match file {
            Some(f) => (PathBuf::from(f), false),
            None => (self.new_file("callgrind"), true),
        };
        let _ = writeln!(err, "Writing callgrind file to '{}'.", path.display());
        write_file(&path, &buf, false)?;
        if open {
            if graphviz::in_path("kcachegrind") {
                let _ = writeln!(err, "Starting 'kcachegrind {}'", path.display());
                let _ = std::process::Command::new("kcachegrind")
                    .arg(&path)
                    .stdin(std::process::Stdio::null())
                    .spawn();
            } else {
                return Err(Error::internal(format!(
                    "kcachegrind is not installed (Debian package kcachegrind); the file stays: {}",
                    path.display()
                )));
            }
        }
        Ok(())
    }

    /// A new file name in the current directory for a report: `rpprof001.svg`, ...
    fn new_file(&mut self, ext: &str) -> PathBuf {
        loop {
            let p = PathBuf::from(format!("rpprof{:03}.{ext}", self.next_file));
            self.next_file += 1;
            if !p.exists() {
                return p;
            }
        }
    }
}

/// Go pprof's commands apply their focus and ignore words as `focus=` and `ignore=` would,
/// for this command only.
fn add_words(v: &mut View, r: &Request) {
    let cat = |a: &Option<String>, b: &Option<String>| match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}|{b}")),
        (a, b) => a.clone().or_else(|| b.clone()),
    };
    v.focus = cat(&v.focus, &r.focus);
    v.ignore = cat(&v.ignore, &r.ignore);
}

fn verb_name(v: Verb) -> &'static str {
    match v {
        Verb::Top => "top",
        Verb::List => "list",
        Verb::Weblist => "weblist",
        Verb::Disasm => "disasm",
        Verb::Peek => "peek",
        Verb::Graph(Mode::Gv) => "gv",
        Verb::Graph(Mode::Evince) => "evince",
        Verb::Graph(_) => "web",
        // (Each mode has its word: "report" cannot be reached.)
        Verb::Mode(m) => MODES
            .iter()
            .find(|(_, mode)| *mode == m)
            .map_or("report", |(name, _)| name),
    }
}

fn extension(m: Mode) -> &'static str {
    match m {
        Mode::Svg | Mode::Flame => "svg",
        Mode::Pdf => "pdf",
        Mode::Ps => "ps",
        Mode::Gif => "gif",
        Mode::Proto => "pb.gz",
        _ => "txt",
    }
}

fn write_file(path: &Path, data: &[u8], append: bool) -> Result<()> {
    use std::io::Write as _;
    let written = if append {
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .and_then(|mut f| f.write_all(data))
    } else {
        std::fs::write(path, data)
    };
    // (Not "No such file", the message for an input: the folder is missing.)
    written.map_err(|e| {
        Error::internal(format!(
            "cannot write {}: {}",
            path.display(),
            crate::error::io_text(&e)
        ))
    })
}

fn out_err(e: std::io::Error) -> Error {
    crate::session::io_err(e)
}

/// `weblist`: the page of the listing (an HTML fragment, see
/// [`crate::report::list::write_html`]), its lines opening on a click to show their
/// instructions.
fn listing_html(program: &str, listing: &[u8]) -> String {
    let body = String::from_utf8_lossy(listing);
    let title = crate::report::esc(program);
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>\n\
<style>{}</style></head>\n<body><h3>{title}</h3><div class=\"listing\">\n{body}</div></body></html>\n",
        crate::report::list::HTML_STYLE
    )
}

/// One row of the help: `left` in a column, `what` beside it, wrapped within 80 columns; a
/// `left` too wide for its column has the text on the lines after it.
fn help_row(err: &mut dyn Write, left: &str, what: &str) {
    const COLUMN: usize = 26;
    const WIDTH: usize = 80;
    let indent = " ".repeat(2 + COLUMN + 1);
    let mut line = if left.len() <= COLUMN {
        format!("  {left:<COLUMN$} ")
    } else {
        let _ = writeln!(err, "  {left}");
        indent.clone()
    };
    let mut empty = true;
    for word in what.split(' ') {
        if !empty && line.len() + 1 + word.len() > WIDTH {
            let _ = writeln!(err, "{}", line.trim_end());
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    let _ = writeln!(err, "{}", line.trim_end());
}

/// `help` and `help <topic>`, on `err`; `types` are the names `sample_index=` takes for the
/// profile (the option's list names every profile kind's). False for a topic it does not
/// know.
fn help(topic: Option<&str>, types: &[&str], err: &mut dyn Write) -> bool {
    let joined = types.join(" | ");
    let values_of = |name: &str, values: &'static str| -> String {
        if name == "sample_index" && !types.is_empty() {
            joined.clone()
        } else {
            values.to_string()
        }
    };
    if let Some(t) = topic {
        let asked = t.trim();
        // The names a command also goes by: `exit`, `o`, `top5`, `topN`.
        let t = match asked {
            "exit" => "quit",
            "o" => "options",
            _ => match asked.strip_suffix('N') {
                Some(c) if COMMANDS.iter().any(|k| k.0 == c) => c,
                _ => asked.trim_end_matches(|c: char| c.is_ascii_digit()),
            },
        };
        if let Some((name, args, what)) = COMMANDS.iter().find(|c| c.0 == t) {
            let _ = writeln!(err, "{}\n    {what}", format!("{name} {args}").trim_end());
            if ["top", "text", "web", "gv", "evince"].contains(name) {
                let _ = writeln!(
                    err,
                    "    Focus words keep the stacks through a matching function, -words drop them;\n    each is reported in an \"After focusing\" / \"After ignoring\" line."
                );
            }
            return true;
        }
        if let Some((name, values, what)) = OPTIONS.iter().find(|o| o.0 == t) {
            let _ = writeln!(err, "{name}={}\n    {what}", values_of(name, values));
            return true;
        }
        // A granularity or a sample type alone: the option it sets.
        for option in ["granularity", "sample_index"] {
            let Some((name, values, what)) = OPTIONS.iter().find(|o| o.0 == option) else {
                continue;
            };
            if values.split(" | ").any(|v| v == t) {
                let _ = writeln!(err, "{t}\n    the same as {name}={t}: {what}");
                if name == &"sample_index" && !types.is_empty() && !types.contains(&t) {
                    let _ = writeln!(err, "    (this profile's values: {joined})");
                }
                return true;
            }
        }
        let _ = writeln!(err, "Unknown command: {asked}");
        return false;
    }
    let _ = writeln!(
        err,
        "rpprof's shell: pprof's commands, and Go pprof's options.\n\nCommands:"
    );
    for (name, args, what) in COMMANDS {
        help_row(err, &format!("{name} {args}"), what);
    }
    let _ = writeln!(
        err,
        "\nOptions (name=value; they stay set; \"options\" shows them):"
    );
    for (name, values, what) in OPTIONS {
        help_row(err, &format!("{name}={}", values_of(name, values)), what);
    }
    let _ = writeln!(
        err,
        "\nA sample type (alloc_space, ...) or a granularity (lines, ...) alone sets that\noption. \
Any report command takes >file to write the report to a file; >>file\nadds it at the file's end.\n\
\"help <command>\" or \"help <option>\" says more."
    );
    true
}
