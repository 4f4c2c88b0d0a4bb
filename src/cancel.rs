//! A request to stop the command that is running: Ctrl-C in the interactive shell. The
//! reports whose work grows with the program rather than the profile (`list` and `disasm`
//! of every routine a pattern matches) look at it between routines and stop with an
//! error, so that the shell's prompt comes back at once and its profiles stay loaded.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// Asks the running command to stop. Async-signal-safe: a store to an atomic.
pub fn request() {
    STOP.store(true, Ordering::Relaxed);
}

/// Withdraws the request (before the next command).
pub fn clear() {
    STOP.store(false, Ordering::Relaxed);
}

/// Whether the running command was asked to stop.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// `Err` (the error the shell prints as "interrupted (Ctrl-C)") once a stop was requested.
pub fn check() -> std::io::Result<()> {
    if requested() {
        return Err(std::io::Error::other("interrupted (Ctrl-C)"));
    }
    Ok(())
}
