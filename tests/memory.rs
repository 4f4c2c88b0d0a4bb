//! The command's huge-page rule (`rpprof::memory`), in a process of its own: transparent
//! huge pages off from the start, on again for a run that reads a big profile file or
//! symbolizes many addresses, and untouched in a process that did not ask for the rule.

#[cfg(target_os = "linux")]
#[test]
fn huge_pages_are_off_for_small_runs_and_on_for_big_ones() {
    // SAFETY: PR_GET_THP_DISABLE takes no pointer and only reads the process's setting.
    let disabled = || unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
    let before = disabled();
    rpprof::memory::symbolizing(1 << 20);
    rpprof::memory::reading(1 << 40);
    assert_eq!(
        disabled(),
        before,
        "a process that did not ask is left alone"
    );
    rpprof::memory::manage_huge_pages(10_000, 1 << 19);
    assert_eq!(disabled(), 1, "off from the start");
    rpprof::memory::reading((1 << 19) - 1);
    rpprof::memory::symbolizing(9_999);
    assert_eq!(disabled(), 1, "still off for a small run");
    rpprof::memory::symbolizing(10_000);
    assert_eq!(disabled(), 0, "on for a run with many addresses");
    rpprof::memory::manage_huge_pages(10_000, 1 << 19);
    assert_eq!(disabled(), 1, "off again");
    rpprof::memory::reading(1 << 19);
    assert_eq!(disabled(), 0, "on for a big profile file");
}
