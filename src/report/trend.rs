//! `--trend`: the leak trend of a series of dumps ([`crate::trend::Trend`]) as a table with
//! a sparkline per site, as CSV, as JSON, or as an SVG chart drawn here.

use std::io::{self, Write};

use crate::graph::Granularity;
use crate::report::TrendFormat;
use crate::trend::{Row, Trend};
use crate::units::{Measure, perl_int};

/// Writes `t` in `format`.
pub fn write(out: &mut dyn Write, t: &Trend, format: TrendFormat) -> io::Result<()> {
    match format {
        TrendFormat::Text => write_text(out, t),
        TrendFormat::Csv => write_csv(out, t),
        TrendFormat::Json => write_json(out, t),
        TrendFormat::Svg => write_svg(out, t),
    }
}

/// What the value column measures, in words.
fn value_words(t: &Trend) -> &'static str {
    match t.value {
        "inuse_space" => "in-use memory",
        "inuse_objects" => "in-use objects",
        "alloc_space" => "allocated memory",
        "alloc_objects" => "allocated objects",
        _ => "value",
    }
}

/// What a site is, in words (plural).
fn site_words(t: &Trend) -> &'static str {
    if t.stacks {
        return "stacks";
    }
    match (t.granularity, t.cum) {
        (Granularity::Functions, false) => "functions",
        (Granularity::Functions, true) => "functions (cumulative)",
        (Granularity::Lines, false) => "source lines",
        (Granularity::Lines, true) => "source lines (cumulative)",
        (Granularity::Files, false) => "files",
        (Granularity::Files, true) => "files (cumulative)",
        (Granularity::Addresses, false) => "addresses",
        (Granularity::Addresses, true) => "addresses (cumulative)",
    }
}

/// The singular of [`site_words`]' plural (`source lines`: `source line`).
fn singular(words: &str) -> String {
    match words.strip_suffix("addresses") {
        Some(head) => format!("{head}address"),
        None => words.strip_suffix('s').unwrap_or(words).to_string(),
    }
}

/// The blocks of a sparkline, lowest first.
const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The widest sparkline: longer series are averaged in buckets.
const SPARK_WIDTH: usize = 60;

/// `values` as a sparkline scaled from 0 to their largest: a block per dump (per bucket of
/// dumps when there are more than [`SPARK_WIDTH`]), blank where the value is 0 or less.
pub fn sparkline(values: &[f64]) -> String {
    let n = values.len();
    let width = n.min(SPARK_WIDTH);
    let buckets: Vec<f64> = (0..width)
        .map(|b| {
            let (lo, hi) = (b * n / width, ((b + 1) * n / width).max(b * n / width + 1));
            values[lo..hi].iter().sum::<f64>() / (hi - lo) as f64
        })
        .collect();
    let max = buckets.iter().copied().fold(0.0f64, f64::max);
    buckets
        .iter()
        .map(|&v| {
            if v <= 0.0 || max <= 0.0 {
                ' '
            } else {
                let level = ((v / max) * 8.0).ceil().clamp(1.0, 8.0) as usize;
                BLOCKS[level - 1]
            }
        })
        .collect()
}

/// `v` as `--text` prints it, with a `+` when positive.
pub fn signed(m: Measure, v: f64) -> String {
    let s = m.unparse(v);
    if v > 0.0 { format!("+{s}") } else { s }
}

/// A slope as the table prints it: in `--text`'s units, with two more digits for
/// megabytes (a slope is small beside the values it comes from), signed.
fn slope_text(m: Measure, v: f64) -> String {
    match m {
        Measure::Bytes { show_bytes: false } => format!("{:+.2}", v / 1_048_576.0),
        Measure::Bytes { show_bytes: true } => format!("{v:+.0}"),
        Measure::Nanoseconds => format!("{:+.3}", v / 1e9),
        _ => format!("{v:+.1}"),
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Seconds since the epoch as `2025-03-01 12:00:00`, UTC.
pub fn utc(secs: f64) -> String {
    let s = secs.floor() as i64;
    let (y, mo, d) = civil(s.div_euclid(86_400));
    let t = s.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02}",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// A length of time in words: `1 h 50 min`, `3 d 4 h`, `45 s`.
fn duration(secs: f64) -> String {
    let s = secs.round() as i64;
    let (d, h, m, sec) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    if d > 0 {
        format!("{d} d {h} h")
    } else if h > 0 {
        format!("{h} h {m} min")
    } else if m > 0 {
        format!("{m} min {sec} s")
    } else {
        format!("{sec} s")
    }
}

/// The lines that say what the series is (text and SVG).
fn header_lines(t: &Trend) -> Vec<String> {
    let n = t.dumps.len();
    let name = |i: usize| t.dumps.get(i).map(|d| d.name()).unwrap_or_default();
    let mut v = vec![format!(
        "Trend of {n} dumps of {}: {}, {}",
        t.program,
        value_words(t),
        t.measure.units()
    )];
    v.push(format!(
        "Order: {}, {} ... {}",
        t.ordered_by.describe(),
        name(0),
        name(n.saturating_sub(1))
    ));
    match (&t.hours, t.dumps.first().and_then(|d| d.mtime)) {
        (Ok(h), Some(start)) => {
            let span = h.last().copied().unwrap_or(0.0) * 3600.0;
            v.push(format!(
                "Times: modification times, {} to {} UTC ({}); slopes per hour",
                utc(start),
                utc(start + span),
                duration(span)
            ));
        }
        (Err(why), _) => v.push(format!("Times: unknown, slopes per dump: {why}")),
        _ => v.push("Times: unknown; slopes per dump".to_string()),
    }
    if let Some(cut) = t.left_out_words() {
        v.push(format!("Left out: {cut}"));
    }
    v
}

/// `--trend`: a table, one row per site (the total first), with a sparkline of its series.
fn write_text(out: &mut dyn Write, t: &Trend) -> io::Result<()> {
    for l in header_lines(t) {
        writeln!(out, "{l}")?;
    }
    let counts: Vec<String> = t
        .class_counts()
        .iter()
        .map(|(c, n)| format!("{n} {}", c.name()))
        .collect();
    let shown = t.rows.len();
    let shown_words = match (t.omitted, shown) {
        (0, _) => String::new(),
        (_, 0) => ", none shown".to_string(),
        (_, 1) => ", the one that grew most shown".to_string(),
        _ => format!(", the {shown} that grew most shown"),
    };
    let sites = shown + t.omitted;
    // "1 function", "1 source line (cumulative)".
    let words = site_words(t);
    let words = match (sites, words.split_once(" (")) {
        (1, Some((head, tail))) => format!("{} ({tail}", singular(head)),
        (1, None) => singular(words),
        _ => words.to_string(),
    };
    writeln!(
        out,
        "Sites: {sites} {words}{shown_words}{}{}",
        if counts.is_empty() { "" } else { "; " },
        counts.join(", ")
    )?;
    writeln!(out)?;
    let m = t.measure;
    let per_hour = t.hours().is_some();
    let slope = |r: &Row| {
        if per_hour {
            r.stats.slope_per_hour.unwrap_or(0.0)
        } else {
            r.stats.slope
        }
    };
    let all: Vec<&Row> = std::iter::once(&t.total).chain(t.rows.iter()).collect();
    let cells: Vec<[String; 7]> = all
        .iter()
        .map(|r| {
            [
                m.unparse(r.stats.first),
                m.unparse(r.stats.last),
                signed(m, r.stats.change),
                slope_text(m, slope(r)),
                format!("{:+.2}", r.stats.mk.tau),
                r.stats.class.name().to_string(),
                sparkline(&r.values),
            ]
        })
        .collect();
    let heads = [
        "first",
        "last",
        "change",
        if per_hour { "slope/h" } else { "slope/dump" },
        "tau",
        "class",
        "series",
    ];
    let mut widths: [usize; 7] = heads.map(|h| h.chars().count());
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c.iter()) {
            *w = (*w).max(s.chars().count());
        }
    }
    let mut line = String::new();
    let mut row = |cells: [&str; 7], name: &str, out: &mut dyn Write| -> io::Result<()> {
        line.clear();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            let pad = w - c.chars().count();
            if i < 5 {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                line.extend(std::iter::repeat_n(' ', pad));
            }
            line.push_str("  ");
        }
        line.push_str(name);
        writeln!(out, "{}", line.trim_end())
    };
    row(heads, "site", out)?;
    for (r, c) in all.iter().zip(&cells) {
        row(
            [&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6]],
            &r.name,
            out,
        )?;
    }
    if t.omitted > 0 {
        writeln!(
            out,
            "... and {} more (--nodecount={} shows them all)",
            t.omitted,
            shown + t.omitted
        )?;
    }
    writeln!(out)?;
    let (first, last) = (
        t.dumps.first().map(|d| d.name()).unwrap_or_default(),
        t.dumps.last().map(|d| d.name()).unwrap_or_default(),
    );
    writeln!(
        out,
        "change: last - first, as --base={first} {last} reports it; slope: Theil-Sen; tau: Mann-Kendall (Kendall's tau, -1..1)"
    )?;
    writeln!(
        out,
        "class: growing/shrinking = a significant Mann-Kendall trend (p < 0.05), or a rise/fall at every dump; saturating = grew, then flat; new = absent from the first dump; gone = absent from the last"
    )
}

/// A CSV field, quoted when it must be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A value in raw units (bytes or objects): a whole number as `--text --show_bytes` prints
/// it, an estimate with its fraction.
fn raw(v: f64) -> String {
    // A sampled profile's estimates keep their fractions (`--text` truncates them): the
    // change and the statistics are worked out on them, and add up with them.
    if v.is_finite() && v.fract() != 0.0 {
        format!("{v}")
    } else {
        perl_int(v)
    }
}

/// A statistic with `decimals` decimals.
fn real(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        String::new()
    }
}

/// `--trend --csv`: a header row, then the total and the sites; values in raw units (bytes
/// or objects), one column per dump.
fn write_csv(out: &mut dyn Write, t: &Trend) -> io::Result<()> {
    let mut head: Vec<String> = [
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
        "flat_since",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    head.extend(t.dumps.iter().map(|d| csv_field(&d.name())));
    writeln!(out, "{}", head.join(","))?;
    for r in std::iter::once(&t.total).chain(t.rows.iter()) {
        let s = &r.stats;
        let mut f = vec![
            csv_field(&r.name),
            s.class.name().to_string(),
            raw(s.first),
            raw(s.last),
            raw(s.change),
            raw(s.min),
            raw(s.max),
            real(s.slope, 1),
            s.slope_per_hour.map(|v| real(v, 1)).unwrap_or_default(),
            s.mk.s.to_string(),
            real(s.mk.z, 3),
            format!("{:.3e}", s.mk.p),
            real(s.mk.tau, 3),
            s.flat_since
                .map(|k| (k + 1).to_string())
                .unwrap_or_default(),
        ];
        f.extend(r.values.iter().map(|&v| raw(v)));
        writeln!(out, "{}", f.join(","))?;
    }
    Ok(())
}

/// A JSON string.
fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON number (`null` for what JSON cannot hold).
fn json_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".to_string()
    }
}

fn json_opt(v: Option<String>) -> String {
    v.unwrap_or_else(|| "null".to_string())
}

fn json_row(r: &Row) -> String {
    let s = &r.stats;
    let values: Vec<String> = r.values.iter().map(|&v| raw(v)).collect();
    format!(
        "{{\"name\": {}, \"class\": {}, \"first\": {}, \"last\": {}, \"change\": {}, \"min\": {}, \"max\": {}, \"slope_per_dump\": {}, \"slope_per_hour\": {}, \"mann_kendall\": {{\"s\": {}, \"z\": {}, \"p\": {}, \"tau\": {}}}, \"flat_since\": {}, \"values\": [{}]}}",
        json_str(&r.name),
        json_str(s.class.name()),
        raw(s.first),
        raw(s.last),
        raw(s.change),
        raw(s.min),
        raw(s.max),
        json_num(s.slope),
        json_opt(s.slope_per_hour.map(json_num)),
        s.mk.s,
        json_num(s.mk.z),
        json_num(s.mk.p),
        json_num(s.mk.tau),
        json_opt(s.flat_since.map(|k| (k + 1).to_string())),
        values.join(", ")
    )
}

/// `--trend --json`: one object (see README).
fn write_json(out: &mut dyn Write, t: &Trend) -> io::Result<()> {
    let hours = t.hours();
    writeln!(out, "{{")?;
    writeln!(out, "  \"program\": {},", json_str(&t.program))?;
    writeln!(out, "  \"value\": {},", json_str(t.value))?;
    let unit = match t.measure {
        Measure::Bytes { .. } => "bytes",
        Measure::Objects => "objects",
        _ => "count",
    };
    writeln!(out, "  \"unit\": {},", json_str(unit))?;
    writeln!(out, "  \"granularity\": {},", json_str(site_words(t)))?;
    writeln!(out, "  \"ordered_by\": {},", json_str(t.ordered_by.word()))?;
    writeln!(
        out,
        "  \"order_note\": {},",
        json_opt(t.order_note.as_deref().map(json_str))
    )?;
    writeln!(
        out,
        "  \"times\": {},",
        json_str(if hours.is_some() { "mtime" } else { "unknown" })
    )?;
    writeln!(
        out,
        "  \"times_note\": {},",
        json_opt(t.hours.as_ref().err().map(|w| json_str(w)))
    )?;
    let left_out: Vec<String> = t
        .left_out
        .iter()
        .map(|(p, why)| {
            format!(
                "{{\"path\": {}, \"cut_at\": {}, \"why\": {}}}",
                json_str(&p.to_string_lossy()),
                json_opt(why.cut_at().map(|at| at.to_string())),
                json_str(&why.words())
            )
        })
        .collect();
    writeln!(out, "  \"left_out\": [{}],", left_out.join(", "))?;
    writeln!(out, "  \"dumps\": [")?;
    for (i, d) in t.dumps.iter().enumerate() {
        writeln!(
            out,
            "    {{\"file\": {}, \"path\": {}, \"sequence\": {}, \"mtime\": {}, \"hours\": {}}}{}",
            json_str(&d.name()),
            json_str(&d.path.to_string_lossy()),
            json_opt(d.seq.map(|s| s.to_string())),
            json_opt(d.mtime.map(json_num)),
            json_opt(hours.map(|h| json_num(h[i]))),
            if i + 1 < t.dumps.len() { "," } else { "" }
        )?;
    }
    writeln!(out, "  ],")?;
    writeln!(out, "  \"total\": {},", json_row(&t.total))?;
    writeln!(out, "  \"rows\": [")?;
    for (i, r) in t.rows.iter().enumerate() {
        writeln!(
            out,
            "    {}{}",
            json_row(r),
            if i + 1 < t.rows.len() { "," } else { "" }
        )?;
    }
    writeln!(out, "  ],")?;
    writeln!(out, "  \"omitted\": {}", t.omitted)?;
    writeln!(out, "}}")
}

/// Text for SVG.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// How many sites the chart draws besides the total.
const CHART_SITES: usize = 10;

/// Line colours for the sites (the total is black).
const COLOURS: [&str; CHART_SITES] = [
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f",
];

/// A round step for about `n` ticks up to `max`.
fn tick_step(max: f64, n: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let raw = max / n;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A tick label: no more decimals than the step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{v:.decimals$}")
}

/// `--trend --svg`: a line chart of the total and the sites that grew most, over the dumps'
/// times (or their positions when the times are unknown).
fn write_svg(out: &mut dyn Write, t: &Trend) -> io::Result<()> {
    let head = header_lines(t);
    // The plot starts below the header's lines (three, or four with a Left out line).
    let extra = 20.0 * head.len().saturating_sub(3) as f64;
    let (w, h) = (1100.0, 620.0 + extra);
    let (left, right, top, bottom) = (80.0, 360.0, 90.0 + extra, 60.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let n = t.dumps.len();
    let hours = t.hours();
    let x_of = |i: usize| -> f64 {
        match hours {
            Some(h) => h[i],
            None => (i + 1) as f64,
        }
    };
    let (x0, x1) = (x_of(0), x_of(n.saturating_sub(1)));
    let xspan = if x1 > x0 { x1 - x0 } else { 1.0 };
    let scale = match t.measure {
        Measure::Bytes { show_bytes: false } => 1.0 / 1_048_576.0,
        _ => 1.0,
    };
    let lines: Vec<(&Row, &str, f64)> = std::iter::once((&t.total, "#000000", 2.5))
        .chain(
            t.rows
                .iter()
                .take(CHART_SITES)
                .zip(COLOURS)
                .map(|(r, c)| (r, c, 1.6)),
        )
        .collect();
    let ymax = lines
        .iter()
        .flat_map(|(r, _, _)| r.values.iter())
        .fold(0.0f64, |a, &v| a.max(v * scale));
    let ystep = tick_step(ymax, 6.0);
    let ytop = if ymax > 0.0 {
        (ymax / ystep).ceil() * ystep
    } else {
        1.0
    };
    let px = |x: f64| left + (x - x0) / xspan * pw;
    let py = |y: f64| top + ph - (y / ytop) * ph;
    writeln!(
        out,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Verdana, sans-serif" font-size="12">
<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>"##
    )?;
    for (i, l) in head.iter().enumerate() {
        let size = if i == 0 { 16 } else { 12 };
        writeln!(
            out,
            r#"<text x="{left}" y="{}" font-size="{size}">{}</text>"#,
            24 + i * 20,
            xml(l)
        )?;
    }
    // Axes and grid.
    let mut y = 0.0;
    while y <= ytop + ystep / 2.0 {
        let yy = py(y);
        writeln!(
            out,
            r##"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            left + pw,
            left - 6.0,
            yy + 4.0,
            tick_label(y, ystep)
        )?;
        y += ystep;
    }
    writeln!(
        out,
        r#"<text x="16" y="{:.1}" transform="rotate(-90 16 {:.1})" text-anchor="middle">{} ({})</text>"#,
        top + ph / 2.0,
        top + ph / 2.0,
        xml(value_words(t)),
        t.measure.units()
    )?;
    let xstep = tick_step(xspan, 10.0).max(if hours.is_some() { 0.0 } else { 1.0 });
    let mut x = (x0 / xstep).ceil() * xstep;
    while x <= x1 + xstep * 1e-9 {
        let xx = px(x);
        writeln!(
            out,
            r##"<line x1="{xx:.1}" y1="{top}" x2="{xx:.1}" y2="{:.1}" stroke="#f0f0f0"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            top + ph,
            top + ph + 18.0,
            tick_label(x, xstep)
        )?;
        x += xstep;
    }
    writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>
<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888888"/>"##,
        left + pw / 2.0,
        h - 16.0,
        if hours.is_some() {
            "hours since the first dump"
        } else {
            "dump"
        }
    )?;
    // The lines, the largest (the total) first so that the sites draw over it.
    let names: Vec<String> = t.dumps.iter().map(|d| d.name()).collect();
    for (r, colour, width) in &lines {
        let pts: Vec<String> = r
            .values
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", px(x_of(i)), py(v * scale)))
            .collect();
        writeln!(
            out,
            r#"<g><title>{}</title><polyline fill="none" stroke="{colour}" stroke-width="{width}" points="{}"/>"#,
            xml(&r.name),
            pts.join(" ")
        )?;
        for (i, &v) in r.values.iter().enumerate() {
            writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{colour}"><title>{}: {} {} ({})</title></circle>"#,
                px(x_of(i)),
                py(v * scale),
                xml(&names[i]),
                t.measure.unparse(v),
                t.measure.units(),
                xml(&r.name)
            )?;
        }
        writeln!(out, "</g>")?;
    }
    // The legend.
    let lx = left + pw + 20.0;
    for (i, (r, colour, width)) in lines.iter().enumerate() {
        let ly = top + 10.0 + i as f64 * 22.0;
        let label = format!(
            "{} ({}, {} {})",
            short(&r.name, 34),
            r.stats.class.name(),
            signed(t.measure, r.stats.change),
            t.measure.units()
        );
        writeln!(
            out,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="{width}"/><text x="{:.1}" y="{:.1}"><title>{}</title>{}</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0,
            xml(&r.name),
            xml(&label)
        )?;
    }
    if t.rows.len() > CHART_SITES || t.omitted > 0 {
        let more = t.rows.len().saturating_sub(CHART_SITES) + t.omitted;
        writeln!(
            out,
            r##"<text x="{lx:.1}" y="{:.1}" fill="#555555">and {more} more sites (--trend --text lists them)</text>"##,
            top + 10.0 + lines.len() as f64 * 22.0
        )?;
    }
    writeln!(out, "</svg>")
}

/// `s`, cut to at most `n` characters with an ellipsis.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut o: String = s.chars().take(n - 1).collect();
    o.push('…');
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::{Class, OrderedBy};

    #[test]
    fn sparklines() {
        assert_eq!(sparkline(&[0.0, 1.0, 2.0, 4.0, 8.0]), " ▁▂▄█");
        assert_eq!(sparkline(&[5.0, 5.0, 5.0]), "███");
        assert_eq!(sparkline(&[0.0, 0.0, 0.0]), "   ");
        let long: Vec<f64> = (0..120).map(f64::from).collect();
        assert_eq!(sparkline(&long).chars().count(), SPARK_WIDTH);
    }

    #[test]
    fn dates() {
        assert_eq!(utc(1_740_830_400.0), "2025-03-01 12:00:00");
        assert_eq!(utc(0.0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_782_400.0), "2000-02-29 00:00:00");
        assert_eq!(duration(6600.0), "1 h 50 min");
        assert_eq!(duration(3.0 * 86_400.0 + 4.0 * 3600.0), "3 d 4 h");
    }

    #[test]
    fn csv_and_json_escapes() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("f(\"x\")"), "\"f(\"\"x\"\")\"");
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(json_str("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
    }

    #[test]
    fn ticks() {
        assert_eq!(tick_step(4.17, 6.0), 1.0);
        assert_eq!(tick_step(110.0, 10.0), 20.0);
        assert_eq!(tick_label(0.5, 0.5), "0.5");
    }

    #[test]
    fn orders_have_words() {
        for o in [
            OrderedBy::Gperftools,
            OrderedBy::Jemalloc,
            OrderedBy::Numbered,
            OrderedBy::Mtime,
            OrderedBy::Arguments,
        ] {
            assert!(!o.describe().is_empty() && !o.word().is_empty());
        }
        assert_eq!(Class::ALL.len(), 6);
    }
}
