//! The admission stage as ordered steps: the reference's order, and receivers built from other
//! lists (a step left out, two swapped, the admission moved first) deciding as that order says,
//! each check still the reference's own.

use agentconf_grp::admission::{DecisionOutcome, Pipeline, Receiver, Revision, Step};
use agentconf_grp::store::MemoryStore;

mod support;

use support::{event, key, session, signed, NONCE};

const PUBLISHER: &str = "ponyhouse.myauberge.jp";

/// An event line of `publisher` carrying `nonce`, signed with `signer`'s key.
fn line(event_id: &str, publisher: &str, nonce: &str, signer: &str) -> Vec<u8> {
    signed(event(publisher, event_id, "LOW", nonce), &key(signer)).into_bytes()
}

fn genuine(event_id: &str) -> Vec<u8> {
    line(event_id, PUBLISHER, NONCE, PUBLISHER)
}

fn forged(event_id: &str) -> Vec<u8> {
    line(event_id, PUBLISHER, NONCE, "forger")
}

/// The rejection reason of each line delivered in turn to a receiver walking `pipeline` (`None`
/// for an admission).
fn reasons(pipeline: Pipeline, lines: &[Vec<u8>]) -> Vec<Option<&'static str>> {
    let receiver = Receiver::with_pipeline(session(&[PUBLISHER]), pipeline, MemoryStore::new());
    lines
        .iter()
        .map(|l| {
            let d = receiver.deliver(l).unwrap();
            assert_eq!(
                d.outcome == DecisionOutcome::Admitted,
                d.rejection_reason.is_none()
            );
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
    let both = [line("e3", PUBLISHER, "other-nonce", "forger")];
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
    let stranger = [line("e1", "stranger.example", NONCE, "stranger.example")];
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
