//! rpprof: a Rust replacement for gperftools' Perl `pprof` (`google-pprof`) and jemalloc's
//! `jeprof`.
//!
//! The pipeline runs one way, one module per stage, a plain data type at each seam:
//!
//! ```text
//! read (profile) -> symbolize (symbolize) -> Session -> View -> aggregate (graph) -> render (report)
//! ```
//!
//! 1. [`profile::parse`] sniffs the format (text heap, growth, jemalloc, binary CPU,
//!    contention, symbolized) and returns a [`profile::Profile`] of raw addresses and every
//!    value column;
//! 2. a [`session::Session`] holds the program, every profile and the base, checked against
//!    each other, and one [`symbolize::SymbolTable`] for all their addresses, filled by a
//!    [`symbolize::Symbolize`] implementation: in-process from ELF symbols and DWARF
//!    ([`symbolize::local::Local`]), or from the names a symbolized profile carries;
//! 3. a [`view::View`] says what one report asks for (mode, value column, granularity,
//!    filters, profiles and base); [`view::View::render`] sums the chosen value per stack,
//!    subtracts the base, and
//! 4. [`graph`] removes allocator and profiler frames, applies `--focus`/`--ignore`, and
//!    reduces stacks to report nodes at the chosen granularity;
//! 5. [`report`] prints them.
//!
//! The command line renders one view of a session ([`pipeline::run`]); the interactive
//! shell renders many from one session, without reading or symbolizing again.
//!
//! ```no_run
//! use rpprof::session::{LoadOptions, Session};
//! use rpprof::view::View;
//!
//! let opts = LoadOptions {
//!     args: vec!["./server".into(), "heap.0003.heap".into()],
//!     ..Default::default()
//! };
//! let session = Session::load(&opts, &mut std::io::stderr())?;
//! View::default().render(&session, &mut std::io::stdout(), &mut std::io::stderr())?;
//! # Ok::<(), rpprof::error::Error>(())
//! ```
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod cancel;
pub mod cli;
pub mod error;
pub mod graph;
pub mod memory;
pub mod perlre;
pub mod pipeline;
pub mod profile;
pub mod remote;
pub mod report;
pub mod session;
pub mod shell;
pub mod split;
pub mod symbolize;
#[cfg(test)]
pub(crate) mod testing;
pub mod trend;
pub mod units;
pub mod view;
pub mod web;

/// The cores this process may use (at least 1), read once: the standard library reads the
/// cgroup's files again at each call.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` of each of `items`, in their order: on every core when there are several, each
/// thread taking the next item (a panic in one is raised again here).
pub fn on_cores<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = cores().min(items.len());
    if threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            done.push((i, f(item)));
        }
        done
    };
    let mut all: Vec<(usize, R)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut all = work();
        for h in others {
            all.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        all
    });
    all.sort_unstable_by_key(|r| r.0);
    all.into_iter().map(|r| r.1).collect()
}
