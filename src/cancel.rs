//! A request to stop the command that is running: Ctrl-C in the interactive shell, or a
//! web UI client that has gone away. The reports whose work grows with the program rather
//! than the profile (`list` and `disasm` of every routine a pattern matches) look at it
//! between routines and stop with an error, so that the shell's prompt comes back at once
//! (its profiles stay loaded) and a page nobody waits for stops costing a core.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The process's request (the shell's Ctrl-C).
static STOP: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's own request (a web request's), when it has one.
    static HERE: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Asks the running command to stop. Async-signal-safe: a store to an atomic.
pub fn request() {
    STOP.store(true, Ordering::Relaxed);
}

/// Withdraws the request (before the next command).
pub fn clear() {
    STOP.store(false, Ordering::Relaxed);
}

/// Whether the running command was asked to stop: the process's request, or the one of
/// the work this thread does ([`with_token`]).
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
        || HERE.with(|h| {
            h.borrow()
                .as_ref()
                .is_some_and(|t| t.load(Ordering::Relaxed))
        })
}

/// Runs `f` on this thread with `token` as its request to stop: set by another thread (which
/// sees that the client of a web request has gone), it stops what `f` does as Ctrl-C would.
pub fn with_token<R>(token: Arc<AtomicBool>, f: impl FnOnce() -> R) -> R {
    let before = HERE.with(|h| h.replace(Some(token)));
    // Put back even when `f` panics (the server catches a handler's panic).
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            HERE.with(|h| *h.borrow_mut() = before);
        }
    }
    let _restore = Restore(before);
    f()
}

/// This thread's own request to stop, if it has one: for [`with`] on the threads its work
/// starts, so that they stop with it.
pub fn token() -> Option<Arc<AtomicBool>> {
    HERE.with(|h| h.borrow().clone())
}

/// [`with_token`] when there is a token (from [`token`]), else `f` alone.
pub fn with<R>(token: Option<Arc<AtomicBool>>, f: impl FnOnce() -> R) -> R {
    match token {
        Some(t) => with_token(t, f),
        None => f(),
    }
}

/// [`check`]'s error: the command was asked to stop.
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted (Ctrl-C)")
    }
}

impl std::error::Error for Stopped {}

/// `Err` (the error the shell prints as "interrupted (Ctrl-C)") once a stop was requested.
pub fn check() -> std::io::Result<()> {
    if requested() {
        return Err(std::io::Error::other(Stopped));
    }
    Ok(())
}

/// Whether `e` is [`check`]'s error: the command stopped, nothing went wrong writing.
pub fn is_stop(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|i| i.is::<Stopped>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token stops the work of its thread only, and only while its work runs.
    #[test]
    fn a_token_is_its_threads() {
        let token = Arc::new(AtomicBool::new(false));
        let seen = with_token(token.clone(), || {
            let before = requested();
            token.store(true, Ordering::Relaxed);
            let other = std::thread::spawn(requested).join().unwrap_or(true);
            (before, requested(), other)
        });
        assert_eq!(seen, (false, true, false));
        assert!(!requested());
    }

    /// The stop's error is told apart by its type, not by its words.
    #[test]
    fn the_stop_is_its_own_error() {
        let gone = Arc::new(AtomicBool::new(true));
        let e = with_token(gone, check).err();
        assert!(e.as_ref().is_some_and(is_stop), "{e:?}");
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some("interrupted (Ctrl-C)")
        );
        assert!(!is_stop(&std::io::Error::other("interrupted (Ctrl-C)")));
        assert!(check().is_ok());
    }
}
