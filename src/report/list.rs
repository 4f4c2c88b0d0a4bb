//! `--list=<regexp>`: the source of every routine matching the regular expression that has
//! samples, each line with its flat and cumulative values (pprof's `PrintListing` and
//! `PrintSource`).
//!
//! pprof disassembles each routine with `objdump -d -l` only to learn the source line of
//! each instruction; rpprof asks its DWARF reader for the line of each byte instead, which
//! gives the same lines without binutils. The listing rules are pprof's: the routine's file
//! is the first one its code names, its lines run from the first line seen in that file to
//! the last one, extended while the source stays indented deeper than the first line;
//! samples at places outside that range go to the next place inside it, or to the last
//! line; five lines of context are shown around it, the body between `---` marks.

use std::collections::HashMap;
use std::io::{self, Write};

use super::disasm::Instruction;
use super::source::Source;
use crate::symbolize::local::ListedRoutine;
use crate::units::Measure;

/// Flat and cumulative values per address, as pprof derives them from a profile reduced to
/// addresses (each address counted once per stack).
#[derive(Debug, Default)]
pub struct AddressValues {
    /// Value of the stacks whose leaf is the address.
    pub flat: HashMap<u64, f64>,
    /// Value of the stacks holding the address.
    pub cum: HashMap<u64, f64>,
}

impl AddressValues {
    /// The values of `stacks` (leaf first).
    pub fn of<'a>(stacks: impl Iterator<Item = (&'a [u64], f64)>) -> AddressValues {
        let mut r = AddressValues::default();
        let mut seen: Vec<u64> = Vec::new();
        for (stack, v) in stacks {
            seen.clear();
            for &a in stack {
                // pprof skips addresses above 0x7fffffffffffffff ("fake entries on RH9").
                if a > 0x7fff_ffff_ffff_ffff || seen.contains(&a) {
                    continue;
                }
                seen.push(a);
            }
            if let Some(&leaf) = seen.first() {
                *r.flat.entry(leaf).or_default() += v;
            }
            for &a in &seen {
                *r.cum.entry(a).or_default() += v;
            }
        }
        r
    }

    fn sum(map: &HashMap<u64, f64>, start: u64, end: u64) -> f64 {
        if end.saturating_sub(start) as usize > map.len() {
            crate::units::sum(
                map.iter()
                    .filter(|(a, _)| (start..end).contains(a))
                    .map(|(_, v)| v),
            )
        } else {
            crate::units::sum((start..end).filter_map(|a| map.get(&a)))
        }
    }
}

/// pprof's `Indentation`: leading white space of a line with text, -1 for a blank line.
fn indentation(line: &str) -> i64 {
    match line.find(|c: char| !c.is_whitespace()) {
        Some(i) => line[..i].chars().count() as i64,
        None => -1,
    }
}

/// pprof's `CleanFileName`.
fn clean_file_name(f: &str) -> &str {
    let f = f.strip_prefix("/proc/self/cwd/").unwrap_or(f);
    f.strip_prefix("./").unwrap_or(f)
}

/// The source files read so far, by name: a file's routines are listed one after the
/// other (thousands of them in a big program), each from the file read once. A file that
/// cannot be read keeps its message.
#[derive(Default)]
struct Sources(HashMap<String, Result<Source, String>>);

impl Sources {
    fn get(&mut self, path: &str) -> &Result<Source, String> {
        self.0
            .entry(path.to_string())
            .or_insert_with(|| Source::read(path))
    }
}

/// Whether [`write`] can list `r`: it has a source place, in a file that is there (one it
/// then cannot read is still skipped, with the reason).
pub fn listable(r: &ListedRoutine) -> bool {
    r.runs
        .iter()
        .find(|e| e.line >= 0)
        .is_some_and(|e| std::path::Path::new(&e.file).is_file())
}

/// How a routine's lines are laid out, by pprof's rules (see the module's comment).
struct Laid<'s> {
    filename: String,
    source: &'s Source,
    firstline: i64,
    lastline: i64,
    /// The lines shown: five before the first, to five after the last (or the extended
    /// last, when further).
    shown: (i64, i64),
    flat_at: HashMap<i64, f64>,
    cum_at: HashMap<i64, f64>,
    total: (f64, f64),
    /// The line each of the routine's runs is counted on.
    run_line: Vec<i64>,
}

impl Laid<'_> {
    /// The lines shown, with their numbers.
    fn lines(&self) -> impl Iterator<Item = (i64, &str)> + '_ {
        let (from, to) = self.shown;
        let skip = usize::try_from(from - 1).unwrap_or(0);
        let take = usize::try_from(to - from + 1).unwrap_or(0);
        self.source
            .lines_from(skip)
            .take(take)
            .enumerate()
            .map(move |(i, text)| ((skip + i) as i64 + 1, text))
            .filter(move |&(l, _)| l >= from && l <= to)
    }

    /// A line as the listing prints it.
    fn row(&self, l: i64, text: &str, measure: Measure) -> String {
        let n1 = self.flat_at.get(&l).copied().unwrap_or(0.0);
        let n2 = self.cum_at.get(&l).copied().unwrap_or(0.0);
        format!(
            "{:>6} {:>6} {:>4}: {}",
            measure.unparse_alt(n1),
            measure.unparse_alt(n2),
            l,
            text
        )
    }

    /// The routine's two head lines.
    fn head(&self, r: &ListedRoutine, measure: Measure) -> [String; 2] {
        [
            format!(
                "ROUTINE ====================== {} in {}",
                r.short,
                clean_file_name(&self.filename)
            ),
            format!(
                "{:>6} {:>6} Total {} (flat / cumulative)",
                measure.unparse(self.total.0),
                measure.unparse(self.total.1),
                measure.units()
            ),
        ]
    }
}

/// Lays out routine `r` (`cut` as in [`write`]), or says on `err` why it is skipped.
fn lay_out<'s>(
    err: &mut dyn Write,
    sources: &'s mut Sources,
    r: &ListedRoutine,
    values: &AddressValues,
    cut: Option<u64>,
) -> io::Result<Option<Laid<'s>>> {
    let runs = &r.runs;
    let Some(filename) = runs.iter().find(|e| e.line >= 0).map(|e| e.file.clone()) else {
        writeln!(err, "no filename found in {}", r.short)?;
        return Ok(None);
    };
    let mut lastline = runs
        .iter()
        .filter(|e| e.file == filename)
        .map(|e| e.line)
        .max()
        .unwrap_or(0)
        .max(0);
    let firstline = runs
        .iter()
        .find(|e| e.file == filename)
        .map_or(1, |e| e.line);
    let source = match sources.get(&filename) {
        Ok(l) => l,
        Err(msg) => {
            writeln!(err, "{filename}: {msg}")?;
            return Ok(None);
        }
    };
    // Extend the last line while the source stays indented as deep as the first line.
    // (Nothing happens before the first of the two lines: the walk starts there.)
    let oldlastline = lastline;
    let mut first_indentation = -1;
    let from = (firstline.min(lastline).max(1) - 1) as usize;
    for (i, text) in source.lines_from(from).enumerate() {
        let l = (from + i) as i64 + 1;
        let indent = indentation(text);
        if l >= firstline && first_indentation < 0 && indent >= 0 {
            first_indentation = indent;
            if first_indentation == 0 {
                break;
            }
        }
        if l >= lastline && indent >= 0 {
            if indent >= first_indentation {
                lastline = l + 1;
            } else {
                break;
            }
        }
    }
    // Samples at places outside the range move on to the next place inside it.
    let mut flat_at: HashMap<i64, f64> = HashMap::new();
    let mut cum_at: HashMap<i64, f64> = HashMap::new();
    let (mut running1, mut running2, mut total1, mut total2) = (0.0, 0.0, 0.0, 0.0);
    let mut run_line = vec![lastline; runs.len()];
    let mut pending = 0;
    for (i, e) in runs.iter().enumerate() {
        let end = cut.map_or(e.end, |c| e.end.min(c).max(e.start));
        let c1 = AddressValues::sum(&values.flat, e.start, end);
        let c2 = AddressValues::sum(&values.cum, e.start, end);
        running1 += c1;
        running2 += c2;
        total1 += c1;
        total2 += c2;
        if e.file == filename && e.line >= firstline && e.line <= lastline {
            *flat_at.entry(e.line).or_default() += running1;
            *cum_at.entry(e.line).or_default() += running2;
            running1 = 0.0;
            running2 = 0.0;
            for l in &mut run_line[pending..=i] {
                *l = e.line;
            }
            pending = i + 1;
        }
    }
    *flat_at.entry(lastline).or_default() += running1;
    *cum_at.entry(lastline).or_default() += running2;
    Ok(Some(Laid {
        filename,
        source,
        firstline,
        lastline,
        shown: (firstline - 5, (oldlastline + 5).max(lastline)),
        flat_at,
        cum_at,
        total: (total1, total2),
        run_line,
    }))
}

/// Calls `f` with each routine of `routines` laid out (its index too); those that cannot be
/// are said on `err` and skipped (`cuts` as [`write`]'s).
fn each_laid(
    err: &mut dyn Write,
    routines: &[ListedRoutine],
    values: &AddressValues,
    cuts: &[Option<u64>],
    mut f: impl FnMut(usize, &ListedRoutine, &Laid<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut sources = Sources::default();
    for (i, r) in routines.iter().enumerate() {
        crate::cancel::check()?;
        let cut = cuts.get(i).copied().flatten();
        if let Some(laid) = lay_out(err, &mut sources, r, values, cut)? {
            f(i, r, &laid)?;
        }
    }
    Ok(())
}

/// Writes the listing of each routine; problems (no file name, unreadable source) go to
/// `err` as pprof prints them, and the routine is skipped. `cuts`, one per routine when
/// given: the address from which its samples are not counted (`--pprof_quirks`, see
/// [`super::disasm::pprof_list_cut`]).
pub fn write(
    out: &mut dyn Write,
    err: &mut dyn Write,
    routines: &[ListedRoutine],
    values: &AddressValues,
    measure: Measure,
    cuts: &[Option<u64>],
) -> io::Result<()> {
    each_laid(err, routines, values, cuts, |_i, r, laid| {
        for h in laid.head(r, measure) {
            writeln!(out, "{h}")?;
        }
        for (l, text) in laid.lines() {
            if l == laid.firstline {
                out.write_all(b"---\n")?;
            }
            writeln!(out, "{}", laid.row(l, text, measure))?;
            if l == laid.lastline {
                out.write_all(b"---\n")?;
            }
        }
        Ok(())
    })
}

/// The style of [`write_html`]'s classes (the web UI has it in its style sheet).
pub const HTML_STYLE: &str = "body{font-family:monospace}\
.listing{font-family:ui-monospace,\"DejaVu Sans Mono\",Menlo,monospace;font-size:13px;line-height:1.35}\
.listing .routine>div,.listing summary,.listing .insn{white-space:pre}\
.listing .routine{margin-bottom:1.2em}\
.listing summary{cursor:pointer;list-style:none;background:#f4f4f4}\
.listing summary::-webkit-details-marker{display:none}\
.listing summary:hover{background:#e4ecf7}\
.listing details[open]>summary{background:#dde7f5}\
.listing .insn{color:#333;background:#fafafa}";

/// [`write`] as HTML (pprof's `weblist`): each routine a `<div class="routine">` of line
/// `<div>`s with the same text; a line that instructions were compiled to (`insns`, one
/// list per routine, from objdump) is a `<details>` that opens on a click to show them, each
/// with its values and, where it came from another place (inlined code), that place. `cuts`
/// as [`write`]'s (the lines' values then leave out what the instructions past the cut
/// have).
pub fn write_html(
    out: &mut dyn Write,
    err: &mut dyn Write,
    routines: &[ListedRoutine],
    values: &AddressValues,
    measure: Measure,
    cuts: &[Option<u64>],
    insns: &[Vec<Instruction>],
) -> io::Result<()> {
    each_laid(err, routines, values, cuts, |i, r, laid| {
        let insns = insns.get(i).map_or(&[][..], |v| &v[..]);
        let (flat, cum) = super::disasm::instruction_values(r, insns, values, false);
        // Each instruction under the line its run is counted on (one in no run: under
        // the instruction's before it).
        let mut at_line: HashMap<i64, Vec<usize>> = HashMap::new();
        let mut last = laid.lastline;
        for (k, insn) in insns.iter().enumerate() {
            let a = insn.vma.wrapping_add(r.delta);
            let run = r.runs.partition_point(|e| e.start <= a).checked_sub(1);
            if let Some(j) = run.filter(|&j| a < r.runs[j].end) {
                last = laid.run_line[j];
            }
            at_line.entry(last).or_default().push(k);
        }
        let [h1, h2] = laid.head(r, measure);
        writeln!(
            out,
            "<div class=\"routine\"><div class=\"head\">{}</div><div class=\"head\">{}</div>",
            super::esc(&h1),
            super::esc(&h2)
        )?;
        for (l, text) in laid.lines() {
            if l == laid.firstline {
                writeln!(out, "<div>---</div>")?;
            }
            let row = super::esc(&laid.row(l, text, measure));
            match at_line.get(&l) {
                None => writeln!(out, "<div>{row}</div>")?,
                Some(ks) => {
                    write!(out, "<details class=\"src\"><summary>{row}</summary>")?;
                    for &k in ks {
                        let insn = &insns[k];
                        // objdump's place, where it is not in the lines listed (code
                        // inlined from elsewhere: where objdump and the DWARF reader pick
                        // another row of the listed lines, the line's own values win).
                        let listed = insn.file == laid.filename
                            && (laid.firstline..=laid.lastline).contains(&insn.line);
                        let place = if listed || insn.line < 0 {
                            String::new()
                        } else {
                            let base = insn.file.rsplit('/').next().unwrap_or(&insn.file);
                            format!("  {base}:{}", insn.line)
                        };
                        write!(
                            out,
                            "<div class=\"insn\">{}</div>",
                            super::esc(&format!(
                                "{:>6} {:>6} {:>10}: {}{place}",
                                measure.unparse_alt(flat[k]),
                                measure.unparse_alt(cum[k]),
                                format!("{:x}", insn.vma),
                                super::disasm::clean(&insn.text)
                            ))
                        )?;
                    }
                    writeln!(out, "</details>")?;
                }
            }
            if l == laid.lastline {
                writeln!(out, "<div>---</div>")?;
            }
        }
        writeln!(out, "</div>")?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_as_pprof() {
        assert_eq!(indentation("    x"), 4);
        assert_eq!(indentation("x"), 0);
        assert_eq!(indentation("   "), -1);
        assert_eq!(indentation(""), -1);
    }

    #[test]
    fn each_address_once_per_stack() {
        let s1 = [1u64, 2, 1, 3];
        let v = AddressValues::of([(&s1[..], 5.0)].into_iter());
        assert_eq!(v.flat.get(&1), Some(&5.0));
        assert_eq!(v.cum.get(&1), Some(&5.0));
        assert_eq!(v.cum.get(&3), Some(&5.0));
        assert_eq!(AddressValues::sum(&v.cum, 1, 3), 10.0);
    }
}
