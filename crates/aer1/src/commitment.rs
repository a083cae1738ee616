//! The external chain commitment of revision 09:
//! `{job_id, final_entry_digest, entry_count, published_at}`, kept outside the chain.
//!
//! Checking follows the kit's order: the formats of all four members (all reported; comparisons
//! are skipped if any fails), then count, then job, then the final digest. The commitment check
//! does not run the chain rules by itself; [`crate::timeline`] runs both.

use std::fmt;

use agentconf_rules::Rule;
use serde::Serialize;

use crate::finding::{json_rule, Finding, RuleError};
use crate::formats::{check_rfc3339, TimeError};
use crate::hex;
use crate::integer::normalise_integer;
use crate::json::{self, JsonError, Node, Num};
use crate::text::clip;

/// A commitment whose four members are well-formed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Commitment {
    pub job_id: String,
    pub final_entry_digest: String,
    /// Decimal digits of the integer, exactly as written (it may exceed 64 bits).
    #[serde(serialize_with = "serialize_count")]
    pub entry_count: String,
    pub published_at: String,
}

fn serialize_count<S: serde::Serializer>(count: &str, s: S) -> Result<S::Ok, S::Error> {
    // Counts are JSON integer literals, possibly beyond 64 bits: write the digits as they are,
    // as a number (a string would not parse back as a commitment).
    let raw = serde_json::value::RawValue::from_string(count.to_string())
        .map_err(serde::ser::Error::custom)?;
    serde::Serialize::serialize(&raw, s)
}

impl Commitment {
    /// The commitment artifact as the draft shows it: one line, members in the draft's order.
    pub fn to_json(&self) -> String {
        // Strings, and a count that is a JSON integer literal by construction (parse_commitment
        // and make_commitment only ever store one), so serialization does not fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Why a commitment is malformed or does not match the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitmentError {
    /// The commitment file is not acceptable JSON.
    Json(JsonError),
    NotObject {
        found: &'static str,
    },
    MissingMember {
        member: &'static str,
    },
    JobFormat {
        found: String,
    },
    DigestFormat {
        found: String,
    },
    CountFormat {
        found: String,
    },
    PublishedAtType {
        found: &'static str,
    },
    PublishedAt {
        error: TimeError,
    },
    CountMismatch {
        committed: String,
        actual: u64,
    },
    JobMismatch {
        first_entry: u64,
        mismatching: u64,
        found: String,
        committed: String,
    },
    FinalMismatch {
        committed: String,
        computed: String,
    },
    /// The last entry could not be digested (or there is none), so the final digest cannot be
    /// compared.
    FinalUnavailable {
        last_entry: Option<u64>,
    },
}

impl RuleError for CommitmentError {
    fn rule(&self) -> Rule {
        match self {
            CommitmentError::Json(e) => json_rule(e),
            CommitmentError::NotObject { .. } | CommitmentError::MissingMember { .. } => {
                Rule::Aer1CmMembers
            }
            CommitmentError::JobFormat { .. } => Rule::Aer1CmJobFormat,
            CommitmentError::DigestFormat { .. } => Rule::Aer1CmDigestFormat,
            CommitmentError::CountFormat { .. } => Rule::Aer1CmCountFormat,
            CommitmentError::PublishedAtType { .. } | CommitmentError::PublishedAt { .. } => {
                Rule::Aer1CmPublishedAt
            }
            CommitmentError::CountMismatch { .. } => Rule::Aer1CmCount,
            CommitmentError::JobMismatch { .. } => Rule::Aer1CmJob,
            CommitmentError::FinalMismatch { .. } | CommitmentError::FinalUnavailable { .. } => {
                Rule::Aer1CmFinal
            }
        }
    }

    fn member(&self) -> Option<String> {
        let member = match self {
            CommitmentError::Json(e) => return e.member().map(|m| format!("commitment.{m}")),
            CommitmentError::NotObject { .. } => return Some("commitment".into()),
            CommitmentError::MissingMember { member } => member,
            CommitmentError::JobFormat { .. } | CommitmentError::JobMismatch { .. } => "job_id",
            CommitmentError::DigestFormat { .. }
            | CommitmentError::FinalMismatch { .. }
            | CommitmentError::FinalUnavailable { .. } => "final_entry_digest",
            CommitmentError::CountFormat { .. } | CommitmentError::CountMismatch { .. } => {
                "entry_count"
            }
            CommitmentError::PublishedAtType { .. } | CommitmentError::PublishedAt { .. } => {
                "published_at"
            }
        };
        Some(format!("commitment.{member}"))
    }
}

impl fmt::Display for CommitmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommitmentError::Json(e) => write!(f, "commitment file: {e}"),
            CommitmentError::NotObject { found } => {
                write!(f, "the commitment is {found}, not a JSON object")
            }
            CommitmentError::MissingMember { member } => {
                write!(f, "the commitment has no {member} member")
            }
            CommitmentError::JobFormat { found } => {
                write!(
                    f,
                    "commitment job_id must be a non-empty string, found {found}"
                )
            }
            CommitmentError::DigestFormat { found } => write!(
                f,
                "final_entry_digest must be 64 lowercase hex digits with no prefix, found {found}"
            ),
            CommitmentError::CountFormat { found } => write!(
                f,
                "entry_count must be a JSON integer (5.0 is not), found {found}"
            ),
            CommitmentError::PublishedAtType { found } => {
                write!(f, "published_at must be an RFC 3339 string, found {found}")
            }
            CommitmentError::PublishedAt { error } => write!(f, "published_at: {error}"),
            CommitmentError::CountMismatch { committed, actual } => write!(
                f,
                "the commitment counts {committed} entries but the timeline has {actual} \
                 (entries dropped or added since the commitment was published)"
            ),
            CommitmentError::JobMismatch {
                first_entry,
                mismatching,
                found,
                committed,
            } => write!(
                f,
                "{mismatching} entries carry a job_id other than the commitment's {committed:?}; \
                 the first is entry {first_entry} with {found:?}"
            ),
            CommitmentError::FinalMismatch {
                committed,
                computed,
            } => write!(
                f,
                "the last entry digests to {computed}, the commitment publishes {committed} \
                 (the final entry was replaced, or the chain was re-closed or truncated)"
            ),
            CommitmentError::FinalUnavailable {
                last_entry: Some(last),
            } => write!(
                f,
                "entry {last}, the last, could not be digested, so final_entry_digest \
                 cannot be compared"
            ),
            CommitmentError::FinalUnavailable { last_entry: None } => {
                f.write_str("the timeline has no entries, so final_entry_digest cannot be compared")
            }
        }
    }
}

/// Reads a commitment document of at most `limit` bytes. The outer `Err` is an I/O failure; the
/// inner one carries every format failure, for the report.
pub fn read_commitment<R: std::io::Read>(
    reader: R,
    limit: u64,
) -> std::io::Result<Result<Commitment, Vec<Finding>>> {
    Ok(match json::read_limited(reader, limit)? {
        Ok(bytes) => parse_commitment(&bytes),
        Err(e) => Err(vec![Finding::from_error(&CommitmentError::Json(e), None)]),
    })
}

/// Reads a commitment document. `Err` carries every format failure, for the report.
pub fn parse_commitment(bytes: &[u8]) -> Result<Commitment, Vec<Finding>> {
    let fail = |e: CommitmentError| vec![Finding::from_error(&e, None)];
    let text = json::as_text(bytes).map_err(|e| fail(CommitmentError::Json(e)))?;
    let parsed = json::parse(text, &["entry_count"]).map_err(|e| fail(CommitmentError::Json(e)))?;
    let mut findings: Vec<Finding> = parsed
        .duplicates
        .into_iter()
        .map(|e| Finding::from_error(&CommitmentError::Json(e), None))
        .collect();
    let Some(obj) = parsed.root.as_object() else {
        findings.push(Finding::from_error(
            &CommitmentError::NotObject {
                found: parsed.root.kind(),
            },
            None,
        ));
        return Err(findings);
    };
    let mut report = |e: CommitmentError| findings.push(Finding::from_error(&e, None));

    let job_id = match obj.get("job_id") {
        None => {
            report(CommitmentError::MissingMember { member: "job_id" });
            None
        }
        Some(Node::String(s)) if !s.is_empty() => Some(s.to_string()),
        Some(other) => {
            report(CommitmentError::JobFormat {
                found: describe(other),
            });
            None
        }
    };
    let final_entry_digest = match obj.get("final_entry_digest") {
        None => {
            report(CommitmentError::MissingMember {
                member: "final_entry_digest",
            });
            None
        }
        Some(Node::String(s)) if hex::is_lower_hex(s, 64) => Some(s.to_string()),
        Some(other) => {
            report(CommitmentError::DigestFormat {
                found: describe(other),
            });
            None
        }
    };
    let entry_count = match obj.get("entry_count") {
        None => {
            report(CommitmentError::MissingMember {
                member: "entry_count",
            });
            None
        }
        Some(Node::Number(Num::Text(t))) if !t.contains(['.', 'e', 'E']) => {
            Some(normalise_integer(t).into_owned())
        }
        Some(other) => {
            report(CommitmentError::CountFormat {
                found: describe(other),
            });
            None
        }
    };
    let published_at = match obj.get("published_at") {
        None => {
            report(CommitmentError::MissingMember {
                member: "published_at",
            });
            None
        }
        Some(Node::String(s)) => match check_rfc3339(s) {
            Ok(()) => Some(s.to_string()),
            Err(error) => {
                report(CommitmentError::PublishedAt { error });
                None
            }
        },
        Some(other) => {
            report(CommitmentError::PublishedAtType {
                found: other.kind(),
            });
            None
        }
    };
    match (job_id, final_entry_digest, entry_count, published_at) {
        (Some(job_id), Some(final_entry_digest), Some(entry_count), Some(published_at))
            if findings.is_empty() =>
        {
            Ok(Commitment {
                job_id,
                final_entry_digest,
                entry_count,
                published_at,
            })
        }
        _ => Err(findings),
    }
}

fn describe(node: &Node<'_>) -> String {
    match node {
        Node::String(s) => format!("{:?}", clip(s, 80)),
        Node::Number(Num::Text(t)) => clip(t, 40),
        Node::Number(Num::F64(v)) => v.to_string(),
        Node::Number(Num::U64(v)) => v.to_string(),
        Node::Number(Num::I64(v)) => v.to_string(),
        other => other.kind().to_string(),
    }
}

/// Whether the external commitment exists in draft revision `revision`: whether the AER1-CM
/// rules apply to it, as the rule catalogue says. Elsewhere a commitment is refused, never
/// silently ignored (the CLI's usage error, the reference's unsupported).
pub fn exists_in(revision: &str) -> bool {
    Rule::Aer1CmFinal
        .record()
        .revisions
        .iter()
        .any(|r| r == revision)
}

/// Builds the commitment for a chain that verified under revision 09. Every member is checked
/// as [`parse_commitment`] would, so what this returns always reads back.
pub fn make_commitment(
    job_id: &str,
    final_entry_digest: &str,
    entry_count: u64,
    published_at: &str,
) -> Result<Commitment, CommitmentError> {
    if job_id.is_empty() {
        return Err(CommitmentError::JobFormat {
            found: "\"\"".into(),
        });
    }
    if !hex::is_lower_hex(final_entry_digest, 64) {
        return Err(CommitmentError::DigestFormat {
            found: format!("{:?}", clip(final_entry_digest, 80)),
        });
    }
    check_rfc3339(published_at).map_err(|error| CommitmentError::PublishedAt { error })?;
    Ok(Commitment {
        job_id: job_id.to_string(),
        final_entry_digest: final_entry_digest.to_string(),
        entry_count: entry_count.to_string(),
        published_at: published_at.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"job_id":"job-7a1f","final_entry_digest":"79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0","entry_count":5,"published_at":"2026-10-01T18:30:00Z"}"#;

    #[test]
    fn parses_and_prints_the_draft_example() {
        let c = parse_commitment(GOOD.as_bytes()).unwrap();
        assert_eq!(c.entry_count, "5");
        assert_eq!(c.to_json(), GOOD);
    }

    fn rules_of(doc: &str) -> Vec<Rule> {
        parse_commitment(doc.as_bytes())
            .unwrap_err()
            .iter()
            .map(|f| f.rule)
            .collect()
    }

    #[test]
    fn format_failures_are_all_reported() {
        let doc = GOOD
            .replace("\"entry_count\":5", "\"entry_count\":5.0")
            .replace("79b1e2e2", "79B1E2E2")
            .replace("2026-10-01T18", "2026-02-30T18");
        assert_eq!(
            rules_of(&doc),
            [
                Rule::Aer1CmDigestFormat,
                Rule::Aer1CmCountFormat,
                Rule::Aer1CmPublishedAt
            ]
        );
        assert_eq!(
            rules_of(&GOOD.replace("\"79b1", "\"sha256:79b1")),
            [Rule::Aer1CmDigestFormat]
        );
        assert_eq!(
            rules_of(&GOOD.replace("\"job-7a1f\"", "\"\"")),
            [Rule::Aer1CmJobFormat]
        );
        assert_eq!(rules_of("[]"), [Rule::Aer1CmMembers]);
        assert_eq!(
            rules_of(r#"{"job_id":"j"}"#),
            [
                Rule::Aer1CmMembers,
                Rule::Aer1CmMembers,
                Rule::Aer1CmMembers
            ]
        );
    }

    #[test]
    fn huge_counts_are_kept_exactly_and_read_back() {
        for count in ["18446744073709551617", "-3", "0"] {
            let doc = GOOD.replace("\"entry_count\":5", &format!("\"entry_count\":{count}"));
            let c = parse_commitment(doc.as_bytes()).unwrap();
            assert_eq!(c.entry_count, count);
            assert_eq!(c.to_json(), doc);
            assert_eq!(parse_commitment(c.to_json().as_bytes()).unwrap(), c);
        }
    }

    #[test]
    fn made_commitments_read_back() {
        let d = "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0";
        let c = make_commitment("job-7a1f", d, 5, "2026-10-01T18:30:00Z").unwrap();
        assert_eq!(c.to_json(), GOOD);
        assert!(make_commitment("", d, 5, "2026-10-01T18:30:00Z").is_err());
        assert!(make_commitment("j", "79B1", 5, "2026-10-01T18:30:00Z").is_err());
        assert!(make_commitment("j", d, 5, "2026-10-01T18:30:60Z").is_err());
    }
}
