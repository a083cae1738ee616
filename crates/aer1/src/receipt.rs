//! Single-receipt verification (Sections 3-6), under one of four tiers.
//!
//! Receipts are never re-canonicalised: the producer keeps the exact bytes that were hashed, and
//! the verifier only decodes and hashes them. Every failure is reported, not just the first.
//!
//! A tier says how much is checked, and a report names the tier it checked: a `valid` verdict
//! means the receipt meets that tier and says nothing about the others. In particular an `anchor`
//! member is checked under the anchored tier only; under the others it is an extra member, and the
//! report says so in a note instead of claiming the anchored tier.

use std::fmt;

use agentconf_rules::Rule;

use crate::finding::{json_rule, Findings, RuleError};
use crate::formats::{
    check_rfc3339, check_uuid_core, check_uuid_strict, decode_and_hash, provenance_class,
    Base64Error, IdError, TimeError,
};
use crate::hex;
use crate::json::{self, JsonError, Node, Object};
use crate::report::ReceiptReport;
use crate::text::clip;

/// Which receipt tier to check: the workspace's one tier type.
pub use agentconf_rules::Tier;

/// The four members of an anchor, in the order they are checked and reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnchorMember {
    Log,
    LeafHash,
    AnchoredAt,
    Proof,
}

impl AnchorMember {
    pub const ALL: [AnchorMember; 4] = [
        AnchorMember::Log,
        AnchorMember::LeafHash,
        AnchorMember::AnchoredAt,
        AnchorMember::Proof,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AnchorMember::Log => "log",
            AnchorMember::LeafHash => "leaf_hash",
            AnchorMember::AnchoredAt => "anchored_at",
            AnchorMember::Proof => "proof",
        }
    }
}

/// Why the decoded payload is not a JSON object (producer profile).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadError {
    /// The bytes are not a JSON text the strict reader accepts.
    NotJson(JsonError),
    /// A JSON text, but not an object.
    NotObject { found: &'static str },
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadError::NotJson(e) => write!(f, "it is not JSON ({e})"),
            PayloadError::NotObject { found } => write!(f, "it is {found}"),
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
    /// Anchored tier: the receipt has no `anchor` member.
    AnchorMissing,
    /// Anchored tier: `anchor` is not an object.
    AnchorNotObject {
        found: &'static str,
    },
    /// Anchored tier: one of the four anchor members is absent.
    AnchorMemberMissing {
        member: AnchorMember,
    },
    /// Anchored tier: the anchor has a member other than the four (name clipped).
    AnchorExtraMember {
        name: String,
    },
    /// Anchored tier: `anchor.log` is not a non-empty string.
    AnchorLog {
        found: String,
    },
    /// Anchored tier: `anchor.leaf_hash` is not `sha256:` plus 64 lowercase hex digits.
    AnchorLeafFormat {
        found: String,
    },
    /// Anchored tier: `anchor.leaf_hash` is not the hash of the decoded bytes.
    AnchorLeafMismatch {
        stored: String,
        computed: String,
    },
    /// Anchored tier: `anchor.anchored_at` is not a string.
    AnchoredAtType {
        found: &'static str,
    },
    /// Anchored tier: `anchor.anchored_at` is not a calendar-valid RFC 3339 date-time.
    AnchoredAt {
        error: TimeError,
    },
    /// Anchored tier: `anchor.proof` is not an object.
    AnchorProof {
        found: &'static str,
    },
    /// Profile tier: the decoded payload is not a JSON object.
    ProfilePayload {
        error: PayloadError,
    },
    /// Profile tier: the payload object has no `inputs` member.
    ProfileNoInputs,
}

impl RuleError for ReceiptError {
    fn rule(&self) -> Rule {
        match self {
            ReceiptError::Json(e) => json_rule(e),
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
            ReceiptError::AnchorMissing
            | ReceiptError::AnchorNotObject { .. }
            | ReceiptError::AnchorMemberMissing { .. }
            | ReceiptError::AnchorExtraMember { .. } => Rule::Aer1RcAnchorMembers,
            ReceiptError::AnchorLog { .. } => Rule::Aer1RcAnchorLog,
            ReceiptError::AnchorLeafFormat { .. } => Rule::Aer1RcAnchorLeafFormat,
            ReceiptError::AnchorLeafMismatch { .. } => Rule::Aer1RcAnchorLeafMatch,
            ReceiptError::AnchoredAtType { .. } | ReceiptError::AnchoredAt { .. } => {
                Rule::Aer1RcAnchorTime
            }
            ReceiptError::AnchorProof { .. } => Rule::Aer1RcAnchorProof,
            ReceiptError::ProfilePayload { .. } | ReceiptError::ProfileNoInputs => {
                Rule::Aer1RcProfileInputs
            }
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
            ReceiptError::AnchorMissing | ReceiptError::AnchorNotObject { .. } => "anchor",
            ReceiptError::AnchorMemberMissing { member } => {
                return Some(format!("anchor.{}", member.name()))
            }
            ReceiptError::AnchorExtraMember { name } => return Some(format!("anchor.{name}")),
            ReceiptError::AnchorLog { .. } => "anchor.log",
            ReceiptError::AnchorLeafFormat { .. } | ReceiptError::AnchorLeafMismatch { .. } => {
                "anchor.leaf_hash"
            }
            ReceiptError::AnchoredAtType { .. } | ReceiptError::AnchoredAt { .. } => {
                "anchor.anchored_at"
            }
            ReceiptError::AnchorProof { .. } => "anchor.proof",
            // The payload lives inside canonical_bytes.
            ReceiptError::ProfilePayload { .. } | ReceiptError::ProfileNoInputs => {
                "canonical_bytes"
            }
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
            ReceiptError::AnchorMissing => f.write_str("the anchored tier needs an anchor member; the receipt has none"),
            ReceiptError::AnchorNotObject { found } => write!(f, "anchor must be an object, found {found}"),
            ReceiptError::AnchorMemberMissing { member } => {
                write!(f, "the anchor has no {} member", member.name())
            }
            ReceiptError::AnchorExtraMember { name } => write!(
                f,
                "the anchor has a member {name:?}; it must have exactly log, leaf_hash, anchored_at and proof"
            ),
            ReceiptError::AnchorLog { found } => write!(f, "anchor.log must be a non-empty string, found {found}"),
            ReceiptError::AnchorLeafFormat { found } => write!(
                f,
                "anchor.leaf_hash must be sha256: followed by 64 lowercase hex digits, found {found}"
            ),
            ReceiptError::AnchorLeafMismatch { stored, computed } => write!(
                f,
                "anchor.leaf_hash is {stored} but the decoded bytes hash to sha256:{computed}"
            ),
            ReceiptError::AnchoredAtType { found } => write!(f, "anchor.anchored_at must be a string, found {found}"),
            ReceiptError::AnchoredAt { error } => write!(f, "anchor.anchored_at: {error}"),
            ReceiptError::AnchorProof { found } => write!(f, "anchor.proof must be an object, found {found}"),
            ReceiptError::ProfilePayload { error } => write!(
                f,
                "the producer profile needs the decoded payload to be a JSON object; {error}"
            ),
            ReceiptError::ProfileNoInputs => f.write_str(
                "the producer profile needs the decoded payload to carry an inputs member; it has none"
            ),
        }
    }
}

/// Reads and verifies one receipt document of at most `limit` bytes. `Err` only when reading fails.
pub fn verify_receipt_reader<R: std::io::Read>(
    reader: R,
    tier: Tier,
    limit: u64,
) -> std::io::Result<ReceiptReport> {
    Ok(match json::read_limited(reader, limit)? {
        Ok(bytes) => verify_receipt(&bytes, tier),
        Err(e) => {
            let mut findings = Findings::new(crate::timeline::DEFAULT_MAX_FAILURES);
            findings.report(&ReceiptError::Json(e), None);
            finish(tier, Checked::default(), findings)
        }
    })
}

/// Verifies one receipt document (the whole file's bytes) under `tier`.
pub fn verify_receipt(bytes: &[u8], tier: Tier) -> ReceiptReport {
    let mut findings = Findings::new(crate::timeline::DEFAULT_MAX_FAILURES);
    let checked = check_receipt(bytes, tier, &mut findings);
    finish(tier, checked, findings)
}

/// What a check found besides failures.
#[derive(Default)]
struct Checked {
    /// SHA-256 of the decoded bytes, when they decoded.
    computed: Option<[u8; 32]>,
    /// Remarks for the report.
    notes: Vec<String>,
}

fn finish(tier: Tier, checked: Checked, findings: Findings) -> ReceiptReport {
    let (failures, omitted) = findings.into_parts();
    ReceiptReport {
        tier: tier.as_str(),
        id_tier: tier.id_tier(),
        verdict: crate::finding::verdict_of(&failures, omitted),
        computed_output_hash: checked
            .computed
            .map(|h| format!("sha256:{}", hex::lower(&h))),
        failures,
        failures_omitted: omitted,
        notes: checked.notes,
    }
}

fn check_receipt(bytes: &[u8], tier: Tier, findings: &mut Findings) -> Checked {
    let mut report = |e: ReceiptError| findings.report(&e, None);
    let text = match json::as_text(bytes) {
        Ok(t) => t,
        Err(e) => {
            report(ReceiptError::Json(e));
            return Checked::default();
        }
    };
    let parsed = match json::parse(text, &[]) {
        Ok(p) => p,
        Err(e) => {
            report(ReceiptError::Json(e));
            return Checked::default();
        }
    };
    for d in parsed.duplicates {
        report(ReceiptError::Json(d));
    }
    let Node::Object(receipt) = &parsed.root else {
        report(ReceiptError::NotObject {
            found: parsed.root.kind(),
        });
        return Checked::default();
    };
    for member in ReceiptMember::ALL {
        if receipt.get(member.name()).is_none() {
            report(ReceiptError::MissingMember { member });
        }
    }

    if let Some(id) = string(receipt, ReceiptMember::Id, &mut report) {
        check_id(id, tier, &mut report);
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
    if let Some(tool) = receipt.get("tool") {
        check_tool(tool, &mut report);
    }
    if let Some(class) = string(receipt, ReceiptMember::ProvenanceClass, &mut report) {
        if provenance_class(class).is_none() {
            report(ReceiptError::Provenance {
                value: clip(class, 80),
            });
        }
    }
    let mut payload = Vec::new();
    let decoded = string(receipt, ReceiptMember::CanonicalBytes, &mut report)
        .and_then(|b64| decode_bytes(b64, &mut payload, &mut report));
    let computed = decoded.map(|d| d.sha256);
    if let Some(stored) = string(receipt, ReceiptMember::OutputHash, &mut report) {
        check_output_hash(stored, computed.as_ref(), &mut report);
    }
    if let Some(status) = string(receipt, ReceiptMember::VerificationStatus, &mut report) {
        if status != "verified" {
            report(ReceiptError::Status {
                found: format!("{:?}", clip(status, 80)),
            });
        }
    }

    let mut notes = Vec::new();
    match tier {
        Tier::Anchored => {
            if check_anchor(receipt.get("anchor"), computed.as_ref(), &mut report) {
                notes.push(PROOF_NOT_VERIFIED.to_string());
            }
        }
        Tier::Core | Tier::Strict | Tier::Profile => {
            if receipt.get("anchor").is_some() {
                notes.push(format!(
                    "the receipt carries an anchor member, which the {} tier does not check: this \
                     result does not show that the anchored tier is met",
                    tier.as_str()
                ));
            }
        }
    }
    // The payload is judged only when it decoded to UTF-8 (else AER1-RC-B64 or -UTF8 reports it).
    if tier == Tier::Profile && decoded.is_some_and(|d| d.not_utf8_at.is_none()) {
        check_profile(&payload, &mut report);
    }
    Checked { computed, notes }
}

/// What the anchored tier cannot check offline, said on every anchored result that has an anchor.
const PROOF_NOT_VERIFIED: &str =
    "anchored tier: anchor.proof is checked to be an object only; that \
     the log named by anchor.log holds the leaf is not verified here (an offline check)";

/// The core id tier, then (for the strict and anchored tiers) version 4 and the RFC 4122 variant.
/// An id that fails the core tier is reported once, as AER1-RC-ID.
fn check_id(id: &str, tier: Tier, report: &mut impl FnMut(ReceiptError)) {
    match check_uuid_core(id) {
        Err(error) => report(ReceiptError::Id { error }),
        Ok(()) if tier.strict_id() => {
            if let Err(error) = check_uuid_strict(id) {
                report(ReceiptError::IdStrict { error });
            }
        }
        Ok(()) => {}
    }
}

fn check_tool(tool: &Node<'_>, report: &mut impl FnMut(ReceiptError)) {
    let Node::Object(tool) = tool else {
        report(ReceiptError::WrongType {
            member: ReceiptMember::Tool,
            expected: "an object",
            found: tool.kind(),
        });
        return;
    };
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

/// Decodes `canonical_bytes` into `out` and hashes them; `None` when they are not base64.
fn decode_bytes(
    b64: &str,
    out: &mut Vec<u8>,
    report: &mut impl FnMut(ReceiptError),
) -> Option<crate::formats::DecodedBytes> {
    match decode_and_hash(b64, out) {
        Err(error) => {
            report(ReceiptError::Base64 { error });
            None
        }
        Ok(decoded) => {
            if let Some(offset) = decoded.not_utf8_at {
                report(ReceiptError::BytesNotUtf8 { offset });
            }
            Some(decoded)
        }
    }
}

/// A `sha256:` + 64 lowercase hex value's hex part, or `None` when it is malformed.
fn sha256_hex(value: &str) -> Option<&str> {
    value
        .strip_prefix("sha256:")
        .filter(|h| hex::is_lower_hex(h, 64))
}

fn check_output_hash(
    stored: &str,
    computed: Option<&[u8; 32]>,
    report: &mut impl FnMut(ReceiptError),
) {
    match sha256_hex(stored) {
        Some(h) => {
            if let Some(c) = computed {
                if !hex::eq_lower(h, c) {
                    report(ReceiptError::HashMismatch {
                        stored: stored.to_string(),
                        computed: hex::lower(c),
                    });
                }
            }
        }
        None => report(ReceiptError::HashFormat {
            found: format!("{:?}", clip(stored, 80)),
        }),
    }
}

/// The anchored tier's `anchor` object: exactly four members, each well-formed, the leaf bound to
/// the decoded bytes. Returns whether an anchor object was there to check.
fn check_anchor(
    anchor: Option<&Node<'_>>,
    computed: Option<&[u8; 32]>,
    report: &mut impl FnMut(ReceiptError),
) -> bool {
    let anchor = match anchor {
        None => {
            report(ReceiptError::AnchorMissing);
            return false;
        }
        Some(Node::Object(a)) => a,
        Some(other) => {
            report(ReceiptError::AnchorNotObject {
                found: other.kind(),
            });
            return false;
        }
    };
    check_anchor_members(anchor, report);
    match anchor.get(AnchorMember::Log.name()) {
        None => {}
        Some(Node::String(s)) if !s.is_empty() => {}
        Some(Node::String(_)) => report(ReceiptError::AnchorLog {
            found: "\"\"".to_string(),
        }),
        Some(other) => report(ReceiptError::AnchorLog {
            found: other.kind().to_string(),
        }),
    }
    match anchor.get(AnchorMember::LeafHash.name()) {
        None => {}
        Some(Node::String(leaf)) => check_leaf(leaf, computed, report),
        Some(other) => report(ReceiptError::AnchorLeafFormat {
            found: other.kind().to_string(),
        }),
    }
    match anchor.get(AnchorMember::AnchoredAt.name()) {
        None => {}
        Some(Node::String(t)) => {
            if let Err(error) = check_rfc3339(t) {
                report(ReceiptError::AnchoredAt { error });
            }
        }
        Some(other) => report(ReceiptError::AnchoredAtType {
            found: other.kind(),
        }),
    }
    match anchor.get(AnchorMember::Proof.name()) {
        None | Some(Node::Object(_)) => {}
        Some(other) => report(ReceiptError::AnchorProof {
            found: other.kind(),
        }),
    }
    true
}

/// Exactly the four members: each missing one, then each other name once, in document order
/// (a duplicated name is the JSON reader's finding, not an extra member).
fn check_anchor_members(anchor: &Object<'_>, report: &mut impl FnMut(ReceiptError)) {
    for member in AnchorMember::ALL {
        if anchor.get(member.name()).is_none() {
            report(ReceiptError::AnchorMemberMissing { member });
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (name, _) in &anchor.members {
        let known = AnchorMember::ALL.iter().any(|m| m.name() == name);
        if !known && !seen.contains(&name.as_ref()) {
            seen.push(name);
            report(ReceiptError::AnchorExtraMember {
                name: clip(name, 80),
            });
        }
    }
}

fn check_leaf(leaf: &str, computed: Option<&[u8; 32]>, report: &mut impl FnMut(ReceiptError)) {
    match sha256_hex(leaf) {
        Some(h) => {
            if let Some(c) = computed {
                if !hex::eq_lower(h, c) {
                    report(ReceiptError::AnchorLeafMismatch {
                        stored: clip(leaf, 80),
                        computed: hex::lower(c),
                    });
                }
            }
        }
        None => report(ReceiptError::AnchorLeafFormat {
            found: format!("{:?}", clip(leaf, 80)),
        }),
    }
}

/// The producer profile: the decoded payload (UTF-8 already checked) is a JSON object carrying
/// `inputs`, whatever its value. The payload is read with the same strict reader as the receipt;
/// duplicate names inside it are not reported (they are not the receipt document's), and what the
/// reader refuses is a payload that is not JSON.
fn check_profile(payload: &[u8], report: &mut impl FnMut(ReceiptError)) {
    let parsed = std::str::from_utf8(payload)
        .map_err(|e| JsonError::NotUtf8 {
            offset: e.valid_up_to() as u64,
        })
        .and_then(|text| json::parse(text, &[]));
    match parsed {
        Err(e) => report(ReceiptError::ProfilePayload {
            error: PayloadError::NotJson(e),
        }),
        Ok(p) => match &p.root {
            Node::Object(o) if o.get("inputs").is_some() => {}
            Node::Object(_) => report(ReceiptError::ProfileNoInputs),
            other => report(ReceiptError::ProfilePayload {
                error: PayloadError::NotObject {
                    found: other.kind(),
                },
            }),
        },
    }
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
