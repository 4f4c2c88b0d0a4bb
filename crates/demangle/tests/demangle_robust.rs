//! The demangler gets arbitrary bytes from untrusted files: it must never panic, overflow the
//! stack or run away, and where libiberty gives an answer it must give the same.

use rpprof_demangle::{demangle, demangle_core};

/// Runs `f` on a thread with a stack like the main thread's (debug builds use more stack per
/// nesting level than release builds, and test threads are small).
fn on_big_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic");
}

#[test]
fn deep_nesting_matches_libiberty_or_fails() {
    on_big_stack(|| {
        // 1010 nested pointers fit in libiberty's limits (1024 bytes, 1024 nested prints).
        let name = format!("_Z1f{}i", "P".repeat(1010));
        assert_eq!(
            demangle_core(&name).as_deref(),
            Some(format!("f(int{})", "*".repeat(1010)).as_str())
        );
        // 1020 do not: printing nests too deep.
        assert_eq!(demangle_core(&format!("_Z1f{}i", "P".repeat(1020))), None);
        // Longer than 1024 bytes: libiberty refuses (its recursion limit).
        assert_eq!(demangle_core(&format!("_Z1f{}i", "P".repeat(1100))), None);
        for unit in [
            "P", "I", "N", "R", "O", "K", "F", "A1_", "Dp", "J", "X", "Z", "L", "M1a",
        ] {
            for n in [100, 340, 1000, 100_000] {
                let name = format!("_Z1f{}i{}", unit.repeat(n), "E".repeat(n));
                let _ = demangle(&name);
                let name = format!("_ZN1a{}i", unit.repeat(n));
                let _ = demangle(&name);
            }
        }
        let _ = demangle(&format!("_ZN{}E", "1a".repeat(100_000)));
        let _ = demangle(&format!("_R{}", "NvNtC".repeat(50_000)));
        let _ = demangle(&format!("_RIC3foo{}", "INvC1a".repeat(50_000)));
        let _ = demangle(&format!("_RNvC1a{}", "RRRRRR".repeat(50_000)));
        let _ = demangle(&format!("_ZN{}17h0123456789abcdefE", "1a".repeat(100_000)));
    });
}

#[test]
fn exponential_expansion_is_cut_short() {
    // Each template argument doubles the previous one through substitutions: libiberty would
    // print 2^100 characters; we give up quickly.
    fn seq_id(n: usize) -> String {
        if n == 0 {
            return "S_".into();
        }
        let digits = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut n = n - 1;
        let mut s = Vec::new();
        loop {
            s.push(digits[n % 36]);
            n /= 36;
            if n == 0 {
                break;
            }
        }
        s.reverse();
        format!("S{}_", String::from_utf8(s).unwrap())
    }
    let mut name = String::from("_Z1aIJ1bIiiE");
    let mut k = 1;
    while name.len() < 900 {
        name += &format!("S0_I{}{}E", seq_id(k), seq_id(k));
        k += 1;
    }
    name += "EEvv";
    on_big_stack(move || assert_eq!(demangle_core(&name), None));
    // Rust v0 backreferences can do the same.
    let mut name = String::from("_RINvC1a1fT");
    for _ in 0..60 {
        name += "TB_B_E";
    }
    name += "EE";
    on_big_stack(move || {
        let _ = demangle_core(&name);
    });
}

#[test]
fn huge_numbers() {
    for name in [
        "_Z99999999999999999999i",
        "_Z2147483647i",
        "_Z2147483648i",
        "_Z4294967296abcd",
        "_ZN1aT99999999999_E",
        "_Z1fIiEvT2147483646_",
        "_Z1fS99999999999999999_",
        "_ZZ1fvE1a_99999999999999",
        "_Z1fAn5_i",
        "_Z1fDv99999999999999_i",
        "_Z1fDF99999999999999_",
        "_Z1fIiEvUl99999999999_E",
        "_ZTh99999999999999999999_1fv",
        "_RNvC99999999999999999999a",
        "_RNvCsZZZZZZZZZZZZZZZZZZZZZZ_1a1b",
        "_RINvC1a1fKjffffffffffffffffffffffff_E",
        "_RINvC1a1fKcffffffffffff_E",
        "_RINvC1a1fKb5_E",
        "_ZN1a999999999999999999999999999999b17h0123456789abcdefE",
    ] {
        let _ = demangle(name);
    }
    assert_eq!(demangle_core("_Z2147483648i"), None);
    assert_eq!(demangle_core("_Z1fAn5_i"), None);
}

#[test]
fn every_prefix_of_long_names() {
    let names = [
        "_ZN9__gnu_cxx17__normal_iteratorIPKPdSt6vectorIS1_SaIS1_EEEC2IPS1_vEERKNS0_IT_S6_EE",
        "_ZNSt8_Rb_treeINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt4pairIKS5_St6vectorIS5_SaIS5_EEESt10_Select1stISB_ESt4lessIS5_ESaISB_EE24_M_get_insert_unique_posERS7_",
        "_ZZN4llvm2cl3optIbLb0ENS0_6parserIbEEEC1IJA28_cNS0_4descENS0_11initializerIbEENS0_13OptionHiddenEEEEDpRKT_ENKUlRKbE_clESG_.constprop.0.isra.0",
        "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareERKS4_@@GLIBCXX_3.4.21",
        "_RINvNtCs1234_4core3ptr13drop_in_placeINtNtCs5678_5alloc3vec3VecTNtB4_6StringINtNtB8_6option6OptionRINtB4_3BoxDNtNtB8_3ops2FnEL_EEEEEB6_",
        "_ZN4core3fmt5Write9write_fmt17h1a2b3c4d5e6f7a8bE.llvm.12345",
        "_ZTCSt14basic_ifstreamIcSt11char_traitsIcEE0_Si",
        "_ZNSt6thread11_State_implINS_8_InvokerISt5tupleIJZN5store4Pool5startEvEUlvE_EEEEE6_M_runEv.cold",
    ];
    for name in names {
        for i in 0..=name.len() {
            let _ = demangle(&name[..i]);
            let _ = demangle(&name[i..]);
        }
    }
}

#[test]
fn garbage_does_not_panic() {
    // A small xorshift generator: no dependencies, same inputs every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"_ZRNIJEKVrPROFSDTLXMAUlBCcdfijlmsvxyz0123456789St_.$@";
    for i in 0..100_000 {
        let len = (next() % 60) as usize;
        let mut bytes: Vec<u8> = if i % 2 == 0 {
            b"_Z".to_vec()
        } else {
            b"_R".to_vec()
        };
        for _ in 0..len {
            let r = next();
            let b = if r % 16 == 0 {
                (r >> 8) as u8
            } else {
                alphabet[(r >> 8) as usize % alphabet.len()]
            };
            bytes.push(b);
        }
        let s = String::from_utf8_lossy(&bytes);
        let _ = demangle(&s);
    }
    for s in [
        "",
        "_",
        "_Z",
        "_R",
        "_ZN",
        "_ZNE",
        "_GLOBAL__I_",
        "_GLOBAL__D_x",
        ".",
        "$",
        "@",
        "_Z\0i",
    ] {
        let _ = demangle(s);
    }
}

/// A Rust v0 name whose binder claims an enormous number of lifetimes while nothing is
/// printed: the demangler looped on the count (found by the fuzz target `demangle`, a
/// timeout). libiberty gives up on it too, so the name stays as it is.
#[test]
fn fuzz_regression_binder_count() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz/demangle-timeout-d616c0e1"
    );
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        rpprof_demangle::nm_name(&data),
        String::from_utf8_lossy(&data)
    );
    assert_eq!(rpprof_demangle::demangle_bytes(&data), data);
}
