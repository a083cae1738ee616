//! Property test (proptest): whatever the order in which copies of events arrive — genuine
//! copies, re-signed copies with other content, forged copies, copies for another session —
//! a revision-01 receiver admits each (publisher_id, event_id) pair at most once, and exactly once
//! when any copy that passes the other checks arrives. A revision-00 receiver (no duplicate check)
//! admits every such copy.

use std::collections::HashMap;

use agentconf_grp::admission::{DecisionOutcome, Receiver, Revision};
use agentconf_grp::jws::sign_event;
use agentconf_grp::store::MemoryStore;
use proptest::prelude::*;

mod support;

use support::{event, key, line, session, NONCE};

const PUBLISHERS: [&str; 2] = ["ponyhouse.myauberge.jp", "stables.example"];

/// How one delivered copy of an event is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Copy {
    /// The event as published.
    Genuine,
    /// The same pair, other content, validly signed (still the same event for duplicate purposes).
    OtherContent,
    /// Signed for another session's nonce: rejected before the duplicate check.
    WrongNonce,
    /// The genuine event carrying another event's signature: rejected as a forgery.
    Forged,
}

impl Copy {
    /// Whether this copy passes every check but the duplicate check.
    fn admissible(self) -> bool {
        matches!(self, Copy::Genuine | Copy::OtherContent)
    }
}

/// The line for one copy of the event `(publisher, event_id)`.
fn copy_line(publisher: &str, event_id: &str, copy: Copy) -> String {
    let k = key(publisher);
    match copy {
        Copy::Genuine => {
            let e = event(publisher, event_id, "MEDIUM", NONCE);
            let token = sign_event(&e, "k1", &k);
            line(e, token)
        }
        Copy::OtherContent => {
            let e = event(publisher, event_id, "CRITICAL", NONCE);
            let token = sign_event(&e, "k1", &k);
            line(e, token)
        }
        Copy::WrongNonce => {
            let e = event(publisher, event_id, "MEDIUM", "nonce-of-another-session");
            let token = sign_event(&e, "k1", &k);
            line(e, token)
        }
        Copy::Forged => {
            let e = event(publisher, event_id, "MEDIUM", NONCE);
            let other = event(publisher, &format!("{event_id}-other"), "MEDIUM", NONCE);
            line(e, sign_event(&other, "k1", &k))
        }
    }
}

fn copy_kind() -> impl Strategy<Value = Copy> {
    prop_oneof![
        3 => Just(Copy::Genuine),
        1 => Just(Copy::OtherContent),
        1 => Just(Copy::WrongNonce),
        1 => Just(Copy::Forged),
    ]
}

/// Deliveries: (pair, copy), for up to five event ids under either publisher (the same event_id
/// under both publishers is two different events), one to four copies each, then shuffled.
fn deliveries() -> impl Strategy<Value = Vec<((usize, usize), Copy)>> {
    prop::collection::vec(
        (
            (0usize..2, 0usize..5),
            prop::collection::vec(copy_kind(), 1..5),
        ),
        1..6,
    )
    .prop_map(|events| {
        events
            .into_iter()
            .flat_map(|(pair, copies)| copies.into_iter().map(move |c| (pair, c)))
            .collect::<Vec<_>>()
    })
    .prop_shuffle()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_delivery_order_admits_each_pair_at_most_once(order in deliveries()) {
        let ctx = session(&PUBLISHERS);
        let r01 = Receiver::new(ctx.clone(), Revision::R01, MemoryStore::new());
        let r00 = Receiver::new(ctx, Revision::R00, MemoryStore::new());
        let mut admitted_01: HashMap<(usize, usize), usize> = HashMap::new();
        let mut admitted_00: HashMap<(usize, usize), usize> = HashMap::new();
        let mut admissible: HashMap<(usize, usize), usize> = HashMap::new();
        for &((p, e), copy) in &order {
            let text = copy_line(PUBLISHERS[p], &format!("evt-{e}"), copy);
            let seen_before = admitted_01.get(&(p, e)).copied().unwrap_or(0) > 0;
            let d = r01.deliver(text.as_bytes()).expect("memory store");
            if copy.admissible() {
                *admissible.entry((p, e)).or_default() += 1;
            }
            match d.outcome {
                DecisionOutcome::Admitted => {
                    prop_assert!(copy.admissible(), "{:?} admitted", copy);
                    *admitted_01.entry((p, e)).or_default() += 1;
                }
                DecisionOutcome::Rejected if copy.admissible() => {
                    // The only reason to reject an admissible copy is that its pair is in.
                    prop_assert!(seen_before, "{:?} rejected first: {:?}", copy, d.message);
                    prop_assert_eq!(d.rejection_reason, Some("duplicate_event_id"));
                }
                DecisionOutcome::Rejected => {
                    // A forged or wrong-session copy gets its own reason, before the duplicate check.
                    prop_assert_ne!(d.rejection_reason, Some("duplicate_event_id"), "{:?}", copy);
                }
                DecisionOutcome::Deferred => prop_assert!(false, "the memory store is always reachable"),
            }
            if r00.deliver(text.as_bytes()).expect("memory store").outcome == DecisionOutcome::Admitted {
                *admitted_00.entry((p, e)).or_default() += 1;
            }
        }
        for (pair, copies) in &admissible {
            prop_assert_eq!(admitted_01.get(pair).copied().unwrap_or(0), 1, "pair {:?}", pair);
            prop_assert_eq!(admitted_00.get(pair).copied().unwrap_or(0), *copies, "rev 00, pair {:?}", pair);
        }
        for pair in admitted_01.keys() {
            prop_assert!(admissible.contains_key(pair));
        }
    }
}
