//! The distinct addresses of a profile's stacks.
//!
//! A large CPU profile has a million and more frames and a hundred thousand and more distinct
//! addresses: a hash set of them outgrows a core's cache, and every insertion is a cache miss.
//! Nearly all of them lie in a few executable mappings, though, whose bytes are few enough to
//! give each one a bit: setting a bit in such a bitmap is a shift and an or, and reading the
//! bitmap in order gives the addresses already sorted. Addresses outside those mappings
//! (other code, the garbage of a broken stack walk) go to a hash set.

use rustc_hash::FxHashSet;

use super::{Mapping, Sample};
use crate::split::Work;

/// The most bytes of address space given a bit each (8 MiB of bitmap).
const MAX_BITS: u64 = 1 << 26;

/// Executable mappings given a bit per byte: `start`, `limit`, the index of `start`'s bit.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u64,
    len: u64,
    first_bit: u64,
}

/// The spans of `mappings` to give bits: executable mappings, sorted by start, without
/// overlaps, the largest first while their bits stay under `max_bits`. None when no span
/// gets bits.
fn spans<'a>(mappings: impl IntoIterator<Item = &'a Mapping>, max_bits: u64) -> Vec<Span> {
    let mut m: Vec<(u64, u64)> = mappings
        .into_iter()
        .filter(|m| m.executable() && m.limit > m.start)
        .map(|m| (m.start, m.limit))
        .collect();
    // The largest first, then by address, so that which ones fit does not depend on order.
    m.sort_unstable_by_key(|&(s, l)| (std::cmp::Reverse(l - s), s));
    let mut taken: Vec<(u64, u64)> = Vec::new();
    let mut bits = 0u64;
    for (s, l) in m {
        let len = l - s;
        if bits + len > max_bits || taken.iter().any(|&(ts, tl)| s < tl && ts < l) {
            continue;
        }
        bits += len;
        taken.push((s, l));
    }
    taken.sort_unstable();
    let mut first_bit = 0;
    taken
        .into_iter()
        .map(|(start, limit)| {
            let span = Span {
                start,
                len: limit - start,
                first_bit,
            };
            // Each span starts on a word of its own.
            first_bit += (limit - start).div_ceil(64) * 64;
            span
        })
        .collect()
}

/// The span holding `a` (its index in `spans`) and `a`'s bit.
fn find(spans: &[Span], a: u64) -> Option<(usize, u64)> {
    let i = spans.partition_point(|s| s.start <= a).checked_sub(1)?;
    let s = spans.get(i)?;
    let off = a - s.start;
    (off < s.len).then_some((i, s.first_bit + off))
}

/// A set of addresses: bits for the addresses in `spans`, a hash set for the others.
struct Set<'a> {
    spans: &'a [Span],
    words: Vec<u64>,
    rest: FxHashSet<u64>,
    /// The span the last address fell in: stacks visit the same code over and over.
    last: usize,
}

impl<'a> Set<'a> {
    fn new(spans: &'a [Span]) -> Set<'a> {
        let words = spans
            .last()
            .map_or(0, |s| (s.first_bit + s.len.div_ceil(64) * 64) / 64);
        Set {
            spans,
            // Zeroed memory from the system: pages no address touches are never written.
            words: vec![0; words as usize],
            rest: FxHashSet::default(),
            last: 0,
        }
    }

    fn insert(&mut self, a: u64) {
        if let Some(s) = self.spans.get(self.last) {
            let off = a.wrapping_sub(s.start);
            if off < s.len {
                self.set(s.first_bit + off);
                return;
            }
        }
        match find(self.spans, a) {
            Some((i, bit)) => {
                self.last = i;
                self.set(bit);
            }
            None => {
                self.rest.insert(a);
            }
        }
    }

    fn set(&mut self, bit: u64) {
        if let Some(w) = self.words.get_mut((bit / 64) as usize) {
            *w |= 1 << (bit % 64);
        }
    }

    /// Adds the other set's addresses (made over the same spans).
    fn union(&mut self, other: Set<'_>) {
        for (w, o) in self.words.iter_mut().zip(other.words) {
            *w |= o;
        }
        self.rest.extend(other.rest);
    }

    /// The addresses, sorted.
    fn into_sorted(self) -> Vec<u64> {
        let bits: usize = self.words.iter().map(|w| w.count_ones() as usize).sum();
        let mut v = Vec::with_capacity(bits + self.rest.len());
        for s in self.spans {
            let lo = (s.first_bit / 64) as usize;
            let hi = lo + s.len.div_ceil(64) as usize;
            for (i, &w) in self
                .words
                .get(lo..hi)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let mut w = w;
                while w != 0 {
                    let b = u64::from(w.trailing_zeros());
                    v.push(s.start + (i as u64) * 64 + b);
                    w &= w - 1;
                }
            }
        }
        let from_bits = v.len();
        v.extend(self.rest);
        v[from_bits..].sort_unstable();
        // Two sorted runs: the stable sort merges them in one pass.
        v.sort();
        v
    }
}

/// Every distinct address of the samples of `parts` and of `more`, sorted: on two cores
/// when there are many samples, with bits for the addresses in `mappings` (which may
/// overlap: those of several profiles) when that is cheaper than hashing them.
pub(super) fn addresses<'a>(
    parts: &[&[Sample]],
    more: impl Iterator<Item = &'a Sample>,
    mappings: impl IntoIterator<Item = &'a Mapping>,
) -> Vec<u64> {
    let frames: usize = parts
        .iter()
        .flat_map(|p| p.iter())
        .map(|s| s.stack.len())
        .sum();
    // A bitmap word costs about what a hashed frame does to clear and read back: bits only
    // when the frames outnumber the words.
    let max_bits = MAX_BITS.min((frames as u64).saturating_mul(64));
    let spans = spans(mappings, max_bits);
    let fill = |set: &mut Set<'_>, parts: &[&[Sample]]| {
        for s in parts.iter().flat_map(|p| p.iter()) {
            for &a in &s.stack {
                set.insert(a);
            }
        }
    };
    let mut set = Set::new(&spans);
    let samples: usize = parts.iter().map(|p| p.len()).sum();
    if !Work::Addresses.halves(samples) {
        fill(&mut set, parts);
    } else {
        let (a, b) = halves(parts, samples / 2);
        let other = std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                let mut other = Set::new(&spans);
                fill(&mut other, &b);
                other
            });
            fill(&mut set, &a);
            other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))
        });
        set.union(other);
    }
    for s in more {
        for &a in &s.stack {
            set.insert(a);
        }
    }
    set.into_sorted()
}

/// `parts` split after their first `n` samples.
fn halves<'a>(parts: &[&'a [Sample]], n: usize) -> (Vec<&'a [Sample]>, Vec<&'a [Sample]>) {
    let (mut first, mut second) = (Vec::new(), Vec::new());
    let mut left = n;
    for &p in parts {
        if left >= p.len() {
            first.push(p);
            left -= p.len();
        } else {
            let (a, b) = p.split_at(left);
            first.push(a);
            second.push(b);
            left = 0;
        }
    }
    (first, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(start: u64, limit: u64, perms: &str) -> Mapping {
        Mapping {
            start,
            limit,
            offset: 0,
            perms: Some(perms.to_string()),
            path: "/bin/x".to_string(),
            line: 0,
            raw: String::new(),
        }
    }

    fn sample(stack: &[u64]) -> Sample {
        Sample {
            stack: stack.to_vec(),
            values: vec![1.0],
        }
    }

    /// The addresses as a plain set sorts them.
    fn plain(samples: &[Sample], more: &[Sample]) -> Vec<u64> {
        let set: std::collections::BTreeSet<u64> = samples
            .iter()
            .chain(more)
            .flat_map(|s| s.stack.iter().copied())
            .collect();
        set.into_iter().collect()
    }

    /// The addresses gathered with bits (for every budget of bits, in a row and in halves)
    /// are those of a plain set, in order.
    #[test]
    fn distinct_addresses_with_bits_are_those_of_a_plain_set() {
        let maps = [
            mapping(0x1000, 0x1100, "r--p"),
            mapping(0x1100, 0x5000, "r-xp"),
            mapping(0x7f00_0000_0000, 0x7f00_0000_0081, "r-xp"),
            // Overlaps the first executable one: not given bits.
            mapping(0x1200, 0x1300, "r-xp"),
            mapping(u64::MAX - 10, u64::MAX, "r-xp"),
        ];
        // Addresses at each span's first and last byte, just outside, in a data mapping,
        // nowhere, repeated, 0 and the highest.
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let edges = [
            0x10ff,
            0x1100,
            0x1101,
            0x4fff,
            0x5000,
            0x7f00_0000_0000,
            0x7f00_0000_0080,
            0x7f00_0000_0081,
            0x7eff_ffff_ffff,
            0,
            u64::MAX,
            u64::MAX - 1,
            u64::MAX - 10,
            0x1250,
        ];
        let samples: Vec<Sample> = (0..300)
            .map(|i| {
                let stack: Vec<u64> = (0..(i % 7))
                    .map(|j| match (i + j) % 3 {
                        0 => edges[(i * 7 + j) % edges.len()],
                        1 => 0x1100 + next() % 0x3f00,
                        _ => next() % 0x8000,
                    })
                    .collect();
                sample(&stack)
            })
            .collect();
        let more = [sample(&[0x4fff, 0x9999, 0x1100]), sample(&[3])];
        let want = plain(&samples, &more);
        for bits in [0, 64, 0x3f00, MAX_BITS] {
            for halves in [usize::MAX, 1, 100] {
                crate::split::set(Work::Addresses, Some(halves));
                let spans = spans(&maps, bits);
                let got = {
                    let mut set = Set::new(&spans);
                    for s in samples.iter().chain(&more) {
                        for &a in &s.stack {
                            set.insert(a);
                        }
                    }
                    set.into_sorted()
                };
                assert_eq!(got, want, "max_bits {bits}");
                assert_eq!(
                    addresses(&[&samples], more.iter(), &maps),
                    want,
                    "halves {halves}"
                );
                // The same samples in three parts, with the mappings given twice.
                let (x, y) = samples.split_at(100);
                let (y, z) = y.split_at(150);
                assert_eq!(
                    addresses(&[x, y, &[], z], more.iter(), maps.iter().chain(&maps)),
                    want,
                    "in parts, halves {halves}"
                );
            }
        }
        crate::split::set(Work::Addresses, None);
    }

    /// Bits go to executable mappings only, the largest first while the budget lasts, none
    /// to one that overlaps a mapping already given bits.
    #[test]
    fn executable_mappings_get_bits_largest_first_without_overlaps() {
        let maps = [
            mapping(0x1000, 0x2000, "r-xp"),
            mapping(0x3000, 0x3100, "rw-p"),
            mapping(0x4000, 0x4800, "r-xp"),
            mapping(0x1800, 0x1900, "r-xp"),
            mapping(0x9000, 0x9000, "r-xp"),
        ];
        let got: Vec<(u64, u64, u64)> = spans(&maps, 0x1800)
            .iter()
            .map(|s| (s.start, s.len, s.first_bit))
            .collect();
        assert_eq!(got, [(0x1000, 0x1000, 0), (0x4000, 0x800, 0x1000)]);
        // The largest does not fit: the next ones do.
        let got: Vec<u64> = spans(&maps, 0x900).iter().map(|s| s.start).collect();
        assert_eq!(got, [0x1800, 0x4000]);
        assert!(spans(&maps, 0).is_empty());
    }
}
