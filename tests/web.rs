//! The web UI (`--http`) at the HTTP level: each test starts `rpprof --http` on a free port
//! of 127.0.0.1 over the testdata profiles and asks it things. The plain forms must be the
//! command line's bytes for the same options; every page and parameter answers; what may not
//! be asked is refused with one line.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::web::{self, enc, get, post};

fn case(name: &str) -> PathBuf {
    common::link_case(name);
    common::root().join("testdata").join(name)
}

/// A fresh folder for one test.
fn scratch(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("web-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Copies `from` to `to` with modification time `t` (seconds after 2025-03-01 12:00 UTC).
fn copy_at(from: &Path, to: &Path, t: u64) {
    std::fs::copy(from, to).unwrap();
    set_time(to, t);
}

/// Writes `data` to `to` with modification time `t` (as [`copy_at`]).
fn write_at(to: &Path, data: &[u8], t: u64) {
    std::fs::write(to, data).unwrap();
    set_time(to, t);
}

fn set_time(to: &Path, t: u64) {
    let f = std::fs::File::options().write(true).open(to).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_740_830_400 + t))
        .unwrap();
}

/// The names the history lists, newest first.
fn listed(h: &serde_json::Value) -> Vec<&str> {
    h["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect()
}

/// A server on `prog` and the dumps `heap_live.*.heap` in `t`, keeping two.
fn glob_keeping_two(t: &Path, prog: &Path) -> web::WebServer {
    web::start(
        t,
        &[
            prog.to_str().unwrap(),
            "heap_live.*.heap",
            "--max_profiles_kept=2",
        ],
        &[],
    )
}

/// The command line's standard output (and status, and standard error).
fn cli(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let o = common::rpprof(dir, args);
    (
        o.status.code().unwrap_or(-1),
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The plain forms and the options they take.
const PLAIN: [(&str, &str); 6] = [
    ("text", "--text"),
    ("collapsed", "--collapsed"),
    ("dot", "--dot"),
    ("raw", "--raw"),
    ("proto", "--proto"),
    ("traces", "--traces"),
];

/// Checks every plain form of each `(query, command-line options, profile)` against the
/// command line run in `dir` with `program`.
fn same_as_cli(s: &web::WebServer, dir: &Path, program: &str, cases: &[(&str, &[&str], &str)]) {
    let mut checked = 0;
    for (query, opts, profile) in cases {
        for (page, mode) in PLAIN {
            let url = format!("{}/ui/{page}?{query}", s.url);
            let got = get(&url);
            let mut args: Vec<&str> = vec![mode];
            args.extend_from_slice(opts);
            args.push(program);
            args.push(profile);
            let (code, want, err) = cli(dir, &args);
            if code != 0 {
                assert_eq!(
                    got.status, 400,
                    "{url}: the command line failed ({err}), the page did not"
                );
                let line = err
                    .lines()
                    .find(|l| l.starts_with("rpprof: "))
                    .unwrap_or_default();
                assert_eq!(got.text().trim_end(), line, "{url}");
                continue;
            }
            assert_eq!(got.status, 200, "{url}: {}", got.text());
            if got.body != want {
                panic!(
                    "{url} differs from rpprof {}:\n{}",
                    args.join(" "),
                    common::first_difference(&String::from_utf8_lossy(&want), &got.text())
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= cases.len() * 4,
        "only {checked} outputs compared"
    );
}

const H1: &str = "theap.hprof.0001.heap";
const H2: &str = "theap.hprof.0002.heap";
const H3: &str = "theap.hprof.0003.heap";

fn heap_server() -> (web::WebServer, PathBuf) {
    let dir = case("t-heap");
    let s = web::start(&dir, &["theap", H1, H2, H3, "theap.growth"], &[]);
    (s, dir)
}

#[test]
fn plain_forms_are_the_command_lines_bytes() {
    let (s, dir) = heap_server();
    let v3 = format!("view={H3}");
    let q = |extra: &str| format!("{v3}&{extra}");
    let cases: Vec<(String, Vec<String>, &str)> = vec![
        (v3.clone(), vec![], H3),
        (format!("view={H1}"), vec![], H1),
        (
            format!("view={H2}&base={H1}"),
            vec![format!("--base={H1}")],
            H2,
        ),
        (q("si=alloc_objects"), vec!["--alloc_objects".into()], H3),
        (
            q("si=inuse_objects&g=lines"),
            vec!["--inuse_objects".into(), "--lines".into()],
            H3,
        ),
        (q("g=files"), vec!["--files".into()], H3),
        (q("g=addresses"), vec!["--addresses".into()], H3),
        (q("f=grow"), vec!["--focus=grow".into()], H3),
        (q("i=render"), vec!["--ignore=render".into()], H3),
        (
            q(&format!("base={H1}&si=alloc_space&f=store")),
            vec![
                format!("--base={H1}"),
                "--alloc_space".into(),
                "--focus=store".into(),
            ],
            H3,
        ),
        ("view=theap.growth".into(), vec![], "theap.growth"),
        (q("sort=cum"), vec!["--cum".into()], H3),
        (
            q("n=5&nf=0.01&ef=0.005"),
            vec![
                "--nodecount=5".into(),
                "--nodefraction=0.01".into(),
                "--edgefraction=0.005".into(),
            ],
            H3,
        ),
        (
            q(&format!("base={H2}&dropneg=t")),
            vec![format!("--base={H2}"), "--drop_negative".into()],
            H3,
        ),
        (
            q("f=nothing_matches_this"),
            vec!["--focus=nothing_matches_this".into()],
            H3,
        ),
    ];
    let cases: Vec<(&str, Vec<&str>, &str)> = cases
        .iter()
        .map(|(q, o, p)| (q.as_str(), o.iter().map(String::as_str).collect(), *p))
        .collect();
    let cases: Vec<(&str, &[&str], &str)> =
        cases.iter().map(|(q, o, p)| (*q, &o[..], *p)).collect();
    same_as_cli(&s, &dir, "theap", &cases);
}

#[test]
fn plain_forms_of_cpu_contention_and_jemalloc_profiles() {
    let dir = case("t-cpu");
    let s = web::start(&dir, &["tcpu-pie", "tcpu-pie.prof", "tcpu-leaf.prof"], &[]);
    same_as_cli(
        &s,
        &dir,
        "tcpu-pie",
        &[
            ("view=tcpu-pie.prof", &[], "tcpu-pie.prof"),
            ("view=tcpu-pie.prof&g=lines", &["--lines"], "tcpu-pie.prof"),
            (
                "view=tcpu-leaf.prof&f=work",
                &["--focus=work"],
                "tcpu-leaf.prof",
            ),
        ],
    );
    drop(s);
    let dir = case("t-contention");
    let s = web::start(
        &dir,
        &["tcont", "tcont.contention", "tcont.contentionz"],
        &[],
    );
    same_as_cli(
        &s,
        &dir,
        "tcont",
        &[
            ("view=tcont.contention", &[], "tcont.contention"),
            (
                "view=tcont.contention&si=contentions",
                &["--contentions"],
                "tcont.contention",
            ),
            (
                "view=tcont.contentionz&si=mean_delay",
                &["--mean_delay"],
                "tcont.contentionz",
            ),
        ],
    );
    drop(s);
    let dir = case("t-jemalloc");
    let s = web::start(
        &dir,
        &["tje", "tje.0001.heap", "tje.0002.heap", "tje.0003.heap"],
        &[],
    );
    same_as_cli(
        &s,
        &dir,
        "tje",
        &[
            (
                "view=tje.0003.heap&base=tje.0001.heap",
                &["--base=tje.0001.heap"],
                "tje.0003.heap",
            ),
            (
                "view=tje.0002.heap&si=alloc_space",
                &["--alloc_space"],
                "tje.0002.heap",
            ),
        ],
    );
    // These dumps record no allocation totals (no prof_accum): the pages say so, as the
    // command line does, and keep the value's unit.
    let warning = "Warning: the profile records no allocation totals: the bracketed counts of every record are 0 (jemalloc writes them only with prof_accum:true); alloc_space reports nothing";
    let top = get(&format!("{}/ui/top?si=alloc_space", s.url)).text();
    assert!(top.contains(warning), "{top}");
    assert!(top.contains(">Flat (MB)</th>"), "{top}");
    let trend = get(&format!("{}/ui/trend?si=alloc_space", s.url)).text();
    assert!(trend.contains(warning), "{trend}");
    assert!(
        trend.contains("tje.0001.heap to tje.0003.heap; no site has a value."),
        "{trend}"
    );
    let inuse = get(&format!("{}/ui/top", s.url)).text();
    assert!(!inuse.contains("no allocation totals"), "{inuse}");
}

/// The flame graph's data, parsed.
fn stacks(s: &web::WebServer, query: &str) -> serde_json::Value {
    let a = get(&format!("{}/ui/stacks?{query}", s.url));
    assert_eq!(a.status, 200, "{}", a.text());
    assert_eq!(a.content_type, "application/json");
    serde_json::from_slice(&a.body).expect("JSON")
}

/// The sum over the flame graph data's stacks of column `k` (0: the value, 1: the base's).
fn stacks_total(v: &serde_json::Value, k: usize) -> f64 {
    v["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[k].as_f64().unwrap())
        .sum()
}

/// The names in the flame graph's data.
fn names(v: &serde_json::Value) -> Vec<String> {
    v["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_page_answers() {
    let (s, _dir) = heap_server();
    // What every browser asks for: nothing, and no error.
    assert_eq!(get(&format!("{}/favicon.ico", s.url)).status, 204);
    // ... without a length, which a 204 may not have (RFC 9110, 8.6).
    let mut c = TcpStream::connect(s.url.trim_start_matches("http://")).unwrap();
    c.write_all(b"GET /favicon.ico HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut raw = String::new();
    c.read_to_string(&mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 204 No Content\r\n"), "{raw}");
    assert!(
        !raw.to_ascii_lowercase().contains("content-length"),
        "{raw}"
    );
    assert!(raw.ends_with("\r\n\r\n"), "{raw}");
    let page = |p: &str| {
        let a = get(&format!("{}/ui/{p}", s.url));
        assert_eq!(a.status, 200, "{p}: {}", a.text());
        assert!(
            a.content_type.starts_with("text/html"),
            "{p}: {}",
            a.content_type
        );
        a.text()
    };
    // The default page is the flame graph, with the stacks in it.
    let root = get(&format!("{}/?view={H3}", s.url));
    assert_eq!(root.status, 307);
    let f = page(&format!("?view={H3}"));
    assert!(f.contains("id=\"flame-data\""), "{f}");
    assert!(f.contains("tdata::index::grow"), "{f}");
    assert!(f.contains("<option value=\"theap.hprof.0003.heap\" data-kind=\"heap\" selected>"));
    let f = page("flamegraph");
    assert!(f.contains("id=\"flame-data\""));
    // Top: the text report's rows, with the total.
    let t = page(&format!("top?view={H3}"));
    assert!(t.contains("id=\"toptable\""), "{t}");
    assert!(t.contains("Total: 2.8 MB"), "{t}");
    assert!(t.contains(">std::vector::push_back (inline)</a>"), "{t}");
    let cum = page(&format!("top?view={H3}&sort=cum"));
    assert!(cum.contains("data-sorted=\"cum\""));
    let first_row = |html: &str| {
        let i = html.find("<tbody>").unwrap();
        html[i..].split("</tr>").next().unwrap().to_string()
    };
    assert!(first_row(&cum).contains("100.0%"), "{}", first_row(&cum));
    assert!(!first_row(&t).contains(">100.0%"), "{}", first_row(&t));
    // Graph: graphviz's SVG in a frame, or a notice.
    let g = page(&format!("graph?view={H3}"));
    if common::have("dot") {
        assert!(g.contains("id=\"graph-frame\""), "{g}");
        let svg = get(&format!("{}/ui/svg?view={H3}", s.url));
        assert_eq!(svg.status, 200);
        assert_eq!(svg.content_type, "image/svg+xml");
        assert!(
            svg.text().contains("<g id=\"viewport\""),
            "SVGPan's viewport"
        );
    } else {
        common::skip("every_page_answers (svg)", "graphviz is not installed");
    }
    // Source and peek of f=; disasm when objdump is there.
    let src = page(&format!("source?view={H3}&f=grow"));
    assert!(
        src.contains("ROUTINE ====================== tdata::index::grow"),
        "{src}"
    );
    let ask = page("source");
    assert!(ask.contains("id=\"ask-f\""), "{ask}");
    let none = page("source?f=no_such_function_anywhere");
    // Why there is nothing, on the page (not only among its messages).
    let why = none.find("Nothing to show for").expect(&none);
    assert!(
        none[why..].contains("no routine of theap or of its libraries with samples matches"),
        "{none}"
    );
    let peek = page(&format!("peek?view={H3}&f=grow"));
    assert!(peek.contains("tdata::index::grow"), "{peek}");
    assert!(peek.contains("id=\"listing\""), "{peek}");
    let dis = page(&format!("disasm?view={H3}&f=grow"));
    if common::have("objdump") {
        assert!(dis.contains("ROUTINE"), "{dis}");
    } else {
        assert!(dis.contains("needs <code>objdump</code>"), "{dis}");
    }
    // Trend: three heap profiles of one kind.
    let tr = page(&format!("trend?view={H3}"));
    assert!(tr.contains("id=\"trendtable\""), "{tr}");
    assert!(
        tr.contains("3 dumps, theap.hprof.0001.heap to theap.hprof.0003.heap"),
        "{tr}"
    );
    let tr = page("trend?view=theap.growth");
    assert!(tr.contains("the history has 1 like this one"), "{tr}");
    // The assets.
    for a in ["ui.css", "ui.js", "flame.js"] {
        let r = get(&format!("{}/ui/static/{a}", s.url));
        assert_eq!(r.status, 200, "{a}");
        assert!(r.body.len() > 500, "{a}");
    }
    // The history, newest first by name when written in the same second.
    let h: serde_json::Value =
        serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
    let listed = listed(&h);
    assert_eq!(listed.len(), 4, "{h}");
    for n in [H1, H2, H3, "theap.growth"] {
        assert!(listed.contains(&n), "{n} in {listed:?}");
    }
}

/// The Trend page on the series of testdata/t-trend: every site of known shape in its class
/// (the command line's `--trend`), the chart drawn, and each row a link to the flame graph
/// of the last dump against the first, focused on the site.
/// The links of the Top page's row named `name`: focus, callers, source (not for a function
/// inlined into others, which is no routine), peek.
fn row_links(page: &str, name: &str) -> Vec<String> {
    let at = page
        .find(&format!(">{name}</a>"))
        .unwrap_or_else(|| panic!("no row {name}: {page}"));
    let start = page[..at].rfind("<td class=\"name\">").unwrap();
    let end = at + page[at..].find("</td>").unwrap();
    let hrefs: Vec<String> = page[start..end]
        .split("href=\"")
        .skip(1)
        .map(|h| h[..h.find('"').unwrap()].replace("&amp;", "&"))
        .collect();
    hrefs
}

#[test]
fn the_top_pages_links_open_their_function() {
    let (s, _dir) = heap_server();
    let page = get(&format!("{}/ui/top?view={H3}", s.url)).text();
    let open = |link: &str| {
        let a = get(&format!("{}{link}", s.url));
        assert_eq!(a.status, 200, "{link}: {}", a.text());
        a.text()
    };
    // A function inlined into another, functions of one short name told apart by their
    // address, and a template's member function (its name printed without the template's
    // arguments, and GCC's `[clone .isra.0]` copy of it in the symbol table).
    for (name, routine) in [
        ("std::vector::push_back (inline)", None),
        (
            "tdata::store::make_record@27f0",
            Some("tdata::store::make_record"),
        ),
        (
            "tdata::store::Slab::take",
            Some("tdata::store::Slab::take [clone .isra.0]"),
        ),
    ] {
        let links = row_links(&page, name);
        let (focus, callers, peek) = (&links[0], &links[1], &links[links.len() - 1]);
        assert_eq!(
            links.len(),
            if routine.is_some() { 4 } else { 3 },
            "{links:?}"
        );
        let text = open(&focus.replace("/ui/flamegraph", "/ui/text"));
        assert!(
            text.contains(&format!("% {name}\n")),
            "{name}: {focus}: {text}"
        );
        assert!(open(callers).contains("id=\"flame-data\""), "{callers}");
        assert!(open(peek).contains(name), "{name}: {peek}");
        // Only that function (`main` is not `__libc_start_call_main`).
        assert!(peek.ends_with("%24"), "anchored: {peek}");
        // The source page lists the routines the symbol table has under that name; a
        // function only ever inlined has none (pprof's --list reads the symbol table), and
        // its row no link to it.
        let source = links
            .get(2)
            .filter(|_| links.len() == 4)
            .cloned()
            .unwrap_or_else(|| focus.replace("/ui/flamegraph", "/ui/source"));
        let src = open(&source);
        match routine {
            Some(r) => assert!(
                src.contains(&format!("ROUTINE ====================== {r} in")),
                "{name}: {src}"
            ),
            None => assert!(
                src.contains("Nothing to show for")
                    && src.contains("no routine of theap or of its libraries with samples matches"),
                "{name}: {src}"
            ),
        }
    }
}

/// The rows of a Top page: each one's cells' text, without the name's links.
fn top_rows(page: &str) -> Vec<String> {
    let body = &page[page.find("<tbody>").unwrap()..page.find("</tbody>").unwrap()];
    body.split("<tr>")
        .skip(1)
        .map(|r| {
            let r = r.split(" <span class=\"acts\">").next().unwrap();
            let mut text = String::new();
            let mut tag = false;
            for c in r.chars() {
                match c {
                    '<' => tag = true,
                    '>' => {
                        tag = false;
                        text.push(' ');
                    }
                    c if !tag => text.push(c),
                    _ => {}
                }
            }
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// A Top table longer than `rows` (1,000 by default) shows its first rows in the server's
/// order, says so, and links to all of them; its numeric headings then ask the server for
/// their order. `rows` alone leaves a bare URL bare: the command line's focus holds.
#[test]
fn a_long_top_table_is_cut() {
    let (s, dir) = heap_server();
    let page = |q: &str| {
        let a = get(&format!("{}/ui/top?{q}", s.url));
        assert_eq!(a.status, 200, "{q}: {}", a.text());
        a.text()
    };
    let all = page(&format!("view={H3}&rows=all"));
    let n = top_rows(&all).len();
    assert!(n > 10, "{all}");
    assert!(!all.contains("id=\"cut\"") && !all.contains("data-cut"));
    // The test profile's table is shorter than the default.
    assert_eq!(top_rows(&page(&format!("view={H3}"))).len(), n);
    for (sort, by) in [("flat", "flat value"), ("cum", "cumulative value")] {
        let whole = top_rows(&page(&format!("view={H3}&rows=all&sort={sort}")));
        let cut = page(&format!("view={H3}&rows=3&sort={sort}"));
        assert_eq!(top_rows(&cut), whole[..3], "{sort}");
        assert!(
            cut.contains(&format!("The first 3 of {n} rows, by {by}.")),
            "{cut}"
        );
        assert!(cut.contains(" data-cut=\"1\""), "{cut}");
        assert!(
            cut.contains(&format!(
                "<a id=\"all-rows\" href=\"/ui/top?view={H3}&amp;rows=all&amp;sort={sort}\">Show all {n}</a>"
            )),
            "{cut}"
        );
    }
    let exact = page(&format!("view={H3}&rows={n}"));
    assert!(!exact.contains("id=\"cut\""), "{exact}");
    for bad in ["0", "-1", "x"] {
        refused(
            &s,
            &format!("/ui/text?rows={bad}"),
            400,
            &format!("rows={bad}: say a whole number or all"),
        );
    }
    drop(s);
    let s = web::start(&dir, &["--focus=grow", "theap", H3], &[]);
    let focused = |q: &str| top_rows(&get(&format!("{}/ui/top{q}", s.url)).text());
    let whole = focused("");
    assert!(whole.len() > 2 && whole.len() < n, "{whole:?}");
    assert_eq!(focused("?rows=2"), whole[..2]);
}

#[test]
fn the_trend_page_classes_and_links() {
    let dir = case("t-trend");
    // Two runs of the program in one history (the sampled series is another process): the
    // trend of a dump follows its own run.
    let dumps: Vec<String> = (1..=12)
        .flat_map(|i| {
            [
                format!("ttrend.hprof.{i:04}.heap"),
                format!("ttrend.sample.{i:04}.heap"),
            ]
        })
        .collect();
    let mut args = vec!["ttrend"];
    args.extend(dumps.iter().map(String::as_str));
    let s = web::start(&dir, &args, &[]);
    let r = get(&format!("{}/ui/trend?view=ttrend.hprof.0012.heap", s.url));
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(
        page.contains("12 dumps, ttrend.hprof.0001.heap to ttrend.hprof.0012.heap;"),
        "{page}"
    );
    // A base (brought from another page) has no part in the trend: the page does not say
    // "against" it, and its Diff picker is off, while the links to the other pages keep it.
    let based = get(&format!(
        "{}/ui/trend?view=ttrend.hprof.0012.heap&base=ttrend.hprof.0005.heap",
        s.url
    ))
    .text();
    assert!(
        based.contains("12 dumps, ttrend.hprof.0001.heap to ttrend.hprof.0012.heap;"),
        "{based}"
    );
    assert!(!based.contains(" against <b>"), "{based}");
    assert!(
        based.contains(
            "id=\"base-picker\" disabled><option value=\"\">&lt;none&gt;</option></select>"
        ),
        "{based}"
    );
    assert!(
        based.contains("id=\"tab-flamegraph\" href=\"/ui/flamegraph?view=ttrend.hprof.0012.heap&amp;base=ttrend.hprof.0005.heap\""),
        "{based}"
    );
    let elsewhere = get(&format!(
        "{}/ui/top?view=ttrend.hprof.0012.heap&base=ttrend.hprof.0005.heap",
        s.url
    ))
    .text();
    assert!(
        elsewhere.contains(" against <b>ttrend.hprof.0005.heap</b>"),
        "{elsewhere}"
    );
    assert!(
        !elsewhere.contains("id=\"base-picker\" disabled"),
        "{elsewhere}"
    );
    let other = get(&format!("{}/ui/trend?view=ttrend.sample.0005.heap", s.url)).text();
    assert!(
        other.contains("12 dumps, ttrend.sample.0001.heap to ttrend.sample.0012.heap;"),
        "{other}"
    );
    // Each says what it left out.
    assert!(
        page.contains("id=\"trend-others\">Not in the series: ttrend.sample.0012.heap, ttrend.sample.0011.heap, ttrend.sample.0010.heap, ttrend.sample.0009.heap and 8 more (another run"),
        "{page}"
    );
    assert!(
        other.contains("id=\"trend-others\">Not in the series: ttrend.hprof.0012.heap,"),
        "{other}"
    );
    assert!(page.contains("<div id=\"trend-chart\"><svg"), "{page}");
    assert!(!page.contains("<?xml"), "{page}");
    let expected = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in expected.lines().skip(1) {
        let (site, class) = line.split_once('\t').unwrap();
        // A site gone from the last dump links to the last dump that has it (its series
        // is 256, 512, 768, 768 kB, then nothing).
        let view = match class {
            "gone" => "ttrend.hprof.0004.heap",
            _ => "ttrend.hprof.0012.heap&amp;base=ttrend.hprof.0001.heap",
        };
        let link = format!(
            "/ui/flamegraph?view={view}&amp;f={}",
            enc(&format!(r"^{site}(?: \[clone [^\]]*\])*$"))
        );
        let row = format!("<tr class=\"{class}\"><td data-v=\"{class}\">{class}</td>");
        let at = page
            .find(&format!("<a href=\"{link}\""))
            .unwrap_or_else(|| panic!("no link for {site}: {page}"));
        // The row of that link starts with its class.
        let start = page[..at].rfind("<tr ").unwrap();
        assert!(
            page[start..].starts_with(&row),
            "{site}: {}",
            &page[start..at]
        );
        checked += 1;
    }
    assert_eq!(checked, 6);
    // The link opens the diff.
    let diff = get(&format!(
        "{}/ui/flamegraph?view=ttrend.hprof.0012.heap&base=ttrend.hprof.0001.heap&f={}",
        s.url,
        enc("^steady_leak$")
    ));
    assert_eq!(diff.status, 200);
    assert!(diff.text().contains("steady_leak"));
    // The gone site's link draws its 768 kB (the last dump's diff had nothing to draw).
    for (query, bytes) in [
        ("view=ttrend.hprof.0004.heap", 786_432.0),
        (
            "view=ttrend.hprof.0012.heap&base=ttrend.hprof.0001.heap",
            0.0,
        ),
    ] {
        let data = stacks(&s, &format!("{query}&f={}", enc("^startup_scratch$")));
        let drawn = stacks_total(&data, 0);
        assert_eq!(drawn, bytes, "{query}: {data}");
    }
    // By line, a row is focused on its line: the diff is the command line's.
    let lines = get(&format!(
        "{}/ui/trend?view=ttrend.hprof.0012.heap&g=lines",
        s.url
    ))
    .text();
    let place = r"^/tmp/rpprof-corpus/t-trend/ttrend\.cc:65$";
    let link = format!(
        "/ui/flamegraph?g=lines&amp;view=ttrend.hprof.0012.heap&amp;base=ttrend.hprof.0001.heap&amp;f={}",
        enc(place)
    );
    assert!(lines.contains(&format!("<a href=\"{link}\"")), "{lines}");
    let got = get(&format!(
        "{}{}",
        s.url,
        link.replace("&amp;", "&")
            .replace("/ui/flamegraph", "/ui/text")
    ));
    let (_, want, _) = cli(
        &dir,
        &[
            "--text",
            "--lines",
            "--base=ttrend.hprof.0001.heap",
            &format!("--focus={place}"),
            "ttrend",
            "ttrend.hprof.0012.heap",
        ],
    );
    assert!(String::from_utf8_lossy(&want).contains("ttrend.cc:65\n"));
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
}

#[test]
fn flame_graph_data_follows_the_parameters() {
    let (s, _dir) = heap_server();
    let all = stacks(&s, &format!("view={H3}"));
    assert_eq!(all["measure"], "bytes");
    assert_eq!(all["diff"], false);
    let n = names(&all);
    assert!(n.contains(&"tdata::index::grow".to_string()), "{n:?}");
    assert!(n.contains(&"main".to_string()));
    // Every stack: value, base value, then name ids from the root.
    let total = stacks_total(&all, 0);
    assert!((total - 2_988_107.0).abs() < 2.0, "{total}");
    // Focus keeps the stacks through the function; hide drops its frames.
    let focus = stacks(&s, &format!("view={H3}&f=grow"));
    let ft = stacks_total(&focus, 0);
    assert!(ft > 0.0 && ft < total, "{ft}");
    let hidden = stacks(&s, &format!("view={H3}&h=grow"));
    assert!(!names(&hidden).iter().any(|n| n.contains("grow")));
    let shown = stacks(&s, &format!("view={H3}&s=tdata"));
    let sn = names(&shown);
    assert!(sn.iter().any(|n| n.contains("tdata")), "{sn:?}");
    assert!(!sn.iter().any(|n| n == "main" || n == "_start"), "{sn:?}");
    // Each frame is hidden or shown on its own, inlined ones included (Go pprof's rule):
    // hiding a function inlined into another keeps the other, and hiding the other keeps
    // what was inlined into it.
    let n = names(&stacks(&s, &format!("view={H3}&h=push_back")));
    assert!(!n.iter().any(|n| n.contains("push_back")), "{n:?}");
    assert!(n.iter().any(|n| n.contains("Slab::take")), "{n:?}");
    let n = names(&stacks(&s, &format!("view={H3}&h=Slab")));
    assert!(!n.iter().any(|n| n.contains("Slab")), "{n:?}");
    assert!(n.iter().any(|n| n.contains("push_back")), "{n:?}");
    let n = names(&stacks(&s, &format!("view={H3}&s=push_back")));
    assert!(
        !n.is_empty() && n.iter().all(|n| n.contains("push_back")),
        "{n:?}"
    );
    // Lines: the nodes carry their file and line.
    let lines = stacks(&s, &format!("view={H3}&g=lines"));
    assert!(
        names(&lines).iter().any(|n| n.contains("theap.cc:")),
        "{:?}",
        names(&lines)
    );
    // Files: a frame of no known file is named as the text table names it (`_start ??:0`),
    // not by its address (the node's key), at every granularity; so the frame's actions
    // (focus, ignore, top) are those of a frame of unknown place: none.
    for g in ["files", "lines", "addresses", "functions"] {
        let data = stacks(&s, &format!("view={H3}&g={g}"));
        // The names of stacks with a value (the text table has no row for the others).
        let all = names(&data);
        let mut n: Vec<String> = Vec::new();
        for st in data["stacks"].as_array().unwrap() {
            let st = st.as_array().unwrap();
            if st[0].as_f64().unwrap() != 0.0 {
                for id in &st[2..] {
                    n.push(all[id.as_u64().unwrap() as usize].clone());
                }
            }
        }
        let text = get(&format!("{}/ui/text?view={H3}&g={g}", s.url)).text();
        let rows: std::collections::BTreeSet<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().nth(5).map(|_| l))
            .map(|l| {
                // The name: after the five numbers.
                let mut rest = l.trim_start();
                for _ in 0..5 {
                    rest = rest
                        .split_once(char::is_whitespace)
                        .map_or("", |x| x.1)
                        .trim_start();
                }
                rest
            })
            .collect();
        for name in &n {
            assert!(rows.contains(name.as_str()), "{g}: {name} not in\n{text}");
        }
        assert!(
            !n.iter()
                .any(|n| n.len() == 16 && n.bytes().all(|b| b.is_ascii_hexdigit())),
            "{g}: {n:?}"
        );
        if g == "files" {
            assert!(n.iter().any(|n| n == "_start ??:0"), "{n:?}");
        }
        // Each name's flat value (its stacks' leaves) is the text table's, in objects (whole
        // numbers): no frame dropped or value changed.
        let data = stacks(&s, &format!("view={H3}&si=inuse_objects&g={g}"));
        let all = names(&data);
        let mut flame: std::collections::BTreeMap<String, f64> = Default::default();
        for st in data["stacks"].as_array().unwrap() {
            let st = st.as_array().unwrap();
            if let Some(leaf) = st.last().filter(|_| st.len() > 2) {
                *flame
                    .entry(all[leaf.as_u64().unwrap() as usize].clone())
                    .or_default() += st[0].as_f64().unwrap();
            }
        }
        flame.retain(|_, v| *v != 0.0);
        let text = get(&format!(
            "{}/ui/text?view={H3}&si=inuse_objects&g={g}",
            s.url
        ))
        .text();
        let mut table: std::collections::BTreeMap<String, f64> = Default::default();
        for l in text.lines().skip(1) {
            let mut rest = l.trim_start();
            let flat: f64 = rest.split_whitespace().next().unwrap().parse().unwrap();
            for _ in 0..5 {
                rest = rest
                    .split_once(char::is_whitespace)
                    .map_or("", |x| x.1)
                    .trim_start();
            }
            *table.entry(rest.to_string()).or_default() += flat;
        }
        table.retain(|_, v| *v != 0.0);
        assert_eq!(flame, table, "{g}");
    }
    // Objects rather than bytes.
    let obj = stacks(&s, &format!("view={H3}&si=inuse_objects"));
    assert_eq!(obj["measure"], "objects");
    // A base: the base's values beside the profile's.
    let diff = stacks(&s, &format!("view={H3}&base={H1}"));
    assert_eq!(diff["diff"], true);
    let base_total = stacks_total(&diff, 1);
    assert!((base_total - 1_511_442.0).abs() < 2.0, "{base_total}");
}

/// A page (`path`) whose `view=` or `base=` names no profile kept: status 404, the page of
/// `newest` (the newest profile for a missing view, else the view without its base), and a
/// notice saying `says` and what is shown instead.
fn missing_profile_page(s: &web::WebServer, path: &str, says: &str, newest: &str) {
    let a = get(&format!("{}{path}", s.url));
    assert_eq!(a.status, 404, "{path}: {}", a.text());
    let t = a.text();
    let notice = t
        .split("<div id=\"notice\">")
        .nth(1)
        .and_then(|r| r.split("</div>").next())
        .unwrap_or_else(|| panic!("{path}: no notice in {t}"));
    assert!(
        notice.contains(says),
        "{path}: {notice:?} should say {says:?}"
    );
    let instead = if path.contains("view=") {
        format!("Showing the newest, {newest}.")
    } else {
        format!("Showing {newest} without it.")
    };
    assert!(notice.ends_with(&instead), "{path}: {notice:?}");
    assert!(
        t.contains(&format!("<b>{newest}</b>")),
        "{path}: the page shows {newest}"
    );
}

/// One line, and the status.
fn refused(s: &web::WebServer, path: &str, status: u16, says: &str) {
    let a = get(&format!("{}{path}", s.url));
    assert_eq!(a.status, status, "{path}: {}", a.text());
    let t = a.text();
    assert_eq!(t.lines().count(), 1, "{path}: one line: {t:?}");
    assert!(t.contains(says), "{path}: {t:?} should say {says:?}");
}

#[test]
fn bad_parameters_are_refused_with_one_line() {
    let (s, _dir) = heap_server();
    // Profiles are named as the picker lists them; a path, the program or any other file is
    // no profile of the history.
    // A plain form says so in one line; a page shows the newest profile with the reason.
    for page in ["text", "raw", "proto"] {
        refused(
            &s,
            &format!("/ui/{page}?view=..%2F..%2Fetc%2Fpasswd"),
            404,
            "no such profile",
        );
        refused(
            &s,
            &format!("/ui/{page}?view=%2Fetc%2Fpasswd"),
            404,
            "no such profile",
        );
        refused(
            &s,
            &format!("/ui/{page}?base=..%2Ftheap.hprof.0001.heap"),
            404,
            "no such profile",
        );
    }
    for page in ["flamegraph", "top", "source"] {
        for (q, says) in [
            (
                "view=..%2F..%2Fetc%2Fpasswd",
                "view=../../etc/passwd: no such profile",
            ),
            ("view=%2Fetc%2Fpasswd", "view=/etc/passwd: no such profile"),
            (
                "base=..%2Ftheap.hprof.0001.heap",
                "base=../theap.hprof.0001.heap: no such profile",
            ),
        ] {
            missing_profile_page(&s, &format!("/ui/{page}?{q}"), says, H3);
        }
    }
    refused(
        &s,
        "/ui/text?view=theap",
        404,
        "view=theap: no such profile",
    );
    refused(&s, "/ui/text?view=theap.cc", 404, "no such profile");
    refused(&s, "/ui/text?view=README.md", 404, "no such profile");
    refused(
        &s,
        "/ui/text?si=bogus",
        400,
        "si=bogus: this heap profile has inuse_objects",
    );
    refused(
        &s,
        "/ui/text?g=filefunctions",
        400,
        "g=filefunctions: say functions",
    );
    refused(&s, "/ui/text?sort=size", 400, "sort=size: say flat or cum");
    refused(&s, "/ui/text?n=many", 400, "n=many: not a whole number");
    refused(
        &s,
        "/ui/text?n=-5",
        400,
        "n=-5: not a whole number (0 or more)",
    );
    refused(&s, "/ui/text?nf=-1", 400, "nf=-1: not a fraction");
    refused(&s, "/ui/text?ef=x", 400, "ef=x: not a fraction");
    refused(
        &s,
        "/ui/text?dropneg=maybe",
        400,
        "dropneg=maybe: say t or f",
    );
    refused(&s, "/ui/text?f=(", 400, "f: bad regular expression");
    // A page (not a plain report) shows its form as typed and the reason, to be corrected.
    for (path, says, field) in [
        (
            "/ui/flamegraph?i=[",
            "Ignore: bad regular expression",
            r#"name="i" id="i-input" size="14" value="[""#,
        ),
        (
            "/ui/top?h=*x",
            "Hide: bad regular expression",
            r#"value="*x""#,
        ),
        (
            "/ui/top?n=many",
            "n=many: not a whole number",
            r#"value="theap.hprof.0001.heap""#,
        ),
        (
            "/ui/graph?n=-5",
            "n=-5: not a whole number (0 or more)",
            r#"value="theap.hprof.0001.heap""#,
        ),
        // On the routine pages `f` names the functions, in the form's Function box.
        (
            "/ui/source?f=(",
            "Function: bad regular expression",
            r#"name="f" id="f-input" size="14" value="(""#,
        ),
        (
            "/ui/disasm?f=(",
            "Function: bad regular expression",
            r#"value="(""#,
        ),
        (
            "/ui/peek?f=(",
            "Function: bad regular expression",
            r#"value="(""#,
        ),
        // A refused value column or base: the profile's page without them.
        (
            "/ui/top?si=bogus&f=grow",
            "si=bogus: this heap profile has inuse_objects",
            r#"value="grow""#,
        ),
        (
            "/ui/top?view=theap.growth&base=theap.hprof.0001.heap",
            "cannot subtract a heap profile",
            r#"value="theap.growth""#,
        ),
        (
            "/ui/top?rows=99999999999999999999",
            "rows=99999999999999999999: say a whole number or all (this one is too large)",
            r#"value="theap.hprof.0001.heap""#,
        ),
    ] {
        let a = get(&format!("{}{path}", s.url));
        assert_eq!(a.status, 400, "{path}");
        let t = a.text();
        assert!(t.starts_with("<!DOCTYPE html>"), "{path}: {t}");
        assert!(
            t.contains(&format!("<div class=\"notice error\">{says}")),
            "{path}: {t}"
        );
        assert!(t.contains(field), "{path}: {t}");
    }
    refused(&s, "/ui/text?s=(", 400, "s: bad regular expression");
    // Links of the page refused for its base or value column leave them out.
    let t = get(&format!("{}/ui/top?si=bogus", s.url)).text();
    assert_eq!(t.matches("si=bogus").count(), 1, "only in the notice: {t}");
    // ... and a value column that fits stays when only the base is refused.
    let t = get(&format!(
        "{}/ui/top?view={H1}&si=alloc_space&base=theap.growth",
        s.url
    ))
    .text();
    assert!(t.contains("cannot subtract a growth profile"), "{t}");
    assert!(t.contains("(heap profile, alloc_space)"), "{t}");
    assert!(!t.contains("base=theap.growth"), "{t}");
    let t = get(&format!("{}/ui/top?rows=0", s.url)).text();
    assert!(t.contains("rows=0: say a whole number or all<"), "{t}");
    // A profile against itself: shown alone, and said so.
    let a = get(&format!("{}/ui/top?view={H1}&base={H1}", s.url));
    assert_eq!(a.status, 200);
    let t = a.text();
    assert!(
        t.contains(&format!(
            "<div id=\"notice\">base={H1}: the profile viewed; shown without a base"
        )),
        "{t}"
    );
    assert!(!t.contains("Nothing to show"), "{t}");
    refused(&s, "/ui/text?f=%zz", 400, "bad percent-encoding");
    refused(&s, "/ui/text?f=%ff", 400, "not UTF-8");
    refused(&s, "/ui/nope", 404, "no page /ui/nope");
    refused(&s, "/elsewhere", 404, "pages are under /ui/");
    refused(&s, "/ui/static/..%2F..%2Fetc%2Fpasswd", 404, "no such file");
    refused(&s, "/ui/static/../../etc/passwd", 404, "");
    // Unknown parameters are let be (Go pprof's habit).
    assert_eq!(
        get(&format!("{}/ui/text?view={H3}&unknown=1", s.url)).status,
        200
    );
}

/// The command line's refusal, in a plain form's one line and in a page's notice.
#[test]
fn a_base_that_does_not_fit_gets_the_command_lines_refusal() {
    let (s, dir) = heap_server();
    let (code, out, err) = cli(
        &dir,
        &["--text", &format!("--base={H1}"), "theap", "theap.growth"],
    );
    assert_eq!(code, 1);
    assert!(out.is_empty());
    let want = err.lines().find(|l| l.starts_with("rpprof: ")).unwrap();
    assert!(want.contains("cannot subtract a heap profile"), "{want}");
    for page in ["text", "flamegraph", "top", "dot"] {
        let a = get(&format!("{}/ui/{page}?view=theap.growth&base={H1}", s.url));
        assert_eq!(a.status, 400, "{page}");
        let t = a.text();
        // A plain form in one line; a page of the UI with its controls and the reason.
        assert_eq!(
            t.starts_with("<!DOCTYPE html>"),
            matches!(page, "flamegraph" | "top"),
            "{page}"
        );
        if t.starts_with("<!DOCTYPE html>") {
            let why = want.trim_start_matches("rpprof: ");
            assert!(
                t.contains(&format!(
                    "<div class=\"notice error\">{}",
                    why.replace('\'', "&#39;")
                )),
                "{page}: {t}"
            );
        } else {
            assert_eq!(t.trim_end(), want, "{page}");
        }
    }
    // The Diff picker offers only the profiles that fit.
    let page = get(&format!("{}/ui/flamegraph?view={H3}", s.url)).text();
    let diff = &page[page.find("id=\"base-picker\"").unwrap()..];
    let diff = &diff[..diff.find("</select>").unwrap()];
    assert!(diff.contains(H1) && diff.contains(H2), "{diff}");
    assert!(!diff.contains("theap.growth"), "{diff}");
    assert!(
        !diff.contains(&format!("value=\"{H3}\"")),
        "not itself: {diff}"
    );
    // ... and a URL that asks for it gets the profile alone, as its notice says.
    let page = get(&format!("{}/ui/top?view={H3}&base={H3}", s.url)).text();
    let diff = &page[page.find("id=\"base-picker\"").unwrap()..];
    let diff = &diff[..diff.find("</select>").unwrap()];
    assert!(!diff.contains(&format!("value=\"{H3}\"")), "{diff}");
    assert!(
        page.contains("the profile viewed; shown without a base"),
        "{page}"
    );
}

/// `--base` on the command line holds for a page whose URL has no parameters, as
/// `--focus` does; a URL with parameters says its base (none when it has no `base=`).
#[test]
fn the_command_lines_base_holds_for_a_bare_url() {
    let dir = case("t-heap");
    let base = format!("--base={H1}");
    let s = web::start(&dir, &["theap", H3, &base, "--focus=tdata"], &[]);
    let (_, want, _) = cli(&dir, &["--text", &base, "--focus=tdata", "theap", H3]);
    let (_, plain, _) = cli(&dir, &["--text", "theap", H3]);
    assert_ne!(want, plain);
    assert_eq!(get(&format!("{}/ui/text", s.url)).body, want);
    assert_eq!(get(&format!("{}/ui/text?view={H3}", s.url)).body, plain);
    // The Diff picker shows it chosen.
    let page = get(&format!("{}/ui/top", s.url)).text();
    let diff = &page[page.find("id=\"base-picker\"").unwrap()..];
    let diff = &diff[..diff.find("</select>").unwrap()];
    assert!(diff.contains(&format!("value=\"{H1}\" selected")), "{diff}");
}

/// A `--base` that is also one of the profiles served (the usual case: it lies in the glob
/// or the folder) holds too (it was ignored), and a bare URL's page keeps the command
/// line's choices in its links and gives them to the address bar (they were lost at the
/// first click).
#[test]
fn the_command_lines_base_among_the_profiles_holds_and_stays_in_links() {
    let dir = case("t-heap");
    // (Spelled otherwise than the glob spells it: the same file.)
    let base = format!("--base=./{H1}");
    let s = web::start(&dir, &["theap", "theap.hprof.*.heap", &base, "--cum"], &[]);
    let h: serde_json::Value =
        serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
    assert_eq!(listed(&h), [H3, H2, H1]);
    let (_, want, _) = cli(&dir, &["--text", &base, "--cum", "theap", H3]);
    let (_, plain, _) = cli(&dir, &["--text", "--cum", "theap", H3]);
    assert_ne!(want, plain);
    assert_eq!(get(&format!("{}/ui/text", s.url)).body, want);
    let page = get(&format!("{}/ui/top", s.url)).text();
    assert!(
        page.contains(&format!("<header data-query=\"base={H1}&amp;sort=cum\">")),
        "{page}"
    );
    let links: Vec<&str> = page
        .match_indices("href=\"/ui/")
        .map(|(i, _)| {
            let l = &page[i + 6..];
            &l[..l.find('"').unwrap_or(l.len())]
        })
        .filter(|l| l.contains("f=") || l.contains("p="))
        .collect();
    assert!(links.len() > 10, "{links:?}");
    for l in links {
        assert!(l.contains(&format!("base={H1}")), "{l}");
    }
    // A URL with parameters is its own: no address to fill in.
    let page = get(&format!("{}/ui/top?base={H2}", s.url)).text();
    assert!(!page.contains("data-query"));
    // On a routine page `f` names the routines: a bare URL stays bare there, and so do
    // its tabs, which then show the command line's choices (its focus too).
    let page = get(&format!("{}/ui/source", s.url)).text();
    assert!(!page.contains("data-query"));
    assert!(page.contains("id=\"tab-top\" href=\"/ui/top\""), "{page}");
}

/// The text of a source page's listing (its HTML without the instructions under the
/// lines), as `--list` prints it; other text as it is.
fn listing_text(page: &str) -> String {
    let Some(at) = page.find("<div class=\"listing\" id=\"listing\">") else {
        return page.to_string();
    };
    let mut html = &page[at..];
    if let Some(end) = html.find("</main>") {
        html = &html[..end];
    }
    let mut text = String::new();
    let mut rest = html;
    // Each line is a <div> or a <summary>; the instructions' <div class="insn"> go.
    while let Some(i) = rest.find('<') {
        text.push_str(&rest[..i]);
        let tag_end = rest[i..].find('>').map_or(rest.len(), |j| i + j + 1);
        let tag = &rest[i..tag_end];
        rest = &rest[tag_end..];
        if tag == "<div class=\"insn\">" {
            rest = rest.find("</div>").map_or("", |j| &rest[j + 6..]);
        } else if tag == "</div>" || tag == "</summary>" {
            text.push('\n');
        }
    }
    // (A line of the listing is never empty: its values come first.)
    let text: String = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The `ROUTINE` lines of a listing (the command line's or a page's), each with its values
/// line.
fn routine_heads(text: &str) -> Vec<String> {
    let text = listing_text(text)
        .replace("id=\"listing\">", "\n")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("ROUTINE "))
        .map(|(i, l)| format!("{l}\n{}", lines.get(i + 1).unwrap_or(&"")))
        .collect()
}

#[test]
fn a_listing_of_many_routines_is_cut_to_the_largest() {
    let (s, dir) = heap_server();
    let (_, all, _) = cli(&dir, &["--list=.", "theap", H3]);
    let all = routine_heads(&String::from_utf8_lossy(&all));
    assert!(all.len() > 10, "{all:?}");
    // Cut to three: the routines with the largest cumulative values, in the listing's order.
    let page = get(&format!("{}/ui/source?view={H3}&f=.&routines=3", s.url)).text();
    assert!(
        page.contains(&format!(
            "<p class=\"cut\" id=\"cut\">Listed 3 of the {} routines matching, those with the largest cumulative values.",
            all.len()
        )),
        "{page}"
    );
    let shown = routine_heads(&page);
    let want: Vec<&String> = all
        .iter()
        .filter(|h| h.contains("main in") || h.contains("one_round in") || h.contains("0.9    0.9"))
        .collect();
    assert_eq!(shown.iter().collect::<Vec<_>>(), want);
    assert!(page.contains("routines=all\">List them all</a>"));
    // (Its own parameter: the top page's rows are another matter.)
    assert!(page.contains(
        "id=\"tab-top\" href=\"/ui/top?view=theap.hprof.0003.heap&amp;f=.&amp;routines=3\""
    ));
    // All of them when asked, and by default when there are few.
    for q in ["&routines=all", "&rows=2", ""] {
        let page = get(&format!("{}/ui/source?view={H3}&f=.{q}", s.url)).text();
        assert!(!page.contains("id=\"cut\""), "{q}");
        assert_eq!(routine_heads(&page), all, "{q}");
    }
    // The disassembly page is cut alike.
    if common::have("objdump") {
        let page = get(&format!("{}/ui/disasm?view={H3}&f=.&routines=3", s.url)).text();
        assert!(page.contains("<p class=\"cut\" id=\"cut\">Listed 3 of the "));
        assert_eq!(routine_heads(&page).len(), 3, "{page}");
    }
}

#[test]
fn the_newest_profile_is_the_default_view() {
    let t = scratch("newest");
    let src = case("t-heap");
    // Modification times decide; the names say otherwise.
    copy_at(&src.join(H1), &t.join("b.heap"), 600);
    copy_at(&src.join(H3), &t.join("c.heap"), 0);
    copy_at(&src.join(H2), &t.join("a.heap"), 1200);
    let prog = src.join("theap");
    let s = web::start(
        &t,
        &[prog.to_str().unwrap(), "c.heap", "a.heap", "b.heap"],
        &[],
    );
    let h: serde_json::Value =
        serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
    assert_eq!(listed(&h), ["a.heap", "b.heap", "c.heap"]);
    let page = get(&format!("{}/ui/text", s.url));
    let (_, want, _) = cli(&t, &["--text", prog.to_str().unwrap(), "a.heap"]);
    assert_eq!(page.body, want);
}

/// Waits (polling, at most `limit`) until the history lists `name`.
fn wait_for(s: &web::WebServer, name: &str, present: bool) -> serde_json::Value {
    let start = std::time::Instant::now();
    loop {
        let h: serde_json::Value =
            serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
        let listed = h["profiles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == name);
        if listed == present {
            return h;
        }
        // A guard against a test that would never end, not a timing requirement.
        if start.elapsed() > Duration::from_secs(120) {
            panic!(
                "{name} {} the history: {h}\n{}",
                if present {
                    "never joined"
                } else {
                    "never left"
                },
                s.stderr.lock().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A server watching the folder `dumps` of a scratch folder named `test`, which holds
/// t-heap's first dump as `heap.latest` (read at the start; `flags` go before the folder):
/// the file to rewrite, t-heap's folder and the server.
fn watching_heap_latest(test: &str, flags: &[&str]) -> (PathBuf, PathBuf, web::WebServer) {
    let t = scratch(test);
    let dumps = t.join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let src = case("t-heap");
    let latest = dumps.join("heap.latest");
    copy_at(&src.join(H1), &latest, 0);
    let prog = src.join("theap");
    let mut args = vec![prog.to_str().unwrap()];
    args.extend(flags);
    args.push("dumps");
    let s = web::start(&t, &args, &[]);
    wait_for(&s, "heap.latest", true);
    (latest, src, s)
}

/// A dump rewritten under its name (jemalloc's `prof.dump` to a fixed file, a cron job's
/// `curl -o heap.latest`) joins the history again, with its new contents; the first
/// reading stays, and the two are a series for the trend.
#[test]
fn a_dump_rewritten_in_a_watched_folder_joins_again() {
    let (latest, src, s) = watching_heap_latest("rewritten", &[]);
    copy_at(&src.join(H3), &latest, 600);
    // The second reading is numbered.
    wait_for(&s, "heap.latest (2)", true);
    let got = get(&format!(
        "{}/ui/text?view={}",
        s.url,
        enc("heap.latest (2)")
    ));
    let (_, want, _) = cli(&src, &["--text", "theap", H3]);
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
    let got = get(&format!("{}/ui/text?view=heap.latest", s.url));
    let (_, want, _) = cli(&src, &["--text", "theap", H1]);
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
    // A third reading: the three are a trend (not one file given three times).
    copy_at(&src.join(H2), &latest, 1200);
    wait_for(&s, "heap.latest (3)", true);
    let page = get(&format!("{}/ui/trend", s.url)).text();
    assert!(page.contains("id=\"trend-summary\">3 dumps"), "{page}");
}

/// A dump rewritten with its modification time kept (`cp -p`, `touch -r`), even with the
/// same size, joins again; the readings are newest first in the order they were read, and a
/// series for the trend (not one file given twice).
#[test]
fn a_dump_rewritten_with_its_time_kept_joins_again() {
    let (latest, src, s) = watching_heap_latest("rewritten-same-time", &[]);
    // H1 and H2 have the same size.
    assert_eq!(
        std::fs::metadata(src.join(H1)).unwrap().len(),
        std::fs::metadata(src.join(H2)).unwrap().len()
    );
    copy_at(&src.join(H2), &latest, 0);
    wait_for(&s, "heap.latest (2)", true);
    copy_at(&src.join(H3), &latest, 0);
    let h = wait_for(&s, "heap.latest (3)", true);
    assert_eq!(
        listed(&h),
        ["heap.latest (3)", "heap.latest (2)", "heap.latest"]
    );
    for (name, dump) in [("heap.latest (2)", H2), ("heap.latest (3)", H3)] {
        let got = get(&format!("{}/ui/text?view={}", s.url, enc(name)));
        let (_, want, _) = cli(&src, &["--text", "theap", dump]);
        assert_eq!(got.text(), String::from_utf8_lossy(&want), "{name}");
    }
    let page = get(&format!("{}/ui/trend", s.url)).text();
    assert!(page.contains("id=\"trend-summary\">3 dumps"), "{page}");
    // The chart names the readings as the history does.
    assert!(
        page.contains("the order of the arguments, heap.latest ... heap.latest (3)"),
        "{page}"
    );
}

/// Names are never given twice: a dump rewritten after its first readings were let go
/// (`--max_profiles_kept=1`) is the third reading, not `heap.latest` again (an open page's
/// pickers, and links, would take it for the first).
#[test]
fn names_of_readings_let_go_are_not_given_again() {
    let (latest, src, s) = watching_heap_latest("names-let-go", &["--max_profiles_kept=1"]);
    copy_at(&src.join(H2), &latest, 0);
    let h = wait_for(&s, "heap.latest (2)", true);
    assert_eq!(listed(&h), ["heap.latest (2)"]);
    copy_at(&src.join(H3), &latest, 0);
    let h = wait_for(&s, "heap.latest (3)", true);
    assert_eq!(listed(&h), ["heap.latest (3)"]);
    let gone = get(&format!("{}/ui/text?view=heap.latest", s.url));
    assert_eq!(gone.status, 404);
}

/// The start of a dump as it is while being written: its header and first two records.
fn being_written(data: &[u8]) -> &[u8] {
    common::first_lines(data, 3)
}

/// Waits until the text report of the profile named `name` is `want` (it was read again).
fn wait_for_text(s: &web::WebServer, name: &str, want: &str) {
    let url = format!("{}/ui/text?view={}", s.url, enc(name));
    let start = std::time::Instant::now();
    while get(&url).text() != want {
        // A guard against a test that would never end, not a timing requirement.
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "never replaced: {}",
            s.stderr.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A file read twice (rewritten), whose second reading was taken while it was being written:
/// once complete, it replaces that second reading alone; the first stays under its name.
#[test]
fn a_completed_rewrite_replaces_only_the_latest_reading() {
    let (latest, src, s) = watching_heap_latest("rewrite-completed", &[]);
    // Rewritten with another dump, read while still being written.
    let data = std::fs::read(src.join(H3)).unwrap();
    write_at(&latest, being_written(&data), 600);
    wait_for(&s, "heap.latest (2)", true);
    write_at(&latest, &data, 1200);
    let (_, want, _) = cli(&src, &["--text", "theap", H3]);
    let want = String::from_utf8_lossy(&want).into_owned();
    wait_for_text(&s, "heap.latest (2)", &want);
    let h = wait_for(&s, "heap.latest", true);
    assert_eq!(listed(&h), ["heap.latest (2)", "heap.latest"]);
    let (_, first, _) = cli(&src, &["--text", "theap", H1]);
    let got = get(&format!("{}/ui/text?view=heap.latest", s.url));
    assert_eq!(got.text(), String::from_utf8_lossy(&first));
}

/// A dump read while it was being written (it stopped changing for a while, at a line's
/// end) is replaced under its name once it is complete; a dump touched, or copied over with
/// the same bytes, changes nothing.
#[test]
fn a_dump_completed_replaces_its_first_reading_and_a_touch_changes_nothing() {
    let t = scratch("completed");
    let dumps = t.join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let src = case("t-heap");
    let prog = src.join("theap");
    let data = std::fs::read(src.join(H3)).unwrap();
    let dump = dumps.join(H3);
    write_at(&dump, being_written(&data), 0);
    copy_at(&src.join(H1), &dumps.join(H1), 0);
    let s = web::start(&t, &[prog.to_str().unwrap(), "dumps"], &[]);
    wait_for(&s, H3, true);
    let (_, want, _) = cli(&src, &["--text", "theap", H3]);
    let want = String::from_utf8_lossy(&want).into_owned();
    assert_ne!(get(&format!("{}/ui/text?view={H3}", s.url)).text(), want);
    write_at(&dump, &data, 600);
    wait_for_text(&s, H3, &want);
    // Touched: nothing changes. Two dumps copied in one after the other make sure that the
    // folder was looked at twice after the touch (once to see it, once to read it).
    set_time(&dumps.join(H1), 1200);
    copy_at(&src.join(H2), &dumps.join("later.heap"), 0);
    wait_for(&s, "later.heap", true);
    copy_at(&src.join(H2), &dumps.join("latest.heap"), 0);
    let h = wait_for(&s, "latest.heap", true);
    let names = listed(&h);
    assert_eq!(names.len(), 4, "{names:?}");
    for n in [H1, H3] {
        assert_eq!(names.iter().filter(|&&x| x == n).count(), 1, "{names:?}");
    }
    let said = s.stderr.lock().unwrap().clone();
    assert!(
        said.contains(&format!("Profile read again (its file changed): {H3}")),
        "{said}"
    );
    assert!(!said.contains(&format!("changed): {H1}")), "{said}");
}

#[test]
fn a_dump_copied_into_a_watched_folder_joins_the_history() {
    let t = scratch("watched");
    let dumps = t.join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let src = case("t-heap");
    copy_at(&src.join(H1), &dumps.join(H1), 0);
    std::fs::write(dumps.join("README.md"), "not a profile\n").unwrap();
    let prog = src.join("theap");
    let s = web::start(&t, &[prog.to_str().unwrap(), "dumps"], &[]);
    wait_for(&s, H1, true);
    // A new dump, written the way a profiler writes one (in pieces).
    let data = std::fs::read(src.join(H2)).unwrap();
    {
        let mut f = std::fs::File::create(dumps.join(H2)).unwrap();
        f.write_all(&data[..data.len() / 2]).unwrap();
        f.flush().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        f.write_all(&data[data.len() / 2..]).unwrap();
    }
    let h = wait_for(&s, H2, true);
    assert_eq!(h["profiles"][0]["name"], H2, "the newest first: {h}");
    assert!(!h.to_string().contains("README"), "{h}");
    // Its reports are the command line's.
    let got = get(&format!("{}/ui/text?view={H2}&base={H1}", s.url));
    let (_, want, _) = cli(
        &t,
        &[
            "--text",
            &format!("--base=dumps/{H1}"),
            prog.to_str().unwrap(),
            &format!("dumps/{H2}"),
        ],
    );
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
    // The file that is not a profile is not offered, nor anything outside the folder.
    refused(&s, "/ui/text?view=README.md", 404, "no such profile");
    refused(
        &s,
        &format!("/ui/text?view=dumps%2F{H1}"),
        404,
        "no such profile",
    );
}

/// A dump a watched glob names that is empty when seen is said to be skipped; once it is
/// written, it joins, and the pages stop saying that it was skipped.
#[test]
fn a_dump_skipped_then_written_is_no_longer_said_skipped() {
    let t = scratch("skipped");
    let dumps = t.join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let src = case("t-heap");
    copy_at(&src.join(H1), &dumps.join(H1), 0);
    let prog = src.join("theap");
    let s = web::start(
        &t,
        &[prog.to_str().unwrap(), "dumps/theap.hprof.*.heap"],
        &[],
    );
    wait_for(&s, H1, true);
    std::fs::File::create(dumps.join(H3)).unwrap();
    let skipped = format!("skipping {}: empty", Path::new("dumps").join(H3).display());
    let page = || get(&format!("{}/ui/top?view={H1}", s.url)).text();
    eventually("the empty dump said to be skipped", || {
        page().contains(&skipped)
    });
    std::fs::write(dumps.join(H3), std::fs::read(src.join(H3)).unwrap()).unwrap();
    wait_for(&s, H3, true);
    let after = page();
    assert!(!after.contains(&skipped), "{after}");
    assert!(after.contains(&format!("New profile: {H3}")), "{after}");
}

#[test]
fn a_quoted_glob_is_watched_and_the_oldest_dumps_let_go() {
    let t = scratch("glob");
    let src = case("t-heap");
    copy_at(&src.join(H1), &t.join("heap_live.0001.heap"), 0);
    copy_at(&src.join(H2), &t.join("heap_live.0002.heap"), 10);
    copy_at(&src.join(H3), &t.join("other.0003.heap"), 20);
    let prog = src.join("theap");
    let s = glob_keeping_two(&t, &prog);
    let h = wait_for(&s, "heap_live.0002.heap", true);
    assert_eq!(h["profiles"].as_array().unwrap().len(), 2, "{h}");
    assert!(!h.to_string().contains("other.0003"), "not matched: {h}");
    // A third matching dump: the oldest goes from the history, not from the disk.
    copy_at(&src.join(H3), &t.join("heap_live.0003.heap"), 30);
    wait_for(&s, "heap_live.0003.heap", true);
    let h = wait_for(&s, "heap_live.0001.heap", false);
    assert_eq!(h["profiles"].as_array().unwrap().len(), 2, "{h}");
    assert!(
        t.join("heap_live.0001.heap").exists(),
        "never delete a user's file"
    );
    refused(
        &s,
        "/ui/text?view=heap_live.0001.heap",
        404,
        "view=heap_live.0001.heap: not among the profiles kept (--max_profiles_kept=2 keeps the newest; 1 let go)",
    );
    // A page asked for it (a bookmark, a page opened before it went): the newest, and why.
    missing_profile_page(
        &s,
        "/ui/top?view=heap_live.0001.heap&f=main",
        "view=heap_live.0001.heap: not among the profiles kept",
        "heap_live.0003.heap",
    );
    // A base let go: the view stays, without it.
    let a = get(&format!(
        "{}/ui/top?view=heap_live.0002.heap&base=heap_live.0001.heap",
        s.url
    ));
    assert_eq!(a.status, 404);
    assert!(
        a.text().contains("base=heap_live.0001.heap: not among the profiles kept (--max_profiles_kept=2 keeps the newest; 1 let go). Showing heap_live.0002.heap without it."),
        "{}",
        a.text()
    );
    assert!(a.text().contains("<b>heap_live.0002.heap</b>"));
    // A page's Diff picker takes a new dump when the server says it can be the base.
    let h: serde_json::Value = serde_json::from_slice(
        &get(&format!("{}/ui/history?view=heap_live.0003.heap", s.url)).body,
    )
    .unwrap();
    assert_eq!(h["max_kept"], 2, "{h}");
    let diff: Vec<(&str, bool)> = h["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["diff"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        diff,
        [
            ("heap_live.0003.heap", false),
            ("heap_live.0002.heap", true)
        ]
    );
    let got = get(&format!(
        "{}/ui/text?view=heap_live.0003.heap&base=heap_live.0002.heap",
        s.url
    ));
    let (_, want, _) = cli(
        &t,
        &[
            "--text",
            "--base=heap_live.0002.heap",
            prog.to_str().unwrap(),
            "heap_live.0003.heap",
        ],
    );
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
    // A file the pattern names that is no profile (a proxy's error page saved by a cron
    // job's curl) is said, once.
    std::fs::write(
        t.join("heap_live.0004.heap"),
        "<html>502 Bad Gateway</html>\n",
    )
    .unwrap();
    let said = "rpprof: skipping ";
    let start = std::time::Instant::now();
    while !s
        .stderr
        .lock()
        .unwrap()
        .contains("heap_live.0004.heap: it does not start as a profile does")
    {
        // A guard against a test that would never end, not a timing requirement.
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{}",
            s.stderr.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        s.stderr.lock().unwrap().matches(said).count(),
        1,
        "{}",
        s.stderr.lock().unwrap()
    );
}

/// The newest dumps are read first (on every core), and a newest one that cannot be read
/// leaves its room to the next older one, as reading them one by one did.
#[test]
fn unreadable_newest_dumps_leave_room_to_older_ones() {
    let t = scratch("unreadable");
    let src = case("t-heap");
    copy_at(&src.join(H1), &t.join("heap_live.0001.heap"), 0);
    copy_at(&src.join(H2), &t.join("heap_live.0002.heap"), 10);
    copy_at(&src.join(H3), &t.join("heap_live.0003.heap"), 20);
    let bad = b"heap profile:    1:     8 [     1:     8] @ heapprofile\n1: 8 [1: 8] @ 0xZZ\n";
    write_at(&t.join("heap_live.0004.heap"), bad, 30);
    write_at(&t.join("heap_live.0005.heap"), bad, 40);
    let s = glob_keeping_two(&t, &src.join("theap"));
    let h = wait_for(&s, "heap_live.0003.heap", true);
    assert_eq!(
        listed(&h),
        ["heap_live.0003.heap", "heap_live.0002.heap"],
        "{h}"
    );
    let stderr = s.stderr.lock().unwrap().clone();
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("rpprof: skipping "))
        .collect();
    assert_eq!(said.len(), 2, "{stderr}");
    assert!(said[0].contains("heap_live.0005.heap"), "{stderr}");
    assert!(said[1].contains("heap_live.0004.heap"), "{stderr}");
}

#[test]
fn an_empty_folder_waits_for_its_first_dump() {
    let t = scratch("empty");
    std::fs::create_dir(t.join("dumps")).unwrap();
    let src = case("t-heap");
    let prog = src.join("theap");
    let s = web::start(&t, &[prog.to_str().unwrap(), "dumps"], &[]);
    let page = get(&format!("{}/ui/flamegraph", s.url));
    assert_eq!(page.status, 200);
    assert!(page.text().contains("No profiles yet"), "{}", page.text());
    // A plain form: not a bad request, a service not ready yet.
    let text = get(&format!("{}/ui/text", s.url));
    assert_eq!(text.status, 503, "{}", text.text());
    assert!(text.text().contains("no profiles yet"), "{}", text.text());
    copy_at(&src.join(H3), &t.join("dumps").join(H3), 0);
    wait_for(&s, H3, true);
    let got = get(&format!("{}/ui/text", s.url));
    let (_, want, _) = cli(
        &t,
        &["--text", prog.to_str().unwrap(), &format!("dumps/{H3}")],
    );
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
}

/// A raw request; the answer's status line and the whole answer.
fn raw(s: &web::WebServer, request: &[u8]) -> String {
    let addr = s.url.trim_start_matches("http://");
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let _ = c.write_all(request);
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn requests_that_are_too_big_or_not_ours_are_refused() {
    let (s, _dir) = heap_server();
    let host = s.url.trim_start_matches("http://").to_string();
    let big = format!(
        "GET /ui/text HTTP/1.1\r\nHost: {host}\r\nX-Big: {}\r\n\r\n",
        "a".repeat(40_000)
    );
    assert!(raw(&s, big.as_bytes()).starts_with("HTTP/1.1 431 "));
    let long_url = format!(
        "GET /ui/text?f={} HTTP/1.1\r\nHost: {host}\r\n\r\n",
        "a".repeat(70_000)
    );
    let a = raw(&s, long_url.as_bytes());
    assert!(a.starts_with("HTTP/1.1 414 "), "{}", &a[..a.len().min(200)]);
    let body =
        format!("POST /ui/fetch HTTP/1.1\r\nHost: {host}\r\nContent-Length: 10000000\r\n\r\n");
    assert!(raw(&s, body.as_bytes()).starts_with("HTTP/1.1 413 "));
    // A page answers a method it does not take with the same Allow, whatever the method.
    let allow = |a: &str| {
        a.lines()
            .find_map(|l| l.strip_prefix("Allow: "))
            .map(str::to_string)
    };
    for (method, path, allowed) in [
        ("PUT", "/ui/text", "GET, HEAD"),
        ("POST", "/ui/text", "GET, HEAD"),
        ("DELETE", "/ui/fetch", "POST"),
        ("GET", "/ui/fetch", "POST"),
    ] {
        let r = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\n\r\n");
        let a = raw(&s, r.as_bytes());
        assert!(a.starts_with("HTTP/1.1 405 "), "{method} {path}: {a}");
        assert_eq!(allow(&a).as_deref(), Some(allowed), "{method} {path}: {a}");
    }
    let rebinding = "GET /ui/text HTTP/1.1\r\nHost: attacker.example:80\r\n\r\n";
    let a = raw(&s, rebinding.as_bytes());
    assert!(a.starts_with("HTTP/1.1 403 "), "{a}");
    assert!(raw(&s, b"NOT HTTP AT ALL\r\n\r\n").starts_with("HTTP/1.1 400 "));
    // One Host header: two could name two hosts (the second another); HTTP/1.1 needs one.
    let two = "GET /ui/text HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n";
    let a = raw(&s, two.as_bytes());
    assert!(a.starts_with("HTTP/1.1 400 "), "{a}");
    let none = raw(&s, b"GET /ui/text HTTP/1.1\r\n\r\n");
    assert!(none.starts_with("HTTP/1.1 400 "), "{none}");
    let old = format!("GET /ui/text?view={H3} HTTP/1.0\r\n\r\n");
    assert!(raw(&s, old.as_bytes()).starts_with("HTTP/1.1 200 "));
    let ok = format!("GET /ui/text?view={H3} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert!(raw(&s, ok.as_bytes()).starts_with("HTTP/1.1 200 "));
    // Lines ended by a bare LF (RFC 9112 2.2), and the absolute form of the target (3.2.2),
    // are requests; the host named in the target is the one checked.
    let lf = format!("GET /ui/text?view={H3} HTTP/1.1\nHost: localhost\n\n");
    let a = raw(&s, lf.as_bytes());
    assert!(a.starts_with("HTTP/1.1 200 "), "{}", &a[..a.len().min(200)]);
    let absolute = format!("GET http://{host}/ui/text?view={H3} HTTP/1.1\r\nHost: x\r\n\r\n");
    let a = raw(&s, absolute.as_bytes());
    assert!(a.starts_with("HTTP/1.1 200 "), "{}", &a[..a.len().min(200)]);
    let elsewhere = "GET http://attacker.example/ui/text HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let a = raw(&s, elsewhere.as_bytes());
    assert!(a.starts_with("HTTP/1.1 403 "), "{a}");
    // An authority that is no plain host and port is not read as one.
    let userinfo =
        "GET http://localhost:1@attacker.example/ui/ HTTP/1.1\r\nHost: attacker.example\r\n\r\n";
    let a = raw(&s, userinfo.as_bytes());
    assert!(a.starts_with("HTTP/1.1 400 "), "{a}");
    // A TLS handshake on this plain port is refused at once (not as too slow after the
    // deadline: the handshake never ends a request head).
    let hello = [
        0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
    ];
    let a = raw(&s, &hello);
    assert!(a.starts_with("HTTP/1.1 400 "), "{a}");
    // What a request sent comes back in an error with its control characters escaped.
    let nul = format!("GET /ui/text?view={H3}%00 HTTP/1.1\r\nHost: {host}\r\n\r\n");
    let a = raw(&s, nul.as_bytes());
    assert!(a.starts_with("HTTP/1.1 404 "), "{a}");
    assert!(!a.contains('\0') && a.contains("\\u{0}"), "{a:?}");
    assert_eq!(post(&format!("{}/ui/text", s.url)).status, 405);
    // No remote source here: nothing to fetch.
    let f = post(&format!("{}/ui/fetch", s.url));
    assert_eq!(f.status, 400, "{}", f.text());
}

#[test]
fn slow_clients_and_many_requests_do_not_stall_the_others() {
    let (s, dir) = heap_server();
    let addr = s.url.trim_start_matches("http://").to_string();
    // Clients that connect and send half a request, then nothing.
    let mut slow = Vec::new();
    for _ in 0..8 {
        let mut c = TcpStream::connect(&addr).unwrap();
        c.write_all(b"GET /ui/text HTTP/1.1\r\nHost: loc").unwrap();
        slow.push(c);
    }
    let (_, want_text, _) = cli(&dir, &["--text", "theap", H3]);
    let (_, want_collapsed, _) = cli(&dir, &["--collapsed", "--base", H1, "theap", H2]);
    let url = s.url.clone();
    let threads: Vec<_> = (0..24)
        .map(|i| {
            let url = url.clone();
            let (wt, wc) = (want_text.clone(), want_collapsed.clone());
            std::thread::spawn(move || {
                for j in 0..6 {
                    match (i + j) % 4 {
                        0 => assert_eq!(get(&format!("{url}/ui/text?view={H3}")).body, wt),
                        1 => assert_eq!(
                            get(&format!("{url}/ui/collapsed?view={H2}&base={H1}")).body,
                            wc
                        ),
                        2 => assert_eq!(
                            get(&format!("{url}/ui/flamegraph?view={H3}&si=alloc_space")).status,
                            200
                        ),
                        _ => {
                            assert_eq!(get(&format!("{url}/ui/top?view={H1}&g=lines")).status, 200)
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a request failed");
    }
    drop(slow);
}

/// A pprof server on loopback for the remote tests: `/pprof/heap` answers the three t-heap
/// dumps in turn, `/pprof/cmdline` the program, `/pprof/symbol` a made-up name for every
/// address. It stops by itself after 200 requests.
/// A pprof server whose program is `/srv/<who>` and whose symbols are `<who>_fn_<address>`.
fn fake_pprof_server(who: &'static str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let served = std::sync::Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    let dumps: Vec<Vec<u8>> = [H1, H2, H3]
        .iter()
        .map(|h| std::fs::read(case("t-heap").join(h)).unwrap())
        .collect();
    std::thread::spawn(move || {
        for (n, c) in l.incoming().take(200).enumerate() {
            let Ok(mut c) = c else { continue };
            let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match c.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => buf.extend_from_slice(&chunk[..k]),
                }
            }
            let head = String::from_utf8_lossy(&buf).into_owned();
            let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap_or(0))
                })
                .unwrap_or(0);
            let start = buf
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map_or(buf.len(), |i| i + 4);
            let mut body = buf[start..].to_vec();
            while body.len() < len {
                match c.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => body.extend_from_slice(&chunk[..k]),
                }
            }
            let answer: Vec<u8> = if path.starts_with("/pprof/heap") {
                let i = count.fetch_add(1, Ordering::SeqCst);
                dumps[i % 3].clone()
            } else if path.starts_with("/pprof/cmdline") {
                format!("/srv/{who}\n").into_bytes()
            } else if path.starts_with("/pprof/symbol") && head.starts_with("GET") {
                b"num_symbols: 1\n".to_vec()
            } else if path.starts_with("/pprof/symbol") {
                let mut o = String::new();
                for a in String::from_utf8_lossy(&body).split('+') {
                    let a = a.trim().trim_start_matches("0x");
                    if let Ok(v) = u64::from_str_radix(a, 16) {
                        o.push_str(&format!("0x{v:x}\t{who}_fn_{v:x}\n"));
                    }
                }
                o.into_bytes()
            } else {
                let _ = c.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            };
            let _ = c.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    answer.len()
                )
                .as_bytes(),
            );
            let _ = c.write_all(&answer);
            let _ = n;
        }
    });
    (port, served)
}

#[test]
fn a_remote_source_takes_a_new_profile_on_demand_and_every_so_often() {
    let t = scratch("remote");
    let saved = t.join("saved");
    let (port, served) = fake_pprof_server("remote");
    let src = case("t-heap");
    let prog = src.join("theap");
    let target = format!("127.0.0.1:{port}/pprof/heap");
    let s = web::start(
        &t,
        &[prog.to_str().unwrap(), &target],
        &[("PPROF_TMPDIR", saved.to_str().unwrap())],
    );
    let h: serde_json::Value =
        serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
    assert_eq!(h["profiles"].as_array().unwrap().len(), 1, "{h}");
    let page = get(&format!("{}/ui/flamegraph", s.url)).text();
    assert!(
        page.contains("data-fetch=\"0\""),
        "the <new profile> choice"
    );
    // The "new profile" action.
    let f = post(&format!("{}/ui/fetch?source=0", s.url));
    assert_eq!(f.status, 202, "{}", f.text());
    let start = std::time::Instant::now();
    let h = loop {
        let h: serde_json::Value =
            serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
        if h["profiles"].as_array().unwrap().len() == 2 {
            break h;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no second profile: {h}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // The second fetch answered the second dump: the newest profile's report is its.
    let newest = h["profiles"][0]["name"].as_str().unwrap().to_string();
    let got = get(&format!("{}/ui/text?view={}", s.url, enc(&newest)));
    let (_, want, _) = cli(&src, &["--text", "theap", H2]);
    assert_eq!(got.text(), String::from_utf8_lossy(&want));
    assert!(served.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    // Saved where pprof saves them, each under a name of its own.
    let files = std::fs::read_dir(&saved).unwrap().count();
    assert_eq!(files, 2);
    // A page of another site may not make it fetch.
    let addr = s.url.trim_start_matches("http://").to_string();
    let a = raw(
        &s,
        format!("POST /ui/fetch HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://attacker.example\r\nContent-Length: 0\r\n\r\n").as_bytes(),
    );
    assert!(a.starts_with("HTTP/1.1 403 "), "{a}");
    drop(s);

    // Without a local program the server names the addresses; --every fetches by itself.
    let saved2 = t.join("saved2");
    let s = web::start(
        &t,
        &[&target, "--every=1s"],
        &[("PPROF_TMPDIR", saved2.to_str().unwrap())],
    );
    let start = std::time::Instant::now();
    loop {
        let h: serde_json::Value =
            serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
        if h["profiles"].as_array().unwrap().len() >= 3 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "--every fetched nothing: {h}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let text = get(&format!("{}/ui/text", s.url)).text();
    assert!(text.contains("remote_fn_"), "names from the server: {text}");
}

/// Without a program, each server names the addresses of its own profiles (and its program
/// names its saved files).
#[test]
fn two_remote_servers_each_name_their_own_profiles() {
    let t = scratch("two-remotes");
    let saved = t.join("saved");
    let (a, _) = fake_pprof_server("alpha");
    let (b, _) = fake_pprof_server("beta");
    let s = web::start(
        &t,
        &[
            &format!("127.0.0.1:{a}/pprof/heap"),
            &format!("127.0.0.1:{b}/pprof/heap"),
        ],
        &[("PPROF_TMPDIR", saved.to_str().unwrap())],
    );
    let h: serde_json::Value =
        serde_json::from_slice(&get(&format!("{}/ui/history", s.url)).body).unwrap();
    let names: Vec<String> = h["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 2, "{h}");
    let mut seen = Vec::new();
    for n in &names {
        let text = get(&format!("{}/ui/text?view={}", s.url, enc(n))).text();
        let who = if n.starts_with("alpha.") {
            "alpha"
        } else {
            "beta"
        };
        let other = if who == "alpha" { "beta" } else { "alpha" };
        assert!(n.starts_with(&format!("{who}.")), "{n}");
        assert!(text.contains(&format!("{who}_fn_")), "{n}: {text}");
        assert!(!text.contains(&format!("{other}_fn_")), "{n}: {text}");
        seen.push(who);
    }
    seen.sort();
    assert_eq!(seen, ["alpha", "beta"]);
}

#[test]
fn command_line_mistakes_with_http() {
    let dir = case("t-heap");
    let (code, _, err) = cli(&dir, &["--http=:0", "--text", "theap", H1]);
    assert_eq!(code, 1);
    assert!(err.contains("--http shows every report itself"), "{err}");
    let (code, _, err) = cli(&dir, &["--every=5s", "--text", "theap", H1]);
    assert_eq!(code, 1);
    assert!(err.contains("--every works with --http only"), "{err}");
    let (code, _, err) = cli(&dir, &["--http=8080", "--no_browser", "theap", H1]);
    assert_eq!(code, 1);
    assert!(err.contains("say [host]:port"), "{err}");
    let (code, _, err) = cli(
        &dir,
        &["--http=:0", "--no_browser", "--every=soon", "theap", H1],
    );
    assert_eq!(code, 1);
    assert!(err.contains("--every=soon"), "{err}");
    let (code, _, err) = cli(
        &dir,
        &["--http=:0", "--no_browser", "theap", "no-such.heap"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("no-such.heap"), "{err}");
    // --every with no remote profile: said, and the server runs.
    let s = web::start(&dir, &["--every=5m", "theap", H1], &[]);
    let said = s.stderr.lock().unwrap().clone();
    assert!(
        said.contains("Warning: --every fetches remote profiles again, and none is given"),
        "{said}"
    );
}

/// Waits (polling; a guard of two minutes, not a time limit) until `f` says yes.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(120), "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_browser_is_opened_on_the_first_page_unless_no_browser() {
    use std::os::unix::fs::PermissionsExt;
    let t = scratch("browser-opened");
    let src = case("t-heap");
    let prog = src.join("theap");
    let profile = src.join(H3);
    // A "browser" that writes down what it was asked to open.
    let script = t.join("browser.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"$@\" > \"$0.opened.tmp\"\nmv \"$0.opened.tmp\" \"$0.opened\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let opened = t.join("browser.sh.opened");
    let args = [
        prog.to_str().unwrap(),
        profile.to_str().unwrap(),
        "--focus=grow",
        "--alloc_space",
    ];
    let env = [("BROWSER", script.to_str().unwrap())];
    let s = web::launch(&t, &["--http=127.0.0.1:0"], &args, &env);
    eventually("the browser was never started", || opened.exists());
    // The first page carries the command line's options as URL parameters.
    let asked = std::fs::read_to_string(&opened).unwrap();
    assert_eq!(
        asked.trim_end(),
        format!("{}/ui/?f=grow&si=alloc_space", s.url)
    );
    let page = get(asked.trim_end());
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.text().contains("(heap profile, alloc_space)"));
    assert!(
        page.text()
            .contains("id=\"f-input\" size=\"14\" value=\"grow\"")
    );
    drop(s);
    std::fs::remove_file(&opened).unwrap();

    // --no_browser: nothing is started. The browser would have been started before the
    // first request was answered, and its file written soon after.
    let s = web::launch(&t, &["--http=127.0.0.1:0", "--no_browser"], &args, &env);
    assert_eq!(get(&format!("{}/ui/text", s.url)).status, 200);
    std::thread::sleep(Duration::from_secs(1));
    assert!(!opened.exists(), "--no_browser started {script:?}");
    // A bare URL shows the command line's focus (and its form says so); a URL with
    // parameters says everything: a focus cleared in the form is gone.
    let (_, focused, _) = cli(
        &t,
        &[
            "--text",
            "--focus=grow",
            "--alloc_space",
            prog.to_str().unwrap(),
            profile.to_str().unwrap(),
        ],
    );
    let (_, all, _) = cli(
        &t,
        &[
            "--text",
            "--alloc_space",
            prog.to_str().unwrap(),
            profile.to_str().unwrap(),
        ],
    );
    assert_ne!(focused, all);
    assert_eq!(get(&format!("{}/ui/text", s.url)).body, focused);
    assert_eq!(
        get(&format!("{}/ui/text?si=alloc_space&f=", s.url)).body,
        all
    );
    assert!(
        get(&format!("{}/ui/top", s.url))
            .text()
            .contains("id=\"f-input\" size=\"14\" value=\"grow\"")
    );
    drop(s);

    // No browser to be found: the URL, to open by hand.
    let empty = t.join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let s = web::launch(
        &t,
        &["--http=127.0.0.1:0"],
        &args,
        &[
            ("BROWSER", "/nonexistent/browser"),
            ("PATH", empty.to_str().unwrap()),
        ],
    );
    let want = format!("Could not start a browser; open {}/ui/?", s.url);
    eventually("no word on the missing browser", || {
        s.stderr.lock().unwrap().contains(&want)
    });
}

#[test]
fn without_graphviz_or_objdump_the_pages_say_so() {
    let t = scratch("no-tools");
    let src = case("t-heap");
    // Nothing on PATH: no dot, no objdump.
    let empty = t.join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let s = web::start(&src, &["theap", H3], &[("PATH", empty.to_str().unwrap())]);
    // A notice, not an error page, and the graph in DOT form meanwhile.
    let g = get(&format!("{}/ui/graph?view={H3}", s.url));
    assert_eq!(g.status, 200, "{}", g.text());
    let g = g.text();
    assert!(g.contains("not installed here"), "{g}");
    assert!(g.contains("apt-get install graphviz"), "{g}");
    assert!(!g.contains("id=\"graph-frame\""), "{g}");
    let dot = get(&format!("{}/ui/dot?view={H3}", s.url));
    assert_eq!(dot.status, 200);
    let (_, want, _) = cli(&src, &["--dot", "theap", H3]);
    assert_eq!(dot.text(), String::from_utf8_lossy(&want));
    // The SVG itself: one line saying what is missing.
    let svg = get(&format!("{}/ui/svg?view={H3}", s.url));
    assert_ne!(svg.status, 200);
    let line = svg.text();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("graphviz"), "{line}");
    let d = get(&format!("{}/ui/disasm?view={H3}&f=grow", s.url));
    assert_eq!(d.status, 200);
    assert!(
        d.text().contains("needs <code>objdump</code>"),
        "{}",
        d.text()
    );
    // The rest needs nothing more.
    let t = get(&format!("{}/ui/text?view={H3}", s.url));
    let (_, want, _) = cli(&src, &["--text", "theap", H3]);
    assert_eq!(t.text(), String::from_utf8_lossy(&want));
    assert_eq!(
        get(&format!("{}/ui/flamegraph?view={H3}", s.url)).status,
        200
    );
}

/// The Trend page says what its series is not: a dump cut short, left out, and the oldest
/// dumps `--max_profiles_kept` let go.
/// A folder of two runs' dumps whose newest is cut at a line end (no memory map yet): the
/// trend page follows the run of the newest dump that has a map, leaves the cut one out, and
/// names the sites it shares with it (the cut dump's addresses are named from the others'
/// maps, not left as hex by it).
#[test]
fn a_cut_newest_dump_among_two_runs() {
    let t = scratch("trend-two-runs");
    let case = case("t-trend");
    std::fs::copy(case.join("ttrend"), t.join("ttrend")).unwrap();
    for i in 1..=4u64 {
        let name = format!("ttrend.hprof.{i:04}.heap");
        copy_at(&case.join(&name), &t.join(&name), i * 60);
    }
    for i in 1..=5u64 {
        let name = format!("ttrend.sample.{i:04}.heap");
        copy_at(&case.join(&name), &t.join(&name), 600 + i * 60);
    }
    let whole = std::fs::read(case.join("ttrend.sample.0006.heap")).unwrap();
    write_at(
        &t.join("ttrend.sample.0006.heap"),
        being_written(&whole),
        1000,
    );
    let s = web::start(&t, &["ttrend", "ttrend.*.heap"], &[]);
    let page = get(&format!("{}/ui/trend", s.url)).text();
    assert!(
        page.contains("5 dumps, ttrend.sample.0001.heap to ttrend.sample.0005.heap;"),
        "{page}"
    );
    assert!(
        page.contains(">Left out: ttrend.sample.0006.heap (no memory map, which the other dumps end with: cut short)</text>"),
        "{page}"
    );
    assert!(page.contains(">steady_leak<"), "{page}");
}

#[test]
fn the_trend_page_says_what_it_left_out() {
    let t = scratch("trend-left-out");
    let case = case("t-trend");
    std::fs::copy(case.join("ttrend"), t.join("ttrend")).unwrap();
    for i in 1..=12u64 {
        let name = format!("ttrend.hprof.{i:04}.heap");
        copy_at(&case.join(&name), &t.join(&name), i * 600);
    }
    let last = t.join("ttrend.hprof.0012.heap");
    let whole = std::fs::read(&last).unwrap();
    write_at(&last, &whole[..300], 12 * 600);
    let s = web::start(
        &t,
        &["ttrend", "ttrend.hprof.*.heap", "--max_profiles_kept=8"],
        &[],
    );
    let page = get(&format!("{}/ui/trend", s.url)).text();
    assert!(
        page.contains("7 dumps, ttrend.hprof.0005.heap to ttrend.hprof.0011.heap;"),
        "{page}"
    );
    assert!(
        page.contains(">Left out: ttrend.hprof.0012.heap (cut short at byte 300)</text>"),
        "{page}"
    );
    assert!(
        page.contains(
            "The 4 oldest profiles are no longer kept (<code>--max_profiles_kept=8</code>"
        ),
        "{page}"
    );
    // The cut dump has no memory map: its addresses, the others' too, are named from theirs.
    assert!(page.contains(">cache_fill<"), "{page}");
    assert!(!page.contains("0x00005"), "{page}");
    // A dump older than every one kept, found by a later look at the folder: let go too,
    // and counted.
    copy_at(
        &case.join("ttrend.hprof.0001.heap"),
        &t.join("ttrend.hprof.0000.heap"),
        1,
    );
    eventually("the older dump counted as let go", || {
        get(&format!("{}/ui/trend", s.url))
            .text()
            .contains("The 5 oldest profiles are no longer kept")
    });
    let page = get(&format!("{}/ui/trend", s.url)).text();
    assert!(
        page.contains("7 dumps, ttrend.hprof.0005.heap to ttrend.hprof.0011.heap;"),
        "{page}"
    );
}

/// The peek page's `f` is a report name (`^twork_step \(inline\)$`): its tabs to the other
/// pages carry that function's expression instead, which finds it (as peek's own did not:
/// the flame graph and top were empty).
#[test]
fn tabs_from_peek_carry_the_function_peeked_at() {
    let dir = case("t-cpu");
    let s = web::start(&dir, &["tcpu-pie", "tcpu-pie.prof"], &[]);
    let page = get(&format!(
        "{}/ui/peek?f=%5Etwork_step%20%5C%28inline%5C%29%24",
        s.url
    ))
    .text();
    let href = |tab: &str| -> String {
        let pat = format!("id=\"tab-{tab}\" href=\"");
        let at = page.find(&pat).unwrap() + pat.len();
        page[at..at + page[at..].find('"').unwrap()].replace("&amp;", "&")
    };
    assert!(href("peek").contains("f=%5Etwork_step%20%5C%28inline%5C%29%24"));
    for tab in ["top", "flamegraph", "source"] {
        assert!(
            href(tab).contains("f=%5Etwork_step%28"),
            "{tab}: {}",
            href(tab)
        );
    }
    let top = href("top");
    let query = &top[top.find('?').unwrap()..];
    let text = get(&format!("{}/ui/text{query}", s.url)).text();
    assert!(text.contains(" twork_step (inline)\n"), "{text}");
    // A focus brought from another page (no single name) goes on as it is.
    let page = get(&format!("{}/ui/peek?f=work", s.url)).text();
    for tab in ["top", "flamegraph", "trend", "source"] {
        let pat = format!("id=\"tab-{tab}\" href=\"");
        let at = page.find(&pat).unwrap() + pat.len();
        let link = &page[at..at + page[at..].find('"').unwrap()];
        assert!(link.contains("f=work"), "{tab}: {link}");
    }
}

/// The source page is the command line's `--list`, each line that instructions were
/// compiled to opening on a click to show them (pprof's weblist): the line's values are
/// the sum of its instructions', every instruction of each routine is under one line, and
/// an instruction inlined from another file names its place.
#[test]
fn source_lines_open_to_their_instructions() {
    let dir = case("t-cpu");
    let s = web::start(&dir, &["tcpu-pie", "tcpu-pie.prof"], &[]);
    let (_, list, _) = cli(&dir, &["--list=.", "tcpu-pie", "tcpu-pie.prof"]);
    let page = get(&format!("{}/ui/source?f=.", s.url)).text();
    assert_eq!(listing_text(&page), String::from_utf8_lossy(&list));
    if !common::have("objdump") {
        common::skip(
            "source_lines_open_to_their_instructions (instructions)",
            "objdump is not installed",
        );
        return;
    }
    let (_, disasm, _) = cli(&dir, &["--disasm=.", "tcpu-pie", "tcpu-pie.prof"]);
    let disasm = String::from_utf8_lossy(&disasm);
    // The instruction rows of --disasm ("flat cum    address: text", the address in 8
    // columns; a source row's line number is in 5): (routine, address) -> (flat, cum).
    let mut want: std::collections::HashMap<(String, String), (String, String)> =
        Default::default();
    let mut routine = String::new();
    for l in disasm.lines() {
        if let Some(name) = l.strip_prefix("ROUTINE ====================== ") {
            routine = name.to_string();
        }
        if l.get(25..26) != Some(":") || l.get(13..17) != Some("    ") {
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        want.insert(
            (routine.clone(), f[2].to_string()),
            (f[0].to_string(), f[1].to_string()),
        );
    }
    assert!(want.len() > 100, "{disasm}");
    let value = |v: &str| {
        if v == "." {
            0
        } else {
            v.parse::<i64>().expect(v)
        }
    };
    let mut opened = 0;
    let mut inlined = 0;
    for r in page.split("<div class=\"routine\">").skip(1) {
        let head = r.split("</div>").next().expect(r);
        let name = head
            .strip_prefix("<div class=\"head\">ROUTINE ====================== ")
            .and_then(|h| h.split(" in ").next())
            .expect(head);
        let mut listed = 0;
        for d in r.split("<details class=\"src\"><summary>").skip(1) {
            let (summary, rest) = d.split_once("</summary>").expect(d);
            let body = rest.split("</details>").next().expect(rest);
            let s: Vec<&str> = summary.split_whitespace().collect();
            let (mut flat, mut cum) = (0, 0);
            for insn in body.split("<div class=\"insn\">").skip(1) {
                let row = insn.trim_end_matches("</div>");
                let f: Vec<&str> = row.split_whitespace().collect();
                flat += value(f[0]);
                cum += value(f[1]);
                // The same values as --disasm gives the instruction.
                let key = (name.to_string(), f[2].to_string());
                let (wf, wc) = want
                    .get(&key)
                    .unwrap_or_else(|| panic!("{key:?} in --disasm"));
                assert_eq!((f[0], f[1]), (wf.as_str(), wc.as_str()), "{name}: {row}");
                inlined += usize::from(row.contains("twork.c:"));
                listed += 1;
            }
            assert_eq!((flat, cum), (value(s[0]), value(s[1])), "{name}: {summary}");
            opened += 1;
        }
        // Every instruction of the routine, under one line or another.
        let all = want.keys().filter(|k| k.0 == name).count();
        assert_eq!(listed, all, "{name}");
    }
    assert!(opened > 40, "{opened} lines with instructions");
    assert!(
        inlined > 0,
        "no instruction names the place it was inlined from"
    );
}

/// Past `max_disassembled` routines a listing's lines are without their instructions (on
/// the source page: more than `DISASSEMBLED_ROUTINES`), and a note says so.
#[test]
fn a_listing_of_many_routines_is_not_disassembled() {
    use rpprof::report::Mode;
    use rpprof::session::{LoadOptions, Session};
    use rpprof::view::{NO_INSTRUCTIONS, View};
    let dir = case("t-cpu");
    let opts = LoadOptions {
        args: ["tcpu-pie", "tcpu-pie.prof"]
            .iter()
            .map(|f| dir.join(f).to_string_lossy().into_owned())
            .collect(),
        ..Default::default()
    };
    let session = Session::load(&opts, &mut Vec::new()).unwrap();
    let render = |max: usize| {
        let view = View {
            mode: Mode::List,
            granularity: rpprof::graph::Granularity::Addresses,
            routines: Some(".".to_string()),
            listing_html: true,
            max_disassembled: Some(max),
            ..Default::default()
        };
        let (mut out, mut msgs) = (Vec::new(), Vec::new());
        view.render(&session, &mut out, &mut msgs).unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(msgs).unwrap(),
        )
    };
    let (out, msgs) = render(3);
    assert!(
        msgs.contains(&format!(
            "{NO_INSTRUCTIONS} only when at most 3 routines are listed (10 are)"
        )),
        "{msgs}"
    );
    assert_eq!(out.matches("<div class=\"routine\">").count(), 10, "{out}");
    assert!(!out.contains("<details"), "{out}");
    let (out, msgs) = render(10);
    assert!(!msgs.contains(NO_INSTRUCTIONS), "{msgs}");
    if common::have("objdump") {
        assert!(out.contains("<details class=\"src\">"), "{out}");
    }
}

/// A dump cut short (being written, or its writer killed) says so on its pages, as the
/// command line does, and in the pickers: its numbers are those of the records before the
/// cut.
#[test]
fn a_dump_cut_short_says_so_on_its_pages() {
    let dir = scratch("cut-short");
    let from = case("t-trend");
    for i in [3, 9] {
        let name = format!("ttrend.hprof.{i:04}.heap");
        std::fs::copy(from.join(&name), dir.join(&name)).unwrap();
    }
    std::fs::copy(from.join("ttrend"), dir.join("ttrend")).unwrap();
    // The last dump: its first four lines and half of the fifth.
    let whole = std::fs::read(from.join("ttrend.hprof.0009.heap")).unwrap();
    let ends: Vec<usize> = whole
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let cut = ends[3] + (ends[4] - ends[3]) / 2;
    std::fs::write(dir.join("ttrend.hprof.0009.heap"), &whole[..cut]).unwrap();
    let s = web::start(
        &dir,
        &["ttrend", "ttrend.hprof.0003.heap", "ttrend.hprof.0009.heap"],
        &[],
    );
    let page = get(&format!("{}/ui/top?view=ttrend.hprof.0009.heap", s.url)).text();
    assert!(
        page.contains("<div class=\"warning\">Warning: ")
            && page.contains("the profile is cut short at byte"),
        "{page}"
    );
    assert!(
        page.contains(">ttrend.hprof.0009.heap (cut short)</option>"),
        "{page}"
    );
    // Against it as the base, too; a whole dump's own page says nothing.
    let diff = get(&format!(
        "{}/ui/top?view=ttrend.hprof.0003.heap&base=ttrend.hprof.0009.heap",
        s.url
    ))
    .text();
    assert!(diff.contains("the profile is cut short at byte"), "{diff}");
    let whole = get(&format!("{}/ui/top?view=ttrend.hprof.0003.heap", s.url)).text();
    assert!(!whole.contains("class=\"warning\""), "{whole}");
}

/// A dump with no samples says so on its top and graph pages, as the command line does
/// (not "no function has a value", nor Graphviz's "no nodes to print" in the graph's frame).
#[test]
fn a_dump_without_samples_says_so() {
    let dir = scratch("no-samples");
    let from = case("t-trend");
    std::fs::copy(from.join("ttrend"), dir.join("ttrend")).unwrap();
    let whole = std::fs::read_to_string(from.join("ttrend.hprof.0003.heap")).unwrap();
    let maps = &whole[whole.find("\nMAPPED_LIBRARIES:").unwrap() + 1..];
    let empty =
        format!("heap profile:      0:        0 [     0:        0] @ heapprofile\n\n{maps}");
    std::fs::write(dir.join("empty.heap"), empty).unwrap();
    let s = web::start(&dir, &["ttrend", "empty.heap"], &[]);
    for page in ["top", "graph"] {
        let text = get(&format!("{}/ui/{page}", s.url)).text();
        assert!(
            text.contains("Nothing to show: the profile holds no samples (nothing was recorded)."),
            "{page}: {text}"
        );
        assert!(!text.contains("graph-frame"), "{page}: {text}");
    }
}
