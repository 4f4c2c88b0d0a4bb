#![no_main]
//! The sniffing entry point, steered to one reader by a "heap profile:" prefix.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let data = rpprof_fuzz::with_prefix(b"heap profile:", data);
    rpprof_fuzz::read(&data);
});
