//! The symbol table as google-pprof sees it through `nm -n --demangle` (falling back to
//! `nm -D -n --demangle` when the file has no `.symtab`): every defined symbol, sorted by
//! address, each address named once, and each named routine running up to the next address.
//!
//! pprof tags every routine with its start address (`main<0000000000001170>`) so that
//! routines of the same name stay apart; the tag shows in `--raw` and `--collapsed` output.

use std::sync::{Arc, OnceLock};

use memmap2::Mmap;

use super::demangle;
use super::elf::{Elf, ElfSym, FileStr, SymSection, stb, stt};

/// One line of nm output that pprof reads: a defined symbol with an address.
#[derive(Debug, Clone, Default)]
pub struct NmLine {
    /// The symbol's address.
    pub addr: u64,
    /// nm's type letter.
    pub kind: char,
    /// The name as stored (mangled), in the file's bytes; nm prints it demangled, with the
    /// version after it.
    pub raw: FileStr,
    /// The version nm appends to dynamic symbols (`@@GLIBC_2.2.5`; `@` when hidden).
    pub version: Option<(FileStr, bool)>,
    /// `st_size` (0 when the symbol has none).
    pub size: u64,
}

/// A routine as pprof's `GetProcedureBoundaries` records it.
#[derive(Debug)]
pub struct Routine {
    /// The start address.
    pub start: u64,
    /// The next symbol's address (equal to `start` for the last routine).
    pub end: u64,
    /// The symbol's `st_size` (the largest of the symbols at `start`; 0 when none has one).
    pub size: u64,
    line: NmLine,
    /// False when pprof replaced a same-address symbol by a code symbol (no tag then).
    tagged: bool,
    full: OnceLock<Arc<str>>,
    short: OnceLock<Arc<str>>,
}

/// The full name of `r` as pprof stores it (see [`NmTable::full`]), its name's bytes in
/// `data`.
fn full_name(r: &Routine, data: &[u8], width: usize, memo: Option<&demangle::Memo>) -> String {
    let raw = r.line.raw.of(data);
    let raw = match std::str::from_utf8(raw) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(raw),
    };
    // Room for the version and the address tag: the name is made in one allocation.
    let extra = r.line.version.map_or(0, |(v, _)| 2 + v.of(data).len())
        + if r.tagged { 2 + width.max(16) } else { 0 };
    let mut n = match memo {
        Some(m) => {
            let d = m.demangle(&raw);
            let mut n = String::with_capacity(d.len() + extra);
            n.push_str(&d);
            n
        }
        None => {
            let mut n = demangle::demangle(&raw);
            n.reserve(extra);
            n
        }
    };
    if let Some((v, hidden)) = r.line.version {
        n.push_str(if hidden { "@" } else { "@@" });
        n.push_str(&String::from_utf8_lossy(v.of(data)));
    }
    if r.tagged {
        n.push('<');
        crate::units::push_hex(&mut n, r.line.addr, width);
        n.push('>');
    }
    n
}

impl Routine {
    /// True when the file address `vma` lies inside this routine's symbol (see
    /// [`super::extent`]), not merely after it.
    pub fn holds(&self, vma: u64, unwind: &super::extent::Unwind<'_>) -> bool {
        let next = (self.end > self.start).then_some(self.end);
        super::extent::holds(self.start, self.size, next, unwind, vma)
    }
}

/// pprof's view of one file's symbol table.
#[derive(Debug)]
pub struct NmTable {
    /// Routines sorted by start address.
    pub routines: Vec<Routine>,
    /// The address of `_fini`, which pprof needs to ask addr2line for inline frames.
    pub fini: Option<u64>,
    /// Hex digits nm prints for an address (16 for 64-bit files, 8 for 32-bit).
    pub width: usize,
    /// The file's bytes, which hold the routines' names.
    data: Option<Arc<Mmap>>,
}

impl NmTable {
    /// Reads the table from `.symtab`, or `.dynsym` when `.symtab` lists nothing.
    pub fn new(elf: &Elf) -> NmTable {
        let width = if elf.is_64 { 16 } else { 8 };
        for syms in [elf.symtab(), elf.dynsym()] {
            let lines = nm_lines(elf, syms);
            let t = boundaries(lines, width, elf.data.clone());
            if !t.routines.is_empty() {
                return t;
            }
        }
        NmTable {
            routines: Vec::new(),
            fini: None,
            width,
            data: None,
        }
    }

    fn data(&self) -> &[u8] {
        self.data.as_deref().map_or(&[], |m| &m[..])
    }

    /// The full name of `r`, one of the table's routines, as pprof stores it: nm's printed
    /// name with its `<address>` tag (or without one when pprof replaced a same-address
    /// symbol by a code symbol). Demangled on first use: most routines are never looked up.
    pub fn full<'r>(&self, r: &'r Routine) -> &'r Arc<str> {
        self.full_with(r, None)
    }

    /// [`NmTable::full`], demangling through `memo` when given.
    pub fn full_with<'r>(&self, r: &'r Routine, memo: Option<&demangle::Memo>) -> &'r Arc<str> {
        r.full
            .get_or_init(|| full_name(r, self.data(), self.width, memo).into())
    }

    /// pprof's short name of [`NmTable::full`] (computed once; `keep_templates` must be the
    /// same on every call).
    pub fn short<'r>(&self, r: &'r Routine, keep_templates: bool) -> &'r Arc<str> {
        r.short
            .get_or_init(|| super::names::short_name(self.full(r), keep_templates).into())
    }

    /// True when nm found no symbols at all.
    pub fn is_empty(&self) -> bool {
        self.routines.is_empty()
    }

    /// The routine pprof assigns to the file address `addr`: the first routine (by start)
    /// whose end is above `addr`, never the last one (it has no known size). Addresses below
    /// the first symbol get the first routine, as in pprof.
    pub fn lookup(&self, addr: u64) -> Option<&Routine> {
        let n = self.routines.len();
        if n == 0 {
            return None;
        }
        let i = self.routines.partition_point(|r| r.end <= addr);
        if i < n - 1 || (i == n - 1 && addr < self.routines[i].end) {
            Some(&self.routines[i])
        } else {
            None
        }
    }
}

/// The symbol type letter nm prints (binutils' `bfd_decode_symclass`).
pub fn type_letter(elf: &Elf, s: &ElfSym) -> char {
    type_letter_in(elf, s, &mut Vec::new())
}

/// [`type_letter`], with the letters of sections already seen in `sections` (by index).
fn type_letter_in(elf: &Elf, s: &ElfSym, sections: &mut Vec<Option<char>>) -> char {
    let weak = s.st_bind == stb::WEAK;
    let object = s.st_type == stt::OBJECT || s.st_type == stt::COMMON;
    match s.section {
        SymSection::Common => return 'C',
        SymSection::Undefined => {
            return if weak {
                if object { 'v' } else { 'w' }
            } else {
                'U'
            };
        }
        _ => {}
    }
    if s.st_type == stt::GNU_IFUNC {
        return 'i';
    }
    if weak {
        return if object { 'V' } else { 'W' };
    }
    if s.st_bind == stb::GNU_UNIQUE {
        return 'u';
    }
    let global = s.st_bind == stb::GLOBAL;
    if !global && s.st_bind != stb::LOCAL {
        return '?';
    }
    let c = match s.section {
        SymSection::Index(i) => match elf.sections.get(i) {
            Some(sec) if i != 0 => {
                if sections.len() <= i {
                    sections.resize(elf.sections.len(), None);
                }
                *sections[i].get_or_insert_with(|| section_letter(sec))
            }
            _ => 'a',
        },
        _ => 'a',
    };
    if global { c.to_ascii_uppercase() } else { c }
}

fn section_letter(sec: &super::elf::Section) -> char {
    const BY_NAME: [(&[u8], char); 19] = [
        (b".bss", 'b'),
        (b".code", 't'),
        (b".data", 'd'),
        (b"*DEBUG*", 'N'),
        (b".debug", 'N'),
        (b".drectve", 'i'),
        (b".edata", 'e'),
        (b".fini", 't'),
        (b".idata", 'i'),
        (b".init", 't'),
        (b".pdata", 'p'),
        (b".rdata", 'r'),
        (b".rodata", 'r'),
        (b".sbss", 's'),
        (b".scommon", 'c'),
        (b".sdata", 'g'),
        (b".text", 't'),
        (b"vars", 'd'),
        (b"zerovars", 'b'),
    ];
    for (prefix, c) in BY_NAME {
        // A name matches when the table entry is followed by nothing, '.', '$' or a digit.
        if let Some(rest) = sec.name.strip_prefix(prefix)
            && rest.first().is_none_or(|b| b".$0123456789".contains(b))
        {
            return c;
        }
    }
    if sec.code() {
        return 't';
    }
    let has_contents = !sec.nobits() && sec.sh_type != 0;
    let data = sec.alloc() && has_contents && !sec.code();
    if data {
        return if !sec.writable() { 'r' } else { 'd' };
    }
    if !has_contents {
        return 'b';
    }
    if sec.name.starts_with(b".debug") || sec.name.starts_with(b".zdebug") {
        return 'N';
    }
    if !sec.writable() {
        return 'n';
    }
    '?'
}

/// The defined symbols nm prints, sorted as `nm -n` sorts them (address, then raw name).
pub fn nm_lines(elf: &Elf, syms: &[ElfSym]) -> Vec<NmLine> {
    let mut kept: Vec<(u64, usize)> = syms
        .iter()
        .enumerate()
        .filter(|(_, s)| s.st_type != stt::SECTION && s.st_type != stt::FILE)
        .filter(|(_, s)| s.section != SymSection::Undefined)
        .map(|(i, s)| (s.value, i))
        .collect();
    // By address, then name, equal ones in table order (a stable sort by address and name):
    // names are compared only among symbols at one address.
    kept.sort_unstable();
    let mut i = 0;
    while i < kept.len() {
        let j = i + kept[i..].partition_point(|e| e.0 == kept[i].0);
        if j - i > 1 {
            kept[i..j].sort_by(|a, b| elf.sym_name(&syms[a.1]).cmp(elf.sym_name(&syms[b.1])));
        }
        i = j;
    }
    let mut letters = Vec::new();
    kept.iter()
        .filter_map(|e| {
            let s = &syms[e.1];
            let c = type_letter_in(elf, s, &mut letters);
            if c == 'U' || c == 'w' || c == 'v' {
                return None;
            }
            if s.name.is_empty() && s.version.is_none() {
                return None;
            }
            Some(NmLine {
                addr: s.value,
                kind: c,
                raw: s.name,
                version: s.version,
                size: s.size,
            })
        })
        .collect()
}

/// pprof's `GetProcedureBoundariesViaNm`: one routine per distinct address (a code symbol
/// replaces the first one seen at its address), each ending where the next address starts.
/// `data`: the file's bytes, which hold the symbols' names.
pub fn boundaries(mut lines: Vec<NmLine>, width: usize, data: Arc<Mmap>) -> NmTable {
    let mut routines: Vec<Routine> = Vec::with_capacity(lines.len());
    let mut fini = None;
    let mut last_start: Option<u64> = None;
    // The symbol queued for the current address (its index), and whether it keeps its tag.
    let mut pending: Option<(usize, bool)> = None;
    // The largest size among the symbols at the current address.
    let mut size = 0u64;
    let routine = |lines: &mut [NmLine], i: usize, tagged: bool, start, end, size| Routine {
        start,
        end,
        size,
        line: std::mem::take(&mut lines[i]),
        tagged,
        full: OnceLock::new(),
        short: OnceLock::new(),
    };
    for i in 0..lines.len() {
        let l = &lines[i];
        if Some(l.addr) == last_start {
            if l.kind == 't' || l.kind == 'T' {
                pending = Some((i, false));
            }
            size = size.max(l.size);
            continue;
        }
        let addr = l.addr;
        if l.raw.of(&data) == b"_fini" && l.version.is_none() {
            fini = Some(addr);
        }
        if let (Some((p, tagged)), Some(start)) = (pending.take(), last_start) {
            routines.push(routine(&mut lines, p, tagged, start, addr, size));
        }
        last_start = Some(addr);
        pending = Some((i, true));
        size = lines[i].size;
    }
    if let (Some((p, tagged)), Some(start)) = (pending, last_start) {
        routines.push(routine(&mut lines, p, tagged, start, start, size));
    }
    // pprof keeps routines in a hash keyed by name: a later routine of the same (untagged)
    // name replaces an earlier one.
    let mut t = NmTable {
        routines,
        fini,
        width,
        data: Some(data),
    };
    dedup_names(&mut t);
    t
}

fn dedup_names(t: &mut NmTable) {
    let routines = &t.routines;
    // Tagged names carry their unique address: only untagged ones can collide, with each
    // other or with the tagged name their text ends like (`f<0000000000001170>`).
    let untagged: Vec<usize> = (0..routines.len())
        .filter(|&i| !routines[i].tagged)
        .collect();
    if untagged.len() < 2 {
        return;
    }
    let mut by_name: std::collections::HashMap<Arc<str>, Vec<usize>> =
        std::collections::HashMap::new();
    for &i in &untagged {
        let name = t.full(&routines[i]).clone();
        if let Some(addr) = tag_address(&name, t.width)
            && let Ok(j) = routines.binary_search_by_key(&addr, |r| r.start)
            && routines[j].tagged
            && t.full(&routines[j]) == &name
        {
            by_name.entry(name.clone()).or_default().push(j);
        }
        by_name.entry(name).or_default().push(i);
    }
    // pprof keeps the last routine of each name.
    let mut drop = vec![false; routines.len()];
    let mut any = false;
    for mut group in by_name.into_values() {
        group.sort_unstable();
        group.dedup();
        if let Some((_, earlier)) = group.split_last() {
            for &i in earlier {
                drop[i] = true;
                any = true;
            }
        }
    }
    if !any {
        return;
    }
    let mut i = 0;
    t.routines.retain(|_| {
        let k = !drop[i];
        i += 1;
        k
    });
}

/// The address of a `name<0000000000001170>` tag of `width` hex digits ending `name`.
fn tag_address(name: &str, width: usize) -> Option<u64> {
    let body = name.strip_suffix('>')?;
    let hex = body.get(body.len().checked_sub(width)?..)?;
    if !body[..body.len() - width].ends_with('<') || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

// unwrap and expect here only in tests, on fixtures the tests make themselves (an anonymous
// map, tables of their own lines; no input reaches them): a failure is the test failing.
#[cfg(test)]
mod tests {
    use super::*;

    /// The table of nm lines `(address, type letter, name)`, their names in a buffer of
    /// their own as they are in a file.
    fn table(lines: &[(u64, char, &str)]) -> NmTable {
        let text: Vec<u8> = lines.iter().flat_map(|l| l.2.bytes()).collect();
        let mut map = memmap2::MmapMut::map_anon(text.len().max(1)).expect("an anonymous map");
        map[..text.len()].copy_from_slice(&text);
        let data = Arc::new(map.make_read_only().expect("a read-only map"));
        let mut at = 0;
        let lines = lines
            .iter()
            .map(|&(addr, kind, name)| {
                let raw = FileStr::within(&data, &data[at..at + name.len()]);
                at += name.len();
                NmLine {
                    addr,
                    kind,
                    raw,
                    version: None,
                    size: 0,
                }
            })
            .collect();
        boundaries(lines, 16, data)
    }

    #[test]
    fn boundaries_and_lookup() {
        let t = table(&[
            (0x1000, 'W', "weak_alias"),
            (0x1000, 'T', "real"),
            (0x1010, 't', "helper"),
            (0x1040, 'T', "_fini"),
        ]);
        let names: Vec<&str> = t.routines.iter().map(|r| &**t.full(r)).collect();
        assert_eq!(
            names,
            [
                "real",
                "helper<0000000000001010>",
                "_fini<0000000000001040>"
            ]
        );
        assert_eq!(t.fini, Some(0x1040));
        assert_eq!(&**t.full(t.lookup(0x1005).unwrap()), "real");
        assert_eq!(
            &**t.full(t.lookup(0x1010).unwrap()),
            "helper<0000000000001010>"
        );
        // Below the first symbol: the first routine, as pprof does.
        assert_eq!(&**t.full(t.lookup(0x10).unwrap()), "real");
        // At or past the last symbol: nothing (its size is unknown).
        assert!(t.lookup(0x1040).is_none());
        assert!(t.lookup(0x9999).is_none());
    }

    /// Routines that lost their tag (a code symbol replaced another at their address) and
    /// share a name: pprof's hash keeps the last one; tagged names never collide, except with
    /// an untagged name that ends like their tag.
    #[test]
    fn untagged_names_keep_the_last_routine() {
        let t = table(&[
            (0x1000, 'W', "alias"),
            (0x1000, 'T', "same"),
            (0x1010, 't', "other"),
            (0x1020, 'W', "alias2"),
            (0x1020, 'T', "same"),
            (0x1030, 'W', "alias3"),
            (0x1030, 'T', "other<0000000000001010>"),
            (0x1040, 't', "last"),
        ]);
        let names: Vec<(u64, &str)> = t.routines.iter().map(|r| (r.start, &**t.full(r))).collect();
        assert_eq!(
            names,
            [
                (0x1020, "same"),
                (0x1030, "other<0000000000001010>"),
                (0x1040, "last<0000000000001040>")
            ]
        );
    }
}
