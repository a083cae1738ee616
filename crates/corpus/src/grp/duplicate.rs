//! `grp/admission/duplicate-event/*`: the revision-01 duplicate check on the pair
//! `(publisher_id, event_id)` (GRP.md §3, interpretations 1 to 4 of §4), its capability profiles
//! (`durable`, `atomic`) and the revision-00 contrast.
//!
//! GRP (draft-sato-soos-grp) is an individual Internet-Draft, not a standard; the duplicate check
//! is text added in its revision 01, and where it sits in the pipeline, what is recorded and how
//! long the record lives are this project's interpretations (`spec-notes/`).

use agentconf_grp::event::PublisherType;
use agentconf_rules::Rule;
use serde_json::{Map, Value};

use super::common::{
    admitted, admitted_copies, deliver, events_jsonl, rejected, session_json, Fixture, P1_ID,
    P2_ID, P3_ID,
};
use crate::builder::{Family, GRP_FROM_01, GRP_ONLY_00};
use agentconf_contract::vector::{CrashPoint, ExpectedDecision, Step, Suite, Vector};

const DUP: &str = "duplicate_event_id";
const EVENT_ID: &str = "grp-evt-20260714-001";
const NONCE_2: &str = "ses-nonce-aep-session-002";
const SESSION_2: &str = "ses-aep-session-002";

/// Expected: rejected at `step` as a duplicate.
fn duplicate(step: usize) -> ExpectedDecision {
    rejected(step, DUP, Rule::GrpDupEvent)
}

/// The event's line with the first character of the signature segment changed: still compact
/// base64url, but the Ed25519 signature no longer verifies.
fn broken_signature(fx: &Fixture, event: &Map<String, Value>) -> String {
    let line = fx.signed(event);
    let mut v: Map<String, Value> = serde_json::from_str(&line).unwrap_or_default();
    let token = v
        .get("publisher_signature")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
    if let Some(sig) = parts.get_mut(2) {
        let replacement = if sig.starts_with('A') { "B" } else { "A" };
        sig.replace_range(0..1, replacement);
    }
    v.insert("publisher_signature".into(), Value::String(parts.join(".")));
    Value::Object(v).to_string()
}

fn publisher_name(t: PublisherType) -> (&'static str, &'static str) {
    match t {
        PublisherType::Principal => (P1_ID, "p-type-1"),
        PublisherType::Registered => (P2_ID, "p-type-2"),
        PublisherType::WellKnown => (P3_ID, "p-type-3"),
    }
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::GrpAdmission, "duplicate-event");

    // Exact re-delivery, once per publisher type.
    exact_redelivery(&mut f);

    // Same pair with a different body: the key is the pair, not the content.
    same_pair_different_content(&mut f);

    // Restarts: the admitted set must survive them (capability `durable`).
    redelivery_after_restart(&mut f);
    redelivery_after_two_restarts(&mut f);

    // Crashes: SIGKILL after an admission was reported, and before any answer (`durable`).
    crash_after_admission(&mut f);
    crash_after_three_admissions(&mut f);
    crash_before_answer(&mut f);

    // Simultaneous copies to receivers sharing state (capability `atomic`).
    concurrent_copies(&mut f);
    barrier_rounds(&mut f);

    // The key is the pair.
    same_event_id_other_publisher(&mut f);
    same_event_id_three_publishers_replayed(&mut f);

    // Position of the check: forged and wrong-session copies get their own reason.
    forged_copy_after_admission(&mut f);
    wrong_session_copy_after_admission(&mut f);

    // Only admitted pairs are recorded.
    rejected_then_genuine(&mut f);
    wrong_nonce_then_genuine(&mut f);

    // Session scope.
    new_session(&mut f);

    // Revision 00: no duplicate check.
    rev00_exact_redelivery(&mut f);
    rev00_three_copies(&mut f);

    // Replays of several events.
    replay_three_in_reverse(&mut f);
    interleaved_publishers(&mut f);
    replay_1000_after_1000(&mut f);
}

/// `exact-redelivery-p-type-{3,1,2}`, in that order.
fn exact_redelivery(f: &mut Family<'_>) {
    for t in [
        PublisherType::WellKnown,
        PublisherType::Principal,
        PublisherType::Registered,
    ] {
        let (publisher, label) = publisher_name(t);
        let name = format!("exact-redelivery-{label}");
        let id = f.id_of(&name);
        let fx = Fixture::new(&id);
        let line = fx.signed(&fx.event(EVENT_ID, publisher, t));
        f.vector(&name)
            .revisions(GRP_FROM_01)
            .describe(&format!(
                "A {} event is delivered and admitted, then the identical line arrives again (a \
                 webhook retry after a lost acknowledgement). The copy passes every publisher, \
                 signature and nonce check; only the record of the first admission tells it apart, \
                 so revision 01 rejects it as duplicate_event_id and discards it as a no-op.",
                t.as_str()
            ))
            .session_file("session.json", &session_json(&fx.session()))
            .events_text(&events_jsonl(&[line]))
            .scenario(
                vec![deliver(0), deliver(0)],
                vec![admitted(0), duplicate(1)],
            )
            .exercises(&[Rule::GrpDupOrder, Rule::GrpNonce, Rule::GrpSigVerify])
            .push();
    }
}

/// `same-pair-different-content`.
fn same_pair_different_content(f: &mut Family<'_>) {
    let name = "same-pair-different-content";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let first = fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown);
    let mut second = first.clone();
    second.insert("change_severity".into(), Value::String("CRITICAL".into()));
    second.insert(
        "event_timestamp".into(),
        Value::String("2026-07-14T10:25:00Z".into()),
    );
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "The publisher sends a second, validly signed event that reuses the event_id of one \
             already admitted (different severity and timestamp). The duplicate key is the pair \
             (publisher_id, event_id), not the content or the signature, so the second event is \
             rejected as duplicate_event_id.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[fx.signed(&first), fx.signed(&second)]))
        .scenario(
            vec![deliver(0), deliver(1)],
            vec![admitted(0), duplicate(1)],
        )
        .exercises(&[Rule::GrpDupPair])
        .push();
}

/// `redelivery-after-restart`.
fn redelivery_after_restart(f: &mut Family<'_>) {
    let name = "redelivery-after-restart";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let line = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .requires("durable")
        .describe(
            "The event is admitted, the receiver process restarts within the same session, and \
             the identical line is delivered again. An in-memory set would have vanished and \
             reopened the replay window; a receiver claiming the durable profile still rejects \
             the copy as duplicate_event_id.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[line]))
        .scenario(
            vec![deliver(0), Step::Restart, deliver(0)],
            vec![admitted(0), duplicate(2)],
        )
        .exercises(&[Rule::GrpProfileDurable])
        .push();
}

/// `redelivery-after-two-restarts`.
fn redelivery_after_two_restarts(f: &mut Family<'_>) {
    let name = "redelivery-after-two-restarts";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let line = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .requires("durable")
        .describe(
            "Admitted, restart, re-delivered (duplicate), restart again, re-delivered again \
             (still a duplicate). The record of the admission survives each restart, and a \
             rejected copy does not disturb it.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[line]))
        .scenario(
            vec![
                deliver(0),
                Step::Restart,
                deliver(0),
                Step::Restart,
                deliver(0),
            ],
            vec![admitted(0), duplicate(2), duplicate(4)],
        )
        .exercises(&[Rule::GrpProfileDurable])
        .push();
}

/// `crash-after-admission`.
fn crash_after_admission(f: &mut Family<'_>) {
    let name = "crash-after-admission";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let line = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .requires("durable")
        .describe(
            "The event is admitted, and as soon as that decision is read the receiver's whole \
             process group is killed (SIGKILL: no clean exit, nothing flushed at the end). A new \
             receiver on the same STATE_DIR is handed the identical line: the admission was \
             reported, so it must have been recorded before the decision was written, and the \
             copy is a duplicate_event_id.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[line]))
        .scenario(
            vec![
                Step::Crash {
                    event: 0,
                    at: CrashPoint::AfterDecision,
                },
                deliver(0),
            ],
            vec![admitted(0), duplicate(1)],
        )
        .exercises(&[Rule::GrpProfileDurable])
        .push();
}

/// `crash-after-three-admissions`.
fn crash_after_three_admissions(f: &mut Family<'_>) {
    let name = "crash-after-three-admissions";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let lines: Vec<String> = [
        (P3_ID, PublisherType::WellKnown),
        (P1_ID, PublisherType::Principal),
        (P2_ID, PublisherType::Registered),
    ]
    .into_iter()
    .map(|(p, t)| fx.signed(&fx.event(EVENT_ID, p, t)))
    .collect();
    f.vector(name)
        .revisions(GRP_FROM_01)
        .requires("durable")
        .describe(
            "Three events (one per publisher type, one event_id) are admitted; the receiver is \
             killed (SIGKILL) right after the third decision is read. The new receiver rejects \
             all three copies as duplicate_event_id: every reported admission outlives the \
             crash, not only the last.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&lines))
        .scenario(
            vec![
                deliver(0),
                deliver(1),
                Step::Crash {
                    event: 2,
                    at: CrashPoint::AfterDecision,
                },
                deliver(0),
                deliver(1),
                deliver(2),
            ],
            vec![
                admitted(0),
                admitted(1),
                admitted(2),
                duplicate(3),
                duplicate(4),
                duplicate(5),
            ],
        )
        .exercises(&[Rule::GrpProfileDurable, Rule::GrpDupPair])
        .push();
}

/// `crash-before-answer`.
fn crash_before_answer(f: &mut Family<'_>) {
    let name = "crash-before-answer";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let line = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .requires("durable")
        .describe(
            "The receiver is killed (SIGKILL) as soon as it has read the event line, before any \
             decision is read. Its fate was never reported, so a new receiver on the same \
             STATE_DIR is handed the line again: admitted (the first copy was not recorded) or \
             duplicate_event_id (it was recorded, its hand-off pending: the documented \
             recovery) both conform. A further copy is then a duplicate either way: the pair is \
             admitted at most once across the crash.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[line]))
        .scenario(
            vec![
                Step::Crash {
                    event: 0,
                    at: CrashPoint::BeforeDecision,
                },
                deliver(0),
            ],
            vec![duplicate(1)],
        )
        .exercises(&[Rule::GrpProfileDurable])
        .push();
}

/// The rounds of `race-8-copies-200-rounds`: enough that a receiver that looks a pair up and
/// then records it without a lock is caught on every run on two cores (measured: see
/// spec-notes/grp-admission.md).
const BARRIER_ROUNDS: usize = 200;
const BARRIER_COPIES: usize = 8;

/// `race-8-copies-200-rounds`.
fn barrier_rounds(f: &mut Family<'_>) {
    let name = format!("race-{BARRIER_COPIES}-copies-{BARRIER_ROUNDS}-rounds");
    let id = f.id_of(&name);
    let fx = Fixture::new(&id);
    let lines: Vec<String> = (0..=BARRIER_ROUNDS)
        .map(|n| {
            fx.signed(&fx.event(
                &format!("grp-evt-20260714-race-{n:03}"),
                P3_ID,
                PublisherType::WellKnown,
            ))
        })
        .collect();
    f.vector(&name)
        .revisions(GRP_FROM_01)
        .requires("atomic")
        .describe(&format!(
            "{BARRIER_COPIES} receivers share the admission state. Each is handed a warm-up event \
             in turn (the first admits it, the others reject it as a duplicate), so all are \
             running and have answered once. Then, {BARRIER_ROUNDS} times, one fresh event is \
             handed to all {BARRIER_COPIES} at the same instant: in every round exactly one copy \
             is admitted and the others are rejected as duplicate_event_id. A receiver that \
             looks the pair up and records it in a separate step, without a lock, admits twice \
             in some round."
        ))
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&lines))
        .scenario(
            vec![Step::Barrier {
                copies: BARRIER_COPIES,
                warmup: 0,
                rounds: (1..=BARRIER_ROUNDS).collect(),
            }],
            vec![admitted_copies(0, 1)],
        )
        .exercises(&[Rule::GrpProfileAtomic])
        .push();
}

/// `concurrent-8-copies`, then `concurrent-2-copies`.
fn concurrent_copies(f: &mut Family<'_>) {
    for copies in [8usize, 2] {
        let name = format!("concurrent-{copies}-copies");
        let id = f.id_of(&name);
        let fx = Fixture::new(&id);
        let line = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
        f.vector(&name)
            .revisions(GRP_FROM_01)
            .requires("atomic")
            .describe(&format!(
                "{copies} copies of one event reach {copies} receivers sharing the admission state \
                 at the same instant. The check must win the race before the event turns into \
                 action: exactly one copy is admitted and the other {} are rejected as \
                 duplicate_event_id. A final sequential re-delivery shows the pair was recorded \
                 (duplicate).",
                copies - 1
            ))
            .session_file("session.json", &session_json(&fx.session()))
            .events_text(&events_jsonl(&[line]))
            .scenario(
                vec![Step::Concurrent { event: 0, copies }, deliver(0)],
                vec![admitted_copies(0, 1), duplicate(1)],
            )
            .exercises(&[Rule::GrpProfileAtomic])
            .push();
    }
}

/// `same-event-id-other-publisher`.
fn same_event_id_other_publisher(f: &mut Family<'_>) {
    let name = "same-event-id-other-publisher";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let a = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
    let b = fx.signed(&fx.event(EVENT_ID, P2_ID, PublisherType::Registered));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "Two publishers (P-TYPE-3 and P-TYPE-2) each send an event with the same event_id. \
             An event_id is unique only within its publisher's stream, so the pairs differ and \
             both events are admitted.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[a, b]))
        .scenario(vec![deliver(0), deliver(1)], vec![admitted(0), admitted(1)])
        .exercises(&[Rule::GrpDupPair, Rule::GrpDupEvent])
        .push();
}

/// `same-event-id-three-publishers-replayed`.
fn same_event_id_three_publishers_replayed(f: &mut Family<'_>) {
    let name = "same-event-id-three-publishers-replayed";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let lines = vec![
        fx.signed(&fx.event(EVENT_ID, P1_ID, PublisherType::Principal)),
        fx.signed(&fx.event(EVENT_ID, P2_ID, PublisherType::Registered)),
        fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown)),
    ];
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "All three publishers send an event with the same event_id: three distinct pairs, \
             three admissions. Each line is then re-delivered: every copy is a duplicate of its \
             own publisher's pair.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&lines))
        .scenario(
            vec![
                deliver(0),
                deliver(1),
                deliver(2),
                deliver(2),
                deliver(0),
                deliver(1),
            ],
            vec![
                admitted(0),
                admitted(1),
                admitted(2),
                duplicate(3),
                duplicate(4),
                duplicate(5),
            ],
        )
        .exercises(&[Rule::GrpDupPair])
        .push();
}

/// `forged-copy-after-admission`.
fn forged_copy_after_admission(f: &mut Family<'_>) {
    let name = "forged-copy-after-admission";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let event = fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown);
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "The genuine event is admitted; then a copy of it whose signature no longer \
             verifies arrives. The duplicate check runs after the signature check, so the copy \
             is rejected as well_known_signature_invalid, not duplicate_event_id: a forged \
             message is reported as forged.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[
            fx.signed(&event),
            broken_signature(&fx, &event),
        ]))
        .scenario(
            vec![deliver(0), deliver(1)],
            vec![
                admitted(0),
                rejected(1, "well_known_signature_invalid", Rule::GrpSigVerify),
            ],
        )
        .exercises(&[Rule::GrpDupOrder])
        .push();
}

/// `wrong-session-copy-after-admission`.
fn wrong_session_copy_after_admission(f: &mut Family<'_>) {
    let name = "wrong-session-copy-after-admission";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let event = fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown);
    let mut other = event.clone();
    other.insert("session_nonce".into(), Value::String(NONCE_2.into()));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "The genuine event is admitted; then the same pair arrives carrying another \
             session's nonce, validly re-signed by the publisher. The nonce check comes before \
             the duplicate check, so the copy is rejected as session_nonce_mismatch, not \
             duplicate_event_id.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[fx.signed(&event), fx.signed(&other)]))
        .scenario(
            vec![deliver(0), deliver(1)],
            vec![
                admitted(0),
                rejected(1, "session_nonce_mismatch", Rule::GrpNonce),
            ],
        )
        .exercises(&[Rule::GrpDupOrder])
        .push();
}

/// `rejected-then-genuine`.
fn rejected_then_genuine(f: &mut Family<'_>) {
    let name = "rejected-then-genuine";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let event = fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown);
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "A copy with a broken signature arrives first and is rejected \
             (well_known_signature_invalid); the genuine event with the same pair follows. A \
             rejected event is not recorded, so the genuine one is admitted; its re-delivery is \
             then a duplicate.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[
            broken_signature(&fx, &event),
            fx.signed(&event),
        ]))
        .scenario(
            vec![deliver(0), deliver(1), deliver(1)],
            vec![
                rejected(0, "well_known_signature_invalid", Rule::GrpSigVerify),
                admitted(1),
                duplicate(2),
            ],
        )
        .exercises(&[Rule::GrpDupAdmittedOnly])
        .push();
}

/// `wrong-nonce-then-genuine`.
fn wrong_nonce_then_genuine(f: &mut Family<'_>) {
    let name = "wrong-nonce-then-genuine";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let event = fx.event(EVENT_ID, P2_ID, PublisherType::Registered);
    let mut other = event.clone();
    other.insert("session_nonce".into(), Value::String(NONCE_2.into()));
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "A P-TYPE-2 event carrying another session's nonce is rejected \
             (session_nonce_mismatch); the same pair with the right nonce follows and is \
             admitted, because only admitted pairs are recorded. Its re-delivery is a \
             duplicate.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[fx.signed(&other), fx.signed(&event)]))
        .scenario(
            vec![deliver(0), deliver(1), deliver(1)],
            vec![
                rejected(0, "session_nonce_mismatch", Rule::GrpNonce),
                admitted(1),
                duplicate(2),
            ],
        )
        .exercises(&[Rule::GrpDupAdmittedOnly])
        .push();
}

/// `new-session`, then `new-session-then-replay` (derived from it: the same scenario with two
/// more deliveries).
fn new_session(f: &mut Family<'_>) {
    let plain = f.id_of("new-session");
    for (name, replay) in [("new-session", false), ("new-session-then-replay", true)] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let event = fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown);
        let mut again = event.clone();
        again.insert("session_nonce".into(), Value::String(NONCE_2.into()));
        let mut second = fx.session();
        second.session_id = SESSION_2.into();
        second.session_nonce = NONCE_2.into();
        let mut steps = vec![
            deliver(0),
            Step::Session {
                file: "session-2.json".into(),
            },
            deliver(1),
        ];
        let mut expected = vec![admitted(0), admitted(2)];
        let describe = if replay {
            steps.extend([deliver(1), deliver(0)]);
            expected.extend([
                duplicate(3),
                rejected(4, "session_nonce_mismatch", Rule::GrpNonce),
            ]);
            "As new-session: admitted in session 1, then admitted again in session 2 (new \
             session_id, new nonce, re-signed). Within session 2 a re-delivery of that line is a \
             duplicate, and the session-1 line (old nonce) is rejected as session_nonce_mismatch: \
             the nonce check, not the duplicate check, stops the old session's copy."
        } else {
            "The event is admitted in session 1. A new session starts (new session_id and a new \
             nonce, same state store); the publisher re-signs the same event with the new nonce. \
             The admitted set belongs to one session, so the pair is admitted again."
        };
        let b = f
            .vector(name)
            .revisions(GRP_FROM_01)
            .describe(describe)
            .session_file("session.json", &session_json(&fx.session()))
            .session_file("session-2.json", &session_json(&second))
            .events_text(&events_jsonl(&[fx.signed(&event), fx.signed(&again)]))
            .scenario(steps, expected)
            .exercises(if replay {
                &[Rule::GrpDupSession, Rule::GrpDupOrder]
            } else {
                &[Rule::GrpDupSession]
            });
        if replay {
            b.derived_from(
                &plain,
                "two deliveries added after session 2's admission: the session-2 line again, \
                 then the session-1 line",
            )
            .push();
        } else {
            b.push();
        }
    }
}

/// `rev00-exact-redelivery`.
fn rev00_exact_redelivery(f: &mut Family<'_>) {
    let name = "rev00-exact-redelivery";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let line = fx.signed(&fx.event(EVENT_ID, P3_ID, PublisherType::WellKnown));
    f.vector(name)
        .revisions(GRP_ONLY_00)
        .describe(
            "Revision-00 contrast of exact-redelivery-p-type-3: revision 00 has no duplicate \
             check, so the identical re-delivered line passes publisher, signature and nonce \
             checks and is admitted a second time (the gap revision 01 closes).",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[line]))
        .scenario(vec![deliver(0), deliver(0)], vec![admitted(0), admitted(1)])
        .exercises(&[Rule::GrpRev00NoDedup])
        .push();
}

/// `rev00-three-copies`.
fn rev00_three_copies(f: &mut Family<'_>) {
    let name = "rev00-three-copies";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let line = fx.signed(&fx.event(EVENT_ID, P2_ID, PublisherType::Registered));
    f.vector(name)
        .revisions(GRP_ONLY_00)
        .describe(
            "Revision 00: a P-TYPE-2 event delivered three times in a row is admitted three \
             times; nothing in revision 00 remembers admitted events.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&[line]))
        .scenario(
            vec![deliver(0), deliver(0), deliver(0)],
            vec![admitted(0), admitted(1), admitted(2)],
        )
        .exercises(&[Rule::GrpRev00NoDedup])
        .push();
}

/// `replay-three-in-reverse`.
fn replay_three_in_reverse(f: &mut Family<'_>) {
    let name = "replay-three-in-reverse";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let lines: Vec<String> = (1..=3)
        .map(|n| {
            fx.signed(&fx.event(
                &format!("grp-evt-20260714-00{n}"),
                P3_ID,
                PublisherType::WellKnown,
            ))
        })
        .collect();
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "Three distinct events of one publisher are admitted, then all three are replayed \
             in reverse order: each replay is a duplicate, whatever the order.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&lines))
        .scenario(
            vec![
                deliver(0),
                deliver(1),
                deliver(2),
                deliver(2),
                deliver(1),
                deliver(0),
            ],
            vec![
                admitted(0),
                admitted(1),
                admitted(2),
                duplicate(3),
                duplicate(4),
                duplicate(5),
            ],
        )
        .push();
}

/// `interleaved-publishers`.
fn interleaved_publishers(f: &mut Family<'_>) {
    let name = "interleaved-publishers";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let specs = [
        ("grp-evt-1", P1_ID, PublisherType::Principal),
        ("grp-evt-1", P3_ID, PublisherType::WellKnown),
        ("grp-evt-2", P2_ID, PublisherType::Registered),
        ("grp-evt-2", P1_ID, PublisherType::Principal),
        ("grp-evt-3", P3_ID, PublisherType::WellKnown),
    ];
    let lines: Vec<String> = specs
        .iter()
        .map(|(e, p, t)| fx.signed(&fx.event(e, p, *t)))
        .collect();
    // Each new event is followed by a replay of the one before it, then the first again.
    let order = [0usize, 1, 0, 2, 1, 3, 2, 4, 3, 0];
    let steps: Vec<Step> = order.iter().map(|n| deliver(*n)).collect();
    let mut seen = Vec::new();
    let expected: Vec<ExpectedDecision> = order
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if seen.contains(n) {
                duplicate(i)
            } else {
                seen.push(*n);
                admitted(i)
            }
        })
        .collect();
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "Five events from the three publishers, with event_ids reused across publishers \
             (grp-evt-1 from P-TYPE-1 and P-TYPE-3, grp-evt-2 from P-TYPE-2 and P-TYPE-1). \
             Deliveries interleave new events with replays of earlier ones: every first \
             delivery of a pair is admitted, every later one is a duplicate.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&lines))
        .scenario(steps, expected)
        .exercises(&[Rule::GrpDupPair])
        .push();
}

/// `replay-1000-after-1000`.
fn replay_1000_after_1000(f: &mut Family<'_>) {
    const N: usize = 1000;
    let name = "replay-1000-after-1000";
    let id = f.id_of(name);
    let fx = Fixture::new(&id);
    let lines: Vec<String> = (1..=N)
        .map(|n| {
            fx.signed(&fx.event(
                &format!("grp-evt-20260714-{n:05}"),
                P3_ID,
                PublisherType::WellKnown,
            ))
        })
        .collect();
    let steps: Vec<Step> = (0..2 * N).map(|i| deliver(i % N)).collect();
    let expected: Vec<ExpectedDecision> = (0..2 * N)
        .map(|i| if i < N { admitted(i) } else { duplicate(i) })
        .collect();
    f.vector(name)
        .revisions(GRP_FROM_01)
        .describe(
            "1,000 distinct events of one publisher are admitted, then all 1,000 are replayed \
             in the same order: every replay is a duplicate (the admitted set holds every pair \
             of the session, not a recent window). The 10,000-event case would make the vector \
             file too large to commit (about 14 MB); the reference's tests and benchmarks \
             exercise it instead.",
        )
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(&lines))
        .scenario(steps, expected)
        .push();
}
