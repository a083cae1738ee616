//! Single-receipt verification (Sections 3-6).
//!
//! Receipts are never re-canonicalised: the producer keeps the exact bytes that were hashed, and
//! the verifier only decodes and hashes them. Every failure is reported, not just the first.

use std::fmt;

use agentconf_rules::Rule;

use crate::finding::{Findings, RuleError, Verdict};
use crate::formats::{
    check_rfc3339, check_uuid_core, check_uuid_strict, decode_and_hash, provenance_class,
    Base64Error, IdError, TimeError,
};
use crate::hex;
use crate::json::{self, JsonError, Node, Object};
use crate::report::ReceiptReport;
use crate::text::clip;

/// Which receipt id tier to enforce (revision 09 names two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IdTier {
    /// Lowercase UUID shape (the nil UUID included, as at revision 09).
    #[default]
    Core,
    /// Core plus UUID version 4 with the RFC 4122 variant (the anchored tier).
    Strict,
}

impl IdTier {
    pub fn as_str(self) -> &'static str {
        match self {
            IdTier::Core => "core",
            IdTier::Strict => "strict",
        }
    }
}

/// The eight core members, in the order they are checked and reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiptMember {
    Id,
    ReceiptSchemaVersion,
    CreatedAt,
    Tool,
    ProvenanceClass,
    CanonicalBytes,
    OutputHash,
    VerificationStatus,
}

impl ReceiptMember {
    pub const ALL: [ReceiptMember; 8] = [
        ReceiptMember::Id,
        ReceiptMember::ReceiptSchemaVersion,
        ReceiptMember::CreatedAt,
        ReceiptMember::Tool,
        ReceiptMember::ProvenanceClass,
        ReceiptMember::CanonicalBytes,
        ReceiptMember::OutputHash,
        ReceiptMember::VerificationStatus,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ReceiptMember::Id => "id",
            ReceiptMember::ReceiptSchemaVersion => "receipt_schema_version",
            ReceiptMember::CreatedAt => "created_at",
            ReceiptMember::Tool => "tool",
            ReceiptMember::ProvenanceClass => "provenance_class",
            ReceiptMember::CanonicalBytes => "canonical_bytes",
            ReceiptMember::OutputHash => "output_hash",
            ReceiptMember::VerificationStatus => "verification_status",
        }
    }

    /// The rule that owns this member's type and format.
    fn rule(self) -> Rule {
        match self {
            ReceiptMember::Id => Rule::Aer1RcId,
            ReceiptMember::ReceiptSchemaVersion => Rule::Aer1RcSchemaVersion,
            ReceiptMember::CreatedAt => Rule::Aer1RcCreatedAt,
            ReceiptMember::Tool => Rule::Aer1RcTool,
            ReceiptMember::ProvenanceClass => Rule::Aer1RcProvenance,
            ReceiptMember::CanonicalBytes => Rule::Aer1RcB64,
            ReceiptMember::OutputHash => Rule::Aer1RcHashFormat,
            ReceiptMember::VerificationStatus => Rule::Aer1RcStatus,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReceiptError {
    Json(JsonError),
    NotObject {
        found: &'static str,
    },
    MissingMember {
        member: ReceiptMember,
    },
    /// A member of the wrong JSON type; the rule is that member's own rule.
    WrongType {
        member: ReceiptMember,
        expected: &'static str,
        found: &'static str,
    },
    Id {
        error: IdError,
    },
    IdStrict {
        error: IdError,
    },
    SchemaVersionEmpty,
    CreatedAt {
        error: TimeError,
    },
    ToolMember {
        member: &'static str,
        found: String,
    },
    Provenance {
        value: String,
    },
    Base64 {
        error: Base64Error,
    },
    BytesNotUtf8 {
        offset: usize,
    },
    HashFormat {
        found: String,
    },
    HashMismatch {
        stored: String,
        computed: String,
    },
    Status {
        found: String,
    },
}

impl RuleError for ReceiptError {
    fn rule(&self) -> Rule {
        match self {
            ReceiptError::Json(e) => e.rule(),
            ReceiptError::NotObject { .. } | ReceiptError::MissingMember { .. } => {
                Rule::Aer1RcMembers
            }
            ReceiptError::WrongType { member, .. } => member.rule(),
            ReceiptError::Id { .. } => Rule::Aer1RcId,
            ReceiptError::IdStrict { .. } => Rule::Aer1RcIdStrict,
            ReceiptError::SchemaVersionEmpty => Rule::Aer1RcSchemaVersion,
            ReceiptError::CreatedAt { .. } => Rule::Aer1RcCreatedAt,
            ReceiptError::ToolMember { .. } => Rule::Aer1RcTool,
            ReceiptError::Provenance { .. } => Rule::Aer1RcProvenance,
            ReceiptError::Base64 { .. } => Rule::Aer1RcB64,
            ReceiptError::BytesNotUtf8 { .. } => Rule::Aer1RcUtf8,
            ReceiptError::HashFormat { .. } => Rule::Aer1RcHashFormat,
            ReceiptError::HashMismatch { .. } => Rule::Aer1RcHashMatch,
            ReceiptError::Status { .. } => Rule::Aer1RcStatus,
        }
    }

    fn member(&self) -> Option<String> {
        let m: &str = match self {
            ReceiptError::Json(e) => return e.member(),
            ReceiptError::NotObject { .. } => return None,
            ReceiptError::MissingMember { member } | ReceiptError::WrongType { member, .. } => {
                member.name()
            }
            ReceiptError::Id { .. } | ReceiptError::IdStrict { .. } => "id",
            ReceiptError::SchemaVersionEmpty => "receipt_schema_version",
            ReceiptError::CreatedAt { .. } => "created_at",
            ReceiptError::ToolMember { member, .. } => return Some(format!("tool.{member}")),
            ReceiptError::Provenance { .. } => "provenance_class",
            ReceiptError::Base64 { .. } | ReceiptError::BytesNotUtf8 { .. } => "canonical_bytes",
            ReceiptError::HashFormat { .. } | ReceiptError::HashMismatch { .. } => "output_hash",
            ReceiptError::Status { .. } => "verification_status",
        };
        Some(m.to_string())
    }
}

impl fmt::Display for ReceiptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReceiptError::Json(e) => e.fmt(f),
            ReceiptError::NotObject { found } => write!(f, "a receipt is a JSON object; this document is {found}"),
            ReceiptError::MissingMember { member } => {
                write!(f, "the receipt has no {} member", member.name())
            }
            ReceiptError::WrongType { member, expected, found } => {
                write!(f, "{} must be {expected}, found {found}", member.name())
            }
            ReceiptError::Id { error } => write!(f, "id: {error}"),
            ReceiptError::IdStrict { error } => write!(f, "id (strict tier): {error}"),
            ReceiptError::SchemaVersionEmpty => f.write_str("receipt_schema_version must not be empty"),
            ReceiptError::CreatedAt { error } => write!(f, "created_at: {error}"),
            ReceiptError::ToolMember { member, found } => {
                write!(f, "tool.{member} must be a non-empty string, found {found}")
            }
            ReceiptError::Provenance { value } => write!(
                f,
                "provenance_class \"{value}\" is not EXECUTED BY <SYSTEM>, OBSERVED VIA GATEWAY or LOGGED BY AGENT"
            ),
            ReceiptError::Base64 { error } => write!(f, "canonical_bytes is not valid base64: {error}"),
            ReceiptError::BytesNotUtf8 { offset } => write!(
                f,
                "canonical_bytes decodes to bytes that are not UTF-8 (first bad byte at offset {offset})"
            ),
            ReceiptError::HashFormat { found } => write!(
                f,
                "output_hash must be sha256: followed by 64 lowercase hex digits, found {found}"
            ),
            ReceiptError::HashMismatch { stored, computed } => write!(
                f,
                "output_hash is {stored} but the decoded bytes hash to sha256:{computed}"
            ),
            ReceiptError::Status { found } => write!(f, "verification_status must be \"verified\", found {found}"),
        }
    }
}

/// Reads and verifies one receipt document of at most `limit` bytes. `Err` only when reading fails.
pub fn verify_receipt_reader<R: std::io::Read>(
    reader: R,
    tier: IdTier,
    limit: u64,
) -> std::io::Result<ReceiptReport> {
    Ok(match json::read_limited(reader, limit)? {
        Ok(bytes) => verify_receipt(&bytes, tier),
        Err(e) => {
            let mut findings = Findings::new(crate::timeline::DEFAULT_MAX_FAILURES);
            findings.report(&ReceiptError::Json(e), None);
            finish(tier, None, findings)
        }
    })
}

/// Verifies one receipt document (the whole file's bytes).
pub fn verify_receipt(bytes: &[u8], tier: IdTier) -> ReceiptReport {
    let mut findings = Findings::new(crate::timeline::DEFAULT_MAX_FAILURES);
    let computed = check_receipt(bytes, tier, &mut findings);
    finish(tier, computed, findings)
}

fn finish(tier: IdTier, computed: Option<[u8; 32]>, findings: Findings) -> ReceiptReport {
    let (failures, omitted) = findings.into_parts();
    ReceiptReport {
        id_tier: tier.as_str(),
        verdict: Verdict::from_findings(&failures, omitted),
        computed_output_hash: computed.map(|h| format!("sha256:{}", hex::lower(&h))),
        failures,
        failures_omitted: omitted,
    }
}

fn check_receipt(bytes: &[u8], tier: IdTier, findings: &mut Findings) -> Option<[u8; 32]> {
    let mut report = |e: ReceiptError| findings.report(&e, None);
    let text = match json::as_text(bytes) {
        Ok(t) => t,
        Err(e) => {
            report(ReceiptError::Json(e));
            return None;
        }
    };
    let parsed = match json::parse(text, &[]) {
        Ok(p) => p,
        Err(e) => {
            report(ReceiptError::Json(e));
            return None;
        }
    };
    for d in parsed.duplicates {
        report(ReceiptError::Json(d));
    }
    let Node::Object(receipt) = &parsed.root else {
        report(ReceiptError::NotObject {
            found: parsed.root.kind(),
        });
        return None;
    };
    for member in ReceiptMember::ALL {
        if receipt.get(member.name()).is_none() {
            report(ReceiptError::MissingMember { member });
        }
    }

    if let Some(id) = string(receipt, ReceiptMember::Id, &mut report) {
        match check_uuid_core(id) {
            Err(error) => report(ReceiptError::Id { error }),
            Ok(()) if tier == IdTier::Strict => {
                if let Err(error) = check_uuid_strict(id) {
                    report(ReceiptError::IdStrict { error });
                }
            }
            Ok(()) => {}
        }
    }
    if let Some(v) = string(receipt, ReceiptMember::ReceiptSchemaVersion, &mut report) {
        if v.is_empty() {
            report(ReceiptError::SchemaVersionEmpty);
        }
    }
    if let Some(t) = string(receipt, ReceiptMember::CreatedAt, &mut report) {
        if let Err(error) = check_rfc3339(t) {
            report(ReceiptError::CreatedAt { error });
        }
    }
    match receipt.get("tool") {
        None => {}
        Some(Node::Object(tool)) => {
            for member in ["name", "version", "scope"] {
                let found = match tool.get(member) {
                    Some(Node::String(s)) if !s.is_empty() => continue,
                    Some(Node::String(_)) => "\"\"".to_string(),
                    Some(other) => other.kind().to_string(),
                    None => "nothing".to_string(),
                };
                report(ReceiptError::ToolMember { member, found });
            }
        }
        Some(other) => report(ReceiptError::WrongType {
            member: ReceiptMember::Tool,
            expected: "an object",
            found: other.kind(),
        }),
    }
    if let Some(class) = string(receipt, ReceiptMember::ProvenanceClass, &mut report) {
        if provenance_class(class).is_none() {
            report(ReceiptError::Provenance {
                value: clip(class, 80),
            });
        }
    }
    let computed = string(receipt, ReceiptMember::CanonicalBytes, &mut report).and_then(|b64| {
        match decode_and_hash(b64, &mut Vec::new()) {
            Err(error) => {
                report(ReceiptError::Base64 { error });
                None
            }
            Ok(decoded) => {
                if let Some(offset) = decoded.not_utf8_at {
                    report(ReceiptError::BytesNotUtf8 { offset });
                }
                Some(decoded.sha256)
            }
        }
    });
    if let Some(stored) = string(receipt, ReceiptMember::OutputHash, &mut report) {
        match stored.strip_prefix("sha256:") {
            Some(h) if hex::is_lower_hex(h, 64) => {
                if let Some(c) = &computed {
                    if !hex::eq_lower(h, c) {
                        report(ReceiptError::HashMismatch {
                            stored: stored.to_string(),
                            computed: hex::lower(c),
                        });
                    }
                }
            }
            _ => report(ReceiptError::HashFormat {
                found: format!("{:?}", clip(stored, 80)),
            }),
        }
    }
    if let Some(status) = string(receipt, ReceiptMember::VerificationStatus, &mut report) {
        if status != "verified" {
            report(ReceiptError::Status {
                found: format!("{:?}", clip(status, 80)),
            });
        }
    }
    computed
}

/// The member as a string; a non-string is reported against the member's own rule.
fn string<'r>(
    receipt: &'r Object<'_>,
    member: ReceiptMember,
    report: &mut impl FnMut(ReceiptError),
) -> Option<&'r str> {
    match receipt.get(member.name())? {
        Node::String(s) => Some(s),
        other => {
            report(ReceiptError::WrongType {
                member,
                expected: "a string",
                found: other.kind(),
            });
            None
        }
    }
}
