//! `--symbols`: names for addresses read from standard input (pprof's `PrintSymbols`, which
//! gperftools' heap checker calls). Input lines holding a hex address (`0x...`, the first one
//! on the line) are looked up; the other lines are the memory map. One short name per address
//! is printed, in input order, `??` when there is none.

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use crate::profile::{self, Format, Kind, Profile};
use crate::symbolize::{Options, Symbolize, local::Local};

fn address_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    // SANITY: a constant pattern, exercised by the tests.
    #[allow(clippy::unwrap_used)]
    RE.get_or_init(|| Regex::new(r"(?i)\b0x([0-9a-f]+)\b").unwrap())
}

/// The addresses (in input order; `None` for one too long for 64 bits) and the memory-map
/// text of `input`.
pub fn read_input(input: &mut dyn BufRead) -> io::Result<(Vec<Option<u64>>, Vec<u8>)> {
    let mut addrs = Vec::new();
    let mut map = Vec::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.replace('\r', "");
        match address_re().captures(&line) {
            Some(c) => addrs.push(u64::from_str_radix(&c[1], 16).ok()),
            None => map.extend_from_slice(line.as_bytes()),
        }
    }
    Ok((addrs, map))
}

/// Prints the short name of every address of `input` in `program`, one per line.
pub fn write(
    out: &mut dyn Write,
    program: &Path,
    input: &mut dyn BufRead,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> io::Result<()> {
    let (addrs, map) = read_input(input)?;
    let mut p = Profile::new(Kind::Heap, Format::HeapText, String::new());
    profile::maps::read_text(&map, Path::new("<standard input>"), &mut p);
    let mut unique: Vec<u64> = addrs.iter().flatten().copied().collect();
    unique.sort_unstable();
    unique.dedup();
    let table = Local::new(program, &p.mappings, opts).symbolize(&unique, warnings);
    for a in addrs {
        let name = a
            .and_then(|a| table.get(a))
            .and_then(|f| f.first())
            .map_or("??", |f| &*f.short);
        writeln!(out, "{name}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_map_lines() {
        let text = b"00400000-00401000 r-xp 00000000 08:01 1 /bin/x\r\n0x4005d0\nat 0X400600 here\n0xzz\n0x11112222333344445555\n";
        let (addrs, map) = read_input(&mut &text[..]).unwrap();
        assert_eq!(addrs, vec![Some(0x4005d0), Some(0x400600), None]);
        assert_eq!(
            String::from_utf8(map).unwrap(),
            "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n0xzz\n"
        );
    }
}
