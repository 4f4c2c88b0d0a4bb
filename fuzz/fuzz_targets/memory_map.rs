#![no_main]
//! Memory maps: the bytes as the map section of a heap profile (line parsing, `name=value`
//! variables), then pprof's ParseLibraries over the mappings (the symbolizer's regexes and
//! library search) for a program that does not exist.

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use rpprof::symbolize::{Options, local::Local};

fuzz_target!(|data: &[u8]| {
    let text = [
        &b"heap profile:    1:     8 [     1:     8] @ heapprofile\n1: 8 [1: 8] @ 0x1000\nMAPPED_LIBRARIES:\n"[..],
        data,
    ]
    .concat();
    let Some(p) = rpprof_fuzz::read(&text) else {
        return;
    };
    for m in &p.mappings {
        let _ = m.to_string();
        let _ = rpprof::profile::maps::parse_line(m.raw.as_bytes(), m.line);
    }
    let opts = Options {
        lib_prefix: vec!["/nonexistent-rpprof-fuzz/".to_string()],
        address_width: 16,
        ..Options::default()
    };
    let addrs: Vec<u64> = p.mappings.iter().map(|m| m.start).take(64).collect();
    let mut warnings = Vec::new();
    let _ = Local::new(
        Path::new("/nonexistent-rpprof-fuzz/prog"),
        &p.mappings,
        &opts,
    )
    .libs(&addrs, &mut warnings);
});
