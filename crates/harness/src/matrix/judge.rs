//! The judge's own verdict on a timeline (or receipt) an emitter wrote, before any verifier sees
//! it: what a conforming verifier must answer, or nothing when the judge cannot say.
//!
//! Deliberately narrow. `valid` only for output the emitter grading already found to be the
//! draft's timeline of the vector's steps; `invalid` only for a broken hash chain (a wrong
//! genesis link or a `prev_digest` that is not the draft's digest of the entry before), which
//! every revision-09 verifier must reject, or output that is not a JSON array at all. Anything
//! else (a self-consistent chain of other members, a `seq` or `close` out of place) is
//! `unjudged`: the emitter is wrong, but what a verifier must say of it depends on checks the
//! judge does not repeat, so no verifier is blamed for its answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use agentconf_contract::emit::ReceiptMeta;
use agentconf_rules::Rule;

use crate::emitted::entry_digest;
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
        return Judged::Valid;
    }
    let faults = crate::emitted_receipt::compare(payload, meta, output);
    let visible = faults.iter().find(|f| {
        matches!(
            f.rule,
            Rule::Aer1JsonUtf8
                | Rule::Aer1JsonSyntax
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
        return Judged::Valid;
    }
    let invalid = |rule: Rule, why: String| Judged::Invalid {
        rule: rule.id().to_string(),
        why,
    };
    let Ok(text) = std::str::from_utf8(output) else {
        return invalid(Rule::Aer1JsonUtf8, "the output is not UTF-8".into());
    };
    let entries = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(a)) if !a.is_empty() => a,
        Ok(_) => {
            return invalid(
                Rule::Aer1TlArray,
                "the output is not a non-empty JSON array".into(),
            )
        }
        Err(_) => {
            return invalid(
                Rule::Aer1JsonSyntax,
                "the output is not one JSON text".into(),
            )
        }
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
                    format!("entry 0's prev_digest is {written}, not the genesis value"),
                ),
                _ => invalid(
                    Rule::Aer1TlLink,
                    format!(
                        "entry {i}'s prev_digest is {written}; the draft's digest of entry {} is {prev}",
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
        // The same bytes, not found to be the steps' timeline: consistent, so unjudged.
        assert!(matches!(
            judge(&text(&want), false),
            Judged::Unjudged { .. }
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
    fn output_that_is_no_array_must_be_rejected() {
        for (bytes, rule) in [
            (&b"\xff"[..], "AER1-JSON-UTF8"),
            (b"{\"a\":1}", "AER1-TL-ARRAY"),
            (b"[", "AER1-JSON-SYNTAX"),
        ] {
            assert!(
                matches!(judge(bytes, false), Judged::Invalid { rule: r, .. } if r == rule),
                "{bytes:?}"
            );
        }
    }
}
