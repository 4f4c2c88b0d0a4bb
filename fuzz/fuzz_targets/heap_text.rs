#![no_main]
//! The sniffing entry point, steered to one reader by a "heap profile:" prefix; the records
//! are read in a row and in two halves (on two threads), which must agree.

use libfuzzer_sys::fuzz_target;
use rpprof::profile;
use rpprof::split::{self, Work};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let data = rpprof_fuzz::with_prefix(b"heap profile:", data);
    let path = Path::new("fuzz.prof");
    split::set(Work::HeapRecords, Some(usize::MAX));
    let in_a_row = format!("{:?}", profile::parse(&data, path));
    split::set(Work::HeapRecords, Some(0));
    let in_halves = format!("{:?}", profile::parse(&data, path));
    split::set(Work::HeapRecords, None);
    assert_eq!(in_a_row, in_halves);
    rpprof_fuzz::read(&data);
});
