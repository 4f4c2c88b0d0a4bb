//! Thread profiles (`--- threadz N ---`): the stack of every thread, one sample per thread.
//!
//! ```text
//! --- threadz 1 ---
//!
//! --- Thread 7f794ab90940 (name: main/14748) stack: ---
//!   PC:  0x00bc8f1c: helper(arg *)
//!   0x0040be31: main
//! --- Thread 7f794964e700 (name: thread1/14751) stack: ---
//!   PC: 0xbc8f1c 0xbcae55 ...
//!       creator: 0xa45b96 0xa460b4 ...
//! --- Memory map: ---
//! ```
//!
//! Every `0x` number in a thread's lines is a frame (the creator's stack follows the thread's
//! own); `same as previous thread` adds one to the previous sample instead.

use std::path::Path;

use super::lines::{self, Line, Lines};
use super::{Format, Header, Kind, Profile, Sample, THREAD_TYPES, maps, parse_hex};
use crate::error::{Error, Location, Result};

fn is_map_sentinel(t: &[u8]) -> bool {
    let t = t.trim_ascii();
    t.starts_with(b"--- Memory map:") || t.starts_with(b"MAPPED_LIBRARIES:")
}

/// Reads a threadz profile whose header line is `header`.
pub fn parse(lines: &mut Lines<'_>, header: &Header<'_>, path: &Path) -> Result<Profile> {
    let mut p = Profile::new(
        Kind::Thread,
        Format::Threadz,
        String::from_utf8_lossy(header.text).into_owned(),
    );
    p.sample_types = THREAD_TYPES.to_vec();
    p.period = 1;
    let mut current: Option<Line<'_>> = if header.text.starts_with(b"--- Thread ") {
        Some(Line {
            text: header.text,
            number: header.line,
            offset: 0,
            terminated: true,
        })
    } else {
        lines.find(|l| is_map_sentinel(l.text) || l.text.starts_with(b"-"))
    };
    while let Some(l) = current {
        if is_map_sentinel(l.text) {
            maps::read_section(lines, path, &mut p);
            return Ok(p);
        }
        if l.text.starts_with(b"---- no stack trace for") {
            break;
        }
        if !l.terminated {
            cut_thread(&mut p, path, &l);
            return Ok(p);
        }
        if !l.text.starts_with(b"--- Thread ") {
            return Err(Error::format(
                path,
                Location::Line(l.number),
                format!(
                    "expected a \"--- Thread\" line, found {:?}",
                    lines::shorten(l.text, 60)
                ),
            ));
        }
        let mut addrs = Vec::new();
        let mut same_as_previous = false;
        // The line where the file ends without a line end, inside this thread.
        let mut cut = None;
        current = None;
        while let Some(next) = lines.next_line() {
            let t = next.text.trim_ascii();
            if t.is_empty() {
                continue;
            }
            if t.starts_with(b"---") || is_map_sentinel(t) {
                current = Some(next);
                break;
            }
            if !next.terminated {
                cut = Some(next);
                break;
            }
            if t.windows(24).any(|w| w == b"same as previous thread") {
                same_as_previous = true;
                continue;
            }
            for a in hex_numbers(t) {
                let v = parse_hex(a).ok_or_else(|| {
                    Error::format(path, Location::Line(next.number), "address out of range")
                })?;
                addrs.push(v);
            }
        }
        if let Some(c) = cut {
            cut_thread(&mut p, path, &c);
            return Ok(p);
        }
        if same_as_previous || addrs.is_empty() {
            if let Some(last) = p.samples.last_mut() {
                last.values[0] += 1.0;
            }
            continue;
        }
        let stack = addrs
            .iter()
            .enumerate()
            .map(|(i, &a)| if i > 0 { a.wrapping_sub(1) } else { a })
            .collect();
        p.samples.push(Sample {
            stack,
            values: vec![1.0],
        });
    }
    // Anything after the threads (e.g. "no stack trace" notes) up to a memory map is skipped.
    while let Some(l) = lines.next_line() {
        if is_map_sentinel(l.text) {
            maps::read_section(lines, path, &mut p);
            break;
        }
    }
    Ok(p)
}

/// The file ends in the middle of line `l`, in a thread (the process was killed or the disk
/// filled while it was written): that thread's last address may be cut short and its stack
/// is incomplete, so it is left out, with a warning giving where the cut is.
fn cut_thread(p: &mut Profile, path: &Path, l: &Line<'_>) {
    let threads: u64 = p.samples.iter().map(|s| s.values[0] as u64).sum();
    let kept =
        format!("the {threads} threads before the cut one are read, the cut one is left out");
    p.notes.push(super::heap::cut_note(path, l, &kept));
    p.cut_at = Some((l.offset + l.text.len()) as u64);
}

/// Every `0x[0-9a-f]+` in a line.
fn hex_numbers(t: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i + 2 < t.len() {
            if t[i] == b'0' && t[i + 1] == b'x' && is_lower_hex(t[i + 2]) {
                let start = i;
                i += 2;
                while i < t.len() && is_lower_hex(t[i]) {
                    i += 1;
                }
                return Some(&t[start..i]);
            }
            i += 1;
        }
        None
    })
}

fn is_lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}
