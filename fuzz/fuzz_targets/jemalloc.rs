#![no_main]
//! The sniffing entry point, steered to one reader by a "heap_v2/" prefix.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let data = rpprof_fuzz::with_prefix(b"heap_v2/", data);
    rpprof_fuzz::read(&data);
});
