//! `--trend` on the series of testdata/t-trend (written by its program with the real tcmalloc
//! heap profiler, tcmalloc's heap sampler and jemalloc): each site's class, the order of the
//! series from shuffled arguments and from modification times, the per-dump values against
//! google-pprof's and jeprof's, each site's change against their `--base=<first> <last>`,
//! the CSV, JSON and SVG outputs, the library function the web UI uses, and bad input.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

fn case() -> PathBuf {
    common::root().join("testdata").join("t-trend")
}

/// The series of the case, in order: `hprof`, `sample`, `jemalloc`.
fn series(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(case().join("series.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[0] == name)
        .map(|f| f[2].to_string())
        .collect()
}

fn mtimes() -> HashMap<String, u64> {
    let text = std::fs::read_to_string(case().join("series.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .map(|f| (f[2].to_string(), f[3].parse().unwrap()))
        .collect()
}

fn program(series: &str) -> &'static str {
    if series == "jemalloc" {
        "./ttrend-je"
    } else {
        "./ttrend"
    }
}

/// A scratch copy of the case's programs and dumps (`rename` gives a dump another name),
/// with the modification times `build.sh` gave them (git keeps none).
fn scratch(test: &str, rename: &dyn Fn(&str) -> String) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("trend-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for p in ["ttrend", "ttrend-je"] {
        std::fs::copy(case().join(p), d.join(p)).unwrap();
    }
    for (name, mtime) in mtimes() {
        let to = d.join(rename(&name));
        std::fs::copy(case().join(&name), &to).unwrap();
        set_mtime(&to, mtime);
    }
    d
}

fn set_mtime(p: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(p).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let o = common::rpprof(dir, args);
    Run {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `--trend --csv <flags> <program> <files>` in `dir`: the header and the rows by name.
fn csv(dir: &Path, flags: &[&str], prog: &str, files: &[String]) -> Csv {
    let mut args: Vec<&str> = vec!["--trend", "--csv"];
    args.extend_from_slice(flags);
    args.push(prog);
    args.extend(files.iter().map(String::as_str));
    let r = run(dir, &args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.err);
    Csv::parse(&r.out)
}

/// A CSV table (rpprof's: quoted fields hold no newlines).
struct Csv {
    head: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    out.push(field);
    out
}

impl Csv {
    fn parse(text: &str) -> Csv {
        let mut lines = text.lines();
        let head = split_csv(lines.next().expect("a header row"));
        let rows: Vec<Vec<String>> = lines.map(split_csv).collect();
        for r in &rows {
            assert_eq!(r.len(), head.len(), "{r:?}");
        }
        Csv { head, rows }
    }

    fn col(&self, name: &str) -> usize {
        self.head
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.head))
    }

    fn row(&self, name: &str) -> Option<&Vec<String>> {
        self.rows.iter().find(|r| r[0] == name)
    }

    fn get(&self, row: &str, col: &str) -> Option<String> {
        self.row(row).map(|r| r[self.col(col)].clone())
    }

    /// The per-dump columns of `row`.
    fn values(&self, row: &str) -> Vec<i64> {
        let first = self.col("flat_since") + 1;
        self.row(row).unwrap()[first..]
            .iter()
            .map(|v| whole(v))
            .collect()
    }
}

/// A CSV value as pprof prints it: a sampled profile's estimates carry fractions there,
/// which `--text` truncates.
fn whole(v: &str) -> i64 {
    v.parse::<f64>().unwrap() as i64
}

/// expected.tsv: function → class.
fn expected() -> Vec<(String, String)> {
    std::fs::read_to_string(case().join("expected.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let (f, c) = l.split_once('\t').unwrap();
            (f.to_string(), c.to_string())
        })
        .collect()
}

/// sites.tsv: (series, function) → the reference tool's flat (bytes, objects) per dump.
fn reference_values() -> HashMap<(String, String), Vec<(i64, i64)>> {
    let mut m: HashMap<(String, String), Vec<(i64, i64)>> = HashMap::new();
    let text = std::fs::read_to_string(case().join("sites.tsv")).unwrap();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        m.entry((f[0].to_string(), f[3].to_string()))
            .or_default()
            .push((f[4].parse().unwrap(), f[5].parse().unwrap()));
    }
    m
}

#[test]
fn every_site_has_its_class_in_every_series() {
    let dir = scratch("classes", &|n| n.to_string());
    for s in ["hprof", "sample", "jemalloc"] {
        let t = csv(&dir, &[], program(s), &series(s));
        assert_eq!(t.rows[0][0], "(total)");
        for (f, class) in expected() {
            assert_eq!(
                t.get(&f, "class").as_deref(),
                Some(class.as_str()),
                "{s} {f}"
            );
        }
        // The cache's plateau starts at dump 4 (after four ticks of 40 entries).
        assert_eq!(
            t.get("cache_fill", "flat_since").as_deref(),
            Some("4"),
            "{s}"
        );
    }
}

#[test]
fn values_are_the_reference_tools_values() {
    let dir = scratch("values", &|n| n.to_string());
    let refs = reference_values();
    for s in ["hprof", "sample", "jemalloc"] {
        let bytes = csv(&dir, &[], program(s), &series(s));
        let objects = csv(&dir, &["--inuse_objects"], program(s), &series(s));
        for (f, _) in expected()
            .into_iter()
            .chain([("(total)".into(), String::new())])
        {
            let want = &refs[&(s.to_string(), f.clone())];
            let b: Vec<i64> = want.iter().map(|v| v.0).collect();
            assert_eq!(bytes.values(&f), b, "{s} {f} bytes");
            if f != "(total)" {
                let o: Vec<i64> = want.iter().map(|v| v.1).collect();
                assert_eq!(objects.values(&f), o, "{s} {f} objects");
            }
        }
    }
}

/// The flat column of a `--text` report: name → value as printed.
fn flat_column(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter(|l| !l.starts_with("Total"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.first()?.parse::<f64>().ok()?;
            Some((f[5..].join(" "), f[0].to_string()))
        })
        .collect()
}

/// The `Total:` value of a `--text` report.
fn total_line(text: &str) -> i64 {
    let l = text.lines().next().unwrap();
    l.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() as i64
}

#[test]
fn each_change_is_what_base_reports() {
    // testdata/t-trend/refs: the last dump of each series against the first, by the
    // reference tools.
    let dir = scratch("base", &|n| n.to_string());
    let cases: &[(&str, usize, &str)] = &[
        ("hprof", 12, "google-pprof"),
        ("sample", 12, "google-pprof"),
        ("jemalloc", 12, "jeprof"),
        ("jemalloc", 15, "jeprof"),
    ];
    let modes: &[(&str, &[&str])] = &[
        ("base-bytes", &[]),
        ("base-inuse_objects", &["--inuse_objects"]),
        ("base-lines", &["--lines"]),
        ("base-alloc_space-bytes", &["--alloc_space"]),
    ];
    let mut checked = 0;
    for &(s, n, tool) in cases {
        let files: Vec<String> = series(s)[..n].to_vec();
        let last = &files[n - 1];
        for &(mode, flags) in modes {
            let reference = case()
                .join("refs")
                .join(last)
                .join(format!("{tool}.{mode}.out"));
            let want = std::fs::read_to_string(&reference)
                .unwrap_or_else(|e| panic!("{reference:?}: {e}"));
            let t = csv(&dir, flags, program(s), &files);
            let flat = flat_column(&want);
            // The reference --lines report is in MB, one decimal.
            let in_mb = mode == "base-lines";
            for r in &t.rows {
                let name = &r[0];
                let change = whole(&r[t.col("change")]);
                if name == "(total)" {
                    if !want.is_empty() && !in_mb {
                        assert_eq!(change, total_line(&want), "{s} {mode} total");
                    }
                    continue;
                }
                match flat.get(name) {
                    Some(v) if in_mb => {
                        assert_eq!(
                            &format!("{:.1}", change as f64 / 1048576.0),
                            v,
                            "{s} {mode} {name}"
                        );
                        checked += 1;
                    }
                    Some(v) => {
                        assert_eq!(change, v.parse::<i64>().unwrap(), "{s} {mode} {name}");
                        checked += 1;
                    }
                    // Not in the reference: no change there.
                    None => assert_eq!(change, 0, "{s} {mode} {name} is not in {reference:?}"),
                }
            }
        }
    }
    assert!(checked > 60, "only {checked} sites compared");
}

#[test]
fn each_change_is_what_rpprofs_own_base_reports_at_every_granularity() {
    // rpprof --text --show_bytes --base=<first> <last>, at each granularity, flat and
    // cumulative: the change of every site of the trend is that report's value for it.
    let dir = scratch("own-base", &|n| n.to_string());
    let mut checked = 0;
    for s in ["hprof", "jemalloc"] {
        let files = series(s);
        let base = format!("--base={}", files[0]);
        let last = files.last().unwrap();
        for flags in [
            &[][..],
            &["--lines"],
            &["--files"],
            &["--addresses"],
            &["--cum"],
            &["--inuse_objects", "--files"],
        ] {
            let mut args = vec!["--text", "--show_bytes", base.as_str()];
            args.extend_from_slice(flags);
            args.extend([program(s), last.as_str()]);
            let r = run(&dir, &args);
            assert_eq!(r.code, 0, "{args:?}: {}", r.err);
            // Name -> (flat, cum).
            let report: HashMap<String, (i64, i64)> = r
                .out
                .lines()
                .skip(1)
                .filter_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    let flat = f.first()?.parse::<f64>().ok()? as i64;
                    let cum = f.get(3)?.parse::<f64>().ok()? as i64;
                    Some((f[5..].join(" "), (flat, cum)))
                })
                .collect();
            assert!(report.len() >= 3, "{args:?}: {}", r.out);
            let t = csv(&dir, flags, program(s), &files);
            assert_eq!(
                t.get("(total)", "change").map(|c| whole(&c)),
                Some(total_line(&r.out))
            );
            let cum = flags.contains(&"--cum");
            for row in t.rows.iter().skip(1) {
                let change = whole(&row[t.col("change")]);
                let want = report
                    .get(&row[0])
                    .map_or(0, |&(flat, c)| if cum { c } else { flat });
                assert_eq!(change, want, "{s} {flags:?} {}", row[0]);
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "only {checked} sites compared");
}

#[test]
fn the_order_comes_from_the_names_whatever_the_arguments() {
    let dir = scratch("order", &|n| n.to_string());
    for s in ["hprof", "sample", "jemalloc"] {
        let files = series(s);
        let want = run_csv_text(&dir, program(s), &files);
        // Reversed, interleaved, and (jemalloc) sorted as strings: .10 before .2.
        let mut reversed = files.clone();
        reversed.reverse();
        let mut shuffled: Vec<String> = files.iter().step_by(2).cloned().collect();
        shuffled.extend(files.iter().skip(1).step_by(2).rev().cloned());
        let mut sorted = files.clone();
        sorted.sort();
        // Sorted as strings, jemalloc's names come out in the wrong order.
        assert_eq!(sorted != files, s == "jemalloc");
        for order in [reversed, shuffled, sorted] {
            assert_eq!(
                run_csv_text(&dir, program(s), &order),
                want,
                "{s} {order:?}"
            );
        }
    }
}

fn run_csv_text(dir: &Path, prog: &str, files: &[String]) -> String {
    let mut args = vec!["--trend", "--csv", prog];
    args.extend(files.iter().map(String::as_str));
    let r = run(dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(!r.err.contains("Note: --trend put"), "{}", r.err);
    r.out
}

#[test]
fn without_sequence_numbers_the_modification_times_order_the_series() {
    // The hprof dumps renamed so that their names carry no order (and sort wrongly).
    let letters = "qwertyuiopas";
    let rename = |n: &str| match n.strip_prefix("ttrend.hprof.") {
        Some(rest) => {
            let i: usize = rest[..4].parse().unwrap();
            format!("dump-{}.heap", &letters[i - 1..i])
        }
        None => n.to_string(),
    };
    let dir = scratch("mtime", &rename);
    let files: Vec<String> = series("hprof").iter().map(|n| rename(n)).collect();
    let mut sorted = files.clone();
    sorted.sort();
    let mut args = vec!["--trend", "--json", "./ttrend"];
    args.extend(sorted.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.err
            .contains("Note: --trend put the dumps in the order of their modification times"),
        "{}",
        r.err
    );
    let j: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(j["ordered_by"], "mtime");
    let order: Vec<&str> = j["dumps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(order, files);
    // Ten minutes apart: the times are known, the slopes are per hour.
    assert_eq!(j["times"], "mtime");
    assert_eq!(j["dumps"][6]["hours"], 1.0);
    let steady = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "steady_leak")
        .unwrap();
    // 24 × 4 KiB every 10 minutes.
    assert_eq!(steady["slope_per_hour"], 6.0 * 98304.0);
    assert_eq!(steady["class"], "growing");
}

#[test]
fn times_that_do_not_follow_the_series_are_not_used() {
    let dir = scratch("times", &|n| n.to_string());
    let files = series("hprof");
    // Copied in reverse: the names order the series, the times run backwards.
    for (i, f) in files.iter().enumerate() {
        set_mtime(&dir.join(f), 1_740_830_400 - 600 * i as u64);
    }
    let t = csv(&dir, &[], "./ttrend", &files);
    assert_eq!(t.get("steady_leak", "slope_per_hour").as_deref(), Some(""));
    assert_eq!(
        t.get("steady_leak", "slope_per_dump").as_deref(),
        Some("98304.0")
    );
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert!(
        r.out
            .contains("Times: unknown, slopes per dump: the modification times do not increase"),
        "{}",
        r.out
    );
}

#[test]
fn text_report() {
    let dir = scratch("text", &|n| n.to_string());
    let mut args = vec!["--trend", "./ttrend"];
    let files = series("hprof");
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines[0], "Trend of 12 dumps of ./ttrend: in-use memory, MB");
    assert!(lines[1].starts_with("Order: the sequence numbers of their names"));
    assert_eq!(
        lines[2],
        "Times: modification times, 2025-03-01 12:00:00 to 2025-03-01 13:50:00 UTC (1 h 50 min); slopes per hour"
    );
    let row = |name: &str| {
        lines
            .iter()
            .find(|l| l.ends_with(&format!("  {name}")))
            .unwrap_or_else(|| panic!("no row {name} in\n{}", r.out))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // first, last, change, slope/h, tau, class, sparkline, name.
    assert_eq!(
        row("steady_leak"),
        [
            "0.1",
            "1.1",
            "+1.0",
            "+0.56",
            "+1.00",
            "growing",
            "▁▂▂▃▄▄▅▆▆▇██",
            "steady_leak"
        ]
    );
    assert_eq!(row("release_buffer")[5], "shrinking");
    assert_eq!(row("late_leak")[6], "▂▃▄▆▇█");
    // The total first, then by growth.
    let names: Vec<&str> = lines
        .iter()
        .skip_while(|l| !l.starts_with("first"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| *l.split_whitespace().collect::<Vec<_>>().last().unwrap())
        .collect();
    assert_eq!(
        names[..4],
        ["(total)", "steady_leak", "cache_fill", "late_leak"]
    );
    assert_eq!(names.last(), Some(&"release_buffer"));
    // The readers' notes are said once for the series.
    let sample = series("sample");
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(sample.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.err.matches("Heap version 2").count(), 1, "{}", r.err);
}

/// A sampled series' estimates keep their fractions in the CSV: each row's change is its
/// last value less its first, as printed.
#[test]
fn sampled_estimates_keep_their_fractions() {
    let dir = scratch("fractions", &|n| n.to_string());
    let files = series("sample");
    let t = csv(&dir, &["--inuse_objects"], "./ttrend", &files);
    let real = |v: &str| v.parse::<f64>().unwrap();
    let mut fractions = 0;
    for r in &t.rows {
        let (first, last, change) = (real(&r[2]), real(&r[3]), real(&r[4]));
        assert_eq!(last - first, change, "{r:?}");
        fractions += r[2..5].iter().filter(|v| v.contains('.')).count();
    }
    assert!(fractions > 0, "{:?}", t.rows);
}

#[test]
fn csv_shape() {
    let dir = scratch("csv", &|n| n.to_string());
    let files = series("jemalloc");
    let t = csv(&dir, &[], "./ttrend-je", &files);
    assert_eq!(
        t.head[..14],
        [
            "name",
            "class",
            "first",
            "last",
            "change",
            "min",
            "max",
            "slope_per_dump",
            "slope_per_hour",
            "mk_s",
            "mk_z",
            "mk_p",
            "tau",
            "flat_since"
        ]
    );
    assert_eq!(t.head[14..], files[..]);
    let classes = [
        "growing",
        "saturating",
        "shrinking",
        "steady",
        "new",
        "gone",
    ];
    for r in &t.rows {
        assert!(classes.contains(&r[1].as_str()), "{r:?}");
        let first = whole(&r[2]);
        let last = whole(&r[3]);
        let values = t.values(&r[0]);
        assert_eq!((values[0], *values.last().unwrap()), (first, last));
    }
    // Names with commas or quotes are quoted (whole stacks name many frames).
    let s = csv(&dir, &["--stacks"], "./ttrend-je", &files);
    let leak = s
        .rows
        .iter()
        .find(|r| r[0].starts_with("steady_leak < run_tick < "))
        .expect("the steady_leak stack");
    assert_eq!(leak[1], "growing");
}

#[test]
fn json_shape() {
    let dir = scratch("json", &|n| n.to_string());
    let files = series("sample");
    let mut args = vec!["--trend", "--json", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let j: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(j["program"], "./ttrend");
    assert_eq!(j["value"], "inuse_space");
    assert_eq!(j["unit"], "bytes");
    assert_eq!(j["granularity"], "functions");
    assert_eq!(j["ordered_by"], "gperftools");
    assert!(j["order_note"].is_null());
    let dumps = j["dumps"].as_array().unwrap();
    assert_eq!(dumps.len(), 12);
    assert_eq!(dumps[0]["file"], "ttrend.sample.0001.heap");
    assert_eq!(dumps[11]["sequence"], 12);
    assert_eq!(dumps[0]["mtime"], 1_740_830_400.0);
    assert_eq!(j["total"]["name"], "(total)");
    let rows = j["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for row in rows.iter().chain([&j["total"]]) {
        for key in [
            "name",
            "class",
            "first",
            "last",
            "change",
            "min",
            "max",
            "slope_per_dump",
            "slope_per_hour",
            "mann_kendall",
            "flat_since",
            "values",
        ] {
            assert!(row.get(key).is_some(), "{key} missing from {row}");
        }
        assert_eq!(row["values"].as_array().unwrap().len(), 12);
        let p = row["mann_kendall"]["p"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p));
    }
    let by_name = |n: &str| rows.iter().find(|r| r["name"] == n).unwrap();
    assert_eq!(by_name("release_buffer")["mann_kendall"]["s"], -66);
    assert_eq!(by_name("release_buffer")["mann_kendall"]["tau"], -1.0);
    assert_eq!(by_name("cache_fill")["flat_since"], 4);
    assert_eq!(by_name("jitter_pool")["mann_kendall"]["s"], 11);
    assert_eq!(j["omitted"], 0);
}

#[test]
fn svg_chart() {
    let dir = scratch("svg", &|n| n.to_string());
    let files = series("hprof");
    let mut args = vec!["--trend", "--svg", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let mut reader = quick_xml::Reader::from_str(&r.out);
    let (mut lines, mut points) = (0, 0);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Empty(e)) if e.name().as_ref() == b"polyline" => {
                lines += 1
            }
            Ok(quick_xml::events::Event::Start(e)) if e.name().as_ref() == b"circle" => points += 1,
            Ok(_) => {}
            Err(e) => panic!("not XML: {e}"),
        }
    }
    // The total and the seven sites, a point per dump each.
    assert_eq!(lines, 8);
    assert_eq!(points, 8 * 12);
    assert!(r.out.contains("steady_leak (growing, +1.0 MB)"));
}

#[test]
fn focus_ignore_nodecount_and_granularity() {
    let dir = scratch("filters", &|n| n.to_string());
    let files = series("hprof");
    let names = |flags: &[&str]| -> Vec<String> {
        csv(&dir, flags, "./ttrend", &files)
            .rows
            .iter()
            .skip(1)
            .map(|r| r[0].clone())
            .collect()
    };
    assert_eq!(names(&["--focus=_leak"]), ["steady_leak", "late_leak"]);
    let ignored = names(&["--ignore=_leak|scratch"]);
    assert!(ignored.contains(&"cache_fill".to_string()));
    assert!(
        !ignored
            .iter()
            .any(|n| n.contains("leak") || n.contains("scratch"))
    );
    // (--nodecount leaves the CSV whole: see nodecount_limits_the_rows_shown_not_...)
    let json = run(&dir, &{
        let mut a = vec!["--trend", "--json", "--nodecount=2", "./ttrend"];
        a.extend(files.iter().map(String::as_str));
        a
    });
    assert!(json.out.contains("\"omitted\": 5\n"), "{}", json.out);
    let lines = names(&["--lines"]);
    assert!(
        lines.contains(&"steady_leak /tmp/rpprof-corpus/t-trend/ttrend.cc:65".to_string()),
        "{lines:?}"
    );
    let r = run(&dir, &{
        let mut a = vec!["--trend", "--nodecount=2", "./ttrend"];
        a.extend(files.iter().map(String::as_str));
        a
    });
    assert!(
        r.out
            .contains("... and 5 more (--nodecount=7 shows them all)"),
        "{}",
        r.out
    );
    // Allocated space: the cache and the jitter pool kept allocating.
    let alloc = csv(&dir, &["--alloc_space"], "./ttrend", &files);
    assert_eq!(
        alloc.get("jitter_pool", "class").as_deref(),
        Some("growing")
    );
    assert_eq!(
        alloc.get("release_buffer", "class").as_deref(),
        Some("steady")
    );
}

#[test]
fn growth_profiles_and_a_short_series() {
    let dir = scratch("growth", &|n| n.to_string());
    let theap = common::root().join("testdata").join("t-heap");
    std::fs::copy(theap.join("theap"), dir.join("theap")).unwrap();
    // Three copies of one growth profile: nothing changes.
    for i in 1..=3 {
        std::fs::copy(
            theap.join("theap.growth"),
            dir.join(format!("g.{i:04}.heap")),
        )
        .unwrap();
    }
    let r = run(
        &dir,
        &[
            "--trend",
            "--csv",
            "./theap",
            "g.0003.heap",
            "g.0001.heap",
            "g.0002.heap",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    let t = Csv::parse(&r.out);
    assert!(t.rows.len() > 1);
    for row in &t.rows {
        assert_eq!(row[1], "steady", "{row:?}");
    }
    // theap's own three dumps: the shortest series.
    for i in 1..=3 {
        let n = format!("theap.hprof.{i:04}.heap");
        std::fs::copy(theap.join(&n), dir.join(&n)).unwrap();
    }
    let r = run(
        &dir,
        &[
            "--trend",
            "./theap",
            "theap.hprof.0001.heap",
            "theap.hprof.0002.heap",
            "theap.hprof.0003.heap",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.starts_with("Trend of 3 dumps of ./theap"),
        "{}",
        r.out
    );
}

#[test]
fn bad_input_is_refused_naming_the_file() {
    let dir = scratch("bad", &|n| n.to_string());
    let theap = common::root().join("testdata").join("t-heap");
    std::fs::copy(
        theap.join("theap.hprof.0002.heap"),
        dir.join("theap.hprof.0002.heap"),
    )
    .unwrap();
    let tcpu = common::root().join("testdata").join("t-cpu");
    std::fs::copy(tcpu.join("tcpu-pie.prof"), dir.join("tcpu-pie.prof")).unwrap();
    let files = series("hprof");
    let refuse = |args: &[&str], want: &[&str]| {
        let r = run(&dir, args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.err);
        assert!(r.out.is_empty(), "{args:?} printed {}", r.out);
        for w in want {
            assert!(r.err.contains(w), "{args:?}: {w:?} not in {}", r.err);
        }
    };
    // Two dumps.
    refuse(
        &["--trend", "./ttrend", &files[0], &files[1]],
        &[
            "--trend needs a series of at least three dumps (2 given)",
            "--base",
        ],
    );
    // A dump of another program.
    refuse(
        &[
            "--trend",
            "./ttrend",
            &files[0],
            "theap.hprof.0002.heap",
            &files[2],
        ],
        &[
            "rpprof: theap.hprof.0002.heap: a dump of /tmp/rpprof-corpus/t-heap/theap, not of /tmp/rpprof-corpus/t-trend/ttrend",
        ],
    );
    // A dump of another run of the program (the sampled series').
    refuse(
        &[
            "--trend",
            "./ttrend",
            &files[0],
            "ttrend.sample.0005.heap",
            &files[2],
        ],
        &[
            "rpprof: ttrend.sample.0005.heap: /tmp/rpprof-corpus/t-trend/ttrend is mapped at",
            "another run",
        ],
    );
    // Another kind.
    refuse(
        &["--trend", "./ttrend", &files[0], "tcpu-pie.prof", &files[2]],
        &[
            "rpprof: cannot follow a cpu profile (samples, tcpu-pie.prof) in a series with a heap profile",
            "sample types differ",
        ],
    );
    refuse(
        &[
            "--trend",
            "./ttrend",
            "tcpu-pie.prof",
            "tcpu-pie.prof",
            "tcpu-pie.prof",
        ],
        &["rpprof: tcpu-pie.prof: --trend follows heap dumps"],
    );
    // jemalloc and tcmalloc dumps.
    refuse(
        &["--trend", &files[0], &files[1], "ttrend-je.1386.5.i5.heap"],
        &["ttrend-je.1386.5.i5.heap"],
    );
    // One file twice.
    let again = format!("./{}", files[1]);
    refuse(
        &["--trend", "./ttrend", &files[0], &files[1], &again],
        &[&format!(
            "rpprof: ./{}: given twice in the series (as {} too)",
            files[1], files[1]
        )],
    );
    // Options that do not go with --trend.
    let base = format!("--base={}", files[0]);
    refuse(
        &[
            "--trend", &base, "./ttrend", &files[1], &files[2], &files[3],
        ],
        &["--trend takes no --base"],
    );
    refuse(
        &["--csv", "./ttrend", &files[0]],
        &["--csv and --json are formats of --trend"],
    );
    refuse(
        &[
            "--trend", "--dot", "./ttrend", &files[0], &files[1], &files[2],
        ],
        &["Only specify one output mode"],
    );
    refuse(
        &[
            "--trend", "--csv", "--json", "./ttrend", &files[0], &files[1], &files[2],
        ],
        &["Only specify one format for --trend"],
    );
}

#[test]
fn the_library_trend_and_the_diff_view_agree() {
    use rpprof::report::{Mode, TrendFormat};
    use rpprof::session::{LoadOptions, Session};
    use rpprof::view::View;

    let dir = scratch("library", &|n| n.to_string());
    let files = series("jemalloc");
    let mut args = vec![dir.join("ttrend-je").to_string_lossy().into_owned()];
    // The series in reverse: the trend orders it itself.
    args.extend(
        files
            .iter()
            .rev()
            .map(|f| dir.join(f).to_string_lossy().into_owned()),
    );
    let opts = LoadOptions {
        args,
        ..Default::default()
    };
    let mut session = Session::load(&opts, &mut Vec::new()).unwrap();
    session.cache_views = true;
    let view = View {
        mode: Mode::Trend(TrendFormat::Text),
        show_bytes: true,
        ..Default::default()
    };
    let mut notes = Vec::new();
    let t = view.trend(&session, &mut notes).unwrap();
    assert_eq!(t.dumps.len(), 15);
    assert_eq!(t.dumps[0].name(), files[0]);
    assert_eq!(t.first_profile(), Some(15 - 1));
    assert_eq!(t.last_profile(), Some(0));
    let by_name: HashMap<&str, &rpprof::trend::Row> =
        t.rows.iter().map(|r| (r.name.as_str(), r)).collect();
    assert_eq!(
        by_name["steady_leak"].stats.class,
        rpprof::trend::Class::Growing
    );
    // Every site's change, system libraries' too, is what the view of the last dump against
    // the first (the web UI's diff) reports for it.
    let mut diff = t.last_against_first(&view);
    diff.mode = Mode::Text;
    let mut out = Vec::new();
    diff.render(&session, &mut out, &mut Vec::new()).unwrap();
    let flat = flat_column(&String::from_utf8(out).unwrap());
    for r in &t.rows {
        let want: i64 = flat.get(r.name.as_str()).map_or(0, |v| v.parse().unwrap());
        assert_eq!(r.stats.change as i64, want, "{}", r.name);
    }
    // Again from the cache the session keeps: the same.
    let again = view.trend(&session, &mut Vec::new()).unwrap();
    assert_eq!(again.rows, t.rows);
}

/// `--nodecount` limits the rows of the table, not what it counts: the Sites line counts
/// every site's class; a CSV file has every site whatever `--nodecount` says.
#[test]
fn nodecount_limits_the_rows_shown_not_the_counts_nor_the_csv() {
    let dir = scratch("nodecount", &|n| n.to_string());
    let files = series("hprof");
    let mut args = vec!["--trend", "--nodecount=2", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let sites = r
        .out
        .lines()
        .find(|l| l.starts_with("Sites:"))
        .unwrap_or("");
    assert_eq!(
        sites,
        "Sites: 7 functions, the 2 that grew most shown; 1 growing, 1 new, 1 saturating, 2 steady, 1 shrinking, 1 gone",
        "{}",
        r.out
    );
    // One shown, none shown, one site: said in words.
    for (flags, want) in [
        (
            &["--nodecount=1"][..],
            "Sites: 7 functions, the one that grew most shown;",
        ),
        (&["--nodecount=0"][..], "Sites: 7 functions, none shown;"),
        (
            &["--focus=steady_leak", "--lines"][..],
            "Sites: 1 source line; 1 growing",
        ),
    ] {
        let mut args = vec!["--trend"];
        args.extend(flags);
        args.push("./ttrend");
        args.extend(files.iter().map(String::as_str));
        let r = run(&dir, &args);
        assert_eq!(r.code, 0, "{}", r.err);
        assert!(r.out.contains(want), "{flags:?}: {}", r.out);
    }
    let all = csv(&dir, &[], "./ttrend", &files);
    let cut = csv(&dir, &["--nodecount=2"], "./ttrend", &files);
    assert_eq!(cut.rows.len(), all.rows.len());
    assert_eq!(all.rows.len(), 8, "the total and 7 sites");
}

/// Cuts `ttrend.hprof.0012.heap` in `dir` at byte 300, in its second record, as the
/// process writing it leaves it, keeping its modification time.
fn cut_last_dump(dir: &Path) {
    let last = dir.join("ttrend.hprof.0012.heap");
    let whole = std::fs::read(&last).unwrap();
    std::fs::write(&last, &whole[..300]).unwrap();
    set_mtime(&last, mtimes()["ttrend.hprof.0012.heap"]);
}

/// The trend of the hprof series of which the last dump, ttrend.hprof.0012.heap, is left
/// out for `why`: eleven dumps, the leak still growing.
fn last_left_out(r: &Run, why: &str) {
    assert_eq!(r.code, 0, "{why}: {}", r.err);
    assert!(r.out.starts_with("Trend of 11 dumps"), "{why}: {}", r.out);
    assert!(
        r.out
            .contains(&format!("\nLeft out: ttrend.hprof.0012.heap ({why})\n")),
        "{}",
        r.out
    );
    let steady = r
        .out
        .lines()
        .find(|l| l.ends_with("  steady_leak"))
        .unwrap_or("");
    assert!(steady.contains(" growing "), "{why}: {}", r.out);
}

/// A dump cut short (the newest, being written as the series is read) is left out and said:
/// read, its lost records would make the leak look gone.
#[test]
fn a_dump_cut_short_is_left_out() {
    let dir = scratch("cut", &|n| n.to_string());
    cut_last_dump(&dir);
    let files = series("hprof");
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    last_left_out(&r, "cut short at byte 300");
    args.insert(1, "--json");
    let j = run(&dir, &args);
    assert!(
        j.out
            .contains("\"left_out\": [{\"path\": \"ttrend.hprof.0012.heap\", \"cut_at\": 300, \"why\": \"cut short at byte 300\"}],"),
        "{}",
        j.out
    );
    // With fewer than three whole dumps left, the refusal says why.
    let r = run(
        &dir,
        &[
            "--trend",
            "./ttrend",
            "ttrend.hprof.0001.heap",
            "ttrend.hprof.0002.heap",
            "ttrend.hprof.0012.heap",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(
        r.err.contains(
            "(3 given, 1 of them left out (ttrend.hprof.0012.heap: cut short at byte 300))"
        ),
        "{}",
        r.err
    );
}

/// A dump without a single record after one with records is left out and said: read,
/// every site would look gone in it (nothing was recorded: a later dump of the same process
/// holds at least the totals of the earlier ones). A first dump without one is real (taken
/// before the first sampled allocation): kept.
#[test]
fn a_dump_without_samples_is_left_out() {
    let dir = scratch("no-samples", &|n| n.to_string());
    let empty = |name: &str| {
        let path = dir.join(name);
        let whole = std::fs::read_to_string(&path).unwrap();
        let maps = &whole[whole.find("\nMAPPED_LIBRARIES:").unwrap() + 1..];
        std::fs::write(
            &path,
            format!("heap profile:      0:        0 [     0:        0] @ heapprofile\n\n{maps}"),
        )
        .unwrap();
        set_mtime(&path, mtimes()[name]);
    };
    empty("ttrend.hprof.0012.heap");
    let files = series("hprof");
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    last_left_out(&r, "no samples, after a dump with some");
    empty("ttrend.hprof.0001.heap");
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.starts_with("Trend of 11 dumps"), "{}", r.out);
    assert!(
        r.out
            .contains("\nLeft out: ttrend.hprof.0012.heap (no samples, after a dump with some)\n"),
        "{}",
        r.out
    );
    assert!(r.out.contains("ttrend.hprof.0001.heap ..."), "{}", r.out);
}

/// A dump kept beside itself compressed (log rotation) is one dump: counted once, and the
/// names still order the series.
#[test]
fn a_dump_beside_its_compressed_copy_counts_once() {
    use std::io::Write;
    let dir = scratch("twins", &|n| n.to_string());
    let name = "ttrend.hprof.0003.heap";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&std::fs::read(dir.join(name)).unwrap())
        .unwrap();
    let gz_name = format!("{name}.gz");
    std::fs::write(dir.join(&gz_name), gz.finish().unwrap()).unwrap();
    let mut files = series("hprof");
    files.push(gz_name);
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.err
            .contains("Note: ttrend.hprof.0003.heap.gz holds the same dump as ttrend.hprof.0003.heap: counted once"),
        "{}",
        r.err
    );
    assert!(r.out.starts_with("Trend of 12 dumps"), "{}", r.out);
    assert!(
        r.out
            .contains("\nOrder: the sequence numbers of their names"),
        "{}",
        r.out
    );
}

/// The newest dump of a series as its writer leaves it on the way: empty, cut in its first
/// line, cut at the end of a record line (no memory map yet). Each is left out and said, and
/// the leak still reads as growing; none stops the trend.
#[test]
fn an_unfinished_dump_is_left_out_however_it_was_cut() {
    let dir = scratch("unfinished", &|n| n.to_string());
    let last = dir.join("ttrend.hprof.0012.heap");
    let whole = std::fs::read(&last).unwrap();
    // The end of the third line: the header and two whole records, no map.
    let third = common::first_lines(&whole, 3).len();
    let files = series("hprof");
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    for (cut, why) in [
        (0, "empty".to_string()),
        (20, "cut short at byte 20, in its first line".to_string()),
        (
            third,
            "no memory map, which the other dumps end with: cut short".to_string(),
        ),
    ] {
        std::fs::write(&last, &whole[..cut]).unwrap();
        set_mtime(&last, mtimes()["ttrend.hprof.0012.heap"]);
        last_left_out(&run(&dir, &args), &why);
    }
    // Alone, an empty file is an error as before.
    std::fs::write(&last, b"").unwrap();
    let r = run(&dir, &["--text", "./ttrend", "ttrend.hprof.0012.heap"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert!(r.err.contains("empty file"), "{}", r.err);
}

/// A library the first dump's memory map lacks (loaded after it was written) is named from
/// a later dump's map: the series does not print its sites as addresses.
#[test]
fn a_library_missing_from_the_first_map_is_named_from_a_later_one() {
    // (The site is in libc: named only where it is the libc the dumps were written with.)
    if let Some(why) = common::system_libraries_differ() {
        common::skip(
            "a_library_missing_from_the_first_map_is_named_from_a_later_one",
            &why,
        );
        return;
    }
    let dir = scratch("later-map", &|n| n.to_string());
    let first = dir.join("ttrend.hprof.0001.heap");
    let text = std::fs::read_to_string(&first).unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.contains("libc.so"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(without.len() < text.len());
    std::fs::write(&first, without).unwrap();
    set_mtime(&first, mtimes()["ttrend.hprof.0001.heap"]);
    let files = series("hprof");
    let mut args = vec!["--trend", "./ttrend"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&dir, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    // (__GI__IO_file_doallocate with libc6-dbg, _IO_file_doallocate without.)
    assert!(r.out.contains("_IO_file_doallocate\n"), "{}", r.out);
    assert!(!r.out.contains("  0x0000"), "{}", r.out);
}

/// `--base` and `--thread` are refused before the dumps are read (not after naming every
/// address of a long series).
#[test]
fn base_and_thread_are_refused_before_reading() {
    let dir = scratch("refused-early", &|n| n.to_string());
    for (flag, says) in [
        ("--thread=1", "--thread does not go with --trend"),
        ("--base=nope.heap", "--trend takes no --base"),
    ] {
        let r = run(
            &dir,
            &["--trend", flag, "./ttrend", "a.heap", "b.heap", "c.heap"],
        );
        assert_eq!(r.code, 1, "{flag}: {}", r.err);
        assert!(r.err.contains(says), "{flag}: {}", r.err);
        assert!(r.out.is_empty());
    }
}

/// Without a program argument, the program comes from the first map that names one (the
/// first dump, cut short, has none); --list places addresses with every dump's map, as the
/// names were found.
#[test]
fn the_program_and_list_use_every_dumps_map() {
    // The dumps' maps name the program where it was built.
    common::link_case("t-trend");
    let dir = scratch("every-map", &|n| n.to_string());
    cut_last_dump(&dir);
    let r = run(
        &dir,
        &["--text", "ttrend.hprof.0012.heap", "ttrend.hprof.0002.heap"],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains(" cache_fill\n"), "{}\n{}", r.out, r.err);
    assert!(!r.err.contains("no program given"), "{}", r.err);
    let r = run(
        &dir,
        &[
            "--list=cache_fill",
            "./ttrend",
            "ttrend.hprof.0012.heap",
            "ttrend.hprof.0002.heap",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out
            .starts_with("ROUTINE ====================== cache_fill"),
        "{}\n{}",
        r.out,
        r.err
    );
}
