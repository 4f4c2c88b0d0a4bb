//! The demangler against binutils' answers: `testdata/pairs.txt` holds names harvested from
//! real files with `nm --demangle` (see the repository's `scripts/demangle-harvest.py`), and
//! `testdata/libiberty.txt` mutated names with libiberty's answers.

use rpprof_demangle::{demangle, demangle_core};

fn vectors(file: &str) -> Vec<(String, String)> {
    let path = format!("{}/testdata/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (m, d) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            (m.to_string(), d.to_string())
        })
        .collect()
}

fn report(bad: &[String], total: usize) {
    assert!(
        bad.is_empty(),
        "{} of {total} differ:\n{}",
        bad.len(),
        bad.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn binutils_pairs() {
    let pairs = vectors("pairs.txt");
    assert!(pairs.len() > 5000);
    let bad: Vec<String> = pairs
        .iter()
        .filter_map(|(m, want)| {
            let got = demangle(m);
            (&got != want).then(|| format!("{m}\n  want {want}\n   got {got}"))
        })
        .collect();
    report(&bad, pairs.len());
}

#[test]
fn libiberty_answers() {
    let pairs = vectors("libiberty.txt");
    assert!(pairs.len() > 4000);
    let bad: Vec<String> = pairs
        .iter()
        .filter_map(|(m, want)| {
            let got = demangle_core(m);
            let got = got.as_deref().unwrap_or("<<NONE>>");
            (got != want).then(|| format!("{m}\n  want {want}\n   got {got}"))
        })
        .collect();
    report(&bad, pairs.len());
}
