//! Stage 1: read a profile file into a [`Profile`] of raw addresses.
//!
//! [`parse`] sniffs the format from the first bytes and hands the data to one reader per format;
//! a reader either takes the file or rejects it with the reason and the line or byte offset.
//! Readers never symbolize: a symbolized (`--raw`) profile's names are returned beside the
//! samples in [`Profile::symbols`], not merged into them.
//!
//! Addresses are kept as pprof keeps them: the leaf (first) address of each stack as recorded,
//! every caller address minus one so that it points into the call instruction rather than at the
//! return address. Values are `f64` because pprof's unsampling math keeps fractions until a
//! number is printed.

mod contention;
mod cpu;
mod distinct;
mod heap;
mod lines;
pub(crate) use lines::shorten;
pub mod maps;
mod symbolized;
mod thread;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::error::{Error, Location, Result};
pub use contention::OLD_FORMAT_NOTE;
pub use maps::Mapping;

/// What a profile measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// In-use and allocated memory (tcmalloc, jemalloc).
    Heap,
    /// Heap growth stacks (tcmalloc `GetHeapGrowthStacks`, brpc `/pprof/growth`).
    Growth,
    /// CPU samples (gperftools `CPUPROFILE`).
    Cpu,
    /// Lock contention (brpc `/pprof/contention`, `contentionz`).
    Contention,
    /// Thread stacks (`threadz`): a count of threads per stack.
    Thread,
}

impl Kind {
    /// The name pprof uses for this type of profile.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Heap => "heap",
            Kind::Growth => "growth",
            Kind::Cpu => "cpu",
            Kind::Contention => "contention",
            Kind::Thread => "thread",
        }
    }
}

/// The file format a profile was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// Text heap profile, `heap profile: ...` (tcmalloc heap profiler, `GetHeapSample`, growth).
    HeapText,
    /// jemalloc's threaded `heap_v2/N` profile (`@` stack lines followed by `t*:`/`tN:` lines).
    Jemalloc,
    /// gperftools' binary CPU profile.
    CpuBinary {
        /// Bytes per word: 4 or 8.
        word: u8,
        /// Big-endian words.
        big_endian: bool,
    },
    /// Text contention profile (`--- contention`, `--- contentionz`, old `--- Stacks:`).
    Contention,
    /// Text thread profile (`--- threadz`).
    Threadz,
}

/// How a heap profile was sampled, which decides how its values were scaled up when read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HeapSampling {
    /// Every allocation was recorded (the heap profiler's `heapprofile`, growth profiles).
    None,
    /// Version 1 sampling: a record stands for `adjustment / (size / count)` allocations when
    /// that ratio is above one.
    V1 {
        /// Mean bytes between samples.
        adjustment: f64,
    },
    /// Version 2 (Poisson) sampling: each record is scaled by `1 / (1 - exp(-(size/count)/rate))`.
    V2 {
        /// Mean bytes between samples.
        rate: f64,
    },
}

/// One value column of a profile, named as Go pprof names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleType {
    /// e.g. `inuse_space`, `samples`, `delay`.
    pub name: &'static str,
    /// e.g. `bytes`, `count`, `nanoseconds`.
    pub unit: &'static str,
}

/// One record: a stack and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Absolute addresses, leaf first; callers already moved back by one byte.
    pub stack: Vec<u64>,
    /// One value per [`Profile::sample_types`] entry.
    pub values: Vec<f64>,
}

/// Names that came with a symbolized profile (`--- symbol` section).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmbeddedSymbols {
    /// The `binary=` line: the program the profile came from.
    pub binary: Option<String>,
    /// Address → the names as written, innermost last, separated by `--`.
    pub names: BTreeMap<u64, String>,
}

/// A profile as read from a file: raw addresses and values, no symbols.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// What it measures.
    pub kind: Kind,
    /// What file format it came from.
    pub format: Format,
    /// The header line (empty for binary CPU profiles).
    pub header: String,
    /// The value columns of every sample.
    pub sample_types: Vec<SampleType>,
    /// CPU: the sampling period in microseconds; contention: the sampling period; heap: the
    /// sampling rate in bytes (0 when not sampled).
    pub period: u64,
    /// For heap profiles, how values were scaled.
    pub sampling: HeapSampling,
    /// The records, in file order.
    pub samples: Vec<Sample>,
    /// jemalloc: per-thread records (thread id → records), besides the `t*` totals in `samples`.
    pub threads: BTreeMap<u64, Vec<Sample>>,
    /// The memory map written with the profile.
    pub mappings: Vec<Mapping>,
    /// Hex digits in an address: 16, or 8 for 32-bit CPU profiles.
    pub address_width: usize,
    /// Symbols that came with the file, for symbolized profiles.
    pub symbols: Option<EmbeddedSymbols>,
    /// Informational messages pprof prints while reading this file, in order
    /// (e.g. "Adjusting heap profiles for 1-in-524288 sampling rate").
    pub notes: Vec<String>,
    /// Where the file is cut short, when it is, with records lost (the process was killed,
    /// or the disk filled, while it was written; or it is being written): a byte offset.
    pub cut_at: Option<u64>,
}

impl Profile {
    pub(crate) fn new(kind: Kind, format: Format, header: String) -> Profile {
        Profile {
            kind,
            format,
            header,
            sample_types: Vec::new(),
            period: 0,
            sampling: HeapSampling::None,
            samples: Vec::new(),
            threads: BTreeMap::new(),
            mappings: Vec::new(),
            address_width: 16,
            symbols: None,
            notes: Vec::new(),
            cut_at: None,
        }
    }

    /// True for jemalloc profiles, which are read and reported as jeprof does.
    pub fn is_jemalloc(&self) -> bool {
        self.format == Format::Jemalloc
    }

    /// Every distinct address in the samples (and per-thread samples), sorted.
    pub fn addresses(&self) -> Vec<u64> {
        addresses_of([self])
    }
}

/// Every distinct address of `profiles` (their samples and per-thread samples), sorted.
/// One set for all of them: a series of a hundred dumps of one program has its 2 million
/// frames' addresses gathered in one bitmap, not a hash set per dump and a sort of them all.
pub fn addresses_of<'a>(profiles: impl IntoIterator<Item = &'a Profile> + Clone) -> Vec<u64> {
    let parts: Vec<&[Sample]> = profiles
        .clone()
        .into_iter()
        .map(|p| p.samples.as_slice())
        .collect();
    distinct::addresses(
        &parts,
        profiles
            .clone()
            .into_iter()
            .flat_map(|p| p.threads.values().flatten()),
        profiles.into_iter().flat_map(|p| &p.mappings),
    )
}

/// Sample types of heap and growth profiles, in pprof's index order.
pub const HEAP_TYPES: [SampleType; 4] = [
    SampleType {
        name: "inuse_objects",
        unit: "count",
    },
    SampleType {
        name: "inuse_space",
        unit: "bytes",
    },
    SampleType {
        name: "alloc_objects",
        unit: "count",
    },
    SampleType {
        name: "alloc_space",
        unit: "bytes",
    },
];

/// Sample type of CPU profiles.
pub const CPU_TYPES: [SampleType; 1] = [SampleType {
    name: "samples",
    unit: "count",
}];

/// Sample types of contention profiles, in pprof's index order (`--total_delay`,
/// `--contentions`, `--mean_delay`).
pub const CONTENTION_TYPES: [SampleType; 3] = [
    SampleType {
        name: "delay",
        unit: "nanoseconds",
    },
    SampleType {
        name: "contentions",
        unit: "count",
    },
    SampleType {
        name: "mean_delay",
        unit: "nanoseconds",
    },
];

/// Sample type of thread profiles.
pub const THREAD_TYPES: [SampleType; 1] = [SampleType {
    name: "thread",
    unit: "count",
}];

/// Reads a profile from the bytes of the file at `path` (used in messages only).
///
/// The format is sniffed from the first bytes: a non-printable first byte means a binary CPU
/// profile; otherwise the first line that is not a `%` command is the header that names the
/// format.
pub fn parse(data: &[u8], path: &Path) -> Result<Profile> {
    if data.starts_with(&GZIP) {
        let (inflated, cut, trailing) = gunzip(data, path)?;
        if inflated.starts_with(&GZIP) {
            return Err(Error::format(
                path,
                Location::None,
                "compressed twice with gzip: decompress it once first",
            ));
        }
        // Places in the file are places in what it decompresses to.
        let mut p = parse_plain(&inflated, path).map_err(|mut e| {
            if let crate::error::ErrorKind::Format(m) = &mut e.kind {
                m.push_str(" (in the gzip-decompressed data)");
            }
            e
        })?;
        if let Some(at) = cut {
            p.notes.push(format!(
                "Warning: {}: the gzip data is cut short at byte {at} (being compressed, or its writer was killed): the records before the cut are read",
                path.display()
            ));
            // (Where the file is cut, not what it decompresses to.)
            p.cut_at = Some(at);
        }
        p.notes.extend(trailing);
        return Ok(p);
    }
    parse_plain(data, path)
}

/// gzip's first two bytes.
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// The most a gzip-compressed profile may decompress to.
const MAX_INFLATED: u64 = 1 << 32;

/// The first 4 kB of the file at `path` (or all of it), for [`looks_like_profile`]: a
/// compressed profile's first block is in them.
pub fn file_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// The first bytes (up to 64) that the start `head` of gzip-compressed data decompresses to:
/// as many as it holds (a few kB of a file hold its first block).
fn gunzip_head(head: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = vec![0u8; 64];
    let mut n = 0;
    let mut gz = flate2::read::GzDecoder::new(head);
    while n < out.len() {
        match gz.read(&mut out[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    out.truncate(n);
    out
}

/// The data of a gzip-compressed profile (a dump compressed by log rotation, say): what its
/// members decompress to, one after the other (as gzip(1) reads concatenated files), and
/// where it is cut short (a dump being compressed), if it is. Bytes after the last member
/// that start no other one (zeros a copy to tape or a preallocating writer leaves) are
/// ignored, as gzip(1) ignores them, with a warning in the third value.
fn gunzip(data: &[u8], path: &Path) -> Result<(Vec<u8>, Option<u64>, Option<String>)> {
    use std::io::Read;
    // Text profiles compress some 10 to 30 times; a thousand times is a bomb's.
    let limit = (data.len() as u64)
        .saturating_mul(1000)
        .clamp(1 << 26, MAX_INFLATED);
    let mut out = Vec::new();
    let mut rest = data;
    let (mut cut, mut trailing) = (None, None);
    while !rest.is_empty() {
        let at = data.len() - rest.len();
        // (After a member, fewer bytes than a member's header and trailer start none.)
        if !rest.starts_with(&GZIP) || (at > 0 && rest.len() < 18) {
            let what = if rest.iter().all(|&b| b == 0) {
                "zeros"
            } else {
                "not gzip data"
            };
            trailing = Some(format!(
                "Warning: {}: the {} bytes after its gzip data (from byte {at}) are {what}: ignored, as gzip ignores them",
                path.display(),
                rest.len()
            ));
            break;
        }
        // A bufread decoder takes exactly its member's bytes from `rest`.
        let mut gz = flate2::bufread::GzDecoder::new(rest);
        let room = (limit + 1).saturating_sub(out.len() as u64);
        match (&mut gz).take(room).read_to_end(&mut out) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !out.is_empty() => {
                cut = Some(data.len() as u64);
                break;
            }
            Err(e) => {
                let member = if at > 0 {
                    format!(", in the gzip member from byte {at}")
                } else {
                    String::new()
                };
                return Err(Error::format(
                    path,
                    Location::None,
                    format!(
                        "gzip-compressed, and damaged: {e} (after {} decompressed bytes{member})",
                        out.len()
                    ),
                ));
            }
        }
        if out.len() as u64 > limit {
            return Err(Error::format(
                path,
                Location::None,
                format!(
                    "gzip-compressed, and decompresses to more than {} MiB ({} times its size): not read",
                    limit >> 20,
                    limit / (data.len().max(1) as u64)
                ),
            ));
        }
        rest = gz.into_inner();
    }
    Ok((out, cut, trailing))
}

/// [`parse`] of data that is not compressed.
/// The refusals of [`parse`] that the first bytes of a file decide (`head`: the whole
/// file, or at least its first [`HEAD_BYTES`]): a file that is no profile is refused before
/// the rest of it is read (a 2 GB core file given for a profile costs no 2 GB). A gzip file
/// is not looked into here.
pub fn check_head(head: &[u8], path: &Path) -> Result<()> {
    if head.is_empty() || head.starts_with(&GZIP) {
        return Ok(());
    }
    foreign(head, path)?;
    if !is_print(head[0]) {
        cpu::check_header(head, path)?;
    }
    Ok(())
}

/// Whether the file at `path`, which could not be read as a profile, is a text dump still
/// being written (or whose writer died at once): empty, or a first line of text with no line
/// end yet. What it is, in words (`empty`), when it is.
pub fn unfinished(path: &Path) -> Option<String> {
    use std::io::Read;
    let f = std::fs::File::open(path).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut head = Vec::new();
    f.take(HEAD_BYTES as u64 + 1).read_to_end(&mut head).ok()?;
    if head.is_empty() {
        return Some("empty".to_string());
    }
    (head.len() <= HEAD_BYTES && head.iter().all(|&b| is_print(b) || b == b'\t'))
        .then(|| format!("cut short at byte {}, in its first line", head.len()))
}

/// How much of a file [`check_head`] is given (at least).
pub const HEAD_BYTES: usize = 4096;

/// Files of other kinds, told by their first bytes.
fn foreign(data: &[u8], path: &Path) -> Result<()> {
    if data.first() == Some(&0x0a) && data.get(2) == Some(&0x08) {
        // A protocol buffer whose first field is a message starting with a number: pprof's
        // first sample type (a CPU profile starts with a zero word, a text one with text).
        return Err(Error::format(
            path,
            Location::Byte(0),
            "a protobuf profile (pprof's profile.proto, as Go programs and rpprof --proto write it): rpprof reads the gperftools and jemalloc formats, not this one; open it with Go pprof",
        ));
    }
    if data.starts_with(b"\x7fELF") {
        // The program given after the profile, or alone.
        return Err(Error::format(
            path,
            Location::Byte(0),
            "an ELF file (a program or a library), not a profile: the program comes first, then the profiles (rpprof [options] <program> <profile>...)",
        ));
    }
    Ok(())
}

fn parse_plain(data: &[u8], path: &Path) -> Result<Profile> {
    foreign(data, path)?;
    if data.is_empty() {
        return Err(Error::format(
            path,
            Location::None,
            "empty file: not a profile (a file still being written, or one whose writer was killed before it wrote anything: the CPU profiler writes its file when it stops, at ProfilerStop or when the program exits)",
        ));
    }
    if !is_print(data[0]) {
        return cpu::parse(data, 0, path, true);
    }
    let mut lines = lines::Lines::new(data);
    let mut notes = Vec::new();
    let mut header = next_header(&mut lines, &mut notes, path, "no profile header line")?;
    let mut symbols = None;
    if starts_marker(header.text, b"symbol") {
        symbols = Some(symbolized::read_symbols(&mut lines, path, &mut notes)?);
        // The profile proper follows the symbol section: a `--- profile` line and binary CPU
        // data, or any text profile.
        if lines.at_end() {
            return Err(Error::format(
                path,
                Location::Line(lines.line_no()),
                "symbolized profile has no profile section after its symbols",
            ));
        }
        let pos = lines.offset();
        if !is_print(data[pos]) {
            return with_symbols(cpu::parse(data, pos, path, false), symbols, notes);
        }
        header = next_header(
            &mut lines,
            &mut notes,
            path,
            "symbolized profile has no profile section after its symbols",
        )?;
    }
    // jeprof writes a `--- heap` / `--- growth` marker before a text profile's own header.
    if starts_marker(header.text, b"heap") || starts_marker(header.text, b"growth") {
        header = next_header(
            &mut lines,
            &mut notes,
            path,
            "no heap profile after its \"---\" marker",
        )?;
    }
    // google-pprof's --raw of a remote profile: `--- profile`, then the server's answer as
    // it came, which is text for every page but the CPU one (google-pprof cannot read it
    // back). Its addresses are as recorded; the symbols name them moved back.
    let mut verbatim = false;
    if symbols.is_some()
        && starts_marker(header.text, b"profile")
        && data.get(lines.offset()).is_some_and(|&b| is_print(b))
    {
        header = next_header(
            &mut lines,
            &mut notes,
            path,
            "no profile after its \"--- profile\" marker",
        )?;
        verbatim = true;
    }
    // A symbolized profile's writer already moved caller addresses back; but jeprof moves
    // them back in every profile it reads, so jemalloc profiles keep them as recorded.
    header.adjust = symbols.is_none() || verbatim || header.text.starts_with(b"heap_v2/");
    let text = header.text;
    let result = if text.starts_with(b"heap profile:") {
        heap::parse_text(&mut lines, &header, path)
    } else if starts_marker(text, b"contention") || starts_marker(text, b"contentionz") {
        contention::parse(&mut lines, &header, path, false)
    } else if starts_marker(text, b"Stacks:") {
        contention::parse(&mut lines, &header, path, true)
    } else if starts_marker(text, b"profile") {
        let pos = lines.offset();
        if pos >= data.len() {
            Err(Error::format(
                path,
                Location::Line(header.line),
                "no CPU profile data after \"--- profile\"",
            ))
        } else {
            cpu::parse(data, pos, path, header.adjust).map(|mut p| {
                if let (false, Some(s)) = (header.adjust, &symbols) {
                    move_back_recorded_callers(&mut p, &s.names);
                }
                p
            })
        }
    } else if starts_marker(text, b"threadz") || text.starts_with(b"--- Thread ") {
        thread::parse(&mut lines, &header, path)
    } else if text.starts_with(b"heap_v2/") {
        heap::parse_jemalloc(&mut lines, &header, path)
    } else {
        Err(Error::format(
            path,
            Location::Line(header.line),
            format!(
                "unrecognized profile format: first line {:?}",
                lines::shorten(text, 60)
            ),
        ))
    };
    with_symbols(result, symbols, notes)
}

/// google-pprof's `--raw` of a remote CPU profile holds the server's profile as it came, its
/// caller addresses as recorded, where its own `--raw` (and rpprof's) holds them moved back
/// one byte; both name the moved-back addresses. The callers are moved back here when the
/// symbols name more of them one byte lower than as they are.
fn move_back_recorded_callers(p: &mut Profile, names: &BTreeMap<u64, String>) {
    let (mut as_is, mut lower) = (0usize, 0usize);
    for smp in &p.samples {
        for &a in smp.stack.iter().skip(1) {
            if names.contains_key(&a) {
                as_is += 1;
            } else if names.contains_key(&a.wrapping_sub(1)) {
                lower += 1;
            }
        }
    }
    if lower > as_is {
        for smp in &mut p.samples {
            for a in smp.stack.iter_mut().skip(1) {
                *a = a.wrapping_sub(1);
            }
        }
    }
}

fn with_symbols(
    result: Result<Profile>,
    symbols: Option<EmbeddedSymbols>,
    mut notes: Vec<String>,
) -> Result<Profile> {
    let mut p = result?;
    if symbols.is_some() {
        p.symbols = symbols;
    }
    notes.append(&mut p.notes);
    p.notes = notes;
    Ok(p)
}

/// A header line: its text (without line end) and 1-based line number.
pub(crate) struct Header<'a> {
    pub text: &'a [u8],
    pub line: usize,
    /// Move caller addresses back one byte (not in symbolized profiles, whose writer did).
    pub adjust: bool,
    /// False when the header is the file's last line and has no line end: the file was cut
    /// in it.
    pub terminated: bool,
    /// The byte after the header's text.
    pub end: usize,
}

/// Reads pprof's header section: `%warn` and other `%` commands, then the header line.
/// [`read_header`], or the error `missing` at the line reached when there is none.
fn next_header<'a>(
    lines: &mut lines::Lines<'a>,
    notes: &mut Vec<String>,
    path: &Path,
    missing: &str,
) -> Result<Header<'a>> {
    read_header(lines, notes)
        .ok_or_else(|| Error::format(path, Location::Line(lines.line_no()), missing))
}

fn read_header<'a>(lines: &mut lines::Lines<'a>, notes: &mut Vec<String>) -> Option<Header<'a>> {
    while let Some(l) = lines.next_line() {
        if let Some(rest) = l.text.strip_prefix(b"%warn")
            && (rest.is_empty() || rest[0].is_ascii_whitespace())
        {
            let msg = String::from_utf8_lossy(rest.trim_ascii());
            notes.push(format!("WARNING: {msg}"));
            continue;
        }
        if l.text.starts_with(b"%") {
            notes.push(format!(
                "Ignoring unknown command from profile header: {}",
                String::from_utf8_lossy(l.text)
            ));
            continue;
        }
        return Some(Header {
            text: l.text,
            line: l.number,
            adjust: true,
            terminated: l.terminated,
            end: l.offset + l.text.len(),
        });
    }
    None
}

/// `--- *<word>` as pprof matches section markers.
fn starts_marker(line: &[u8], word: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"---") else {
        return false;
    };
    let rest = rest.trim_ascii_start();
    rest.starts_with(word)
}

/// True when the first bytes of a file look like a profile rpprof reads (and not like an ELF
/// program).
pub fn looks_like_profile(head: &[u8]) -> bool {
    if head.is_empty() || head.starts_with(b"\x7fELF") {
        return false;
    }
    if head.starts_with(&GZIP) {
        // What the compressed start holds (a rotated log is gzip-compressed too).
        let inner = gunzip_head(head);
        return !inner.starts_with(&GZIP) && looks_like_profile(&inner);
    }
    if is_print(head[0]) {
        // A section marker is `---`, blanks, a word (a text report's rule of dashes, a saved
        // `--peek`, is none).
        if let Some(rest) = head.strip_prefix(b"---") {
            return rest
                .iter()
                .find(|&&b| b != b' ' && b != b'\t')
                .is_some_and(u8::is_ascii_alphabetic);
        }
        let starts = [&b"heap profile:"[..], b"heap_v2/", b"%"];
        return starts.iter().any(|s| head.starts_with(s));
    }
    if head.len() >= 16 && head[..8].iter().all(|&b| b == 0) {
        return head[8..16] == [3, 0, 0, 0, 0, 0, 0, 0] || head[8..16] == [0, 0, 0, 0, 0, 0, 0, 3];
    }
    head.len() >= 8
        && head[..4] == [0, 0, 0, 0]
        && (head[4..8] == [3, 0, 0, 0] || head[4..8] == [0, 0, 0, 3])
}

fn is_print(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// Parses a hex address as pprof writes them: optional `0x`, up to 16 hex digits.
pub(crate) fn parse_hex(s: &[u8]) -> Option<u64> {
    let digits = hex_digits(s);
    if digits.is_empty() {
        return None;
    }
    // Leading zeros do not count towards the 16 digits a u64 holds.
    let zeros = digits.iter().take_while(|&&c| c == b'0').count();
    let significant = &digits[zeros..];
    if significant.len() > 16 {
        return None;
    }
    // Profiles hold millions of addresses: one table lookup per digit, and one test for a
    // bad digit at the end.
    let (mut v, mut bad) = (0u64, 0u8);
    for &c in significant {
        let d = HEX_DIGIT[usize::from(c)];
        bad |= d;
        v = (v << 4) | u64::from(d & 0xf);
    }
    (bad & 0xf0 == 0).then_some(v)
}

/// `s` without its `0x` (or `0X`), if it has one.
fn hex_digits(s: &[u8]) -> &[u8] {
    s.strip_prefix(b"0x")
        .or_else(|| s.strip_prefix(b"0X"))
        .unwrap_or(s)
}

/// Byte → its value as a hex digit; 0xff for a byte that is not one.
pub(super) const HEX_DIGIT: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

impl fmt::Display for Profile {
    /// The canonical dump: header facts, then one line per sample (values, then addresses),
    /// then the mappings. Used by golden tests.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kind: {}", self.kind.name())?;
        writeln!(f, "format: {:?}", self.format)?;
        writeln!(f, "period: {}", self.period)?;
        writeln!(f, "sampling: {:?}", self.sampling)?;
        let names: Vec<String> = self
            .sample_types
            .iter()
            .map(|t| format!("{}/{}", t.name, t.unit))
            .collect();
        writeln!(f, "samples: {}", names.join(" "))?;
        let w = self.address_width;
        let dump = |f: &mut fmt::Formatter<'_>, s: &Sample| -> fmt::Result {
            for v in &s.values {
                write!(f, "{v} ")?;
            }
            f.write_str("@")?;
            for a in &s.stack {
                write!(f, " {a:0w$x}")?;
            }
            f.write_str("\n")
        };
        for s in &self.samples {
            dump(f, s)?;
        }
        for (t, samples) in &self.threads {
            writeln!(f, "thread {t}:")?;
            for s in samples {
                dump(f, s)?;
            }
        }
        writeln!(f, "mappings:")?;
        for m in &self.mappings {
            writeln!(f, "{m}")?;
        }
        if let Some(sym) = &self.symbols {
            writeln!(f, "symbols: binary={:?}", sym.binary)?;
            for (a, n) in &sym.names {
                writeln!(f, "{a:0w$x} {n}")?;
            }
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Format, Kind, Profile, Sample, hex_digits, parse_hex};

    /// A profile's distinct addresses, collected in halves for many samples and at once for
    /// few, are every address of its stacks and threads once, in order.
    #[test]
    fn distinct_addresses_are_every_address_once() {
        for n in [10, 8191, 8192, 20_001] {
            let mut p = Profile::new(Kind::Heap, Format::HeapText, String::new());
            // Part of the addresses in an executable mapping (given bits), part outside.
            p.mappings = super::maps::parse_line(b"400000-401000 r-xp 00000000 08:01 1 /bin/x", 1)
                .into_iter()
                .collect();
            let mut x: u64 = 88_172_645_463_325_252;
            for i in 0..n {
                let depth = 1 + i % 17;
                let stack = (0..depth)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // Few distinct addresses, some only in one half.
                        0x40_0000 + x % if i < n / 2 { 5000 } else { 9000 }
                    })
                    .collect();
                p.samples.push(Sample {
                    stack,
                    values: vec![1.0],
                });
            }
            p.threads.insert(
                7,
                vec![Sample {
                    stack: vec![1, u64::MAX],
                    values: vec![1.0],
                }],
            );
            let want: std::collections::BTreeSet<u64> = p
                .samples
                .iter()
                .chain(p.threads.values().flatten())
                .flat_map(|s| s.stack.iter().copied())
                .collect();
            assert_eq!(p.addresses(), want.into_iter().collect::<Vec<_>>(), "{n}");
        }
    }

    /// The plain reading of a hex address: digit by digit, at most 16 after leading zeros.
    fn reference(s: &[u8]) -> Option<u64> {
        let digits = hex_digits(s);
        if digits.is_empty() {
            return None;
        }
        let (mut v, mut significant) = (0u64, 0usize);
        for &c in digits {
            let d = char::from(c).to_digit(16)?;
            if v != 0 || d != 0 {
                significant += 1;
            }
            if significant > 16 {
                return None;
            }
            v = (v << 4) | u64::from(d);
        }
        Some(v)
    }

    #[test]
    fn hex_addresses_read_as_digit_by_digit() {
        for s in [
            "0x7fb46a83ca10",
            "0X7FB46A83CA10",
            "7fb46a83ca10",
            "0x",
            "",
            "0",
            "0x0000",
            "0xffffffffffffffff",
            "0x0000ffffffffffffffff",
            "0x1ffffffffffffffff",
            "0x12g4",
            "00g",
            "0x0x1",
            "-0x1",
        ] {
            assert_eq!(parse_hex(s.as_bytes()), reference(s.as_bytes()), "{s:?}");
        }
        // Random strings over the bytes that matter.
        let alphabet = b"0123456789abcdefABCDEFxXg -\xff";
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..100_000 {
            let x = next();
            let len = (x % 22) as usize;
            let s: Vec<u8> = (0..len)
                .map(|i| alphabet[((x >> (i * 3 % 60)) % alphabet.len() as u64) as usize])
                .collect();
            assert_eq!(parse_hex(&s), reference(&s), "{s:?}");
        }
    }
}
