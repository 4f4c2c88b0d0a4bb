#![no_main]
//! The sniffing entry point, steered to one reader by a "--- symbol" prefix.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let data = rpprof_fuzz::with_prefix(b"--- symbol", data);
    rpprof_fuzz::read(&data);
});
