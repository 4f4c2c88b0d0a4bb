//! The `rpprof` command: command line -> library options -> pipeline -> exit status.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use rpprof::cli::{self, Args};
use rpprof::error::{Error, ErrorKind};

/// rpprof allocates millions of small strings and tables; mimalloc does that about a third
/// faster than glibc's malloc.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let mut argv = std::env::args();
    let argv0 = argv.next().unwrap_or_default();
    let jeprof = std::path::Path::new(&argv0)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("jeprof"));
    let rest: Vec<String> = argv.collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let args = cli::normalize(&rest)
        .map(|canonical| Args::parse_from(std::iter::once("rpprof".to_string()).chain(canonical)));
    if let Ok(Args {
        completions: Some(shell),
        ..
    }) = args
    {
        clap_complete::generate(shell, &mut Args::command(), "rpprof", &mut stdout.lock());
        return ExitCode::SUCCESS;
    }
    let result = args.and_then(|args| args.into_options(jeprof));
    let result = result.and_then(|opts| {
        let mut out = stdout.lock();
        rpprof::pipeline::run(&opts, &mut out, &mut stderr.lock())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error {
            kind: ErrorKind::Io(e),
            path: None,
            ..
        }) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let mut err = stderr.lock();
            let _ = writeln!(err, "rpprof: {e}");
            if matches!(e.kind, ErrorKind::Usage(_)) {
                let _ = writeln!(err, "Try 'rpprof --help' for more information.");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
