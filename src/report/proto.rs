//! `--proto`: the profile as a gzipped `profile.proto`, the format of Go pprof, Pyroscope
//! and the other tools of that world (google/pprof's `proto/profile.proto`).
//!
//! Every value column is written, named as Go pprof names the legacy formats when it reads
//! them itself (`alloc_objects`, `alloc_space`, `inuse_objects`, `inuse_space` for heap
//! profiles; `samples`/`cpu` for CPU; `contentions`/`delay` for contention), with the column
//! chosen on the command line (`--inuse_space`, `--contentions`, ...) as the default sample
//! type. Locations carry rpprof's symbols (function, file, line, inline frames innermost
//! first), so Go pprof does not symbolize again. Values are whole numbers in profile.proto:
//! sampled heap values are truncated per record. A `--base` is written as its records with
//! negated values and the `pprof::base` label, as Go pprof's `-diff_base` marks them.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::profile::{Kind, Mapping, SampleType};
use crate::report::collapsed;
use crate::symbolize::SymbolTable;

/// A protobuf message being written.
#[derive(Default)]
struct Pb(Vec<u8>);

impl Pb {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint((u64::from(field) << 3) | u64::from(wire));
    }

    /// A varint field (uint64, or int64 as two's complement); zero is the default and left out.
    fn int(&mut self, field: u32, v: u64) {
        if v != 0 {
            self.key(field, 0);
            self.varint(v);
        }
    }

    fn bool(&mut self, field: u32, v: bool) {
        self.int(field, u64::from(v));
    }

    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    fn packed(&mut self, field: u32, vs: impl Iterator<Item = u64>) {
        let mut inner = Pb::default();
        for v in vs {
            inner.varint(v);
        }
        if !inner.0.is_empty() {
            self.bytes(field, &inner.0);
        }
    }
}

/// The string table: index 0 is the empty string.
struct Strings {
    index: HashMap<String, u64>,
    list: Vec<String>,
}

impl Strings {
    fn new() -> Strings {
        let mut s = Strings {
            index: HashMap::new(),
            list: Vec::new(),
        };
        s.get("");
        s
    }

    fn get(&mut self, s: &str) -> u64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u64;
        self.list.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// One output column: its Go name and unit, and how it comes from a record's values.
struct Column {
    name: &'static str,
    unit: &'static str,
    /// The index in the record's values.
    from: usize,
    /// Multiplied by this (CPU samples → nanoseconds).
    scale: f64,
}

/// One record to write.
pub struct Record<'a> {
    /// Its stack, leaf first.
    pub stack: Vec<u64>,
    /// Its values, one per [`ProtoJob::sample_types`] entry.
    pub values: &'a [f64],
    /// A record of the base, subtracted.
    pub base: bool,
}

/// What to write.
pub struct ProtoJob<'a> {
    /// What the profile measures.
    pub kind: Kind,
    /// The value columns of the records.
    pub sample_types: &'a [SampleType],
    /// The column chosen on the command line (an index in `sample_types`).
    pub selected: usize,
    /// CPU: microseconds; contention: the sampling period; heap: the sampling rate.
    pub period: u64,
    /// The records: the profiles' and the base's.
    pub samples: Vec<Record<'a>>,
    /// The memory map.
    pub mappings: &'a [Mapping],
    /// Names for the addresses.
    pub symbols: &'a SymbolTable,
}

fn columns(kind: Kind, types: &[SampleType], period: u64) -> (Vec<Column>, (&str, &str), i64) {
    let find = |n: &str| types.iter().position(|t| t.name == n);
    let col = |name, unit, from: Option<usize>, scale| {
        from.map(|from| Column {
            name,
            unit,
            from,
            scale,
        })
    };
    let period_i = i64::try_from(period).unwrap_or(i64::MAX);
    match kind {
        Kind::Heap => (
            [
                col("alloc_objects", "count", find("alloc_objects"), 1.0),
                col("alloc_space", "bytes", find("alloc_space"), 1.0),
                col("inuse_objects", "count", find("inuse_objects"), 1.0),
                col("inuse_space", "bytes", find("inuse_space"), 1.0),
            ]
            .into_iter()
            .flatten()
            .collect(),
            ("space", "bytes"),
            period_i,
        ),
        Kind::Growth => (
            [
                col("objects", "count", find("inuse_objects"), 1.0),
                col("space", "bytes", find("inuse_space"), 1.0),
            ]
            .into_iter()
            .flatten()
            .collect(),
            ("space", "bytes"),
            1,
        ),
        Kind::Cpu => {
            let ns = period.saturating_mul(1000);
            // A period of 0 says nothing of time: no CPU time column (it would be all
            // zeros), the samples only.
            let time = (period > 0).then_some(0);
            (
                [
                    col("samples", "count", Some(0), 1.0),
                    col("cpu", "nanoseconds", time, ns as f64),
                ]
                .into_iter()
                .flatten()
                .collect(),
                ("cpu", "nanoseconds"),
                i64::try_from(ns).unwrap_or(i64::MAX),
            )
        }
        Kind::Contention => (
            [
                col("contentions", "count", find("contentions"), 1.0),
                col("delay", "nanoseconds", find("delay"), 1.0),
            ]
            .into_iter()
            .flatten()
            .collect(),
            ("contentions", "count"),
            period_i,
        ),
        Kind::Thread => (
            [col("thread", "count", Some(0), 1.0)]
                .into_iter()
                .flatten()
                .collect(),
            ("thread", "count"),
            1,
        ),
    }
}

/// A value as profile.proto's int64: truncated toward zero, saturating.
fn int64(v: f64) -> u64 {
    if v.is_nan() {
        return 0;
    }
    // `as` saturates at i64's bounds; the cast to u64 is the two's complement encoding.
    (v.trunc() as i64) as u64
}

/// `file:line` split; `None` for pprof's `??:0` and `?`.
fn file_line(fileline: &str) -> Option<(&str, i64)> {
    let (file, line) = fileline.rsplit_once(':')?;
    if file.is_empty() || file == "??" {
        return None;
    }
    Some((file, line.parse().unwrap_or(0)))
}

/// The encoded, uncompressed profile.
pub fn encode(job: &ProtoJob<'_>) -> Vec<u8> {
    let mut strings = Strings::new();
    let mut p = Pb::default();
    let (cols, period_type, period) = columns(job.kind, job.sample_types, job.period);

    for c in &cols {
        let mut vt = Pb::default();
        vt.int(1, strings.get(c.name));
        vt.int(2, strings.get(c.unit));
        p.bytes(1, &vt.0);
    }

    // Mappings: the executable ones, in map order; ids from 1.
    let maps: Vec<&Mapping> = job
        .mappings
        .iter()
        .filter(|m| m.executable() && m.limit > m.start)
        .collect();
    let mapping_of = |a: u64| -> Option<usize> {
        maps.iter()
            .position(|m| (m.start..m.limit).contains(&a))
            .map(|i| i + 1)
    };

    // Locations, one per address, in first-use order; functions per (name, file).
    let mut loc_ids: HashMap<u64, u64> = HashMap::new();
    let mut locs: Vec<u64> = Vec::new();
    let mut samples = Pb::default();
    for s in &job.samples {
        let sign = if s.base { -1.0 } else { 1.0 };
        let ids: Vec<u64> = s
            .stack
            .iter()
            .map(|&a| {
                *loc_ids.entry(a).or_insert_with(|| {
                    locs.push(a);
                    locs.len() as u64
                })
            })
            .collect();
        let mut sp = Pb::default();
        sp.packed(1, ids.into_iter());
        sp.packed(
            2,
            cols.iter().map(|c| {
                let v = s.values.get(c.from).copied().unwrap_or(0.0);
                int64(sign * v * c.scale)
            }),
        );
        if sign < 0.0 {
            // Go pprof's mark of a base's records (`-diff_base`): they are subtracted, and
            // percentages stay those of the profile.
            let mut label = Pb::default();
            label.int(1, strings.get("pprof::base"));
            label.int(2, strings.get("true"));
            sp.bytes(3, &label.0);
        }
        samples.bytes(2, &sp.0);
    }
    p.0.extend_from_slice(&samples.0);

    let mut symbolized = vec![false; maps.len() + 1];
    let mut func_ids: HashMap<(String, String), u64> = HashMap::new();
    let mut funcs = Pb::default();
    let mut locations = Pb::default();
    for (i, &a) in locs.iter().enumerate() {
        let mut lp = Pb::default();
        lp.int(1, i as u64 + 1);
        let m = mapping_of(a);
        lp.int(2, m.map_or(0, |m| m as u64));
        lp.int(3, a);
        if let Some(frames) = job.symbols.get(a) {
            if let Some(m) = m {
                symbolized[m] = true;
            }
            // The table holds the real function first; profile.proto wants the innermost.
            for f in frames.iter().rev() {
                let place = f.fileline.to_string();
                let (file, line) = file_line(&place).unwrap_or(("", 0));
                // Without the `<address>` tag names taken from the symbol table carry.
                let function = collapsed::untagged(&f.function);
                let key = (function.to_string(), file.to_string());
                let next = func_ids.len() as u64 + 1;
                let id = *func_ids.entry(key).or_insert_with(|| {
                    let mut fp = Pb::default();
                    fp.int(1, next);
                    let name = strings.get(function);
                    fp.int(2, name);
                    fp.int(3, name);
                    fp.int(4, strings.get(file));
                    funcs.bytes(5, &fp.0);
                    next
                });
                let mut line_pb = Pb::default();
                line_pb.int(1, id);
                line_pb.int(2, line as u64);
                lp.bytes(4, &line_pb.0);
            }
        }
        locations.bytes(4, &lp.0);
    }

    for (i, m) in maps.iter().enumerate() {
        let mut mp = Pb::default();
        mp.int(1, i as u64 + 1);
        mp.int(2, m.start);
        mp.int(3, m.limit);
        mp.int(4, m.offset);
        mp.int(5, strings.get(&m.path));
        let s = symbolized[i + 1];
        mp.bool(7, s);
        mp.bool(8, s);
        mp.bool(9, s);
        mp.bool(10, s);
        p.bytes(3, &mp.0);
    }
    p.0.extend_from_slice(&locations.0);
    p.0.extend_from_slice(&funcs.0);

    let mut pt = Pb::default();
    pt.int(1, strings.get(period_type.0));
    pt.int(2, strings.get(period_type.1));
    let default = job
        .sample_types
        .get(job.selected)
        .map(|t| match (job.kind, t.name) {
            (Kind::Growth, "inuse_objects") => "objects",
            (Kind::Growth, "inuse_space") => "space",
            (_, n) => n,
        })
        .filter(|n| cols.iter().any(|c| c.name == *n))
        .map(|n| strings.get(n));
    let mut tail = Pb::default();
    tail.bytes(11, &pt.0);
    tail.int(12, period as u64);
    if let Some(d) = default {
        tail.int(14, d);
    }
    for s in &strings.list {
        p.bytes(6, s.as_bytes());
    }
    p.0.extend_from_slice(&tail.0);
    p.0
}

/// Writes the gzipped profile.proto of `job`.
pub fn write(out: &mut dyn Write, job: &ProtoJob<'_>) -> io::Result<()> {
    let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
    gz.write_all(&encode(job))?;
    gz.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_negative_values() {
        let mut p = Pb::default();
        p.varint(300);
        assert_eq!(p.0, [0xac, 0x02]);
        assert_eq!(int64(-1.7), u64::MAX);
        assert_eq!(int64(2.9), 2);
        assert_eq!(int64(f64::NAN), 0);
        assert_eq!(int64(1e300), i64::MAX as u64);
    }

    #[test]
    fn file_and_line() {
        assert_eq!(file_line("/a/b.c:12"), Some(("/a/b.c", 12)));
        assert_eq!(file_line("??:0"), None);
        assert_eq!(file_line("?"), None);
    }
}
