//! Streaming verification holds one entry at a time: heap use does not grow with the number of
//! entries. Measured with a counting allocator (byte counts are deterministic, unlike timings);
//! the chain is generated lazily, so the test itself never holds it either.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentconf_aer1::digest::{Revision, GENESIS_PREV_DIGEST};
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::hex;
use agentconf_aer1::producer::{digest_entry, example_chain, timeline_json, Entry};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::Verdict;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests measure one global counter, so they take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Produces a valid `n`-entry timeline on demand, one entry at a time.
struct LazyChain {
    n: u64,
    next: u64,
    prev: String,
    pending: Vec<u8>,
    at: usize,
    scratch: Vec<u8>,
}

impl LazyChain {
    fn new(n: u64) -> Self {
        LazyChain {
            n,
            next: 0,
            prev: GENESIS_PREV_DIGEST.into(),
            pending: b"[".to_vec(),
            at: 0,
            scratch: Vec::new(),
        }
    }

    fn refill(&mut self) {
        self.pending.clear();
        self.at = 0;
        if self.next == self.n {
            if self.n > 0 {
                self.pending.extend_from_slice(b"]");
                self.n = 0; // done
                self.next = 0;
            }
            return;
        }
        let i = self.next;
        let entry = Entry {
            canonical_bytes: encode_base64(format!("{{\"job\":\"j\",\"entry\":{i}}}").as_bytes()),
            prev_digest: std::mem::take(&mut self.prev),
            seq: i + 1,
            job_id: "j".into(),
            id: format!("r-{i}"),
            tool: "price_lookup".into(),
            provenance_class: "LOGGED BY AGENT".into(),
            close: (i + 1 == self.n).then_some(true),
        };
        self.prev = hex::lower(&digest_entry(&entry, Revision::R09, &mut self.scratch));
        if i > 0 {
            self.pending.push(b',');
        }
        serde_json::to_writer(&mut self.pending, &entry).unwrap();
        self.next += 1;
    }
}

impl Read for LazyChain {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            self.refill();
        }
        let k = buf.len().min(self.pending.len() - self.at);
        buf[..k].copy_from_slice(&self.pending[self.at..self.at + k]);
        self.at += k;
        Ok(k)
    }
}

/// Peak heap bytes above the level at the start, while verifying an `n`-entry chain.
fn peak_while_verifying(n: u64) -> usize {
    let chain = LazyChain::new(n);
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let report = verify_timeline(chain, &TimelineOptions::default()).unwrap();
    assert_eq!(report.verdict, Verdict::Valid, "{:?}", report.failures);
    assert_eq!(report.entry_count, n);
    PEAK.load(Ordering::SeqCst) - base
}

#[test]
fn heap_use_does_not_grow_with_entry_count() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let small = peak_while_verifying(1_000);
    let large = peak_while_verifying(100_000);
    // Both are dominated by the fixed 64 KiB read buffer and per-entry scratch space.
    assert!(small < 1024 * 1024, "1,000 entries peaked at {small} bytes");
    assert!(
        large < 1024 * 1024,
        "100,000 entries peaked at {large} bytes"
    );
    assert!(
        large <= small + 16 * 1024,
        "peak grew from {small} bytes (1,000 entries) to {large} bytes (100,000 entries)"
    );
}

/// Peak heap bytes above the start while verifying `text` under `options`, and the report.
fn peak_of(
    text: &[u8],
    options: &TimelineOptions,
) -> (usize, agentconf_aer1::report::TimelineReport) {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let report = verify_timeline(text, options).unwrap();
    (PEAK.load(Ordering::SeqCst) - base, report)
}

/// A single entry made of four million tiny values (8 MB): without the value limit its tree takes
/// about 17 times the entry's size; with it, parsing stops at a million values.
#[test]
fn the_value_limit_bounds_the_tree_of_a_tiny_value_entry() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let zeros = vec!["0"; 4_000_000].join(",");
    let text = format!("[{{\"x\":[{zeros}]}}]").into_bytes();
    drop(zeros);
    let limited = TimelineOptions::default();
    let unlimited = TimelineOptions {
        json_limits: agentconf_aer1::json::Limits {
            max_values: usize::MAX,
            max_string_bytes: usize::MAX,
        },
        ..TimelineOptions::default()
    };
    let (with_limit, report) = peak_of(&text, &limited);
    assert_eq!(report.failures[0].rule.id(), "AER1-JSON-SIZE");
    let (without, report) = peak_of(&text, &unlimited);
    assert_ne!(report.failures[0].rule.id(), "AER1-JSON-SIZE");
    let mb = |b: usize| b as f64 / (1 << 20) as f64;
    eprintln!(
        "entry of {:.1} MiB: peak heap {:.1} MiB with the value limit, {:.1} MiB without",
        mb(text.len()),
        mb(with_limit),
        mb(without)
    );
    // A million nodes plus the entry's bytes: far under what four million nodes take.
    assert!(with_limit * 3 < without, "{with_limit} vs {without}");
    assert!(
        with_limit < text.len() * 2 + 128 * (1 << 20),
        "{with_limit}"
    );
}

/// Objects and arrays are the costliest values per byte of input (`{}` is two bytes): a million of
/// them, just under the value limit, still make a tree of tens of MiB.
#[test]
fn a_million_empty_containers_stay_within_tens_of_mib() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for element in ["{}", "[]", "{\"a\":0}"] {
        let n = if element.len() > 2 { 499_000 } else { 999_000 };
        let text = format!("[{{\"x\":[{}]}}]", vec![element; n].join(",")).into_bytes();
        let (peak, report) = peak_of(&text, &TimelineOptions::default());
        assert_ne!(report.failures[0].rule.id(), "AER1-JSON-SIZE", "{element}");
        eprintln!(
            "{n} x {element} ({:.1} MiB): peak heap {:.1} MiB",
            text.len() as f64 / (1 << 20) as f64,
            peak as f64 / (1 << 20) as f64
        );
        assert!(peak < 128 * (1 << 20), "{element}: {peak}");
    }
}

/// The parallel window's heap does not depend on the number of worker threads: batches share a
/// fixed budget of entries and bytes, so a many-core machine verifies in the same memory as a
/// two-core one, and within the 1 MiB this file holds the default to.
#[test]
fn heap_is_the_same_whatever_the_thread_count() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = timeline_json(&example_chain("job-7a1f", 20_000, Revision::R09)).into_bytes();
    let mut peaks = Vec::new();
    for threads in [2, 3, 4, 8] {
        let options = TimelineOptions {
            threads,
            ..TimelineOptions::default()
        };
        let base = CURRENT.load(Ordering::SeqCst);
        PEAK.store(base, Ordering::SeqCst);
        let report = verify_timeline(text.as_slice(), &options).expect("reading a slice");
        let peak = PEAK.load(Ordering::SeqCst) - base;
        assert_eq!(report.verdict, Verdict::Valid);
        eprintln!("{threads} threads: peak heap {peak} bytes");
        assert!(peak < 1024 * 1024, "{threads} threads: {peak} bytes");
        peaks.push((threads, peak));
    }
    let least = peaks.iter().map(|&(_, p)| p).min().unwrap_or(0);
    for (threads, peak) in peaks {
        // Thread bookkeeping differs a little; the batches must not.
        assert!(
            peak <= least + 64 * 1024,
            "{threads} threads peaked at {peak} bytes, the fewest at {least}"
        );
    }
}
