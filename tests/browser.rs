//! The web UI in a real browser: headless Chromium driven through chromedriver's WebDriver
//! HTTP protocol (a few JSON requests, spoken here with ureq). Opens the flame graph, zooms,
//! searches, follows "callers", switches the View and Diff pickers, sorts the top table,
//! shows the call graph; checks what is drawn and saves screenshots under
//! `target/tmp/browser-*.png`. Says SKIPPED when Chromium or chromedriver is absent.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::web::{self, get};
use serde_json::{Value, json};

const H1: &str = "theap.hprof.0001.heap";
const H2: &str = "theap.hprof.0002.heap";
const H3: &str = "theap.hprof.0003.heap";

/// Where the browser is, or why it cannot run.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    let find = |names: &[&str]| {
        names.iter().find_map(|n| {
            let p = Path::new(n);
            if p.is_absolute() {
                p.exists().then(|| p.to_path_buf())
            } else {
                std::env::var_os("PATH").and_then(|paths| {
                    std::env::split_paths(&paths)
                        .map(|d| d.join(n))
                        .find(|p| p.is_file())
                })
            }
        })
    };
    let chromium = find(&[
        "/usr/bin/chromium",
        "chromium",
        "chromium-browser",
        "google-chrome",
    ])
    .ok_or("Chromium is not installed (Debian: apt-get install chromium)")?;
    let driver = find(&["/usr/bin/chromedriver", "chromedriver"])
        .ok_or("chromedriver is not installed (Debian: apt-get install chromium-driver)")?;
    Ok((chromium, driver))
}

/// chromedriver and one browser session; both stopped when dropped.
struct Browser {
    driver: Child,
    base: String,
    agent: ureq::Agent,
    profile: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.agent.delete(&self.base).call();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Browser {
    fn start(test: &str) -> Option<Browser> {
        let (chromium, driver) = match browser() {
            Ok(b) => b,
            Err(why) => {
                common::skip(test, &why);
                return None;
            }
        };
        let port = common::free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(300)))
            .build()
            .into();
        let url = format!("http://127.0.0.1:{port}");
        let start = Instant::now();
        while agent.get(&format!("{url}/status")).call().is_err() {
            // A guard against a driver that never starts, not a timing requirement.
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("chromium-{test}"));
        let _ = std::fs::remove_dir_all(&profile);
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1300,800",
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        }}});
        let mut b = Browser {
            driver: child,
            base: url.clone(),
            agent,
            profile,
        };
        let r = b.call("POST", "/session", Some(caps));
        let id = r["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {r}"))
            .to_string();
        b.base = format!("{url}/session/{id}");
        Some(b)
    }

    /// One WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let r = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .content_type("application/json")
                .send(body.unwrap_or(json!({})).to_string().as_bytes()),
        };
        let mut r = r.expect("WebDriver request");
        let mut text = String::new();
        r.body_mut()
            .with_config()
            .limit(1 << 28)
            .reader()
            .read_to_string(&mut text)
            .unwrap();
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        if path == "/session" {
            return v["value"].clone();
        }
        if v["value"].get("error").is_some() {
            panic!("{method} {path}: {}", v["value"]);
        }
        v["value"].clone()
    }

    /// The values (`data-v`) of column `k` of the top table, row by row.
    fn column_values(&self, k: usize) -> Vec<f64> {
        let v = self.js(&format!(
            "return Array.from(document.querySelectorAll('#toptable tbody tr')).map(r => parseFloat(r.cells[{k}].dataset.v))"
        ));
        v.as_array()
            .unwrap_or_else(|| panic!("not an array: {v}"))
            .iter()
            .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
            .collect()
    }

    /// Sets the window's size.
    fn size(&self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        );
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// Waits until `script` returns true (a guard of two minutes against hanging).
    fn wait(&self, what: &str, script: &str) {
        let start = Instant::now();
        loop {
            if self.js(script) == json!(true) {
                return;
            }
            if start.elapsed() > Duration::from_secs(120) {
                panic!(
                    "never: {what} ({})",
                    self.js("return document.body.innerText.slice(0, 2000)")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn element(&self, css: &str) -> String {
        let v = self.call(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(|e| e.as_str())
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    fn click(&self, css: &str) {
        let e = self.element(css);
        self.call("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    fn type_in(&self, css: &str, text: &str) {
        let e = self.element(css);
        self.call(
            "POST",
            &format!("/element/{e}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Saves a screenshot as `target/tmp/browser-<name>.png`.
    fn screenshot(&self, name: &str) -> PathBuf {
        let v = self.call("GET", "/screenshot", None);
        let png = base64(v.as_str().expect("base64 PNG"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("browser-{name}.png"));
        std::fs::write(&p, png).unwrap();
        p
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn heap_server() -> web::WebServer {
    common::link_case("t-heap");
    let dir = common::root().join("testdata/t-heap");
    web::start(&dir, &["theap", H1, H2, H3, "theap.growth"], &[])
}

/// The cum% of `name` in the text report.
fn cum_percent(s: &web::WebServer, query: &str, name: &str) -> String {
    let t = get(&format!("{}/ui/text?{query}", s.url)).text();
    let line = t
        .lines()
        .find(|l| l.ends_with(&format!("% {name}")))
        .unwrap_or_else(|| panic!("{name} in {t}"));
    line.split_whitespace().nth(4).unwrap().to_string()
}

#[test]
fn flame_graph_zoom_search_callers_and_pickers() {
    let Some(b) = Browser::start("flame_graph_zoom_search_callers_and_pickers") else {
        return;
    };
    let s = heap_server();
    b.open(&format!("{}/ui/?view={H3}", s.url));
    b.wait(
        "the flame graph",
        "return !!document.getElementById('flame-svg')",
    );
    // Drawn: the root across the whole width, every function of the profile.
    let frames = b.js(
        "return Array.from(document.querySelectorAll('#flame g.frame')).map(g => g.dataset.name)",
    );
    let frames: Vec<&str> = frames
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(frames[0], "all");
    for f in [
        "main",
        "one_round",
        "tdata::index::grow",
        "tdata::store::Slab::take",
    ] {
        assert!(frames.contains(&f), "{f} in {frames:?}");
    }
    let full = b.js("const s = document.getElementById('flame-svg'); const r = s.querySelector('g.frame rect'); return Math.abs(r.width.baseVal.value - s.width.baseVal.value) < 2");
    assert_eq!(full, json!(true));
    b.screenshot("flame");
    // Numbers are written as the text reports write them: a value halfway between two goes
    // to the even digit (1,310,720 bytes is 1.2 MB in --text; toFixed would say 1.3).
    let fixed = b.js(
        "return [[1.25, 1], [0.15, 1], [-0.25, 1], [2.5, 0], [1.35, 1], [0.125, 2], [99.95, 1]].map(([x, d]) => rpprof.fixed(x, d))",
    );
    assert_eq!(
        fixed,
        json!(["1.2", "0.1", "-0.2", "2", "1.4", "0.12", "100.0"])
    );

    // Zoom: a click on a frame makes it as wide as the graph.
    b.click("#flame g.frame[data-name='tdata::store::Slab::take'] rect");
    b.wait(
        "zoomed",
        "return document.getElementById('flame').dataset.zoom === 'tdata::store::Slab::take'",
    );
    let w = b.js("const s = document.getElementById('flame-svg'); const g = Array.from(s.querySelectorAll('g.frame')).find(g => g.dataset.name === 'tdata::store::Slab::take'); return g.querySelector('rect').width.baseVal.value / s.width.baseVal.value");
    assert!(w.as_f64().unwrap() > 0.98, "{w}");
    let grow_gone = b.js("return !Array.from(document.querySelectorAll('#flame g.frame')).some(g => g.dataset.name === 'tdata::index::grow')");
    assert_eq!(
        grow_gone,
        json!(true),
        "a frame beside the zoomed one is not drawn"
    );
    assert_eq!(
        b.js("return document.getElementById('flame-actions').hidden"),
        json!(false)
    );
    b.screenshot("flame-zoom");
    b.click("#reset-zoom");
    b.wait(
        "zoomed out",
        "return document.getElementById('flame').dataset.zoom === 'all'",
    );

    // Search: the matching frames are marked, and the share of their stacks is the
    // function's cum% of the text report.
    b.type_in("#search", "index::grow\u{E007}");
    b.wait(
        "matched",
        "return document.getElementById('matched').textContent.startsWith('Matched:')",
    );
    let matched = b.js("return document.getElementById('matched').textContent");
    let want = cum_percent(&s, &format!("view={H3}"), "tdata::index::grow");
    assert!(
        matched.as_str().unwrap().ends_with(&format!("({want})")),
        "{matched} vs {want}"
    );
    let marked = b.js("return Array.from(document.querySelectorAll('#flame g.frame.match')).map(g => g.dataset.name)");
    let marked: Vec<&str> = marked
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        !marked.is_empty() && marked.iter().all(|m| m.contains("index::grow")),
        "{marked:?}"
    );
    assert!(
        b.js("return location.search")
            .as_str()
            .unwrap()
            .contains("q=index")
    );
    b.screenshot("flame-search");

    // Callers of a function: it first, its callers under it.
    b.click("#flame g.frame[data-name='tdata::index::grow'] rect");
    b.wait(
        "actions",
        "return !!document.getElementById('action-callers')",
    );
    b.click("#action-callers");
    b.wait(
        "callers",
        "return !!document.getElementById('flame-svg') && location.search.includes('p=')",
    );
    let frames = b.js("return Array.from(document.querySelectorAll('#flame g.frame')).map(g => g.dataset.name + '@' + g.querySelector('rect').y.baseVal.value)");
    let frames: Vec<String> = frames
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(
        frames[0].starts_with("callers of ^tdata::index::grow$@0"),
        "{frames:?}"
    );
    assert!(
        frames
            .iter()
            .any(|f| f.starts_with("tdata::index::grow@18")),
        "{frames:?}"
    );
    assert!(
        frames.iter().any(|f| f.starts_with("one_round@")),
        "{frames:?}"
    );
    assert!(
        !frames
            .iter()
            .any(|f| f.starts_with("tdata::store::Slab::take@")),
        "{frames:?}"
    );
    b.screenshot("flame-callers");
    // A callers expression that is not one is said; Perl's (?i) is JavaScript's i flag.
    b.open(&format!("{}/ui/flamegraph?view={H3}&p=(", s.url));
    b.wait(
        "the flame graph",
        "return !!document.getElementById('flame-svg')",
    );
    let said = b.js("return document.getElementById('pivot').textContent");
    assert!(
        said.as_str()
            .unwrap()
            .contains("p=( is not a regular expression"),
        "{said}"
    );
    b.open(&format!(
        "{}/ui/flamegraph?view={H3}&p=%28%3Fi%29%5ETDATA%3A%3AINDEX%3A%3AGROW%24",
        s.url
    ));
    b.wait(
        "the flame graph",
        "return !!document.getElementById('flame-svg')",
    );
    let first = b.js("return document.querySelector('#flame g.frame').dataset.name");
    assert!(
        first.as_str().unwrap().starts_with("callers of (?i)^TDATA"),
        "{first}"
    );

    // The View picker: another profile.
    b.open(&format!("{}/ui/flamegraph?view={H3}", s.url));
    b.wait(
        "the flame graph",
        "return !!document.getElementById('flame-svg')",
    );
    b.click(&format!("#view-picker option[value='{H1}']"));
    b.wait(
        "the first dump",
        &format!(
            "return location.search.includes('view={H1}') && !!document.getElementById('flame-svg')"
        ),
    );
    let what = b.js("return document.getElementById('what').textContent");
    assert!(what.as_str().unwrap().contains(H1), "{what}");
    // Back: the page of the third dump, its View picker on it again (the browser brought
    // the page back with the picker as it was changed to leave it).
    b.js("history.back(); return true");
    b.wait(
        "the third dump again",
        &format!("return location.search.includes('view={H3}') && !!document.getElementById('flame-svg') && document.getElementById('view-picker').value === '{H3}'"),
    );

    // The Diff picker: against the first dump, coloured by change.
    b.open(&format!("{}/ui/flamegraph?view={H3}", s.url));
    b.wait(
        "the flame graph",
        "return !!document.getElementById('flame-svg')",
    );
    let offered = b.js("return Array.from(document.querySelectorAll('#base-picker option')).map(o => o.value).sort()");
    assert_eq!(offered, json!(["", H1, H2]), "compatible profiles only");
    b.click(&format!("#base-picker option[value='{H1}']"));
    b.wait(
        "the diff",
        &format!(
            "return location.search.includes('base={H1}') && !!document.getElementById('flame-svg')"
        ),
    );
    let red = b.js("return Array.from(document.querySelectorAll('#flame g.frame rect')).filter(r => r.getAttribute('fill').startsWith('rgb(255,')).length");
    assert!(red.as_u64().unwrap() > 3, "frames that grew are red: {red}");
    let info = b.js("return document.getElementById('flame-info').textContent");
    assert!(info.as_str().unwrap().contains("change +"), "{info}");
    b.screenshot("flame-diff");

    // At line granularity a frame's actions match its place: focus keeps the stacks
    // through that line (hide, which matches functions only, is not offered: it did
    // nothing). At address granularity only Callers is offered.
    b.open(&format!("{}/ui/flamegraph?view={H3}&g=lines", s.url));
    b.wait(
        "the flame graph of lines",
        "return !!document.getElementById('flame-svg')",
    );
    let name = b.js("return Array.from(document.querySelectorAll('#flame g.frame')).map(g => g.dataset.name).find(n => /^tdata::store::Slab::take .*:[0-9]+$/.test(n))");
    let name = name
        .as_str()
        .expect("a frame of Slab::take's lines")
        .to_string();
    b.click(&format!("#flame g.frame[data-name='{name}'] rect"));
    let offered =
        b.js("return Array.from(document.querySelectorAll('#flame-actions a')).map(a => a.id)");
    assert_eq!(
        offered,
        json!([
            "action-callers",
            "action-focus",
            "action-ignore",
            "action-top"
        ]),
        "{name}"
    );
    b.click("#action-focus");
    b.wait(
        "the focused flame graph",
        "return location.search.includes('f=') && !!document.getElementById('flame-svg')",
    );
    let kept = b.js(
        "return Array.from(document.querySelectorAll('#flame g.frame')).map(g => g.dataset.name)",
    );
    assert!(
        kept.as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str() == Some(name.as_str())),
        "{name} not in {kept}"
    );
    b.screenshot("flame-lines-focus");
    b.open(&format!("{}/ui/flamegraph?view={H3}&g=addresses", s.url));
    b.wait(
        "the flame graph of addresses",
        "return !!document.getElementById('flame-svg')",
    );
    b.click("#flame g.frame:nth-of-type(2) rect");
    let offered =
        b.js("return Array.from(document.querySelectorAll('#flame-actions a')).map(a => a.id)");
    assert_eq!(offered, json!(["action-callers"]));
}

#[test]
fn top_graph_and_a_new_dump_in_the_browser() {
    let Some(b) = Browser::start("top_graph_and_a_new_dump_in_the_browser") else {
        return;
    };
    common::link_case("t-heap");
    let src = common::root().join("testdata/t-heap");
    let t = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-watched");
    let _ = std::fs::remove_dir_all(&t);
    std::fs::create_dir_all(&t).unwrap();
    std::fs::copy(src.join(H1), t.join(H1)).unwrap();
    let prog = src.join("theap");
    let s = web::start(&t, &[prog.to_str().unwrap(), t.to_str().unwrap()], &[]);

    // Top: sorted by flat; a click on Cum sorts by cum.
    b.open(&format!("{}/ui/top", s.url));
    b.wait("the table", "return !!document.getElementById('toptable')");
    let first = "return document.querySelector('#toptable tbody tr').cells[3].dataset.v";
    let flat_first = b.js(first);
    b.click("#toptable th[data-key='cum']");
    b.wait(
        "sorted by cum",
        "return document.querySelector('#toptable th[data-key=cum]').classList.contains('desc')",
    );
    let cum_first = b.js(first);
    assert_ne!(flat_first, cum_first);
    let cums = b.column_values(3);
    assert!(cums.windows(2).all(|w| w[0] >= w[1]), "{cums:?}");
    assert!(
        b.js("return location.search")
            .as_str()
            .unwrap()
            .contains("sort=cum")
    );
    b.screenshot("top");
    // The server's order came from the server: its Sum% is the running total in that order,
    // as a reload of the URL shows it.
    let sums = "return Array.from(document.querySelectorAll('#toptable tbody tr')).map(r => r.cells[2].textContent)";
    let names = "return Array.from(document.querySelectorAll('#toptable tbody tr')).map(r => r.cells[5].textContent)";
    let clicked = b.js(sums);
    let here = b.js("return location.href");
    b.open(here.as_str().unwrap());
    b.wait("the table", "return !!document.getElementById('toptable')");
    assert_eq!(b.js(sums), clicked);
    assert_eq!(b.js(first), cum_first);
    // Another order is made in the page: no running total, and the order in the URL's
    // fragment, which a reload shows again.
    b.click("#toptable th:nth-child(6)");
    let by_name = b.js(names);
    assert_ne!(by_name, b.js("return []"), "the rows are there");
    let blank = b.js(sums);
    assert!(
        blank
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v.as_str() == Some("")),
        "{blank}"
    );
    let here = b.js("return location.href");
    assert!(here.as_str().unwrap().ends_with("#sort=5-asc"), "{here}");
    b.open(here.as_str().unwrap());
    b.wait("the table", "return !!document.getElementById('toptable')");
    assert_eq!(b.js(names), by_name);
    assert_eq!(b.js(sums), blank);
    // Back to the page's own order: its running total again.
    b.click("#toptable th[data-key='cum']");
    assert_eq!(b.js(sums), clicked);
    assert!(!b.js("return location.href").as_str().unwrap().contains('#'));
    // A column of the page's own order (Cum% here): a click reverses it in the page, the
    // next one brings the page's order back.
    b.click("#toptable th:nth-child(5)");
    let cums = b.column_values(4);
    assert!(cums.windows(2).all(|w| w[0] <= w[1]), "{cums:?}");
    assert!(
        b.js("return location.href")
            .as_str()
            .unwrap()
            .ends_with("#sort=4-asc")
    );
    b.click("#toptable th:nth-child(5)");
    assert_eq!(b.js(sums), clicked);
    assert!(!b.js("return location.href").as_str().unwrap().contains('#'));
    // Long names (source lines' paths) break in a narrow window rather than widen the page.
    b.size(800, 800);
    for page in ["top?g=lines", "top?g=addresses"] {
        b.open(&format!("{}/ui/{page}", s.url));
        b.wait(
            "the table",
            "return !!document.querySelector('table.sortable')",
        );
        let widths = b.js(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]",
        );
        let w: Vec<i64> = widths
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert!(w[0] <= w[1], "{page}: {widths}");
    }
    b.size(1300, 800);

    // A cut table (the first rows of the server's order): a numeric heading asks the server
    // for its order over all the rows; the name sorts the rows shown.
    // Opens a cut table of the server at `url` and clicks Cum%; the text of its cut line
    // before the click.
    let cut_then_cum = |url: &str| {
        b.open(&format!("{url}/ui/top?rows=2"));
        b.wait("the cut table", "return !!document.getElementById('cut')");
        let before = b.js("return document.getElementById('cut').textContent");
        b.click("#toptable th:nth-child(5)");
        b.wait(
            "the server's cum order",
            "return location.search.includes('sort=cum') && !!document.querySelector('#toptable th[data-key=cum].desc')",
        );
        before
    };
    cut_then_cum(&s.url);
    assert_eq!(b.js(first), cum_first);
    let rows = "return Array.from(document.querySelectorAll('#toptable tbody tr')).map(r => r.cells[5].textContent)";
    let shown = b.js(rows);
    assert_eq!(shown.as_array().unwrap().len(), 2, "{shown}");
    let search = b.js("return location.search");
    b.click("#toptable th:nth-child(6)");
    let once = b.js(rows);
    b.click("#toptable th:nth-child(6)");
    let twice = b.js(rows);
    let mut reversed = twice.as_array().unwrap().clone();
    reversed.reverse();
    assert_eq!(once.as_array().unwrap(), &reversed);
    assert_ne!(once, twice);
    assert_eq!(b.js("return location.search"), search);
    b.click("#all-rows");
    b.wait(
        "all the rows",
        "return location.search.includes('rows=all') && !document.getElementById('cut')",
    );
    // On a bare URL of a server given --focus, the server's order keeps the focus.
    {
        let focused = web::start(
            &t,
            &["--focus=grow", prog.to_str().unwrap(), t.to_str().unwrap()],
            &[],
        );
        let cut = "return document.getElementById('cut').textContent.split(' rows')[0]";
        let before = cut_then_cum(&focused.url);
        let before = before.as_str().unwrap().split(" rows").next().unwrap();
        assert!(
            b.js("return location.search")
                .as_str()
                .unwrap()
                .contains("f=grow"),
            "{}",
            b.js("return location.search")
        );
        assert_eq!(b.js(cut), before);
    }

    // The call graph, when graphviz is there.
    if common::have("dot") {
        b.open(&format!("{}/ui/graph", s.url));
        // The frame is sandboxed (its own origin: a script in the SVG cannot read the
        // pages), so the page cannot look into it: the driver switches into it.
        assert_eq!(
            b.js("const f = document.getElementById('graph-frame'); try { return f.contentDocument === null; } catch (e) { return true; }"),
            json!(true)
        );
        let frame = b.element("#graph-frame");
        b.call(
            "POST",
            "/frame",
            Some(json!({ "id": { "element-6066-11e4-a52e-4f735466cecf": frame } })),
        );
        b.wait(
            "the graph",
            "return !!document.querySelector('svg g#viewport')",
        );
        let nodes = b.js("return document.querySelectorAll('g.node').length");
        assert!(nodes.as_u64().unwrap() > 5, "{nodes}");
        b.call("POST", "/frame/parent", Some(json!({})));
        b.screenshot("graph");
    } else {
        common::skip(
            "top_graph_and_a_new_dump_in_the_browser (graph)",
            "graphviz is not installed",
        );
    }

    // A dump written into the watched folder: the page says so and offers it.
    b.open(&format!("{}/ui/flamegraph", s.url));
    b.wait(
        "the flame graph",
        "return !!document.getElementById('flame-svg')",
    );
    std::fs::copy(src.join(H2), t.join(H2)).unwrap();
    b.wait("the notice", "const n = document.getElementById('notice'); return !n.hidden && n.textContent.includes('New profile')");
    b.wait(
        "the new option",
        &format!("return !!document.querySelector(\"#view-picker option[value='{H2}']\")"),
    );
    // ... and, since it can be subtracted from the profile shown, the Diff picker too.
    b.wait(
        "the new diff option",
        &format!("return !!document.querySelector(\"#base-picker option[value='{H2}']\")"),
    );
    b.screenshot("new-profile");
    // A second dump, found by a later look: counted with the first, the newest offered.
    std::fs::copy(src.join(H3), t.join(H3)).unwrap();
    b.wait("the notice of both", &format!("return document.getElementById('notice').textContent.startsWith('2 new profiles since this page was loaded, the newest: {H3}.')"));
    b.click("#notice-link");
    b.wait(
        "the new profile",
        &format!(
            "return location.search.includes('view={H3}') && !!document.getElementById('flame-svg')"
        ),
    );

    // Keeping one profile: a new dump lets the one shown go; the page says so, its pickers
    // drop nothing it shows, and a link to the profile let go shows the newest and why.
    let one = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-keep-one");
    let _ = std::fs::remove_dir_all(&one);
    std::fs::create_dir_all(&one).unwrap();
    std::fs::copy(src.join(H1), one.join(H1)).unwrap();
    let s1 = web::start(
        &one,
        &[
            prog.to_str().unwrap(),
            one.to_str().unwrap(),
            "--max_profiles_kept=1",
        ],
        &[],
    );
    b.open(&format!("{}/ui/top?view={H1}", s1.url));
    b.wait("the table", "return !!document.getElementById('toptable')");
    std::fs::copy(src.join(H2), one.join(H2)).unwrap();
    b.wait(
        "the notice",
        "const n = document.getElementById('notice'); return !n.hidden && n.textContent.includes('no longer kept (--max_profiles_kept=1')",
    );
    let options = |picker: &str| {
        b.js(&format!(
            "return Array.from(document.querySelectorAll('#{picker} option')).map(o => o.value)"
        ))
    };
    assert_eq!(options("view-picker"), json!([H2, H1]));
    assert_eq!(options("base-picker"), json!([""]));
    b.screenshot("let-go");
    b.open(&format!("{}/ui/flamegraph?view={H1}", s1.url));
    b.wait(
        "the newest",
        "return !!document.getElementById('flame-svg')",
    );
    let notice = b.js("return document.getElementById('notice').textContent");
    assert!(
        notice
            .as_str()
            .unwrap()
            .ends_with(&format!("Showing the newest, {H2}.")),
        "{notice}"
    );
    assert_eq!(b.js("return location.search"), json!(""));
}
