//! Benchmark and test-data aid: prints, one per line in hex, the file addresses in PROGRAM that
//! a profile's addresses symbolize to (what `addr2line -e PROGRAM` would be asked). With
//! `--all`, prints `file<TAB>address` for every ELF file the addresses fall in.
//!
//! usage: cargo run --release --example file-addrs -- [--all] [--lib_prefix=DIR] PROGRAM PROFILE

use std::io::Write;
use std::path::Path;

use rpprof::symbolize::Options;
use rpprof::symbolize::local::Local;

fn main() {
    let mut all = false;
    let mut lib_prefix = Vec::new();
    let mut args = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--all" {
            all = true;
        } else if let Some(p) = a.strip_prefix("--lib_prefix=") {
            lib_prefix.push(p.to_string());
        } else {
            args.push(a);
        }
    }
    let [prog, prof] = args.as_slice() else {
        eprintln!("usage: file-addrs [--all] [--lib_prefix=DIR] PROGRAM PROFILE");
        std::process::exit(2);
    };
    let data = std::fs::read(prof).unwrap_or_else(|e| {
        eprintln!("{prof}: {e}");
        std::process::exit(1);
    });
    let p = rpprof::profile::parse(&data, Path::new(prof)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let opts = Options {
        address_width: p.address_width,
        lib_prefix,
        ..Default::default()
    };
    let mut local = Local::new(Path::new(prog), &p.mappings, &opts);
    let mut warnings = Vec::new();
    let want = std::fs::canonicalize(prog).ok();
    let mut out = std::io::stdout().lock();
    for (file, vma) in local.file_addresses(&p.addresses(), &mut warnings) {
        if all {
            let _ = writeln!(out, "{}\t{vma:x}", file.display());
        } else if std::fs::canonicalize(&file).ok() == want {
            let _ = writeln!(out, "{vma:x}");
        }
    }
}
