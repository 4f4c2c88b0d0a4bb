//! The `rpprof` command: command line -> library options -> pipeline -> exit status.

use std::io::Write;
use std::process::ExitCode;

use clap::FromArgMatches;
use rpprof::cli::{self, Args};
use rpprof::error::{Error, ErrorKind};

/// rpprof allocates millions of small strings and tables; mimalloc (version 2: version 3
/// was slower here and kept more memory) does that about a third faster than glibc's malloc.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages are used from this many addresses to symbolize on (see
/// [`rpprof::memory`]): testdata's small profiles have 50-150 and peak at 29 MB without them,
/// 39-42 MB with them (runs 3-5 ms faster); the large program's 22,000-address heap dump
/// takes about 10% longer without them, its 155,000-address CPU profile about 15%.
const HUGE_PAGES_FROM: usize = 10_000;

/// ... and from a profile file of this many bytes on, before it is read: reading the large
/// CPU profile (15 MB, 1.6 million addresses in 120,000 stacks) takes 11 ms with them, 21 ms
/// without (a warm run 105 ms instead of 123, medians of 15; peak 147 MB instead of 146); the
/// large heap_v2 profile (3.4 MB) 2 ms less; the large heap v1 dump (1 MB) is the same.
const HUGE_PAGES_FROM_BYTES: u64 = 1 << 19;

fn main() -> ExitCode {
    rpprof::memory::manage_huge_pages(HUGE_PAGES_FROM, HUGE_PAGES_FROM_BYTES);
    let mut argv = std::env::args_os();
    let argv0 = argv.next().unwrap_or_default();
    let jeprof = std::path::Path::new(&argv0)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("jeprof"));
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    // Arguments that are not UTF-8 are refused with a message (std::env::args would panic).
    let rest: Result<Vec<String>, Error> = argv
        .map(|a| {
            a.into_string().map_err(|a| {
                Error::usage(format!(
                    "argument {:?} is not valid UTF-8",
                    a.to_string_lossy()
                ))
            })
        })
        .collect();
    let args = rest
        .and_then(|rest| cli::normalize(&rest, jeprof))
        .and_then(|canonical| {
            let matches = cli::command()
                .try_get_matches_from(std::iter::once("rpprof".to_string()).chain(canonical));
            match matches.and_then(|m| Args::from_arg_matches(&m)) {
                Ok(a) => Ok(a),
                // A clap error is a usage error (exit status 1, not clap's 2); --help and
                // --version come back as "errors" that clap prints itself, with status 0.
                Err(e) if e.use_stderr() => {
                    let msg = e.to_string();
                    let first = msg.lines().next().unwrap_or_default();
                    Err(Error::usage(
                        first.trim_start_matches("error: ").to_string(),
                    ))
                }
                Err(e) => e.exit(),
            }
        });
    if let Ok(Args {
        completions: Some(shell),
        ..
    }) = args
    {
        // clap_complete panics when a write fails: the script is written here instead, and a
        // reader that went away (`rpprof --completions bash | head`) ends the run quietly.
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut cli::command(), "rpprof", &mut script);
        let mut out = stdout.lock();
        return match out.write_all(&script).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                let _ = writeln!(
                    stderr.lock(),
                    "rpprof: cannot write the completion script: {e}"
                );
                ExitCode::from(2)
            }
        };
    }
    let result = args.and_then(|args| {
        let mut out = stdout.lock();
        if args.cache_list || args.cache_clear {
            return rpprof::pipeline::cache_command(args.cache_clear, args.cache_list, &mut out);
        }
        let shell = args.no_mode() && std::io::IsTerminal::is_terminal(&std::io::stdout());
        let mut opts = args.into_options(jeprof)?;
        if shell {
            opts.mode = rpprof::report::Mode::Interactive;
        }
        // Standard error is locked per message, not for the whole run: the web UI's watcher
        // and fetch threads write to it while the main thread serves.
        rpprof::pipeline::run(&opts, &mut out, &mut &stderr)
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
                let me = if jeprof { "jeprof" } else { "rpprof" };
                let _ = writeln!(err, "Try '{me} --help' for more information.");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
