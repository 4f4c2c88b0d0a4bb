//! The web UI: `rpprof --http=[host]:port [program] profiles...`.
//!
//! One [`Session`] (kept in a [`history::History`]) and many views of it: every page is a
//! [`View`] made from the server's defaults (the command line's options) and the URL's
//! parameters, named as Go pprof names them, and rendered by [`View::render`] as the command
//! line renders it. Pages under `/ui/`:
//!
//! | page | what |
//! |---|---|
//! | `flamegraph` (default) | the stacks, drawn in the browser (`assets/flame.js`) |
//! | `top` | the `--text` table, sortable; its first [`TOP_ROWS`] rows unless `rows=` says otherwise |
//! | `graph` | the `--svg` call graph (Graphviz), pan and zoom |
//! | `source`, `disasm`, `peek` | `--list`, `--disasm`, `--peek` of `f=<regexp>`; the first two cut to [`LISTED_ROUTINES`] routines unless `routines=` says otherwise; source lines open to their instructions up to [`DISASSEMBLED_ROUTINES`] routines |
//! | `trend` | `--trend` over the history's profiles of the viewed kind: chart and table, each row a link to the diff of the last against the first |
//! | `text`, `collapsed`, `dot`, `svg`, `raw`, `proto`, `traces` | the command line's bytes |
//! | `stacks` | the flame graph's data (JSON) |
//! | `history` | the profiles offered, for the pages to notice new ones (JSON) |
//! | `fetch` (POST) | fetch a new profile from a remote source |
//!
//! Parameters: `view` and `base` name a profile as the View picker lists it (never a path);
//! `si` the value column, `g` the granularity, `f`/`i`/`h`/`s` focus, ignore, hide and show,
//! `sort` (`flat`, `cum`), `n` node count, `nf`/`ef` node and edge fractions, `dropneg`,
//! `rows` (the `top` page's rows: a number or `all`).

pub mod history;
mod pages;
pub mod server;

use std::io::Write;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, ErrorKind, Result};
use crate::graph::Granularity;
use crate::pipeline::Options;
use crate::report::Mode;
use crate::session::{ContentionValue, HeapValue, Session, Value, io_err};
use crate::view::{BaseChoice, View};
use history::{Entry, History, Snapshot};
use server::{Request, Response};

/// `--max_profiles_kept`'s default (brpc's).
pub const MAX_PROFILES_KEPT: usize = 32;

/// How many rows the `top` page shows unless `rows=` says otherwise: a browser takes about
/// a quarter of a millisecond per row (the large program's CPU profile has 42,000: 10 s).
pub const TOP_ROWS: usize = 1000;

/// How many routines the source and disassembly pages list unless `routines=` says otherwise:
/// those with the largest cumulative values (a broad expression matches thousands, and
/// the page would take minutes and tens of MB).
pub const LISTED_ROUTINES: usize = 100;

/// The most routines the source page shows the instructions of (a click on a line opens
/// them): objdump takes about 20 ms a routine of a big program.
pub const DISASSEMBLED_ROUTINES: usize = 20;

/// How often watched folders are looked at.
const POLL: Duration = Duration::from_secs(1);

/// Splits `--http`'s `[host]:port`: no host means `localhost`, no port (or 0) a free one.
pub fn parse_hostport(s: &str) -> Result<(String, u16)> {
    let bad = || {
        Error::usage(format!(
            "--http={s}: say [host]:port, e.g. :8080 or localhost:0"
        ))
    };
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, p) = rest.split_once(']').ok_or_else(bad)?;
        let p = p.strip_prefix(':').ok_or_else(bad)?;
        (h.to_string(), p)
    } else {
        let (h, p) = s.rsplit_once(':').ok_or_else(bad)?;
        if h.contains(':') {
            return Err(bad());
        }
        (h.to_string(), p)
    };
    let port = if port.is_empty() {
        0
    } else {
        port.parse::<u16>().map_err(|_| bad())?
    };
    let host = if host.is_empty() {
        "localhost".to_string()
    } else {
        host
    };
    Ok((host, port))
}

/// Parses `--every`'s duration: `30s`, `5m`, `1h`, `1m30s`, `500ms`, or seconds.
pub fn parse_duration(s: &str) -> Result<Duration> {
    let bad = || Error::usage(format!("--every={s}: say a duration such as 30s, 5m or 1h"));
    let s = s.trim();
    // A bare number is seconds.
    let mut total = s.parse::<f64>().unwrap_or(0.0);
    let mut rest = if s.parse::<f64>().is_ok() { "" } else { s };
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let n: f64 = rest[..num_len].parse().map_err(|_| bad())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        total += n * scale;
        rest = &rest[unit_len..];
    }
    if total <= 0.0 || !total.is_finite() {
        return Err(bad());
    }
    // Each fetch saves a file: a server asked a thousand times a second fills the disk.
    if total < 1.0 {
        return Err(Error::usage(format!(
            "--every={s}: at least 1s (each fetch saves a profile file)"
        )));
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

/// A query string's parameters, decoded.
#[derive(Debug, Clone, Default)]
pub struct Query(pub Vec<(String, String)>);

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `application/x-www-form-urlencoded` text.
pub fn percent_decode(s: &str) -> std::result::Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let h = b.get(i + 1).copied().and_then(hex);
                let l = b.get(i + 2).copied().and_then(hex);
                match (h, l) {
                    (Some(h), Some(l)) => out.push(h * 16 + l),
                    _ => return Err(format!("bad percent-encoding in {s:?}")),
                }
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| format!("{s:?} is not UTF-8"))
}

/// Encodes a query component.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Query {
    /// Parses a query string.
    pub fn parse(q: &str) -> std::result::Result<Query, String> {
        let mut v = Vec::new();
        for part in q.split('&').filter(|p| !p.is_empty()) {
            let (k, val) = part.split_once('=').unwrap_or((part, ""));
            v.push((percent_decode(k)?, percent_decode(val)?));
        }
        Ok(Query(v))
    }

    /// The first non-empty value of `k`.
    pub fn get(&self, k: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, v)| n == k && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// The query with `k` set to `v` (removed when `v` is empty), encoded.
    pub fn with(&self, k: &str, v: &str) -> String {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        let mut set = false;
        for (n, val) in &self.0 {
            if n == k {
                if !set && !v.is_empty() {
                    pairs.push((k, v));
                }
                set = true;
            } else if !val.is_empty() && !pairs.iter().any(|(p, _)| p == n) {
                pairs.push((n, val));
            }
        }
        if !set && !v.is_empty() {
            pairs.push((k, v));
        }
        pairs
            .iter()
            .map(|(n, v)| format!("{}={}", percent_encode(n), percent_encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The query, encoded (empty values dropped, first of each name kept).
    pub fn encode(&self) -> String {
        self.with("", "")
    }
}

/// A request that cannot be answered as asked: the status and one line.
#[derive(Debug)]
pub struct Refusal(pub u16, pub String);

impl Refusal {
    fn bad(msg: impl Into<String>) -> Refusal {
        Refusal(400, msg.into())
    }

    fn response(&self) -> Response {
        Response::text(self.0, &format!("rpprof: {}", self.1))
    }
}

/// The status for an error of [`View::render`].
fn status_of(e: &Error) -> u16 {
    match e.kind {
        ErrorKind::Usage(_) | ErrorKind::Refused(_) => 400,
        ErrorKind::NotImplemented(_) => 501,
        _ => 500,
    }
}

/// What one request shows: the snapshot it started with, the profiles and the view.
pub struct Selected {
    /// The history as the request found it.
    pub snap: Arc<Snapshot>,
    /// The profile viewed (an index into `snap.entries`).
    pub view: usize,
    /// The base, if any (an index into `snap.entries`).
    pub base: Option<usize>,
    /// The view, mode not yet set.
    pub v: View,
    /// The parameters.
    pub q: Query,
    /// The session the command line would load for this profile and base (see
    /// [`Session::subset`]); the view renders from it.
    pub sub: Option<Arc<Session>>,
    /// How many rows the `top` page shows (`rows=`; `None`: all of them).
    pub rows: Option<usize>,
    /// The URL was bare and `q` now also holds the command line's choices it showed (its
    /// base, focus, ignore, hide, show and sort): links made from `q` keep them, and the
    /// page puts `q` in the browser's address bar.
    pub filled: bool,
    /// Said at the top of the page (why it is not the page asked for).
    pub notice: Option<String>,
}

impl Selected {
    /// The session.
    pub fn session(&self) -> Option<&Session> {
        self.snap.session.as_deref()
    }

    /// The entry viewed.
    pub fn entry(&self) -> &Entry {
        &self.snap.entries[self.view]
    }

    /// The base's entry.
    pub fn base_entry(&self) -> Option<&Entry> {
        self.base.map(|b| &self.snap.entries[b])
    }

    /// Renders the view in `mode`: the report and the messages.
    pub fn render(&self, mode: Mode) -> std::result::Result<(Vec<u8>, String), (Error, String)> {
        let Some(s) = self.sub.as_deref() else {
            return Err((Error::refused("no profiles yet"), String::new()));
        };
        let mut v = self.v.clone();
        v.mode = mode;
        if matches!(mode, Mode::List | Mode::Disasm) {
            // As the command line: listings are made from addresses.
            v.granularity = Granularity::Addresses;
        }
        // The source page's lines open to show their instructions (as pprof's weblist).
        v.listing_html = mode == Mode::List;
        v.max_disassembled = Some(DISASSEMBLED_ROUTINES);
        let mut out = Vec::new();
        let mut msgs = Vec::new();
        let r = v.render(s, &mut out, &mut msgs);
        let msgs = String::from_utf8_lossy(&msgs).into_owned();
        match r {
            Ok(()) => Ok((out, msgs)),
            Err(e) => Err((e, msgs)),
        }
    }
}

/// Runs `f` (a background thread's round of work), saying so on standard error if it
/// panics instead of ending the thread: the next round runs as usual.
fn guarded(what: &str, f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        let _ = writeln!(
            std::io::stderr(),
            "rpprof: an internal error while {what}; please report it (the server goes on)"
        );
    }
}

/// The web UI's state.
pub struct Ui {
    history: Arc<History>,
    /// The command line's view: what a page shows when its URL says nothing else.
    defaults: View,
    /// `--seconds` for remote fetches.
    seconds: u64,
    /// The sessions of the latest selections (profile and base), most recent first.
    subs: std::sync::Mutex<Vec<(SubKey, Arc<Session>)>>,
}

/// What a selection's session is made of: the profile and the base (by address).
type SubKey = (usize, usize);

/// How many selections' sessions are kept.
const SUBS: usize = 8;

/// The value column named `name` (or numbered) of a profile with `types`, from `v`.
fn sample_index(
    name: &str,
    types: &[&str],
    kind: &str,
    mut v: Value,
) -> std::result::Result<Value, Refusal> {
    let name = match name.parse::<usize>() {
        Ok(i) if i < types.len() => types[i],
        _ => match name {
            "total_delay" => "delay",
            n => n,
        },
    };
    if !types.contains(&name) {
        return Err(Refusal::bad(format!(
            "si={name}: this {kind} profile has {}",
            types.join(", ")
        )));
    }
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

/// Go pprof's true and false.
fn boolean(k: &str, v: &str) -> std::result::Result<bool, Refusal> {
    match v {
        "t" | "true" | "1" | "yes" => Ok(true),
        "f" | "false" | "0" | "no" => Ok(false),
        _ => Err(Refusal::bad(format!("{k}={v}: say t or f"))),
    }
}

impl Ui {
    /// Picks the profiles and builds the view a request asks for.
    pub fn select(
        &self,
        query: &str,
        routine_page: bool,
    ) -> std::result::Result<Selected, Refusal> {
        let q = Query::parse(query).map_err(Refusal::bad)?;
        let rows = match q.get("rows") {
            None => Some(TOP_ROWS),
            Some("all") => None,
            Some(n) => Some(n.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                Refusal::bad(format!(
                    "rows={n}: say a whole number or all{}",
                    too_large(n)
                ))
            })?),
        };
        let snap = self.history.current();
        let find = |k: &str| -> std::result::Result<Option<usize>, Refusal> {
            match q.get(k) {
                None => Ok(None),
                Some(name) => snap
                    .entries
                    .iter()
                    .position(|e| e.name == name)
                    .map(Some)
                    .ok_or_else(|| {
                        let why = if snap.let_go > 0 {
                            format!(
                                "{k}={name}: not among the profiles kept (--max_profiles_kept={} keeps the newest; {} let go)",
                                snap.max_kept, snap.let_go
                            )
                        } else {
                            format!("{k}={name}: no such profile in the history")
                        };
                        Refusal(404, why)
                    }),
            }
        };
        let view = find("view")?;
        let base = find("base")?;
        let mut v = self.defaults.clone();
        let Some(s) = snap.session.as_deref() else {
            return Ok(Selected {
                snap: snap.clone(),
                view: 0,
                base: None,
                v,
                q,
                sub: None,
                rows,
                filled: false,
                notice: None,
            });
        };
        let view = view.unwrap_or(0);
        let Some(entry) = snap.entries.get(view) else {
            return Err(Refusal(404, "no profiles".into()));
        };
        let prof = &s.profiles[entry.index].profile;
        // The view renders from the selection's own session: its profile, then its base.
        v.profiles = None;
        v.base = BaseChoice::Session;
        if let Some(si) = q.get("si") {
            let types: Vec<&str> = prof.sample_types.iter().map(|t| t.name).collect();
            v.value = sample_index(si, &types, prof.kind.name(), v.value)?;
        }
        if let Some(g) = q.get("g") {
            v.granularity = match g {
                "functions" => Granularity::Functions,
                "lines" => Granularity::Lines,
                "files" => Granularity::Files,
                "addresses" => Granularity::Addresses,
                _ => {
                    return Err(Refusal::bad(format!(
                        "g={g}: say functions, lines, files or addresses"
                    )));
                }
            };
        }
        // A URL with parameters says which expressions and sort it wants (a field cleared
        // in the form is gone from it); a bare one shows the command line's (`rows` says
        // only how much of the top table to show).
        let bare = q.0.iter().all(|(k, _)| k == "rows");
        // ... and the command line's --base (unless it is the profile viewed).
        let base = match (base, self.history.base.as_deref()) {
            (None, Some(b)) if bare => snap
                .entries
                .iter()
                .position(|e| e.name == b)
                .filter(|&b| b != view),
            (base, _) => base,
        };
        // A profile against itself is all zeros: shown alone, and said so.
        let mut notice = None;
        let base = match base {
            Some(b) if b == view => {
                notice = Some(format!(
                    "base={}: the profile viewed; shown without a base",
                    snap.entries[b].name
                ));
                None
            }
            b => b,
        };
        if !bare {
            v.cum = false;
            v.focus = None;
            v.ignore = None;
            v.hide = None;
            v.show = None;
        }
        if let Some(sort) = q.get("sort") {
            v.cum = match sort {
                "flat" => false,
                "cum" => true,
                _ => return Err(Refusal::bad(format!("sort={sort}: say flat or cum"))),
            };
        }
        if let Some(n) = q.get("n") {
            v.graph.nodecount = n.parse().ok().filter(|&k: &i64| k >= 0).ok_or_else(|| {
                Refusal::bad(format!(
                    "n={n}: not a whole number (0 or more){}",
                    too_large(n)
                ))
            })?;
        }
        for (k, field) in [("nf", 0), ("ef", 1)] {
            if let Some(x) = q.get(k) {
                let f: f64 = x
                    .parse()
                    .ok()
                    .filter(|f: &f64| f.is_finite() && *f >= 0.0)
                    .ok_or_else(|| Refusal::bad(format!("{k}={x}: not a fraction")))?;
                if field == 0 {
                    v.graph.nodefraction = f;
                } else {
                    v.graph.edgefraction = f;
                }
            }
        }
        if let Some(d) = q.get("dropneg") {
            v.drop_negative = boolean("dropneg", d)?;
        }
        let re = |k: &str| q.get(k).map(str::to_string);
        if routine_page {
            // On the source, disasm and peek pages `f` names the routines (as in Go pprof).
            v.routines = re("f");
            v.routines_by_short_name = true;
            v.max_routines = match q.get("routines") {
                None => Some(LISTED_ROUTINES),
                Some("all") => None,
                Some(n) => Some(n.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                    Refusal::bad(format!(
                        "routines={n}: say a whole number or all{}",
                        too_large(n)
                    ))
                })?),
            };
        } else {
            v.focus = re("f").or(v.focus);
        }
        v.ignore = re("i").or(v.ignore);
        v.hide = re("h").or(v.hide);
        v.show = re("s").or(v.show);
        if let Err(e) = v.check() {
            let msg = e.to_string();
            let msg = msg
                .replace("--list:", "f:")
                .replace("--disasm:", "f:")
                .replace("--peek:", "f:")
                .replace("--focus:", "f:")
                .replace("--ignore:", "i:")
                .replace("--hide:", "h:")
                .replace("--show:", "s:");
            return Err(Refusal::bad(msg));
        }
        if let Some(b) = base {
            s.check_pair(entry.index, snap.entries[b].index, true, v.value)
                .map_err(|e| Refusal::bad(e.to_string()))?;
        }
        let sub = self
            .sub_session(s, entry.index, base.map(|b| snap.entries[b].index))
            .map_err(|e| Refusal(status_of(&e), e.to_string()))?;
        // A bare URL shows the command line's choices: written into the parameters, so that
        // the page's links (and its address, reloaded or shared) show the same.
        let mut q = q;
        if notice.is_some() {
            q.0.retain(|(k, _)| k != "base");
        }
        let mut filled = false;
        // (Not on a routine page, whose `f` names the routines: the command line's focus
        // could not be written, and its links stay bare so that the other pages keep it.)
        if bare && !routine_page {
            let mut add = |k: &str, v: Option<&str>| {
                if let Some(v) = v.filter(|v| !v.is_empty()) {
                    q.0.push((k.to_string(), v.to_string()));
                    filled = true;
                }
            };
            add("base", base.map(|b| snap.entries[b].name.as_str()));
            add("f", v.focus.as_deref());
            add("i", v.ignore.as_deref());
            add("h", v.hide.as_deref());
            add("s", v.show.as_deref());
            add("sort", v.cum.then_some("cum"));
        }
        Ok(Selected {
            snap: snap.clone(),
            view,
            base,
            v,
            q,
            sub: Some(sub),
            rows,
            filled,
            notice,
        })
    }

    /// The session of profile `view` and `base` of `s`, made once and kept for a while.
    fn sub_session(&self, s: &Session, view: usize, base: Option<usize>) -> Result<Arc<Session>> {
        let ptr = |i: usize| Arc::as_ptr(&s.profiles[i]) as usize;
        let key = (ptr(view), base.map_or(0, ptr));
        if let Ok(mut subs) = self.subs.lock()
            && let Some(i) = subs.iter().position(|(k, _)| *k == key)
        {
            let e = subs.remove(i);
            let sub = e.1.clone();
            subs.insert(0, e);
            return Ok(sub);
        }
        let mut sub = s.subset(&[view], base)?;
        sub.cache_views = true;
        let sub = Arc::new(sub);
        if let Ok(mut subs) = self.subs.lock() {
            subs.insert(0, (key, sub.clone()));
            subs.truncate(SUBS);
        }
        Ok(sub)
    }

    /// `/ui/history`: the profiles kept, newest first, the generation, the sources being
    /// fetched and the latest messages, as JSON; the pages ask for it every few seconds.
    /// With `view=` (and `si=`), as a page's pickers say them, each profile also says whether
    /// it can be that view's base (`"diff"`), so that a page adds a new dump to its Diff
    /// picker only when the server would accept it there; a `view` no longer in the history
    /// gets no `"diff"` at all.
    fn history_json(&self, query: &str) -> String {
        use crate::report::stacks::{push_json_number, push_json_string};
        let snap = self.history.current();
        let (fetching, messages) = self.history.status();
        let bases = self.possible_bases(&snap, query);
        let mut s = format!("{{\"generation\":{},\"profiles\":[", snap.generation);
        for (i, e) in snap.entries.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{\"name\":");
            push_json_string(&mut s, &e.name);
            s.push_str(",\"kind\":");
            push_json_string(&mut s, e.kind.name());
            if let Some(b) = &bases {
                s.push_str(if b[i] {
                    ",\"diff\":true"
                } else {
                    ",\"diff\":false"
                });
            }
            s.push_str(",\"time\":");
            let t = e
                .time
                .duration_since(std::time::SystemTime::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64().floor());
            push_json_number(&mut s, t);
            s.push('}');
        }
        s.push_str(&format!("],\"max_kept\":{},\"fetching\":[", snap.max_kept));
        s.push_str(
            &fetching
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
                .join(","),
        );
        s.push_str("],\"messages\":[");
        for (i, m) in messages.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            push_json_string(&mut s, m);
        }
        s.push_str("]}\n");
        s
    }

    /// For the history's `view=` profile (with its `si=` value column), which entries the
    /// Diff picker offers: those that can be subtracted from it, not itself. `None` without
    /// a `view=` found in the history or with a value column it does not have.
    fn possible_bases(&self, snap: &Snapshot, query: &str) -> Option<Vec<bool>> {
        let q = Query::parse(query).ok()?;
        let s = snap.session.as_deref()?;
        let view = snap
            .entries
            .iter()
            .position(|e| Some(e.name.as_str()) == q.get("view"))?;
        let prof = &s.profiles[snap.entries[view].index].profile;
        let mut value = self.defaults.value;
        if let Some(si) = q.get("si") {
            let types: Vec<&str> = prof.sample_types.iter().map(|t| t.name).collect();
            value = sample_index(si, &types, prof.kind.name(), value).ok()?;
        }
        Some(
            snap.entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    i != view
                        && s.check_pair(snap.entries[view].index, e.index, true, value)
                            .is_ok()
                })
                .collect(),
        )
    }

    /// A plain form: the command line's bytes.
    fn plain(&self, req: &Request, mode: Mode) -> Response {
        let routine = mode == Mode::Peek;
        let sel = match self.select(&req.query, routine) {
            Ok(s) => s,
            Err(r) => return r.response(),
        };
        if sel.sub.is_none() {
            // A watched folder with no dump yet: nothing is wrong with the request.
            return Response::text(503, "rpprof: no profiles yet (a dump will come)")
                .with_header("Retry-After", "1");
        }
        let (ctype, disposition) = match mode {
            Mode::Proto => (
                "application/octet-stream",
                Some("attachment; filename=profile.pb.gz"),
            ),
            Mode::Svg => ("image/svg+xml", None),
            Mode::FlameData => ("application/json", None),
            _ => ("text/plain; charset=utf-8", None),
        };
        match sel.render(mode) {
            Ok((out, _)) => {
                let r = Response::new(200, ctype, out);
                match disposition {
                    Some(d) => r.with_header("Content-Disposition", d),
                    None => r,
                }
            }
            Err((e, _)) => Response::text(status_of(&e), &format!("rpprof: {e}")),
        }
    }

    /// `POST /ui/fetch?source=N`: starts fetching a new profile.
    fn fetch(&self, req: &Request) -> Response {
        if req.method != "POST" {
            return Response::text(405, "rpprof: fetch a new profile with POST")
                .with_header("Allow", server::Handler::allow(self, &req.path));
        }
        // A page of another site may not make this server fetch.
        if let (Some(origin), Some(host)) = (req.header("origin"), req.header("host"))
            && origin != format!("http://{host}")
        {
            return Response::text(403, "rpprof: permission denied: request from another site");
        }
        let q = match Query::parse(&req.query) {
            Ok(q) => q,
            Err(e) => return Refusal::bad(e).response(),
        };
        let remotes: Vec<usize> = self
            .history
            .sources
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, history::Source::Remote { .. }))
            .map(|(i, _)| i)
            .collect();
        let i = match q.get("source") {
            None if remotes.len() == 1 => remotes[0],
            None => return Refusal::bad("source=<n>: which remote source").response(),
            Some(s) => match s.parse::<usize>() {
                Ok(i) if remotes.contains(&i) => i,
                _ => return Refusal::bad(format!("source={s}: not a remote source")).response(),
            },
        };
        let (fetching, _) = self.history.status();
        if fetching.contains(&i) {
            return Response::text(202, "already fetching");
        }
        let h = self.history.clone();
        let seconds = self.seconds;
        let _ = std::thread::Builder::new()
            .name("rpprof-fetch".into())
            .spawn(move || {
                h.fetch(i, seconds, &mut std::io::stderr());
            });
        Response::text(202, "fetching")
    }
}

impl server::Handler for Ui {
    fn allow(&self, path: &str) -> &'static str {
        if path == "/ui/fetch" {
            "POST"
        } else {
            "GET, HEAD"
        }
    }

    fn handle(&self, req: &Request) -> Response {
        let path = req.path.as_str();
        if path == "/" || path == "/ui" {
            let loc = if req.query.is_empty() {
                "/ui/".to_string()
            } else {
                format!("/ui/?{}", req.query)
            };
            return Response::text(307, "see /ui/").with_header("Location", &loc);
        }
        if path == "/favicon.ico" {
            // Asked by every browser for every page: no icon, and no error in its console.
            return Response::new(204, "image/x-icon", String::new());
        }
        let Some(page) = path.strip_prefix("/ui/") else {
            return Response::text(404, "rpprof: no such page (the pages are under /ui/)");
        };
        if req.method == "POST" && page != "fetch" {
            return Response::text(405, "rpprof: use GET or HEAD")
                .with_header("Allow", server::Handler::allow(self, path));
        }
        match page {
            "text" => self.plain(req, Mode::Text),
            "collapsed" => self.plain(req, Mode::Collapsed),
            "dot" => self.plain(req, Mode::Dot),
            "svg" => self.plain(req, Mode::Svg),
            "raw" => self.plain(req, Mode::Raw),
            "proto" => self.plain(req, Mode::Proto),
            "traces" => self.plain(req, Mode::Traces),
            "stacks" => self.plain(req, Mode::FlameData),
            "history" => Response::new(200, "application/json", self.history_json(&req.query)),
            "fetch" => self.fetch(req),
            _ => {
                if let Some(asset) = page.strip_prefix("static/") {
                    return pages::asset(asset);
                }
                pages::page(self, page, req)
            }
        }
    }
}

/// Opens `url` in a browser: `$BROWSER` first (as
/// [`crate::report::graphviz::browser_commands`] reads it), then the platform's opener; not
/// waited for.
fn open_browser(url: &str, err: &mut dyn Write) {
    let mut tries = crate::report::graphviz::browser_commands(url);
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    tries.push(vec![opener.to_string(), url.to_string()]);
    for t in tries {
        let Some((prog, args)) = t.split_first() else {
            continue;
        };
        let child = std::process::Command::new(prog)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Ok(mut c) = child {
            // Reaped when it ends, without holding anything up.
            let _ = std::thread::Builder::new().spawn(move || c.wait());
            return;
        }
    }
    let _ = writeln!(err, "Could not start a browser; open {url}");
}

/// The first page's query: the command line's options as URL parameters (Go pprof's habit).
fn first_query(opts: &Options, base: Option<&str>) -> String {
    let mut q = Query::default();
    let mut set = |k: &str, v: &str| q.0.push((k.to_string(), v.to_string()));
    if let Some(b) = base {
        set("base", b);
    }
    if let Some(f) = &opts.focus {
        set("f", f);
    }
    if let Some(i) = &opts.ignore {
        set("i", i);
    }
    let g = match opts.granularity {
        Granularity::Functions => "",
        Granularity::Lines => "lines",
        Granularity::Files => "files",
        Granularity::Addresses => "addresses",
    };
    set("g", g);
    let si = match opts.heap_value {
        HeapValue::InuseSpace => "",
        HeapValue::InuseObjects => "inuse_objects",
        HeapValue::AllocSpace => "alloc_space",
        HeapValue::AllocObjects => "alloc_objects",
    };
    set("si", si);
    if opts.cum {
        set("sort", "cum");
    }
    q.encode()
}

/// Binds `host:port` (the first address `host` names, IPv4 first).
fn bind(host: &str, port: u16) -> Result<TcpListener> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| Error::refused(format!("--http: cannot resolve {host}: {e}")))?
        .collect();
    let mut sorted = addrs.clone();
    sorted.sort_by_key(|a| !a.is_ipv4());
    let mut last = None;
    for a in sorted {
        match TcpListener::bind(a) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(Error::refused(format!(
        "--http: cannot listen on {host}:{port}: {}",
        last.map_or_else(|| "no address".to_string(), |e| e.to_string())
    )))
}

/// Serves the web UI until the process is stopped.
pub fn serve(opts: &Options, err: &mut dyn Write) -> Result<()> {
    let (host, port) = parse_hostport(opts.http.as_deref().unwrap_or(":0"))?;
    let check = opts.view();
    check.check()?;
    let history = Arc::new(History::new(
        opts,
        opts.max_profiles_kept.unwrap_or(MAX_PROFILES_KEPT),
        err,
    )?);
    let listener = bind(&host, port)?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::internal(format!("--http: the address listened on: {e}")))?;
    let shown = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.clone()
    };
    let url = format!("http://{shown}:{}", local.port());
    if opts.every.is_some()
        && !history
            .sources
            .iter()
            .any(|s| matches!(s, history::Source::Remote { .. }))
    {
        writeln!(
            err,
            "Warning: --every fetches remote profiles again, and none is given: it does nothing here (a folder or a quoted glob is watched without it)"
        )
        .map_err(io_err)?;
    }
    writeln!(err, "Serving web UI on {url}").map_err(io_err)?;
    let _ = err.flush();
    // Watched folders are looked at every second.
    if history.sources.iter().any(history::Source::watched) {
        let h = history.clone();
        let _ = std::thread::Builder::new()
            .name("rpprof-watch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(POLL);
                    guarded("watching for new profiles", || {
                        h.poll(&mut std::io::stderr());
                    });
                }
            });
    }
    let seconds = opts.seconds.unwrap_or(30);
    if let Some(every) = opts.every {
        for (i, s) in history.sources.iter().enumerate() {
            if matches!(s, history::Source::Remote { .. }) {
                let h = history.clone();
                let _ = std::thread::Builder::new()
                    .name("rpprof-every".into())
                    .spawn(move || {
                        loop {
                            std::thread::sleep(every);
                            guarded("fetching a new profile", || {
                                h.fetch(i, seconds, &mut std::io::stderr());
                            });
                        }
                    });
            }
        }
    }
    if !opts.no_browser {
        let q = first_query(opts, history.base.as_deref());
        let page = if q.is_empty() {
            format!("{url}/ui/")
        } else {
            format!("{url}/ui/?{q}")
        };
        open_browser(&page, err);
    }
    let mut defaults = opts.view();
    defaults.exit_after = false;
    defaults.command = None;
    defaults.routines = None;
    defaults.limit = None;
    let ui = Ui {
        history,
        defaults,
        seconds,
        subs: std::sync::Mutex::new(Vec::new()),
    };
    let access = server::Access {
        loopback_only: server::is_loopback(local.ip()),
        host,
    };
    server::run(listener, Arc::new(ui), access, server::Limits::default());
    Ok(())
}

/// Why a number was refused when it is digits and not 0 (the only other whole number
/// refused): ` (this one is too large)`.
fn too_large(n: &str) -> &'static str {
    if n.bytes().all(|b| b.is_ascii_digit()) && n.bytes().any(|b| b != b'0') {
        " (this one is too large)"
    } else {
        ""
    }
}

// unwrap here only in tests, on constant texts (no input reaches them): a failure is the
// test failing.

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostports() {
        assert_eq!(parse_hostport(":8080").unwrap(), ("localhost".into(), 8080));
        assert_eq!(
            parse_hostport("localhost:").unwrap(),
            ("localhost".into(), 0)
        );
        assert_eq!(parse_hostport("[::1]:0").unwrap(), ("::1".into(), 0));
        assert_eq!(parse_hostport("0.0.0.0:1").unwrap(), ("0.0.0.0".into(), 1));
        assert!(parse_hostport("8080").is_err());
        assert!(parse_hostport(":x").is_err());
        assert!(parse_hostport("::1:80").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(
            parse_duration("1500ms").unwrap(),
            Duration::from_millis(1500)
        );
        assert!(parse_duration("500ms").is_err());
        assert!(parse_duration("0.5").is_err());
        assert_eq!(parse_duration("5").unwrap(), Duration::from_secs(5));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn queries() {
        let q = Query::parse("view=a%20b&f=x%2By&f=second&g=&n=3").unwrap();
        assert_eq!(q.get("view"), Some("a b"));
        assert_eq!(q.get("f"), Some("x+y"));
        assert_eq!(q.get("g"), None);
        assert_eq!(q.with("n", "4"), "view=a%20b&f=x%2By&n=4");
        assert_eq!(q.with("n", ""), "view=a%20b&f=x%2By");
        assert_eq!(
            q.with("si", "alloc_space"),
            "view=a%20b&f=x%2By&n=3&si=alloc_space"
        );
        assert!(Query::parse("a=%zz").is_err());
        assert!(Query::parse("a=%ff").is_err());
    }
}
