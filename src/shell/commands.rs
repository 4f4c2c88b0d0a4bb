//! The shell's grammar: pprof's commands (`top`, `list`, `web`, ...) with their focus and
//! `-ignore` words, Go pprof's `name=value` options, its report commands and `>file`.

use crate::report::Mode;

/// One line typed at the prompt, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Nothing (an empty line).
    Empty,
    /// `quit`, `exit` (and end of input).
    Quit,
    /// `help [topic]`.
    Help(Option<String>),
    /// `o`, `options`.
    Options,
    /// `name=value` (or a shortcut for one, such as `alloc_space` or `lines`).
    Set {
        /// The option's name as typed.
        name: String,
        /// The value, trimmed.
        value: String,
    },
    /// A report.
    Report(Request),
    /// `callgrind [file]`.
    Callgrind(Option<String>),
    /// Something else.
    Unknown(String),
}

/// The report commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// pprof's `top`/`text`: the text report, 10 lines or the number after the word.
    Top,
    /// `list <re>`.
    List,
    /// `weblist <re>`: the listing in a browser.
    Weblist,
    /// `disasm <re>`.
    Disasm,
    /// `web`, `gv`, `evince`: the call graph in a viewer.
    Graph(Mode),
    /// Go pprof's `peek <re>`: callers and callees.
    Peek,
    /// Any other output mode of the command line (`dot`, `svg`, `collapsed`, `flame`,
    /// `proto`, `raw`, `traces`, ...), as the command line prints it.
    Mode(Mode),
}

impl Verb {
    /// pprof's own interactive commands print the `Total:` line and report their focus and
    /// ignore words; the others print what the command line prints.
    pub fn is_pprof(self) -> bool {
        matches!(
            self,
            Verb::Top | Verb::List | Verb::Weblist | Verb::Disasm | Verb::Graph(_)
        )
    }
}

/// A report asked for, with the words that go with it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    /// The command.
    pub verb: Option<Verb>,
    /// `topN`, or a number among the words of `top`.
    pub lines: Option<usize>,
    /// The routines of `list`, `disasm`, `peek` (the first words, joined with `|`).
    pub routines: Option<String>,
    /// Focus words, joined with `|`.
    pub focus: Option<String>,
    /// `-word`s, joined with `|`.
    pub ignore: Option<String>,
    /// `--cum`.
    pub cum: bool,
    /// `--lines`.
    pub by_lines: bool,
    /// `>file` (empty: a `>` with no file name after it).
    pub output: Option<String>,
    /// `>>file`: the report is added at the end of the file rather than replacing it.
    pub append: bool,
    /// The files of the `>` after the first, when there are several.
    pub more_outputs: Vec<String>,
}

/// Every command, for help and completion: name, arguments, what it does.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "top",
        "[N] [--cum] [--lines] [focus...] [-ignore...]",
        "the N (10) heaviest functions, by flat or --cum value; \"topN\" too",
    ),
    (
        "text",
        "[N] [--cum] [--lines] [focus...] [-ignore...]",
        "the same as top (pprof's name)",
    ),
    (
        "list",
        "<regexp> [-ignore...]",
        "annotated source of the functions matching <regexp>",
    ),
    (
        "weblist",
        "<regexp> [-ignore...]",
        "the same listing in a web browser, each line opening on a click to its instructions",
    ),
    (
        "disasm",
        "<regexp> [-ignore...]",
        "annotated disassembly of the functions matching <regexp> (needs objdump)",
    ),
    (
        "peek",
        "<regexp> [focus...] [-ignore...]",
        "the callers and callees of the functions matching <regexp>",
    ),
    (
        "web",
        "[focus...] [-ignore...]",
        "the call graph in a web browser ($BROWSER first; needs graphviz)",
    ),
    (
        "gv",
        "[focus...] [-ignore...]",
        "the call graph in gv (PostScript)",
    ),
    (
        "evince",
        "[focus...] [-ignore...]",
        "the call graph in evince (PDF)",
    ),
    (
        "callgrind",
        "[file]",
        "the call graph for KCachegrind, written to <file> (or opened in kcachegrind)",
    ),
    (
        "traces",
        "[focus...] [-ignore...]",
        "every stack with its value",
    ),
    (
        "dot",
        "[focus...] [-ignore...]",
        "the call graph in Graphviz's DOT language",
    ),
    (
        "svg",
        "[focus...] [-ignore...]",
        "the call graph as SVG, written to a file",
    ),
    (
        "pdf",
        "[focus...] [-ignore...]",
        "the call graph as PDF, written to a file",
    ),
    (
        "ps",
        "[focus...] [-ignore...]",
        "the call graph as PostScript, written to a file",
    ),
    (
        "gif",
        "[focus...] [-ignore...]",
        "the call graph as GIF, written to a file",
    ),
    (
        "collapsed",
        "[focus...] [-ignore...]",
        "one line per stack, for flame graph tools",
    ),
    (
        "flame",
        "[focus...] [-ignore...]",
        "an SVG flame graph (differential with a base), written to a file",
    ),
    (
        "proto",
        "[focus...] [-ignore...]",
        "a gzipped profile.proto for Go pprof, written to a file",
    ),
    (
        "raw",
        "[focus...] [-ignore...]",
        "a symbolized profile, readable without the program",
    ),
    ("options", "", "the options and their values (also \"o\")"),
    (
        "help",
        "[command|option]",
        "this list, or help on one command or option",
    ),
    (
        "quit",
        "",
        "leave the shell (also \"exit\" or end of input)",
    ),
];

/// The options that persist from command to command: name, values, what it does.
pub const OPTIONS: &[(&str, &str, &str)] = &[
    (
        "sample_index",
        "inuse_space | inuse_objects | alloc_space | alloc_objects | delay | contentions | mean_delay | samples",
        "the value to report (one the profile has), or its number (from 0) in the list \"options\" shows",
    ),
    (
        "granularity",
        "functions | lines | files | addresses",
        "one report line per function, source line, file or address",
    ),
    (
        "focus",
        "<regexp>",
        "only the stacks with a frame matching (by name, file:line or address)",
    ),
    (
        "ignore",
        "<regexp>",
        "drop the stacks with a frame matching",
    ),
    ("hide", "<regexp>", "drop the frames whose function matches"),
    (
        "show",
        "<regexp>",
        "keep only the frames whose function matches",
    ),
    (
        "nodecount",
        "<n>",
        "at most n nodes in the call graph (80); top's line count is its own",
    ),
    ("cum", "true | false", "sort by cumulative value"),
    (
        "base",
        "<profile>",
        "subtract this profile (what grew since); \"base=\" drops it",
    ),
    (
        "drop_negative",
        "true | false",
        "with a base: leave out what shrank",
    ),
    (
        "show_bytes",
        "true | false",
        "heap sizes in bytes instead of MB",
    ),
];

/// The shell's commands and options, for `--help` and the man page.
pub fn summary() -> String {
    let mut s = String::from(
        "Interactive shell (--interactive, or no output mode with standard output on a terminal): \
reports go to standard output, the prompt and messages to standard error; on a terminal, \
lines are edited with history (kept in $XDG_STATE_HOME/rpprof/history), Ctrl-R searches it \
and Tab completes commands, options and function names.\n\nShell commands:\n",
    );
    for (name, args, what) in COMMANDS {
        s.push_str(&format!(
            "  {}\n      {what}\n",
            format!("{name} {args}").trim_end()
        ));
    }
    s.push_str("\nShell options (name=value, kept until changed; \"options\" lists them):\n");
    for (name, values, what) in OPTIONS {
        s.push_str(&format!("  {name}={values}\n      {what}\n"));
    }
    s.push_str("\nA command followed by >file writes its report to the file.");
    s
}

/// The granularity names, as `granularity=` takes them.
pub const GRANULARITIES: &[&str] = &["functions", "lines", "files", "addresses"];

/// Go pprof's output-mode commands and the mode each renders.
pub const MODES: &[(&str, Mode)] = &[
    ("traces", Mode::Traces),
    ("dot", Mode::Dot),
    ("svg", Mode::Svg),
    ("pdf", Mode::Pdf),
    ("ps", Mode::Ps),
    ("gif", Mode::Gif),
    ("collapsed", Mode::Collapsed),
    ("flame", Mode::Flame),
    ("proto", Mode::Proto),
    ("raw", Mode::Raw),
];

/// True for a name that can stand for `name=value` alone: `alloc_space` for
/// `sample_index=alloc_space`, `lines` for `granularity=lines` (Go pprof's shortcuts).
pub fn shortcut(word: &str, sample_types: &[&str]) -> Option<(&'static str, String)> {
    // (Another kind of profile's value too: `sample_index=` then says which this one has.)
    let any_kind = || {
        use crate::profile::{CONTENTION_TYPES, CPU_TYPES, HEAP_TYPES};
        HEAP_TYPES
            .iter()
            .chain(&CPU_TYPES)
            .chain(&CONTENTION_TYPES)
            .any(|t| t.name == word)
    };
    if sample_types.contains(&word) || any_kind() {
        return Some(("sample_index", word.to_string()));
    }
    if GRANULARITIES.contains(&word) {
        return Some(("granularity", word.to_string()));
    }
    None
}

/// Parses one line. `sample_types` are the names `sample_index=` takes, for the shortcuts.
pub fn parse(line: &str, sample_types: &[&str]) -> Line {
    let line = line.trim_matches(|c: char| c.is_whitespace());
    if line.is_empty() {
        return Line::Empty;
    }
    // name=value: the part before the first '=' is one word.
    if let Some((name, value)) = line.split_once('=') {
        let name = name.trim();
        if !name.is_empty() && !name.contains(char::is_whitespace) {
            return Line::Set {
                name: name.to_string(),
                value: value.trim().to_string(),
            };
        }
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words[0];
    let rest = &words[1..];
    match first {
        "quit" | "exit" => return Line::Quit,
        "help" => return Line::Help((!rest.is_empty()).then(|| rest.join(" "))),
        "o" | "options" => return Line::Options,
        // (`callgrind >file` as the other reports take it, `callgrind file` as pprof.)
        // (An empty name: a '>' without a file, which the shell refuses as for the others;
        // one starting with '>': a `>>`, refused too.)
        "callgrind" => {
            let file = match rest {
                [">", f, ..] => Some(f.to_string()),
                [">>", f, ..] => Some(format!(">{f}")),
                [f, ..] => Some(f.strip_prefix('>').unwrap_or(f).to_string()),
                [] => None,
            };
            return Line::Callgrind(file);
        }
        _ => {}
    }
    if let Some((name, value)) = shortcut(first, sample_types)
        && rest.is_empty()
    {
        return Line::Set {
            name: name.to_string(),
            value,
        };
    }
    // top, top20, text, text5
    let (word, digits) = match first.find(|c: char| c.is_ascii_digit()) {
        Some(i) if first[i..].bytes().all(|b| b.is_ascii_digit()) => (&first[..i], &first[i..]),
        _ => (first, ""),
    };
    let verb = match word {
        "top" | "text" => Verb::Top,
        "list" if digits.is_empty() => Verb::List,
        "weblist" if digits.is_empty() => Verb::Weblist,
        "disasm" if digits.is_empty() => Verb::Disasm,
        "peek" if digits.is_empty() => Verb::Peek,
        "web" if digits.is_empty() => Verb::Graph(Mode::Web),
        "gv" if digits.is_empty() => Verb::Graph(Mode::Gv),
        "evince" if digits.is_empty() => Verb::Graph(Mode::Evince),
        w if digits.is_empty() => match MODES.iter().find(|(n, _)| *n == w) {
            Some((_, m)) => Verb::Mode(*m),
            None => return Line::Unknown(first.to_string()),
        },
        _ => return Line::Unknown(first.to_string()),
    };
    let mut r = Request {
        verb: Some(verb),
        lines: line_count(digits),
        ..Request::default()
    };
    let takes_routine = matches!(verb, Verb::List | Verb::Weblist | Verb::Disasm | Verb::Peek);
    let mut routines: Vec<&str> = Vec::new();
    let mut focus: Vec<&str> = Vec::new();
    let mut ignore: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i];
        i += 1;
        if let Some(f) = w.strip_prefix('>') {
            let f = match f.strip_prefix('>') {
                Some(f) => {
                    r.append = true;
                    f
                }
                None => f,
            };
            let file = if f.is_empty() {
                i += 1;
                rest.get(i - 1).map(|s| s.to_string()).unwrap_or_default()
            } else {
                f.to_string()
            };
            match r.output {
                None => r.output = Some(file),
                Some(_) => r.more_outputs.push(file),
            }
            continue;
        }
        match w {
            "-" => {}
            "--cum" | "-cum" => r.cum = true,
            "--lines" | "-lines" => r.by_lines = true,
            _ if w.len() > 1 && w.starts_with('-') => ignore.push(&w[1..]),
            _ if verb == Verb::Top
                && r.lines.is_none()
                && !w.is_empty()
                && w.bytes().all(|b| b.is_ascii_digit()) =>
            {
                r.lines = line_count(w);
            }
            // pprof joins all the words of list and disasm into the routine pattern; peek
            // takes its first word as the routine and the others as focus.
            _ if takes_routine && (verb != Verb::Peek || routines.is_empty()) => routines.push(w),
            _ => focus.push(w),
        }
    }
    let join = |v: Vec<&str>| (!v.is_empty()).then(|| v.join("|"));
    r.routines = join(routines);
    r.focus = join(focus);
    r.ignore = join(ignore);
    Line::Report(r)
}

/// The number of lines `digits` asks for: none when empty; past the largest number, all
/// (pprof prints every line for `top99999999999999999999`).
fn line_count(digits: &str) -> Option<usize> {
    (!digits.is_empty()).then(|| digits.parse().unwrap_or(usize::MAX))
}

/// The closest of `candidates` to `typed`, when close enough to be what was meant.
pub fn did_you_mean<'a>(typed: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        // (A word that only begins as one does, `show_bytes` and `show`, is not it.)
        let d = if c.starts_with(typed) {
            0
        } else {
            distance(typed, c)
        };
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    let limit = (typed.chars().count() / 3).clamp(1, 3);
    best.filter(|(d, _)| *d <= limit).map(|(_, c)| c)
}

/// Edit distance, a swap of two neighbouring characters counting as one edit (`tpo` is one
/// from `top`), as in the optimal string alignment distance.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAP: &[&str] = &[
        "inuse_objects",
        "inuse_space",
        "alloc_objects",
        "alloc_space",
    ];

    fn report(line: &str) -> Request {
        match parse(line, HEAP) {
            Line::Report(r) => r,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn pprof_commands() {
        let r = report("top");
        assert_eq!((r.verb, r.lines, r.focus), (Some(Verb::Top), None, None));
        let r = report("top99999999999999999999");
        assert_eq!(r.lines, Some(usize::MAX));
        let r = report("top 99999999999999999999");
        assert_eq!(r.lines, Some(usize::MAX));
        let r = report("top20 --cum foo -bar -baz qux");
        assert_eq!(r.lines, Some(20));
        assert!(r.cum);
        assert_eq!(r.focus.as_deref(), Some("foo|qux"));
        assert_eq!(r.ignore.as_deref(), Some("bar|baz"));
        let r = report("text5 -lines");
        assert_eq!(
            (r.verb, r.lines, r.by_lines),
            (Some(Verb::Top), Some(5), true)
        );
        let r = report("list foo bar -baz");
        assert_eq!(r.verb, Some(Verb::List));
        assert_eq!(r.routines.as_deref(), Some("foo|bar"));
        assert_eq!(r.ignore.as_deref(), Some("baz"));
        assert_eq!(report("web x").verb, Some(Verb::Graph(Mode::Web)));
        assert_eq!(report("weblist x").verb, Some(Verb::Weblist));
        assert_eq!(
            parse("callgrind /tmp/x", HEAP),
            Line::Callgrind(Some("/tmp/x".into()))
        );
        assert_eq!(parse("  quit", HEAP), Line::Quit);
        assert_eq!(parse("", HEAP), Line::Empty);
        assert_eq!(parse("bogus", HEAP), Line::Unknown("bogus".into()));
        assert_eq!(parse("list5", HEAP), Line::Unknown("list5".into()));
        // Another kind of profile's value is a setting, which says what this one has.
        assert_eq!(
            parse("contentions", HEAP),
            Line::Set {
                name: "sample_index".into(),
                value: "contentions".into()
            }
        );
    }

    #[test]
    fn go_commands() {
        assert_eq!(
            parse("sample_index = alloc_space", HEAP),
            Line::Set {
                name: "sample_index".into(),
                value: "alloc_space".into()
            }
        );
        assert_eq!(
            parse("focus=", HEAP),
            Line::Set {
                name: "focus".into(),
                value: "".into()
            }
        );
        assert_eq!(
            parse("alloc_space", HEAP),
            Line::Set {
                name: "sample_index".into(),
                value: "alloc_space".into()
            }
        );
        assert_eq!(
            parse("lines", HEAP),
            Line::Set {
                name: "granularity".into(),
                value: "lines".into()
            }
        );
        let r = report("top 25 >/tmp/out.txt");
        assert_eq!(
            (r.lines, r.output.as_deref()),
            (Some(25), Some("/tmp/out.txt"))
        );
        assert_eq!(report("top >").output.as_deref(), Some(""));
        // `>>`: the file added to; `>` replaces it.
        let r = report("top5 >>/tmp/a");
        assert_eq!((r.output.as_deref(), r.append), (Some("/tmp/a"), true));
        let r = report("top5 >> /tmp/a");
        assert_eq!((r.output.as_deref(), r.append), (Some("/tmp/a"), true));
        assert!(!report("top5 >/tmp/a").append);
        for line in [
            "callgrind /tmp/c",
            "callgrind >/tmp/c",
            "callgrind > /tmp/c",
        ] {
            assert_eq!(
                parse(line, HEAP),
                Line::Callgrind(Some("/tmp/c".into())),
                "{line}"
            );
        }
        assert_eq!(parse("callgrind", HEAP), Line::Callgrind(None));
        // (For the shell to refuse: no file after '>', and '>>'.)
        assert_eq!(parse("callgrind >", HEAP), Line::Callgrind(Some("".into())));
        for line in ["callgrind >>/tmp/c", "callgrind >> /tmp/c"] {
            assert_eq!(
                parse(line, HEAP),
                Line::Callgrind(Some(">/tmp/c".into())),
                "{line}"
            );
        }
        // Two files: both kept, for the shell to refuse (a shell would write the last).
        let r = report("top >a > b");
        assert_eq!(
            (r.output.as_deref(), r.more_outputs),
            (Some("a"), vec!["b".to_string()])
        );
        let r = report("dot > g.dot main");
        assert_eq!(r.verb, Some(Verb::Mode(Mode::Dot)));
        assert_eq!(
            (r.output.as_deref(), r.focus.as_deref()),
            (Some("g.dot"), Some("main"))
        );
        let r = report("peek alloc main -free");
        assert_eq!(r.routines.as_deref(), Some("alloc"));
        assert_eq!(r.focus.as_deref(), Some("main"));
        assert_eq!(r.ignore.as_deref(), Some("free"));
        assert_eq!(parse("help top", HEAP), Line::Help(Some("top".into())));
        assert_eq!(parse("o", HEAP), Line::Options);
    }

    #[test]
    fn suggestions() {
        let names = ["sample_index", "granularity", "focus", "nodecount"];
        assert_eq!(
            did_you_mean("sample_idx", names.into_iter()),
            Some("sample_index")
        );
        assert_eq!(
            did_you_mean("granularty", names.into_iter()),
            Some("granularity")
        );
        assert_eq!(did_you_mean("fcus", names.into_iter()), Some("focus"));
        assert_eq!(did_you_mean("zzz", names.into_iter()), None);
        assert_eq!(did_you_mean("gran", names.into_iter()), Some("granularity"));
        assert_eq!(did_you_mean("show_bytes", names.into_iter()), None);
        // Two letters swapped are one slip.
        let commands = COMMANDS.iter().map(|c| c.0);
        assert_eq!(did_you_mean("tpo", commands.clone()), Some("top"));
        assert_eq!(did_you_mean("lsit", commands), Some("list"));
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("abc", "ca"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
