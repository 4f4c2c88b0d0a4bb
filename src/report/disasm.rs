//! `--disasm=<regexp>`: the instructions of every routine matching the regular expression
//! that has samples, each with its flat and cumulative values, under the source lines they
//! came from (pprof's `PrintDisassembly` and `PrintDisassembledFunction`).
//!
//! The instructions come from binutils' `objdump`, as in pprof: its text is what scripts
//! and eyes know, and a disassembler of rpprof's own would have to reproduce it operand by
//! operand. `objdump` runs without a shell, the file name passed as an argument; when it is
//! missing, the mode fails with a message naming the package. Routine selection, values
//! and layout are rpprof's, the same as `--list`'s.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};
use crate::report::list::AddressValues;
use crate::report::source::Source;
use crate::symbolize::local::ListedRoutine;
use crate::units::Measure;

/// One instruction as objdump prints it, with the source place before it.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// File address.
    pub vma: u64,
    /// The source file of the last place line before it (empty before any).
    pub file: String,
    /// The line of that place, -1 before any.
    pub line: i64,
    /// The instruction text (mnemonic and operands).
    pub text: String,
}

/// Reads `objdump -C -d -l --no-show-raw-insn` output as pprof's `Disassemble` does: place
/// lines (`file:line`) and instruction lines (`  addr:\ttext`); everything else is skipped.
pub fn parse_objdump(text: &str) -> Vec<Instruction> {
    parse_objdump_placed(text)
        .0
        .into_iter()
        .map(|(i, _)| i)
        .collect()
}

/// [`parse_objdump`], each instruction with whether a place line came right before it
/// (after the instruction before it); and the addresses of the symbols objdump started
/// decoding at (its `0000000000001129 <f>:` lines), in order.
fn parse_objdump_placed(text: &str) -> (Vec<(Instruction, bool)>, Vec<u64>) {
    let mut out = Vec::new();
    let mut symbols = Vec::new();
    let (mut file, mut line) = (String::new(), -1i64);
    let mut placed = false;
    for l in text.lines() {
        let l = l.trim_end_matches('\r');
        if let Some(a) = symbol_line(l) {
            symbols.push(a);
        } else if let Some((f, n)) = place_line(l) {
            file = f.to_string();
            line = n;
            placed = true;
        } else if let Some((vma, insn)) = instruction_line(l) {
            out.push((
                Instruction {
                    vma,
                    file: file.clone(),
                    line,
                    text: insn.to_string(),
                },
                placed,
            ));
            placed = false;
        }
    }
    (out, symbols)
}

/// objdump's line starting a symbol's instructions, `0000000000001129 <f>:`: its address.
fn symbol_line(l: &str) -> Option<u64> {
    let (hex, rest) = l.split_once(" <")?;
    if !rest.ends_with(">:") || hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Routines (indexes into a list) with their instructions.
type Disassembled = Vec<(usize, Vec<Instruction>)>;

/// Routines closer than this in one file are disassembled by one run of objdump (each run
/// reads the file's line tables again: 80 ms for a program of 50 MB of DWARF, where the
/// bytes between two routines cost about 2 µs each).
const GROUP_GAP: u64 = 64 << 10;

/// The most bytes one run of objdump covers for a group: its output (about 14 bytes a
/// byte of code) is held whole, and groups are spread over the cores.
const GROUP_SPAN: u64 = 1 << 20;

/// The most runs of objdump at once (each holds the file's line tables).
const MAX_RUNS_AT_ONCE: usize = 8;

/// The instructions of each of `routines`, as objdump run on that routine alone gives them
/// (pprof runs it once per routine). Neighbouring routines of a file are disassembled
/// together and their instructions split off by address. A routine's instructions are
/// taken from the shared run when a place line comes right before its first address
/// (objdump's line state from there on is what it is for the routine alone) and objdump
/// began a symbol at its end (it stopped decoding there, as it does for the routine alone);
/// see [`disassemble_group`]. Otherwise (no line table for its first bytes, a place with a
/// discriminator, which pprof does not read as a place, its start inside an instruction,
/// its end at no symbol) the routine is run alone. The runs go on every core. Also says
/// how many runs it made and what failed (see [`Disassembly`]). A web request's cancel
/// token ([`crate::cancel`]) reaches the threads that run objdump.
pub fn disassemble_all(program: &Path, routines: &[ListedRoutine]) -> Result<Disassembly> {
    // Groups of routine indexes, by file and address.
    let mut order: Vec<usize> = (0..routines.len()).collect();
    order.sort_by(|&a, &b| {
        (&routines[a].file, routines[a].vmas).cmp(&(&routines[b].file, routines[b].vmas))
    });
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut end = 0;
    for &i in &order {
        let r = &routines[i];
        // (Overlapping routines, aliases of one code, are run apart.)
        match groups.last_mut() {
            Some(g)
                if routines[g[0]].file == r.file
                    && r.vmas.0 >= end
                    && r.vmas.0 - end <= GROUP_GAP
                    && r.vmas.1.saturating_sub(routines[g[0]].vmas.0) <= GROUP_SPAN =>
            {
                g.push(i);
                end = end.max(r.vmas.1);
            }
            _ => {
                groups.push(vec![i]);
                end = r.vmas.1;
            }
        }
    }
    let mut done: Vec<Option<Vec<Instruction>>> = vec![None; routines.len()];
    let next = std::sync::atomic::AtomicUsize::new(0);
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let token = crate::cancel::token();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_RUNS_AT_ONCE)
        .min(groups.len())
        .max(1);
    let results: Vec<Result<Disassembled>> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let token = token.clone();
                let (next, runs, failed, groups) = (&next, &runs, &failed, &groups);
                sc.spawn(move || -> Result<Disassembled> {
                    crate::cancel::with(token, || {
                        let mut out = Vec::new();
                        loop {
                            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(g) = groups.get(k) else { break };
                            // Ctrl-C in the shell, a web client gone: the listing stops.
                            crate::cancel::check().map_err(crate::session::io_err)?;
                            let (insns, n) = match disassemble_group(program, routines, g) {
                                Ok(done) => done,
                                Err(Failed::Cannot(e)) => return Err(e),
                                Err(Failed::Said(why)) => {
                                    if let Ok(mut f) = failed.lock() {
                                        f.insert(why);
                                    }
                                    (Vec::new(), 1)
                                }
                            };
                            runs.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                            out.extend(insns);
                        }
                        Ok(out)
                    })
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(Error::internal("objdump: a thread failed")))
            })
            .collect()
    });
    for r in results {
        for (i, insns) in r? {
            done[i] = Some(insns);
        }
    }
    Ok(Disassembly {
        routines: done.into_iter().map(Option::unwrap_or_default).collect(),
        runs: runs.into_inner(),
        failed: failed
            .into_inner()
            .map(|f| f.into_iter().collect())
            .unwrap_or_default(),
    })
}

/// What [`disassemble_all`] gives.
#[derive(Debug, Default)]
pub struct Disassembly {
    /// The instructions of each routine, in the order given (none for a routine objdump
    /// failed on).
    pub routines: Vec<Vec<Instruction>>,
    /// How many runs of objdump were made.
    pub runs: usize,
    /// What objdump said when it failed (a file of another architecture than the one it
    /// was built for, a file replaced since), once each, as warnings to print: pprof lets
    /// objdump's messages through.
    pub failed: Vec<String>,
}

/// Why objdump gave no instructions.
#[derive(Debug)]
enum Failed {
    /// It could not be run: the mode fails.
    Cannot(Error),
    /// It failed on a file: the message to print as a warning.
    Said(String),
}

/// The instructions of the routines `g` (indexes into `routines`, one file, in address
/// order), and how many runs of objdump it made: see [`disassemble_all`].
fn disassemble_group(
    program: &Path,
    routines: &[ListedRoutine],
    g: &[usize],
) -> std::result::Result<(Disassembled, usize), Failed> {
    // (Ctrl-C, a web client gone: a group's routines run alone stop too.)
    let alone = |i: usize| -> std::result::Result<(usize, Vec<Instruction>), Failed> {
        stop_if_asked()?;
        Ok((i, parse_objdump(&objdump(program, &routines[i])?)))
    };
    if let [i] = g {
        return Ok((vec![alone(*i)?], 1));
    }
    let mut runs = 1;
    let lo = g.iter().map(|&i| routines[i].vmas.0).min().unwrap_or(0);
    let hi = g.iter().map(|&i| routines[i].vmas.1).max().unwrap_or(0);
    let (all, mut symbols) =
        parse_objdump_placed(&objdump_range(program, &routines[g[0]].file, (lo, hi))?);
    symbols.sort_unstable();
    // (Instructions out of address order, sections printed out of it: each run alone.)
    if !all.windows(2).all(|w| w[0].0.vma < w[1].0.vma) {
        let out = g
            .iter()
            .map(|&i| alone(i))
            .collect::<std::result::Result<Disassembled, Failed>>()?;
        return Ok((out, 1 + g.len()));
    }
    let mut out = Vec::with_capacity(g.len());
    for &i in g {
        let (start, stop) = routines[i].vmas;
        let from = all.partition_point(|(x, _)| x.vma < start);
        let to = all.partition_point(|(x, _)| x.vma < stop);
        let first = all.get(from).filter(|_| from < to);
        // Its start: the group's (the run began there, as alone), or one with a place
        // printed right before it. Its end: the group's (the run stopped there, as alone),
        // or a symbol objdump began decoding at (it stopped decoding the one before there,
        // as the routine alone stops at its end: its last instruction and its zeros skipped
        // as `...` are the same; past a routine's end that is no symbol, such as a routine
        // named from a separate debug file or cut at its longest, objdump decodes on).
        let starts = start == lo || first.is_some_and(|(x, placed)| x.vma == start && *placed);
        let ends = stop == hi || symbols.binary_search(&stop).is_ok();
        if starts && ends {
            out.push((i, all[from..to].iter().map(|(x, _)| x.clone()).collect()));
        } else {
            out.push(alone(i)?);
            runs += 1;
        }
    }
    Ok((out, runs))
}

/// pprof's `\s*([^:\s]+):(\d+)\s*$`, searched anywhere in the line (its last such place).
fn place_line(l: &str) -> Option<(&str, i64)> {
    let t = l.trim_end();
    let colon = t.rfind(':')?;
    let digits = &t[colon + 1..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let head = &t[..colon];
    let start = head
        .rfind(|c: char| c.is_whitespace() || c == ':')
        .map_or(0, |i| {
            i + head[i..].chars().next().map_or(1, char::len_utf8)
        });
    let file = &head[start..];
    if file.is_empty() || head[start..].contains(':') {
        return None;
    }
    Some((file, digits.parse().ok()?))
}

/// pprof's `^ +([0-9a-f]+):\s*(.*)`.
fn instruction_line(l: &str) -> Option<(u64, &str)> {
    let rest = l.strip_prefix(' ')?.trim_start_matches(' ');
    let colon = rest.find(':')?;
    let hex = &rest[..colon];
    if hex.is_empty() || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    Some((
        u64::from_str_radix(hex, 16).ok()?,
        rest[colon + 1..].trim_start(),
    ))
}

/// pprof's `CleanDisassembly`: argument lists (not `(%rax)`) and template arguments go.
pub fn clean(d: &str) -> String {
    let mut s = d.to_string();
    // `\([^()%]*\)(\s*const)?`, again until nothing changes.
    loop {
        let mut out = String::with_capacity(s.len());
        let mut changed = false;
        let mut rest = s.as_str();
        while let Some(open) = rest.find('(') {
            let after = &rest[open + 1..];
            match after.find(['(', ')', '%']) {
                Some(j) if after.as_bytes()[j] == b')' => {
                    out.push_str(&rest[..open]);
                    let mut tail = &after[j + 1..];
                    let trimmed = tail.trim_start();
                    if let Some(t) = trimmed.strip_prefix("const") {
                        tail = t;
                    }
                    rest = tail;
                    changed = true;
                }
                _ => {
                    out.push_str(&rest[..=open]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        s = out;
        if !changed {
            break;
        }
    }
    // `(\w+)<[^<>]*>` → `$1`, again until nothing changes.
    loop {
        let bytes = s.as_bytes();
        let mut found = None;
        for (i, &b) in bytes.iter().enumerate() {
            if b != b'<' || i == 0 {
                continue;
            }
            let p = bytes[i - 1];
            if !(p.is_ascii_alphanumeric() || p == b'_') {
                continue;
            }
            if let Some(j) = s[i + 1..].find(['<', '>'])
                && bytes[i + 1 + j] == b'>'
            {
                found = Some((i, i + 1 + j));
                break;
            }
        }
        match found {
            Some((i, j)) => s.replace_range(i..=j, ""),
            None => break,
        }
    }
    s
}

/// The objdump to run, as pprof's `ConfigureTool` picks it from `--tools` (or
/// `$PPROF_TOOLS`): an `objdump:<path>` entry, else the first `<prefix>objdump` that is an
/// executable file, else (no `--tools`) `objdump` on `PATH`.
pub fn objdump_path(tools: Option<&str>) -> Result<PathBuf> {
    let Some(tools) = tools.filter(|t| !t.is_empty()) else {
        return Ok(PathBuf::from("objdump"));
    };
    let items: Vec<&str> = tools.split(',').collect();
    if let Some(path) = items.iter().find_map(|i| i.strip_prefix("objdump:")) {
        return Ok(PathBuf::from(path));
    }
    for prefix in items.iter().filter(|i| !i.contains(':')) {
        let p = PathBuf::from(format!("{prefix}objdump"));
        let executable = std::fs::metadata(&p).is_ok_and(|m| {
            m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
        });
        if executable {
            return Ok(p);
        }
    }
    Err(Error::usage(format!(
        "No 'objdump' found with prefix specified by --tools (or $PPROF_TOOLS) '{tools}'"
    )))
}

/// Runs objdump over `r`'s bytes.
fn objdump(program: &Path, r: &ListedRoutine) -> std::result::Result<String, Failed> {
    objdump_range(program, &r.file, r.vmas)
}

/// `Failed::Cannot` once the command was asked to stop ([`crate::cancel`]).
fn stop_if_asked() -> std::result::Result<(), Failed> {
    crate::cancel::check().map_err(|e| Failed::Cannot(crate::session::io_err(e)))
}

/// Runs objdump over the file addresses `[vmas.0, vmas.1)` of `file`: its output, or why
/// there is none (it could not be run, or it failed without instructions: its first
/// message). A run ended by Ctrl-C (the shell's process group gets the SIGINT, objdump
/// too) is no answer, whatever it printed before: the command stops.
fn objdump_range(
    program: &Path,
    file: &Path,
    vmas: (u64, u64),
) -> std::result::Result<String, Failed> {
    let out = Command::new(program)
        .arg("-C")
        .arg("-d")
        .arg("-l")
        .arg("--no-show-raw-insn")
        .arg(format!("--start-address=0x{:x}", vmas.0))
        .arg(format!("--stop-address=0x{:x}", vmas.1))
        .arg(file)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            Failed::Cannot(
                if e.kind() == io::ErrorKind::NotFound && program == Path::new("objdump") {
                    Error::internal(
                        "cannot run objdump: not found; --disasm needs objdump: install the Debian package binutils",
                    )
                } else if e.kind() == io::ErrorKind::NotFound {
                    Error::internal(format!(
                        "cannot run {}, which --tools (or $PPROF_TOOLS) names: not found",
                        program.display()
                    ))
                } else {
                    Error::internal(format!("cannot run {}: {e}", program.display()))
                },
            )
        })?;
    stop_if_asked()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // (A failure after instructions, such as an error reading the line tables, leaves them
    // as pprof shows them.)
    if !out.status.success() && !text.lines().any(|l| instruction_line(l).is_some()) {
        let err = String::from_utf8_lossy(&out.stderr);
        let said = err
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.strip_prefix("objdump: ").unwrap_or(l))
            .unwrap_or("no message");
        let status = out.status.code().map_or_else(
            || "killed by a signal".to_string(),
            |c| format!("exit status {c}"),
        );
        return Err(Failed::Said(format!(
            "{} failed on {} ({status}): {said}; its routines show no instructions",
            program.display(),
            file.display()
        )));
    }
    Ok(text)
}

/// Where `--list --pprof_quirks` stops counting `r`'s samples (an absolute address), when
/// it does before its end: pprof's `--list` reads the routine's instructions from objdump as
/// `--disasm` does, and ends the last one at the routine's end in the file (see
/// [`write_routine`]); a routine loaded above its file address loses that instruction's
/// samples. `None` when objdump cannot say (it is not there: pprof fails then).
pub fn pprof_list_cut(objdump_program: &Path, r: &ListedRoutine) -> Option<u64> {
    if !r.relocated() {
        return None;
    }
    let insns = parse_objdump(&objdump(objdump_program, r).ok()?);
    let last = insns.last()?.vma;
    let start = last.wrapping_add(r.delta);
    Some(start.max(r.vmas.1))
}

/// Writes the disassembly of each routine; `quirks` as [`write_routine`]'s. Returns what
/// objdump said where it failed (see [`Disassembly::failed`]): the routines of those files
/// are written without instructions.
pub fn write(
    out: &mut dyn Write,
    objdump_program: &Path,
    routines: &[ListedRoutine],
    values: &AddressValues,
    measure: Measure,
    quirks: bool,
) -> Result<Vec<String>> {
    let io = |e: io::Error| Error::internal(format!("write: {e}"));
    let total = crate::units::sum(values.flat.values());
    let mut sources: HashMap<String, Option<Source>> = HashMap::new();
    let all = disassemble_all(objdump_program, routines)?;
    for (r, insns) in routines.iter().zip(all.routines) {
        // Ctrl-C in the shell stops the listing between routines.
        crate::cancel::check().map_err(crate::session::io_err)?;
        write_routine(out, r, &insns, values, measure, total, quirks, &mut sources).map_err(io)?;
    }
    Ok(all.failed)
}

/// pprof's `PrintDisassembledFunction` of one routine, given objdump's instructions. With
/// `quirks` (`--pprof_quirks`), the last instruction of a routine loaded at an offset (a PIE,
/// a library) shows nothing, as in pprof, which ends it at the routine's end in the file
/// while it starts at its address in the process.
#[allow(clippy::too_many_arguments)]
pub fn write_routine(
    out: &mut dyn Write,
    r: &ListedRoutine,
    insns: &[Instruction],
    values: &AddressValues,
    measure: Measure,
    total: f64,
    quirks: bool,
    sources: &mut HashMap<String, Option<Source>>,
) -> io::Result<()> {
    let alt = |v: f64| measure.unparse_alt(v);
    let (flat, cum) = instruction_values(r, insns, values, quirks);
    let (flat_total, cum_total) = (crate::units::sum(&flat), crate::units::sum(&cum));
    writeln!(out, "ROUTINE ====================== {}", r.short)?;
    writeln!(
        out,
        "{:>6} {:>6} {} (flat, cumulative) {} of total",
        measure.unparse(flat_total),
        measure.unparse(cum_total),
        measure.units(),
        // Nothing of a total of 0 (a profile less itself): pprof dies dividing by it.
        if total == 0.0 && cum_total == 0.0 {
            "0.0%".to_string()
        } else {
            crate::units::percent(cum_total, total)
        }
    )?;
    let mut current = String::new();
    let mut i = 0;
    while i < insns.len() {
        let e = &insns[i];
        if e.file != current {
            current = e.file.clone();
            let mut name = current.strip_prefix("./").unwrap_or(&current).to_string();
            if name.chars().count() >= 58 {
                let tail: String = name
                    .chars()
                    .rev()
                    .take(55)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                name = format!("...{tail}");
            }
            writeln!(out, "-------------------- {name}")?;
        }
        // The run of instructions of this line (pprof compares lines only, not files).
        let line = e.line;
        let first = i;
        let (mut f, mut c) = (0.0, 0.0);
        while i < insns.len() && insns[i].line == line {
            f += flat[i];
            c += cum[i];
            i += 1;
        }
        let text = sources
            .entry(current.clone())
            .or_insert_with(|| read_source(&current))
            .as_ref()
            .and_then(|l| usize::try_from(line - 1).ok().and_then(|n| l.line(n)));
        if let Some(text) = text {
            writeln!(
                out,
                "{:>6} {:>6} {:>5}: {}",
                alt(f),
                alt(c),
                line,
                text.trim_start()
            )?;
        }
        for x in first..i {
            writeln!(
                out,
                "{:>6} {:>6}    {:>8}: {:>6}",
                alt(flat[x]),
                alt(cum[x]),
                format!("{:x}", insns[x].vma),
                clean(&insns[x].text)
            )?;
        }
    }
    Ok(())
}

/// The flat and cumulative values of each of routine `r`'s instructions: those of its
/// addresses up to the next instruction (or the routine's end); `quirks` as
/// [`write_routine`]'s.
pub fn instruction_values(
    r: &ListedRoutine,
    insns: &[Instruction],
    values: &AddressValues,
    quirks: bool,
) -> (Vec<f64>, Vec<f64>) {
    let mut flat = Vec::with_capacity(insns.len());
    let mut cum = Vec::with_capacity(insns.len());
    for (i, e) in insns.iter().enumerate() {
        let end = match insns.get(i + 1) {
            Some(n) => n.vma,
            // pprof's end, the file's, against addresses in the process (the routine
            // loaded above its file address: below, pprof would walk the gap).
            None if quirks && r.relocated() => {
                e.vma + r.vmas.1.saturating_sub(e.vma.saturating_add(r.delta))
            }
            None => r.vmas.1,
        };
        let (mut c1, mut c2) = (0.0, 0.0);
        let mut v = e.vma;
        while v < end {
            let a = v.wrapping_add(r.delta);
            c1 += values.flat.get(&a).copied().unwrap_or(0.0);
            c2 += values.cum.get(&a).copied().unwrap_or(0.0);
            v += 1;
        }
        flat.push(c1);
        cum.push(c2);
    }
    (flat, cum)
}

/// A source file, if it can be read (and is not empty: its one empty line is not shown).
fn read_source(path: &str) -> Option<Source> {
    if path.is_empty() {
        return None;
    }
    Source::read(path).ok().filter(|s| !s.is_empty())
}

/// The tests run binutils' objdump on the repository's test programs (skipped without it)
/// or a script standing in for it that they write; a file missing there is a broken
/// checkout, which an `unwrap` reports.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_objdump_output() {
        let text = "\n/tmp/t:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n\n\
                    0000000000401136 <main>:\nmain():\n/src/t.c:3\n  401136:\tpush   %rbp\n\
                    /src/t.c:4 (discriminator 2)\n  401137:\tcall   401020 <foo(int)@plt>\n";
        let v = parse_objdump(text);
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].vma, v[0].file.as_str(), v[0].line),
            (0x401136, "/src/t.c", 3)
        );
        assert_eq!(v[0].text, "push   %rbp");
        // A place with a discriminator is not read: the line before it stays.
        assert_eq!((v[1].vma, v[1].line), (0x401137, 3));
    }

    /// Routines disassembled together are split into what objdump gives for each alone,
    /// over every function of a C program (PIE), a Rust program and a C++ program (the
    /// first 150 by address), and libc's (line tables with discriminators, routines
    /// without line rows at their start).
    #[test]
    fn routines_disassembled_together_are_each_as_alone() {
        use object::{Object, ObjectSymbol};
        if !Path::new("/usr/bin/objdump").is_file() {
            eprintln!(
                "SKIPPED routines_disassembled_together_...: objdump (binutils) is not installed"
            );
            return;
        }
        let objdump = Path::new("/usr/bin/objdump");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        let mut files = vec![
            root.join("testdata/t-cpu/tcpu-pie"),
            root.join("testdata/t-rust/trust"),
            root.join("testdata/t-dwarf/lambda"),
        ];
        if libc.is_file() {
            files.push(libc.to_path_buf());
        }
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            let obj = object::File::parse(&*bytes).unwrap();
            let mut funcs: Vec<(u64, u64, String)> = obj
                .symbols()
                .chain(obj.dynamic_symbols())
                .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 0)
                .map(|s| {
                    (
                        s.address(),
                        s.address() + s.size(),
                        s.name().unwrap_or("").to_string(),
                    )
                })
                .collect();
            funcs.sort();
            funcs.dedup_by_key(|f| f.0);
            funcs.truncate(151);
            // Each routine ends where the next begins, as nm's list ends them (its padding
            // is its own); the last one at its size.
            let routines: Vec<ListedRoutine> = funcs
                .iter()
                .zip(funcs.iter().skip(1).map(Some).chain([None]))
                .take(150)
                .map(|((lo, hi, name), next)| ListedRoutine {
                    short: name.as_str().into(),
                    runs: Vec::new(),
                    file: file.clone(),
                    vmas: (*lo, next.map_or(*hi, |n| n.0)),
                    delta: 0,
                })
                .collect();
            let Disassembly {
                routines: together,
                runs,
                failed,
            } = disassemble_all(objdump, &routines).unwrap(); // (test: the system's objdump on its own files)
            assert_eq!(failed, Vec::<String>::new());
            eprintln!(
                "{}: {runs} runs for {} routines",
                file.display(),
                routines.len()
            );
            assert!(
                runs * 2 < routines.len(),
                "{}: {runs} runs of objdump for {} routines",
                file.display(),
                routines.len()
            );
            for (r, got) in routines.iter().zip(&together) {
                let alone = parse_objdump(&objdump_run(objdump, r));
                assert!(!alone.is_empty(), "{}: {}", file.display(), r.short);
                assert_eq!(got, &alone, "{}: {}", file.display(), r.short);
            }
        }
    }

    /// A routine whose end is no symbol objdump knows (a stripped file's routine named from
    /// its separate debug file) is run alone: in a shared run objdump decodes on past its
    /// end (here an instruction straddling it). One whose end is a symbol is split off.
    #[test]
    fn a_routine_ending_at_no_symbol_is_run_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fake-objdump");
        std::fs::create_dir_all(&dir).unwrap();
        let routine = |lo: u64, hi: u64| ListedRoutine {
            short: "r".into(),
            runs: Vec::new(),
            file: dir.join("prog"),
            vmas: (lo, hi),
            delta: 0,
        };
        let routines = [routine(0x1000, 0x1010), routine(0x1010, 0x1020)];
        for (symbol_at_end, runs) in [(false, 2), (true, 1)] {
            // The shared run (0x1000-0x1020), and each routine alone.
            let b_header = if symbol_at_end {
                "0000000000001010 <B>:\\n"
            } else {
                ""
            };
            let fake = dir.join(format!("objdump-{symbol_at_end}"));
            std::fs::write(
                &fake,
                format!(
                    "#!/bin/sh\ncase \"$5 $6\" in\n\
                     *0x1000*0x1020) printf '0000000000001000 <A>:\\n/s/a.c:1\\n    1000:\\tpush   %%rbp\\n/s/a.c:2\\n    100e:\\t{}\\n{b_header}/s/b.c:5\\n    1010:\\tret\\n' ;;\n\
                     *0x1000*0x1010) printf '0000000000001000 <A>:\\n/s/a.c:1\\n    1000:\\tpush   %%rbp\\n/s/a.c:2\\n    100e:\\trex.W\\n' ;;\n\
                     *0x1010*0x1020) printf '/s/b.c:5\\n    1010:\\tret\\n' ;;\n\
                     esac\n",
                    if symbol_at_end { "rex.W" } else { "lea    0x0(,%%rdi,8),%%rax" }
                ),
            )
            .unwrap();
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
            let Disassembly {
                routines: got,
                runs: n,
                ..
            } = disassemble_all(&fake, &routines).unwrap(); // (test: its own fake objdump)
            assert_eq!(n, runs, "symbol at the end: {symbol_at_end}");
            for (r, got) in routines.iter().zip(&got) {
                let alone = parse_objdump(&objdump_run(&fake, r));
                assert!(!alone.is_empty());
                assert_eq!(got, &alone, "symbol at the end: {symbol_at_end}");
            }
            assert_eq!(got[0][1].text, "rex.W");
        }
    }

    /// objdump failing on a file (here as on a file of another architecture) is said once
    /// per file, its routines left without instructions, the others' kept (and those of a
    /// run that failed after printing them); objdump that cannot be run fails the mode.
    #[test]
    fn objdump_failing_on_a_file_is_said() {
        use std::os::unix::fs::PermissionsExt;
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fake-objdump");
        // (Test code: its own folder and script under target/; no input reaches these
        // unwraps, and a failure is the test's.)
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("objdump-failing");
        std::fs::write(
            &fake,
            concat!(
                "#!/bin/sh\n",
                "case \"$7\" in\n",
                "*arm*) echo \"objdump: can't disassemble for architecture UNKNOWN!\" >&2; echo; exit 1 ;;\n",
                "*partial*) printf '    1000:\\tret\\n'; echo 'objdump: DWARF error' >&2; exit 1 ;;\n",
                "*) printf '/s/a.c:1\\n    1000:\\tret\\n' ;;\n",
                "esac\n",
            ),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let routine = |file: &str, lo: u64| ListedRoutine {
            short: "r".into(),
            runs: Vec::new(),
            file: dir.join(file),
            vmas: (lo, lo + 0x10),
            delta: 0,
        };
        // Two routines of the failing file far apart (two runs), one of the other.
        let routines = [
            routine("arm", 0x1000),
            routine("x86", 0x1000),
            routine("arm", 0x100000),
            routine("partial", 0x1000),
        ];
        let done = disassemble_all(&fake, &routines).unwrap();
        assert_eq!(
            done.failed,
            vec![format!(
                "{} failed on {} (exit status 1): can't disassemble for architecture UNKNOWN!; \
                 its routines show no instructions",
                fake.display(),
                dir.join("arm").display()
            )]
        );
        assert_eq!(done.routines[0], Vec::new());
        assert_eq!(done.routines[1].len(), 1);
        assert_eq!(done.routines[2], Vec::new());
        // A failure after instructions keeps them.
        assert_eq!(done.routines[3].len(), 1);
        assert!(disassemble_all(&dir.join("no-such-objdump"), &routines).is_err());
        // A web request's token, set (its client gone), stops the threads running objdump.
        let gone = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let stopped = crate::cancel::with_token(gone, || disassemble_all(&fake, &routines));
        assert!(stopped.is_err_and(|e| e.to_string().contains("interrupted")));
    }

    /// A stop asked while a group's routines are run alone one by one (objdump printed the
    /// group's instructions out of order) stops them: no run starts after it.
    #[test]
    fn a_stop_stops_the_routines_run_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fake-objdump-stop");
        // (Test code: its own folder and script under target/; no input reaches these
        // unwraps, and a failure is the test's.)
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (log, stop, ack) = (dir.join("log"), dir.join("stop"), dir.join("ack"));
        let fake = dir.join("objdump");
        // Each run is logged; the second waits (at most 10 s) for the test to ask for the
        // stop. The group's run (0x1000-0x10a0) prints its instructions out of order.
        std::fs::write(
            &fake,
            format!(
                concat!(
                    "#!/bin/sh\n",
                    "echo \"$5\" >> '{log}'\n",
                    "if [ \"$(wc -l < '{log}')\" -eq 2 ]; then\n",
                    "  touch '{stop}'; i=0\n",
                    "  while [ ! -e '{ack}' ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done\n",
                    "fi\n",
                    "a=${{5#--start-address=0x}}\n",
                    "case \"$5 $6\" in\n",
                    "*=0x1000*=0x10a0) printf '    1010:\\tret\\n    1000:\\tret\\n' ;;\n",
                    "*) printf '    %s:\\tret\\n' \"$a\" ;;\n",
                    "esac\n",
                ),
                log = log.display(),
                stop = stop.display(),
                ack = ack.display(),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let routines: Vec<ListedRoutine> = (0..10u64)
            .map(|k| ListedRoutine {
                short: format!("r{k}").into(),
                runs: Vec::new(),
                file: dir.join("prog"),
                vmas: (0x1000 + 0x10 * k, 0x1010 + 0x10 * k),
                delta: 0,
            })
            .collect();
        // Unstopped: the group's run, then each routine alone.
        let token = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watcher = {
            let (token, stop, ack) = (token.clone(), stop.clone(), ack.clone());
            std::thread::spawn(move || {
                for _ in 0..2000 {
                    if stop.exists() {
                        token.store(true, std::sync::atomic::Ordering::Relaxed);
                        std::fs::write(&ack, "").unwrap();
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            })
        };
        let stopped = crate::cancel::with_token(token, || disassemble_all(&fake, &routines));
        watcher.join().unwrap();
        assert!(stopped.is_err_and(|e| e.to_string().contains("interrupted")));
        let runs = std::fs::read_to_string(&log).unwrap();
        assert_eq!(runs.lines().count(), 2, "{runs}");
        // Without a stop, all eleven runs, each routine's instruction its own.
        // (As above: the test's own files and fake objdump; no input reaches the unwraps.)
        std::fs::remove_file(&log).unwrap();
        std::fs::write(&ack, "").unwrap();
        let done = disassemble_all(&fake, &routines).unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 11);
        for (k, insns) in done.routines.iter().enumerate() {
            assert_eq!(insns.len(), 1, "{k}: {insns:?}");
            assert_eq!(insns[0].vma, 0x1000 + 0x10 * k as u64);
        }
    }

    fn objdump_run(objdump: &Path, r: &ListedRoutine) -> String {
        match super::objdump(objdump, r) {
            Ok(text) => text,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn finds_objdump_as_pprof() {
        assert_eq!(objdump_path(None).ok(), Some(PathBuf::from("objdump")));
        assert_eq!(
            objdump_path(Some("/x/,objdump:/opt/bin/od")).ok(),
            Some(PathBuf::from("/opt/bin/od"))
        );
        assert!(objdump_path(Some("/nonexistent/prefix-")).is_err());
        if Path::new("/usr/bin/objdump").is_file() {
            assert_eq!(
                objdump_path(Some("/nonexistent/,/usr/bin/")).ok(),
                Some(PathBuf::from("/usr/bin/objdump"))
            );
        }
    }

    /// `--list --pprof_quirks` stops counting a routine loaded above its file address at its
    /// last instruction (objdump's), as pprof's `--list` does; one loaded where it is linked
    /// is counted to its end. Then the listing leaves out what is past the cut.
    #[test]
    fn the_lists_cut_is_the_last_instruction_of_a_loaded_routine() {
        if !Path::new("/usr/bin/objdump").is_file() {
            eprintln!("SKIPPED the_lists_cut_...: objdump (binutils) is not installed");
            return;
        }
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/t-cpu/tcpu-pie");
        // cmp_str: 0x1259-0x126a, its last instruction `ret` at 0x1269.
        let routine = |delta: u64| ListedRoutine {
            short: "cmp_str".into(),
            runs: vec![crate::symbolize::local::SourceRun {
                start: 0x1259u64.wrapping_add(delta),
                end: 0x126au64.wrapping_add(delta),
                file: file.with_file_name("tcpu.c").to_string_lossy().into_owned(),
                line: 30,
            }],
            file: file.clone(),
            vmas: (0x1259, 0x126a),
            delta,
        };
        let objdump = Path::new("/usr/bin/objdump");
        let pie = 0x5555_5555_4000;
        assert_eq!(pprof_list_cut(objdump, &routine(pie)), Some(pie + 0x1269));
        assert_eq!(pprof_list_cut(objdump, &routine(0)), None);
        let values = AddressValues::of(
            [(vec![pie + 0x1260], 2.0), (vec![pie + 0x1269], 1.0)]
                .iter()
                .map(|(s, v)| (s.as_slice(), *v)),
        );
        let listing = |cuts: &[Option<u64>]| {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            crate::report::list::write(
                &mut out,
                &mut err,
                &[routine(pie)],
                &values,
                Measure::Samples,
                cuts,
            )
            .unwrap(); // (a Vec does not fail)
            String::from_utf8(out).unwrap() // (the text is rpprof's)
        };
        let totals = |n: u32| format!("{n:>6} {n:>6} Total samples");
        assert!(listing(&[]).contains(&totals(3)), "{}", listing(&[]));
        let cut = listing(&[Some(pie + 0x1269)]);
        assert!(cut.contains(&totals(2)), "{cut}");
    }

    /// The last instruction of a routine loaded above its file address has its samples,
    /// except under `--pprof_quirks` (pprof ends it at the file's end address).
    #[test]
    fn last_instruction_counts_unless_pprof_quirks() {
        let insn = |vma: u64, line: i64| Instruction {
            vma,
            file: "/nonexistent/t.c".into(),
            line,
            text: "nop".into(),
        };
        let insns = [insn(0x1230, 7), insn(0x1235, 8)];
        let routine = |delta: u64| ListedRoutine {
            short: "f".into(),
            runs: Vec::new(),
            file: PathBuf::from("/nonexistent/t"),
            vmas: (0x1230, 0x1237),
            delta,
        };
        let render = |delta: u64, quirks: bool| {
            let stacks: Vec<(Vec<u64>, f64)> = vec![
                (vec![0x1230u64.wrapping_add(delta)], 2.0),
                (vec![0x1236u64.wrapping_add(delta)], 1.0),
            ];
            let values = AddressValues::of(stacks.iter().map(|(s, v)| (s.as_slice(), *v)));
            let mut out = Vec::new();
            let mut sources = HashMap::new();
            write_routine(
                &mut out,
                &routine(delta),
                &insns,
                &values,
                Measure::Samples,
                3.0,
                quirks,
                &mut sources,
            )
            .unwrap(); // (a Vec does not fail)
            String::from_utf8(out).unwrap() // (the text is rpprof's)
        };
        let pie = 0x5555_5555_4000;
        for (delta, quirks, last) in [(pie, false, 1), (0, true, 1), (pie, true, 0)] {
            let text = render(delta, quirks);
            let total = 2 + last;
            assert!(
                text.contains(&format!("{total:>6} {total:>6} samples (flat")),
                "{delta:x} {quirks}: {text}"
            );
            let shown = if last == 0 {
                ".".to_string()
            } else {
                last.to_string()
            };
            let row = format!("{shown:>6} {shown:>6}        1235:");
            assert!(text.contains(&row), "{delta:x} {quirks}: {text}");
        }
    }

    #[test]
    fn cleans_as_pprof() {
        assert_eq!(
            clean("call   401020 <foo(int)@plt>"),
            "call   401020 <foo@plt>"
        );
        assert_eq!(clean("mov    0x8(%rax),%rdx"), "mov    0x8(%rax),%rdx");
        assert_eq!(
            clean("call   4011a0 <std::vector<int, std::allocator<int> >::size() const>"),
            "call   4011a0 <std::vector::size>"
        );
    }
}
