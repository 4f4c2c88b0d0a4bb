//! What one report asks for, rendered from a [`Session`].
//!
//! A [`View`] is the output mode, the value column, the granularity, the filters and the
//! profiles (and base) it reports on. [`View::render`] aggregates the session's stacks for it
//! and writes the report; nothing in it reads a file again or looks an address up again, so
//! the shell and the web UI render view after view from one session.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::graph::{self, Granularity, Stacks};
use crate::profile::{self, Kind};
use crate::report::{
    self as report, Mode, callgrind, collapsed, disasm, dot, flame, graphviz, list, peek, proto,
    raw, stacks, text, traces,
};
use crate::session::{Loaded, Session, UNKNOWN_BINARY, Value, file_name, io_err};
use crate::symbolize::local::{ListedRoutine, Local};
use crate::trend::{self, Trend};
use crate::units::Measure;

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

/// Which profile a view subtracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BaseChoice {
    /// The session's `--base`, if it has one.
    #[default]
    Session,
    /// None.
    None,
    /// This profile of the session.
    Profile(usize),
}

/// What one report asks for.
#[derive(Debug, Clone, Default)]
pub struct View {
    /// Output mode.
    pub mode: Mode,
    /// Report granularity.
    pub granularity: Granularity,
    /// `--cum`.
    pub cum: bool,
    /// `--stacks`.
    pub stacks: bool,
    /// The value column.
    pub value: Value,
    /// `--show_bytes`.
    pub show_bytes: bool,
    /// `--drop_negative`.
    pub drop_negative: bool,
    /// `--focus`: keep the stacks with a frame matching.
    pub focus: Option<String>,
    /// `--ignore`: drop the stacks with a frame matching.
    pub ignore: Option<String>,
    /// Go pprof's `hide`: drop the frames matching.
    pub hide: Option<String>,
    /// Go pprof's `show`: keep only the frames matching.
    pub show: Option<String>,
    /// `--show_addresses`.
    pub show_addresses: bool,
    /// `--no-auto-signal-frm`.
    pub no_auto_signal_frames: bool,
    /// jeprof's `--thread`.
    pub thread: Option<String>,
    /// jeprof's `--retain`.
    pub retain: Option<String>,
    /// jeprof's `--exclude`.
    pub exclude: Option<String>,
    /// `--list=<re>` (or `--disasm=<re>`): the routines to show.
    pub routines: Option<String>,
    /// `routines` also matches a routine's short name (the web UI's source and disasm
    /// pages, whose links come from report names); pprof's `--list` matches full names.
    pub routines_by_short_name: bool,
    /// At most this many routines in `--list` and `--disasm` (the web UI's pages): those
    /// with the largest cumulative values (in magnitude), in the listing's order; a note starting with
    /// [`LISTING_CUT`] says how many were left out.
    pub max_routines: Option<usize>,
    /// `--list` as HTML, each source line with the instructions compiled to it (pprof's
    /// `weblist`; the instructions from objdump, when it can be run): see
    /// [`list::write_html`].
    pub listing_html: bool,
    /// With `listing_html`, the instructions only when at most this many routines are
    /// listed (objdump takes about 20 ms a routine of a big program); a note starting with
    /// [`NO_INSTRUCTIONS`] says so otherwise.
    pub max_disassembled: Option<usize>,
    /// `--pprof_quirks`: reproduce google-pprof's known mistakes.
    pub pprof_quirks: bool,
    /// `--full_names`: `--flame` draws full function names rather than short ones.
    pub full_names: bool,
    /// `--tools` (or `$PPROF_TOOLS`): where `--disasm` finds objdump.
    pub tools: Option<String>,
    /// Call graph options.
    pub graph: CallGraph,
    /// `--text`: print at most so many lines (the shell's `top`).
    pub limit: Option<usize>,
    /// The profiles to add up (indices into [`Session::profiles`]); `None`: every profile
    /// argument, in pprof's order.
    pub profiles: Option<Vec<usize>>,
    /// What `--trend` calls each session profile, by index, instead of its file's name (the
    /// web UI's history names two readings of one rewritten file `heap.latest` and
    /// `heap.latest (2)`); `None`: the file names.
    pub profile_names: Option<Vec<String>>,
    /// The profile to subtract.
    pub base: BaseChoice,
    /// The process ends after this report (the command-line tool): the big tables are left
    /// for the system to reclaim rather than freed one allocation at a time.
    pub exit_after: bool,
    /// A command of pprof's shell: see [`Command`].
    pub command: Option<Command>,
}

/// What pprof's interactive commands (`top`, `list`, `disasm`, `web`, ...) add to a report:
/// the `Total:` line is printed first, always, and the command's own focus and ignore words
/// are applied after the view's `focus` and `ignore`, each followed by a line saying how much
/// is left (`After focusing on '...': ...`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    /// The command's focus words, joined with `|`.
    pub focus: Option<String>,
    /// The command's ignore words (`-word`), joined with `|`.
    pub ignore: Option<String>,
}

/// The stacks of some profiles for one value column, after pprof's removal of uninteresting
/// frames (allocator, profiler, a constant second CPU frame): what every report of those
/// profiles starts from.
#[derive(Debug)]
pub(crate) struct Trimmed {
    stacks: Stacks,
    /// The total before frames were removed (pprof's `Total:`).
    total: f64,
    /// What the removal said ("Removing ... from all stack traces").
    notes: Vec<String>,
    /// `stacks` with address ids, made when a text report first asks.
    ids: OnceLock<graph::IdStacks>,
    /// The report nodes of each of `ids`, per granularity, made when first asked for.
    paths: Mutex<Vec<(Grain, Arc<graph::NodePaths>)>>,
    /// The values of `ids` are whole numbers whose magnitudes add up below 2^53 (see
    /// [`Ctx::trimmed_text_once`]): their sums are exact in any order.
    whole: bool,
}

impl Trimmed {
    fn new(stacks: Stacks, total: f64, notes: Vec<String>) -> Trimmed {
        Trimmed {
            stacks,
            total,
            notes,
            ids: OnceLock::new(),
            paths: Mutex::new(Vec::new()),
            whole: false,
        }
    }
}

/// What a [`Trimmed`] depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TrimKey {
    profiles: Vec<usize>,
    base: Option<usize>,
    index: usize,
    drop_negative: bool,
    no_auto_signal_frames: bool,
    retain: Option<String>,
    exclude: Option<String>,
}

/// What a session keeps between views when [`Session::cache_views`] is set: the trimmed
/// stacks of the last few selections of profiles and value columns, and every address
/// translated to report nodes per granularity. A few entries of each are kept, the most
/// recently used first.
#[derive(Debug, Default)]
pub struct Cache {
    /// Per regular expression: which of the session's addresses match it.
    matches: Vec<(String, Arc<Vec<bool>>)>,
    trimmed: Vec<(TrimKey, Arc<Trimmed>)>,
    translations: Vec<(Grain, Arc<Option<graph::Translation>>)>,
}

/// What a [`graph::Translation`] depends on: the granularity and `--show_addresses`.
type Grain = (Granularity, bool);

/// How many entries of each kind a [`Cache`] keeps.
const CACHED: usize = 6;

/// `key`'s entry of `list`, moved to the front; made by `make` (outside the lock, so that
/// other views go on meanwhile) when missing.
fn cached<K: PartialEq + Clone, V>(
    s: &Session,
    list: impl Fn(&mut Cache) -> &mut Vec<(K, Arc<V>)>,
    key: &K,
    make: impl FnOnce() -> V,
) -> Arc<V> {
    if let Ok(mut c) = s.cache.lock() {
        let l = list(&mut c);
        if let Some(i) = l.iter().position(|(k, _)| k == key) {
            let e = l.remove(i);
            let v = e.1.clone();
            l.insert(0, e);
            return v;
        }
    }
    let v = Arc::new(make());
    if let Ok(mut c) = s.cache.lock() {
        let l = list(&mut c);
        l.insert(0, (key.clone(), v.clone()));
        l.truncate(CACHED);
    }
    v
}

/// jeprof's `--thread` value: `*` (every thread, `None`) or a thread number, compared as a
/// number (`1.0` is thread 1); anything else is a usage error.
fn thread_number(want: &str) -> Result<Option<u64>> {
    if want == "*" {
        return Ok(None);
    }
    want.trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= u64::MAX as f64)
        .map(|n| Some(n as u64))
        .ok_or_else(|| Error::usage(format!("--thread: {want:?} is not a thread number or *")))
}

/// A regular expression as an error message quotes it: whole, or its start when it is long
/// (a pattern made by a script can be megabytes).
fn quoted_pattern(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        return format!("{s:?}");
    }
    let start: String = s.chars().take(MAX / 2).collect();
    format!("{start:?}... ({} characters)", s.chars().count())
}

/// Compiles an option's regular expression; a bad one is a usage error naming the option.
pub fn compile(re: &Option<String>, what: &str) -> Result<Option<Regex>> {
    match re {
        None => Ok(None),
        Some(s) => {
            let q = quoted_pattern(s);
            if let Some(why) = crate::perlre::unsupported(s) {
                return Err(Error::usage(format!(
                    "--{what}: bad regular expression {q}: {why}"
                )));
            }
            Regex::new(&crate::perlre::to_rust(s))
                .map(Some)
                .map_err(|e| {
                    // regex's message spans lines (the pattern, a caret, "error: ..."): one line.
                    let msg = e.to_string();
                    let why = msg
                        .lines()
                        .rev()
                        .find_map(|l| l.strip_prefix("error: "))
                        .unwrap_or_else(|| msg.lines().next().unwrap_or_default());
                    Error::usage(format!("--{what}: bad regular expression {q}: {why}"))
                })
        }
    }
}

impl View {
    /// Checks the view's regular expressions (usage errors), before any work is done.
    pub fn check(&self) -> Result<()> {
        let none = Command::default();
        let cmd = self.command.as_ref().unwrap_or(&none);
        for (re, what) in [
            (&self.focus, "focus"),
            (&self.ignore, "ignore"),
            (&cmd.focus, "focus"),
            (&cmd.ignore, "ignore"),
            (&self.hide, "hide"),
            (&self.show, "show"),
            (&self.retain, "retain"),
            (&self.exclude, "exclude"),
        ] {
            compile(re, what)?;
        }
        // The routines of a listing, under the option's name.
        let listing = match self.mode {
            Mode::Disasm => "disasm",
            Mode::Peek => "peek",
            _ => "list",
        };
        compile(&self.routines, listing)?;
        if let Some(t) = &self.thread {
            thread_number(t)?;
        }
        // --proto writes the samples as they are, every value column: what would change
        // their frames is refused rather than left out unsaid.
        if self.mode == Mode::Proto {
            for (set, name) in [
                (self.hide.is_some(), "hide"),
                (self.show.is_some(), "show"),
                (self.retain.is_some(), "retain"),
                (self.exclude.is_some(), "exclude"),
            ] {
                if set {
                    return Err(proto_refuses(name));
                }
            }
        }
        Ok(())
    }

    /// The profiles this view adds up, in the order they are added.
    pub fn profile_indices(&self, s: &Session) -> Vec<usize> {
        match &self.profiles {
            Some(p) if !p.is_empty() => p.clone(),
            _ => s.default_profiles(),
        }
    }

    /// The profile this view subtracts.
    pub fn base_index(&self, s: &Session) -> Option<usize> {
        match self.base {
            BaseChoice::Session => s.base,
            BaseChoice::None => None,
            BaseChoice::Profile(i) => Some(i),
        }
    }

    /// The column index of the view's value in the session's samples.
    pub fn value_index(&self, s: &Session) -> usize {
        self.value.index(s.kind())
    }

    /// The aggregation options of this view, for addresses of `w` hex digits.
    fn graph_options(&self, s: &Session, w: usize) -> Result<graph::Options> {
        Ok(graph::Options {
            granularity: self.granularity,
            keep_templates: s.opts.keep_templates,
            show_addresses: self.show_addresses,
            no_auto_signal_frames: self.no_auto_signal_frames,
            jeprof: s.jeprof(),
            address_width: w,
            retain: compile(&self.retain, "retain")?,
            exclude: compile(&self.exclude, "exclude")?,
            hide: compile(&self.hide, "hide")?,
            show: compile(&self.show, "show")?,
            pprof_quirks: self.pprof_quirks,
        })
    }

    /// Renders the report: to `out`, messages to `err`. On an error nothing is written to
    /// `out`.
    pub fn render(&self, s: &Session, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
        self.check()?;
        if let Mode::Trend(format) = self.mode {
            let all: Vec<usize> = (0..s.profiles.len()).collect();
            if let Some(w) = s.no_allocation_totals(&all, self.value) {
                writeln!(err, "{w}").map_err(io_err)?;
            }
            let mut timer = crate::session::Timer::new(s.opts.debug);
            let mut notes = Vec::new();
            let t = flush_on_error(self.trend(s, &mut notes), &notes, err)?;
            let mut buf = Vec::new();
            report::trend::write(&mut buf, &t, format).map_err(io_err)?;
            timer.stage(err, "trend");
            return finish(&buf, &notes, &[], out, err);
        }
        let profiles = self.profile_indices(s);
        let base = self.base_index(s);
        let base_index = base;
        for &i in profiles.iter().chain(base.iter()) {
            if i >= s.profiles.len() {
                return Err(Error::usage(format!("no profile number {i}")));
            }
        }
        let first = profiles[0];
        for &i in profiles.iter().skip(1) {
            s.check_pair(first, i, false, self.value)?;
        }
        if let Some(b) = base {
            s.check_pair(first, b, true, self.value)?;
        }
        let chosen: Vec<usize> = profiles.iter().chain(base.iter()).copied().collect();
        if let Some(w) = s.no_allocation_totals(&chosen, self.value) {
            writeln!(err, "{w}").map_err(io_err)?;
        }
        let mut timer = crate::session::Timer::new(s.opts.debug);
        let inputs: Vec<&Loaded> = profiles.iter().map(|&i| &*s.profiles[i]).collect();
        let base: Option<&Loaded> = base.map(|b| &*s.profiles[b]);
        let main = &inputs[0].profile;
        let kind = main.kind;
        let index = self.value.index(kind);
        let jeprof = s.jeprof();
        let w = main.address_width;
        let measure = Measure::of(kind, index, self.show_bytes);

        let gopts = self.graph_options(s, w)?;
        let focus = compile(&self.focus, "focus")?;
        let ignore = compile(&self.ignore, "ignore")?;
        let cmd = match &self.command {
            Some(c) => Some((compile(&c.focus, "focus")?, compile(&c.ignore, "ignore")?)),
            None => None,
        };
        let topts = text::TextOptions {
            cum: self.cum,
            measure,
            granularity: self.granularity,
            keep_templates: s.opts.keep_templates,
            address_width: w,
            limit: self.limit,
            unknown_leaf: self.pprof_quirks,
        };
        let ctx = Ctx {
            session: s,
            kind,
            gopts: &gopts,
            focus: focus.as_ref(),
            ignore: ignore.as_ref(),
            topts: &topts,
            view: self,
            cmd: cmd.as_ref().map(|(f, i)| (f.as_ref(), i.as_ref())),
            viewers: Default::default(),
        };
        // The stacks of the profiles, less the base: what --raw, --list and --disasm read.
        let merged = || {
            let mut merged = Stacks::default();
            for i in &inputs {
                for smp in &i.profile.samples {
                    merged.add_ref(&smp.stack, smp.values.get(index).copied().unwrap_or(0.0));
                }
            }
            if let Some(b) = base {
                merged = merged.subtract(&stacks_of(&b.profile.samples, index), self.drop_negative);
            }
            merged
        };

        let mut buf: Vec<u8> = Vec::new();
        let mut notes = Vec::new();
        if self.mode == Mode::Raw {
            write_raw(
                &mut buf,
                &RawJob {
                    ctx: &ctx,
                    program: &s.program_name,
                    addrs: &s.addrs,
                    inputs: &inputs,
                    base,
                    merged: merged(),
                },
                &mut notes,
            )?;
            timer.stage(err, "aggregate and render");
            return finish(&buf, &notes, &[], out, err);
        }
        if matches!(self.mode, Mode::List | Mode::Disasm) {
            let disasm = self.mode == Mode::Disasm;
            let what = if disasm { "disasm" } else { "list" };
            let Some(re) = compile(&self.routines, what)? else {
                return Err(Error::usage(format!("--{what} needs a regular expression")));
            };
            // jeprof's --thread: the listing of each chosen thread, as its other reports.
            let parts: Vec<Stacks> = if jeprof && self.thread.is_some() {
                self.chosen_threads(main, &inputs[0].path, err)?
                    .into_iter()
                    .map(|(_, samples)| stacks_of(samples, index))
                    .collect()
            } else {
                vec![merged()]
            };
            let program = s.program_file();
            // The addresses placed as they were named (every profile's map).
            let map = crate::session::merged_map(s.profiles.iter().map(|l| &l.profile));
            let mut local = program.map(|p| Local::new(p, &map, &s.sym_opts));
            let mut msgs: Vec<u8> = Vec::new();
            let mut listed_any = false;
            // Each part's lines before its listing (the shell's words), values and routines.
            let mut prepared = Vec::with_capacity(parts.len());
            for merged in parts {
                let total = merged.total();
                let trimmed = ctx.trim(merged, &mut notes);
                let st = ctx.filtered(Cow::Owned(trimmed));
                let mut head = Vec::new();
                let st = ctx.command_filters(
                    &mut head,
                    total,
                    st,
                    |st, re, keep| Cow::Owned(graph::filter(st, &s.symbols, re, keep, &gopts)),
                    |st| st.total(),
                )?;
                let values =
                    list::AddressValues::of(st.map.iter().map(|(k, v)| (k.as_slice(), *v)));
                let mut with_value: Vec<u64> = values.cum.keys().copied().collect();
                with_value.sort_unstable();
                prepared.push((head, values, with_value));
            }
            // The files' warnings were printed when they were symbolized.
            let mut list_by = |by_short: bool| -> Vec<Vec<ListedRoutine>> {
                prepared
                    .iter()
                    .map(|(_, _, with_value)| match local.as_mut() {
                        Some(l) => l.listed_routines(
                            &s.addrs,
                            &re,
                            by_short,
                            with_value,
                            !disasm,
                            &mut Vec::new(),
                        ),
                        None => Vec::new(),
                    })
                    .collect()
            };
            let mut listed = list_by(self.routines_by_short_name);
            // pprof matches nm's names, each tagged with its address (`f<4005d0>`): a pattern
            // anchored at its end (`^f$`) matches none of them, and pprof lists nothing. When
            // the names as nm lists them match nothing (in every thread listed), the short
            // names are tried (not with --pprof_quirks).
            if listed.iter().all(Vec::is_empty)
                && !self.routines_by_short_name
                && !self.pprof_quirks
            {
                listed = list_by(true);
            }
            for ((head, values, with_value), routines) in prepared.into_iter().zip(listed) {
                buf.extend_from_slice(&head);
                listed_any |= !routines.is_empty();
                // A source listing cut skips the routines it could not list (one not cut
                // lists them all, with the reasons).
                let routines = match self.max_routines {
                    Some(max) if !disasm && routines.len() > max => {
                        let ok: Vec<bool> = routines.iter().map(list::listable).collect();
                        if ok.iter().filter(|&&b| b).count() > max {
                            let mut ok = ok.into_iter();
                            routines
                                .into_iter()
                                .filter(|_| ok.next().unwrap_or(false))
                                .collect()
                        } else {
                            routines
                        }
                    }
                    _ => routines,
                };
                let routines = match self.max_routines {
                    Some(max) if routines.len() > max => {
                        let n = routines.len();
                        let kept = largest_routines(routines, &with_value, &values, max);
                        msgs.extend_from_slice(
                            format!(
                                "{LISTING_CUT} {max} of the {n} routines matching, those with the largest cumulative values\n"
                            )
                            .as_bytes(),
                        );
                        kept
                    }
                    _ => routines,
                };
                if disasm {
                    let objdump = disasm::objdump_path(self.tools.as_deref())?;
                    let failed = disasm::write(
                        &mut buf,
                        &objdump,
                        &routines,
                        &values,
                        measure,
                        self.pprof_quirks,
                    )?;
                    for f in failed {
                        msgs.extend_from_slice(format!("Warning: {f}\n").as_bytes());
                    }
                } else if self.listing_html {
                    // Only the routines whose source can be listed are disassembled.
                    let listable: Vec<bool> = routines.iter().map(list::listable).collect();
                    let n = listable.iter().filter(|&&l| l).count();
                    let too_many = self.max_disassembled.filter(|&m| n > m);
                    let mut ok = listable.iter();
                    let some: Vec<ListedRoutine> = routines
                        .iter()
                        .filter(|_| ok.next().copied().unwrap_or(false))
                        .cloned()
                        .collect();
                    let insns = match disasm::objdump_path(self.tools.as_deref()).and_then(|o| {
                        match too_many {
                            Some(_) => Ok(disasm::Disassembly::default()),
                            None => disasm::disassemble_all(&o, &some),
                        }
                    }) {
                        Ok(done) => {
                            for f in &done.failed {
                                msgs.extend_from_slice(
                                    format!("Warning: no instructions under the source lines of some routines: {f}\n")
                                        .as_bytes(),
                                );
                            }
                            let mut each = done.routines.into_iter();
                            listable
                                .iter()
                                .map(|&l| {
                                    if l {
                                        each.next().unwrap_or_default()
                                    } else {
                                        Vec::new()
                                    }
                                })
                                .collect()
                        }
                        Err(e) => {
                            if !routines.is_empty() {
                                msgs.extend_from_slice(
                                    format!(
                                        "Warning: no instructions under the source lines: {e}\n"
                                    )
                                    .as_bytes(),
                                );
                            }
                            Vec::new()
                        }
                    };
                    if let Some(m) = too_many {
                        msgs.extend_from_slice(
                            format!("{NO_INSTRUCTIONS} only when at most {m} routines are listed ({n} are)\n")
                                .as_bytes(),
                        );
                    }
                    // (As the text's: pprof's weblist is its list.)
                    let cuts = self.list_cuts(&routines)?;
                    list::write_html(
                        &mut buf, &mut msgs, &routines, &values, measure, &cuts, &insns,
                    )
                    .map_err(io_err)?;
                } else {
                    let cuts = self.list_cuts(&routines)?;
                    list::write(&mut buf, &mut msgs, &routines, &values, measure, &cuts)
                        .map_err(io_err)?;
                }
            }
            // pprof prints nothing: say why the listing is empty.
            if !listed_any {
                // Libraries besides the program: another file of code mapped.
                let libraries = {
                    let mut code = map
                        .iter()
                        .filter(|m| m.executable() && m.path.starts_with('/'));
                    let first = code.next().map(|m| &m.path);
                    code.any(|m| Some(&m.path) != first)
                };
                let why = match program {
                    None => {
                        "no program to read routines from (give the program before the profile)"
                            .to_string()
                    }
                    Some(p) => format!(
                        "no routine of {}{} with samples matches \"{}\"",
                        p.display(),
                        if libraries {
                            " or of its libraries"
                        } else {
                            ""
                        },
                        re.as_str()
                    ),
                };
                // (The shell's command by its name, and the words that may have emptied it.)
                let name = match &self.command {
                    Some(_) => what.to_string(),
                    None => format!("--{what}"),
                };
                // The options' focus and ignore, then the command's words.
                let words = self.command.as_ref();
                let words = left_by(
                    &[
                        self.focus.as_deref(),
                        words.and_then(|c| c.focus.as_deref()),
                    ],
                    &[
                        self.ignore.as_deref(),
                        words.and_then(|c| c.ignore.as_deref()),
                    ],
                );
                // (Routines are the symbols': an inlined function is none, and a library's
                // DWARF can name a routine otherwise, `__printf` for `printf`.)
                let hint = if program.is_some() {
                    "; routines go by their symbols' names: an inlined function is no routine, and a library's symbols may name a function otherwise than the report does"
                } else {
                    ""
                };
                msgs.extend_from_slice(format!("Warning: {name}: {why}{words}{hint}\n").as_bytes());
            }
            timer.stage(err, what);
            return finish(&buf, &notes, &msgs, out, err);
        }
        if self.mode == Mode::Proto {
            // (What would change frames is refused by `check`.) Stacks are not merged, so
            // a base's negative differences cannot be dropped.
            if self.drop_negative && base.is_some() {
                return Err(proto_refuses("drop_negative"));
            }
            // jeprof's --thread: the chosen threads' samples, of the profile alone (as its
            // thread reports).
            let by_thread = jeprof && self.thread.is_some();
            let own: Vec<&[profile::Sample]> = if by_thread {
                self.chosen_threads(main, &inputs[0].path, err)?
                    .into_iter()
                    .map(|(_, samples)| samples)
                    .collect()
            } else {
                inputs
                    .iter()
                    .map(|i| i.profile.samples.as_slice())
                    .collect()
            };
            let base_samples = match base {
                Some(b) if !by_thread => b.profile.samples.as_slice(),
                _ => &[],
            };
            let records = own
                .into_iter()
                .flatten()
                .map(|smp| (smp, false))
                .chain(base_samples.iter().map(|smp| (smp, true)));
            // The frames pprof would not show (allocator, signal handler) are left out, as
            // from every report.
            let mut all = Stacks::default();
            for (smp, _) in records.clone() {
                all.add_ref(&smp.stack, 1.0);
            }
            let (_, trim) = graph::uninteresting(all, &s.symbols, kind, &gopts, &mut notes);
            let mut samples: Vec<proto::Record<'_>> = records
                .map(|(smp, base)| proto::Record {
                    stack: trim.apply(&smp.stack),
                    values: &smp.values,
                    base,
                })
                .collect();
            // --focus and --ignore (and a shell command's), on the stacks as reports see
            // them: the samples whose stacks they keep.
            if let Some(kept) = ctx.kept_stacks(samples.iter().map(|r| r.stack.as_slice())) {
                samples.retain(|r| kept.map.contains_key(&r.stack));
            }
            let job = proto::ProtoJob {
                kind,
                sample_types: &main.sample_types,
                selected: index,
                period: main.period,
                samples,
                mappings: &main.mappings,
                symbols: &s.symbols,
            };
            proto::write(&mut buf, &job).map_err(io_err)?;
            timer.stage(err, "write profile.proto");
            return finish(&buf, &notes, &[], out, err);
        }
        let labels = Labels {
            program: &s.program_name,
            profile: &inputs[0].path,
            base: base.map(|b| b.path.as_path()),
            period: main.period,
        };
        if jeprof && self.thread.is_some() {
            let chosen = self.chosen_threads(main, &inputs[0].path, err)?;
            for (t, samples) in chosen {
                let st = stacks_of(samples, index);
                let total = st.total();
                let stacks = ctx.trim(st, &mut notes);
                notes.extend(graph::unnamed_share_note(&stacks, &s.symbols));
                let trimmed = Trimmed::new(stacks, total, Vec::new());
                let r = ctx.report(
                    &mut buf,
                    Start::of(&trimmed, None),
                    Some(&t.to_string()),
                    &[],
                    &labels,
                    &mut notes,
                );
                flush_on_error(r, &notes, err)?;
            }
        } else {
            // The leak listing of --stacks covers every record read, base included.
            let leaks: Vec<text::LeakRecord<'_>> = if self.stacks {
                inputs
                    .iter()
                    .copied()
                    .chain(base)
                    .filter(|i| matches!(i.profile.kind, Kind::Heap | Kind::Growth))
                    .flat_map(|i| i.profile.samples.iter())
                    .map(|smp| text::LeakRecord {
                        objects: smp.values[0],
                        bytes: smp.values[1],
                        stack: &smp.stack,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            // A differential flame graph draws the base beside the profile instead of
            // subtracting it.
            let flame = matches!(self.mode, Mode::Flame | Mode::FlameData);
            let key = |profiles: Vec<usize>, base: Option<usize>| TrimKey {
                profiles,
                base,
                index,
                drop_negative: self.drop_negative,
                no_auto_signal_frames: self.no_auto_signal_frames,
                retain: self.retain.clone(),
                exclude: self.exclude.clone(),
            };
            let main = ctx.trimmed(
                key(profiles.clone(), if flame { None } else { base_index }),
                &mut notes,
            );
            let flame_base = base_index
                .filter(|_| flame)
                .map(|b| ctx.trimmed(key(vec![b], None), &mut Vec::new()));
            let start = Start::of(&main, flame_base.as_deref());
            let r = ctx.report(&mut buf, start, None, &leaks, &labels, &mut notes);
            flush_on_error(r, &notes, err)?;
        }
        timer.stage(err, "aggregate and render");
        let viewers = ctx.viewers.take();
        if viewers.is_empty() {
            return finish(&buf, &notes, &[], out, err);
        }
        // A graph for a viewer: the report's lines (a shell command's `Total:` and focus
        // lines), then the notes (nodes dropped), as pprof prints them, then the viewer.
        out.write_all(&buf).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        for n in &notes {
            writeln!(err, "{n}").map_err(io_err)?;
        }
        for v in viewers {
            v.show(self.command.is_some(), err)?;
        }
        Ok(())
    }
}

/// Prints the notes and messages to `err`, then the report to `out`.
fn finish(
    buf: &[u8],
    notes: &[String],
    msgs: &[u8],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    for n in notes {
        writeln!(err, "{n}").map_err(io_err)?;
    }
    err.write_all(msgs).map_err(io_err)?;
    out.write_all(buf).map_err(io_err)?;
    out.flush().map_err(io_err)
}

struct Ctx<'a> {
    session: &'a Session,
    kind: Kind,
    gopts: &'a graph::Options,
    focus: Option<&'a Regex>,
    ignore: Option<&'a Regex>,
    topts: &'a text::TextOptions,
    view: &'a View,
    /// A shell command's focus and ignore ([`View::command`]).
    cmd: Option<(Option<&'a Regex>, Option<&'a Regex>)>,
    /// The graphs to show in a viewer (`--web`, `--gv`, `--evince`) once the report's lines
    /// are printed: pprof prints `Total:` and the shell's focus lines first.
    viewers: std::cell::RefCell<Vec<Viewer>>,
}

/// A call graph (Graphviz's input) to show in a viewer.
enum Viewer {
    Web(Vec<u8>),
    Gv(Vec<u8>, i64),
    Evince(Vec<u8>),
}

impl Viewer {
    /// Renders the graph for its viewer and starts the viewer; `gv` and `evince` in the
    /// background when `background` (the shell: pprof's `RunGV(..., " &")`), and then a
    /// browser's page stays until the shell ends.
    fn show(self, background: bool, err: &mut dyn Write) -> Result<()> {
        match self {
            Viewer::Web(text) => {
                let svg = graphviz::render(&text, graphviz::Format::Svg)?;
                graphviz::web(&svg, background, err)
            }
            Viewer::Gv(text, scale) => graphviz::gv(&text, scale, background, err),
            Viewer::Evince(text) => graphviz::evince(&text, background, err),
        }
    }
}

impl View {
    /// jeprof's `--thread`: the threads of `main` it chooses (`*`: all), in thread order; a
    /// profile without per-thread data, or without that thread, is warned about.
    fn chosen_threads<'p>(
        &self,
        main: &'p profile::Profile,
        path: &Path,
        err: &mut dyn Write,
    ) -> Result<Vec<(u64, &'p [profile::Sample])>> {
        let want = self.thread.as_deref().unwrap_or("*");
        if main.threads.is_empty() {
            writeln!(
                err,
                "Warning: {}: no per-thread data for --thread",
                path.display()
            )
            .map_err(io_err)?;
        }
        let number = thread_number(want)?;
        if want != "*"
            && !main.threads.is_empty()
            && !main.threads.keys().any(|t| Some(*t) == number)
        {
            writeln!(
                err,
                "Warning: {}: no thread {want} (its threads are {})",
                path.display(),
                main.threads
                    .keys()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
            .map_err(io_err)?;
        }
        Ok(main
            .threads
            .iter()
            .filter(|(t, _)| want == "*" || number == Some(**t))
            .map(|(t, samples)| (*t, samples.as_slice()))
            .collect())
    }
}

/// The stacks a report starts from.
struct Start<'a> {
    /// The total before frames were removed (pprof's `Total:`).
    total: f64,
    /// The stacks, trimmed.
    stacks: &'a Stacks,
    /// Where the id form of `stacks` is kept.
    ids: &'a OnceLock<graph::IdStacks>,
    /// Where their report nodes are kept, per granularity.
    paths: &'a Mutex<Vec<(Grain, Arc<graph::NodePaths>)>>,
    /// The values of `ids` add up exactly in any order ([`Trimmed::whole`]).
    whole: bool,
    /// `--flame --base`: the base's trimmed stacks, drawn beside the profile rather than
    /// subtracted.
    flame_base: Option<&'a Stacks>,
}

impl<'a> Start<'a> {
    fn of(t: &'a Trimmed, flame_base: Option<&'a Trimmed>) -> Start<'a> {
        Start {
            total: t.total,
            stacks: &t.stacks,
            ids: &t.ids,
            paths: &t.paths,
            whole: t.whole,
            flame_base: flame_base.map(|b| &b.stacks),
        }
    }
}

impl Ctx<'_> {
    /// The distinct stacks of `stacks` that `--focus` and `--ignore` (and a shell command's
    /// focus and ignore) keep, for the reports that write samples rather than sums
    /// (`--raw`, `--proto`); `None` when there is neither (every stack is kept).
    fn kept_stacks<'s>(&self, stacks: impl Iterator<Item = &'s [u64]>) -> Option<Stacks> {
        let (cmd_focus, cmd_ignore) = self.cmd.unwrap_or((None, None));
        let filters: Vec<(&Regex, bool)> = [
            (self.focus, true),
            (self.ignore, false),
            (cmd_focus, true),
            (cmd_ignore, false),
        ]
        .into_iter()
        .filter_map(|(re, keep)| re.map(|re| (re, keep)))
        .collect();
        if filters.is_empty() {
            return None;
        }
        let mut kept = Stacks::default();
        for k in stacks {
            kept.add_ref(k, 0.0);
        }
        for (re, keep) in filters {
            kept = graph::filter(
                Cow::Owned(kept),
                &self.session.symbols,
                re,
                keep,
                self.gopts,
            );
        }
        Some(kept)
    }

    /// pprof's per-profile part of `Main` (jeprof's `FilterAndPrint`): frame removal,
    /// `--focus`, `--ignore`, then the report of the chosen mode.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        out: &mut Vec<u8>,
        start: Start<'_>,
        thread: Option<&str>,
        leaks: &[text::LeakRecord<'_>],
        labels: &Labels<'_>,
        notes: &mut Vec<String>,
    ) -> Result<()> {
        let symbols = &self.session.symbols;
        let topts = self.topts;
        let total = start.total;
        let translation = if self.fast_text() {
            self.translation()
        } else {
            Arc::new(None)
        };
        if let Some(t) = translation.as_ref() {
            // The text table sums each stack's report nodes, found once per granularity
            // from the stacks by address id and each address translated once.
            let ids = start
                .ids
                .get_or_init(|| graph::IdStacks::of(start.stacks, self.session.address_ids()));
            if !self.session.cache_views
                && self.focus.is_none()
                && self.ignore.is_none()
                && self.cmd.is_none()
            {
                // One table of these stacks: their node paths are not kept.
                text::write_total(out, total, topts.measure, thread).map_err(io_err)?;
                let reduced = ids.reduce_direct(t, start.whole);
                text::write_table(out, &reduced, symbols, topts).map_err(io_err)?;
                if self.view.exit_after {
                    std::mem::forget(reduced);
                }
                return Ok(());
            }
            let grain = (self.gopts.granularity, self.gopts.show_addresses);
            let paths = {
                let found = start
                    .paths
                    .lock()
                    .ok()
                    .and_then(|p| p.iter().find(|(g, _)| *g == grain).map(|(_, p)| p.clone()));
                match found {
                    Some(p) => p,
                    None => {
                        let p = Arc::new(ids.paths(t));
                        if let Ok(mut l) = start.paths.lock() {
                            l.push((grain, p.clone()));
                        }
                        p
                    }
                }
            };
            // Which stacks --focus/--ignore (and a command's focus and ignore) keep.
            let narrow = |keep: Option<Vec<bool>>, re: &Regex, want: bool| -> Option<Vec<bool>> {
                let hits = ids.hits(&self.matches(re));
                Some(match keep {
                    None => hits.into_iter().map(|h| h == want).collect(),
                    Some(mut k) => {
                        for (k, h) in k.iter_mut().zip(hits) {
                            *k &= h == want;
                        }
                        k
                    }
                })
            };
            let mut keep: Option<Vec<bool>> = None;
            if let Some(re) = self.focus {
                keep = narrow(keep, re, true);
            }
            if let Some(re) = self.ignore {
                keep = narrow(keep, re, false);
            }
            if self.cmd.is_none() {
                text::write_total(out, total, topts.measure, thread).map_err(io_err)?;
            }
            let values = ids.values();
            let keep = self.command_filters(out, total, keep, narrow, |keep| match keep {
                None => crate::units::sum(values),
                Some(k) => {
                    crate::units::sum(values.iter().zip(k).filter(|(_, k)| **k).map(|(v, _)| v))
                }
            })?;
            let reduced = paths.reduce(values, keep.as_deref());
            text::write_table(out, &reduced, symbols, topts).map_err(io_err)?;
            if self.view.exit_after {
                std::mem::forget(reduced);
            }
            return Ok(());
        }
        let st = self.filtered(Cow::Borrowed(start.stacks));
        let st = self.command_filters(
            out,
            total,
            st,
            |st, re, keep| Cow::Owned(graph::filter(st, symbols, re, keep, self.gopts)),
            |st| st.total(),
        )?;
        let flame_base = start.flame_base.map(|b| self.filtered(Cow::Borrowed(b)));
        // Go pprof's hide and show: the report is made from the frames they keep.
        let hidden = {
            let mut all: Vec<&Stacks> = vec![&st];
            all.extend(flame_base.as_deref());
            graph::HideShow::of(&all, symbols, self.gopts)
        };
        let (st, flame_base, symbols) = match &hidden {
            Some(h) => (
                Cow::Owned(h.apply(&st)),
                flame_base.map(|b| Cow::Owned(h.apply(&b))),
                &h.symbols,
            ),
            None => (st, flame_base, &**symbols),
        };
        let w = self.gopts.address_width;
        // The stacks' node keys, from the stacks by address id and the session's
        // translation when there are those: each address translated once per session.
        let translation = match (&hidden, self.view.mode) {
            (None, Mode::FlameData | Mode::Peek) => self.translation(),
            _ => Arc::new(None),
        };
        let keys = |st: &Stacks, ids: Option<&OnceLock<graph::IdStacks>>| match translation.as_ref()
        {
            Some(t) => {
                let of = || graph::IdStacks::of(st, self.session.address_ids());
                match ids {
                    Some(ids) => ids.get_or_init(of).key_paths(t),
                    None => of().key_paths(t),
                }
            }
            None => graph::translate_stack_ids(st, symbols, self.gopts),
        };
        // The trimmed stacks' ids are kept with them (the web UI's next page).
        let key_paths =
            |st: &Cow<'_, Stacks>| keys(st, matches!(st, Cow::Borrowed(_)).then_some(start.ids));
        // Named as the text table names them.
        let shown = |mut k: graph::KeyPaths| {
            shown_names(&mut k, symbols, self.gopts.granularity);
            k
        };
        match self.view.mode {
            Mode::Collapsed => {
                collapsed::write(out, &st, symbols, w).map_err(io_err)?;
            }
            Mode::Flame => {
                let fo = self.flame_options(labels);
                match flame::write(out, &st, flame_base.as_deref(), symbols, w, &fo) {
                    Ok(()) => {}
                    Err(flame::FlameError::Empty) => {
                        return Err(Error::refused(
                            "no stacks to draw: every value is below one",
                        ));
                    }
                    Err(flame::FlameError::Io(e)) => return Err(io_err(e)),
                }
            }
            Mode::FlameData => {
                let paths = shown(key_paths(&st));
                let base = flame_base.map(|b| shown(keys(&b, None)));
                let so = stacks::StacksOptions {
                    measure: topts.measure,
                    total,
                };
                stacks::write(out, &paths, base.as_ref(), &so).map_err(io_err)?;
            }
            Mode::Callgrind => {
                let calls = callgrind::extract_calls(&st, symbols, self.gopts.jeprof);
                callgrind::write(out, &calls).map_err(io_err)?;
            }
            Mode::Traces => {
                let paths = graph::translate_stacks(&st, symbols, self.gopts);
                traces::write(out, &paths, &self.traces_options(labels)).map_err(io_err)?;
            }
            Mode::Peek => {
                let Some(re) = compile(&self.view.routines, "peek")? else {
                    return Err(Error::usage("--peek needs a regular expression"));
                };
                let paths = shown(key_paths(&st));
                if !peek::write(out, &paths, &re, topts.measure, total).map_err(io_err)? {
                    return Err(Error::refused(format!(
                        "no {} matches {:?}{}",
                        node_word(self.gopts.granularity),
                        re.as_str(),
                        left_by(
                            &[self.focus.map(Regex::as_str)],
                            &[self.ignore.map(Regex::as_str)]
                        )
                    )));
                }
            }
            Mode::Dot
            | Mode::Svg
            | Mode::Pdf
            | Mode::Ps
            | Mode::Gif
            | Mode::Web
            | Mode::Gv
            | Mode::Evince => {
                let reduced = graph::reduce(&st, symbols, self.gopts);
                let paths = graph::translate_stacks(&st, symbols, self.gopts);
                let g = &self.view.graph;
                let mode = self.view.mode;
                let dopts = dot::DotOptions {
                    nodecount: g.nodecount,
                    nodefraction: g.nodefraction,
                    edgefraction: g.edgefraction,
                    maxdegree: g.maxdegree,
                    heapcheck: g.heapcheck,
                    measure: topts.measure,
                    program: labels.program.to_string(),
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
                    Mode::Web => self.viewers.borrow_mut().push(Viewer::Web(text)),
                    Mode::Gv => self.viewers.borrow_mut().push(Viewer::Gv(text, g.scale)),
                    _ => self.viewers.borrow_mut().push(Viewer::Evince(text)),
                }
            }
            _ => {
                let reduced = graph::reduce(&st, symbols, self.gopts);
                if self.cmd.is_none() {
                    text::write_total(out, total, topts.measure, thread).map_err(io_err)?;
                }
                if self.view.stacks {
                    text::write_stacks(out, &st, symbols, topts).map_err(io_err)?;
                    text::write_leaks(out, leaks, symbols, topts).map_err(io_err)?;
                }
                text::write_table(out, &reduced, symbols, topts).map_err(io_err)?;
                if self.view.exit_after {
                    std::mem::forget(reduced);
                }
            }
        }
        if self.view.exit_after {
            std::mem::forget(st);
        }
        Ok(())
    }

    /// True when the report is a text table made from the stacks by address id
    /// ([`graph::IdStacks`]) and the addresses translated once ([`graph::Translation`]).
    fn fast_text(&self) -> bool {
        self.view.mode == Mode::Text
            && !self.view.stacks
            && self.gopts.show.is_none()
            && self.gopts.hide.is_none()
    }

    /// pprof's `RemoveUninterestingFrames`.
    fn trim(&self, stacks: Stacks, notes: &mut Vec<String>) -> Stacks {
        graph::remove_uninteresting(stacks, &self.session.symbols, self.kind, self.gopts, notes)
    }

    /// The stacks of `key`'s profiles less its base, trimmed ([`Ctx::trim`]); kept in the
    /// session's cache when it keeps one. Their notes are added to `notes`.
    fn trimmed(&self, key: TrimKey, notes: &mut Vec<String>) -> Arc<Trimmed> {
        let s = self.session;
        let make_here = || {
            if let Some(t) = self.trimmed_text_once(&key) {
                return t;
            }
            let mut merged = Stacks::default();
            merged.map.reserve(
                key.profiles
                    .iter()
                    .map(|&i| s.profiles[i].profile.samples.len())
                    .max()
                    .unwrap_or(0),
            );
            for &i in &key.profiles {
                for smp in &s.profiles[i].profile.samples {
                    merged.add_ref(
                        &smp.stack,
                        smp.values.get(key.index).copied().unwrap_or(0.0),
                    );
                }
            }
            if let Some(b) = key.base {
                let b = stacks_of(&s.profiles[b].profile.samples, key.index);
                merged = merged.subtract(&b, key.drop_negative);
            }
            let total = merged.total();
            let mut notes = Vec::new();
            let stacks = self.trim(merged, &mut notes);
            if self.fast_text() && !s.run_frames() {
                // The text table will want the stacks by address id: the share of unnamed
                // leaves is summed from those (in the same order), without hashing.
                let mut t = Trimmed::new(stacks, total, notes);
                let ids = t
                    .ids
                    .get_or_init(|| graph::IdStacks::of(&t.stacks, s.address_ids()));
                let note = ids.unnamed_share_note(&s.addrs, &s.symbols);
                t.notes.extend(note);
                return t;
            }
            notes.extend(graph::unnamed_share_note(&stacks, &s.symbols));
            Trimmed::new(stacks, total, notes)
        };
        let make = || {
            // The text table's translation wants pprof's renames, a pass over every name
            // (each a cache miss on a large table): made on the other core meanwhile.
            let aside = self.fast_text() && s.symbols.len() >= 10_000 && crate::cores() >= 2;
            std::thread::scope(|scope| {
                if aside {
                    scope.spawn(|| s.renames());
                }
                make_here()
            })
        };
        // The notes are said once: when the stacks are made (a session that keeps them, the
        // shell, says them at its first report, as pprof says them once).
        let mut made = false;
        let t = if s.cache_views {
            cached(
                s,
                |c| &mut c.trimmed,
                &key,
                || {
                    made = true;
                    make()
                },
            )
        } else {
            made = true;
            Arc::new(make())
        };
        if made {
            notes.extend(t.notes.iter().cloned());
        }
        t
    }

    /// [`Ctx::trimmed`] for a text table of one profile, without a base, whose values are
    /// whole numbers, in a session that keeps no views (a command line's one report): its
    /// stacks by address id made from the samples, each trimmed on its own. Adding up equal
    /// stacks first (pprof's way, and [`Ctx::trimmed`]'s) changes none of the table's sums
    /// then, and takes a map of every stack (on the large CPU profile, a sixth of a warm
    /// run's report). None when that is not the case.
    fn trimmed_text_once(&self, key: &TrimKey) -> Option<Trimmed> {
        let s = self.session;
        let &[p] = key.profiles.as_slice() else {
            return None;
        };
        if s.cache_views
            || !self.fast_text()
            || key.base.is_some()
            || key.retain.is_some()
            || key.exclude.is_some()
            || s.run_frames()
        {
            return None;
        }
        let samples = &s.profiles.get(p)?.profile.samples;
        let value =
            |smp: &crate::profile::Sample| smp.values.get(key.index).copied().unwrap_or(0.0);
        // Sums of whole numbers below 2^53 are exact, in any order. (The total is added up
        // from 0 as `units::sum` does.)
        let (mut magnitude, mut total) = (0.0f64, 0.0f64);
        for smp in samples {
            let v = value(smp);
            if v.fract() != 0.0 {
                return None;
            }
            magnitude += v.abs();
            total += v;
        }
        // (A NaN or an infinity is no whole number: its `fract` is NaN.)
        if magnitude >= 9_007_199_254_740_992.0 {
            return None;
        }
        let mut notes = Vec::new();
        let trim = graph::uninteresting_trim(
            || samples.iter().map(|smp| smp.stack.as_slice()),
            &s.symbols,
            self.kind,
            self.gopts,
            &mut notes,
        );
        let ids = graph::IdStacks::of_samples(samples, key.index, &trim, s.address_ids());
        notes.extend(ids.unnamed_share_note(&s.addrs, &s.symbols));
        let mut t = Trimmed::new(Stacks::default(), total, notes);
        let _ = t.ids.set(ids);
        t.whole = true;
        Some(t)
    }

    /// pprof's `FocusProfile` and `IgnoreProfile` (`--focus`, `--ignore`).
    fn filtered<'s>(&self, stacks: Cow<'s, Stacks>) -> Cow<'s, Stacks> {
        let symbols = &self.session.symbols;
        let mut st = stacks;
        if let Some(re) = self.focus {
            st = Cow::Owned(graph::filter(st, symbols, re, true, self.gopts));
        }
        if let Some(re) = self.ignore {
            st = Cow::Owned(graph::filter(st, symbols, re, false, self.gopts));
        }
        st
    }

    /// For a shell command ([`View::command`]): the `Total:` line, then the command's focus
    /// and ignore, each applied with `filter` and followed by a line saying what is left
    /// (`sum`). Without one, `stacks` as they are.
    fn command_filters<S>(
        &self,
        out: &mut Vec<u8>,
        total: f64,
        stacks: S,
        filter: impl Fn(S, &Regex, bool) -> S,
        sum: impl Fn(&S) -> f64,
    ) -> Result<S> {
        let Some((focus, ignore)) = self.cmd else {
            return Ok(stacks);
        };
        let m = self.topts.measure;
        writeln!(out, "Total: {} {}", m.unparse(total), m.units()).map_err(io_err)?;
        let st = stacks;
        let percent = |left: f64| {
            if total == 0.0 {
                0.0
            } else {
                left * 100.0 / total
            }
        };
        // The `focus=` and `ignore=` options in force have already narrowed the stacks: said
        // in a line of their own, so that the lines of the command's words do not seem to
        // take what the options took.
        if focus.is_some() || ignore.is_some() {
            let options: Vec<String> = [("focus", &self.view.focus), ("ignore", &self.view.ignore)]
                .into_iter()
                .filter_map(|(name, v)| Some(format!("{name}={}", v.as_deref()?)))
                .collect();
            if !options.is_empty() {
                let left = sum(&st);
                writeln!(
                    out,
                    "After the option{} {}: {} {} of {} ({:.1}%)",
                    if options.len() == 1 { "" } else { "s" },
                    options.join(" "),
                    m.unparse(left),
                    m.units(),
                    m.unparse(total),
                    percent(left)
                )
                .map_err(io_err)?;
            }
        }
        let mut st = st;
        // The words as typed (the regular expression they were compiled to may read
        // otherwise: `{` becomes `\{`).
        let typed = |keep: bool| {
            let c = self.view.command.as_ref()?;
            if keep {
                c.focus.as_deref()
            } else {
                c.ignore.as_deref()
            }
        };
        for (re, keep, what) in [(focus, true, "focusing on"), (ignore, false, "ignoring")] {
            let Some(re) = re else { continue };
            st = filter(st, re, keep);
            let left = sum(&st);
            writeln!(
                out,
                "After {what} '{}': {} {} of {} ({:.1}%)",
                typed(keep).unwrap_or(re.as_str()),
                m.unparse(left),
                m.units(),
                m.unparse(total),
                percent(left)
            )
            .map_err(io_err)?;
        }
        Ok(st)
    }

    /// The session's addresses translated to report nodes at the view's granularity (kept
    /// when the session keeps a cache); `None` where nodes depend on the order stacks are
    /// met in (see [`graph::translation`]).
    fn translation(&self) -> Arc<Option<graph::Translation>> {
        translation_of(self.session, self.gopts)
    }

    /// Which of the session's addresses match `re` (kept when the session keeps a cache).
    fn matches(&self, re: &Regex) -> Arc<Vec<bool>> {
        matches_of(self.session, re, self.gopts)
    }

    /// The title and labels of `--flame`.
    fn flame_options(&self, labels: &Labels<'_>) -> flame::FlameOptions {
        let program = file_name(Path::new(labels.program));
        let (what, count_name) = match (self.kind, self.topts.measure) {
            (Kind::Cpu, _) => ("CPU", "samples"),
            (Kind::Contention, Measure::Samples) => ("lock contentions", "contentions"),
            (Kind::Contention, _) => ("lock contention delay", "ns"),
            (Kind::Thread, _) => ("threads", "threads"),
            (Kind::Growth, Measure::Objects) => ("heap growth", "objects"),
            (Kind::Growth, _) => ("heap growth", "bytes"),
            (Kind::Heap, m) => {
                use crate::session::HeapValue;
                let alloc = matches!(
                    self.view.value.heap,
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
        let mut title = format!("{program}: {}", file_name(labels.profile));
        if let Some(b) = labels.base {
            title.push_str(&format!(" against {} (differential)", file_name(b)));
            subtitle.push_str(&format!(
                "; differential against {}: red grew, blue shrank",
                file_name(b)
            ));
        }
        flame::FlameOptions {
            title,
            subtitle,
            count_name: count_name.to_string(),
            memory: matches!(self.kind, Kind::Heap | Kind::Growth),
            full_names: self.view.full_names,
        }
    }

    /// Go pprof's names and units for `--traces`.
    fn traces_options(&self, labels: &Labels<'_>) -> traces::TracesOptions {
        let index = self.view.value.index(self.kind);
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
            // A period of 0 (not written, or the profile made by hand) says nothing of time:
            // the samples are counted.
            Kind::Cpu if labels.period == 0 => ("samples", traces::GoUnit::Count, 1.0),
            Kind::Cpu => (
                "cpu",
                traces::GoUnit::Nanoseconds,
                labels.period as f64 * 1000.0,
            ),
            Kind::Contention => match self.topts.measure {
                Measure::Samples => ("contentions", traces::GoUnit::Count, 1.0),
                _ if index == 2 => ("mean_delay", traces::GoUnit::Nanoseconds, 1.0),
                _ => ("delay", traces::GoUnit::Nanoseconds, 1.0),
            },
            Kind::Thread => ("thread", traces::GoUnit::Count, 1.0),
        };
        let file = Path::new(labels.program)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .filter(|f| labels.program != UNKNOWN_BINARY && !f.is_empty());
        traces::TracesOptions {
            file,
            type_name: type_name.to_string(),
            unit,
            scale,
        }
    }
}

/// The sites of a trend: each a path of node ids (one id, or a whole stack), its values
/// per dump.
struct Sites {
    dumps: usize,
    index: FxHashMap<Vec<u32>, usize>,
    keys: Vec<Vec<u32>>,
    values: Vec<Vec<f64>>,
}

impl Sites {
    fn add(&mut self, key: &[u32], dump: usize, v: f64) {
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                let i = self.keys.len();
                self.index.insert(key.to_vec(), i);
                self.keys.push(key.to_vec());
                self.values.push(vec![0.0; self.dumps]);
                i
            }
        };
        self.values[i][dump] += v;
    }

    /// Adds one stack's path of nodes: to its leaf (flat values), to every node on it
    /// (`cum`), or to the whole path (`stacks`).
    fn add_path(&mut self, path: &[u32], dump: usize, v: f64, cum: bool, stacks: bool) {
        if path.is_empty() {
            return;
        }
        if stacks {
            self.add(path, dump, v);
        } else if cum {
            for id in path {
                self.add(std::slice::from_ref(id), dump, v);
            }
        } else {
            self.add(&path[..1], dump, v);
        }
    }
}

impl View {
    /// The trend of the session's dumps (`--trend`), as plain data: the series put in order,
    /// the whole heap and every site (at the view's granularity and value; whole stacks with
    /// [`View::stacks`]; `--focus`, `--ignore`, `--nodecount` applied) with its value in each
    /// dump, statistics and class. The profiles are the view's (every profile argument by
    /// default); messages go to `notes`. Each site's change is what the view with the last
    /// dump and the first as its base reports for it ([`Trend::last_against_first`]).
    pub fn trend(&self, s: &Session, notes: &mut Vec<String>) -> Result<Trend> {
        self.check()?;
        if self.base_index(s).is_some() {
            return Err(Error::usage(trend::NO_BASE));
        }
        if self.thread.is_some() {
            return Err(Error::usage(trend::NO_THREAD));
        }
        let given: Vec<usize> = match &self.profiles {
            Some(p) if !p.is_empty() => p.clone(),
            _ => (0..s.profiles.len() - usize::from(s.base.is_some())).collect(),
        };
        if let Some(&i) = given.iter().find(|&&i| i >= s.profiles.len()) {
            return Err(Error::usage(format!("no profile number {i}")));
        }
        // A dump cut short (being written as the series is read, or its writer killed) has
        // lost records: its sites would read as falls, a leak as gone. It is left out: one
        // cut in a line, one cut at the end of a line (it lacks the memory map that
        // gperftools and jemalloc end every dump with, when the others have theirs), and
        // one that could not be read at all (empty, or cut in its first line).
        let any_map = given
            .iter()
            .any(|&i| !s.profiles[i].profile.mappings.is_empty());
        let why_out = |i: usize| {
            let p = &s.profiles[i].profile;
            match p.cut_at {
                Some(at) => Some(trend::LeftOut::Cut(at)),
                None if any_map && p.mappings.is_empty() => Some(trend::LeftOut::NoMap),
                None => None,
            }
        };
        let mut left_out: Vec<(std::path::PathBuf, trend::LeftOut)> = given
            .iter()
            .filter_map(|&i| why_out(i).map(|why| (s.profiles[i].path.clone(), why)))
            .collect();
        if !matches!(&self.profiles, Some(p) if !p.is_empty()) {
            left_out.extend(
                s.unread
                    .iter()
                    .map(|(p, why)| (p.clone(), trend::LeftOut::Unread(why.clone()))),
            );
        }
        let given: Vec<usize> = given
            .into_iter()
            .filter(|&i| why_out(i).is_none())
            .collect();
        if given.len() < 3 {
            let given_words = if left_out.is_empty() {
                format!("{} given", given.len())
            } else {
                let words: Vec<String> = left_out
                    .iter()
                    .map(|(p, why)| format!("{}: {}", file_name(p), why.words()))
                    .collect();
                format!(
                    "{} given, {} of them left out ({})",
                    given.len() + left_out.len(),
                    left_out.len(),
                    words.join("; ")
                )
            };
            return Err(Error::usage(format!(
                "--trend needs a series of at least three dumps ({given_words}); to compare two, use --base=<older> <newer>"
            )));
        }
        for &i in &given {
            let p = &s.profiles[i];
            if !matches!(p.profile.kind, Kind::Heap | Kind::Growth) {
                return Err(Error::refused(format!(
                    "--trend follows heap dumps (heap or growth profiles): this is a {} profile",
                    p.profile.kind.name()
                ))
                .in_file(&p.path));
            }
        }
        // One file twice (a shell pattern and a name, say) would count its dump twice. (The
        // web UI's history may hold two readings of one file rewritten under its name: two
        // dumps, told apart by when they were written and, when that was kept, by their
        // bytes.)
        type Reading = (
            std::path::PathBuf,
            Option<std::time::SystemTime>,
            Option<(u64, u32)>,
        );
        let mut seen: Vec<(Reading, usize)> = Vec::with_capacity(given.len());
        for &i in &given {
            let path = &s.profiles[i].path;
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            let real = (real, s.profiles[i].mtime, s.profiles[i].sum);
            if let Some((_, j)) = seen.iter().find(|(p, _)| *p == real) {
                return Err(Error::refused(format!(
                    "given twice in the series (as {} too)",
                    s.profiles[*j].path.display()
                ))
                .in_file(path));
            }
            seen.push((real, i));
        }
        // A dump kept compressed beside itself (`heap.0003.heap` and `heap.0003.heap.gz`,
        // as log rotation may leave them) is one dump: counted once, as the name without
        // `.gz`.
        let all = given.clone();
        let mut given = given;
        let mut twins = Vec::new();
        given.retain(|&i| {
            let name = file_name(&s.profiles[i].path);
            let Some(plain) = name.strip_suffix(".gz") else {
                return true;
            };
            let twin = all.iter().find(|&&j| {
                let (a, b) = (&s.profiles[i].profile, &s.profiles[j].profile);
                file_name(&s.profiles[j].path) == plain
                    && a.header == b.header
                    && a.samples == b.samples
                    && a.mappings == b.mappings
            });
            match twin {
                Some(&j) => {
                    twins.push((i, j));
                    false
                }
                None => true,
            }
        });
        for &(i, j) in &twins {
            notes.push(format!(
                "Note: {} holds the same dump as {}: counted once",
                s.profiles[i].path.display(),
                s.profiles[j].path.display()
            ));
        }
        if given.len() < 3 {
            return Err(Error::usage(format!(
                "--trend needs a series of at least three dumps ({} given, {} of them the same dump as another); to compare two, use --base=<older> <newer>",
                given.len() + twins.len(),
                twins.len()
            )));
        }
        for &i in &given[1..] {
            s.check_pair(given[0], i, false, self.value)?;
        }
        let files: Vec<trend::DumpFile> = given
            .iter()
            .map(|&i| {
                let path = &s.profiles[i].path;
                let name = self.profile_names.as_ref().and_then(|n| n.get(i)).cloned();
                trend::DumpFile {
                    name: name.unwrap_or_else(|| file_name(path)),
                    // When it was written, as it was read (it may have been rewritten).
                    mtime: s.profiles[i]
                        .mtime
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map(|d| d.as_secs_f64()),
                }
            })
            .collect();
        let mut order = trend::order(&files);
        // A dump without a single record after one with records: nothing was recorded in
        // it (a later dump of the same process holds at least the totals of the earlier
        // ones), and every site would read as gone. Left out. (A first dump without one is
        // real: taken before the first sampled allocation.)
        let mut recorded = false;
        order.order.retain(|&j| {
            let l = &s.profiles[given[j]];
            if l.profile.samples.is_empty() && recorded {
                left_out.push((l.path.clone(), trend::LeftOut::NoSamples));
                return false;
            }
            recorded |= !l.profile.samples.is_empty();
            true
        });
        if order.order.len() < 3 {
            return Err(Error::usage(format!(
                "--trend needs a series of at least three dumps ({} given, {} of them left out: no samples, after a dump with some); to compare two, use --base=<older> <newer>",
                given.len(),
                given.len() - order.order.len()
            )));
        }
        if let Some(why) = &order.fallback {
            let how = match order.by {
                trend::OrderedBy::Arguments => {
                    "kept the dumps in the order of the arguments".to_string()
                }
                by => format!("put the dumps in the order of {}", by.describe()),
            };
            notes.push(format!("Note: --trend {how}: {why}"));
        }
        let series: Vec<usize> = order.order.iter().map(|&j| given[j]).collect();
        let first = &s.profiles[series[0]];
        for &i in &series[1..] {
            let p = &s.profiles[i];
            if let Err(why) = trend::same_process(&first.profile, &p.profile) {
                return Err(Error::refused(format!(
                    "{why}; the series starts with {}",
                    first.path.display()
                ))
                .in_file(&p.path));
            }
        }
        // Dumps sampled at other rates are estimates of the same thing, but not equally
        // rough: said.
        let rate = |i: usize| match s.profiles[i].profile.period {
            0 => "is not sampled".to_string(),
            r => format!("is sampled 1 in {r} bytes"),
        };
        if let Some(&i) = series[1..]
            .iter()
            .find(|&&i| s.profiles[i].profile.period != first.profile.period)
        {
            notes.push(format!(
                "Note: {} {}, {} {}: each dump's values are estimates at its own rate, the sparser ones rougher",
                first.path.display(),
                rate(series[0]),
                s.profiles[i].path.display(),
                rate(i)
            ));
        }
        let hours = trend::hours(&files, &order.order);
        let main = &first.profile;
        let kind = main.kind;
        let index = self.value.index(kind);
        let gopts = self.graph_options(s, main.address_width)?;
        let focus = compile(&self.focus, "focus")?;
        let ignore = compile(&self.ignore, "ignore")?;
        let n = series.len();
        let mut totals = vec![0.0; n];
        let mut sites = Sites {
            dumps: n,
            index: FxHashMap::default(),
            keys: Vec::new(),
            values: Vec::new(),
        };
        // Every address named once, translated once (the fast path of --text); without a
        // translation (names whose nodes depend on the order stacks are met in), or with
        // Go pprof's hide/show, each dump's stacks are translated by name.
        let translation = if gopts.show.is_none() && gopts.hide.is_none() {
            translation_of(s, &gopts)
        } else {
            Arc::new(None)
        };
        let hits = |re: &Option<Regex>| re.as_ref().map(|re| matches_of(s, re, &gopts));
        let (focus_hits, ignore_hits) = (hits(&focus), hits(&ignore));
        let mut names: FxHashMap<Arc<str>, u32> = FxHashMap::default();
        // (Without a translation: each name of `names` by its id, as the text table prints it.)
        let mut shown: Vec<String> = Vec::new();
        let mut said: Vec<String> = Vec::new();
        // The frames to remove (allocator, profiler) depend only on the names of a heap
        // profile's addresses: found once for the series.
        let (_, trim) =
            graph::uninteresting(Stacks::default(), &s.symbols, kind, &gopts, &mut said);
        for (d, &i) in series.iter().enumerate() {
            let st = stacks_of(&s.profiles[i].profile.samples, index);
            totals[d] = st.total();
            let mut dnotes = Vec::new();
            let st = graph::remove_frames(st, &trim, &s.symbols, &gopts);
            dnotes.extend(graph::unnamed_share_note(&st, &s.symbols));
            for note in dnotes {
                if !said.contains(&note) {
                    said.push(note);
                }
            }
            if let Some(t) = translation.as_ref() {
                let ids = graph::IdStacks::of(&st, s.address_ids());
                let mut keep: Option<Vec<bool>> = None;
                for (hits, want) in [(&focus_hits, true), (&ignore_hits, false)] {
                    if let Some(h) = hits {
                        let k = keep.get_or_insert_with(|| vec![true; ids.values().len()]);
                        for (k, h) in k.iter_mut().zip(ids.hits(h)) {
                            *k &= h == want;
                        }
                    }
                }
                ids.paths(t).walk(ids.values(), keep.as_deref(), |path, v| {
                    sites.add_path(path, d, v, self.cum, self.stacks)
                });
                continue;
            }
            let mut st = Cow::Owned(st);
            if let Some(re) = &focus {
                st = Cow::Owned(graph::filter(st, &s.symbols, re, true, &gopts));
            }
            if let Some(re) = &ignore {
                st = Cow::Owned(graph::filter(st, &s.symbols, re, false, &gopts));
            }
            let hidden = graph::HideShow::of(&[&st], &s.symbols, &gopts);
            let (st, symbols) = match &hidden {
                Some(h) => (Cow::Owned(h.apply(&st)), &h.symbols),
                None => (st, &*s.symbols),
            };
            let mut path: Vec<u32> = Vec::new();
            let kp = graph::translate_stack_ids(&st, symbols, &gopts);
            // The dump's keys as the series' ids.
            let ids: Vec<u32> = kp
                .names
                .into_iter()
                .zip(kp.addrs)
                .map(|(k, addr)| {
                    let next = names.len() as u32;
                    *names.entry(k).or_insert_with_key(|k| {
                        let node = graph::Node {
                            key: k.clone(),
                            addr,
                        };
                        shown.push(text::node_name(&node, symbols, self.granularity));
                        next
                    })
                })
                .collect();
            for (keys, v) in kp.paths {
                path.clear();
                for k in keys {
                    let id = ids[k as usize];
                    if !path.contains(&id) {
                        path.push(id);
                    }
                }
                sites.add_path(&path, d, v, self.cum, self.stacks);
            }
        }
        notes.extend(said);
        // The names of the sites.
        let node_names: Vec<String> = match translation.as_ref() {
            Some(t) => t
                .nodes()
                .iter()
                .map(|node| text::node_name(node, &s.symbols, self.granularity))
                .collect(),
            None => shown,
        };
        let named: Vec<(String, Vec<f64>)> = sites
            .keys
            .iter()
            .zip(sites.values)
            .map(|(key, values)| {
                let name: Vec<&str> = key
                    .iter()
                    .map(|&id| node_names[id as usize].as_str())
                    .collect();
                (name.join(" < "), values)
            })
            .collect();
        // A CSV file has a row for every site (a table to work on, not to read).
        let limit = match self.mode {
            Mode::Trend(crate::report::TrendFormat::Csv) => None,
            _ => usize::try_from(self.graph.nodecount).ok(),
        };
        let h = hours.as_deref().ok();
        let (rows, omitted, classes) = trend::rows(named, h, limit);
        let dumps = series
            .iter()
            .zip(&order.order)
            .map(|(&i, &j)| trend::Dump {
                path: s.profiles[i].path.clone(),
                name: files[j].name.clone(),
                profile: i,
                seq: order.seq[j],
                mtime: files[j].mtime,
            })
            .collect();
        Ok(Trend {
            program: s.program_name.clone(),
            dumps,
            ordered_by: order.by,
            order_note: order.fallback,
            value: main.sample_types.get(index).map_or("?", |t| t.name),
            measure: Measure::of(kind, index, self.show_bytes),
            granularity: self.granularity,
            stacks: self.stacks,
            cum: self.cum && !self.stacks,
            total: trend::Row::new("(total)".to_string(), totals, h),
            hours,
            rows,
            omitted,
            classes,
            left_out,
        })
    }
}

/// The session's addresses translated to report nodes for `gopts` (kept when the session
/// keeps a cache); see [`graph::translation`].
fn translation_of(s: &Session, gopts: &graph::Options) -> Arc<Option<graph::Translation>> {
    let make =
        || (!s.run_frames()).then(|| graph::translation(&s.addrs, &s.symbols, s.renames(), gopts));
    if s.cache_views {
        let key = (gopts.granularity, gopts.show_addresses);
        cached(s, |c| &mut c.translations, &key, make)
    } else {
        Arc::new(make())
    }
}

/// Which of the session's addresses match `re` (kept when the session keeps a cache).
fn matches_of(s: &Session, re: &Regex, gopts: &graph::Options) -> Arc<Vec<bool>> {
    let make = || graph::matches(&s.addrs, &s.symbols, re, gopts);
    if s.cache_views {
        cached(s, |c| &mut c.matches, &re.as_str().to_string(), make)
    } else {
        Arc::new(make())
    }
}

/// The names of `k`'s nodes as the text table prints them: a node named after its address
/// (a frame whose file or line is unknown at file or line granularity) by its function and
/// place (`cfree ??:0`), as pprof's `--text` does.
fn shown_names(k: &mut graph::KeyPaths, symbols: &crate::symbolize::SymbolTable, g: Granularity) {
    for (name, addr) in k.names.iter_mut().zip(&k.addrs) {
        if let Some(a) = *addr {
            let node = graph::Node {
                key: name.clone(),
                addr: Some(a),
            };
            *name = Arc::from(text::node_name(&node, symbols, g));
        }
    }
}

/// The focus and ignore expressions a report was made with, when it had any: they may be
/// what left a listing or a peek with nothing (`list twork -.*`, `peek twork hide`).
fn left_by(focus: &[Option<&str>], ignore: &[Option<&str>]) -> String {
    let words: Vec<String> = focus
        .iter()
        .flatten()
        .map(|f| format!("focus {f:?}"))
        .chain(ignore.iter().flatten().map(|i| format!("ignore {i:?}")))
        .collect();
    if words.is_empty() {
        String::new()
    } else {
        format!(" in the stacks left by the {}", words.join(" and "))
    }
}

/// What a report line stands for at granularity `g`.
fn node_word(g: Granularity) -> &'static str {
    match g {
        Granularity::Functions => "function",
        Granularity::Lines => "source line",
        Granularity::Files => "file",
        Granularity::Addresses => "address",
    }
}

/// What the reports say about the run as a whole.
struct Labels<'a> {
    /// The program, as pprof names it (`binary=` of a symbolized profile, or `(unknown)`).
    program: &'a str,
    /// The (first) profile.
    profile: &'a Path,
    /// The base profile.
    base: Option<&'a Path>,
    /// The main profile's sampling period.
    period: u64,
}

/// On an error, the messages gathered so far are printed first.
fn flush_on_error<T>(r: Result<T>, notes: &[String], err: &mut dyn Write) -> Result<T> {
    if r.is_err() {
        for n in notes {
            let _ = writeln!(err, "{n}");
        }
    }
    r
}

/// Everything `--raw` writes from.
struct RawJob<'a> {
    ctx: &'a Ctx<'a>,
    program: &'a str,
    addrs: &'a [u64],
    inputs: &'a [&'a Loaded],
    base: Option<&'a Loaded>,
    merged: Stacks,
}

/// `--raw`: the symbol section, then the profile (see [`raw`]).
fn write_raw(out: &mut Vec<u8>, job: &RawJob<'_>, notes: &mut Vec<String>) -> Result<()> {
    let ctx = job.ctx;
    let symbols = &ctx.session.symbols;
    let main = &job.inputs[0].profile;
    let w = ctx.gopts.address_width;
    raw::write_symbols(out, job.program, job.addrs, symbols, w).map_err(io_err)?;
    if main.kind == Kind::Cpu {
        let st = ctx.trim(job.merged.clone(), notes);
        let st = ctx.filtered(Cow::Owned(st));
        return raw::write_cpu(out, &st, main.period, w).map_err(io_err);
    }
    // Every record read, the base's negated, kept when its stack passes --focus/--ignore.
    let mut records: Vec<raw::Record<'_>> = Vec::new();
    let mut threads: Vec<(u64, raw::Record<'_>)> = Vec::new();
    for (i, sign) in job
        .inputs
        .iter()
        .map(|i| (*i, 1.0))
        .chain(job.base.map(|b| (b, -1.0)))
    {
        records.extend(i.profile.samples.iter().map(|s| (s, sign)));
        // A thread's report is of the profile alone, base or not (jeprof's): the base's
        // thread lines are not written, so that --thread on the file reports the same.
        if sign < 0.0 {
            continue;
        }
        for (t, samples) in &i.profile.threads {
            threads.extend(samples.iter().map(|s| (*t, (s, sign))));
        }
    }
    if job.base.is_some() {
        cancel_pairs(&mut records);
    }
    let stacks = records.iter().chain(threads.iter().map(|t| &t.1));
    if let Some(kept) = ctx.kept_stacks(stacks.map(|(s, _)| s.stack.as_slice())) {
        records.retain(|(s, _)| kept.map.contains_key(&s.stack));
        threads.retain(|(_, (s, _))| kept.map.contains_key(&s.stack));
    }
    // Values un-scaled back to the header's sampling, unless some profile was sampled
    // otherwise.
    let same_sampling = job
        .inputs
        .iter()
        .copied()
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

/// Leaves out of `records` each base record (sign -1) together with a profile record
/// (sign 1) of the same stack and values: read back, the pair would add up to zero only up
/// to rounding (a stack's scaled values summed in another order than the report subtracts
/// them), where the report has nothing.
fn cancel_pairs(records: &mut Vec<raw::Record<'_>>) {
    type Key = (Vec<u64>, Vec<u64>);
    let key = |(s, _): &raw::Record<'_>| -> Key {
        (
            s.stack.clone(),
            s.values.iter().map(|v| v.to_bits()).collect(),
        )
    };
    let mut open: FxHashMap<Key, Vec<usize>> = FxHashMap::default();
    let mut gone = vec![false; records.len()];
    for (i, r) in records.iter().enumerate() {
        if r.1 > 0.0 {
            open.entry(key(r)).or_default().push(i);
        }
    }
    for (i, r) in records.iter().enumerate() {
        if r.1 < 0.0
            && let Some(j) = open.get_mut(&key(r)).and_then(Vec::pop)
        {
            gone[i] = true;
            gone[j] = true;
        }
    }
    let mut at = 0;
    records.retain(|_| {
        at += 1;
        !gone[at - 1]
    });
}

/// The error for an option `--proto` cannot apply.
pub fn proto_refuses(option: &str) -> Error {
    Error::usage(format!(
        "--{option} cannot be used with --proto, which writes each sample with all its values (apply it when reading the written profile)"
    ))
}

/// The stacks of `samples`, the value at `index` of each.
pub fn stacks_of(samples: &[profile::Sample], index: usize) -> Stacks {
    let mut s = Stacks::default();
    for x in samples {
        s.add_ref(&x.stack, x.values.get(index).copied().unwrap_or(0.0));
    }
    s
}

impl View {
    /// `--pprof_quirks`' cut of each of `routines` in `--list` (see
    /// [`disasm::pprof_list_cut`]); none without it. objdump is asked only where there may
    /// be a cut: a relocated routine.
    fn list_cuts(&self, routines: &[ListedRoutine]) -> Result<Vec<Option<u64>>> {
        if !self.pprof_quirks || !routines.iter().any(|r| r.relocated()) {
            return Ok(Vec::new());
        }
        let objdump = disasm::objdump_path(self.tools.as_deref())?;
        Ok(routines
            .iter()
            .map(|r| disasm::pprof_list_cut(&objdump, r))
            .collect())
    }
}

/// How a listing cut by [`View::max_routines`] starts its note.
pub const LISTING_CUT: &str = "Note: listed";

/// How the note starts that says a listing's lines are without their instructions, for
/// [`View::max_disassembled`].
pub const NO_INSTRUCTIONS: &str = "Note: instructions are shown";

/// The `max` of `routines` with the largest cumulative values, in magnitude (a profile less
/// its base: what grew most and what shrank most; ties: the listing's order),
/// in the listing's order. `with_value`: the addresses with a value, sorted.
fn largest_routines(
    routines: Vec<ListedRoutine>,
    with_value: &[u64],
    values: &list::AddressValues,
    max: usize,
) -> Vec<ListedRoutine> {
    let cum = |r: &ListedRoutine| -> f64 {
        let (lo, hi) = (
            r.vmas.0.wrapping_add(r.delta),
            r.vmas.1.wrapping_add(r.delta),
        );
        let from = with_value.partition_point(|&a| a < lo);
        with_value[from..]
            .iter()
            .take_while(|&&a| a < hi)
            .map(|a| values.cum.get(a).copied().unwrap_or(0.0))
            .sum::<f64>()
            .abs()
    };
    let mut order: Vec<(f64, usize)> = routines.iter().map(cum).zip(0..).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut keep: Vec<usize> = order.into_iter().take(max).map(|(_, i)| i).collect();
    keep.sort_unstable();
    let mut keep = keep.into_iter().peekable();
    routines
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| (keep.next_if_eq(&i).is_some()).then_some(r))
        .collect()
}
