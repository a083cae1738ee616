//! Session context files (`agentconf grp admit --session`): parsing, then admitting the fixture's
//! events into whatever session parsed — publishers with malformed keys, odd windows, unknown
//! key types — where the receiver must reject, never panic.
#![no_main]

use std::sync::OnceLock;

use agentconf_corpus::grp::common::{Fixture, P1_ID, P2_ID, P3_ID};
use agentconf_grp::event::PublisherType;
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::MemoryStore;
use agentconf_grp::{DecisionOutcome, Receiver, Revision};
use libfuzzer_sys::fuzz_target;

/// One signed event per example publisher, signed with the fixture's keys.
fn events() -> &'static [String] {
    static E: OnceLock<Vec<String>> = OnceLock::new();
    E.get_or_init(|| {
        let f = Fixture::new("fuzz/grp-session");
        [
            (P1_ID, PublisherType::Principal),
            (P2_ID, PublisherType::Registered),
            (P3_ID, PublisherType::WellKnown),
        ]
        .iter()
        .map(|(id, t)| f.signed(&f.event("evt-1", id, *t)))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(session) = SessionContext::from_json(data) else {
        return;
    };
    let receiver = Receiver::new(session, Revision::R01, MemoryStore::new());
    for line in events() {
        let d = receiver
            .deliver(line.as_bytes())
            .expect("the memory store does not fail");
        if d.outcome == DecisionOutcome::Rejected {
            assert!(d.rule.is_some() && d.rejection_reason.is_some());
        }
    }
});
