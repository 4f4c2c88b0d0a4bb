//! What `addr2line -f -C [-i] -e <file>` answers for a file address, computed in-process.
//!
//! binutils 2.40 looks the address up in the section that contains it: first in the DWARF
//! (function, file, line and, with `-i`, the chain of inlined calls), and when DWARF has no
//! answer, in the ELF symbol table (the nearest function symbol at or below the address, with
//! no file or line). Names are demangled. The answer is a list of frames, innermost first,
//! each a name (`??` when unknown) and a place printed as `file:line`, `file:?` or `??:?`
//! (with ` (discriminator N)` after a line when the line table has one).

use std::sync::Arc;

use super::demangle;
use super::elf::{Elf, ElfSym, SymSection, stb, stt};

/// One frame of addr2line output: the demangled function name and the place as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct A2lFrame {
    /// Function name, `??` when unknown (shared: most functions are named at many
    /// addresses).
    pub function: Arc<str>,
    /// `file:line`, `file:line (discriminator N)`, `file:?` or `??:?` (or `??:0` when the
    /// address is in no section).
    pub place: String,
    /// True when `function` is still the raw (mangled) name: see
    /// [`Addr2Line::deferring_demangling`].
    pub mangled: bool,
}

impl A2lFrame {
    /// addr2line's answer for an address it knows nothing about.
    pub fn unknown() -> A2lFrame {
        A2lFrame {
            function: Arc::from("??"),
            place: "??:0".to_string(),
            mangled: false,
        }
    }

    /// Demangles `function` through `memo` if it is still mangled.
    pub fn demangle(&mut self, memo: &demangle::Memo) {
        if self.mangled {
            self.function = memo.demangle(&self.function);
            self.mangled = false;
        }
    }
}

/// A DWARF answer before formatting: innermost first.
#[derive(Debug, Clone)]
pub struct DwarfFrame {
    /// Raw (mangled) function name, if any.
    pub function: Option<Arc<str>>,
    /// Source file.
    pub file: Option<Arc<str>>,
    /// Line, 0 when unknown.
    pub line: u32,
    /// Discriminator (of the innermost row: addr2line prints it on every frame), 0 when none.
    pub discriminator: u32,
}

/// The ELF symbol binutils falls back on: its start address, raw name and source file.
pub type SymbolAnswer = Option<(u64, Arc<str>, Option<Arc<str>>)>;

/// A source of DWARF answers for one file.
pub trait DwarfSource: Send {
    /// The frames at a file address, innermost first; `None` when DWARF does not cover it.
    /// `symbol` looks up the ELF symbol holding the address, for functions DWARF names
    /// without a linkage name.
    fn frames(
        &self,
        vma: u64,
        inlines: bool,
        symbol: &dyn Fn() -> SymbolAnswer,
    ) -> Option<Vec<DwarfFrame>>;

    /// The separate debug file the DWARF came from, if any.
    fn symbol_file(&self) -> Option<&Elf> {
        None
    }

    /// Prepares the lookups of `vmas` (e.g. reads their tables in parallel); answers do not
    /// depend on it.
    fn prefetch(&self, _vmas: &[u64]) {}

    /// How much of the DWARF the lookups so far have read, when known.
    fn units_read(&self) -> Option<UnitsRead> {
        None
    }

    /// What of the DWARF could not be read (damaged sections or units), if anything: the
    /// addresses there were named from the symbol table.
    fn damage(&self) -> Option<String> {
        None
    }
}

/// The compilation units of a file's `.debug_info` that lookups have read (parsed their
/// entries and line table), out of all its units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitsRead {
    /// Units read.
    pub read: usize,
    /// Units in the file.
    pub units: usize,
    /// Bytes of `.debug_info` of the units read.
    pub read_bytes: u64,
    /// Bytes of `.debug_info` of all units.
    pub bytes: u64,
    /// When only the units up to the last one needed are read (`units` and `bytes` count
    /// those): how many bytes of the section were inflated, and its whole size.
    pub section: Option<(u64, u64)>,
}

/// binutils' `_bfd_elf_find_function` over one symbol table, indexed for speed, with the
/// one-entry cache binutils keeps (whose answer it reuses while an address stays inside the
/// cached function).
pub struct SymIndex<'a> {
    /// The file whose table it is (the symbols' names are in it).
    elf: &'a Elf,
    syms: &'a [ElfSym],
    /// Per section: (code offset, symbol index) of possible function symbols, sorted.
    by_section: std::collections::HashMap<usize, Vec<(u64, u32)>>,
    /// Per symbol: the file symbol binutils would name with it.
    file_of: Vec<Option<u32>>,
    cache: std::cell::Cell<Option<(usize, u32, u64, u64)>>,
}

impl<'a> SymIndex<'a> {
    /// Indexes `syms` (in table order), one of `elf`'s symbol tables.
    pub fn new(elf: &'a Elf, syms: &'a [ElfSym]) -> SymIndex<'a> {
        #[derive(PartialEq)]
        enum State {
            Nothing,
            Symbol,
            FileAfterSymbol,
        }
        let mut state = State::Nothing;
        let mut file: Option<u32> = None;
        let mut file_of = Vec::with_capacity(syms.len());
        let mut by_section: std::collections::HashMap<usize, Vec<(u64, u32)>> =
            std::collections::HashMap::new();
        for (i, s) in syms.iter().enumerate() {
            if s.st_type == stt::FILE {
                file = Some(i as u32);
                if state == State::Symbol {
                    state = State::FileAfterSymbol;
                }
                file_of.push(None);
                continue;
            }
            if state == State::Nothing {
                state = State::Symbol;
            }
            let named = file.filter(|_| s.st_bind == stb::LOCAL || state != State::FileAfterSymbol);
            file_of.push(named);
            if let SymSection::Index(sec) = s.section
                && maybe_function(s, sec).is_some()
            {
                by_section.entry(sec).or_default().push((s.value, i as u32));
            }
        }
        for v in by_section.values_mut() {
            v.sort_unstable();
        }
        SymIndex {
            elf,
            syms,
            by_section,
            file_of,
            cache: std::cell::Cell::new(None),
        }
    }

    /// The function symbol binutils picks for `vma` in section `sec`, and its file name.
    pub fn find(&self, sec: usize, vma: u64) -> Option<(&'a ElfSym, Option<&'a str>)> {
        let hit = match self.cache.get() {
            Some((s, i, value, size)) if s == sec && vma >= value && vma - value < size => i,
            _ => {
                let i = self.fresh(sec, vma)?;
                let sym = &self.syms[i as usize];
                let size = maybe_function(sym, sec).unwrap_or(1);
                self.cache.set(Some((sec, i, sym.value, size)));
                i
            }
        };
        let sym = &self.syms[hit as usize];
        let file = self.file_of[hit as usize]
            .and_then(|f| std::str::from_utf8(self.name(&self.syms[f as usize])).ok());
        Some((sym, file))
    }

    /// The name of `sym`, one of the table's symbols.
    pub fn name(&self, sym: &ElfSym) -> &'a [u8] {
        self.elf.sym_name(sym)
    }

    /// The address of the first possible function symbol of section `sec` after `vma`.
    pub fn next_start(&self, sec: usize, vma: u64) -> Option<u64> {
        let list = self.by_section.get(&sec)?;
        list.get(list.partition_point(|e| e.0 <= vma)).map(|e| e.0)
    }

    fn fresh(&self, sec: usize, vma: u64) -> Option<u32> {
        let list = self.by_section.get(&sec)?;
        let end = list.partition_point(|e| e.0 <= vma);
        let (best_off, _) = *list.get(end.checked_sub(1)?)?;
        // Every symbol at the best offset competes, in table order.
        let start = list[..end].partition_point(|e| e.0 < best_off);
        let mut tied: Vec<u32> = list[start..end].iter().map(|e| e.1).collect();
        tied.sort_unstable();
        let mut best: Option<(&ElfSym, u64, u64)> = None;
        let mut best_i = None;
        for i in tied {
            let s = &self.syms[i as usize];
            let size = maybe_function(s, sec).unwrap_or(1);
            if better_fit(best, s, s.value, size, vma) {
                best = Some((s, s.value, size));
                best_i = Some(i);
            }
        }
        best_i
    }
}

/// addr2line for one ELF file: its symbols (the file's own) and optional DWARF (possibly from
/// a separate debug file, whose symbol table binutils then uses to name functions).
pub struct Addr2Line<'a> {
    elf: &'a Elf,
    syms: SymIndex<'a>,
    dwarf: Option<&'a dyn DwarfSource>,
    debug_syms: Option<(&'a Elf, SymIndex<'a>)>,
    demangle: bool,
    /// Demangled names by mangled name: most functions are named at many addresses.
    names: std::cell::RefCell<rustc_hash::FxHashMap<Arc<str>, Arc<str>>>,
    /// Leave names mangled, marked, for the caller to demangle (in another thread).
    deferred: bool,
    /// When set, a name from the symbol table is given only to addresses inside the
    /// symbol's extent ([`super::extent`]); others are unknown (`??`).
    extents: Option<&'a super::extent::Unwind<'a>>,
}

impl<'a> Addr2Line<'a> {
    /// addr2line over `elf`, with DWARF answers from `dwarf`.
    pub fn new(elf: &'a Elf, dwarf: Option<&'a dyn DwarfSource>) -> Addr2Line<'a> {
        let syms = if elf.symtab().is_empty() {
            elf.dynsym()
        } else {
            elf.symtab()
        };
        let debug_syms = dwarf
            .and_then(|d| d.symbol_file())
            .map(|dbg| (dbg, SymIndex::new(dbg, dbg.symtab())));
        Addr2Line {
            elf,
            syms: SymIndex::new(elf, syms),
            dwarf,
            debug_syms,
            demangle: true,
            names: Default::default(),
            deferred: false,
            extents: None,
        }
    }

    /// Names addresses from the symbol table only inside a symbol's extent (rpprof's rule;
    /// binutils takes the nearest symbol below, however far).
    pub fn within_extents(mut self, unwind: &'a super::extent::Unwind<'a>) -> Self {
        self.extents = Some(unwind);
        self
    }

    /// Leaves demangling to the caller: frames come back with their raw names and
    /// [`A2lFrame::mangled`] set (see [`A2lFrame::demangle`]).
    pub fn deferring_demangling(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// Leaves names mangled (`addr2line` without `-C`), for comparisons.
    pub fn without_demangling(mut self) -> Self {
        self.demangle = false;
        self
    }

    /// Prepares lookups of `vmas`: reads the DWARF tables they need, in parallel.
    pub fn prefetch(&self, vmas: &[u64]) {
        if let Some(d) = self.dwarf {
            d.prefetch(vmas);
        }
    }

    /// The frames addr2line prints for `vma`, innermost first; with `inlines` (`-i`) the
    /// callers of inlined functions follow.
    pub fn lookup(&self, vma: u64, inlines: bool) -> Vec<A2lFrame> {
        let Some(sec) = self.elf.section_containing(vma) else {
            return vec![A2lFrame::unknown()];
        };
        if let Some(d) = self.dwarf {
            // binutils' DWARF code names functions from the debug file's symbols when the
            // DWARF came from one (and the section lines up by position and name).
            let index = match &self.debug_syms {
                Some((dbg, idx))
                    if dbg.sections.get(sec).map(|s| &s.name)
                        == self.elf.sections.get(sec).map(|s| &s.name) =>
                {
                    idx
                }
                _ => &self.syms,
            };
            let symbol = || {
                index.find(sec, vma).map(|(s, file)| {
                    (
                        s.value,
                        Arc::from(String::from_utf8_lossy(index.name(s)).as_ref()),
                        file.map(Arc::from),
                    )
                })
            };
            if let Some(frames) = d.frames(vma, inlines, &symbol)
                && !frames.is_empty()
            {
                return self.format_dwarf(frames);
            }
            if let Some(frame) = self.symbol_frame(index, sec, vma) {
                return vec![frame];
            }
        }
        match self.symbol_frame(&self.syms, sec, vma) {
            Some(frame) => vec![frame],
            None => vec![A2lFrame::unknown()],
        }
    }

    /// binutils' answer from the symbol table `index`: the nearest function symbol at or
    /// below `vma` (with [`Addr2Line::within_extents`], only one whose extent holds `vma`;
    /// for another, `??` at `??:?`).
    fn symbol_frame(&self, index: &SymIndex<'_>, sec: usize, vma: u64) -> Option<A2lFrame> {
        let (sym, file) = index.find(sec, vma)?;
        if let Some(unwind) = self.extents {
            let next = index.next_start(sec, vma);
            if !super::extent::holds(sym.value, sym.size, next, unwind, vma) {
                // No function name; the place as binutils prints it for a symbol's address.
                return Some(A2lFrame {
                    function: Arc::from("??"),
                    place: "??:?".to_string(),
                    mangled: false,
                });
            }
        }
        let (function, mangled) = self.name_of(index.name(sym));
        Some(A2lFrame {
            function,
            place: format!("{}:?", file.unwrap_or("??")),
            mangled,
        })
    }
}

impl Addr2Line<'_> {
    /// A name as addr2line prints it: demangled (`-C`), `??` when empty; with deferred
    /// demangling, the raw name and `true` when it still needs demangling.
    fn demangled(&self, raw: &str) -> (Arc<str>, bool) {
        let mangled = self.deferred && self.demangle && !raw.is_empty();
        if let Some(d) = self.names.borrow().get(raw) {
            return (d.clone(), mangled);
        }
        let d: Arc<str> = if raw.is_empty() {
            Arc::from("??")
        } else if mangled || !self.demangle {
            Arc::from(raw)
        } else {
            Arc::from(demangle::demangle(raw))
        };
        self.names.borrow_mut().insert(Arc::from(raw), d.clone());
        (d, mangled)
    }

    fn name_of(&self, raw: &[u8]) -> (Arc<str>, bool) {
        match std::str::from_utf8(raw) {
            Ok(s) => self.demangled(s),
            // Identifier lengths count bytes: demangle the bytes, not their lossy text.
            Err(_) if self.demangle => (Arc::from(demangle::nm_name(raw)), false),
            Err(_) => (Arc::from(String::from_utf8_lossy(raw).as_ref()), false),
        }
    }

    /// addr2line's printing of DWARF frames: demangled names, `file:line` places.
    fn format_dwarf(&self, frames: Vec<DwarfFrame>) -> Vec<A2lFrame> {
        frames
            .into_iter()
            .map(|f| {
                let (function, mangled) = self.demangled(f.function.as_deref().unwrap_or(""));
                let file = f.file.as_deref().unwrap_or("??");
                // `file:line`, built by hand: this runs for every frame of every address.
                let mut place = String::with_capacity(file.len() + 32);
                place.push_str(file);
                place.push(':');
                if f.line == 0 {
                    place.push('?');
                } else {
                    push_decimal(&mut place, f.line);
                    if f.discriminator != 0 {
                        place.push_str(" (discriminator ");
                        push_decimal(&mut place, f.discriminator);
                        place.push(')');
                    }
                }
                A2lFrame {
                    function,
                    place,
                    mangled,
                }
            })
            .collect()
    }
}

/// Appends `n` in decimal.
fn push_decimal(s: &mut String, n: u32) {
    for &d in crate::units::decimal(u64::from(n), &mut [0; 20]) {
        s.push(char::from(d));
    }
}

/// binutils' `_bfd_elf_maybe_function_sym`: the size to assume for a symbol that may be a
/// function in section `sec` (at least 1), or `None` when it is not one.
fn maybe_function(s: &ElfSym, sec: usize) -> Option<u64> {
    if matches!(
        s.st_type,
        stt::SECTION | stt::FILE | stt::OBJECT | stt::COMMON | stt::TLS
    ) {
        return None;
    }
    if s.section != SymSection::Index(sec) {
        return None;
    }
    const STV_HIDDEN: u8 = 2;
    if s.size == 0
        && s.st_bind == stb::LOCAL
        && s.st_type == stt::NOTYPE
        && s.st_other & 3 == STV_HIDDEN
    {
        return None;
    }
    Some(if s.size == 0 { 1 } else { s.size })
}

/// binutils' `better_fit`: is `s` a better match for `offset` than the current best?
fn better_fit(
    best: Option<(&ElfSym, u64, u64)>,
    s: &ElfSym,
    code_off: u64,
    size: u64,
    offset: u64,
) -> bool {
    if code_off > offset {
        return false;
    }
    let Some((cur, cur_off, cur_size)) = best else {
        return true;
    };
    if code_off < cur_off {
        return false;
    }
    if code_off > cur_off {
        return true;
    }
    if cur_off.saturating_add(cur_size) <= offset {
        return size > cur_size;
    }
    if code_off.saturating_add(size) <= offset {
        return false;
    }
    let cur_func = cur.st_type == stt::FUNC;
    let new_func = s.st_type == stt::FUNC;
    if cur_func && !new_func {
        return false;
    }
    if new_func && !cur_func {
        return true;
    }
    if cur.st_type == stt::NOTYPE && s.st_type != stt::NOTYPE {
        return true;
    }
    if cur.st_type != stt::NOTYPE && s.st_type == stt::NOTYPE {
        return false;
    }
    size < cur_size
}
