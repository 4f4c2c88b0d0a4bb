#![no_main]
//! The sniffing entry point, steered to one reader by a "heap profile:" prefix; the records
//! are read in a row and in two halves (on two threads), which must agree.

use libfuzzer_sys::fuzz_target;
use rpprof::profile;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let data = rpprof_fuzz::with_prefix(b"heap profile:", data);
    let path = Path::new("fuzz.prof");
    profile::set_heap_split_from(usize::MAX);
    let in_a_row = format!("{:?}", profile::parse(&data, path));
    profile::set_heap_split_from(0);
    let in_halves = format!("{:?}", profile::parse(&data, path));
    profile::set_heap_split_from(usize::MAX);
    assert_eq!(in_a_row, in_halves);
    rpprof_fuzz::read(&data);
});
