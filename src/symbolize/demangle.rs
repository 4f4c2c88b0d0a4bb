//! Demangling in the symbolizer.
//!
//! The demangler itself, binutils' `nm --demangle` and `addr2line -C` reproduced for Itanium
//! C++ and Rust names, is the `rpprof-demangle` crate (`crates/demangle`); its entry points
//! are re-exported here. This module adds what the symbolizer needs on top: a memo of the
//! answers shared by the threads that name one file's addresses.

pub use rpprof_demangle::{demangle, demangle_bytes, demangle_core, nm_name};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memo_answers_as_demangle_and_shares_the_answer() {
        let memo = Memo::default();
        for name in ["_Z3fooi", "main", "_ZN8rustheap4main17h0123456789abcdefE"] {
            let first = memo.demangle(name);
            assert_eq!(&*first, demangle(name));
            assert!(std::sync::Arc::ptr_eq(&first, &memo.demangle(name)));
        }
        assert_eq!(&*memo.demangle("_Z3fooi"), "foo(int)");
    }
}
