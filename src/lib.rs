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
