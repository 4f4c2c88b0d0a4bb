//! The command line: clap definitions (the one source of truth for names, help, the man page
//! and completions), read the way Perl pprof's Getopt::Long reads them.
//!
//! Getopt::Long accepts `--text` and `-text`, `--base=f` and `--base f`, any unique prefix of
//! an option name (`--inuse_obj`), in any case, `--no<opt>` and `--no-<opt>` for switches, and
//! options after the file arguments. [`normalize`] rewrites such a command line into the
//! canonical `--name[=value]` form clap parses.

use clap::{Arg, ArgAction, CommandFactory, Parser};

use crate::error::{Error, Result};
use crate::graph::Granularity;
use crate::pipeline::{CallGraph, ContentionValue, HeapValue, Options};
use crate::profile::Kind;
use crate::report::{Mode, TrendFormat};

/// rpprof: a fast, in-process replacement for gperftools' pprof (google-pprof) and jemalloc's
/// jeprof. It reads tcmalloc and jemalloc heap profiles, growth, CPU and contention profiles,
/// symbolizes them from the program's ELF symbols and DWARF, and prints pprof's reports.
#[derive(Parser, Debug, Default)]
#[command(
    name = "rpprof",
    version,
    about = "Analyze gperftools, tcmalloc and jemalloc profiles (a drop-in pprof/jeprof)",
    override_usage = "rpprof [options] <program> <profiles>...\n       rpprof [options] <profile>...   (program from the profile's memory map, or a symbolized profile)",
    long_about = "rpprof reads the profiles written by gperftools (tcmalloc's heap profiler and \
heap samples, growth stacks, the CPU profiler), by jemalloc (prof.dump) and by brpc's /pprof \
endpoints, symbolizes them from the program's ELF symbols and DWARF debug information \
(in-process: no nm, addr2line or objdump), and prints the reports of gperftools' pprof \
(google-pprof) and jemalloc's jeprof, with the same options and, where scripts read them, \
the same bytes.",
    after_help = "Options may be written --name, -name, --name=value or --name value, abbreviated to any unique prefix, and placed before or after the files. Switches can be turned off with --no<name>.",
    after_long_help = "Options may be written --name, -name, --name=value or --name value, abbreviated to any unique prefix, and placed before or after the files. Switches can be turned off with --no<name>.

Examples:
  rpprof --text ./server heap.0003.heap
  rpprof --base=heap.0001.heap --text ./server heap.0005.heap
  rpprof --flame ./server cpu.prof > cpu.svg
  rpprof --text --lines ./server cpu.prof
  rpprof --text localhost:9002/pprof/heap

Exit status: 0 on success, 1 when an input or the command line is refused, 2 when rpprof cannot do its part (a report it cannot write, a tool it cannot run, an internal failure).

Environment:
  RPPROF_NO_CACHE=1       neither read nor write the symbol cache (as --no_cache)
  RPPROF_CACHE_MAX_MB     the symbol cache's size cap in MiB (512)
  XDG_CACHE_HOME          the symbol cache is $XDG_CACHE_HOME/rpprof (~/.cache/rpprof)
  XDG_STATE_HOME          the shell's history is $XDG_STATE_HOME/rpprof (~/.local/state/rpprof)
  PPROF_TMPDIR            where fetched profiles are saved (~/pprof)
  PPROF_TOOLS             where --disasm finds objdump (as --tools)
  RPPROF_HTTP_TIMEOUT     seconds every remote request may take, in place of its own timeout
  SSL_CERT_FILE, SSL_CERT_DIR, CURL_CA_BUNDLE   the CAs trusted for https:// profiles
  BROWSER                 the browsers --web, the shell and --http open (a list separated by :)",
    max_term_width = 100
)]
pub struct Args {
    /// Program, then profile files (several profiles are added together)
    #[arg(value_name = "FILES")]
    pub paths: Vec<String>,

    // ---- Output type
    /// Generate a text report [default]
    #[arg(long, help_heading = "Output type")]
    pub text: bool,
    /// Print the stacks (with --text)
    #[arg(long, help_heading = "Output type")]
    pub stacks: bool,
    /// Generate callgrind format
    #[arg(long, help_heading = "Output type")]
    pub callgrind: bool,
    /// Generate collapsed stacks for flame graphs (FlameGraph, inferno)
    #[arg(long, help_heading = "Output type")]
    pub collapsed: bool,
    /// Generate a symbolized profile (readable by rpprof and pprof)
    #[arg(long, help_heading = "Output type")]
    pub raw: bool,
    /// Generate a Graphviz DOT call graph
    #[arg(long, help_heading = "Output type")]
    pub dot: bool,
    /// Generate an SVG call graph (needs graphviz)
    #[arg(long, help_heading = "Output type")]
    pub svg: bool,
    /// Generate a PDF call graph (needs graphviz)
    #[arg(long, help_heading = "Output type")]
    pub pdf: bool,
    /// Generate a PostScript call graph (needs graphviz)
    #[arg(long, help_heading = "Output type")]
    pub ps: bool,
    /// Generate a GIF call graph (needs graphviz)
    #[arg(long, help_heading = "Output type")]
    pub gif: bool,
    /// Display the call graph with gv
    #[arg(long, help_heading = "Output type")]
    pub gv: bool,
    /// Display the call graph with evince
    #[arg(long, help_heading = "Output type")]
    pub evince: bool,
    /// Display the SVG call graph in a web browser
    #[arg(long, help_heading = "Output type")]
    pub web: bool,
    /// Annotated source listing of routines matching <regexp>
    #[arg(long, value_name = "regexp", help_heading = "Output type")]
    pub list: Option<String>,
    /// Annotated disassembly of routines matching <regexp>
    #[arg(long, value_name = "regexp", help_heading = "Output type")]
    pub disasm: Option<String>,
    /// Print the names at the addresses read from standard input
    #[arg(long, help_heading = "Output type")]
    pub symbols: bool,
    /// pprof's interactive shell (also when no output mode is given and standard output is
    /// a terminal); its commands are listed at the end of --help
    #[arg(long, help_heading = "Output type")]
    pub interactive: bool,
    /// Generate an SVG flame graph (rpprof)
    #[arg(long, help_heading = "Output type")]
    pub flame: bool,
    /// Generate a gzipped profile.proto for Go pprof (rpprof)
    #[arg(long, help_heading = "Output type")]
    pub proto: bool,
    /// Print each stack with its value, as Go pprof -traces
    #[arg(long, help_heading = "Output type")]
    pub traces: bool,
    /// Callers and callees of the functions matching <regexp>, as Go pprof -peek
    #[arg(long, value_name = "regexp", help_heading = "Output type")]
    pub peek: Option<String>,
    /// Leak trend of a series of three or more heap dumps: per site its value in each dump,
    /// slope, trend test and class (growing, saturating, shrinking, steady, new, gone), as a
    /// table with sparklines; with --csv, --json or --svg (a chart) instead (rpprof)
    #[arg(long, help_heading = "Output type")]
    pub trend: bool,
    /// With --trend: CSV, one row per site, one column per dump (raw bytes or objects)
    #[arg(long, help_heading = "Output type")]
    pub csv: bool,
    /// With --trend: JSON
    #[arg(long, help_heading = "Output type")]
    pub json: bool,

    // ---- Web UI
    /// Serve a web UI on [host]:port instead of printing a report (no host: localhost; no
    /// port or 0: a free one): flame graph, top, graph, source, disassembly, peek, with a
    /// View and a Diff picker over the profiles; a folder or a quoted glob is watched for new
    /// dumps
    #[arg(long, value_name = "[host]:port", help_heading = "Web UI")]
    pub http: Option<String>,
    /// With --http: do not open a browser
    #[arg(long = "no_browser", help_heading = "Web UI")]
    pub no_browser: bool,
    /// With --http and a remote profile: fetch a new one every <duration> (30s, 5m, 1h)
    #[arg(long, value_name = "duration", help_heading = "Web UI")]
    pub every: Option<String>,
    /// With --http: keep at most the newest <n> profiles [default: 32]
    #[arg(long = "max_profiles_kept", value_name = "n", help_heading = "Web UI")]
    pub max_profiles_kept: Option<usize>,

    // ---- Granularity
    /// Report at function level [default]
    #[arg(long, help_heading = "Reporting granularity")]
    pub functions: bool,
    /// Report at source line level
    #[arg(long, help_heading = "Reporting granularity")]
    pub lines: bool,
    /// Report at address level
    #[arg(long, help_heading = "Reporting granularity")]
    pub addresses: bool,
    /// Report at source file level
    #[arg(long, help_heading = "Reporting granularity")]
    pub files: bool,

    // ---- General
    /// Sort by cumulative data
    #[arg(long)]
    pub cum: bool,
    /// Subtract <base> from <profile> before display
    #[arg(long, value_name = "base")]
    pub base: Option<String>,
    /// Length of time for remote CPU and contention profiles [default: 30]
    #[arg(long, value_name = "n")]
    pub seconds: Option<u64>,
    /// Read additional symbols from this library (unrelocated)
    #[arg(long = "add_lib", value_name = "file")]
    pub add_lib: Option<String>,
    /// Comma-separated list of directories to find libraries under
    #[arg(long = "lib_prefix", value_name = "dir")]
    pub lib_prefix: Option<String>,
    /// Do not strip template arguments from function names
    #[arg(long = "no_strip_temp")]
    pub no_strip_temp: bool,
    /// Show addresses next to names
    #[arg(long = "show_addresses")]
    pub show_addresses: bool,
    /// With --flame: full function names (arguments, template arguments) instead of the
    /// short names of --text
    #[arg(long = "full_names")]
    pub full_names: bool,
    /// Do not drop a second CPU stack frame that is the same everywhere
    #[arg(long = "no-auto-signal-frm")]
    pub no_auto_signal_frm: bool,
    /// Reproduce google-pprof's known mistakes for byte-identical output: name inlined
    /// functions without a linkage name after their caller, print --stacks leak sites as
    /// "unknown", name an address after the nearest symbol below it however far, leave the
    /// program's short-form map line unread, leave out --disasm's and --list's last
    /// instruction of a relocated routine, list no routine of a stripped file from its
    /// separate debug file, and give no inlined frames in a file whose symbols have no
    /// _fini (a stripped file)
    #[arg(long = "pprof_quirks")]
    pub pprof_quirks: bool,
    /// Where --disasm finds objdump: path prefixes and tool:path entries, comma separated
    /// (default $PPROF_TOOLS, then PATH); rpprof runs no other object tool
    #[arg(long, value_name = "prefix")]
    pub tools: Option<String>,
    /// Print debugging information (time and memory of each stage, how much of each file's
    /// DWARF was read, what the symbol cache answered)
    #[arg(long)]
    pub debug: bool,
    /// Neither read nor write the symbol cache (also: RPPROF_NO_CACHE=1)
    #[arg(long = "no_cache")]
    pub no_cache: bool,
    /// List the symbol cache's entries ($XDG_CACHE_HOME/rpprof, else ~/.cache/rpprof) and exit
    #[arg(long = "cache_list")]
    pub cache_list: bool,
    /// Remove every entry of the symbol cache and exit
    #[arg(long = "cache_clear")]
    pub cache_clear: bool,
    /// Print a completion script for <shell> (bash, zsh, fish, elvish, powershell)
    #[arg(long, value_name = "shell")]
    pub completions: Option<clap_complete::Shell>,
    /// Run pprof's self tests (not in rpprof)
    #[arg(long, hide = true)]
    pub test: bool,
    /// Undocumented pprof test option
    #[arg(long = "test_stride", hide = true, value_name = "n")]
    pub test_stride: Option<u64>,

    // ---- Heap
    /// Display in-use (mega)bytes [default]
    #[arg(long = "inuse_space", help_heading = "Heap profile options")]
    pub inuse_space: bool,
    /// Display in-use objects
    #[arg(long = "inuse_objects", help_heading = "Heap profile options")]
    pub inuse_objects: bool,
    /// Display allocated (mega)bytes
    #[arg(long = "alloc_space", help_heading = "Heap profile options")]
    pub alloc_space: bool,
    /// Display allocated objects
    #[arg(long = "alloc_objects", help_heading = "Heap profile options")]
    pub alloc_objects: bool,
    /// Display space in bytes
    #[arg(long = "show_bytes", help_heading = "Heap profile options")]
    pub show_bytes: bool,
    /// Ignore negative differences (with --base)
    #[arg(long = "drop_negative", help_heading = "Heap profile options")]
    pub drop_negative: bool,
    /// jemalloc: show the profile of thread <n>, or of every thread (*)
    #[arg(long, value_name = "n", help_heading = "Heap profile options")]
    pub thread: Option<String>,

    // ---- Contention
    /// Display total delay at each region [default]
    #[arg(long = "total_delay", help_heading = "Contention profile options")]
    pub total_delay: bool,
    /// Display number of delays at each region
    #[arg(long, help_heading = "Contention profile options")]
    pub contentions: bool,
    /// Display mean delay at each region
    #[arg(long = "mean_delay", help_heading = "Contention profile options")]
    pub mean_delay: bool,

    // ---- Call graph
    /// Show at most so many nodes [default: 80]
    #[arg(
        long,
        value_name = "n",
        help_heading = "Call graph options",
        allow_negative_numbers = true
    )]
    pub nodecount: Option<i64>,
    /// Hide nodes at or below <f>*total [default: .005]
    #[arg(long, value_name = "f", help_heading = "Call graph options")]
    pub nodefraction: Option<f64>,
    /// Hide edges at or below <f>*total [default: .001]
    #[arg(long, value_name = "f", help_heading = "Call graph options")]
    pub edgefraction: Option<f64>,
    /// Max incoming/outgoing edges per node [default: 8]
    #[arg(
        long,
        value_name = "n",
        help_heading = "Call graph options",
        allow_negative_numbers = true
    )]
    pub maxdegree: Option<i64>,
    /// Focus on stacks with a frame matching <regexp>
    #[arg(long, value_name = "regexp", help_heading = "Call graph options")]
    pub focus: Option<String>,
    /// Ignore stacks with a frame matching <regexp>
    #[arg(long, value_name = "regexp", help_heading = "Call graph options")]
    pub ignore: Option<String>,
    /// jemalloc: keep only frames matching <regexp>
    #[arg(long, value_name = "regexp", help_heading = "Call graph options")]
    pub retain: Option<String>,
    /// jemalloc: drop frames matching <regexp>
    #[arg(long, value_name = "regexp", help_heading = "Call graph options")]
    pub exclude: Option<String>,
    /// Set GV scaling [default: 0]
    #[arg(long, value_name = "n", help_heading = "Call graph options")]
    pub scale: Option<i64>,
    /// Make nodes with non-zero object counts more visible
    #[arg(long, help_heading = "Call graph options")]
    pub heapcheck: bool,
    /// jemalloc: find debug files by build id as well
    #[arg(
        long = "debug-syms-by-id",
        help_heading = "Call graph options",
        hide = true
    )]
    pub debug_syms_by_id: bool,
}

/// The clap command: [`Args`] with the shell's commands and options at the end of the long
/// help (and so of the man page).
pub fn command() -> clap::Command {
    let cmd = Args::command();
    let mut after = cmd
        .get_after_long_help()
        .map(|h| h.to_string())
        .unwrap_or_default();
    after.push_str("\n\n");
    after.push_str(&crate::shell::commands::summary());
    cmd.after_long_help(after)
}

/// How Getopt::Long checks an option's value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Switch {
        negatable: bool,
    },
    String,
    Integer,
    /// An integer of 0 or more (a number of seconds, of profiles).
    Count,
    Real,
}

struct OptSpec {
    name: String,
    kind: ValueKind,
}

/// The long options clap knows, with the value rules pprof's Getopt::Long gives them.
fn specs() -> Vec<OptSpec> {
    let cmd = Args::command();
    let mut v: Vec<OptSpec> = cmd
        .get_arguments()
        .filter_map(|a: &Arg| {
            let name = a.get_long()?.to_string();
            let kind = if matches!(a.get_action(), ArgAction::SetTrue) {
                ValueKind::Switch {
                    negatable: name != "heapcheck",
                }
            } else {
                match name.as_str() {
                    "nodecount" | "maxdegree" | "scale" => ValueKind::Integer,
                    "seconds" | "test_stride" | "max_profiles_kept" => ValueKind::Count,
                    "nodefraction" | "edgefraction" => ValueKind::Real,
                    _ => ValueKind::String,
                }
            };
            Some(OptSpec { name, kind })
        })
        .collect();
    // clap's own --help and --version, switches in pprof.
    for name in ["help", "version"] {
        if !v.iter().any(|s| s.name == name) {
            v.push(OptSpec {
                name: name.to_string(),
                kind: ValueKind::Switch { negatable: true },
            });
        }
    }
    v
}

/// One spelling of an option: the name typed, the option it stands for, and whether it
/// negates it.
struct Spelling<'a> {
    text: String,
    spec: &'a OptSpec,
    negated: bool,
}

fn spellings(specs: &[OptSpec]) -> Vec<Spelling<'_>> {
    let mut v = Vec::new();
    for s in specs {
        v.push(Spelling {
            text: s.name.to_ascii_lowercase(),
            spec: s,
            negated: false,
        });
        if let ValueKind::Switch { negatable: true } = s.kind {
            for prefix in ["no", "no-"] {
                v.push(Spelling {
                    text: format!("{prefix}{}", s.name.to_ascii_lowercase()),
                    spec: s,
                    negated: true,
                });
            }
        }
    }
    v
}

/// google-pprof 2.10's long options. An abbreviation unique among them keeps the meaning it
/// has there when rpprof's own options (`--every`, `--full_names`, `--cache_list`, ...) share
/// its first letters: `--ev` is still `--evince`, `--ca` still `--callgrind`.
const PPROF_OPTIONS: &[&str] = &[
    "add_lib",
    "addresses",
    "alloc_objects",
    "alloc_space",
    "base",
    "callgrind",
    "collapsed",
    "contentions",
    "cum",
    "debug",
    "disasm",
    "dot",
    "drop_negative",
    "edgefraction",
    "evince",
    "files",
    "focus",
    "functions",
    "gif",
    "gv",
    "heapcheck",
    "help",
    "ignore",
    "interactive",
    "inuse_objects",
    "inuse_space",
    "lib_prefix",
    "lines",
    "list",
    "maxdegree",
    "mean_delay",
    "no-auto-signal-frm",
    "no_strip_temp",
    "nodecount",
    "nodefraction",
    "pdf",
    "ps",
    "raw",
    "scale",
    "seconds",
    "show_addresses",
    "show_bytes",
    "stacks",
    "svg",
    "symbols",
    "test",
    "test_stride",
    "text",
    "tools",
    "total_delay",
    "version",
    "web",
];

/// jeprof's long options that google-pprof does not have, and google-pprof's that jeprof
/// does not: invoked as jeprof, an abbreviation keeps the meaning it has in jeprof (`--sh`
/// is `--show_bytes` there: jeprof has no `--show_addresses`).
const JEPROF_ONLY: &[&str] = &["retain", "exclude", "thread", "debug-syms-by-id"];
const PPROF_ONLY: &[&str] = &[
    "show_addresses",
    "stacks",
    "no-auto-signal-frm",
    "no_strip_temp",
];

/// True when `name` is an option of the Perl tool rpprof stands in for (jeprof when
/// `jeprof`, else google-pprof).
fn upstream(name: &str, jeprof: bool) -> bool {
    if jeprof {
        JEPROF_ONLY.contains(&name)
            || (PPROF_OPTIONS.contains(&name) && !PPROF_ONLY.contains(&name))
    } else {
        PPROF_OPTIONS.contains(&name)
    }
}

/// Resolves a typed option name as Getopt::Long does: an exact match (any case), else the
/// only option it is a prefix of (or the only one of pprof's, see [`PPROF_OPTIONS`], or of
/// jeprof's when `jeprof`).
fn resolve<'a>(typed: &str, all: &'a [Spelling<'a>], jeprof: bool) -> Result<&'a Spelling<'a>> {
    let t = typed.to_ascii_lowercase();
    if let Some(s) = all.iter().find(|s| s.text == t) {
        return Ok(s);
    }
    let hits: Vec<&Spelling<'_>> = all.iter().filter(|s| s.text.starts_with(&t)).collect();
    let mut options: Vec<&str> = hits.iter().map(|s| s.spec.name.as_str()).collect();
    options.sort_unstable();
    options.dedup();
    match hits.len() {
        0 => Err(Error::usage(format!("Unknown option: {typed}"))),
        _ if options.len() == 1 && hits.iter().all(|h| h.negated == hits[0].negated) => Ok(hits[0]),
        _ => {
            if let Some(h) = pprof_meaning(&hits, jeprof) {
                return Ok(h);
            }
            let mut names: Vec<&str> = hits.iter().map(|s| s.text.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            Err(Error::usage(format!(
                "Option {typed} is ambiguous ({})",
                names.join(", ")
            )))
        }
    }
}

/// The one spelling among `hits` that names an option of pprof's (jeprof's when `jeprof`),
/// when there is one.
fn pprof_meaning<'a>(hits: &[&'a Spelling<'a>], jeprof: bool) -> Option<&'a Spelling<'a>> {
    let ours: Vec<&&Spelling<'_>> = hits
        .iter()
        .filter(|h| upstream(&h.spec.name, jeprof))
        .collect();
    let first = ours.first()?;
    ours.iter()
        .all(|h| h.spec.name == first.spec.name && h.negated == first.negated)
        .then_some(**first)
}

/// `value` checked for option `spec` as Getopt::Long checks it, as clap will read it: a
/// number's underscores dropped (`1_000`), an integer too large for 64 bits made the largest
/// one (Perl reads it as a float that large).
fn check_value(spec: &OptSpec, value: &str) -> Result<String> {
    let numeric = matches!(
        spec.kind,
        ValueKind::Integer | ValueKind::Count | ValueKind::Real
    );
    let v = if numeric {
        value.replace('_', "")
    } else {
        return Ok(value.to_string());
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let checked = match spec.kind {
        ValueKind::Integer => {
            let d = v.strip_prefix(['-', '+']).unwrap_or(&v);
            digits(d).then(|| match v.parse::<i64>() {
                Ok(_) => v.clone(),
                Err(_) if v.starts_with('-') => i64::MIN.to_string(),
                Err(_) => i64::MAX.to_string(),
            })
        }
        ValueKind::Count => {
            let d = v.strip_prefix('+').unwrap_or(&v);
            digits(d).then(|| match d.parse::<u64>() {
                Ok(_) => v.clone(),
                Err(_) => u64::MAX.to_string(),
            })
        }
        _ => perl_real(value).map(|x| x.to_string()),
    };
    if let Some(v) = checked {
        return Ok(v);
    }
    let what = match spec.kind {
        ValueKind::Count if value.starts_with('-') => "a number of 0 or more expected",
        ValueKind::Integer | ValueKind::Count => "number expected",
        _ => "real number expected",
    };
    Err(Error::usage(format!(
        "Value \"{value}\" invalid for option {} ({what})",
        spec.name
    )))
}

/// A real option's value as pprof reads it: Getopt::Long 2.52 takes what its float pattern
/// matches, `[-+]?(?=[0-9.])[0-9_]*(.[0-9_]+)?([eE][-+]?[0-9_]+)?` (the `.` of its fraction is
/// any character: `\.` in a Perl string is a plain `.`, so `0x1` and `1a5` pass and `1.`
/// does not), and Perl makes a number of the longest numeric prefix (`0x1` is 0, `1e400`
/// infinite, `-0` zero). `None` when the pattern refuses it.
fn perl_real(value: &str) -> Option<f64> {
    let b = value.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    if !matches!(b.get(i), Some(b'0'..=b'9' | b'.')) {
        return None;
    }
    let digits = |i: &mut usize| {
        let from = *i;
        while matches!(b.get(*i), Some(b'0'..=b'9' | b'_')) {
            *i += 1;
        }
        *i > from
    };
    digits(&mut i);
    // The fraction: any one character (not a line end) and digits.
    if let Some(len) = value[i..]
        .chars()
        .next()
        .filter(|&c| c != '\n')
        .map(char::len_utf8)
    {
        let mut j = i + len;
        if digits(&mut j) {
            i = j;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        if digits(&mut j) {
            i = j;
        }
    }
    if i != b.len() {
        return None;
    }
    // Perl's number: the longest prefix that reads as one, underscores dropped.
    let plain = value.replace('_', "");
    let p = plain.as_bytes();
    let mut n = usize::from(matches!(p.first(), Some(b'-' | b'+')));
    let int_digits = p[n..].iter().take_while(|c| c.is_ascii_digit()).count();
    n += int_digits;
    let mut any = int_digits > 0;
    if p.get(n) == Some(&b'.') {
        let f = p[n + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if any || f > 0 {
            n += 1 + f;
            any = true;
        }
    }
    if any && matches!(p.get(n), Some(b'e' | b'E')) {
        let mut e = n + 1;
        if matches!(p.get(e), Some(b'-' | b'+')) {
            e += 1;
        }
        let d = p[e..].iter().take_while(|c| c.is_ascii_digit()).count();
        if d > 0 {
            n = e + d;
        }
    }
    let x = if any {
        plain[..n].parse::<f64>().unwrap_or(0.0)
    } else {
        0.0
    };
    // Perl reads `-0` as the integer 0.
    Some(x + 0.0)
}

/// An option word without its dashes, as its name and its `=value` if any. Getopt::Long
/// looks for the `=` from the name's second character: `--=x` names the option `=x`.
fn split_option(body: &str) -> (&str, Option<&str>) {
    match body.get(1..).and_then(|r| r.find('=')) {
        Some(i) => (&body[..=i], Some(&body[i + 2..])),
        None => (body, None),
    }
}

/// Rewrites a pprof-style command line (without the program name) into canonical
/// `--name[=value]` options followed by `--` and the files; `jeprof`: invoked as jeprof
/// (abbreviations as jeprof reads them).
pub fn normalize(argv: &[String], jeprof: bool) -> Result<Vec<String>> {
    let specs = specs();
    let all = spellings(&specs);
    // Final state per option: switches on/off, values (last one wins).
    let mut order: Vec<String> = Vec::new();
    let mut switches: std::collections::HashMap<String, bool> = Default::default();
    let mut values: std::collections::HashMap<String, String> = Default::default();
    let mut files: Vec<String> = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if a == "--" {
            files.extend(argv[i..].iter().cloned());
            break;
        }
        let body = if let Some(b) = a.strip_prefix("--") {
            b
        } else if a.len() > 1 && a.starts_with('-') {
            &a[1..]
        } else if let Some(b) = a.strip_prefix('+')
            && resolve(split_option(b).0, &all, jeprof).is_ok()
        {
            // Getopt::Long takes `+` for `-` too (`+text`); a `+` word that names no option
            // is a file.
            b
        } else {
            files.push(a.clone());
            continue;
        };
        let (typed, inline) = split_option(body);
        let inline = inline.map(str::to_string);
        let sp = resolve(typed, &all, jeprof)?;
        let name = sp.spec.name.clone();
        if !order.contains(&name) {
            order.push(name.clone());
        }
        match sp.spec.kind {
            ValueKind::Switch { .. } => {
                if let Some(v) = inline {
                    return Err(Error::usage(format!(
                        "Option {} does not take an argument (given \"{v}\")",
                        sp.text
                    )));
                }
                switches.insert(name, !sp.negated);
            }
            _ => {
                let v = match inline {
                    // Getopt::Long: `--focus=` has no argument (`--focus ''` has an empty one).
                    Some(v) if v.is_empty() => {
                        return Err(Error::usage(format!("Option {name} requires an argument")));
                    }
                    Some(v) => v,
                    None => {
                        let Some(v) = argv.get(i) else {
                            return Err(Error::usage(format!(
                                "Option {name} requires an argument"
                            )));
                        };
                        i += 1;
                        v.clone()
                    }
                };
                let v = check_value(sp.spec, &v)?;
                if v.is_empty() && (name == "list" || name == "disasm") {
                    // pprof: `--list ''` is no listing (a script's unset variable).
                    values.remove(&name);
                } else {
                    values.insert(name, v);
                }
            }
        }
    }
    let mut out = Vec::new();
    // pprof answers --help before --version, whatever their order.
    if let Some(i) = order.iter().position(|n| n == "help") {
        let help = order.remove(i);
        order.insert(0, help);
    }
    for name in order {
        if let Some(&on) = switches.get(&name) {
            if on {
                out.push(format!("--{name}"));
            }
        } else if let Some(v) = values.get(&name) {
            out.push(format!("--{name}={v}"));
        }
    }
    out.push("--".to_string());
    out.extend(files);
    Ok(out)
}

impl Args {
    /// True when no output mode was given: pprof then starts its shell if standard output
    /// is a terminal, and prints `--text` otherwise.
    pub fn no_mode(&self) -> bool {
        self.mode().is_ok_and(|m| m == Mode::Text) && !self.text && self.http.is_none()
    }

    /// The output mode, or the error pprof gives for more than one.
    fn mode(&self) -> Result<Mode> {
        if self.trend || self.csv || self.json {
            return self.trend_mode();
        }
        let modes = [
            (self.text, Mode::Text),
            (self.callgrind, Mode::Callgrind),
            (self.list.is_some(), Mode::List),
            (self.disasm.is_some(), Mode::Disasm),
            (self.symbols, Mode::Symbols),
            (self.gv, Mode::Gv),
            (self.evince, Mode::Evince),
            (self.web, Mode::Web),
            (self.dot, Mode::Dot),
            (self.ps, Mode::Ps),
            (self.pdf, Mode::Pdf),
            (self.svg, Mode::Svg),
            (self.gif, Mode::Gif),
            (self.raw, Mode::Raw),
            (self.collapsed, Mode::Collapsed),
            (self.interactive, Mode::Interactive),
            (self.flame, Mode::Flame),
            (self.proto, Mode::Proto),
            (self.traces, Mode::Traces),
            (self.peek.is_some(), Mode::Peek),
        ];
        let on: Vec<Mode> = modes.iter().filter(|m| m.0).map(|m| m.1).collect();
        match on.len() {
            0 => Ok(Mode::Text),
            1 => Ok(on[0]),
            _ => Err(Error::usage("Only specify one output mode")),
        }
    }

    /// `--trend` and its format: `--text` (the default), `--csv`, `--json` or `--svg`.
    fn trend_mode(&self) -> Result<Mode> {
        if !self.trend {
            return Err(Error::usage("--csv and --json are formats of --trend"));
        }
        // Said before the dumps are read.
        if self.base.is_some() {
            return Err(Error::usage(crate::trend::NO_BASE));
        }
        if self.thread.is_some() {
            return Err(Error::usage(crate::trend::NO_THREAD));
        }
        let formats = [
            (self.text, TrendFormat::Text),
            (self.csv, TrendFormat::Csv),
            (self.json, TrendFormat::Json),
            (self.svg, TrendFormat::Svg),
        ];
        let others = [
            self.callgrind,
            self.list.is_some(),
            self.disasm.is_some(),
            self.symbols,
            self.gv,
            self.evince,
            self.web,
            self.dot,
            self.ps,
            self.pdf,
            self.gif,
            self.raw,
            self.collapsed,
            self.interactive,
            self.flame,
            self.proto,
            self.traces,
            self.peek.is_some(),
        ];
        if others.iter().any(|&o| o) {
            return Err(Error::usage(
                "Only specify one output mode (--trend prints text, or --csv, --json or --svg)",
            ));
        }
        let on: Vec<TrendFormat> = formats.iter().filter(|f| f.0).map(|f| f.1).collect();
        match on.len() {
            0 => Ok(Mode::Trend(TrendFormat::Text)),
            1 => Ok(Mode::Trend(on[0])),
            _ => Err(Error::usage(
                "Only specify one format for --trend (--text, --csv, --json or --svg)",
            )),
        }
    }

    /// The library options for this command line (`jeprof`: invoked as jeprof).
    pub fn into_options(self, jeprof: bool) -> Result<Options> {
        let mode = self.mode()?;
        let heap = [
            self.inuse_space,
            self.inuse_objects,
            self.alloc_space,
            self.alloc_objects,
        ];
        if heap.iter().filter(|b| **b).count() > 1 {
            return Err(Error::usage(
                "Specify at most one of --inuse_space, --inuse_objects, --alloc_space, --alloc_objects",
            ));
        }
        let mut granularity = Granularity::Functions;
        let grains = [
            (self.functions, Granularity::Functions),
            (self.lines, Granularity::Lines),
            (self.addresses, Granularity::Addresses),
            (self.files, Granularity::Files),
        ];
        let set: Vec<Granularity> = grains.iter().filter(|g| g.0).map(|g| g.1).collect();
        if matches!(mode, Mode::List | Mode::Disasm | Mode::Symbols) {
            granularity = Granularity::Addresses;
        } else if set.len() > 1 {
            return Err(Error::usage("Only specify one output granularity option"));
        } else if let Some(g) = set.first() {
            granularity = *g;
        }
        if self.test {
            return Err(Error::not_implemented("--test (pprof's self tests)"));
        }
        if self.http.is_some() && (mode != Mode::Text || self.text || self.stacks) {
            return Err(Error::usage(
                "--http shows every report itself: give no output mode with it",
            ));
        }
        if self.http.is_none() {
            for (set, name) in [
                (self.no_browser, "--no_browser"),
                (self.every.is_some(), "--every"),
                (self.max_profiles_kept.is_some(), "--max_profiles_kept"),
            ] {
                if set {
                    return Err(Error::usage(format!("{name} works with --http only")));
                }
            }
        }
        let every = match &self.every {
            Some(e) => Some(crate::web::parse_duration(e)?),
            None => None,
        };
        let heap_value = if self.inuse_objects {
            HeapValue::InuseObjects
        } else if self.alloc_space {
            HeapValue::AllocSpace
        } else if self.alloc_objects {
            HeapValue::AllocObjects
        } else {
            HeapValue::InuseSpace
        };
        let contention_value = if self.total_delay {
            ContentionValue::TotalDelay
        } else if self.contentions {
            ContentionValue::Contentions
        } else if self.mean_delay {
            ContentionValue::MeanDelay
        } else {
            ContentionValue::TotalDelay
        };
        let lib_prefix = self
            .lib_prefix
            .as_deref()
            .map(|s| {
                s.split(',')
                    .filter(|p| !p.is_empty())
                    .map(|p| p.trim_end_matches('/').to_string())
                    .collect()
            })
            .unwrap_or_default();
        Ok(Options {
            args: self.paths,
            base: self.base.filter(|b| !b.is_empty()),
            mode,
            granularity,
            cum: self.cum,
            stacks: self.stacks,
            heap_value,
            contention_value,
            value_flags: [
                (self.inuse_space, "--inuse_space", Kind::Heap),
                (self.inuse_objects, "--inuse_objects", Kind::Heap),
                (self.alloc_space, "--alloc_space", Kind::Heap),
                (self.alloc_objects, "--alloc_objects", Kind::Heap),
                (self.total_delay, "--total_delay", Kind::Contention),
                (self.contentions, "--contentions", Kind::Contention),
                (self.mean_delay, "--mean_delay", Kind::Contention),
            ]
            .into_iter()
            .filter(|f| f.0)
            .map(|f| (f.1, f.2))
            .collect(),
            show_bytes: self.show_bytes,
            drop_negative: self.drop_negative,
            focus: self.focus.filter(|s| !s.is_empty()),
            ignore: self.ignore.filter(|s| !s.is_empty()),
            keep_templates: self.no_strip_temp,
            show_addresses: self.show_addresses,
            no_auto_signal_frames: self.no_auto_signal_frm,
            lib_prefix,
            add_lib: self.add_lib.filter(|s| !s.is_empty()),
            thread: self.thread,
            retain: self.retain.filter(|s| !s.is_empty()),
            exclude: self.exclude.filter(|s| !s.is_empty()),
            jeprof,
            debug: self.debug,
            pprof_quirks: self.pprof_quirks,
            full_names: self.full_names,
            exit_after: true,
            tools: self
                .tools
                .clone()
                .or_else(|| std::env::var("PPROF_TOOLS").ok().filter(|t| !t.is_empty())),
            routines: self
                .list
                .clone()
                .or_else(|| self.disasm.clone())
                .or_else(|| self.peek.clone()),
            seconds: self.seconds,
            http: self.http.clone(),
            no_browser: self.no_browser,
            every,
            max_profiles_kept: self.max_profiles_kept,
            cache: if self.no_cache || crate::symbolize::cache::disabled_by_env() {
                None
            } else {
                crate::symbolize::cache::default_dir()
            },
            graph: CallGraph {
                nodecount: self.nodecount.unwrap_or(80),
                nodefraction: self.nodefraction.unwrap_or(0.005),
                edgefraction: self.edgefraction.unwrap_or(0.001),
                maxdegree: self.maxdegree.unwrap_or(8),
                heapcheck: self.heapcheck,
                scale: self.scale.unwrap_or(0),
            },
        })
    }
}

// unwrap here only in tests, on fixtures the tests make themselves (no input reaches
// them): a failure is the test failing.
#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> Result<Vec<String>> {
        normalize(
            &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            false,
        )
    }

    /// What Getopt::Long 2.52 takes for `=f` and the number Perl makes of it (checked with
    /// `perl -MGetopt::Long -e 'GetOptions("x=f" => \$x)'` and pprof's legends).
    #[test]
    fn real_values_as_pprof_reads_them() {
        for (v, want) in [
            ("0.005", Some(0.005)),
            (".5", Some(0.5)),
            ("._5", Some(0.5)),
            ("1_0", Some(10.0)),
            ("+1", Some(1.0)),
            ("1e+_3", Some(1000.0)),
            ("0x1", Some(0.0)),
            ("0X1", Some(0.0)),
            ("0b1", Some(0.0)),
            ("1a5", Some(1.0)),
            ("-0", Some(0.0)),
            ("-0.0", Some(0.0)),
            ("1e400", Some(f64::INFINITY)),
            ("-1e400", Some(f64::NEG_INFINITY)),
            ("1.", None),
            ("0x", None),
            ("0xg", None),
            ("0x1.5", None),
            ("+_1", None),
            ("5e", None),
            ("inf", None),
            ("nan", None),
            ("", None),
            ("x1", None),
        ] {
            let got = perl_real(v);
            assert_eq!(got, want, "{v}");
            // Never -0: Perl prints 0.0 for it.
            assert!(
                got.is_none_or(|x| !(x == 0.0 && x.is_sign_negative())),
                "{v}"
            );
        }
        assert_eq!(
            norm(&["--nodefraction=0x1", "p"]).unwrap(),
            ["--nodefraction=0", "--", "p"]
        );
        assert_eq!(
            norm(&["--edgefraction", "1e400", "p"]).unwrap(),
            ["--edgefraction=inf", "--", "p"]
        );
    }

    #[test]
    fn getopt_forms() {
        assert_eq!(
            norm(&["-text", "prog", "--base", "b.heap", "p.heap"]).unwrap(),
            ["--text", "--base=b.heap", "--", "prog", "p.heap"]
        );
        assert_eq!(
            norm(&["prog", "p", "--inuse_obj", "--TEXT"]).unwrap(),
            ["--inuse_objects", "--text", "--", "prog", "p"]
        );
        assert_eq!(norm(&["--text", "--notext", "a"]).unwrap(), ["--", "a"]);
        assert_eq!(
            norm(&["--no-cum", "--cum", "a"]).unwrap(),
            ["--cum", "--", "a"]
        );
        assert_eq!(norm(&["--", "-x"]).unwrap(), ["--", "-x"]);
        // `+` as an option's prefix (Getopt::Long's default); a `+` word naming no option
        // is a file.
        assert_eq!(
            norm(&["+text", "prog", "+base=b", "+nodecount", "3", "+x.heap"]).unwrap(),
            [
                "--text",
                "--base=b",
                "--nodecount=3",
                "--",
                "prog",
                "+x.heap"
            ]
        );
        // Numbers: underscores dropped, integers past 64 bits the largest.
        assert_eq!(
            norm(&[
                "--nodecount=1_000",
                "--edgefraction=0.1_5",
                "--seconds",
                "1_5",
                "a"
            ])
            .unwrap(),
            [
                "--nodecount=1000",
                "--edgefraction=0.15",
                "--seconds=15",
                "--",
                "a"
            ]
        );
        assert_eq!(
            norm(&[
                "--nodecount=99999999999999999999",
                "--seconds=99999999999999999999"
            ])
            .unwrap(),
            [
                "--nodecount=9223372036854775807",
                "--seconds=18446744073709551615",
                "--"
            ]
        );
        assert_eq!(
            norm(&["--nodecount=-99999999999999999999"]).unwrap(),
            ["--nodecount=-9223372036854775808", "--"]
        );
        // --help before --version, as pprof answers them.
        assert_eq!(
            norm(&["--version", "--help"]).unwrap(),
            ["--help", "--version", "--"]
        );
        // An empty --list or --disasm is none (pprof's `eq ''`), the last one given wins.
        assert_eq!(norm(&["--list", "", "a"]).unwrap(), ["--", "a"]);
        assert_eq!(norm(&["--list=f", "--list", "", "a"]).unwrap(), ["--", "a"]);
        assert_eq!(
            norm(&["--disasm", "", "--text", "a"]).unwrap(),
            ["--text", "--", "a"]
        );
    }

    /// Every abbreviation unique among pprof's options means there what it means in pprof,
    /// whatever rpprof's own options begin with.
    #[test]
    fn pprof_abbreviations_keep_their_meaning() {
        let specs = specs();
        let all = spellings(&specs);
        let mut checked = 0;
        // pprof's spellings, its switches' negations (`--nocum`, `--no-cum`) included.
        let pprof: Vec<String> = PPROF_OPTIONS
            .iter()
            .flat_map(|o| [o.to_string(), format!("no{o}"), format!("no-{o}")])
            .collect();
        for name in PPROF_OPTIONS {
            assert!(
                specs.iter().any(|s| s.name == *name),
                "{name} is not an option"
            );
            for end in 1..=name.len() {
                let typed = &name[..end];
                // An exact name always resolves; a prefix only when pprof has one meaning for it.
                if typed != *name && pprof.iter().any(|t| t != name && t.starts_with(typed)) {
                    continue;
                }
                let s = resolve(typed, &all, false).unwrap_or_else(|e| panic!("--{typed}: {e}"));
                assert_eq!(
                    (s.spec.name.as_str(), s.negated),
                    (*name, false),
                    "--{typed}"
                );
                checked += 1;
            }
        }
        assert!(checked > 200, "{checked}");
        // rpprof's own options are still reached by their unique abbreviations.
        for (typed, name) in [
            ("cache_l", "cache_list"),
            ("ever", "every"),
            ("full", "full_names"),
        ] {
            // (Test code: no input reaches this unwrap; a failure is the test's.)
            assert_eq!(resolve(typed, &all, false).unwrap().spec.name, name);
        }
        assert!(resolve("no_", &all, false).is_ok_and(|s| s.spec.name == "no_strip_temp"));
    }

    /// Invoked as jeprof, an abbreviation means what it means in jeprof, which has no
    /// `--show_addresses`; google-pprof has both, and finds `--sh` ambiguous.
    #[test]
    fn abbreviations_as_jeprof_reads_them() {
        let specs = specs();
        let all = spellings(&specs);
        for typed in ["sh", "sho", "show", "show_", "nosh", "no-sh"] {
            let s = resolve(typed, &all, true).unwrap_or_else(|e| panic!("--{typed}: {e}"));
            assert_eq!(s.spec.name, "show_bytes", "--{typed}");
            assert_eq!(s.negated, typed.starts_with("no"), "--{typed}");
            let e = resolve(typed, &all, false).map(|s| &s.spec.name);
            assert!(e.is_err(), "--{typed} as google-pprof: {e:?}");
        }
        // (Test code: no input reaches these unwraps; a failure is the test's.)
        assert_eq!(resolve("ret", &all, true).unwrap().spec.name, "retain");
    }

    #[test]
    fn getopt_errors() {
        let e = norm(&["--t", "a"]).unwrap_err().to_string();
        assert!(e.starts_with("Option t is ambiguous ("), "{e}");
        assert!(e.contains("text"), "{e}");
        assert_eq!(
            norm(&["--traceback"]).unwrap_err().to_string(),
            "Unknown option: traceback"
        );
        assert_eq!(
            norm(&["--seconds=x"]).unwrap_err().to_string(),
            "Value \"x\" invalid for option seconds (number expected)"
        );
        assert_eq!(
            norm(&["--base"]).unwrap_err().to_string(),
            "Option base requires an argument"
        );
        assert!(norm(&["--nobase=x"]).is_err());
        assert_eq!(
            norm(&["--=x"]).unwrap_err().to_string(),
            "Unknown option: =x"
        );
    }

    #[test]
    fn modes_and_granularity() {
        let a = Args::parse_from(["rpprof", "--text", "--dot", "--", "p"]);
        assert_eq!(
            a.into_options(false).unwrap_err().to_string(),
            "Only specify one output mode"
        );
        let a = Args::parse_from(["rpprof", "--lines", "--files", "--", "p"]);
        assert_eq!(
            a.into_options(false).unwrap_err().to_string(),
            "Only specify one output granularity option"
        );
    }
}
