//! `grp/admission/admission/*`: every pre-admission check of one delivered change event —
//! event shape, publisher registration and authority, the signature profile, the session nonce —
//! and a valid event of each publisher type.
//!
//! GRP (draft-sato-soos-grp) is an individual Internet-Draft, not a standard. The checks here are
//! the same in revisions 00 and 01 (a single delivery never meets the duplicate check), so every
//! vector targets both. Reasons the draft does not name (`unknown_publisher`,
//! `epr_signature_invalid`, `malformed_event`, ...) are this project's names; the expected
//! decisions say so (`reason_named_by_draft`).
//!
//! Events broken in their shape are otherwise signed validly over what is received, so the only
//! fault is the one the vector is about (a receiver that skipped the shape check would admit them).
//!
//! Every broken vector names the valid vector of this family whose event it changes
//! (`derivation`, for paired credit): `valid-p-type-1`, `-2` or `-3`, by the example event it is
//! built from. Keys derive from each vector's own id, so a derived vector's event is the source's
//! event signed with its own keys; the mutation says what else changed.

use agentconf_grp::event::PublisherType;
use agentconf_grp::jws::{b64url, canonical_payload};
use agentconf_grp::session::SessionContext;
use agentconf_rules::Rule;
use ed25519_dalek::Signer as _;
use serde_json::{Map, Value};

use super::common::{
    admitted, deliver, events_jsonl, kid, rejected, session_json, with_signature, Fixture, P1_ID,
    P2_ID, P3_ID,
};
use super::tokens::{hmac_sha256_token, token_with_header};
use crate::builder::{Family, GRP_ALL};
use agentconf_contract::vector::{ExpectedDecision, Flag, Suite, Vector};

const EVENT_ID: &str = "grp-evt-20260714-001";
const MALFORMED: &str = "malformed_event";

/// The valid vectors of the example events, one per publisher type (names in this family).
const VALID_P1: &str = "valid-p-type-1";
const VALID_P2: &str = "valid-p-type-2";
const VALID_P3: &str = "valid-p-type-3";

/// What the receiver must decide for the single delivery.
enum Want {
    /// Admitted, showing `rules` and then the `extra` ones satisfied.
    Admit(&'static [Rule], &'static [Rule]),
    Reject(&'static str, Rule),
    /// The reference rejects with this reason on this rule, but a receiver that admits also
    /// conforms, for the reasons `flags` give. A rejection must still be this one (strict).
    Acceptable(&'static str, Rule, &'static [Flag]),
}

/// Flags of a vector whose broken rule is a SHOULD of this project's interpretation.
const SHOULD_INTERP: &[Flag] = &[Flag::ShouldLevel, Flag::Interpretation];

/// Flags of a vector whose expectation rests on a reading the draft does not settle, though the
/// rule is graded MUST where the draft does settle it (spec-notes: "Readings the draft does not
/// settle").
const UNSETTLED: &[Flag] = &[Flag::Interpretation];

/// A broken vector's derivation: the valid vector of this family whose event it changes (one of
/// [`VALID_P1`], [`VALID_P2`], [`VALID_P3`]), and the change in words.
struct Derived<'a> {
    valid: &'static str,
    mutation: &'a str,
}

/// Built from the event of the valid vector `valid` (a name in this family), changed as `mutation`
/// says.
fn mutates<'a>(valid: &'static str, mutation: &'a str) -> Option<Derived<'a>> {
    Some(Derived { valid, mutation })
}

/// Pushes a one-delivery vector (both revisions), derived from `from` when it is a broken one.
fn one(
    f: &mut Family<'_>,
    name: &str,
    describe: &str,
    session: &SessionContext,
    line: &[u8],
    want: Want,
    from: Option<Derived<'_>>,
) {
    let source = from.map(|d| (f.id_of(d.valid), d.mutation));
    let b = f
        .vector(name)
        .revisions(GRP_ALL)
        .describe(describe)
        .session_file("session.json", &session_json(session))
        .input("events", "events.jsonl", &[line, b"\n"].concat());
    let b = match want {
        Want::Admit(rules, extra) => b
            .scenario(vec![deliver(0)], vec![admitted(0)])
            .exercises(rules)
            .exercises(extra),
        Want::Reject(reason, rule) => b.scenario(vec![deliver(0)], vec![rejected(0, reason, rule)]),
        Want::Acceptable(reason, rule, flags) => b
            .scenario(vec![deliver(0)], vec![rejected(0, reason, rule)])
            .acceptable(&[rule], flags),
    };
    match source {
        Some((id, mutation)) => b.derived_from(&id, mutation).push(),
        None => b.push(),
    }
}

/// The fixture's example event of `publisher` (the P-TYPE of the fixture's registration).
fn example(fx: &Fixture, publisher: &str) -> Map<String, Value> {
    let t = match publisher {
        P1_ID => PublisherType::Principal,
        P2_ID => PublisherType::Registered,
        _ => PublisherType::WellKnown,
    };
    fx.event(EVENT_ID, publisher, t)
}

fn set(event: &mut Map<String, Value>, member: &str, value: &str) {
    event.insert(member.into(), Value::String(value.into()));
}

/// `token` with the first character of its signature segment changed: still canonical base64url
/// of 64 bytes, but the Ed25519 signature no longer verifies.
fn tamper(token: &str) -> String {
    let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
    if let Some(sig) = parts.get_mut(2) {
        let replacement = if sig.starts_with('A') { "B" } else { "A" };
        sig.replace_range(0..1, replacement);
    }
    parts.join(".")
}

/// The token of a signed line.
fn token_of(line: &str) -> String {
    serde_json::from_str::<Map<String, Value>>(line)
        .ok()
        .and_then(|m| {
            m.get("publisher_signature")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// A token with `header` over the event's profile payload, signed (Ed25519) by `publisher`'s key.
fn token_signed_with_header(
    fx: &Fixture,
    event: &Map<String, Value>,
    publisher: &str,
    header: &str,
) -> String {
    let input = format!(
        "{}.{}",
        b64url(header.as_bytes()),
        b64url(&canonical_payload(event))
    );
    let sig = fx.key(publisher).sign(input.as_bytes());
    format!("{input}.{}", b64url(&sig.to_bytes()))
}

/// The reference signals the reason the draft names for P-TYPE-2 for a P-TYPE-3 case too; the
/// draft itself names no reason there.
fn not_named_by_draft(mut d: ExpectedDecision) -> ExpectedDecision {
    d.reason_named_by_draft = Some(false);
    d
}

/// The closing sentence of a shape vector's description and what it wants: a rejection as
/// `malformed_event` on `rule`, or, where `unsettled` says why the draft leaves the input open,
/// that rejection or an admission.
fn shape_want(rule: Rule, unsettled: Option<&str>) -> (String, Want) {
    match unsettled {
        None => (
            "Rejected (this project: malformed_event).".to_string(),
            Want::Reject(MALFORMED, rule),
        ),
        Some(why) => (
            format!(
                "{why} The reference rejects (this project: malformed_event); a receiver that \
                 admits also conforms."
            ),
            Want::Acceptable(MALFORMED, rule, UNSETTLED),
        ),
    }
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::GrpAdmission, "admission");
    valid(&mut f);
    publishers(&mut f);
    signatures(&mut f);
    nonce(&mut f);
    shape(&mut f);
}

/// Rules a valid event shows satisfied, whatever its publisher type.
const PASSES: &[Rule] = &[
    Rule::GrpJsonSyntax,
    Rule::GrpEvMembers,
    Rule::GrpEvPublisherType,
    Rule::GrpEvChangeClass,
    Rule::GrpEvSeverity,
    Rule::GrpEvTimestamp,
    Rule::GrpPubKnown,
    Rule::GrpPubType,
    Rule::GrpSigFormat,
    Rule::GrpSigAlg,
    Rule::GrpSigKey,
    Rule::GrpSigVerify,
    Rule::GrpSigPayload,
    Rule::GrpNonce,
];

fn valid(f: &mut Family<'_>) {
    let cases: [(&str, &str, &str, &'static [Rule]); 3] = [
        (
            VALID_P1,
            P1_ID,
            "A P-TYPE-1 (SOOS principal) event signed with the principal's KIA key (EdDSA, kid \
             naming its Ed25519 key), credential not revoked, the session's nonce: admitted.",
            &[Rule::GrpPubRevoked],
        ),
        (
            VALID_P2,
            P2_ID,
            "A P-TYPE-2 (registered external) event: the EPR registration window \
             (2026-01-01..2026-12-31) contains the session clock, the change class is permitted, \
             the signature verifies under the registered signing key: admitted.",
            &[Rule::GrpPubWindow, Rule::GrpPubEventType],
        ),
        (
            VALID_P3,
            P3_ID,
            "The draft's example event (revision 00 Appendix A) from the P-TYPE-3 publisher \
             ponyhouse.myauberge.jp: the well-known document cached at session start is valid, \
             lists RESOURCE_STATE, and holds the key that signed the event: admitted.",
            &[Rule::GrpPubWindow, Rule::GrpPubEventType],
        ),
    ];
    for (name, publisher, describe, extra) in cases {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let line = fx.signed(&example(&fx, publisher));
        one(
            f,
            name,
            describe,
            &fx.session(),
            line.as_bytes(),
            Want::Admit(PASSES, extra),
            None,
        );
    }

    // Variants that must still be admitted.
    {
        let name = "valid-without-remediation-hint";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P3_ID);
        e.remove("remediation_hint");
        one(
            f,
            name,
            "remediation_hint is optional: the example event without it, signed over what is sent, \
             is admitted.",
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Admit(&[Rule::GrpEvMembers], &[]),
            None,
        );
    }
    {
        let name = "valid-member-order-and-whitespace";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let line = fx.signed(&example(&fx, P3_ID));
        let m: Map<String, Value> = serde_json::from_str(&line).unwrap_or_default();
        // Members in reverse order, with spaces: the payload is compared on canonical forms.
        let parts: Vec<String> = m
            .iter()
            .rev()
            .map(|(k, v)| format!("{} : {}", Value::String(k.clone()), v))
            .collect();
        let text = format!("{{ {} }}", parts.join(" , "));
        one(
            f,
            name,
            "The signed example event re-serialized with its members in another order and extra \
             insignificant whitespace. The signed payload is the RFC 8785 form of the event, which \
             neither changes, so the event is admitted.",
            &fx.session(),
            text.as_bytes(),
            Want::Admit(&[Rule::GrpSigPayload], &[]),
            None,
        );
    }
    {
        let name = "valid-timestamp-with-offset";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P1_ID);
        set(&mut e, "event_timestamp", "2026-07-14T19:23:00.250+09:00");
        one(
            f,
            name,
            "event_timestamp with a fraction of a second and a +09:00 offset is a valid RFC 3339 \
             date-time: admitted.",
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Admit(&[Rule::GrpEvTimestamp], &[]),
            None,
        );
    }
    {
        let name = "valid-non-ascii-component";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P3_ID);
        set(
            &mut e,
            "affected_component",
            "rgp-resource-乗馬-trek-€-\u{1F40E}",
        );
        one(
            f,
            name,
            "affected_component holds non-ASCII characters (CJK, the euro sign, a character \
             outside the BMP). The JCS payload carries them as UTF-8; the event is admitted.",
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Admit(&[Rule::GrpSigPayload], &[]),
            None,
        );
    }
    {
        let name = "valid-second-key";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut session = fx.session();
        let other = fx.key(&format!("{P3_ID}-other"));
        let kid2 = format!("{P3_ID}#k2");
        for p in &mut session.publishers {
            if p.publisher_id == P3_ID {
                p.keys.push(agentconf_grp::jws::public_jwk(
                    &kid2,
                    &other.verifying_key(),
                ));
            }
        }
        let line = fx.signed_with(&example(&fx, P3_ID), &kid2, &other);
        one(
            f,
            name,
            "The P-TYPE-3 document lists two keys; the event is signed with the second (kid \
             ...#k2). The kid selects the key, and the event is admitted.",
            &session,
            line.as_bytes(),
            Want::Admit(&[Rule::GrpSigKey, Rule::GrpSigVerify], &[]),
            None,
        );
    }
    // The session clock exactly at an end of the P-TYPE-2 window. The draft has the window
    // checked but does not say whether its ends belong to it; the reference counts both in and
    // admits. A receiver with an exclusive bound rejects, and only that rejection may it give: so
    // the expected decision is the exclusive receiver's, and the vector is acceptable. (These
    // were `valid-p-type-2-at-not-before` and `-at-not-after`, retired ids.)
    for (name, which, instant, reason, why) in [
        (
            "p-type-2-clock-at-not-before",
            "not_before",
            "2026-01-01T00:00:00Z",
            "publisher_registration_not_yet_valid",
            "a receiver that reads the window as starting after not_before rejects it as not yet \
             valid (the draft names no reason for this case; this project: \
             publisher_registration_not_yet_valid)",
        ),
        (
            "p-type-2-clock-at-not-after",
            "not_after",
            "2026-12-31T23:59:59Z",
            "publisher_registration_expired",
            "a receiver that reads the window as ending before not_after rejects it as \
             publisher_registration_expired, the reason the draft names for an expired \
             registration",
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut session = fx.session();
        session.clock = instant.into();
        one(
            f,
            name,
            &format!(
                "The session clock is exactly the P-TYPE-2 registration's {which} ({instant}); the \
                 event is validly signed. The draft has the validity window checked but does not \
                 say whether its ends are inside it. The reference counts both ends in and admits \
                 the event; {why}. Either decision conforms."
            ),
            &session,
            fx.signed(&example(&fx, P2_ID)).as_bytes(),
            Want::Acceptable(reason, Rule::GrpPubWindow, UNSETTLED),
            mutates(
                VALID_P2,
                &format!("the session clock set to exactly the registration's {which} ({instant})"),
            ),
        );
    }
}

fn publishers(f: &mut Family<'_>) {
    {
        let name = "unknown-publisher";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = fx.event(EVENT_ID, "stables.example.org", PublisherType::WellKnown);
        one(
            f,
            name,
            "A validly self-signed event from stables.example.org, which is not among the \
             publishers registered for the session (none can be added mid-session). It is \
             rejected; the draft names no reason (this project: unknown_publisher).",
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Reject("unknown_publisher", Rule::GrpPubKnown),
            mutates(
                VALID_P3,
                "publisher_id set to stables.example.org, a publisher not registered for the \
                 session, and signed with that publisher's own key",
            ),
        );
    }
    {
        let name = "publisher-type-mismatch";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P3_ID);
        set(&mut e, "publisher_type", "P-TYPE-2");
        one(
            f,
            name,
            "The P-TYPE-3 publisher's event declares publisher_type P-TYPE-2 (signed validly with \
             its own key). The declared type is not the registered one, so the event is rejected \
             before the type's checks could be confused (this project: publisher_type_mismatch).",
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Reject("publisher_type_mismatch", Rule::GrpPubType),
            mutates(VALID_P3, "publisher_type set to P-TYPE-2; re-signed"),
        );
    }
    {
        let name = "p-type-1-revoked";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut session = fx.session();
        for p in &mut session.publishers {
            if p.publisher_id == P1_ID {
                p.revoked = true;
            }
        }
        one(
            f,
            name,
            "The P-TYPE-1 principal's credential is revoked; its event is otherwise validly signed. \
             The receiver must check the credential is not revoked: rejected as \
             kia_signature_invalid (ALE-064).",
            &session,
            fx.signed(&example(&fx, P1_ID)).as_bytes(),
            Want::Reject("kia_signature_invalid", Rule::GrpPubRevoked),
            mutates(
                VALID_P1,
                "the principal's credential marked revoked in the session context",
            ),
        );
    }
    // P-TYPE-2 windows.
    let window = |f: &mut Family<'_>,
                  name: &str,
                  describe: &str,
                  nb: &str,
                  na: &str,
                  bad_sig: bool,
                  want: Want| {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut session = fx.session();
        for p in &mut session.publishers {
            if p.publisher_id == P2_ID {
                p.not_before = Some(nb.into());
                p.not_after = Some(na.into());
            }
        }
        let e = example(&fx, P2_ID);
        let line = if bad_sig {
            with_signature(&e, &tamper(&token_of(&fx.signed(&e))))
        } else {
            fx.signed(&e)
        };
        let mutation = format!(
            "the P-TYPE-2 registration window set to {nb} .. {na}{}",
            if bad_sig {
                "; the first character of the token's signature segment changed"
            } else {
                ""
            }
        );
        one(
            f,
            name,
            describe,
            &session,
            line.as_bytes(),
            want,
            mutates(VALID_P2, &mutation),
        );
    };
    window(
        f,
        "p-type-2-not-yet-valid",
        "The P-TYPE-2 registration starts 2026-08-01, after the session clock \
         (2026-07-14T10:30:00Z); the event is validly signed. The window is checked before the \
         signature and the event is rejected; the draft names no reason for this case (this \
         project: publisher_registration_not_yet_valid).",
        "2026-08-01T00:00:00Z",
        "2026-12-31T23:59:59Z",
        false,
        Want::Reject("publisher_registration_not_yet_valid", Rule::GrpPubWindow),
    );
    window(
        f,
        "p-type-2-expired",
        "The P-TYPE-2 registration ended 2026-07-01, before the session clock; the event is \
         validly signed. Rejected as publisher_registration_expired (ALE-064), the reason the \
         draft names.",
        "2026-01-01T00:00:00Z",
        "2026-07-01T00:00:00Z",
        false,
        Want::Reject("publisher_registration_expired", Rule::GrpPubWindow),
    );
    window(
        f,
        "p-type-2-expired-one-second",
        "The P-TYPE-2 registration ended at 10:29:59Z, one second before the session clock \
         (10:30:00Z): expired, rejected as publisher_registration_expired.",
        "2026-01-01T00:00:00Z",
        "2026-07-14T10:29:59Z",
        false,
        Want::Reject("publisher_registration_expired", Rule::GrpPubWindow),
    );
    window(
        f,
        "p-type-2-expired-and-bad-signature",
        "The P-TYPE-2 registration has expired and the event's signature does not verify either. \
         The draft checks the validity window before the signature, so the reason is \
         publisher_registration_expired, not a signature failure.",
        "2026-01-01T00:00:00Z",
        "2026-07-01T00:00:00Z",
        true,
        Want::Reject("publisher_registration_expired", Rule::GrpPubWindow),
    );
    {
        let name = "p-type-2-event-type-not-permitted";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut session = fx.session();
        for p in &mut session.publishers {
            if p.publisher_id == P2_ID {
                p.event_types = Some(vec!["RESOURCE_STATE".into(), "DEPENDENCY_UPDATE".into()]);
            }
        }
        let mut e = example(&fx, P2_ID);
        set(&mut e, "change_class", "POLICY_UPDATE");
        one(
            f,
            name,
            "The P-TYPE-2 registration's event_types_permitted lists RESOURCE_STATE and \
             DEPENDENCY_UPDATE; the validly signed event is a POLICY_UPDATE. The draft gives the \
             list but states no consequence of a class outside it. The reference reads the list \
             as a limit and rejects (this project's reason: event_type_not_permitted); a receiver \
             that admits also conforms.",
            &session,
            fx.signed(&e).as_bytes(),
            Want::Acceptable("event_type_not_permitted", Rule::GrpPubEventType, UNSETTLED),
            mutates(
                VALID_P2,
                "the registration's event_types narrowed to RESOURCE_STATE and DEPENDENCY_UPDATE; \
                 change_class set to POLICY_UPDATE; re-signed",
            ),
        );
    }
    {
        let name = "p-type-3-event-type-not-permitted";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P3_ID);
        set(&mut e, "change_class", "MANDATE_CONDITION");
        one(
            f,
            name,
            "The P-TYPE-3 well-known document lists event_types RESOURCE_STATE and \
             DEPENDENCY_UPDATE; the validly signed event is a MANDATE_CONDITION. The draft gives \
             the list but states no consequence of a class outside it. The reference reads the \
             list as a limit and rejects (this project's reason: event_type_not_permitted); a \
             receiver that admits also conforms.",
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Acceptable("event_type_not_permitted", Rule::GrpPubEventType, UNSETTLED),
            mutates(
                VALID_P3,
                "change_class set to MANDATE_CONDITION, which the well-known document does not \
                 list; re-signed",
            ),
        );
    }
    {
        let name = "p-type-3-document-expired";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut session = fx.session();
        for p in &mut session.publishers {
            if p.publisher_id == P3_ID {
                p.not_after = Some("2026-06-30T23:59:59Z".into());
            }
        }
        let source = f.id_of(VALID_P3);
        let b = f
            .vector(name)
            .revisions(GRP_ALL)
            .describe(
                "The P-TYPE-3 publisher's well-known document (not_after 2026-06-30) has expired \
                 at the session clock; the event is validly signed with a key it lists. The draft \
                 lists not_after in the document but states no consequence of it. The reference \
                 reads it as a validity limit and rejects, with publisher_registration_expired \
                 (the reason the draft gives for an expired P-TYPE-2 registration; for P-TYPE-3 \
                 the draft names none). A receiver that admits also conforms.",
            )
            .session_file("session.json", &session_json(&session))
            .events_text(&events_jsonl(&[fx.signed(&example(&fx, P3_ID))]))
            .derived_from(
                &source,
                "the well-known document's not_after set to 2026-06-30T23:59:59Z, before the \
                 session clock",
            );
        b.scenario(
            vec![deliver(0)],
            vec![not_named_by_draft(rejected(
                0,
                "publisher_registration_expired",
                Rule::GrpPubWindow,
            ))],
        )
        .acceptable(&[Rule::GrpPubWindow], UNSETTLED)
        .push();
    }
}

fn signatures(f: &mut Family<'_>) {
    // Bad signatures, one per publisher type: signed by another key under the right kid, and a
    // tampered signature.
    for (name, publisher, valid, reason, describe) in [
        (
            "p-type-1-bad-signature",
            P1_ID,
            VALID_P1,
            "kia_signature_invalid",
            "The P-TYPE-1 event is signed by a key that is not the principal's KIA key (under the \
             principal's kid). Rejected as kia_signature_invalid (ALE-064).",
        ),
        (
            "p-type-2-bad-signature",
            P2_ID,
            VALID_P2,
            "epr_signature_invalid",
            "The P-TYPE-2 event is signed by a key that is not the registered signing key (under \
             the registered kid). Rejected; the draft names no reason for this case (this \
             project: epr_signature_invalid).",
        ),
        (
            "p-type-3-bad-signature",
            P3_ID,
            VALID_P3,
            "well_known_signature_invalid",
            "The P-TYPE-3 event is signed by a key that is not in the publisher's well-known \
             document (under the document's kid). Rejected as well_known_signature_invalid \
             (ALE-064).",
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let line = fx.signed_with(
            &example(&fx, publisher),
            &kid(publisher),
            &fx.key(&format!("{publisher}-other")),
        );
        one(
            f,
            name,
            describe,
            &fx.session(),
            line.as_bytes(),
            Want::Reject(reason, Rule::GrpSigVerify),
            mutates(valid, "signed by another key under the publisher's kid"),
        );
    }
    {
        let name = "p-type-3-tampered-signature";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P3_ID);
        let line = with_signature(&e, &tamper(&token_of(&fx.signed(&e))));
        one(
            f,
            name,
            "The genuine signature of the P-TYPE-3 event with one base64url character of the \
             signature segment changed (still 64 canonical bytes): it no longer verifies, rejected \
             as well_known_signature_invalid.",
            &fx.session(),
            line.as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigVerify),
            mutates(
                VALID_P3,
                "the first character of the token's signature segment changed",
            ),
        );
    }
    {
        let name = "p-type-3-signature-segment-empty";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P3_ID);
        let token = token_of(&fx.signed(&e));
        let cut = token
            .rfind('.')
            .map(|i| &token[..=i])
            .unwrap_or_default()
            .to_string();
        one(
            f,
            name,
            "The EdDSA token of the P-TYPE-3 event with its signature segment removed (header and \
             payload intact, ending in a dot): no signature to verify, rejected as \
             well_known_signature_invalid.",
            &fx.session(),
            with_signature(&e, &cut).as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigVerify),
            mutates(
                VALID_P3,
                "the token's signature segment removed (header and payload kept, ending in a dot)",
            ),
        );
    }
    {
        let name = "alg-none";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P3_ID);
        let header = format!(r#"{{"alg":"none","kid":"{}"}}"#, kid(P3_ID));
        let token = token_with_header(&header, &canonical_payload(&e), b"");
        one(
            f,
            name,
            "An unsecured JWS (alg none, empty signature segment) over the correct payload of the \
             P-TYPE-3 event. The profile accepts only EdDSA: rejected as \
             well_known_signature_invalid.",
            &fx.session(),
            with_signature(&e, &token).as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigAlg),
            mutates(
                VALID_P3,
                "the token replaced by an unsecured JWS (alg none, empty signature segment) over \
                 the same payload",
            ),
        );
    }
    for (name, publisher, valid, reason, secret_is_text) in [
        (
            "hmac-confusion-public-key-bytes",
            P3_ID,
            VALID_P3,
            "well_known_signature_invalid",
            false,
        ),
        (
            "hmac-confusion-public-key-text",
            P1_ID,
            VALID_P1,
            "kia_signature_invalid",
            true,
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, publisher);
        let public = fx.key(publisher).verifying_key();
        let secret: Vec<u8> = if secret_is_text {
            b64url(public.as_bytes()).into_bytes()
        } else {
            public.as_bytes().to_vec()
        };
        let token = hmac_sha256_token(&e, &kid(publisher), &secret);
        let what = if secret_is_text {
            "the text of the JWK's x member"
        } else {
            "the 32 raw bytes of the publisher's Ed25519 public key"
        };
        one(
            f,
            name,
            &format!(
                "Algorithm confusion: a genuine HS256 token over the correct payload, keyed with \
                 {what} (public, so anyone can mint it). A verifier that lets the header choose \
                 the algorithm would accept it; the profile rejects HMAC algorithms \
                 ({reason})."
            ),
            &fx.session(),
            with_signature(&e, &token).as_bytes(),
            Want::Reject(reason, Rule::GrpSigAlg),
            mutates(
                valid,
                &format!("the token replaced by an HS256 token keyed with {what}"),
            ),
        );
    }
    {
        let name = "alg-es256";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P2_ID);
        let header = format!(r#"{{"alg":"ES256","kid":"{}"}}"#, kid(P2_ID));
        let token = token_signed_with_header(&fx, &e, P2_ID, &header);
        one(
            f,
            name,
            "The header names alg ES256 (the bytes are an Ed25519 signature by the right key). \
             Only EdDSA is accepted: the P-TYPE-2 event is rejected (this project: \
             epr_signature_invalid).",
            &fx.session(),
            with_signature(&e, &token).as_bytes(),
            Want::Reject("epr_signature_invalid", Rule::GrpSigAlg),
            mutates(
                VALID_P2,
                "signed by the same key under a header naming alg ES256",
            ),
        );
    }
    {
        let name = "unknown-kid";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P3_ID);
        let line = fx.signed_with(&e, &format!("{P3_ID}#k9"), &fx.key(P3_ID));
        one(
            f,
            name,
            "The P-TYPE-3 event is signed with the publisher's key but the header's kid (...#k9) \
             names no key of the publisher: rejected as well_known_signature_invalid.",
            &fx.session(),
            line.as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigKey),
            mutates(
                VALID_P3,
                "signed by the same key under kid ponyhouse.myauberge.jp#k9, which names no key",
            ),
        );
    }
    {
        let name = "kid-of-another-publisher";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P3_ID);
        let line = fx.signed_with(&e, &kid(P2_ID), &fx.key(P2_ID));
        one(
            f,
            name,
            "The P-TYPE-3 event is signed by the registered P-TYPE-2 publisher with its own key \
             and kid. Only the named publisher's keys count, and none of them has that kid: \
             rejected as well_known_signature_invalid.",
            &fx.session(),
            line.as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigKey),
            mutates(
                VALID_P3,
                "signed by the P-TYPE-2 publisher's key under that publisher's kid",
            ),
        );
    }
    {
        let name = "missing-kid";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P1_ID);
        let token = token_signed_with_header(&fx, &e, P1_ID, r#"{"alg":"EdDSA"}"#);
        one(
            f,
            name,
            "The P-TYPE-1 event's JWS header has no kid (the signature is by the right key). The \
             profile requires a kid naming one of the publisher's keys: rejected as \
             kia_signature_invalid.",
            &fx.session(),
            with_signature(&e, &token).as_bytes(),
            Want::Reject("kia_signature_invalid", Rule::GrpSigKey),
            mutates(
                VALID_P1,
                "signed by the same key under a header without kid",
            ),
        );
    }
    {
        let name = "signature-lifted-onto-other-event";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let a = example(&fx, P3_ID);
        let mut b = a.clone();
        set(&mut b, "event_id", "grp-evt-20260714-002");
        set(&mut b, "change_severity", "CRITICAL");
        let token = token_of(&fx.signed(&a));
        one(
            f,
            name,
            "The genuine token of event grp-evt-20260714-001 is attached to another event \
             (grp-evt-20260714-002, CRITICAL) of the same publisher. The token verifies \
             cryptographically, but its payload is not the canonical form of the event that \
             carries it: rejected as well_known_signature_invalid.",
            &fx.session(),
            with_signature(&b, &token).as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigPayload),
            mutates(
                VALID_P3,
                "event_id set to grp-evt-20260714-002 and change_severity to CRITICAL, keeping the \
                 token signed over the original event",
            ),
        );
    }
    {
        let name = "event-altered-after-signing";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let a = example(&fx, P2_ID);
        let token = token_of(&fx.signed(&a));
        let mut b = a.clone();
        set(&mut b, "affected_component", "rgp-resource-horse-trek-002");
        one(
            f,
            name,
            "A P-TYPE-2 event whose affected_component was changed after signing; the token is \
             untouched and verifies over its own payload, which no longer matches the event: \
             rejected (this project: epr_signature_invalid).",
            &fx.session(),
            with_signature(&b, &token).as_bytes(),
            Want::Reject("epr_signature_invalid", Rule::GrpSigPayload),
            mutates(
                VALID_P2,
                "affected_component set to rgp-resource-horse-trek-002 after signing (token kept)",
            ),
        );
    }
    // Malformed JWS.
    for (name, describe, make, mutation) in [
        (
            "jws-two-segments",
            "publisher_signature has only two segments (the signature segment and its dot are \
             missing): not a compact JWS.",
            0,
            "the token's signature segment and the dot before it removed",
        ),
        (
            "jws-garbage",
            "publisher_signature is the text \"<JWS compact serialization>\" copied from the \
             draft's example: not a compact JWS.",
            1,
            "the token replaced by the text <JWS compact serialization>",
        ),
        (
            "jws-header-not-json",
            "The protected header decodes to text that is not JSON: not a valid compact JWS.",
            2,
            "signed by the same key under a protected header that is not JSON",
        ),
        (
            "jws-critical-header",
            "The protected header carries crit [\"exp\"]; the profile understands no extension, so \
             the JWS must be rejected (RFC 7515 section 4.1.11).",
            3,
            "signed by the same key under a header with crit [\"exp\"] and exp",
        ),
        (
            "jws-padded-segments",
            "The genuine token with base64 padding added to its segments: JWS compact form uses \
             unpadded base64url.",
            4,
            "base64 padding added to each segment of the token",
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let e = example(&fx, P3_ID);
        let genuine = token_of(&fx.signed(&e));
        let token = match make {
            0 => genuine.rsplit_once('.').map(|(a, _)| a.to_string()).unwrap_or_default(),
            1 => "<JWS compact serialization>".to_string(),
            2 => token_signed_with_header(&fx, &e, P3_ID, "alg=EdDSA;kid=ponyhouse"),
            3 => token_signed_with_header(
                &fx,
                &e,
                P3_ID,
                &format!(r#"{{"alg":"EdDSA","kid":"{}","crit":["exp"],"exp":1}}"#, kid(P3_ID)),
            ),
            _ => genuine
                .split('.')
                .map(|s| {
                    let pad = (4 - s.len() % 4) % 4;
                    format!("{s}{}", "=".repeat(pad))
                })
                .collect::<Vec<_>>()
                .join("."),
        };
        one(
            f,
            name,
            &format!("{describe} The P-TYPE-3 event is rejected as well_known_signature_invalid."),
            &fx.session(),
            with_signature(&e, &token).as_bytes(),
            Want::Reject("well_known_signature_invalid", Rule::GrpSigFormat),
            mutates(VALID_P3, mutation),
        );
    }
}

fn nonce(f: &mut Family<'_>) {
    for (name, publisher, valid, value, describe) in [
        (
            "nonce-mismatch",
            P3_ID,
            VALID_P3,
            "ses-nonce-aep-session-002",
            "The P-TYPE-3 event is validly signed but carries another session's nonce. Rejected \
             as session_nonce_mismatch (ALE-064).",
        ),
        (
            "nonce-differs-in-case",
            P1_ID,
            VALID_P1,
            "SES-NONCE-AEP-SESSION-001",
            "The P-TYPE-1 event carries the session's nonce in upper case (validly signed). The \
             nonce is compared exactly: rejected as session_nonce_mismatch.",
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, publisher);
        set(&mut e, "session_nonce", value);
        one(
            f,
            name,
            describe,
            &fx.session(),
            fx.signed(&e).as_bytes(),
            Want::Reject("session_nonce_mismatch", Rule::GrpNonce),
            mutates(valid, &format!("session_nonce set to {value}; re-signed")),
        );
    }
}

fn shape(f: &mut Family<'_>) {
    // Each required member missing, the rest signed validly (publisher_signature: unsigned).
    for member in agentconf_grp::event::REQUIRED {
        let name = format!("missing-{}", member.replace('_', "-"));
        let id = f.id_of(&name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P1_ID);
        let line = if member == "publisher_signature" {
            Value::Object(e.clone()).to_string()
        } else {
            e.remove(member);
            fx.signed(&e)
        };
        let mutation = if member == "publisher_signature" {
            "publisher_signature removed (left unsigned)".to_string()
        } else {
            format!("{member} removed; re-signed")
        };
        let how = if member == "publisher_signature" {
            "The event carries no publisher_signature at all, so no signature check can run."
        } else {
            "The rest of the event is signed validly over what is sent."
        };
        one(
            f,
            &name,
            &format!(
                "The P-TYPE-1 event lacks the required member {member}. {how} Not a change event: \
                 rejected (this project: malformed_event)."
            ),
            &fx.session(),
            line.as_bytes(),
            Want::Reject(MALFORMED, Rule::GrpEvMembers),
            mutates(VALID_P1, &mutation),
        );
    }
    // Wrong member types and empty values.
    for (name, member, value, describe, unsettled) in [
        (
            "event-id-empty",
            "event_id",
            Value::String(String::new()),
            "event_id is the empty string",
            // The draft asks for a string unique within the publisher's stream; "" is a string.
            Some(
                "The draft makes event_id a string unique within the publisher's stream and says \
                 nothing of an empty one.",
            ),
        ),
        (
            "event-id-number",
            "event_id",
            Value::from(1),
            "event_id is the number 1, not a string",
            None,
        ),
        (
            "affected-component-null",
            "affected_component",
            Value::Null,
            "affected_component is null",
            None,
        ),
        (
            "remediation-hint-object",
            "remediation_hint",
            serde_json::json!({"action": "FALLBACK"}),
            "the optional remediation_hint is present but an object, not a string",
            None,
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P1_ID);
        let mutation = format!("{member} set to {value}; re-signed");
        e.insert(member.into(), value);
        let (verdict, want) = shape_want(Rule::GrpEvMembers, unsettled);
        one(
            f,
            name,
            &format!(
                "In the P-TYPE-1 event {describe} (otherwise signed validly over what is sent). \
                 {verdict}"
            ),
            &fx.session(),
            fx.signed(&e).as_bytes(),
            want,
            mutates(VALID_P1, &mutation),
        );
    }
    // Enumerations and the timestamp. P-TYPE-1 has no event-type restriction, so the member is the
    // event's only fault.
    for (name, member, value, rule, describe, unsettled) in [
        (
            "publisher-type-unknown",
            "publisher_type",
            "P-TYPE-4",
            Rule::GrpEvPublisherType,
            "publisher_type P-TYPE-4 is none of the three types",
            None,
        ),
        (
            "publisher-type-lowercase",
            "publisher_type",
            "p-type-1",
            Rule::GrpEvPublisherType,
            "publisher_type p-type-1 is in lower case (the values are exact)",
            None,
        ),
        (
            "change-class-content-correction",
            "change_class",
            "CONTENT_CORRECTION",
            Rule::GrpEvChangeClass,
            "change_class is CONTENT_CORRECTION, a class later revisions of the draft add but \
             revisions 00 and 01 do not have",
            // Revision 00 lists four classes and a later revision adds this one; the draft does
            // not say that a 00/01 receiver must refuse it.
            Some(
                "The draft lists four classes for revisions 00 and 01 and a later revision adds \
                 CONTENT_CORRECTION; it does not say that a receiver of 00 or 01 must refuse a \
                 class it does not list.",
            ),
        ),
        (
            "change-class-unknown",
            "change_class",
            "RESOURCE_DELETED",
            Rule::GrpEvChangeClass,
            "change_class RESOURCE_DELETED is not one of the four classes",
            None,
        ),
        (
            "change-severity-unknown",
            "change_severity",
            "SEVERE",
            Rule::GrpEvSeverity,
            "change_severity SEVERE is not LOW, MEDIUM, HIGH or CRITICAL",
            None,
        ),
        (
            "change-severity-lowercase",
            "change_severity",
            "medium",
            Rule::GrpEvSeverity,
            "change_severity medium is in lower case (the values are exact)",
            None,
        ),
        (
            "timestamp-not-a-date",
            "event_timestamp",
            "2026-02-30T10:23:00Z",
            Rule::GrpEvTimestamp,
            "event_timestamp 2026-02-30T10:23:00Z names a day that does not exist",
            None,
        ),
        (
            "timestamp-without-offset",
            "event_timestamp",
            "2026-07-14T10:23:00",
            Rule::GrpEvTimestamp,
            "event_timestamp has no time-zone offset (RFC 3339 requires Z or +hh:mm)",
            // "ISO 8601 / RFC 3339": ISO 8601 allows local time, RFC 3339 does not.
            Some(
                "The draft gives event_timestamp as ISO 8601 / RFC 3339: RFC 3339 requires the \
                 offset, ISO 8601 also allows a local time without one, and the draft does not \
                 say which governs.",
            ),
        ),
        (
            "timestamp-epoch-seconds",
            "event_timestamp",
            "1784024580",
            Rule::GrpEvTimestamp,
            "event_timestamp is a count of seconds, not an RFC 3339 date-time",
            None,
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P1_ID);
        set(&mut e, member, value);
        let (verdict, want) = shape_want(rule, unsettled);
        one(
            f,
            name,
            &format!(
                "In the P-TYPE-1 event {describe}; the event is otherwise signed validly over what \
                 is sent. {verdict}"
            ),
            &fx.session(),
            fx.signed(&e).as_bytes(),
            want,
            mutates(VALID_P1, &format!("{member} set to {value}; re-signed")),
        );
    }
    // Lines that are not change events at all.
    let id = f.id_of("not-json");
    let fx = Fixture::new(&id);
    let signed = fx.signed(&example(&fx, P3_ID));
    let truncated = signed[..signed.len() / 2].to_string();
    one(
        f,
        "not-json",
        "The line is the first half of a signed event (cut off mid-line): not one JSON text. \
         Rejected (this project: malformed_event).",
        &fx.session(),
        truncated.as_bytes(),
        Want::Reject(MALFORMED, Rule::GrpJsonSyntax),
        mutates(VALID_P3, "the signed line cut to its first half"),
    );
    let id = f.id_of("not-an-object");
    let fx = Fixture::new(&id);
    let signed = fx.signed(&example(&fx, P3_ID));
    one(
        f,
        "not-an-object",
        "The line is a JSON array holding a validly signed event: a change event is a JSON \
         object. Rejected (this project: malformed_event).",
        &fx.session(),
        format!("[{signed}]").as_bytes(),
        Want::Reject(MALFORMED, Rule::GrpEvMembers),
        mutates(VALID_P3, "the signed line wrapped in a JSON array"),
    );
    let id = f.id_of("empty-line");
    let fx = Fixture::new(&id);
    one(
        f,
        "empty-line",
        "The delivered line is empty: no JSON text. Rejected (this project: malformed_event).",
        &fx.session(),
        b"",
        Want::Reject(MALFORMED, Rule::GrpJsonSyntax),
        // No source: the line holds no event, so it changes no valid vector's event (any valid
        // vector with the fixture's session would do, none more than another).
        None,
    );
    let id = f.id_of("not-utf8");
    let fx = Fixture::new(&id);
    let signed = fx.signed(&example(&fx, P3_ID));
    let bytes = signed.replacen("horse", "hors\u{FFFD}", 1).into_bytes();
    // Replace the three-byte U+FFFD by a lone 0xFF byte.
    let bytes = {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i..].starts_with("\u{FFFD}".as_bytes()) {
                out.push(0xFF);
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        out
    };
    one(
        f,
        "not-utf8",
        "affected_component contains the byte 0xFF, which is not UTF-8: the line is not a JSON \
         text (RFC 8259 section 8.1). Rejected (this project: malformed_event).",
        &fx.session(),
        &bytes,
        Want::Reject(MALFORMED, Rule::GrpJsonSyntax),
        mutates(
            VALID_P3,
            "in the signed line, the e of horse in affected_component replaced by the byte 0xFF",
        ),
    );
    // Duplicate member names: the same value twice, and two values.
    for (name, value, describe) in [
        (
            "duplicate-member-same-value",
            "MEDIUM",
            "The signed P-TYPE-3 event carries change_severity twice, both MEDIUM. Whatever \
             duplicate a parser keeps it reads the signed event, but names in an object should be \
             unique (RFC 7493 section 2.3). The reference rejects (malformed_event); admitting is \
             also conforming.",
        ),
        (
            "duplicate-member-conflicting-value",
            "LOW",
            "The signed P-TYPE-3 event (change_severity MEDIUM) has a second change_severity LOW \
             inserted before it. A parser keeping the last member sees the signed event; one \
             keeping the first sees LOW under a signature for MEDIUM: two receivers would disagree \
             about what was signed. The reference rejects the ambiguous line (malformed_event); \
             the rule is a SHOULD of this project's interpretation.",
        ),
    ] {
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let signed = fx.signed(&example(&fx, P3_ID));
        let text = signed.replacen(
            "\"change_severity\"",
            &format!("\"change_severity\":\"{value}\",\"change_severity\""),
            1,
        );
        one(
            f,
            name,
            describe,
            &fx.session(),
            text.as_bytes(),
            Want::Acceptable(MALFORMED, Rule::GrpJsonDuplicate, SHOULD_INTERP),
            mutates(
                VALID_P3,
                &format!(
                    "a second change_severity member ({value}) inserted before the signed one"
                ),
            ),
        );
    }
    {
        let name = "lone-surrogate";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let signed = fx.signed(&example(&fx, P3_ID));
        let text = signed.replacen("horse-trek", "horse-trek-\\ud83d", 1);
        one(
            f,
            name,
            "affected_component ends in the escape \\ud83d, the first half of a surrogate pair \
             with no second half: not a Unicode string (RFC 7493 section 2.1). The reference \
             rejects the line (malformed_event); the signature would not cover it either.",
            &fx.session(),
            text.as_bytes(),
            Want::Acceptable(MALFORMED, Rule::GrpJsonSurrogate, SHOULD_INTERP),
            mutates(
                VALID_P3,
                "the lone high-surrogate escape \\ud83d inserted into affected_component after \
                 signing",
            ),
        );
    }
    {
        let name = "nesting-too-deep";
        let id = f.id_of(name);
        let fx = Fixture::new(&id);
        let mut e = example(&fx, P1_ID);
        let depth = 200;
        let mut deep = Value::Array(Vec::new());
        for _ in 1..depth {
            deep = Value::Array(vec![deep]);
        }
        e.insert("x-extension".into(), deep);
        let line = fx.signed(&e);
        one(
            f,
            name,
            "The P-TYPE-1 event, validly signed, carries an extra member nested 200 arrays deep, \
             past the reference reader's nesting limit (127 levels). The reference rejects the \
             line (malformed_event); a receiver with a higher limit may read and admit it.",
            &fx.session(),
            line.as_bytes(),
            Want::Acceptable(MALFORMED, Rule::GrpJsonLimits, SHOULD_INTERP),
            mutates(
                VALID_P1,
                "an extra member x-extension, arrays nested 200 deep, added; re-signed",
            ),
        );
    }
}
