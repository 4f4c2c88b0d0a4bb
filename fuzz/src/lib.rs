//! Helpers shared by the fuzz targets.

use std::path::Path;

use rpprof::profile::{self, Profile};

/// Reads `data` as a profile file would be read, and touches everything a report would:
/// the canonical dump, the address list.
pub fn read(data: &[u8]) -> Option<Profile> {
    let p = profile::parse(data, Path::new("fuzz.prof")).ok()?;
    let _ = p.addresses();
    let _ = p.to_string();
    Some(p)
}

/// `data`, with `prefix` in front unless it already starts with it: the prefix steers the
/// sniffer to one reader, and seed files that carry it are used as they are.
pub fn with_prefix(prefix: &[u8], data: &[u8]) -> Vec<u8> {
    if data.starts_with(prefix) {
        data.to_vec()
    } else {
        [prefix, data].concat()
    }
}
