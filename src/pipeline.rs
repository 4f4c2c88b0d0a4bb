//! The command-line run: one [`Session`] loaded, one [`View`] rendered.
//!
//! [`Options`] is everything the command line says; [`run`] splits it into what loading needs
//! ([`LoadOptions`]) and what the report asks for ([`View`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::graph::Granularity;
use crate::profile::Kind;
use crate::report::{Mode, symbols};
pub use crate::session::{ContentionValue, HeapValue, is_remote};
use crate::session::{LoadOptions, Session, Value, io_err};
use crate::shell::terminal::{Interruptible, Terminal};
use crate::shell::{Plain, Shell};
pub use crate::view::CallGraph;
use crate::view::{BaseChoice, View};

/// Everything a run needs, as the command line gives it.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The program and the profiles, or only profiles.
    pub args: Vec<String>,
    /// `--base`.
    pub base: Option<String>,
    /// Output mode.
    pub mode: Mode,
    /// Report granularity.
    pub granularity: Granularity,
    /// `--cum`.
    pub cum: bool,
    /// `--stacks`.
    pub stacks: bool,
    /// Heap value.
    pub heap_value: HeapValue,
    /// Contention value.
    pub contention_value: ContentionValue,
    /// The value options given (`--alloc_space`, `--contentions`, ...), each with the kind
    /// of profile it is for: one given for another kind is said to be ignored.
    pub value_flags: Vec<(&'static str, Kind)>,
    /// `--show_bytes`.
    pub show_bytes: bool,
    /// `--drop_negative`.
    pub drop_negative: bool,
    /// `--focus`.
    pub focus: Option<String>,
    /// `--ignore`.
    pub ignore: Option<String>,
    /// `--no_strip_temp`.
    pub keep_templates: bool,
    /// `--show_addresses`.
    pub show_addresses: bool,
    /// `--no-auto-signal-frm`.
    pub no_auto_signal_frames: bool,
    /// `--lib_prefix`, split at commas.
    pub lib_prefix: Vec<String>,
    /// `--add_lib`.
    pub add_lib: Option<String>,
    /// jeprof's `--thread`.
    pub thread: Option<String>,
    /// jeprof's `--retain`.
    pub retain: Option<String>,
    /// jeprof's `--exclude`.
    pub exclude: Option<String>,
    /// Behave as jeprof (the program was invoked as `jeprof`).
    pub jeprof: bool,
    /// `--debug`: print the time each stage took to the message stream.
    pub debug: bool,
    /// `--list=<re>` (or `--disasm=<re>`): the routines to show.
    pub routines: Option<String>,
    /// `--seconds`: length of a remote CPU or contention profile (30).
    pub seconds: Option<u64>,
    /// `--pprof_quirks`: reproduce google-pprof's known mistakes, for byte-identical output
    /// (see README's differences table).
    pub pprof_quirks: bool,
    /// `--full_names`: `--flame` draws full function names rather than short ones.
    pub full_names: bool,
    /// `--tools` (or `$PPROF_TOOLS`): where `--disasm` finds objdump.
    pub tools: Option<String>,
    /// The process ends after the run (the command-line tool): the big tables are left
    /// for the system to reclaim rather than freed one allocation at a time.
    pub exit_after: bool,
    /// Call graph options (`--dot` and the modes drawn from it).
    pub graph: CallGraph,
    /// `--http`: serve the web UI on `[host]:port` instead of printing a report.
    pub http: Option<String>,
    /// `--no_browser`: with `--http`, do not open a browser.
    pub no_browser: bool,
    /// `--every`: with `--http`, fetch the remote profiles again so often.
    pub every: Option<std::time::Duration>,
    /// `--max_profiles_kept`: with `--http`, how many profiles the history keeps (32).
    pub max_profiles_kept: Option<usize>,
    /// The symbol cache's folder; `None` with `--no_cache` (see [`crate::symbolize::cache`]).
    pub cache: Option<PathBuf>,
}

impl Options {
    /// What loading needs.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            args: self.args.clone(),
            base: self.base.clone(),
            lib_prefix: self.lib_prefix.clone(),
            add_lib: self.add_lib.clone(),
            keep_templates: self.keep_templates,
            jeprof: self.jeprof,
            pprof_quirks: self.pprof_quirks,
            seconds: self.seconds,
            debug: self.debug,
            value: self.value(),
            cache: self.cache.clone(),
            series: matches!(self.mode, Mode::Trend(_)),
        }
    }

    /// The value column asked for.
    pub fn value(&self) -> Value {
        Value {
            heap: self.heap_value,
            contention: self.contention_value,
        }
    }

    /// The report asked for.
    pub fn view(&self) -> View {
        View {
            mode: self.mode,
            granularity: self.granularity,
            cum: self.cum,
            stacks: self.stacks,
            value: self.value(),
            show_bytes: self.show_bytes,
            drop_negative: self.drop_negative,
            focus: self.focus.clone(),
            ignore: self.ignore.clone(),
            hide: None,
            show: None,
            show_addresses: self.show_addresses,
            no_auto_signal_frames: self.no_auto_signal_frames,
            thread: self.thread.clone(),
            retain: self.retain.clone(),
            exclude: self.exclude.clone(),
            routines: self.routines.clone(),
            routines_by_short_name: false,
            max_routines: None,
            listing_html: false,
            max_disassembled: None,
            pprof_quirks: self.pprof_quirks,
            full_names: self.full_names,
            tools: self.tools.clone(),
            graph: self.graph.clone(),
            limit: None,
            profiles: None,
            profile_names: None,
            base: BaseChoice::Session,
            exit_after: self.exit_after,
            command: None,
        }
    }
}

/// Runs rpprof: reports go to `out`, messages to `err`; `--symbols` and the shell read
/// standard input (the shell with a line editor when it is a terminal).
pub fn run(opts: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    use std::io::IsTerminal;
    if opts.http.is_some() {
        return crate::web::serve(opts, err);
    }
    if opts.mode == Mode::Interactive && std::io::stdin().is_terminal() {
        let view = opts.view();
        view.check()?;
        let mut shell = load_shell(opts, err)?;
        if let Some(mut t) = Terminal::new(&shell, err) {
            return shell.run(&mut t, &mut Interruptible(out), err);
        }
        return shell.run(&mut Plain(std::io::stdin().lock()), out, err);
    }
    run_with_input(opts, &mut std::io::stdin().lock(), out, err)
}

/// [`run`], with `input` as standard input.
pub fn run_with_input(
    opts: &Options,
    input: &mut dyn std::io::BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    let Some(first) = opts.args.first() else {
        return Err(Error::usage("Did not specify program"));
    };
    // Bad regular expressions are usage errors: found before any work is done.
    let view = opts.view();
    view.check()?;
    if opts.mode == Mode::Symbols {
        // pprof: the program, then addresses and the memory map on standard input.
        let program = PathBuf::from(first);
        if !program.exists() {
            return Err(Error::io(
                &program,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        let mut sym_opts = opts.load_options().symbol_options(16);
        sym_opts.symbols_input = true;
        let mut warnings = Vec::new();
        let mut buf = Vec::new();
        symbols::write(&mut buf, &program, input, &sym_opts, &mut warnings).map_err(io_err)?;
        for w in &warnings {
            writeln!(err, "{w}").map_err(io_err)?;
        }
        out.write_all(&buf).map_err(io_err)?;
        return out.flush().map_err(io_err);
    }
    if opts.mode == Mode::Interactive {
        let mut shell = load_shell(opts, err)?;
        shell.run(&mut Plain(input), out, err)?;
        // Commands from a pipe or a file (a script): a failed one makes the exit status 1,
        // once the others have run (pprof dies at the first).
        if shell.failed() > 0 {
            // (After the last prompt, which has no line end.)
            let _ = writeln!(err);
        }
        return match shell.failed() {
            0 => Ok(()),
            1 => Err(Error::refused("a shell command failed (said above)")),
            n => Err(Error::refused(format!(
                "{n} shell commands failed (said above)"
            ))),
        };
    }
    // (`View::check` refuses what --proto cannot apply to frames; this needs the base.)
    if opts.mode == Mode::Proto && opts.drop_negative && opts.base.is_some() {
        return Err(crate::view::proto_refuses("drop_negative"));
    }
    // A remote profile without a local program is named by its server, which gives
    // function names, not source lines: refused before its seconds are spent, as pprof.
    if opts.granularity == Granularity::Lines
        && opts
            .args
            .first()
            .is_some_and(|a| crate::session::is_remote(a) && !Path::new(a).exists())
    {
        return Err(lines_need_a_binary());
    }
    let trend = matches!(opts.mode, Mode::Trend(_));
    let mut session = if trend {
        // What the readers say about each dump ("Adjusting heap profiles for 1-in-8192
        // sampling rate") is said once for the series.
        Session::load(&opts.load_options(), &mut Once::new(err))?
    } else {
        Session::load(&opts.load_options(), err)?
    };
    warn_foreign_value_flags(opts, &session, err)?;
    // A symbolized profile (or one the server named) has function names, no source lines.
    if opts.granularity == Granularity::Lines
        && session.profiles.iter().any(|l| l.profile.symbols.is_some())
    {
        return Err(lines_need_a_binary());
    }
    if trend && opts.drop_negative {
        writeln!(
            err,
            "Warning: --drop_negative is for a report against a --base; --trend has none (each dump's values are its own): ignored"
        )
        .map_err(io_err)?;
    }
    let said_why_empty = no_allocation_totals(opts, &session);
    // A trend renders a table per dump from the one session.
    session.cache_views = trend;
    let mut counted = Counted {
        inner: out,
        bytes: 0,
    };
    let r = view.render(&session, &mut counted, err);
    // A text report of a total of 0 is nothing at all, as pprof prints it: said why (a
    // --thread that chose no thread has said so).
    let chose_threads = opts.thread.is_some() && session.jeprof();
    if r.is_ok()
        && counted.bytes == 0
        && opts.mode == Mode::Text
        && !said_why_empty
        && !chose_threads
    {
        let old_format = session.profiles.iter().any(|l| {
            l.profile
                .notes
                .iter()
                .any(|n| n == crate::profile::OLD_FORMAT_NOTE)
        });
        let why = if opts.contention_value == crate::session::ContentionValue::Contentions
            && old_format
        {
            "an old-format contention profile (--- Stacks:) records delays only, no counts: --contentions has nothing to show (without it, the report shows the delays)"
        } else if opts.base.is_some() {
            "the profile less its base is 0 everywhere (the same profile, or one that did not change)"
        } else if session
            .profiles
            .iter()
            .all(|l| l.profile.samples.is_empty())
        {
            "the profile holds no samples (nothing was recorded)"
        } else {
            "the profile's values are 0 everywhere"
        };
        writeln!(err, "Warning: the report is empty: {why}").map_err(io_err)?;
    }
    if opts.exit_after {
        // The symbol cache's entries are still written in full.
        let writes = session.take_cache_writes();
        std::mem::forget(session);
        drop(writes);
    }
    r
}

/// `--lines` where only function names are to be had (pprof's message).
fn lines_need_a_binary() -> Error {
    Error::usage(
        "--lines cannot be used without a binary (a symbolized profile, or one its server names, holds function names, not source lines)",
    )
}

/// The interactive shell over the session `opts` load, its options' warnings said.
fn load_shell(opts: &Options, err: &mut dyn Write) -> Result<Shell> {
    let session = Session::load(&opts.load_options(), err)?;
    warn_foreign_value_flags(opts, &session, err)?;
    Ok(Shell::new(session, opts))
}

/// Says which value options (`--contentions` on a heap profile, `--alloc_space` on a
/// contention one) are for another kind of profile than the session's, and so change nothing
/// (as in pprof, which says nothing); and so of `--thread` on a profile not jemalloc's.
fn warn_foreign_value_flags(opts: &Options, session: &Session, err: &mut dyn Write) -> Result<()> {
    let kind = session.kind();
    // jeprof's --thread picks records only jemalloc's dumps have (pprof has no --thread).
    if let (Some(_), false, Some(main)) = (&opts.thread, session.jeprof(), session.profiles.first())
    {
        writeln!(
            err,
            "Warning: --thread is for jemalloc's heap profiles (their records per thread); {} is none: ignored, the report is of every thread",
            main.path.display()
        )
        .map_err(io_err)?;
    }
    for (flag, for_kind) in &opts.value_flags {
        let applies = match for_kind {
            Kind::Heap => matches!(kind, Kind::Heap | Kind::Growth),
            k => *k == kind,
        };
        if !applies {
            writeln!(
                err,
                "Warning: {flag} is for {} profiles; this is a {} profile: ignored",
                for_kind.name(),
                kind.name()
            )
            .map_err(io_err)?;
        }
    }
    Ok(())
}

/// True when the report of `opts` will say the profiles record no allocation totals (see
/// [`Session::no_allocation_totals`]; the view says it).
fn no_allocation_totals(opts: &Options, session: &Session) -> bool {
    let all: Vec<usize> = (0..session.profiles.len()).collect();
    let value = crate::session::Value {
        heap: opts.heap_value,
        ..Default::default()
    };
    session.no_allocation_totals(&all, value).is_some()
}

/// A writer that counts the bytes written through it.
struct Counted<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A message stream that lets each line through once.
struct Once<'a> {
    inner: &'a mut dyn Write,
    seen: std::collections::HashSet<Vec<u8>>,
    line: Vec<u8>,
}

impl<'a> Once<'a> {
    fn new(inner: &'a mut dyn Write) -> Once<'a> {
        Once {
            inner,
            seen: Default::default(),
            line: Vec::new(),
        }
    }
}

impl Write for Once<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            self.line.push(b);
            if b == b'\n' {
                let line = std::mem::take(&mut self.line);
                if !self.seen.contains(&line) {
                    self.inner.write_all(&line)?;
                    self.seen.insert(line);
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.inner.write_all(&line)?;
        }
        self.inner.flush()
    }
}

impl Drop for Once<'_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// `--cache_clear` and `--cache_list`: empties the symbol cache, lists its entries (newest
/// first), or both in that order.
pub fn cache_command(clear: bool, list: bool, out: &mut dyn Write) -> Result<()> {
    use crate::symbolize::cache::{Cache, default_dir};
    let Some(dir) = default_dir() else {
        return Err(Error::usage(
            "the symbol cache has no folder: neither XDG_CACHE_HOME (absolute) nor HOME is set",
        ));
    };
    let cache = Cache::new(dir.clone());
    let mb = |b: u64| format!("{:.1} MiB", b as f64 / 1048576.0);
    if clear {
        let (n, bytes, failed) = cache.clear().map_err(|e| Error::io(&dir, e))?;
        writeln!(
            out,
            "Removed {n} {} ({}) from {}",
            if n == 1 { "entry" } else { "entries" },
            mb(bytes),
            dir.display()
        )
        .map_err(io_err)?;
        let more = failed.len().saturating_sub(1);
        if let Some((path, e)) = failed.into_iter().next() {
            let e = match more {
                0 => e,
                n => std::io::Error::new(
                    e.kind(),
                    format!(
                        "{}; and {n} more could not be removed",
                        crate::error::io_text(&e)
                    ),
                ),
            };
            return Err(Error::io(&path, e));
        }
    }
    if list {
        let entries = cache.list().map_err(|e| Error::io(&dir, e))?;
        let total: u64 = entries.iter().map(|e| e.1).sum();
        writeln!(
            out,
            "Symbol cache {}: {} {}, {} (limit {})",
            dir.display(),
            entries.len(),
            if entries.len() == 1 {
                "entry"
            } else {
                "entries"
            },
            mb(total),
            mb(cache.max_bytes())
        )
        .map_err(io_err)?;
        let now = std::time::SystemTime::now();
        for (_, size, used, file, addrs) in entries {
            let age = now.duration_since(used).map_or(0, |d| d.as_secs());
            let age = match age {
                0..120 => format!("{age} s"),
                120..7200 => format!("{} min", age / 60),
                7200..172_800 => format!("{} h", age / 3600),
                _ => format!("{} days", age / 86_400),
            };
            writeln!(
                out,
                "{:>10}  {addrs:>8} addresses  used {age:>8} ago  {file}",
                mb(size)
            )
            .map_err(io_err)?;
        }
    }
    Ok(())
}
