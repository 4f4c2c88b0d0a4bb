//! The whole run: read the profiles, subtract the base, symbolize, aggregate, render.

use std::io::Write;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::error::{Error, ErrorKind, Result};
use crate::graph::{self, Granularity, Stacks};
use crate::profile::{self, Kind, Profile};
use crate::remote;
use crate::report::{
    Mode, callgrind, collapsed, disasm, dot, flame, graphviz, list, proto, raw, symbols, text,
    traces,
};
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
}

/// The call graph options: `--nodecount`, `--nodefraction`, `--edgefraction`,
/// `--maxdegree`, `--heapcheck`, `--scale`.
#[derive(Debug, Clone)]
pub struct CallGraph {
    /// At most so many nodes (80).
    pub nodecount: i64,
    /// Hide nodes at or below this fraction of the total (0.005).
    pub nodefraction: f64,
    /// Hide edges at or below this fraction of the total (0.001).
    pub edgefraction: f64,
    /// At most so many edges in and out of a node (8).
    pub maxdegree: i64,
    /// Highlight nodes with a flat value.
    pub heapcheck: bool,
    /// `gv`'s scale (0).
    pub scale: i64,
}

impl Default for CallGraph {
    fn default() -> CallGraph {
        CallGraph {
            nodecount: 80,
            nodefraction: 0.005,
            edgefraction: 0.001,
            maxdegree: 8,
            heapcheck: false,
            scale: 0,
        }
    }
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
        Some(s) => Regex::new(s).map(Some).map_err(|e| {
            // regex's message spans lines (the pattern, a caret, "error: ..."): one line.
            let msg = e.to_string();
            let why = msg
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("error: "))
                .unwrap_or_else(|| msg.lines().next().unwrap_or_default());
            Error::usage(format!("--{what}: bad regular expression {s:?}: {why}"))
        }),
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
        Err(e) => Err(Error::io(&path, e)),
    }
}

fn read_profile(arg: &str) -> Result<Input> {
    let (path, data) = read_file(arg)?;
    let profile = profile::parse(&data, &path)?;
    Ok(Input { path, profile })
}

/// The symbolizer's options for a run.
fn symbol_options(opts: &Options, jeprof: bool, address_width: usize) -> symbolize::Options {
    symbolize::Options {
        lib_prefix: opts.lib_prefix.clone(),
        add_lib: opts.add_lib.clone(),
        keep_templates: opts.keep_templates,
        jeprof,
        address_width,
        binutils_inline_names: opts.pprof_quirks,
        nearest_symbol: opts.pprof_quirks,
    }
}

/// The arguments after remote profiles were fetched.
struct Fetched {
    /// The program and profile arguments, fetched profiles replaced by their saved copies.
    args: Vec<String>,
    /// `--base`, likewise.
    base: Option<String>,
    /// When the first argument was remote (no local program): its server and the program's
    /// name there, for the symbol page.
    symbol_page: Option<(remote::Target, String)>,
}

/// True for an argument fetched over HTTP: remote-looking and not a local file.
fn fetch_this(arg: &str) -> bool {
    is_remote(arg) && !Path::new(arg).exists()
}

/// pprof's `FetchDynamicProfiles`: fetches every remote argument (and a remote `--base`),
/// saves it, and puts the saved file in its place.
fn fetch_remote(opts: &Options, err: &mut dyn Write) -> Result<Fetched> {
    let mut f = Fetched {
        args: opts.args.clone(),
        base: opts.base.clone(),
        symbol_page: None,
    };
    if !f.args.iter().chain(f.base.iter()).any(|a| fetch_this(a)) {
        return Ok(f);
    }
    let program = if fetch_this(&f.args[0]) {
        writeln!(err, "Using remote profile at {}.", f.args[0]).map_err(io_err)?;
        let target = remote::Target::parse(&f.args[0]);
        let name = remote::program_name(&target)?;
        f.symbol_page = Some((target, name.clone()));
        name
    } else {
        f.args[0].clone()
    };
    let seconds = opts.seconds.unwrap_or(30);
    for a in f.args.iter_mut().chain(f.base.iter_mut()) {
        if fetch_this(a) {
            let mut msgs = Vec::new();
            let r = remote::fetch_profile(&remote::Target::parse(a), &program, seconds, &mut msgs);
            for m in &msgs {
                writeln!(err, "{m}").map_err(io_err)?;
            }
            *a = r?.to_string_lossy().into_owned();
        }
    }
    Ok(f)
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
        if n_args < 2 {
            return Err(Error::io(
                path,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        return Ok(First::Program);
    }
    // A pipe (`<(zcat heap.gz)`) can be read only once: it is a profile, never a program,
    // and is not sniffed.
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() && !meta.is_dir() {
        return Ok(First::Profile);
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

/// Runs rpprof: reports go to `out`, messages to `err`; `--symbols` reads standard input.
pub fn run(opts: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
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
    for (re, what) in [
        (&opts.focus, "focus"),
        (&opts.ignore, "ignore"),
        (&opts.retain, "retain"),
        (&opts.exclude, "exclude"),
    ] {
        compile(re, what)?;
    }
    if opts.mode == Mode::Symbols {
        // pprof: the program, then addresses and the memory map on standard input.
        let program = PathBuf::from(first);
        if !program.exists() {
            return Err(Error::io(
                &program,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        let sym_opts = symbol_options(opts, opts.jeprof, 16);
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
        return Err(Error::not_implemented(format!(
            "the {} output mode",
            opts.mode.flag()
        )));
    }
    let mut timer = Timer::new(opts.debug);
    // Remote profiles are fetched and saved first; from then on they are local files.
    let fetched = fetch_remote(opts, err)?;
    let (args, base_arg) = (&fetched.args, fetched.base.as_ref());
    let first = &args[0];
    // Sort out the program and the profiles.
    let mut program: Option<PathBuf> = None;
    let mut profile_args: Vec<&String> = Vec::new();
    match classify(first, args.len())? {
        First::Program => {
            program = Some(PathBuf::from(first));
            profile_args.extend(args.iter().skip(1));
            if profile_args.is_empty() {
                return Err(Error::usage("Did not specify profile file"));
            }
        }
        First::Profile => profile_args.extend(args.iter()),
    }
    // pprof reads the first profile, then the others from the last argument back.
    let mut inputs: Vec<Input> = Vec::with_capacity(profile_args.len());
    inputs.push(read_profile(profile_args[0])?);
    for a in profile_args[1..].iter().rev() {
        inputs.push(read_profile(a)?);
    }
    let base = match base_arg {
        Some(b) => Some(read_profile(b)?),
        None => None,
    };
    // Without a local program, the server names the addresses (its /pprof/symbol page).
    if let Some((target, name)) = &fetched.symbol_page {
        let mut all: Vec<u64> = inputs
            .iter()
            .chain(base.iter())
            .flat_map(|i| i.profile.addresses())
            .collect();
        all.sort_unstable();
        all.dedup();
        let names = remote::symbols(target, &all)?;
        inputs[0].profile.symbols = Some(profile::EmbeddedSymbols {
            binary: Some(name.clone()),
            names,
        });
    }
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
    let kind = main.kind;
    let index = value_index(kind, opts);
    for i in inputs.iter().skip(1).chain(base.iter()) {
        check_compatible(
            &inputs[0],
            i,
            base.as_ref().is_some_and(|b| std::ptr::eq(b, i)),
            opts,
        )?;
    }
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
    // them (--stacks), reads them per thread (--thread) or writes them back (--raw).
    let keep_samples =
        opts.stacks || opts.thread.is_some() || matches!(opts.mode, Mode::Raw | Mode::Proto);
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
    // A differential flame graph draws the base beside the profile instead of subtracting.
    let mut flame_base = None;
    if let Some(b) = &base {
        let b = stacks_of(&b.profile.samples, index);
        if opts.mode == Mode::Flame {
            flame_base = Some(b);
        } else {
            merged = merged.subtract(&b, opts.drop_negative);
        }
    }
    let main = &inputs[0].profile;
    let mut warnings = Vec::new();
    let sym_opts = symbol_options(opts, jeprof, w);
    let symbols: SymbolTable = if symbolized {
        let mut names = std::collections::BTreeMap::new();
        for i in inputs.iter().chain(base.iter()) {
            if let Some(s) = &i.profile.symbols {
                names.extend(s.names.iter().map(|(a, n)| (*a, n.clone())));
            }
        }
        let table = Embedded {
            names: &names,
            address_width: w,
            keep_templates: opts.keep_templates,
        }
        .symbolize(&addrs, &mut warnings);
        without_no_symbol_marks(table, &names, w)
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
        flame_base: flame_base.as_ref(),
    };

    let program_name = program_name(program.as_deref(), &inputs[0]);
    let mut buf: Vec<u8> = Vec::new();
    let mut notes = Vec::new();
    if opts.mode == Mode::Raw {
        write_raw(
            &mut buf,
            &RawJob {
                ctx: &ctx,
                program: &program_name,
                addrs: &addrs,
                inputs: &inputs,
                base: base.as_ref(),
                merged,
            },
            &mut notes,
        )?;
        timer.stage(err, "aggregate and render");
        for n in &notes {
            writeln!(err, "{n}").map_err(io_err)?;
        }
        out.write_all(&buf).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        return Ok(());
    }
    if matches!(opts.mode, Mode::List | Mode::Disasm) {
        let disasm = opts.mode == Mode::Disasm;
        let st = ctx.filtered(merged, &mut notes);
        let values = list::AddressValues::of(st.map.iter().map(|(k, v)| (k.as_slice(), *v)));
        let what = if disasm { "disasm" } else { "list" };
        let Some(re) = compile(&opts.routines, what)? else {
            return Err(Error::usage(format!("--{what} needs a regular expression")));
        };
        let main = &inputs[0].profile;
        let mut warnings = Vec::new();
        let routines = match program.clone().or_else(|| program_from_map(main)) {
            Some(p) => Local::new(&p, &main.mappings, &sym_opts).listed_routines(
                &addrs,
                &re,
                &|a| values.cum.contains_key(&a),
                !disasm,
                &mut warnings,
            ),
            None => Vec::new(),
        };
        let mut msgs: Vec<u8> = Vec::new();
        if disasm {
            let objdump = disasm::objdump_path(opts.tools.as_deref())?;
            disasm::write(&mut buf, &objdump, &routines, &values, measure)?;
        } else {
            list::write(&mut buf, &mut msgs, &routines, &values, measure).map_err(io_err)?;
        }
        timer.stage(err, what);
        // The warnings about the files were printed when they were symbolized.
        drop(warnings);
        for n in &notes {
            writeln!(err, "{n}").map_err(io_err)?;
        }
        err.write_all(&msgs).map_err(io_err)?;
        out.write_all(&buf).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        return Ok(());
    }
    if opts.mode == Mode::Proto {
        let main = &inputs[0].profile;
        let records = inputs
            .iter()
            .map(|i| (i, false))
            .chain(base.iter().map(|b| (b, true)))
            .flat_map(|(i, is_base)| i.profile.samples.iter().map(move |s| (s, is_base)));
        // The frames pprof would not show (allocator, signal handler) are left out, as
        // from every report.
        let mut all = Stacks::default();
        for (s, _) in records.clone() {
            all.add_ref(&s.stack, 1.0);
        }
        let (_, trim) = graph::uninteresting(all, &symbols, kind, &gopts, &mut notes);
        let job = proto::ProtoJob {
            kind,
            sample_types: &main.sample_types,
            selected: index,
            period: main.period,
            samples: records
                .map(|(s, base)| proto::Record {
                    stack: trim.apply(&s.stack),
                    values: &s.values,
                    base,
                })
                .collect(),
            mappings: &main.mappings,
            symbols: &symbols,
        };
        proto::write(&mut buf, &job).map_err(io_err)?;
        timer.stage(err, "write profile.proto");
        for n in &notes {
            writeln!(err, "{n}").map_err(io_err)?;
        }
        out.write_all(&buf).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        return Ok(());
    }
    let view = View {
        program: &program_name,
        profile: &inputs[0].path,
        base: base.as_ref().map(|b| b.path.as_path()),
        period: main.period,
    };
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
                let r = ctx.report(
                    &mut buf,
                    st,
                    Some(&t.to_string()),
                    &[],
                    &view,
                    &mut notes,
                    err,
                );
                flush_on_error(r, &notes, err)?;
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
        let r = ctx.report(&mut buf, merged, None, &leaks, &view, &mut notes, err);
        flush_on_error(r, &notes, err)?;
    }
    timer.stage(err, "aggregate and render");
    for n in &notes {
        writeln!(err, "{n}").map_err(io_err)?;
    }
    out.write_all(&buf).map_err(io_err)?;
    out.flush().map_err(io_err)?;
    if opts.exit_after {
        std::mem::forget(symbols);
        std::mem::forget(inputs);
    }
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
    /// `--flame --base`: the base, drawn beside the profile rather than subtracted.
    flame_base: Option<&'a Stacks>,
}

impl Ctx<'_> {
    /// pprof's per-profile part of `Main` (jeprof's `FilterAndPrint`): frame removal,
    /// `--focus`, `--ignore`, then the report of the chosen mode.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        out: &mut Vec<u8>,
        stacks: Stacks,
        thread: Option<&str>,
        leaks: &[text::LeakRecord<'_>],
        view: &View<'_>,
        notes: &mut Vec<String>,
        err: &mut dyn Write,
    ) -> Result<()> {
        let total = stacks.total();
        let st = self.filtered(stacks, notes);
        notes.extend(graph::unnamed_share_note(&st, self.symbols));
        let topts = self.topts;
        let w = self.gopts.address_width;
        match self.opts.mode {
            Mode::Collapsed => {
                collapsed::write(out, &st, self.symbols, w).map_err(io_err)?;
            }
            Mode::Flame => {
                let base = self
                    .flame_base
                    .map(|b| self.filtered(b.clone(), &mut Vec::new()));
                let fo = self.flame_options(view);
                match flame::write(out, &st, base.as_ref(), self.symbols, w, &fo) {
                    Ok(()) => {}
                    Err(flame::FlameError::Empty) => {
                        return Err(Error::refused(
                            "no stacks to draw: every value is below one",
                        ));
                    }
                    Err(flame::FlameError::Io(e)) => return Err(io_err(e)),
                }
            }
            Mode::Callgrind => {
                let calls = callgrind::extract_calls(&st, self.symbols, self.gopts.jeprof);
                callgrind::write(out, &calls).map_err(io_err)?;
            }
            Mode::Traces => {
                let paths = graph::translate_stacks(&st, self.symbols, self.gopts);
                traces::write(out, &paths, &self.traces_options(view)).map_err(io_err)?;
            }
            Mode::Dot
            | Mode::Svg
            | Mode::Pdf
            | Mode::Ps
            | Mode::Gif
            | Mode::Web
            | Mode::Gv
            | Mode::Evince => {
                let reduced = graph::reduce(&st, self.symbols, self.gopts);
                let paths = graph::translate_stacks(&st, self.symbols, self.gopts);
                let g = &self.opts.graph;
                let mode = self.opts.mode;
                let dopts = dot::DotOptions {
                    nodecount: g.nodecount,
                    nodefraction: g.nodefraction,
                    edgefraction: g.edgefraction,
                    maxdegree: g.maxdegree,
                    heapcheck: g.heapcheck,
                    measure: topts.measure,
                    program: view.program.to_string(),
                    page_size: mode == Mode::Pdf,
                    min_width_one: matches!(mode, Mode::Svg | Mode::Web),
                };
                let mut text: Vec<u8> = Vec::new();
                if !dot::write(&mut text, &reduced, &paths, total, &dopts, notes).map_err(io_err)? {
                    // pprof: "No nodes to print", exit status 1.
                    return Err(Error::refused("no nodes to print"));
                }
                match mode {
                    Mode::Dot => out.extend_from_slice(&text),
                    Mode::Svg => out.extend(graphviz::render(&text, graphviz::Format::Svg)?),
                    Mode::Pdf => out.extend(graphviz::render(&text, graphviz::Format::Pdf)?),
                    Mode::Ps => out.extend(graphviz::render(&text, graphviz::Format::Ps)?),
                    Mode::Gif => out.extend(graphviz::render(&text, graphviz::Format::Gif)?),
                    Mode::Web => {
                        let svg = graphviz::render(&text, graphviz::Format::Svg)?;
                        graphviz::web(&svg, err)?;
                    }
                    Mode::Gv => graphviz::gv(&text, g.scale, err)?,
                    _ => graphviz::evince(&text, err)?,
                }
            }
            _ => {
                let reduced = graph::reduce(&st, self.symbols, self.gopts);
                text::write_total(out, total, topts.measure, thread).map_err(io_err)?;
                if self.opts.stacks && !self.gopts.jeprof {
                    text::write_stacks(out, &st, self.symbols, topts).map_err(io_err)?;
                    text::write_leaks(out, leaks, self.symbols, topts).map_err(io_err)?;
                }
                text::write_table(out, &reduced, self.symbols, topts).map_err(io_err)?;
                if self.opts.exit_after {
                    std::mem::forget(reduced);
                }
            }
        }
        if self.opts.exit_after {
            std::mem::forget(st);
        }
        Ok(())
    }

    /// pprof's `RemoveUninterestingFrames`, `FocusProfile` and `IgnoreProfile`.
    fn filtered(&self, stacks: Stacks, notes: &mut Vec<String>) -> Stacks {
        let mut st =
            graph::remove_uninteresting(stacks, self.symbols, self.kind, self.gopts, notes);
        if let Some(re) = self.focus {
            st = graph::filter(st, self.symbols, re, true, self.gopts);
        }
        if let Some(re) = self.ignore {
            st = graph::filter(st, self.symbols, re, false, self.gopts);
        }
        st
    }

    /// The title and labels of `--flame`.
    fn flame_options(&self, view: &View<'_>) -> flame::FlameOptions {
        let name = |p: &Path| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        let program = name(Path::new(view.program));
        let (what, count_name) = match (self.kind, self.topts.measure) {
            (Kind::Cpu, _) => ("CPU", "samples"),
            (Kind::Contention, Measure::Samples) => ("lock contentions", "contentions"),
            (Kind::Contention, _) => ("lock contention delay", "ns"),
            (Kind::Thread, _) => ("threads", "threads"),
            (Kind::Growth, Measure::Objects) => ("heap growth", "objects"),
            (Kind::Growth, _) => ("heap growth", "bytes"),
            (Kind::Heap, m) => {
                let alloc = matches!(
                    self.opts.heap_value,
                    HeapValue::AllocSpace | HeapValue::AllocObjects
                );
                match (alloc, m) {
                    (false, Measure::Objects) => ("in-use objects", "objects"),
                    (false, _) => ("in-use memory", "bytes"),
                    (true, Measure::Objects) => ("allocated objects", "objects"),
                    (true, _) => ("allocated memory", "bytes"),
                }
            }
        };
        let mut subtitle = format!("{what}, in {count_name}");
        let mut title = format!("{program}: {}", name(view.profile));
        if let Some(b) = view.base {
            title.push_str(&format!(" against {} (differential)", name(b)));
            subtitle.push_str(&format!(
                "; differential against {}: red grew, blue shrank",
                name(b)
            ));
        }
        flame::FlameOptions {
            title,
            subtitle,
            count_name: count_name.to_string(),
            memory: matches!(self.kind, Kind::Heap | Kind::Growth),
            full_names: self.opts.full_names,
        }
    }

    /// Go pprof's names and units for `--traces`.
    fn traces_options(&self, view: &View<'_>) -> traces::TracesOptions {
        use crate::units::Measure;
        let index = value_index(self.kind, self.opts);
        let heap_names = [
            "inuse_objects",
            "inuse_space",
            "alloc_objects",
            "alloc_space",
        ];
        let (type_name, unit, scale) = match self.kind {
            Kind::Heap => (
                heap_names[index.min(3)],
                if index % 2 == 1 {
                    traces::GoUnit::Bytes
                } else {
                    traces::GoUnit::Count
                },
                1.0,
            ),
            Kind::Growth => (
                if index % 2 == 1 { "space" } else { "objects" },
                if index % 2 == 1 {
                    traces::GoUnit::Bytes
                } else {
                    traces::GoUnit::Count
                },
                1.0,
            ),
            Kind::Cpu => (
                "cpu",
                traces::GoUnit::Nanoseconds,
                view.period.max(1) as f64 * 1000.0,
            ),
            Kind::Contention => match self.topts.measure {
                Measure::Samples => ("contentions", traces::GoUnit::Count, 1.0),
                _ if index == 2 => ("mean_delay", traces::GoUnit::Nanoseconds, 1.0),
                _ => ("delay", traces::GoUnit::Nanoseconds, 1.0),
            },
            Kind::Thread => ("thread", traces::GoUnit::Count, 1.0),
        };
        let file = Path::new(view.program)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .filter(|f| view.program != UNKNOWN_BINARY && !f.is_empty());
        traces::TracesOptions {
            file,
            type_name: type_name.to_string(),
            unit,
            scale,
        }
    }
}

/// What the reports say about the run as a whole.
struct View<'a> {
    /// The program, as pprof names it (`binary=` of a symbolized profile, or `(unknown)`).
    program: &'a str,
    /// The (first) profile.
    profile: &'a Path,
    /// The base profile.
    base: Option<&'a Path>,
    /// The main profile's sampling period.
    period: u64,
}

/// pprof's name for a binary it does not know.
const UNKNOWN_BINARY: &str = "(unknown)";

/// The program as pprof names it in `--dot` and `--raw`: the program argument as given, the
/// `binary=` of a symbolized profile, or (rpprof) the program named by the memory map.
fn program_name(program: Option<&Path>, first: &Input) -> String {
    if let Some(p) = program {
        return p.to_string_lossy().into_owned();
    }
    if let Some(s) = &first.profile.symbols {
        return s
            .binary
            .clone()
            .unwrap_or_else(|| UNKNOWN_BINARY.to_string());
    }
    program_from_map(&first.profile)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| UNKNOWN_BINARY.to_string())
}

/// On an error, the messages gathered so far are printed first.
fn flush_on_error(r: Result<()>, notes: &[String], err: &mut dyn Write) -> Result<()> {
    if r.is_err() {
        for n in notes {
            let _ = writeln!(err, "{n}");
        }
    }
    r
}

/// Drops the entries of a symbolized profile's addresses that rpprof's `--raw` marked as
/// having no symbol (named by their own hex digits), so that they print as bare addresses,
/// as in a report of the profile the file was made from.
fn without_no_symbol_marks(
    table: SymbolTable,
    names: &std::collections::BTreeMap<u64, String>,
    width: usize,
) -> SymbolTable {
    let marked: std::collections::HashSet<u64> = names
        .iter()
        .filter(|(a, n)| raw::is_no_symbol(**a, width, &[n.as_str()]))
        .map(|(a, _)| *a)
        .collect();
    if marked.is_empty() {
        return table;
    }
    let mut t = SymbolTable::new();
    for (a, frames) in table.sorted() {
        if !marked.contains(&a) {
            t.insert(a, frames.to_vec());
        }
    }
    t
}

/// Everything `--raw` writes from.
struct RawJob<'a> {
    ctx: &'a Ctx<'a>,
    program: &'a str,
    addrs: &'a [u64],
    inputs: &'a [Input],
    base: Option<&'a Input>,
    merged: Stacks,
}

/// `--raw`: the symbol section, then the profile (see [`raw`]).
fn write_raw(out: &mut Vec<u8>, job: &RawJob<'_>, notes: &mut Vec<String>) -> Result<()> {
    let ctx = job.ctx;
    let main = &job.inputs[0].profile;
    let w = ctx.gopts.address_width;
    raw::write_symbols(out, job.program, job.addrs, ctx.symbols, w).map_err(io_err)?;
    if main.kind == Kind::Cpu {
        let st = ctx.filtered(job.merged.clone(), notes);
        return raw::write_cpu(out, &st, main.period, w).map_err(io_err);
    }
    // Every record read, the base's negated, kept when its stack passes --focus/--ignore.
    let mut records: Vec<raw::Record<'_>> = Vec::new();
    let mut threads: Vec<(u64, raw::Record<'_>)> = Vec::new();
    for (i, sign) in job
        .inputs
        .iter()
        .map(|i| (i, 1.0))
        .chain(job.base.map(|b| (b, -1.0)))
    {
        records.extend(i.profile.samples.iter().map(|s| (s, sign)));
        for (t, samples) in &i.profile.threads {
            threads.extend(samples.iter().map(|s| (*t, (s, sign))));
        }
    }
    if ctx.focus.is_some() || ctx.ignore.is_some() {
        let mut all = Stacks::default();
        for (s, _) in records.iter().chain(threads.iter().map(|t| &t.1)) {
            all.add_ref(&s.stack, 0.0);
        }
        if let Some(re) = ctx.focus {
            all = graph::filter(all, ctx.symbols, re, true, ctx.gopts);
        }
        if let Some(re) = ctx.ignore {
            all = graph::filter(all, ctx.symbols, re, false, ctx.gopts);
        }
        records.retain(|(s, _)| all.map.contains_key(&s.stack));
        threads.retain(|(_, (s, _))| all.map.contains_key(&s.stack));
    }
    // Values un-scaled back to the header's sampling, unless some profile was sampled
    // otherwise.
    let same_sampling = job
        .inputs
        .iter()
        .chain(job.base)
        .all(|i| i.profile.sampling == main.sampling);
    let how = if same_sampling {
        raw::HeapValues::Unscaled(main.sampling)
    } else {
        raw::HeapValues::Scaled
    };
    let r = match (main.kind, main.is_jemalloc()) {
        (Kind::Heap, true) => raw::write_jemalloc(out, &main.header, how, &records, &threads, w),
        (Kind::Heap | Kind::Growth, _) => raw::write_heap(out, &main.header, how, &records, w),
        (Kind::Contention, _) => raw::write_contention(out, &records, w),
        _ => raw::write_threads(out, &records, w),
    };
    r.map_err(io_err)
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

/// Which value pairs of a heap profile carry data: (in-use, allocated).
fn heap_pairs(p: &Profile) -> (bool, bool) {
    let mut pairs = (false, false);
    for s in p.samples.iter().chain(p.threads.values().flatten()) {
        let v = |i: usize| s.values.get(i).copied().unwrap_or(0.0) != 0.0;
        pairs.0 |= v(0) || v(1);
        pairs.1 |= v(2) || v(3);
    }
    pairs
}

/// Describes a heap profile's value pairs.
fn pairs_name(p: &Profile) -> &'static str {
    match heap_pairs(p) {
        (_, false) => "in-use values only",
        (false, true) => "allocated values only",
        (true, true) => "in-use and allocated values",
    }
}

/// Refuses to add (or subtract, `is_base`) `other` to `main` when their values do not mean
/// the same: different kinds of profile, CPU profiles sampled at different rates, jemalloc
/// and tcmalloc heap profiles whose filled value pairs differ. google-pprof adds them anyway
/// and prints nonsense.
fn check_compatible(main: &Input, other: &Input, is_base: bool, opts: &Options) -> Result<()> {
    let (a, b) = (&main.profile, &other.profile);
    let verb = if is_base { "subtract" } else { "add" };
    let prep = if is_base { "from" } else { "to" };
    let type_of = |p: &Profile| -> &'static str {
        p.sample_types
            .get(value_index(p.kind, opts))
            .map_or("?", |t| t.name)
    };
    let refuse = |what_b: String, detail_b: String, what_a: String, detail_a: String, why: &str| {
        Error::refused(format!(
            "cannot {verb} {what_b} ({detail_b}, {}) {prep} {what_a} ({detail_a}, {}): {why}",
            other.path.display(),
            main.path.display()
        ))
    };
    if a.kind != b.kind {
        return Err(refuse(
            format!("a {} profile", b.kind.name()),
            type_of(b).to_string(),
            format!("a {} profile", a.kind.name()),
            type_of(a).to_string(),
            "sample types differ",
        ));
    }
    if a.kind == Kind::Cpu {
        // pprof's --raw writes a period of 1 whatever the profile's: unknown.
        let known = |p: &Profile| p.period != 0 && !(p.symbols.is_some() && p.period == 1);
        if known(a) && known(b) && a.period != b.period {
            return Err(refuse(
                "a cpu profile".to_string(),
                format!("sampled every {} us", b.period),
                "a cpu profile".to_string(),
                format!("sampled every {} us", a.period),
                "sampling periods differ",
            ));
        }
    }
    if matches!(a.kind, Kind::Heap)
        && (a.is_jemalloc() || b.is_jemalloc())
        && !a.samples.is_empty()
        && !b.samples.is_empty()
        && heap_pairs(a) != heap_pairs(b)
    {
        let alloc = |p: &Profile| {
            if p.is_jemalloc() {
                "jemalloc"
            } else {
                "tcmalloc"
            }
        };
        return Err(refuse(
            format!("a {} heap profile", alloc(b)),
            pairs_name(b).to_string(),
            format!("a {} heap profile", alloc(a)),
            pairs_name(a).to_string(),
            "value pairs differ",
        ));
    }
    Ok(())
}
