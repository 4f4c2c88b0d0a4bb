//! In-process symbolization of a profile's addresses against the program and its libraries,
//! giving the names google-pprof gives.
//!
//! The address spaces, as pprof walks them:
//!
//! 1. **absolute** (`abs`): an address as the profile recorded it;
//! 2. **mapping**: the memory-map line of an executable library (or of the program itself)
//!    whose range holds `abs`; addresses in no such line belong to the program, unrelocated;
//! 3. **file virtual address** (`vma`): `abs - start + offset` mapped through the file's
//!    `PT_LOAD` headers (`vma = file_off - p_offset + p_vaddr`), the address space of the
//!    file's symbols and DWARF.
//!
//! Each file is opened once; each address is looked up once. Names follow pprof: the symbol
//! table as `nm` lists it gives every address a routine (or `0x<abs>` past the last one), and
//! addr2line's DWARF answer wins unless it is unknown or the nm routine extends its name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use regex::Regex;

use super::elf::{Elf, OpenError};
use super::extent::Unwind;
use super::lookup::{A2lFrame, Addr2Line, DwarfSource};
use super::names::short_name;
use super::nm::NmTable;
use super::place::Place;
use super::{Frame, Options, SymbolTable, Symbolize, cache};
use crate::profile::Mapping;
use crate::split::Work;

/// A file pprof would symbolize against, and the absolute range it covers.
#[derive(Debug, Clone)]
pub struct Lib {
    /// The file, after the `--lib_prefix` search.
    pub path: PathBuf,
    /// First absolute address (inclusive).
    pub start: u64,
    /// Last absolute address (inclusive, as pprof compares).
    pub finish: u64,
    /// How absolute addresses translate into the file.
    pub translate: Translate,
    /// True when the range came from a full `/proc/self/maps` line, whose size the file's
    /// loadable segment must match.
    pub exact: bool,
}

/// The absolute → file-address translation of a [`Lib`].
#[derive(Debug, Clone, Copy)]
pub enum Translate {
    /// `vma = abs` (the program when its mapping is unknown, `--add_lib`).
    Identity,
    /// A mapped file: `file_off = abs - start + offset`, then through `PT_LOAD`.
    Mapped {
        /// The mapping's start.
        start: u64,
        /// The mapping's file offset.
        offset: u64,
    },
}

/// An opened file with the tables symbolization needs.
struct Image {
    elf: Elf,
    nm: OnceLock<NmTable>,
    /// The separate debug file whose symbol table names the addresses in place of the
    /// file's own, when its DWARF cannot be used (a debug file of a build without -g, or
    /// one whose DWARF cannot be read); not with [`super::Options::binutils_inline_names`]
    /// (which `--pprof_quirks` sets: binutils reads a debug file's DWARF only).
    symbols: Option<Elf>,
    /// The symbol table of its separate debug file, for `--list` of a stripped file (made
    /// once: the shell lists again and again).
    debug_nm: OnceLock<Option<NmTable>>,
    dwarf: Option<Box<dyn DwarfSource>>,
    /// The DWARF was read for some addresses only (see [`Local::want`]).
    partial: bool,
}

impl Image {
    /// The symbol table that names the file's addresses (see [`Image::symbols`]).
    fn nm_table(&self) -> &NmTable {
        self.nm
            .get_or_init(|| NmTable::new(self.symbols.as_ref().unwrap_or(&self.elf)))
    }

    /// Opens the file at `path` (`elf`, or why it could not be opened) for lookups of the
    /// file addresses `wanted` (all when `None`); `None` with a warning when it is no ELF
    /// file or cannot be read.
    fn open(
        path: &Path,
        elf: Result<Elf, OpenError>,
        wanted: Option<Arc<[u64]>>,
        binutils_inline_names: bool,
        warnings: &mut Vec<String>,
    ) -> Option<Image> {
        match elf {
            Ok(elf) => {
                let mut symbols = None;
                let dwarf = super::dwarf::load_for(
                    &elf,
                    binutils_inline_names,
                    wanted.clone(),
                    &mut symbols,
                    warnings,
                );
                Some(Image {
                    partial: wanted.is_some(),
                    dwarf,
                    elf,
                    nm: OnceLock::new(),
                    symbols: symbols.filter(|_| !binutils_inline_names),
                    debug_nm: OnceLock::new(),
                })
            }
            Err(e) => {
                let why = match &e {
                    OpenError::Io(_) => e.to_string(),
                    OpenError::NotElf(m) => m.clone(),
                };
                warnings.push(format!(
                    "Warning: {}: {why}; its addresses print as hex",
                    path.display()
                ));
                None
            }
        }
    }

    /// The warning about a damaged DWARF, if the lookups met one.
    fn damage_warning(&self, path: &Path) -> Option<String> {
        let d = self.dwarf.as_ref()?;
        let what = d.damage()?;
        let file = d.symbol_file().map_or(path, |e| e.path.as_path());
        Some(format!(
            "Warning: {}: its DWARF is damaged: {what}; the addresses there are named from the symbol table, without inlined functions or source lines",
            file.display()
        ))
    }

    /// How much of the DWARF of the file at `path` was read, for `--debug`.
    fn units_note(&self, path: &Path) -> Option<String> {
        let d = self.dwarf.as_ref()?;
        let r = d.units_read()?;
        let from = d
            .symbol_file()
            .map(|e| format!(" (in {})", e.path.display()))
            .unwrap_or_default();
        let size = |b: u64| {
            if b < 1_000_000 {
                format!("{} kB", b.div_ceil(1000))
            } else {
                format!("{:.1} MB", b as f64 / 1e6)
            }
        };
        Some(match r.section {
            None => format!(
                "{}: read {} of its {} DWARF units, {} of {} of .debug_info{from}",
                path.display(),
                r.read,
                r.units,
                size(r.read_bytes),
                size(r.bytes)
            ),
            Some((inflated, whole)) => format!(
                "{}: read {} of its first {} DWARF units, {} of the first {} of its {} of .debug_info ({} of it inflated, the rest not){from}",
                path.display(),
                r.read,
                r.units,
                size(r.read_bytes),
                size(r.bytes),
                size(whole),
                size(inflated)
            ),
        })
    }
}

/// The local symbolizer: the program, the profile's memory map and the options.
pub struct Local {
    prog: PathBuf,
    mappings: Vec<Mapping>,
    opts: Options,
    images: HashMap<PathBuf, Option<Image>>,
    /// The file addresses each file will be asked for (sorted), when known before it is
    /// opened: its DWARF then keeps only what answers them.
    wanted: HashMap<PathBuf, Arc<[u64]>>,
    /// What the symbol cache did in the last [`Symbolize::symbolize`] (for `--debug`).
    pub cache_note: Option<String>,
    /// For `--debug`: how much of each file's DWARF the last [`Symbolize::symbolize`] read.
    pub read_notes: Vec<String>,
    /// Files opened to ask the symbol cache, which had no answer: [`Local::image`] takes
    /// them rather than opening them again.
    opened: HashMap<PathBuf, Elf>,
    /// The executable files the map names that are neither the program nor a library
    /// (another program's, as a base of another program maps): their addresses are not
    /// looked up, and the warning says why.
    other_programs: Vec<String>,
}

/// A file being opened on another core ([`Local::read_ahead`]): its image and the warnings
/// opening it gave, taken when the lookups come to it.
struct Ahead {
    path: PathBuf,
    handle: std::thread::JoinHandle<(Option<Image>, Vec<String>)>,
}

impl Ahead {
    fn join(self) -> (Option<Image>, Vec<String>) {
        self.handle
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    }
}

/// One file's use of the symbol cache in a run: the question, the answer found or the one
/// being recorded.
struct Cached {
    key: cache::Key,
    hit: Option<cache::Entry>,
    /// The next call of `hit` to replay.
    next: usize,
    /// The number of calls (mappings of the file with addresses).
    calls: usize,
    /// What the file answered when there was no hit: per call its warnings and addresses
    /// (their frames are in the table).
    record: Vec<(Vec<String>, Vec<u64>)>,
    /// The file has no symbols, the file has DWARF.
    flags: (bool, bool),
    /// Every call found the file readable: the record can be kept.
    complete: bool,
}

/// A map-line pattern, matched on bytes with Perl's ASCII classes (`\s`, `\d`, `\w`, `(?i)`)
/// as pprof's byte strings are: it also compiles in a fifth of the time of its Unicode form
/// (half a millisecond of every run).
fn map_re(
    cell: &'static OnceLock<regex::bytes::Regex>,
    pattern: &str,
) -> &'static regex::bytes::Regex {
    // SANITY: constant patterns, exercised by the tests.
    #[allow(clippy::unwrap_used)]
    cell.get_or_init(|| regex::bytes::Regex::new(&format!("(?-u){pattern}")).unwrap())
}

/// Group `i` of a map-line match on `line`'s bytes. Every group begins and ends next to an
/// ASCII byte or at an end of the line, so it is whole characters; "" otherwise.
fn group<'l>(line: &'l str, c: &regex::bytes::Captures<'_>, i: usize) -> &'l str {
    c.get(i).and_then(|m| line.get(m.range())).unwrap_or("")
}

impl Local {
    /// A symbolizer for a profile of `prog` with memory map `mappings`.
    pub fn new(prog: &Path, mappings: &[Mapping], opts: &Options) -> Local {
        Local {
            prog: prog.to_path_buf(),
            mappings: mappings.to_vec(),
            opts: opts.clone(),
            images: HashMap::new(),
            wanted: HashMap::new(),
            cache_note: None,
            read_notes: Vec::new(),
            opened: HashMap::new(),
            other_programs: Vec::new(),
        }
    }

    /// pprof's `ParseLibraries`: the executable library mappings, the program's own mapping
    /// when the map names it, `--add_lib`, and last the program for everything else.
    pub fn libs(&mut self, addrs: &[u64], warnings: &mut Vec<String>) -> Vec<Lib> {
        static FULL: OnceLock<regex::bytes::Regex> = OnceLock::new();
        static FULL_JE: OnceLock<regex::bytes::Regex> = OnceLock::new();
        static SHORT: OnceLock<regex::bytes::Regex> = OnceLock::new();
        static MAIN: OnceLock<regex::bytes::Regex> = OnceLock::new();
        let full = if self.opts.jeprof {
            map_re(
                &FULL_JE,
                r"(?i)^([a-f0-9]+)-([a-f0-9]+)\s+..x.\s+([a-f0-9]+)\s+\S+:\S+\s+\d+\s+(\S+\.(so|dll|dylib|bundle)((\.\d+)+\w*(\.\d+){0,3})?)$",
            )
        } else {
            map_re(
                &FULL,
                r"(?i)^([a-f0-9]+)-([a-f0-9]+)\s+..x.\s+([a-f0-9]+)\s+\S+:\S+\s+\d+\s+(.+\.(so|dll|dylib|bundle|node)((\.\d+)+\w*(\.\d+){0,3})?)$",
            )
        };
        let short = map_re(
            &SHORT,
            r"(?i)^\s*([a-f0-9]+)-([a-f0-9]+):\s*(\S+\.so(\.\d+)*)",
        );
        // (pprof takes the program's path up to its first blank, `\S+`: a program in a
        // folder with a blank in its name was never recognized, its frames printed in hex.)
        let main = map_re(
            &MAIN,
            r"(?i)^([a-f0-9]+)-([a-f0-9]+)\s+..x.\s+([a-f0-9]+)\s+\S+:\S+\s+\d+\s+(.+)$",
        );
        static SHORT_ANY: OnceLock<regex::bytes::Regex> = OnceLock::new();
        let short_any = map_re(&SHORT_ANY, r"(?i)^\s*([a-f0-9]+)-([a-f0-9]+):\s*(\S+)\s*$");
        self.find_mistyped_program(warnings);
        let prog_abs = std::fs::canonicalize(&self.prog).ok();
        let prog_name = self.prog.file_name().map(|n| n.to_os_string());
        let hex = |s: &str| u64::from_str_radix(s, 16).unwrap_or(0);
        let mut libs = Vec::new();
        let mut main_lines: Vec<(u64, u64, u64, String)> = Vec::new();
        // The program's lines in the short form (no offset: the line starts at the file's
        // first byte), and whether they were used.
        let mut short_main: Vec<(u64, u64, u64, String)> = Vec::new();
        let mut candidates: Vec<(u64, u64, u64, String)> = Vec::new();
        // Executable files mapped that are neither the program nor a library.
        let mut others: Vec<String> = Vec::new();
        let mut deleted: Vec<String> = Vec::new();
        for m in &self.mappings {
            let mut l = m.raw.trim_end();
            // A file replaced or removed while the program ran: use what is at that path now.
            if let Some(kept) = l.strip_suffix(" (deleted)") {
                l = kept.trim_end();
                // (The map's path keeps the mark; the warning says it once.)
                let path = m
                    .path
                    .strip_suffix(" (deleted)")
                    .unwrap_or(&m.path)
                    .trim_end();
                if !deleted.iter().any(|d| d == path) {
                    deleted.push(path.to_string());
                }
            }
            if let Some(c) = full.captures(l.as_bytes()) {
                let path = self.find_library(group(l, &c, 4));
                libs.push(Lib {
                    path,
                    start: hex(group(l, &c, 1)),
                    finish: hex(group(l, &c, 2)),
                    translate: Translate::Mapped {
                        start: hex(group(l, &c, 1)),
                        offset: hex(group(l, &c, 3)),
                    },
                    exact: true,
                });
            } else if let Some(c) = short.captures(l.as_bytes()) {
                let path = self.find_library(group(l, &c, 3));
                libs.push(Lib {
                    path,
                    start: hex(group(l, &c, 1)),
                    finish: hex(group(l, &c, 2)),
                    translate: Translate::Mapped {
                        start: hex(group(l, &c, 1)),
                        offset: 0,
                    },
                    exact: false,
                });
            } else if let Some(c) = short_any.captures(l.as_bytes()) {
                // gperftools' short form names the program too; pprof reads only its
                // libraries (`.so`), so the program's addresses are looked up unrelocated.
                let p = Path::new(group(l, &c, 3));
                let same = p == self.prog
                    || (prog_abs.is_some() && std::fs::canonicalize(p).ok() == prog_abs)
                    || (prog_name.is_some() && p.file_name() == prog_name.as_deref());
                if same {
                    short_main.push((
                        hex(group(l, &c, 1)),
                        hex(group(l, &c, 2)),
                        0,
                        group(l, &c, 3).to_string(),
                    ));
                }
            } else if let Some(c) = main.captures(l.as_bytes()) {
                let entry = (
                    hex(group(l, &c, 1)),
                    hex(group(l, &c, 2)),
                    hex(group(l, &c, 3)),
                    group(l, &c, 4).to_string(),
                );
                let p = Path::new(group(l, &c, 4));
                let same = p == self.prog
                    || (prog_abs.is_some() && std::fs::canonicalize(p).ok() == prog_abs);
                if same {
                    main_lines.push(entry);
                } else if prog_name.is_some() && p.file_name() == prog_name.as_deref() {
                    candidates.push(entry);
                } else if p.is_absolute() {
                    others.push(entry.3);
                }
            }
        }
        self.other_programs.clone_from(&others);
        // The program moved or was renamed since the profile was taken: its executable
        // mapping still carries its file name.
        if main_lines.is_empty() && !candidates.is_empty() {
            let recorded = &candidates[0].3;
            warnings.push(format!(
                "Warning: the profile maps {recorded}; using {} in its place",
                self.prog.display()
            ));
            main_lines = candidates;
        } else if main_lines.is_empty()
            && let Some(recorded) = others.first()
        {
            // Probably the wrong program: pprof then looks the addresses up in it unmapped.
            warnings.push(format!(
                "Warning: the profile maps the program {recorded}, not {}: the program's addresses print as hex unless it is that file",
                self.prog.display()
            ));
        }
        for (start, finish, offset, _) in main_lines {
            libs.push(Lib {
                path: self.prog.clone(),
                start,
                finish,
                translate: Translate::Mapped { start, offset },
                exact: true,
            });
        }
        if let Some((_, _, _, recorded)) = short_main.first() {
            if self.opts.nearest_symbol {
                warnings.push(format!(
                    "Warning: the profile maps the program {recorded} in the short \"start-end: path\" form, which google-pprof does not read for the program (--pprof_quirks): its addresses print as hex; without --pprof_quirks rpprof reads it"
                ));
            } else {
                for (start, finish, offset, _) in short_main {
                    libs.push(Lib {
                        path: self.prog.clone(),
                        start,
                        finish,
                        translate: Translate::Mapped { start, offset },
                        exact: false,
                    });
                }
            }
        }
        for d in deleted {
            warnings.push(format!(
                "Warning: the profile maps {d} (deleted); using the file now at that path, which may not be the one that ran"
            ));
        }
        if let Some(add) = self.opts.add_lib.clone() {
            let p = PathBuf::from(&add);
            if let Some(img) = self.image(&p, warnings)
                && let Some(t) = img.elf.text_section()
            {
                libs.push(Lib {
                    path: p,
                    start: t.addr,
                    finish: t.addr.saturating_add(t.size),
                    translate: Translate::Identity,
                    exact: false,
                });
            }
        }
        let max_pc = addrs.iter().copied().max().unwrap_or(0);
        libs.push(Lib {
            path: self.prog.clone(),
            start: 0,
            finish: max_pc,
            translate: Translate::Identity,
            exact: false,
        });
        libs
    }

    /// A program argument that does not exist while the memory map names an executable file
    /// that does (`./serverr` for `./server`): that file is used in its place, with a
    /// warning. (pprof stops: "... does not exist"; rpprof used to print every frame of the
    /// program in hex and exit 0.)
    fn find_mistyped_program(&mut self, warnings: &mut Vec<String>) {
        if self.prog.exists() {
            return;
        }
        let mapped = self.mappings.iter().find(|m| {
            m.path.starts_with('/')
                && m.executable()
                && !m.path.contains(".so")
                && !m.path.ends_with(" (deleted)")
                && Path::new(&m.path).is_file()
        });
        if let Some(m) = mapped {
            warnings.push(format!(
                "Warning: {}: No such file; using {}, the program the profile maps",
                self.prog.display(),
                m.path
            ));
            self.prog = PathBuf::from(&m.path);
        }
    }

    /// The paths [`Local::find_library`] tries for `file`, in order (for the warning when
    /// none exists).
    fn library_candidates(&self, file: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut suffix = file;
        if !self.opts.lib_prefix.is_empty() {
            loop {
                for prefix in &self.opts.lib_prefix {
                    out.push(format!("{}{}", prefix.trim_end_matches('/'), suffix));
                }
                let rest = suffix
                    .strip_prefix('/')
                    .and_then(|r| r.find('/').map(|i| &r[i..]));
                match rest {
                    Some(r) => suffix = r,
                    None => break,
                }
            }
        }
        out.push(file.to_string());
        out
    }

    /// pprof's `FindLibrary`: the first `prefix + suffix` that exists, trying each suffix of
    /// the path (dropping leading directories one at a time); else the path itself.
    fn find_library(&self, file: &str) -> PathBuf {
        if !self.opts.lib_prefix.is_empty() {
            let mut suffix = file;
            loop {
                for prefix in &self.opts.lib_prefix {
                    let p = format!("{}{}", prefix.trim_end_matches('/'), suffix);
                    if Path::new(&p).exists() {
                        return PathBuf::from(p);
                    }
                }
                // Drop the first directory: "/a/b/c.so" -> "/b/c.so".
                let rest = suffix
                    .strip_prefix('/')
                    .and_then(|r| r.find('/').map(|i| &r[i..]));
                match rest {
                    Some(r) => suffix = r,
                    None => break,
                }
            }
        }
        PathBuf::from(file)
    }

    /// The file whose symbols stand for `file`: a copy under `/usr/lib/debug`, if any.
    fn debugging_library(file: &Path) -> Option<PathBuf> {
        if !file.is_absolute() {
            return None;
        }
        let mut base = PathBuf::from("/usr/lib/debug");
        base.push(file.strip_prefix("/").unwrap_or(file));
        if base.is_file() {
            return Some(base);
        }
        let mut dbg = base.into_os_string();
        dbg.push(".debug");
        let dbg = PathBuf::from(dbg);
        if dbg.is_file() {
            return Some(dbg);
        }
        None
    }

    /// The file at `path`: the one opened to ask the symbol cache, else opened now.
    fn take_opened(&mut self, path: &Path) -> Result<Elf, OpenError> {
        match self.opened.remove(path) {
            Some(elf) => Ok(elf),
            None => Elf::open(path),
        }
    }

    fn image(&mut self, path: &Path, warnings: &mut Vec<String>) -> Option<&Image> {
        if !self.images.contains_key(path) {
            let elf = self.take_opened(path);
            let wanted = self.wanted.get(path).cloned();
            let img = Image::open(path, elf, wanted, self.opts.binutils_inline_names, warnings);
            self.images.insert(path.to_path_buf(), img);
        }
        self.images.get(path).and_then(Option::as_ref)
    }

    /// Starts opening, on another core, the file that will be asked for the most addresses
    /// (its DWARF's sections and units' headers, its symbol table as nm lists it), unless
    /// it is the first file the lookups read: the files before it are looked up meanwhile.
    /// Answers and warnings are the same as when it is opened in its turn (see [`Ahead`]).
    /// (Its DWARF units are parsed in its turn: parsed meanwhile, they would compete for the
    /// cores with the files before it, and hold their memory at the same time: slower, and
    /// 15 MB more at the peak for the shared corpus's large heap profile.)
    fn read_ahead(
        &mut self,
        libs: &[Lib],
        taken: &[Vec<u64>],
        images: &[Option<PathBuf>],
        skip: &[bool],
        catch_all: Option<usize>,
    ) -> Option<Ahead> {
        if crate::cores() < 2 {
            return None;
        }
        // The files the lookups read, in their order, with their numbers of addresses.
        let mut order: Vec<(&Path, usize)> = Vec::new();
        let mut at: HashMap<&Path, usize> = HashMap::new();
        for (i, ((lib, pcs), image)) in libs.iter().zip(taken).zip(images).enumerate() {
            let Some(image) = image else { continue };
            if pcs.is_empty() || skip[i] || (Some(i) != catch_all && !lib.path.exists()) {
                continue;
            }
            match at.get(image.as_path()) {
                Some(&k) => order[k].1 += pcs.len(),
                None => {
                    at.insert(image, order.len());
                    order.push((image, pcs.len()));
                }
            }
        }
        let (k, &(path, _)) = order
            .iter()
            .enumerate()
            .max_by_key(|(k, (_, n))| (*n, std::cmp::Reverse(*k)))?;
        if k == 0 || self.images.contains_key(path) {
            return None;
        }
        let path = path.to_path_buf();
        let elf = self.take_opened(&path);
        let wanted = self.wanted.get(&path).cloned();
        let names = self.opts.binutils_inline_names;
        let file = path.clone();
        let handle = std::thread::Builder::new()
            .spawn(move || {
                let mut warnings = Vec::new();
                let img = Image::open(&file, elf, wanted, names, &mut warnings);
                if let Some(img) = &img {
                    img.nm_table();
                }
                (img, warnings)
            })
            .ok()?;
        Some(Ahead { path, handle })
    }

    /// pprof's `MapToSymbols` for the addresses `pcs` of one lib.
    fn map_to_symbols(
        &mut self,
        lib: &Lib,
        pcs: &[u64],
        table: &mut SymbolTable,
        warnings: &mut Vec<String>,
    ) {
        if pcs.is_empty() {
            return;
        }
        let image_path = Self::debugging_library(&lib.path).unwrap_or_else(|| lib.path.clone());
        // Segments come from the file that was mapped (a debug copy has the same headers).
        let segments = if image_path != lib.path {
            Elf::open(&lib.path)
                .ok()
                .map(|e| (e.segments.clone(), e.text_section().cloned(), e.fixed))
        } else {
            None
        };
        let keep = self.opts.keep_templates;
        let jeprof = self.opts.jeprof;
        let w = self.opts.address_width;
        let nearest_symbol = self.opts.nearest_symbol;
        let by_fini = self.opts.pprof_inlines_by_fini;
        let Some(img) = self.image(&image_path, warnings) else {
            return;
        };
        let (segs, text, fixed) = match &segments {
            Some((s, t, f)) => (s.as_slice(), t.as_ref(), *f),
            None => (
                img.elf.segments.as_slice(),
                img.elf.text_section(),
                img.elf.fixed,
            ),
        };
        if let (true, Translate::Mapped { start, offset }) = (lib.exact, lib.translate) {
            if !segment_fits(segs, offset, lib.finish.saturating_sub(start)) {
                warnings.push(format!(
                    "Warning: {}: its loadable segments do not match the profile's mapping {:x}-{:x} (offset {:x}): it is probably not the file that ran",
                    lib.path.display(),
                    start,
                    lib.finish,
                    offset
                ));
            } else if let Some(linked) = fixed.then(|| linked_start(segs, offset)).flatten()
                && linked != start
            {
                warnings.push(format!(
                    "Warning: {}: it is linked to run at {linked:x} (it is not position-independent), but the profile maps it at {start:x}: it is probably not the file that ran",
                    lib.path.display(),
                ));
            }
        }
        let big = Work::Naming.halves(pcs.len());
        let memo = super::demangle::Memo::default();
        let unwind = Unwind::new(&img.elf);
        let extents = (!nearest_symbol).then_some(&unwind);
        // The lookups run in this thread, in binutils' order; the demangling runs in the
        // naming thread.
        let mut a2l = Addr2Line::new(&img.elf, img.dwarf.as_deref()).deferring_demangling();
        if let Some(u) = extents {
            a2l = a2l.within_extents(u);
        }
        let vma_of = |pc: u64| match lib.translate {
            Translate::Identity => pc,
            Translate::Mapped { start, offset } => to_vma(pc, start, offset, segs, text),
        };
        let vmas: Vec<u64> = pcs.iter().map(|&pc| vma_of(pc)).collect();
        // The symbol table is read alongside the DWARF units when there is much to do.
        // (The cell and the file apart: the image's DWARF is not shared between threads.)
        let (nm_cell, elf) = (&img.nm, img.symbols.as_ref().unwrap_or(&img.elf));
        let nm_table = move || nm_cell.get_or_init(|| NmTable::new(elf));
        let nm = if big {
            std::thread::scope(|s| {
                let reading = s.spawn(nm_table);
                a2l.prefetch(&vmas);
                reading
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
        } else {
            let nm = nm_table();
            a2l.prefetch(&vmas);
            nm
        };
        drop(vmas);
        let inlines = !by_fini || nm.fini.is_some();
        table.reserve(pcs.len(), pcs.len());
        let lookup = |pc: u64| {
            let vma = vma_of(pc);
            (pc, vma, a2l.lookup(vma, inlines))
        };
        let file_name = lib.path.file_name().map_or_else(
            || lib.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let namer = || Namer {
            nm,
            memo: &memo,
            keep,
            jeprof,
            width: w,
            shorts: Default::default(),
            files: Default::default(),
            extents,
            file_name: file_name.clone(),
        };
        if !big {
            let mut namer = namer();
            for &pc in pcs {
                let (pc, vma, frames) = lookup(pc);
                table.insert(pc, namer.frames(pc, vma, frames));
            }
            return;
        }
        // The lookups (binutils' answers depend on their order) run in this thread; pprof's
        // naming of their answers runs alongside in a second one, a chunk behind, and in
        // this one too once its lookups are done (naming takes longer). Names depend only
        // on each address's answer, so who names which chunk does not change them.
        type Chunk = Vec<(u64, u64, Vec<A2lFrame>)>;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(16);
        let rx = std::sync::Mutex::new(rx);
        let name_chunks = |mut namer: Namer<'_>| {
            let mut named = Vec::new();
            loop {
                // The lock is held while waiting: the other namer waits for this chunk.
                let next = match rx.lock() {
                    Ok(r) => r.recv(),
                    Err(_) => break,
                };
                let Ok(chunk) = next else { break };
                for (pc, vma, frames) in chunk {
                    named.push((pc, namer.frames(pc, vma, frames)));
                }
            }
            named
        };
        std::thread::scope(|s| {
            let naming = s.spawn(|| name_chunks(namer()));
            for chunk in pcs.chunks(NAMING_CHUNK) {
                if tx
                    .send(chunk.iter().map(|&pc| lookup(pc)).collect())
                    .is_err()
                {
                    break;
                }
            }
            drop(tx);
            for (pc, frames) in name_chunks(namer()) {
                table.insert(pc, frames);
            }
            let named = naming
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            for (pc, frames) in named {
                table.insert(pc, frames);
            }
        });
    }
}

/// Addresses named together: the naming thread's unit of work.
const NAMING_CHUNK: usize = 1024;

/// The address ranges of a warning: at most three, then how many more.
fn some_addresses(pcs: &[u64]) -> String {
    let mut s: Vec<String> = pcs.iter().take(3).map(|a| format!("0x{a:x}")).collect();
    if pcs.len() > 3 {
        s.push(format!("and {} more", pcs.len() - 3));
    }
    s.join(", ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl Local {
    /// Why a mapped file's addresses stay unnamed: it is not where the profile says, nor under
    /// `--lib_prefix`.
    fn not_found(&self, lib: &Lib, n: usize) -> String {
        let recorded = lib.path.to_string_lossy();
        let tried = self.library_candidates(&recorded);
        let looked = if tried.len() > 1 {
            format!(" (looked for it at {})", tried.join(", "))
        } else {
            String::new()
        };
        let hint = if self.opts.lib_prefix.is_empty() {
            "if the file is elsewhere (a copy of the machine that ran the program), give its root with --lib_prefix=<dir>: the path is tried under <dir>, dropping leading directories one at a time"
        } else {
            "check --lib_prefix: the path is tried under each of its directories, dropping leading directories one at a time"
        };
        format!(
            "Warning: {recorded}: No such file{looked}; its {} print as hex; {hint}",
            plural(n, "address", "addresses")
        )
    }

    /// Warns about the addresses of a library (or of the program's mapping) left without a
    /// name: a file without symbols, or addresses in no symbol's extent (a stripped file).
    /// `flags`: the file has no symbols, the file has DWARF; `None` when it was not read.
    fn explain_unnamed(
        &mut self,
        lib: &Lib,
        unnamed: &[u64],
        flags: Option<(bool, bool)>,
        warnings: &mut Vec<String>,
    ) {
        if unnamed.is_empty() {
            return;
        }
        let Some((nm_empty, has_dwarf)) = flags else {
            return;
        };
        let what = plural(unnamed.len(), "address lies", "addresses lie");
        let debug = "install its debug symbols (Debian: the -dbgsym or -dbg package, under /usr/lib/debug) or use an unstripped build";
        if nm_empty && !has_dwarf {
            let what = plural(unnamed.len(), "address", "addresses");
            let shown = if self.opts.nearest_symbol {
                "have no name (`??`)".to_string()
            } else {
                let name = lib.path.file_name().unwrap_or_default().to_string_lossy();
                format!("print as {name}+0x<address in the file>")
            };
            warnings.push(format!(
                "Warning: {}: no symbol table and no debug information: its {what} {shown}; {debug}",
                lib.path.display()
            ));
        } else {
            let name = lib
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            // With debug information, more symbols would not name them either: they are in
            // code no function holds (a PLT stub, code between functions).
            let (why, advice) = if has_dwarf {
                (
                    "(code that is part of no function, such as the PLT's stubs)",
                    String::new(),
                )
            } else {
                (
                    "(it keeps only some symbols, e.g. the exported ones)",
                    format!("; {debug}"),
                )
            };
            warnings.push(format!(
                "Warning: {}: {what} in no function its symbols name {why}: they print as {name}+0x<address in the file> rather than after the nearest symbol below{advice}",
                lib.path.display()
            ));
        }
    }

    /// Warns about the addresses left to the program's catch-all range that stay unnamed: no
    /// memory map at all, or addresses outside every mapping (code unloaded before the
    /// profile was written), or in mappings that have no file.
    fn explain_catch_all(&self, unnamed: &[u64], warnings: &mut Vec<String>) {
        if unnamed.is_empty() {
            return;
        }
        if self.mappings.is_empty() && self.opts.symbols_input {
            warnings.push(format!(
                "Warning: {} ({}) {} in no function of {}, read as addresses in the file: the input has no memory map (lines of the process's /proc/<pid>/maps among the addresses) to place addresses in the process or its libraries",
                plural(unnamed.len(), "address", "addresses"),
                some_addresses(unnamed),
                if unnamed.len() == 1 { "lies" } else { "lie" },
                self.prog.display()
            ));
            return;
        }
        if self.mappings.is_empty() {
            let pie = Elf::open(&self.prog)
                .ok()
                .is_some_and(|e| e.segments.first().is_some_and(|s| s.vaddr == 0));
            let why = if pie {
                format!(
                    "{} is position-independent, so where it was loaded is known only from the map",
                    self.prog.display()
                )
            } else {
                "its libraries cannot be told apart from the program".to_string()
            };
            warnings.push(format!(
                "Warning: the profile has no memory map: {} ({}) cannot be placed in the program or a library: {why}. The map comes last in a profile: the CPU profiler writes it when it stops (ProfilerStop or exit), so a profile of a process killed while profiling, or a dump cut short, has none",
                plural(unnamed.len(), "address", "addresses"),
                some_addresses(unnamed)
            ));
            return;
        }
        let mut outside = Vec::new();
        let mut no_file: Vec<(String, u64)> = Vec::new();
        for &a in unnamed {
            match self.mappings.iter().find(|m| a >= m.start && a < m.limit) {
                None => outside.push(a),
                Some(m) => match no_file.iter_mut().find(|e| e.0 == m.path) {
                    Some(e) => e.1 += 1,
                    None => no_file.push((m.path.clone(), 1)),
                },
            }
        }
        if !outside.is_empty() {
            warnings.push(format!(
                "Warning: {} ({}) {} outside every mapping of the profile's memory map: code unmapped before the profile was written, such as a library dlclose()d before ProfilerStop or the heap dump (keep it loaded until the profile is written)",
                plural(outside.len(), "address", "addresses"),
                some_addresses(&outside),
                if outside.len() == 1 { "lies" } else { "lie" }
            ));
        }
        for (path, n) in no_file {
            if self.other_programs.contains(&path) && Path::new(&path).is_file() {
                warnings.push(format!(
                    "Warning: {} in {path} {} as hex: it is neither the program ({}) nor a library, and is not looked up",
                    plural(n as usize, "address", "addresses"),
                    if n == 1 { "prints" } else { "print" },
                    self.prog.display()
                ));
                continue;
            }
            let what = if path.is_empty() {
                "anonymous memory (code generated at run time?)".to_string()
            } else {
                path
            };
            warnings.push(format!(
                "Warning: {} in {what}, which the profile maps but rpprof has no symbols for, print as hex",
                plural(n as usize, "address", "addresses"),
            ));
        }
    }
}

/// pprof's naming of addr2line's answers for one file: nm's names where they extend
/// addr2line's, places without discriminators, short names.
struct Namer<'a> {
    nm: &'a NmTable,
    /// Demangled names, shared with the lookups.
    memo: &'a super::demangle::Memo,
    keep: bool,
    jeprof: bool,
    width: usize,
    /// Short names by full name: most functions are named at many addresses.
    shorts: rustc_hash::FxHashMap<Arc<str>, Arc<str>>,
    /// The files of the places named so far, shared by their frames.
    files: rustc_hash::FxHashSet<Arc<str>>,
    /// When set, nm's routine names an address only inside its symbol's extent; others are
    /// named `<file_name>+0x<file address>`.
    extents: Option<&'a Unwind<'a>>,
    /// The mapped file's name, for addresses outside every symbol.
    file_name: String,
}

impl Namer<'_> {
    /// The frames of `pc` (at file address `vma`), outermost first, from addr2line's answer.
    fn frames(&mut self, pc: u64, vma: u64, frames: Vec<A2lFrame>) -> Vec<Frame> {
        let (keep, w) = (self.keep, self.width);
        let hex: Arc<str>;
        let nms: Option<(&Arc<str>, &Arc<str>)> = if self.nm.is_empty() {
            // A file without symbols: its addresses are held by none (pprof: `??`); one
            // outside its code (a damaged stack) keeps its own address.
            match self.extents {
                Some(u) if u.in_code(vma) => {
                    hex = outside_name(&self.file_name, vma);
                    Some((&hex, &hex))
                }
                Some(_) => {
                    hex = Arc::from(format!("0x{pc:0w$x}"));
                    Some((&hex, &hex))
                }
                None => None,
            }
        } else {
            Some(match self.nm.lookup(vma) {
                Some(r) if self.extents.is_none_or(|u| r.holds(vma, u)) => {
                    let full = self.nm.full_with(r, Some(self.memo));
                    (self.nm.short(r, keep), full)
                }
                // Past the end of the nearest symbol below (or before the first one, or past
                // the last one in the file's code): a function the symbol table does not name.
                Some(_) => {
                    hex = outside_name(&self.file_name, vma);
                    (&hex, &hex)
                }
                None if self.extents.is_some_and(|u| u.in_code(vma)) => {
                    hex = outside_name(&self.file_name, vma);
                    (&hex, &hex)
                }
                None => {
                    hex = Arc::from(format!("0x{pc:0w$x}"));
                    (&hex, &hex)
                }
            })
        };
        let mut out: Vec<Frame> = Vec::with_capacity(frames.len());
        for mut frame in frames {
            frame.demangle(self.memo);
            let A2lFrame {
                function, place, ..
            } = frame;
            let fileline = if self.jeprof {
                Place::interned(&place, &mut self.files)
            } else {
                Place::interned(&pprof_place(place), &mut self.files)
            };
            let short = match self.shorts.get(&function) {
                Some(s) => s.clone(),
                None => {
                    let s: Arc<str> = Arc::from(short_name(&function, keep));
                    self.shorts.insert(function.clone(), s.clone());
                    s
                }
            };
            // pprof prefers nm's name when addr2line's is its prefix (nm's has the
            // argument list and the address tag).
            out.push(match nms {
                Some((nshort, nfull)) if &*function == "??" || nfull.starts_with(&*short) => {
                    Frame {
                        function: nfull.clone(),
                        fileline,
                        short: nshort.clone(),
                    }
                }
                _ => Frame {
                    function,
                    fileline,
                    short,
                },
            });
        }
        out.reverse();
        out
    }
}

/// The name of an address that no symbol holds: the file's name and the address in the file
/// (what `addr2line -e` and `objdump --start-address` take), `libjemalloc.so.2+0x99630`.
pub fn outside_name(file_name: &str, vma: u64) -> Arc<str> {
    Arc::from(format!("{file_name}+0x{vma:x}"))
}

/// True when `name` is one [`outside_name`] made.
pub fn is_outside_name(name: &str) -> bool {
    // After the last `+0x` come hex digits only: read from the end, they must follow a
    // `+0x` (the `x` ends them). Most names end in `)` or a letter: nothing more is read.
    let digits = name.bytes().rev().take_while(u8::is_ascii_hexdigit).count();
    digits > 0
        && name[..name.len() - digits]
            .strip_suffix("+0x")
            .is_some_and(|file| !file.is_empty() && !file.contains([' ', '(', '<']))
}

/// True when some `PT_LOAD` segment, mapped with a 4, 16 or 64 KiB page size, spans exactly
/// `len` bytes from file offset `offset`: the test that a file is the one that was mapped.
fn segment_fits(segments: &[super::elf::Segment], offset: u64, len: u64) -> bool {
    if segments.is_empty() {
        return true;
    }
    [0x1000u64, 0x4000, 0x10000].iter().any(|&page| {
        segments.iter().any(|s| {
            let lo = s.offset & !(page - 1);
            let hi = (s.offset.saturating_add(s.filesz).saturating_add(page - 1)) & !(page - 1);
            lo == offset && hi.saturating_sub(lo) == len
        })
    })
}

/// Where a file linked to run at fixed addresses (see [`super::elf::Elf::fixed`]) must be
/// mapped for its bytes from file offset `offset` on: the start of that page of the segment
/// holding them; `None` when no segment holds them.
fn linked_start(segments: &[super::elf::Segment], offset: u64) -> Option<u64> {
    let s = segments.iter().find(|s| {
        let lo = s.offset & !0xfff;
        offset >= lo && offset < s.offset.saturating_add(s.filesz.max(1))
    })?;
    Some(s.vaddr.wrapping_add(offset).wrapping_sub(s.offset) & !0xfff)
}

/// pprof's clean-up of addr2line places: no discriminator, `:?` becomes `:0`.
fn pprof_place(mut place: String) -> String {
    if place.ends_with(')') {
        // The last `(` is the discriminator's, unless a file name holds the text.
        let i = match place.rfind('(') {
            Some(i) if place[..i].ends_with(' ') && place[i..].starts_with("(discriminator ") => {
                Some(i - 1)
            }
            _ => place.rfind(" (discriminator "),
        };
        if let Some(i) = i {
            place.truncate(i);
        }
    }
    if place.ends_with(":?") {
        place.truncate(place.len() - 1);
        place.push('0');
    }
    place
}

/// Absolute address → file virtual address through the mapping and the file's `PT_LOAD`
/// headers; when no segment holds the offset, pprof's `.text` rule
/// (`vma = abs - start + offset + (text_vma - text_offset)`).
fn to_vma(
    abs: u64,
    start: u64,
    offset: u64,
    segments: &[super::elf::Segment],
    text: Option<&super::elf::Section>,
) -> u64 {
    let file_off = abs.wrapping_sub(start).wrapping_add(offset);
    for s in segments {
        if file_off >= s.offset && file_off - s.offset < s.filesz.max(s.memsz) {
            return file_off - s.offset + s.vaddr;
        }
    }
    match text {
        Some(t) => file_off.wrapping_add(t.addr.wrapping_sub(t.offset)),
        None => file_off,
    }
}

impl Local {
    /// The file and file virtual address of each address, as symbolization looks them up
    /// (for benchmarks and checks against other tools); addresses of unreadable files are
    /// left out.
    pub fn file_addresses(
        &mut self,
        addrs: &[u64],
        warnings: &mut Vec<String>,
    ) -> Vec<(PathBuf, u64)> {
        let mut libs = self.libs(addrs, warnings);
        libs.sort_by_key(|l| std::cmp::Reverse(l.start));
        let mut remaining: Vec<u64> = addrs.to_vec();
        remaining.sort_unstable();
        remaining.dedup();
        let mut out = Vec::new();
        for lib in &libs {
            let lo = remaining.partition_point(|&a| a < lib.start);
            let hi = remaining.partition_point(|&a| a <= lib.finish);
            let pcs: Vec<u64> = remaining.drain(lo..hi).collect();
            let Ok(elf) = Elf::open(&lib.path) else {
                continue;
            };
            let text = elf.text_section().cloned();
            for pc in pcs {
                let vma = match lib.translate {
                    Translate::Identity => pc,
                    Translate::Mapped { start, offset } => {
                        to_vma(pc, start, offset, &elf.segments, text.as_ref())
                    }
                };
                out.push((lib.path.clone(), vma));
            }
        }
        out
    }
}

impl Local {
    /// Forgets the addresses recorded by [`Local::want`], and the files read for them only:
    /// every file opened from now on answers any address.
    fn want_any(&mut self) {
        self.wanted.clear();
        self.images
            .retain(|_, img| !img.as_ref().is_some_and(|i| i.partial));
    }

    /// Records the file addresses each file will be asked for, when libraries `libs` take
    /// the addresses `taken`, but for those marked in `skip` (answered from the cache).
    fn want(
        &mut self,
        libs: &[Lib],
        taken: &[Vec<u64>],
        images: &[Option<PathBuf>],
        skip: &[bool],
    ) {
        self.want_any();
        let mut wanted: HashMap<PathBuf, Vec<u64>> = HashMap::new();
        for (((lib, pcs), image), &skip) in libs.iter().zip(taken).zip(images).zip(skip) {
            let Some(image_path) = image.clone() else {
                continue;
            };
            if pcs.is_empty() || skip {
                continue;
            }
            let vmas: Vec<u64> = match lib.translate {
                Translate::Identity => pcs.clone(),
                Translate::Mapped { start, offset } => {
                    // The segments of the file that was mapped, else of its debug copy (as
                    // `map_to_symbols` takes them).
                    let Ok(elf) = Elf::open(&lib.path).or_else(|_| Elf::open(&image_path)) else {
                        continue;
                    };
                    let text = elf.text_section();
                    pcs.iter()
                        .map(|&pc| to_vma(pc, start, offset, &elf.segments, text))
                        .collect()
                }
            };
            wanted.entry(image_path).or_default().extend(vmas);
        }
        self.wanted = wanted
            .into_iter()
            .map(|(p, mut v)| {
                v.sort_unstable();
                v.dedup();
                (p, Arc::from(v))
            })
            .collect();
    }
}

impl Local {
    /// The file whose symbols a lib's addresses are looked up in.
    fn image_path(lib: &Lib) -> PathBuf {
        Self::debugging_library(&lib.path).unwrap_or_else(|| lib.path.clone())
    }

    /// For each file that will be asked for names, its question to the symbol cache and the
    /// answer found, if any (none without a cache, or for a file that cannot be read).
    fn cache_lookups(
        &mut self,
        libs: &[Lib],
        taken: &[Vec<u64>],
        images: &[Option<PathBuf>],
        catch_all: Option<usize>,
        warnings: &mut Vec<String>,
    ) -> HashMap<PathBuf, Cached> {
        let mut out = HashMap::new();
        let Some(cache) = &self.opts.cache else {
            return out;
        };
        // The calls of each file, in order.
        let mut calls: Vec<(PathBuf, Vec<usize>)> = Vec::new();
        let mut call_of: HashMap<&Path, usize> = HashMap::new();
        for (i, (lib, image)) in libs.iter().zip(images).enumerate() {
            let Some(image) = image else { continue };
            if !lib.path.exists() && Some(i) != catch_all {
                continue;
            }
            match call_of.get(image.as_path()) {
                Some(&c) => calls[c].1.push(i),
                None => {
                    call_of.insert(image, calls.len());
                    calls.push((image.clone(), vec![i]));
                }
            }
        }
        self.opened.clear();
        let o = &self.opts;
        for (image, idx) in calls {
            let Ok(elf) = Elf::open(&image) else {
                continue;
            };
            let mut key =
                cache::Key::new(&image, &cache::identity(&image, elf.build_id.as_deref()));
            for flag in [
                o.keep_templates,
                o.jeprof,
                o.binutils_inline_names,
                o.nearest_symbol,
                o.pprof_inlines_by_fini,
            ] {
                key.u64(u64::from(flag));
            }
            key.u64(o.address_width as u64);
            // Where a separate debug file could come from, a supplementary file (dwz) and
            // split DWARF (.dwo files).
            if !elf.has_dwarf() {
                for c in super::dwarf::debug_file_candidates(&elf) {
                    key.bytes(c.as_os_str().as_encoded_bytes());
                    key.bytes(&cache::identity(&c, None));
                }
            }
            for c in super::dwarf::dependency_candidates(&elf) {
                key.bytes(c.as_os_str().as_encoded_bytes());
                key.bytes(&cache::identity(&c, None));
            }
            for &i in &idx {
                let lib = &libs[i];
                key.bytes(lib.path.as_os_str().as_encoded_bytes());
                if lib.path != image {
                    key.bytes(&cache::identity(&lib.path, None));
                }
                key.u64(lib.start);
                key.u64(lib.finish);
                match lib.translate {
                    Translate::Identity => key.u64(0),
                    Translate::Mapped { start, offset } => {
                        key.u64(1);
                        key.u64(start);
                        key.u64(offset);
                    }
                }
                key.u64(u64::from(lib.exact));
                key.addresses(&taken[i]);
            }
            let hit = match cache.get(&key) {
                cache::Found::Hit(e)
                    if e.calls.len() == idx.len()
                        && e.calls
                            .iter()
                            .zip(&idx)
                            .all(|(c, &i)| c.counts.len() == taken[i].len()) =>
                {
                    Some(e)
                }
                cache::Found::Hit(_) => {
                    warnings.push(format!(
                        "Warning: the symbol cache entry for {} does not fit its question; ignored (it is written again)",
                        image.display()
                    ));
                    None
                }
                cache::Found::Bad(w) => {
                    warnings.push(w);
                    None
                }
                cache::Found::Miss => None,
            };
            if hit.is_none() {
                self.opened.insert(image.clone(), elf);
            }
            out.insert(
                image,
                Cached {
                    key,
                    hit,
                    next: 0,
                    calls: idx.len(),
                    record: Vec::new(),
                    flags: (false, false),
                    complete: true,
                },
            );
        }
        out
    }
}

/// The symbol cache entries of one [`Local::symbolize_shared`], written on a thread of their
/// own while the caller goes on (the large CPU profile's program entry, 16 MB, takes 35-65
/// ms to encode and write): dropping it waits for them.
#[derive(Debug, Default)]
pub struct CacheWrites(Option<std::thread::JoinHandle<()>>);

impl Drop for CacheWrites {
    fn drop(&mut self) {
        // A writer that panicked (a bug; its message is printed) wrote what it wrote before.
        if let Some(h) = self.0.take() {
            let _ = h.join();
        }
    }
}

/// Writes the entries of the files answered from scratch (`entries`: their questions and
/// the addresses of each call) into `cache`, from the frames of `table`. A failure to write
/// one is no error: the run goes on without keeping it.
fn write_entries(cache: &cache::Cache, table: &SymbolTable, entries: &[Cached]) {
    for e in entries {
        let calls = e
            .record
            .iter()
            .map(|(w, pcs)| (w.as_slice(), pcs.iter().map(|&pc| table.get(pc)).collect()))
            .collect();
        let answers = cache::Answers {
            calls,
            nm_empty: e.flags.0,
            has_dwarf: e.flags.1,
        };
        let _ = cache.put(&e.key, &answers);
    }
}

impl Symbolize for Local {
    /// [`Local::symbolize_shared`], its cache entries written before it returns.
    fn symbolize(&mut self, addrs: &[u64], warnings: &mut Vec<String>) -> SymbolTable {
        let (table, writes) = self.symbolize_shared(addrs, warnings);
        // Waits for the writes: the table is then this call's alone.
        drop(writes);
        Arc::try_unwrap(table).unwrap_or_else(|t| (*t).clone())
    }
}

impl Local {
    /// pprof's `ExtractSymbols`: libraries are taken highest start first, each taking the
    /// addresses left in its range, so libraries win over the program's catch-all range.
    /// The files answered from scratch are kept in the symbol cache by the [`CacheWrites`]
    /// returned, which go on alongside the caller.
    pub fn symbolize_shared(
        &mut self,
        addrs: &[u64],
        warnings: &mut Vec<String>,
    ) -> (Arc<SymbolTable>, CacheWrites) {
        let mut table = SymbolTable::new();
        self.read_notes.clear();
        // Files kept from an earlier call were read for its addresses.
        self.want_any();
        let mut libs = self.libs(addrs, warnings);
        libs.sort_by_key(|l| std::cmp::Reverse(l.start));
        let mut remaining: Vec<u64> = addrs.to_vec();
        remaining.sort_unstable();
        remaining.dedup();
        let catch_all = libs.iter().position(|l| {
            l.start == 0 && matches!(l.translate, Translate::Identity) && l.path == self.prog
        });
        let taken: Vec<Vec<u64>> = libs
            .iter()
            .map(|lib| {
                let lo = remaining.partition_point(|&a| a < lib.start);
                let hi = remaining.partition_point(|&a| a <= lib.finish);
                remaining.drain(lo..hi.max(lo)).collect()
            })
            .collect();
        // The file each mapping with addresses is looked up in (two stats each: once), and
        // the last mapping of each file and of each file looked up in (a profile may map
        // thousands of files).
        let images: Vec<Option<PathBuf>> = libs
            .iter()
            .zip(&taken)
            .map(|(l, pcs)| (!pcs.is_empty()).then(|| Self::image_path(l)))
            .collect();
        let mut last_of_path: HashMap<&Path, usize> = HashMap::new();
        let mut last_of_image: HashMap<&Path, usize> = HashMap::new();
        let mut image_of_path: HashMap<&Path, &Path> = HashMap::new();
        for (i, (lib, image)) in libs.iter().zip(&images).enumerate() {
            last_of_path.insert(&lib.path, i);
            if let Some(im) = image {
                last_of_image.insert(im, i);
                image_of_path.insert(&lib.path, im);
            }
        }
        // The files whose answers come from the cache are not read.
        let mut cached = self.cache_lookups(&libs, &taken, &images, catch_all, warnings);
        let hits = cached.values().filter(|c| c.hit.is_some()).count();
        let skip: Vec<bool> = images
            .iter()
            .map(|im| {
                im.as_ref()
                    .is_some_and(|im| cached.get(im).is_some_and(|c| c.hit.is_some()))
            })
            .collect();
        self.want(&libs, &taken, &images, &skip);
        let mut ahead = self.read_ahead(&libs, &taken, &images, &skip, catch_all);
        let mut to_write = Vec::new();
        for (i, (lib, pcs)) in libs.iter().zip(taken).enumerate() {
            // (A mapping without addresses may be the last of a file others read, or of one
            // kept from an earlier call.)
            let last = last_of_path.get(lib.path.as_path()) == Some(&i);
            let image = match (&images[i], image_of_path.get(lib.path.as_path())) {
                (Some(im), _) => im.clone(),
                (None, Some(im)) => im.to_path_buf(),
                (None, None) if last && !self.images.is_empty() => Self::image_path(lib),
                (None, None) => PathBuf::new(),
            };
            if pcs.is_empty() {
                // Nothing to look up here.
            } else if !lib.path.exists() && Some(i) != catch_all {
                warnings.push(self.not_found(lib, pcs.len()));
            } else {
                // Where this mapping's entries start.
                let mark = table.mark();
                let flags = match cached.get_mut(&image) {
                    Some(Cached {
                        hit: Some(entry),
                        next,
                        ..
                    }) => {
                        let call = entry
                            .calls
                            .get_mut(*next)
                            .map(std::mem::take)
                            .unwrap_or_default();
                        *next += 1;
                        warnings.extend(call.warnings);
                        table.insert_run(&pcs, &call.counts, call.frames);
                        Some((entry.nm_empty, entry.has_dwarf))
                    }
                    rec => {
                        let mut w = Vec::new();
                        if let Some(a) = ahead.take_if(|a| a.path == image) {
                            // (Its warnings are the first this file gives, as in its turn.)
                            let (img, said) = a.join();
                            w.extend(said);
                            self.images.insert(image.clone(), img);
                        }
                        self.map_to_symbols(lib, &pcs, &mut table, &mut w);
                        // The file's last lookups are done: what of its DWARF could not be
                        // read is said with them (and kept with them in the cache).
                        if last_of_image.get(image.as_path()) == Some(&i)
                            && let Some(d) = self
                                .images
                                .get(&image)
                                .and_then(Option::as_ref)
                                .and_then(|img| img.damage_warning(&image))
                        {
                            w.push(d);
                        }
                        let flags = self.images.get(&image).and_then(Option::as_ref).map(|img| {
                            (
                                img.nm.get().is_none_or(NmTable::is_empty),
                                img.dwarf.is_some(),
                            )
                        });
                        warnings.extend(w.iter().cloned());
                        if let Some(c) = rec {
                            match flags {
                                Some(f) => c.flags = f,
                                None => c.complete = false,
                            }
                            c.record.push((w, pcs.clone()));
                        }
                        flags
                    }
                };
                if Some(i) == catch_all && lib.path.exists() {
                    self.explain_catch_all(&table.unnamed_since(mark, &pcs), warnings);
                } else if Some(i) != catch_all {
                    let unnamed = table.unnamed_since(mark, &pcs);
                    self.explain_unnamed(lib, &unnamed, flags, warnings);
                }
            }
            // A file's tables are big: let them go once no later mapping needs them.
            if last {
                let img = self.images.remove(&image).flatten();
                self.read_notes
                    .extend(img.and_then(|img| img.units_note(&image)));
            }
            // The file's answers are complete: keep them for the next run.
            if last_of_image.get(image.as_path()) == Some(&i)
                && let Some(c) = cached.remove(&image)
                && c.hit.is_none()
                && c.complete
                && c.record.len() == c.calls
                && self.opts.cache.is_some()
            {
                to_write.push(c);
            }
        }
        // (Always taken in the loop; should it not be, the thread is not left running.)
        if let Some(a) = ahead {
            drop(a.join());
        }
        self.opened.clear();
        if self.opts.cache.is_some() {
            self.cache_note = Some(format!(
                "{hits} {} answered from the symbol cache, {} to write",
                if hits == 1 { "file" } else { "files" },
                to_write.len()
            ));
        }
        let table = Arc::new(table);
        let writes = match &self.opts.cache {
            Some(cache) if !to_write.is_empty() => {
                let (cache, shared) = (cache.clone(), Arc::clone(&table));
                // Without a thread to be had, the answers are not kept (as when the folder
                // cannot be written): the run goes on.
                CacheWrites(
                    std::thread::Builder::new()
                        .spawn(move || write_entries(&cache, &shared, &to_write))
                        .ok(),
                )
            }
            _ => CacheWrites(None),
        };
        (table, writes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The places of a listing are read as pprof's patterns read them (the patterns it
    /// used to be read with here): every text of up to four pieces among colons, digits of
    /// two scripts, white space, line ends, discriminators and `?`.
    #[test]
    fn places_as_by_pprof_patterns() {
        // unwrap: constant patterns.
        let objdump_re = Regex::new(r"\s*([^:\s]+):(\d+)\s*$").unwrap();
        let top_re = Regex::new(r"^(.*):(\d+)$").unwrap();
        let by_re = |re: &Regex, place: &str| -> Option<(String, i64)> {
            let c = re.captures(place)?;
            Some((c[1].to_string(), c[2].parse().ok()?))
        };
        let parts = [
            "a.c",
            ":",
            "12",
            "\u{0663}",
            " ",
            "\n",
            "\t",
            "?",
            ":?",
            " (discriminator 3)",
            "",
            "99999999999999999999",
            "x y",
        ];
        let owned = |p: Option<(&str, i64)>| p.map(|(f, l)| (f.to_string(), l));
        for place in crate::testing::joined(&parts, 4) {
            assert_eq!(
                owned(objdump_place(&place)),
                by_re(&objdump_re, &place),
                "{place:?}"
            );
            assert_eq!(
                owned(top_level_place(&place, true)),
                by_re(&top_re, &place),
                "jeprof {place:?}"
            );
            let mut p = place
                .split(" (discriminator ")
                .next()
                .unwrap_or(&place)
                .to_string();
            if let Some(q) = p.strip_suffix(":?") {
                p = format!("{q}:0");
            }
            assert_eq!(
                owned(top_level_place(&place, false)),
                by_re(&top_re, &p),
                "{place:?}"
            );
        }
    }

    /// The answers of a fresh symbolizer for `addrs` of `prog` (no memory map).
    fn fresh(prog: &Path, addrs: &[u64]) -> Vec<Option<Vec<Frame>>> {
        let table = Local::new(prog, &[], &Options::default()).symbolize(addrs, &mut Vec::new());
        addrs
            .iter()
            .map(|&a| table.get(a).map(<[Frame]>::to_vec))
            .collect()
    }

    /// Names made by `outside_name` are recognized, as by the search for the last `+0x`
    /// they were first recognized with, over names with several `+`, `0x` and hex tails.
    #[test]
    fn outside_names_as_by_substring() {
        let by_substring = |name: &str| {
            name.as_bytes().last().is_some_and(u8::is_ascii_hexdigit)
                && name.rsplit_once("+0x").is_some_and(|(file, hex)| {
                    !file.is_empty()
                        && !file.contains([' ', '(', '<'])
                        && !hex.is_empty()
                        && hex.bytes().all(|b| b.is_ascii_hexdigit())
                })
        };
        let parts = [
            "libc.so.6",
            "+",
            "0x",
            "+0x",
            "a1f",
            "g",
            " ",
            "(",
            "<",
            "x",
            "",
        ];
        let mut n = 0;
        for name in crate::testing::joined(&parts, 4) {
            assert_eq!(is_outside_name(&name), by_substring(&name), "{name:?}");
            n += usize::from(is_outside_name(&name));
        }
        assert!(n > 20, "{n}");
        assert!(is_outside_name(&outside_name("libjemalloc.so.2", 0x99630)));
        assert!(!is_outside_name("lg::m012::f06123"));
    }

    /// Map lines are read as pprof reads them, on bytes: `\s` is ASCII blank space only (a
    /// no-break space is part of a name), and a library whose path is not ASCII keeps it.
    #[test]
    fn map_lines_are_read_with_perls_ascii_classes() {
        let lines = [
            "7f0000000000-7f0000001000 r-xp 00001000 08:01 42 /opt/caf\u{e9}/libz\u{e9}.so.1",
            "7f0000002000-7f0000003000 r-xp 00000000 08:01 42\u{a0}/opt/nbsp/libn.so",
            "7f0000004000-7f0000005000: /opt/\u{e9}t\u{e9}/libs.so.2",
        ];
        let maps: Vec<Mapping> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| Mapping {
                start: 0,
                limit: 0,
                offset: 0,
                perms: None,
                path: String::new(),
                line: i + 1,
                raw: l.to_string(),
            })
            .collect();
        let mut local = Local::new(Path::new("/nonexistent/prog"), &maps, &Options::default());
        let libs = local.libs(&[], &mut Vec::new());
        let named: Vec<(String, u64)> = libs
            .iter()
            .map(|l| (l.path.to_string_lossy().into_owned(), l.start))
            .collect();
        for want in [
            ("/opt/caf\u{e9}/libz\u{e9}.so.1", 0x7f00_0000_0000),
            ("/opt/\u{e9}t\u{e9}/libs.so.2", 0x7f00_0000_4000),
        ] {
            assert!(named.contains(&(want.0.to_string(), want.1)), "{named:?}");
        }
        assert!(
            !named.iter().any(|(p, _)| p.contains("libn.so")),
            "{named:?}"
        );
    }

    /// A file whose DWARF was read for some addresses only never answers others: a
    /// symbolizer asked again, or for a listing, reads it again.
    #[test]
    fn files_read_for_some_addresses_are_not_kept_for_others() {
        let prog = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/t-heap/theap");
        let tsv = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/addresses.tsv"),
        )
        .unwrap_or_default();
        let mut addrs: Vec<u64> = tsv
            .lines()
            .filter_map(|l| l.strip_prefix("t-heap/theap\t"))
            .filter_map(|l| u64::from_str_radix(l.split('\t').next()?, 16).ok())
            .collect();
        addrs.sort_unstable();
        addrs.dedup();
        assert!(addrs.len() > 20, "only {} t-heap addresses", addrs.len());
        let (a, b): (Vec<u64>, Vec<u64>) = addrs.iter().partition(|&&x| x % 2 == 0);
        let mut local = Local::new(&prog, &[], &Options::default());
        // The program read for the addresses `a` only, and kept.
        let libs = local.libs(&a, &mut Vec::new());
        let taken: Vec<Vec<u64>> = libs.iter().map(|_| a.clone()).collect();
        let images = [Some(Local::image_path(&libs[0]))];
        local.want(&libs[..1], &taken[..1], &images, &[false]);
        assert!(
            local
                .image(&prog, &mut Vec::new())
                .is_some_and(|i| i.partial)
        );
        let table = local.symbolize(&b, &mut Vec::new());
        let again: Vec<Option<Vec<Frame>>> = b
            .iter()
            .map(|&x| table.get(x).map(<[Frame]>::to_vec))
            .collect();
        assert_eq!(again, fresh(&prog, &b));
        // And a listing reads every byte.
        local.want(&libs[..1], &taken[..1], &images, &[false]);
        assert!(
            local
                .image(&prog, &mut Vec::new())
                .is_some_and(|i| i.partial)
        );
        local.want_any();
        assert!(local.images.is_empty());
    }

    /// Every byte of a program's text, named on two threads (and the symbol table read
    /// beside the DWARF units), is named as on one.
    #[test]
    fn two_naming_threads_name_as_one() {
        let prog = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/t-heap/theap");
        // (Test code: the program is the project's own test data; no input reaches this.)
        let elf = Elf::open(&prog).expect("testdata/t-heap/theap opens");
        let text = elf.text_section().cloned().expect("theap has .text");
        let addrs: Vec<u64> = (text.addr..text.addr + text.size).collect();
        crate::split::set(Work::Naming, Some(0));
        let two = fresh(&prog, &addrs);
        crate::split::set(Work::Naming, Some(usize::MAX));
        let one = fresh(&prog, &addrs);
        crate::split::set(Work::Naming, None);
        // Most bytes are in named functions, some in inlined ones.
        let named = one.iter().flatten().filter(|f| !f.is_empty()).count();
        assert!(named > addrs.len() / 2, "{named} of {} named", addrs.len());
        assert!(one.iter().flatten().any(|f| f.len() > 1));
        assert_eq!(one, two);
    }

    #[test]
    fn places() {
        assert_eq!(pprof_place("a.c:12 (discriminator 3)".into()), "a.c:12");
        assert_eq!(pprof_place("??:?".into()), "??:0");
        assert_eq!(pprof_place("crtstuff.c:?".into()), "crtstuff.c:0");
        assert_eq!(pprof_place("a.c:7".into()), "a.c:7");
    }
}

/// A run of bytes of one routine with the same source place, for `--list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRun {
    /// First absolute address.
    pub start: u64,
    /// One past the last absolute address.
    pub end: u64,
    /// The place in the routine being listed (the outermost frame, as pprof's
    /// `GetTopLevelLineNumbers` picks it): file and line, line -1 when unknown.
    pub file: String,
    /// See `file`.
    pub line: i64,
}

/// A routine whose source `--list` prints (or whose instructions `--disasm` prints).
#[derive(Debug, Clone)]
pub struct ListedRoutine {
    /// pprof's short name.
    pub short: Arc<str>,
    /// Its bytes, in address order, grouped by source place (empty unless asked for).
    pub runs: Vec<SourceRun>,
    /// The file it is in, as mapped (what `objdump` reads for `--disasm`).
    pub file: PathBuf,
    /// Its first file address and the one past its end.
    pub vmas: (u64, u64),
    /// What turns its file addresses into absolute ones (added, wrapping).
    pub delta: u64,
}

impl ListedRoutine {
    /// Whether it is loaded above its file address (a PIE, a library): pprof's `--list` and
    /// `--disasm` then leave out its last instruction's samples.
    pub fn relocated(&self) -> bool {
        (self.delta as i64) > 0
    }
}

/// The longest routine `--list` reads (past it, nm's end address is not a routine's).
const MAX_LISTED_BYTES: u64 = 1 << 20;

/// The absolute address of a file address: [`to_vma`] backwards.
fn to_abs(vma: u64, start: u64, offset: u64, segments: &[super::elf::Segment]) -> u64 {
    let file_off = segments
        .iter()
        .find(|s| vma >= s.vaddr && vma - s.vaddr < s.memsz.max(s.filesz))
        .map_or(vma, |s| vma - s.vaddr + s.offset);
    file_off.wrapping_sub(offset).wrapping_add(start)
}

/// The place objdump's `-l` would print for a byte, as pprof reads it: `file:line` only (a
/// line with a discriminator, `file:line (discriminator 3)`, is not read, so the place
/// before it stays). pprof's pattern `\s*([^:\s]+):(\d+)\s*$`: the line's digits end the
/// text (but for white space), after a colon and the run of characters before it that are
/// neither colons nor white space.
fn objdump_place(place: &str) -> Option<(&str, i64)> {
    let t = place.trim_end_matches(char::is_whitespace);
    let (head, digits) = t.rsplit_once(':')?;
    let file = head
        .rsplit(|c: char| c == ':' || c.is_whitespace())
        .next()?;
    if file.is_empty() {
        return None;
    }
    Some((file, ascii_number(digits)?))
}

/// The place addr2line gives the outermost frame, as pprof's `GetTopLevelLineNumbers`
/// reads it: `file:line` exactly (pprof's `^(.*):(\d+)$`: no line end in it). google-pprof
/// drops a discriminator and reads an unknown line (`:?`) as line 0 first; jeprof does
/// neither, so it does not read those places.
fn top_level_place(place: &str, jeprof: bool) -> Option<(&str, i64)> {
    let mut place = place;
    if !jeprof {
        place = place.split(" (discriminator ").next().unwrap_or(place);
        if let Some(p) = place.strip_suffix(":?") {
            return (!p.contains('\n')).then_some((p, 0));
        }
    }
    let (file, digits) = place.rsplit_once(':')?;
    if file.contains('\n') {
        return None;
    }
    Some((file, ascii_number(digits)?))
}

/// `digits` as a number when it is one or more ASCII digits that fit. (pprof's `\d` takes
/// any script's digits, which its number then does not read: no place either way.)
fn ascii_number(digits: &str) -> Option<i64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl Local {
    /// pprof's `PrintListing` routine selection: in each file of the profile's map, the
    /// routines whose names (as pprof's nm table has them) match `re` and that hold one of
    /// the addresses `wanted` (sorted), in the order of their short names; with the source
    /// place of each byte. With `by_short_name`, a routine whose short name matches is
    /// chosen too.
    pub fn listed_routines(
        &mut self,
        addrs: &[u64],
        re: &Regex,
        by_short_name: bool,
        wanted: &[u64],
        places: bool,
        warnings: &mut Vec<String>,
    ) -> Vec<ListedRoutine> {
        // Every byte of a routine is looked up: files read for some addresses only will not do.
        self.want_any();
        // pprof goes through the files in memory-map order (address order), the program's
        // catch-all range last.
        let mut libs = self.libs(addrs, warnings);
        let catch_all = libs.pop();
        libs.sort_by_key(|l| l.start);
        libs.extend(catch_all);
        let keep = self.opts.keep_templates;
        let jeprof = self.opts.jeprof;
        let nearest = self.opts.nearest_symbol;
        let pprof_routines_only = self.opts.pprof_routines_only;
        let by_fini = self.opts.pprof_inlines_by_fini;
        let mut out = Vec::new();
        for lib in &libs {
            let image_path = Self::debugging_library(&lib.path).unwrap_or_else(|| lib.path.clone());
            let segments = if image_path != lib.path {
                Elf::open(&lib.path).ok().map(|e| e.segments.clone())
            } else {
                None
            };
            let Some(img) = self.image(&image_path, warnings) else {
                continue;
            };
            let segs = segments.as_deref().unwrap_or(&img.elf.segments);
            let abs_of = |vma: u64| match lib.translate {
                Translate::Identity => vma,
                Translate::Mapped { start, offset } => to_abs(vma, start, offset, segs),
            };
            // A stripped file's routines (a program stripped after `objcopy
            // --only-keep-debug`, a distribution's library) are those of its separate debug
            // file, whose symbols its addresses were named from; pprof, reading `nm` of the
            // file itself, lists none of them.
            let from_debug_file = if pprof_routines_only || !img.elf.symtab().is_empty() {
                None
            } else {
                img.debug_nm
                    .get_or_init(|| {
                        let dbg = img.dwarf.as_deref().and_then(|d| d.symbol_file())?;
                        (!dbg.symtab().is_empty()).then(|| NmTable::new(dbg))
                    })
                    .as_ref()
            };
            let nm = match from_debug_file {
                Some(t) => t,
                None => img.nm_table(),
            };
            let mut chosen: Vec<&super::nm::Routine> = nm
                .routines
                .iter()
                .filter(|r| {
                    if r.end <= r.start {
                        return false;
                    }
                    let (a, b) = (abs_of(r.start), abs_of(r.end));
                    // Looked up, not walked: a damaged symbol can span most of the
                    // address space.
                    let first = wanted.partition_point(|&w| w < a);
                    // A routine that starts outside the file's mapping is one that named no
                    // address there, unless names come from the nearest symbol below however
                    // far (pprof's: a thread-local variable, its offset taken for an address,
                    // can name a run of code).
                    (nearest || (a >= lib.start && a <= lib.finish))
                        && wanted.get(first).is_some_and(|&w| w < b)
                })
                // (The pattern is tried last: on the few routines with samples, not on
                // every symbol of a big program.)
                .filter(|r| {
                    re.is_match(nm.full(r)) || (by_short_name && re.is_match(nm.short(r, keep)))
                })
                .collect();
            // pprof sorts by short name, leaving ties in hash order; rpprof by full name then.
            chosen.sort_by(|a, b| {
                nm.short(a, keep)
                    .cmp(nm.short(b, keep))
                    .then_with(|| nm.full(a).cmp(nm.full(b)))
            });
            if chosen.is_empty() {
                continue;
            }
            let a2l = Addr2Line::new(&img.elf, img.dwarf.as_deref());
            let inlines = !by_fini || nm.fini.is_some();
            for r in chosen {
                // Ctrl-C in the shell: the routines looked up so far are returned, and the
                // report that writes them stops (`crate::cancel`).
                if crate::cancel::requested() {
                    return out;
                }
                let mut runs: Vec<SourceRun> = Vec::new();
                let end = r.end.min(r.start.saturating_add(MAX_LISTED_BYTES));
                let listed = ListedRoutine {
                    short: nm.short(r, keep).clone(),
                    runs: Vec::new(),
                    file: lib.path.clone(),
                    vmas: (r.start, end),
                    delta: abs_of(r.start).wrapping_sub(r.start),
                };
                if !places {
                    out.push(listed);
                    continue;
                }
                let mut objdump = (String::new(), -1);
                for vma in r.start..end {
                    let frames = a2l.lookup(vma, inlines);
                    if let Some((file, line)) = frames.first().and_then(|f| objdump_place(&f.place))
                        && (objdump.1, objdump.0.as_str()) != (line, file)
                    {
                        objdump = (file.to_string(), line);
                    }
                    let (file, line) = frames
                        .last()
                        .and_then(|f| top_level_place(&f.place, jeprof))
                        .unwrap_or((&objdump.0, objdump.1));
                    let abs = abs_of(vma);
                    match runs.last_mut() {
                        Some(last) if last.file == file && last.line == line && last.end == abs => {
                            last.end = abs + 1;
                        }
                        _ => runs.push(SourceRun {
                            start: abs,
                            end: abs + 1,
                            file: file.to_string(),
                            line,
                        }),
                    }
                }
                out.push(ListedRoutine { runs, ..listed });
            }
        }
        out
    }
}
