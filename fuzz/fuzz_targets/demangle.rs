#![no_main]
//! The demanglers (the rpprof-demangle crate: Itanium C++, Rust legacy and v0) and pprof's
//! short names (rpprof's symbolizer) on arbitrary names.

use libfuzzer_sys::fuzz_target;
use rpprof::symbolize::names;

fuzz_target!(|data: &[u8]| {
    let s = rpprof_demangle::nm_name(data);
    let _ = names::short_name(&s, false);
    let _ = names::short_name(&s, true);
    let _ = rpprof_demangle::demangle_bytes(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rpprof_demangle::demangle(text);
        let _ = rpprof_demangle::demangle_core(text);
        let _ = names::short_name(text, false);
    }
});
