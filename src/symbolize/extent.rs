//! Whether an address lies inside a symbol: its extent.
//!
//! pprof (through `nm` and addr2line) names an address after the nearest symbol at or below
//! it, however far away. In a stripped library that keeps only its exported symbols, an
//! address in a static function then gets the name of some exported function hundreds of
//! kilobytes before it (jemalloc's `prof_backtrace` shows as `malloc_usable_size`). rpprof
//! names an address after a symbol only when the address lies inside the symbol's extent:
//!
//! 1. `[st_value, st_value + st_size)` when the symbol has a size;
//! 2. otherwise up to the next symbol, and not into a function of the unwind table
//!    (`.eh_frame`'s FDEs) that starts after the symbol: the FDE holding the address must
//!    begin at or before the symbol.
//!
//! (`--pprof_quirks` keeps pprof's nearest-symbol names.)

use std::collections::HashMap;
use std::sync::OnceLock;

use gimli::UnwindSection;

use super::elf::Elf;

/// The function ranges of a file's unwind table, read on first use.
pub struct Unwind<'a> {
    elf: &'a Elf,
    ranges: OnceLock<Vec<(u64, u64)>>,
}

impl<'a> Unwind<'a> {
    /// The unwind table of `elf` (not read yet).
    pub fn new(elf: &'a Elf) -> Unwind<'a> {
        Unwind {
            elf,
            ranges: OnceLock::new(),
        }
    }

    /// Whether `vma` lies in one of the file's executable sections.
    pub fn in_code(&self, vma: u64) -> bool {
        self.elf
            .section_containing(vma)
            .and_then(|i| self.elf.sections.get(i))
            .is_some_and(|s| s.code())
    }

    /// The function range `[start, end)` of the FDE holding `vma`, if any.
    pub fn function_at(&self, vma: u64) -> Option<(u64, u64)> {
        let ranges = self.ranges.get_or_init(|| fde_ranges(self.elf));
        let i = ranges.partition_point(|r| r.0 <= vma);
        // Ranges may nest or overlap in odd files: look back over a few.
        ranges[..i]
            .iter()
            .rev()
            .take(4)
            .find(|r| vma < r.1)
            .copied()
    }
}

/// True when `vma` lies inside the symbol at `start` of size `size` (0: unknown) whose next
/// symbol (in address order) starts at `next`.
pub fn holds(start: u64, size: u64, next: Option<u64>, unwind: &Unwind<'_>, vma: u64) -> bool {
    if vma < start {
        return false;
    }
    if size > 0 {
        return vma - start < size;
    }
    if next.is_some_and(|n| vma >= n) {
        return false;
    }
    match unwind.function_at(vma) {
        Some((fn_start, _)) => fn_start <= start,
        None => true,
    }
}

/// The `[start, end)` ranges of the FDEs of `elf`'s `.eh_frame`, sorted; empty when it has
/// none (a separate debug file) or it cannot be read.
fn fde_ranges(elf: &Elf) -> Vec<(u64, u64)> {
    let Some(sec) = elf
        .sections
        .iter()
        .find(|s| s.name == b".eh_frame" && !s.nobits())
    else {
        return Vec::new();
    };
    let bytes: &[u8] = &elf.data;
    let Some(data) = usize::try_from(sec.offset)
        .ok()
        .zip(usize::try_from(sec.size).ok())
        .and_then(|(o, n)| bytes.get(o..o.checked_add(n)?))
    else {
        return Vec::new();
    };
    let endian = if bytes.get(5) == Some(&2) {
        gimli::RunTimeEndian::Big
    } else {
        gimli::RunTimeEndian::Little
    };
    let mut eh = gimli::EhFrame::new(data, endian);
    eh.set_address_size(if elf.is_64 { 8 } else { 4 });
    let mut bases = gimli::BaseAddresses::default().set_eh_frame(sec.addr);
    if let Some(t) = elf.text_section() {
        bases = bases.set_text(t.addr);
    }
    let mut cies = HashMap::new();
    let mut out = Vec::new();
    let mut entries = eh.entries(&bases);
    // A damaged entry ends the walk: the ranges read so far stay.
    while let Ok(Some(entry)) = entries.next() {
        let gimli::CieOrFde::Fde(partial) = entry else {
            continue;
        };
        let fde = partial.parse(|section, bases, offset| {
            if let Some(c) = cies.get(&offset) {
                return Ok(Clone::clone(c));
            }
            let c = section.cie_from_offset(bases, offset)?;
            cies.insert(offset, c.clone());
            Ok(c)
        });
        if let Ok(fde) = fde
            && fde.len() > 0
        {
            let start = fde.initial_address();
            out.push((start, start.saturating_add(fde.len())));
        }
    }
    out.sort_unstable();
    out
}
