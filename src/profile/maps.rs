//! The memory map written after a profile: `/proc/self/maps` lines
//! (`start-end perms offset dev inode path`) or the short `start-end: path` form that
//! gperftools' `DumpAddressMap` writes, with `name=value` lines (gperftools' `build=<dir>`)
//! defining variables that `$name` in later paths stands for.
//!
//! Every line that parses is kept; which of them name the program and its libraries is decided
//! by the symbolizer, which knows the program.

use std::fmt;
use std::path::Path;

use super::Profile;
use super::lines::{self, Line, Lines};

/// One line of a memory map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// First mapped address.
    pub start: u64,
    /// One past the last mapped address.
    pub limit: u64,
    /// File offset of `start`.
    pub offset: u64,
    /// Permissions (`r-xp`), absent in the short form.
    pub perms: Option<String>,
    /// The mapped file, `[vdso]`-like pseudo names, or empty for anonymous memory.
    pub path: String,
    /// The line it came from in the profile (1-based, 0 when made up).
    pub line: usize,
    /// The line as written (without its line end).
    pub raw: String,
}

impl Mapping {
    /// True when the mapping is executable (or when the short form does not say).
    pub fn executable(&self) -> bool {
        self.perms
            .as_deref()
            .is_none_or(|p| p.as_bytes().get(2) == Some(&b'x'))
    }

    /// True for the short `start-end: path` form.
    pub fn is_short_form(&self) -> bool {
        self.perms.is_none()
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:x}-{:x} {} {:x} {}",
            self.start,
            self.limit,
            self.perms.as_deref().unwrap_or("-"),
            self.offset,
            self.path
        )
    }
}

/// Parses one memory-map line; `None` when it is not one.
pub fn parse_line(text: &[u8], line: usize) -> Option<Mapping> {
    let t = text.trim_ascii_start();
    let dash = t.iter().position(|&b| b == b'-')?;
    let start = hex(&t[..dash])?;
    let rest = &t[dash + 1..];
    let end_len = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let limit = hex(&rest[..end_len])?;
    let rest = &rest[end_len..];
    if let Some(after) = rest.strip_prefix(b":") {
        // Short form: "start-end: path".
        let path = after.trim_ascii();
        return Some(Mapping {
            start,
            limit,
            offset: 0,
            perms: None,
            path: String::from_utf8_lossy(path).into_owned(),
            line,
            raw: String::from_utf8_lossy(text).into_owned(),
        });
    }
    let mut f = Fields { rest };
    let perms = f.next()?;
    if perms.len() != 4 {
        return None;
    }
    let offset = hex(f.next()?)?;
    let dev = f.next()?;
    if !dev.contains(&b':') {
        return None;
    }
    let inode = f.next()?;
    lines::parse_u64(inode)?;
    let path = f.rest.trim_ascii();
    Some(Mapping {
        start,
        limit,
        offset,
        perms: Some(String::from_utf8_lossy(perms).into_owned()),
        path: String::from_utf8_lossy(path).into_owned(),
        line,
        raw: String::from_utf8_lossy(text).into_owned(),
    })
}

struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn next(&mut self) -> Option<&'a [u8]> {
        let t = self.rest.trim_ascii_start();
        if t.len() == self.rest.len() && !self.rest.is_empty() {
            // Fields must be separated by whitespace.
            return None;
        }
        let n = t.iter().take_while(|b| !b.is_ascii_whitespace()).count();
        if n == 0 {
            return None;
        }
        self.rest = &t[n..];
        Some(&t[..n])
    }
}

fn hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 || !s.iter().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(std::str::from_utf8(s).ok()?, 16).ok()
}

/// Reads the rest of a text profile as its memory map into `p.mappings`.
pub fn read_section(lines: &mut Lines<'_>, path: &Path, p: &mut Profile) {
    let mut vars = Vars::default();
    while let Some(l) = lines.next_line() {
        let _ = take_line(&l, path, &mut vars, p);
    }
}

/// Reads memory-map text (the tail of a CPU profile) into `p.mappings`.
pub fn read_text(data: &[u8], path: &Path, p: &mut Profile) {
    let mut vars = Vars::default();
    for l in Lines::new(data) {
        let _ = take_line(&l, path, &mut vars, p);
    }
}

/// Handles one line of a map section; contention profiles feed their map lines one by one.
/// Variables defined in a memory map (`build=/src/out`), expanded as `$build` in paths.
#[derive(Debug, Default)]
pub(crate) struct Vars(std::collections::HashMap<String, String>);

/// Handles one line of a map section; contention profiles feed their map lines one by one.
/// A `name=value` line defines a variable that `$name` in later paths stands for (pprof knows
/// `build`; Go pprof any name). False for a line that is none of these (ignored, as pprof
/// ignores it), or a map line cut short.
pub(crate) fn take_line(l: &Line<'_>, path: &Path, vars: &mut Vars, p: &mut Profile) -> bool {
    let text = l.text;
    let trimmed = text.trim_ascii();
    if trimmed.is_empty() {
        return true;
    }
    if let Some(eq) = trimmed.iter().position(|&c| c == b'=') {
        let name = &trimmed[..eq];
        if !name.is_empty() && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            let name = String::from_utf8_lossy(name).into_owned();
            let value = String::from_utf8_lossy(&trimmed[eq + 1..]).into_owned();
            vars.0.insert(name, value);
            return true;
        }
    }
    let mut m = match parse_line(text, l.number) {
        Some(m) => m,
        None => {
            if !l.terminated {
                p.notes.push(format!(
                    "Warning: {}:{}: ignoring truncated memory-map line {:?}",
                    path.display(),
                    l.number,
                    lines::shorten(text, 60)
                ));
            }
            return false;
        }
    };
    if !l.terminated {
        p.notes.push(format!(
            "Warning: {}:{}: the memory map ends without a line end; its last line may be truncated",
            path.display(),
            l.number
        ));
    }
    if !vars.0.is_empty() && m.path.contains('$') {
        // A path that would grow past PATH_MAX names no file: it is kept as written.
        if let (Some(path), Some(raw)) = (expand(&m.path, vars), expand(&m.raw, vars)) {
            m.path = path;
            m.raw = raw;
        }
    }
    p.mappings.push(m);
    true
}

/// The longest path Linux opens (`PATH_MAX`): expansions beyond it are not made.
const PATH_MAX: usize = 4096;

/// Replaces each `$name` (a whole word) that names a variable with its value, in one pass:
/// values are not expanded again, so variables that refer to each other cannot blow a line
/// up. `None` when the result would be more than [`PATH_MAX`] bytes longer than `text`.
fn expand(text: &str, vars: &Vars) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let n = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..n];
        match vars.0.get(name) {
            Some(value) if !name.is_empty() => out.push_str(value),
            _ => {
                out.push('$');
                out.push_str(name);
            }
        }
        if out.len() > text.len() + PATH_MAX {
            return None;
        }
        rest = &after[n..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_line() {
        let m = parse_line(
            b"7f0d2c000000-7f0d2c022000 r-xp 00001000 fe:00 326801       /usr/lib/libc.so.6",
            3,
        )
        .unwrap();
        assert_eq!(m.start, 0x7f0d2c000000);
        assert_eq!(m.limit, 0x7f0d2c022000);
        assert_eq!(m.offset, 0x1000);
        assert_eq!(m.perms.as_deref(), Some("r-xp"));
        assert_eq!(m.path, "/usr/lib/libc.so.6");
        assert!(m.executable());
    }

    #[test]
    fn anonymous_and_short_lines() {
        let m = parse_line(b"7fb97f300000-7fb980200000 rw-p 00000000 00:00 0 ", 1).unwrap();
        assert_eq!(m.path, "");
        assert!(!m.executable());
        let m = parse_line(b"  7fcdc2feb000-7fcdc3003000: /libpthread-2.15.so", 1).unwrap();
        assert!(m.is_short_form());
        assert_eq!(m.path, "/libpthread-2.15.so");
        assert_eq!(m.start, 0x7fcdc2feb000);
    }

    #[test]
    fn not_map_lines() {
        assert!(parse_line(b"MAPPED_LIBRARIES:", 1).is_none());
        assert!(parse_line(b"7f00-", 1).is_none());
        assert!(parse_line(b"7f00-7f10 r-xp 0000", 1).is_none());
        assert!(parse_line(b"zz-7f10 r-xp 0 00:00 0 /x", 1).is_none());
    }

    #[test]
    fn build_expansion() {
        let vars = Vars([("build".into(), "/b".into())].into());
        assert_eq!(expand("$build/lib/x.so", &vars).unwrap(), "/b/lib/x.so");
        assert_eq!(expand("$builder/x.so", &vars).unwrap(), "$builder/x.so");
        assert_eq!(expand("/x/$/y$", &vars).unwrap(), "/x/$/y$");
    }

    #[test]
    fn expansion_is_one_pass_and_bounded() {
        // Values are not expanded again: no chain of variables can multiply a line.
        let vars = Vars([("a".into(), "$b$b".into()), ("b".into(), "$a$a".into())].into());
        assert_eq!(expand("/$a/$b", &vars).unwrap(), "/$b$b/$a$a");
        let big = Vars([("v".into(), "x".repeat(1000))].into());
        assert!(expand(&"$v".repeat(10), &big).is_none());
    }
}
