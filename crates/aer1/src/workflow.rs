//! Workflow receipts (Section 8): a Merkle root over the steps' receipt ids.
//!
//! The tree has no domain separation and repeats an odd level's last digest, so a duplicated last
//! id gives the same root as the list without it: duplicate receipt ids must be rejected.
//! The document shape is this project's interpretation (spec-notes/aer1-workflow.md):
//! `{"steps": [{"receipt_id": "..."}, ...], "merkle_root": "<64 lowercase hex>"}`.

use std::collections::HashMap;
use std::fmt;

use agentconf_rules::Rule;

use crate::digest::merkle_root;
use crate::finding::{Findings, RuleError, Verdict};
use crate::hex;
use crate::json::{self, JsonError, Node};
use crate::report::WorkflowReport;
use crate::text::clip;

/// The most steps a workflow may have. The document is held in memory whole (the Merkle tree
/// needs every leaf), so its step count is bounded like its size; a larger workflow is refused as
/// a resource limit (AER1-JSON-SIZE), not judged.
pub const MAX_WORKFLOW_STEPS: usize = 100_000;

/// At most this many failures are listed in a workflow report; the rest are counted.
const MAX_FAILURES: usize = crate::timeline::DEFAULT_MAX_FAILURES;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkflowError {
    Json(JsonError),
    /// More steps than [`MAX_WORKFLOW_STEPS`].
    TooManySteps {
        found: usize,
        limit: usize,
    },
    /// The document does not have the workflow shape; `member` names the part.
    Format {
        member: String,
        detail: String,
    },
    DuplicateId {
        step: u64,
        first: u64,
        id: String,
    },
    RootMismatch {
        stored: String,
        computed: String,
    },
}

impl RuleError for WorkflowError {
    fn rule(&self) -> Rule {
        match self {
            WorkflowError::Json(e) => e.rule(),
            WorkflowError::TooManySteps { .. } => Rule::Aer1JsonSize,
            WorkflowError::Format { .. } => Rule::Aer1WfFormat,
            WorkflowError::DuplicateId { .. } => Rule::Aer1WfDuplicate,
            WorkflowError::RootMismatch { .. } => Rule::Aer1WfRoot,
        }
    }

    fn member(&self) -> Option<String> {
        match self {
            WorkflowError::Json(e) => e.member(),
            WorkflowError::TooManySteps { .. } => Some("steps".into()),
            WorkflowError::Format { member, .. } => Some(member.clone()),
            WorkflowError::DuplicateId { step, .. } => Some(format!("steps[{step}].receipt_id")),
            WorkflowError::RootMismatch { .. } => Some("merkle_root".into()),
        }
    }
}

impl fmt::Display for WorkflowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkflowError::Json(e) => e.fmt(f),
            WorkflowError::TooManySteps { found, limit } => write!(
                f,
                "the workflow has {found} steps, more than the {limit} this verifier holds in memory (resource limit)"
            ),
            WorkflowError::Format { detail, .. } => f.write_str(detail),
            WorkflowError::DuplicateId { step, first, id } => write!(
                f,
                "receipt_id {id:?} of step {step} repeats step {first} (the Merkle tree cannot tell duplicates apart)"
            ),
            WorkflowError::RootMismatch { stored, computed } => write!(
                f,
                "merkle_root is {stored} but the steps' receipt ids give {computed}"
            ),
        }
    }
}

/// Reads and verifies a workflow document of at most `limit` bytes. `Err` only when reading fails.
pub fn verify_workflow_reader<R: std::io::Read>(
    reader: R,
    limit: u64,
) -> std::io::Result<WorkflowReport> {
    Ok(match json::read_limited(reader, limit)? {
        Ok(bytes) => verify_workflow(&bytes),
        Err(e) => {
            let mut findings = Findings::new(MAX_FAILURES);
            findings.report(&WorkflowError::Json(e), None);
            finish(0, None, findings)
        }
    })
}

/// Verifies a workflow document.
pub fn verify_workflow(bytes: &[u8]) -> WorkflowReport {
    let mut findings = Findings::new(MAX_FAILURES);
    let (steps, computed) = check_workflow(bytes, &mut findings);
    finish(steps, computed, findings)
}

fn finish(steps: u64, computed: Option<String>, findings: Findings) -> WorkflowReport {
    let (failures, omitted) = findings.into_parts();
    WorkflowReport {
        verdict: Verdict::from_findings(&failures, omitted),
        step_count: steps,
        computed_merkle_root: computed,
        failures,
        failures_omitted: omitted,
    }
}

fn check_workflow(bytes: &[u8], findings: &mut Findings) -> (u64, Option<String>) {
    let report =
        |findings: &mut Findings, e: WorkflowError, step: Option<u64>| findings.report(&e, step);
    let format = |member: &str, detail: String| WorkflowError::Format {
        member: member.to_string(),
        detail,
    };
    let text = match json::as_text(bytes) {
        Ok(t) => t,
        Err(e) => {
            report(findings, WorkflowError::Json(e), None);
            return (0, None);
        }
    };
    let parsed = match json::parse(text, &[]) {
        Ok(p) => p,
        Err(e) => {
            report(findings, WorkflowError::Json(e), None);
            return (0, None);
        }
    };
    for d in parsed.duplicates {
        report(findings, WorkflowError::Json(d), None);
    }
    let Node::Object(doc) = &parsed.root else {
        let e = format(
            "workflow",
            format!(
                "a workflow is a JSON object; this document is {}",
                parsed.root.kind()
            ),
        );
        report(findings, e, None);
        return (0, None);
    };
    let stored_root = match doc.get("merkle_root") {
        Some(Node::String(s)) if hex::is_lower_hex(s, 64) => Some(s.to_string()),
        Some(other) => {
            let found = match other {
                Node::String(s) => format!("{:?}", clip(s, 80)),
                _ => other.kind().to_string(),
            };
            report(
                findings,
                format(
                    "merkle_root",
                    format!("merkle_root must be 64 lowercase hex digits, found {found}"),
                ),
                None,
            );
            None
        }
        None => {
            report(
                findings,
                format(
                    "merkle_root",
                    "the workflow has no merkle_root member".into(),
                ),
                None,
            );
            None
        }
    };
    let steps = match doc.get("steps") {
        Some(Node::Array(steps)) => steps,
        Some(other) => {
            report(
                findings,
                format(
                    "steps",
                    format!("steps must be an array, found {}", other.kind()),
                ),
                None,
            );
            return (0, None);
        }
        None => {
            report(
                findings,
                format("steps", "the workflow has no steps member".into()),
                None,
            );
            return (0, None);
        }
    };
    if steps.len() > MAX_WORKFLOW_STEPS {
        let e = WorkflowError::TooManySteps {
            found: steps.len(),
            limit: MAX_WORKFLOW_STEPS,
        };
        report(findings, e, None);
        return (steps.len() as u64, None);
    }
    let mut ids: Vec<&str> = Vec::with_capacity(steps.len());
    let mut first_seen: HashMap<&str, u64> = HashMap::new();
    let mut well_formed = true;
    for (i, step) in steps.iter().enumerate() {
        let i = i as u64;
        let id = match step.as_object().map(|o| o.get("receipt_id")) {
            // An empty id hashes to SHA-256(""), the root of an empty workflow: without domain
            // separation a one-step workflow with id "" would collide with no steps at all.
            Some(Some(Node::String(id))) if id.is_empty() => {
                report(
                    findings,
                    format(
                        &format!("steps[{i}].receipt_id"),
                        "receipt_id must not be empty".to_string(),
                    ),
                    Some(i),
                );
                well_formed = false;
                continue;
            }
            Some(Some(Node::String(id))) => id,
            Some(Some(other)) => {
                report(
                    findings,
                    format(
                        &format!("steps[{i}].receipt_id"),
                        format!("receipt_id must be a string, found {}", other.kind()),
                    ),
                    Some(i),
                );
                well_formed = false;
                continue;
            }
            Some(None) => {
                report(
                    findings,
                    format(
                        &format!("steps[{i}].receipt_id"),
                        "the step has no receipt_id member".into(),
                    ),
                    Some(i),
                );
                well_formed = false;
                continue;
            }
            None => {
                report(
                    findings,
                    format(
                        &format!("steps[{i}]"),
                        format!("a step must be an object, found {}", step.kind()),
                    ),
                    Some(i),
                );
                well_formed = false;
                continue;
            }
        };
        if let Some(first) = first_seen.get(id.as_ref()) {
            let e = WorkflowError::DuplicateId {
                step: i,
                first: *first,
                id: clip(id, 80),
            };
            report(findings, e, Some(i));
        } else {
            first_seen.insert(id, i);
        }
        ids.push(id);
    }
    let step_count = steps.len() as u64;
    if !well_formed {
        return (step_count, None);
    }
    let computed = hex::lower(&merkle_root(ids.iter().copied()));
    if let Some(stored) = stored_root {
        if stored != computed {
            report(
                findings,
                WorkflowError::RootMismatch {
                    stored,
                    computed: computed.clone(),
                },
                None,
            );
        }
    }
    (step_count, Some(computed))
}
