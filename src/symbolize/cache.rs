//! What the local symbolizer resolved, kept across runs.
//!
//! One entry per symbolized file and set of addresses: the frames of every address, the
//! warnings the file gave and what the warnings after it need to know. An entry answers only
//! the exact question it was written for: the same file (its size, modification time and GNU
//! build id, or when it has none its inode and device; the same for the mapped file when its
//! symbols come from a debug copy, and for every place a separate debug file could be
//! found), the same options, the same rpprof binary, and the same addresses taken through the
//! same mappings. binutils' answer for an address can depend on the other addresses looked up
//! before it in the same file, so answers are not reused one address at a time: running the
//! same profile again (or another one with the same addresses in a library) is what hits.
//!
//! Entries live in `$XDG_CACHE_HOME/rpprof/` (default `~/.cache/rpprof/`), one file each,
//! written to a temporary name and renamed, the oldest removed past a size cap. An entry
//! whose stored question is not the one asked, or that cannot be decoded, is ignored with a
//! warning and written again.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rustc_hash::FxHashMap;

use super::place::Place;
use super::{Frame, NO_ENTRY};
use crate::split::Work;

/// The first bytes of an entry (the format's version is the last digit).
const MAGIC: &[u8; 8] = b"RPSYMC05";
/// Entries are removed, oldest first, once the folder holds more than this (bytes), unless
/// `RPPROF_CACHE_MAX_MB` says otherwise.
const DEFAULT_MAX_BYTES: u64 = 512 << 20;
/// The file name ending of an entry.
const EXT: &str = "sym";
/// The folder's ledger: its size when last listed (a line `=<bytes>`), then the size of each
/// entry written since (a line each), so that a write need not list the whole folder.
const LEDGER: &str = ".ledger";
/// The most writes the ledger notes before the folder is listed again (it does not see
/// entries removed by hand, or written by another rpprof version).
const LEDGER_MAX_NOTES: usize = 1024;

/// The cache folder: `$XDG_CACHE_HOME/rpprof`, else `$HOME/.cache/rpprof`.
pub fn default_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME").filter(|v| Path::new(v).is_absolute());
    let base = match xdg {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?).join(".cache"),
    };
    Some(base.join("rpprof"))
}

/// True when the environment turns the cache off: `RPPROF_NO_CACHE` set to anything but
/// empty, `0`, `no`, `false` or `off` (in any case).
pub fn disabled_by_env() -> bool {
    std::env::var_os("RPPROF_NO_CACHE").is_some_and(|v| switched_on(&v))
}

/// True for a switch's value that says yes: anything but empty, `0`, `no`, `false` or
/// `off` (in any case, blanks around it ignored).
fn switched_on(v: &std::ffi::OsStr) -> bool {
    let v = v.to_string_lossy();
    let v = v.trim();
    !(v.is_empty()
        || ["0", "no", "false", "off"]
            .iter()
            .any(|n| v.eq_ignore_ascii_case(n)))
}

/// How a file is told apart from its next build, or from itself changed in place: its size
/// and modification time, with its GNU build id when it has one (a copy that keeps the
/// time, `cp -p`, is then the same file), else with its inode, device and status change
/// time (which a write in place that sets the modification time back, `rsync --inplace
/// -t`, still moves).
pub fn identity(path: &Path, build_id: Option<&[u8]>) -> Vec<u8> {
    let mut w = Writer::default();
    let Ok(m) = std::fs::metadata(path) else {
        w.u8(0);
        return w.0;
    };
    w.u8(1);
    w.u64(m.len());
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    w.bytes(&mtime.to_le_bytes());
    match build_id {
        Some(id) if !id.is_empty() => {
            w.u8(1);
            w.bytes(id);
        }
        _ => {
            w.u8(0);
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                w.u64(m.ino());
                w.u64(m.dev());
                w.u64(m.ctime() as u64);
                w.u64(m.ctime_nsec() as u64);
            }
        }
    }
    w.0
}

/// The rpprof binary itself: a rebuild of rpprof may answer differently.
fn own_identity() -> Vec<u8> {
    let mut w = Writer::default();
    w.str(env!("CARGO_PKG_VERSION"));
    if let Ok(exe) = std::env::current_exe() {
        w.bytes(&identity(&exe, None));
    }
    w.0
}

/// The question an entry answers, as bytes, built by the symbolizer.
#[derive(Default)]
pub struct Key {
    w: Writer,
    /// The file, for `--list_cache`.
    file: String,
    addresses: usize,
}

impl Key {
    /// A key for the symbols of `file`, whose identity (see [`identity`]) is `id`.
    pub fn new(file: &Path, id: &[u8]) -> Key {
        let mut w = Writer::default();
        w.bytes(&own_identity());
        // As named (the warnings print it), and where that is.
        w.bytes(file.as_os_str().as_encoded_bytes());
        let abs = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        w.bytes(abs.as_os_str().as_encoded_bytes());
        w.bytes(id);
        Key {
            w,
            file: file.display().to_string(),
            addresses: 0,
        }
    }

    /// Adds a number to the question.
    pub fn u64(&mut self, v: u64) {
        self.w.u64(v);
    }

    /// Adds bytes to the question.
    pub fn bytes(&mut self, b: &[u8]) {
        self.w.bytes(b);
    }

    /// Adds addresses to the question.
    pub fn addresses(&mut self, pcs: &[u64]) {
        self.addresses += pcs.len();
        self.w.u64(pcs.len() as u64);
        for &pc in pcs {
            self.w.u64(pc);
        }
    }

    /// The entry's file name: a hash of the question.
    fn file_name(&self) -> String {
        // FNV-1a, 64 bits, twice with different offsets: a name, not a proof (the whole
        // question is stored and compared).
        let mut a: u64 = 0xcbf2_9ce4_8422_2325;
        let mut b: u64 = 0x6c62_272e_07bb_0142;
        for &x in &self.w.0 {
            a = (a ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{a:016x}{b:016x}.{EXT}")
    }
}

/// The outcome of one file's symbolization for one mapping of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Call {
    /// The warnings it gave, in order.
    pub warnings: Vec<String>,
    /// How many frames each of its addresses has (in the order of the key's), [`NO_ENTRY`]
    /// for one without an entry in the table.
    pub counts: Vec<u32>,
    /// The frames of all its addresses, back to back (one allocation, not one per address).
    pub frames: Vec<Frame>,
}

impl Call {
    /// A call from the frames of each address (`None`: no entry).
    #[cfg(test)]
    pub fn new(warnings: Vec<String>, each: Vec<Option<Vec<Frame>>>) -> Call {
        let mut c = Call {
            warnings,
            ..Call::default()
        };
        for f in each {
            match f {
                Some(f) => {
                    c.counts.push(f.len() as u32);
                    c.frames.extend(f);
                }
                None => c.counts.push(NO_ENTRY),
            }
        }
        c
    }

    /// The frames of each address, in order (`None`: no entry).
    pub fn each(&self) -> impl Iterator<Item = Option<&[Frame]>> {
        let mut at = 0usize;
        self.counts.iter().map(move |&k| {
            (k != NO_ENTRY).then(|| {
                let f = &self.frames[at..at + k as usize];
                at += k as usize;
                f
            })
        })
    }
}

/// Everything one file answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// One per mapping, in order.
    pub calls: Vec<Call>,
    /// The file has no symbol table entries.
    pub nm_empty: bool,
    /// The file has DWARF (its own or a separate debug file's).
    pub has_dwarf: bool,
}

/// One mapping's answers, borrowed: its warnings and the frames of each of its addresses
/// (`None`: no entry in the table).
pub type CallAnswers<'a> = (&'a [String], Vec<Option<&'a [Frame]>>);

/// What one file answered, as [`Cache::put`] stores it: borrowed from the symbol table.
pub struct Answers<'a> {
    /// One per mapping, in order.
    pub calls: Vec<CallAnswers<'a>>,
    /// The file has no symbol table entries.
    pub nm_empty: bool,
    /// The file has DWARF (its own or a separate debug file's).
    pub has_dwarf: bool,
}

impl Entry {
    /// The entry as [`Cache::put`] takes it.
    pub fn answers(&self) -> Answers<'_> {
        Answers {
            calls: self
                .calls
                .iter()
                .map(|c| (c.warnings.as_slice(), c.each().collect()))
                .collect(),
            nm_empty: self.nm_empty,
            has_dwarf: self.has_dwarf,
        }
    }
}

/// The cache folder and its limit.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    max_bytes: u64,
}

/// What a lookup found.
pub enum Found {
    /// An entry for this question.
    Hit(Entry),
    /// None.
    Miss,
    /// One that cannot be used: the warning says why.
    Bad(String),
}

impl Cache {
    /// The cache in `dir`.
    pub fn new(dir: PathBuf) -> Cache {
        let max_bytes = std::env::var("RPPROF_CACHE_MAX_MB")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|mb| mb.is_finite() && *mb >= 0.0)
            .map_or(DEFAULT_MAX_BYTES, |mb| (mb * 1048576.0) as u64);
        Cache { dir, max_bytes }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The size past which the least recently used entries are removed (bytes).
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The entry answering `key`, if any.
    pub fn get(&self, key: &Key) -> Found {
        let path = self.dir.join(key.file_name());
        match std::fs::metadata(&path) {
            Err(_) => return Found::Miss,
            // A pipe would be waited on, a device read without end.
            Ok(m) if !m.is_file() => {
                return Found::Bad(format!(
                    "Warning: {}: not a regular file; ignored (it is written again)",
                    path.display()
                ));
            }
            Ok(_) => {}
        }
        // Mapped, not read: the entry's pages are the page cache's, not copied into fresh
        // memory (tens of MB for a large profile, the largest part of a warm run's memory).
        let Ok(file) = std::fs::File::open(&path) else {
            return Found::Miss;
        };
        // SAFETY: the mapping is read-only, and entries are never written in place (a new
        // one is written to another name and renamed over it, which leaves this one
        // mapped as it was). A file truncated by hand underneath would end the process
        // (SIGBUS), as for the ELF files that are mapped too; it cannot make safe code
        // read out of bounds.
        let data = match unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
            Ok(d) => d,
            Err(_) => return Found::Miss,
        };
        match decode(&data, &key.w.0) {
            Ok(e) => {
                // Used now: the last to be removed.
                if let Ok(f) = std::fs::File::options().append(true).open(&path) {
                    let _ = f.set_modified(SystemTime::now());
                }
                Found::Hit(e)
            }
            Err(why) => Found::Bad(format!(
                "Warning: {}: {why}; ignored (it is written again)",
                path.display()
            )),
        }
    }

    /// Stores `entry` as the answer to `key`. A failure is a warning: the run goes on.
    pub fn put(&self, key: &Key, answers: &Answers<'_>) -> Result<(), String> {
        let parts = encode_parts(key, answers);
        let bytes: u64 = parts.iter().map(|p| p.len() as u64).sum();
        let name = key.file_name();
        let path = self.dir.join(&name);
        // Kept, it would be the last entry removed, after every other (a listing goes down
        // to seven eighths of the limit, see `trim`).
        if bytes > self.max_bytes - self.max_bytes / 8 {
            return Err(format!(
                "Warning: the symbol cache entry {} ({bytes} bytes) is larger than the cache's limit ({} bytes); not kept",
                path.display(),
                self.max_bytes
            ));
        }
        let tmp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&self.dir)?;
            let mut f = std::fs::File::create(&tmp)?;
            for part in &parts {
                f.write_all(part)?;
            }
            f.flush()?;
            drop(f);
            std::fs::rename(&tmp, &path)
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!(
                "Warning: cannot write the symbol cache entry {}: {e}",
                path.display()
            ));
        }
        self.note_written(bytes);
        Ok(())
    }

    /// Notes an entry of `bytes` in the ledger, and lists the folder to remove the least
    /// recently used entries when the ledger says it is past its limit, or cannot say (none
    /// yet, damaged, too many notes). Listing a folder of 7,500 entries took about 10 ms,
    /// once per entry written, before the ledger. Two runs writing at once append whole
    /// lines (`O_APPEND`); a note lost to a run that lists the folder meanwhile is counted
    /// at the next listing.
    fn note_written(&self, bytes: u64) {
        let path = self.dir.join(LEDGER);
        if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
            // Not a file (a pipe would be waited on): the folder is listed instead.
            self.trim();
            return;
        }
        let text = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{bytes}\n").as_bytes()))
            .and_then(|()| std::fs::read_to_string(&path))
            .unwrap_or_default();
        if ledger_total(&text).is_none_or(|total| total > self.max_bytes) {
            self.trim();
        }
    }

    /// The entries: (path, size, last used, file, number of addresses), newest first. `Err`
    /// when the folder cannot be read (a missing folder holds no entry).
    #[allow(clippy::type_complexity)]
    pub fn list(&self) -> std::io::Result<Vec<(PathBuf, u64, SystemTime, String, u64)>> {
        if let Err(e) = std::fs::read_dir(&self.dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            return Err(e);
        }
        Ok(self
            .files()
            .into_iter()
            .map(|(p, len, used)| {
                // Only the first bytes: what the entry is for.
                let mut head = Vec::new();
                // (Not a pipe or a device, which would be waited on or read without end.)
                let (file, n) = std::fs::metadata(&p)
                    .ok()
                    .filter(std::fs::Metadata::is_file)
                    .and_then(|_| std::fs::File::open(&p).ok())
                    .and_then(|f| f.take(1 << 16).read_to_end(&mut head).ok())
                    .and_then(|_| header(&head))
                    .unwrap_or_else(|| (format!("(damaged: {})", p.display()), 0));
                (p, len, used, file, n)
            })
            .collect())
    }

    /// The entries' files: (path, size, last used), newest first.
    fn files(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let mut out = Vec::new();
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return out;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_none_or(|x| x != EXT) {
                continue;
            }
            let Ok(m) = e.metadata() else { continue };
            out.push((p, m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
        }
        out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Removes every entry it can: returns how many and their bytes, and the entries that
    /// could not be removed with why. `Err` when the folder cannot be read (a missing folder
    /// holds no entry). A file gone meanwhile (another run's) is no failure.
    #[allow(clippy::type_complexity)]
    pub fn clear(&self) -> std::io::Result<(usize, u64, Vec<(PathBuf, std::io::Error)>)> {
        let mut n = 0;
        let mut bytes = 0;
        let mut failed = Vec::new();
        let rd = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0, failed)),
            Err(e) => return Err(e),
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            let entry = p.extension().is_some_and(|x| x == EXT);
            if entry || (name.starts_with('.') && name.ends_with(".tmp")) || name == LEDGER {
                let len = e.metadata().map_or(0, |m| m.len());
                // (A folder in an entry's place is no entry of rpprof's: named, not removed.)
                match std::fs::remove_file(&p) {
                    Ok(()) if entry => {
                        bytes += len;
                        n += 1;
                    }
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => failed.push((p, e)),
                }
            }
        }
        Ok((n, bytes, failed))
    }

    /// Lists the folder and, when it is over its limit, removes the least recently used
    /// entries until it holds at most seven eighths of the limit (so that the next writes
    /// do not list it again at once); starts the ledger again from the size left.
    fn trim(&self) {
        let mut entries = self.files();
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total > self.max_bytes {
            let low = self.max_bytes - self.max_bytes / 8;
            while total > low {
                let Some((p, len, ..)) = entries.pop() else {
                    break;
                };
                if std::fs::remove_file(&p).is_ok() {
                    total = total.saturating_sub(len);
                }
            }
        }
        let tmp = self
            .dir
            .join(format!("{LEDGER}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, format!("={total}\n"))
            .and_then(|()| std::fs::rename(&tmp, self.dir.join(LEDGER)))
            .is_err()
        {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The folder's size by its ledger (see [`LEDGER`]): `None` when the ledger has no listed
/// size to start from, a line it cannot read, or too many notes.
fn ledger_total(text: &str) -> Option<u64> {
    let mut lines = text.strip_suffix('\n')?.split('\n');
    let mut total: u64 = lines.next()?.strip_prefix('=')?.parse().ok()?;
    let mut notes = 0;
    for l in lines {
        notes += 1;
        if notes > LEDGER_MAX_NOTES {
            return None;
        }
        total = total.saturating_add(l.parse().ok()?);
    }
    Some(total)
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// Writes `v` over the eight bytes at `at` (a number known once what follows is written).
    fn u64_at(&mut self, at: usize, v: u64) {
        if let Some(b) = self.0.get_mut(at..at + 8) {
            b.copy_from_slice(&v.to_le_bytes());
        }
    }
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| format!("cut short at byte {}", self.data.len()))?;
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    #[inline]
    fn u32(&mut self) -> Result<u32, String> {
        let [v] = self.u32s::<1>()?;
        Ok(v)
    }
    /// `N` numbers in a row (a frame's four at once: read for every frame of an entry).
    #[inline]
    fn u32s<const N: usize>(&mut self) -> Result<[u32; N], String> {
        let b = self.take(4 * N)?;
        let mut out = [0u32; N];
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(out)
    }
    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn len(&mut self) -> Result<usize, String> {
        let at = self.at;
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.data.len() - self.at.min(self.data.len()))
            .ok_or_else(|| format!("bad length {n} at byte {at}"))
    }
    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.len()?;
        self.take(n)
    }
    fn str(&mut self) -> Result<&'a str, String> {
        let at = self.at;
        std::str::from_utf8(self.bytes()?).map_err(|_| format!("bad text at byte {at}"))
    }
}

/// The head of a list of records written with where its second half starts: the number of
/// records, a number about all of them (the frames of a call's addresses; 0 for strings),
/// the records in the first half, the number about those, and the first half's bytes. A
/// large list is decoded in its two halves on two cores.
#[derive(Debug, Clone, Copy)]
struct Halves {
    n: usize,
    extra: usize,
    first: usize,
    first_extra: usize,
    first_bytes: usize,
}

impl Halves {
    fn read(r: &mut Reader<'_>) -> Result<Halves, String> {
        let at = r.at;
        let mut v = [0usize; 5];
        for x in &mut v {
            *x = r.len()?;
        }
        let [n, extra, first, first_extra, first_bytes] = v;
        if first > n || first_extra > extra || first_bytes > r.data.len() - r.at {
            return Err(format!("bad list head at byte {at}"));
        }
        Ok(Halves {
            n,
            extra,
            first,
            first_extra,
            first_bytes,
        })
    }

    /// The list's records, decoded by `part` (a reader, how many records to read, and the
    /// number about them) in two parts, in order: on two cores when there are many.
    fn decode<T: Send>(
        r: &mut Reader<'_>,
        h: Halves,
        part: impl Fn(&mut Reader<'_>, usize, usize) -> Result<T, String> + Sync,
    ) -> Result<[T; 2], String> {
        let mid = r.at + h.first_bytes;
        let whole = r.data;
        let start = r.at;
        let first = || -> Result<T, String> {
            let mut a = Reader {
                data: whole.get(..mid).unwrap_or_default(),
                at: start,
            };
            let t = part(&mut a, h.first, h.first_extra)?;
            if a.at != mid {
                return Err(format!("a list's first half does not end at byte {mid}"));
            }
            Ok(t)
        };
        let second = || -> Result<(T, usize), String> {
            let mut b = Reader {
                data: whole,
                at: mid,
            };
            let t = part(&mut b, h.n - h.first, h.extra - h.first_extra)?;
            Ok((t, b.at))
        };
        let (a, b) = if Work::CacheList.halves(h.n) {
            std::thread::scope(|scope| {
                let b = scope.spawn(second);
                let a = first();
                (a, b.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            })
        } else {
            (first(), second())
        };
        // The first half's error first, as a reading in a row would find it.
        let a = a?;
        let (b, end) = b?;
        r.at = end;
        Ok([a, b])
    }
}

/// An entry's bytes (as [`Cache::put`] writes them, [`decode`] reads them).
#[cfg(test)]
fn encode(key: &Key, answers: &Answers<'_>) -> Vec<u8> {
    encode_parts(key, answers).concat()
}

/// An entry's bytes: magic, what it is for (for listing), the question, the strings, the
/// answers, a CRC; in three parts written one after the other (everything up to the
/// strings, the answers, the CRC), so that the answers, tens of MB for a large profile,
/// are not copied into one buffer with the rest.
fn encode_parts(key: &Key, answers: &Answers<'_>) -> [Vec<u8>; 3] {
    // Names and places' files are shared (`Arc`): numbered once per shared string.
    let mut strings: Vec<&str> = Vec::new();
    let mut index: FxHashMap<usize, u32> = FxHashMap::default();
    fn number<'a>(
        s: &'a Arc<str>,
        strings: &mut Vec<&'a str>,
        index: &mut FxHashMap<usize, u32>,
    ) -> u32 {
        let next = strings.len() as u32;
        let i = *index
            .entry(Arc::as_ptr(s) as *const u8 as usize)
            .or_insert(next);
        if i == next {
            strings.push(s);
        }
        i
    }
    // The answers' size, to allocate once: per frame four numbers.
    let size: usize = answers
        .calls
        .iter()
        .flat_map(|(_, frames)| frames.iter().flatten())
        .map(|frames| 4 + 16 * frames.len())
        .sum();
    let mut calls = Writer(Vec::with_capacity(size + 64));
    calls.u64(answers.calls.len() as u64);
    for (warnings, frames) in &answers.calls {
        calls.u64(warnings.len() as u64);
        for w in warnings.iter() {
            calls.str(w);
        }
        // The addresses, their frames, and where the second half of them starts (see
        // [`Halves`]), filled in once written. Each half: per address its number of frames
        // and per frame the numbers of its names and of its place's file, and its line
        // (see [`Place::raw`]).
        calls.u64(frames.len() as u64);
        let head = calls.0.len();
        for _ in 0..4 {
            calls.u64(0);
        }
        let half = frames.len() / 2;
        let (mut total, mut first) = (0u64, (0u64, 0u64));
        let mut records = Writer::default();
        for (part, range) in [(0, 0..half), (1, half..frames.len())] {
            records.0.clear();
            for f in &frames[range] {
                match f {
                    None => records.u32(NO_ENTRY),
                    Some(frames) => {
                        records.u32(frames.len() as u32);
                        total += frames.len() as u64;
                        for fr in frames.iter() {
                            let f = number(&fr.function, &mut strings, &mut index);
                            records.u32(f);
                            let s = number(&fr.short, &mut strings, &mut index);
                            records.u32(s);
                            let (file, line) = fr.fileline.raw();
                            let file = number(file, &mut strings, &mut index);
                            records.u32(file);
                            records.u32(line);
                        }
                    }
                }
            }
            calls.0.extend_from_slice(&records.0);
            if part == 0 {
                first = (total, (calls.0.len() - head - 32) as u64);
            }
        }
        for (k, v) in [total, half as u64, first.0, first.1]
            .into_iter()
            .enumerate()
        {
            calls.u64_at(head + 8 * k, v);
        }
    }
    let names: usize = strings.iter().map(|s| 4 + s.len()).sum();
    let mut w = Writer(Vec::with_capacity(
        key.w.0.len() + key.file.len() + names + 64,
    ));
    w.0.extend_from_slice(MAGIC);
    w.str(&key.file);
    w.u64(key.addresses as u64);
    w.bytes(&key.w.0);
    w.u8(u8::from(answers.nm_empty));
    w.u8(u8::from(answers.has_dwarf));
    // The names in two halves, each its text back to back (read as text once), then the
    // length of each name.
    let half = strings.len() / 2;
    for v in [strings.len(), 0, half, 0] {
        w.u64(v as u64);
    }
    let text_of = |names: &[&str]| names.iter().map(|s| s.len() as u64).sum::<u64>();
    w.u64(8 + text_of(&strings[..half]) + 4 * half as u64);
    for names in [&strings[..half], &strings[half..]] {
        w.u64(text_of(names));
        for s in names {
            w.0.extend_from_slice(s.as_bytes());
        }
        for s in names {
            w.u32(s.len() as u32);
        }
    }
    // A CRC-32 of everything before it: a byte changed on disk (inside a name, where the
    // format alone would not notice) makes the entry refused rather than read.
    let mut crc = crc32fast::Hasher::new();
    crc.update(&w.0);
    crc.update(&calls.0);
    [w.0, calls.0, crc.finalize().to_le_bytes().to_vec()]
}

/// The file and number of addresses an entry is for.
fn header(data: &[u8]) -> Option<(String, u64)> {
    let mut r = Reader { data, at: 0 };
    (r.take(8).ok()? == MAGIC).then_some(())?;
    let file = r.str().ok()?.to_string();
    Some((file, r.u64().ok()?))
}

/// The entry in `data`, if it answers `question`.
fn decode(data: &[u8], question: &[u8]) -> Result<Entry, String> {
    if !data.starts_with(MAGIC) {
        return Err("not a symbol cache entry of this rpprof version".to_string());
    }
    let Some((data, crc)) = data.split_last_chunk::<4>() else {
        return Err("cut short".to_string());
    };
    if crc32fast::hash(data) != u32::from_le_bytes(*crc) {
        return Err("damaged (its checksum does not match)".to_string());
    }
    let mut r = Reader { data, at: 0 };
    r.take(8)?;
    r.str()?;
    r.u64()?;
    if r.bytes()? != question {
        return Err("a symbol cache entry for another question (hash collision?)".to_string());
    }
    let nm_empty = r.u8()? != 0;
    let has_dwarf = r.u8()? != 0;
    let list = Halves::read(&mut r)?;
    let parts = Halves::decode(&mut r, list, |r, n, _| {
        let at = r.at;
        let text = std::str::from_utf8(r.bytes()?).map_err(|_| format!("bad text at byte {at}"))?;
        let mut strings = Vec::with_capacity(n.min(text.len() + 1));
        let mut from = 0usize;
        for _ in 0..n {
            let at = r.at;
            let to = from.saturating_add(r.u32()? as usize);
            let name = text
                .get(from..to)
                .ok_or_else(|| format!("bad name length at byte {at}"))?;
            strings.push(Arc::from(name));
            from = to;
        }
        if from != text.len() {
            return Err(format!("names left over before byte {}", r.at));
        }
        Ok(strings)
    })?;
    let mut strings: Vec<Arc<str>> = Vec::with_capacity(list.n);
    for p in parts {
        strings.extend(p);
    }
    let string = |i: u32, at: usize| -> Result<&Arc<str>, String> {
        strings
            .get(i as usize)
            .ok_or_else(|| format!("bad string number {i} at byte {at}"))
    };
    let ncalls = r.len()?;
    let mut calls = Vec::with_capacity(ncalls.min(1024));
    for _ in 0..ncalls {
        let nw = r.len()?;
        let mut warnings = Vec::with_capacity(nw.min(1024));
        for _ in 0..nw {
            warnings.push(r.str()?.to_string());
        }
        let at = r.at;
        let list = Halves::read(&mut r)?;
        // Each frame takes 16 bytes, each address 4 or more.
        let total = list.extra;
        if total > r.data.len() / 16 {
            return Err(format!("bad number of frames {total} at byte {at}"));
        }
        if list.n > r.data.len() / 4 {
            return Err(format!("bad number of addresses {} at byte {at}", list.n));
        }
        let parts = Halves::decode(&mut r, list, |r, n, frames| {
            let mut counts = Vec::with_capacity(n);
            let mut frames = Vec::with_capacity(frames);
            for _ in 0..n {
                let k = r.u32()?;
                counts.push(k);
                if k == NO_ENTRY {
                    continue;
                }
                for _ in 0..k {
                    let at = r.at;
                    let [function, short, file, line] = r.u32s::<4>()?;
                    let function = string(function, at)?.clone();
                    let short = string(short, at)?.clone();
                    let file = string(file, at)?.clone();
                    let fileline = Place::from_raw(file, line);
                    frames.push(Frame {
                        function,
                        fileline,
                        short,
                    });
                }
            }
            Ok((counts, frames))
        })?;
        let mut call = Call {
            warnings,
            counts: Vec::with_capacity(list.n),
            frames: Vec::with_capacity(total),
        };
        for (counts, frames) in parts {
            call.counts.extend(counts);
            call.frames.extend(frames);
        }
        if call.frames.len() != total {
            return Err(format!("bad number of frames {total} at byte {at}"));
        }
        calls.push(call);
    }
    if r.at != data.len() {
        return Err(format!("{} bytes left over at the end", data.len() - r.at));
    }
    Ok(Entry {
        calls,
        nm_empty,
        has_dwarf,
    })
}

// unwrap here only in tests, on fixtures the tests make themselves (no input reaches
// them): a failure is the test failing.
#[cfg(test)]
mod tests {
    use super::*;

    /// A cache in a fresh scratch folder `rpprof-cache-<name>-<pid>` (not made yet) with
    /// the limit `max_bytes`.
    fn scratch(name: &str, max_bytes: u64) -> Cache {
        let dir = std::env::temp_dir().join(format!("rpprof-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Cache { dir, max_bytes }
    }

    fn sample() -> (Key, Entry) {
        let mut key = Key::new(Path::new("/bin/prog"), b"id");
        key.u64(7);
        key.addresses(&[0x10, 0x20, 0x30]);
        let f = |n: &str, fl: &str| Frame::new(n, fl.to_string(), false);
        let entry = Entry {
            calls: vec![
                Call::new(
                    vec!["Warning: one".into()],
                    vec![
                        Some(vec![f("main", "a.c:1"), f("inl<int>", "dé.h:2")]),
                        None,
                    ],
                ),
                Call::new(vec![], vec![Some(vec![f("main", "a.c:3")])]),
            ],
            nm_empty: false,
            has_dwarf: true,
        };
        (key, entry)
    }

    #[test]
    fn entries_read_back_as_written() {
        let (key, entry) = sample();
        let bytes = encode(&key, &entry.answers());
        assert_eq!(decode(&bytes, &key.w.0), Ok(entry));
        assert_eq!(header(&bytes), Some(("/bin/prog".to_string(), 3)));
    }

    /// Read in halves on two cores or in a row, an entry reads back as written.
    #[test]
    fn entries_read_back_in_halves() {
        let f = |n: &str, fl: &str| Frame::new(n, fl.to_string(), false);
        let each: Vec<Option<Vec<Frame>>> = (0..9)
            .map(|i| match i % 3 {
                0 => None,
                1 => Some(vec![f(&format!("f{i}"), "a.c:1")]),
                _ => Some(vec![f("main", &format!("a.c:{i}")), f("g", "b.c:2")]),
            })
            .collect();
        let entry = Entry {
            calls: vec![
                Call::new(vec![], each.clone()),
                Call::new(vec!["w".into()], vec![]),
                Call::new(vec![], each[..1].to_vec()),
            ],
            nm_empty: true,
            has_dwarf: false,
        };
        let (key, _) = sample();
        let bytes = encode(&key, &entry.answers());
        for from in [1, 2, 5, usize::MAX] {
            crate::split::set(Work::CacheList, Some(from));
            assert_eq!(decode(&bytes, &key.w.0), Ok(entry.clone()), "from {from}");
        }
        crate::split::set(Work::CacheList, None);
    }

    /// Every cut and every changed byte (one bit or eight, in a name too) is refused, never
    /// a panic; another question is refused. With its checksum made again, a changed entry
    /// is refused or read as some entry, read in halves or in a row alike, never a panic.
    #[test]
    fn damaged_entries_are_refused() {
        let (key, entry) = sample();
        let bytes = encode(&key, &entry.answers());
        assert_eq!(decode(&bytes, &key.w.0), Ok(entry));
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], &key.w.0).is_err(), "cut at {cut}");
        }
        let resum = |b: &mut Vec<u8>| {
            let n = b.len() - 4;
            let crc = crc32fast::hash(&b[..n]);
            b[n..].copy_from_slice(&crc.to_le_bytes());
        };
        for i in 0..bytes.len() {
            for flip in [0x01, 0x20, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                assert!(decode(&b, &key.w.0).is_err(), "byte {i} ^ {flip:#x}");
                resum(&mut b);
                let in_a_row = decode(&b, &key.w.0);
                crate::split::set(Work::CacheList, Some(1));
                let in_halves = decode(&b, &key.w.0);
                crate::split::set(Work::CacheList, None);
                assert_eq!(in_a_row, in_halves, "byte {i} ^ {flip:#x}");
            }
        }
        let mut other = Key::new(Path::new("/bin/prog"), b"id");
        other.u64(8);
        other.addresses(&[0x10, 0x20, 0x30]);
        assert_ne!(other.file_name(), key.file_name());
        assert!(decode(&bytes, &other.w.0).is_err());
    }

    /// An entry (or the ledger) that is a pipe, or a link to a device, is not read: a pipe
    /// would be waited on for ever, `/dev/zero` read until memory runs out.
    #[test]
    fn pipes_and_devices_in_the_folder_are_not_read() {
        let cache = scratch("special", 1 << 30);
        let d = cache.dir.clone();
        std::fs::create_dir_all(&d).unwrap();
        let (key, entry) = sample();
        let entry_path = d.join(key.file_name());
        let fifo = |p: &Path| {
            let ok = std::process::Command::new("mkfifo")
                .arg(p)
                .status()
                .unwrap();
            assert!(ok.success());
        };
        fifo(&entry_path);
        fifo(&d.join(LEDGER));
        match cache.get(&key) {
            Found::Bad(why) => assert!(why.contains("not a regular file"), "{why}"),
            Found::Hit(_) => panic!("a pipe read as an entry"),
            Found::Miss => panic!("a pipe taken for no entry"),
        }
        assert!(cache.list().unwrap()[0].3.starts_with("(damaged: /"));
        // Written again (the pipe replaced), and the ledger is let be.
        cache.put(&key, &entry.answers()).unwrap();
        assert!(matches!(cache.get(&key), Found::Hit(_)));
        std::fs::remove_file(&entry_path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &entry_path).unwrap();
        assert!(matches!(cache.get(&key), Found::Bad(_)));
        assert!(cache.list().unwrap()[0].3.starts_with("(damaged: /"));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A touch or a change of size makes another file; a copy that keeps the time is the
    /// same build when the file has a build id, another file when it has none.
    #[test]
    fn identities() {
        let d = std::env::temp_dir().join(format!("rpprof-cache-id-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("f");
        std::fs::write(&p, b"0123").unwrap();
        let at = |p: &Path, secs: u64| {
            let f = std::fs::File::options().append(true).open(p).unwrap();
            f.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs))
                .unwrap();
        };
        at(&p, 1000);
        let (plain, built) = (identity(&p, None), identity(&p, Some(b"abcd")));
        assert_ne!(plain, built);
        assert_ne!(identity(&p, Some(b"abce")), built);
        let copy = d.join("copy");
        std::fs::copy(&p, &copy).unwrap();
        at(&copy, 1000);
        assert_eq!(identity(&copy, Some(b"abcd")), built);
        assert_ne!(identity(&copy, None), plain);
        at(&p, 1001);
        assert_ne!(identity(&p, None), plain);
        assert_ne!(identity(&p, Some(b"abcd")), built);
        std::fs::write(&p, b"01234").unwrap();
        at(&p, 1000);
        assert_ne!(identity(&p, Some(b"abcd")), built);
        assert_ne!(identity(&d.join("absent"), None), plain);
        // Written in place with its size and time kept (`rsync --inplace -t`): another
        // file when it has no build id (its status change time moved).
        std::fs::write(&p, b"0123").unwrap();
        at(&p, 1000);
        let before = identity(&p, None);
        std::thread::sleep(std::time::Duration::from_millis(20));
        // (Test code: the test's own file; no input reaches these unwraps.)
        let ctime = |p: &Path| {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(p).unwrap();
            (m.ctime(), m.ctime_nsec())
        };
        let then = ctime(&p);
        std::fs::write(&p, b"4567").unwrap();
        at(&p, 1000);
        // (Not on a file system whose change times are coarser than the sleep.)
        if ctime(&p) != then {
            assert_ne!(identity(&p, None), before);
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Past the cap, the least recently used entries go first.
    #[test]
    fn the_cap_removes_the_oldest() {
        let (key, entry) = sample();
        let one = encode(&key, &entry.answers()).len() as u64;
        let cache = scratch("cap", 2 * one + one / 2);
        let d = cache.dir.clone();
        let mut keys = Vec::new();
        for i in 0..3 {
            let mut k = Key::new(Path::new("/bin/prog"), b"id");
            k.u64(i);
            k.addresses(&[0x10, 0x20, 0x30]);
            cache.put(&k, &entry.answers()).unwrap();
            let f = std::fs::File::options()
                .append(true)
                .open(d.join(k.file_name()))
                .unwrap();
            f.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000 + i))
                .unwrap();
            keys.push(k);
        }
        // The third put found three entries, one too many: the oldest went.
        let left: Vec<bool> = keys
            .iter()
            .map(|k| matches!(cache.get(k), Found::Hit(_)))
            .collect();
        assert_eq!(left, [false, true, true]);
        // An entry larger than the cap is not kept (it would be the last removed, after
        // every other), and the others stay.
        let small = Cache {
            max_bytes: one - 1,
            ..cache.clone()
        };
        let mut k = Key::new(Path::new("/bin/prog"), b"id");
        k.u64(9);
        k.addresses(&[0x10, 0x20, 0x30]);
        let why = small.put(&k, &entry.answers()).unwrap_err();
        assert!(why.contains("larger than the cache's limit"), "{why}");
        assert!(matches!(small.get(&k), Found::Miss));
        assert!(matches!(small.get(&keys[2]), Found::Hit(_)));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `--cache_clear` removes every entry it can, names one it cannot (a folder in an
    /// entry's place), and takes a file gone meanwhile for removed; a folder that cannot
    /// be listed is an error for `--cache_list` too, a missing one no entry.
    #[test]
    fn clearing_goes_past_what_it_cannot_remove() {
        let cache = scratch("clear", 1 << 30);
        let d = cache.dir.clone();
        // (Test code: its own scratch folder; no input reaches the unwraps below.)
        assert_eq!(cache.list().unwrap().len(), 0);
        assert_eq!(cache.clear().unwrap().0, 0);
        let (key, entry) = sample();
        cache.put(&key, &entry.answers()).unwrap();
        let mut k = Key::new(Path::new("/bin/prog"), b"id");
        k.u64(7);
        std::fs::create_dir_all(d.join(k.file_name())).unwrap();
        let (n, bytes, failed) = cache.clear().unwrap();
        assert_eq!((n, failed.len()), (1, 1));
        assert!(bytes > 0);
        assert_eq!(failed[0].0, d.join(k.file_name()));
        assert!(matches!(cache.get(&key), Found::Miss));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::write(&d, b"a file where the folder should be").unwrap();
        assert!(cache.list().is_err());
        assert!(cache.clear().is_err());
        let _ = std::fs::remove_file(&d);
    }

    /// `RPPROF_NO_CACHE`'s values that say no leave the cache on.
    #[test]
    fn switch_values() {
        for v in ["", "0", "no", "NO", "false", "False", "off", " 0 "] {
            assert!(!switched_on(std::ffi::OsStr::new(v)), "{v:?}");
        }
        for v in ["1", "yes", "true", "on", "anything"] {
            assert!(switched_on(std::ffi::OsStr::new(v)), "{v:?}");
        }
    }

    /// A write lists the folder only when the ledger says it is past its limit or cannot
    /// say: an entry put in the folder behind the ledger's back stays until the next
    /// listing, which removes the oldest entries down to seven eighths of the limit.
    #[test]
    fn the_ledger_decides_when_the_folder_is_listed() {
        let (key, entry) = sample();
        let one = encode(&key, &entry.answers()).len() as u64;
        let cache = scratch("ledger", 3 * one + one / 16);
        let d = cache.dir.clone();
        let key_of = |i: u64| {
            let mut k = Key::new(Path::new("/bin/prog"), b"id");
            k.u64(i);
            k.addresses(&[0x10, 0x20, 0x30]);
            k
        };
        // (Test code: no input reaches the unwraps below; a failure is the test's.)
        let used_at = |p: &Path, secs: u64| {
            std::fs::File::options()
                .append(true)
                .open(p)
                .unwrap()
                .set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs))
                .unwrap();
        };
        let ledger = || std::fs::read_to_string(d.join(LEDGER)).unwrap();
        cache.put(&key_of(0), &entry.answers()).unwrap();
        // No ledger before: the folder was listed.
        assert_eq!(ledger(), format!("={one}\n"));
        let foreign = d.join(format!("{:032x}.{EXT}", 7));
        std::fs::write(&foreign, vec![0u8; 3 * one as usize]).unwrap();
        used_at(&foreign, 1000);
        cache.put(&key_of(1), &entry.answers()).unwrap();
        assert_eq!(ledger(), format!("={one}\n{one}\n"));
        assert!(
            foreign.exists(),
            "listed though the ledger was under the limit"
        );
        used_at(&d.join(key_of(0).file_name()), 2000);
        used_at(&d.join(key_of(1).file_name()), 3000);
        std::fs::write(d.join(LEDGER), "damaged\n").unwrap();
        cache.put(&key_of(2), &entry.answers()).unwrap();
        // Six entries' bytes: the foreign one and then the oldest of the three went, since
        // three is within the limit but above seven eighths of it.
        assert!(
            !foreign.exists(),
            "not listed though the ledger was damaged"
        );
        assert_eq!(ledger(), format!("={}\n", 2 * one));
        let left: Vec<bool> = (0..3)
            .map(|i| matches!(cache.get(&key_of(i)), Found::Hit(_)))
            .collect();
        assert_eq!(left, [false, true, true]);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// The ledger's total: a listed size, then a note per write, every line whole.
    #[test]
    fn ledger_totals() {
        assert_eq!(ledger_total("=10\n5\n7\n"), Some(22));
        assert_eq!(ledger_total("=10\n"), Some(10));
        for bad in [
            "", "5\n", "=10\n5", "=10\nx\n", "=x\n", "\n=10\n", "=10\n\n",
        ] {
            assert_eq!(ledger_total(bad), None, "{bad:?}");
        }
        let many = |n: usize| format!("=1\n{}", "1\n".repeat(n));
        assert_eq!(
            ledger_total(&many(LEDGER_MAX_NOTES)),
            Some(1 + LEDGER_MAX_NOTES as u64)
        );
        assert_eq!(ledger_total(&many(LEDGER_MAX_NOTES + 1)), None);
    }
}
