//! What the symbolizer needs from an ELF file, read once: sections, loadable segments, the
//! symbol tables (with symbol versions), the build id and the `.gnu_debuglink`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use object::elf;
use object::read::elf::{
    ElfFile, FileHeader, ProgramHeader, SectionHeader, Sym, SymbolTable, VersionTable,
};
use object::{Endianness, Object, ReadRef};

/// A section header, as far as symbolization cares.
#[derive(Debug, Clone)]
pub struct Section {
    /// Section name, e.g. `.text`.
    pub name: Vec<u8>,
    /// Virtual address.
    pub addr: u64,
    /// Size in memory.
    pub size: u64,
    /// Offset in the file.
    pub offset: u64,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_type`.
    pub sh_type: u32,
}

impl Section {
    /// `SHF_ALLOC`: occupies memory at run time.
    pub fn alloc(&self) -> bool {
        self.flags & elf::SHF_ALLOC.0 != 0
    }
    /// `SHF_EXECINSTR`: holds code.
    pub fn code(&self) -> bool {
        self.flags & elf::SHF_EXECINSTR.0 != 0
    }
    /// `SHF_WRITE`.
    pub fn writable(&self) -> bool {
        self.flags & elf::SHF_WRITE.0 != 0
    }
    /// `SHT_NOBITS` (e.g. `.bss`): no contents in the file.
    pub fn nobits(&self) -> bool {
        self.sh_type == elf::SHT_NOBITS.0
    }
}

/// A `PT_LOAD` program header.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Virtual address.
    pub vaddr: u64,
    /// Offset in the file.
    pub offset: u64,
    /// Bytes in the file.
    pub filesz: u64,
    /// Bytes in memory.
    pub memsz: u64,
    /// `p_flags` (`PF_X` = 1).
    pub flags: u32,
}

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymSection {
    /// `SHN_UNDEF`.
    Undefined,
    /// `SHN_ABS`.
    Absolute,
    /// `SHN_COMMON`.
    Common,
    /// An index into [`Elf::sections`].
    Index(usize),
    /// Another reserved index.
    Other,
}

/// A string stored in the file (a symbol or version name): where its bytes are in
/// [`Elf::data`]. The symbol tables point into the mapped file rather than copying tens of
/// thousands of names; [`Elf::sym_name`] reads one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileStr {
    at: usize,
    len: u32,
}

impl FileStr {
    /// Where `s`, a slice of `data`, lies in it; empty when it is not one (or too long).
    pub(super) fn within(data: &[u8], s: &[u8]) -> FileStr {
        let at = (s.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize);
        match u32::try_from(s.len()) {
            Ok(len) if at <= data.len() && s.len() <= data.len() - at => FileStr { at, len },
            _ => FileStr::default(),
        }
    }

    /// The bytes in `data` (empty when out of its bounds).
    pub fn of<'d>(&self, data: &'d [u8]) -> &'d [u8] {
        data.get(self.at..self.at + self.len as usize)
            .unwrap_or_default()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One symbol-table entry.
#[derive(Debug, Clone)]
pub struct ElfSym {
    /// The name as stored (symtab names of versioned symbols already carry `@VERSION`):
    /// [`Elf::sym_name`].
    pub name: FileStr,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// Where it is defined.
    pub section: SymSection,
    /// `STT_*`.
    pub st_type: u8,
    /// `STB_*`.
    pub st_bind: u8,
    /// `st_other` (visibility in the low bits).
    pub st_other: u8,
    /// For dynamic symbols: the version string nm appends, with `@@` (false) or `@` (true).
    pub version: Option<(FileStr, bool)>,
}

/// `STT_*` values used here.
pub mod stt {
    /// No type.
    pub const NOTYPE: u8 = 0;
    /// Data object.
    pub const OBJECT: u8 = 1;
    /// Function.
    pub const FUNC: u8 = 2;
    /// Section.
    pub const SECTION: u8 = 3;
    /// Source file.
    pub const FILE: u8 = 4;
    /// Common block.
    pub const COMMON: u8 = 5;
    /// Thread-local.
    pub const TLS: u8 = 6;
    /// GNU indirect function.
    pub const GNU_IFUNC: u8 = 10;
}

/// `STB_*` values used here.
pub mod stb {
    /// Local.
    pub const LOCAL: u8 = 0;
    /// Global.
    pub const GLOBAL: u8 = 1;
    /// Weak.
    pub const WEAK: u8 = 2;
    /// GNU unique.
    pub const GNU_UNIQUE: u8 = 10;
}

/// An ELF file read into memory (mapped), with its tables decoded.
pub struct Elf {
    /// The path it was opened from.
    pub path: PathBuf,
    /// The file's bytes.
    pub data: Arc<Mmap>,
    /// 64-bit class.
    pub is_64: bool,
    /// `e_machine`.
    pub machine: u16,
    /// Section headers, in file order (index 0 included).
    pub sections: Vec<Section>,
    /// `PT_LOAD` segments.
    pub segments: Vec<Segment>,
    /// Linked to run at the addresses its segments give (`ET_EXEC`: not
    /// position-independent), so it is mapped there.
    pub fixed: bool,
    /// `.symtab` and `.dynsym` entries, decoded on first use (see [`Elf::symtab`]).
    symbols: std::sync::OnceLock<(Vec<ElfSym>, Vec<ElfSym>)>,
    /// The GNU build id.
    pub build_id: Option<Vec<u8>>,
    /// `.gnu_debuglink`: file name and CRC.
    pub debuglink: Option<(PathBuf, u32)>,
    /// `.gnu_debugaltlink`: the name and build id of the supplementary file (written by
    /// `dwz -m`) that holds the DWARF entries and strings the file's DWARF shares with
    /// other files.
    pub debugaltlink: Option<(PathBuf, Vec<u8>)>,
}

/// Why an ELF file could not be read.
#[derive(Debug)]
pub enum OpenError {
    /// The file does not exist or cannot be read.
    Io(std::io::Error),
    /// The file is not an ELF file (or is damaged).
    NotElf(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                f.write_str("No such file")
            }
            OpenError::Io(e) => write!(f, "{e}"),
            OpenError::NotElf(m) => f.write_str(m),
        }
    }
}

impl Elf {
    /// Opens and decodes the ELF file at `path`.
    pub fn open(path: &Path) -> Result<Elf, OpenError> {
        // Checked before opening too: opening a FIFO for reading would wait for a writer.
        if !std::fs::metadata(path).map_err(OpenError::Io)?.is_file() {
            return Err(OpenError::NotElf("not a regular file".to_string()));
        }
        let file = File::open(path).map_err(OpenError::Io)?;
        let meta = file.metadata().map_err(OpenError::Io)?;
        if !meta.is_file() {
            return Err(OpenError::NotElf("not a regular file".to_string()));
        }
        // SAFETY: the mapping is read-only; a file changed underneath would give wrong
        // symbols, not memory unsafety in safe code reading bytes (all reads are bounds
        // checked by `object`).
        let map = unsafe { Mmap::map(&file) }.map_err(OpenError::Io)?;
        let data = Arc::new(map);
        Elf::from_data(path, data)
    }

    fn from_data(path: &Path, data: Arc<Mmap>) -> Result<Elf, OpenError> {
        let bytes: &[u8] = &data;
        if bytes.len() < 16 || &bytes[..4] != b"\x7fELF" {
            return Err(OpenError::NotElf("not an ELF file".to_string()));
        }
        let parsed = match bytes[4] {
            1 => {
                let f = ElfFile::<elf::FileHeader32<Endianness>>::parse(bytes)
                    .map_err(|e| OpenError::NotElf(format!("bad ELF file: {e}")))?;
                decode(&f, false)
            }
            2 => {
                let f = ElfFile::<elf::FileHeader64<Endianness>>::parse(bytes)
                    .map_err(|e| OpenError::NotElf(format!("bad ELF file: {e}")))?;
                decode(&f, true)
            }
            _ => return Err(OpenError::NotElf("unknown ELF class".to_string())),
        };
        Ok(Elf {
            path: path.to_path_buf(),
            data: data.clone(),
            is_64: parsed.is_64,
            machine: parsed.machine,
            sections: parsed.sections,
            segments: parsed.segments,
            fixed: parsed.fixed,
            symbols: std::sync::OnceLock::new(),
            build_id: parsed.build_id,
            debuglink: parsed.debuglink,
            debugaltlink: parsed.debugaltlink,
        })
    }

    /// `.symtab` entries (null symbol excluded), decoded on first use.
    pub fn symtab(&self) -> &[ElfSym] {
        &self.symbols().0
    }

    /// `.dynsym` entries (null symbol excluded), decoded on first use.
    pub fn dynsym(&self) -> &[ElfSym] {
        &self.symbols().1
    }

    /// The name of `sym`, one of this file's symbols.
    pub fn sym_name(&self, sym: &ElfSym) -> &[u8] {
        sym.name.of(&self.data)
    }

    fn symbols(&self) -> &(Vec<ElfSym>, Vec<ElfSym>) {
        self.symbols.get_or_init(|| {
            let bytes: &[u8] = &self.data;
            // The file parsed when it was opened: it parses again the same way.
            if self.is_64 {
                ElfFile::<elf::FileHeader64<Endianness>>::parse(bytes)
                    .map(|f| symbol_tables(&f))
                    .unwrap_or_default()
            } else {
                ElfFile::<elf::FileHeader32<Endianness>>::parse(bytes)
                    .map(|f| symbol_tables(&f))
                    .unwrap_or_default()
            }
        })
    }

    /// The first section named `.text` (objdump -h order): its size, address and file offset.
    pub fn text_section(&self) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == b".text")
    }

    /// The section (allocated, with a nonzero size) whose addresses contain `vma`, first in
    /// header order, as addr2line looks it up.
    pub fn section_containing(&self, vma: u64) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.alloc() && s.size > 0 && vma >= s.addr && vma - s.addr < s.size)
    }

    /// True when the file has DWARF line or unit information.
    pub fn has_dwarf(&self) -> bool {
        self.sections
            .iter()
            .any(|s| s.name == b".debug_info" || s.name == b".zdebug_info")
    }
}

struct Decoded {
    is_64: bool,
    machine: u16,
    sections: Vec<Section>,
    segments: Vec<Segment>,
    fixed: bool,
    build_id: Option<Vec<u8>>,
    debuglink: Option<(PathBuf, u32)>,
    debugaltlink: Option<(PathBuf, Vec<u8>)>,
}

fn decode<'data, H, R>(f: &ElfFile<'data, H, R>, is_64: bool) -> Decoded
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'data>,
{
    let endian = f.endian();
    let table = f.elf_section_table();
    let sections: Vec<Section> = table
        .iter()
        .map(|s| Section {
            name: table.section_name(endian, s).unwrap_or_default().to_vec(),
            addr: s.sh_addr(endian).into(),
            size: s.sh_size(endian).into(),
            offset: s.sh_offset(endian).into(),
            flags: s.sh_flags(endian).0,
            sh_type: s.sh_type(endian).0,
        })
        .collect();
    let segments = f
        .elf_program_headers()
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| Segment {
            vaddr: p.p_vaddr(endian).into(),
            offset: p.p_offset(endian).into(),
            filesz: p.p_filesz(endian).into(),
            memsz: p.p_memsz(endian).into(),
            flags: p.p_flags(endian).0,
        })
        .collect();
    let build_id = f.build_id().ok().flatten().map(<[u8]>::to_vec);
    let debuglink = f.gnu_debuglink().ok().flatten().map(|(name, crc)| {
        (
            PathBuf::from(String::from_utf8_lossy(name).into_owned()),
            crc,
        )
    });
    let debugaltlink = f.gnu_debugaltlink().ok().flatten().map(|(name, id)| {
        (
            PathBuf::from(String::from_utf8_lossy(name).into_owned()),
            id.to_vec(),
        )
    });
    Decoded {
        is_64,
        machine: f.elf_header().e_machine(endian).0,
        sections,
        segments,
        fixed: f.elf_header().e_type(endian) == elf::ET_EXEC,
        build_id,
        debuglink,
        debugaltlink,
    }
}

/// The `.symtab` and `.dynsym` entries of `f`.
fn symbol_tables<'data, H, R>(f: &ElfFile<'data, H, R>) -> (Vec<ElfSym>, Vec<ElfSym>)
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'data>,
{
    let endian = f.endian();
    let versions = f
        .elf_section_table()
        .versions(endian, f.data())
        .ok()
        .flatten();
    let data = f.data();
    (
        symbols(f.elf_symbol_table(), endian, None, data),
        symbols(
            f.elf_dynamic_symbol_table(),
            endian,
            versions.as_ref(),
            data,
        ),
    )
}

fn symbols<'data, H, R>(
    t: &SymbolTable<'data, H, R>,
    endian: Endianness,
    versions: Option<&VersionTable<'data, H>>,
    data: R,
) -> Vec<ElfSym>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'data>,
{
    // The file is read from memory (`R` is a byte slice): every name is a slice of it.
    let bytes: &[u8] = data
        .read_bytes_at(0, data.len().unwrap_or(0))
        .unwrap_or_default();
    let mut out = Vec::with_capacity(t.len());
    for (index, sym) in t.enumerate() {
        if index.0 == 0 {
            continue;
        }
        let name = t.symbol_name(endian, sym).unwrap_or_default();
        let shndx = sym.st_shndx(endian);
        let section = if shndx == elf::SHN_UNDEF {
            SymSection::Undefined
        } else if shndx == elf::SHN_ABS {
            SymSection::Absolute
        } else if shndx == elf::SHN_COMMON {
            SymSection::Common
        } else if shndx == elf::SHN_XINDEX {
            match t.shndx(endian, index) {
                Some(i) => SymSection::Index(i as usize),
                None => SymSection::Other,
            }
        } else if shndx.is_reserved() {
            SymSection::Other
        } else {
            SymSection::Index(usize::from(shndx.0))
        };
        let version = versions
            .and_then(|v| version_suffix(v, endian, index, name, section))
            .map(|(v, hidden)| (FileStr::within(bytes, v), hidden));
        out.push(ElfSym {
            name: FileStr::within(bytes, name),
            value: sym.st_value(endian).into(),
            size: sym.st_size(endian).into(),
            section,
            st_type: sym.st_type().0,
            st_bind: sym.st_bind().0,
            st_other: sym.st_other().0,
            version,
        });
    }
    out
}

/// The version nm prints after a dynamic symbol's name: `(version, hidden)`, where hidden
/// versions (and versions needed from other files) print with one `@`, default ones with `@@`.
fn version_suffix<'data, H: FileHeader<Endian = Endianness>>(
    v: &VersionTable<'data, H>,
    endian: Endianness,
    index: object::SymbolIndex,
    name: &[u8],
    section: SymSection,
) -> Option<(&'data [u8], bool)> {
    let vi = v.version_index(endian, index);
    if vi.is_local() || vi.is_global() {
        return None;
    }
    let version = v.version(vi.index()).ok().flatten()?;
    let vname = version.name();
    if vname.is_empty() {
        return None;
    }
    let needed = version.file().is_some();
    if !needed && vname == name {
        // The symbol that names a version definition itself.
        return None;
    }
    let hidden = vi.is_hidden() || needed || section == SymSection::Undefined;
    Some((vname, hidden))
}
