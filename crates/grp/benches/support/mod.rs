//! What the GRP benches share: the corpus fixture's publisher and session (copied: a bench cannot
//! depend on the corpus crate), its signed events, event ids and a temporary directory.
#![allow(dead_code)]

use agentconf_grp::event::{PublisherType, CHANGE_CLASSES};
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::derive_signing_key;
use agentconf_grp::session::{Publisher, SessionContext};
use ed25519_dalek::SigningKey;
use serde_json::{json, Map, Value};

pub const SESSION_ID: &str = "ses-aep-session-001";
pub const NONCE: &str = "ses-nonce-aep-session-001";
pub const CLOCK: &str = "2026-07-14T10:30:00Z";
pub const PUBLISHER: &str = "ponyhouse.myauberge.jp";
pub const KID: &str = "ponyhouse.myauberge.jp#k1";

pub fn key() -> SigningKey {
    derive_signing_key("bench", PUBLISHER)
}

/// The P-TYPE-3 example publisher and session of the corpus fixture.
pub fn session() -> SessionContext {
    SessionContext {
        session_id: SESSION_ID.into(),
        session_nonce: NONCE.into(),
        clock: CLOCK.into(),
        publishers: vec![Publisher {
            publisher_id: PUBLISHER.into(),
            publisher_type: PublisherType::WellKnown,
            keys: vec![public_jwk(KID, &key().verifying_key())],
            revoked: false,
            not_before: None,
            not_after: Some("2026-12-31T23:59:59Z".into()),
            event_types: Some(CHANGE_CLASSES.iter().map(|c| c.to_string()).collect()),
            publisher_name: Some("Ponyhouse (example)".into()),
        }],
    }
}

/// The draft's example event (revision 00 Appendix A) with `event_id`, unsigned.
pub fn event(event_id: &str) -> Map<String, Value> {
    match json!({
        "event_id": event_id,
        "publisher_id": PUBLISHER,
        "publisher_type": "P-TYPE-3",
        "session_nonce": NONCE,
        "event_timestamp": "2026-07-14T10:23:00Z",
        "change_class": "RESOURCE_STATE",
        "affected_component": "rgp-resource-horse-trek-001",
        "change_severity": "MEDIUM",
        "remediation_hint": "FALLBACK",
    }) {
        Value::Object(m) => m,
        _ => unreachable!("a JSON object literal"),
    }
}

/// The signed event as one line.
pub fn signed_line(key: &SigningKey, event_id: &str) -> Vec<u8> {
    let mut e = event(event_id);
    let token = sign_event(&e, KID, key);
    e.insert(SIGNATURE_MEMBER.into(), Value::String(token));
    Value::Object(e).to_string().into_bytes()
}

#[path = "../../tests/support/temp_dir.rs"]
mod temp_dir;
pub use temp_dir::TempDir;

pub fn event_id(i: usize) -> String {
    format!("grp-evt-{i:08}")
}
