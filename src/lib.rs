//! rpprof: a Rust replacement for gperftools' Perl `pprof` (`google-pprof`) and jemalloc's
//! `jeprof`.
//!
//! The pipeline runs one way, one module per stage, a plain data type at each seam:
//!
//! ```text
//! read (profile) -> [subtract base] -> symbolize (symbolize) -> aggregate (graph) -> render (report)
//! ```
//!
//! 1. [`profile::parse`] sniffs the format (text heap, growth, jemalloc, binary CPU,
//!    contention, symbolized) and returns a [`profile::Profile`] of raw addresses and values;
//! 2. the selected value of every sample is summed per stack into a [`graph::Stacks`], and a
//!    base profile subtracted;
//! 3. a [`symbolize::Symbolize`] implementation fills a [`symbolize::SymbolTable`] beside the
//!    profile — in-process from ELF symbols and DWARF ([`symbolize::local::Local`]), or from
//!    the names a symbolized profile carries;
//! 4. [`graph`] removes allocator and profiler frames, applies `--focus`/`--ignore`, and
//!    reduces stacks to report nodes at the chosen granularity;
//! 5. [`report`] prints them.
//!
//! ```no_run
//! let opts = rpprof::pipeline::Options {
//!     args: vec!["./server".into(), "heap.0003.heap".into()],
//!     ..Default::default()
//! };
//! rpprof::pipeline::run(&opts, &mut std::io::stdout(), &mut std::io::stderr())?;
//! # Ok::<(), rpprof::error::Error>(())
//! ```
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod cli;
pub mod error;
pub mod graph;
pub mod pipeline;
pub mod profile;
pub mod remote;
pub mod report;
pub mod symbolize;
pub mod units;
