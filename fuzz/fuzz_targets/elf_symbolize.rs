#![no_main]
//! The in-process symbolizer on an arbitrary "program": the bytes are written to a file (the
//! symbolizer opens programs by path), then a few addresses are looked up in it, directly and
//! through a mapping of the file.

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use rpprof::profile::Mapping;
use rpprof::symbolize::{Options, Symbolize, local::Local};

fn scratch() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| std::env::temp_dir().join(format!("rpprof-fuzz-elf-{}", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    if std::fs::write(path, data).is_err() {
        return;
    }
    let mut addrs = vec![0, 0x400, 0x1000, 0x1139, 0x2000, 0x401000, 0x401136];
    // Addresses taken from the input's tail, to reach wherever its symbols are.
    for c in data.rchunks_exact(8).take(4) {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        addrs.push(u64::from_le_bytes(b) & 0xff_ffff);
    }
    addrs.sort_unstable();
    addrs.dedup();
    let opts = Options {
        address_width: 16,
        ..Options::default()
    };
    let mut warnings = Vec::new();
    let _ = Local::new(path, &[], &opts).symbolize(&addrs, &mut warnings);
    // The same file as a mapped library, through its PT_LOAD headers.
    let raw = format!(
        "7f0000000000-7f0000100000 r-xp 00000000 fe:00 1 {}",
        path.display()
    );
    let map = Mapping {
        start: 0x7f00_0000_0000,
        limit: 0x7f00_0010_0000,
        offset: 0,
        perms: Some("r-xp".to_string()),
        path: path.display().to_string(),
        line: 1,
        raw,
    };
    let mapped: Vec<u64> = addrs.iter().map(|a| 0x7f00_0000_0000 + a).collect();
    let _ = Local::new(
        std::path::Path::new("/nonexistent-rpprof-fuzz/prog"),
        &[map],
        &opts,
    )
    .symbolize(&mapped, &mut warnings);
});
