//! The leak trend of a series of heap dumps (`--trend`): the order of the series, and for
//! every allocation site its value in each dump, robust statistics and a class.
//!
//! Nothing here reads a file: [`crate::view::View::trend`] gathers the values from a
//! [`crate::session::Session`] (and the files' modification times), [`crate::report::trend`]
//! prints them. The web UI renders a [`Trend`] itself.
//!
//! The statistics, for a site's values `v1 … vn` (0 in a dump without the site):
//!
//! - **change**: `vn − v1`, what `--base=<first> <last>` reports for the site;
//! - **slope**: the Theil–Sen estimator, the median of the slopes `(vj − vi) / (j − i)` of
//!   every pair of dumps: one outlier moves it little (per dump; per hour from the dumps'
//!   times when they are known);
//! - **Mann–Kendall**: `S = Σ sign(vj − vi)` over the pairs `i < j`, its variance corrected
//!   for ties, `Z` with a continuity correction, the two-sided `p` from the normal
//!   distribution, and Kendall's `τ = S / (n(n−1)/2)`. A trend is significant when `p < 0.05`;
//!   it counts only the direction of each pair, so sampling jitter does not make one.
//!
//! The classes are tried in this order ([`classify`]):
//!
//! 1. `new`: absent from the first dump (`v1 = 0`), present in the last;
//! 2. `gone`: absent from the last dump (`vn = 0`);
//! 3. `saturating`: grew, then flat. There is a knee `k` (the first such) where the plateau
//!    `vk … vn` has at least 5 values and at least as many steps as the rise before it
//!    (`n − k ≥ k − 1`); the rise has ended at `k` (`vk` is not below every later value);
//!    the plateau has no significant Mann–Kendall trend; it stands above the start by more
//!    than its own spread (`v1 < min`, `median − v1 > max − min`); and its Theil–Sen drift
//!    over its length is at most a quarter of that rise. So it needs 6 dumps or more;
//! 4. `growing` / `shrinking`: a significant Mann–Kendall trend up / down, or every step up
//!    / down (with fewer than 5 dumps no trend can be significant at 5%);
//! 5. `steady`: anything else.

use std::path::PathBuf;

use crate::graph::Granularity;
use crate::units::Measure;

/// The level below which a Mann–Kendall trend counts as significant (two-sided).
pub const ALPHA: f64 = 0.05;

/// How many values a plateau needs for a `saturating` site (a Mann–Kendall test on fewer
/// cannot find a trend at [`ALPHA`]).
pub const PLATEAU_MIN: usize = 5;

/// What a site's series looks like; see the module documentation for the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// A significant upward trend (a leak).
    Growing,
    /// Grew, then flat (a cache that filled up, not a leak).
    Saturating,
    /// A significant downward trend.
    Shrinking,
    /// No significant trend.
    Steady,
    /// Absent from the first dump, present in the last.
    New,
    /// Absent from the last dump.
    Gone,
}

impl Class {
    /// Every class, in the order reports count them.
    pub const ALL: [Class; 6] = [
        Class::Growing,
        Class::New,
        Class::Saturating,
        Class::Steady,
        Class::Shrinking,
        Class::Gone,
    ];

    /// The class's name in the reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::Growing => "growing",
            Class::Saturating => "saturating",
            Class::Shrinking => "shrinking",
            Class::Steady => "steady",
            Class::New => "new",
            Class::Gone => "gone",
        }
    }
}

/// How the series was put in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderedBy {
    /// The sequence numbers of gperftools' heap profiler names, `<prefix>.<NNNN>.heap`.
    Gperftools,
    /// The dump counter of jemalloc's names, `<prefix>.<pid>.<seq>.i<n>.heap` (and `.m<n>`,
    /// `.u<n>`, `.f`).
    Jemalloc,
    /// The last number in their names, which are otherwise the same (`dump-7.heap`).
    Numbered,
    /// The files' modification times.
    Mtime,
    /// The order of the arguments (no name order, and some time unknown).
    Arguments,
}

impl OrderedBy {
    /// What the reports say about the order.
    pub fn describe(self) -> &'static str {
        match self {
            OrderedBy::Gperftools => "the sequence numbers of their names (<prefix>.NNNN.heap)",
            OrderedBy::Jemalloc => {
                "jemalloc's dump counter in their names (<prefix>.<pid>.<seq>.<kind>.heap)"
            }
            OrderedBy::Numbered => "the numbers in their names (<prefix>N<suffix>)",
            OrderedBy::Mtime => "their modification times",
            OrderedBy::Arguments => "the order of the arguments",
        }
    }

    /// A one-word name (JSON).
    pub fn word(self) -> &'static str {
        match self {
            OrderedBy::Gperftools => "gperftools",
            OrderedBy::Jemalloc => "jemalloc",
            OrderedBy::Numbered => "numbered",
            OrderedBy::Mtime => "mtime",
            OrderedBy::Arguments => "arguments",
        }
    }
}

/// A file of the series, as the ordering sees it.
#[derive(Debug, Clone)]
pub struct DumpFile {
    /// The file name (without its folder).
    pub name: String,
    /// The modification time, seconds since the epoch.
    pub mtime: Option<f64>,
}

/// The series put in order.
#[derive(Debug, Clone)]
pub struct SeriesOrder {
    /// The positions of the files (as given) in series order.
    pub order: Vec<usize>,
    /// How.
    pub by: OrderedBy,
    /// Per file (as given): the sequence number of its name, when the names ordered it.
    pub seq: Vec<Option<u64>>,
    /// Why the names did not order it, when they did not (and the times neither).
    pub fallback: Option<String>,
}

/// A name's place in a series: its series key (prefix, and process id for jemalloc) and
/// sequence number.
/// Why `--trend` takes no `--base`.
pub const NO_BASE: &str = "--trend takes no --base: the first dump of the series is its base (each site's change is what --base=<first> <last> reports)";

/// Why `--trend` takes no `--thread`.
pub const NO_THREAD: &str = "--thread does not go with --trend";

type Place = (String, u64);

fn digits(s: &str) -> Option<u64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A dump's name without the `.gz` of a compressed one (`heap.0003.heap.gz`).
fn unzipped(name: &str) -> &str {
    name.strip_suffix(".gz").unwrap_or(name)
}

/// jemalloc's `<prefix>.<pid>.<seq>.<kind>.heap`, kind `i<n>`, `m<n>`, `u<n>` or `f`.
fn jemalloc_place(name: &str) -> Option<Place> {
    let body = unzipped(name).strip_suffix(".heap")?;
    let (rest, kind) = body.rsplit_once('.')?;
    let kind_ok = kind == "f"
        || (kind.len() > 1
            && matches!(kind.as_bytes()[0], b'i' | b'm' | b'u')
            && digits(&kind[1..]).is_some());
    if !kind_ok {
        return None;
    }
    let (rest, seq) = rest.rsplit_once('.')?;
    let seq = digits(seq)?;
    let (prefix, pid) = rest.rsplit_once('.')?;
    digits(pid)?;
    (!prefix.is_empty()).then(|| (rest.to_string(), seq))
}

/// gperftools' `<prefix>.<NNNN>.heap`.
fn gperftools_place(name: &str) -> Option<Place> {
    let body = unzipped(name).strip_suffix(".heap")?;
    let (prefix, seq) = body.rsplit_once('.')?;
    let seq = digits(seq)?;
    (!prefix.is_empty()).then(|| (prefix.to_string(), seq))
}

/// Any name with a number: the text around its last number (`dump-` and `.heap`, with a
/// NUL between them), and the number.
fn numbered_place(name: &str) -> Option<Place> {
    let name = unzipped(name);
    let end = name.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = name[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let seq = digits(&name[start..end])?;
    Some((format!("{}\0{}", &name[..start], &name[end..]), seq))
}

/// Orders by the names of one scheme, or says why they cannot.
fn by_names(
    files: &[DumpFile],
    place: fn(&str) -> Option<Place>,
    scheme: &str,
) -> Result<Vec<u64>, String> {
    let mut key: Option<(String, &str)> = None;
    let mut seqs = Vec::with_capacity(files.len());
    let mut seen: std::collections::HashMap<u64, &str> = Default::default();
    for f in files {
        let numbered = scheme == "numbered";
        let Some((k, seq)) = place(&f.name) else {
            return Err(if numbered {
                format!("{} has no number in its name", f.name)
            } else {
                format!("{} is not named as {scheme} names a dump", f.name)
            });
        };
        match &key {
            None => key = Some((k, &f.name)),
            Some((k0, n0)) if *k0 != k => {
                return Err(if numbered {
                    format!("{n0} and {} differ in more than their last number", f.name)
                } else {
                    format!(
                        "{n0} and {} are not of one {scheme} series (their names differ before the sequence number)",
                        f.name
                    )
                });
            }
            _ => {}
        }
        if let Some(other) = seen.insert(seq, &f.name) {
            return Err(format!(
                "{other} and {} carry the same sequence number {seq}",
                f.name
            ));
        }
        seqs.push(seq);
    }
    Ok(seqs)
}

/// Puts the files of a series in order: by the sequence numbers of gperftools' or jemalloc's
/// names when every name carries one of the same series, else by modification time (saying
/// why in [`SeriesOrder::fallback`]), else as given.
pub fn order(files: &[DumpFile]) -> SeriesOrder {
    let first = files.first().map(|f| f.name.as_str()).unwrap_or_default();
    let scheme = if jemalloc_place(first).is_some() {
        Some((
            jemalloc_place as fn(&str) -> Option<Place>,
            "jemalloc",
            OrderedBy::Jemalloc,
        ))
    } else if gperftools_place(first).is_some() {
        Some((
            gperftools_place as fn(&str) -> Option<Place>,
            "gperftools",
            OrderedBy::Gperftools,
        ))
    } else if numbered_place(first).is_some() {
        Some((
            numbered_place as fn(&str) -> Option<Place>,
            "numbered",
            OrderedBy::Numbered,
        ))
    } else {
        None
    };
    let why = match scheme {
        Some((place, name, by)) => match by_names(files, place, name) {
            Ok(seqs) => {
                let mut order: Vec<usize> = (0..files.len()).collect();
                order.sort_by_key(|&i| seqs[i]);
                return SeriesOrder {
                    order,
                    by,
                    seq: seqs.into_iter().map(Some).collect(),
                    fallback: None,
                };
            }
            Err(why) => why,
        },
        None => format!(
            "{first} carries no number (gperftools' <prefix>.NNNN.heap, jemalloc's <prefix>.<pid>.<seq>.<kind>.heap, any <prefix>N<suffix>)"
        ),
    };
    let none = vec![None; files.len()];
    let mut order: Vec<usize> = (0..files.len()).collect();
    if let Some(unknown) = files.iter().find(|f| f.mtime.is_none()) {
        return SeriesOrder {
            order,
            by: OrderedBy::Arguments,
            seq: none,
            fallback: Some(format!(
                "{why}, and the modification time of {} is unknown",
                unknown.name
            )),
        };
    }
    let t = |i: usize| files[i].mtime.unwrap_or(0.0);
    if files.iter().all(|f| f.mtime == files[0].mtime) {
        return SeriesOrder {
            order,
            by: OrderedBy::Arguments,
            seq: none,
            fallback: Some(format!(
                "{why}, and their modification times are all the same"
            )),
        };
    }
    order.sort_by(|&a, &b| t(a).total_cmp(&t(b)));
    let mut why = why;
    if let Some(w) = order.windows(2).find(|w| t(w[0]) == t(w[1])) {
        why.push_str(&format!(
            "; {} and {} have the same modification time and keep their argument order",
            files[w[0]].name, files[w[1]].name
        ));
    }
    SeriesOrder {
        order,
        by: OrderedBy::Mtime,
        seq: none,
        fallback: Some(why),
    }
}

/// Below this span (seconds), a series' modification times are not taken for the dumps'
/// times: they say more about how the files were copied than about the leak.
pub const MIN_SPAN: f64 = 60.0;

/// The dumps' times in hours since the first, in series order, when they are known: the
/// modification times, when every file has one, they increase along the series and span
/// at least [`MIN_SPAN`]. Else why not.
pub fn hours(files: &[DumpFile], order: &[usize]) -> Result<Vec<f64>, String> {
    let mut t = Vec::with_capacity(order.len());
    for &i in order {
        match files[i].mtime {
            Some(m) => t.push(m),
            None => {
                return Err(format!(
                    "the modification time of {} is unknown",
                    files[i].name
                ));
            }
        }
    }
    if let Some(w) = order
        .windows(2)
        .find(|w| files[w[1]].mtime <= files[w[0]].mtime)
    {
        return Err(format!(
            "the modification times do not increase along the series ({} is not older than {}; copied files?)",
            files[w[0]].name, files[w[1]].name
        ));
    }
    let t0 = t.first().copied().unwrap_or(0.0);
    let span = t.last().copied().unwrap_or(0.0) - t0;
    if span < MIN_SPAN {
        return Err(format!(
            "the modification times span only {span:.0} s (files copied, or written in a burst?)"
        ));
    }
    Ok(t.iter().map(|x| (x - t0) / 3600.0).collect())
}

/// Whether dump `b` comes from the process `a` does, as their memory maps tell: the same
/// program (the first file the map names that is not a library), mapped at the same address.
/// Maps that name no program are taken on trust. Else what differs.
pub fn same_process(
    a: &crate::profile::Profile,
    b: &crate::profile::Profile,
) -> Result<(), String> {
    use crate::session::program_from_map;
    let (Some(pa), Some(pb)) = (program_from_map(a), program_from_map(b)) else {
        return Ok(());
    };
    if pa != pb {
        return Err(format!(
            "a dump of {}, not of {}",
            pb.display(),
            pa.display()
        ));
    }
    let text = |p: &crate::profile::Profile| {
        p.mappings
            .iter()
            .find(|m| std::path::Path::new(&m.path) == pa && m.executable())
            .map(|m| (m.start, m.offset))
    };
    if let (Some((sa, oa)), Some((sb, ob))) = (text(a), text(b))
        && (sa.wrapping_sub(oa)) != (sb.wrapping_sub(ob))
    {
        return Err(format!(
            "{} is mapped at {sb:#x} here and at {sa:#x} in the first dump: a dump of another run of the program (a trend follows one process)",
            pa.display()
        ));
    }
    // A program built without PIE is mapped at the same address in every run; its
    // libraries are not (address space randomization moves them all at each start). One
    // library that moved may have been unloaded and loaded again; all of them moved is a
    // new run.
    fn libraries<'p>(
        p: &'p crate::profile::Profile,
        pa: &std::path::Path,
    ) -> std::collections::BTreeMap<&'p str, u64> {
        let mut m: std::collections::BTreeMap<&str, u64> = Default::default();
        for l in &p.mappings {
            if l.executable() && l.path.starts_with('/') && std::path::Path::new(&l.path) != pa {
                m.entry(l.path.as_str())
                    .or_insert(l.start.wrapping_sub(l.offset));
            }
        }
        m
    }
    let (la, lb) = (libraries(a, &pa), libraries(b, &pa));
    let both: Vec<(&str, u64, u64)> = la
        .iter()
        .filter_map(|(path, &at_a)| lb.get(path).map(|&at_b| (*path, at_a, at_b)))
        .collect();
    if let Some(&(path, at_a, at_b)) = both.first()
        && both.iter().all(|&(_, x, y)| x != y)
    {
        return Err(format!(
            "{path} is mapped at {at_b:#x} here and at {at_a:#x} in the first dump, and every library both dumps map moved: a dump of another run of the program (a trend follows one process)"
        ));
    }
    Ok(())
}

/// The Mann–Kendall trend test of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannKendall {
    /// `S`: pairs that rise less pairs that fall.
    pub s: i64,
    /// The normal score of `S` (continuity-corrected, ties accounted for).
    pub z: f64,
    /// The two-sided p-value of `z`.
    pub p: f64,
    /// Kendall's τ: `S` over the number of pairs, −1 … 1.
    pub tau: f64,
}

impl MannKendall {
    /// True when the trend is significant at [`ALPHA`].
    pub fn significant(&self) -> bool {
        self.p < ALPHA
    }
}

/// The Mann–Kendall test of `v` (in order).
pub fn mann_kendall(v: &[f64]) -> MannKendall {
    let n = v.len();
    let mut s: i64 = 0;
    for i in 0..n {
        for j in i + 1..n {
            s += match v[j].partial_cmp(&v[i]) {
                Some(std::cmp::Ordering::Greater) => 1,
                Some(std::cmp::Ordering::Less) => -1,
                _ => 0,
            };
        }
    }
    // Tied groups.
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut ties = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        let t = (j - i) as f64;
        ties += t * (t - 1.0) * (2.0 * t + 5.0);
        i = j;
    }
    let nf = n as f64;
    let var = (nf * (nf - 1.0) * (2.0 * nf + 5.0) - ties) / 18.0;
    let z = if var <= 0.0 {
        0.0
    } else if s > 0 {
        (s as f64 - 1.0) / var.sqrt()
    } else if s < 0 {
        (s as f64 + 1.0) / var.sqrt()
    } else {
        0.0
    };
    let pairs = nf * (nf - 1.0) / 2.0;
    MannKendall {
        s,
        z,
        p: if z == 0.0 {
            1.0
        } else {
            erfc(z.abs() / std::f64::consts::SQRT_2)
        },
        tau: if pairs > 0.0 { s as f64 / pairs } else { 0.0 },
    }
}

/// The complementary error function, to about 1e-7 (Abramowitz and Stegun, 7.1.26).
fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    (poly * (-x * x).exp()).clamp(0.0, 1.0)
}

/// The median of `v` (reordered); 0 for none.
fn median(v: &mut [f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    let (_, &mut hi, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        return hi;
    }
    let lo = v[..n / 2].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo + hi) / 2.0
}

/// The Theil–Sen slope of `v` over `x` (increasing): the median of the slopes of every pair
/// of points; `x` = `None` for 0, 1, 2, ...
pub fn theil_sen(v: &[f64], x: Option<&[f64]>) -> f64 {
    let n = v.len();
    let at = |i: usize| x.map_or(i as f64, |x| x[i]);
    let mut slopes = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            let dx = at(j) - at(i);
            if dx > 0.0 {
                slopes.push((v[j] - v[i]) / dx);
            }
        }
    }
    median(&mut slopes)
}

/// A site's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// The value in the first dump.
    pub first: f64,
    /// The value in the last dump.
    pub last: f64,
    /// `last − first`.
    pub change: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// Theil–Sen slope per dump.
    pub slope: f64,
    /// Theil–Sen slope per hour, when the dumps' times are known.
    pub slope_per_hour: Option<f64>,
    /// The Mann–Kendall test.
    pub mk: MannKendall,
    /// The class.
    pub class: Class,
    /// `saturating`: the position (0-based, in series order) of the first dump of the
    /// plateau.
    pub flat_since: Option<usize>,
}

/// The statistics of `v` (one value per dump, in series order; `hours`: the dumps' times).
pub fn stats(v: &[f64], hours: Option<&[f64]>) -> Stats {
    let first = v.first().copied().unwrap_or(0.0);
    let last = v.last().copied().unwrap_or(0.0);
    let mk = mann_kendall(v);
    let (class, flat_since) = classify(v, &mk);
    Stats {
        first,
        last,
        change: last - first,
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        slope: theil_sen(v, None),
        slope_per_hour: hours.map(|h| theil_sen(v, Some(h))),
        mk,
        class,
        flat_since,
    }
}

/// The class of series `v` (whose Mann–Kendall test is `mk`), and for `saturating` the
/// first dump of its plateau. The rules are the module documentation's.
pub fn classify(v: &[f64], mk: &MannKendall) -> (Class, Option<usize>) {
    let n = v.len();
    let (Some(&first), Some(&last)) = (v.first(), v.last()) else {
        return (Class::Steady, None);
    };
    if first == 0.0 && last != 0.0 {
        return (Class::New, None);
    }
    if last == 0.0 && v.iter().any(|&x| x != 0.0) {
        return (Class::Gone, None);
    }
    if let Some(k) = knee(v) {
        return (Class::Saturating, Some(k));
    }
    let up = v.windows(2).all(|w| w[1] > w[0]);
    let down = v.windows(2).all(|w| w[1] < w[0]);
    if n >= 2 && ((mk.significant() && mk.s > 0) || up) {
        return (Class::Growing, None);
    }
    if n >= 2 && ((mk.significant() && mk.s < 0) || down) {
        return (Class::Shrinking, None);
    }
    (Class::Steady, None)
}

/// The first dump of a plateau after a rise (see [`classify`]), if there is one.
fn knee(v: &[f64]) -> Option<usize> {
    let n = v.len();
    if n < PLATEAU_MIN + 1 {
        return None;
    }
    // The smallest and largest value from each position on.
    let mut lo = vec![f64::INFINITY; n + 1];
    let mut hi = vec![f64::NEG_INFINITY; n + 1];
    for i in (0..n).rev() {
        lo[i] = lo[i + 1].min(v[i]);
        hi[i] = hi[i + 1].max(v[i]);
    }
    let first = v[0];
    let mut plateau = Vec::with_capacity(n);
    // The plateau v[k..] has n - k values and n - 1 - k steps; the rise has k steps.
    for k in 1..n {
        if n - k < PLATEAU_MIN || n - 1 - k < k {
            break;
        }
        let (min, max) = (lo[k], hi[k]);
        // The rise has ended at k; the plateau lies above the start.
        if v[k] < lo[k + 1] || first >= min {
            continue;
        }
        plateau.clear();
        plateau.extend_from_slice(&v[k..]);
        let rise = median(&mut plateau) - first;
        if rise <= max - min {
            continue;
        }
        let tail = &v[k..];
        if mann_kendall(tail).significant() {
            continue;
        }
        let drift = theil_sen(tail, None) * (tail.len() - 1) as f64;
        if drift.abs() > rise / 4.0 {
            continue;
        }
        return Some(k);
    }
    None
}

/// One line of the trend: a site (or the total) and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The site's name as `--text` prints it (whole stacks: the frames' names, leaf first,
    /// joined by ` < `), or `(total)`.
    pub name: String,
    /// One value per dump, in series order (0 where the dump has no such site).
    pub values: Vec<f64>,
    /// The statistics of `values`.
    pub stats: Stats,
}

impl Row {
    /// The row of `values`.
    pub fn new(name: String, values: Vec<f64>, hours: Option<&[f64]>) -> Row {
        let stats = stats(&values, hours);
        Row {
            name,
            values,
            stats,
        }
    }
}

/// The rows of the sites, sorted by growth (change, largest first; then by name): at most
/// `limit` of them (with their statistics), how many more there were, and how many sites of
/// each class there are in all (as [`Trend::class_counts`]). Sites whose every value is 0
/// are left out.
pub fn rows(
    sites: Vec<(String, Vec<f64>)>,
    hours: Option<&[f64]>,
    limit: Option<usize>,
) -> (Vec<Row>, usize, Vec<(Class, usize)>) {
    let change = |v: &[f64]| v.last().copied().unwrap_or(0.0) - v.first().copied().unwrap_or(0.0);
    let mut sites: Vec<(String, Vec<f64>)> = sites
        .into_iter()
        .filter(|(_, v)| v.iter().any(|&x| x != 0.0))
        .collect();
    sites.sort_by(|a, b| {
        change(&b.1)
            .total_cmp(&change(&a.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    let keep = limit.unwrap_or(usize::MAX).min(sites.len());
    let omitted = sites.len() - keep;
    // The class of every site, those left out too: the counts are the series'.
    let mut counts = [0usize; Class::ALL.len()];
    for (_, values) in &sites[keep..] {
        let mk = mann_kendall(values);
        let (class, _) = classify(values, &mk);
        counts[class as usize] += 1;
    }
    sites.truncate(keep);
    let rows: Vec<Row> = sites
        .into_iter()
        .map(|(name, values)| Row::new(name, values, hours))
        .collect();
    for r in &rows {
        counts[r.stats.class as usize] += 1;
    }
    let classes = Class::ALL
        .iter()
        .map(|&c| (c, counts[c as usize]))
        .filter(|(_, n)| *n > 0)
        .collect();
    (rows, omitted, classes)
}

/// One dump of the series.
#[derive(Debug, Clone, PartialEq)]
pub struct Dump {
    /// The file.
    pub path: PathBuf,
    /// What the reports call it: the file's name (the web UI's name of the reading, for
    /// a file read more than once).
    pub name: String,
    /// Its index in [`crate::session::Session::profiles`].
    pub profile: usize,
    /// The sequence number of its name, when the names ordered the series.
    pub seq: Option<u64>,
    /// Its modification time, seconds since the epoch.
    pub mtime: Option<f64>,
}

impl Dump {
    /// What the reports call it.
    pub fn name(&self) -> String {
        self.name.clone()
    }
}

/// The trend of a series of dumps: plain data for the reports and the web UI.
#[derive(Debug, Clone)]
pub struct Trend {
    /// The program, as the reports name it.
    pub program: String,
    /// The dumps, in series order.
    pub dumps: Vec<Dump>,
    /// How they were put in order.
    pub ordered_by: OrderedBy,
    /// Why the names did not order them, when they did not.
    pub order_note: Option<String>,
    /// The dumps' times in hours since the first (from the modification times), or why
    /// they are not known.
    pub hours: Result<Vec<f64>, String>,
    /// The value column's name (`inuse_space`, ...).
    pub value: &'static str,
    /// How the values print (`--text`'s units).
    pub measure: Measure,
    /// The sites' granularity.
    pub granularity: Granularity,
    /// Whole stacks are the sites (`--stacks`).
    pub stacks: bool,
    /// Cumulative values (`--cum`) rather than flat ones.
    pub cum: bool,
    /// The whole heap of each dump (the `Total:` line of `--text`; `--focus` and `--ignore`
    /// do not change it).
    pub total: Row,
    /// The sites, by growth.
    pub rows: Vec<Row>,
    /// Sites left out by `--nodecount`.
    pub omitted: usize,
    /// How many sites of each class, those left out included ([`Trend::class_counts`]).
    pub classes: Vec<(Class, usize)>,
    /// The dumps left out of the series, and why.
    pub left_out: Vec<(PathBuf, LeftOut)>,
}

/// Why a dump is left out of a series: it is unfinished (its writer was killed, the disk
/// filled, or it is still being written) or holds nothing, and its lost records would read
/// as falls, a leak as `gone`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftOut {
    /// Cut short in a line, at this byte.
    Cut(u64),
    /// Without the memory map that the series' other dumps end with: cut short at the end
    /// of a line.
    NoMap,
    /// Not read: empty, or cut in its first line (the words say which).
    Unread(String),
    /// Read, without a single record, after a dump of the series with some.
    NoSamples,
}

impl LeftOut {
    /// Why, in words (`cut short at byte 300`).
    pub fn words(&self) -> String {
        match self {
            LeftOut::Cut(at) => format!("cut short at byte {at}"),
            LeftOut::NoMap => {
                "no memory map, which the other dumps end with: cut short".to_string()
            }
            LeftOut::Unread(why) => why.clone(),
            LeftOut::NoSamples => "no samples, after a dump with some".to_string(),
        }
    }

    /// Where it is cut, when that is known.
    pub fn cut_at(&self) -> Option<u64> {
        match self {
            LeftOut::Cut(at) => Some(*at),
            _ => None,
        }
    }
}

impl Trend {
    /// The hours, when known.
    pub fn hours(&self) -> Option<&[f64]> {
        self.hours.as_deref().ok()
    }

    /// The session's index of the first dump of the series.
    pub fn first_profile(&self) -> Option<usize> {
        self.dumps.first().map(|d| d.profile)
    }

    /// The session's index of the last dump of the series.
    pub fn last_profile(&self) -> Option<usize> {
        self.dumps.last().map(|d| d.profile)
    }

    /// `view` as the report of the last dump against the first: a row's change is its value
    /// there (the web UI's diff flame graph, with [`crate::report::Mode::Flame`]).
    pub fn last_against_first(&self, view: &crate::view::View) -> crate::view::View {
        let mut v = view.clone();
        v.profiles = self.last_profile().map(|l| vec![l]);
        v.base = match self.first_profile() {
            Some(f) => crate::view::BaseChoice::Profile(f),
            None => crate::view::BaseChoice::None,
        };
        v
    }

    /// The dumps left out, in words (`a.heap (cut short at byte 300), ...`), when there are.
    pub fn left_out_words(&self) -> Option<String> {
        (!self.left_out.is_empty()).then(|| {
            self.left_out
                .iter()
                .map(|(p, why)| format!("{} ({})", crate::session::file_name(p), why.words()))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// How many sites of each class, those `--nodecount` left out included, in
    /// [`Class::ALL`] order, without the classes no site has.
    pub fn class_counts(&self) -> Vec<(Class, usize)> {
        self.classes.clone()
    }
}

// unwrap here only in tests, on series and maps the tests make themselves (no input
// reaches them): a failure is the test failing.
#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, mtime: Option<f64>) -> DumpFile {
        DumpFile {
            name: name.to_string(),
            mtime,
        }
    }

    #[test]
    fn compressed_dumps_keep_their_places() {
        assert_eq!(
            gperftools_place("heap.0003.heap.gz"),
            Some(("heap".to_string(), 3))
        );
        assert_eq!(
            jemalloc_place("jeprof.123.7.i7.heap.gz"),
            Some(("jeprof.123".to_string(), 7))
        );
    }

    #[test]
    fn gperftools_names_order_numerically() {
        let files: Vec<DumpFile> = ["h.0010.heap", "h.0002.heap", "h.10000.heap", "h.0001.heap"]
            .iter()
            .map(|n| file(n, Some(0.0)))
            .collect();
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Gperftools);
        assert_eq!(o.order, [3, 1, 0, 2]);
        assert_eq!(o.fallback, None);
    }

    #[test]
    fn jemalloc_names_order_by_counter() {
        let files: Vec<DumpFile> = [
            "je.7.14.f.heap",
            "je.7.10.i10.heap",
            "je.7.2.i2.heap",
            "je.7.12.m0.heap",
            "je.7.13.u0.heap",
        ]
        .iter()
        .map(|n| file(n, None))
        .collect();
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Jemalloc);
        assert_eq!(o.order, [2, 1, 3, 4, 0]);
    }

    #[test]
    fn other_names_order_by_their_last_number() {
        // As a shell's pattern lists them: dump-10 before dump-2.
        let files = vec![
            file("dump-1.heap", Some(9.0)),
            file("dump-10.heap", Some(9.0)),
            file("dump-2.heap.gz", Some(9.0)),
            file("dump-9.heap", Some(9.0)),
        ];
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Numbered);
        assert_eq!(o.order, [0, 2, 3, 1]);
        assert_eq!(o.fallback, None);
        // Names that differ elsewhere too (a date and a count) are no series of numbers.
        let files = vec![
            file("h-1127-1.prof", Some(3.0)),
            file("h-1128-1.prof", Some(1.0)),
            file("h-1128-2.prof", Some(2.0)),
        ];
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Mtime);
        assert_eq!(o.order, [1, 2, 0]);
        assert!(o.fallback.is_some_and(|w| {
            w.contains("h-1127-1.prof and h-1128-1.prof differ in more than their last number")
        }),);
        assert_eq!(numbered_place("a7b"), Some(("a\0b".to_string(), 7)));
        assert_eq!(numbered_place("42"), Some(("\0".to_string(), 42)));
        assert_eq!(numbered_place("heap"), None);
        // A character of two bytes before the number.
        assert_eq!(
            numbered_place("tas\u{e9}5.heap"),
            Some(("tas\u{e9}\0.heap".to_string(), 5))
        );
    }

    #[test]
    fn falls_back_to_mtimes_saying_why() {
        let files = vec![
            file("a.0001.heap", Some(30.0)),
            file("b.0002.heap", Some(10.0)),
            file("a.0003.heap", Some(20.0)),
        ];
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Mtime);
        assert_eq!(o.order, [1, 2, 0]);
        let why = o.fallback.unwrap();
        assert!(why.contains("a.0001.heap and b.0002.heap"), "{why}");
        // Two processes' jemalloc dumps are not one series.
        let files = vec![
            file("je.7.0.i0.heap", Some(1.0)),
            file("je.8.1.i1.heap", Some(2.0)),
            file("je.7.2.i2.heap", Some(3.0)),
        ];
        assert_eq!(order(&files).by, OrderedBy::Mtime);
        // Duplicate sequence numbers.
        let files = vec![
            file("h.0001.heap", Some(1.0)),
            file("h.0001.heap", Some(2.0)),
            file("h.0002.heap", Some(3.0)),
        ];
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Mtime);
        assert!(o.fallback.unwrap().contains("same sequence number 1"));
        // No times either: as given.
        let files = vec![file("p", None), file("q", Some(1.0)), file("r", None)];
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Arguments);
        assert_eq!(o.order, [0, 1, 2]);
        // Times all the same (files copied at once) order nothing: as given, and said.
        let files = vec![
            file("r", Some(5.0)),
            file("p", Some(5.0)),
            file("q", Some(5.0)),
        ];
        let o = order(&files);
        assert_eq!(o.by, OrderedBy::Arguments);
        assert_eq!(o.order, [0, 1, 2]);
        assert!(
            o.fallback
                .is_some_and(|w| w.ends_with("their modification times are all the same"))
        );
    }

    #[test]
    fn hours_need_increasing_times() {
        let files = vec![
            file("a", Some(3600.0)),
            file("b", Some(7200.0)),
            file("c", Some(5400.0)),
        ];
        assert_eq!(hours(&files, &[0, 2, 1]).unwrap(), [0.0, 0.5, 1.0]);
        assert!(hours(&files, &[0, 1, 2]).is_err());
        let burst = vec![
            file("a", Some(1.0)),
            file("b", Some(2.0)),
            file("c", Some(30.0)),
        ];
        assert!(
            hours(&burst, &[0, 1, 2])
                .unwrap_err()
                .contains("span only 29 s")
        );
    }

    /// A dump with the program (built without PIE) at 0x400000 and two libraries at
    /// `libc` and `libm`.
    fn dump_mapped(libc: u64, libm: u64) -> crate::profile::Profile {
        let mut p = crate::profile::Profile::new(
            crate::profile::Kind::Heap,
            crate::profile::Format::HeapText,
            String::new(),
        );
        let map = |start: u64, path: &str| crate::profile::Mapping {
            start,
            limit: start + 0x1000,
            offset: 0,
            perms: Some("r-xp".to_string()),
            path: path.to_string(),
            line: 0,
            raw: String::new(),
        };
        p.mappings = vec![
            map(0x40_0000, "/srv/server"),
            map(libm, "/usr/lib/libm.so.6"),
            map(libc, "/usr/lib/libc.so.6"),
        ];
        p
    }

    #[test]
    fn a_restart_is_told_by_its_libraries() {
        let a = dump_mapped(0x7f00_0000_0000, 0x7f10_0000_0000);
        assert_eq!(same_process(&a, &a), Ok(()));
        // Every library moved: another run, though the program is where it was.
        let b = dump_mapped(0x7f20_0000_0000, 0x7f30_0000_0000);
        let why = same_process(&a, &b).unwrap_err();
        assert!(why.contains("a dump of another run"), "{why}");
        assert!(
            why.starts_with("/usr/lib/libc.so.6 is mapped at 0x7f2000000000 here"),
            "{why}"
        );
        // One moved (unloaded and loaded again), one did not: the same run.
        let c = dump_mapped(0x7f00_0000_0000, 0x7f30_0000_0000);
        assert_eq!(same_process(&a, &c), Ok(()));
        // No library in common: nothing to tell by.
        let mut d = dump_mapped(0x7f20_0000_0000, 0x7f30_0000_0000);
        d.mappings.truncate(1);
        assert_eq!(same_process(&a, &d), Ok(()));
    }

    #[test]
    fn mann_kendall_known_values() {
        // Strictly increasing, 12 values: S = 66, var = 12·11·29/18.
        let v: Vec<f64> = (0..12).map(f64::from).collect();
        let mk = mann_kendall(&v);
        assert_eq!(mk.s, 66);
        assert!((mk.z - 65.0 / (12.0f64 * 11.0 * 29.0 / 18.0).sqrt()).abs() < 1e-12);
        assert!(mk.p < 1e-4);
        assert_eq!(mk.tau, 1.0);
        // All equal: no trend.
        let mk = mann_kendall(&[5.0; 8]);
        assert_eq!((mk.s, mk.z, mk.p), (0, 0.0, 1.0));
        // erfc at known points.
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-6);
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 1e-6);
    }

    #[test]
    fn theil_sen_ignores_an_outlier() {
        let mut v: Vec<f64> = (0..10).map(|i| 100.0 + 10.0 * f64::from(i)).collect();
        v[4] = 10_000.0;
        assert_eq!(theil_sen(&v, None), 10.0);
        let x: Vec<f64> = (0..10).map(|i| 0.5 * f64::from(i)).collect();
        assert_eq!(theil_sen(&v, Some(&x)), 20.0);
    }

    fn class_of(v: &[f64]) -> Class {
        classify(v, &mann_kendall(v)).0
    }

    #[test]
    fn classes_of_shapes() {
        let ramp: Vec<f64> = (1..=12).map(f64::from).collect();
        assert_eq!(class_of(&ramp), Class::Growing);
        let down: Vec<f64> = ramp.iter().rev().copied().collect();
        assert_eq!(class_of(&down), Class::Shrinking);
        let cache = [1.0, 2.0, 3.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0];
        assert_eq!(
            classify(&cache, &mann_kendall(&cache)),
            (Class::Saturating, Some(3))
        );
        // A rise that has stopped for less time than it took is not a plateau yet.
        let stopped = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 9.0, 9.0, 9.0];
        assert_eq!(class_of(&stopped), Class::Growing);
        let jitter = [10.0, 11.0, 9.0, 10.5, 9.5, 10.0, 11.0, 9.0, 10.0, 10.5];
        assert_eq!(class_of(&jitter), Class::Steady);
        assert_eq!(class_of(&[0.0, 0.0, 1.0, 2.0]), Class::New);
        assert_eq!(class_of(&[3.0, 1.0, 0.0, 0.0]), Class::Gone);
        assert_eq!(class_of(&[0.0, 5.0, 0.0]), Class::Gone);
        // Three dumps: every step up.
        assert_eq!(class_of(&[1.0, 2.0, 3.0]), Class::Growing);
        assert_eq!(class_of(&[1.0, 3.0, 2.0]), Class::Steady);
    }

    #[test]
    fn rows_sorted_by_change_and_limited() {
        let sites = vec![
            ("b".to_string(), vec![1.0, 2.0, 5.0]),
            ("a".to_string(), vec![1.0, 2.0, 5.0]),
            ("z".to_string(), vec![0.0, 0.0, 0.0]),
            ("c".to_string(), vec![9.0, 5.0, 1.0]),
            ("d".to_string(), vec![1.0, 9.0, 9.0]),
        ];
        let (rows, omitted, classes) = rows(sites, None, Some(3));
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["d", "a", "b"]);
        assert_eq!(omitted, 1);
        // The site left out (c, shrinking at every step) is counted with the others.
        assert_eq!(
            classes,
            [
                (Class::Growing, 2),
                (Class::Steady, 1),
                (Class::Shrinking, 1)
            ]
        );
        assert_eq!(rows[0].stats.change, 8.0);
    }
}
