//! gperftools' binary CPU profile (`CPUPROFILE`).
//!
//! The file is a sequence of machine words, 32 or 64 bits, in the writer's byte order:
//!
//! ```text
//! header:   0, 3 (header words that follow), 0 (version), period (us), 0 (padding)
//! records:  count, depth, pc[0] (leaf), pc[1] ... pc[depth-1]
//! trailer:  0, 1, 0
//! then:     the text of /proc/self/maps
//! ```
//!
//! The word size and byte order are read off the first words as google-pprof does: a 64-bit
//! profile starts with eight zero bytes, and the header-size word (3) has zeros in its high half.

use std::path::Path;

use super::{CPU_TYPES, Format, Kind, Profile, Sample, maps};
use crate::error::{Error, Location, Result};

/// The deepest stack accepted; google-pprof's limit too.
const MAX_DEPTH: u64 = 1 << 16;

/// The largest count of a profiler's record: 2^53 samples (285,000 years at 1 kHz) is
/// where a count stops being exact as a float; a bigger one is damage, and its report
/// (Perl's integer overflow printed as -1) nonsense.
const MAX_COUNT: u64 = 1 << 53;

struct Words<'a> {
    data: &'a [u8],
    /// Offset of word 0 in the file, for messages.
    base: usize,
    word: usize,
    big_endian: bool,
}

impl Words<'_> {
    fn len(&self) -> usize {
        self.data.len() / self.word
    }

    fn get(&self, i: usize) -> Option<u64> {
        let b = self.data.get(i * self.word..(i + 1) * self.word)?;
        Some(self.decode(b))
    }

    /// The word in `b` (`self.word` bytes).
    fn decode(&self, b: &[u8]) -> u64 {
        let le = !self.big_endian;
        match *b {
            [b0, b1, b2, b3] if le => u64::from(u32::from_le_bytes([b0, b1, b2, b3])),
            [b0, b1, b2, b3] => u64::from(u32::from_be_bytes([b0, b1, b2, b3])),
            [b0, b1, b2, b3, b4, b5, b6, b7] if le => {
                u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7])
            }
            [b0, b1, b2, b3, b4, b5, b6, b7] => {
                u64::from_be_bytes([b0, b1, b2, b3, b4, b5, b6, b7])
            }
            _ => 0,
        }
    }

    /// Words `i..i + n` (those past the end read as 0): a record's stack, decoded in one go.
    fn run(&self, i: usize, n: usize) -> Vec<u64> {
        let from = (i * self.word).min(self.data.len());
        let to = ((i + n) * self.word).min(self.data.len());
        let mut v: Vec<u64> = Vec::with_capacity(n);
        let bytes = &self.data[from..to];
        if self.word == 8 && !self.big_endian {
            // A 64-bit little-endian profile's (nearly all): one loop the compiler unrolls.
            v.extend(bytes.chunks_exact(8).map(|b| {
                let mut w = [0u8; 8];
                w.copy_from_slice(b);
                u64::from_le_bytes(w)
            }));
        } else {
            v.extend(bytes.chunks_exact(self.word).map(|b| self.decode(b)));
        }
        v.resize(n, 0);
        v
    }

    fn offset(&self, i: usize) -> u64 {
        (self.base + i * self.word) as u64
    }
}

/// Reads a binary CPU profile that starts at byte `pos` of `file`; `adjust` moves caller
/// addresses back one byte (not for symbolized profiles, whose writer did).
pub fn parse(file: &[u8], pos: usize, path: &Path, adjust: bool) -> Result<Profile> {
    let (w, hdr_words, period) = header(file, pos, path)?;
    let (data, word, big_endian) = (w.data, w.word, w.big_endian);
    let header_err = |i: usize, what: &str| {
        Error::format(
            path,
            Location::Byte(w.offset(i)),
            format!("not a CPU profile: {what}"),
        )
    };
    let mut i = 2 + hdr_words as usize;
    if i > w.len() {
        return Err(header_err(1, "truncated header"));
    }
    let mut p = Profile::new(
        Kind::Cpu,
        Format::CpuBinary {
            word: word as u8,
            big_endian,
        },
        String::new(),
    );
    p.sample_types = CPU_TYPES.to_vec();
    p.period = period;
    p.address_width = if word == 4 { 8 } else { 16 };
    let n_words = w.len();
    let mut ended = false;
    // Where the file ends inside a record, and how.
    let mut cut: Option<(u64, String)> = None;
    while i < n_words {
        let rec = i;
        let count = w.get(i).unwrap_or(0);
        let Some(depth) = w.get(i + 1) else {
            cut = Some((w.offset(rec), "after its count".to_string()));
            break;
        };
        if depth > MAX_DEPTH {
            return Err(Error::format(
                path,
                Location::Byte(w.offset(rec + 1)),
                format!("bad stack depth {depth} (more than {MAX_DEPTH})"),
            ));
        }
        i += 2;
        let depth = depth as usize;
        if depth > 0 && w.get(i) == Some(0) {
            // End-of-data marker: count 0, depth 1, pc 0. pprof ends the samples at any
            // record whose first address is 0; so does rpprof, saying so when the record
            // is not the marker (a damaged file: the records after it are not read).
            if count != 0 || depth != 1 {
                p.notes.push(format!(
                    "Warning: {}: byte {}: a record of count {count} and depth {depth} starts with address 0, which marks the end of the samples: the {} records before it are read, and what follows it as the memory map (the file is damaged?)",
                    path.display(),
                    w.offset(rec),
                    p.samples.len()
                ));
            }
            i += depth;
            ended = true;
            break;
        }
        if i + depth > n_words {
            // A profiler writes stacks of at most a few hundred frames: a longer record that
            // runs past the end is damage, not a cut.
            if depth > 1024 {
                return Err(Error::format(
                    path,
                    Location::Byte(w.offset(rec)),
                    format!(
                        "bad CPU record: depth {depth}, but the file ends {} addresses later",
                        n_words - i
                    ),
                ));
            }
            cut = Some((
                w.offset(rec),
                format!(
                    "a record of depth {depth} is cut after {} of its addresses",
                    n_words - i
                ),
            ));
            break;
        }
        let mut stack = w.run(i, depth);
        if adjust {
            for pc in stack.iter_mut().skip(1) {
                *pc = pc.wrapping_sub(1);
            }
        }
        if adjust && count > MAX_COUNT {
            return Err(Error::format(
                path,
                Location::Byte(w.offset(rec)),
                format!("bad CPU record: count {count} (more than 2^53 samples)"),
            ));
        }
        i += depth;
        // Symbolized profiles (rpprof's --raw with --base) can hold negative counts.
        let value = match (adjust, word) {
            (false, 4) => f64::from(count as u32 as i32),
            (false, _) => count as i64 as f64,
            _ => count as f64,
        };
        p.samples.push(Sample {
            stack,
            values: vec![value],
        });
    }
    if ended {
        let tail = (i * word).min(data.len());
        maps::read_text(&data[tail..], path, &mut p);
    } else {
        let rem = data.len() % word;
        if cut.is_none() && rem != 0 {
            cut = Some((
                (pos + data.len() - rem) as u64,
                format!("{rem} bytes of a word"),
            ));
        }
        match cut {
            // The process was killed, or ran out of disk, while the profiler wrote: the
            // records before the cut are whole.
            Some((at, how)) => {
                p.notes.push(format!(
                    "Warning: {}: byte {at}: the CPU profile is cut short ({how}; the process was killed or the disk filled while the profiler wrote it): the {} complete records before it are read; there is no end-of-data record and no memory map",
                    path.display(),
                    p.samples.len()
                ));
                p.cut_at = Some(at);
            }
            // google-pprof's `--raw` (a symbolized profile of period 1) never has one;
            // rpprof's always has.
            None if !adjust && period == 1 => {}
            None => p.notes.push(format!(
                "Warning: {}: the CPU profile has no end-of-data marker (the profiler writes it, and the memory map, at ProfilerStop or exit: the process was killed?); the records read may be incomplete",
                path.display()
            )),
        }
    }
    Ok(p)
}

/// A CPU profile's header (from `pos` in `file`) as [`parse`] checks it: its words, the
/// header's size in words and the sampling period. What is checked is in the first four
/// words: the start of a file decides it ([`super::check_head`]).
fn header<'a>(file: &'a [u8], pos: usize, path: &Path) -> Result<(Words<'a>, u64, u64)> {
    let data = file.get(pos..).unwrap_or_default();
    let err = |off: usize, msg: String| Error::format(path, Location::Byte(off as u64), msg);
    if data.len() < 8 {
        return Err(err(
            pos,
            format!(
                "not a CPU profile: {} bytes, too short for a header",
                data.len()
            ),
        ));
    }
    let (word, big_endian) = if data[..8].iter().all(|&b| b == 0) {
        if data.len() < 16 {
            return Err(err(pos, "truncated CPU profile header".to_string()));
        }
        if data[12..16].iter().all(|&b| b == 0) {
            (8, false)
        } else if data[8..12].iter().all(|&b| b == 0) {
            (8, true)
        } else {
            return Err(err(
                pos + 8,
                "not a CPU profile: bad header size word".to_string(),
            ));
        }
    } else if data[6..8] == [0, 0] {
        (4, false)
    } else if data[4..6] == [0, 0] {
        (4, true)
    } else {
        return Err(err(
            pos,
            "not a profile: neither a text header nor a CPU profile header".to_string(),
        ));
    };
    let w = Words {
        data,
        base: pos,
        word,
        big_endian,
    };
    let header_err = |i: usize, what: &str| {
        Error::format(
            path,
            Location::Byte(w.offset(i)),
            format!("not a CPU profile: {what}"),
        )
    };
    if w.get(0) != Some(0) {
        return Err(header_err(0, "the first word is not 0"));
    }
    let hdr_words = w.get(1).ok_or_else(|| header_err(1, "truncated header"))?;
    if !(3..=(1 << 32)).contains(&hdr_words) {
        return Err(header_err(1, &format!("bad header size {hdr_words}")));
    }
    let version = w.get(2).ok_or_else(|| header_err(2, "truncated header"))?;
    let period = w.get(3).ok_or_else(|| header_err(3, "truncated header"))?;
    if version > (1 << 32) {
        return Err(header_err(2, &format!("bad version {version}")));
    }
    if period > (1 << 32) {
        return Err(header_err(3, &format!("bad sampling period {period}")));
    }
    Ok((w, hdr_words, period))
}

/// [`parse`]'s refusals that the first bytes of a file decide (`head`: the whole file, or
/// its first 32 bytes and more).
pub fn check_header(head: &[u8], path: &Path) -> Result<()> {
    header(head, 0, path).map(|_| ())
}

// unwrap here only in tests, on profiles the test makes itself.
#[cfg(test)]
mod tests {
    use super::*;

    /// The same profile written with 4- and 8-byte words, little- and big-endian, reads as
    /// the same stacks and counts (the 64-bit little-endian one through its own loop).
    #[test]
    fn every_word_size_and_byte_order_reads_alike() {
        let records: &[(u64, &[u64])] = &[
            (3, &[0x1000_1234, 0x1000_2000, 0x7fff_0010]),
            (1, &[0x1000_1234]),
            (
                7,
                &[
                    0x2000_0001,
                    0x1000_2000,
                    0x1000_2004,
                    0x1000_2008,
                    0x7fff_0010,
                ],
            ),
        ];
        let mut words: Vec<u64> = vec![0, 3, 0, 10_000, 0];
        for (count, stack) in records {
            words.push(*count);
            words.push(stack.len() as u64);
            words.extend_from_slice(stack);
        }
        words.extend_from_slice(&[0, 1, 0]);
        let path = Path::new("p");
        let mut read = Vec::new();
        for (word, big) in [(8, false), (8, true), (4, false), (4, true)] {
            let bytes: Vec<u8> = words
                .iter()
                .flat_map(|&w| match (word, big) {
                    (8, false) => w.to_le_bytes().to_vec(),
                    (8, true) => w.to_be_bytes().to_vec(),
                    (_, false) => (w as u32).to_le_bytes().to_vec(),
                    (_, true) => (w as u32).to_be_bytes().to_vec(),
                })
                .collect();
            // unwrap: a profile this test writes itself.
            let p = parse(&bytes, 0, path, false).unwrap();
            assert_eq!(
                p.format,
                Format::CpuBinary {
                    word: word as u8,
                    big_endian: big
                }
            );
            let samples: Vec<(Vec<u64>, Vec<f64>)> = p
                .samples
                .iter()
                .map(|s| (s.stack.clone(), s.values.clone()))
                .collect();
            read.push(samples);
        }
        assert_eq!(read[0].len(), 3, "{:?}", read[0]);
        assert_eq!(read[0][2].0, records[2].1.to_vec());
        for r in &read[1..] {
            assert_eq!(r, &read[0]);
        }
    }
}
