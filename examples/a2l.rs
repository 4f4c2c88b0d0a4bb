//! Development aid: prints what rpprof's addr2line emulation answers for file addresses read
//! from standard input, in `addr2line -f -C [-i]` format, for comparison with binutils.
//!
//! usage: cargo run --release --example a2l -- [-i] <elf file> < addresses

use std::io::{BufRead, Write};

use rpprof::symbolize::dwarf;
use rpprof::symbolize::elf::Elf;
use rpprof::symbolize::lookup::Addr2Line;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut inlines = false;
    let mut show_addr = false;
    let mut raw = false;
    while let Some(a) = args.first() {
        match a.as_str() {
            "-i" => inlines = true,
            "-a" => show_addr = true,
            "-r" => raw = true,
            _ => break,
        }
        args.remove(0);
    }
    let Some(path) = args.first() else {
        eprintln!("usage: a2l [-i] <elf file> < addresses");
        std::process::exit(2);
    };
    let elf = match Elf::open(std::path::Path::new(path)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let mut warnings = Vec::new();
    let dw = dwarf::load(
        &elf,
        std::env::var_os("A2L_BINUTILS_INLINE_NAMES").is_some(),
        &mut warnings,
    );
    for w in warnings {
        eprintln!("{w}");
    }
    let mut a2l = Addr2Line::new(&elf, dw.as_deref());
    if raw {
        a2l = a2l.without_demangling();
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let t = line.trim().trim_start_matches("0x");
        let Ok(a) = u64::from_str_radix(t, 16) else {
            continue;
        };
        if show_addr {
            let _ = writeln!(out, "0x{a:016x}");
        }
        for f in a2l.lookup(a, inlines) {
            let _ = writeln!(out, "{}\n{}", f.function, f.place);
        }
    }
}
