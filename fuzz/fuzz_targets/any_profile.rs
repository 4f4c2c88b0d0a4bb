#![no_main]
//! The sniffing entry point on arbitrary bytes.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rpprof_fuzz::read(data);
});
