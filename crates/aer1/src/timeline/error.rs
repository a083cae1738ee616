//! Everything that can be wrong with a timeline, each variant mapped to one rule.

use std::fmt;

use agentconf_rules::Rule;

use crate::finding::{json_rule, RuleError};
use crate::formats::Base64Error;
use crate::json::JsonError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimelineError {
    /// The document, or one entry of it, is not acceptable JSON.
    Json(JsonError),
    NotArray {
        found: &'static str,
    },
    Empty,
    EntryNotObject {
        found: &'static str,
    },
    MissingMember {
        member: &'static str,
    },
    MemberNotString {
        member: &'static str,
        found: &'static str,
    },
    EmptyMember {
        member: &'static str,
    },
    Base64 {
        error: Base64Error,
    },
    /// Revision 06: canonical_bytes missing or not a string. Revision 06 has no member rule of its
    /// own; it asks for strict base64, which a missing or non-string value is not.
    BytesNotBase64String {
        found: &'static str,
    },
    BytesNotUtf8 {
        offset: usize,
    },
    StoredOutputHash {
        stored: String,
        computed: String,
    },
    ProvenanceClass {
        value: String,
    },
    SeqMissing,
    SeqNotInteger {
        found: String,
    },
    SeqContiguity {
        found: String,
        expected: u64,
    },
    MixedJob {
        found: String,
        first: String,
    },
    Genesis {
        found: String,
    },
    /// Revision 06: the first entry's prev_digest missing or not a string (it must be 64 zeros).
    GenesisNotString {
        found: &'static str,
    },
    Link {
        found: String,
        expected: String,
    },
    /// Revision 06: a later entry's prev_digest missing or not a string (it must equal the digest
    /// of the entry before).
    LinkNotString {
        found: &'static str,
    },
    CloseNotBoolean {
        found: &'static str,
    },
    /// Revision 06: a close that is present and not a boolean. The 06 text asks only that the
    /// last entry carry `close: true`; the type check is the kit's, graded on a rule of its own.
    HistoricalCloseNotBoolean {
        found: &'static str,
    },
    CloseBeforeLast,
    LastNotClosed,
}

impl RuleError for TimelineError {
    fn rule(&self) -> Rule {
        match self {
            TimelineError::Json(e) => json_rule(e),
            TimelineError::NotArray { .. } | TimelineError::Empty => Rule::Aer1TlArray,
            TimelineError::EntryNotObject { .. } => Rule::Aer1TlEntryObject,
            TimelineError::MissingMember { .. }
            | TimelineError::MemberNotString { .. }
            | TimelineError::EmptyMember { .. } => Rule::Aer1TlMembers,
            TimelineError::Base64 { .. } | TimelineError::BytesNotBase64String { .. } => {
                Rule::Aer1TlB64
            }
            TimelineError::BytesNotUtf8 { .. } => Rule::Aer1TlUtf8,
            TimelineError::StoredOutputHash { .. } => Rule::Aer1TlOutputHash,
            TimelineError::ProvenanceClass { .. } => Rule::Aer1TlProvenance,
            TimelineError::SeqMissing | TimelineError::SeqNotInteger { .. } => Rule::Aer1TlSeqType,
            TimelineError::SeqContiguity { .. } => Rule::Aer1TlSeq,
            TimelineError::MixedJob { .. } => Rule::Aer1TlJob,
            TimelineError::Genesis { .. } | TimelineError::GenesisNotString { .. } => {
                Rule::Aer1TlGenesis
            }
            TimelineError::Link { .. } | TimelineError::LinkNotString { .. } => Rule::Aer1TlLink,
            TimelineError::CloseNotBoolean { .. } => Rule::Aer1TlCloseType,
            TimelineError::HistoricalCloseNotBoolean { .. } => Rule::Aer1Tl06CloseType,
            TimelineError::CloseBeforeLast => Rule::Aer1TlCloseEarly,
            TimelineError::LastNotClosed => Rule::Aer1TlCloseLast,
        }
    }

    fn member(&self) -> Option<String> {
        let m = match self {
            TimelineError::Json(e) => return e.member(),
            TimelineError::NotArray { .. }
            | TimelineError::Empty
            | TimelineError::EntryNotObject { .. } => return None,
            TimelineError::MissingMember { member }
            | TimelineError::MemberNotString { member, .. }
            | TimelineError::EmptyMember { member } => member,
            TimelineError::Base64 { .. }
            | TimelineError::BytesNotBase64String { .. }
            | TimelineError::BytesNotUtf8 { .. } => "canonical_bytes",
            TimelineError::StoredOutputHash { .. } => "output_hash",
            TimelineError::ProvenanceClass { .. } => "provenance_class",
            TimelineError::SeqMissing
            | TimelineError::SeqNotInteger { .. }
            | TimelineError::SeqContiguity { .. } => "seq",
            TimelineError::MixedJob { .. } => "job_id",
            TimelineError::Genesis { .. }
            | TimelineError::GenesisNotString { .. }
            | TimelineError::Link { .. }
            | TimelineError::LinkNotString { .. } => "prev_digest",
            TimelineError::CloseNotBoolean { .. }
            | TimelineError::HistoricalCloseNotBoolean { .. }
            | TimelineError::CloseBeforeLast
            | TimelineError::LastNotClosed => "close",
        };
        Some(m.to_string())
    }
}

impl fmt::Display for TimelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimelineError::Json(e) => e.fmt(f),
            TimelineError::NotArray { found } => {
                write!(f, "a timeline is a non-empty JSON array; this document is {found}")
            }
            TimelineError::Empty => f.write_str("a timeline is a non-empty JSON array; this one is empty"),
            TimelineError::EntryNotObject { found } => write!(f, "the entry is {found}, not an object"),
            TimelineError::MissingMember { member } => write!(f, "the entry has no {member} member"),
            TimelineError::MemberNotString { member, found } => {
                write!(f, "{member} must be a non-empty string, found {found}")
            }
            TimelineError::EmptyMember { member } => write!(f, "{member} must be a non-empty string, found \"\""),
            TimelineError::Base64 { error } => write!(f, "canonical_bytes is not valid base64: {error}"),
            TimelineError::BytesNotBase64String { found } => {
                write!(f, "canonical_bytes must be a base64 string, found {found}")
            }
            TimelineError::BytesNotUtf8 { offset } => write!(
                f,
                "canonical_bytes decodes to bytes that are not UTF-8 (first bad byte at offset {offset})"
            ),
            TimelineError::StoredOutputHash { stored, computed } => write!(
                f,
                "the entry's output_hash {stored} is not sha256:{computed}, the hash of its bytes"
            ),
            TimelineError::ProvenanceClass { value } => write!(
                f,
                "provenance_class \"{value}\" is not EXECUTED BY <SYSTEM>, OBSERVED VIA GATEWAY or LOGGED BY AGENT"
            ),
            TimelineError::SeqMissing => f.write_str("the entry has no seq member"),
            TimelineError::SeqNotInteger { found } => write!(f, "seq is not an integer: found {found}"),
            TimelineError::SeqContiguity { found, expected } => {
                write!(f, "seq {found} breaks contiguity (expected {expected})")
            }
            TimelineError::MixedJob { found, first } => write!(
                f,
                "job_id {found:?} differs from the first entry's {first:?} (one job per timeline)"
            ),
            TimelineError::Genesis { found } => {
                write!(f, "the first entry's prev_digest must be 64 '0' characters, found {found:?}")
            }
            TimelineError::GenesisNotString { found } => write!(
                f,
                "the first entry's prev_digest must be 64 '0' characters, found {found}"
            ),
            TimelineError::LinkNotString { found } => write!(
                f,
                "prev_digest must be the digest of the entry before, found {found}"
            ),
            TimelineError::Link { found, expected } => write!(
                f,
                "prev_digest {found:?} does not match the recomputed digest of the entry before, {expected}"
            ),
            TimelineError::CloseNotBoolean { found } => write!(f, "close must be a boolean, found {found}"),
            TimelineError::HistoricalCloseNotBoolean { found } => write!(
                f,
                "close is not a boolean, found {found} (revision 06: the kit's check, not 06 text)"
            ),
            TimelineError::CloseBeforeLast => f.write_str("close: true on an entry that is not the last"),
            TimelineError::LastNotClosed => f.write_str("the last entry does not carry close: true"),
        }
    }
}
