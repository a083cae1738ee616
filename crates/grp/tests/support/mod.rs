//! What the GRP tests share: a session of registered P-TYPE-3 publishers with derived public test
//! keys, their events signed as lines, and a temporary directory. Each test binary uses part.
#![allow(dead_code)]
pub mod faults;
pub mod postgres;
pub mod postgres_server;

use agentconf_grp::event::PublisherType;
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::derive_signing_key;
use agentconf_grp::session::{Publisher, SessionContext};
use ed25519_dalek::SigningKey;
use serde_json::{json, Map, Value};

/// The nonce of the session [`session`] makes.
pub const NONCE: &str = "nonce-grp-tests";

/// The key `label` signs with (a public test key).
pub fn key(label: &str) -> SigningKey {
    derive_signing_key("grp/tests", label)
}

/// A session in which each of `publishers` is a P-TYPE-3 publisher whose key is `key(publisher)`.
pub fn session(publishers: &[&str]) -> SessionContext {
    let publishers = publishers
        .iter()
        .map(|p| Publisher {
            publisher_id: p.to_string(),
            publisher_type: PublisherType::WellKnown,
            keys: vec![public_jwk("k1", &key(p).verifying_key())],
            revoked: false,
            not_before: None,
            not_after: Some("2026-12-31T23:59:59Z".into()),
            event_types: None,
            publisher_name: None,
        })
        .collect();
    SessionContext {
        session_id: "ses-grp-tests".into(),
        session_nonce: NONCE.into(),
        clock: "2026-07-14T10:30:00Z".into(),
        publishers,
    }
}

/// A P-TYPE-3 change event, unsigned.
pub fn event(publisher: &str, event_id: &str, severity: &str, nonce: &str) -> Map<String, Value> {
    let Value::Object(e) = json!({
        "event_id": event_id,
        "publisher_id": publisher,
        "publisher_type": "P-TYPE-3",
        "session_nonce": nonce,
        "event_timestamp": "2026-07-14T10:23:00Z",
        "change_class": "RESOURCE_STATE",
        "affected_component": "rgp-resource-horse-trek-001",
        "change_severity": severity,
    }) else {
        unreachable!("a JSON object literal")
    };
    e
}

/// `e` carrying `token` as its signature, as one line.
pub fn line(mut e: Map<String, Value>, token: String) -> String {
    e.insert(SIGNATURE_MEMBER.into(), Value::String(token));
    Value::Object(e).to_string()
}

/// `e` signed with `signer`, as one line.
pub fn signed(e: Map<String, Value>, signer: &SigningKey) -> String {
    let token = sign_event(&e, "k1", signer);
    line(e, token)
}

mod temp_dir;
#[allow(unused_imports)] // each test binary uses part
pub use temp_dir::TempDir;
