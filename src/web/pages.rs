//! The HTML pages: a header with the pickers (View, Diff, sample, granularity, refine), the
//! page's own part, and the scripts and style sheet embedded in the binary (`assets/`).

use std::fmt::Write as _;

use super::server::{Request, Response};
use super::{Query, Refusal, Selected, Ui};
use crate::graph::Granularity;
use crate::report::{Mode, disasm, graphviz};
use crate::session::file_name;
use crate::symbolize::place::Place;

const UI_CSS: &str = include_str!("assets/ui.css");
const UI_JS: &str = include_str!("assets/ui.js");
const FLAME_JS: &str = include_str!("assets/flame.js");

/// The pages with a tab, and their titles.
const TABS: [(&str, &str); 7] = [
    ("flamegraph", "Flame graph"),
    ("top", "Top"),
    ("graph", "Graph"),
    ("source", "Source"),
    ("disasm", "Disassembly"),
    ("peek", "Peek"),
    ("trend", "Trend"),
];

/// The plain forms, linked from every page.
const PLAIN: [&str; 7] = ["text", "collapsed", "dot", "svg", "raw", "proto", "traces"];

/// What the HTML pages allow (everything from this server, nothing inline but style).
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'self'; form-action 'self'; base-uri 'none'";

/// A file of `assets/`.
pub fn asset(name: &str) -> Response {
    let (ctype, body) = match name {
        "ui.css" => ("text/css; charset=utf-8", UI_CSS),
        "ui.js" => ("text/javascript; charset=utf-8", UI_JS),
        "flame.js" => ("text/javascript; charset=utf-8", FLAME_JS),
        _ => return Response::text(404, "rpprof: no such file"),
    };
    Response::new(200, ctype, body).with_header("Cache-Control", "no-cache")
}

pub use crate::report::esc;

/// `name` as a regular expression matching it literally (pprof's `QuoteMeta`).
fn quote_meta(name: &str) -> String {
    let mut o = String::with_capacity(name.len());
    for c in name.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            o.push('\\');
        }
        o.push(c);
    }
    o
}

/// A regular expression for the function a report's node name (at function granularity)
/// stands for: its short name, without the ` (inline)` mark and without the `@<address>`
/// that keeps functions of one short name apart (focus, ignore and hide match short names,
/// so such a link takes in all of them), with or without GCC's ` [clone ...]` marks,
/// anchored. The source and disasm pages match it against short names too.
fn function_re(name: &str) -> String {
    let n = name.strip_suffix(" (inline)").unwrap_or(name);
    let n = match n.rsplit_once('@') {
        Some((f, hex))
            if !f.is_empty()
                && !hex.is_empty()
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) =>
        {
            f
        }
        _ => n,
    };
    // GCC's copies of a function (`f [clone .isra.0]`) are the function too.
    format!("^{}(?: \\[clone [^\\]]*\\])*$", quote_meta(n))
}

/// The name `re` matches when it is one anchored literal name (`^` [`quote_meta`] `$`,
/// as the peek links make them).
fn anchored_name(re: &str) -> Option<String> {
    let body = re.strip_prefix('^')?.strip_suffix('$')?;
    let mut name = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.push(chars.next().filter(|c| "\\.+*?()|[]{}^$".contains(*c))?),
            c if "\\.+*?()|[]{}^$".contains(c) => return None,
            c => name.push(c),
        }
    }
    Some(name)
}

/// The URL of `page` with the query `q`.
fn url(page: &str, q: &str) -> String {
    if q.is_empty() {
        format!("/ui/{page}")
    } else {
        format!("/ui/{page}?{q}")
    }
}

/// Granularity names for the picker.
const GRAINS: [(Granularity, &str); 4] = [
    (Granularity::Functions, "functions"),
    (Granularity::Lines, "lines"),
    (Granularity::Files, "files"),
    (Granularity::Addresses, "addresses"),
];

/// The header: title, tabs, pickers, messages.
fn header(ui: &Ui, sel: &Selected, page: &str, msgs: &str) -> String {
    let mut h = String::new();
    let q = &sel.q;
    let snap = &sel.snap;
    let routine_page = matches!(page, "source" | "disasm" | "peek");
    let program = sel
        .session()
        .map(|s| file_name(std::path::Path::new(&s.program_name)))
        .unwrap_or_default();
    // The address bar gets the parameters a bare URL was answered with (ui.js).
    let canonical = if sel.filled {
        format!(" data-query=\"{}\"", esc(&q.encode()))
    } else {
        String::new()
    };
    let _ = write!(
        h,
        "<header{canonical}><div class=\"bar\"><span class=\"brand\">rpprof</span>"
    );
    if let (Some(s), Some(e)) = (sel.session(), snap.entries.get(sel.view)) {
        let p = &s.profiles[e.index].profile;
        let value = p
            .sample_types
            .get(sel.v.value.index(p.kind))
            .map_or("?", |t| t.name);
        let _ = write!(
            h,
            " <span class=\"what\" id=\"what\">{}: <b>{}</b> ({} profile, {})",
            esc(&program),
            esc(&e.name),
            p.kind.name(),
            value
        );
        // (The trend compares every dump of its series: a base has no part in it.)
        if let Some(b) = sel.base_entry().filter(|_| page != "trend") {
            let _ = write!(h, " against <b>{}</b>", esc(&b.name));
        }
        h.push_str("</span>");
    }
    h.push_str("</div><nav>");
    let here = q.encode();
    // Peek's `f` matches a report name (`^f \(inline\)$`), the other pages' a function's
    // (their focus, or the routines of source and disasm): their links get the function
    // of the name peeked at, or, when it is no single name (a focus brought from another
    // page, `leak`), the expression as it is.
    let elsewhere = match (page, q.get("f")) {
        ("peek", Some(f)) => match anchored_name(f) {
            Some(n) => q.with("f", &function_re(&n)),
            None => here.clone(),
        },
        _ => here.clone(),
    };
    let of = |p: &str| if p == "peek" { &here } else { &elsewhere };
    for (p, title) in TABS {
        let class = if p == page { " class=\"on\"" } else { "" };
        let _ = write!(
            h,
            "<a{class} id=\"tab-{p}\" href=\"{}\">{title}</a>",
            esc(&url(p, of(p)))
        );
    }
    h.push_str("<span class=\"plain\">Plain:");
    // A profile.proto holds the samples whole: hide, show and dropneg, which it cannot
    // apply (they are refused there), are left out of its link.
    let mut proto = Query::parse(&elsewhere).unwrap_or_default();
    proto
        .0
        .retain(|(k, _)| !matches!(k.as_str(), "h" | "s" | "dropneg"));
    let proto = proto.encode();
    for p in PLAIN {
        let link = if p == "proto" { &proto } else { of(p) };
        let _ = write!(h, " <a href=\"{}\">{p}</a>", esc(&url(p, link)));
    }
    h.push_str("</span></nav>");
    // The pickers: a GET form, so that every choice is a URL.
    let _ = write!(
        h,
        "<form id=\"controls\" method=\"get\" action=\"/ui/{}\">",
        esc(if page.is_empty() { "flamegraph" } else { page })
    );
    h.push_str("<label>View <select name=\"view\" id=\"view-picker\">");
    for (i, s) in ui.history.sources.iter().enumerate() {
        if let super::history::Source::Remote { arg, .. } = s {
            let _ = write!(
                h,
                "<option value=\"\" data-fetch=\"{i}\">&lt;new profile&gt; {}</option>",
                esc(arg)
            );
        }
    }
    // A dump cut short (being written, or its writer killed) says so in the pickers.
    let label = |index: usize, name: &str| -> String {
        let cut = sel
            .session()
            .and_then(|s| s.profiles.get(index))
            .is_some_and(|p| p.profile.cut_at.is_some());
        if cut {
            format!("{} (cut short)", esc(name))
        } else {
            esc(name).to_string()
        }
    };
    for (i, e) in snap.entries.iter().enumerate() {
        let selected = if i == sel.view { " selected" } else { "" };
        let _ = write!(
            h,
            "<option value=\"{}\" data-kind=\"{}\"{selected}>{}</option>",
            esc(&e.name),
            e.kind.name(),
            label(e.index, &e.name)
        );
    }
    h.push_str("</select></label>");
    if page == "trend" {
        h.push_str("<label title=\"the trend compares every dump of the series: the other pages diff two\">Diff <select name=\"base\" id=\"base-picker\" disabled><option value=\"\">&lt;none&gt;</option>");
    } else {
        let mut options = String::new();
        if let (Some(s), Some(v)) = (sel.session(), snap.entries.get(sel.view)) {
            for (i, e) in snap.entries.iter().enumerate() {
                // Not itself (all zeros: a URL asking for it gets the profile alone), and
                // only the profiles that can be subtracted from this one.
                if i == sel.view || s.check_pair(v.index, e.index, true, sel.v.value).is_err() {
                    continue;
                }
                let selected = if Some(i) == sel.base { " selected" } else { "" };
                let _ = write!(
                    options,
                    "<option value=\"{}\"{selected}>{}</option>",
                    esc(&e.name),
                    label(e.index, &e.name)
                );
            }
        }
        if options.is_empty() {
            h.push_str("<label title=\"no other profile of this kind to compare with\">Diff <select name=\"base\" id=\"base-picker\" disabled><option value=\"\">&lt;none&gt;</option>");
        } else {
            h.push_str("<label>Diff <select name=\"base\" id=\"base-picker\"><option value=\"\">&lt;none&gt;</option>");
            h.push_str(&options);
        }
    }
    h.push_str("</select></label>");
    if let (Some(s), Some(e)) = (sel.session(), snap.entries.get(sel.view)) {
        let p = &s.profiles[e.index].profile;
        let now = sel.v.value.index(p.kind);
        if p.sample_types.len() > 1 {
            h.push_str("<label>Sample <select name=\"si\" id=\"si-picker\">");
            for (i, t) in p.sample_types.iter().enumerate() {
                let selected = if i == now { " selected" } else { "" };
                let _ = write!(h, "<option{selected}>{}</option>", t.name);
            }
            h.push_str("</select></label>");
        }
    }
    h.push_str("<label>Granularity <select name=\"g\" id=\"g-picker\">");
    for (g, name) in GRAINS {
        let selected = if g == sel.v.granularity {
            " selected"
        } else {
            ""
        };
        let _ = write!(h, "<option{selected}>{name}</option>");
    }
    h.push_str("</select></label>");
    // The expressions the view uses (from the URL, or the command line's for a bare URL).
    let used = |k: &str| -> Option<&str> {
        match k {
            "f" if !routine_page => sel.v.focus.as_deref(),
            "i" => sel.v.ignore.as_deref(),
            "h" => sel.v.hide.as_deref(),
            "s" => sel.v.show.as_deref(),
            _ => None,
        }
    };
    let field = |h: &mut String, k: &str, label: &str, title: &str| {
        let _ = write!(
            h,
            "<label title=\"{}\">{label} <input name=\"{k}\" id=\"{k}-input\" size=\"14\" value=\"{}\"></label>",
            esc(title),
            esc(q.get(k).or_else(|| used(k)).unwrap_or(""))
        );
    };
    if routine_page {
        field(
            &mut h,
            "f",
            "Function",
            "the functions to show (regular expression)",
        );
    } else {
        field(
            &mut h,
            "f",
            "Focus",
            "keep the stacks with a frame matching (regular expression)",
        );
    }
    field(
        &mut h,
        "i",
        "Ignore",
        "drop the stacks with a frame matching",
    );
    field(&mut h, "h", "Hide", "drop the frames matching");
    field(&mut h, "s", "Show", "keep only the frames matching");
    // The other parameters ride along.
    for k in ["sort", "n", "nf", "ef", "dropneg", "p", "rows", "routines"] {
        let cum = (k == "sort" && sel.v.cum).then_some("cum");
        if let Some(v) = q.get(k).or(cum) {
            let _ = write!(
                h,
                "<input type=\"hidden\" name=\"{k}\" value=\"{}\">",
                esc(v)
            );
        }
    }
    let _ = write!(
        h,
        "<button type=\"submit\">Apply</button> <a href=\"/ui/{}\">Reset</a></form>",
        esc(page)
    );
    match &sel.notice {
        Some(n) => {
            let _ = write!(h, "<div id=\"notice\">{}</div>", esc(n));
        }
        None => h.push_str("<div id=\"notice\" hidden></div>"),
    }
    // What reading the shown profiles warned of (a dump cut short: its numbers are those
    // of the records before the cut), in view, as the command line says it.
    let warnings: Vec<&str> = match sel.session() {
        Some(s) => [Some(sel.view), sel.base]
            .into_iter()
            .flatten()
            .filter_map(|i| snap.entries.get(i))
            .filter_map(|e| s.profiles.get(e.index))
            .flat_map(|p| p.profile.notes.iter())
            .filter(|n| n.starts_with("Warning:"))
            .map(String::as_str)
            .collect(),
        None => Vec::new(),
    };
    for w in &warnings {
        let _ = write!(h, "<div class=\"warning\">{}</div>", esc(w));
    }
    let (_, status) = ui.history.status();
    let mut lines: Vec<&str> = msgs.lines().filter(|l| !l.trim().is_empty()).collect();
    lines.extend(status.iter().map(String::as_str));
    if !lines.is_empty() {
        let _ = write!(
            h,
            "<details id=\"messages\"><summary>Messages ({})</summary><pre>",
            lines.len()
        );
        for l in lines {
            h.push_str(&esc(l));
            h.push('\n');
        }
        h.push_str("</pre></details>");
    }
    h.push_str("</header>");
    h
}

/// A whole page.
fn html(ui: &Ui, sel: &Selected, page: &str, msgs: &str, body: &str, scripts: &[&str]) -> Response {
    let title = match (sel.session(), sel.snap.entries.get(sel.view)) {
        (Some(s), Some(e)) => format!(
            "{}: {} — rpprof",
            file_name(std::path::Path::new(&s.program_name)),
            e.name
        ),
        _ => "rpprof".to_string(),
    };
    let mut o = String::with_capacity(body.len() + 8192);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><link rel=\"stylesheet\" href=\"/ui/static/ui.css\"></head>\n<body data-page=\"{}\" data-generation=\"{}\">",
        esc(&title),
        esc(page),
        sel.snap.generation
    );
    o.push_str(&header(ui, sel, page, msgs));
    let _ = write!(o, "<main id=\"main\">{body}</main>");
    o.push_str("<script src=\"/ui/static/ui.js\"></script>");
    for s in scripts {
        let _ = write!(o, "<script src=\"/ui/static/{s}\"></script>");
    }
    o.push_str("</body></html>\n");
    Response::new(200, "text/html; charset=utf-8", o)
        .with_header("Content-Security-Policy", CSP)
        .with_header("X-Frame-Options", "SAMEORIGIN")
}

/// A notice in a page's body.
fn notice(class: &str, text: &str) -> String {
    format!("<div class=\"notice {class}\">{text}</div>")
}

/// The form asking for `f` on the routine pages.
fn ask_function(page: &str, q: &Query, what: &str) -> String {
    let mut hidden = String::new();
    for (k, v) in &q.0 {
        if k != "f" && !v.is_empty() {
            let _ = write!(
                hidden,
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                esc(k),
                esc(v)
            );
        }
    }
    notice(
        "ask",
        &format!(
            "<form method=\"get\" action=\"/ui/{page}\">{what}: name the functions with a regular expression: <input name=\"f\" id=\"ask-f\" size=\"30\"> {hidden}<button type=\"submit\">Show</button></form>"
        ),
    )
}

/// One row of the `--text` table.
struct Row<'a> {
    cols: [&'a str; 5],
    name: &'a str,
}

/// The rows of a `--text` report (after its `Total:` line).
fn parse_text(text: &str) -> (Option<&str>, Vec<Row<'_>>) {
    let mut total = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("Total") {
            total = Some(
                t.trim_start_matches(|c| c != ':')
                    .trim_start_matches(':')
                    .trim(),
            );
            continue;
        }
        let mut cols = [""; 5];
        let mut rest = line;
        let mut ok = true;
        for c in &mut cols {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            if end == 0 {
                ok = false;
                break;
            }
            *c = &rest[..end];
            rest = &rest[end..];
        }
        let name = rest.trim_start();
        if ok && !name.is_empty() && cols[1].ends_with('%') {
            rows.push(Row { cols, name });
        }
    }
    (total, rows)
}

/// The `top` page: the text table, sortable in the browser.
fn top(ui: &Ui, sel: &Selected, page: &str) -> Response {
    let (text, msgs) = match sel.render(Mode::Text) {
        Ok((o, m)) => (String::from_utf8_lossy(&o).into_owned(), m),
        Err((e, m)) => {
            return html(
                ui,
                sel,
                page,
                &m,
                &notice("error", &esc(&e.to_string())),
                &[],
            );
        }
    };
    let (total, rows) = parse_text(&text);
    // (A report of nothing has no Total line: the units are the view's.)
    let units = match total.and_then(|t| t.split_whitespace().nth(1)) {
        Some(u) => u,
        None => {
            let kind = sel.entry().kind;
            crate::units::Measure::of(kind, sel.v.value.index(kind), sel.v.show_bytes).units()
        }
    };
    let mut b = String::new();
    if let Some(t) = total {
        let _ = write!(b, "<p class=\"total\" id=\"total\">Total: {}</p>", esc(t));
    }
    let sorted = if sel.v.cum { "cum" } else { "flat" };
    // A big table is cut (a browser takes seconds to lay out tens of thousands of rows);
    // its numeric columns are then sorted by the server, which has all the rows.
    let shown = sel.rows.map_or(rows.len(), |n| n.min(rows.len()));
    let cut = shown < rows.len();
    if cut {
        let _ = write!(
            b,
            "<p class=\"cut\" id=\"cut\">The first {shown} of {} rows, by {} value. <a id=\"all-rows\" href=\"{}\">Show all {}</a> (the browser takes a while over that many) or the <a href=\"{}\">text</a>.</p>",
            rows.len(),
            if sel.v.cum { "cumulative" } else { "flat" },
            esc(&url(page, &sel.q.with("rows", "all"))),
            rows.len(),
            esc(&url("text", &sel.q.with("rows", ""))),
        );
    }
    let _ = write!(
        b,
        "<table id=\"toptable\" class=\"sortable\" data-sorted=\"{sorted}\"{}><thead><tr><th data-key=\"flat\" data-order=\"flat\" data-type=\"num\">Flat ({u})</th><th data-order=\"flat\" data-type=\"num\">Flat%</th><th data-order=\"flat\" data-type=\"num\" data-running=\"1\">Sum%</th><th data-key=\"cum\" data-order=\"cum\" data-type=\"num\">Cum ({u})</th><th data-order=\"cum\" data-type=\"num\">Cum%</th><th data-type=\"text\">Name</th></tr></thead><tbody>",
        if cut { " data-cut=\"1\"" } else { "" },
        u = esc(units)
    );
    for r in &rows[..shown] {
        b.push_str("<tr>");
        for c in r.cols {
            let v = c.trim_end_matches('%');
            let _ = write!(b, "<td data-v=\"{}\">{}</td>", esc(v), esc(c));
        }
        if sel.v.granularity != Granularity::Functions {
            // A focus expression matches a function's name, not a node named by its line,
            // file or address: no links that would find nothing.
            let _ = write!(b, "<td class=\"name\">{}</td></tr>", esc(r.name));
            continue;
        }
        // Callers and peek match report names; focus and source the function's names.
        let re = quote_meta(r.name);
        let func = function_re(r.name);
        let link = |p: &str, re: &str| url(p, &sel.q.with("f", re));
        // A function inlined into others is no routine of its own (its lines are listed in
        // theirs): no source link that would find nothing.
        let source = if r.name.ends_with(" (inline)") {
            String::new()
        } else {
            format!(" <a href=\"{}\">source</a>", esc(&link("source", &func)))
        };
        let _ = write!(
            b,
            "<td class=\"name\"><a href=\"{}\" title=\"focus the flame graph on it\">{}</a> <span class=\"acts\"><a href=\"{}\">callers</a>{source} <a href=\"{}\">peek</a></span></td></tr>",
            esc(&link("flamegraph", &func)),
            esc(r.name),
            esc(&url("flamegraph", &sel.q.with("p", &format!("^{re}$")))),
            esc(&link("peek", &format!("^{re}$"))),
        );
    }
    b.push_str("</tbody></table>");
    if rows.is_empty() {
        let why = no_samples(sel).unwrap_or("no function has a value");
        b.push_str(&notice("empty", &format!("Nothing to show: {why}.")));
    }
    html(ui, sel, page, &msgs, &b, &[])
}

/// Renders `mode` into a `<pre>`, or says why not.
fn listing(ui: &Ui, sel: &Selected, page: &str, mode: Mode, what: &str) -> Response {
    if sel.q.get("f").is_none() {
        let b = ask_function(page, &sel.q, what);
        return html(ui, sel, page, "", &b, &[]);
    }
    match sel.render(mode) {
        Ok((out, msgs)) => {
            let text = String::from_utf8_lossy(&out);
            let f = esc(sel.q.get("f").unwrap_or(""));
            // A listing cut to the routines with the largest values says so above it.
            let mut cut = String::new();
            let msgs: String = msgs
                .lines()
                .filter(|l| {
                    if let Some(rest) = l.strip_prefix(crate::view::NO_INSTRUCTIONS) {
                        let _ = write!(
                            cut,
                            "<p class=\"cut\" id=\"no-insns\">A click on a line shows the instructions compiled to it{}: narrow the Function expression to see them here, or open the <a href=\"{}\">Disassembly</a>.</p>",
                            esc(rest),
                            esc(&url("disasm", &sel.q.encode())),
                        );
                        return false;
                    }
                    let Some(rest) = l.strip_prefix(crate::view::LISTING_CUT) else {
                        return true;
                    };
                    let _ = write!(
                        cut,
                        "<p class=\"cut\" id=\"cut\">Listed{}. <a id=\"all-rows\" href=\"{}\">List them all</a> (it takes a while over that many), or narrow the Function expression.</p>",
                        esc(rest),
                        esc(&url(page, &sel.q.with("routines", "all"))),
                    );
                    false
                })
                .map(|l| format!("{l}\n"))
                .collect();
            let b = if text.trim().is_empty() && !msgs.trim().is_empty() {
                // Why there is nothing (a source file not found, no routine in the symbol
                // table): said here, not only among the page's messages.
                notice(
                    "empty",
                    &format!(
                        "Nothing to show for <code>{f}</code>:<pre class=\"why\">{}</pre>",
                        esc(msgs.trim_end())
                    ),
                )
            } else if text.trim().is_empty() {
                notice(
                    "empty",
                    &format!("No function matching <code>{f}</code> has a value in this profile."),
                )
            } else if mode == Mode::List {
                // (HTML already: each line a block, those with instructions opening.)
                format!("{cut}<div class=\"listing\" id=\"listing\">{text}</div>")
            } else {
                format!(
                    "{cut}<pre class=\"listing\" id=\"listing\">{}</pre>",
                    esc(&text)
                )
            };
            html(ui, sel, page, &msgs, &b, &[])
        }
        Err((e, msgs)) => html(
            ui,
            sel,
            page,
            &msgs,
            &notice("error", &esc(&e.to_string())),
            &[],
        ),
    }
}

/// True when `tools` (as `--tools`) finds objdump.
fn have_objdump(tools: Option<&str>) -> bool {
    match disasm::objdump_path(tools) {
        Ok(p) if p.as_os_str() == "objdump" => graphviz::in_path("objdump"),
        Ok(p) => p.exists(),
        Err(_) => false,
    }
}

/// A page whose parameters are refused (a bad regular expression typed in the Focus box,
/// a mistyped `n=`): the page with the profiles it names, the form as typed, and the
/// reason instead of a report, so that the user can correct it; status 400. When the
/// profiles themselves cannot be picked, one line.
fn refused_page(ui: &Ui, page: &str, req: &Request, routine_page: bool, r: &Refusal) -> Response {
    let Ok(typed) = Query::parse(&req.query) else {
        return r.response();
    };
    if r.0 == 404 {
        return missing_profile_page(ui, page, routine_page, typed, r);
    }
    if r.0 != 400 {
        return r.response();
    }
    let picks: Vec<(String, String)> = typed
        .0
        .iter()
        .filter(|(k, _)| matches!(k.as_str(), "view" | "base" | "si"))
        .cloned()
        .collect();
    let plain = Query(picks.clone()).encode();
    let mut typed = typed;
    let sel = match ui.select(&plain, routine_page) {
        Ok(s) if picks.len() < typed.0.len() => s,
        Ok(_) => return r.response(),
        // The value column or the base is what is refused (`si=bogus`, a base of another
        // kind): the profile's page without them, the other parameters kept (the base alone
        // first: the value column chosen stays when it fits).
        Err(_) => {
            let keep = |ks: &[&str]| {
                Query(
                    typed
                        .0
                        .iter()
                        .filter(|(k, _)| ks.contains(&k.as_str()))
                        .cloned()
                        .collect(),
                )
            };
            let (left, sel) = match ui.select(&keep(&["view", "si"]).encode(), routine_page) {
                Ok(s) => (&["base"][..], s),
                Err(_) => match ui.select(&keep(&["view"]).encode(), routine_page) {
                    Ok(s) => (&["si", "base"][..], s),
                    Err(_) => return r.response(),
                },
            };
            typed.0.retain(|(k, _)| !left.contains(&k.as_str()));
            sel
        }
    };
    let sel = Selected {
        q: typed,
        filled: false,
        ..sel
    };
    // The form's names for the parameters.
    let mut why = r.1.clone();
    for (k, field) in [
        ("f", if routine_page { "Function" } else { "Focus" }),
        ("i", "Ignore"),
        ("h", "Hide"),
        ("s", "Show"),
    ] {
        if let Some(rest) = why.strip_prefix(&format!("{k}: ")) {
            why = format!("{field}: {rest}");
            break;
        }
    }
    let mut resp = html(ui, &sel, page, "", &notice("error", &esc(&why)), &[]);
    resp.status = r.0;
    resp
}

/// A page whose `view=` or `base=` names no profile of the history (a dump let go past
/// `--max_profiles_kept`, an old bookmark): the page without what is missing (the newest
/// profile for a missing view), the other parameters kept, and the reason; status 404. One
/// line when even the newest profile's page is refused.
fn missing_profile_page(
    ui: &Ui,
    page: &str,
    routine_page: bool,
    typed: Query,
    r: &Refusal,
) -> Response {
    // Only what names a missing profile goes (and the value column with a missing view).
    let snap = ui.history.current();
    let missing = |k: &str| typed.get(k).is_some_and(|n| snap.find(n).is_none());
    let (no_view, no_base) = (missing("view"), missing("base"));
    let rest = Query(
        typed
            .0
            .iter()
            .filter(|(k, _)| match k.as_str() {
                "view" | "si" => !no_view,
                "base" => !no_base,
                _ => true,
            })
            .cloned()
            .collect(),
    );
    let Ok(sel) = ui
        .select(&rest.encode(), routine_page)
        .or_else(|_| ui.select("", routine_page))
    else {
        return r.response();
    };
    let Some(shown) = sel.snap.entries.get(sel.view) else {
        return r.response();
    };
    // The address bar gets the URL of what is shown (ui.js), so that a reload shows it.
    let sel = Selected {
        notice: Some(if no_view {
            format!("{}. Showing the newest, {}.", r.1, shown.name)
        } else {
            format!("{}. Showing {} without it.", r.1, shown.name)
        }),
        filled: true,
        ..sel
    };
    let mut resp = page_for(ui, page, &sel);
    resp.status = 404;
    resp
}

/// Answers a page request.
pub fn page(ui: &Ui, page: &str, req: &Request) -> Response {
    let page = if page.is_empty() { "flamegraph" } else { page };
    if !TABS.iter().any(|(p, _)| *p == page) {
        return Response::text(404, &format!("rpprof: no page /ui/{page}"));
    }
    let routine_page = matches!(page, "source" | "disasm" | "peek");
    match ui.select(&req.query, routine_page) {
        Ok(sel) => page_for(ui, page, &sel),
        Err(r) => refused_page(ui, page, req, routine_page, &r),
    }
}

/// The page `page` (one of [`TABS`]) of the selection.
fn page_for(ui: &Ui, page: &str, sel: &Selected) -> Response {
    if sel.session().is_none() {
        let watched: Vec<String> = ui
            .history
            .sources
            .iter()
            .map(|s| esc(&s.describe()))
            .collect();
        let b = notice(
            "empty",
            &format!(
                "No profiles yet. Watching {}; a dump written there shows up here within a few seconds.",
                watched.join(", ")
            ),
        );
        return html(ui, sel, page, "", &b, &[]);
    }
    match page {
        "flamegraph" => match sel.render(Mode::FlameData) {
            Ok((json, msgs)) => {
                let mut b = String::new();
                let _ = write!(
                    b,
                    "<div id=\"flame-tools\"><label>Search <input id=\"search\" size=\"24\" placeholder=\"regular expression\" value=\"{}\"></label> <span id=\"matched\"></span> <span id=\"pivot\"></span> <button id=\"reset-zoom\" type=\"button\">Reset zoom</button></div><div id=\"flame-info\">&nbsp;</div><div id=\"flame\"></div><div id=\"flame-actions\" hidden></div>",
                    esc(sel.q.get("q").unwrap_or(""))
                );
                let _ = write!(
                    b,
                    "<script type=\"application/json\" id=\"flame-data\">{}</script>",
                    // SANITY: the JSON escapes <, > and & in strings.
                    String::from_utf8_lossy(&json)
                );
                html(ui, sel, page, &msgs, &b, &["flame.js"])
            }
            Err((e, msgs)) => html(
                ui,
                sel,
                page,
                &msgs,
                &notice("error", &esc(&e.to_string())),
                &[],
            ),
        },
        "top" => top(ui, sel, page),
        "graph" => {
            if !graphviz::in_path("dot") {
                let b = notice(
                    "missing",
                    &format!(
                        "The call graph is drawn by Graphviz, which is not installed here (no <code>dot</code> on PATH). Install it (Debian: <code>apt-get install graphviz</code>) and reload; meanwhile the graph is here in <a href=\"{}\">DOT form</a>, and the other pages need nothing more.",
                        esc(&url("dot", &sel.q.encode()))
                    ),
                );
                return html(ui, sel, page, "", &b, &[]);
            }
            if let Some(why) = no_samples(sel) {
                let b = notice("empty", &format!("Nothing to show: {why}."));
                return html(ui, sel, page, "", &b, &[]);
            }
            let b = format!(
                "<p class=\"hint\">Drag to pan, scroll to zoom. <a href=\"{0}\" target=\"_blank\">Open the SVG alone</a>.</p><iframe id=\"graph-frame\" sandbox=\"allow-scripts\" title=\"call graph\" src=\"{0}\"></iframe>",
                esc(&url("svg", &sel.q.encode()))
            );
            html(ui, sel, page, "", &b, &[])
        }
        "source" => listing(ui, sel, page, Mode::List, "Source"),
        "disasm" => {
            if !have_objdump(sel.v.tools.as_deref()) {
                let b = notice(
                    "missing",
                    "Disassembly needs <code>objdump</code> (GNU binutils), which is not installed here (Debian: <code>apt-get install binutils</code>), or is not where <code>--tools</code> says.",
                );
                return html(ui, sel, page, "", &b, &[]);
            }
            listing(ui, sel, page, Mode::Disasm, "Disassembly")
        }
        "peek" => listing(ui, sel, page, Mode::Peek, "Peek"),
        "trend" => trend(ui, sel, page),
        _ => Response::text(404, &format!("rpprof: no page /ui/{page}")),
    }
}

/// Why the viewed profile (less its base) has nothing to show, when it holds no samples at
/// all, as the command line says it.
fn no_samples(sel: &Selected) -> Option<&'static str> {
    let s = sel.session()?;
    let view = s.profiles.get(sel.snap.entries.get(sel.view)?.index)?;
    let base = sel
        .base
        .and_then(|b| sel.snap.entries.get(b))
        .and_then(|e| s.profiles.get(e.index));
    let empty = |l: &crate::session::Loaded| l.profile.samples.is_empty();
    match base {
        None if empty(view) => Some("the profile holds no samples (nothing was recorded)"),
        Some(b) if empty(view) && empty(b) => {
            Some("the profiles hold no samples (nothing was recorded)")
        }
        _ => None,
    }
}

/// The profiles of the history a trend of the viewed profile could use: its kind,
/// compatible with it, of the same process; oldest first.
pub fn trend_series(sel: &Selected) -> Vec<usize> {
    let (Some(s), Some(v)) = (sel.session(), sel.snap.entries.get(sel.view)) else {
        return Vec::new();
    };
    // The process is told by a memory map: a dump cut short has none, and then the newest
    // dump of its kind that has one stands for it (the trend leaves the cut one out).
    let mapped = |i: usize| !s.profiles[i].profile.mappings.is_empty();
    let anchor = if mapped(v.index) {
        v.index
    } else {
        sel.snap
            .entries
            .iter()
            .find(|e| e.kind == v.kind && mapped(e.index))
            .map_or(v.index, |e| e.index)
    };
    sel.snap
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.kind == v.kind
                && s.check_pair(v.index, e.index, false, sel.v.value).is_ok()
                // A trend follows one process: dumps of other runs in the same folder
                // are left out rather than refusing the page.
                && crate::trend::same_process(
                    &s.profiles[anchor].profile,
                    &s.profiles[e.index].profile,
                )
                .is_ok()
        })
        .map(|(i, _)| i)
        // Oldest first, as a shell's glob lists numbered dumps: the order `--trend` keeps
        // when neither the names nor the times order the series.
        .rev()
        .collect()
}

/// The `trend` page: `--trend` over [`trend_series`] (the series ordered as the command line
/// orders it), as rpprof's chart and a table whose rows open the flame graph of the last
/// dump against the first, focused on the site.
fn trend(ui: &Ui, sel: &Selected, page: &str) -> Response {
    let series = trend_series(sel);
    let Some(s) = sel.session().filter(|_| series.len() >= 3) else {
        let b = notice(
            "empty",
            &format!(
                "The trend needs 3 or more profiles of one kind; the history has {} like this one. Point rpprof at a folder of dumps (or add <code>--every</code> to a remote source) and they will come.",
                series.len()
            ),
        );
        return html(ui, sel, page, "", &b, &[]);
    };
    let mut v = sel.v.clone();
    v.profiles = Some(series.iter().map(|&i| sel.snap.entries[i].index).collect());
    let mut names: Vec<String> = s.profiles.iter().map(|l| l.name()).collect();
    for e in &sel.snap.entries {
        if let Some(n) = names.get_mut(e.index) {
            n.clone_from(&e.name);
        }
    }
    v.profile_names = Some(names);
    v.base = crate::view::BaseChoice::None;
    let mut notes = Vec::new();
    if let Some(w) = v
        .profiles
        .as_deref()
        .and_then(|p| s.no_allocation_totals(p, v.value))
    {
        notes.push(w);
    }
    let t = match v.trend(s, &mut notes) {
        Ok(t) => t,
        Err(e) => {
            let b = notice("error", &esc(&e.to_string()));
            return html(ui, sel, page, &notes.join("\n"), &b, &[]);
        }
    };
    // The entry of a session profile, for the pickers' names.
    let entry = |profile: Option<usize>| {
        profile.and_then(|p| sel.snap.entries.iter().find(|e| e.index == p))
    };
    let (first, last) = (entry(t.first_profile()), entry(t.last_profile()));
    let mut b = String::new();
    let _ = write!(
        b,
        "<p class=\"hint\" id=\"trend-summary\">{} dumps, {} to {}; {}. The change of a site is what the last dump against the first shows: click a site for that diff (a site gone from the last dump: for its stacks in the last dump that has it).</p>",
        t.dumps.len(),
        esc(&first.map_or(String::new(), |e| e.name.clone())),
        esc(&last.map_or(String::new(), |e| e.name.clone())),
        esc(&{
            let counts = t
                .class_counts()
                .iter()
                .map(|(c, n)| format!("{n} {}", c.name()))
                .collect::<Vec<_>>()
                .join(", ");
            if counts.is_empty() {
                "no site has a value".to_string()
            } else {
                counts
            }
        }),
    );
    // What the series is not: the oldest dumps, no longer kept (the chart's header says
    // which were left out as cut short).
    if sel.snap.let_go > 0 {
        let _ = write!(
            b,
            "<p class=\"hint\" id=\"trend-let-go\">The {} oldest profiles are no longer kept (<code>--max_profiles_kept={}</code> keeps the newest): the series starts later than the files do.</p>",
            sel.snap.let_go, sel.snap.max_kept
        );
    }
    // ... nor the profiles of the same kind that are not dumps of this process (another run
    // of the program in the same folder, or a profile that does not fit this one).
    let others: Vec<&str> = sel
        .snap
        .entries
        .iter()
        .enumerate()
        .filter(|(i, e)| e.kind == sel.entry().kind && !series.contains(i))
        .map(|(_, e)| e.name.as_str())
        .collect();
    if !others.is_empty() {
        let mut named = others
            .iter()
            .take(4)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if others.len() > 4 {
            let _ = write!(named, " and {} more", others.len() - 4);
        }
        let _ = write!(
            b,
            "<p class=\"hint\" id=\"trend-others\">Not in the series: {} (another run of the program, its program mapped elsewhere, or a profile that does not fit this one).</p>",
            esc(&named)
        );
    }
    let mut svg = Vec::new();
    if crate::report::trend::write(&mut svg, &t, crate::report::TrendFormat::Svg).is_ok() {
        b.push_str("<div id=\"trend-chart\">");
        // The SVG is rpprof's own, its text escaped as XML; inline, without its XML
        // declaration.
        let svg = String::from_utf8_lossy(&svg);
        let svg = match svg.strip_prefix("<?xml") {
            Some(rest) => rest.split_once("?>").map_or("", |(_, r)| r.trim_start()),
            None => &svg,
        };
        b.push_str(svg);
        b.push_str("</div>");
    }
    let m = t.measure;
    let _ = write!(
        b,
        "<table id=\"trendtable\" class=\"sortable\"><thead><tr><th data-type=\"text\">Class</th><th data-type=\"num\">First</th><th data-type=\"num\">Last</th><th data-type=\"num\">Change</th><th data-type=\"text\">Series</th><th data-type=\"text\">Site</th></tr></thead><tbody>"
    );
    // A site's link: the last dump against the first, focused on the site; for a site gone
    // from the last dump (nothing of it left to draw there), `gone_in`: its stacks in the
    // last dump that has it.
    let diff = |re: Option<&str>, gone_in: Option<&str>| -> Option<String> {
        let (f, l) = (first?, last?);
        let mut q = sel.q.clone();
        q.0.retain(|(k, _)| !matches!(k.as_str(), "view" | "base" | "f" | "p"));
        if let Some(g) = gone_in {
            q.0.push(("view".to_string(), g.to_string()));
        } else {
            q.0.push(("view".to_string(), l.name.clone()));
            q.0.push(("base".to_string(), f.name.clone()));
        }
        if let Some(re) = re {
            q.0.push(("f".to_string(), re.to_string()));
        }
        Some(url("flamegraph", &q.encode()))
    };
    // The places of the session's frames, for the rows of lines.
    let places: std::collections::HashSet<&Place> = match t.granularity {
        Granularity::Lines if !t.stacks => s
            .symbols
            .iter()
            .flat_map(|(_, frames)| frames.iter().map(|f| &f.fileline))
            .collect(),
        _ => Default::default(),
    };
    for (row, is_total) in
        std::iter::once((&t.total, true)).chain(t.rows.iter().map(|r| (r, false)))
    {
        let first_v = row.values.first().copied().unwrap_or(0.0);
        let last_v = row.values.last().copied().unwrap_or(0.0);
        let class = row.stats.class.name();
        let name = if is_total {
            "(total)".to_string()
        } else {
            row.name.clone()
        };
        // A focus expression matches a frame's function name or its place (`file:line`):
        // a line's row is focused on its place, a file's on its lines; an address's row
        // (and a whole stack's) links to the unfocused diff.
        let re = match (t.granularity, t.stacks || is_total) {
            (_, true) => None,
            (Granularity::Functions, false) => Some(function_re(&row.name)),
            (Granularity::Lines, false) => {
                line_place(&row.name, &places).map(|place| format!("^{}$", quote_meta(place)))
            }
            (Granularity::Files, false) => Some(format!("^{}:\\d+$", quote_meta(&row.name))),
            (Granularity::Addresses, false) => None,
        };
        let gone_in = (!is_total && last_v == 0.0)
            .then(|| row.values.iter().rposition(|&v| v != 0.0))
            .flatten()
            .and_then(|k| entry(t.dumps.get(k).map(|d| d.profile)))
            .map(|e| e.name.as_str());
        let cell = match diff(if is_total { None } else { re.as_deref() }, gone_in) {
            Some(link) => format!(
                "<a href=\"{}\" title=\"{}\">{}</a>",
                esc(&link),
                esc(&match gone_in {
                    Some(g) => format!("its stacks in {g}, the last dump that has it"),
                    None => "the last dump against the first".to_string(),
                }),
                esc(&name)
            ),
            _ => esc(&name),
        };
        let _ = write!(
            b,
            "<tr class=\"{class}\"><td data-v=\"{class}\">{class}</td><td data-v=\"{first_v}\">{}</td><td data-v=\"{last_v}\">{}</td><td data-v=\"{}\">{}</td><td class=\"spark\">{}</td><td class=\"name\">{cell}</td></tr>",
            esc(&m.unparse(first_v)),
            esc(&m.unparse(last_v)),
            last_v - first_v,
            esc(&crate::report::trend::signed(m, last_v - first_v)),
            esc(&crate::report::trend::sparkline(&row.values)),
        );
    }
    b.push_str("</tbody></table>");
    if t.omitted > 0 {
        let _ = write!(
            b,
            "<p class=\"hint\">{} more sites (raise <code>n</code> to see them).</p>",
            t.omitted
        );
    }
    html(ui, sel, page, &notes.join("\n"), &b, &[])
}

/// The place (`file:line`) that ends `name`, the name of a line's row (`function
/// file:line`, then ` (address)` with `--show_addresses`): the longest ending after a blank
/// that is one of `places` (a frame's place). A function's name and a file's path may both
/// hold blanks, so the last blank is not always where the place starts.
fn line_place<'a>(name: &'a str, places: &std::collections::HashSet<&Place>) -> Option<&'a str> {
    let name = match name.rsplit_once(" (") {
        Some((rest, tag))
            if tag.len() > 1
                && tag.ends_with(')')
                && tag[..tag.len() - 1].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            rest
        }
        _ => name,
    };
    name.match_indices(' ')
        .map(|(i, _)| &name[i + 1..])
        .find(|place| places.contains(&Place::whole(place)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Peek's anchored names read back as the names quoted, and only those.
    #[test]
    fn anchored_names_read_back() {
        for name in [
            "twork_step (inline)",
            "a::b<int>::operator()",
            "x$y^z[1]",
            "f@1a2b",
        ] {
            let re = format!("^{}$", quote_meta(name));
            assert_eq!(anchored_name(&re).as_deref(), Some(name), "{re}");
        }
        for re in [
            "twork", "^twork", "twork$", "^a|b$", "^a.b$", "^a\\$", "^a\\d$",
        ] {
            assert_eq!(anchored_name(re), None, "{re}");
        }
        assert_eq!(
            anchored_name("^twork_step \\(inline\\)$").map(|n| function_re(&n)),
            Some("^twork_step(?: \\[clone [^\\]]*\\])*$".to_string())
        );
    }

    /// A line's row is focused on its place, found whole when its path or its function's
    /// name holds blanks, or an address follows it.
    #[test]
    fn places_of_line_rows() {
        let owned: Vec<Place> = [
            "/src/my dir/leak.cc:12",
            "/usr/include/c++/12/new_op.cc:50",
            "b.cc:3",
        ]
        .into_iter()
        .map(Place::whole)
        .collect();
        let places: std::collections::HashSet<&Place> = owned.iter().collect();
        let place = |name: &'static str| line_place(name, &places);
        assert_eq!(
            place("Leak::grow /src/my dir/leak.cc:12"),
            Some("/src/my dir/leak.cc:12")
        );
        assert_eq!(
            place("operator new(unsigned long) /usr/include/c++/12/new_op.cc:50"),
            Some("/usr/include/c++/12/new_op.cc:50")
        );
        assert_eq!(place("f (inline) b.cc:3"), Some("b.cc:3"));
        assert_eq!(place("f b.cc:3 (000000000040112a)"), Some("b.cc:3"));
        assert_eq!(place("f other.cc:9"), None);
    }

    /// The function a node name stands for: its ` (inline)` mark and its `@address` tag
    /// left out (not an `@` that is part of a name), GCC's clones taken in.
    #[test]
    fn function_regular_expressions() {
        let matches = |name: &str, what: &str| {
            regex::Regex::new(&function_re(name)).is_ok_and(|re| re.is_match(what))
        };
        assert_eq!(
            function_re("std::vector::push_back (inline)"),
            r"^std::vector::push_back(?: \[clone [^\]]*\])*$"
        );
        assert!(matches("make_record@27f0", "make_record"));
        assert!(!matches("make_record@27f0", "make_record@27f0"));
        assert!(matches("memcpy@GLIBC_2.14", "memcpy@GLIBC_2.14"));
        assert!(matches("@ff", "@ff"));
        assert!(matches("Slab::take", "Slab::take [clone .isra.0]"));
        assert!(matches("a.b(c)", "a.b(c)"));
        assert!(!matches("a.b", "axb"));
        assert!(!matches("grow", "tdata::index::grow"));
    }

    #[test]
    fn text_rows() {
        let t = "Total: 4.0 MB\n     3.0  75.0%  75.0%      3.0  75.0% foo::bar (inline)\n     1.0  25.0% 100.0%      4.0 100.0% main\n";
        let (total, rows) = parse_text(t);
        assert_eq!(total, Some("4.0 MB"));
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].name, "foo::bar (inline)");
        assert_eq!(rows[1].cols, ["1.0", "25.0%", "100.0%", "4.0", "100.0%"]);
    }

    #[test]
    fn escaping() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            quote_meta("std::vector<int>::push_back(int*)"),
            "std::vector<int>::push_back\\(int\\*\\)"
        );
    }
}
