//! Benchmark aid: prints, one per line in hex, the file addresses in PROGRAM that a profile's
//! addresses symbolize to (what `addr2line -e PROGRAM` would be asked).
//!
//! usage: cargo run --release --example file-addrs -- PROGRAM PROFILE

use std::io::Write;
use std::path::Path;

use rpprof::symbolize::Options;
use rpprof::symbolize::local::Local;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [prog, prof] = args.as_slice() else {
        eprintln!("usage: file-addrs PROGRAM PROFILE");
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
        ..Default::default()
    };
    let mut local = Local::new(Path::new(prog), &p.mappings, &opts);
    let mut warnings = Vec::new();
    let want = std::fs::canonicalize(prog).ok();
    let mut out = std::io::stdout().lock();
    for (file, vma) in local.file_addresses(&p.addresses(), &mut warnings) {
        if std::fs::canonicalize(&file).ok() == want {
            let _ = writeln!(out, "{vma:x}");
        }
    }
}
