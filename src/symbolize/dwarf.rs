//! DWARF lookups with binutils 2.40's answers: what `addr2line -f -i` reads from
//! `.debug_info` and `.debug_line` for an address.
//!
//! binutils' rules, reproduced here:
//! * the compilation unit is the one whose ranges hold the address;
//! * the function is the one (subprogram or inlined subroutine) with the *smallest range*
//!   holding the address, the later DIE winning ties;
//! * the line is that of the last line-table row at or below the address in its sequence
//!   (every row counts, `is_stmt` or not; of rows at one address the last one wins);
//! * file names are joined from the compilation directory, the line table's directory and
//!   the file name as binutils' `concat_filename` does;
//! * with `-i`, each inlined function is followed by its caller, named by the caller's own
//!   name, at the inlined call's `DW_AT_call_file`/`DW_AT_call_line` (rpprof names the
//!   outermost caller, when it has no linkage name, by the symbol holding the address, as
//!   where it is the innermost: a documented difference);
//! * a function without `DW_AT_linkage_name` in a language with mangling (C++, Rust) is named
//!   from the ELF symbol table: the symbol holding the address. binutils does that for
//!   inlined functions too, which names an inlined function after the function it was
//!   inlined into; rpprof names an inlined function by its own DWARF name, qualified with
//!   its namespaces and classes, and what is declared in a function (a local class, a
//!   lambda's unnamed closure type, numbered `{lambda#N}` in the function as GCC numbers
//!   them) with the function's name, as a demangler names their out-of-line copies (a
//!   documented difference).
//!
//! Separate debug files are found by build id (`/usr/lib/debug/.build-id/xx/yyyy.debug`)
//! and by `.gnu_debuglink` (next to the file, in `.debug/`, under `/usr/lib/debug`), as
//! binutils looks for them; the supplementary file `dwz -m` moves shared entries and strings
//! into (`.gnu_debugaltlink`, as in Debian's and Fedora's debug packages) by its name and by
//! its build id.

use rustc_hash::FxHashMap as HashMap;
use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gimli::{AttributeValue, DwLang, EndianSlice, RunTimeEndian, Section, SectionId, constants};
use memmap2::Mmap;
use object::{Object, ObjectSection};

use super::elf::Elf;
use super::lookup::{DwarfFrame, DwarfSource};

type R<'a> = EndianSlice<'a, RunTimeEndian>;

/// The bytes of every DWARF section of one file, mapped or decompressed.
struct Sections {
    map: Arc<Mmap>,
    ranges: HashMap<SectionId, (usize, usize)>,
    owned: HashMap<SectionId, Vec<u8>>,
    endian: RunTimeEndian,
    /// The supplementary file's sections (`.gnu_debugaltlink`), when it has one.
    sup: Option<Box<Sections>>,
    /// The split DWARF files (`-gsplit-dwarf`: the `.dwo` file each skeleton unit names),
    /// by path, for the units that hold wanted addresses and are not in `dwp`.
    dwos: Vec<(PathBuf, Sections)>,
    /// The package of the split DWARF files (`dwp`'s `<program>.dwp`), when there is one.
    dwp: Option<Box<Sections>>,
    /// Where the file's code is (see [`Code`]).
    code: Code,
    /// When only the start of a compressed `.debug_info` is read (see [`info_prefix`]):
    /// how much, and where its inflation stopped.
    info_rest: Option<InfoRest>,
}

/// The rest of a zlib-compressed `.debug_info` of which only the start is read: the
/// stream's state, where its compressed bytes are in the file, the section's size, and
/// the bytes read (the start of those inflated: whole units).
struct InfoRest {
    z: flate2::Decompress,
    from: usize,
    len: usize,
    total: usize,
    kept: usize,
}

/// Where a file's code is: from the lowest address of its executable sections to the end of
/// the highest (none known: every address). A function the linker discarded
/// (`--gc-sections`) keeps its DWARF, with the addresses into its section resolved to a
/// tombstone: 0 by GNU ld 2.40 and lld 14 (1 in `.debug_ranges`), -1 or -2 by later lld. In
/// a small PIE, whose code starts a few KB above 0, the discarded function's range
/// `[0, size)` covers live code: binutils names `_start` after it and answers a live
/// function's lines from its line sequence. A sequence starting outside the code is
/// dropped; so is a function with a range starting there, with every function inside it:
/// an inlined copy's ranges may be offsets from a base address that was the tombstone
/// (DWARF 5's `DW_RLE_base_addressx`, `DW_RLE_offset_pair`), which land anywhere.
#[derive(Clone, Copy, Debug, Default)]
struct Code(Option<(u64, u64)>);

impl Code {
    /// The executable sections of `file` (for a separate debug file, its `NOBITS` copies of
    /// them, which keep their addresses and flags).
    fn of(file: &object::File<'_>) -> Code {
        let mut extent: Option<(u64, u64)> = None;
        for sec in file.sections() {
            let object::SectionFlags::Elf { sh_flags, .. } = sec.flags() else {
                continue;
            };
            let flags = object::elf::SHF_ALLOC.0 | object::elf::SHF_EXECINSTR.0;
            if sh_flags.0 & flags != flags || sec.size() == 0 {
                continue;
            }
            let (lo, hi) = (sec.address(), sec.address().saturating_add(sec.size()));
            extent = Some(extent.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
        }
        Code(extent)
    }

    /// False for an address outside the code: the start of something the linker discarded.
    fn holds(self, addr: u64) -> bool {
        self.0.is_none_or(|(lo, hi)| lo <= addr && addr < hi)
    }
}

impl Sections {
    /// Tells the kernel that the mapped sections' pages are not needed for now: once every
    /// unit a profile needs is parsed, lookups read only the parsed tables, and the pages
    /// (tens of MB in a big program) need not stay resident. A page touched again is read
    /// back from the file.
    fn release(&self) {
        for &(start, end) in self.ranges.values() {
            // SAFETY: `map` is a read-only private mapping of a file that is never written
            // through it: MADV_DONTNEED only drops the process's copies of unmodified file
            // pages, and a later access sees the same bytes, read again from the file (or
            // the page cache). No Rust reference into the mapping is invalidated.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    end.saturating_sub(start),
                )
            };
        }
    }

    /// [`Sections::release`] for the bytes of one unit, once it is parsed: its entries and
    /// its line program (when they are mapped, not inflated).
    fn release_unit(&self, unit: Option<&Option<gimli::Unit<R<'_>>>>) {
        let Some(Some(unit)) = unit else { return };
        // The units are those of `.debug_info` (`Tables::new`).
        let info = (
            SectionId::DebugInfo,
            unit.header.offset().0,
            unit.header.length_including_self(),
        );
        let line = unit.line_program.as_ref().map(|lp| {
            let h = lp.header();
            let len = h
                .unit_length()
                .saturating_add(usize::from(h.format().initial_length_size()));
            (SectionId::DebugLine, h.offset().0, len)
        });
        for (id, off, len) in std::iter::once(info).chain(line) {
            let Some(&(start, end)) = self.ranges.get(&id) else {
                continue;
            };
            let from = start.saturating_add(off);
            let to = from.saturating_add(len).min(end);
            if from < to {
                // SAFETY: as in `release`.
                let _ = unsafe {
                    self.map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        from,
                        to - from,
                    )
                };
            }
        }
    }

    fn data(&self, id: SectionId) -> &[u8] {
        if let Some(v) = self.owned.get(&id) {
            return match (&self.info_rest, id) {
                (Some(r), SectionId::DebugInfo) => v.get(..r.kept).unwrap_or_default(),
                _ => v,
            };
        }
        match self.ranges.get(&id) {
            Some(&(s, e)) => self.map.get(s..e).unwrap_or_default(),
            None => &[],
        }
    }
}

/// A function (subprogram or inlined subroutine) as binutils records it.
struct Func {
    inlined: bool,
    /// The nearest enclosing function DIE.
    caller: Option<u32>,
    /// `DW_AT_call_file` of an inlined subroutine: an index into the unit's file names
    /// (`NO_FILE`: none).
    call_file: u32,
    call_line: u32,
    /// The name binutils reads (linkage name preferred), raw (mangled); shared with the
    /// abstract instance it came from.
    name: Option<Arc<str>>,
    /// binutils' `is_linkage`.
    is_linkage: bool,
    /// The namespace/class prefix of the DIE the name came from (`a::b`), shared.
    scope: Option<Arc<str>>,
    /// The first address range, binutils' `function->arange` (empty when `lo == hi`).
    range: (u64, u64),
    /// The other ranges: (start, count) in the unit's `more_ranges`.
    more: (u32, u32),
}

/// `Func::call_file` when there is none.
const NO_FILE: u32 = u32::MAX;

impl Func {
    /// The address ranges, the first one first.
    fn ranges<'e>(&self, more_ranges: &'e [(u64, u64)]) -> impl Iterator<Item = (u64, u64)> + 'e {
        let first = (self.range.0 != self.range.1).then_some(self.range);
        let (start, n) = (self.more.0 as usize, self.more.1 as usize);
        first.into_iter().chain(
            more_ranges
                .get(start..start + n)
                .unwrap_or(&[])
                .iter()
                .copied(),
        )
    }

    /// The call file's name (`<unknown>` for an index the unit does not have).
    fn call_file_name(&self, files: &[Option<Arc<str>>]) -> Option<Arc<str>> {
        if self.call_file == NO_FILE {
            return None;
        }
        files
            .get(self.call_file as usize)
            .cloned()
            .flatten()
            .or_else(|| Some(Arc::from("<unknown>")))
    }
}

/// One row of a line sequence.
#[derive(Clone, Copy)]
struct Row {
    addr: u64,
    op_index: u8,
    file: u32,
    line: u32,
    discriminator: u32,
    end: bool,
}

/// A row as kept after decoding (16 bytes: line tables are the biggest thing rpprof holds).
/// The end-of-sequence row is always last; discriminators are kept apart, as few rows have
/// one.
#[derive(Clone, Copy)]
struct LineRow {
    addr: u64,
    line: u32,
    file: u32,
}

struct Sequence {
    low: u64,
    rows: Box<[LineRow]>,
    /// (row index, discriminator) for the rows with a discriminator, by index.
    discriminators: Box<[(u32, u32)]>,
}

impl Sequence {
    /// The sequence of `rows` starting at `low`; with `keep`, only the rows of those indices
    /// (ascending, the last row among them).
    fn new(rows: &[Row], low: u64, keep: Option<&[usize]>) -> Sequence {
        let kept: Vec<&Row> = match keep {
            Some(k) => k.iter().filter_map(|&i| rows.get(i)).collect(),
            None => rows.iter().collect(),
        };
        Sequence {
            low,
            rows: kept
                .iter()
                .map(|r| LineRow {
                    addr: r.addr,
                    line: r.line,
                    file: r.file,
                })
                .collect(),
            discriminators: kept
                .iter()
                .enumerate()
                .filter(|(_, r)| r.discriminator != 0)
                .map(|(i, r)| (i as u32, r.discriminator))
                .collect(),
        }
    }

    fn discriminator(&self, row: usize) -> u32 {
        match self
            .discriminators
            .binary_search_by_key(&(row as u32), |d| d.0)
        {
            Ok(i) => self.discriminators[i].1,
            Err(_) => 0,
        }
    }
}

/// A compilation unit's tables, parsed on first use.
struct Parsed {
    funcs: Box<[Func]>,
    /// Function ranges after the first (see `Func::more`).
    more_ranges: Box<[(u64, u64)]>,
    /// (lowest address, high-water mark, function index), sorted as binutils sorts.
    lookup: Vec<(u64, u64, u32)>,
    sequences: Vec<Sequence>,
    /// Line-table file names by index into `file_names`; `None` = unknown.
    file_names: Vec<Option<Arc<str>>>,
    /// Names binutils has since taken from the symbol table (its `function->name = ...`).
    renamed: RefCell<HashMap<u32, Option<Arc<str>>>>,
    /// The addresses the unit's line sequences and functions cover outside the unit's own
    /// ranges, merged and sorted (empty in well-formed DWARF): once a unit is read, binutils
    /// finds it by the addresses its sequences and functions cover, and those inside its own
    /// ranges find it anyway.
    excess: Vec<(u64, u64)>,
    /// Where the unit's entries could not be read on (see `Scratch::damaged`).
    damaged: Option<usize>,
}

struct UnitSlot<'a> {
    header: gimli::UnitHeader<R<'a>>,
    /// The unit with all its abbreviations and its line program's header, made when a
    /// lookup first needs it (`None`: they cannot be read). A big library's debug file has
    /// thousands of units, of which a profile needs a few.
    full: std::sync::OnceLock<Option<gimli::Unit<R<'a>>>>,
    lang: Option<DwLang>,
    comp_dir: Option<String>,
    /// The unit's own address ranges (`DW_AT_ranges`, `DW_AT_low_pc`/`DW_AT_high_pc`).
    ranges: Vec<(u64, u64)>,
    /// A partial unit (`DW_TAG_partial_unit`): entries other units import or refer to.
    partial: bool,
    /// A skeleton unit's split unit (in its `.dwo` file), which holds its functions.
    split: Option<Box<Split<'a>>>,
}

/// The split unit of a skeleton unit: its file's DWARF (with the program's `.debug_addr`)
/// and the unit, its addresses relocated as the skeleton's, alone in its list.
struct Split<'a> {
    dwarf: gimli::Dwarf<R<'a>>,
    units: Units<'a>,
}

/// A file's units, and those of its supplementary file (see [`Sections::sup`]), listed
/// when a reference first leads there.
struct Units<'a> {
    list: Vec<UnitSlot<'a>>,
    /// A reference led past the last unit (with only the start of `.debug_info` read:
    /// into a unit not read; see [`info_prefix`]).
    past_end: std::sync::atomic::AtomicBool,
    sup: std::sync::OnceLock<Box<Units<'a>>>,
    /// Unit index → the scopes of its subprogram entries, read when a reference from
    /// another unit first leads there (see [`Units::scope_of`]).
    scopes: Box<[std::sync::OnceLock<ScopeTable>]>,
}

/// What [`Units::scope_of`] reads of a unit once, in the form of [`Scopes`].
#[derive(Default)]
struct ScopeTable {
    /// The named scopes (namespaces, classes, structures, unions) not in a function, joined
    /// with those they are in (`ns::Class`).
    names: Box<[Arc<str>]>,
    /// The function entries not in a function: (offset, end of their entries, index into
    /// `names` or [`NO_SCOPE`]), by offset. A function's scope is found by its offset, what
    /// is declared in one by reading its entries, as those of a function a scan skipped.
    funcs: Box<[(usize, usize, u32)]>,
}

impl<'a> std::ops::Deref for Units<'a> {
    type Target = [UnitSlot<'a>];
    fn deref(&self) -> &[UnitSlot<'a>] {
        &self.list
    }
}

impl<'a> Units<'a> {
    fn new(list: Vec<UnitSlot<'a>>) -> Units<'a> {
        let scopes = (0..list.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        Units {
            list,
            past_end: std::sync::atomic::AtomicBool::new(false),
            sup: std::sync::OnceLock::new(),
            scopes,
        }
    }

    /// The scope of the subprogram entry at `offset` of unit `u`, read from that unit
    /// alone: for an entry that a reference from another unit leads to. GCC's LTO units
    /// refer to the declarations in the units of its first compilation (an inlined
    /// `static` function in a namespace, which has no linkage name, is named from one),
    /// `dwz` moves declarations into partial units. What is declared in a function (a
    /// local class, a lambda's closure type) is named as [`Scopes::get`] names it.
    fn scope_of(&self, dwarf: &gimli::Dwarf<R<'a>>, u: usize, offset: usize) -> Option<Arc<str>> {
        let unit = self.list.get(u)?.unit(dwarf)?;
        let t = self.scopes.get(u)?.get_or_init(|| read_scopes(dwarf, unit));
        Scopes::of(u, &[], &t.names, &t.funcs, dwarf, unit).get(u, offset)
    }

    /// The units of a supplementary file (entries referred to, no code: their ranges and
    /// line programs are never looked at).
    fn of_sup(sup: &gimli::Dwarf<R<'a>>) -> Units<'a> {
        let mut list = Vec::new();
        let mut headers = sup.units();
        while let Ok(Some(header)) = headers.next() {
            if let Some(slot) = unit_slot(sup, header) {
                list.push(slot);
            }
        }
        Units::new(list)
    }

    /// The unit holding the entry at `o` of `.debug_info`, and the entry's offset in it.
    fn holding(&self, o: gimli::DebugInfoOffset) -> Option<(usize, gimli::UnitOffset)> {
        if let Some(last) = self.list.last()
            && o.0 >= last.header.offset().0 + last.header.length_including_self()
        {
            self.past_end
                .store(true, std::sync::atomic::Ordering::Relaxed);
            return None;
        }
        // (The units of `.debug_info`, in order.)
        let i = self
            .list
            .partition_point(|s| s.header.offset().0 <= o.0)
            .checked_sub(1)?;
        Some((i, o.to_unit_offset(&self.list[i].header)?))
    }
}

struct Tables<'a> {
    dwarf: gimli::Dwarf<R<'a>>,
    units: Units<'a>,
    /// Unit index → its tables, once parsed.
    parsed: Vec<OnceCell<Option<Parsed>>>,
    /// Unit index → binutils has read it (it is in `read`).
    is_read: RefCell<Vec<bool>>,
    /// Unit address ranges: (low, high, unit index), sorted.
    index: Vec<(u64, u64, usize)>,
    /// Running maximum of `index` highs, to stop scanning back early.
    index_high: Vec<u64>,
    /// Units read so far, in the order they were read.
    read: RefCell<Vec<usize>>,
    /// Units without ranges, scanned when the index has no answer.
    rangeless: Vec<usize>,
    /// The covered ranges of the units parsed by [`Tables::prefetch`], to find read units
    /// that cover an address without asking each one.
    covered: RefCell<CoveredIndex>,
    /// The only addresses that will be looked up (sorted), when known: units keep only the
    /// rows and functions that answer them.
    wanted: Option<Arc<[u64]>>,
    /// Where `.debug_info` stops being readable (the byte of the unit header that cannot be
    /// read, and why), when it does before its end.
    broken: Option<(u64, String)>,
    /// Units left out of the index because their root entry cannot be read.
    unreadable_roots: usize,
    /// DWARF 5 line programs start at file 0, as binutils 2.40 reads them (--pprof_quirks).
    binutils_files: bool,
    /// Where the file's code is: ranges and sequences starting elsewhere were discarded.
    code: Code,
}

/// Covered ranges of several units: (low, high, unit) by low, with the running maximum of
/// the highs.
#[derive(Default)]
struct CoveredIndex {
    ranges: Vec<(u64, u64, u32)>,
    high: Vec<u64>,
    /// Unit index → its ranges are in `ranges`.
    has: Vec<bool>,
}

self_cell::self_cell!(
    struct DwarfCell {
        owner: Sections,
        #[not_covariant]
        dependent: Tables,
    }
);

/// The DWARF of one file, answering binutils-style lookups.
pub struct Dwarf {
    cell: DwarfCell,
    /// The separate debug file the DWARF was read from, if any.
    debug: Option<Elf>,
    /// Name inlined functions without a linkage name as binutils does (after the symbol
    /// holding the address) instead of by their own qualified DWARF name.
    binutils_inline_names: bool,
    /// The `.dwo` files that could not be read, and why.
    missing_dwo: Vec<String>,
    /// What is wrong with the package of the split DWARF files, if something is.
    dwp_problem: Option<String>,
}

/// Loads the DWARF of `elf` (or of its separate debug file), if it has any;
/// `binutils_inline_names` as [`Dwarf::binutils_inline_names`].
pub fn load(
    elf: &Elf,
    binutils_inline_names: bool,
    warnings: &mut Vec<String>,
) -> Option<Box<dyn DwarfSource>> {
    load_for(elf, binutils_inline_names, None, &mut None, warnings)
}

/// [`load`] for lookups of the sorted file addresses `wanted` only (when given): units keep
/// only what answers them, and other addresses get unspecified answers. `names_from` gets
/// the separate debug file of a file without DWARF when that file's DWARF cannot be used
/// (it has none, or it cannot be read) but its symbol table can name the addresses.
pub fn load_for(
    elf: &Elf,
    binutils_inline_names: bool,
    wanted: Option<Arc<[u64]>>,
    names_from: &mut Option<Elf>,
    warnings: &mut Vec<String>,
) -> Option<Box<dyn DwarfSource>> {
    let (file, map, debug) = if elf.has_dwarf() {
        (elf.path.clone(), elf.data.clone(), None)
    } else {
        let Some(path) = find_debug_file(elf) else {
            warn_mismatched_debug_file(elf, warnings);
            return None;
        };
        match Elf::open(&path) {
            Ok(dbg) if dbg.has_dwarf() => (path, dbg.data.clone(), Some(dbg)),
            Ok(dbg) => {
                // (A debug file of a build without -g: its symbols alone.)
                if !dbg.symtab().is_empty() {
                    *names_from = Some(dbg);
                }
                return None;
            }
            Err(e) => {
                warnings.push(format!("Warning: {}: {e}", path.display()));
                return None;
            }
        }
    };
    let holder = debug.as_ref().unwrap_or(elf);
    let sup = match find_sup_file(holder) {
        Ok(Some(sup)) => match Sections::read(sup.data.clone(), false) {
            Ok(sections) => {
                if let Some(why) = sup_damage(&sections) {
                    warnings.push(format!(
                        "Warning: {}: the file {} it shares entries with is damaged ({why}): names kept there may be missing",
                        file.display(),
                        sup.path.display()
                    ));
                }
                Some(sections)
            }
            Err(e) => {
                warnings.push(format!(
                    "Warning: {}: cannot read the DWARF of {}, with which it shares entries ({e}): the names kept there (of inlined functions, mostly) are missing",
                    file.display(),
                    sup.path.display()
                ));
                None
            }
        },
        Ok(None) => None,
        Err(name) => {
            warnings.push(format!(
                "Warning: {}: its DWARF shares entries with the file {} (its .gnu_debugaltlink, written by dwz), which is not there or is of another build: the names kept there (of inlined functions, mostly) are missing (Debian installs it with the -dbgsym package, under /usr/lib/debug/.dwz)",
                file.display(),
                name.display()
            ));
            None
        }
    };
    let dwps = dwp_places(&[&file, &elf.path]);
    match Dwarf::with_sup(map, sup, &dwps, wanted, binutils_inline_names) {
        Ok(mut d) => {
            if let Some(first) = d.missing_dwo.first() {
                warnings.push(format!(
                    "Warning: {}: built with -gsplit-dwarf, its functions are in .dwo files, of which {} cannot be read (e.g. {first}): their addresses are named from the symbol table, without inlined functions (rpprof reads them where the build left them, or packed by dwp into {})",
                    file.display(),
                    d.missing_dwo.len(),
                    dwps.first().map(|p| p.display().to_string()).unwrap_or_default()
                ));
            }
            if let Some(p) = &d.dwp_problem {
                warnings.push(format!(
                    "Warning: {}: its split DWARF package {p}: those units are read from their .dwo files",
                    file.display()
                ));
            }
            d.debug = debug;
            d.binutils_inline_names = binutils_inline_names;
            Some(Box::new(d))
        }
        Err(e) => {
            // (With --pprof_quirks a debug file's symbols are not used: binutils reads only
            // its DWARF.)
            let names = match &debug {
                Some(_) if binutils_inline_names => format!(
                    "{}'s addresses are named from its own symbols (--pprof_quirks)",
                    elf.path.display()
                ),
                _ => "using its symbol table".to_string(),
            };
            warnings.push(format!(
                "Warning: {}: cannot read its DWARF ({e}); {names}",
                file.display()
            ));
            *names_from = debug.filter(|d| !d.symtab().is_empty());
            None
        }
    }
}

/// binutils' search for a separate debug file: by build id, then by `.gnu_debuglink`.
pub fn find_debug_file(elf: &Elf) -> Option<PathBuf> {
    let (by_id, by_link) = debug_file_places(elf);
    if let Some(p) = by_id
        && let Ok(dbg) = Elf::open(&p)
        && dbg.build_id.is_some()
        && dbg.build_id == elf.build_id
    {
        return Some(p);
    }
    let (_, crc) = elf.debuglink.as_ref()?;
    by_link.into_iter().find(|c| crc_matches(c, *crc))
}

/// The supplementary file that `holder`'s `.gnu_debugaltlink` names, if it has one:
/// the first of [`sup_file_places`] whose build id is the link's. `Err`: the name, when
/// none is.
pub fn find_sup_file(holder: &Elf) -> Result<Option<Elf>, PathBuf> {
    let Some((name, id)) = &holder.debugaltlink else {
        return Ok(None);
    };
    sup_file_places(holder)
        .iter()
        .filter_map(|p| Elf::open(p).ok())
        .find(|sup| id.is_empty() || sup.build_id.as_deref() == Some(id.as_slice()))
        .map(Some)
        .ok_or_else(|| name.clone())
}

/// Where the file named by `holder`'s `.gnu_debugaltlink` may be: its name when absolute,
/// else in `holder`'s directory (as named and after symbolic links: a debug file is often
/// reached through `.build-id/`); and by the link's build id under `/usr/lib/debug`.
fn sup_file_places(holder: &Elf) -> Vec<PathBuf> {
    let Some((name, id)) = &holder.debugaltlink else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if name.is_absolute() {
        out.push(name.clone());
    } else {
        let real = std::fs::canonicalize(&holder.path).ok();
        for file in std::iter::once(&holder.path).chain(real.as_ref()) {
            if let Some(dir) = file.parent() {
                out.push(dir.join(name));
            }
        }
    }
    out.extend(build_id_path(id));
    out.dedup();
    out
}

/// What is damaged in a supplementary file's units, if anything: where its `.debug_info`
/// stops being readable, or how many units' root entries cannot be read. (Its entries
/// are read only when a reference leads there, by the threads that parse units.)
fn sup_damage(s: &Sections) -> Option<String> {
    let dwarf = load_dwo(s)?;
    let mut headers = dwarf.units();
    let mut unreadable = 0usize;
    let mut at = 0u64;
    loop {
        match headers.next() {
            Ok(Some(header)) => {
                at = (header.offset().0 + header.length_including_self()) as u64;
                if root_unit(&dwarf, header).is_none() {
                    unreadable += 1;
                }
            }
            Ok(None) => break,
            Err(e) => {
                return Some(format!(
                    "its .debug_info cannot be read from byte {at}: {e}"
                ));
            }
        }
    }
    (unreadable > 0).then(|| format!("{unreadable} units whose first entry cannot be read"))
}

/// Every other file the DWARF of `elf` may read besides its separate debug file (see
/// [`debug_file_candidates`]): a supplementary file ([`find_sup_file`]) and split DWARF
/// files (`.dwo` files, `<file>.dwp`), named by `elf` itself or by any separate debug file
/// it may use (each opened once). With [`debug_file_candidates`], what decides the answers
/// besides `elf`.
pub fn dependency_candidates(elf: &Elf) -> Vec<PathBuf> {
    let opened: Vec<Elf>;
    let holders: &[Elf] = if elf.has_dwarf() {
        std::slice::from_ref(elf)
    } else {
        opened = debug_file_candidates(elf)
            .iter()
            .filter(|c| std::fs::metadata(c).is_ok_and(|m| m.is_file()))
            .filter_map(|c| Elf::open(c).ok())
            .collect();
        &opened
    };
    let mut out = Vec::new();
    for holder in holders {
        out.extend(sup_file_places(holder));
        out.extend(split_dwarf_places(holder, elf));
    }
    out
}

/// `/usr/lib/debug/.build-id/xx/yyyy.debug` for the build id `id`.
fn build_id_path(id: &[u8]) -> Option<PathBuf> {
    if id.len() < 2 {
        return None;
    }
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    Some(PathBuf::from(format!(
        "{DEBUGDIR}/.build-id/{}/{}.debug",
        &hex[..2],
        &hex[2..]
    )))
}

/// Where binutils looks for separate debug files.
const DEBUGDIR: &str = "/usr/lib/debug";

/// Every path [`find_debug_file`] may read: what decides which debug file is used.
pub fn debug_file_candidates(elf: &Elf) -> Vec<PathBuf> {
    let (by_id, by_link) = debug_file_places(elf);
    by_id.into_iter().chain(by_link).collect()
}

/// The build-id path of `elf`'s debug file, and the `.gnu_debuglink` ones (next to the
/// file, in its `.debug/`, under `/usr/lib/debug`).
fn debug_file_places(elf: &Elf) -> (Option<PathBuf>, Vec<PathBuf>) {
    let by_id = elf.build_id.as_deref().and_then(build_id_path);
    let Some((name, _)) = elf.debuglink.as_ref() else {
        return (by_id, Vec::new());
    };
    let real = std::fs::canonicalize(&elf.path).unwrap_or_else(|_| elf.path.clone());
    let dir = real.parent().unwrap_or(Path::new("/"));
    // binutils appends the name to each directory: a name that starts with `/` does not
    // leave it (Path::join would make it the whole path).
    let name = name.strip_prefix("/").unwrap_or(name);
    let rel = dir.strip_prefix("/").unwrap_or(dir);
    let by_link = vec![
        dir.join(name),
        dir.join(".debug").join(name),
        Path::new(DEBUGDIR).join(rel).join(name),
    ];
    (by_id, by_link)
}

/// A `.gnu_debuglink` file that is there but belongs to another build (its CRC differs):
/// binutils and rpprof do not use it; say so, since the names it would give are missing.
fn warn_mismatched_debug_file(elf: &Elf, warnings: &mut Vec<String>) {
    let (_, candidates) = debug_file_places(elf);
    if let Some(c) = candidates
        .iter()
        .find(|c| std::fs::metadata(c).is_ok_and(|m| m.is_file()))
    {
        warnings.push(format!(
            "Warning: {}: its debug file {} is from another build (the checksum in its .gnu_debuglink differs), so it is not used; find the debug file of this build",
            elf.path.display(),
            c.display()
        ));
    }
}

fn crc_matches(path: &Path, crc: u32) -> bool {
    // Only regular files: a debug link naming a device or a FIFO must not hang the read.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    match std::fs::read(path) {
        Ok(data) => crc32fast::hash(&data) == crc,
        Err(_) => false,
    }
}

impl Dwarf {
    /// Reads the DWARF sections of the ELF file mapped at `map`. With `wanted` (sorted file
    /// addresses), only lookups of those addresses are answered right, and parsed units keep
    /// only what answers them.
    pub fn new(map: Arc<Mmap>, wanted: Option<Arc<[u64]>>) -> Result<Dwarf, String> {
        Dwarf::with_sup(map, None, &[], wanted, false)
    }

    /// [`Dwarf::new`], with the sections of the supplementary file that the file's
    /// `.gnu_debugaltlink` names (see [`find_sup_file`]).
    /// `dwps`: where a package of its split DWARF files may be.
    fn with_sup(
        map: Arc<Mmap>,
        sup: Option<Sections>,
        dwps: &[PathBuf],
        wanted: Option<Arc<[u64]>>,
        binutils: bool,
    ) -> Result<Dwarf, String> {
        Dwarf::build(map, sup, dwps, wanted, binutils, true)
    }

    /// [`Dwarf::with_sup`]; `prefix`: only the start of a compressed `.debug_info` may be
    /// read (see [`info_prefix`]).
    fn build(
        map: Arc<Mmap>,
        sup: Option<Sections>,
        dwps: &[PathBuf],
        wanted: Option<Arc<[u64]>>,
        binutils: bool,
        prefix: bool,
    ) -> Result<Dwarf, String> {
        let file_map = Arc::clone(&map);
        let mut sections = Sections::read_for(map, false, wanted.as_deref().filter(|_| prefix))?;
        let mut split = split_units(&sections, wanted.as_deref());
        if sections.info_rest.is_some() && !split.is_empty() {
            // (Split DWARF: the whole of .debug_info, as before.)
            sections.complete_info()?;
            split = split_units(&sections, wanted.as_deref());
        }
        sections.sup = sup.map(Box::new);
        let mut missing_dwo = Vec::new();
        let mut dwp_problem = None;
        if !split.is_empty()
            && let Some(path) = dwps.iter().find(|p| p.is_file())
        {
            match read_dwo(path) {
                Ok(dwp) => {
                    // The units the package holds (readable) are read from it.
                    let in_dwp: Vec<bool> = {
                        let parent = load_dwo(&sections);
                        let pkg = package(&dwp);
                        split
                            .iter()
                            .map(|(_, id)| match (&parent, &pkg, id) {
                                (Some(parent), Some(pkg), Some(id)) => {
                                    match pkg.find_cu(*id, parent) {
                                        Ok(Some(d)) => split_problem(&d, Some(*id)).is_none(),
                                        _ => false,
                                    }
                                }
                                _ => false,
                            })
                            .collect()
                    };
                    let held = in_dwp.iter().filter(|&&i| i).count();
                    if held < split.len() {
                        dwp_problem = Some(format!(
                            "{} holds {held} of the {} units asked for (of another build, or damaged)",
                            path.display(),
                            split.len()
                        ));
                    }
                    let mut keep = in_dwp.iter().map(|&i| !i);
                    split.retain(|_| keep.next().unwrap_or(true));
                    sections.dwp = Some(Box::new(dwp));
                }
                Err(e) => dwp_problem = Some(format!("{} cannot be read ({e})", path.display())),
            }
        }
        for (path, id) in split {
            match read_dwo(&path) {
                Ok(dwo) => match load_dwo(&dwo)
                    .map_or(Some("not DWARF".to_string()), |d| split_problem(&d, id))
                {
                    None => sections.dwos.push((path, dwo)),
                    Some(why) => missing_dwo.push(format!("{} ({why})", path.display())),
                },
                Err(e) => missing_dwo.push(format!("{} ({e})", path.display())),
            }
        }
        let cell = DwarfCell::try_new(sections, |s| Tables::new(s, wanted.clone(), binutils))?;
        // Only the start of .debug_info was read: the units after it may be left out only
        // when, for every wanted address, one of the units holding it answers it (then no
        // lookup reaches past them, and the answers are those of the whole section). Else
        // the whole section is read, and the tables made again.
        if cell.borrow_owner().info_rest.is_some()
            && let Some(w) = wanted.as_deref()
            && !cell.with_dependent(|s, t| {
                t.prefetch(w, s);
                t.answers_all(w)
            })
        {
            let mut sections = cell.into_owner();
            sections.complete_info()?;
            if !split_units(&sections, wanted.as_deref()).is_empty() {
                // (Split units after the start: their .dwo files are read as before.)
                let sup = sections.sup.take().map(|s| *s);
                return Dwarf::build(file_map, sup, dwps, wanted, binutils, false);
            }
            let cell = DwarfCell::try_new(sections, |s| Tables::new(s, wanted, binutils))?;
            return Ok(Dwarf {
                cell,
                debug: None,
                binutils_inline_names: false,
                missing_dwo,
                dwp_problem,
            });
        }
        Ok(Dwarf {
            cell,
            debug: None,
            binutils_inline_names: false,
            missing_dwo,
            dwp_problem,
        })
    }
}

impl Sections {
    /// The whole of a `.debug_info` of which only the start was read: the rest inflated
    /// after what was.
    fn complete_info(&mut self) -> Result<(), String> {
        let Some(mut rest) = self.info_rest.take() else {
            return Ok(());
        };
        let input = self
            .map
            .get(rest.from..rest.from.saturating_add(rest.len))
            .unwrap_or_default();
        let out = self.owned.entry(SectionId::DebugInfo).or_default();
        inflate_to(&mut rest.z, input, out, rest.total, rest.total)
    }
}

impl Sections {
    /// The DWARF sections of the ELF file mapped at `map`, inflated when compressed.
    /// With `dwo`, those of a split DWARF file (`.debug_info.dwo`, ...).
    fn read(map: Arc<Mmap>, dwo: bool) -> Result<Sections, String> {
        Sections::read_for(map, dwo, None)
    }

    /// [`Sections::read`]; with `wanted` (sorted file addresses), of a compressed
    /// `.debug_info` only the units up to the last one that the addresses need (see
    /// [`info_prefix`]).
    fn read_for(map: Arc<Mmap>, dwo: bool, wanted: Option<&[u64]>) -> Result<Sections, String> {
        let sections = {
            let file = object::File::parse(&map[..]).map_err(|e| e.to_string())?;
            let endian = if file.is_little_endian() {
                RunTimeEndian::Little
            } else {
                RunTimeEndian::Big
            };
            let mut ranges = HashMap::default();
            let mut owned = HashMap::default();
            let base = map.as_ptr() as usize;
            let mut found = Vec::new();
            let ids: &[SectionId] = if dwo { &DWO_SECTIONS } else { &ALL_SECTIONS };
            for &id in ids {
                let name = match (dwo, id.dwo_name()) {
                    (false, _) => id.name(),
                    (true, Some(n)) => n,
                    (true, None) => continue,
                };
                let sec = file.section_by_name(name).or_else(|| {
                    let z = format!(".z{}", &name[1..]);
                    file.section_by_name(&z)
                });
                let Some(sec) = sec else { continue };
                let compressed = match sec.compressed_data() {
                    Ok(c) if !plausible_size(&c) => {
                        return Err(format!(
                            "{name}: {} compressed bytes cannot hold the {} bytes it claims",
                            c.data.len(),
                            c.uncompressed_size
                        ));
                    }
                    Ok(c) if c.format != object::CompressionFormat::None => c.data.len(),
                    _ => 0,
                };
                found.push((id, sec, compressed));
            }
            let code = if dwo {
                Code::default()
            } else {
                Code::of(&file)
            };
            // A compressed .debug_info of which the addresses may need only the start.
            let prefixed = wanted.filter(|w| !w.is_empty()).and_then(|w| {
                let i = found
                    .iter()
                    .position(|f| f.0 == SectionId::DebugInfo && f.2 >= PREFIX_FROM)?;
                let c = found[i].1.compressed_data().ok()?;
                (c.format == object::CompressionFormat::Zlib).then_some((i, c, w))
            });
            // A separate debug file's sections are compressed: the biggest (.debug_info)
            // is inflated in a second thread while this one inflates the others (when only
            // the start of .debug_info may be needed, the biggest of the others is the one
            // this thread inflates last).
            let biggest = found
                .iter()
                .enumerate()
                .filter(|(i, _)| prefixed.as_ref().is_none_or(|p| p.0 != *i))
                .max_by_key(|(_, f)| f.2)
                .filter(|(_, f)| f.2 >= 1 << 16)
                .map(|(i, _)| i);
            let mut kept_prefix = None;
            let (mut data, big) = std::thread::scope(|scope| {
                let Some((i, c, w)) = &prefixed else {
                    let big = biggest.map(|i| {
                        let sec = &found[i].1;
                        scope.spawn(move || sec.uncompressed_data())
                    });
                    let data: Vec<_> = found
                        .iter()
                        .enumerate()
                        .map(|(i, f)| (Some(i) != biggest).then(|| f.1.uncompressed_data()))
                        .collect();
                    return (data, big.map(|h| h.join()));
                };
                // The small sections first (the units' first entries are read with them),
                // then .debug_info in a second thread while this one inflates the next
                // biggest.
                let mut data: Vec<_> = found
                    .iter()
                    .enumerate()
                    .map(|(k, f)| (Some(k) != biggest && k != *i).then(|| f.1.uncompressed_data()))
                    .collect();
                let others: HashMap<SectionId, &[u8]> = found
                    .iter()
                    .zip(&data)
                    .filter_map(|(f, d)| match d {
                        Some(Ok(d)) => Some((f.0, &d[..])),
                        _ => None,
                    })
                    .collect();
                let from = (c.data.as_ptr() as usize).checked_sub(base);
                let (info, big) = std::thread::scope(|inner| {
                    let info =
                        inner.spawn(|| from.and_then(|_| info_prefix(c, &others, endian, w, code)));
                    let big = biggest.map(|k| found[k].1.uncompressed_data());
                    (info.join(), big)
                });
                let info = info.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                drop(others);
                data[*i] = Some(match info {
                    Some((bytes, rest)) => {
                        kept_prefix = rest.zip(from).map(|((z, kept), from)| InfoRest {
                            z,
                            from,
                            len: c.data.len(),
                            total: usize::try_from(c.uncompressed_size).unwrap_or(usize::MAX),
                            kept,
                        });
                        Ok(std::borrow::Cow::Owned(bytes))
                    }
                    None => found[*i].1.uncompressed_data(),
                });
                (data, big.map(Ok))
            });
            if let (Some(i), Some(joined)) = (biggest, big) {
                data[i] = Some(joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            }
            for ((id, sec, _), data) in found.iter().zip(data) {
                let Some(data) = data else { continue };
                match data {
                    Ok(std::borrow::Cow::Borrowed(b)) => {
                        // A slice inside the mapping is kept as a range of it; anything else
                        // (an empty section's static slice: found by fuzzing) is copied.
                        match (b.as_ptr() as usize).checked_sub(base) {
                            Some(start) if start.saturating_add(b.len()) <= map.len() => {
                                ranges.insert(*id, (start, start + b.len()));
                            }
                            _ => {
                                owned.insert(*id, b.to_vec());
                            }
                        }
                    }
                    Ok(std::borrow::Cow::Owned(v)) => {
                        owned.insert(*id, v);
                    }
                    Err(e) => {
                        // A section header pointing past the file: said as such (the reader's
                        // words speak of compressed data, which it may not be).
                        let len = map.len() as u64;
                        return Err(match sec.file_range() {
                            Some((off, size)) if off.saturating_add(size) > len => format!(
                                "{}: its bytes {off}..{} lie past the end of the file ({len} bytes): the file is damaged or cut short",
                                id.name(),
                                off.saturating_add(size)
                            ),
                            _ => format!("{}: {e}", id.name()),
                        });
                    }
                }
            }
            Sections {
                map: map.clone(),
                ranges,
                owned,
                endian,
                sup: None,
                dwos: Vec::new(),
                dwp: None,
                code,
                info_rest: kept_prefix,
            }
        };
        Ok(sections)
    }
}

/// False when a compressed section claims more uncompressed bytes than its format can
/// produce from its compressed bytes (deflate expands at most 1032 times, zstd at most about
/// 32768 times): the claim would only make the reader reserve that much memory.
fn plausible_size(c: &object::CompressedData<'_>) -> bool {
    let ratio: u64 = match c.format {
        object::CompressionFormat::None => return true,
        object::CompressionFormat::Zlib => 1100,
        _ => 1 << 15,
    };
    c.uncompressed_size
        <= (c.data.len() as u64)
            .saturating_mul(ratio)
            .saturating_add(1 << 16)
}

/// The compressed size of `.debug_info` from which only its start may be inflated (tests:
/// any, so that small files take that way too).
const PREFIX_FROM: usize = if cfg!(test) { 1 } else { 1 << 16 };

/// Bytes of `.debug_info` inflated before its units are first looked at, doubled each time
/// more are needed (tests: a few hundred, so that the units are looked at over many rounds).
const FIRST_INFLATE: usize = if cfg!(test) { 300 } else { 1 << 18 };

/// A zlib stream's state where its inflation stopped, and where the whole units before that
/// end.
type Stopped = (flate2::Decompress, usize);

/// The start of the zlib-compressed `.debug_info` `c` that holds every unit up to the last
/// one whose ranges hold an address of `wanted` that no unit before it holds: the bytes
/// inflated, and unless they are the whole section, the stream's state and where those
/// units end (None: the stream cannot be inflated; read as a whole, for its error).
/// binutils takes an address's unit from the first units whose ranges hold it, so the
/// units after those are not needed when one of those answers ([`Dwarf::with_sup`] checks
/// that; else the rest is inflated then); a zlib stream is inflated from its start, so the
/// rest is not inflated at all. On a Debian libc's debug file, the addresses of a program's
/// start and its threads are in units in the first 30% of its 5.8 MB `.debug_info`.
/// `others`: the other sections.
fn info_prefix(
    c: &object::CompressedData<'_>,
    others: &HashMap<SectionId, &[u8]>,
    endian: RunTimeEndian,
    wanted: &[u64],
    code: Code,
) -> Option<(Vec<u8>, Option<Stopped>)> {
    let total = usize::try_from(c.uncompressed_size).ok()?;
    let mut z = flate2::Decompress::new(true);
    let mut out: Vec<u8> = Vec::new();
    let mut held = vec![false; wanted.len()];
    let mut left = wanted.len();
    // The end of the last whole unit looked at.
    let mut at = 0usize;
    let mut target = FIRST_INFLATE;
    loop {
        // A damaged stream, or one that stops short: read as a whole section is.
        inflate_to(&mut z, c.data, &mut out, target.min(total), total).ok()?;
        let done = out.len() >= total;
        let dwarf = gimli::Dwarf::load(|id| -> Result<R<'_>, gimli::Error> {
            let d = match id {
                SectionId::DebugInfo => &out[..],
                _ => others.get(&id).copied().unwrap_or_default(),
            };
            Ok(EndianSlice::new(d, endian))
        });
        let Ok(dwarf) = dwarf else { return None };
        while let Ok(header) = dwarf
            .debug_info
            .header_from_offset(gimli::DebugInfoOffset(at))
        {
            let end = at.saturating_add(header.length_including_self());
            if end > out.len() {
                break;
            }
            if let Some((slot, _)) = unit_slot_and_root(&dwarf, header) {
                for &(lo, hi) in slot.ranges.iter().filter(|r| code.holds(r.0)) {
                    let from = wanted.partition_point(|&a| a < lo);
                    for (h, _) in held[from..]
                        .iter_mut()
                        .zip(&wanted[from..])
                        .take_while(|(_, a)| **a < hi)
                    {
                        if !*h {
                            *h = true;
                            left -= 1;
                        }
                    }
                }
            }
            at = end;
            if left == 0 {
                if done && at >= out.len() {
                    return Some((out, None));
                }
                return Some((out, Some((z, at))));
            }
        }
        if done {
            // Every unit was looked at (or the rest cannot be read): the whole section.
            return Some((out, None));
        }
        target = target.saturating_mul(2);
    }
}

/// Inflates the zlib stream `z` (of the compressed bytes `input`) into `out` until it holds
/// `n` bytes (of the stream's `total`); an error when the stream is damaged or ends short
/// of `total`.
fn inflate_to(
    z: &mut flate2::Decompress,
    input: &[u8],
    out: &mut Vec<u8>,
    n: usize,
    total: usize,
) -> Result<(), String> {
    out.reserve(n.saturating_sub(out.len()));
    while out.len() < n {
        let read = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let before = out.len();
        match z.decompress_vec(
            input.get(read..).unwrap_or_default(),
            out,
            flate2::FlushDecompress::None,
        ) {
            Ok(flate2::Status::StreamEnd) if out.len() == total => {}
            Ok(_) if out.len() > before && out.len() <= total => {}
            Ok(_) => {
                return Err(format!(
                    ".debug_info: its compressed bytes inflate to {} bytes, not the {total} its header gives",
                    out.len()
                ));
            }
            Err(e) => return Err(format!(".debug_info: {e}")),
        }
    }
    Ok(())
}

/// The sections symbolizing reads (not the location lists: variables' places are never
/// looked at, and a debug file's compressed lists would be inflated for nothing).
const ALL_SECTIONS: [SectionId; 10] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugLineStr,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugAranges,
];

/// The sections of a `.dwo` file or a `.dwp` package: every one a package's index may
/// give a unit's part of (a part that is not there would make the unit unreadable).
const DWO_SECTIONS: [SectionId; 13] = [
    SectionId::DebugAbbrev,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugRngLists,
    SectionId::DebugLocLists,
    SectionId::DebugLoc,
    SectionId::DebugMacro,
    SectionId::DebugMacinfo,
    SectionId::DebugTypes,
    SectionId::DebugCuIndex,
    SectionId::DebugTuIndex,
];

/// binutils' `mangle_style(lang) == 0`: languages whose `DW_AT_name` is the linkage name.
fn name_is_linkage(lang: Option<DwLang>) -> bool {
    use constants::*;
    let Some(l) = lang else { return false };
    [
        DW_LANG_C89,
        DW_LANG_C,
        DW_LANG_Cobol74,
        DW_LANG_Cobol85,
        DW_LANG_Fortran77,
        DW_LANG_Pascal83,
        DW_LANG_PLI,
        DW_LANG_C99,
        DW_LANG_UPC,
        DW_LANG_C11,
        DW_LANG_Mips_Assembler,
        // DW_LANG_Upc, DW_LANG_HP_Basic91, DW_LANG_HP_IMacro, DW_LANG_HP_Assembler.
        DwLang(0x8765),
        DwLang(0x8001),
        DwLang(0x8005),
        DwLang(0x8007),
    ]
    .contains(&l)
}

impl<'a> Tables<'a> {
    fn new(
        s: &'a Sections,
        wanted: Option<Arc<[u64]>>,
        binutils_files: bool,
    ) -> Result<Tables<'a>, String> {
        let load = |s: &'a Sections| {
            gimli::Dwarf::load(|id| -> Result<R<'a>, gimli::Error> {
                Ok(EndianSlice::new(s.data(id), s.endian))
            })
            .map_err(|e| e.to_string())
        };
        let mut dwarf = load(s)?;
        if let Some(sup) = &s.sup {
            dwarf.set_sup(load(sup)?);
        }
        let pkg = s.dwp.as_deref().and_then(package);
        let dwos: HashMap<&Path, &Sections> =
            s.dwos.iter().map(|(p, d)| (p.as_path(), d)).collect();
        let mut units = Vec::new();
        let mut index = Vec::new();
        let mut rangeless = Vec::new();
        let mut headers = dwarf.units();
        let mut broken = None;
        let mut unreadable_roots = 0;
        // Where the next unit header starts.
        let mut at = 0u64;
        loop {
            let header = match headers.next() {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(e) => {
                    broken = Some((at, e.to_string()));
                    break;
                }
            };
            if let Some(o) = header.offset().to_debug_info_offset(&header) {
                at = (o.0 + header.length_including_self()) as u64;
            }
            let Some((mut slot, root)) = unit_slot_and_root(&dwarf, header) else {
                unreadable_roots += 1;
                continue;
            };
            // A unit whose every range was discarded is no unit without ranges.
            let had_ranges = !slot.ranges.is_empty();
            slot.ranges.retain(|&(lo, _)| s.code.holds(lo));
            // (Only the skeleton units holding wanted addresses had their .dwo files read.)
            let is_wanted = wanted.as_deref().is_none_or(|w| {
                !had_ranges || slot.ranges.iter().any(|&(lo, hi)| wants(w, lo, hi))
            });
            if (!dwos.is_empty() || pkg.is_some()) && is_wanted {
                let from_pkg = pkg
                    .as_ref()
                    .and_then(|p| p.find_cu(root.dwo_id?, &dwarf).ok().flatten());
                let split = from_pkg.or_else(|| {
                    let path = dwo_path(&dwarf, &root)?;
                    let dwo = *dwos.get(path.as_path())?;
                    let mut d = load_dwo(dwo)?;
                    d.make_dwo(&dwarf);
                    Some(d)
                });
                slot.split = split.and_then(|d| split_of(d, &root));
            }
            let idx = units.len();
            // A partial unit without ranges holds no code (dwz moves entries shared by
            // several units into them, with one of those units' line table): binutils
            // asks it like a unit without ranges, and its line table then answers for
            // addresses of the unit whose functions it has not, which lose their names
            // and inlined frames. It is read only through the references into it.
            if slot.ranges.is_empty() && !slot.partial && !had_ranges {
                rangeless.push(idx);
            }
            for &(lo, hi) in &slot.ranges {
                index.push((lo, hi, idx));
            }
            units.push(slot);
        }
        index.sort_by_key(|e| (e.0, e.2));
        let mut index_high = Vec::with_capacity(index.len());
        let mut m = 0;
        for e in &index {
            m = m.max(e.1);
            index_high.push(m);
        }
        let n = units.len();
        Ok(Tables {
            dwarf,
            units: Units::new(units),
            parsed: (0..n).map(|_| OnceCell::new()).collect(),
            is_read: RefCell::new(vec![false; n]),
            index,
            index_high,
            read: RefCell::new(Vec::new()),
            rangeless,
            covered: RefCell::new(CoveredIndex::default()),
            wanted,
            broken,
            unreadable_roots,
            binutils_files,
            code: s.code,
        })
    }

    /// Unit `u`'s tables, parsed now if no one has; binutils reads the unit now.
    fn parsed(&self, u: usize) -> Option<&Parsed> {
        let cell = self.parsed.get(u)?;
        {
            let mut is_read = self.is_read.borrow_mut();
            if !is_read[u] {
                is_read[u] = true;
                self.read.borrow_mut().push(u);
            }
        }
        cell.get_or_init(|| {
            parse_unit(
                &self.dwarf,
                &self.units,
                u,
                self.wanted.as_deref(),
                &mut Scratch::default(),
                self.binutils_files,
                self.code,
            )
        })
        .as_ref()
    }

    /// Parses, on all cores, the units that lookups of `addrs` will read first. Parsing does
    /// not change what a lookup answers: binutils' reading order is kept by [`parsed`].
    /// The bytes of each unit parsed are released from memory right away (`sections`).
    fn prefetch(&self, addrs: &[u64], sections: &Sections) {
        let mut want = vec![false; self.units.len()];
        for &a in addrs {
            let end = self.index.partition_point(|e| e.0 <= a);
            for i in (0..end).rev() {
                if self.index_high[i] <= a {
                    break;
                }
                if a < self.index[i].1 {
                    want[self.index[i].2] = true;
                }
            }
        }
        let mut todo: Vec<usize> = (0..self.units.len())
            .filter(|&u| want[u] && self.parsed[u].get().is_none())
            .collect();
        let threads = crate::cores();
        if todo.len() < 2 || threads < 2 {
            let mut sc = Scratch::default();
            for &u in &todo {
                let _ = self.parsed[u].get_or_init(|| {
                    parse_unit(
                        &self.dwarf,
                        &self.units,
                        u,
                        self.wanted.as_deref(),
                        &mut sc,
                        self.binutils_files,
                        self.code,
                    )
                });
                sections.release_unit(self.units[u].full.get());
            }
            self.index_covered();
            return;
        }
        // Biggest first, so that the threads finish together.
        todo.sort_by_key(|&u| std::cmp::Reverse(self.units[u].header.length_including_self()));
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (dwarf, units, todo) = (&self.dwarf, &self.units, &todo);
        let (wanted, binutils_files, code) =
            (self.wanted.as_deref(), self.binutils_files, self.code);
        let done: Vec<(usize, Option<Parsed>)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads.min(todo.len()))
                .map(|_| {
                    s.spawn(|| {
                        let mut out = Vec::new();
                        let mut sc = Scratch::default();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&u) = todo.get(i) else { break };
                            out.push((
                                u,
                                parse_unit(dwarf, units, u, wanted, &mut sc, binutils_files, code),
                            ));
                            sections.release_unit(units[u].full.get());
                        }
                        out
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_default())
                .collect()
        });
        for (u, p) in done {
            let _ = self.parsed[u].set(p);
        }
        self.index_covered();
    }

    /// Puts the covered ranges of every parsed unit in the `covered` index.
    fn index_covered(&self) {
        let mut c = self.covered.borrow_mut();
        c.has = (0..self.units.len())
            .map(|u| self.parsed[u].get().is_some())
            .collect();
        c.ranges = (0..self.units.len())
            .filter_map(|u| Some((u, self.parsed[u].get()?.as_ref()?)))
            .flat_map(|(u, p)| p.excess.iter().map(move |r| (r.0, r.1, u as u32)))
            .collect();
        c.ranges.sort_unstable();
        let mut m = 0;
        c.high = c
            .ranges
            .iter()
            .map(|r| {
                m = m.max(r.1);
                m
            })
            .collect();
    }

    /// Units whose ranges hold `addr`, in unit order, then the units without ranges.
    fn candidates(&self, addr: u64) -> Vec<usize> {
        let end = self.index.partition_point(|e| e.0 <= addr);
        let mut v: Vec<usize> = Vec::new();
        for i in (0..end).rev() {
            if self.index_high[i] <= addr {
                break;
            }
            if addr < self.index[i].1 {
                v.push(self.index[i].2);
            }
        }
        // Read units whose own ranges hold the address: from the index of prefetched units,
        // then any other read unit one by one.
        let covered = self.covered.borrow();
        let is_read = self.is_read.borrow();
        let end = covered.ranges.partition_point(|e| e.0 <= addr);
        for i in (0..end).rev() {
            if covered.high[i] <= addr {
                break;
            }
            let (_, hi, u) = covered.ranges[i];
            if addr < hi && is_read[u as usize] {
                v.push(u as usize);
            }
        }
        for &u in self.read.borrow().iter() {
            if covered.has.get(u).copied().unwrap_or(false) {
                continue;
            }
            if let Some(Some(p)) = self.parsed[u].get() {
                let i = p.excess.partition_point(|r| r.0 <= addr);
                if i > 0 && addr < p.excess[i - 1].1 {
                    v.push(u);
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        v.extend(self.rangeless.iter().copied());
        v
    }
}

impl Tables<'_> {
    /// True when, for every address of `wanted`, a unit whose ranges hold it answers it (its
    /// function or its line), read by [`Tables::prefetch`] (without counting as read by a
    /// lookup: this changes nothing a lookup answers), and no reference from the units read
    /// leads past the last unit.
    fn answers_all(&self, wanted: &[u64]) -> bool {
        // (A reference past the units read: an entry the answers may need is not there.)
        if self
            .units
            .past_end
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return false;
        }
        wanted.iter().all(|&a| {
            let end = self.index.partition_point(|e| e.0 <= a);
            (0..end)
                .rev()
                .take_while(|&i| self.index_high[i] > a)
                .filter(|&i| a < self.index[i].1)
                .any(
                    |i| match self.parsed.get(self.index[i].2).and_then(OnceCell::get) {
                        Some(Some(p)) => p.func_at(a).is_some() || p.line_at(a).is_some(),
                        _ => false,
                    },
                )
        })
    }
}

/// Reads the function table and line table of unit `u`; with `wanted`, keeps only the line
/// rows and functions that answer those addresses (and the callers of those functions).
fn parse_unit<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    units: &Units<'a>,
    u: usize,
    wanted: Option<&[u64]>,
    sc: &mut Scratch<'a>,
    binutils_files: bool,
    code: Code,
) -> Option<Parsed> {
    let slot = &units[u];
    let unit = slot.unit(dwarf)?;
    // The ranges of sequences and functions that reach outside the unit's own ranges.
    let mut all = Outside::new(&slot.ranges);
    let (sequences, file_names) = match &unit.line_program {
        Some(lp) => decode_lines(
            dwarf,
            unit,
            lp.clone(),
            slot.comp_dir.as_deref(),
            wanted,
            &mut all,
            &mut sc.rows,
            binutils_files,
            code,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let mut more_ranges = Vec::new();
    // A skeleton unit's functions are in its split unit (its lines are its own).
    let (dwarf, units, u) = match &slot.split {
        Some(s) => (&s.dwarf, &s.units, 0),
        None => (dwarf, units, u),
    };
    let mut funcs = scan_functions(
        dwarf,
        units,
        u,
        &mut more_ranges,
        // (A unit without ranges cannot tell when an address was left in no function.)
        wanted.map(|w| (w, !slot.ranges.is_empty())),
        &mut all,
        sc,
        code,
    )
    .unwrap_or_default();
    // A function that holds no wanted address had its entries skipped (see
    // `scan_functions`); should a wanted address in the unit's ranges be in no function
    // then (a GNU C nested function's entry is among its parent's, its code outside the
    // parent's), the entries are read again, all of them.
    if let Some(w) = wanted
        && !sc.skipped.is_empty()
        && !all_in_functions(w, &slot.ranges, &funcs, &more_ranges)
    {
        more_ranges.clear();
        funcs = scan_functions(
            dwarf,
            units,
            u,
            &mut more_ranges,
            Some((w, false)),
            &mut all,
            sc,
            code,
        )
        .unwrap_or_default();
    }
    let funcs = funcs.into_boxed_slice();
    let more_ranges = more_ranges.into_boxed_slice();
    let mut lookup: Vec<(u64, u64, u32)> = funcs
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let lo = f.ranges(&more_ranges).map(|r| r.0).min()?;
            let hi = f.ranges(&more_ranges).map(|r| r.1).max()?;
            Some((lo, hi, i as u32))
        })
        .collect();
    lookup.sort_by_key(|e| (e.0, e.1, e.2));
    let mut high = 0;
    for e in &mut lookup {
        if e.1 > high {
            high = e.1;
        } else {
            e.1 = high;
        }
    }
    let excess = subtract_ranges(&merge_ranges(all.ranges), &all.own);
    let damaged = sc.damaged;
    Some(Parsed {
        funcs,
        more_ranges,
        lookup,
        sequences,
        file_names,
        renamed: RefCell::new(HashMap::default()),
        excess,
        damaged,
    })
}

/// True when every address of `wanted` inside the ranges `own` lies in one of `funcs`.
fn all_in_functions(
    wanted: &[u64],
    own: &[(u64, u64)],
    funcs: &[Func],
    more_ranges: &[(u64, u64)],
) -> bool {
    let mut held: Vec<(u64, u64)> = funcs.iter().flat_map(|f| f.ranges(more_ranges)).collect();
    held = merge_ranges(held);
    own.iter().all(|&(lo, hi)| {
        let from = wanted.partition_point(|&a| a < lo);
        wanted[from..].iter().take_while(|&&a| a < hi).all(|&a| {
            let i = held.partition_point(|r| r.1 <= a);
            held.get(i).is_some_and(|r| r.0 <= a)
        })
    })
}

/// The address ranges of a unit's line sequences and functions that reach outside the
/// unit's own ranges.
struct Outside {
    /// The unit's own ranges, merged.
    own: Vec<(u64, u64)>,
    ranges: Vec<(u64, u64)>,
}

impl Outside {
    fn new(own: &[(u64, u64)]) -> Outside {
        Outside {
            own: merge_ranges(own.to_vec()),
            ranges: Vec::new(),
        }
    }

    /// Notes `[lo, hi)` unless the unit's own ranges hold it.
    fn add(&mut self, lo: u64, hi: u64) {
        if lo >= hi {
            return;
        }
        let i = self.own.partition_point(|r| r.1 <= lo);
        if self.own.get(i).is_some_and(|r| r.0 <= lo && hi <= r.1) {
            return;
        }
        self.ranges.push((lo, hi));
    }
}

/// Sorts `ranges` and merges those that overlap or touch; empty ranges are dropped.
fn merge_ranges(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.retain(|r| r.0 < r.1);
    ranges.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
            _ => merged.push(r),
        }
    }
    merged
}

/// The parts of the sorted, disjoint `ranges` that none of the sorted, disjoint `minus`
/// holds.
fn subtract_ranges(ranges: &[(u64, u64)], minus: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for &(mut lo, hi) in ranges {
        for &(mlo, mhi) in minus {
            if mhi <= lo || mlo >= hi {
                continue;
            }
            if mlo > lo {
                out.push((lo, mlo));
            }
            lo = lo.max(mhi);
            if lo >= hi {
                break;
            }
        }
        if lo < hi {
            out.push((lo, hi));
        }
    }
    out
}

/// True when some address of the sorted `wanted` lies in `[lo, hi)`.
fn wants(wanted: &[u64], lo: u64, hi: u64) -> bool {
    let i = wanted.partition_point(|&a| a < lo);
    wanted.get(i).is_some_and(|&a| a < hi)
}

/// A string attribute as a shared string (one allocation).
fn attr_arc<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    unit: &gimli::Unit<R<'a>>,
    v: AttributeValue<R<'a>>,
) -> Option<Arc<str>> {
    dwarf
        .attr_string(unit, v)
        .ok()
        .map(|s| Arc::from(String::from_utf8_lossy(s.slice()).as_ref()))
}

fn attr_str<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    unit: &gimli::Unit<R<'a>>,
    v: AttributeValue<R<'a>>,
) -> Option<String> {
    dwarf
        .attr_string(unit, v)
        .ok()
        .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
}

/// binutils' `concat_filename` over a line program header.
fn file_names<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    unit: &gimli::Unit<R<'a>>,
    header: &gimli::LineProgramHeader<R<'a>>,
    extra: &[(Option<String>, u64)],
    comp_dir: Option<&str>,
) -> Vec<Option<Arc<str>>> {
    let v5 = header.version() >= 5;
    let dirs: Vec<Option<String>> = header
        .include_directories()
        .iter()
        .map(|d| attr_str(dwarf, unit, *d))
        .collect();
    let mut files: Vec<(Option<String>, u64)> = header
        .file_names()
        .iter()
        .map(|f| (attr_str(dwarf, unit, f.path_name()), f.directory_index()))
        .collect();
    files.extend(extra.iter().cloned());
    // Index by DWARF file number: v5 numbers from 0, earlier versions from 1 (0 = unknown).
    let n = files.len() + usize::from(!v5);
    let mut out = Vec::with_capacity(n);
    if !v5 {
        out.push(None);
    }
    for (name, dir) in files {
        let Some(name) = name else {
            out.push(None);
            continue;
        };
        if name.starts_with('/') {
            out.push(Some(Arc::from(name.as_str())));
            continue;
        }
        // Pre-v5 directory numbers count from 1 (0 = the compilation directory).
        let d = if v5 { Some(dir) } else { dir.checked_sub(1) };
        let subdir = d.and_then(|d| dirs.get(d as usize)).and_then(|s| s.clone());
        let mut dir_name: Option<String> = None;
        if subdir.as_deref().is_none_or(|s| !s.starts_with('/')) {
            dir_name = comp_dir.map(str::to_string);
        }
        let mut subdir = subdir;
        if dir_name.is_none() {
            dir_name = subdir.take();
        }
        let full = match (dir_name, subdir) {
            (None, _) => name,
            (Some(d), Some(s)) => format!("{d}/{s}/{name}"),
            (Some(d), None) => format!("{d}/{name}"),
        };
        out.push(Some(Arc::from(full.as_str())));
    }
    out
}

/// Decodes a line program as binutils' `decode_line_info` does; with `wanted`, keeps only
/// the sequences that hold a wanted address, and in them only the rows that answer one.
/// Every sequence's range goes to `all`.
#[allow(clippy::too_many_arguments)]
fn decode_lines<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    unit: &gimli::Unit<R<'a>>,
    program: gimli::IncompleteLineProgram<R<'a>>,
    comp_dir: Option<&str>,
    wanted: Option<&[u64]>,
    all: &mut Outside,
    rows: &mut Vec<Row>,
    binutils_files: bool,
    code: Code,
) -> (Vec<Sequence>, Vec<Option<Arc<str>>>) {
    let header = program.header().clone();
    let v5 = header.version() >= 5;
    let min_len = u64::from(header.minimum_instruction_length());
    let max_ops = u64::from(header.maximum_operations_per_instruction().max(1));
    let line_base = i64::from(header.line_base());
    let line_range = u64::from(header.line_range());
    let opcode_base = u64::from(header.opcode_base());
    let mut extra: Vec<(Option<String>, u64)> = Vec::new();
    let mut names = file_names(dwarf, unit, &header, &extra, comp_dir);
    let mut seqs: Vec<(Sequence, usize)> = Vec::new();
    let program_buf = header.raw_program_buf();
    let mut instrs = Instructions {
        b: program_buf.slice(),
        pos: 0,
        big_endian: gimli::Endianity::is_big_endian(gimli::Reader::endian(&program_buf)),
        address_size: header.address_size(),
        opcode_base: header.opcode_base(),
        v5,
        standard_lengths: header.standard_opcode_lengths().slice(),
    };
    // The file register starts at 1 in every version (DWARF 5, table 6.4); binutils 2.40
    // starts DWARF 5 programs at 0 (`binutils_files`, for --pprof_quirks), as rpprof does
    // for a DWARF 5 table that lists no file 1.
    let first_file: u32 = if v5 && (binutils_files || names.len() < 2) {
        0
    } else {
        1
    };
    // One buffer for the rows of every sequence (each is copied out compactly).
    'outer: loop {
        let mut address: u64 = 0;
        let mut op_index: u64 = 0;
        let mut file = first_file;
        let mut line: u64 = 1;
        let mut discriminator: u32 = 0;
        rows.clear();
        let mut any = false;
        loop {
            let ins = match instrs.next() {
                Some(i) => i,
                None => {
                    if any {
                        push_seq(&mut seqs, rows, wanted, all, code);
                    }
                    break 'outer;
                }
            };
            any = true;
            let emit = |rows: &mut Vec<Row>,
                        end: bool,
                        address: u64,
                        op_index: u64,
                        file: u32,
                        line: u64,
                        disc: u32| {
                let r = Row {
                    addr: address,
                    op_index: op_index as u8,
                    file,
                    line: line as u32,
                    discriminator: disc,
                    end,
                };
                // binutils keeps only the last row at an address (same op index and end flag).
                if let Some(last) = rows.last_mut()
                    && last.addr == r.addr
                    && last.op_index == r.op_index
                    && last.end == r.end
                {
                    *last = r;
                    return;
                }
                rows.push(r);
            };
            match ins {
                LineInstruction::Special(op) => {
                    if line_range == 0 {
                        break 'outer;
                    }
                    let adj = u64::from(op).saturating_sub(opcode_base);
                    if max_ops == 1 {
                        address = address.wrapping_add(adj / line_range * min_len);
                    } else {
                        address =
                            address.wrapping_add((op_index + adj / line_range) / max_ops * min_len);
                        op_index = (op_index + adj / line_range) % max_ops;
                    }
                    line = line.wrapping_add((line_base + (adj % line_range) as i64) as u64);
                    emit(rows, false, address, op_index, file, line, discriminator);
                    discriminator = 0;
                }
                LineInstruction::Copy => {
                    emit(rows, false, address, op_index, file, line, discriminator);
                    discriminator = 0;
                }
                LineInstruction::AdvancePc(n) => {
                    if max_ops == 1 {
                        address = address.wrapping_add(min_len.wrapping_mul(n));
                    } else {
                        address = (op_index + n) / max_ops * min_len;
                        op_index = (op_index + n) % max_ops;
                    }
                }
                LineInstruction::AdvanceLine(n) => line = line.wrapping_add(n as u64),
                LineInstruction::SetFile(f) => file = f as u32,
                LineInstruction::ConstAddPc => {
                    if line_range == 0 {
                        break 'outer;
                    }
                    let adj = (255 - opcode_base) / line_range;
                    if max_ops == 1 {
                        address = address.wrapping_add(min_len * adj);
                    } else {
                        address = address.wrapping_add(min_len * ((op_index + adj) / max_ops));
                        op_index = (op_index + adj) % max_ops;
                    }
                }
                LineInstruction::FixedAddPc(n) => {
                    address = address.wrapping_add(u64::from(n));
                    op_index = 0;
                }
                LineInstruction::EndSequence => {
                    emit(rows, true, address, op_index, file, line, discriminator);
                    push_seq(&mut seqs, rows, wanted, all, code);
                    continue 'outer;
                }
                LineInstruction::SetAddress(a) => {
                    address = a;
                    op_index = 0;
                }
                LineInstruction::DefineFile(path, dir) => {
                    extra.push((Some(String::from_utf8_lossy(path).into_owned()), dir));
                    names = file_names(dwarf, unit, &header, &extra, comp_dir);
                }
                LineInstruction::SetDiscriminator(d) => discriminator = d as u32,
                LineInstruction::Other => {}
            }
        }
    }
    // Sort sequences by low address, larger ones first among equals, then drop nested
    // sequences and trim overlapping ones, as binutils does.
    let mut list: Vec<Sequence> = seqs.into_iter().map(|(s, _)| s).collect();
    let high = |s: &Sequence| s.rows.last().map_or(0, |r| r.addr);
    let mut order: Vec<usize> = (0..list.len()).collect();
    order.sort_by(|&a, &b| {
        list[a]
            .low
            .cmp(&list[b].low)
            .then_with(|| high(&list[b]).cmp(&high(&list[a])))
            .then_with(|| a.cmp(&b))
    });
    let mut sorted: Vec<Sequence> = Vec::with_capacity(list.len());
    let mut taken: Vec<Option<Sequence>> = list.drain(..).map(Some).collect();
    let mut last_high: Option<u64> = None;
    for i in order {
        let Some(mut s) = taken[i].take() else {
            continue;
        };
        let h = high(&s);
        if let Some(lh) = last_high
            && s.low < lh
        {
            if h <= lh {
                continue;
            }
            s.low = lh;
        }
        last_high = Some(h);
        sorted.push(s);
    }
    (sorted, names)
}

/// A line-program instruction, as far as [`decode_lines`] acts on it.
#[cfg_attr(test, derive(Debug, PartialEq))]
enum LineInstruction<'b> {
    Special(u8),
    Copy,
    AdvancePc(u64),
    AdvanceLine(i64),
    SetFile(u64),
    ConstAddPc,
    FixedAddPc(u16),
    EndSequence,
    SetAddress(u64),
    /// `DW_LNE_define_file` (before DWARF 5): path and directory index.
    DefineFile(&'b [u8], u64),
    SetDiscriminator(u64),
    /// Anything else (read and ignored).
    Other,
}

/// A line program's instructions, read from its bytes exactly as gimli's
/// `LineInstructions::next_instruction` reads them (the same instructions, the same end at
/// the first malformed one), without gimli's generic reader: decoding line tables is the
/// largest part of symbolizing.
struct Instructions<'b> {
    b: &'b [u8],
    pos: usize,
    big_endian: bool,
    address_size: u8,
    opcode_base: u8,
    v5: bool,
    /// `standard_opcode_lengths` of the header.
    standard_lengths: &'b [u8],
}

impl<'b> Instructions<'b> {
    /// The next instruction; `None` at the end or at a malformed instruction.
    #[inline(always)]
    fn next(&mut self) -> Option<LineInstruction<'b>> {
        let opcode = self.u8()?;
        if opcode >= self.opcode_base && opcode != 0 {
            return Some(LineInstruction::Special(opcode));
        }
        Some(match opcode {
            0 => return self.extended(),
            1 => LineInstruction::Copy,
            2 => LineInstruction::AdvancePc(self.uleb()?),
            3 => LineInstruction::AdvanceLine(self.sleb()?),
            4 => LineInstruction::SetFile(self.uleb()?),
            5 | 12 => {
                self.uleb()?;
                LineInstruction::Other
            }
            6 | 7 | 10 | 11 => LineInstruction::Other,
            8 => LineInstruction::ConstAddPc,
            9 => {
                let a = self.bytes(2)?;
                let v = [a[0], a[1]];
                LineInstruction::FixedAddPc(if self.big_endian {
                    u16::from_be_bytes(v)
                } else {
                    u16::from_le_bytes(v)
                })
            }
            _ => {
                // An opcode the header gives a number of ULEB128 arguments.
                let n = *self.standard_lengths.get(usize::from(opcode) - 1)?;
                for _ in 0..n {
                    self.uleb()?;
                }
                LineInstruction::Other
            }
        })
    }

    /// An extended opcode (after its 0): length, sub-opcode, operands.
    fn extended(&mut self) -> Option<LineInstruction<'b>> {
        let len = usize::try_from(self.uleb()?).ok()?;
        let body = self.bytes(len)?;
        let mut rest = Instructions {
            b: body,
            pos: 0,
            ..*self
        };
        Some(match rest.u8()? {
            1 => LineInstruction::EndSequence,
            2 => {
                let n = usize::from(self.address_size);
                if !matches!(n, 1 | 2 | 4 | 8) {
                    return None;
                }
                let a = rest.bytes(n)?;
                let mut v = [0u8; 8];
                if self.big_endian {
                    v[8 - n..].copy_from_slice(a);
                    LineInstruction::SetAddress(u64::from_be_bytes(v))
                } else {
                    v[..n].copy_from_slice(a);
                    LineInstruction::SetAddress(u64::from_le_bytes(v))
                }
            }
            3 if !self.v5 => {
                let tail = rest.b.get(rest.pos..)?;
                let nul = tail.iter().position(|&c| c == 0)?;
                let path = &tail[..nul];
                rest.pos += nul + 1;
                let dir = rest.uleb()?;
                rest.uleb()?;
                rest.uleb()?;
                LineInstruction::DefineFile(path, dir)
            }
            4 => LineInstruction::SetDiscriminator(rest.uleb()?),
            _ => LineInstruction::Other,
        })
    }

    #[inline(always)]
    fn u8(&mut self) -> Option<u8> {
        let b = *self.b.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn bytes(&mut self, n: usize) -> Option<&'b [u8]> {
        let end = self.pos.checked_add(n)?;
        let v = self.b.get(self.pos..end)?;
        self.pos = end;
        Some(v)
    }

    /// gimli's unsigned LEB128: at most ten bytes, the tenth 0 or 1.
    #[inline(always)]
    fn uleb(&mut self) -> Option<u64> {
        let byte = self.u8()?;
        if byte & 0x80 == 0 {
            return Some(u64::from(byte));
        }
        let mut result = u64::from(byte & 0x7f);
        let mut shift = 7;
        loop {
            let byte = self.u8()?;
            result |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(result);
            }
            shift += 7;
            if shift >= 63 {
                break;
            }
        }
        let byte = self.u8()?;
        if byte > 1 {
            return None;
        }
        Some(result | u64::from(byte) << 63)
    }

    /// gimli's signed LEB128.
    fn sleb(&mut self) -> Option<i64> {
        let mut result: i64 = 0;
        let mut shift = 0;
        let mut byte;
        loop {
            byte = self.u8()?;
            if shift == 63 && byte != 0x00 && byte != 0x7f {
                return None;
            }
            result |= i64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        if shift < 64 && byte & 0x40 != 0 {
            result |= !0 << shift;
        }
        Some(result)
    }
}

fn push_seq(
    seqs: &mut Vec<(Sequence, usize)>,
    rows: &mut Vec<Row>,
    wanted: Option<&[u64]>,
    all: &mut Outside,
    code: Code,
) {
    // (A sequence the linker discarded starts at its tombstone: see `Code`.)
    if rows.first().is_none_or(|r| !code.holds(r.addr)) {
        return;
    }
    // Rows normally arrive in address order; binutils inserts out-of-order ones sorted,
    // keeping the end-of-sequence row last.
    if rows
        .windows(2)
        .any(|w| (w[1].addr, w[1].op_index) < (w[0].addr, w[0].op_index) && !w[1].end)
    {
        let end = rows.iter().rposition(|r| r.end).map(|i| rows.remove(i));
        rows.sort_by_key(|r| (r.addr, r.op_index));
        if let Some(e) = end {
            rows.push(e);
        }
    }
    let low = rows.iter().map(|r| r.addr).min().unwrap_or(0);
    let high = rows.last().map_or(0, |r| r.addr);
    all.add(low, high);
    let n = seqs.len();
    let Some(wanted) = wanted else {
        seqs.push((Sequence::new(rows, low, None), n));
        return;
    };
    // A sequence that holds no wanted address answers none (binutils answers an address from
    // the first sequence, in its sorted order, that holds it); in one that does, the row
    // answering each wanted address is the last one at or below it.
    let (i, j) = (
        wanted.partition_point(|&a| a < low),
        wanted.partition_point(|&a| a < high),
    );
    if i >= j {
        return;
    }
    let mut keep: Vec<usize> = Vec::with_capacity(j - i + 1);
    for &a in &wanted[i..j] {
        let k = rows.partition_point(|r| r.addr <= a);
        if let Some(k) = k.checked_sub(1)
            && keep.last() != Some(&k)
        {
            keep.push(k);
        }
    }
    let last = rows.len() - 1;
    if keep.last() != Some(&last) {
        keep.push(last);
    }
    seqs.push((Sequence::new(rows, low, Some(&keep)), n));
}

impl Parsed {
    /// binutils' `lookup_address_in_line_info_table`.
    fn line_at(&self, addr: u64) -> Option<(Option<Arc<str>>, u32, u32)> {
        let i = self.sequences.partition_point(|s| s.low <= addr);
        let seq = self.sequences.get(i.checked_sub(1)?)?;
        let last = seq.rows.last()?;
        if addr < seq.low || addr >= last.addr {
            return None;
        }
        let j = seq.rows.partition_point(|r| r.addr <= addr);
        let k = j.checked_sub(1)?;
        if k + 1 >= seq.rows.len() {
            return None;
        }
        // (The end-of-sequence row is the last one, never answered.)
        let row = seq.rows[k];
        let name = self.file_names.get(row.file as usize).cloned().flatten();
        Some((name, row.line, seq.discriminator(k)))
    }

    /// binutils' `lookup_address_in_function_table`: the smallest range holding `addr`.
    fn func_at(&self, addr: u64) -> Option<u32> {
        let last = self.lookup.last()?;
        if last.1 < addr {
            return None;
        }
        let first = self.lookup.partition_point(|e| e.1 <= addr);
        let mut best: Option<(u32, u64)> = None;
        for e in &self.lookup[first..] {
            if addr < e.0 {
                break;
            }
            let f = &self.funcs[e.2 as usize];
            for (lo, hi) in f.ranges(&self.more_ranges) {
                if addr < lo || addr >= hi {
                    continue;
                }
                let len = hi - lo;
                let better = match best {
                    None => true,
                    Some((b, blen)) => len < blen || (len == blen && e.2 > b),
                };
                if better {
                    best = Some((e.2, len));
                }
            }
        }
        best.map(|b| b.0)
    }
}

/// binutils' `arange_add`: appends a range, extending an existing one it touches.
fn arange_add(ranges: &mut Vec<(u64, u64)>, lo: u64, hi: u64) {
    if lo == hi {
        return;
    }
    for r in ranges.iter_mut() {
        if lo == r.1 {
            r.1 = hi;
            return;
        }
        if hi == r.0 {
            r.0 = lo;
            return;
        }
    }
    if ranges.is_empty() {
        ranges.push((lo, hi));
    } else {
        ranges.insert(1, (lo, hi));
    }
}

/// What binutils' `find_abstract_instance` reads from the DIE a reference points to.
struct Origin {
    name: Option<Arc<str>>,
    is_linkage: bool,
    scope: Option<Arc<str>>,
}

impl<'a> UnitSlot<'a> {
    /// The whole unit, read now if no one has.
    fn unit(&self, dwarf: &gimli::Dwarf<R<'a>>) -> Option<&gimli::Unit<R<'a>>> {
        self.full
            .get_or_init(|| dwarf.unit(self.header).ok())
            .as_ref()
    }
}

/// The index entry of the unit of `header`: its ranges, language and directory, from its
/// root entry ([`root_unit`]); `None` when that cannot be read.
fn unit_slot<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    header: gimli::UnitHeader<R<'a>>,
) -> Option<UnitSlot<'a>> {
    unit_slot_and_root(dwarf, header).map(|(slot, _)| slot)
}

/// [`unit_slot`], and the unit as far as its root entry tells ([`root_unit`]).
fn unit_slot_and_root<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    header: gimli::UnitHeader<R<'a>>,
) -> Option<(UnitSlot<'a>, gimli::Unit<R<'a>>)> {
    let unit = root_unit(dwarf, header)?;
    let mut lang = None;
    let mut ranges = Vec::new();
    let mut partial = false;
    {
        let mut entries = unit.entries();
        if let Ok(Some(root)) = entries.next_dfs() {
            partial = root.tag() == constants::DW_TAG_partial_unit;
            if let Some(AttributeValue::Language(l)) = root.attr_value(constants::DW_AT_language) {
                lang = Some(l);
            }
            if let Ok(mut it) = dwarf.die_ranges(&unit, root) {
                while let Ok(Some(r)) = it.next() {
                    if r.begin < r.end {
                        ranges.push((r.begin, r.end));
                    }
                }
            }
        }
    }
    let comp_dir = unit.comp_dir.as_ref().map(|d| {
        let d = String::from_utf8_lossy(d.slice()).into_owned();
        // binutils drops an Irix "<machine>.:" prefix.
        match d.find(':') {
            Some(i) if i > 0 && d.as_bytes()[i - 1] == b'.' && d[i + 1..].starts_with('/') => {
                d[i + 1..].to_string()
            }
            _ => d,
        }
    });
    let slot = UnitSlot {
        header,
        full: std::sync::OnceLock::new(),
        lang,
        comp_dir,
        ranges,
        partial,
        split: None,
    };
    Some((slot, unit))
}

/// The `.dwo` file a skeleton unit names (`DW_AT_dwo_name`, `DW_AT_GNU_dwo_name`), joined
/// to its compilation directory when relative.
fn dwo_path<'a>(dwarf: &gimli::Dwarf<R<'a>>, unit: &gimli::Unit<R<'a>>) -> Option<PathBuf> {
    let name = unit.dwo_name().ok()??;
    let name = dwarf.attr_string(unit, name).ok()?;
    let name = PathBuf::from(String::from_utf8_lossy(name.slice()).into_owned());
    Some(match &unit.comp_dir {
        Some(dir) if name.is_relative() => {
            PathBuf::from(String::from_utf8_lossy(dir.slice()).into_owned()).join(name)
        }
        _ => name,
    })
}

/// The `.dwo` files the skeleton units of `s` name, with the units' ids: those of the
/// units holding an address of `wanted` (all, without it). Only a file with `.debug_addr`
/// is looked at (split DWARF always has it; most other DWARF not).
fn split_units(s: &Sections, wanted: Option<&[u64]>) -> Vec<(PathBuf, Option<gimli::DwoId>)> {
    if s.data(SectionId::DebugAddr).is_empty() {
        return Vec::new();
    }
    let Ok(dwarf) = gimli::Dwarf::load(|id| -> Result<R<'_>, gimli::Error> {
        Ok(EndianSlice::new(s.data(id), s.endian))
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        // A DWARF 5 unit says in its header whether it is a skeleton.
        if header.version() >= 5 && !matches!(header.type_(), gimli::UnitType::Skeleton(_)) {
            continue;
        }
        let Some(unit) = root_unit(&dwarf, header) else {
            continue;
        };
        let Some(path) = dwo_path(&dwarf, &unit) else {
            continue;
        };
        if let Some(w) = wanted {
            let mut ranges = Vec::new();
            let mut entries = unit.entries();
            if let Ok(Some(root)) = entries.next_dfs()
                && let Ok(mut it) = dwarf.die_ranges(&unit, root)
            {
                while let Ok(Some(r)) = it.next() {
                    ranges.push((r.begin, r.end));
                }
            }
            if !ranges.is_empty() && !ranges.iter().any(|&(lo, hi)| wants(w, lo, hi)) {
                continue;
            }
        }
        if seen.insert(path.clone()) {
            out.push((path, unit.dwo_id));
        }
    }
    out
}

/// The unit of the `.dwo` file `dwo` that is the split unit of the skeleton unit with the
/// id `id` (without an id: the first compilation unit), if it has one.
fn split_header<'a>(
    dwo: &gimli::Dwarf<R<'a>>,
    id: Option<gimli::DwoId>,
) -> Option<gimli::UnitHeader<R<'a>>> {
    let mut headers = dwo.units();
    while let Ok(Some(header)) = headers.next() {
        let this = match header.type_() {
            gimli::UnitType::SplitCompilation(id) => Some(id),
            gimli::UnitType::Compilation => root_unit(dwo, header).and_then(|u| u.dwo_id),
            _ => continue,
        };
        if id.is_none() || this == id {
            return Some(header);
        }
    }
    None
}

/// Why the split unit of the skeleton unit with the id `id` cannot be read from `dwo`
/// (a `.dwo` file's DWARF, or a package's part), if it cannot.
fn split_problem(dwo: &gimli::Dwarf<R<'_>>, id: Option<gimli::DwoId>) -> Option<String> {
    let Some(header) = split_header(dwo, id) else {
        return Some("of another build: no unit with its skeleton's id".to_string());
    };
    if let Err(e) = dwo.unit(header) {
        return Some(format!("damaged: {e}"));
    }
    unit_slot(dwo, header)
        .is_none()
        .then(|| "damaged: its root entry cannot be read".to_string())
}

/// `s` (a `.dwo` file's sections, or a program's) as DWARF.
fn load_dwo(s: &Sections) -> Option<gimli::Dwarf<R<'_>>> {
    gimli::Dwarf::load(|id| -> Result<R<'_>, gimli::Error> {
        Ok(EndianSlice::new(s.data(id), s.endian))
    })
    .ok()
}

/// `s` (a `.dwp` file's sections) as a package of split units.
fn package(s: &Sections) -> Option<gimli::DwarfPackage<R<'_>>> {
    gimli::DwarfPackage::load(
        |id| -> Result<R<'_>, gimli::Error> { Ok(EndianSlice::new(s.data(id), s.endian)) },
        EndianSlice::new(&[], s.endian),
    )
    .ok()
}

/// Where the package of the split DWARF files of `files` may be: `<file>.dwp` of each.
fn dwp_places(files: &[&Path]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            let mut p = f.as_os_str().to_os_string();
            p.push(".dwp");
            PathBuf::from(p)
        })
        .collect();
    out.dedup();
    out
}

/// The split DWARF files the DWARF in `holder` (`elf` or its separate debug file) may
/// read: the package `<file>.dwp` of either, and each skeleton unit's `.dwo` file.
fn split_dwarf_places(holder: &Elf, elf: &Elf) -> Vec<PathBuf> {
    let has_addr = holder
        .sections
        .iter()
        .any(|s| s.name == b".debug_addr" || s.name == b".zdebug_addr");
    if !has_addr || !may_be_split(holder) {
        return Vec::new();
    }
    let Ok(s) = Sections::read(holder.data.clone(), false) else {
        return Vec::new();
    };
    let split = split_units(&s, None);
    if split.is_empty() {
        return Vec::new();
    }
    let mut out = dwp_places(&[&holder.path, &elf.path]);
    out.extend(split.into_iter().map(|u| u.0));
    out
}

/// False when the first unit of `holder`'s `.debug_info` is a DWARF 5 unit other than a
/// skeleton: the file is not built with split DWARF, and its sections need not be read
/// (inflated, when compressed: only the first bytes of a zlib-compressed section are).
fn may_be_split(holder: &Elf) -> bool {
    use std::io::Read;
    let Ok(file) = object::File::parse(&holder.data[..]) else {
        return false;
    };
    let Some(sec) = file
        .section_by_name(".debug_info")
        .or_else(|| file.section_by_name(".zdebug_info"))
    else {
        return false;
    };
    let mut head = [0u8; 24];
    let read = match sec.compressed_data() {
        Ok(c) if c.format == object::CompressionFormat::None => match c.data.get(..24) {
            Some(b) => {
                head.copy_from_slice(b);
                true
            }
            None => false,
        },
        Ok(c) if c.format == object::CompressionFormat::Zlib => {
            flate2::read::ZlibDecoder::new(c.data)
                .read_exact(&mut head)
                .is_ok()
        }
        // Another compression: read as a whole.
        _ => return true,
    };
    if !read {
        return false;
    }
    let le = file.is_little_endian();
    let u16_at = |i: usize| {
        let b = [head[i], head[i + 1]];
        if le {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    };
    // 32-bit DWARF: the length, then the version; 64-bit: 0xffffffff and 8 bytes of length.
    let at = if head[..4] == [0xff; 4] { 12 } else { 4 };
    u16_at(at) < 5 || head[at + 2] == constants::DW_UT_skeleton.0
}

/// Maps the file at `path` (a regular file) and reads its DWARF sections (a `.dwo` file's).
fn read_dwo(path: &Path) -> Result<Sections, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // Checked again: a FIFO put there in between would block a read.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err("not a regular file".to_string());
    }
    // SAFETY: as in `Elf::open`: a read-only mapping; every read of it is bounds checked.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| e.to_string())?;
    Sections::read(Arc::new(map), true)
}

/// The split unit of the skeleton unit `skeleton` in `dwarf` (its `.dwo` file's, or its
/// part of a package: see [`split_header`]), its addresses relocated as the skeleton's.
fn split_of<'a>(
    dwarf: gimli::Dwarf<R<'a>>,
    skeleton: &gimli::Unit<R<'a>>,
) -> Option<Box<Split<'a>>> {
    let header = split_header(&dwarf, skeleton.dwo_id)?;
    let mut unit = dwarf.unit(header).ok()?;
    unit.copy_relocated_attributes(skeleton);
    let mut slot = unit_slot(&dwarf, header)?;
    slot.full = std::sync::OnceLock::from(Some(unit));
    Some(Box::new(Split {
        dwarf,
        units: Units::new(vec![slot]),
    }))
}

/// The unit of `header` as far as its root entry tells: its root's abbreviation alone (not
/// the unit's whole table) and no line program. What the unit index needs (the unit's
/// ranges, language and directory) at a small part of the cost of `gimli::Unit::new`.
fn root_unit<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    header: gimli::UnitHeader<R<'a>>,
) -> Option<gimli::Unit<R<'a>>> {
    let abbreviations = Arc::new(root_abbreviation(dwarf.debug_abbrev.reader(), &header)?);
    let mut unit = gimli::Unit {
        abbreviations,
        name: None,
        comp_dir: None,
        low_pc: 0,
        str_offsets_base: gimli::DebugStrOffsetsBase::default_for_encoding_and_file(
            header.encoding(),
            dwarf.file_type,
        ),
        addr_base: gimli::DebugAddrBase(0),
        loclists_base: gimli::DebugLocListsBase::default_for_encoding_and_file(
            header.encoding(),
            dwarf.file_type,
        ),
        rnglists_base: gimli::DebugRngListsBase::default_for_encoding_and_file(
            header.encoding(),
            dwarf.file_type,
        ),
        line_program: None,
        dwo_id: match header.type_() {
            gimli::UnitType::Skeleton(id) | gimli::UnitType::SplitCompilation(id) => Some(id),
            _ => None,
        },
        header,
    };
    // The bases, read as `gimli::Unit::new` reads them (it reads the line program too).
    let (mut name, mut comp_dir, mut low_pc) = (None, None, None);
    {
        let mut cursor = unit.header.entries(&unit.abbreviations);
        let root = cursor.next_dfs().ok()??;
        for attr in root.attrs() {
            match (attr.name(), attr.value()) {
                (constants::DW_AT_name, v) => name = Some(v),
                (constants::DW_AT_comp_dir, v) => comp_dir = Some(v),
                (constants::DW_AT_low_pc, v) => low_pc = Some(v),
                (constants::DW_AT_str_offsets_base, AttributeValue::DebugStrOffsetsBase(b)) => {
                    unit.str_offsets_base = b;
                }
                (
                    constants::DW_AT_addr_base | constants::DW_AT_GNU_addr_base,
                    AttributeValue::DebugAddrBase(b),
                ) => unit.addr_base = b,
                (constants::DW_AT_loclists_base, AttributeValue::DebugLocListsBase(b)) => {
                    unit.loclists_base = b;
                }
                (
                    constants::DW_AT_rnglists_base | constants::DW_AT_GNU_ranges_base,
                    AttributeValue::DebugRngListsBase(b),
                ) => unit.rnglists_base = b,
                (constants::DW_AT_GNU_dwo_id, AttributeValue::DwoId(id)) => {
                    unit.dwo_id = unit.dwo_id.or(Some(id));
                }
                _ => {}
            }
        }
    }
    unit.name = name.and_then(|v| dwarf.attr_string(&unit, v).ok());
    unit.comp_dir = comp_dir.and_then(|v| dwarf.attr_string(&unit, v).ok());
    if let Some(v) = low_pc {
        unit.low_pc = dwarf.attr_address(&unit, v).ok()?.unwrap_or(0);
    }
    Some(unit)
}

/// The abbreviation of `header`'s root entry, alone in a table: the entries of the unit's
/// table are skipped up to it (in a compiler's output it is the first).
fn root_abbreviation<'a>(
    section: &R<'a>,
    header: &gimli::UnitHeader<R<'a>>,
) -> Option<gimli::Abbreviations> {
    use gimli::Reader;
    let code = header
        .range_from(gimli::UnitOffset(header.header_size())..)
        .ok()?
        .read_uleb128()
        .ok()?;
    if code == 0 {
        return None;
    }
    let (table, endian) = (section.slice(), section.endian());
    let mut r = EndianSlice::new(table.get(header.debug_abbrev_offset().0..)?, endian);
    loop {
        let begin = table.len() - r.len();
        let this = r.read_uleb128().ok()?;
        if this == 0 {
            return None;
        }
        let _tag = r.read_uleb128().ok()?;
        let _children = r.read_u8().ok()?;
        loop {
            let name = r.read_uleb128().ok()?;
            let form = r.read_uleb128().ok()?;
            if form == u64::from(constants::DW_FORM_implicit_const.0) {
                r.read_sleb128().ok()?;
            }
            if name == 0 && form == 0 {
                break;
            }
        }
        if this == code {
            let end = table.len() - r.len();
            // The entry and a 0 that ends the table.
            let mut one = table.get(begin..end)?.to_vec();
            one.push(0);
            return gimli::DebugAbbrev::new(&one, endian)
                .abbreviations(gimli::DebugAbbrevOffset(0))
                .ok();
        }
    }
}

/// Follows `DW_AT_abstract_origin`/`DW_AT_specification` `r` from unit `u`.
fn find_abstract_instance<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    units: &Units<'a>,
    u: usize,
    r: AttributeValue<R<'a>>,
    out: &mut Origin,
    depth: u32,
    scopes: Option<&Scopes<'_, 'a>>,
) {
    if depth >= 100 {
        return;
    }
    let (tu, off) = match r {
        AttributeValue::UnitRef(o) => (u, o),
        AttributeValue::DebugInfoRef(o) => {
            // A reference into another unit.
            match units.holding(o) {
                Some(x) => x,
                None => return,
            }
        }
        AttributeValue::DebugInfoRefSup(o) => {
            // An entry of the supplementary file, read there: with its units, its strings
            // and its own references.
            let Some(sup) = dwarf.sup() else { return };
            let sup_units = units.sup.get_or_init(|| Box::new(Units::of_sup(sup)));
            if let Some((su, so)) = sup_units.holding(o) {
                let r = AttributeValue::UnitRef(so);
                find_abstract_instance(sup, sup_units, su, r, out, depth + 1, None);
            }
            return;
        }
        _ => return,
    };
    let slot = &units[tu];
    let Some(unit) = slot.unit(dwarf) else {
        return;
    };
    // The entry's naming attributes, the others skipped by their forms (reading every
    // attribute into an entry cost about 1,000 instructions a lookup); nothing is taken
    // from an entry that cannot be read to its end.
    let Ok(mut raw) = unit.entries_raw(Some(off)) else {
        return;
    };
    let Ok(Some(abbrev)) = raw.read_abbreviation() else {
        return;
    };
    let naming = |name: gimli::DwAt| {
        matches!(
            name,
            constants::DW_AT_name
                | constants::DW_AT_specification
                | constants::DW_AT_linkage_name
                | constants::DW_AT_MIPS_linkage_name
        )
    };
    let mut attrs = Vec::new();
    if read_attributes(&mut raw, abbrev.attributes(), naming, |a| attrs.push(a)).is_err() {
        return;
    }
    for a in &attrs {
        match a.name() {
            constants::DW_AT_name => {
                if out.name.is_none()
                    && let Some(s) = attr_arc(dwarf, unit, a.value())
                {
                    out.name = Some(s);
                    out.scope = match scopes {
                        Some(s) if s.unit == tu => s.get(tu, off.0),
                        _ => units.scope_of(dwarf, tu, off.0),
                    };
                    if name_is_linkage(slot.lang) {
                        out.is_linkage = true;
                    }
                }
            }
            constants::DW_AT_specification => {
                find_abstract_instance(dwarf, units, tu, a.value(), out, depth + 1, scopes);
            }
            constants::DW_AT_linkage_name | constants::DW_AT_MIPS_linkage_name => {
                if let Some(s) = attr_arc(dwarf, unit, a.value()) {
                    out.name = Some(s);
                    out.is_linkage = true;
                }
            }
            _ => {}
        }
    }
}

/// One name-bearing attribute of a function DIE, replayed in order once every scope is known.
enum NameEvent<'a> {
    /// `DW_AT_name` (its string is read only for the functions kept).
    Name(AttributeValue<R<'a>>),
    /// `DW_AT_linkage_name` or `DW_AT_MIPS_linkage_name`.
    Linkage(AttributeValue<R<'a>>),
    Origin(AttributeValue<R<'a>>),
}

/// Buffers one thread reuses from unit to unit.
#[derive(Default)]
struct Scratch<'a> {
    /// Every function DIE of the unit.
    funcs: Vec<Func>,
    /// Per function: the scope of its own DIE (an index into `scope_names`, `NO_SCOPE`).
    own_scope: Vec<u32>,
    /// Every function's name attributes, one function after the other.
    events: Vec<NameEvent<'a>>,
    /// How many events each function has.
    counts: Vec<u32>,
    /// Function DIE index at each nesting level (None: not a function).
    nested: Vec<Option<u32>>,
    /// The scope at each nesting level (index into `scope_names`, `NO_SCOPE`).
    scope_stack: Vec<u32>,
    /// Scope names (`a::b`).
    scope_names: Vec<Arc<str>>,
    /// Per scope name: where it is declared when that is in a function (see [`Local`]);
    /// its name is then its own until [`finish_functions`] puts the function's before it.
    scope_local: Vec<Option<Local>>,
    /// Per function DIE: its offset.
    func_offsets: Vec<usize>,
    /// Subprogram DIE offset -> its scope, by offset.
    scopes: Vec<(usize, u32)>,
    /// One function's ranges.
    ranges: Vec<(u64, u64)>,
    /// One line sequence's rows.
    rows: Vec<Row>,
    /// Functions whose entries were skipped: (offset, offset of its sibling, scope).
    skipped: Vec<(usize, usize, u32)>,
    /// Where the unit's entries could not be read on (their offset in the unit), if they
    /// could not: the functions after it are missing.
    damaged: Option<usize>,
}

/// No scope (at the top level of a unit).
const NO_SCOPE: u32 = u32::MAX;

/// The namespace/class scope of each subprogram DIE of one unit.
struct Scopes<'s, 'a> {
    unit: usize,
    offsets: &'s [(usize, u32)],
    names: &'s [Arc<str>],
    /// [`Scratch::skipped`], and what it takes to read the entries skipped.
    skipped: &'s [(usize, usize, u32)],
    dwarf: &'s gimli::Dwarf<R<'a>>,
    entries: &'s gimli::Unit<R<'a>>,
}

impl<'s, 'a> Scopes<'s, 'a> {
    /// The scopes of unit `unit` (`entries`) that a scan found: `offsets` and `names` as
    /// [`Scratch::scopes`] and [`Scratch::scope_names`], `skipped` as [`Scratch::skipped`].
    fn of(
        unit: usize,
        offsets: &'s [(usize, u32)],
        names: &'s [Arc<str>],
        skipped: &'s [(usize, usize, u32)],
        dwarf: &'s gimli::Dwarf<R<'a>>,
        entries: &'s gimli::Unit<R<'a>>,
    ) -> Self {
        Scopes {
            unit,
            offsets,
            names,
            skipped,
            dwarf,
            entries,
        }
    }

    /// The scope of the subprogram DIE at `offset` of unit `unit`.
    fn get(&self, unit: usize, offset: usize) -> Option<Arc<str>> {
        self.get_at(unit, offset, 0)
    }

    /// [`Scopes::get`], `depth` names deep (a lambda in a lambda: its scope is named
    /// after the function it is in, whose name has a scope...).
    fn get_at(&self, unit: usize, offset: usize, depth: u32) -> Option<Arc<str>> {
        if unit != self.unit || depth > 16 {
            return None;
        }
        if let Ok(i) = self.offsets.binary_search_by_key(&offset, |e| e.0) {
            return self.names.get(self.offsets[i].1 as usize).cloned();
        }
        // Declared inside a function whose entries were skipped (a member of a local
        // class, a lambda's call operator): read them now, up to `offset`.
        let i = self
            .skipped
            .partition_point(|s| s.0 <= offset)
            .checked_sub(1)?;
        let (start, end, outer) = self.skipped[i];
        if offset >= end {
            return None;
        }
        let mut raw = self
            .entries
            .entries_raw(Some(gimli::UnitOffset(start)))
            .ok()?;
        // The scope at each depth below the function's, the function entry there, and
        // whether it is a closure type's.
        let mut stack: Vec<(Option<Arc<str>>, Option<usize>, bool)> = Vec::new();
        let outer = self.names.get(outer as usize).cloned();
        let mut closures: HashMap<usize, Vec<usize>> = HashMap::default();
        let mut func_names: HashMap<usize, Option<Arc<str>>> = HashMap::default();
        while !raw.is_empty() {
            let level = usize::try_from(raw.next_depth()).ok()?;
            let at = raw.next_offset().0;
            if at > offset || at >= end {
                return None;
            }
            let abbrev = match raw.read_abbreviation() {
                Ok(Some(a)) => a,
                Ok(None) => continue,
                Err(_) => return None,
            };
            stack.truncate(level);
            let here = stack.last().map_or_else(|| outer.clone(), |e| e.0.clone());
            if at == offset {
                return here;
            }
            let tag = abbrev.tag();
            let mut closure = false;
            let scope = if is_scope_tag(tag) {
                let name = read_scope(&mut raw, abbrev, self.dwarf, self.entries).ok()?;
                // Declared in a function (as in `scan_functions`): only blocks between for
                // a class, blocks and closure types for a closure type.
                let func_at = |closures_between: bool| {
                    let lv = stack.iter().rposition(|e| e.1.is_some())?;
                    let own = stack[lv].0.as_ref();
                    stack[lv + 1..]
                        .iter()
                        .all(|e| same_scope(e.0.as_ref(), own) || (closures_between && e.2))
                        .then_some(())?;
                    stack[lv].1
                };
                let (func, n) = match name {
                    Some(n) => (func_at(false), n),
                    None => {
                        match func_at(true).filter(|_| is_closure(self.dwarf, self.entries, at)) {
                            Some(f) => {
                                closure = true;
                                let c = closures
                                    .entry(f)
                                    .or_insert_with(|| closures_of(self.dwarf, self.entries, f));
                                (Some(f), lambda_name(c, at))
                            }
                            None => (None, String::new()),
                        }
                    }
                };
                match func {
                    Some(f) => {
                        let fname = func_names
                            .entry(f)
                            .or_insert_with(|| self.plain_name(f, depth + 1));
                        Some(join_scope(fname.as_ref(), &n))
                    }
                    None if !n.is_empty() => Some(join_scope(here.as_ref(), &n)),
                    None => here,
                }
            } else {
                raw.skip_attributes(abbrev.attributes()).ok()?;
                here
            };
            let is_func = matches!(
                tag,
                constants::DW_TAG_subprogram
                    | constants::DW_TAG_entry_point
                    | constants::DW_TAG_inlined_subroutine
            );
            stack.push((scope, is_func.then_some(at), closure));
        }
        None
    }

    /// The DWARF name of the function entry at `offset` (through `DW_AT_specification` and
    /// `DW_AT_abstract_origin`), with its scope: what a demangler writes before the name of
    /// something declared in it, without the parameters.
    fn plain_name(&self, offset: usize, depth: u32) -> Option<Arc<str>> {
        if depth > 16 {
            return None;
        }
        let entry = self.entries.entry(gimli::UnitOffset(offset)).ok()?;
        let mut next = None;
        for a in entry.attrs() {
            match a.name() {
                constants::DW_AT_name => {
                    let n = attr_arc(self.dwarf, self.entries, a.value())?;
                    let scope = self.get_at(self.unit, offset, depth + 1);
                    return Some(join_scope(scope.as_ref(), &n));
                }
                constants::DW_AT_specification | constants::DW_AT_abstract_origin => {
                    if let AttributeValue::UnitRef(o) = a.value() {
                        next = Some(o.0);
                    }
                }
                _ => {}
            }
        }
        self.plain_name(next?, depth + 1)
    }
}

/// Whether two scopes of a walk are the same one (not two of the same name).
fn same_scope(a: Option<&Arc<str>>, b: Option<&Arc<str>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Tags whose entries name a scope of the subprograms declared in them.
fn is_scope_tag(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        constants::DW_TAG_namespace
            | constants::DW_TAG_class_type
            | constants::DW_TAG_structure_type
            | constants::DW_TAG_union_type
    )
}

/// Reads the attributes of a scope entry (see [`is_scope_tag`]): its name, if it has one
/// (an anonymous namespace is `(anonymous namespace)`).
fn read_scope<'a>(
    raw: &mut gimli::EntriesRaw<'_, R<'a>>,
    abbrev: &gimli::Abbreviation,
    dwarf: &gimli::Dwarf<R<'a>>,
    unit: &gimli::Unit<R<'a>>,
) -> gimli::Result<Option<String>> {
    let mut name = None;
    for spec in abbrev.attributes() {
        let a = raw.read_attribute(*spec)?;
        if a.name() == constants::DW_AT_name {
            name = attr_str(dwarf, unit, a.value());
        }
    }
    if abbrev.tag() == constants::DW_TAG_namespace && name.is_none() {
        name = Some("(anonymous namespace)".to_string());
    }
    Ok(name)
}

/// What [`Units::scope_of`] reads of `unit`. An entry that cannot be read ends the table
/// there.
fn read_scopes<'a>(dwarf: &gimli::Dwarf<R<'a>>, unit: &gimli::Unit<R<'a>>) -> ScopeTable {
    let mut names: Vec<Arc<str>> = Vec::new();
    let mut funcs = Vec::new();
    let Ok(mut raw) = unit.entries_raw(None) else {
        return ScopeTable::default();
    };
    // The scope at each depth, and whether a function is between it and the root.
    let mut stack: Vec<(u32, bool)> = Vec::new();
    // The function being read that is in no function: its depth, offset and scope.
    let mut open: Option<(usize, usize, u32)> = None;
    let mut end = unit.header.length_including_self();
    while !raw.is_empty() {
        let Ok(level) = usize::try_from(raw.next_depth()) else {
            break;
        };
        let at = raw.next_offset().0;
        if open.as_ref().is_some_and(|f| level <= f.0)
            && let Some((_, start, scope)) = open.take()
        {
            funcs.push((start, at, scope));
        }
        let abbrev = match raw.read_abbreviation() {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(_) => {
                end = at;
                break;
            }
        };
        stack.truncate(level);
        let (outer, in_func) = stack.last().copied().unwrap_or((NO_SCOPE, false));
        let tag = abbrev.tag();
        let entry = if is_scope_tag(tag) {
            let Ok(name) = read_scope(&mut raw, abbrev, dwarf, unit) else {
                end = at;
                break;
            };
            match name {
                Some(n) if !in_func => {
                    names.push(join_scope(names.get(outer as usize), &n));
                    ((names.len() - 1) as u32, false)
                }
                _ => (outer, in_func),
            }
        } else {
            if raw.skip_attributes(abbrev.attributes()).is_err() {
                end = at;
                break;
            }
            let is_func = matches!(
                tag,
                constants::DW_TAG_subprogram
                    | constants::DW_TAG_entry_point
                    | constants::DW_TAG_inlined_subroutine
            );
            if is_func && !in_func {
                open = Some((level, at, outer));
            }
            (outer, in_func || is_func)
        };
        stack.push(entry);
    }
    if let Some((_, start, scope)) = open {
        funcs.push((start, end, scope));
    }
    ScopeTable {
        names: names.into_boxed_slice(),
        funcs: funcs.into_boxed_slice(),
    }
}

/// `outer::name`, or `name` at the top level.
fn join_scope(outer: Option<&Arc<str>>, name: &str) -> Arc<str> {
    match outer {
        Some(o) => Arc::from(format!("{o}::{name}")),
        None => Arc::from(name),
    }
}

/// Where a scope declared in a function is, for the name a demangler gives it.
#[derive(Debug, Clone, Copy)]
enum Local {
    /// A class declared in the function at this offset (only blocks between).
    Func(usize),
    /// A class declared in this scope (a local class).
    Nested(u32),
    /// A lambda's closure type, at `offset`, numbered in the function at `func`.
    Closure { func: usize, offset: usize },
}

/// `{lambda#N}`: the closure type at `offset` numbered among `closures` (see
/// [`closures_of`]), or `{lambda}` if it is not among them.
fn lambda_name(closures: &[usize], offset: usize) -> String {
    match closures.iter().position(|&c| c == offset) {
        Some(i) => format!("{{lambda#{}}}", i + 1),
        None => "{lambda}".to_string(),
    }
}

/// The closure types of the lambdas written in the function entry at `func` (unnamed
/// classes among its entries, in blocks or in other closure types but not in another
/// function), in the order GCC numbers them: the order they are written in, which is that
/// of their declared line and column (GCC puts the function's own before those of its
/// blocks). A lambda GCC writes no entry for (an unused one) is not counted.
fn closures_of<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    unit: &gimli::Unit<R<'a>>,
    func: usize,
) -> Vec<usize> {
    let Ok(mut raw) = unit.entries_raw(Some(gimli::UnitOffset(func))) else {
        return Vec::new();
    };
    let mut found: Vec<(u64, u64, usize)> = Vec::new();
    // Per depth: whether a closure type below it is still the function's.
    let mut open: Vec<bool> = Vec::new();
    let mut first = true;
    while !raw.is_empty() {
        let depth = raw.next_depth();
        if !first && depth <= 0 {
            break;
        }
        let at = raw.next_offset().0;
        let abbrev = match raw.read_abbreviation() {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(_) => break,
        };
        open.truncate(depth.max(0) as usize);
        let tag = abbrev.tag();
        let class = matches!(
            tag,
            constants::DW_TAG_class_type | constants::DW_TAG_structure_type
        );
        let (mut named, mut line, mut column) = (false, 0, 0);
        if class {
            for spec in abbrev.attributes() {
                let Ok(a) = raw.read_attribute(*spec) else {
                    return Vec::new();
                };
                match a.name() {
                    constants::DW_AT_name => named = true,
                    constants::DW_AT_decl_line => line = a.udata_value().unwrap_or(0),
                    constants::DW_AT_decl_column => column = a.udata_value().unwrap_or(0),
                    _ => {}
                }
            }
        } else if raw.skip_attributes(abbrev.attributes()).is_err() {
            break;
        }
        let mine = open.iter().all(|&o| o);
        let here = if first {
            first = false;
            true
        } else if class && !named && mine && is_closure(dwarf, unit, at) {
            found.push((line, column, at));
            true
        } else {
            mine && tag == constants::DW_TAG_lexical_block
        };
        open.push(here);
    }
    found.sort_unstable();
    found.into_iter().map(|f| f.2).collect()
}

/// Whether the unnamed class entry at `offset` is a lambda's closure type, as GCC writes
/// one: its call operator's object parameter is named `__closure`, its constructors and
/// destructor `<lambda>` and `~<lambda>` (a hand-written unnamed class with an
/// `operator()` has `this` and `<constructor>`).
fn is_closure<'a>(dwarf: &gimli::Dwarf<R<'a>>, unit: &gimli::Unit<R<'a>>, offset: usize) -> bool {
    let Ok(mut raw) = unit.entries_raw(Some(gimli::UnitOffset(offset))) else {
        return false;
    };
    let mut first = true;
    // A closure type's entries are few: a class this long is something else.
    for _ in 0..4096 {
        if raw.is_empty() {
            return false;
        }
        let depth = raw.next_depth();
        if !first && depth <= 0 {
            return false;
        }
        let abbrev = match raw.read_abbreviation() {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(_) => return false,
        };
        let tag = abbrev.tag();
        let wanted: &[&[u8]] = match (first, depth, tag) {
            (false, 1, constants::DW_TAG_subprogram) => &[b"<lambda>", b"~<lambda>"],
            (false, 2, constants::DW_TAG_formal_parameter) => &[b"__closure"],
            _ => &[],
        };
        first = false;
        for spec in abbrev.attributes() {
            let Ok(a) = raw.read_attribute(*spec) else {
                return false;
            };
            if !wanted.is_empty()
                && a.name() == constants::DW_AT_name
                && let Ok(name) = dwarf.attr_string(unit, a.value())
                && wanted.contains(&name.slice())
            {
                return true;
            }
        }
    }
    false
}

/// binutils' `scan_unit_for_symbols`, for functions: every subprogram and inlined
/// subroutine with its caller, name and ranges. One pass over the DIEs records functions,
/// their name attributes and the namespace/class scope of every subprogram; names that come
/// through `DW_AT_abstract_origin`/`DW_AT_specification` are resolved after it, as binutils'
/// second pass does.
///
/// With `wanted` (addresses, skip), only the functions whose ranges hold a wanted address,
/// and their callers, are kept (and named); every function's ranges go to `all`. With skip,
/// the entries of a function that holds no wanted address are not read (they are most of a
/// unit, and what they hold lies inside the function's ranges; see `parse_unit` for when it
/// does not).
#[allow(clippy::too_many_arguments)]
fn scan_functions<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    units: &Units<'a>,
    u: usize,
    more_ranges: &mut Vec<(u64, u64)>,
    wanted: Option<(&[u64], bool)>,
    all: &mut Outside,
    sc: &mut Scratch<'a>,
    code: Code,
) -> Option<Vec<Func>> {
    let skip = wanted.is_some_and(|w| w.1);
    let wanted = wanted.map(|w| w.0);
    let slot = &units[u];
    let unit = slot.unit(dwarf)?;
    for v in [&mut sc.own_scope, &mut sc.counts, &mut sc.scope_stack] {
        v.clear();
    }
    sc.funcs.clear();
    sc.events.clear();
    sc.nested.clear();
    sc.scope_names.clear();
    sc.scope_local.clear();
    sc.func_offsets.clear();
    sc.scopes.clear();
    sc.skipped.clear();
    sc.damaged = None;
    // Function DIEs are roughly one in a hundred bytes of a unit.
    let len = unit.header.unit_length();
    sc.funcs.reserve(len / 128);
    sc.events.reserve(len / 128);
    let mut raw = unit.entries_raw(None).ok()?;
    let mut base: isize = 0;
    // The depth of the function being read whose code the linker discarded.
    let mut discarded: Option<usize> = None;
    while !raw.is_empty() {
        let depth = raw.next_depth() + base;
        let offset = raw.next_offset();
        let abbrev = match raw.read_abbreviation() {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(_) => {
                sc.damaged = Some(offset.0);
                break;
            }
        };
        let level = depth.max(0) as usize;
        if discarded.is_some_and(|d| level <= d) {
            discarded = None;
        }
        sc.nested.truncate(level);
        sc.scope_stack.truncate(level);
        let outer = sc.scope_stack.last().copied().unwrap_or(NO_SCOPE);
        let tag = abbrev.tag();
        let is_func = tag == constants::DW_TAG_subprogram
            || tag == constants::DW_TAG_entry_point
            || tag == constants::DW_TAG_inlined_subroutine;
        if !is_func {
            let is_scope = is_scope_tag(tag);
            let mut scope = outer;
            if is_scope {
                let Ok(name) = read_scope(&mut raw, abbrev, dwarf, unit) else {
                    sc.damaged = Some(offset.0);
                    break;
                };
                // Declared in a function: named after it, as a demangler names it, once
                // every function's name is known.
                let lv = sc.nested.iter().rposition(Option::is_some);
                let func_at = |closures_between: bool| {
                    let lv = lv?;
                    let own = *sc.scope_stack.get(lv)?;
                    let between = sc.scope_stack.get(lv + 1..)?;
                    let fits = |&s: &u32| {
                        s == own
                            || (closures_between
                                && matches!(
                                    sc.scope_local.get(s as usize),
                                    Some(Some(Local::Closure { .. }))
                                ))
                    };
                    between.iter().all(fits).then_some(())?;
                    let id = sc.nested[lv]?;
                    sc.func_offsets.get(id as usize).copied()
                };
                let local = match name {
                    // A class in the function (only blocks between), or in a class that is.
                    Some(_) => func_at(false).map(Local::Func).or_else(|| {
                        sc.scope_local
                            .get(outer as usize)
                            .copied()
                            .flatten()
                            .map(|_| Local::Nested(outer))
                    }),
                    // A lambda's closure type (in blocks or in other closure types: a lambda
                    // in a lambda's default argument is numbered in the function too).
                    None => func_at(true)
                        .filter(|_| is_closure(dwarf, unit, offset.0))
                        .map(|func| Local::Closure {
                            func,
                            offset: offset.0,
                        }),
                };
                if name.is_some() || local.is_some() {
                    scope = sc.scope_names.len() as u32;
                    let n = name.unwrap_or_default();
                    let joined = match local {
                        // The function's name (the class's) goes first later.
                        Some(_) => Arc::from(n),
                        None => join_scope(sc.scope_names.get(outer as usize), &n),
                    };
                    sc.scope_names.push(joined);
                    sc.scope_local.push(local);
                }
            } else if raw.skip_attributes(abbrev.attributes()).is_err() {
                sc.damaged = Some(offset.0);
                break;
            }
            sc.nested.push(None);
            sc.scope_stack.push(scope);
            continue;
        }
        let own_scope = if tag == constants::DW_TAG_subprogram && outer != NO_SCOPE {
            sc.scopes.push((offset.0, outer));
            outer
        } else {
            NO_SCOPE
        };
        let inlined = tag == constants::DW_TAG_inlined_subroutine;
        let caller = if inlined {
            sc.nested.iter().rev().flatten().next().copied()
        } else {
            None
        };
        let mut f = Func {
            inlined,
            caller,
            call_file: NO_FILE,
            call_line: 0,
            name: None,
            is_linkage: false,
            scope: None,
            range: (0, 0),
            more: (0, 0),
        };
        let ev_start = sc.events.len();
        sc.ranges.clear();
        let mut low: u64 = 0;
        let mut high: u64 = 0;
        let mut high_rel = false;
        let mut sibling = None;
        // The attributes that say nothing here (a function's declared place, type, frame
        // base, parameters' flags...) are skipped by their forms.
        let read = read_attributes(&mut raw, abbrev.attributes(), scan_reads, |a| {
            match a.name() {
                constants::DW_AT_sibling => {
                    if let AttributeValue::UnitRef(o) = a.value() {
                        sibling = Some(o);
                    }
                }
                constants::DW_AT_call_file => {
                    if let Some(i) = a.udata_value() {
                        f.call_file = u32::try_from(i).unwrap_or(NO_FILE - 1);
                    }
                }
                constants::DW_AT_call_line => {
                    if let Some(l) = a.udata_value() {
                        f.call_line = l as u32;
                    }
                }
                constants::DW_AT_abstract_origin | constants::DW_AT_specification => {
                    sc.events.push(NameEvent::Origin(a.value()));
                }
                constants::DW_AT_name => sc.events.push(NameEvent::Name(a.value())),
                constants::DW_AT_linkage_name | constants::DW_AT_MIPS_linkage_name => {
                    sc.events.push(NameEvent::Linkage(a.value()));
                }
                constants::DW_AT_low_pc => {
                    if let Ok(Some(v)) = dwarf.attr_address(unit, a.value()) {
                        low = v;
                    }
                }
                constants::DW_AT_high_pc => match a.value() {
                    AttributeValue::Addr(v) => {
                        high = v;
                        high_rel = false;
                    }
                    v @ AttributeValue::DebugAddrIndex(_) => {
                        if let Ok(Some(x)) = dwarf.attr_address(unit, v) {
                            high = x;
                            high_rel = false;
                        }
                    }
                    v => {
                        if let Some(x) = v.udata_value() {
                            high = x;
                            high_rel = true;
                        }
                    }
                },
                constants::DW_AT_ranges => {
                    if let Ok(Some(off)) = dwarf.attr_ranges_offset(unit, a.value())
                        && let Ok(mut it) = dwarf.ranges(unit, off)
                    {
                        while let Ok(Some(r)) = it.next() {
                            arange_add(&mut sc.ranges, r.begin, r.end);
                        }
                    }
                }
                _ => {}
            }
        });
        if read.is_err() {
            sc.events.truncate(ev_start);
            sc.damaged = Some(offset.0);
            break;
        }
        if high_rel {
            high = high.wrapping_add(low);
        }
        if high != 0 {
            arange_add(&mut sc.ranges, low, high);
        }
        // What the linker discarded (see `Code`): a function with a range outside the code,
        // and what is inside it.
        if discarded.is_some() || sc.ranges.iter().any(|&(lo, _)| !code.holds(lo)) {
            sc.ranges.clear();
            discarded = discarded.or(Some(level));
        }
        if let Some(&first) = sc.ranges.first() {
            f.range = first;
        }
        if sc.ranges.len() > 1 {
            f.more = (more_ranges.len() as u32, (sc.ranges.len() - 1) as u32);
            more_ranges.extend_from_slice(&sc.ranges[1..]);
        }
        let id = sc.funcs.len() as u32;
        sc.funcs.push(f);
        sc.func_offsets.push(offset.0);
        sc.own_scope.push(own_scope);
        sc.counts.push((sc.events.len() - ev_start) as u32);
        sc.nested.push(Some(id));
        // A function is no scope: its entries are in the one it is in.
        sc.scope_stack.push(outer);
        // The entries of a function that holds no wanted address (its parameters,
        // variables, call sites, blocks and inlined copies, whose ranges lie inside its
        // own) are skipped to its sibling; the scopes of subprograms declared among them are
        // read if a name needs them (`Scopes::get`).
        if let (true, Some(w), Some(sib)) = (skip, wanted, sibling)
            && abbrev.has_children()
            && sib.0 > offset.0
            && !sc.ranges.iter().any(|&(lo, hi)| wants(w, lo, hi))
            && let Ok(r) = unit.entries_raw(Some(sib))
        {
            sc.skipped.push((offset.0, sib.0, outer));
            raw = r;
            base = level as isize;
        }
    }
    Some(finish_functions(
        dwarf,
        units,
        u,
        sc,
        more_ranges,
        wanted,
        all,
    ))
}

/// Reads the attributes of the entry at `raw` (its abbreviation code read, `specs` its
/// abbreviation's attributes), calling `f` with each whose name `reads` accepts; the others
/// are skipped by their forms, runs of them at once. `Err` when the entry cannot be read to
/// its end (`f` may have been called for some of its attributes).
fn read_attributes<'a>(
    raw: &mut gimli::EntriesRaw<'_, R<'a>>,
    specs: &[gimli::AttributeSpecification],
    reads: impl Fn(gimli::DwAt) -> bool,
    mut f: impl FnMut(gimli::Attribute<R<'a>>),
) -> Result<(), ()> {
    let mut at = 0;
    while at < specs.len() {
        let unused = specs[at..]
            .iter()
            .take_while(|spec| !reads(spec.name()))
            .count();
        if unused > 0 {
            raw.skip_attributes(&specs[at..at + unused])
                .map_err(|_| ())?;
            at += unused;
            continue;
        }
        f(raw.read_attribute(specs[at]).map_err(|_| ())?);
        at += 1;
    }
    Ok(())
}

/// True for the attributes of a function's entry that [`scan_functions`] reads.
fn scan_reads(name: gimli::DwAt) -> bool {
    matches!(
        name,
        constants::DW_AT_sibling
            | constants::DW_AT_call_file
            | constants::DW_AT_call_line
            | constants::DW_AT_abstract_origin
            | constants::DW_AT_specification
            | constants::DW_AT_name
            | constants::DW_AT_linkage_name
            | constants::DW_AT_MIPS_linkage_name
            | constants::DW_AT_low_pc
            | constants::DW_AT_high_pc
            | constants::DW_AT_ranges
    )
}

/// Applies each function's name attributes in DIE order, as binutils reads them; with
/// `wanted`, drops the functions that hold no wanted address and are no such function's
/// caller.
fn finish_functions<'a>(
    dwarf: &gimli::Dwarf<R<'a>>,
    units: &Units<'a>,
    u: usize,
    sc: &mut Scratch<'a>,
    more_ranges: &mut Vec<(u64, u64)>,
    wanted: Option<&[u64]>,
    all: &mut Outside,
) -> Vec<Func> {
    let Scratch {
        funcs,
        own_scope,
        events,
        counts,
        scope_names,
        scope_local,
        scopes,
        skipped,
        ..
    } = sc;
    let Some(unit) = units[u].unit(dwarf) else {
        return Vec::new();
    };
    // The scopes declared in a function (local classes, lambdas' closure types) get its
    // name before theirs, in order: a function's own scope comes before those in it.
    let mut func_names: HashMap<usize, Option<Arc<str>>> = HashMap::default();
    let mut closures: HashMap<usize, Vec<usize>> = HashMap::default();
    for i in 0..scope_names.len() {
        let (func, own) = match scope_local.get(i).copied().flatten() {
            None => continue,
            Some(Local::Nested(p)) => {
                if let Some(outer) = scope_names.get(p as usize).cloned() {
                    scope_names[i] = join_scope(Some(&outer), &scope_names[i]);
                }
                continue;
            }
            Some(Local::Func(f)) => (f, scope_names[i].to_string()),
            Some(Local::Closure { func, offset }) => {
                let c = closures
                    .entry(func)
                    .or_insert_with(|| closures_of(dwarf, unit, func));
                (func, lambda_name(c, offset))
            }
        };
        let fname = match func_names.get(&func) {
            Some(n) => n.clone(),
            None => {
                let n =
                    Scopes::of(u, scopes, scope_names, skipped, dwarf, unit).plain_name(func, 0);
                func_names.insert(func, n.clone());
                n
            }
        };
        scope_names[i] = join_scope(fname.as_ref(), &own);
    }
    let scopes = Scopes::of(u, scopes, scope_names, skipped, dwarf, unit);
    for f in funcs.iter() {
        for (lo, hi) in f.ranges(more_ranges) {
            all.add(lo, hi);
        }
    }
    // Which functions to keep: those holding a wanted address, then their callers (a
    // caller comes before its callees).
    let keep: Option<Vec<bool>> = wanted.map(|w| {
        let mut keep: Vec<bool> = funcs
            .iter()
            .map(|f| f.ranges(more_ranges).any(|(lo, hi)| wants(w, lo, hi)))
            .collect();
        for i in (0..funcs.len()).rev() {
            if keep[i]
                && let Some(c) = funcs[i].caller
            {
                keep[c as usize] = true;
            }
        }
        keep
    });
    let lang = units[u].lang;
    // Abstract instances are shared by many inlined copies: read each once.
    let mut origins: HashMap<(usize, usize), Origin> = HashMap::default();
    let mut events = events.drain(..);
    for (i, (f, &n)) in funcs.iter_mut().zip(counts.iter()).enumerate() {
        if keep.as_ref().is_some_and(|k| !k[i]) {
            events.by_ref().take(n as usize).for_each(drop);
            continue;
        }
        // The DIE's own DW_AT_name is in its own scope.
        let own = own_scope
            .get(i)
            .and_then(|&s| scope_names.get(s as usize))
            .cloned();
        for e in events.by_ref().take(n as usize) {
            match e {
                NameEvent::Name(v) => {
                    if f.name.is_none()
                        && let Some(s) = attr_arc(dwarf, unit, v)
                    {
                        f.name = Some(s);
                        f.scope = own.clone();
                        if name_is_linkage(lang) {
                            f.is_linkage = true;
                        }
                    }
                }
                NameEvent::Linkage(v) => {
                    if let Some(s) = attr_arc(dwarf, unit, v) {
                        f.name = Some(s);
                        f.is_linkage = true;
                    }
                }
                NameEvent::Origin(r) => {
                    let key = match r {
                        AttributeValue::UnitRef(o) => Some((u, o.0)),
                        AttributeValue::DebugInfoRef(o) => Some((usize::MAX, o.0)),
                        AttributeValue::DebugInfoRefSup(o) => Some((usize::MAX - 1, o.0)),
                        _ => None,
                    };
                    if let (true, Some(key)) = (f.name.is_none() && !f.is_linkage, key) {
                        let o = origins.entry(key).or_insert_with(|| {
                            let mut o = Origin {
                                name: None,
                                is_linkage: false,
                                scope: None,
                            };
                            find_abstract_instance(dwarf, units, u, r, &mut o, 0, Some(&scopes));
                            o
                        });
                        f.name = o.name.clone();
                        f.is_linkage = o.is_linkage;
                        f.scope = o.scope.clone();
                    } else {
                        let mut o = Origin {
                            name: f.name.take(),
                            is_linkage: f.is_linkage,
                            scope: f.scope.take(),
                        };
                        find_abstract_instance(dwarf, units, u, r, &mut o, 0, Some(&scopes));
                        f.name = o.name;
                        f.is_linkage = o.is_linkage;
                        f.scope = o.scope;
                    }
                }
            }
        }
    }
    drop(events);
    let Some(keep) = keep else {
        return std::mem::take(funcs);
    };
    // Renumber the kept functions (in order) and their callers and extra ranges.
    let mut new_id: Vec<u32> = Vec::with_capacity(funcs.len());
    let mut n = 0u32;
    for &k in &keep {
        new_id.push(n);
        n += u32::from(k);
    }
    let old_more = std::mem::take(more_ranges);
    let mut out = Vec::with_capacity(n as usize);
    for (i, mut f) in funcs.drain(..).enumerate() {
        if !keep[i] {
            continue;
        }
        f.caller = f.caller.map(|c| new_id[c as usize]);
        let (start, count) = (f.more.0 as usize, f.more.1 as usize);
        if count > 0 {
            f.more.0 = more_ranges.len() as u32;
            more_ranges.extend_from_slice(old_more.get(start..start + count).unwrap_or(&[]));
        }
        out.push(f);
    }
    out
}

impl Tables<'_> {
    fn display_name(
        &self,
        p: &Parsed,
        lang: Option<DwLang>,
        id: u32,
        binutils_names: bool,
    ) -> Option<Arc<str>> {
        let f = &p.funcs[id as usize];
        if let Some(r) = p.renamed.borrow().get(&id) {
            return r.clone();
        }
        if f.inlined && !f.is_linkage && !name_is_linkage(lang) && !binutils_names {
            return qualified(f);
        }
        f.name.clone()
    }
}

fn qualified(f: &Func) -> Option<Arc<str>> {
    let name = f.name.as_ref()?;
    Some(match &f.scope {
        Some(s) => Arc::from(format!("{s}::{name}")),
        None => name.clone(),
    })
}

impl DwarfSource for Dwarf {
    fn symbol_file(&self) -> Option<&Elf> {
        self.debug.as_ref()
    }

    fn units_read(&self) -> Option<super::lookup::UnitsRead> {
        self.cell.with_dependent(|s, t| {
            let size = |u: &UnitSlot<'_>| u.header.length_including_self() as u64;
            let read = || {
                t.units
                    .iter()
                    .zip(&t.parsed)
                    .filter(|(_, p)| p.get().is_some())
            };
            Some(super::lookup::UnitsRead {
                read: read().count(),
                units: t.units.len(),
                read_bytes: read().map(|(u, _)| size(u)).sum(),
                bytes: t.units.iter().map(size).sum(),
                section: s.info_rest.as_ref().map(|r| {
                    let inflated = s.owned.get(&SectionId::DebugInfo).map_or(0, Vec::len);
                    (inflated as u64, r.total as u64)
                }),
            })
        })
    }

    fn damage(&self) -> Option<String> {
        self.cell.with_dependent(|sections, t| {
            // Units whose entries or line program header could not be read when a lookup
            // needed them.
            let failed: Vec<&UnitSlot<'_>> = t
                .units
                .iter()
                .filter(|u| matches!(u.full.get(), Some(None)))
                .collect();
            let mut said = Vec::new();
            if let Some((at, why)) = &t.broken {
                said.push(format!(".debug_info cannot be read from byte {at} on ({why})"));
            }
            let cut: Vec<(&UnitSlot<'_>, usize)> = t
                .units
                .iter()
                .zip(&t.parsed)
                .filter_map(|(u, p)| Some((u, p.get()?.as_ref()?.damaged?)))
                .collect();
            if let Some((u, at)) = cut.first() {
                said.push(format!(
                    "the entries of {} of its units cannot be read to their end (the first at .debug_info byte {})",
                    cut.len(),
                    u.header.offset().0 + at
                ));
            }
            let n = failed.len() + t.unreadable_roots;
            if n > 0 {
                let first = failed.first().and_then(|u| {
                    let e = t.dwarf.unit(u.header).err()?;
                    let at = u.header.offset().0;
                    Some(format!(", the first at .debug_info byte {at}: {e}"))
                });
                said.push(format!(
                    "{n} of its {}{} units cannot be read{}",
                    if sections.info_rest.is_some() {
                        "first "
                    } else {
                        ""
                    },
                    t.units.len() + t.unreadable_roots,
                    first.unwrap_or_default()
                ));
            }
            (!said.is_empty()).then(|| said.join("; "))
        })
    }

    fn prefetch(&self, vmas: &[u64]) {
        self.cell.with_dependent(|sections, t| {
            t.prefetch(vmas, sections);
            sections.release();
        });
    }

    fn frames(
        &self,
        vma: u64,
        inlines: bool,
        symbol: &dyn Fn() -> super::lookup::SymbolAnswer,
    ) -> Option<Vec<DwarfFrame>> {
        self.cell.with_dependent(|_, t| {
            for u in t.candidates(vma) {
                let Some(p) = t.parsed(u) else { continue };
                let func = p.func_at(vma);
                let line = p.line_at(vma);
                if func.is_none() && line.is_none() {
                    continue;
                }
                let lang = t.units[u].lang;
                let (mut file, lineno, disc) = match line {
                    Some((f, l, d)) => (f, l, d),
                    None => (None, 0, 0),
                };
                // The innermost name, as binutils' _bfd_dwarf2_find_nearest_line settles it.
                let name: Option<Arc<str>> = match func {
                    Some(id) => {
                        let f = &p.funcs[id as usize];
                        let renamed = p.renamed.borrow().get(&id).cloned();
                        if let Some(r) = renamed {
                            r
                        } else if f.is_linkage {
                            f.name.clone()
                        } else if f.inlined && !self.binutils_inline_names {
                            qualified(f)
                        } else {
                            let sym = symbol();
                            if file.is_none() {
                                file = sym.as_ref().and_then(|s| s.2.clone());
                            }
                            let low = f.ranges(&p.more_ranges).next().map(|r| r.0);
                            let (shown, keep) = match sym {
                                Some((start, sname, _)) => {
                                    let keep = if Some(start) == low {
                                        Some(sname.clone())
                                    } else {
                                        f.name.clone()
                                    };
                                    (Some(sname), keep)
                                }
                                None => (f.name.clone(), f.name.clone()),
                            };
                            p.renamed.borrow_mut().insert(id, keep);
                            shown
                        }
                    }
                    None => {
                        let sym = symbol();
                        if file.is_none() {
                            file = sym.as_ref().and_then(|s| s.2.clone());
                        }
                        sym.map(|s| s.1)
                    }
                };
                let mut out = vec![DwarfFrame {
                    function: name,
                    file,
                    line: lineno,
                    discriminator: disc,
                }];
                if inlines {
                    let mut cur = func;
                    while let Some(id) = cur {
                        let f = &p.funcs[id as usize];
                        if !f.inlined {
                            break;
                        }
                        let Some(caller) = f.caller else { break };
                        let c = &p.funcs[caller as usize];
                        // The function the code was inlined into, when it has no linkage
                        // name (an instance of a template over a lambda, which has internal
                        // linkage: `std::__introsort_loop<..., lambda>`), is named by the
                        // symbol holding the address, as where it is the innermost function,
                        // rather than by its bare DWARF name (binutils' `__introsort_loop`,
                        // a second row for one function).
                        let function = if !c.inlined
                            && !c.is_linkage
                            && !name_is_linkage(lang)
                            && !self.binutils_inline_names
                        {
                            symbol().map(|s| s.1).or_else(|| qualified(c))
                        } else {
                            t.display_name(p, lang, caller, self.binutils_inline_names)
                        };
                        out.push(DwarfFrame {
                            function,
                            file: f.call_file_name(&p.file_names),
                            line: f.call_line,
                            discriminator: disc,
                        });
                        cur = Some(caller);
                    }
                }
                return Some(out);
            }
            None
        })
    }
}

// Unwraps here are on DWARF bytes the tests themselves write.
#[cfg(test)]
mod tests {
    use super::*;

    /// The unit index reads a unit's root entry with its abbreviation alone, found among
    /// others before it, and sees what the whole unit shows.
    #[test]
    fn root_entry_read_with_its_abbreviation_alone() {
        use constants::*;
        let uleb = |v: u16| -> Vec<u8> {
            if v < 0x80 {
                vec![v as u8]
            } else {
                vec![(v as u8) | 0x80, (v >> 7) as u8]
            }
        };
        let mut abbrev = Vec::new();
        // Code 2 first: a subprogram with an implicit constant (a value in the table).
        abbrev.extend([2, DW_TAG_subprogram.0 as u8, 0]);
        abbrev.extend(uleb(DW_AT_decl_line.0));
        abbrev.extend(uleb(DW_FORM_implicit_const.0));
        abbrev.push(5);
        abbrev.extend([DW_AT_name.0 as u8, DW_FORM_string.0 as u8, 0, 0]);
        // Code 1: the root, language, address range and directory.
        abbrev.extend([1, DW_TAG_compile_unit.0 as u8, 1]);
        abbrev.extend([DW_AT_language.0 as u8, DW_FORM_data1.0 as u8]);
        abbrev.extend([DW_AT_low_pc.0 as u8, DW_FORM_addr.0 as u8]);
        abbrev.extend([DW_AT_high_pc.0 as u8, DW_FORM_data1.0 as u8]);
        abbrev.extend([DW_AT_comp_dir.0 as u8, DW_FORM_string.0 as u8, 0, 0, 0]);
        // A DWARF 4 unit: the root (code 1), one child (code 2), the end of the children.
        let mut entries = vec![1, DW_LANG_C_plus_plus_14.0 as u8];
        entries.extend(0x1000u64.to_le_bytes());
        entries.push(0x40);
        entries.extend(b"/src\0");
        entries.extend([2]);
        entries.extend(b"f\0");
        entries.push(0);
        let mut info = Vec::new();
        info.extend((7 + entries.len() as u32).to_le_bytes());
        info.extend(4u16.to_le_bytes());
        info.extend(0u32.to_le_bytes());
        info.push(8);
        info.extend(&entries);

        let le = RunTimeEndian::Little;
        let dwarf: gimli::Dwarf<R<'_>> = gimli::Dwarf {
            debug_abbrev: gimli::DebugAbbrev::new(&abbrev, le),
            debug_info: gimli::DebugInfo::new(&info, le),
            ..Default::default()
        };
        // (Test code: the unwraps below are on the hand-built unit above, whose reading
        // is what the test checks; a failure to read it is the test failing.)
        let header = dwarf.units().next().unwrap().unwrap();

        let only = root_abbreviation(dwarf.debug_abbrev.reader(), &header).unwrap();
        assert_eq!(only.get(1).map(|a| a.tag()), Some(DW_TAG_compile_unit));
        assert!(only.get(2).is_none());

        let root = root_unit(&dwarf, header).unwrap();
        let whole = dwarf.unit(header).unwrap();
        assert_eq!(root.low_pc, 0x1000);
        assert_eq!(root.low_pc, whole.low_pc);
        let dir = |u: &gimli::Unit<R<'_>>| u.comp_dir.map(|d| d.slice().to_vec());
        assert_eq!(dir(&root), Some(b"/src".to_vec()));
        assert_eq!(dir(&root), dir(&whole));
        let mut cursor = root.entries();
        let entry = cursor.next_dfs().unwrap().unwrap();
        let mut ranges = dwarf.die_ranges(&root, entry).unwrap();
        let r = ranges.next().unwrap().unwrap();
        assert_eq!((r.begin, r.end), (0x1000, 0x1040));
        assert_eq!(
            entry.attr_value(DW_AT_language),
            Some(AttributeValue::Language(DW_LANG_C_plus_plus_14))
        );
    }

    fn ours<'a>(header: &gimli::LineProgramHeader<R<'a>>) -> Vec<LineInstruction<'a>> {
        let buf = header.raw_program_buf();
        let mut it = Instructions {
            b: buf.slice(),
            pos: 0,
            big_endian: gimli::Endianity::is_big_endian(gimli::Reader::endian(&buf)),
            address_size: header.address_size(),
            opcode_base: header.opcode_base(),
            v5: header.version() >= 5,
            standard_lengths: header.standard_opcode_lengths().slice(),
        };
        let mut out = Vec::new();
        while let Some(i) = it.next() {
            out.push(i);
        }
        out
    }

    fn gimli_reads<'a>(header: &gimli::LineProgramHeader<R<'a>>) -> Vec<LineInstruction<'a>> {
        use LineInstruction as Ours;
        use gimli::LineInstruction as L;
        let mut it = header.instructions();
        let mut out = Vec::new();
        while let Ok(Some(i)) = it.next_instruction(header) {
            out.push(match i {
                L::Special(o) => Ours::Special(o),
                L::Copy => Ours::Copy,
                L::AdvancePc(n) => Ours::AdvancePc(n),
                L::AdvanceLine(n) => Ours::AdvanceLine(n),
                L::SetFile(n) => Ours::SetFile(n),
                L::ConstAddPc => Ours::ConstAddPc,
                L::FixedAddPc(n) => Ours::FixedAddPc(n),
                L::EndSequence => Ours::EndSequence,
                L::SetAddress(a) => Ours::SetAddress(a),
                L::DefineFile(e) => match e.path_name() {
                    AttributeValue::String(p) => Ours::DefineFile(p.slice(), e.directory_index()),
                    _ => Ours::Other,
                },
                L::SetDiscriminator(d) => Ours::SetDiscriminator(d),
                _ => Ours::Other,
            });
        }
        out
    }

    /// The line programs of `debug_line`: (offset, header), in section order.
    fn programs(debug_line: &[u8]) -> Vec<(usize, gimli::LineProgramHeader<R<'_>>)> {
        let section = gimli::DebugLine::new(debug_line, RunTimeEndian::Little);
        let mut out = Vec::new();
        let mut offset = 0;
        while offset < debug_line.len() {
            let Ok(p) = section.program(gimli::DebugLineOffset(offset), 8, None, None) else {
                break;
            };
            let h = p.header().clone();
            let len = h.unit_length()
                + if h.format() == gimli::Format::Dwarf64 {
                    12
                } else {
                    4
                };
            out.push((offset, h));
            offset += len;
        }
        out
    }

    /// Every instruction of every line program of the testdata programs, and of the same
    /// programs with random bytes written into them, reads as gimli reads it, to the same
    /// end where a damaged instruction stops both.
    #[test]
    fn line_instructions_read_as_gimli_reads_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut programs_read, mut damaged) = (0, 0);
        for case in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(case.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let Ok(data) = std::fs::read(f.path()) else {
                    continue;
                };
                let Ok(file) = object::File::parse(&data[..]) else {
                    continue;
                };
                let Some(line) = file.section_by_name(".debug_line") else {
                    continue;
                };
                let Ok(std::borrow::Cow::Borrowed(bytes)) = line.uncompressed_data() else {
                    continue;
                };
                for (offset, h) in programs(bytes) {
                    programs_read += 1;
                    assert_eq!(
                        ours(&h),
                        gimli_reads(&h),
                        "{} at {offset}",
                        f.path().display()
                    );
                    // The program's bytes, damaged.
                    let buf = h.raw_program_buf().slice();
                    let start = buf.as_ptr() as usize - bytes.as_ptr() as usize;
                    for _ in 0..20 {
                        let mut copy = bytes.to_vec();
                        for _ in 0..1 + next() % 8 {
                            if buf.is_empty() {
                                break;
                            }
                            let i = start + (next() % buf.len() as u64) as usize;
                            copy[i] = if next() % 3 == 0 {
                                [0, 1, 2, 3, 4, 9, 0x80, 0xff][(next() % 8) as usize]
                            } else {
                                next() as u8
                            };
                        }
                        let section = gimli::DebugLine::new(&copy, RunTimeEndian::Little);
                        let Ok(p) = section.program(gimli::DebugLineOffset(offset), 8, None, None)
                        else {
                            continue;
                        };
                        damaged += 1;
                        assert_eq!(
                            ours(p.header()),
                            gimli_reads(p.header()),
                            "{} at {offset}, damaged",
                            f.path().display()
                        );
                    }
                }
            }
        }
        assert!(
            programs_read > 10,
            "only {programs_read} line programs read"
        );
        assert!(damaged > 200, "only {damaged} damaged programs read");
    }

    /// Of a compressed `.debug_info`, only the units up to the last one the addresses need
    /// are inflated, and the answers are those of the whole section: for the addresses of
    /// the first unit, of the first few, and (the whole section then) with an address in no
    /// unit. The program's sections are compressed by binutils' objcopy.
    #[test]
    fn only_the_start_of_a_compressed_debug_info_is_inflated_and_answers_alike() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/t-rust/trust");
        let dir = std::env::temp_dir().join(format!("rpprof-prefix-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let packed = dir.join("trust.z");
        let ran = std::process::Command::new("objcopy")
            .arg("--compress-debug-sections=zlib")
            .arg(&src)
            .arg(&packed)
            .status();
        if !ran.is_ok_and(|s| s.success()) {
            eprintln!("skipped: binutils' objcopy is not installed (Debian: binutils)");
            return;
        }
        let map = |p: &Path| {
            let f = std::fs::File::open(p).unwrap();
            // SAFETY: test files that nothing writes while they are mapped.
            Arc::new(unsafe { Mmap::map(&f) }.unwrap())
        };
        let (plain, zipped) = (map(&src), map(&packed));
        // Each unit's addresses (of those with ranges): its ranges' edges and middles.
        let whole = Dwarf::new(Arc::clone(&plain), None).unwrap();
        let units: Vec<Vec<u64>> = whole.cell.with_dependent(|_, t| {
            t.units
                .iter()
                .map(|u| {
                    let mut v: Vec<u64> = u
                        .ranges
                        .iter()
                        .flat_map(|&(lo, hi)| [lo, lo + 1, (lo + hi) / 2, hi - 1])
                        .collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                })
                .filter(|v| !v.is_empty())
                .collect()
        });
        assert!(units.len() >= 4, "{} units with ranges", units.len());
        let answers = |d: &Dwarf, w: &[u64]| -> Vec<String> {
            w.iter()
                .map(|&a| format!("{:?}", d.frames(a, true, &|| None)))
                .collect()
        };
        // Each unit's addresses on their own, then the first two units', then the first
        // unit's with an address in no unit (which takes the whole section).
        let mut cases: Vec<(Vec<u64>, Option<bool>)> =
            units.iter().map(|u| (u.clone(), None)).collect();
        let last = units.len() - 1;
        let mut two: Vec<u64> = units[0].iter().chain(&units[1]).copied().collect();
        two.sort_unstable();
        cases.push((two, None));
        let mut in_no_unit = units[0].clone();
        in_no_unit.insert(0, 1);
        cases.push((in_no_unit, Some(false)));
        let (mut prefixes, mut completed) = (0, 0);
        for (k, (wanted, prefix)) in cases.into_iter().enumerate() {
            let w: Arc<[u64]> = Arc::from(wanted.clone());
            let reference = Dwarf::new(Arc::clone(&plain), Some(Arc::clone(&w))).unwrap();
            let d = Dwarf::new(Arc::clone(&zipped), Some(Arc::clone(&w))).unwrap();
            let kept = d
                .cell
                .borrow_owner()
                .info_rest
                .as_ref()
                .map(|r| (r.kept, r.total));
            if let Some(p) = prefix {
                assert_eq!(kept.is_some(), p, "{wanted:x?}: {kept:?}");
            }
            match kept {
                Some((bytes, whole)) => {
                    assert!(bytes < whole, "{bytes} of {whole}");
                    prefixes += 1;
                }
                // Units before the last hold these addresses: read whole after the start
                // was, as the units read refer to entries past them.
                None if k < last => completed += 1,
                None => {}
            }
            let got = answers(&d, &wanted);
            assert!(got.iter().any(|a| a.contains("Some")), "{got:?}");
            assert_eq!(got, answers(&reference, &wanted), "{wanted:x?}");
        }
        // (Some units' entries refer to entries of units after them: those take the whole
        // section too, inflated after the start.)
        assert!(prefixes >= 2, "{prefixes} cases read only the start");
        assert!(
            completed >= 1,
            "{completed} cases read the rest after the start"
        );
        // Damage in the compressed bytes, before and after where the start ends: an error or
        // answers, never a panic.
        let bytes = std::fs::read(&packed).unwrap();
        let info = {
            let f = object::File::parse(&bytes[..]).unwrap();
            let sec = f.section_by_name(".debug_info").unwrap();
            let r = sec.compressed_file_range().unwrap();
            (r.offset as usize, r.compressed_size as usize)
        };
        let w: Arc<[u64]> = Arc::from(units[0].clone());
        for at in [24, 200, info.1 / 3, info.1 / 2, info.1 - 20, info.1 - 2] {
            for cut in [false, true] {
                let mut b = bytes.clone();
                if cut {
                    // The compressed bytes end early (zeros after).
                    b[info.0 + at..info.0 + info.1].fill(0);
                } else {
                    b[info.0 + at] ^= 0x55;
                }
                let bad = dir.join("bad");
                std::fs::write(&bad, &b).unwrap();
                if let Ok(d) = Dwarf::new(map(&bad), Some(Arc::clone(&w))) {
                    let _ = answers(&d, &units[0]);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
