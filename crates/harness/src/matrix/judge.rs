//! The judge's own verdict on a timeline (or receipt) an emitter wrote, before any verifier sees
//! it: what a conforming verifier must answer, or nothing when the judge cannot say.
//!
//! Deliberately narrow. `valid` only for output the emitter grading found to be the expected
//! artifact and that is plain: no member beyond the draft's, no name given twice, and not much
//! longer than its compact form (so no SHOULD-level limit of a verifier's can meet it).
//! `invalid` only for what every verifier must reject: bytes that are not UTF-8, output that
//! ends before one JSON value does, JSON that is not a non-empty array (timelines), a broken hash chain (a wrong genesis link or a
//! `prev_digest` that is not the draft's digest of the entry before), or a receipt whose own
//! members contradict each other. Anything else is `unjudged`: other text serde_json does not read
//! (a byte-order mark, a lone surrogate, deep nesting and huge numbers are SHOULD-level matters
//! a verifier may accept), a self-consistent chain of other members, a `seq` or `close` out of
//! place. The emitter is wrong there, but what a verifier must say of it depends on checks the
//! judge does not repeat, so no verifier is blamed for its answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use agentconf_contract::emit::ReceiptMeta;
use agentconf_rules::Rule;

use crate::emitted::{entry_digest, shown};
use crate::preimage::GENESIS;

/// What a conforming verifier must answer for an emitted timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "judged", rename_all = "kebab-case")]
pub enum Judged {
    /// The draft's timeline of the steps: every verifier must accept it.
    Valid,
    /// A broken chain (or no JSON array): every verifier must reject it, on this rule.
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
pub fn judge_receipt(
    output: &[u8],
    is_expected: bool,
    payload: &[u8],
    meta: &ReceiptMeta,
) -> Judged {
    if is_expected {
        return plain(output, RECEIPT_MEMBERS);
    }
    if let Some(j) = repeated(output) {
        return j;
    }
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(output) {
        if std::str::from_utf8(output).is_ok() {
            return unreadable(&e);
        }
    }
    let faults = crate::emitted_receipt::compare(payload, meta, output);
    let visible = faults.iter().find(|f| {
        matches!(
            f.rule,
            Rule::Aer1JsonUtf8
                | Rule::Aer1RcMembers
                | Rule::Aer1RcB64
                | Rule::Aer1RcHashFormat
                | Rule::Aer1RcHashMatch
                | Rule::Aer1RcStatus
        )
    });
    match (visible, faults.first()) {
        (Some(f), _) => Judged::Invalid {
            rule: f.rule.id().to_string(),
            why: f.to_string(),
        },
        (None, Some(f)) => Judged::Unjudged {
            why: format!("a receipt a verifier may accept, but not the expected one: {f}"),
        },
        (None, None) => Judged::Unjudged {
            why: "not found to be the expected receipt".into(),
        },
    }
}

/// Judges `output`, which the emitter grading found to be the steps' timeline (`is_expected`)
/// or not.
pub fn judge(output: &[u8], is_expected: bool) -> Judged {
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
