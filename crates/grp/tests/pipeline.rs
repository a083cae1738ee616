//! The admission stage as ordered steps: the reference's order, and receivers built from other
//! lists (a step left out, two swapped, the admission moved first) deciding as that order says,
//! each check still the reference's own.

use agentconf_grp::admission::{Outcome, Pipeline, Receiver, Revision, Step};
use agentconf_grp::event::PublisherType;
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::derive_signing_key;
use agentconf_grp::session::{Publisher, SessionContext};
use agentconf_grp::store::MemoryStore;
use ed25519_dalek::SigningKey;
use serde_json::{json, Value};

const PUBLISHER: &str = "ponyhouse.myauberge.jp";
const NONCE: &str = "nonce-pipeline";

fn key(label: &str) -> SigningKey {
    derive_signing_key("grp/tests/pipeline", label)
}

fn session() -> SessionContext {
    SessionContext {
        session_id: "ses-pipeline".into(),
        session_nonce: NONCE.into(),
        clock: "2026-07-14T10:30:00Z".into(),
        publishers: vec![Publisher {
            publisher_id: PUBLISHER.into(),
            publisher_type: PublisherType::WellKnown,
            keys: vec![public_jwk("k1", &key("publisher").verifying_key())],
            revoked: false,
            not_before: None,
            not_after: Some("2026-12-31T23:59:59Z".into()),
            event_types: None,
            publisher_name: None,
        }],
    }
}

/// An event line signed with `signer`, from `publisher`, carrying `nonce`.
fn line(event_id: &str, publisher: &str, nonce: &str, signer: &SigningKey) -> Vec<u8> {
    let Value::Object(mut e) = json!({
        "event_id": event_id,
        "publisher_id": publisher,
        "publisher_type": "P-TYPE-3",
        "session_nonce": nonce,
        "event_timestamp": "2026-07-14T10:23:00Z",
        "change_class": "RESOURCE_STATE",
        "affected_component": "component-1",
        "change_severity": "LOW",
    }) else {
        unreachable!("a JSON object literal")
    };
    let token = sign_event(&e, "k1", signer);
    e.insert(SIGNATURE_MEMBER.into(), Value::String(token));
    Value::Object(e).to_string().into_bytes()
}

fn genuine(event_id: &str) -> Vec<u8> {
    line(event_id, PUBLISHER, NONCE, &key("publisher"))
}

fn forged(event_id: &str) -> Vec<u8> {
    line(event_id, PUBLISHER, NONCE, &key("forger"))
}

/// The rejection reason of each line delivered in turn to a receiver walking `pipeline` (`None`
/// for an admission).
fn reasons(pipeline: Pipeline, lines: &[Vec<u8>]) -> Vec<Option<&'static str>> {
    let receiver = Receiver::with_pipeline(session(), pipeline, MemoryStore::new());
    lines
        .iter()
        .map(|l| {
            let d = receiver.deliver(l).unwrap();
            assert_eq!(d.outcome == Outcome::Admitted, d.rejection_reason.is_none());
            d.rejection_reason
        })
        .collect()
}

#[test]
fn the_reference_order_and_revision_00() {
    let checks = [
        Step::Publisher,
        Step::Revocation,
        Step::Window,
        Step::EventTypes,
        Step::Signature,
        Step::Nonce,
    ];
    assert_eq!(Pipeline::reference(Revision::R00).steps(), checks);
    let mut r01 = checks.to_vec();
    r01.push(Step::Admit);
    assert_eq!(Pipeline::reference(Revision::R01).steps(), r01);
}

#[test]
fn a_step_left_out_is_skipped_and_nothing_else_changes() {
    let lines = [genuine("e1"), forged("e2"), genuine("e1")];
    let reference = reasons(Pipeline::reference(Revision::R01), &lines);
    assert_eq!(
        reference,
        [
            None,
            Some("well_known_signature_invalid"),
            Some("duplicate_event_id")
        ]
    );
    let unsigned = reasons(
        Pipeline::reference(Revision::R01).without(Step::Signature),
        &lines,
    );
    assert_eq!(unsigned, [None, None, Some("duplicate_event_id")]);
    let no_dedup = reasons(
        Pipeline::reference(Revision::R01).without(Step::Admit),
        &lines,
    );
    assert_eq!(no_dedup, [None, Some("well_known_signature_invalid"), None]);
}

#[test]
fn swapped_steps_decide_in_their_new_order() {
    // A forged copy of an admitted event: the reference names the signature; with the duplicate
    // check before the signature it is called a duplicate.
    let lines = [genuine("e1"), forged("e1")];
    assert_eq!(
        reasons(Pipeline::reference(Revision::R01), &lines),
        [None, Some("well_known_signature_invalid")]
    );
    let early_dedup = Pipeline::reference(Revision::R01).swapped(Step::Signature, Step::Admit);
    assert_eq!(
        early_dedup.steps().last(),
        Some(&Step::Signature),
        "{early_dedup:?}"
    );
    assert_eq!(
        reasons(early_dedup, &lines),
        [None, Some("duplicate_event_id")]
    );
    // Forged, and for another session: whichever check comes first names it.
    let both = [line("e3", PUBLISHER, "other-nonce", &key("forger"))];
    let nonce_first = Pipeline::reference(Revision::R01).swapped(Step::Signature, Step::Nonce);
    assert_eq!(
        reasons(Pipeline::reference(Revision::R01), &both),
        [Some("well_known_signature_invalid")]
    );
    assert_eq!(
        reasons(nonce_first, &both),
        [Some("session_nonce_mismatch")]
    );
}

#[test]
fn the_admission_moved_first_records_what_is_then_rejected() {
    let mut steps = Pipeline::reference(Revision::R01).steps().to_vec();
    steps.rotate_right(1);
    assert_eq!(steps[0], Step::Admit);
    // The forged copy arrives first: recorded, then rejected; the genuine event is then taken
    // for a duplicate.
    let lines = [forged("e1"), genuine("e1")];
    assert_eq!(
        reasons(Pipeline::of(steps), &lines),
        [
            Some("well_known_signature_invalid"),
            Some("duplicate_event_id")
        ]
    );
    assert_eq!(
        reasons(Pipeline::reference(Revision::R01), &lines),
        [Some("well_known_signature_invalid"), None]
    );
}

#[test]
fn an_unregistered_publisher_is_rejected_by_the_first_step_that_reads_it() {
    let stranger = [line("e1", "stranger.example", NONCE, &key("publisher"))];
    for pipeline in [
        Pipeline::reference(Revision::R01),
        Pipeline::reference(Revision::R01).without(Step::Publisher),
        Pipeline::of(vec![Step::Nonce, Step::Signature, Step::Admit]),
    ] {
        assert_eq!(
            reasons(pipeline.clone(), &stranger),
            [Some("unknown_publisher")],
            "{pipeline:?}"
        );
    }
}
