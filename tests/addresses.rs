//! Exact function, file and line for known addresses of the project's own programs
//! (`testdata/`): every address of every testdata profile that falls in a case's own ELF file
//! (PIE and non-PIE programs, a shared library with a function inlined at -O2, a dlopen'ed
//! plugin, a stripped program with a `.gnu_debuglink` debug file, Rust with and without DWARF),
//! answered as binutils 2.40's `addr2line -f -i -C` answered it when `testdata/addresses.py`
//! recorded `testdata/addresses.tsv`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rpprof::symbolize::elf::Elf;
use rpprof::symbolize::lookup::Addr2Line;
use rpprof::symbolize::{dwarf, names};

/// file -> [(address, [(function, place)])], in the order addresses.py asked binutils.
type Answers = BTreeMap<String, Vec<(u64, Vec<(String, String)>)>>;

fn recorded() -> Answers {
    let text = std::fs::read_to_string(common::root().join("testdata/addresses.tsv"))
        .expect("testdata/addresses.tsv");
    parse_answers(&text)
}

/// Rows of `testdata/addresses.tsv`'s form: file, address (hex), then function and place of
/// each frame.
fn parse_answers(text: &str) -> Answers {
    let mut out = Answers::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert!(
            f.len() >= 4 && f.len().is_multiple_of(2),
            "bad row {line:?}"
        );
        let vma = u64::from_str_radix(f[1], 16).expect("hex address");
        let frames = f[2..]
            .chunks(2)
            .map(|c| (c[0].to_string(), c[1].to_string()))
            .collect();
        out.entry(f[0].to_string()).or_default().push((vma, frames));
    }
    out
}

/// rpprof's answers for the recorded addresses of every file, asked in the recorded order.
fn answers(binutils_inline_names: bool) -> Answers {
    answers_with(binutils_inline_names, false)
}

/// [`answers`]; with `only_asked`, each file's DWARF keeps only what answers the addresses
/// asked (as the symbolizer loads it).
fn answers_with(binutils_inline_names: bool, only_asked: bool) -> Answers {
    answers_of(recorded(), binutils_inline_names, only_asked)
}

/// rpprof's answers for the addresses of `asked` (file -> addresses, in order), as
/// [`answers_with`].
fn answers_of(asked: Answers, binutils_inline_names: bool, only_asked: bool) -> Answers {
    let mut out = Answers::new();
    for (file, rows) in asked {
        let path = common::root().join("testdata").join(&file);
        let elf = Elf::open(Path::new(&path)).expect("open testdata ELF file");
        let mut warnings = Vec::new();
        let mut asked: Vec<u64> = rows.iter().map(|r| r.0).collect();
        asked.sort_unstable();
        asked.dedup();
        let wanted = only_asked.then(|| std::sync::Arc::from(asked));
        let dw = dwarf::load_for(
            &elf,
            binutils_inline_names,
            wanted,
            &mut None,
            &mut warnings,
        );
        let a2l = Addr2Line::new(&elf, dw.as_deref());
        let got = rows
            .iter()
            .map(|(vma, _)| {
                let frames = a2l
                    .lookup(*vma, true)
                    .into_iter()
                    .map(|f| (f.function.to_string(), f.place))
                    .collect();
                (*vma, frames)
            })
            .collect();
        out.insert(file, got);
    }
    out
}

fn frame(function: &str, place: &str) -> (String, String) {
    (function.to_string(), place.to_string())
}

/// With binutils' naming of inlined functions (`--pprof_quirks`), every answer is binutils'.
#[test]
fn every_recorded_address_as_binutils_answers_it() {
    let want = recorded();
    let got = answers(true);
    let mut compared = 0;
    let mut failures = Vec::new();
    for (file, rows) in &want {
        for ((vma, w), (_, g)) in rows.iter().zip(&got[file]) {
            compared += 1;
            if w != g {
                failures.push(format!("{file} 0x{vma:x}\n  want {w:?}\n  got  {g:?}"));
            }
        }
    }
    assert!(compared > 300, "only {compared} addresses recorded");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// DWARF read for the asked addresses only (line rows and functions that answer them) gives
/// the same answers as DWARF read whole, in both naming modes.
#[test]
fn dwarf_read_for_the_asked_addresses_answers_the_same() {
    for binutils in [true, false] {
        let whole = answers_with(binutils, false);
        let only = answers_with(binutils, true);
        assert_eq!(whole.len(), only.len());
        for (file, rows) in &whole {
            assert_eq!(rows, &only[file], "{file}, binutils names: {binutils}");
        }
    }
}

/// By default, inlined functions are named after themselves; everything else — the number of
/// frames, every file and line, the outermost function — is binutils' answer, except that an
/// outermost function binutils names by its bare DWARF name (it has no linkage name: a
/// template instance over a lambda, any function of a Rust build with line tables only) is
/// named by the symbol holding the address, as binutils names it where it is the innermost.
#[test]
fn default_names_differ_only_for_inlined_functions() {
    let want = recorded();
    let got = answers(false);
    let mut renamed = 0;
    let mut outer_renamed = 0;
    for (file, rows) in &want {
        let path = common::root().join("testdata").join(file);
        let elf = Elf::open(Path::new(&path)).expect("open testdata ELF file");
        for ((vma, w), (_, g)) in rows.iter().zip(&got[file]) {
            assert_eq!(w.len(), g.len(), "{file} 0x{vma:x}: {w:?} vs {g:?}");
            for (i, (wf, gf)) in w.iter().zip(g).enumerate() {
                assert_eq!(wf.1, gf.1, "{file} 0x{vma:x} frame {i}: place");
                if i + 1 == w.len() {
                    if wf.0 != gf.0 {
                        let sym = elf
                            .symtab()
                            .iter()
                            .find(|s| s.value <= *vma && *vma < s.value + s.size.max(1))
                            .map(|s| {
                                rpprof::symbolize::demangle::demangle(&String::from_utf8_lossy(
                                    elf.sym_name(s),
                                ))
                            });
                        assert_eq!(
                            sym.as_deref(),
                            Some(gf.0.as_str()),
                            "{file} 0x{vma:x}: outermost function (binutils: {})",
                            wf.0
                        );
                        outer_renamed += 1;
                    }
                } else if wf.0 != gf.0 {
                    renamed += 1;
                }
            }
        }
    }
    assert!(renamed > 0, "no inlined function was renamed");
    assert!(outer_renamed > 0, "no outermost function was renamed");
}

/// The answer for `vma` of testdata's `file`, asked alone of a fresh reader, which reads
/// the DWARF for that address only (`only_asked`) or whole.
fn alone(
    file: &str,
    vma: u64,
    binutils_inline_names: bool,
    only_asked: bool,
) -> Vec<(String, String)> {
    let path = common::root().join("testdata").join(file);
    let elf = Elf::open(Path::new(&path)).expect("open testdata ELF file");
    let wanted = only_asked.then(|| std::sync::Arc::from(vec![vma]));
    let dw = dwarf::load_for(
        &elf,
        binutils_inline_names,
        wanted,
        &mut None,
        &mut Vec::new(),
    );
    Addr2Line::new(&elf, dw.as_deref())
        .lookup(vma, true)
        .into_iter()
        .map(|f| (f.function.to_string(), f.place))
        .collect()
}

/// Asked for one address, the reader skips the entries (parameters, call sites, inlined
/// copies, local classes) of every function that does not hold it: each recorded address
/// asked alone is answered as when the DWARF is read whole, in both naming modes.
#[test]
fn each_address_asked_alone_is_answered_as_with_the_whole_dwarf() {
    let mut compared = 0;
    for (file, rows) in recorded() {
        for binutils in [true, false] {
            for &(vma, _) in &rows {
                assert_eq!(
                    alone(&file, vma, binutils, true),
                    alone(&file, vma, binutils, false),
                    "{file} 0x{vma:x}, binutils names: {binutils}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 600, "only {compared} answers compared");
}

/// A GNU C nested function has its DWARF entry among its parent's entries, its code outside
/// the parent's: asked for its addresses alone, the parent's entries skipped, the reader
/// still finds it and the function inlined into it.
#[test]
fn a_nested_function_asked_alone_is_found() {
    let file = "t-dwarf/nested";
    let elf = Elf::open(&common::root().join("testdata").join(file)).expect("t-dwarf/nested");
    let inner = elf
        .symtab()
        .iter()
        .find(|s| elf.sym_name(s) == b"inner.0")
        .expect("a symbol inner.0");
    let dir = "/tmp/rpprof-corpus/t-dwarf";
    let mut inlined = 0;
    for vma in inner.value..inner.value + inner.size {
        let got = alone(file, vma, false, true);
        assert_eq!(got, alone(file, vma, false, false), "0x{vma:x}");
        if got.len() == 2 {
            assert_eq!(got[0], frame("square", &format!("{dir}/nested.c:11")));
            inlined += 1;
        }
    }
    assert_eq!(inlined, 6, "addresses in square inlined into inner");
}

/// A member function of a local class is declared among the entries of the function that
/// defines the class: inlined into another function and asked for there alone, the
/// defining function's entries skipped, it is still named with its class and that function,
/// as a demangler names the out-of-line copy (`outer(int)::Scaler::operator()(int) const`);
/// and only with its own class, when an earlier class of the same function comes before it.
#[test]
fn a_local_class_member_inlined_elsewhere_is_named_with_its_class() {
    let file = "t-dwarf/local";
    let elf = Elf::open(&common::root().join("testdata").join(file)).expect("t-dwarf/local");
    let mut named = std::collections::BTreeSet::new();
    for apply in elf
        .symtab()
        .iter()
        .filter(|s| elf.sym_name(s).starts_with(b"_Z5applyI"))
    {
        for vma in apply.value..apply.value + apply.size {
            let got = alone(file, vma, false, true);
            assert_eq!(got, alone(file, vma, false, false), "0x{vma:x}");
            if got.len() == 2 {
                named.insert(got[0].0.clone());
            }
        }
    }
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        [
            "outer::Scaler::operator()",
            "twice::First::operator()",
            "twice::Second::operator()"
        ]
    );
}

/// GCC gives a lambda's call operator no linkage name and its closure type no name: an
/// inlined lambda is named after the function it is written in and its number there (the
/// function's lambdas numbered from 1 in the order they are written, whatever their
/// parameters, in blocks and default arguments too: GCC's own numbering, in the names of
/// `call`'s instances), a lambda in a lambda after that one's call operator; asked alone
/// (`tf`'s entries skipped) as with the whole DWARF. Their short names are those of their
/// out-of-line copies.
#[test]
fn an_inlined_lambda_is_named_after_its_function_and_number() {
    let file = "t-dwarf/lambda";
    let elf = Elf::open(&common::root().join("testdata").join(file)).expect("t-dwarf/lambda");
    // Each instance of `call` and the frame inlined into it.
    let expected = [
        (
            "_Z4callIZN2ns2tfEiEUliE_EiT_i",
            "ns::tf::{lambda#1}::operator()",
        ),
        (
            "_Z4callIZN2ns2tfEiEUllE0_EiT_i",
            "ns::tf::{lambda#2}::operator()",
        ),
        (
            "_Z4callIZN2ns2tfEiEUliE1_EiT_i",
            "ns::tf::{lambda#3}::operator()",
        ),
        (
            "_Z4callIZZN2ns2tfEiENKUliE1_clEiEUliE_EiT_i",
            "ns::tf::{lambda#3}::operator()::{lambda#1}::operator()",
        ),
        (
            "_Z4callIZN2ns2tfEiEUliPFiiEE2_EiT_i.constprop.0",
            "ns::tf::{lambda#4}::operator()",
        ),
    ];
    let mut inner = std::collections::BTreeSet::new();
    for (symbol, name) in expected {
        let sym = elf
            .symtab()
            .iter()
            .find(|s| elf.sym_name(s) == symbol.as_bytes())
            .unwrap_or_else(|| panic!("a symbol {symbol}"));
        let mut named = std::collections::BTreeSet::new();
        for vma in sym.value..sym.value + sym.size {
            let got = alone(file, vma, false, true);
            assert_eq!(got, alone(file, vma, false, false), "0x{vma:x}");
            if got.len() >= 2 {
                named.insert(got[got.len() - 2].0.clone());
                inner.insert(got[0].0.clone());
            }
        }
        assert_eq!(named.into_iter().collect::<Vec<_>>(), [name], "in {symbol}");
    }
    // The default argument's lambda, inlined into #4's call operator.
    assert!(
        inner.contains("ns::tf::{lambda#5}::operator()"),
        "{inner:?}"
    );
    // The out-of-line copy of the nested lambda, as the demangler names it, has the same
    // short name.
    assert_eq!(
        names::short_name(
            "ns::tf(int)::{lambda(int)#3}::operator()(int) const::{lambda(int)#1}::operator()(int) const",
            false
        ),
        names::short_name(
            "ns::tf::{lambda#3}::operator()::{lambda#1}::operator()",
            false
        )
    );
}

fn lookup(file: &str, vma: u64) -> Vec<(String, String)> {
    answers(false)
        .remove(file)
        .and_then(|rows| rows.into_iter().find(|(v, _)| *v == vma))
        .map(|(_, frames)| frames)
        .unwrap_or_else(|| panic!("{file} 0x{vma:x} is not a recorded address"))
}

/// Spot checks of the default answers, one per kind of binary.
#[test]
fn known_addresses() {
    let dir = "/tmp/rpprof-corpus";
    // A `static inline` C++ helper inlined into make_record: binutils calls it make_record;
    // its DWARF has no linkage name, so it is named by its qualified DWARF name.
    assert_eq!(
        lookup("t-heap/theap", 0x283d),
        vec![
            frame(
                "tdata::store::copy_bytes",
                &format!("{dir}/t-heap/theap.cc:26")
            ),
            frame(
                "tdata::store::make_record(long)",
                &format!("{dir}/t-heap/theap.cc:44")
            ),
        ]
    );
    // A shared library built at -O2: twork_step inlined into twork_checksum.
    assert_eq!(
        lookup("t-cpu/libtwork.so", 0x1131),
        vec![
            frame(
                "twork_step",
                &format!("{dir}/t-cpu/twork.c:8 (discriminator 3)")
            ),
            frame(
                "twork_checksum",
                &format!("{dir}/t-cpu/twork.c:19 (discriminator 3)")
            ),
        ]
    );
    // A stripped program: names and lines from its .gnu_debuglink file.
    assert_eq!(
        lookup("t-stripped/tstrip", 0x11be),
        vec![frame("vm_run", &format!("{dir}/t-stripped/tstrip.c:52"))]
    );
}

/// The rows of a gzip'ed file of `testdata/addresses.tsv`'s form.
fn gzipped_answers(file: &str) -> Answers {
    use std::io::Read;
    let gz = std::fs::read(common::root().join("testdata").join(file)).expect(file);
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .expect("gzip'ed text");
    parse_answers(&text)
}

/// What binutils answered for every instruction of t-dwz's program and library before
/// `dwz -m` moved the entries they share into `tdwz.dwz` (`t-dwz/build.sh`).
fn before_dwz() -> Answers {
    gzipped_answers("t-dwz/before-dwz.tsv.gz")
}

/// The files as a distribution's debug package has them after `dwz -m`: names of inlined
/// functions in a third file (`.gnu_debugaltlink`, here named relatively; the library's in
/// its separate debug file), partial units that share a unit's line table. Every
/// instruction, asked in order from `.init` (which no unit holds: every unit is read then,
/// the partial ones too), is answered as binutils answered it before dwz, with the DWARF
/// read whole and for the asked addresses only.
#[test]
fn files_processed_by_dwz_answer_as_before() {
    let want = before_dwz();
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        ["t-dwz/libtdwz.so", "t-dwz/tdwz"]
    );
    for (file, rows) in &want {
        // The first asked is the first instruction of .init.
        assert_eq!(rows[0].1[0].0, "_init", "{file}");
    }
    assert_answers_as(&want, 2000);
}

/// Asks rpprof every address of `want` (binutils' names of inlined functions), with the
/// DWARF read whole and for the asked addresses only, and fails naming the first answers
/// that differ; `at_least`: how many addresses there must be.
fn assert_answers_as(want: &Answers, at_least: usize) {
    for only_asked in [false, true] {
        let got = answers_of(want.clone(), true, only_asked);
        let mut compared = 0;
        let mut failures = Vec::new();
        for (file, rows) in want {
            for ((vma, w), (_, g)) in rows.iter().zip(&got[file]) {
                compared += 1;
                if w != g {
                    failures.push(format!("{file} 0x{vma:x}\n  want {w:?}\n  got  {g:?}"));
                }
            }
        }
        assert!(compared > at_least, "only {compared} addresses");
        assert!(
            failures.is_empty(),
            "{} of {compared} differ (only asked: {only_asked}):\n{}",
            failures.len(),
            failures[..failures.len().min(5)].join("\n")
        );
    }
}

/// A fresh folder `<name>-<pid>` under the temporary directory holding a copy of t-dwz's
/// program alone (its dwz file to be put there by the test); the folder and testdata.
fn dwz_program_copy(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let testdata = common::root().join("testdata");
    std::fs::copy(testdata.join("t-dwz/tdwz"), dir.join("tdwz")).unwrap();
    (dir, testdata)
}

/// The file named by `.gnu_debugaltlink` missing, or another build's in its place: said,
/// with the file's name; the functions named there lose their names (`??`, or the symbol
/// holding the address), every frame and place is still answered.
#[test]
fn a_missing_or_foreign_dwz_file_is_said() {
    let (dir, testdata) = dwz_program_copy("rpprof-dwz");
    let want = &before_dwz()["t-dwz/tdwz"];
    for foreign in [false, true] {
        if foreign {
            // An ELF file of another build under the name the link gives.
            std::fs::copy(testdata.join("t-cpu/libtwork.so"), dir.join("tdwz.dwz")).unwrap();
        }
        let elf = Elf::open(&dir.join("tdwz")).unwrap();
        let mut warnings = Vec::new();
        let dw = dwarf::load_for(&elf, true, None, &mut None, &mut warnings);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("its DWARF shares entries with the file tdwz.dwz")
                && warnings[0].contains("not there or is of another build"),
            "{warnings:?}"
        );
        let a2l = Addr2Line::new(&elf, dw.as_deref());
        let mut unnamed = 0;
        for (vma, w) in want {
            let got: Vec<(String, String)> = a2l
                .lookup(*vma, true)
                .into_iter()
                .map(|f| (f.function.to_string(), f.place))
                .collect();
            // Places and frames are all there; some names are not.
            assert_eq!(got.len(), w.len(), "0x{vma:x}");
            for (g, w) in got.iter().zip(w) {
                assert_eq!(g.1, w.1, "0x{vma:x}");
                unnamed += usize::from(g.0 != w.0);
            }
        }
        assert!(unnamed > 100, "only {unnamed} names missing");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program built with `-gsplit-dwarf`: its functions and inlined frames are in the
/// units' `.dwo` files (found through each skeleton unit's compilation directory: the case
/// is linked at its build path). Every instruction is answered as binutils answered it for
/// the same program built without split DWARF (`t-split/build.sh` checks that code and
/// data are the same), with the DWARF read whole and for the asked addresses only.
#[test]
fn a_split_dwarf_program_answers_as_its_plain_build() {
    common::link_case("t-split");
    let want = gzipped_answers("t-split/plain-answers.tsv.gz");
    assert_eq!(want.keys().collect::<Vec<_>>(), ["t-split/tsplit"]);
    assert_answers_as(&want, 1000);
    // The .dwo files are part of what the symbol cache's key is made of.
    let elf = Elf::open(&common::root().join("testdata/t-split/tsplit")).unwrap();
    assert_eq!(
        dwarf::dependency_candidates(&elf),
        [
            common::root().join("testdata/t-split/tsplit.dwp"),
            PathBuf::from("/tmp/rpprof-corpus/t-split/tsplit.dwo"),
            PathBuf::from("/tmp/rpprof-corpus/t-split/tsplit_index.dwo")
        ]
    );
}

/// The same program as copied off the build machine (its units' compilation directory does
/// not exist here): said, with a file it looked for; the functions are named from the
/// symbol table, the lines are the skeleton units' own.
#[test]
fn a_split_dwarf_program_without_its_dwo_files_says_so() {
    let elf = Elf::open(&common::root().join("testdata/t-split/tsplit-moved")).unwrap();
    let mut warnings = Vec::new();
    let dw = dwarf::load_for(&elf, false, None, &mut None, &mut warnings);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(
            "built with -gsplit-dwarf, its functions are in .dwo files, of which 2 cannot be read (e.g. /nonexistent/t-split/moved_tsplit.dwo (No such file"
        ),
        "{warnings:?}"
    );
    let main = elf
        .symtab()
        .iter()
        .find(|s| elf.sym_name(s) == b"main")
        .map(|s| s.value)
        .expect("main");
    let frames = Addr2Line::new(&elf, dw.as_deref()).lookup(main, true);
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(frames[0].function.to_string(), "main");
    assert!(
        frames[0]
            .place
            .starts_with("/nonexistent/t-split/tsplit.cc:"),
        "{frames:?}"
    );
}

/// The same program in the GNU DWARF 4 form of split DWARF, as shipped: its `.dwo` files
/// are not where its units say (`/nonexistent/t-split-packed`) but packed by `dwp` into
/// `tsplit-packed.dwp` next to it. Every instruction is answered as binutils answered the
/// same build without split DWARF, with the DWARF read whole and for the asked addresses
/// only; the package is part of the cache key.
#[test]
fn a_split_dwarf_program_answers_from_its_dwp_package() {
    let want = gzipped_answers("t-split/plain4-answers.tsv.gz");
    assert_eq!(want.keys().collect::<Vec<_>>(), ["t-split/tsplit-packed"]);
    assert_answers_as(&want, 1000);
    let path = common::root().join("testdata/t-split/tsplit-packed");
    let elf = Elf::open(&path).unwrap();
    let mut warnings = Vec::new();
    dwarf::load_for(&elf, false, None, &mut None, &mut warnings);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(
        dwarf::dependency_candidates(&elf)
            .contains(&common::root().join("testdata/t-split/tsplit-packed.dwp")),
        "the package is not part of the cache key"
    );
}

/// The file named by `.gnu_debugaltlink` there, of the right build, but its entries
/// damaged: said, naming the file.
#[test]
fn a_damaged_dwz_file_is_said() {
    let (dir, testdata) = dwz_program_copy("rpprof-dwz-damaged");
    let common_file = testdata.join("t-dwz/tdwz.dwz");
    let info = Elf::open(&common_file)
        .unwrap()
        .sections
        .iter()
        .find(|s| &*s.name == b".debug_info")
        .map(|s| (s.offset as usize, s.size as usize))
        .expect(".debug_info");
    let mut bytes = std::fs::read(&common_file).unwrap();
    bytes[info.0..info.0 + info.1].fill(0xff);
    std::fs::write(dir.join("tdwz.dwz"), bytes).unwrap();
    let elf = Elf::open(&dir.join("tdwz")).unwrap();
    let mut warnings = Vec::new();
    dwarf::load_for(&elf, true, None, &mut None, &mut warnings);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(
            "tdwz.dwz it shares entries with is damaged (its .debug_info cannot be read from byte 0"
        ),
        "{warnings:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Functions the linker discarded (`-ffunction-sections -Wl,--gc-sections`) keep their DWARF,
/// their ranges and line sequences starting at address 0, and in a small PIE those cover
/// the live code: binutils names `_start` after a discarded function and answers `hot`'s
/// lines from a discarded function's sequence; the copies of a function inlined into a
/// discarded one may have ranges that are offsets from 0 (`gcinline`). Every address of
/// every live function is answered with its own name (from the symbol table where it has no
/// DWARF) and, where it has DWARF, its own lines (and those of the functions inlined into
/// it), whether the DWARF is read whole or for the address alone; a unit discarded whole is
/// not read for them.
#[test]
fn discarded_functions_do_not_cover_live_code() {
    for (file, source) in [
        ("t-dwarf/gcsections-dwarf4", "gcsections.c"),
        ("t-dwarf/gcsections-dwarf5", "gcsections.c"),
        ("t-dwarf/gcinline", "gcinline.c"),
    ] {
        let text = std::fs::read_to_string(common::root().join("testdata/t-dwarf").join(source))
            .expect(source);
        // The lines of a function with DWARF: from its first line to its closing brace.
        let lines_of = |name: &str| {
            let at = |pred: &dyn Fn(&str) -> bool, from: usize| {
                text.lines()
                    .enumerate()
                    .skip(from)
                    .find(|(_, l)| pred(l))
                    .map(|(i, _)| i + 1)
                    .unwrap_or_else(|| panic!("{name} in {source}"))
            };
            let first = at(&|l: &str| l.contains(&format!(" {name}(")), 0);
            (first, at(&|l: &str| l.starts_with('}'), first))
        };
        let line_of = |place: &str, what: &str| {
            place
                .strip_prefix(&format!("/tmp/rpprof-corpus/t-dwarf/{source}:"))
                .and_then(|l| l.split(' ').next())
                .and_then(|l| l.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{what}: place {place}"))
        };
        let elf = Elf::open(&common::root().join("testdata").join(file)).expect(file);
        let mut checked = 0;
        for sym in elf.symtab() {
            let name = String::from_utf8_lossy(elf.sym_name(sym)).into_owned();
            if sym.size == 0 || !["_start", "main", "hot"].contains(&name.as_str()) {
                continue;
            }
            for vma in sym.value..sym.value + sym.size {
                for only_asked in [false, true] {
                    let got = alone(file, vma, false, only_asked);
                    let what = format!("{file} 0x{vma:x} ({name}), only asked: {only_asked}");
                    let (outer, inner) = got.split_last().expect("a frame");
                    assert_eq!(outer.0, name, "{what}: {got:?}");
                    if name == "_start" {
                        assert_eq!(outer.1, "??:?", "{what}");
                        continue;
                    }
                    // main has atol inlined into it (and rows of its code outside its
                    // inlined range), hot helper.
                    for f in inner {
                        match (name.as_str(), f.0.as_str()) {
                            ("main", "atol") => {}
                            ("hot", "helper") => {
                                let (first, last) = lines_of("helper");
                                let line = line_of(&f.1, &what);
                                assert!((first..=last).contains(&line), "{what}: {got:?}");
                            }
                            _ => panic!("{what}: {got:?}"),
                        }
                    }
                    if name == "main" && outer.1.starts_with("/usr/include/stdlib.h:") {
                        continue;
                    }
                    let (first, last) = lines_of(&name);
                    let line = line_of(&outer.1, &what);
                    assert!(
                        (first..=last).contains(&line),
                        "{what}: line {line}, not in {first}..={last}"
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 100, "{file}: only {checked} addresses checked");
        // The unit discarded whole (gcdead.c, the first) is not read for them: its range
        // starts at 0 (DWARF 5; in DWARF 4 its ranges' entries are empty, at 1).
        let dw = dwarf::load_for(&elf, false, None, &mut None, &mut Vec::new()).expect(file);
        let lookup = Addr2Line::new(&elf, Some(&*dw));
        for sym in elf.symtab().iter().filter(|s| elf.sym_name(s) == b"hot") {
            for vma in sym.value..sym.value + sym.size {
                lookup.lookup(vma, true);
            }
        }
        let read = dw.units_read().expect("units read").read;
        assert_eq!(read, 1, "{file}: units read");
    }
}

/// The names of every frame of every address of the functions in `file`'s symbol table.
fn frame_names(file: &str) -> std::collections::BTreeSet<String> {
    let elf = Elf::open(&common::root().join("testdata").join(file)).expect(file);
    let dw = dwarf::load_for(&elf, false, None, &mut None, &mut Vec::new()).expect(file);
    let lookup = Addr2Line::new(&elf, Some(&*dw));
    let mut names = std::collections::BTreeSet::new();
    for sym in elf.symtab() {
        let code = elf
            .section_containing(sym.value)
            .is_some_and(|i| elf.sections[i].code());
        if sym.size == 0 || !code {
            continue;
        }
        for vma in sym.value..sym.value + sym.size {
            names.extend(
                lookup
                    .lookup(vma, true)
                    .into_iter()
                    .map(|f| f.function.to_string()),
            );
        }
    }
    names
}

/// GCC's link-time optimization writes units whose inlined copies refer to the entries of
/// the units of the first compilation, in another unit: those are named with their scopes
/// (a `static` function in a namespace, a member of a local class, a lambda) as in the
/// same program built without it.
#[test]
fn lto_inlined_functions_are_named_as_without_lto() {
    for file in ["t-dwarf/local", "t-dwarf/lambda"] {
        let plain = frame_names(file);
        let lto = frame_names(&format!("{file}-lto"));
        assert_eq!(lto, plain, "{file}");
    }
}
