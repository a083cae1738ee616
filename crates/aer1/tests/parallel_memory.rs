//! The parallel window's heap does not depend on the number of worker threads: batches share a
//! fixed budget of entries and bytes, so a many-core machine verifies in the same memory as a
//! two-core one (and within the 1 MiB `streaming_memory` holds the default to). Measured with a
//! counting allocator, which is why this is its own test binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use agentconf_aer1::digest::Revision;
use agentconf_aer1::producer::{example_chain, timeline_json};
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

#[test]
fn heap_is_the_same_whatever_the_thread_count() {
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
