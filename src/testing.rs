//! Helpers shared by the unit tests.

/// A fixed sequence of pseudo-random numbers from `seed` (xorshift64): the same inputs on
/// every run.
pub fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Every string made of `k` of `parts` in a row (repeats allowed), in a fixed order: names
/// built from the pieces that matter to a parser.
pub fn joined(parts: &[&str], k: u32) -> Vec<String> {
    (0..parts.len().pow(k))
        .map(|mut i| {
            let mut s = String::new();
            for _ in 0..k {
                s.push_str(parts[i % parts.len()]);
                i /= parts.len();
            }
            s
        })
        .collect()
}
