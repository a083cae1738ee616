//! 10,000 distinct events admitted, then every one replayed: each replay is a duplicate, on the
//! in-memory and the SQLite store. (The committed corpus has the 1,000-event version; this is the
//! full-size case, kept out of the corpus files for size.)

use agentconf_grp::admission::{DecisionOutcome, Receiver, Revision};
use agentconf_grp::event::PublisherType;
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::derive_signing_key;
use agentconf_grp::session::{Publisher, SessionContext};
use agentconf_grp::store::{AdmissionStore, MemoryStore, SqliteStore};
use serde_json::{json, Map, Value};

const N: usize = 10_000;

fn session() -> (SessionContext, ed25519_dalek::SigningKey) {
    let key = derive_signing_key("grp/tests/replay-10000", "publisher");
    let publisher = Publisher {
        publisher_id: "ponyhouse.myauberge.jp".into(),
        publisher_type: PublisherType::WellKnown,
        keys: vec![public_jwk("k1", &key.verifying_key())],
        revoked: false,
        not_before: None,
        not_after: Some("2026-12-31T23:59:59Z".into()),
        event_types: None,
        publisher_name: None,
    };
    let ctx = SessionContext {
        session_id: "ses-replay".into(),
        session_nonce: "nonce-replay".into(),
        clock: "2026-07-14T10:30:00Z".into(),
        publishers: vec![publisher],
    };
    (ctx, key)
}

fn events(key: &ed25519_dalek::SigningKey) -> Vec<String> {
    (0..N)
        .map(|i| {
            let mut e: Map<String, Value> = match json!({
                "event_id": format!("evt-{i:05}"),
                "publisher_id": "ponyhouse.myauberge.jp",
                "publisher_type": "P-TYPE-3",
                "session_nonce": "nonce-replay",
                "event_timestamp": "2026-07-14T10:23:00Z",
                "change_class": "RESOURCE_STATE",
                "affected_component": format!("component-{i}"),
                "change_severity": "LOW",
            }) {
                Value::Object(m) => m,
                other => panic!("not an object: {other}"),
            };
            let token = sign_event(&e, "k1", key);
            e.insert(SIGNATURE_MEMBER.into(), Value::String(token));
            Value::Object(e).to_string()
        })
        .collect()
}

fn run<S: AdmissionStore>(receiver: &Receiver<S>, lines: &[String]) {
    for (i, line) in lines.iter().enumerate() {
        let d = receiver.deliver(line.as_bytes()).unwrap();
        assert_eq!(
            d.outcome,
            DecisionOutcome::Admitted,
            "event {i}: {:?}",
            d.message
        );
    }
    for (i, line) in lines.iter().enumerate() {
        let d = receiver.deliver(line.as_bytes()).unwrap();
        assert_eq!(d.rejection_reason, Some("duplicate_event_id"), "replay {i}");
    }
    assert_eq!(receiver.store().count("ses-replay").unwrap(), N as u64);
    assert!(receiver.store().pending("ses-replay").unwrap().is_empty());
}

#[test]
fn ten_thousand_events_then_a_replay_of_all_of_them() {
    let (ctx, key) = session();
    let lines = events(&key);
    run(
        &Receiver::new(ctx.clone(), Revision::R01, MemoryStore::new()),
        &lines,
    );

    let dir = std::env::temp_dir().join(format!("agentconf-grp-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = SqliteStore::create(&dir.join("state.sqlite")).unwrap();
    run(&Receiver::new(ctx, Revision::R01, store), &lines);
    let _ = std::fs::remove_dir_all(&dir);
}
