//! The judge's own verdict on a timeline, commitment or receipt an emitter wrote, before any
//! verifier sees it: what a conforming verifier must answer, or nothing when the judge cannot
//! say.
//!
//! Deliberately narrow. `valid` only for output the emitter grading found to be the expected
//! artifact and that is plain: no member beyond the draft's, no name given twice, and not much
//! longer than its compact form (so no SHOULD-level limit of a verifier's can meet it).
//! `invalid` only for what every verifier must reject: bytes that are not UTF-8, output that
//! ends before one JSON value does, JSON that is not a non-empty array (timelines), a broken
//! hash chain (a wrong genesis link or a `prev_digest` that is not the draft's digest of the
//! entry before), a commitment that does not match its timeline (another `job_id`, `entry_count`
//! or `final_entry_digest` than the judge's own) or commits to a timeline that does not verify,
//! or a receipt whose own members contradict each other. Anything else is `unjudged`: other text
//! serde_json does not read (a byte-order mark, a lone surrogate, deep nesting and huge numbers
//! are SHOULD-level matters a verifier may accept), a self-consistent chain of other members, a
//! `seq` or `close` out of place. The emitter is wrong there, but what a verifier must say of it
//! depends on checks the judge does not repeat, so no verifier is blamed for its answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use agentconf_contract::emit::ReceiptMeta;
use agentconf_contract::vector::{Expectation, Vector};
use agentconf_rules::Rule;

use crate::emitted::{compare_commitment, entry_digest, expected_commitment, shown, EmitFault};
use crate::preimage::GENESIS;

/// What a conforming verifier must answer for an emitted artifact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "judged", rename_all = "kebab-case")]
pub enum Judged {
    /// The expected artifact (the draft's timeline of the steps, commitment of the timeline,
    /// receipt of the payload), written plainly: every verifier must accept it.
    Valid,
    /// A broken artifact (a broken chain, a commitment its timeline contradicts, a receipt
    /// contradicting itself, no JSON of the right type): every verifier must reject it, on this
    /// rule.
    Invalid { rule: String, why: String },
    /// The emitter is wrong, but the judge does not say what a verifier must answer.
    Unjudged { why: String },
}

/// Judges a receipt a producer wrote for `payload` and `meta`, which the emitter grading found
/// to be the expected receipt (`is_expected`) or not. Must-reject only for what any verifier
/// sees in the receipt alone: no JSON object, a missing member, base64 that is not padded
/// standard base64, an `output_hash` of another form or not the hash of the bytes it carries,
/// a `verification_status` other than `verified`. Bytes that are not the payload's, or members
/// other than META's, leave a receipt a verifier may accept: unjudged.
pub(crate) fn judge_receipt(
    output: &[u8],
    is_expected: bool,
    payload: &[u8],
    meta: &ReceiptMeta,
) -> Judged {
    if is_expected {
        return plain(output, RECEIPT_MEMBERS);
    }
    if let Some(j) = repeated_or_unreadable(output) {
        return j;
    }
    let faults = crate::emitted::compare_receipt(payload, meta, output);
    by_visible_fault(
        &faults,
        &[
            Rule::Aer1JsonUtf8,
            Rule::Aer1RcMembers,
            Rule::Aer1RcB64,
            Rule::Aer1RcHashFormat,
            Rule::Aer1RcHashMatch,
            Rule::Aer1RcStatus,
        ],
        "receipt",
    )
}

/// Judges a commitment an emitter wrote for `source` (an `aer1-emit-commitment` vector), which
/// the emitter grading found to be the expected commitment (`is_expected`) or not. A verifier
/// gets it beside the vector's timeline. Must-reject only for what every verifier given both must
/// reject: a timeline that does not verify (`source` is a vector whose timeline the producer
/// must refuse, on the rule the corpus names; whatever was written, the pair is broken), and a
/// commitment that is not UTF-8, ends before one JSON value does, is no JSON object or lacks a
/// member, or whose `job_id`, `entry_count` or `final_entry_digest` is not the judge's own for
/// the timeline (its digest written with the judge's preimage). An `entry_count` of the right
/// value written as `5.0` (a matter of how a verifier reads numbers), another `published_at`
/// (a verifier checks its form, not its value), members beyond the draft's or a member given
/// twice are unjudged.
pub(crate) fn judge_commitment(output: &[u8], is_expected: bool, source: &Vector) -> Judged {
    if source.expectation == Expectation::Invalid {
        let rule = source
            .expected_rules
            .first()
            .copied()
            .unwrap_or(Rule::Aer1TlLink);
        return Judged::Invalid {
            rule: rule.id().to_string(),
            why: format!(
                "a commitment to a timeline that does not verify ({}): no verifier may accept \
                 the pair",
                rule.id()
            ),
        };
    }
    if is_expected {
        return plain(output, COMMITMENT_MEMBERS);
    }
    if let Some(j) = repeated_or_unreadable(output) {
        return j;
    }
    let timeline: Option<Vec<Value>> = source
        .input_bytes("timeline")
        .and_then(|b| serde_json::from_slice(&b).ok());
    let want = timeline
        .as_deref()
        .zip(source.options.published_at.as_deref())
        .and_then(|(t, at)| expected_commitment(t, at));
    let (Some(timeline), Some(want)) = (timeline, want) else {
        return Judged::Unjudged {
            why: "the vector's timeline gives the judge no commitment to hold it to".into(),
        };
    };
    let faults = compare_commitment(&want, timeline.last(), output);
    by_visible_fault(
        &faults,
        &[
            Rule::Aer1JsonUtf8,
            Rule::Aer1CmMembers,
            Rule::Aer1CmJob,
            Rule::Aer1CmCount,
            Rule::Aer1CmFinal,
        ],
        "commitment",
    )
}

/// `unjudged` when a member name is given twice, and what [`unreadable`] makes of UTF-8 text
/// serde_json does not read; `None` for anything else (bytes that are not UTF-8 included: the
/// emitter grading names them).
fn repeated_or_unreadable(output: &[u8]) -> Option<Judged> {
    if let Some(j) = repeated(output) {
        return Some(j);
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(output) {
        Err(e) if std::str::from_utf8(output).is_ok() => Some(unreadable(&e)),
        _ => None,
    }
}

/// `invalid` on the first of the emitter grading's `faults` whose rule is `visible` (one every
/// verifier sees in the artifact and must reject), else `unjudged`: a `kind` of artifact a
/// verifier may accept, though not the expected one.
fn by_visible_fault(faults: &[EmitFault], visible: &[Rule], kind: &str) -> Judged {
    match (
        faults.iter().find(|f| visible.contains(&f.rule)),
        faults.first(),
    ) {
        (Some(f), _) => Judged::Invalid {
            rule: f.rule.id().to_string(),
            why: f.to_string(),
        },
        (None, Some(f)) => Judged::Unjudged {
            why: format!("a {kind} a verifier may accept, but not the expected one: {f}"),
        },
        (None, None) => Judged::Unjudged {
            why: format!("not found to be the expected {kind}"),
        },
    }
}

/// Judges `output`, which the emitter grading found to be the steps' timeline (`is_expected`)
/// or not.
pub(crate) fn judge(output: &[u8], is_expected: bool) -> Judged {
    if is_expected {
        return plain(output, ENTRY_MEMBERS);
    }
    let invalid = |rule: Rule, why: String| Judged::Invalid {
        rule: rule.id().to_string(),
        why,
    };
    let Ok(text) = std::str::from_utf8(output) else {
        return invalid(Rule::Aer1JsonUtf8, "the output is not UTF-8".into());
    };
    if let Some(j) = repeated(output) {
        return j;
    }
    let entries = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(a)) if !a.is_empty() => a,
        Ok(_) => {
            return invalid(
                Rule::Aer1TlArray,
                "the output is not a non-empty JSON array".into(),
            )
        }
        Err(e) => return unreadable(&e),
    };
    let mut prev = GENESIS.to_string();
    for (i, entry) in entries.iter().enumerate() {
        let written = entry.get("prev_digest").and_then(Value::as_str);
        let Some(written) = written else {
            return Judged::Unjudged {
                why: format!("entry {i} has no string prev_digest"),
            };
        };
        if written != prev {
            return match i {
                0 => invalid(
                    Rule::Aer1TlGenesis,
                    format!(
                        "entry 0's prev_digest is {}, not the genesis value",
                        shown(&Value::from(written))
                    ),
                ),
                _ => invalid(
                    Rule::Aer1TlLink,
                    format!(
                        "entry {i}'s prev_digest is {}; the draft's digest of entry {} is {prev}",
                        shown(&Value::from(written)),
                        i - 1
                    ),
                ),
            };
        }
        let Some(digest) = entry_digest(entry) else {
            return Judged::Unjudged {
                why: format!(
                    "entry {i} lacks a member the digest needs, or has one of another type"
                ),
            };
        };
        prev = digest;
    }
    Judged::Unjudged {
        why: "a consistent chain, but not the timeline of the steps".into(),
    }
}

/// What JSON serde_json does not read is: `invalid` when it ends before one value does (empty
/// output, a truncated text: every verifier must reject that, `AER1-JSON-SYNTAX`), else
/// `unjudged` (a byte-order mark, a lone surrogate, deep nesting, a huge number are
/// SHOULD-level matters a verifier may accept).
fn unreadable(e: &serde_json::Error) -> Judged {
    if e.classify() == serde_json::error::Category::Eof {
        return Judged::Invalid {
            rule: Rule::Aer1JsonSyntax.id().to_string(),
            why: format!("the output ends before one JSON value does ({e})"),
        };
    }
    Judged::Unjudged {
        why: format!(
            "the output is not JSON this judge reads ({e}); it may still be JSON a verifier \
             accepts"
        ),
    }
}

/// `unjudged` when a member name is given twice: which of the two a verifier keeps (or whether
/// it rejects the document, a SHOULD) is its own choice, so the judge's reading of the values
/// binds no verifier.
fn repeated(output: &[u8]) -> Option<Judged> {
    let text = std::str::from_utf8(output).ok()?;
    crate::repeated::repeated_member(text).map(|name| Judged::Unjudged {
        why: format!(
            "member {} is given twice: a verifier keeps either one or rejects the document",
            shown(&Value::from(name))
        ),
    })
}

/// The members a timeline entry may carry for the judge to call it plain.
const ENTRY_MEMBERS: &[&str] = &[
    "canonical_bytes",
    "prev_digest",
    "seq",
    "job_id",
    "id",
    "tool",
    "provenance_class",
    "close",
];

/// The members a commitment may carry for the judge to call it plain.
const COMMITMENT_MEMBERS: &[&str] = &[
    "job_id",
    "final_entry_digest",
    "entry_count",
    "published_at",
];

/// The members a receipt may carry for the judge to call it plain (and `tool`'s three).
const RECEIPT_MEMBERS: &[&str] = &[
    "id",
    "receipt_schema_version",
    "created_at",
    "tool",
    "provenance_class",
    "canonical_bytes",
    "output_hash",
    "verification_status",
    "name",
    "version",
    "scope",
];

/// `valid` when the expected artifact was written plainly: every object's members among
/// `allowed`, no name given twice, and no more than four times its compact length plus 64 KiB.
/// Otherwise `unjudged`: extra members, repeats and sheer size meet verifiers' SHOULD-level
/// limits, which the draft lets a verifier set.
fn plain(output: &[u8], allowed: &[&str]) -> Judged {
    let unjudged = |why: &str| Judged::Unjudged {
        why: format!("the expected artifact, but {why}: a verifier may limit that"),
    };
    let Ok(text) = std::str::from_utf8(output) else {
        return unjudged("not UTF-8");
    };
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return unjudged("not JSON this judge reads");
    };
    if crate::repeated::repeated_member(text).is_some() {
        return unjudged("with a member given twice");
    }
    fn members_ok(v: &Value, allowed: &[&str]) -> bool {
        match v {
            Value::Object(o) => o
                .iter()
                .all(|(k, v)| allowed.contains(&k.as_str()) && members_ok(v, allowed)),
            Value::Array(a) => a.iter().all(|v| members_ok(v, allowed)),
            _ => true,
        }
    }
    if !members_ok(&value, allowed) {
        return unjudged("with members beyond the draft's");
    }
    let compact = value.to_string().len();
    if output.len() > 4 * compact + 64 * 1024 {
        return unjudged("padded far beyond its compact form");
    }
    Judged::Valid
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentconf_contract::emit::{EmitStep, TimelineSteps};

    fn steps() -> TimelineSteps {
        TimelineSteps {
            job_id: "job-1".into(),
            steps: ["a", "b", "c"]
                .iter()
                .map(|id| EmitStep {
                    id: (*id).into(),
                    tool: "t".into(),
                    provenance_class: "tool".into(),
                    output_base64: "e30=".into(),
                })
                .collect(),
        }
    }

    fn text(entries: &[Value]) -> Vec<u8> {
        serde_json::to_vec(entries).unwrap()
    }

    #[test]
    fn graded_output_is_valid_and_a_correct_chain_alone_is_not() {
        let (want, _) = crate::emitted::expected_timeline(&steps());
        assert_eq!(judge(&text(&want), true), Judged::Valid);
        // The expected timeline with an extra member, a repeated one, or padded: not plain.
        let mut extra = want.clone();
        extra[0]["x"] = Value::from(1);
        assert!(matches!(
            judge(&text(&extra), true),
            Judged::Unjudged { .. }
        ));
        let repeated = String::from_utf8(text(&want)).unwrap().replacen(
            "\"tool\":",
            "\"tool\":\"t\",\"tool\":",
            1,
        );
        assert!(matches!(
            judge(repeated.as_bytes(), true),
            Judged::Unjudged { .. }
        ));
        let mut padded = text(&want);
        padded.extend(std::iter::repeat_n(b' ', 1 << 20));
        assert!(matches!(judge(&padded, true), Judged::Unjudged { .. }));
        // The same bytes, not found to be the steps' timeline: consistent, so unjudged.
        assert!(matches!(
            judge(&text(&want), false),
            Judged::Unjudged { .. }
        ));
    }

    #[test]
    fn a_repeated_member_binds_no_verifier() {
        let (want, _) = crate::emitted::expected_timeline(&steps());
        // A second prev_digest, broken: a verifier keeping the first sees a sound chain.
        let text = String::from_utf8(text(&want)).unwrap().replacen(
            "\"prev_digest\":",
            "\"prev_digest\":\"00\",\"prev_digest\":",
            2,
        );
        assert!(matches!(
            judge(text.as_bytes(), false),
            Judged::Unjudged { why } if why.contains("given twice")
        ));
    }

    #[test]
    fn a_broken_link_or_genesis_must_be_rejected() {
        let (mut want, _) = crate::emitted::expected_timeline(&steps());
        // A member changed after the digests were made: entry 1's link no longer holds.
        want[0]["tool"] = Value::String("other".into());
        match judge(&text(&want), false) {
            Judged::Invalid { rule, why } => {
                assert_eq!(rule, "AER1-TL-LINK");
                assert!(why.contains("entry 1"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        let (mut want, _) = crate::emitted::expected_timeline(&steps());
        want[0]["prev_digest"] = Value::String("00".repeat(32).replace("00", "11"));
        assert!(matches!(
            judge(&text(&want), false),
            Judged::Invalid { rule, .. } if rule == "AER1-TL-GENESIS"
        ));
    }

    /// An `aer1-emit-commitment` vector over the timeline of [`steps`], of `expectation`.
    fn commitment_source(expectation: Expectation) -> Vector {
        use agentconf_contract::vector::{Encoding, Input, Options, Suite};
        let (timeline, _) = crate::emitted::expected_timeline(&steps());
        Vector {
            id: "aer1/emit-commitment/test".into(),
            suite: Suite::Aer1EmitCommitment,
            family: "test".into(),
            revisions: vec!["09".into()],
            description: String::new(),
            rules: vec![Rule::Aer1CmCount],
            level: agentconf_rules::Level::Must,
            expectation,
            expected_rules: match expectation {
                Expectation::Invalid => vec![Rule::Aer1TlCloseLast],
                _ => Vec::new(),
            },
            also_reported: Vec::new(),
            any_of: Vec::new(),
            flags: Vec::new(),
            other_revisions: Vec::new(),
            options: Options {
                published_at: Some("2026-10-01T18:30:00Z".into()),
                ..Options::default()
            },
            inputs: vec![Input {
                role: "timeline".into(),
                file: "timeline.json".into(),
                encoding: Encoding::Utf8,
                content: String::from_utf8(text(&timeline)).unwrap(),
                sha256: String::new(),
            }],
            derivation: None,
            requires: Vec::new(),
            scenario: None,
            expected_decisions: Vec::new(),
            expected_final_digest: None,
        }
    }

    /// The judge's commitment of [`steps`]' timeline with `member` set to `value`, as bytes.
    fn commitment_with(member: &str, value: Value) -> Vec<u8> {
        let (timeline, _) = crate::emitted::expected_timeline(&steps());
        let mut c = expected_commitment(&timeline, "2026-10-01T18:30:00Z").unwrap();
        c[member] = value;
        serde_json::to_vec(&c).unwrap()
    }

    fn rule_of(j: &Judged) -> Option<&str> {
        match j {
            Judged::Invalid { rule, .. } => Some(rule),
            _ => None,
        }
    }

    #[test]
    fn a_commitment_must_be_rejected_only_where_it_does_not_match_its_timeline() {
        let source = commitment_source(Expectation::Valid);
        let (timeline, last) = crate::emitted::expected_timeline(&steps());
        let right = commitment_with("entry_count", timeline.len().into());
        assert_eq!(judge_commitment(&right, true, &source), Judged::Valid);
        // The expected commitment with a member beyond the draft's: not plain.
        let extra = commitment_with("note", "x".into());
        assert!(matches!(
            judge_commitment(&extra, true, &source),
            Judged::Unjudged { .. }
        ));
        // Each mismatch with the timeline is one every verifier sees, on its rule.
        for (member, value, rule) in [
            (
                "entry_count",
                Value::from(timeline.len() + 1),
                "AER1-CM-COUNT",
            ),
            ("entry_count", Value::from(4.0), "AER1-CM-COUNT"),
            ("job_id", Value::from("job-2"), "AER1-CM-JOB"),
            (
                "final_entry_digest",
                Value::from("0".repeat(64)),
                "AER1-CM-FINAL",
            ),
            (
                "final_entry_digest",
                Value::from(last.to_uppercase()),
                "AER1-CM-FINAL",
            ),
        ] {
            let bytes = commitment_with(member, value);
            assert_eq!(
                rule_of(&judge_commitment(&bytes, false, &source)),
                Some(rule),
                "{member}"
            );
        }
        let missing = br#"{"job_id":"job-1"}"#;
        assert_eq!(
            rule_of(&judge_commitment(missing, false, &source)),
            Some("AER1-CM-MEMBERS")
        );
        for (bytes, rule) in [
            (&b"\xff"[..], "AER1-JSON-UTF8"),
            (b"", "AER1-JSON-SYNTAX"),
            (b"[1]", "AER1-CM-MEMBERS"),
        ] {
            assert_eq!(
                rule_of(&judge_commitment(bytes, false, &source)),
                Some(rule),
                "{bytes:?}"
            );
        }
        // The right count written 3.0, another instant, a repeated member: a verifier may
        // accept them, so no verifier is blamed for its answer.
        let repeated = String::from_utf8(right.clone()).unwrap().replacen(
            "\"job_id\":",
            "\"job_id\":\"job-2\",\"job_id\":",
            1,
        );
        for bytes in [
            commitment_with("entry_count", Value::from(3.0)),
            commitment_with("published_at", "2026-10-01T20:30:00+02:00".into()),
            repeated.into_bytes(),
        ] {
            assert!(
                matches!(
                    judge_commitment(&bytes, false, &source),
                    Judged::Unjudged { .. }
                ),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }

    /// Whatever is written for a timeline that does not verify, the pair must be rejected, on
    /// the rule the timeline breaks.
    #[test]
    fn a_commitment_to_a_timeline_that_does_not_verify_must_be_rejected() {
        let refused = commitment_source(Expectation::Invalid);
        let (timeline, _) = crate::emitted::expected_timeline(&steps());
        let right = commitment_with("entry_count", timeline.len().into());
        for bytes in [&right[..], b""] {
            assert_eq!(
                rule_of(&judge_commitment(bytes, false, &refused)),
                Some("AER1-TL-CLOSE-LAST")
            );
        }
    }

    #[test]
    fn output_that_is_no_array_must_be_rejected_and_unreadable_json_is_unjudged() {
        for (bytes, rule) in [
            (&b"\xff"[..], "AER1-JSON-UTF8"),
            (b"{\"a\":1}", "AER1-TL-ARRAY"),
            (b"[]", "AER1-TL-ARRAY"),
        ] {
            assert!(
                matches!(judge(bytes, false), Judged::Invalid { rule: r, .. } if r == rule),
                "{bytes:?}"
            );
        }
        // What serde_json does not read is not a must-reject: a byte-order mark, say.
        assert!(matches!(
            judge(b"\xef\xbb\xbf[]", false),
            Judged::Unjudged { .. }
        ));
        // Empty or cut short: every verifier must reject it.
        for cut in [&b""[..], b"  ", b"[", b"[{\"a\":"] {
            assert!(
                matches!(judge(cut, false), Judged::Invalid { rule, .. } if rule == "AER1-JSON-SYNTAX"),
                "{cut:?}"
            );
        }
    }
}
