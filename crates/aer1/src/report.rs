//! The structured results of each verification: the JSON the CLI prints with `--format json`,
//! which the harness reads from implementations that speak the agentconf contract.

use serde::Serialize;

use crate::commitment::Commitment;
use crate::finding::{Finding, Verdict};

/// The draft every report refers to. An individual Internet-Draft: not an RFC, not IETF-endorsed.
pub const DRAFT: &str = "draft-zambo-aer1";

/// Whether anything beyond the chain speaks to completeness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TruncationEvidence {
    /// Only the chain was checked. A chain can be cut at either end, or its final entry replaced,
    /// and re-linked so that it passes every rule: this result says nothing about completeness.
    None,
    /// The chain also matched an external commitment. That speaks to completeness only as far as
    /// the commitment was obtained independently of whoever controls the chain.
    CommitmentVerified,
}

/// Result of `verify timeline`.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineReport {
    /// The draft revision the chain was checked as: the one the caller named, or the newest
    /// revision of the construction checked ([`crate::Revision::as_str`]).
    pub revision: String,
    /// True for revision-06 results, which are never results under the current construction.
    pub historical: bool,
    pub verdict: Verdict,
    pub entry_count: u64,
    /// The first entry's job_id, when it had one.
    pub job_id: Option<String>,
    /// The recomputed digest of the last entry, when it could be computed.
    pub final_entry_digest: Option<String>,
    pub truncation_evidence: TruncationEvidence,
    /// The commitment the chain was checked against, when one was given and well-formed.
    pub commitment: Option<Commitment>,
    pub failures: Vec<Finding>,
    /// Failures found beyond the kept maximum (counted, not listed).
    pub failures_omitted: u64,
    /// Remarks that are not failures.
    pub notes: Vec<String>,
}

/// Result of `verify receipt`.
#[derive(Clone, Debug, Serialize)]
pub struct ReceiptReport {
    /// The tier checked: `core`, `strict`, `anchored` or `profile`. A valid verdict means the
    /// receipt meets this tier and says nothing about the others (an anchor is judged only under
    /// `anchored`).
    pub tier: &'static str,
    /// The id tier that tier applies: `strict` under `strict` and `anchored`, else `core`.
    pub id_tier: &'static str,
    pub verdict: Verdict,
    /// The recomputed `sha256:<hex>` of the decoded bytes, when they decoded.
    pub computed_output_hash: Option<String>,
    pub failures: Vec<Finding>,
    /// Failures found beyond the kept maximum (counted, not listed).
    pub failures_omitted: u64,
    /// Remarks that are not failures: an anchor the tier did not check, what the anchored tier
    /// cannot check offline.
    pub notes: Vec<String>,
}

/// Result of `verify workflow`.
#[derive(Clone, Debug, Serialize)]
pub struct WorkflowReport {
    pub verdict: Verdict,
    pub step_count: u64,
    /// The recomputed Merkle root, when the steps were well-formed.
    pub computed_merkle_root: Option<String>,
    pub failures: Vec<Finding>,
    /// Failures found beyond the kept maximum (counted, not listed).
    pub failures_omitted: u64,
}

/// Every report, tagged by kind, as printed with `--format json`.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind")]
pub enum Report {
    #[serde(rename = "aer1-receipt")]
    Receipt(ReceiptReport),
    #[serde(rename = "aer1-timeline")]
    Timeline(TimelineReport),
    #[serde(rename = "aer1-workflow")]
    Workflow(WorkflowReport),
}

impl Report {
    pub fn verdict(&self) -> Verdict {
        match self {
            Report::Receipt(r) => r.verdict,
            Report::Timeline(r) => r.verdict,
            Report::Workflow(r) => r.verdict,
        }
    }
}
