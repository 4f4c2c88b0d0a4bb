//! trust -- heap-profile test program for rpprof (testdata/t-rust).
//!
//! Run with tcmalloc preloaded and HEAPPROFILE set.  A small in-memory
//! "document index": documents are tokenized (String / Vec growth in std),
//! postings are kept in a HashMap and a BTreeMap, a generic ring buffer and
//! trait objects make monomorphized and dynamically dispatched frames.

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;

mod text {
    /// Splits a document into owned lowercase tokens.
    #[inline(never)]
    pub fn tokenize(doc: &str) -> Vec<String> {
        doc.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_lowercase())
            .collect()
    }

    /// Builds a synthetic document; the repeated push_str grows the String.
    #[inline(never)]
    pub fn make_document(seed: u64, words: usize) -> String {
        const VOCAB: [&str; 12] = [
            "alpha", "Beta", "gamma", "delta", "EPSILON", "zeta", "eta", "theta", "iota",
            "kappa", "lambda", "mu",
        ];
        let mut s = String::new();
        let mut x = seed | 1;
        for _ in 0..words {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push_str(VOCAB[(x % 12) as usize]);
            s.push(if x % 5 == 0 { '.' } else { ' ' });
        }
        s
    }
}

mod index {
    use std::collections::{BTreeMap, HashMap};

    /// Generic ring of the last N items (monomorphized for two types).
    pub struct Ring<T> {
        items: Vec<T>,
        cap: usize,
        next: usize,
    }

    impl<T> Ring<T> {
        pub fn new(cap: usize) -> Self {
            Ring { items: Vec::new(), cap, next: 0 }
        }
        #[inline(never)]
        pub fn push(&mut self, item: T) {
            if self.items.len() < self.cap {
                self.items.push(item);
            } else {
                self.items[self.next] = item;
            }
            self.next = (self.next + 1) % self.cap;
        }
        pub fn len(&self) -> usize {
            self.items.len()
        }
    }

    pub trait Sink {
        fn accept(&mut self, doc_id: u32, tokens: &[String]);
        fn size(&self) -> usize;
    }

    /// token -> list of documents (HashMap, grows forever: the leak)
    #[derive(Default)]
    pub struct Postings {
        map: HashMap<String, Vec<u32>>,
    }

    impl Sink for Postings {
        #[inline(never)]
        fn accept(&mut self, doc_id: u32, tokens: &[String]) {
            for t in tokens {
                self.map.entry(t.clone()).or_default().push(doc_id);
            }
        }
        fn size(&self) -> usize {
            self.map.values().map(|v| v.len()).sum()
        }
    }

    /// document id -> token count histogram (BTreeMap)
    #[derive(Default)]
    pub struct Histogram {
        by_len: BTreeMap<u32, Vec<u16>>,
    }

    impl Sink for Histogram {
        #[inline(never)]
        fn accept(&mut self, doc_id: u32, tokens: &[String]) {
            let lens: Vec<u16> = tokens.iter().map(|t| t.len() as u16).collect();
            self.by_len.insert(doc_id, lens);
        }
        fn size(&self) -> usize {
            self.by_len.len()
        }
    }
}

use index::{Histogram, Postings, Ring, Sink};

/// Recursive: splits the document range in halves down to single documents.
#[inline(never)]
fn ingest(sinks: &mut [Box<dyn Sink>], first: u32, count: u32, recent: &mut Ring<String>) {
    if count > 1 {
        let half = count / 2;
        ingest(sinks, first, half, recent);
        ingest(sinks, first + half, count - half, recent);
        return;
    }
    let doc = text::make_document(first as u64 * 7919 + 1, 40 + (first % 60) as usize);
    let tokens = text::tokenize(&doc);
    for s in sinks.iter_mut() {
        s.accept(first, &tokens); // dynamic dispatch
    }
    recent.push(doc);
}

fn main() {
    let docs: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(Postings::default()), Box::new(Histogram::default())];
    let mut recent: Ring<String> = Ring::new(64);
    let mut ids: Ring<Vec<u32>> = Ring::new(16);
    let mut scratch: HashMap<u32, String> = HashMap::new();
    let mut ordered: BTreeMap<String, u32> = BTreeMap::new();
    let batch = 250;
    let mut first = 0;
    while first < docs {
        ingest(&mut sinks, first, batch, &mut recent);
        ids.push((first..first + batch).collect());
        for i in 0..50 {
            scratch.insert(first + i, format!("tmp-{}", first + i));
        }
        scratch.retain(|k, _| k % 7 == 0);
        ordered.insert(format!("batch-{:06}", first), first);
        first += batch;
    }
    let total: usize = sinks.iter().map(|s| s.size()).sum();
    println!(
        "docs={} postings+hist={} recent={} ids={} scratch={} ordered={}",
        docs,
        total,
        recent.len(),
        ids.len(),
        scratch.len(),
        ordered.len()
    );
    black_box((&sinks, &recent, &ids, &scratch, &ordered));
    // exit without running destructors: the index is still live when the
    // heap profiler writes its last dump (at exit)
    std::process::exit(0);
}
