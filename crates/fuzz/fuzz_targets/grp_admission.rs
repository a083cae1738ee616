//! Change-event admission, JWS parsing included, on arbitrary event lines.
//!
//! The input is a stream of event lines read by the reference's line reader. Selector bit 0:
//! sign mode, where every line that is a JSON object is first signed with its publisher's
//! (fuzz-fixture) key, so the fuzzer gets past the signature and exercises the nonce, duplicate
//! and session stages; without it, lines are delivered as they are (the JWS parser sees the
//! fuzzer's tokens). Bit 1: a revision-00 receiver (no duplicate check).
//!
//! Invariants: a revision-01 receiver admits each (publisher_id, event_id) pair at most once; an
//! admission always names its pair; a rejection always carries the ALE code, a reason and a rule.
#![no_main]

use std::collections::HashSet;
use std::io::BufReader;
use std::sync::OnceLock;

use agentconf_corpus::grp::common::Fixture;
use agentconf_fuzz::selector;
use agentconf_grp::lines::{read_event_line, EventLine};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::MemoryStore;
use agentconf_grp::{DecisionOutcome, Receiver, Revision};
use libfuzzer_sys::fuzz_target;

fn fixture() -> &'static (Fixture, SessionContext) {
    static F: OnceLock<(Fixture, SessionContext)> = OnceLock::new();
    F.get_or_init(|| {
        let f = Fixture::new("fuzz/grp-admission");
        let s = f.session();
        (f, s)
    })
}

fuzz_target!(|data: &[u8]| {
    let (sel, stream) = selector(data);
    let (fixture, session) = fixture();
    let revision = if sel & 2 != 0 {
        Revision::R00
    } else {
        Revision::R01
    };
    let receiver = Receiver::new(session.clone(), revision, MemoryStore::new());
    let mut admitted = HashSet::new();
    // A small buffer so lines straddle refills.
    let mut input = BufReader::with_capacity(7, stream);
    let mut line = Vec::new();
    loop {
        let kind = read_event_line(&mut input, &mut line).expect("reading a slice cannot fail");
        let delivered = match kind {
            EventLine::End => break,
            EventLine::TooLong => {
                let d = receiver
                    .deliver_oversized(agentconf_grp::admission::MAX_EVENT_BYTES)
                    .expect("the memory store does not fail");
                assert_eq!(d.outcome, DecisionOutcome::Rejected);
                continue;
            }
            EventLine::Line if sel & 1 != 0 => {
                match serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&line) {
                    Ok(event) => fixture.signed(&event).into_bytes(),
                    Err(_) => line.clone(),
                }
            }
            EventLine::Line => line.clone(),
        };
        let decision = receiver
            .deliver(&delivered)
            .expect("the memory store does not fail");
        match decision.outcome {
            DecisionOutcome::Admitted => {
                let pair = (
                    decision
                        .publisher_id
                        .clone()
                        .expect("an admission names its publisher"),
                    decision
                        .event_id
                        .clone()
                        .expect("an admission names its event"),
                );
                assert!(decision.rejection_reason.is_none() && decision.rule.is_none());
                if revision == Revision::R01 {
                    assert!(admitted.insert(pair.clone()), "{pair:?} admitted twice");
                }
            }
            DecisionOutcome::Rejected => {
                assert_eq!(decision.ale, Some(agentconf_grp::admission::ALE_064));
                assert!(decision.rejection_reason.is_some() && decision.rule.is_some());
            }
            DecisionOutcome::Deferred => panic!("the memory store is always reachable"),
        }
        serde_json::to_string(&decision).expect("a decision serializes");
    }
});
