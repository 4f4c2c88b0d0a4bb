#![no_main]
//! The whole pipeline on arbitrary profiles: read, merge, symbolize from an embedded symbol
//! section (no files are opened but the profile), aggregate, and write one report. The first
//! byte picks the report and its options; the rest, with `--- symbol` / `---` in front unless
//! it starts with them, is the profile file.

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use rpprof::graph::Granularity;
use rpprof::pipeline::{ContentionValue, HeapValue, Options};
use rpprof::report::Mode;

fn scratch() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        std::env::temp_dir().join(format!("rpprof-fuzz-report-{}.prof", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let file = if rest.starts_with(b"--- symbol\n") {
        rest.to_vec()
    } else {
        [&b"--- symbol\n---\n"[..], rest].concat()
    };
    let path = scratch();
    if std::fs::write(path, &file).is_err() {
        return;
    }
    let modes = [
        Mode::Text,
        Mode::Collapsed,
        Mode::Raw,
        Mode::Callgrind,
        Mode::Dot,
        Mode::Flame,
        Mode::Proto,
        Mode::Traces,
    ];
    let granularities = [
        Granularity::Functions,
        Granularity::Lines,
        Granularity::Addresses,
        Granularity::Files,
    ];
    let p = path.display().to_string();
    let opts = Options {
        args: if sel & 0x80 != 0 {
            vec![p.clone(), p]
        } else {
            vec![p]
        },
        mode: modes[usize::from(sel & 7)],
        granularity: granularities[usize::from((sel >> 3) & 3)],
        stacks: sel & 0x20 != 0,
        cum: sel & 0x40 != 0,
        heap_value: if sel & 0x40 != 0 {
            HeapValue::AllocObjects
        } else {
            HeapValue::InuseSpace
        },
        contention_value: if sel & 0x20 != 0 {
            ContentionValue::MeanDelay
        } else {
            ContentionValue::TotalDelay
        },
        ..Options::default()
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    let _ = rpprof::pipeline::run_with_input(&opts, &mut &b""[..], &mut out, &mut err);
});
