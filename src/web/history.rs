//! The profiles the web UI offers: every profile argument, the dumps that appear later in a
//! watched folder or glob, and the profiles fetched from a remote server; newest first, at
//! most `--max_profiles_kept` of them in memory.
//!
//! The current state is a [`Snapshot`]: a [`Session`] of the profiles kept and the list of
//! [`Entry`]s naming them. A change (a dump arrived, a fetch ended) builds a new session from
//! the old one ([`Session::with_profiles`]: the profiles kept are not read again, only new
//! addresses are symbolized) and swaps the snapshot; requests in flight keep the one they
//! started with. Files are only ever read, never written or deleted (fetched profiles are
//! saved where pprof saves them, by [`remote::fetch_profile`]).
//!
//! "Newest" is the file's modification time (whole seconds), then the file name in natural
//! order (`heap.10` after `heap.9`), so that dumps written within one second, or copied
//! together, still come in their numbered order.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};
use crate::pipeline::Options;
use crate::profile::{self, Kind};
use crate::remote;
use crate::session::{self, LoadOptions, Loaded, Session, file_name, is_remote};

/// One profile of the history.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its name in the pickers and in `view=`/`base=`: the file name (made unique).
    pub name: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// Its index in the snapshot's [`Session::profiles`].
    pub index: usize,
    /// When it was written (or fetched).
    pub time: SystemTime,
    /// What it measures.
    pub kind: Kind,
    /// Kept whatever its age (`--base`).
    pub pinned: bool,
}

/// The history at one moment.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The session of the profiles kept; `None` while a watched folder has none yet.
    pub session: Option<Arc<Session>>,
    /// The profiles, newest first.
    pub entries: Vec<Entry>,
    /// Counts the changes.
    pub generation: u64,
    /// How many profiles were let go, the oldest, past `--max_profiles_kept`.
    pub let_go: usize,
    /// `--max_profiles_kept`.
    pub max_kept: usize,
    /// Every name given so far, with its file, the profiles let go included: a name is
    /// never given twice (a link or an open page's picker keeps meaning one dump, and a
    /// file read again after its first reading was let go is numbered as a second reading).
    pub given: Arc<HashMap<String, PathBuf>>,
}

impl Snapshot {
    /// The entry named `name`.
    pub fn find(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Where profiles come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A profile file.
    File(PathBuf),
    /// A folder whose profiles are all offered, new ones as they appear.
    Dir(PathBuf),
    /// The files of a folder whose names match a pattern (`*`, `?`, `[...]`).
    Glob {
        /// The folder.
        dir: PathBuf,
        /// The file name pattern.
        pattern: String,
    },
    /// A server's profile page (`host:port/pprof/heap`).
    Remote {
        /// The page.
        target: remote::Target,
        /// The argument as given.
        arg: String,
    },
}

impl Source {
    /// How the pages describe it.
    pub fn describe(&self) -> String {
        match self {
            Source::File(p) => p.display().to_string(),
            Source::Dir(p) => format!("{}/ (watched)", p.display()),
            Source::Glob { dir, pattern } => {
                format!("{} (watched)", dir.join(pattern).display())
            }
            Source::Remote { arg, .. } => arg.clone(),
        }
    }

    /// True for the sources that are looked at again for new files.
    pub fn watched(&self) -> bool {
        matches!(self, Source::Dir(_) | Source::Glob { .. })
    }
}

/// What the pages say about fetches and dumps that failed.
#[derive(Debug, Default)]
pub struct Status {
    /// The remote sources being fetched now.
    pub fetching: Vec<usize>,
    /// The latest messages, oldest first.
    pub messages: VecDeque<String>,
}

/// What was seen of a file in a watched folder.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seen {
    stat: Stat,
    state: SeenState,
    /// The length and CRC-32 of what the history read of it ([`Loaded::sum`]).
    sum: Option<(u64, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeenState {
    /// Read into the history, let go as too old, or not a profile.
    Done,
    /// Could not be read: tried again when it changes.
    Failed,
    /// Changed at the last look: read when it stays as it is.
    Pending,
}

/// A file that may join the history.
#[derive(Debug, Clone)]
struct Candidate {
    path: PathBuf,
    time: SystemTime,
    pinned: bool,
}

/// A profile read, to join the history ([`History::add`]).
struct New {
    loaded: Loaded,
    /// When it was written (or fetched).
    time: SystemTime,
    /// Kept whatever its age (`--base`).
    pinned: bool,
    /// It replaces the profile read before from the same file.
    replace: bool,
}

impl New {
    fn of(loaded: Loaded, time: SystemTime, pinned: bool) -> New {
        New {
            loaded,
            time,
            pinned,
            replace: false,
        }
    }
}

/// The history of one web UI.
pub struct History {
    /// Where profiles come from.
    pub sources: Vec<Source>,
    /// The program argument.
    pub program: Option<PathBuf>,
    /// The name of the `--base` profile, for the first page's URL.
    pub base: Option<String>,
    load: LoadOptions,
    max_kept: usize,
    current: RwLock<Arc<Snapshot>>,
    /// Held while the history changes (one change at a time).
    update: Mutex<HashMap<PathBuf, Seen>>,
    status: Mutex<Status>,
    /// Without a local program, the program's name on the server and the server that names
    /// its addresses (`/pprof/symbol`).
    remote_program: Option<(remote::Target, String)>,
}

/// How many messages the pages keep.
const MESSAGES: usize = 20;

/// A file younger than this may still be being written: it joins once it stops changing.
const SETTLE: Duration = Duration::from_secs(2);

/// True when `arg` has glob characters.
fn is_glob(arg: &str) -> bool {
    arg.contains(['*', '?', '['])
}

/// Matches a file name against a glob pattern: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point for the last `*`.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class(&p, pi, n[ni])
                        && matched
                    {
                        pi = next;
                        ni += 1;
                        continue;
                    } else if class(&p, pi, n[ni]).is_none() && n[ni] == '[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// A `[...]` class at `p[at]`: whether `c` is in it and where the pattern goes on; `None`
/// when the class is not closed.
fn class(p: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

/// Compares names in natural order: runs of digits by their number.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let x = trim_zeros(&a[si..i]);
            let y = trim_zeros(&b[sj..j]);
            let o = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if o != Ordering::Equal {
                return o;
            }
        } else {
            let o = a[i].cmp(&b[j]);
            if o != Ordering::Equal {
                return o;
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let k = d.iter().take_while(|&&c| c == b'0').count();
    &d[k.min(d.len().saturating_sub(1))..]
}

/// Newest first: later modification time (in whole seconds), then the later name.
/// What tells files apart however their paths are spelled: the path without links, `.`
/// and `..`, or as given when that cannot be found.
fn file_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn newer_first(a: (SystemTime, &Path), b: (SystemTime, &Path)) -> std::cmp::Ordering {
    let secs = |t: SystemTime| {
        t.duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    };
    secs(b.0)
        .cmp(&secs(a.0))
        .then_with(|| natural_cmp(&file_name(b.1), &file_name(a.1)))
        .then_with(|| b.1.cmp(a.1))
}

/// What tells a watched file that changed from one that did not.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stat {
    len: u64,
    mtime: SystemTime,
    /// The time of the inode's last change (seconds, nanoseconds), where there is one: a
    /// file rewritten with its size and modification time kept (`cp -p`, `touch -r`, a
    /// dump of the same size within the file system's time resolution) changes it.
    ctime: (i64, i64),
}

/// The size and times of `p`, following links; `None` unless a regular file.
fn stat(p: &Path) -> Option<Stat> {
    let m = std::fs::metadata(p).ok()?;
    if !m.is_file() {
        return None;
    }
    #[cfg(unix)]
    let ctime = {
        use std::os::unix::fs::MetadataExt;
        (m.ctime(), m.ctime_nsec())
    };
    #[cfg(not(unix))]
    let ctime = (0, 0);
    Some(Stat {
        len: m.len(),
        mtime: m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        ctime,
    })
}

/// True when the file starts as a profile does.
fn sniff(p: &Path) -> bool {
    profile::file_head(p).is_ok_and(|head| profile::looks_like_profile(&head))
}

/// Why a file a watched pattern names is not read.
fn not_a_profile(path: &Path, len: u64) -> String {
    let why = if len == 0 {
        "empty"
    } else {
        "it does not start as a profile does"
    };
    format!("rpprof: skipping {}: {why}", path.display())
}

/// The files a watched source offers now, each with its [`Stat`].
fn list(source: &Source) -> Vec<(PathBuf, Stat)> {
    let (dir, pattern) = match source {
        Source::Dir(d) => (d.as_path(), None),
        Source::Glob { dir, pattern } => (dir.as_path(), Some(pattern.as_str())),
        _ => return Vec::new(),
    };
    let Ok(rd) = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        // Hidden files, and the partial files of a fetch in progress (`.tmp.*`).
        if name.starts_with('.') {
            continue;
        }
        if let Some(p) = pattern
            && !glob_match(p, &name)
        {
            continue;
        }
        let path = dir.join(&name);
        if let Some(st) = stat(&path) {
            out.push((path, st));
        }
    }
    out
}

/// What an argument is.
enum Arg {
    Remote,
    Dir,
    Glob,
    File,
}

fn classify(arg: &str) -> Arg {
    let p = Path::new(arg);
    if p.is_dir() {
        Arg::Dir
    } else if p.exists() {
        Arg::File
    } else if is_remote(arg) {
        Arg::Remote
    } else if is_glob(arg) {
        Arg::Glob
    } else {
        Arg::File
    }
}

impl History {
    /// Reads the profiles the command line names (the newest `max_kept` of the folders'),
    /// fetches the remote ones once, and symbolizes them.
    pub fn new(opts: &Options, max_kept: usize, err: &mut dyn Write) -> Result<History> {
        let args = &opts.args;
        if args.is_empty() {
            return Err(Error::usage("Did not specify program"));
        }
        let mut rest: &[String] = args;
        let mut program = None;
        if args.len() >= 2
            && matches!(classify(&args[0]), Arg::File)
            && session::first_is_program(&args[0], args.len())?
        {
            program = Some(PathBuf::from(&args[0]));
            rest = &args[1..];
        }
        let mut sources = Vec::new();
        for a in rest {
            sources.push(match classify(a) {
                Arg::Dir => Source::Dir(PathBuf::from(a.trim_end_matches('/'))),
                Arg::Remote => Source::Remote {
                    target: remote::Target::parse(a),
                    arg: a.clone(),
                },
                Arg::Glob => {
                    let p = Path::new(a);
                    let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
                    let pattern = file_name(p);
                    if is_glob(&dir.to_string_lossy()) {
                        return Err(Error::usage(format!(
                            "{a}: only the file name may have wildcards"
                        )));
                    }
                    if !dir.as_os_str().is_empty() && !dir.is_dir() {
                        return Err(Error::io(
                            &dir,
                            std::io::Error::from(std::io::ErrorKind::NotFound),
                        ));
                    }
                    Source::Glob { dir, pattern }
                }
                Arg::File => Source::File(PathBuf::from(a)),
            });
        }
        if sources.is_empty() {
            return Err(Error::usage("Did not specify profile file"));
        }
        let mut base_source = None;
        if let Some(b) = &opts.base {
            base_source = Some(sources.len());
            sources.push(Source::File(PathBuf::from(b)));
        }
        let mut load = opts.load_options();
        load.base = None;
        // Without a local program, a server names the addresses of its profiles.
        let mut remote_program = None;
        if program.is_none()
            && let Some(Source::Remote { target, arg }) =
                sources.iter().find(|s| matches!(s, Source::Remote { .. }))
        {
            writeln!(err, "Using remote profile at {arg}.").map_err(session::io_err)?;
            let name = remote::program_name(target, err)?;
            remote_program = Some((target.clone(), name));
        }
        let mut h = History {
            sources,
            program,
            base: None,
            load,
            max_kept: max_kept.max(1),
            current: RwLock::new(Arc::new(Snapshot::default())),
            update: Mutex::new(HashMap::new()),
            status: Mutex::new(Status::default()),
            remote_program,
        };
        // Every file now; the folders' newest first, as many as are kept.
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut seen: HashMap<PathBuf, Seen> = HashMap::new();
        let mut fetched: Vec<Loaded> = Vec::new();
        let seconds = opts.seconds.unwrap_or(30);
        for (i, s) in h.sources.iter().enumerate() {
            match s {
                Source::File(p) => {
                    let time = std::fs::metadata(p)
                        .and_then(|m| m.modified())
                        .unwrap_or(SystemTime::UNIX_EPOCH);
                    candidates.push(Candidate {
                        path: p.clone(),
                        time,
                        pinned: Some(i) == base_source,
                    });
                }
                Source::Dir(_) | Source::Glob { .. } => {
                    for (path, st) in list(s) {
                        let profile = sniff(&path);
                        if !profile && matches!(s, Source::Glob { .. }) {
                            writeln!(err, "{}", not_a_profile(&path, st.len))
                                .map_err(session::io_err)?;
                        }
                        seen.insert(
                            path.clone(),
                            Seen {
                                stat: st,
                                state: SeenState::Done,
                                sum: None,
                            },
                        );
                        if profile {
                            candidates.push(Candidate {
                                path,
                                time: st.mtime,
                                pinned: false,
                            });
                        }
                    }
                }
                Source::Remote { target, .. } => {
                    fetched.push(h.fetch_one(target, seconds, err)?);
                }
            }
        }
        candidates.sort_by(|a, b| newer_first((a.time, &a.path), (b.time, &b.path)));
        // A file named twice (the `--base` also among the profiles, or in a watched
        // folder) is read once, and kept whatever its age when either names it the base.
        // (By the file, however it is spelled: `./a.heap` and a glob's `a.heap`.)
        let mut first: HashMap<PathBuf, usize> = HashMap::new();
        let mut once: Vec<Candidate> = Vec::with_capacity(candidates.len());
        for c in candidates {
            let key = file_key(&c.path);
            match first.get(&key) {
                Some(&i) => once[i].pinned |= c.pinned,
                None => {
                    first.insert(key, once.len());
                    once.push(c);
                }
            }
        }
        let candidates = once;
        let mut loaded: Vec<New> = Vec::new();
        let mut kept = fetched.len();
        // Newest first, as many as are kept, and the pinned ones, read on every core in
        // batches. A batch is the next candidates that reading one by one would read for
        // sure (a pinned one, or one with fewer successes before it than there is room);
        // the next batch takes up where files that could not be read left room.
        let mut rest = candidates.into_iter().peekable();
        let mut not_read = 0;
        while rest.peek().is_some() {
            let mut room = h.max_kept.saturating_sub(kept);
            let mut batch: Vec<Candidate> = Vec::new();
            while let Some(c) = rest.peek() {
                if !c.pinned {
                    if room == 0 {
                        if !batch.is_empty() {
                            break;
                        }
                        // No room left whatever happens: not read.
                        rest.next();
                        not_read += 1;
                        continue;
                    }
                    room -= 1;
                }
                batch.extend(rest.next());
            }
            let paths: Vec<String> = batch
                .iter()
                .map(|c| c.path.to_string_lossy().into_owned())
                .collect();
            for (c, read) in batch.into_iter().zip(Loaded::read_all_summed(&paths)) {
                let explicit = h
                    .sources
                    .iter()
                    .any(|s| matches!(s, Source::File(p) if *p == c.path));
                match read {
                    Ok(l) => {
                        if !c.pinned {
                            kept += 1;
                        }
                        if let Some(s) = seen.get_mut(&c.path) {
                            s.sum = l.sum;
                        }
                        loaded.push(New::of(l, c.time, c.pinned));
                    }
                    Err(e) if explicit => return Err(e),
                    Err(e) => {
                        if let Some(s) = seen.get_mut(&c.path) {
                            s.state = SeenState::Failed;
                        }
                        writeln!(err, "rpprof: skipping {e}").map_err(session::io_err)?;
                    }
                }
            }
        }
        let now = SystemTime::now();
        loaded.extend(fetched.into_iter().map(|l| New::of(l, now, false)));
        if let Ok(mut s) = h.update.lock() {
            *s = seen;
        }
        if loaded.is_empty() && !h.sources.iter().any(Source::watched) {
            return Err(Error::usage("Did not specify profile file"));
        }
        h.add(loaded, not_read, err)?;
        if let Some(b) = opts.base.as_deref() {
            let snap = h.current();
            h.base = snap
                .entries
                .iter()
                .find(|e| e.pinned && file_key(&e.path) == file_key(Path::new(b)))
                .map(|e| e.name.clone());
        }
        Ok(h)
    }

    /// The history now.
    pub fn current(&self) -> Arc<Snapshot> {
        match self.current.read() {
            Ok(s) => s.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// The fetches under way and the latest messages.
    pub fn status(&self) -> (Vec<usize>, Vec<String>) {
        match self.status.lock() {
            Ok(s) => (s.fetching.clone(), s.messages.iter().cloned().collect()),
            Err(_) => (Vec::new(), Vec::new()),
        }
    }

    /// Drops the messages saying that the file at `path` was skipped: it has joined since
    /// (a dump that was empty or half written when first seen), and the pages would go on
    /// saying it was skipped.
    fn forget_skips(&self, path: &Path) {
        let skipped = format!("rpprof: skipping {}:", path.display());
        if let Ok(mut s) = self.status.lock() {
            s.messages.retain(|m| !m.starts_with(&skipped));
        }
    }

    fn say(&self, msg: String, err: &mut dyn Write) {
        let _ = writeln!(err, "{msg}");
        if let Ok(mut s) = self.status.lock() {
            s.messages.push_back(msg);
            while s.messages.len() > MESSAGES {
                s.messages.pop_front();
            }
        }
    }

    /// Adds profiles, lets the oldest go past the limit, and swaps in the new snapshot;
    /// `not_read`: how many more were let go unread (older than the ones kept). A profile
    /// that [`New::replace`]s the reading of its file takes its place and its name. Returns
    /// the names added, each with whether it replaced one.
    fn add(
        &self,
        new: Vec<New>,
        not_read: usize,
        err: &mut dyn Write,
    ) -> Result<Vec<(String, bool)>> {
        let snap = self.current();
        enum Item {
            Old(Entry),
            New(Box<Loaded>, SystemTime, bool, Kind, Option<String>),
        }
        // (When it was written, the file, pinned, the order it was read in, the profile.)
        let mut items: Vec<(SystemTime, PathBuf, bool, usize, Item)> = Vec::new();
        let mut replaced: Vec<Entry> = Vec::new();
        // What a profile replaces is the latest reading of its file (the one whose bytes it
        // starts with); earlier readings (the file rewritten since) stay.
        let latest = |p: &Path| {
            snap.entries
                .iter()
                .filter(|e| e.path == p)
                .max_by_key(|e| e.index)
                .map(|e| e.index)
        };
        let replacing: Vec<usize> = new
            .iter()
            .filter(|n| n.replace)
            .filter_map(|n| latest(&n.loaded.path))
            .collect();
        for e in &snap.entries {
            if replacing.contains(&e.index) {
                replaced.push(e.clone());
            } else {
                items.push((
                    e.time,
                    e.path.clone(),
                    e.pinned,
                    e.index,
                    Item::Old(e.clone()),
                ));
            }
        }
        for (k, n) in new.into_iter().enumerate() {
            let (l, t, pinned) = (n.loaded, n.time, n.pinned);
            let kind = l.profile.kind;
            let old = replaced.iter().find(|e| n.replace && e.path == l.path);
            let pinned = pinned || old.is_some_and(|e| e.pinned);
            let name = old.map(|e| e.name.clone());
            items.push((
                t,
                l.path.clone(),
                pinned,
                snap.entries.len() + k,
                Item::New(Box::new(l), t, pinned, kind, name),
            ));
        }
        // Two readings of one file with the same time (rewritten with its time kept): the
        // later reading is the newer.
        items.sort_by(|a, b| newer_first((a.0, &a.1), (b.0, &b.1)).then(b.3.cmp(&a.3)));
        let mut unpinned = 0;
        let before = items.len();
        items.retain(|(_, _, pinned, _, _)| {
            if *pinned {
                return true;
            }
            unpinned += 1;
            unpinned <= self.max_kept
        });
        let let_go = snap.let_go + not_read + (before - items.len());
        let mut keep: Vec<usize> = items
            .iter()
            .filter_map(|(_, _, _, _, it)| match it {
                Item::Old(e) => Some(e.index),
                Item::New(..) => None,
            })
            .collect();
        keep.sort_unstable();
        let mut given: HashMap<String, PathBuf> = (*snap.given).clone();
        let mut added: Vec<Arc<Loaded>> = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        let mut added_names = Vec::new();
        for (_, _, _, _, it) in items {
            match it {
                Item::Old(mut e) => {
                    // SANITY: every kept index is in `keep`.
                    e.index = keep.binary_search(&e.index).unwrap_or(0);
                    entries.push(e);
                }
                Item::New(l, time, pinned, kind, old_name) => {
                    let again = old_name.is_some();
                    // A second reading of a file is numbered, not told apart by its folder
                    // (the same).
                    let reread = given.values().any(|p| *p == l.path);
                    let name = old_name.unwrap_or_else(|| unique_name(&l.path, &given, reread));
                    given.insert(name.clone(), l.path.clone());
                    added_names.push((name.clone(), again));
                    entries.push(Entry {
                        name,
                        path: l.path.clone(),
                        index: keep.len() + added.len(),
                        time,
                        kind,
                        pinned,
                    });
                    added.push(Arc::new(*l));
                }
            }
        }
        let session = if entries.is_empty() {
            None
        } else {
            let mut s = match &snap.session {
                Some(s) => s.with_profiles(&keep, added, err)?,
                None => Session::of_profiles(self.load.clone(), self.program.clone(), added, err)?,
            };
            s.cache_views = true;
            Some(Arc::new(s))
        };
        let next = Arc::new(Snapshot {
            session,
            entries,
            generation: snap.generation + 1,
            let_go,
            max_kept: self.max_kept,
            given: Arc::new(given),
        });
        self.publish(next);
        Ok(added_names)
    }

    /// Says the profiles [`History::add`] added, `from` after each name.
    fn say_added(&self, names: &[(String, bool)], from: &str, err: &mut dyn Write) {
        for (n, again) in names {
            let what = if *again {
                "Profile read again (its file changed)"
            } else {
                "New profile"
            };
            self.say(format!("{what}: {n}{from}"), err);
        }
    }

    /// Counts `n` more profiles let go without being read (a watched folder's files older
    /// than every profile kept): the same profiles, a new generation. Called with `update`
    /// held, as [`History::add`] is, so that the two do not race.
    fn let_go_unread(&self, n: usize) {
        let snap = self.current();
        let next = Arc::new(Snapshot {
            session: snap.session.clone(),
            entries: snap.entries.clone(),
            generation: snap.generation + 1,
            let_go: snap.let_go + n,
            max_kept: snap.max_kept,
            given: Arc::clone(&snap.given),
        });
        self.publish(next);
    }

    /// Makes `next` the history's snapshot.
    fn publish(&self, next: Arc<Snapshot>) {
        match self.current.write() {
            Ok(mut c) => *c = next,
            Err(p) => *p.into_inner() = next,
        }
    }

    /// Looks at the watched folders once: files that appeared (and stopped changing) join
    /// the history.
    pub fn poll(&self, err: &mut dyn Write) {
        let Ok(mut seen) = self.update.lock() else {
            return;
        };
        let now = SystemTime::now();
        let snap = self.current();
        let full = snap.entries.iter().filter(|e| !e.pinned).count() >= self.max_kept;
        let oldest = snap
            .entries
            .iter()
            .rev()
            .find(|e| !e.pinned)
            .map(|e| (e.time, e.path.clone()));
        // Files to read, each with whether it replaces the profile read of it before, and
        // its bytes when they were read to tell that.
        let mut ready: Vec<(PathBuf, SystemTime, bool, Option<Vec<u8>>)> = Vec::new();
        let mut passed = 0;
        for s in self.sources.iter().filter(|s| s.watched()) {
            for (path, st) in list(s) {
                let (len, mtime) = (st.len, st.mtime);
                let prev = seen.get(&path).copied();
                let unchanged = prev.is_some_and(|p| p.stat == st);
                let settled = now.duration_since(mtime).is_ok_and(|d| d >= SETTLE);
                let ready_now = match prev.map(|p| p.state) {
                    Some(SeenState::Done | SeenState::Failed) if unchanged => continue,
                    // Unchanged since the last look, and for SETTLE.
                    Some(SeenState::Pending) => unchanged && settled,
                    // New, or changed since it was read (a dump rewritten under its name,
                    // or completed: it replaces the profile read before, under its name):
                    // read once it stopped changing.
                    Some(SeenState::Done | SeenState::Failed) => false,
                    None => settled,
                };
                let state = if ready_now {
                    SeenState::Done
                } else {
                    SeenState::Pending
                };
                let sum = prev.and_then(|p| p.sum);
                seen.insert(
                    path.clone(),
                    Seen {
                        stat: st,
                        state,
                        sum,
                    },
                );
                if !ready_now {
                    continue;
                }
                // A file read before that changed: the same bytes (touched, or copied over
                // with itself) change nothing; the bytes read before and more (a dump read
                // while it was still being written, since completed) replace that reading;
                // other bytes (a dump rewritten under its name) are a new reading.
                // The bytes looked at are the ones read (the file may change again).
                let mut replace = false;
                let mut bytes = None;
                if let Some((old_len, old_sum)) = sum
                    && let Ok(data) = std::fs::read(&path)
                {
                    let prefix = usize::try_from(old_len)
                        .ok()
                        .and_then(|n| data.get(..n))
                        .map(crc32fast::hash);
                    if prefix == Some(old_sum) {
                        if data.len() as u64 == old_len {
                            continue;
                        }
                        replace = true;
                    }
                    bytes = Some(data);
                }
                if !sniff(&path) {
                    // A folder holds other files too; a file the pattern names was meant
                    // to be a profile: say why it does not show up.
                    if matches!(s, Source::Glob { .. }) {
                        if let Some(st) = seen.get_mut(&path) {
                            st.state = SeenState::Failed;
                        }
                        self.say(not_a_profile(&path, len), err);
                    }
                    continue;
                }
                if full
                    && let Some((t, p)) = &oldest
                    && newer_first((mtime, &path), (*t, p)) == std::cmp::Ordering::Greater
                {
                    // Older than every profile kept: it would go at once (and is counted
                    // as let go, as such files are at start-up).
                    passed += 1;
                    continue;
                }
                ready.push((path, mtime, replace, bytes));
            }
        }
        if passed > 0 {
            self.let_go_unread(passed);
        }
        if ready.is_empty() {
            return;
        }
        let mut loaded = Vec::new();
        let reads = crate::on_cores(&ready, |(path, mtime, _, bytes)| match bytes {
            Some(data) => Loaded::of_bytes(path.clone(), data, Some(*mtime), true),
            None => Loaded::read_as(&path.to_string_lossy(), true),
        });
        for ((path, mtime, replace, _), read) in ready.into_iter().zip(reads) {
            match read {
                Ok(l) => {
                    if let Some(s) = seen.get_mut(&path) {
                        s.sum = l.sum;
                    }
                    loaded.push(New {
                        loaded: l,
                        time: mtime,
                        pinned: false,
                        replace,
                    });
                }
                Err(e) => {
                    // Tried again when it changes.
                    if let Some(s) = seen.get_mut(&path) {
                        s.state = SeenState::Failed;
                    }
                    self.say(format!("rpprof: skipping {e}"), err);
                }
            }
        }
        if loaded.is_empty() {
            return;
        }
        let several = loaded.len() > 1;
        let paths: Vec<(PathBuf, bool)> = loaded
            .iter()
            .map(|n| (n.loaded.path.clone(), n.replace))
            .collect();
        match self.add(loaded, 0, err) {
            Ok(names) => {
                for (path, _) in &paths {
                    self.forget_skips(path);
                }
                self.say_added(&names, "", err);
            }
            // One that does not fit must not keep the others out: each is tried alone.
            Err(_) if several => {
                for (path, replace) in paths {
                    let one = Loaded::read_as(&path.to_string_lossy(), true).and_then(|l| {
                        if let Some(s) = seen.get_mut(&path) {
                            s.sum = l.sum;
                        }
                        let time = l.mtime.unwrap_or(now);
                        let new = New {
                            loaded: l,
                            time,
                            pinned: false,
                            replace,
                        };
                        self.add(vec![new], 0, err)
                    });
                    match one {
                        Ok(names) => {
                            self.forget_skips(&path);
                            self.say_added(&names, "", err);
                        }
                        Err(e) => {
                            if let Some(s) = seen.get_mut(&path) {
                                s.state = SeenState::Failed;
                            }
                            self.say(format!("rpprof: {e}"), err);
                        }
                    }
                }
            }
            Err(e) => {
                for (path, _) in paths {
                    if let Some(s) = seen.get_mut(&path) {
                        s.state = SeenState::Failed;
                    }
                }
                self.say(format!("rpprof: {e}"), err);
            }
        }
    }

    /// Fetches one profile from `target` (saving it as pprof does) and reads it; without a
    /// local program, the server names its addresses.
    fn fetch_one(
        &self,
        target: &remote::Target,
        seconds: u64,
        err: &mut dyn Write,
    ) -> Result<Loaded> {
        // The program: the local one, or (without one) the server's own, asked of the
        // server the profile comes from.
        let program = match (&self.program, &self.remote_program) {
            (Some(p), _) => p.to_string_lossy().into_owned(),
            (None, Some((first, name))) if first.base == target.base => name.clone(),
            (None, _) => remote::program_name(target, err)?,
        };
        if self.program.is_none() {
            remote::check_symbols(target)?;
        }
        let path = remote::fetch_profile(target, &program, seconds, err)?;
        let mut l = Loaded::read(&path.to_string_lossy())?;
        if self.program.is_none() {
            // Each server names the addresses of its own profiles.
            let mut warnings = Vec::new();
            let names = remote::symbols(target, &l.profile.addresses(), &mut warnings);
            // With the profile's notes, said on the terminal when the session takes it and
            // on its pages (a failed POST: why its frames are hex), as a dump's are.
            l.profile.notes.extend(warnings);
            l.profile.symbols = Some(profile::EmbeddedSymbols {
                binary: Some(program),
                names,
            });
        }
        Ok(l)
    }

    /// Fetches a new profile from remote source `i` (the "new profile" action and
    /// `--every`); false when that source is not remote or is being fetched already.
    pub fn fetch(&self, i: usize, seconds: u64, err: &mut dyn Write) -> bool {
        let Some(Source::Remote { target, arg }) = self.sources.get(i) else {
            return false;
        };
        {
            let Ok(mut s) = self.status.lock() else {
                return false;
            };
            if s.fetching.contains(&i) {
                return false;
            }
            s.fetching.push(i);
        }
        let r = self.fetch_one(target, seconds, err);
        let r = r.and_then(|l| {
            let _guard = self.update.lock();
            self.add(vec![New::of(l, SystemTime::now(), false)], 0, err)
        });
        match r {
            Ok(names) => self.say_added(&names, &format!(" (from {arg})"), err),
            Err(e) => self.say(format!("rpprof: {e}"), err),
        }
        if let Ok(mut s) = self.status.lock() {
            s.fetching.retain(|&f| f != i);
        }
        true
    }
}

/// The file name of `path`, made unique among `taken`: the folder's name before it, then a
/// number after it (only the number for a file read again: `reread`).
fn unique_name(path: &Path, taken: &HashMap<String, PathBuf>, reread: bool) -> String {
    let base = file_name(path);
    if !taken.contains_key(&base) {
        return base;
    }
    if !reread && let Some(dir) = path.parent().and_then(|d| d.file_name()) {
        let n = format!("{}/{base}", dir.to_string_lossy());
        if !taken.contains_key(&n) {
            return n;
        }
    }
    (2..)
        .map(|i| format!("{base} ({i})"))
        .find(|n| !taken.contains_key(n))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn globs() {
        assert!(glob_match("heap_live.*.heap", "heap_live.0001.heap"));
        assert!(!glob_match("heap_live.*.heap", "heap_live.0001.heapx"));
        assert!(glob_match("*", "anything"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("x.[0-9][0-9]", "x.42"));
        assert!(!glob_match("x.[!0-9]", "x.4"));
        assert!(glob_match("x.[!0-9]", "x.a"));
        assert!(glob_match("*.*.heap", "a.b.c.heap"));
        assert!(glob_match("[ab]*", "b"));
        assert!(!glob_match("[ab]*", "c"));
    }

    #[test]
    fn natural_order() {
        assert_eq!(natural_cmp("x.2.i2.heap", "x.10.i10.heap"), Ordering::Less);
        assert_eq!(natural_cmp("h.0009.heap", "h.0010.heap"), Ordering::Less);
        assert_eq!(natural_cmp("a", "b"), Ordering::Less);
        assert_eq!(natural_cmp("a1", "a1"), Ordering::Equal);
        assert_eq!(natural_cmp("a01", "a1"), Ordering::Less);
    }

    #[test]
    fn unique_names() {
        let names = |n: &[&str]| -> HashMap<String, PathBuf> {
            n.iter().map(|n| (n.to_string(), PathBuf::new())).collect()
        };
        let taken = names(&["h.heap"]);
        assert_eq!(
            unique_name(Path::new("/d/h.heap"), &taken, false),
            "d/h.heap"
        );
        assert_eq!(unique_name(Path::new("/d/g.heap"), &taken, false), "g.heap");
        assert_eq!(
            unique_name(Path::new("/d/h.heap"), &taken, true),
            "h.heap (2)"
        );
        let taken = names(&["h.heap", "d/h.heap"]);
        assert_eq!(
            unique_name(Path::new("/d/h.heap"), &taken, false),
            "h.heap (2)"
        );
    }
}
