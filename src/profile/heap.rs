//! Text heap profiles: tcmalloc's heap profiler (`@ heapprofile`), `GetHeapSample`
//! (`@ heap_v2/N`, `heapz_v2`, `heap/N`, `heapz`), growth profiles (`@ growth`, `@ growthz`)
//! and jemalloc's threaded `heap_v2/N` profiles.
//!
//! The sampling math is google-pprof's:
//!
//! * version 2 (Poisson) sampling, `heap_v2/R`: each record's in-use pair and allocated pair
//!   is multiplied by `1 / (1 - exp(-(bytes/count)/R))`, the inverse of the probability that
//!   an allocation of the record's mean size was sampled;
//! * version 1 sampling, `heap/N`: the mean sampling interval is `R = N/2`; a record whose
//!   mean size is below `R` stands for `R / (bytes/count)` times as many allocations;
//! * no `@ type` and equal in-use and allocated totals: version 1 with R = 128 KiB.
//!
//! Values stay `f64`; they are truncated only when printed. Where pprof divides by zero (a
//! `0: 0` pair under version 1 sampling dies with "Illegal division by zero"), rpprof leaves
//! the pair unscaled: there is nothing to scale.

use std::path::Path;
use std::sync::OnceLock;

use regex::bytes::Regex;

use super::lines::{self, Line, Lines};
use super::{Format, HEAP_TYPES, Header, HeapSampling, Kind, Profile, Sample, maps};
use crate::error::{Error, Location, Result};
use crate::split::Work;

fn header_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // SANITY: a constant pattern, checked by the tests.
        #[allow(clippy::unwrap_used)]
        Regex::new(
            r"^heap profile:\s*(\d+):\s+(\d+)\s+\[\s*(\d+):\s+(\d+)\](\s*@\s*([^/]*)(/(\d+))?)?",
        )
        .unwrap()
    })
}

fn sample_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // SANITY: a constant pattern, checked by the tests.
        #[allow(clippy::unwrap_used)]
        Regex::new(r"^(-?\d+(?:\.\d+)?):\s*(-?\d+(?:\.\d+)?)\s+\[\s*(-?\d+(?:\.\d+)?):\s*(-?\d+(?:\.\d+)?)\s*\]\s*@(?:\s+(.*))?$").unwrap()
    })
}

fn thread_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // SANITY: a constant pattern, checked by the tests.
        #[allow(clippy::unwrap_used)]
        Regex::new(r"^t(\*|\d+):\s+(-?\d+(?:\.\d+)?):\s+(-?\d+(?:\.\d+)?)\s+\[\s*(-?\d+(?:\.\d+)?):\s+(-?\d+(?:\.\d+)?)\]$").unwrap()
    })
}

/// The groups [`header_re`] captures in `header` (index as in the regex, 0 unused), read
/// without the regex when `header` is ASCII (compiling it took about half a millisecond of
/// every heap profile's reading).
fn header_fields(header: &[u8]) -> Option<[Option<&[u8]>; 9]> {
    if !header.is_ascii() {
        let c = header_re().captures(header)?;
        return Some(std::array::from_fn(|i| c.get(i).map(|m| m.as_bytes())));
    }
    let space = |b: &u8| b" \t\n\x0b\x0c\r".contains(b);
    let mut i = 0;
    // `\s*` (`at_least` 0) or `\s+` (1).
    let spaces = |i: &mut usize, at_least: usize| {
        let n = header[*i..].iter().take_while(|b| space(b)).count();
        *i += n;
        n >= at_least
    };
    let digits = |i: &mut usize| -> Option<&[u8]> {
        let n = header[*i..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let d = &header[*i..*i + n];
        *i += n;
        (n > 0).then_some(d)
    };
    let literal = |i: &mut usize, l: &[u8]| {
        let ok = header[*i..].starts_with(l);
        if ok {
            *i += l.len();
        }
        ok
    };
    let mut c: [Option<&[u8]>; 9] = [None; 9];
    if !literal(&mut i, b"heap profile:") || !spaces(&mut i, 0) {
        return None;
    }
    c[1] = Some(digits(&mut i)?);
    if !literal(&mut i, b":") || !spaces(&mut i, 1) {
        return None;
    }
    c[2] = Some(digits(&mut i)?);
    if !spaces(&mut i, 1) || !literal(&mut i, b"[") || !spaces(&mut i, 0) {
        return None;
    }
    c[3] = Some(digits(&mut i)?);
    if !literal(&mut i, b":") || !spaces(&mut i, 1) {
        return None;
    }
    c[4] = Some(digits(&mut i)?);
    if !literal(&mut i, b"]") {
        return None;
    }
    // `(\s*@\s*([^/]*)(/(\d+))?)?`
    let at = i;
    spaces(&mut i, 0);
    if literal(&mut i, b"@") {
        spaces(&mut i, 0);
        let n = header[i..].iter().take_while(|&&b| b != b'/').count();
        c[6] = Some(&header[i..i + n]);
        i += n;
        let slash = i;
        if literal(&mut i, b"/")
            && let Some(d) = digits(&mut i)
        {
            c[7] = Some(&header[slash..i]);
            c[8] = Some(d);
        } else {
            i = slash;
        }
        c[5] = Some(&header[at..i]);
    } else {
        i = at;
    }
    c[0] = Some(&header[..i]);
    Some(c)
}

/// Parses the header's sampling description as google-pprof does.
fn sampling_of(header: &[u8], notes: &mut Vec<String>) -> (HeapSampling, u64) {
    let mut algorithm = 0;
    let mut adjustment = 0.0f64;
    let mut period = 0u64;
    if let Some(c) = header_fields(header) {
        let num = |i: usize| -> f64 { c[i].and_then(lines::parse_u64).map_or(0.0, |v| v as f64) };
        match c[6].filter(|t| !t.is_empty()) {
            Some(ty) => {
                let rate = c[8].and_then(lines::parse_u64);
                let is_heap = ty.windows(4).any(|w| w == b"heap");
                if ty == b"heapprofile" || !is_heap {
                    algorithm = 0;
                } else if ty.windows(3).any(|w| w == b"_v2") {
                    algorithm = 2;
                    if let Some(r) = rate {
                        adjustment = r as f64;
                        period = r;
                    }
                } else {
                    algorithm = 1;
                    if let Some(r) = rate {
                        adjustment = r as f64 / 2.0;
                        period = r;
                    }
                }
            }
            None => {
                // No type: a remote heap profile of version 1 when the in-use and allocated
                // totals are equal.
                if num(1) == num(3) && num(2) == num(4) {
                    algorithm = 1;
                }
            }
        }
    }
    if algorithm == 0 {
        return (HeapSampling::None, 0);
    }
    if adjustment == 0.0 {
        adjustment = 128.0 * 1024.0;
        notes.push("Adjusting heap profiles for 1-in-128KB sampling rate".to_string());
    } else {
        notes.push(format!(
            "Adjusting heap profiles for 1-in-{} sampling rate",
            adjustment.trunc() as i64
        ));
    }
    if algorithm == 2 {
        notes.push("Heap version 2".to_string());
        (HeapSampling::V2 { rate: adjustment }, period)
    } else {
        (HeapSampling::V1 { adjustment }, period)
    }
}

/// The largest sampling rate (bytes) a heap profile may give: tcmalloc's and jemalloc's are
/// at most a few MB; from about 2^53 on, the version 2 formula's `1 - exp(-size/rate)` is 0
/// for small objects, and the report infinite.
const MAX_SAMPLING_RATE: u64 = 1 << 40;

/// Refuses a sampling rate no allocator writes (a damaged header).
fn check_rate(rate: u64, path: &Path, line: usize) -> Result<()> {
    if rate > MAX_SAMPLING_RATE {
        return Err(Error::format(
            path,
            Location::Line(line),
            format!("sampling rate {rate} is out of range (at most 2^40 bytes)"),
        ));
    }
    Ok(())
}

/// Scales one (count, bytes) pair for the sampling: google-pprof's formulas, without its
/// divisions by zero.
pub fn scale_pair(sampling: HeapSampling, n: f64, s: f64) -> (f64, f64) {
    match sampling {
        HeapSampling::None => (n, s),
        HeapSampling::V2 { rate } => {
            if n == 0.0 || s == 0.0 {
                return (n, s);
            }
            let ratio = (s / n) / rate;
            // (pprof's formula, whose last bits the reports print; where it is 0, a count
            // far above the bytes, the exact one rather than infinity.)
            let p = 1.0 - (-ratio).exp();
            let p = if p > 0.0 { p } else { -(-ratio).exp_m1() };
            let scale = 1.0 / p;
            (n * scale, s * scale)
        }
        HeapSampling::V1 { adjustment } => {
            if n == 0.0 || s == 0.0 {
                return (n, s);
            }
            let ratio = (s / n) / adjustment;
            if ratio < 1.0 {
                (n / ratio, s / ratio)
            } else {
                (n, s)
            }
        }
    }
}

/// Parses a stack of hex addresses; with `adjust`, callers (all but the first) move back one
/// byte.
pub(crate) fn parse_stack(text: &[u8], path: &Path, line: usize, adjust: bool) -> Result<Vec<u64>> {
    // An address and its space take 15 bytes in a 64-bit process's profile.
    let mut stack = Vec::with_capacity(text.len() / 15 + 1);
    // One pass over the bytes: what `lines::fields` and `parse_hex` of each field give.
    let mut i = 0;
    let n = text.len();
    loop {
        while i < n && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        if text[i] == b'0' && matches!(text.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
        }
        let digits = i;
        // Leading zeros do not count towards the 16 digits a u64 holds.
        while i < n && text[i] == b'0' {
            i += 1;
        }
        let significant = i;
        let (mut v, mut bad) = (0u64, 0u8);
        while i < n && !text[i].is_ascii_whitespace() {
            let d = super::HEX_DIGIT[usize::from(text[i])];
            bad |= d;
            v = (v << 4) | u64::from(d & 0xf);
            i += 1;
        }
        if i == digits || i - significant > 16 || bad & 0xf0 != 0 {
            return Err(Error::format(
                path,
                Location::Line(line),
                format!(
                    "bad address {:?} in stack",
                    lines::shorten(&text[start..i], 40)
                ),
            ));
        }
        stack.push(if stack.is_empty() || !adjust {
            v
        } else {
            v.wrapping_sub(1)
        });
    }
    Ok(stack)
}

/// The largest count or byte total of a heap record: 2^53 (8 PiB, or as many objects), past
/// which a float no longer counts one by one and sums of records go past what the reports
/// can print; no allocator writes one.
const MAX_COUNT: u64 = 1 << 53;

/// A count; negative ones, and ones with decimals, come from rpprof's `--raw` of profiles
/// added or subtracted.
fn count(m: Option<&[u8]>, path: &Path, line: &Line<'_>) -> Result<f64> {
    m.and_then(|m| match m {
        b if b.contains(&b'.') => std::str::from_utf8(b).ok()?.parse::<f64>().ok(),
        b @ [b'-', ..] => lines::parse_i64(b)
            .filter(|v| v.unsigned_abs() <= MAX_COUNT)
            .map(|v| v as f64),
        b => lines::parse_u64(b)
            .filter(|&v| v <= MAX_COUNT)
            .map(|v| v as f64),
    })
    .filter(|v| v.abs() <= MAX_COUNT as f64)
    .ok_or_else(|| {
        Error::format(
            path,
            Location::Line(line.number),
            format!(
                "count out of range (past 2^53) in {:?}",
                lines::shorten(line.text, 60)
            ),
        )
    })
}

/// The five groups [`sample_re`] captures in `t`, read without the regex when `t` is plain
/// ASCII numbers and spaces (every real profile); `None` when this fast reading does not
/// apply, and the regex decides.
fn sample_fields(t: &[u8]) -> Option<[Option<&[u8]>; 5]> {
    let mut i = 0;
    let space = |t: &[u8], i: &mut usize| {
        let start = *i;
        while t.get(*i).is_some_and(|b| b" \t\n\x0b\x0c\r".contains(b)) {
            *i += 1;
        }
        *i > start
    };
    // `-?\d+(?:\.\d+)?` in ASCII digits.
    let number = |t: &[u8], i: &mut usize| -> Option<(usize, usize)> {
        let start = *i;
        if t.get(*i) == Some(&b'-') {
            *i += 1;
        }
        let digits = |t: &[u8], i: &mut usize| {
            let s = *i;
            while t.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > s
        };
        if !digits(t, i) {
            return None;
        }
        if t.get(*i) == Some(&b'.') {
            *i += 1;
            if !digits(t, i) {
                return None;
            }
        }
        Some((start, *i))
    };
    let expect = |t: &[u8], i: &mut usize, c: u8| {
        let ok = t.get(*i) == Some(&c);
        *i += usize::from(ok);
        ok
    };
    let n1 = number(t, &mut i)?;
    if !expect(t, &mut i, b':') {
        return None;
    }
    space(t, &mut i);
    let s1 = number(t, &mut i)?;
    if !space(t, &mut i) || !expect(t, &mut i, b'[') {
        return None;
    }
    space(t, &mut i);
    let n2 = number(t, &mut i)?;
    if !expect(t, &mut i, b':') {
        return None;
    }
    space(t, &mut i);
    let s2 = number(t, &mut i)?;
    space(t, &mut i);
    if !expect(t, &mut i, b']') {
        return None;
    }
    space(t, &mut i);
    if !expect(t, &mut i, b'@') {
        return None;
    }
    // `(?:\s+(.*))?$`: nothing, or spaces and then any text without a line end (`.` matches
    // only valid UTF-8).
    let stack = if i == t.len() {
        None
    } else {
        if !space(t, &mut i) {
            return None;
        }
        let rest = &t[i..];
        if rest.contains(&b'\n') {
            return None;
        }
        // The regex's `\s+` also takes Unicode spaces (U+00A0, U+2003, ...) before the stack.
        match std::str::from_utf8(rest) {
            Ok(r) if !r.starts_with(char::is_whitespace) => {}
            _ => return None,
        }
        Some(rest)
    };
    let f = |(a, b): (usize, usize)| Some(&t[a..b]);
    Some([f(n1), f(s1), f(n2), f(s2), stack])
}

/// True for the line that starts the memory map section; reads the section into `p`.
fn maybe_maps(l: &Line<'_>, lines: &mut Lines<'_>, path: &Path, p: &mut Profile) -> bool {
    if is_maps(l.text) {
        maps::read_section(lines, path, p);
        true
    } else {
        false
    }
}

/// Reads a `heap profile:` text profile whose header line is `header`.
pub fn parse_text(lines: &mut Lines<'_>, header: &Header<'_>, path: &Path) -> Result<Profile> {
    let growth = header.text.windows(6).any(|w| w == b"growth");
    let kind = if growth { Kind::Growth } else { Kind::Heap };
    let mut p = Profile::new(
        kind,
        Format::HeapText,
        String::from_utf8_lossy(header.text).into_owned(),
    );
    p.sample_types = HEAP_TYPES.to_vec();
    check_header(lines, header, path)?;
    header_cut(&mut p, path, header);
    let (sampling, period) = sampling_of(header.text, &mut p.notes);
    check_rate(period, path, header.line)?;
    p.sampling = sampling;
    p.period = period;
    let ctx = Records {
        path,
        sampling,
        adjust: header.adjust,
    };
    if let Some((samples, stop)) = ctx.read_in_halves(lines) {
        p.samples = samples?;
        if let Stop::Cut(l) = stop {
            cut_short(&mut p, path, &l);
            return Ok(p);
        }
    }
    let (samples, stop) = ctx.read(lines)?;
    p.samples.extend(samples);
    match stop {
        Stop::End => {}
        Stop::Cut(l) => cut_short(&mut p, path, &l),
        Stop::Maps => maps::read_section(lines, path, &mut p),
    }
    Ok(p)
}

/// Where the records of a heap profile stop: what ended them.
enum Stop<'a> {
    /// The end of the data.
    End,
    /// A last line with no line end (the file was cut there).
    Cut(Line<'a>),
    /// The first line of the memory map (read: the map's lines follow).
    Maps,
}

/// How a heap profile's records are read.
struct Records<'p> {
    path: &'p Path,
    sampling: HeapSampling,
    adjust: bool,
}

impl Records<'_> {
    /// The records from the next line of `lines` until the data or the records end.
    fn read<'a>(&self, lines: &mut Lines<'a>) -> Result<(Vec<Sample>, Stop<'a>)> {
        let path = self.path;
        let mut samples = Vec::new();
        while let Some(l) = lines.next_line() {
            if is_maps(l.text) {
                return Ok((samples, Stop::Maps));
            }
            let t = l.text.trim_ascii();
            if t.is_empty() || t.starts_with(b"#") {
                continue;
            }
            if !l.terminated {
                // The file ends in the middle of this line: what it holds cannot be trusted
                // (an address cut short is another address).
                return Ok((samples, Stop::Cut(l)));
            }
            let Some(c) = sample_fields(t).or_else(|| {
                sample_re()
                    .captures(t)
                    .map(|c| std::array::from_fn(|i| c.get(i + 1).map(|m| m.as_bytes())))
            }) else {
                // A byte that is no text (a damaged file) is shown where it is: the line may
                // be long, and its quoted start looks fine.
                let why =
                    match l.text.iter().position(|&b| {
                        !(b.is_ascii_graphic() || b == b' ' || b == b'\t' || b == b'\r')
                    }) {
                        Some(i) => format!(
                            "bad sample line: byte 0x{:02x} at column {} is not text ({:?})",
                            l.text[i],
                            i + 1,
                            lines::shorten(&l.text[i.saturating_sub(20)..], 40)
                        ),
                        None => format!("bad sample line {:?}", lines::shorten(l.text, 60)),
                    };
                return Err(Error::format(path, Location::Line(l.number), why));
            };
            let n1 = count(c[0], path, &l)?;
            let s1 = count(c[1], path, &l)?;
            let n2 = count(c[2], path, &l)?;
            let s2 = count(c[3], path, &l)?;
            let (n1, s1) = scale_pair(self.sampling, n1, s1);
            let (n2, s2) = scale_pair(self.sampling, n2, s2);
            let stack = parse_stack(c[4].unwrap_or(b""), path, l.number, self.adjust)?;
            samples.push(Sample {
                stack,
                values: vec![n1, s1, n2, s2],
            });
        }
        Ok((samples, Stop::End))
    }

    /// [`Records::read`] of a large profile's records (up to its memory map) in two halves
    /// on two cores; `lines` is left at the line after them (the map's first). The first
    /// half's error comes first, as when read in a row. `None` when the records are not
    /// large enough to be worth it (`lines` is left as it was).
    fn read_in_halves<'a>(&self, lines: &mut Lines<'a>) -> Option<(Result<Vec<Sample>>, Stop<'a>)> {
        let data = lines.data();
        let start = lines.offset();
        let end = records_end(data, start);
        if !Work::HeapRecords.halves(end.saturating_sub(start)) {
            return None;
        }
        let middle = start + (end - start) / 2;
        let split = middle + memchr::memchr(b'\n', &data[middle..end])? + 1;
        let before = lines.line_no();
        let (first, (second, last)) = std::thread::scope(|scope| {
            let second = scope.spawn(|| {
                let number = before + memchr::memchr_iter(b'\n', &data[start..split]).count();
                let mut part = Lines::part(data, split, end, number);
                let r = self.read(&mut part);
                (r, part.line_no())
            });
            let first = self.read(&mut Lines::part(data, start, split, before));
            let second = second
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (first, second)
        });
        lines.resume_at(end, last);
        match (first, second) {
            (Err(e), _) | (Ok((_, Stop::End)), Err(e)) => Some((Err(e), Stop::End)),
            (Ok((mut a, Stop::End)), Ok((b, stop @ (Stop::End | Stop::Cut(_))))) => {
                a.extend(b);
                Some((Ok(a), stop))
            }
            // Not met (the first half's lines all end in a line end, and the map begins at
            // `end`): read in a row instead.
            _ => {
                lines.resume_at(start, before);
                None
            }
        }
    }
}

/// True when line `t` begins a memory map.
fn is_maps(t: &[u8]) -> bool {
    t.starts_with(b"MAPPED_LIBRARIES:") || t.starts_with(b"--- Memory map:")
}

/// The offset of the first line at or after byte `start` (a line's first byte) that begins
/// a memory map, or the end of `data`.
fn records_end(data: &[u8], start: usize) -> usize {
    let rest = data.get(start..).unwrap_or_default();
    if is_maps(rest) {
        return start;
    }
    [b"\nMAPPED_LIBRARIES:".as_slice(), b"\n--- Memory map:"]
        .iter()
        .filter_map(|m| memchr::memmem::find(rest, m))
        .min()
        .map_or(data.len(), |i| start + i + 1)
}

/// Why a header line holding a `\r` is refused: the file's lines end in `\r` alone, so that
/// the whole file is read as one line.
const CR_ONLY: &str =
    "its lines end in a carriage return alone (\\r): convert the line ends to \\n";

/// Refuses a header line of a `kind` profile that holds a `\r` ([`CR_ONLY`]).
pub(crate) fn refuse_cr_only(kind: &str, header: &Header<'_>, path: &Path) -> Result<()> {
    if header.text.contains(&b'\r') {
        return Err(Error::format(
            path,
            Location::Line(header.line),
            format!("bad {kind} profile header: {CR_ONLY}"),
        ));
    }
    Ok(())
}

/// A `heap profile:` header that is not `heap profile: N: N [N: N]` (then, optionally,
/// `@ type/rate`) is an error: read on, its records would be counted without their sampling
/// adjustment, or, when the lines end in `\r` alone, taken as the header's type (an empty
/// report).
fn check_header(lines: &Lines<'_>, header: &Header<'_>, path: &Path) -> Result<()> {
    let why = if header.text.contains(&b'\r') {
        CR_ONLY
    } else if header_fields(&unsigned(header.text)).is_none() {
        if lines.at_end() {
            "it is not \"heap profile: N: N [N: N] @ type\" and the file ends there (cut short?)"
        } else {
            "it is not \"heap profile: N: N [N: N] @ type\""
        }
    } else {
        return Ok(());
    };
    Err(Error::format(
        path,
        Location::Line(header.line),
        format!(
            "bad heap profile header {:?}: {why}",
            lines::shorten(header.text, 60)
        ),
    ))
}

/// `header` without the minus signs of its totals (rpprof's `--raw` of a difference writes
/// negative ones).
fn unsigned(header: &[u8]) -> Vec<u8> {
    let at = header
        .iter()
        .position(|&b| b == b'@')
        .unwrap_or(header.len());
    let mut t: Vec<u8> = header[..at]
        .iter()
        .copied()
        .filter(|&b| b != b'-')
        .collect();
    t.extend_from_slice(&header[at..]);
    t
}

/// A text profile whose last line has no line end: the file was cut there (the process was
/// killed while writing it, or the disk filled). The records before that line are kept; the
/// line is left out, with a warning giving where the cut is.
pub(super) fn cut_short(p: &mut Profile, path: &Path, l: &Line<'_>) {
    let kept = format!(
        "the {} complete records before that line are read, the cut line is left out",
        p.samples.len()
    );
    p.notes.push(cut_note(path, l, &kept));
    p.cut_at = Some((l.offset + l.text.len()) as u64);
}

/// Notes a file cut in its header line (it then has no records; what the header says at its
/// end, a type or a rate, may be cut too).
pub(super) fn header_cut(p: &mut Profile, path: &Path, header: &Header<'_>) {
    if !header.terminated {
        p.notes.push(format!(
            "Warning: {}:{}: the profile is cut short at byte {}, in its header line (the process was killed while writing it, or the disk filled): it has no records and no memory map",
            path.display(),
            header.line,
            header.end
        ));
        p.cut_at = Some(header.end as u64);
    }
}

/// The warning for a text profile cut in line `l`; `kept` says what is read of it.
pub(super) fn cut_note(path: &Path, l: &Line<'_>, kept: &str) -> String {
    format!(
        "Warning: {}:{}: the profile is cut short at byte {} (the process was killed while writing it, or the disk filled): {kept}, and there is no memory map",
        path.display(),
        l.number,
        l.offset + l.text.len(),
    )
}

/// Reads jemalloc's threaded heap profile (first line `heap_v2/<rate>`), as jeprof does.
pub fn parse_jemalloc(lines: &mut Lines<'_>, header: &Header<'_>, path: &Path) -> Result<Profile> {
    refuse_cr_only("jemalloc", header, path)?;
    // The digits after `heap_v2/`, as jeprof reads them (what follows them is not read).
    let after = &header.text["heap_v2/".len()..];
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    let rate = lines::parse_u64(&after[..digits]).ok_or_else(|| {
        Error::format(
            path,
            Location::Line(header.line),
            "threaded heap profile needs a sampling rate: heap_v2/<rate>",
        )
    })?;
    let mut p = Profile::new(
        Kind::Heap,
        Format::Jemalloc,
        String::from_utf8_lossy(header.text).into_owned(),
    );
    check_rate(rate, path, header.line)?;
    header_cut(&mut p, path, header);
    p.sample_types = HEAP_TYPES.to_vec();
    // jeprof scales with the version 2 formula; a rate of 0 leaves values as they are.
    p.sampling = if rate == 0 {
        HeapSampling::None
    } else {
        HeapSampling::V2 { rate: rate as f64 }
    };
    p.period = rate;
    // Every thread line copies its stack: a file of N stack entries and M thread lines holds
    // N * M addresses. Real profiles (jemalloc records at most 128 frames a stack) store at
    // most about 5 addresses per byte of file; a file made to multiply (more than 16 per byte)
    // is refused instead of filling memory.
    let limit = lines.data_len().saturating_mul(16).max(1 << 22);
    let mut stored = 0usize;
    let mut stack: Option<Vec<u64>> = None;
    while let Some(l) = lines.next_line() {
        if maybe_maps(&l, lines, path, &mut p) {
            break;
        }
        let t = l.text.trim_ascii();
        if t.is_empty() {
            continue;
        }
        if !l.terminated {
            cut_short(&mut p, path, &l);
            break;
        }
        if let Some(rest) = t.strip_prefix(b"@") {
            stack = Some(parse_stack(rest, path, l.number, header.adjust)?);
            continue;
        }
        let Some(c) = thread_re().captures(t) else {
            let what = if l.terminated {
                "bad line"
            } else {
                "truncated line"
            };
            return Err(Error::format(
                path,
                Location::Line(l.number),
                format!("{what} {:?}", lines::shorten(l.text, 60)),
            ));
        };
        // Thread lines before the first stack are per-thread summaries.
        let Some(st) = &stack else { continue };
        stored = stored.saturating_add(st.len());
        if stored > limit {
            return Err(Error::format(
                path,
                Location::Line(l.number),
                format!(
                    "too many thread records for the size of the file: more than {limit} stack frames"
                ),
            ));
        }
        let n1 = count(c.get(2).map(|m| m.as_bytes()), path, &l)?;
        let s1 = count(c.get(3).map(|m| m.as_bytes()), path, &l)?;
        let n2 = count(c.get(4).map(|m| m.as_bytes()), path, &l)?;
        let s2 = count(c.get(5).map(|m| m.as_bytes()), path, &l)?;
        let (n1, s1) = scale_pair(p.sampling, n1, s1);
        let (n2, s2) = scale_pair(p.sampling, n2, s2);
        let sample = Sample {
            stack: st.clone(),
            values: vec![n1, s1, n2, s2],
        };
        let thread = c.get(1).map_or(&b"*"[..], |m| m.as_bytes());
        if thread == b"*" {
            p.samples.push(sample);
        } else {
            let id = lines::parse_u64(thread).ok_or_else(|| {
                Error::format(path, Location::Line(l.number), "thread id out of range")
            })?;
            p.threads.entry(id).or_default().push(sample);
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    /// A record of a count or bytes past 2^53 is refused (it printed as `-1 objects`, or
    /// summed past what a report prints); up to 2^53, a sampled record of many objects and
    /// few bytes is scaled to a finite value (pprof's `1 - exp(-x)` is 0 there: infinity).
    #[test]
    fn huge_counts_are_refused_or_finite() {
        let path = Path::new("h.heap");
        let profile = |n: &str, s: &str| {
            let text = format!(
                "heap profile:    1:  1 [    1:     1] @ heap_v2/524288\n {n}: {s} [ {n}: {s}] @ 0x1000 0x2000\n"
            );
            crate::profile::parse(text.as_bytes(), path)
        };
        for n in [
            "9007199254740993",
            "9223372036854775808",
            "18446744073709551615",
        ] {
            let e = profile(n, "4096").map(|_| ()).unwrap_err().to_string();
            assert!(e.contains("h.heap:2: count out of range"), "{n}: {e}");
            let e = profile("1", n).map(|_| ()).unwrap_err().to_string();
            assert!(e.contains("h.heap:2: count out of range"), "{n}: {e}");
        }
        let p = profile("9007199254740992", "1").map_err(|e| e.to_string());
        let Ok(p) = p else { panic!("{p:?}") };
        let v = &p.samples[0].values;
        assert!(v.iter().all(|x| x.is_finite() && *x > 0.0), "{v:?}");
        // A plain record as before.
        let (n, s) = scale_pair(HeapSampling::V2 { rate: 524288.0 }, 2.0, 1000.0);
        assert_eq!(
            (n, s),
            (
                2.0 / (1.0 - (-(500.0f64 / 524288.0)).exp()),
                2.0 / (1.0 - (-(500.0f64 / 524288.0)).exp()) * 500.0
            )
        );
    }

    /// Records read in two halves are read as in a row: testdata's text heap profiles,
    /// whole, cut at many places, and with a broken record in either half or in both.
    #[test]
    fn records_read_in_halves_are_read_as_in_a_row() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let files = [
            "t-heap/theap.hprof.0001.heap",
            "t-heap/theap.hprof.0003.heap",
            "t-heap/theap.growth",
            "t-rust/trust.hprof.0002.heap",
            "t-trend/ttrend.hprof.0004.heap",
        ];
        let parse = |data: &[u8], path: &Path, from: usize| {
            crate::split::set(Work::HeapRecords, Some(from));
            let r = format!("{:?}", crate::profile::parse(data, path));
            crate::split::set(Work::HeapRecords, None);
            r
        };
        let mut read = 0;
        for f in files {
            let path = root.join(f);
            // (Test code: the project's own test data; no input reaches this.)
            let data = std::fs::read(&path).expect("testdata profile");
            let maps = memchr::memmem::find(&data, b"\nMAPPED_LIBRARIES:").unwrap_or(data.len());
            // A record line broken at about `at` of the records.
            let broken = |data: &mut Vec<u8>, at: f64| {
                let i = (maps as f64 * at) as usize;
                if let Some(n) = memchr::memchr(b'\n', &data[i..maps]) {
                    data[i + n + 1] = b'x';
                }
            };
            let mut variants: Vec<Vec<u8>> = vec![data.clone()];
            for at in [0.25, 0.75] {
                let mut d = data.clone();
                broken(&mut d, at);
                variants.push(d);
            }
            let mut both = data.clone();
            broken(&mut both, 0.25);
            broken(&mut both, 0.75);
            variants.push(both);
            for k in 1..40 {
                variants.push(data[..data.len() * k / 40].to_vec());
            }
            for v in &variants {
                let row = parse(v, &path, usize::MAX);
                assert_eq!(parse(v, &path, 0), row, "{f}, {} bytes", v.len());
                read += usize::from(row.contains("Ok("));
            }
        }
        assert!(read > 20, "only {read} profiles read");
    }

    /// Stacks read in one pass give what splitting at ASCII white space and reading each
    /// field with `parse_hex` gives, errors included, on fields made of the bytes that
    /// matter (digits, `x`, white space, others, `0` runs) and at the 16-digit limit.
    #[test]
    fn stacks_in_one_pass_as_field_by_field() {
        let reference = |t: &[u8], adjust: bool| -> Option<Vec<u64>> {
            let mut v = Vec::new();
            for (i, f) in lines::fields(t).enumerate() {
                let a = super::super::parse_hex(f)?;
                v.push(if i == 0 || !adjust {
                    a
                } else {
                    a.wrapping_sub(1)
                });
            }
            Some(v)
        };
        let path = Path::new("p");
        let alphabet: &[&[u8]] = &[
            b"0",
            b"00",
            b"0x",
            b"0X",
            b"x",
            b"f",
            b"A",
            b"9",
            b"g",
            b" ",
            b"\t",
            b"\x0b",
            b"\r",
            b"\xc3\xa9",
            b"1234567",
            b"00000000",
            b"89abcdef",
            b"FEDCBA98",
            b"0x7fb46a83ca10",
            b"\x01",
            b"\x7f",
            b"\xb0",
            b"\xe6",
        ];
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut cases: Vec<Vec<u8>> = [
            &b"0x1 0x2"[..],
            b"",
            b"   ",
            b"0x0 0",
            b"0xffffffffffffffff",
            b"0x1ffffffffffffffff",
            b"0x0000ffffffffffffffff",
            b"ffffffffffffffff 10000000000000000",
            b"0x 1",
            b"00x5",
        ]
        .iter()
        .map(|c| c.to_vec())
        .collect();
        for _ in 0..40_000 {
            let len = next() % 12;
            cases.push(
                (0..len)
                    .flat_map(|_| alphabet[(next() % alphabet.len() as u64) as usize].to_vec())
                    .collect(),
            );
        }
        for c in &cases {
            for adjust in [false, true] {
                let got = parse_stack(c, path, 1, adjust).ok();
                assert_eq!(
                    got,
                    reference(c, adjust),
                    "{:?}",
                    String::from_utf8_lossy(c)
                );
            }
        }
    }

    use super::*;

    /// The regex's groups, as `sample_fields` gives them.
    fn by_regex(t: &[u8]) -> Option<[Option<&[u8]>; 5]> {
        sample_re()
            .captures(t)
            .map(|c| std::array::from_fn(|i| c.get(i + 1).map(|m| m.as_bytes())))
    }

    /// The header line is read without the regex as the regex reads it: on the headers
    /// tcmalloc and google-pprof write, and on those headers with bytes changed, cut or
    /// repeated.
    #[test]
    fn header_fields_agree_with_the_regex() {
        fn by_regex(t: &[u8]) -> Option<[Option<&[u8]>; 9]> {
            header_re()
                .captures(t)
                .map(|c| std::array::from_fn(|i| c.get(i).map(|m| m.as_bytes())))
        }
        let headers: [&[u8]; 8] = [
            b"heap profile:  13674: 33579024 [ 13674: 33579024] @ heap_v2/2048",
            b"heap profile:    30:   462848 [    30:   462848] @ heapprofile",
            b"heap profile: 1: 2 [ 3: 4] @ heap/524288",
            b"heap profile: 1: 2 [ 3: 4] @ growthz",
            b"heap profile: 1: 2 [ 3: 4]",
            b"heap profile: 1: 2 [ 3: 4] @ heap_v2/",
            b"heap profile: 1: 2 [ 3: 4]   @  a b/12x/3",
            b"heap profile:1:\t2\n[3:\x0b4]@/7",
        ];
        for h in headers {
            assert_eq!(
                header_fields(h),
                by_regex(h),
                "{:?}",
                String::from_utf8_lossy(h)
            );
        }
        let alphabet = b" \t:[]@/0123456789heap_v2xyz\xc2\xa0";
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..50_000 {
            let mut h = headers[(next() % 8) as usize].to_vec();
            for _ in 0..1 + next() % 3 {
                let at = (next() % (h.len() as u64 + 1)) as usize;
                let b = alphabet[(next() % alphabet.len() as u64) as usize];
                match next() % 3 {
                    0 if at < h.len() => h[at] = b,
                    1 => h.insert(at, b),
                    _ => h.truncate(at),
                }
            }
            assert_eq!(
                header_fields(&h),
                by_regex(&h),
                "{:?}",
                String::from_utf8_lossy(&h)
            );
        }
    }

    /// Wherever the fast reading of a sample line answers, it answers as the regex does: on
    /// the lines of the testdata heap profiles, and on lines built from their pieces and from
    /// random bytes.
    #[test]
    fn sample_fields_agree_with_the_regex() {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        for case in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(case.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = f.file_name().to_string_lossy().into_owned();
                if name.ends_with(".heap") || name.contains("heapv2") || name.ends_with(".growth") {
                    let data = std::fs::read(f.path()).unwrap_or_default();
                    lines.extend(data.split(|&b| b == b'\n').map(<[u8]>::to_vec));
                }
            }
        }
        assert!(lines.len() > 100, "no testdata heap profiles found");
        let pieces: [&[u8]; 24] = [
            b"1",
            b"-2",
            b"3.5",
            b"7.",
            b".5",
            b":",
            b" ",
            b"  ",
            b"\t",
            b"\x0b",
            b"[",
            b"]",
            b"@",
            b" 0x1",
            b"0x2",
            b"\xc2\xa0",
            b"\xff",
            b"\r",
            b"\n",
            b"x",
            b"12",
            b"-",
            b"0",
            "\u{663}".as_bytes(),
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let shape: [&[u8]; 13] = [
            b"1",
            b":",
            b" ",
            b"2",
            b" ",
            b"[",
            b" ",
            b"3",
            b":",
            b" ",
            b"4",
            b"]",
            b" @ 0x1 0x2",
        ];
        for _ in 0..200_000 {
            let mut l = Vec::new();
            for (i, part) in shape.iter().enumerate() {
                // Mostly the well-formed shape, with pieces swapped in or added.
                match next() % 16 {
                    0 => l.extend_from_slice(pieces[(next() % 24) as usize]),
                    1 => {}
                    2 => {
                        l.extend_from_slice(part);
                        l.extend_from_slice(pieces[(next() % 24) as usize]);
                    }
                    _ => l.extend_from_slice(part),
                }
                if i == 12 && next() % 4 == 0 {
                    l.push((next() % 256) as u8);
                }
            }
            lines.push(l);
        }
        // Unicode spaces after the `@`: the regex's `\s+` takes them.
        for l in [
            &b"1: 2 [3: 4] @ \xc2\xa0 0x1"[..],
            b"1: 2 [3: 4] @ \xc2\xa0",
            b"1: 2 [3: 4] @\xe2\x80\x83 0x1 0x2",
        ] {
            assert_eq!(sample_fields(l).or_else(|| by_regex(l)), by_regex(l));
            lines.push(l.to_vec());
        }
        let mut fast = 0;
        for l in &lines {
            let t = l.trim_ascii();
            if let Some(f) = sample_fields(t) {
                fast += 1;
                assert_eq!(Some(f), by_regex(t), "{:?}", String::from_utf8_lossy(t));
            }
        }
        assert!(fast > 10_000, "the fast reading answered only {fast} lines");
    }
}
