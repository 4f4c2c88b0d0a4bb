//! `--flame`: the SVG parses as XML, its frames name the hottest functions of the `--text`
//! report, a `--base` graph is differential, and `--collapsed` output is read by inferno's
//! flame graph code (what `inferno-flamegraph` runs) into the same kind of picture.

mod common;

use std::path::PathBuf;

use quick_xml::events::Event;

fn case(name: &str) -> PathBuf {
    common::root().join("testdata").join(name)
}

/// The `<title>` texts of an SVG, which must be well-formed XML.
fn titles(svg: &[u8]) -> Vec<String> {
    let mut r = quick_xml::Reader::from_reader(svg);
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut title: Option<String> = None;
    let mut depth = 0i64;
    loop {
        match r.read_event_into(&mut buf) {
            Ok(Event::Eof) => break,
            Ok(Event::Start(e)) => {
                depth += 1;
                if e.name().as_ref() == b"title" {
                    title = Some(String::new());
                }
            }
            Ok(Event::End(_)) => {
                depth -= 1;
                out.extend(title.take());
            }
            Ok(Event::Text(t)) => {
                if let Some(s) = title.as_mut() {
                    s.push_str(&t.decode().expect("utf-8"));
                }
            }
            Ok(Event::GeneralRef(e)) => {
                let name = e.decode().expect("utf-8");
                let c = match &*name {
                    "lt" => "<",
                    "gt" => ">",
                    "amp" => "&",
                    "quot" => "\"",
                    "apos" => "'",
                    other => panic!("unexpected entity &{other};"),
                };
                if let Some(s) = title.as_mut() {
                    s.push_str(c);
                }
            }
            Ok(_) => {}
            Err(e) => panic!("not XML at {}: {e}", r.buffer_position()),
        }
        buf.clear();
    }
    assert_eq!(depth, 0, "unbalanced elements");
    out
}

/// The names of the first `n` rows of `rpprof --text`.
fn top(dir: &std::path::Path, args: &[&str], n: usize) -> Vec<String> {
    let mut a = vec!["--text"];
    a.extend_from_slice(args);
    let out = common::rpprof(dir, &a);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .take(n)
        .map(|l| {
            let name = l.split_whitespace().skip(5).collect::<Vec<_>>().join(" ");
            // pprof tells overloads apart with @<address>; the graph has their arguments.
            let name = name.trim_end_matches(" (inline)");
            name.split('@').next().unwrap_or(name).to_string()
        })
        .collect()
}

fn flame(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let mut a = vec!["--flame"];
    a.extend_from_slice(args);
    let out = common::rpprof(dir, &a);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A name without template arguments, as `--text` shortens it.
fn untemplated(s: &str) -> String {
    let mut depth = 0;
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn assert_names(titles: &[String], names: &[String]) {
    for n in names {
        assert!(
            titles
                .iter()
                .any(|t| untemplated(t).starts_with(n.as_str())),
            "no frame named {n} in the flame graph"
        );
    }
}

#[test]
fn heap_flame_graph_names_the_biggest_allocators() {
    let dir = case("t-heap");
    let args = ["./theap", "theap.hprof.0003.heap"];
    let svg = flame(&dir, &args);
    let t = titles(&svg);
    assert!(String::from_utf8_lossy(&svg).contains(">theap: theap.hprof.0003.heap<"));
    assert!(t.iter().any(|t| t.contains(" bytes, ")), "no byte counts");
    assert_names(&t, &top(&dir, &args, 3));
    // Deterministic: the same input draws the same bytes.
    assert_eq!(svg, flame(&dir, &args));
}

/// The name of a frame in an inferno tooltip: `name (N bytes, P%)`.
fn frame_name(title: &str) -> &str {
    title.rsplit_once(" (").map_or(title, |(n, _)| n)
}

/// Issue 17: C++ frames carry --text's short names by default (whole signatures made the
/// graph unreadable); --full_names gives the signatures.
#[test]
fn flame_graph_uses_short_names_unless_asked_for_full_ones() {
    let dir = case("t-heap");
    let args = ["./theap", "theap.hprof.0003.heap"];
    let short = titles(&flame(&dir, &args));
    let names: Vec<&str> = short.iter().map(|t| frame_name(t)).collect();
    // make_record(std::size_t, ...) and vector<...>::push_back(...) in full; short here.
    assert!(names.contains(&"tdata::store::make_record"), "{names:?}");
    assert!(
        names.contains(&"std::vector::push_back (inline)"),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.contains("std::allocator<")),
        "a signature in the default graph: {names:?}"
    );
    let mut full_args = vec!["--full_names"];
    full_args.extend(args);
    let full = titles(&flame(&dir, &full_args));
    let full_names: Vec<&str> = full.iter().map(|t| frame_name(t)).collect();
    assert!(
        full_names
            .iter()
            .any(|n| n.starts_with("tdata::store::make_record(")),
        "{full_names:?}"
    );
    assert!(
        full_names.iter().any(|n| n.contains("std::allocator<")),
        "{full_names:?}"
    );
}

#[test]
fn cpu_flame_graph_names_the_hottest_functions() {
    let dir = case("t-cpu");
    let args = ["./tcpu-pie", "tcpu-pie.prof"];
    let t = titles(&flame(&dir, &args));
    assert!(t.iter().any(|t| t.contains(" samples, ")));
    assert_names(&t, &top(&dir, &args, 3));
}

#[test]
fn differential_flame_graph_with_base() {
    let dir = case("t-heap");
    let svg = flame(
        &dir,
        &[
            "--base",
            "theap.hprof.0001.heap",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    let text = String::from_utf8_lossy(&svg);
    assert!(text.contains("differential against theap.hprof.0001.heap"));
    // The title says it too (issue 17).
    assert!(
        text.contains(
            ">theap: theap.hprof.0003.heap against theap.hprof.0001.heap (differential)<"
        ),
        "{}",
        &text[..text.len().min(3000)]
    );
    // inferno's differential tooltips carry the change in percent after a semicolon.
    let t = titles(&svg);
    assert!(
        t.iter().any(|t| t.contains("; +") || t.contains("; -")),
        "{t:?}"
    );
}

#[test]
fn empty_graph_is_refused() {
    let dir = case("t-heap");
    let out = common::rpprof(
        &dir,
        &[
            "--flame",
            "--focus=^no_such_function$",
            "./theap",
            "theap.hprof.0003.heap",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no stacks to draw"));
}

#[test]
fn collapsed_output_feeds_inferno() {
    let dir = case("t-cpu");
    let out = common::rpprof(&dir, &["--collapsed", "./tcpu-pie", "tcpu-pie.prof"]);
    assert!(out.status.success());
    let mut opts = inferno::flamegraph::Options::default();
    let mut svg = Vec::new();
    inferno::flamegraph::from_reader(&mut opts, &out.stdout[..], &mut svg).unwrap();
    let t = titles(&svg);
    assert_names(&t, &top(&dir, &["./tcpu-pie", "tcpu-pie.prof"], 3));
}

/// `--help`'s example draws a flame graph with rpprof itself, not with an external script.
#[test]
fn help_example_uses_flame() {
    let out = common::rpprof(&common::root(), &["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("rpprof --flame ./server cpu.prof > cpu.svg"),
        "{help}"
    );
    assert!(!help.contains("flamegraph.pl"), "{help}");
}
