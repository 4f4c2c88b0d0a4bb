//! The symbol section of a symbolized profile, as `pprof --raw` writes it:
//!
//! ```text
//! --- symbol
//! binary=/path/to/program
//! 0x00005569776a84ab corpus::util::Pool<double>::make(unsigned long)
//! 0x00005569776a846c outer(int)--inlined(int)
//! ---
//! --- profile
//! <binary CPU profile>
//! ```
//!
//! Each address line lists the full names at that address, the real function first and the
//! functions inlined into it after, separated by `--`.

use std::path::Path;

use super::lines::{self, Lines};
use super::{EmbeddedSymbols, parse_hex};
use crate::error::{Error, Location, Result};

/// Reads the lines after `--- symbol` up to the closing `---`.
pub fn read_symbols(
    lines: &mut Lines<'_>,
    path: &Path,
    notes: &mut Vec<String>,
) -> Result<EmbeddedSymbols> {
    let mut out = EmbeddedSymbols::default();
    let mut closed = false;
    while let Some(l) = lines.next_line() {
        let t = l.text;
        if t.starts_with(b"---") {
            closed = true;
            break;
        }
        if t.starts_with(b"0x") {
            let mut parts = t.splitn(2, |b| b.is_ascii_whitespace());
            let addr = parts.next().unwrap_or_default();
            let names = parts.next().unwrap_or_default().trim_ascii();
            let Some(a) = parse_hex(addr) else {
                return Err(Error::format(
                    path,
                    Location::Line(l.number),
                    format!(
                        "bad address {:?} in symbol section",
                        lines::shorten(addr, 40)
                    ),
                ));
            };
            if !names.is_empty() {
                out.names
                    .insert(a, String::from_utf8_lossy(names).into_owned());
            }
            continue;
        }
        if t.first().is_some_and(|b| b.is_ascii_lowercase())
            && let Some(eq) = t.iter().position(|&b| b == b'=')
        {
            let var = String::from_utf8_lossy(t[..eq].trim_ascii()).into_owned();
            let value = String::from_utf8_lossy(t[eq + 1..].trim_ascii()).into_owned();
            if var == "binary" {
                out.binary = Some(value);
            } else {
                notes.push(format!(
                    "Ignoring unknown variable in symbols list: '{var}' = '{value}'"
                ));
            }
            continue;
        }
        if t.trim_ascii().is_empty() {
            continue;
        }
        return Err(Error::format(
            path,
            Location::Line(l.number),
            format!("bad line in symbol section {:?}", lines::shorten(t, 60)),
        ));
    }
    if !closed {
        return Err(Error::format(
            path,
            Location::Line(lines.line_no()),
            "symbol section is not closed by a \"---\" line",
        ));
    }
    Ok(out)
}
