//! Whether the process's memory is backed by transparent huge pages.
//!
//! mimalloc (the `rpprof` command's allocator) asks for transparent huge pages on its arena.
//! They make page faults much cheaper when a run builds hundreds of MB of tables (a big
//! program's DWARF, a large profile's stacks), but every 2 MiB touched at all is backed
//! whole: a run over a small profile then needs about a third more memory than it uses.
//! The command turns them off at start ([`manage_huge_pages`]) and the session turns them
//! back on before it reads a big profile file ([`reading`]) or symbolizes many addresses
//! ([`symbolizing`]). A library user's process is left alone: nothing happens unless
//! [`manage_huge_pages`] was called.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The number of addresses from which huge pages are used; 0: not managed.
static FROM: AtomicUsize = AtomicUsize::new(0);

/// The size of a profile file from which huge pages are used; 0: not managed.
static FROM_BYTES: AtomicU64 = AtomicU64::new(0);

/// Turns transparent huge pages off for this process, to be turned on again by
/// [`reading`] a profile file of `from_bytes` bytes or more, or by [`symbolizing`] `from`
/// addresses or more.
pub fn manage_huge_pages(from: usize, from_bytes: u64) {
    FROM.store(from.max(1), Ordering::Relaxed);
    FROM_BYTES.store(from_bytes.max(1), Ordering::Relaxed);
    set(false);
}

/// Called before a profile file of `bytes` bytes is read: turns huge pages on when it is
/// big (its bytes and its stacks then fill many pages; see [`manage_huge_pages`]).
pub fn reading(bytes: u64) {
    let from = FROM_BYTES.load(Ordering::Relaxed);
    if from > 0 && bytes >= from {
        set(true);
    }
}

/// Called before `addresses` addresses are symbolized: turns huge pages on when there are
/// many (see [`manage_huge_pages`]).
pub fn symbolizing(addresses: usize) {
    let from = FROM.load(Ordering::Relaxed);
    if from > 0 && addresses >= from {
        set(true);
    }
}

fn set(on: bool) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_SET_THP_DISABLE takes integer arguments and changes only whether later
        // page faults of this process may use huge pages (programs it starts, such as dot
        // or objdump, inherit it; none of their results change). A failure (an old kernel)
        // leaves them as they were, which is only slower or bigger.
        let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(!on), 0, 0, 0) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}
