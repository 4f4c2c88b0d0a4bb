//! Development aid: demangles each line of standard input as rpprof does (binutils style).
use std::io::{BufRead, Write};
fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let _ = writeln!(out, "{}", rpprof::symbolize::demangle::demangle(&line));
    }
}
