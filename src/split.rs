//! Work split in two halves on two cores from some size on.
//!
//! Each kind of work has the size from which its halves pay for a second thread; nothing is
//! split on one core. Tests (and fuzz runs, built with `--cfg fuzzing`) set another size for
//! their own thread, so that small inputs take both paths on any machine and the two can be
//! compared.

/// A kind of work that may be split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A heap text profile's records, in bytes.
    HeapRecords,
    /// A profile's samples, whose distinct addresses are gathered.
    Addresses,
    /// One file's addresses, named on a second thread while the first looks them up.
    Naming,
    /// A symbol cache entry's list of names or answers, in records.
    CacheList,
    /// The text table's lines.
    TextTable,
}

/// How many kinds of work there are.
#[cfg(any(test, fuzzing))]
const KINDS: usize = 5;

impl Work {
    /// The size from which the work is split (on two cores or more).
    fn size(self) -> usize {
        match self {
            // 1 MiB: the large heap_v2 profile's 3.4 MB read in 2.3 ms instead of 3.6.
            Work::HeapRecords => 1 << 20,
            Work::Addresses => 8192,
            // Four of the naming thread's chunks of 1,024 addresses.
            Work::Naming => 4096,
            Work::CacheList => 4096,
            Work::TextTable => 4096,
        }
    }

    /// Whether `n` of this work is split in two halves.
    pub(crate) fn halves(self, n: usize) -> bool {
        #[cfg(any(test, fuzzing))]
        if let Some(from) = HERE.with(|h| h.get()[self as usize]) {
            return n >= from;
        }
        n >= self.size() && crate::cores() >= 2
    }
}

#[cfg(any(test, fuzzing))]
thread_local! {
    /// Per kind of work, the size set for this thread (`None`: the usual one).
    static HERE: std::cell::Cell<[Option<usize>; KINDS]> =
        const { std::cell::Cell::new([None; KINDS]) };
}

/// Tests and fuzz runs: split `work` from `from` on in this thread, on any number of cores
/// (`None`: as outside tests).
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub fn set(work: Work, from: Option<usize>) {
    HERE.with(|h| {
        let mut v = h.get();
        v[work as usize] = from;
        h.set(v);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A size set for the thread decides, in both directions, and is undone.
    #[test]
    fn a_size_set_for_the_thread_decides() {
        set(Work::TextTable, Some(0));
        assert!(Work::TextTable.halves(0));
        assert!(!Work::CacheList.halves(1));
        set(Work::TextTable, Some(usize::MAX));
        assert!(!Work::TextTable.halves(usize::MAX - 1));
        set(Work::TextTable, None);
        assert!(!Work::TextTable.halves(4095));
        assert_eq!(Work::TextTable.halves(4096), crate::cores() >= 2);
    }
}
