//! Timeline verification on arbitrary bytes, revision 09 or 06, with or without a commitment.
//!
//! Selector bit 0: revision 06; bit 1: a commitment precedes the timeline, separated by `\0`;
//! bits 2-4: how many bytes the reader hands out per call (1 to 8, or all at once); bits 5-7: the
//! batch size (1 to 8 entries) of the parallel run. The same input is verified twice, once all at
//! once and once trickled: the streaming splitter must give byte-identical reports whatever the
//! read sizes. And the fast path and parallel digests must change nothing: the strict sequential
//! reader (`verify_timeline_strict_only`) and `verify_timeline` with two and three threads give
//! byte-identical reports, and the observed run observes what the strict one does.
#![no_main]

use agentconf_aer1::commitment::parse_commitment;
use agentconf_aer1::timeline::{
    verify_timeline, verify_timeline_observed, verify_timeline_strict_only, TimelineOptions,
};
use agentconf_aer1::{Revision, Verdict};
use agentconf_fuzz::{selector, two_parts, Trickle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (sel, rest) = selector(data);
    let mut options = TimelineOptions {
        max_failures: 50,
        ..TimelineOptions::default()
    };
    let timeline = if sel & 2 != 0 {
        let (commitment, timeline) = two_parts(rest);
        match parse_commitment(commitment) {
            Ok(c) => options.commitment = Some(c),
            Err(findings) => options.commitment_findings = findings,
        }
        timeline
    } else {
        rest
    };
    if sel & 1 != 0 {
        options.revision = Revision::R06;
        options.commitment = None;
    }
    let mut digests = 0u64;
    let mut seen = Vec::new();
    let whole = verify_timeline_observed(timeline, &options, &mut |e| {
        digests += 1;
        seen.push((e.index, e.digest, e.preimage.map(<[u8]>::to_vec)));
    })
    .expect("reading a slice cannot fail");
    let step = usize::from((sel >> 2) & 7) + 1;
    let trickled = verify_timeline_observed(
        Trickle {
            data: timeline,
            step,
        },
        &options,
        &mut |_| {},
    )
    .expect("reading a slice cannot fail");
    let a = serde_json::to_string(&whole).expect("a timeline report serializes");
    let b = serde_json::to_string(&trickled).expect("a timeline report serializes");
    assert_eq!(a, b, "read size {step} changed the report");

    let strict_options = TimelineOptions {
        strict_only: true,
        ..options.clone()
    };
    let mut strict_seen = Vec::new();
    let strict = verify_timeline_observed(timeline, &strict_options, &mut |e| {
        strict_seen.push((e.index, e.digest, e.preimage.map(<[u8]>::to_vec)));
    })
    .expect("reading a slice cannot fail");
    let s = serde_json::to_string(&strict).expect("a timeline report serializes");
    assert_eq!(a, s, "the fast path changed the report");
    assert_eq!(seen, strict_seen, "the fast path changed what is observed");
    let reference = verify_timeline_strict_only(timeline, &options).expect("reading a slice");
    let r = serde_json::to_string(&reference).expect("a timeline report serializes");
    assert_eq!(r, s, "strict_only differs from verify_timeline_strict_only");
    let batch_entries = usize::from(sel >> 5) + 1;
    for threads in [2, 3] {
        let parallel_options = TimelineOptions {
            threads,
            batch_entries,
            ..options.clone()
        };
        let parallel = verify_timeline(timeline, &parallel_options).expect("reading a slice");
        let p = serde_json::to_string(&parallel).expect("a timeline report serializes");
        assert_eq!(
            p, s,
            "{threads} threads, batches of {batch_entries}, changed the report"
        );
    }

    assert_eq!(
        whole.verdict == Verdict::Valid,
        whole.failures.is_empty() && whole.failures_omitted == 0
    );
    assert!(whole.failures.len() <= options.max_failures);
    if whole.verdict == Verdict::Valid {
        // A valid chain has entries, each observed once, and a final digest.
        assert!(whole.entry_count > 0);
        assert_eq!(digests, whole.entry_count);
        assert!(whole.final_entry_digest.is_some());
    }
});
