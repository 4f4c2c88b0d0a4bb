//! Stage 2: turn addresses into function names, files and lines.
//!
//! The result is a [`SymbolTable`] kept beside the profile: address → the frames at that
//! address, the real (outermost) function first and the functions inlined into it after. An
//! address with no entry is printed as bare hex; pprof gives no entry to addresses in files it
//! cannot read.
//!
//! Three symbolizers fill the table:
//! * [`local::Local`] reads the program and its libraries (ELF symbols and DWARF) in-process,
//!   reproducing what google-pprof derives from `nm`, `objdump -h` and `addr2line -f -C -i`;
//! * [`embedded`] uses the names that came with a symbolized (`--raw`) profile;
//! * [`NoSymbols`] finds nothing.

pub mod cache;
pub mod demangle;
pub mod dwarf;
pub mod elf;
pub mod embedded;
pub mod extent;
pub mod local;
pub mod lookup;
pub mod names;
pub mod nm;
pub mod place;

use std::collections::HashMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

/// One function at an address: its full (demangled) name and its `file:line`.
///
/// The forms follow pprof: names pprof took from `nm` carry their start address
/// (`main<0000000000001170>`); an address in a file whose symbols do not cover it is named
/// `0x` + the address; unknown names and places are `??` and `??:0`; names from a symbolized
/// profile have the place `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The full function name (shared by the frames of one function).
    pub function: Arc<str>,
    /// `file:line`, `??:0` or `?`.
    pub fileline: place::Place,
    /// pprof's short name of `function` (see [`names::short_name`]), computed once.
    pub short: Arc<str>,
}

impl Frame {
    /// A frame, with its short name; `keep_templates` as `--no_strip_temp`.
    pub fn new(
        function: impl Into<Arc<str>>,
        fileline: impl Into<place::Place>,
        keep_templates: bool,
    ) -> Frame {
        let function = function.into();
        let short = Arc::from(names::short_name(&function, keep_templates));
        Frame {
            function,
            fileline: fileline.into(),
            short,
        }
    }
}

/// The address has no entry: in [`SymbolTable::entries_for`] (for an entry's index) and in
/// a symbol cache entry's [`cache::Call::counts`] (for its number of frames).
pub const NO_ENTRY: u32 = u32::MAX;

/// Address → frames, the real function first and inlined functions after it.
///
/// The frames of all addresses lie back to back in one array, in the order the addresses
/// were inserted (the symbolizers insert them mostly in address order; a symbol cache
/// entry's frames, adopted whole, may go first): passes over the
/// whole table read memory in order, and consecutive addresses, which mostly share their
/// function's name strings, are cheap to skip over.
#[derive(Debug, Default, Clone)]
pub struct SymbolTable {
    /// Address → its index in `entries`.
    index: FxHashMap<u64, u32>,
    /// Address and the range of `frames` that holds its frames, in insertion order.
    entries: Vec<(u64, u32, u32)>,
    frames: Vec<Frame>,
}

impl SymbolTable {
    /// An empty table.
    pub fn new() -> SymbolTable {
        SymbolTable::default()
    }

    /// The frames at `addr`, if it has an entry.
    pub fn get(&self, addr: u64) -> Option<&[Frame]> {
        let &i = self.index.get(&addr)?;
        let (_, lo, hi) = self.entries[i as usize];
        Some(&self.frames[lo as usize..hi as usize])
    }

    /// Per address of `addrs` (sorted and unique), the index of its entry ([`NO_ENTRY`]:
    /// none), for [`SymbolTable::entry`]: the entries are read in a row (they are mostly in
    /// address order, so each is mostly the address after the one before), not each address
    /// looked up in the index.
    pub fn entries_for(&self, addrs: &[u64]) -> Vec<u32> {
        let mut out = vec![NO_ENTRY; addrs.len()];
        let mut next = 0usize;
        for (i, &(a, _, _)) in self.entries.iter().enumerate() {
            let at = if addrs.get(next) == Some(&a) {
                next
            } else {
                match addrs.binary_search(&a) {
                    Ok(at) => at,
                    Err(_) => continue,
                }
            };
            // Each address has one entry (a replaced one is overwritten in place).
            out[at] = i as u32;
            next = at + 1;
        }
        out
    }

    /// The frames of entry `i` (an index from [`SymbolTable::entries_for`]).
    pub fn entry(&self, i: u32) -> Option<&[Frame]> {
        let &(_, lo, hi) = self.entries.get(i as usize)?;
        self.frames.get(lo as usize..hi as usize)
    }

    /// Makes room for `n` more addresses, with `frames` frames between them.
    pub fn reserve(&mut self, n: usize, frames: usize) {
        self.index.reserve(n);
        self.entries.reserve(n);
        self.frames.reserve(frames);
    }

    /// Sets the frames at `addr` (replacing those it had).
    pub fn insert(&mut self, addr: u64, frames: Vec<Frame>) {
        self.insert_frames(addr, frames);
    }

    /// Sets the frames at `addr` (replacing those it had) from an iterator.
    pub fn insert_frames(&mut self, addr: u64, frames: impl IntoIterator<Item = Frame>) {
        let lo = self.frames.len() as u32;
        self.frames.extend(frames);
        let hi = self.frames.len() as u32;
        match self.index.get(&addr) {
            // The old frames stay in the array, unused (a replaced entry is rare).
            Some(&i) => self.entries[i as usize] = (addr, lo, hi),
            None => {
                self.index.insert(addr, self.entries.len() as u32);
                self.entries.push((addr, lo, hi));
            }
        }
    }

    /// Sets the frames of each address of `addrs` that has an entry: `counts` (one per
    /// address, [`NO_ENTRY`] for none) says how many of `frames`, taken in order, are its.
    /// The larger of `frames` and the table's frames is kept, not copied: a symbol cache
    /// entry's frames (hundreds of thousands for a large profile) become the table's.
    pub fn insert_run(&mut self, addrs: &[u64], counts: &[u32], mut frames: Vec<Frame>) {
        let run = frames.len();
        let mut at = if run > self.frames.len() {
            // The run's frames become the table's, from 0; the table's own go after them.
            let own = std::mem::replace(&mut self.frames, frames);
            let shift = run as u32;
            for e in &mut self.entries {
                e.1 += shift;
                e.2 += shift;
            }
            self.frames.extend(own);
            0
        } else {
            let lo = self.frames.len();
            self.frames.append(&mut frames);
            lo
        };
        let end = at + run;
        self.index.reserve(addrs.len());
        self.entries.reserve(addrs.len());
        for (&addr, &k) in addrs.iter().zip(counts) {
            // (Counts beyond the frames given are no entry: the caller checked they are not.)
            if k == NO_ENTRY || at + k as usize > end {
                continue;
            }
            let (lo, hi) = (at as u32, (at + k as usize) as u32);
            at += k as usize;
            match self.index.get(&addr) {
                Some(&i) => self.entries[i as usize] = (addr, lo, hi),
                None => {
                    self.index.insert(addr, self.entries.len() as u32);
                    self.entries.push((addr, lo, hi));
                }
            }
        }
    }

    /// Number of addresses with an entry.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no address has an entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// True when any frame's short name satisfies `pred`.
    pub fn any_function(&self, pred: impl Fn(&str) -> bool) -> bool {
        let mut last: *const u8 = std::ptr::null();
        self.iter().flat_map(|(_, fs)| fs).any(|f| {
            // Consecutive frames mostly share their short name (one `Arc`): tried once.
            let p = Arc::as_ptr(&f.short) as *const u8;
            if p == last {
                return false;
            }
            last = p;
            pred(&f.short)
        })
    }

    /// Entries, in the order they were inserted.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &[Frame])> {
        self.entries
            .iter()
            .map(|&(a, lo, hi)| (a, &self.frames[lo as usize..hi as usize]))
    }

    /// Per address of `addrs` (sorted and unique: the addresses the table was made for),
    /// whether it has no name ([`is_unnamed`]): the entries found in a row
    /// ([`SymbolTable::entries_for`]), each run of addresses sharing a name looked at once.
    /// `None` unless the table's entries are for exactly the addresses of `addrs`.
    pub fn unnamed_flags(&self, addrs: &[u64]) -> Option<Vec<bool>> {
        if self.entries.len() != addrs.len() {
            return None;
        }
        let mut last = (std::ptr::null(), false);
        self.entries_for(addrs)
            .into_iter()
            .map(|e| {
                let &(_, lo, hi) = self.entries.get(e as usize)?;
                Some(self.entry_unnamed(lo, hi, &mut last))
            })
            .collect()
    }

    /// [`is_unnamed`] of the frames `lo..hi`; `last`: the name looked at before and its
    /// answer, kept for the next call (the next entry's name is mostly the same).
    fn entry_unnamed(&self, lo: u32, hi: u32, last: &mut (*const u8, bool)) -> bool {
        let frames = &self.frames[lo as usize..hi as usize];
        match frames.first() {
            None => true,
            Some(f) => {
                let p = Arc::as_ptr(&f.function) as *const u8;
                if p != last.0 {
                    *last = (p, is_unnamed(frames));
                }
                last.1
            }
        }
    }

    /// A mark for [`SymbolTable::unnamed_since`]: the entries made so far.
    pub fn mark(&self) -> usize {
        self.entries.len()
    }

    /// The addresses of `addrs` (unique) that have no name ([`is_unnamed`]), sorted. The
    /// caller made the entries since `mark` for `addrs` alone: when there are as many of
    /// them as addresses, they are read in a row (each run of frames sharing a name looked
    /// at once); otherwise each address is looked up.
    pub fn unnamed_since(&self, mark: usize, addrs: &[u64]) -> Vec<u64> {
        let mut out: Vec<u64> = match self.entries.get(mark..) {
            Some(new) if new.len() == addrs.len() => {
                let mut last = (std::ptr::null(), false);
                new.iter()
                    .filter(|&&(_, lo, hi)| self.entry_unnamed(lo, hi, &mut last))
                    .map(|&(a, _, _)| a)
                    .collect()
            }
            _ => addrs
                .iter()
                .copied()
                .filter(|&a| self.get(a).is_none_or(is_unnamed))
                .collect(),
        };
        out.sort_unstable();
        out
    }

    /// Entries, in address order.
    pub fn sorted(&self) -> Vec<(u64, &[Frame])> {
        let mut v: Vec<(u64, &[Frame])> = self.iter().collect();
        v.sort_unstable_by_key(|e| e.0);
        v
    }
}

/// True when the frames at an address give it no name: its outermost frame is unknown
/// (`??`), a bare address (`0x...`) or an address in a file ([`local::outside_name`]).
pub fn is_unnamed(frames: &[Frame]) -> bool {
    frames.first().is_none_or(|f| {
        let n = &*f.function;
        n == "??"
            || n.strip_prefix("0x")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
            || local::is_outside_name(n)
    })
}

/// Fills a symbol table for a set of addresses.
pub trait Symbolize {
    /// Symbolizes `addrs` (sorted, unique); messages for the user go to `warnings`.
    fn symbolize(&mut self, addrs: &[u64], warnings: &mut Vec<String>) -> SymbolTable;
}

/// The symbolizer that finds nothing: every address prints as hex.
pub struct NoSymbols;

impl Symbolize for NoSymbols {
    fn symbolize(&mut self, _addrs: &[u64], _warnings: &mut Vec<String>) -> SymbolTable {
        SymbolTable::new()
    }
}

/// A `HashMap`-backed symbolizer for tests and for callers that already know the names.
impl Symbolize for HashMap<u64, Vec<Frame>> {
    fn symbolize(&mut self, addrs: &[u64], _warnings: &mut Vec<String>) -> SymbolTable {
        let mut t = SymbolTable::new();
        for a in addrs {
            if let Some(f) = self.get(a) {
                t.insert(*a, f.clone());
            }
        }
        t
    }
}

/// Options that change what the symbolizer reports.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Directories searched for libraries (`--lib_prefix`), in order.
    pub lib_prefix: Vec<String>,
    /// An extra library whose symbols are used unrelocated (`--add_lib`).
    pub add_lib: Option<String>,
    /// Keep template arguments in short names (`--no_strip_temp`).
    pub keep_templates: bool,
    /// Behave as jeprof does (jemalloc profiles).
    pub jeprof: bool,
    /// Hex digits in an address (16, or 8 for 32-bit CPU profiles).
    pub address_width: usize,
    /// Name inlined functions that have no linkage name as google-pprof (binutils) does:
    /// after the function they were inlined into (`--pprof_quirks`).
    pub binutils_inline_names: bool,
    /// Name an address after the nearest symbol below it however far it is, as pprof does
    /// (`--pprof_quirks`); otherwise only after a symbol whose extent holds it
    /// ([`extent`]), the others being named `<file>+0x<file address>`.
    pub nearest_symbol: bool,
    /// `--list` and `--disasm` look for routines only in the symbol tables pprof's `nm`
    /// reads (`--pprof_quirks`): not in a stripped file's separate debug file.
    pub pprof_routines_only: bool,
    /// Inlined frames only for files in whose symbol table pprof's `nm` finds `_fini`
    /// (`--pprof_quirks`): pprof separates addr2line's answers with that address and, without
    /// it, asks for the innermost function alone. A stripped file's `.dynsym` has no `_fini`,
    /// so its inlined code loses the functions it was inlined into, even when its separate
    /// debug file names them.
    pub pprof_inlines_by_fini: bool,
    /// Where what was resolved is kept across runs ([`cache`]); `None`: not kept.
    pub cache: Option<cache::Cache>,
    /// The addresses are `--symbols`' input, not a profile's: warnings speak of it.
    pub symbols_input: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of frames larger than the table's is taken as the table's array, the frames the
    /// table had going after it with their entries moved; a smaller run is appended; every
    /// address reads back its own frames, and the entries keep their insertion order.
    #[test]
    fn runs_taken_whole_or_appended() {
        let f = |a: u64, i: u64| Frame::new(format!("f{a:x}_{i}"), format!("f.c:{a}"), false);
        let frames = |a: u64, k: u64| (0..k).map(|i| f(a, i)).collect::<Vec<_>>();
        let mut t = SymbolTable::new();
        t.insert(0x10, frames(0x10, 2));
        t.insert(0x20, frames(0x20, 1));
        // A run of 3 addresses (one without an entry) and 6 frames: taken whole.
        let run: Vec<Frame> = [(0x30, 2), (0x50, 4)]
            .iter()
            .flat_map(|&(a, k)| frames(a, k))
            .collect();
        t.insert_run(&[0x30, 0x40, 0x50], &[2, NO_ENTRY, 4], run);
        t.insert(0x60, frames(0x60, 1));
        // A smaller run: appended; a count past its frames is no entry.
        t.insert_run(&[0x70, 0x80], &[1, 5], frames(0x70, 1));
        // An address inserted again: its new frames.
        t.insert(0x20, frames(0x21, 3));
        let want = [
            (0x10, frames(0x10, 2)),
            (0x20, frames(0x21, 3)),
            (0x30, frames(0x30, 2)),
            (0x50, frames(0x50, 4)),
            (0x60, frames(0x60, 1)),
            (0x70, frames(0x70, 1)),
        ];
        for (a, fs) in &want {
            assert_eq!(t.get(*a), Some(fs.as_slice()), "{a:x}");
        }
        assert_eq!(t.get(0x40), None);
        assert_eq!(t.get(0x80), None);
        let got: Vec<(u64, Vec<Frame>)> = t.iter().map(|(a, fs)| (a, fs.to_vec())).collect();
        assert_eq!(got, want.to_vec());
        let addrs: Vec<u64> = want.iter().map(|w| w.0).collect();
        let ids = t.entries_for(&addrs);
        for (i, (_, fs)) in ids.iter().zip(&want) {
            assert_eq!(t.entry(*i), Some(fs.as_slice()));
        }
    }

    /// The unnamed addresses of the entries made since a mark, read in a row, are those
    /// found by looking each one up, sorted; with an address left without an entry, or one
    /// made before the mark, each is looked up.
    #[test]
    fn unnamed_since_a_mark_is_what_lookups_find() {
        let main: Arc<str> = Arc::from("main");
        let unknown: Arc<str> = Arc::from("??");
        let outside: Arc<str> = Arc::from("prog+0x1234");
        let f = |n: &Arc<str>| vec![Frame::new(n.clone(), "f.c:1".to_string(), false)];
        let mut t = SymbolTable::new();
        t.insert(0x10, f(&unknown));
        let mark = t.mark();
        // Made out of address order, runs of one shared name and changes between them.
        let names = [
            &main, &main, &unknown, &unknown, &main, &outside, &outside, &main,
        ];
        let addrs: Vec<u64> = (0..names.len() as u64).map(|i| 0x20 + 0x10 * i).collect();
        for (&a, n) in addrs.iter().zip(names).rev() {
            t.insert(a, f(n));
        }
        let looked_up = |t: &SymbolTable, addrs: &[u64]| -> Vec<u64> {
            let mut v: Vec<u64> = addrs
                .iter()
                .copied()
                .filter(|&a| t.get(a).is_none_or(is_unnamed))
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(t.unnamed_since(mark, &addrs), vec![0x40, 0x50, 0x70, 0x80]);
        assert_eq!(t.unnamed_since(mark, &addrs), looked_up(&t, &addrs));
        let mut more = addrs.clone();
        more.push(0x1000);
        assert_eq!(t.unnamed_since(mark, &more), looked_up(&t, &more));
        assert!(t.unnamed_since(mark, &more).contains(&0x1000));
        let mut all = addrs.clone();
        all.insert(0, 0x10);
        assert_eq!(t.unnamed_since(0, &all), looked_up(&t, &all));
        assert_eq!(t.unnamed_since(0, &all)[0], 0x10);
    }

    /// The entries read in a row for some addresses are the ones their lookups find: with
    /// entries made in two runs out of order, a replaced entry, an entry for an address not
    /// asked about and addresses without one.
    #[test]
    fn entries_for_addresses_are_what_lookups_find() {
        let mut t = SymbolTable::new();
        let frame = |a: u64| vec![Frame::new(format!("f{a:x}"), "f.c:1".to_string(), false)];
        for a in (0x100..0x180).step_by(8).chain((0x10..0x100).step_by(8)) {
            t.insert(a, frame(a));
        }
        t.insert(0x20, frame(0x999));
        t.insert(0x5000, frame(0x5000));
        let mut addrs: Vec<u64> = (0x8..0x190).step_by(4).collect();
        addrs.push(0x4fff);
        let entries = t.entries_for(&addrs);
        assert_eq!(entries.len(), addrs.len());
        for (&a, &e) in addrs.iter().zip(&entries) {
            assert_eq!(t.entry(e), t.get(a), "address {a:#x}");
        }
        assert_eq!(entries.iter().filter(|&&e| e != NO_ENTRY).count(), 46);
        let at = addrs.iter().position(|&a| a == 0x20).unwrap_or(0);
        assert_eq!(&*t.entry(entries[at]).unwrap_or(&[])[0].function, "f999");
        assert_eq!(t.entry(NO_ENTRY), None);
    }

    /// The unnamed flags of a table made for some addresses are what lookups find; a table
    /// with as many entries, one of them for another address, gives none (the caller looks
    /// each address up instead).
    #[test]
    fn unnamed_flags_only_for_the_table_s_own_addresses() {
        let names: Vec<Arc<str>> = ["main", "??", "prog+0x40"].map(Arc::from).to_vec();
        let mut t = SymbolTable::new();
        let addrs: Vec<u64> = (0..30u64).map(|i| 0x10 * (i + 1)).collect();
        for (i, &a) in addrs.iter().enumerate().rev() {
            let n = &names[i / 4 % 3];
            t.insert(a, vec![Frame::new(n.clone(), "f.c:1".to_string(), false)]);
        }
        let want: Vec<bool> = addrs
            .iter()
            .map(|&a| t.get(a).is_none_or(is_unnamed))
            .collect();
        assert!(want.contains(&true) && want.contains(&false));
        assert_eq!(t.unnamed_flags(&addrs), Some(want));
        // A named address moved off its entry: it has none, so it is unnamed.
        let mut other = addrs.clone();
        other[1] += 1;
        assert_eq!(t.unnamed_flags(&other), None);
        assert_eq!(t.unnamed_flags(&addrs[1..]), None);
    }
}
