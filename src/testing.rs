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
