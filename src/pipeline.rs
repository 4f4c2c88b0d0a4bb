//! The whole run: read the profiles, subtract the base, symbolize, aggregate, render.

use std::io::Write;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::error::{Error, ErrorKind, Result};
use crate::graph::{self, Granularity, Stacks};
use crate::profile::{self, Kind, Profile};
use crate::report::{Mode, text};
use crate::symbolize::{self, NoSymbols, SymbolTable, Symbolize, embedded::Embedded, local::Local};
use crate::units::Measure;

/// Which heap value to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeapValue {
    /// In-use bytes (default).
    #[default]
    InuseSpace,
    /// In-use objects.
    InuseObjects,
    /// Allocated bytes.
    AllocSpace,
    /// Allocated objects.
    AllocObjects,
}

/// Which contention value to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContentionValue {
    /// Total delay (default).
    #[default]
    TotalDelay,
    /// Number of contentions.
    Contentions,
    /// Mean delay.
    MeanDelay,
}

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
    /// `--pprof_quirks`: reproduce google-pprof's known mistakes, for byte-identical output
    /// (see README's differences table).
    pub pprof_quirks: bool,
}

/// Stage timing for `--debug`.
struct Timer {
    on: bool,
    last: std::time::Instant,
}

impl Timer {
    fn new(on: bool) -> Timer {
        Timer {
            on,
            last: std::time::Instant::now(),
        }
    }

    fn stage(&mut self, err: &mut dyn Write, what: &str) {
        if self.on {
            let now = std::time::Instant::now();
            let _ = writeln!(
                err,
                "rpprof: {what}: {:.3} s{}",
                (now - self.last).as_secs_f64(),
                memory()
            );
            self.last = now;
        }
    }
}

/// The process's resident and peak resident memory, where `/proc` tells them.
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(" (resident {rss}, peak {peak})"),
        _ => String::new(),
    }
}

/// A profile argument that was read.
struct Input {
    path: PathBuf,
    profile: Profile,
}

fn compile(re: &Option<String>, what: &str) -> Result<Option<Regex>> {
    match re {
        None => Ok(None),
        Some(s) => Regex::new(s)
            .map(Some)
            .map_err(|e| Error::usage(format!("--{what}: bad regular expression {s:?}: {e}"))),
    }
}

/// True for `http://`, `https://` and `host:port[/path]` arguments.
pub fn is_remote(arg: &str) -> bool {
    if arg.starts_with("http://") || arg.starts_with("https://") {
        return true;
    }
    let hostport = arg.split('/').next().unwrap_or("");
    match hostport.rsplit_once(':') {
        Some((host, port)) => {
            !host.is_empty()
                && !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && host.bytes().all(|b| {
                    b.is_ascii_alphanumeric()
                        || b == b'.'
                        || b == b'-'
                        || b == b'['
                        || b == b']'
                        || b == b':'
                })
        }
        None => false,
    }
}

fn read_file(arg: &str) -> Result<(PathBuf, Vec<u8>)> {
    let path = PathBuf::from(arg);
    match std::fs::read(&path) {
        Ok(d) => Ok((path, d)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && is_remote(arg) => Err(
            Error::not_implemented(format!("fetching the remote profile {arg}")),
        ),
        Err(e) => Err(Error::io(&path, e)),
    }
}

fn read_profile(arg: &str) -> Result<Input> {
    let (path, data) = read_file(arg)?;
    let profile = profile::parse(&data, &path)?;
    Ok(Input { path, profile })
}

/// What the first argument is.
enum First {
    /// A program (ELF or anything that is not a profile), maybe missing.
    Program,
    /// A profile: every argument is a profile.
    Profile,
}

fn classify(arg: &str, n_args: usize) -> Result<First> {
    let path = Path::new(arg);
    if !path.exists() {
        if is_remote(arg) {
            return Err(Error::not_implemented(format!(
                "fetching the remote profile {arg}"
            )));
        }
        if n_args < 2 {
            return Err(Error::io(
                path,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        return Ok(First::Program);
    }
    let mut head = [0u8; 64];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| Error::io(path, e))?;
    let head = &head[..n];
    if head.starts_with(b"\x7fELF") {
        return Ok(First::Program);
    }
    if profile::looks_like_profile(head) {
        return Ok(First::Profile);
    }
    if n_args < 2 {
        return Ok(First::Profile);
    }
    Ok(First::Program)
}

/// The program named by a memory map: the first absolute path that is not a library.
fn program_from_map(p: &Profile) -> Option<PathBuf> {
    p.mappings
        .iter()
        .filter(|m| m.path.starts_with('/'))
        .find(|m| !m.path.contains(".so") && !m.path.ends_with(" (deleted)"))
        .map(|m| PathBuf::from(&m.path))
}

/// Runs rpprof: reports go to `out`, messages to `err`.
pub fn run(opts: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let Some(first) = opts.args.first() else {
        return Err(Error::usage("Did not specify program"));
    };
    let mut timer = Timer::new(opts.debug);
    // Sort out the program and the profiles.
    let mut program: Option<PathBuf> = None;
    let mut profile_args: Vec<&String> = Vec::new();
    match classify(first, opts.args.len())? {
        First::Program => {
            program = Some(PathBuf::from(first));
            profile_args.extend(opts.args.iter().skip(1));
            if profile_args.is_empty() {
                return Err(Error::usage("Did not specify profile file"));
            }
        }
        First::Profile => profile_args.extend(opts.args.iter()),
    }
    // pprof reads the first profile, then the others from the last argument back.
    let mut inputs: Vec<Input> = Vec::with_capacity(profile_args.len());
    inputs.push(read_profile(profile_args[0])?);
    for a in profile_args[1..].iter().rev() {
        inputs.push(read_profile(a)?);
    }
    let base = match &opts.base {
        Some(b) => Some(read_profile(b)?),
        None => None,
    };
    timer.stage(err, "read profiles");
    let symbolized = inputs[0].profile.symbols.is_some();
    if program.is_some()
        && let Some(i) = inputs.iter().find(|i| i.profile.symbols.is_some())
    {
        return Err(Error::refused(format!(
            "{} is a symbolized profile: it cannot be used with a program argument; try again without {}",
            i.path.display(),
            first
        )));
    }
    let main = &inputs[0].profile;
    let jeprof = opts.jeprof || main.is_jemalloc();
    for i in inputs.iter().skip(1).chain(base.iter()) {
        check_same_kind(
            &inputs[0],
            i,
            base.as_ref().is_some_and(|b| std::ptr::eq(b, i)),
        )?;
    }
    let kind = main.kind;
    let index = value_index(kind, opts);
    let measure = Measure::of(kind, index, opts.show_bytes);
    let w = main.address_width;

    for i in inputs.iter().chain(base.iter()) {
        for n in &i.profile.notes {
            writeln!(err, "{n}").map_err(io_err)?;
        }
    }

    // Every address of every profile read, to symbolize.
    let mut addrs: Vec<u64> = inputs
        .iter()
        .chain(base.iter())
        .flat_map(|i| i.profile.addresses())
        .collect();
    addrs.sort_unstable();
    addrs.dedup();
    addrs.shrink_to_fit();

    // The samples become one stack → value map; they are kept only where a report lists
    // them (--stacks) or reads them per thread (--thread).
    let keep_samples = opts.stacks || opts.thread.is_some();
    let mut merged = Stacks::default();
    for i in inputs.iter_mut() {
        if keep_samples {
            for s in &i.profile.samples {
                merged.add_ref(&s.stack, s.values.get(index).copied().unwrap_or(0.0));
            }
        } else {
            for s in std::mem::take(&mut i.profile.samples) {
                let v = s.values.get(index).copied().unwrap_or(0.0);
                merged.add(s.stack, v);
            }
        }
    }
    if let Some(b) = &base {
        merged = merged.subtract(&stacks_of(&b.profile.samples, index), opts.drop_negative);
    }
    let main = &inputs[0].profile;
    let mut warnings = Vec::new();
    let sym_opts = symbolize::Options {
        lib_prefix: opts.lib_prefix.clone(),
        add_lib: opts.add_lib.clone(),
        keep_templates: opts.keep_templates,
        jeprof,
        address_width: w,
        binutils_inline_names: opts.pprof_quirks,
    };
    let symbols: SymbolTable = if symbolized {
        let mut names = std::collections::BTreeMap::new();
        for i in inputs.iter().chain(base.iter()) {
            if let Some(s) = &i.profile.symbols {
                names.extend(s.names.iter().map(|(a, n)| (*a, n.clone())));
            }
        }
        Embedded {
            names: &names,
            address_width: w,
            keep_templates: opts.keep_templates,
        }
        .symbolize(&addrs, &mut warnings)
    } else {
        let prog = program.clone().or_else(|| program_from_map(main));
        match prog {
            Some(p) => Local::new(&p, &main.mappings, &sym_opts).symbolize(&addrs, &mut warnings),
            None => {
                warnings.push(format!(
                    "Warning: {}: no program given and none named in its memory map; addresses print as hex",
                    inputs[0].path.display()
                ));
                NoSymbols.symbolize(&addrs, &mut warnings)
            }
        }
    };
    for w in &warnings {
        writeln!(err, "{w}").map_err(io_err)?;
    }
    timer.stage(err, &format!("symbolize {} addresses", addrs.len()));

    let gopts = graph::Options {
        granularity: opts.granularity,
        keep_templates: opts.keep_templates,
        show_addresses: opts.show_addresses,
        no_auto_signal_frames: opts.no_auto_signal_frames,
        jeprof,
        address_width: w,
        retain: compile(&opts.retain, "retain")?,
        exclude: compile(&opts.exclude, "exclude")?,
    };
    let focus = compile(&opts.focus, "focus")?;
    let ignore = compile(&opts.ignore, "ignore")?;
    let topts = text::TextOptions {
        cum: opts.cum,
        measure,
        granularity: opts.granularity,
        keep_templates: opts.keep_templates,
        address_width: w,
        limit: None,
        unknown_leaf: opts.pprof_quirks,
    };
    let ctx = Ctx {
        symbols: &symbols,
        kind,
        gopts: &gopts,
        focus: focus.as_ref(),
        ignore: ignore.as_ref(),
        topts: &topts,
        opts,
    };

    match opts.mode {
        Mode::Text => {}
        m => {
            return Err(Error::not_implemented(format!(
                "the {} output mode",
                m.flag()
            )));
        }
    }

    let mut buf: Vec<u8> = Vec::new();
    let mut notes = Vec::new();
    if jeprof && opts.thread.is_some() {
        let want = opts.thread.as_deref().unwrap_or("*");
        if main.threads.is_empty() {
            writeln!(
                err,
                "Warning: {}: no per-thread data for --thread",
                inputs[0].path.display()
            )
            .map_err(io_err)?;
        }
        for (t, samples) in &main.threads {
            if want == "*" || want.parse::<u64>().ok() == Some(*t) {
                let st = stacks_of(samples, index);
                ctx.report(&mut buf, st, Some(&t.to_string()), &[], &mut notes)?;
            }
        }
    } else {
        // The leak listing of --stacks covers every record read, base included.
        let leaks: Vec<text::LeakRecord<'_>> = if opts.stacks && !jeprof {
            inputs
                .iter()
                .chain(base.iter())
                .filter(|i| matches!(i.profile.kind, Kind::Heap | Kind::Growth))
                .flat_map(|i| i.profile.samples.iter())
                .map(|s| text::LeakRecord {
                    objects: s.values[0],
                    bytes: s.values[1],
                    stack: &s.stack,
                })
                .collect()
        } else {
            Vec::new()
        };
        ctx.report(&mut buf, merged, None, &leaks, &mut notes)?;
    }
    timer.stage(err, "aggregate and render");
    for n in &notes {
        writeln!(err, "{n}").map_err(io_err)?;
    }
    out.write_all(&buf).map_err(io_err)?;
    out.flush().map_err(io_err)?;
    Ok(())
}

struct Ctx<'a> {
    symbols: &'a SymbolTable,
    kind: Kind,
    gopts: &'a graph::Options,
    focus: Option<&'a Regex>,
    ignore: Option<&'a Regex>,
    topts: &'a text::TextOptions,
    opts: &'a Options,
}

impl Ctx<'_> {
    /// pprof's per-profile part of `Main` (jeprof's `FilterAndPrint`).
    fn report(
        &self,
        out: &mut Vec<u8>,
        stacks: Stacks,
        thread: Option<&str>,
        leaks: &[text::LeakRecord<'_>],
        notes: &mut Vec<String>,
    ) -> Result<()> {
        let total = stacks.total();
        let mut st =
            graph::remove_uninteresting(stacks, self.symbols, self.kind, self.gopts, notes);
        if let Some(re) = self.focus {
            st = graph::filter(st, self.symbols, re, true, self.gopts);
        }
        if let Some(re) = self.ignore {
            st = graph::filter(st, self.symbols, re, false, self.gopts);
        }
        let reduced = graph::reduce(&st, self.symbols, self.gopts);
        let topts = self.topts;
        text::write_total(out, total, topts.measure, thread).map_err(io_err)?;
        if self.opts.stacks && !self.gopts.jeprof {
            text::write_stacks(out, &st, self.symbols, topts).map_err(io_err)?;
            text::write_leaks(out, leaks, self.symbols, topts).map_err(io_err)?;
        }
        text::write_table(out, &reduced, self.symbols, topts).map_err(io_err)?;
        Ok(())
    }
}

fn io_err(e: std::io::Error) -> Error {
    Error {
        path: None,
        location: crate::error::Location::None,
        kind: ErrorKind::Io(e),
    }
}

fn stacks_of(samples: &[profile::Sample], index: usize) -> Stacks {
    let mut s = Stacks::default();
    for x in samples {
        s.add_ref(&x.stack, x.values.get(index).copied().unwrap_or(0.0));
    }
    s
}

fn value_index(kind: Kind, opts: &Options) -> usize {
    match kind {
        Kind::Heap | Kind::Growth => match opts.heap_value {
            HeapValue::InuseObjects => 0,
            HeapValue::InuseSpace => 1,
            HeapValue::AllocObjects => 2,
            HeapValue::AllocSpace => 3,
        },
        Kind::Contention => match opts.contention_value {
            ContentionValue::TotalDelay => 0,
            ContentionValue::Contentions => 1,
            ContentionValue::MeanDelay => 2,
        },
        Kind::Cpu | Kind::Thread => 0,
    }
}

fn check_same_kind(main: &Input, other: &Input, is_base: bool) -> Result<()> {
    let (a, b) = (&main.profile, &other.profile);
    if a.kind != b.kind {
        let verb = if is_base { "subtract" } else { "add" };
        let prep = if is_base { "from" } else { "to" };
        return Err(Error::refused(format!(
            "cannot {verb} a {} profile ({}) {prep} a {} profile ({}): sample types differ",
            b.kind.name(),
            other.path.display(),
            a.kind.name(),
            main.path.display()
        )));
    }
    Ok(())
}
