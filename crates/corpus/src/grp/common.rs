//! Building blocks for GRP admission scenarios: publishers with keys derived from the vector id
//! (public test keys, deterministic), session contexts, and signed events.

use agentconf_grp::event::PublisherType;
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::derive_signing_key;
use agentconf_grp::session::{Publisher, SessionContext};
use ed25519_dalek::SigningKey;
use serde_json::{json, Map, Value};

use agentconf_contract::vector::{ExpectedDecision, Outcome, Step};

/// The draft's example values (GRP.md §1, revision 00 Appendix A).
pub const SESSION_ID: &str = "ses-aep-session-001";
pub const NONCE: &str = "ses-nonce-aep-session-001";
pub const CLOCK: &str = "2026-07-14T10:30:00Z";
pub const P3_ID: &str = "ponyhouse.myauberge.jp";
pub const P1_ID: &str = "xpid:principal-7";
pub const P2_ID: &str = "epr:publisher-42";

/// Keys and identities for one vector; every key is derived from the vector id and a label.
pub struct Fixture {
    /// Private: the derived keys below belong to this id, and must not outlive a change of it.
    vector_id: String,
    /// Keys already derived, by label. Deriving one computes its public key (a scalar
    /// multiplication): once per event signed, that was a fifth of every start of the tool, which
    /// builds the corpus before its first vector.
    derived: std::sync::Mutex<std::collections::BTreeMap<String, SigningKey>>,
}

impl Fixture {
    pub fn new(vector_id: &str) -> Fixture {
        Fixture {
            vector_id: vector_id.to_string(),
            derived: Default::default(),
        }
    }

    /// The signing key for `label` (by convention the publisher id, or `label` + "-other").
    pub fn key(&self, label: &str) -> SigningKey {
        // A lock, not a RefCell: tests share one fixture between the threads that start
        // receivers together (crates/cli/tests/grp_processes.rs). A poisoned lock only means
        // such a thread panicked; the map holds finished keys only, so it is still right.
        self.derived
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(label.to_string())
            .or_insert_with(|| derive_signing_key(&self.vector_id, label))
            .clone()
    }

    /// A registered publisher whose single key has kid `<publisher_id>#k1`.
    pub fn publisher(&self, publisher_id: &str, publisher_type: PublisherType) -> Publisher {
        let kid = kid(publisher_id);
        Publisher {
            publisher_id: publisher_id.to_string(),
            publisher_type,
            keys: vec![public_jwk(&kid, &self.key(publisher_id).verifying_key())],
            revoked: false,
            not_before: None,
            not_after: None,
            event_types: None,
            publisher_name: None,
        }
    }

    /// The three example publishers: P-TYPE-1, P-TYPE-2 (window 2026-01-01..2026-12-31, all four
    /// change classes permitted) and P-TYPE-3 (document valid to 2026-12-31).
    pub fn publishers(&self) -> Vec<Publisher> {
        let p1 = self.publisher(P1_ID, PublisherType::Principal);
        let mut p2 = self.publisher(P2_ID, PublisherType::Registered);
        p2.not_before = Some("2026-01-01T00:00:00Z".into());
        p2.not_after = Some("2026-12-31T23:59:59Z".into());
        p2.event_types = Some(
            agentconf_grp::event::CHANGE_CLASSES
                .iter()
                .map(|c| c.to_string())
                .collect(),
        );
        let mut p3 = self.publisher(P3_ID, PublisherType::WellKnown);
        p3.not_after = Some("2026-12-31T23:59:59Z".into());
        p3.event_types = Some(vec!["RESOURCE_STATE".into(), "DEPENDENCY_UPDATE".into()]);
        p3.publisher_name = Some("Ponyhouse (example)".into());
        vec![p1, p2, p3]
    }

    /// A session context with the example publishers.
    pub fn session(&self) -> SessionContext {
        SessionContext {
            session_id: SESSION_ID.into(),
            session_nonce: NONCE.into(),
            clock: CLOCK.into(),
            publishers: self.publishers(),
        }
    }

    /// The draft's example event for `publisher_id`, unsigned (no publisher_signature).
    pub fn event(
        &self,
        event_id: &str,
        publisher_id: &str,
        publisher_type: PublisherType,
    ) -> Map<String, Value> {
        let v = json!({
            "event_id": event_id,
            "publisher_id": publisher_id,
            "publisher_type": publisher_type.as_str(),
            "session_nonce": NONCE,
            "event_timestamp": "2026-07-14T10:23:00Z",
            "change_class": "RESOURCE_STATE",
            "affected_component": "rgp-resource-horse-trek-001",
            "change_severity": "MEDIUM",
            "remediation_hint": "FALLBACK",
        });
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// Signs `event` with the publisher's own key (kid `<publisher_id>#k1`) and returns the line.
    pub fn signed(&self, event: &Map<String, Value>) -> String {
        let publisher = event
            .get("publisher_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.signed_with(event, &kid(publisher), &self.key(publisher))
    }

    /// Signs `event` with any key and kid and returns the event as one JSON line.
    pub fn signed_with(&self, event: &Map<String, Value>, kid: &str, key: &SigningKey) -> String {
        let mut e = event.clone();
        e.remove(SIGNATURE_MEMBER);
        let token = sign_event(&e, kid, key);
        with_signature(&e, &token)
    }
}

/// `event` with `publisher_signature` set to `token`, as one JSON line.
pub fn with_signature(event: &Map<String, Value>, token: &str) -> String {
    let mut e = event.clone();
    e.insert(SIGNATURE_MEMBER.into(), Value::String(token.to_string()));
    Value::Object(e).to_string()
}

/// The kid of a publisher's first key.
pub fn kid(publisher_id: &str) -> String {
    format!("{publisher_id}#k1")
}

/// The session context as the file text.
pub fn session_json(s: &SessionContext) -> String {
    serde_json::to_string_pretty(s).unwrap_or_default() + "\n"
}

/// Event lines as the `events` input (one per line).
pub fn events_jsonl(lines: &[String]) -> String {
    let mut out = String::new();
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

pub fn deliver(event: usize) -> Step {
    Step::Deliver { event }
}

/// Expected: admitted at `step`.
pub fn admitted(step: usize) -> ExpectedDecision {
    ExpectedDecision {
        step,
        outcome: Outcome::Admitted,
        rejection_reason: None,
        reason_named_by_draft: None,
        rule: None,
        admitted_copies: None,
    }
}

/// Expected: rejected at `step` with `reason` on `rule`.
pub fn rejected(step: usize, reason: &str, rule: agentconf_rules::Rule) -> ExpectedDecision {
    ExpectedDecision {
        step,
        outcome: Outcome::Rejected,
        rejection_reason: Some(reason.to_string()),
        reason_named_by_draft: Some(agentconf_grp::admission::DRAFT_REASONS.contains(&reason)),
        rule: Some(rule),
        admitted_copies: None,
    }
}

/// Expected for a concurrent step: exactly `n` copies admitted.
pub fn admitted_copies(step: usize, n: usize) -> ExpectedDecision {
    ExpectedDecision {
        step,
        outcome: Outcome::Admitted,
        rejection_reason: None,
        reason_named_by_draft: None,
        rule: None,
        admitted_copies: Some(n),
    }
}
