//! Itanium C++ and Rust symbol demangling with the output of binutils 2.40: what
//! `nm --demangle`, `addr2line -C` and `c++filt` print.
//!
//! A name is demangled as Rust (legacy `_ZN...17h<hash>E` or v0 `_R...`) when it is one,
//! otherwise as C++ (Itanium ABI), with the output of GNU libiberty (20230104, as binutils
//! 2.40 uses it, `DMGL_PARAMS | DMGL_ANSI`); a leading run of `.`/`$` and an `@version`
//! suffix are set aside first and put back after, as binutils' `bfd_demangle` does. Names
//! that do not demangle are kept as they are.
//!
//! ```
//! use rpprof_demangle::{demangle, demangle_core, nm_name};
//!
//! assert_eq!(demangle("_ZNKSt6vectorIiSaIiEE4sizeEv"), "std::vector<int, std::allocator<int> >::size() const");
//! assert_eq!(demangle("_ZN8rustheap4main17h0123456789abcdefE"), "rustheap::main");
//! assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
//! // A version suffix and leading dots are kept, as nm prints them.
//! assert_eq!(demangle("_Z3fooi@@LIB_1.0"), "foo(int)@@LIB_1.0");
//! // What is not a mangled name comes back as it is; `demangle_core` says `None`.
//! assert_eq!(demangle("main"), "main");
//! assert_eq!(demangle_core("main"), None);
//! // Names straight from a symbol table, UTF-8 or not.
//! assert_eq!(nm_name(b"_Z1fv"), "f()");
//! ```
//!
//! This is an independent implementation written from the behaviour libiberty documents and
//! shows (no code of libiberty is used). It never panics on any input, and bounds its
//! recursion, work and output as libiberty bounds its recursion: names longer than 1024 bytes
//! or nested deeper than libiberty prints are not demangled, so the caller keeps the mangled
//! name, as binutils does.
#![deny(missing_docs)]
// Every input is untrusted (names come from the symbol tables and DWARF of arbitrary files):
// nothing here may panic on it.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg_attr(test, allow(clippy::unwrap_used))]
#![forbid(unsafe_code)]

mod itanium;
mod rust_mangling;

/// Demangles a symbol name the way `nm --demangle` prints it (without the version suffix nm
/// appends for dynamic symbols).  The bytes are demangled as they are (a name that is not
/// UTF-8 keeps its identifiers' lengths right); only the result is made UTF-8.
pub fn nm_name(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => demangle(s),
        Err(_) => String::from_utf8_lossy(&demangle_bytes(raw)).into_owned(),
    }
}

/// Demangles `name` as binutils' `bfd_demangle(name, DMGL_PARAMS | DMGL_ANSI)`.
pub fn demangle(name: &str) -> String {
    let body = name.trim_start_matches(['.', '$']);
    let prefix = &name[..name.len() - body.len()];
    let (core, suffix) = match body.find('@') {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    match demangle_core(core) {
        Some(d) if prefix.is_empty() && suffix.is_empty() => d,
        Some(d) => format!("{prefix}{d}{suffix}"),
        None => name.to_string(),
    }
}

/// [`demangle`] on bytes, for names that need not be UTF-8 (identifiers' lengths count
/// bytes): the leading `.`/`$` and the `@version` suffix come back as they were around the
/// demangled name, and a name that does not demangle comes back unchanged.
///
/// ```
/// assert_eq!(rpprof_demangle::demangle_bytes(b"._Z1fv@\xff"), b".f()@\xff");
/// ```
pub fn demangle_bytes(name: &[u8]) -> Vec<u8> {
    let start = name
        .iter()
        .position(|&c| c != b'.' && c != b'$')
        .unwrap_or(name.len());
    let (prefix, body) = name.split_at(start);
    let (core, suffix) = match body.iter().position(|&c| c == b'@') {
        Some(i) => body.split_at(i),
        None => (body, &b""[..]),
    };
    let demangled = rust_mangling::demangle(core).or_else(|| itanium::demangle(core));
    match demangled {
        Some(d) => [prefix, d.as_bytes(), suffix].concat(),
        None => name.to_vec(),
    }
}

/// Demangles one mangled name, or `None` when it is not one: as Rust first, then as C++, as
/// libiberty's `cplus_demangle` does in its automatic mode.
pub fn demangle_core(name: &str) -> Option<String> {
    rust_mangling::demangle(name.as_bytes()).or_else(|| itanium::demangle(name.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_and_versions() {
        assert_eq!(demangle("_Z3fooi"), "foo(int)");
        assert_eq!(
            demangle("_ZSt19__throw_ios_failurePKci@@GLIBCXX_3.4.26"),
            "std::__throw_ios_failure(char const*, int)@@GLIBCXX_3.4.26"
        );
        assert_eq!(demangle("main"), "main");
        assert_eq!(demangle("_Znot valid"), "_Znot valid");
    }

    #[test]
    fn rust_names() {
        assert_eq!(
            demangle("_ZN8rustheap4main17h0123456789abcdefE"),
            "rustheap::main"
        );
        // A C++ nested name that ends in E but has no hash stays C++.
        assert_eq!(demangle("_ZN3foo3barE"), "foo::bar");
    }

    #[test]
    fn non_utf8_names() {
        // An identifier of 3 bytes that are not UTF-8: its length still counts in bytes.
        assert_eq!(
            nm_name(b"_Z3\xff\xfe\xfdi"),
            "\u{fffd}\u{fffd}\u{fffd}(int)"
        );
        assert_eq!(nm_name(b"._Z1fv@\xff"), ".f()@\u{fffd}");
        assert_eq!(nm_name(b"\xff_Z1fv"), "\u{fffd}_Z1fv");
    }
}
