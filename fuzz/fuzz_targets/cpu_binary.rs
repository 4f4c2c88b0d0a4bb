#![no_main]
//! Binary CPU profiles: an input that starts with a printable byte (which the sniffer would
//! take for text) gets eight zero bytes in front, the start of a 64-bit header.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.first().is_none_or(|b| (0x20..0x7f).contains(b)) {
        rpprof_fuzz::read(&[&[0u8; 8][..], data].concat());
    } else {
        rpprof_fuzz::read(data);
    }
});
