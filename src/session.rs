//! The loaded profiles: read, checked and symbolized once, then reported on any number of
//! times (see [`crate::view::View`]).
//!
//! A [`Session`] holds the program, every profile argument and the base with **all** their
//! value columns, the memory map, and one symbol table covering every address of every
//! profile. It is immutable once loaded; what changes the set of profiles (a new base in the
//! shell, a dump arriving in a watched folder) builds a new session from the old one, reusing
//! the profiles already read and symbolizing again only when new addresses appear.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::profile::{self, Kind, Profile};
use crate::remote;
use crate::report::raw;
use crate::symbolize::local::{CacheWrites, Local};
use crate::symbolize::{self, NoSymbols, SymbolTable, Symbolize, embedded::Embedded};

/// Which heap value to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ContentionValue {
    /// Total delay (default).
    #[default]
    TotalDelay,
    /// Number of contentions.
    Contentions,
    /// Mean delay.
    MeanDelay,
}

/// The value column a report shows: one of the heap values or one of the contention values,
/// whichever applies to the profile's kind (CPU and thread profiles have one column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Value {
    /// For heap and growth profiles.
    pub heap: HeapValue,
    /// For contention profiles.
    pub contention: ContentionValue,
}

impl Value {
    /// The index of this value in the samples of a profile of `kind`.
    pub fn index(self, kind: Kind) -> usize {
        match kind {
            Kind::Heap | Kind::Growth => match self.heap {
                HeapValue::InuseObjects => 0,
                HeapValue::InuseSpace => 1,
                HeapValue::AllocObjects => 2,
                HeapValue::AllocSpace => 3,
            },
            Kind::Contention => match self.contention {
                ContentionValue::TotalDelay => 0,
                ContentionValue::Contentions => 1,
                ContentionValue::MeanDelay => 2,
            },
            Kind::Cpu | Kind::Thread => 0,
        }
    }
}

/// What loading needs: the arguments and the options that change what is read or how
/// addresses are named.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The program and the profiles, or only profiles (as on the command line).
    pub args: Vec<String>,
    /// `--base`.
    pub base: Option<String>,
    /// `--lib_prefix`, split at commas.
    pub lib_prefix: Vec<String>,
    /// `--add_lib`.
    pub add_lib: Option<String>,
    /// `--no_strip_temp`.
    pub keep_templates: bool,
    /// Behave as jeprof (the program was invoked as `jeprof`).
    pub jeprof: bool,
    /// `--pprof_quirks`: name inlined functions as binutils does.
    pub pprof_quirks: bool,
    /// `--seconds`: length of a remote CPU or contention profile (30).
    pub seconds: Option<u64>,
    /// `--debug`: print the time each stage took to the message stream.
    pub debug: bool,
    /// The value named in the messages that refuse mismatched profiles (the command line's).
    pub value: Value,
    /// The symbol cache's folder (see [`symbolize::cache`]); `None`: no cache.
    pub cache: Option<PathBuf>,
    /// The profiles are a series of dumps (`--trend`): a file that is unfinished (empty, or
    /// cut in its first line: still being written) is left out ([`Session::unread`]) rather
    /// than failing the load.
    pub series: bool,
}

impl LoadOptions {
    /// The symbolizer's options, for addresses of `address_width` hex digits.
    pub fn symbol_options(&self, address_width: usize) -> symbolize::Options {
        symbolize::Options {
            lib_prefix: self.lib_prefix.clone(),
            add_lib: self.add_lib.clone(),
            keep_templates: self.keep_templates,
            jeprof: self.jeprof,
            address_width,
            binutils_inline_names: self.pprof_quirks,
            nearest_symbol: self.pprof_quirks,
            pprof_routines_only: self.pprof_quirks,
            pprof_inlines_by_fini: self.pprof_quirks,
            cache: self.cache.clone().map(symbolize::cache::Cache::new),
            symbols_input: false,
        }
    }
}

/// A profile that was read, and the file it was read from.
#[derive(Debug)]
pub struct Loaded {
    /// The file (for a remote profile, its saved copy).
    pub path: PathBuf,
    /// The profile, every value column.
    pub profile: Profile,
    /// The file's modification time when it was read (`None` when it has none: a pipe).
    pub mtime: Option<std::time::SystemTime>,
    /// When asked for ([`Loaded::read_all_summed`]): the length and CRC-32 of the bytes
    /// read, which tell a file that changed from one that was only touched.
    pub sum: Option<(u64, u32)>,
}

impl Loaded {
    /// Reads and parses the profile at `arg`.
    pub fn read(arg: &str) -> Result<Loaded> {
        Loaded::read_as(arg, false)
    }

    /// [`Loaded::read`], with the bytes' [`Loaded::sum`] when `sum`.
    pub fn read_as(arg: &str, sum: bool) -> Result<Loaded> {
        let path = PathBuf::from(arg);
        let (mut mtime, mut size) = (None, 0);
        if let Ok(m) = std::fs::metadata(&path) {
            mtime = m.modified().ok().filter(|_| m.is_file());
            // A device (`/dev/zero`, a disk, a terminal) would be read until memory runs
            // out or forever; a pipe (`<(zcat heap.gz)`) is read.
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                let t = m.file_type();
                if t.is_char_device() || t.is_block_device() {
                    return Err(Error::format(
                        &path,
                        crate::error::Location::None,
                        "a device, not a profile file",
                    ));
                }
            }
            if m.is_dir() {
                return Err(Error::format(
                    &path,
                    crate::error::Location::None,
                    "a directory, not a profile file (its dumps: name them, heap.*.heap; --http watches a directory)",
                ));
            }
            crate::memory::reading(m.len());
            size = m.len();
        }
        let data = Loaded::read_checked(&path, size)?;
        Loaded::of_bytes(path, &data, mtime, sum)
    }

    /// The bytes of the file (or pipe) at `path`, of `size` bytes when last looked at (0: a
    /// pipe), its start checked ([`profile::check_head`]) before the rest is read.
    fn read_checked(path: &Path, size: u64) -> Result<Vec<u8>> {
        use std::io::Read;
        let io = |e| Error::io(path, e);
        let mut f = std::fs::File::open(path).map_err(io)?;
        let mut data = Vec::new();
        (&mut f)
            .take(profile::HEAD_BYTES as u64)
            .read_to_end(&mut data)
            .map_err(io)?;
        profile::check_head(&data, path)?;
        // The rest, in room made once for the whole file (a pipe's grows as it comes).
        data.reserve(
            usize::try_from(size)
                .unwrap_or(0)
                .saturating_sub(data.len())
                + 1,
        );
        f.read_to_end(&mut data).map_err(io)?;
        Ok(data)
    }

    /// The profile in `data`, the bytes of the file at `path` (modified at `mtime`) read
    /// already, with their [`Loaded::sum`] when `sum`.
    pub fn of_bytes(
        path: PathBuf,
        data: &[u8],
        mtime: Option<std::time::SystemTime>,
        sum: bool,
    ) -> Result<Loaded> {
        crate::memory::reading(data.len() as u64);
        let profile = profile::parse(data, &path)?;
        let sum = sum.then(|| (data.len() as u64, crc32fast::hash(data)));
        Ok(Loaded {
            path,
            profile,
            mtime,
            sum,
        })
    }

    /// [`Loaded::read`] of each of `args`, in that order: on every core when there are
    /// several (a series of dumps), each thread taking the next file in order.
    pub fn read_all<S: AsRef<str> + Sync>(args: &[S]) -> Vec<Result<Loaded>> {
        Loaded::read_all_as(args, false)
    }

    /// [`Loaded::read_all`], each with its [`Loaded::sum`].
    pub fn read_all_summed<S: AsRef<str> + Sync>(args: &[S]) -> Vec<Result<Loaded>> {
        Loaded::read_all_as(args, true)
    }

    fn read_all_as<S: AsRef<str> + Sync>(args: &[S], sum: bool) -> Vec<Result<Loaded>> {
        crate::on_cores(args, |a| Loaded::read_as(a.as_ref(), sum))
    }

    /// The file name, as the web UI and the shell name a profile.
    pub fn name(&self) -> String {
        file_name(&self.path)
    }
}

/// The file name of `p`, or `p` itself when it has none.
pub fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The profiles, read and symbolized.
#[derive(Debug)]
pub struct Session {
    /// What the session was loaded with.
    pub opts: LoadOptions,
    /// The program argument, when one was given.
    pub program: Option<PathBuf>,
    /// The program as pprof names it in `--dot` and `--raw` (see [`Session::program_name`]).
    pub program_name: String,
    /// Every profile read, in argument order, the base (if any) last.
    pub profiles: Vec<Arc<Loaded>>,
    /// The index of the `--base` profile in [`Session::profiles`].
    pub base: Option<usize>,
    /// Names for every address of every profile (shared with the symbol cache's writer).
    pub symbols: Arc<SymbolTable>,
    /// Every address of every profile, sorted, once.
    pub addrs: Vec<u64>,
    /// The symbolizer's options.
    pub sym_opts: symbolize::Options,
    /// Where [`Session::program`] is not given: the program named by the memory map.
    pub mapped_program: Option<PathBuf>,
    /// Keep what views derive from the session (trimmed stacks, translated addresses) for
    /// the next view: set by the front ends that render many views (the shell, the web UI,
    /// the trend report); the command line renders one and keeps nothing.
    pub cache_views: bool,
    /// What views derived, when [`Session::cache_views`] is set.
    pub(crate) cache: Mutex<crate::view::Cache>,
    /// Address → its index in [`Session::addrs`], made when first asked for.
    ids: OnceLock<FxHashMap<u64, u32>>,
    /// pprof's renaming of routines that share a short name, made when first asked for.
    renames: OnceLock<crate::graph::Renames>,
    /// Whether some frame is a `Callback::Run`, found when first asked for.
    run_frames: OnceLock<bool>,
    /// The symbol cache entries being written for this session's names: dropping the
    /// session waits for them (see [`Session::take_cache_writes`]).
    cache_writes: CacheWrites,
    /// With [`LoadOptions::series`]: the profile files not read because they are unfinished
    /// (empty, or cut in their first line), and which of the two, in words.
    pub unread: Vec<(PathBuf, String)>,
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
fn fetch_remote(opts: &LoadOptions, err: &mut dyn Write) -> Result<Fetched> {
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
        let name =
            remote::program_name(&target, err).map_err(|e| no_such_file_either(&f.args[0], e))?;
        // As pprof: a server that cannot name the addresses is said before the profile's
        // seconds are spent.
        remote::check_symbols(&target)?;
        f.symbol_page = Some((target, name.clone()));
        name
    } else {
        f.args[0].clone()
    };
    let seconds = opts.seconds.unwrap_or(30);
    for a in f.args.iter_mut().chain(f.base.iter_mut()) {
        if fetch_this(a) {
            let r = remote::fetch_profile(&remote::Target::parse(a), &program, seconds, err);
            *a = r
                .map_err(|e| no_such_file_either(a, e))?
                .to_string_lossy()
                .into_owned();
        }
    }
    Ok(f)
}

/// A fetch of `arg` that found no such host: when `arg` has no `http://`, it may be a
/// mistyped file name of the `name:digits` shape (read as `host:port`), so that is said too.
fn no_such_file_either(arg: &str, e: Error) -> Error {
    match &e.kind {
        ErrorKind::Refused(m) if !arg.contains("://") && m.ends_with("host not found") => {
            Error::refused(format!("{m} (and there is no local file {arg})"))
        }
        _ => e,
    }
}

/// What the first argument is.
enum First {
    /// A program (ELF or anything that is not a profile), maybe missing.
    Program,
    /// A profile: every argument is a profile.
    Profile,
}

/// True when `first`, the first of `n_args` arguments, is the program rather than a profile
/// (as [`Session::load`] decides: an ELF file, or anything that does not look like a
/// profile when more arguments follow).
pub fn first_is_program(first: &str, n_args: usize) -> Result<bool> {
    Ok(matches!(classify(first, n_args)?, First::Program))
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
    if meta.is_dir() {
        if n_args < 2 {
            // The profile's reader says what it is, and what to give instead.
            return Ok(First::Profile);
        }
        return Err(Error::format(
            path,
            crate::error::Location::None,
            "a directory, not the program (give the program's file, then the profiles)",
        ));
    }
    let head = profile::file_head(path).map_err(|e| Error::io(path, e))?;
    let head = head.as_slice();
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

/// The memory map the addresses of `profiles` are placed with: the first profile's, then the
/// mappings of the others that overlap none of it (a library loaded after the first dump was
/// written; the whole map of a later dump when the first has none, being cut short). pprof
/// reads the first profile's alone, and prints the others' addresses as hex.
pub(crate) fn merged_map<'p>(
    mut profiles: impl Iterator<Item = &'p Profile>,
) -> std::borrow::Cow<'p, [profile::Mapping]> {
    use std::borrow::Cow;
    let Some(first) = profiles.next() else {
        return Cow::Borrowed(&[]);
    };
    let mut map: Cow<'p, [profile::Mapping]> = Cow::Borrowed(&first.mappings);
    // The ranges taken, sorted by start and made disjoint (an odd map may nest them); a map
    // is usually the same dump after dump.
    let mut ranges: Vec<(u64, u64)> = first
        .mappings
        .iter()
        .filter(|m| m.limit > m.start)
        .map(|m| (m.start, m.limit))
        .collect();
    ranges.sort_unstable();
    let mut taken: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (s, l) in ranges {
        match taken.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(l),
            _ => taken.push((s, l)),
        }
    }
    for p in profiles {
        if p.mappings.len() == first.mappings.len()
            && p.mappings
                .iter()
                .zip(&first.mappings)
                .all(|(a, b)| a.raw == b.raw)
        {
            continue;
        }
        for m in &p.mappings {
            if m.limit <= m.start {
                continue;
            }
            // The first range starting at or past m's end; the one before it must end by
            // m's start.
            let i = taken.partition_point(|&(s, _)| s < m.limit);
            if i > 0 && taken[i - 1].1 > m.start {
                continue;
            }
            taken.insert(i, (m.start, m.limit));
            map.to_mut().push(m.clone());
        }
    }
    map
}

/// The program the first of `profiles` whose memory map names one names (a dump cut short
/// has no map).
fn mapped_program_of<'p>(profiles: impl IntoIterator<Item = &'p Profile>) -> Option<PathBuf> {
    profiles.into_iter().find_map(program_from_map)
}

/// The profiles among `others` of `p`'s process (the same program mapped at the same
/// address), for [`merged_map`]; for a `p` without a map, those of the one process they all
/// are of, if they are (a folder may hold dumps of several runs, or programs).
fn kindred<'p>(p: &Profile, others: impl Iterator<Item = &'p Profile>) -> Vec<&'p Profile> {
    let mapped: Vec<&Profile> = others.filter(|o| !o.mappings.is_empty()).collect();
    let anchor = if p.mappings.is_empty() {
        match mapped.first() {
            Some(&a) => a,
            None => return Vec::new(),
        }
    } else {
        p
    };
    let named = program_from_map(anchor).is_some();
    let same = |o: &Profile| named && crate::trend::same_process(anchor, o).is_ok();
    if p.mappings.is_empty() && !mapped.iter().all(|o| same(o)) {
        return Vec::new();
    }
    mapped.into_iter().filter(|o| same(o)).collect()
}

/// The program named by a memory map: the first absolute path that is not a library.
pub(crate) fn program_from_map(p: &Profile) -> Option<PathBuf> {
    p.mappings
        .iter()
        .filter(|m| m.path.starts_with('/'))
        .find(|m| !m.path.contains(".so") && !m.path.ends_with(" (deleted)"))
        .map(|m| PathBuf::from(&m.path))
}

/// pprof's name for a binary it does not know.
pub const UNKNOWN_BINARY: &str = "(unknown)";

/// Stage timing for `--debug`.
pub(crate) struct Timer {
    on: bool,
    last: std::time::Instant,
}

impl Timer {
    pub(crate) fn new(on: bool) -> Timer {
        Timer {
            on,
            last: std::time::Instant::now(),
        }
    }

    pub(crate) fn stage(&mut self, err: &mut dyn Write, what: &str) {
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

impl Session {
    /// Reads the profiles named by `opts` (fetching remote ones), checks that they can be
    /// added and subtracted, and symbolizes every address. The profiles' notes and the
    /// symbolizer's warnings go to `err`.
    pub fn load(opts: &LoadOptions, err: &mut dyn Write) -> Result<Session> {
        if opts.args.is_empty() {
            return Err(Error::usage("Did not specify program"));
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
        // pprof reads the first profile, then the others from the last argument back: the
        // first error in that order is the one said.
        let n = profile_args.len();
        let order: Vec<usize> = std::iter::once(0).chain((1..n).rev()).collect();
        let mut read: Vec<Option<Loaded>> = (0..n).map(|_| None).collect();
        let paths: Vec<&str> = order.iter().map(|&i| profile_args[i].as_str()).collect();
        let mut unread = Vec::new();
        let mut first_error = None;
        for ((&i, &path), r) in order.iter().zip(&paths).zip(Loaded::read_all(&paths)) {
            match r {
                Ok(l) => read[i] = Some(l),
                Err(e) => match opts.series.then(|| profile::unfinished(Path::new(path))) {
                    Some(Some(why)) => {
                        unread.push((i, PathBuf::from(path), why));
                        first_error.get_or_insert(e);
                    }
                    _ => return Err(e),
                },
            }
        }
        unread.sort_by_key(|u| u.0);
        let unread: Vec<(PathBuf, String)> = unread.into_iter().map(|(_, p, w)| (p, w)).collect();
        let mut profiles: Vec<Loaded> = read.into_iter().flatten().collect();
        if let (true, Some(e)) = (profiles.is_empty(), first_error) {
            return Err(e);
        }
        let base = base_arg.map(|_| profiles.len());
        if let Some(b) = base_arg {
            profiles.push(Loaded::read(b)?);
        }
        // Without a local program, the server names the addresses (its /pprof/symbol page).
        if let Some((target, name)) = &fetched.symbol_page {
            let all = profile::addresses_of(profiles.iter().map(|i| &i.profile));
            let mut warnings = Vec::new();
            let names = remote::symbols(target, &all, &mut warnings);
            for w in &warnings {
                writeln!(err, "{w}").map_err(io_err)?;
            }
            profiles[0].profile.symbols = Some(profile::EmbeddedSymbols {
                binary: Some(name.clone()),
                names,
            });
        }
        timer.stage(err, "read profiles");
        if program.is_some()
            && let Some(i) = profiles.iter().find(|i| i.profile.symbols.is_some())
        {
            return Err(Error::refused(format!(
                "{} is a symbolized profile: it cannot be used with a program argument; try again without {}",
                i.path.display(),
                first
            )));
        }
        let profiles: Vec<Arc<Loaded>> = profiles.into_iter().map(Arc::new).collect();
        let order = read_order(profiles.len() - usize::from(base.is_some()));
        for &i in order.iter().skip(1).chain(base.iter()) {
            let how = match (Some(i) == base, opts.series) {
                (true, _) => Join::Subtract,
                (false, true) => Join::Series,
                (false, false) => Join::Add,
            };
            check_compatible(&profiles[0], &profiles[i], how, opts.value)?;
        }
        // A base of another program shares no code addresses with the profile: allowed, as
        // in pprof, but said (its addresses are not the given program's).
        if let Some(b) = base
            && let (Some(pm), Some(pb)) = (
                program_from_map(&profiles[0].profile),
                program_from_map(&profiles[b].profile),
            )
            && pm != pb
        {
            writeln!(
                err,
                "Warning: the base {} maps the program {}, the profile {}: a profile of another program (its program's addresses are not looked up in this one)",
                profiles[b].path.display(),
                pb.display(),
                pm.display()
            )
            .map_err(io_err)?;
        }
        for &i in order.iter().chain(base.iter()) {
            for n in &profiles[i].profile.notes {
                writeln!(err, "{n}").map_err(io_err)?;
            }
        }
        let mut session = Session::symbolize(opts.clone(), program, profiles, base, err)?;
        session.unread = unread;
        timer.stage(err, &format!("symbolize {} addresses", session.addrs.len()));
        Ok(session)
    }

    /// Symbolizes the addresses of `profiles` and makes the session.
    fn symbolize(
        opts: LoadOptions,
        program: Option<PathBuf>,
        profiles: Vec<Arc<Loaded>>,
        base: Option<usize>,
        err: &mut dyn Write,
    ) -> Result<Session> {
        let main = &profiles[0].profile;
        let jeprof = opts.jeprof || main.is_jemalloc();
        let w = main.address_width;
        // Every address of every profile read, to symbolize.
        let mut addrs = profile::addresses_of(profiles.iter().map(|i| &i.profile));
        addrs.shrink_to_fit();
        crate::memory::symbolizing(addrs.len());
        let mut sym_opts = opts.symbol_options(w);
        sym_opts.jeprof = jeprof;
        let mapped_program = mapped_program_of(profiles.iter().map(|i| &i.profile));
        let mut warnings = Vec::new();
        let mut cache_writes = CacheWrites::default();
        let symbols: Arc<SymbolTable> = if main.symbols.is_some() {
            let mut names = std::collections::BTreeMap::new();
            for i in &profiles {
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
            let table = without_no_symbol_marks(table, &names, w);
            // (What the report's note of unnamed functions points to.) Some have no name
            // at all and print as hex; others are named by their place in a file
            // (`libfoo.so+0x1123`), as the tool that wrote the profile could name them.
            let (mut bare, mut in_file) = (0usize, 0usize);
            for &a in &addrs {
                match table.get(a) {
                    Some(f) if !symbolize::is_unnamed(f) => {}
                    Some([first, ..]) if symbolize::local::is_outside_name(&first.function) => {
                        in_file += 1;
                    }
                    _ => bare += 1,
                }
            }
            if bare + in_file > 0 {
                let unnamed = bare + in_file;
                let how = match (bare, in_file) {
                    (_, 0) => format!(
                        "{} as addresses",
                        if unnamed == 1 {
                            "it prints"
                        } else {
                            "they print"
                        }
                    ),
                    (0, _) => format!(
                        "{} as <file>+0x<address in the file>, as the profile names {}",
                        if unnamed == 1 {
                            "it prints"
                        } else {
                            "they print"
                        },
                        if unnamed == 1 { "it" } else { "them" },
                    ),
                    _ => format!(
                        "{in_file} print as <file>+0x<address in the file>, as the profile names them, {bare} as addresses"
                    ),
                };
                warnings.push(format!(
                    "Warning: {unnamed} {} no name in the symbolized profile's own symbols (named when it was written, by the tool that wrote it): {how}",
                    if unnamed == 1 { "address has" } else { "addresses have" },
                ));
            }
            Arc::new(table)
        } else {
            match program.as_ref().or(mapped_program.as_ref()) {
                Some(p) => {
                    let map = merged_map(profiles.iter().map(|i| &i.profile));
                    let mut local = Local::new(p, &map, &sym_opts);
                    let (table, writes) = local.symbolize_shared(&addrs, &mut warnings);
                    cache_writes = writes;
                    if opts.debug {
                        for note in local.read_notes.iter().chain(&local.cache_note) {
                            writeln!(err, "rpprof: {note}").map_err(io_err)?;
                        }
                    }
                    table
                }
                None => {
                    warnings.push(format!(
                        "Warning: {}: no program given and none named in its memory map; addresses print as hex",
                        profiles[0].path.display()
                    ));
                    Arc::new(NoSymbols.symbolize(&addrs, &mut warnings))
                }
            }
        };
        for w in &warnings {
            writeln!(err, "{w}").map_err(io_err)?;
        }
        let program_name = program_name(program.as_deref(), &profiles[0].profile);
        Ok(Session {
            opts,
            program,
            program_name,
            profiles,
            base,
            symbols,
            addrs,
            sym_opts,
            mapped_program,
            cache_views: false,
            cache: Mutex::new(Default::default()),
            ids: OnceLock::new(),
            renames: OnceLock::new(),
            run_frames: OnceLock::new(),
            cache_writes,
            unread: Vec::new(),
        })
    }

    /// This session with `base` (a profile file, or none) as its base profile: the profiles
    /// already read are reused; the names are looked up again only when the base brings
    /// addresses the session has not named.
    pub fn with_base(&self, base: Option<&str>, err: &mut dyn Write) -> Result<Session> {
        let mut profiles: Vec<Arc<Loaded>> = self
            .profiles
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != self.base)
            .map(|(_, p)| p.clone())
            .collect();
        let mut opts = self.opts.clone();
        opts.base = base.map(str::to_string);
        let Some(b) = base else {
            return Ok(self.rebuilt(opts, profiles, None));
        };
        let loaded = Arc::new(Loaded::read(b)?);
        if let (Some(p), Some(_)) = (&self.program, &loaded.profile.symbols) {
            return Err(Error::refused(format!(
                "{} is a symbolized profile: it cannot be used with a program argument; try again without {}",
                loaded.path.display(),
                p.display()
            )));
        }
        check_compatible(&profiles[0], &loaded, Join::Subtract, opts.value)?;
        for n in &loaded.profile.notes {
            writeln!(err, "{n}").map_err(io_err)?;
        }
        let known = loaded
            .profile
            .addresses()
            .iter()
            .all(|a| self.addrs.binary_search(a).is_ok());
        profiles.push(loaded);
        let base = Some(profiles.len() - 1);
        if known {
            return Ok(self.rebuilt(opts, profiles, base));
        }
        let mut s = Session::symbolize(opts, self.program.clone(), profiles, base, err)?;
        s.cache_views = self.cache_views;
        Ok(s)
    }

    /// A session of profiles already read, of any kinds, with no base: the web UI's history,
    /// where each view names the profiles it adds up and the base it subtracts, and
    /// [`crate::view::View::render`] checks that those agree. Their addresses are symbolized
    /// once, each profile's by its own memory map (the first map that names an address wins),
    /// so that dumps of several runs of a program, each loaded elsewhere, are all named.
    pub fn of_profiles(
        opts: LoadOptions,
        program: Option<PathBuf>,
        profiles: Vec<Arc<Loaded>>,
        err: &mut dyn Write,
    ) -> Result<Session> {
        let Some(first) = profiles.first() else {
            return Err(Error::usage("Did not specify profile file"));
        };
        let main = &first.profile;
        let mut sym_opts = opts.symbol_options(main.address_width);
        sym_opts.jeprof = opts.jeprof || main.is_jemalloc();
        let s = Session {
            program_name: program_name(program.as_deref(), main),
            mapped_program: mapped_program_of(profiles.iter().map(|i| &i.profile)),
            opts,
            program,
            profiles: Vec::new(),
            base: None,
            symbols: Arc::new(SymbolTable::new()),
            addrs: Vec::new(),
            sym_opts,
            cache_views: false,
            cache: Mutex::new(Default::default()),
            ids: OnceLock::new(),
            renames: OnceLock::new(),
            run_frames: OnceLock::new(),
            cache_writes: CacheWrites::default(),
            unread: Vec::new(),
        };
        s.with_profiles(&[], profiles, err)
    }

    /// This session with profiles `keep` (indices into [`Session::profiles`], in that order)
    /// and then `add`: the web UI's history when dumps arrive or old ones are let go. The
    /// profiles kept are not read again, and only addresses this session has not named are
    /// symbolized (each by the memory map of a profile it is in). The session's base, if
    /// kept, stays its base. The notes of the added profiles are written to `err`.
    pub fn with_profiles(
        &self,
        keep: &[usize],
        add: Vec<Arc<Loaded>>,
        err: &mut dyn Write,
    ) -> Result<Session> {
        let mut profiles: Vec<Arc<Loaded>> = Vec::with_capacity(keep.len() + add.len());
        let mut base = None;
        for &i in keep {
            let Some(p) = self.profiles.get(i) else {
                return Err(Error::usage(format!("no profile number {i}")));
            };
            if self.base == Some(i) {
                base = Some(profiles.len());
            }
            profiles.push(p.clone());
        }
        for loaded in &add {
            if let (Some(p), Some(_)) = (&self.program, &loaded.profile.symbols) {
                return Err(Error::refused(format!(
                    "{} is a symbolized profile: it cannot be used with a program argument; try again without {}",
                    loaded.path.display(),
                    p.display()
                )));
            }
            for n in &loaded.profile.notes {
                writeln!(err, "{n}").map_err(io_err)?;
            }
        }
        profiles.extend(add);
        if profiles.is_empty() {
            return Err(Error::usage("Did not specify profile file"));
        }
        // Every address of the profiles kept and added; the ones this session named keep
        // their names.
        let mut addrs = profile::addresses_of(profiles.iter().map(|p| &p.profile));
        addrs.shrink_to_fit();
        let mut symbols = SymbolTable::new();
        symbols.reserve(addrs.len(), addrs.len());
        let mut missing: Vec<u64> = Vec::new();
        for &a in &addrs {
            if self.addrs.binary_search(&a).is_ok() {
                if let Some(f) = self.symbols.get(a) {
                    symbols.insert(a, f.to_vec());
                }
            } else {
                missing.push(a);
            }
        }
        if !missing.is_empty() {
            self.name_missing(&profiles, &missing, &mut symbols, err)?;
        }
        let main = &profiles[0].profile;
        Ok(Session {
            opts: self.opts.clone(),
            program: self.program.clone(),
            program_name: program_name(self.program.as_deref(), main),
            mapped_program: mapped_program_of(profiles.iter().map(|i| &i.profile)),
            base,
            symbols: Arc::new(symbols),
            addrs,
            sym_opts: self.sym_opts.clone(),
            cache_views: self.cache_views,
            cache: Mutex::new(Default::default()),
            ids: OnceLock::new(),
            renames: OnceLock::new(),
            run_frames: OnceLock::new(),
            cache_writes: CacheWrites::default(),
            unread: self.unread.clone(),
            profiles,
        })
    }

    /// The session the command line would have loaded for `profiles` (indices, the first
    /// the main one) and `base`: those profiles only, their addresses and their names,
    /// taken from this session without reading or symbolizing anything. Reports whose text
    /// depends on every name read (pprof tells apart overloaded functions of one short name
    /// when both are among them) come out as the command line prints them.
    pub fn subset(&self, profiles: &[usize], base: Option<usize>) -> Result<Session> {
        let mut list: Vec<Arc<Loaded>> = Vec::with_capacity(profiles.len() + 1);
        for &i in profiles.iter().chain(base.iter()) {
            let Some(p) = self.profiles.get(i) else {
                return Err(Error::usage(format!("no profile number {i}")));
            };
            list.push(p.clone());
        }
        let Some(first) = list.first() else {
            return Err(Error::usage("Did not specify profile file"));
        };
        let main = &first.profile;
        let mut addrs = profile::addresses_of(list.iter().map(|p| &p.profile));
        addrs.shrink_to_fit();
        let symbols = if main.symbols.is_some() {
            // Profiles that carry their names (a symbolized file, a server's /pprof/symbol)
            // are named by their own, as the command line names them: two servers' programs
            // may use the same addresses for different functions.
            let mut names = std::collections::BTreeMap::new();
            for p in &list {
                if let Some(s) = &p.profile.symbols {
                    names.extend(s.names.iter().map(|(a, n)| (*a, n.clone())));
                }
            }
            let w = main.address_width;
            let table = Embedded {
                names: &names,
                address_width: w,
                keep_templates: self.opts.keep_templates,
            }
            .symbolize(&addrs, &mut Vec::new());
            without_no_symbol_marks(table, &names, w)
        } else {
            let mut symbols = SymbolTable::new();
            symbols.reserve(addrs.len(), addrs.len());
            for &a in &addrs {
                if let Some(f) = self.symbols.get(a) {
                    symbols.insert(a, f.to_vec());
                }
            }
            symbols
        };
        let mut sym_opts = self.sym_opts.clone();
        sym_opts.jeprof = self.opts.jeprof || main.is_jemalloc();
        sym_opts.address_width = main.address_width;
        Ok(Session {
            opts: self.opts.clone(),
            program: self.program.clone(),
            program_name: program_name(self.program.as_deref(), main),
            mapped_program: mapped_program_of(list.iter().map(|i| &i.profile)),
            base: base.map(|_| list.len() - 1),
            symbols: Arc::new(symbols),
            addrs,
            sym_opts,
            cache_views: self.cache_views,
            cache: Mutex::new(Default::default()),
            ids: OnceLock::new(),
            renames: OnceLock::new(),
            run_frames: OnceLock::new(),
            cache_writes: CacheWrites::default(),
            unread: Vec::new(),
            profiles: list,
        })
    }

    /// Names the addresses `missing` (sorted) into `symbols`: the profiles are taken in
    /// order, grouped by memory map (and by whether they carry names); each group names the
    /// missing addresses of its profiles that no earlier group named.
    fn name_missing(
        &self,
        profiles: &[Arc<Loaded>],
        missing: &[u64],
        symbols: &mut SymbolTable,
        err: &mut dyn Write,
    ) -> Result<()> {
        let mut left: rustc_hash::FxHashSet<u64> = missing.iter().copied().collect();
        let mut done: Vec<bool> = vec![false; profiles.len()];
        let w = self.sym_opts.address_width;
        let mut warnings = Vec::new();
        // Dumps with a memory map first: an address a dump cut short (no map) shares with
        // them is named from theirs, not left as hex by the cut one's group.
        let mut order: Vec<usize> = (0..profiles.len()).collect();
        order.sort_by_key(|&i| {
            let p = &profiles[i].profile;
            p.mappings.is_empty() && p.symbols.is_none()
        });
        for i in order {
            if done[i] || left.is_empty() {
                continue;
            }
            fn key(p: &Profile) -> (bool, Vec<&str>) {
                (
                    p.symbols.is_some(),
                    p.mappings.iter().map(|m| m.raw.as_str()).collect(),
                )
            }
            let k = key(&profiles[i].profile);
            let group: Vec<usize> = (0..profiles.len())
                .filter(|&j| !done[j] && key(&profiles[j].profile) == k)
                .collect();
            let mut addrs: Vec<u64> = Vec::new();
            for &j in &group {
                done[j] = true;
                addrs.extend(
                    profiles[j]
                        .profile
                        .addresses()
                        .into_iter()
                        .filter(|a| left.contains(a)),
                );
            }
            addrs.sort_unstable();
            addrs.dedup();
            if addrs.is_empty() {
                continue;
            }
            let first = &profiles[group[0]].profile;
            let table = if first.symbols.is_some() {
                let mut names = std::collections::BTreeMap::new();
                for &j in &group {
                    if let Some(s) = &profiles[j].profile.symbols {
                        names.extend(s.names.iter().map(|(a, n)| (*a, n.clone())));
                    }
                }
                let table = Embedded {
                    names: &names,
                    address_width: w,
                    keep_templates: self.opts.keep_templates,
                }
                .symbolize(&addrs, &mut warnings);
                without_no_symbol_marks(table, &names, w)
            } else {
                // The group's map first, then what the profiles of its process map besides
                // (a dump cut short has none: its addresses are theirs).
                let kin = kindred(first, profiles.iter().map(|l| &l.profile));
                let mapped = mapped_program_of(std::iter::once(first).chain(kin.iter().copied()));
                match self.program.as_ref().or(mapped.as_ref()) {
                    Some(p) => {
                        let map = merged_map(std::iter::once(first).chain(kin));
                        Local::new(p, &map, &self.sym_opts).symbolize(&addrs, &mut warnings)
                    }
                    None => {
                        warnings.push(format!(
                            "Warning: {}: no program given and none named in its memory map; addresses print as hex",
                            profiles[group[0]].path.display()
                        ));
                        NoSymbols.symbolize(&addrs, &mut warnings)
                    }
                }
            };
            for a in &addrs {
                left.remove(a);
            }
            for (a, frames) in table.iter() {
                symbols.insert(a, frames.to_vec());
            }
        }
        for w in &warnings {
            writeln!(err, "{w}").map_err(io_err)?;
        }
        Ok(())
    }

    /// A session of other profiles whose addresses this session has all named.
    fn rebuilt(
        &self,
        opts: LoadOptions,
        profiles: Vec<Arc<Loaded>>,
        base: Option<usize>,
    ) -> Session {
        Session {
            opts,
            program: self.program.clone(),
            program_name: self.program_name.clone(),
            profiles,
            base,
            symbols: self.symbols.clone(),
            addrs: self.addrs.clone(),
            sym_opts: self.sym_opts.clone(),
            mapped_program: self.mapped_program.clone(),
            cache_views: self.cache_views,
            cache: Mutex::new(Default::default()),
            ids: OnceLock::new(),
            renames: OnceLock::new(),
            run_frames: OnceLock::new(),
            cache_writes: CacheWrites::default(),
            unread: self.unread.clone(),
        }
    }

    /// The profiles that are not the base, in the order pprof reads (and adds) them: the
    /// first, then the others from the last back.
    pub fn default_profiles(&self) -> Vec<usize> {
        read_order(self.profiles.len() - usize::from(self.base.is_some()))
    }

    /// Address → its index in [`Session::addrs`] (the id [`crate::graph::IdStacks`] use).
    pub fn address_ids(&self) -> &FxHashMap<u64, u32> {
        self.ids.get_or_init(|| {
            let mut m = FxHashMap::default();
            m.reserve(self.addrs.len());
            m.extend(self.addrs.iter().enumerate().map(|(i, &a)| (a, i as u32)));
            m
        })
    }

    /// The symbol cache entries still being written for this session's names, taken out
    /// of it: a caller that lets the session go without dropping it (a process about to
    /// end) drops them to wait.
    pub fn take_cache_writes(&mut self) -> CacheWrites {
        std::mem::take(&mut self.cache_writes)
    }

    /// pprof's renaming of routines that share a short name ([`crate::graph::renames`]).
    pub fn renames(&self) -> &crate::graph::Renames {
        self.renames
            .get_or_init(|| crate::graph::renames(&self.symbols))
    }

    /// Whether some frame is a `Callback::Run` ([`crate::graph::has_run_frames`]).
    pub fn run_frames(&self) -> bool {
        *self
            .run_frames
            .get_or_init(|| crate::graph::has_run_frames(&self.symbols))
    }

    /// The first profile argument, whose kind, sampling and map the reports follow.
    pub fn main(&self) -> &Profile {
        &self.profiles[0].profile
    }

    /// The kind of the profiles.
    pub fn kind(&self) -> Kind {
        self.main().kind
    }

    /// The warning for a report of allocation totals (`value`) from the heap profiles
    /// `profiles` (indices) when none of them records any: every record's bracketed counts
    /// are 0 (jemalloc's without `prof_accum`), while they hold bytes in use. None otherwise.
    pub fn no_allocation_totals(&self, profiles: &[usize], value: Value) -> Option<String> {
        let name = match value.heap {
            HeapValue::AllocSpace => "alloc_space",
            HeapValue::AllocObjects => "alloc_objects",
            _ => return None,
        };
        if self.kind() != Kind::Heap {
            return None;
        }
        let sum = |column: &str| -> f64 {
            profiles
                .iter()
                .filter_map(|&i| self.profiles.get(i))
                .map(|l| {
                    let p = &l.profile;
                    match p.sample_types.iter().position(|t| t.name == column) {
                        Some(i) => p
                            .samples
                            .iter()
                            .map(|s| s.values.get(i).copied().unwrap_or(0.0).abs())
                            .sum(),
                        None => 0.0,
                    }
                })
                .sum()
        };
        (sum(name) == 0.0 && sum("inuse_space") != 0.0).then(|| {
            let why = if self.jeprof() {
                " (jemalloc writes them only with prof_accum:true)"
            } else {
                ""
            };
            format!(
                "Warning: the profile records no allocation totals: the bracketed counts of every record are 0{why}; {name} reports nothing"
            )
        })
    }

    /// Whether jeprof's rules apply (invoked as jeprof, or a jemalloc profile).
    pub fn jeprof(&self) -> bool {
        self.sym_opts.jeprof
    }

    /// Hex digits in an address.
    pub fn address_width(&self) -> usize {
        self.main().address_width
    }

    /// The program whose files `--list` and `--disasm` read: the argument, or the one the
    /// memory map names.
    pub fn program_file(&self) -> Option<&Path> {
        self.program.as_deref().or(self.mapped_program.as_deref())
    }

    /// Refuses to add (or subtract) profile `other` to (from) profile `main` when their values
    /// do not mean the same.
    pub fn check_pair(&self, main: usize, other: usize, is_base: bool, value: Value) -> Result<()> {
        let how = if is_base { Join::Subtract } else { Join::Add };
        check_compatible(&self.profiles[main], &self.profiles[other], how, value)
    }
}

/// `0, n-1, n-2, ..., 1`: pprof's reading order of `n` profile arguments.
fn read_order(n: usize) -> Vec<usize> {
    std::iter::once(0).chain((1..n).rev()).collect()
}

/// The program as pprof names it in `--dot` and `--raw`: the program argument as given, the
/// `binary=` of a symbolized profile, or (rpprof) the program named by the memory map.
fn program_name(program: Option<&Path>, first: &Profile) -> String {
    if let Some(p) = program {
        return p.to_string_lossy().into_owned();
    }
    if let Some(s) = &first.symbols {
        return s
            .binary
            .clone()
            .unwrap_or_else(|| UNKNOWN_BINARY.to_string());
    }
    program_from_map(first)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| UNKNOWN_BINARY.to_string())
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

pub(crate) fn io_err(e: std::io::Error) -> Error {
    Error {
        path: None,
        location: crate::error::Location::None,
        kind: ErrorKind::Io(e),
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

/// How a profile joins the first one: added to it, subtracted from it (the base), or as a
/// dump of its series (`--trend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    Add,
    Subtract,
    Series,
}

/// Refuses to join `other` to `main` (`how`) when their values do not mean
/// the same: different kinds of profile, CPU profiles sampled at different rates, jemalloc
/// and tcmalloc heap profiles whose filled value pairs differ. google-pprof adds them anyway
/// and prints nonsense.
fn check_compatible(main: &Loaded, other: &Loaded, how: Join, value: Value) -> Result<()> {
    let (a, b) = (&main.profile, &other.profile);
    let (verb, prep) = match how {
        Join::Add => ("add", "to"),
        Join::Subtract => ("subtract", "from"),
        Join::Series => ("follow", "in a series with"),
    };
    let type_of = |p: &Profile| -> &'static str {
        p.sample_types
            .get(value.index(p.kind))
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
        // (A growth profile's values are named as a heap profile's: its kind is what differs.)
        let why = if type_of(a) == type_of(b) {
            "the kinds of profile differ"
        } else {
            "sample types differ"
        };
        return Err(refuse(
            format!("a {} profile", b.kind.name()),
            type_of(b).to_string(),
            format!("a {} profile", a.kind.name()),
            type_of(a).to_string(),
            why,
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
