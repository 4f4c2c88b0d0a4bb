//! Stage 3: aggregate symbolized stacks into report nodes, as google-pprof does.
//!
//! A [`Stacks`] is pprof's "profile": stack (addresses, leaf first) → value. On it run, in
//! pprof's order: removal of allocator and profiler frames ([`remove_uninteresting`]),
//! `--focus` and `--ignore`, then reduction to the report granularity ([`reduce`]), which
//! names every frame (functions, `function file:line`, files, or addresses), expands inlined
//! frames, and keeps each name once per stack so recursion is not counted twice.

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use regex::Regex;

use crate::profile::Kind;
use crate::symbolize::place::Place;
use crate::symbolize::{Frame, SymbolTable};

/// Stack → value; pprof's `$profile` hash.
#[derive(Debug, Clone, Default)]
pub struct Stacks {
    /// The stacks, leaf first, in the order they were first added: passes over all stacks
    /// read them in a row, in about the order their keys were allocated, rather than in hash
    /// order all over memory (a large CPU profile's stacks by address id: 12 ms -> 5 ms).
    pub map: indexmap::IndexMap<Vec<u64>, f64, rustc_hash::FxBuildHasher>,
}

impl Stacks {
    /// Adds `v` to stack `k`.
    pub fn add(&mut self, k: Vec<u64>, v: f64) {
        *self.map.entry(k).or_insert(0.0) += v;
    }

    /// Adds `v` to stack `k` without taking ownership unless it is new.
    pub fn add_ref(&mut self, k: &[u64], v: f64) {
        use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
        // Hashed and looked up once, new or not.
        let hash = std::hash::BuildHasher::hash_one(self.map.hasher(), k);
        match self.map.raw_entry_mut_v1().from_key_hashed_nocheck(hash, k) {
            RawEntryMut::Occupied(e) => *e.into_mut() += v,
            RawEntryMut::Vacant(e) => {
                e.insert_hashed_nocheck(hash, k.to_vec(), v);
            }
        }
    }

    /// The sum of all values.
    pub fn total(&self) -> f64 {
        crate::units::sum(self.map.values())
    }

    /// pprof's `SubtractProfile`: `self - base`, per stack; with `drop_negative`, negative
    /// differences become 0 and stacks only in the base are left out.
    pub fn subtract(&self, base: &Stacks, drop_negative: bool) -> Stacks {
        let mut r = Stacks::default();
        for (k, v) in &self.map {
            let mut d = v - base.map.get(k).copied().unwrap_or(0.0);
            if d < 0.0 && drop_negative {
                d = 0.0;
            }
            r.add_ref(k, d);
        }
        if !drop_negative {
            for (k, v) in &base.map {
                if !self.map.contains_key(k) {
                    r.add_ref(k, -v);
                }
            }
        }
        r
    }

    /// Stacks in a fixed order (by stack), for deterministic output.
    pub fn sorted(&self) -> Vec<(&Vec<u64>, f64)> {
        let mut v: Vec<(&Vec<u64>, f64)> = self.map.iter().map(|(k, v)| (k, *v)).collect();
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v
    }
}

/// Which report granularity (`--functions`, `--lines`, `--addresses`, `--files`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Granularity {
    /// One node per function (default).
    #[default]
    Functions,
    /// One node per function and source line.
    Lines,
    /// One node per address.
    Addresses,
    /// One node per source file.
    Files,
}

/// Options of the aggregation stage.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Report granularity.
    pub granularity: Granularity,
    /// Keep template arguments in names (`--no_strip_temp`).
    pub keep_templates: bool,
    /// Append the address to names (`--show_addresses`).
    pub show_addresses: bool,
    /// Do not drop a constant second frame of CPU stacks (`--no-auto-signal-frm`).
    pub no_auto_signal_frames: bool,
    /// jeprof's rules (jemalloc profiles).
    pub jeprof: bool,
    /// Hex digits in an address.
    pub address_width: usize,
    /// jeprof's `--retain`.
    pub retain: Option<Regex>,
    /// jeprof's `--exclude`.
    pub exclude: Option<Regex>,
    /// Go pprof's `hide`: frames whose names match are dropped.
    pub hide: Option<Regex>,
    /// Go pprof's `show`: only frames whose names match are kept.
    pub show: Option<Regex>,
    /// `--pprof_quirks`: `--files` keeps a place jeprof reads with its discriminator
    /// (`f.cc:63 (discriminator 3)`) whole, a "file" per line, as jeprof does.
    pub pprof_quirks: bool,
}

/// The hex form pprof keys addresses by.
pub fn addr_key(a: u64, width: usize) -> String {
    let mut s = String::with_capacity(width.max(16));
    push_addr_key(&mut s, a, width);
    s
}

/// Appends [`addr_key`]`(a, width)` to `s` (without the formatting machinery: reports
/// at address granularity make one per address).
pub fn push_addr_key(s: &mut String, a: u64, width: usize) {
    crate::units::push_hex(s, a, width);
}

/// The short name pprof matches skip lists against: that of the outermost frame.
fn outer_short(frames: &[Frame]) -> String {
    frames
        .first()
        .map(|f| f.short.to_string())
        .unwrap_or_default()
}

const HEAP_SKIP: &[&str] = &[
    "calloc",
    "cfree",
    "malloc",
    "free",
    "memalign",
    "posix_memalign",
    "pvalloc",
    "valloc",
    "realloc",
    "tc_calloc",
    "tc_cfree",
    "tc_malloc",
    "tc_free",
    "tc_memalign",
    "tc_posix_memalign",
    "tc_pvalloc",
    "tc_valloc",
    "tc_realloc",
    "tc_new",
    "tc_delete",
    "tc_newarray",
    "tc_deletearray",
    "tc_new_nothrow",
    "tc_newarray_nothrow",
    "do_malloc",
    "::do_malloc",
    "::do_malloc_or_cpp_alloc",
    "DoSampledAllocation",
    "simple_alloc::allocate",
    "__malloc_alloc_template::allocate",
    "__builtin_delete",
    "__builtin_new",
    "__builtin_vec_delete",
    "__builtin_vec_new",
    "operator new",
    "operator new[]",
    "malloc_zone_malloc",
    "malloc_zone_calloc",
    "malloc_zone_valloc",
    "malloc_zone_realloc",
    "malloc_zone_memalign",
    "malloc_zone_free",
    "__start_google_malloc",
    "__stop_google_malloc",
    "__start_malloc_hook",
    "__stop_malloc_hook",
];

/// jeprof's additions to the heap skip list (jemalloc's entry points).
const JEMALLOC_SKIP: &[&str] = &[
    "newImpl",
    "void* newImpl",
    "aligned_alloc",
    "mallocx",
    "rallocx",
    "xallocx",
    "dallocx",
    "sdallocx",
    "sdallocx_noflags",
];

const CONTENTION_SKIP: &[&str] = &[
    "base::RecordLockProfileData",
    "base::SubmitMutexProfileData",
    "base::SubmitSpinLockProfileData",
    "Mutex::Unlock",
    "Mutex::UnlockSlow",
    "Mutex::ReaderUnlock",
    "MutexLock::~MutexLock",
    "SpinLock::Unlock",
    "SpinLock::SlowUnlock",
    "SpinLockHolder::~SpinLockHolder",
];

const CPU_SKIP: &[&str] = &[
    "ProfileData::Add",
    "ProfileData::prof_handler",
    "CpuProfiler::prof_handler",
    "__FRAME_END__",
    "__pthread_sighandler",
    "__restore",
];

/// What pprof's `RemoveUninterestingFrames` takes out of every stack of one profile: a
/// second CPU frame that is the same in every stack (`second_frames` times over), and the
/// frames at `skipped` addresses (allocator, lock bookkeeping, signal handler).
#[derive(Debug, Default)]
pub struct Trim {
    /// How many times the second frame is removed.
    pub second_frames: usize,
    /// The addresses whose frames are dropped.
    pub skipped: rustc_hash::FxHashSet<u64>,
    /// jeprof's rules (everything below an allocator frame goes too).
    pub jeprof: bool,
}

impl Trim {
    /// One removal of the second frame of `stack` as its leaf followed by `stack[at..]`,
    /// and of the frame after it when it is the caller of the leaf (pprof's rule for the
    /// signal handler's return address; not jeprof's): where the frames after the leaf
    /// start then (every removal takes frames right after the leaf, so what is left is
    /// always the leaf and a tail). Nothing is copied, however deep the stack: a
    /// recursion thousands of frames deep in one stack alone has its second frame removed
    /// round after round.
    fn second_removed(&self, stack: &[u64], at: usize) -> usize {
        let n = stack.len();
        if at >= n {
            // (Fewer than two frames: nothing to remove.)
            return at;
        }
        let mut at = at + 1;
        if !self.jeprof && at + 1 < n && stack[at].wrapping_add(1) == stack[0] {
            at += 1;
        }
        at
    }

    /// Where the frames after the leaf start once the second frame of `stack` is removed
    /// `rounds` times (see [`Trim::second_removed`]).
    fn start_after(&self, stack: &[u64], rounds: usize) -> usize {
        let mut at = 1;
        for _ in 0..rounds {
            if at >= stack.len() {
                break;
            }
            at = self.second_removed(stack, at);
        }
        at
    }

    /// [`Trim::apply`] into `out` (cleared first), without allocating.
    fn apply_into(&self, stack: &[u64], out: &mut Vec<u64>) {
        out.clear();
        if let Some((&leaf, _)) = stack.split_first() {
            out.push(leaf);
            let at = self.start_after(stack, self.second_frames);
            out.extend_from_slice(stack.get(at..).unwrap_or_default());
        }
        if out.iter().any(|&a| self.is_skipped(a)) {
            self.drop_skipped_in(out);
        }
    }

    fn is_skipped(&self, a: u64) -> bool {
        !self.skipped.is_empty() && self.skipped.contains(&a)
    }

    /// `k` without the frames at skipped addresses (under jeprof's rules, without what is
    /// below them either).
    fn drop_skipped(&self, k: &[u64]) -> Vec<u64> {
        let mut path = k.to_vec();
        self.drop_skipped_in(&mut path);
        path
    }

    /// [`Trim::drop_skipped`] in place.
    fn drop_skipped_in(&self, k: &mut Vec<u64>) {
        let mut kept = 0;
        for i in 0..k.len() {
            let a = k[i];
            if self.is_skipped(a) {
                if self.jeprof {
                    // jeprof drops everything below an allocator frame too.
                    kept = 0;
                }
                continue;
            }
            k[kept] = a;
            kept += 1;
        }
        k.truncate(kept);
    }

    /// `stack` without its uninteresting frames.
    pub fn apply(&self, stack: &[u64]) -> Vec<u64> {
        let mut k = Vec::with_capacity(stack.len());
        self.apply_into(stack, &mut k);
        k
    }
}

/// Works out the [`Trim`] of a profile whose stacks are `stacks`, and returns the stacks with
/// the second CPU frames already removed (saying so in `notes`).
pub fn uninteresting(
    stacks: Stacks,
    symbols: &SymbolTable,
    kind: Kind,
    opts: &Options,
    notes: &mut Vec<String>,
) -> (Stacks, Trim) {
    let mut trim = Trim {
        jeprof: opts.jeprof,
        ..Trim::default()
    };
    let mut stacks = stacks;
    if kind == Kind::Cpu {
        trim.second_frames = second_frame_rounds(
            || stacks.map.keys().map(Vec::as_slice),
            &trim,
            symbols,
            opts,
            notes,
        );
        if trim.second_frames > 0 {
            // Stacks that become the same are added together.
            let mut r = Stacks::default();
            r.map.reserve(stacks.map.len());
            for (k, v) in stacks.map {
                let mut t = Vec::with_capacity(k.len());
                if let Some((&leaf, _)) = k.split_first() {
                    t.push(leaf);
                    let at = trim.start_after(&k, trim.second_frames);
                    t.extend_from_slice(k.get(at..).unwrap_or_default());
                }
                r.add(t, v);
            }
            stacks = r;
        }
    }
    trim.skipped = skipped_addresses(symbols, kind, opts);
    (stacks, trim)
}

/// How many times pprof removes the second frame of the stacks `stacks` gives (in the same
/// order each time, each stack once or more often), saying each removal in `notes`: while
/// it is the same in every stack (and `--no_auto_signal_frames` does not keep it). Each
/// stack keeps where its tail starts, rather than every removal being made again per round.
fn second_frame_rounds<'s, I: Iterator<Item = &'s [u64]>>(
    stacks: impl Fn() -> I,
    trim: &Trim,
    symbols: &SymbolTable,
    opts: &Options,
    notes: &mut Vec<String>,
) -> usize {
    let mut rounds = 0;
    // Per stack, where its frames after the leaf start once the removals so far are made.
    let mut starts: Vec<usize> = stacks().map(|_| 1).collect();
    loop {
        // The second frame of every stack once the removals so far are made.
        let mut seconds = stacks().zip(&starts).map(|(k, &at)| k.get(at).copied());
        let Some(Some(second)) = seconds.next() else {
            break;
        };
        if !seconds.all(|s| s == Some(second)) {
            break;
        }
        if !removes_second(second, symbols, opts, notes) {
            break;
        }
        rounds += 1;
        for (k, at) in stacks().zip(starts.iter_mut()) {
            *at = trim.second_removed(k, *at);
        }
    }
    rounds
}

/// The [`Trim`] [`uninteresting`] works out for the stacks `stacks` gives (each once or
/// more often: the same), without making them into [`Stacks`].
pub fn uninteresting_trim<'s, I: Iterator<Item = &'s [u64]>>(
    stacks: impl Fn() -> I,
    symbols: &SymbolTable,
    kind: Kind,
    opts: &Options,
    notes: &mut Vec<String>,
) -> Trim {
    let mut trim = Trim {
        jeprof: opts.jeprof,
        ..Trim::default()
    };
    if kind == Kind::Cpu {
        trim.second_frames = second_frame_rounds(stacks, &trim, symbols, opts, notes);
    }
    trim.skipped = skipped_addresses(symbols, kind, opts);
    trim
}

/// Says that the second frame `second`, the same in every stack, is removed (and returns
/// true), or, with `--no_auto_signal_frames`, that it is not (false).
fn removes_second(
    second: u64,
    symbols: &SymbolTable,
    opts: &Options,
    notes: &mut Vec<String>,
) -> bool {
    let name = match symbols.get(second) {
        Some(f) => outer_short(f),
        None => addr_key(second, opts.address_width),
    };
    if opts.no_auto_signal_frames && !opts.jeprof {
        notes.push(format!(
            "All second stack frames are same: `{name}'.\nMight be stack trace capturing bug."
        ));
        return false;
    }
    notes.push(format!("Removing {name} from all stack traces."));
    true
}

/// The addresses whose frames [`uninteresting`] drops from every stack (allocator, lock
/// bookkeeping, the profiler's signal handler): few, so checking each frame against them is
/// cheap.
fn skipped_addresses(
    symbols: &SymbolTable,
    kind: Kind,
    opts: &Options,
) -> rustc_hash::FxHashSet<u64> {
    let mut skip: rustc_hash::FxHashSet<String> = Default::default();
    // pprof's `TCMalloc|^tcmalloc::` (a plain test: compiling the regex cost a millisecond).
    let mut tcmalloc = false;
    match kind {
        Kind::Heap | Kind::Growth => {
            let extra: &[&str] = if opts.jeprof { JEMALLOC_SKIP } else { &[] };
            for n in HEAP_SKIP.iter().chain(extra) {
                skip.insert((*n).to_string());
                skip.insert(format!("_{n}"));
            }
            tcmalloc = true;
        }
        Kind::Contention => {
            skip.extend(CONTENTION_SKIP.iter().map(|s| (*s).to_string()));
        }
        Kind::Cpu if opts.jeprof || !opts.no_auto_signal_frames => {
            skip.extend(CPU_SKIP.iter().map(|s| (*s).to_string()));
        }
        _ => {}
    }
    if skip.is_empty() && !tcmalloc {
        return Default::default();
    }
    let heap = matches!(kind, Kind::Heap | Kind::Growth);
    let skipped = |short: &str| {
        skip.contains(short)
            || (tcmalloc && (short.contains("TCMalloc") || short.starts_with("tcmalloc::")))
            || (heap && in_allocator_library(short))
    };
    // Most addresses share their function's short name (one `Arc`): each name is tried once.
    let mut by_name: FxHashMap<*const u8, bool> = FxHashMap::default();
    let mut last: (*const u8, bool) = (std::ptr::null(), false);
    symbols
        .iter()
        .filter(|(_, frames)| {
            frames.first().is_some_and(|f| {
                let p = Arc::as_ptr(&f.short) as *const u8;
                if p != last.0 {
                    last = (p, *by_name.entry(p).or_insert_with(|| skipped(&f.short)));
                }
                last.1
            })
        })
        .map(|(a, _)| a)
        .collect()
}

/// True for a frame that no symbol names inside an allocator's library (jemalloc, tcmalloc):
/// `libjemalloc.so.2+0xa2630`. Such libraries are stripped to their exported functions; the
/// frames between the exported entry point and the profiler (jemalloc's `prof_backtrace`,
/// the `newImpl` that `operator new` jumps to) are allocator frames, dropped from heap stacks
/// as pprof drops the named ones. (pprof named them after some exported function nearby,
/// which dropped them when that happened to be `malloc` and charged the whole profile to
/// them when it was, say, `malloc_usable_size`.)
pub fn in_allocator_library(name: &str) -> bool {
    crate::symbolize::local::is_outside_name(name)
        && (name.starts_with("libjemalloc") || name.starts_with("libtcmalloc"))
}

/// When a large share (a tenth or more) of the total is in leaf frames without a name
/// ([`crate::symbolize::is_unnamed`]), a note saying how much; the warnings of the
/// symbolizer say why. `stacks` are those a report shows (after frame removal and
/// `--focus`/`--ignore`).
pub fn unnamed_share_note(stacks: &Stacks, symbols: &SymbolTable) -> Option<String> {
    let (mut unnamed, mut total) = (0.0f64, 0.0f64);
    // Each leaf's name is looked at once: a CPU profile has millions of stacks over far
    // fewer leaves.
    let mut leaf_unnamed: FxHashMap<u64, bool> = FxHashMap::default();
    for (k, v) in &stacks.map {
        total += v.abs();
        let is_unnamed = match k.first() {
            None => true,
            Some(&a) => *leaf_unnamed
                .entry(a)
                .or_insert_with(|| symbols.get(a).is_none_or(crate::symbolize::is_unnamed)),
        };
        if is_unnamed {
            unnamed += v.abs();
        }
    }
    unnamed_share(unnamed, total)
}

/// The note of [`unnamed_share_note`], from the values in unnamed leaves and in all.
fn unnamed_share(unnamed: f64, total: f64) -> Option<String> {
    if total <= 0.0 || unnamed / total < 0.1 {
        return None;
    }
    Some(format!(
        "Warning: {:.1}% of the total is in functions without a name (printed as addresses); the warnings above say why",
        100.0 * unnamed / total
    ))
}

/// pprof's `RemoveUninterestingFrames`: drops allocator frames from heap stacks, lock
/// bookkeeping from contention stacks, the profiler's signal handler from CPU stacks, and a
/// second CPU frame that is the same in every stack (saying so in `notes`).
pub fn remove_uninteresting(
    stacks: Stacks,
    symbols: &SymbolTable,
    kind: Kind,
    opts: &Options,
    notes: &mut Vec<String>,
) -> Stacks {
    let (stacks, trim) = uninteresting(stacks, symbols, kind, opts, notes);
    remove_frames(stacks, &trim, symbols, opts)
}

/// The second part of [`remove_uninteresting`]: drops the frames at `trim`'s addresses
/// (the second CPU frames are already gone), then applies jeprof's `--retain` and
/// `--exclude`. For heap profiles, whose [`Trim`] does not depend on the stacks, one `trim`
/// serves every profile of a session.
pub fn remove_frames(stacks: Stacks, trim: &Trim, symbols: &SymbolTable, opts: &Options) -> Stacks {
    let frames_filter = opts.jeprof && (opts.retain.is_some() || opts.exclude.is_some());
    if trim.skipped.is_empty()
        || !stacks
            .map
            .keys()
            .any(|k| k.iter().any(|&a| trim.is_skipped(a)))
    {
        return if frames_filter {
            filter_frames(stacks, symbols, opts)
        } else {
            stacks
        };
    }
    let mut r = Stacks::default();
    r.map.reserve(stacks.map.len());
    for (k, v) in stacks.map {
        if !k.iter().any(|&a| trim.is_skipped(a)) {
            r.add(k, v);
            continue;
        }
        r.add(trim.drop_skipped(&k), v);
    }
    if frames_filter {
        r = filter_frames(r, symbols, opts);
    }
    r
}

/// jeprof's `FilterFrames` (`--retain`, `--exclude`): keeps only frames whose names match
/// `--retain` and do not match `--exclude`; stacks left empty are dropped.
fn filter_frames(stacks: Stacks, symbols: &SymbolTable, opts: &Options) -> Stacks {
    keep_frames(
        Cow::Owned(stacks),
        symbols,
        opts,
        opts.retain.as_ref(),
        opts.exclude.as_ref(),
    )
}

/// Go pprof's `show` and `hide` of a report's stacks: each frame, inlined ones included, is
/// kept or dropped on its own by its short name. The frames left at each address are in
/// [`HideShow::symbols`], the table the report is then made from.
#[derive(Debug)]
pub struct HideShow {
    /// The frames each address keeps (none for an address without symbols).
    pub symbols: SymbolTable,
    /// Addresses every frame of which is dropped (and addresses without symbols whose
    /// address does not pass).
    dropped: FxHashSet<u64>,
}

impl HideShow {
    /// The frames of `stacks` that `opts.show` and `opts.hide` keep (matching each frame's
    /// short name; an address without symbols by its hex form); `None` when neither is set.
    pub fn of(stacks: &[&Stacks], symbols: &SymbolTable, opts: &Options) -> Option<HideShow> {
        if opts.show.is_none() && opts.hide.is_none() {
            return None;
        }
        let passes = |name: &str| {
            opts.show.as_ref().is_none_or(|re| re.is_match(name))
                && !opts.hide.as_ref().is_some_and(|re| re.is_match(name))
        };
        let mut by_name: FxHashMap<*const u8, bool> = FxHashMap::default();
        let mut r = HideShow {
            symbols: SymbolTable::new(),
            dropped: FxHashSet::default(),
        };
        let mut seen: FxHashSet<u64> = FxHashSet::default();
        for st in stacks {
            for k in st.map.keys() {
                for &a in k {
                    if !seen.insert(a) {
                        continue;
                    }
                    let Some(frames) = symbols.get(a).filter(|f| !f.is_empty()) else {
                        if !passes(&addr_key(a, opts.address_width)) {
                            r.dropped.insert(a);
                        }
                        continue;
                    };
                    let kept: Vec<Frame> = frames
                        .iter()
                        .filter(|f| {
                            *by_name
                                .entry(Arc::as_ptr(&f.short) as *const u8)
                                .or_insert_with(|| passes(&f.short))
                        })
                        .cloned()
                        .collect();
                    if kept.is_empty() {
                        r.dropped.insert(a);
                    } else {
                        r.symbols.insert(a, kept);
                    }
                }
            }
        }
        Some(r)
    }

    /// `stacks` without the addresses all of whose frames are dropped; stacks left empty
    /// are dropped.
    pub fn apply(&self, stacks: &Stacks) -> Stacks {
        let mut r = Stacks::default();
        for (k, v) in stacks.map.iter() {
            let path: Vec<u64> = k
                .iter()
                .copied()
                .filter(|a| !self.dropped.contains(a))
                .collect();
            if !path.is_empty() {
                r.add(path, *v);
            }
        }
        r
    }
}

/// The frames of `stacks` whose names match `keep` (when given) and not `drop`.
fn keep_frames(
    stacks: Cow<'_, Stacks>,
    symbols: &SymbolTable,
    opts: &Options,
    keep: Option<&Regex>,
    drop: Option<&Regex>,
) -> Stacks {
    let mut cache: FxHashMap<u64, bool> = FxHashMap::default();
    let mut path_of = |k: &[u64]| -> Vec<u64> {
        k.iter()
            .copied()
            .filter(|&a| {
                *cache.entry(a).or_insert_with(|| {
                    let name = match symbols.get(a) {
                        Some(f) => outer_short(f),
                        None => addr_key(a, opts.address_width),
                    };
                    keep.is_none_or(|re| re.is_match(&name))
                        && !drop.is_some_and(|re| re.is_match(&name))
                })
            })
            .collect()
    };
    let mut r = Stacks::default();
    for (k, v) in stacks.map.iter() {
        let path = path_of(k);
        if !path.is_empty() {
            r.add(path, *v);
        }
    }
    r
}

/// True when any frame of `frames` matches `re` by its short name or its `file:line`.
fn symbol_matches(frames: Option<&[Frame]>, re: &Regex) -> bool {
    frames.is_some_and(|fs| {
        fs.iter()
            .any(|f| re.is_match(&f.short) || f.fileline.with_text(|t| re.is_match(t)))
    })
}

/// pprof's `FocusProfile` (`keep == true`) and `IgnoreProfile` (`keep == false`): stacks with
/// a frame whose address, name or place matches `re` are kept (or dropped).
pub fn filter(
    stacks: Cow<'_, Stacks>,
    symbols: &SymbolTable,
    re: &Regex,
    keep: bool,
    opts: &Options,
) -> Stacks {
    let mut cache: FxHashMap<u64, bool> = FxHashMap::default();
    let mut hit = |k: &[u64]| {
        k.iter().any(|&a| {
            *cache.entry(a).or_insert_with(|| {
                re.is_match(&addr_key(a, opts.address_width)) || symbol_matches(symbols.get(a), re)
            })
        })
    };
    let mut r = Stacks::default();
    match stacks {
        Cow::Owned(st) => {
            for (k, v) in st.map {
                if hit(&k) == keep {
                    r.add(k, v);
                }
            }
        }
        Cow::Borrowed(st) => {
            for (k, v) in &st.map {
                if hit(k) == keep {
                    r.add_ref(k, *v);
                }
            }
        }
    }
    r
}

/// A report node: its key (the name pprof aggregates on) and, when the key is an address,
/// that address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Node {
    /// The aggregation key, e.g. `main`, `main foo.c:12`, or an address.
    pub key: Arc<str>,
    /// Set when the key is an address (as pprof prints unknown frames).
    pub addr: Option<u64>,
}

/// pprof's reduced profile, summed per node: its flat and cumulative profiles.
#[derive(Debug, Clone, Default)]
pub struct Reduced {
    /// Node id → node (shared with the translation the nodes came from).
    pub nodes: Arc<Vec<Node>>,
    /// Node id → value of the stacks it ends (pprof's `FlatProfile`).
    pub flat: Vec<f64>,
    /// Node id → value of the stacks it is on, once per stack (`CumulativeProfile`).
    pub cum: Vec<f64>,
    /// Node id → on some stack (a key of pprof's cumulative profile, even at value 0).
    pub seen: Vec<bool>,
}

impl Reduced {
    /// Flat (leaf) and cumulative (anywhere on the stack) value per node id, and whether
    /// the node is on any stack.
    pub fn flat_cum(&self) -> (&[f64], &[f64], &[bool]) {
        (&self.flat, &self.cum, &self.seen)
    }
}

/// Full names → the names they print as, where that is not their short name (see
/// [`renames`]).
pub type Renames = FxHashMap<Arc<str>, String>;

/// pprof's `FillFullnameToShortnameMap` over a symbol table: nm routines that share a short
/// name but not an address get `name@address` so they stay apart.
pub fn renames(symbols: &SymbolTable) -> Renames {
    fullname_to_shortname(symbols)
}

/// pprof's `FillFullnameToShortnameMap`: nm routines that share a short name but not an
/// address get `name@address` so they stay apart.
fn fullname_to_shortname(symbols: &SymbolTable) -> FxHashMap<Arc<str>, String> {
    // Borrowed from the table, not cloned: a clone's reference count is a write to each
    // name's cache line (on the large heap_v2 profile, most of this pass's time).
    let mut seen_once: FxHashMap<&str, &str> = FxHashMap::default();
    let mut more: rustc_hash::FxHashSet<&str> = Default::default();
    // Most addresses share their function's name (one `Arc`): look at each name once.
    let mut met: rustc_hash::FxHashSet<*const u8> = Default::default();
    // The result does not depend on the order the entries are met in. (In the table's
    // order, an address mostly has the name of the one before it.)
    let mut last: *const u8 = std::ptr::null();
    for (_, frames) in symbols.iter() {
        let Some(f) = frames.first() else { continue };
        let p = f.function.as_ptr();
        if p == last {
            continue;
        }
        last = p;
        // Only tagged names (`name<address>`) count: the set holds those alone.
        if tag_of(&f.function).is_none() || !met.insert(p) {
            continue;
        }
        let short: &str = &f.short;
        match seen_once.get(short) {
            Some(&full) if full != &*f.function => {
                more.insert(short);
            }
            Some(_) => {}
            None => {
                seen_once.insert(short, &f.function);
            }
        }
    }
    let mut map = FxHashMap::default();
    if more.is_empty() {
        return map;
    }
    for (_, frames) in symbols.iter() {
        let Some(f) = frames.first() else { continue };
        let short = &f.short;
        if more.contains(&**short)
            && let Some(tag) = tag_of(&f.function)
        {
            let hex = tag.trim_start_matches('0');
            map.insert(f.function.clone(), format!("{short}@{hex}"));
        }
    }
    map
}

/// The hex digits of a trailing `<hex>` tag.
fn tag_of(full: &str) -> Option<&str> {
    let body = full.strip_suffix('>')?;
    // The hex digits before the `>`, read from the end (a search for the last `<` would
    // read the whole name): they must follow a `<`.
    let digits = body.bytes().rev().take_while(u8::is_ascii_hexdigit).count();
    let open = body.len().checked_sub(digits + 1)?;
    (digits > 0 && body.as_bytes()[open] == b'<').then(|| &body[open + 1..])
}

/// pprof's `ReduceProfile`: names each frame at the chosen granularity (`TranslateStack`),
/// keeps each name once per stack, and sums stacks that become equal.
pub fn reduce(stacks: &Stacks, symbols: &SymbolTable, opts: &Options) -> Reduced {
    let threads = crate::cores();
    reduce_on(stacks, symbols, opts, threads)
}

/// [`reduce`] with `threads` cores to use.
fn reduce_on(stacks: &Stacks, symbols: &SymbolTable, opts: &Options, threads: usize) -> Reduced {
    let map = fullname_to_shortname(symbols);
    let mut sorted: Vec<(&Vec<u64>, &f64)> = stacks.map.iter().collect();
    // Callback::Run frames are numbered in the order they are met: meet them in a fixed
    // order (pprof's is hash order), in one pass. (Only a short name can make such a frame:
    // a renamed one ends in its `@address` tag.)
    if has_run_frames(symbols) {
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        return reduce_part(&sorted, symbols, &map, opts).0;
    }
    // Two halves of the stacks on two cores, then summed per node: the sums are exact (and
    // so the same as one pass's) when every value is an integer and the total stays far from
    // 2^53. Nodes are met in another order, which no report depends on (they sort by value,
    // then name).
    let exact = || {
        let mut abs = 0.0;
        for v in stacks.map.values() {
            if v.fract() != 0.0 {
                return false;
            }
            abs += v.abs();
        }
        abs < 4.0e15
    };
    if sorted.len() < PARALLEL_STACKS || threads < 2 || !exact() {
        return reduce_part(&sorted, symbols, &map, opts).0;
    }
    let (first, second) = sorted.split_at(sorted.len() / 2);
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| reduce_part(second, symbols, &map, opts).0);
        let a = reduce_part(first, symbols, &map, opts);
        (a, other.join())
    });
    match b {
        Ok(b) => merge(a, b),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Below this many stacks (or addresses), the work runs in one thread.
const PARALLEL_STACKS: usize = 20_000;

/// `f` over `0..n`: in this thread, or, from [`PARALLEL_STACKS`] items on two cores or more,
/// over the first half here while another thread does the second half. The second half's
/// result, when there is one, is the second.
fn in_halves<T: Send>(n: usize, f: impl Fn(std::ops::Range<usize>) -> T + Sync) -> (T, Option<T>) {
    let threads = crate::cores();
    if n < PARALLEL_STACKS || threads < 2 {
        return (f(0..n), None);
    }
    let half = n / 2;
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| f(half..n));
        (f(0..half), other.join())
    });
    (
        a,
        Some(b.unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
    )
}

/// `a` (with its key → id index) plus `b`, node by node.
fn merge(a: (Reduced, FxHashMap<Arc<str>, u32>), b: Reduced) -> Reduced {
    let (mut out, mut ids) = a;
    let b_nodes = Arc::try_unwrap(b.nodes).unwrap_or_else(|n| (*n).clone());
    let out_nodes = Arc::make_mut(&mut out.nodes);
    for (j, node) in b_nodes.into_iter().enumerate() {
        let id = match ids.get(&*node.key) {
            Some(&id) => id as usize,
            None => {
                let id = out_nodes.len();
                ids.insert(node.key.clone(), id as u32);
                out_nodes.push(node);
                out.flat.push(0.0);
                out.cum.push(0.0);
                out.seen.push(false);
                id
            }
        };
        out.flat[id] += b.flat[j];
        out.cum[id] += b.cum[j];
        out.seen[id] |= b.seen[j];
    }
    out
}

/// The node items of each address met, translated on first sight: pprof's `TranslateStack`
/// cached per address.
struct Translator<'a> {
    symbols: &'a SymbolTable,
    map: &'a FxHashMap<Arc<str>, String>,
    opts: &'a Options,
    /// Node key → id.
    ids: FxHashMap<Arc<str>, u32>,
    /// Node id → node.
    nodes: Vec<Node>,
    /// Per address (innermost frame first): a range of `items`.
    ranges: FxHashMap<u64, (u32, u32)>,
    items: Vec<Item>,
    /// The `file:line` of each `Callback::Run` item.
    runs: Vec<Place>,
    /// With one node per function, a frame's node depends only on its names (and on whether
    /// it is inlined), unless it is named after its address: such frames are cached by the
    /// addresses of their name strings.
    by_name_only: bool,
    by_name: FxHashMap<(usize, usize, bool), u32>,
    /// Where node keys are built.
    buf: String,
}

impl<'a> Translator<'a> {
    fn new(
        symbols: &'a SymbolTable,
        map: &'a FxHashMap<Arc<str>, String>,
        opts: &'a Options,
    ) -> Translator<'a> {
        // About one node per address, except by function.
        let mut ids = FxHashMap::default();
        ids.reserve(if opts.granularity == Granularity::Functions {
            symbols.len() / 4
        } else {
            symbols.len()
        });
        Translator {
            symbols,
            map,
            opts,
            ids,
            nodes: Vec::new(),
            ranges: FxHashMap::default(),
            items: Vec::new(),
            runs: Vec::new(),
            by_name_only: opts.granularity == Granularity::Functions && !opts.show_addresses,
            by_name: FxHashMap::default(),
            buf: String::new(),
        }
    }

    /// The id of `node`, interned; `None` for a node without a name.
    fn intern(&mut self, node: Node) -> Option<u32> {
        if node.key.is_empty() {
            return None;
        }
        Some(match self.ids.get(&*node.key) {
            Some(&id) => id,
            None => {
                let id = self.nodes.len() as u32;
                self.ids.insert(node.key.clone(), id);
                self.nodes.push(node);
                id
            }
        })
    }

    fn item(&mut self, t: Translated) -> Item {
        match t {
            Translated::Name(n) => match self.intern(n) {
                Some(id) => Item::Node(id),
                None => Item::Skip,
            },
            Translated::Run(fileline) => {
                self.runs.push(fileline);
                Item::Run(self.runs.len() as u32 - 1)
            }
        }
    }

    /// The item of symbolized frame `f` of address `a`: its node is made only when no node
    /// has its key yet.
    fn frame_item(&mut self, a: u64, f: &Frame, inline: bool) -> Item {
        let base = match frame_base(f, inline, true, self.map) {
            Ok(base) => base,
            Err(fileline) => {
                self.runs.push(fileline.clone());
                return Item::Run(self.runs.len() as u32 - 1);
            }
        };
        let opts = self.opts;
        let mut buf = std::mem::take(&mut self.buf);
        let key = match granular_in(
            base,
            inline,
            &f.fileline,
            a,
            opts.address_width,
            opts,
            &mut buf,
        ) {
            Some(key) => key,
            None => buf.as_str(),
        };
        let item = if key.is_empty() {
            Item::Skip
        } else {
            match self.ids.get(key) {
                Some(&id) => Item::Node(id),
                None => {
                    // Mostly the frame's short name: its `Arc` is shared, not copied.
                    let node = if std::ptr::eq(key, &*f.short) {
                        Node {
                            key: f.short.clone(),
                            addr: is_addr_key(key, a, opts.address_width).then_some(a),
                        }
                    } else {
                        node_of(Cow::Borrowed(key), a, opts.address_width)
                    };
                    let id = self.nodes.len() as u32;
                    self.ids.insert(node.key.clone(), id);
                    self.nodes.push(node);
                    Item::Node(id)
                }
            }
        };
        self.buf = buf;
        item
    }

    /// The items of address `a`, translated on first sight.
    fn range(&mut self, a: u64) -> (u32, u32) {
        if let Some(&r) = self.ranges.get(&a) {
            return r;
        }
        let r = self.translate_new(a);
        self.ranges.insert(a, r);
        r
    }

    /// Translates address `a` (not met before) and returns its range of items.
    fn translate_new(&mut self, a: u64) -> (u32, u32) {
        self.translate_frames(a, self.symbols.get(a))
    }

    /// [`Translator::translate_new`] of `a`, whose frames (`None`: no entry) are `frames`.
    fn translate_frames(&mut self, a: u64, frames: Option<&[Frame]>) -> (u32, u32) {
        let lo = self.items.len() as u32;
        let (symbols, map, opts) = (self.symbols, self.map, self.opts);
        match frames.filter(|_| self.by_name_only) {
            // Most addresses share their functions' names (the same `Arc`s): their nodes
            // are looked up by those.
            Some(frames) => {
                for (j, f) in frames.iter().enumerate().rev() {
                    let inline = j > 0;
                    let key = (
                        Arc::as_ptr(&f.function) as *const u8 as usize,
                        Arc::as_ptr(&f.short) as *const u8 as usize,
                        inline,
                    );
                    if let Some(&id) = self.by_name.get(&key) {
                        self.items.push(Item::Node(id));
                        continue;
                    }
                    let item = self.frame_item(a, f, inline);
                    // A node named after its address is the address's own.
                    if let Item::Node(id) = item
                        && self.nodes[id as usize].addr.is_none()
                    {
                        self.by_name.insert(key, id);
                    }
                    self.items.push(item);
                }
            }
            None => match frames {
                Some(frames) => {
                    for (j, f) in frames.iter().enumerate().rev() {
                        let item = self.frame_item(a, f, j > 0);
                        self.items.push(item);
                    }
                }
                None => {
                    for t in translate(a, symbols, map, opts) {
                        let item = self.item(t);
                        self.items.push(item);
                    }
                }
            },
        }
        (lo, self.items.len() as u32)
    }
}

/// Every address of a session translated to report nodes at one granularity, kept so that
/// later reports only walk their stacks ([`IdStacks::reduce`]). Not for profiles whose names
/// include `Callback::Run` frames, whose nodes depend on the order stacks are met in.
#[derive(Debug)]
pub struct Translation {
    nodes: Arc<Vec<Node>>,
    /// Per address id: its range of `items`.
    ranges: Vec<(u32, u32)>,
    items: Vec<Item>,
}

impl Translation {
    /// The report nodes, by id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Calls `f` with each node of address id `a`, in order. (Inlined: it runs once per
    /// frame of every stack, 1.6 million times on the large CPU profile, and a call there
    /// cost a fifth more instructions than the loops it sits in.)
    #[inline(always)]
    fn each_node(&self, a: u32, mut f: impl FnMut(u32)) {
        let (lo, hi) = self.ranges[a as usize];
        for item in &self.items[lo as usize..hi as usize] {
            if let Item::Node(id) = *item {
                f(id);
            }
        }
    }
}

/// The [`Translation`] of `addrs` (sorted and unique: an address's id is its index); not for
/// names that hold `Callback::Run` frames ([`has_run_frames`]). Many addresses are
/// translated in two halves on two cores.
pub fn translation(
    addrs: &[u64],
    symbols: &SymbolTable,
    renames: &Renames,
    opts: &Options,
) -> Translation {
    let entries = symbols.entries_for(addrs);
    let (a, b) = in_halves(addrs.len(), |r| {
        translate_part(&addrs[r.clone()], &entries[r], symbols, renames, opts)
    });
    let Some((b, _)) = b else {
        return a.0;
    };
    // The second half's nodes, renumbered into the first's.
    let (mut t, mut ids) = a;
    let b_nodes = Arc::try_unwrap(b.nodes).unwrap_or_else(|n| (*n).clone());
    let nodes = Arc::make_mut(&mut t.nodes);
    let renumber: Vec<u32> = b_nodes
        .into_iter()
        .map(|node| match ids.get(&*node.key) {
            Some(&id) => id,
            None => {
                let id = nodes.len() as u32;
                ids.insert(node.key.clone(), id);
                nodes.push(node);
                id
            }
        })
        .collect();
    let offset = t.items.len() as u32;
    t.items.extend(b.items.into_iter().map(|item| match item {
        Item::Node(id) => Item::Node(renumber[id as usize]),
        other => other,
    }));
    t.ranges.extend(
        b.ranges
            .into_iter()
            .map(|(lo, hi)| (lo + offset, hi + offset)),
    );
    t
}

/// The translation of some addresses (`entries`: their entries in `symbols`), and the index
/// of its nodes by key.
fn translate_part(
    addrs: &[u64],
    entries: &[u32],
    symbols: &SymbolTable,
    map: &FxHashMap<Arc<str>, String>,
    opts: &Options,
) -> (Translation, FxHashMap<Arc<str>, u32>) {
    let mut t = Translator::new(symbols, map, opts);
    let w = opts.address_width;
    // The addresses are unique: each is translated as new.
    let ranges = addrs
        .iter()
        .zip(entries)
        .map(|(&a, &e)| {
            if w > 8 && a > 0x7fff_ffff_ffff_ffff {
                (0, 0)
            } else {
                t.translate_frames(a, symbols.entry(e))
            }
        })
        .collect();
    let ids = std::mem::take(&mut t.ids);
    let tr = Translation {
        nodes: Arc::new(t.nodes),
        ranges,
        items: t.items,
    };
    (tr, ids)
}

/// True when some frame is a `Callback::Run` (pprof numbers them per caller).
pub fn has_run_frames(symbols: &SymbolTable) -> bool {
    symbols.any_function(|f| f.ends_with("::Run") && f.contains("Callback"))
}

/// Stacks with their addresses replaced by ids (indices into a sorted list of addresses),
/// back to back in one array, in a fixed order: compact for reports that walk the same
/// stacks many times.
#[derive(Debug, Default, Clone)]
pub struct IdStacks {
    /// Every stack's address ids, leaf first.
    ids: Vec<u32>,
    /// The end of each stack in `ids`.
    ends: Vec<u32>,
    /// Each stack's value.
    values: Vec<f64>,
}

impl IdStacks {
    /// `stacks`, in their map's order, with ids from `index` (address → id); an address
    /// missing from it is left out.
    pub fn of(stacks: &Stacks, index: &FxHashMap<u64, u32>) -> IdStacks {
        let part = |part: &mut dyn Iterator<Item = (&Vec<u64>, &f64)>, n: usize| {
            let mut r = IdStacks::default();
            r.ends.reserve(n);
            r.values.reserve(n);
            for (k, &v) in part {
                r.ids.reserve(k.len());
                for a in k {
                    if let Some(&id) = index.get(a) {
                        r.ids.push(id);
                    }
                }
                r.ends.push(r.ids.len() as u32);
                r.values.push(v);
            }
            r
        };
        // Many stacks (a CPU profile's hundred thousand): the two halves of the map's order
        // on two cores, one after the other in the result.
        let (a, b) = in_halves(stacks.map.len(), |r| {
            part(&mut stacks.map.iter().skip(r.start).take(r.len()), r.len())
        });
        a.then(b)
    }

    /// The stacks of `samples` with their values in column `column`, each trimmed by `trim`
    /// and with ids from `index` (an address missing from it is left out), in order, a
    /// sample each: stacks that are the same are not added up first, which changes no sum
    /// of whole numbers (and saves the map that [`IdStacks::of`] starts from).
    pub fn of_samples(
        samples: &[crate::profile::Sample],
        column: usize,
        trim: &Trim,
        index: &FxHashMap<u64, u32>,
    ) -> IdStacks {
        let part = |samples: &[crate::profile::Sample]| {
            let mut r = IdStacks::default();
            r.ends.reserve(samples.len());
            r.values.reserve(samples.len());
            let mut k = Vec::new();
            for smp in samples {
                trim.apply_into(&smp.stack, &mut k);
                r.ids.reserve(k.len());
                for a in &k {
                    if let Some(&id) = index.get(a) {
                        r.ids.push(id);
                    }
                }
                r.ends.push(r.ids.len() as u32);
                r.values
                    .push(smp.values.get(column).copied().unwrap_or(0.0));
            }
            r
        };
        // Many stacks: the two halves on two cores, one after the other in the result.
        let (a, b) = in_halves(samples.len(), |r| part(&samples[r]));
        a.then(b)
    }

    /// [`IdStacks::paths`] and [`NodePaths::reduce`] in one pass, the node paths not kept;
    /// in two halves on two cores when `exact` (sums of whole numbers below 2^53, exact in
    /// any order), else in one pass in order, as `reduce` adds up.
    pub fn reduce_direct(&self, t: &Translation, exact: bool) -> Reduced {
        let n = t.nodes.len();
        let part = |from: usize, count: usize| {
            let (mut flat, mut cum) = (vec![0.0f64; n], vec![0.0f64; n]);
            let mut seen = vec![false; n];
            let mut on_stack: Vec<u32> = vec![u32::MAX; n];
            for (s, (k, v)) in self.iter().skip(from).take(count).enumerate() {
                let s = s as u32;
                let mut first = true;
                for &a in k {
                    t.each_node(a, |node| {
                        let i = node as usize;
                        if on_stack[i] != s {
                            on_stack[i] = s;
                            if first {
                                flat[i] += v;
                                first = false;
                            }
                            cum[i] += v;
                            seen[i] = true;
                        }
                    });
                }
            }
            (flat, cum, seen)
        };
        let ((mut flat, mut cum, mut seen), b) = if exact {
            in_halves(self.ends.len(), |r| part(r.start, r.len()))
        } else {
            (part(0, self.ends.len()), None)
        };
        if let Some((f, c, sn)) = b {
            for (x, y) in flat.iter_mut().zip(f) {
                *x += y;
            }
            for (x, y) in cum.iter_mut().zip(c) {
                *x += y;
            }
            for (x, y) in seen.iter_mut().zip(sn) {
                *x |= y;
            }
        }
        Reduced {
            nodes: t.nodes.clone(),
            flat,
            cum,
            seen,
        }
    }

    /// The stacks' node keys as [`translate_stack_ids`] gives them for the stacks these
    /// were made from (the keys in `t`'s order, not in the order the paths meet them).
    pub fn key_paths(&self, t: &Translation) -> KeyPaths {
        let names = t.nodes.iter().map(|n| n.key.clone()).collect();
        let addrs = t.nodes.iter().map(|n| n.addr).collect();
        let paths = self
            .iter()
            .map(|(k, v)| {
                let mut path = Vec::with_capacity(k.len());
                for &a in k {
                    t.each_node(a, |n| path.push(n));
                }
                (path, v)
            })
            .collect();
        KeyPaths {
            names,
            addrs,
            paths,
        }
    }

    /// `self` with `b`'s stacks after its own.
    fn then(mut self, b: Option<IdStacks>) -> IdStacks {
        let Some(b) = b else { return self };
        let offset = self.ids.len() as u32;
        self.ids.extend(b.ids);
        self.ends.extend(b.ends.into_iter().map(|e| e + offset));
        self.values.extend(b.values);
        self
    }

    /// The stacks and their values, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u32], f64)> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .zip(self.values.iter().copied())
            .map(|((lo, hi), v)| (&self.ids[lo as usize..hi as usize], v))
    }

    /// For each stack, whether one of its frames is set in `hits` (per address id): which
    /// stacks pprof's `FocusProfile` keeps and `IgnoreProfile` drops.
    pub fn hits(&self, hits: &[bool]) -> Vec<bool> {
        self.iter()
            .map(|(k, _)| k.iter().any(|&id| hits[id as usize]))
            .collect()
    }

    /// [`unnamed_share_note`] over these stacks, whose ids index `addrs`: the same sums in
    /// the same order, each leaf's name looked at once.
    pub fn unnamed_share_note(&self, addrs: &[u64], symbols: &SymbolTable) -> Option<String> {
        let (mut unnamed, mut total) = (0.0f64, 0.0f64);
        // Per address id: 0 not looked at yet, 1 named, 2 unnamed. A table made for `addrs`
        // is read whole in its own order (a CPU profile's 56,000 leaves looked up one by one
        // cost 10 ms; its 156,000 entries in a row, 1).
        let mut leaf: Vec<u8> = match symbols.unnamed_flags(addrs) {
            Some(flags) => flags.into_iter().map(|u| 1 + u8::from(u)).collect(),
            None => vec![0; addrs.len()],
        };
        for (k, v) in self.iter() {
            total += v.abs();
            let is_unnamed = match k.first() {
                None => true,
                Some(&id) => {
                    let state = &mut leaf[id as usize];
                    if *state == 0 {
                        let a = addrs[id as usize];
                        *state = if symbols.get(a).is_none_or(crate::symbolize::is_unnamed) {
                            2
                        } else {
                            1
                        };
                    }
                    *state == 2
                }
            };
            if is_unnamed {
                unnamed += v.abs();
            }
        }
        unnamed_share(unnamed, total)
    }

    /// The stacks' values, in order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Each stack's report nodes at `t`'s granularity ([`NodePaths`]).
    pub fn paths(&self, t: &Translation) -> NodePaths {
        // The stacks from `from` on, `n` of them: their nodes and ends (from 0).
        let part = |from: usize, n: usize| -> (Vec<u32>, Vec<u32>) {
            // About as many nodes as addresses, in proportion to the stacks taken.
            let room = self.ids.len() / self.ends.len().max(1) * n;
            let (mut ids, mut ends) = (Vec::with_capacity(room), Vec::with_capacity(n));
            // Node id → the last stack it was put on, to keep each node once per stack.
            let mut on_stack: Vec<u32> = vec![u32::MAX; t.nodes.len()];
            for (s, (k, _)) in self.iter().skip(from).take(n).enumerate() {
                let s = s as u32;
                for &a in k {
                    t.each_node(a, |id| {
                        if on_stack[id as usize] != s {
                            on_stack[id as usize] = s;
                            ids.push(id);
                        }
                    });
                }
                ends.push(ids.len() as u32);
            }
            (ids, ends)
        };
        let ((mut ids, mut ends), b) = in_halves(self.ends.len(), |r| part(r.start, r.len()));
        if let Some((b_ids, b_ends)) = b {
            let offset = ids.len() as u32;
            ids.extend(b_ids);
            ends.extend(b_ends.into_iter().map(|e| e + offset));
        }
        NodePaths {
            nodes: t.nodes.clone(),
            ids,
            ends,
        }
    }
}

/// The report nodes of each stack of an [`IdStacks`], leaf first, each node once: what
/// pprof's `ReduceProfile` sums. Kept per granularity, so that reports of the same stacks
/// with other values, focus or sort only add numbers up.
#[derive(Debug)]
pub struct NodePaths {
    nodes: Arc<Vec<Node>>,
    ids: Vec<u32>,
    ends: Vec<u32>,
}

impl NodePaths {
    /// pprof's `ReduceProfile`: the flat and cumulative value of each node over the stacks
    /// (`values`, in the order of the stacks) that `keep` keeps (all when `None`).
    pub fn reduce(&self, values: &[f64], keep: Option<&[bool]>) -> Reduced {
        let n = self.nodes.len();
        let mut out = Reduced {
            nodes: self.nodes.clone(),
            flat: vec![0.0; n],
            cum: vec![0.0; n],
            seen: vec![false; n],
        };
        let mut lo = 0usize;
        for (s, &hi) in self.ends.iter().enumerate() {
            let hi = hi as usize;
            if keep.is_none_or(|k| k[s]) {
                let path = &self.ids[lo..hi];
                let v = values[s];
                if let Some(&leaf) = path.first() {
                    out.flat[leaf as usize] += v;
                }
                for &id in path {
                    out.cum[id as usize] += v;
                    out.seen[id as usize] = true;
                }
            }
            lo = hi;
        }
        out
    }

    /// Calls `f` with the path of nodes (ids into [`Translation::nodes`], leaf first, each
    /// node once: what [`NodePaths::reduce`] sums) and the value (`values`, in the order of
    /// the stacks) of each stack that `keep` keeps (all when `None`), in order.
    pub fn walk(&self, values: &[f64], keep: Option<&[bool]>, mut f: impl FnMut(&[u32], f64)) {
        let mut lo = 0usize;
        for (s, &hi) in self.ends.iter().enumerate() {
            let hi = hi as usize;
            if keep.is_none_or(|k| k[s]) {
                f(&self.ids[lo..hi], values[s]);
            }
            lo = hi;
        }
    }
}

/// For each of `addrs`, whether its address, name or place matches `re` (see [`filter`]).
/// Many addresses are tried in two halves on two cores.
pub fn matches(addrs: &[u64], symbols: &SymbolTable, re: &Regex, opts: &Options) -> Vec<bool> {
    // Each half has its own copy of `re`, so that the two do not share (and contend for) one
    // pool of match caches.
    let part = |addrs: &[u64], re: &Regex| -> Vec<bool> {
        // Most frames share their function's short name (one `Arc`): each name is tried once.
        let mut by_name: FxHashMap<usize, bool> = FxHashMap::default();
        let mut key = String::with_capacity(16);
        addrs
            .iter()
            .map(|&a| {
                key.clear();
                push_addr_key(&mut key, a, opts.address_width);
                if re.is_match(&key) {
                    return true;
                }
                symbols.get(a).is_some_and(|fs| {
                    fs.iter().any(|f| {
                        *by_name
                            .entry(Arc::as_ptr(&f.short) as *const u8 as usize)
                            .or_insert_with(|| re.is_match(&f.short))
                            || f.fileline.with_text(|t| re.is_match(t))
                    })
                })
            })
            .collect()
    };
    let (mut a, b) = in_halves(addrs.len(), |r| part(&addrs[r], &re.clone()));
    a.extend(b.into_iter().flatten());
    a
}

/// [`reduce`] over some of the stacks, in their order; also the index of the nodes by key.
fn reduce_part(
    sorted: &[(&Vec<u64>, &f64)],
    symbols: &SymbolTable,
    map: &FxHashMap<Arc<str>, String>,
    opts: &Options,
) -> (Reduced, FxHashMap<Arc<str>, u32>) {
    let w = opts.address_width;
    let mut t = Translator::new(symbols, map, opts);
    t.ranges.reserve(symbols.len());
    let mut flat: Vec<f64> = Vec::new();
    let mut cum: Vec<f64> = Vec::new();
    let mut seen: Vec<bool> = Vec::new();
    let mut run_ids: FxHashMap<u64, usize> = FxHashMap::default();
    let mut path: Vec<u32> = Vec::new();
    // Node id → the last stack it was put on, to keep each node once per stack.
    let mut on_stack: Vec<u32> = Vec::new();
    for (n, &(k, &v)) in sorted.iter().enumerate() {
        let n = n as u32;
        path.clear();
        for (i, &a) in k.iter().enumerate() {
            if w > 8 && a > 0x7fff_ffff_ffff_ffff {
                continue;
            }
            let (lo, hi) = t.range(a);
            for j in lo..hi {
                let id = match t.items[j as usize] {
                    Item::Node(id) => id,
                    Item::Skip => continue,
                    Item::Run(r) => {
                        let caller = if i > 0 { k[i - 1] } else { 0 };
                        let next = run_ids.len() + 1;
                        let num = *run_ids.entry(caller).or_insert(next);
                        let node = Node {
                            key: granular(
                                &format!("Run#{num}"),
                                false,
                                &t.runs[r as usize],
                                a,
                                w,
                                opts,
                            )
                            .into(),
                            addr: None,
                        };
                        match t.intern(node) {
                            Some(id) => id,
                            None => continue,
                        }
                    }
                };
                let i = id as usize;
                if on_stack.len() <= i {
                    on_stack.resize(i + 1, u32::MAX);
                }
                if on_stack[i] != n {
                    on_stack[i] = n;
                    path.push(id);
                }
            }
        }
        let nodes = t.nodes.len();
        if flat.len() < nodes {
            flat.resize(nodes, 0.0);
            cum.resize(nodes, 0.0);
            seen.resize(nodes, false);
        }
        if let Some(&leaf) = path.first() {
            flat[leaf as usize] += v;
        }
        for &id in &path {
            cum[id as usize] += v;
            seen[id as usize] = true;
        }
    }
    let n = t.nodes.len();
    flat.resize(n, 0.0);
    cum.resize(n, 0.0);
    seen.resize(n, false);
    let ids = std::mem::take(&mut t.ids);
    let out = Reduced {
        nodes: Arc::new(t.nodes),
        flat,
        cum,
        seen,
    };
    (out, ids)
}

/// A translated frame, cached per address.
#[derive(Debug, Clone, Copy)]
enum Item {
    /// A node.
    Node(u32),
    /// A frame with an empty name.
    Skip,
    /// A `Callback::Run` frame (the index of its `file:line`), named per caller.
    Run(u32),
}

enum Translated {
    Name(Node),
    /// A `Callback::Run` frame (its `file:line`): its name depends on the caller.
    Run(Place),
}

/// pprof's `TranslateStack` for one address: the node names, innermost frame first.
fn translate(
    a: u64,
    symbols: &SymbolTable,
    map: &FxHashMap<Arc<str>, String>,
    opts: &Options,
) -> Vec<Translated> {
    match symbols.get(a) {
        Some(frames) => frames
            .iter()
            .enumerate()
            .rev()
            .map(|(j, f)| translate_frame(a, f, j > 0, true, map, opts))
            .collect(),
        None => {
            let astr: Arc<str> = Arc::from(addr_key(a, opts.address_width));
            let f = Frame {
                function: astr.clone(),
                fileline: Place::default(),
                short: astr,
            };
            vec![translate_frame(a, &f, false, false, map, opts)]
        }
    }
}

/// The key of one frame: a node name, or a `Callback::Run` frame's `file:line`.
enum FrameKey<'a> {
    Name(Cow<'a, str>),
    Run(&'a Place),
}

/// The [`FrameKey`] of one frame of address `a` (`symbolized` when the frame is the symbol
/// table's, not a stand-in for an unknown address).
fn frame_key<'a>(
    a: u64,
    f: &'a Frame,
    inline: bool,
    symbolized: bool,
    map: &'a FxHashMap<Arc<str>, String>,
    opts: &Options,
) -> FrameKey<'a> {
    let base = match frame_base(f, inline, symbolized, map) {
        Ok(base) => base,
        Err(fileline) => return FrameKey::Run(fileline),
    };
    FrameKey::Name(granular(
        base,
        inline,
        &f.fileline,
        a,
        opts.address_width,
        opts,
    ))
}

/// The name a frame's node key starts from (its short name, or the name `map` gives its
/// function), or `Err` with its `file:line` for a `Callback::Run` frame.
fn frame_base<'a>(
    f: &'a Frame,
    inline: bool,
    symbolized: bool,
    map: &'a FxHashMap<Arc<str>, String>,
) -> std::result::Result<&'a str, &'a Place> {
    let renamed = if map.is_empty() {
        None
    } else {
        map.get(&f.function)
    };
    let base: &str = match renamed {
        Some(s) => s,
        None if symbolized => &f.short,
        None => &f.function,
    };
    // pprof's /Callback.*::Run$/ (an inlined frame's name ends in " (inline)").
    if !inline
        && let Some(head) = base.strip_suffix("::Run")
        && head.contains("Callback")
    {
        return Err(&f.fileline);
    }
    Ok(base)
}

/// [`translate`] of one frame of address `a` (see [`frame_key`]).
fn translate_frame(
    a: u64,
    f: &Frame,
    inline: bool,
    symbolized: bool,
    map: &FxHashMap<Arc<str>, String>,
    opts: &Options,
) -> Translated {
    match frame_key(a, f, inline, symbolized, map, opts) {
        FrameKey::Run(fileline) => Translated::Run(fileline.clone()),
        FrameKey::Name(key) => Translated::Name(node_of(key, a, opts.address_width)),
    }
}

/// The node named `key`, a frame of address `a`.
fn node_of(key: Cow<'_, str>, a: u64, w: usize) -> Node {
    let addr = is_addr_key(&key, a, w).then_some(a);
    Node {
        key: Arc::from(key.as_ref()),
        addr,
    }
}

/// True when `key` is `a` printed by [`addr_key`]. (A name as long as an address, such as
/// `lg::m012::f06123`, is told apart by its first bytes, without printing the address.)
fn is_addr_key(key: &str, a: u64, w: usize) -> bool {
    let digits = (64 - a.leading_zeros() as usize).div_ceil(4).max(1);
    key.len() == digits.max(w)
        && key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && *key == addr_key(a, w)
}

/// The node key of one frame at the chosen granularity: `func` with ` (inline)` when
/// `inline`.
fn granular<'a>(
    func: &'a str,
    inline: bool,
    fileline: &'a Place,
    a: u64,
    w: usize,
    opts: &Options,
) -> Cow<'a, str> {
    let mut buf = String::new();
    match granular_in(func, inline, fileline, a, w, opts, &mut buf) {
        Some(key) => Cow::Borrowed(key),
        None => Cow::Owned(buf),
    }
}

/// [`granular`] without allocating: the key when it is (part of) `func` or `fileline`, or
/// `None` when it was written to `buf` (cleared first).
#[allow(clippy::too_many_arguments)]
fn granular_in<'a>(
    func: &'a str,
    inline: bool,
    fileline: &'a Place,
    a: u64,
    w: usize,
    opts: &Options,
    buf: &mut String,
) -> Option<&'a str> {
    let show = opts.show_addresses;
    const INLINE: &str = " (inline)";
    buf.clear();
    let push_name = |s: &mut String| {
        s.push_str(func);
        if inline {
            s.push_str(INLINE);
        }
    };
    let unknown = func == "??" && !inline;
    match opts.granularity {
        Granularity::Addresses => {
            push_addr_key(buf, a, w);
            buf.push(' ');
            push_name(buf);
            buf.push(' ');
            fileline.push_to(buf);
        }
        Granularity::Lines => {
            if unknown && fileline == "??:0" {
                push_addr_key(buf, a, w);
            } else {
                push_name(buf);
                buf.push(' ');
                fileline.push_to(buf);
                if show {
                    buf.push_str(" (");
                    push_addr_key(buf, a, w);
                    buf.push(')');
                }
            }
        }
        Granularity::Functions => {
            if unknown {
                push_addr_key(buf, a, w);
            } else if !show && !inline {
                return Some(func);
            } else {
                push_name(buf);
                if show {
                    buf.push_str(" (");
                    push_addr_key(buf, a, w);
                    buf.push(')');
                }
            }
        }
        Granularity::Files => {
            if fileline == "??:0" || fileline.is_empty() {
                push_addr_key(buf, a, w);
            } else if opts.pprof_quirks {
                return Some(fileline.file());
            } else {
                return Some(fileline.file_of_line());
            }
        }
    }
    None
}

/// pprof's `TranslateStack` of every stack, as `PrintDot` uses it for edges: the node keys of
/// each stack, innermost first, with every frame (recursion is not collapsed), and the stack's
/// value. `Callback::Run` frames get the same `Run#N` names as in [`reduce`].
pub fn translate_stacks(
    stacks: &Stacks,
    symbols: &SymbolTable,
    opts: &Options,
) -> Vec<(Vec<Arc<str>>, f64)> {
    let k = translate_stack_ids(stacks, symbols, opts);
    k.paths
        .into_iter()
        .map(|(path, v)| {
            let keys = path.iter().map(|&i| k.names[i as usize].clone()).collect();
            (keys, v)
        })
        .collect()
}

/// [`translate_stacks`] with each node key given once: the paths hold indices into `names`.
#[derive(Debug, Default, Clone)]
pub struct KeyPaths {
    /// The node keys (each once).
    pub names: Vec<Arc<str>>,
    /// For each key that is an address (pprof's name for a frame it cannot place at the
    /// granularity), that address: reports print such a node by its function and place.
    pub addrs: Vec<Option<u64>>,
    /// Each stack's node keys (indices into `names`), innermost first, and its value.
    pub paths: Vec<(Vec<u32>, f64)>,
}

/// [`translate_stacks`] as [`KeyPaths`]: each address is translated once, and each key is
/// hashed once per address that has it, not once per frame (a large CPU profile has 1.6
/// million frames, its flame graph's page as many keys).
pub fn translate_stack_ids(stacks: &Stacks, symbols: &SymbolTable, opts: &Options) -> KeyPaths {
    /// One translated frame of an address: a key's index, or a `Callback::Run` frame.
    enum Key {
        Id(u32),
        Run(Place),
    }
    let w = opts.address_width;
    let map = fullname_to_shortname(symbols);
    let mut out = KeyPaths::default();
    let mut index: FxHashMap<Arc<str>, u32> = FxHashMap::default();
    let mut intern = |out: &mut KeyPaths, key: Arc<str>, addr: Option<u64>| -> u32 {
        *index.entry(key).or_insert_with_key(|key| {
            out.names.push(key.clone());
            out.addrs.push(addr);
            (out.names.len() - 1) as u32
        })
    };
    let mut cache: FxHashMap<u64, Vec<Key>> = FxHashMap::default();
    let mut run_ids: FxHashMap<u64, usize> = FxHashMap::default();
    let mut sorted: Vec<(&Vec<u64>, &f64)> = stacks.map.iter().collect();
    // The same order as `reduce`, so that `Run#N` numbers agree.
    if has_run_frames(symbols) {
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    out.paths.reserve(sorted.len());
    for (k, &v) in sorted {
        let mut path: Vec<u32> = Vec::with_capacity(k.len());
        for (i, &a) in k.iter().enumerate() {
            if w > 8 && a > 0x7fff_ffff_ffff_ffff {
                continue;
            }
            let keys = cache.entry(a).or_insert_with(|| {
                translate(a, symbols, &map, opts)
                    .into_iter()
                    .filter_map(|t| match t {
                        Translated::Name(n) if n.key.is_empty() => None,
                        Translated::Name(n) => Some(Key::Id(intern(&mut out, n.key, n.addr))),
                        Translated::Run(fileline) => Some(Key::Run(fileline)),
                    })
                    .collect()
            });
            for key in keys.iter() {
                match key {
                    Key::Id(id) => path.push(*id),
                    Key::Run(fileline) => {
                        let caller = if i > 0 { k[i - 1] } else { 0 };
                        let next = run_ids.len() + 1;
                        let n = *run_ids.entry(caller).or_insert(next);
                        let run = format!("Run#{n}");
                        let name = granular(&run, false, fileline, a, w, opts);
                        path.push(intern(&mut out, Arc::from(name.as_ref()), None));
                    }
                }
            }
        }
        out.paths.push((path, v));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// A stack trimmed in place (its leaf, then the frames from where its tail starts now)
    /// is the stack with its second frames removed one by one, round after round, pprof's
    /// rule for the leaf's caller included, under both tools' rules.
    /// pprof's removal of the second frame of `k`, and of the frame after it when it is the
    /// caller of the leaf (not jeprof's), made on the stack itself.
    fn remove_second(jeprof: bool, k: &mut Vec<u64>) {
        if k.len() < 2 {
            return;
        }
        let top = k[0];
        k.remove(1);
        if !jeprof && k.len() > 2 && k[1].wrapping_add(1) == top {
            k.remove(1);
        }
    }

    #[test]
    fn second_frames_removed_in_place_as_one_by_one() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for jeprof in [false, true] {
            let t = Trim {
                jeprof,
                ..Trim::default()
            };
            for _ in 0..3000 {
                // Few distinct addresses: callers of the leaf (leaf - 1) come up often.
                let n = (next() % 12) as usize;
                let stack: Vec<u64> = (0..n).map(|_| 0x100 + next() % 4).collect();
                let mut k = stack.clone();
                for rounds in 0..10 {
                    let at = t.start_after(&stack, rounds);
                    let mut got = Vec::new();
                    got.extend(stack.first());
                    got.extend_from_slice(stack.get(at..).unwrap_or_default());
                    assert_eq!(got, k, "{stack:x?} after {rounds} rounds, jeprof {jeprof}");
                    let mut out = Vec::new();
                    let whole = Trim {
                        second_frames: rounds,
                        jeprof,
                        ..Trim::default()
                    };
                    whole.apply_into(&stack, &mut out);
                    assert_eq!(out, k);
                    remove_second(jeprof, &mut k);
                }
            }
        }
    }

    /// Node key → (flat, cum, seen), the part of a [`Reduced`] that reports read.
    fn by_key(r: &Reduced) -> std::collections::BTreeMap<String, (f64, f64, bool)> {
        r.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.key.to_string(), (r.flat[i], r.cum[i], r.seen[i])))
            .collect()
    }

    /// Address → its index in `addrs` (as [`crate::session::Session::address_ids`]).
    fn index_of(addrs: &[u64]) -> FxHashMap<u64, u32> {
        addrs
            .iter()
            .enumerate()
            .map(|(i, &a)| (a, i as u32))
            .collect()
    }

    /// A text table made from each sample on its own ([`uninteresting_trim`],
    /// [`IdStacks::of_samples`]) sums what the merged, trimmed stacks sum, with the same
    /// notes: CPU stacks whose second frame is the same in all (once, twice, with the
    /// caller of the leaf after it, and not with `--no_auto_signal_frames`), with frames of
    /// the profiler's signal handler to drop, duplicate stacks, and stacks too short to
    /// have a second frame.
    #[test]
    fn samples_trimmed_one_by_one_sum_as_the_merged_stacks() {
        let mut symbols = SymbolTable::new();
        for a in 0..64u64 {
            let name = if a == 9 {
                "ProfileData::Add".to_string()
            } else {
                format!("f{a}")
            };
            symbols.insert(
                0x1000 + a,
                vec![Frame::new(name, "f.cc:1".to_string(), false)],
            );
        }
        let addrs: Vec<u64> = (0..64u64).map(|a| 0x1000 + a).collect();
        let index = index_of(&addrs);
        let mut next = xorshift(0x5851_f42d_4c95_7f2d);
        let mut removed = 0;
        for case in 0..48 {
            // Case by case: no second frame the same everywhere, two (0x1020, then 0x1021),
            // two with the caller of the leaf after the first, one; the last cases with
            // one stack without them.
            let fixed = case % 4;
            let mut samples = Vec::new();
            for i in 0..400 {
                let depth = 1 + (next() % 7) as usize;
                let mut k: Vec<u64> = (0..depth).map(|_| 0x1000 + next() % 64).collect();
                if fixed > 0 && (case < 44 || i > 0) {
                    let leaf = k[0];
                    match fixed {
                        1 => drop(k.splice(1..1, [0x1020, 0x1021])),
                        // The caller of the leaf after the first: removed with it.
                        2 => drop(k.splice(1..1, [0x1020, leaf - 1, 0x1021])),
                        _ => k.insert(1, 0x1020),
                    }
                }
                let v = (next() % 9) as f64;
                samples.push(crate::profile::Sample {
                    stack: k.clone(),
                    values: vec![v],
                });
                if next().is_multiple_of(5) {
                    samples.push(crate::profile::Sample {
                        stack: k,
                        values: vec![1.0],
                    });
                }
            }
            for no_auto in [false, true] {
                let opts = Options {
                    no_auto_signal_frames: no_auto,
                    ..Options::default()
                };
                let mut merged = Stacks::default();
                for smp in &samples {
                    merged.add_ref(&smp.stack, smp.values[0]);
                }
                let mut notes = Vec::new();
                let trimmed = remove_uninteresting(merged, &symbols, Kind::Cpu, &opts, &mut notes);
                let mut each_notes = Vec::new();
                let trim = uninteresting_trim(
                    || samples.iter().map(|s| s.stack.as_slice()),
                    &symbols,
                    Kind::Cpu,
                    &opts,
                    &mut each_notes,
                );
                assert_eq!(each_notes, notes, "case {case}");
                removed += trim.second_frames;
                let t = translation(&addrs, &symbols, &renames(&symbols), &opts);
                let a = IdStacks::of(&trimmed, &index).paths(&t);
                let b = IdStacks::of_samples(&samples, 0, &trim, &index).paths(&t);
                let values_a = IdStacks::of(&trimmed, &index).values().to_vec();
                let values_b = IdStacks::of_samples(&samples, 0, &trim, &index)
                    .values()
                    .to_vec();
                assert_eq!(
                    by_key(&a.reduce(&values_a, None)),
                    by_key(&b.reduce(&values_b, None)),
                    "case {case}, no_auto {no_auto}"
                );
            }
        }
        assert!(removed > 40, "second frames removed {removed} times");
    }

    /// The share of unnamed leaves summed over the stacks by address id is the one summed
    /// over the stack map: with a share above the note's tenth and below it, fractional
    /// values, negative ones (a profile less its base) and empty stacks; with a table that
    /// has no entry for some addresses (each leaf looked up) and one made for all of them
    /// (read in a row).
    #[test]
    fn unnamed_share_by_address_id_is_that_of_the_stack_map() {
        for complete in [false, true] {
            let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
            let mut symbols = SymbolTable::new();
            // Every fifth address unknown (no entry, or `??`), every seventh named after its
            // place in a file.
            for a in 0..500u64 {
                let name = match a % 7 {
                    0 => format!("prog+0x{a:x}"),
                    _ if a % 5 == 0 => "??".to_string(),
                    _ => format!("f{}", a / 4),
                };
                if a % 5 != 0 || complete {
                    symbols.insert(
                        0x1000 + a,
                        vec![Frame::new(name, "f.cc:1".to_string(), false)],
                    );
                }
            }
            let addrs: Vec<u64> = (0..500u64).map(|a| 0x1000 + a).collect();
            assert_eq!(symbols.unnamed_flags(&addrs).is_some(), complete);
            let index = index_of(&addrs);
            let mut notes = 0;
            for named_bias in [0u64, 3, 12] {
                let mut stacks = Stacks::default();
                stacks.add(Vec::new(), 0.5);
                while stacks.map.len() < 3000 {
                    let depth = 1 + (next() % 6) as usize;
                    let mut k: Vec<u64> = (0..depth).map(|_| 0x1000 + next() % 500).collect();
                    // Some stacks moved onto a named leaf, to vary the share.
                    if next() % 16 < named_bias {
                        k[0] = 0x1001;
                    }
                    let v = (next() % 2000) as f64 / 7.0 - 40.0;
                    stacks.add(k, v);
                }
                let want = unnamed_share_note(&stacks, &symbols);
                let got = IdStacks::of(&stacks, &index).unnamed_share_note(&addrs, &symbols);
                assert_eq!(got, want);
                notes += usize::from(want.is_some());
            }
            // Some runs say the note and some do not.
            assert!((1..3).contains(&notes), "{notes}");
        }
    }

    #[test]
    fn id_stacks_and_node_paths_in_halves_are_those_of_one_pass() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut symbols = SymbolTable::new();
        for a in 0..2000u64 {
            let name: Arc<str> = Arc::from(format!("f{}", a / 8));
            let mut frames = vec![Frame::new(name, format!("f.cc:{a}"), false)];
            if a % 3 == 0 {
                frames.push(Frame::new("inl", "i.h:1".to_string(), false));
            }
            symbols.insert(0x1000 + a, frames);
        }
        let addrs: Vec<u64> = (0..2000u64).map(|a| 0x1000 + a).collect();
        let index = index_of(&addrs);
        let mut stacks = Stacks::default();
        while stacks.map.len() < PARALLEL_STACKS + 5000 {
            let depth = 1 + (next() % 20) as usize;
            // Now and then an address the index does not have.
            let k: Vec<u64> = (0..depth).map(|_| 0x1000 + next() % 2100).collect();
            stacks.add(k, (next() % 7) as f64);
        }
        let ids = IdStacks::of(&stacks, &index);
        // One pass, in the map's order.
        let mut n = 0;
        for ((k, &v), (got, got_v)) in stacks.map.iter().zip(ids.iter()) {
            let want: Vec<u32> = k.iter().filter_map(|a| index.get(a).copied()).collect();
            assert_eq!(got, &want[..]);
            assert_eq!(got_v, v);
            n += 1;
        }
        assert_eq!(n, stacks.map.len());
        let opts = Options {
            address_width: 16,
            ..Options::default()
        };
        let t = translation(&addrs, &symbols, &renames(&symbols), &opts);
        let paths = ids.paths(&t);
        let mut got = Vec::new();
        paths.walk(ids.values(), None, |p, _| got.push(p.to_vec()));
        let want: Vec<Vec<u32>> = ids
            .iter()
            .map(|(k, _)| {
                let mut p: Vec<u32> = Vec::new();
                for &a in k {
                    let (lo, hi) = t.ranges[a as usize];
                    for item in &t.items[lo as usize..hi as usize] {
                        if let Item::Node(id) = *item
                            && !p.contains(&id)
                        {
                            p.push(id);
                        }
                    }
                }
                p
            })
            .collect();
        assert_eq!(got, want);
        assert!(want.iter().any(|p| p.len() > 5));
        // The paths summed as they are made: the sums of the paths kept, in halves (whole
        // values) and in one pass.
        let kept = paths.reduce(ids.values(), None);
        for exact in [true, false] {
            let direct = ids.reduce_direct(&t, exact);
            assert!(Arc::ptr_eq(&kept.nodes, &direct.nodes));
            assert_eq!(
                (&kept.flat, &kept.cum, &kept.seen),
                (&direct.flat, &direct.cum, &direct.seen)
            );
        }
        // Values that are not whole, in one pass: the same sums in the same order.
        let mut fractions = ids.clone();
        for (i, v) in fractions.values.iter_mut().enumerate() {
            *v += 0.1 * (i % 10) as f64 + 1e-9;
        }
        let kept = paths.reduce(fractions.values(), None);
        let direct = fractions.reduce_direct(&t, false);
        assert_eq!(
            (&kept.flat, &kept.cum, &kept.seen),
            (&direct.flat, &direct.cum, &direct.seen)
        );
        assert!(kept.cum.iter().any(|c| c.fract() != 0.0));
    }

    /// The flame graph's stacks made from the stacks by address id and the session's
    /// translation name the same keys, stack by stack, as those translated address by
    /// address, at every granularity: addresses without names (printed in hex), inlined
    /// frames, kernel addresses (left out) and frames of one function at several lines.
    #[test]
    fn key_paths_of_the_translation_are_the_stacks_translated() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut symbols = SymbolTable::new();
        for a in 0..300u64 {
            // Every seventh address has no name.
            if a % 7 == 3 {
                continue;
            }
            let name: Arc<str> = Arc::from(format!("ns::f{}", a / 8));
            let mut frames = vec![Frame::new(name, format!("f{}.cc:{}", a % 5, a / 2), false)];
            if a % 3 == 0 {
                frames.push(Frame::new("inl", format!("i.h:{}", a % 4), false));
            }
            symbols.insert(0x1000 + a, frames);
        }
        let mut addrs: Vec<u64> = (0..300u64).map(|a| 0x1000 + a).collect();
        addrs.push(0xffff_ffff_8100_0000);
        let index = index_of(&addrs);
        let mut stacks = Stacks::default();
        while stacks.map.len() < 500 {
            let depth = 1 + (next() % 12) as usize;
            let k: Vec<u64> = (0..depth)
                .map(|_| addrs[(next() % addrs.len() as u64) as usize])
                .collect();
            stacks.add(k, (1 + next() % 9) as f64);
        }
        let named = |k: &KeyPaths| -> Vec<(Vec<String>, f64)> {
            k.paths
                .iter()
                .map(|(p, v)| {
                    (
                        p.iter().map(|&i| k.names[i as usize].to_string()).collect(),
                        *v,
                    )
                })
                .collect()
        };
        let ids = IdStacks::of(&stacks, &index);
        for granularity in [
            Granularity::Functions,
            Granularity::Lines,
            Granularity::Files,
            Granularity::Addresses,
        ] {
            let opts = Options {
                address_width: 16,
                granularity,
                ..Options::default()
            };
            let t = translation(&addrs, &symbols, &renames(&symbols), &opts);
            let by_ids = ids.key_paths(&t);
            let translated = translate_stack_ids(&stacks, &symbols, &opts);
            assert_eq!(named(&by_ids), named(&translated), "{granularity:?}");
            let plain: Vec<(Vec<String>, f64)> = translate_stacks(&stacks, &symbols, &opts)
                .into_iter()
                .map(|(p, v)| (p.iter().map(|n| n.to_string()).collect(), v))
                .collect();
            assert_eq!(named(&translated), plain, "{granularity:?}");
            // The page's JSON alike (the two may list their keys in other orders).
            let write = |k: &KeyPaths| {
                let mut out = Vec::new();
                let o = crate::report::stacks::StacksOptions {
                    measure: crate::units::Measure::Samples,
                    total: 1.0,
                };
                crate::report::stacks::write(&mut out, k, Some(k), &o).map(|()| out)
            };
            assert_eq!(write(&by_ids).ok(), write(&translated).ok());
        }
        // Some stacks have an unnamed frame, an inlined one, and the kernel's (left out).
        let all = named(&translate_stack_ids(
            &stacks,
            &symbols,
            &Options {
                address_width: 16,
                ..Options::default()
            },
        ));
        let keys: Vec<&String> = all.iter().flat_map(|(p, _)| p).collect();
        assert!(keys.iter().any(|k| k.as_str() == "0000000000001003"));
        assert!(keys.iter().any(|k| k.as_str() == "inl (inline)"));
        assert!(!keys.iter().any(|k| k.starts_with("ffff")));
    }

    /// A name's `<address>` tag is found as the search for its last `<` found it.
    #[test]
    fn tags_as_by_the_last_bracket() {
        fn by_search(full: &str) -> Option<&str> {
            let body = full.strip_suffix('>')?;
            let open = body.rfind('<')?;
            let hex = &body[open + 1..];
            (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hex)
        }
        let parts = ["f", "<", ">", "00ab", "x", "é", "<0>", ""];
        let mut n = 0;
        for name in crate::testing::joined(&parts, 4) {
            assert_eq!(tag_of(&name), by_search(&name), "{name:?}");
            n += usize::from(tag_of(&name).is_some());
        }
        assert!(n > 20, "{n}");
    }

    /// An address's key is told from a name of the same length, and only the exact printing
    /// of the address (lower case, zero-padded to the width) is one.
    #[test]
    fn address_keys_are_told_from_names() {
        let a = 0x5579_f136_9b18;
        assert!(is_addr_key("00005579f1369b18", a, 16));
        assert!(is_addr_key("5579f1369b18", a, 12));
        assert!(is_addr_key("5579f1369b18", a, 8));
        for key in [
            "lg::m012::f06123",
            "00005579F1369B18",
            "00005579f1369b19",
            "0005579f1369b18 ",
            "5579f1369b18",
        ] {
            assert!(!is_addr_key(key, a, 16), "{key}");
        }
        assert!(is_addr_key("0000000000000000", 0, 16));
        assert!(is_addr_key("0", 0, 1));
    }

    #[test]
    fn two_halves_sum_to_one_pass() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        // Functions of several lines and inlined frames, named at most of the addresses.
        let mut symbols = SymbolTable::new();
        let names: Vec<Arc<str>> = (0..300)
            .map(|i| Arc::from(format!("ns::f{i}(int)")))
            .collect();
        for a in 0..3000u64 {
            if a % 7 == 0 {
                continue;
            }
            let f = |i: usize| {
                Frame::new(
                    names[i % names.len()].clone(),
                    format!("f.cc:{}", a % 40),
                    false,
                )
            };
            let mut frames = vec![f(a as usize / 10)];
            if a % 5 == 0 {
                frames.push(f(a as usize / 10 + 1));
            }
            symbols.insert(0x400000 + a * 4, frames);
        }
        let mut stacks = Stacks::default();
        while stacks.map.len() < PARALLEL_STACKS + 5000 {
            let depth = 1 + (next() % 12) as usize;
            let k: Vec<u64> = (0..depth).map(|_| 0x400000 + (next() % 3000) * 4).collect();
            let v = (next() % 5) as f64 - 1.0;
            stacks.add(k, v);
        }
        for granularity in [
            Granularity::Functions,
            Granularity::Lines,
            Granularity::Addresses,
            Granularity::Files,
        ] {
            let opts = Options {
                granularity,
                keep_templates: false,
                show_addresses: false,
                no_auto_signal_frames: false,
                jeprof: false,
                address_width: 16,
                retain: None,
                exclude: None,
                hide: None,
                show: None,
                pprof_quirks: false,
            };
            let map = fullname_to_shortname(&symbols);
            let sorted: Vec<(&Vec<u64>, &f64)> = stacks.map.iter().collect();
            let one = reduce_part(&sorted, &symbols, &map, &opts).0;
            let two = reduce_on(&stacks, &symbols, &opts, 2);
            assert!(one.nodes.len() > 100, "{granularity:?}");
            assert_eq!(by_key(&one), by_key(&two), "{granularity:?}");
        }
    }
}
