#![no_main]
//! The demanglers (Itanium C++, Rust legacy and v0) and pprof's short names on arbitrary
//! names.

use libfuzzer_sys::fuzz_target;
use rpprof::symbolize::{demangle, names};

fuzz_target!(|data: &[u8]| {
    let s = demangle::nm_name(data);
    let _ = names::short_name(&s, false);
    let _ = names::short_name(&s, true);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = demangle::demangle(text);
        let _ = demangle::demangle_core(text);
        let _ = names::short_name(text, false);
    }
});
