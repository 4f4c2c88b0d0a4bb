//! Demangling as binutils does it for `nm --demangle` and `addr2line -C`, and pprof's short
//! names.
//!
//! A name is demangled as Rust (legacy `_ZN...17h<hash>E` or v0 `_R...`, see
//! `rust_mangling.rs`) when it is one, otherwise as C++ (Itanium ABI, see `itanium.rs`), with
//! the output of GNU libiberty as binutils 2.40 uses it; a leading run of `.`/`$` and an
//! `@version` suffix are set aside first and put back after, as binutils' `bfd_demangle` does.
//! Names that do not demangle are kept as they are.

#[path = "itanium.rs"]
mod itanium;
#[path = "rust_mangling.rs"]
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

/// Demangled names by mangled name, shared by the threads that name one file's addresses
/// (addr2line's answers and nm's routines name mostly the same functions).
#[derive(Debug, Default)]
pub struct Memo(std::sync::Mutex<rustc_hash::FxHashMap<std::sync::Arc<str>, std::sync::Arc<str>>>);

impl Memo {
    /// [`demangle`]`(name)`, computed once per name.
    pub fn demangle(&self, name: &str) -> std::sync::Arc<str> {
        if let Ok(m) = self.0.lock()
            && let Some(d) = m.get(name)
        {
            return d.clone();
        }
        // Demangled outside the lock: the other thread may want a different name meanwhile.
        let d: std::sync::Arc<str> = demangle(name).into();
        if let Ok(mut m) = self.0.lock() {
            m.insert(name.into(), d.clone());
        }
        d
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
        Some(d) => format!("{prefix}{d}{suffix}"),
        None => name.to_string(),
    }
}

/// [`demangle`] on bytes.
fn demangle_bytes(name: &[u8]) -> Vec<u8> {
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
