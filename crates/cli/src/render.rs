//! Turning reports into text for people and JSON for programs.

use crate::error::Sort as _;
use std::fmt::Write as _;

use crate::error::Result;
use agentconf_aer1::report::{ReceiptReport, TimelineReport, WorkflowReport, DRAFT};
use agentconf_aer1::{Finding, Report, TruncationEvidence, Verdict};
use serde::Serialize;

/// What every JSON report carries besides the report itself.
#[derive(Serialize)]
struct Envelope<'a> {
    tool: &'static str,
    tool_version: &'static str,
    draft: &'static str,
    #[serde(flatten)]
    report: &'a Report,
}

/// The report as one line of JSON. A failure here would be a defect (reports hold only strings,
/// numbers, booleans and options); it is an error, never an empty line with a verdict exit code.
pub fn json(report: &Report) -> Result<String> {
    let envelope = Envelope {
        tool: "agentconf",
        tool_version: env!("CARGO_PKG_VERSION"),
        draft: DRAFT,
        report,
    };
    serde_json::to_string(&envelope)
        .map_err(|e| format!("cannot serialize the report: {e}"))
        .unwritable()
}

const DRAFT_NOTE: &str =
    "draft-zambo-aer1, an individual Internet-Draft: not an RFC, not endorsed by the IETF";

/// The report as text for a person. Every line is made terminal-safe: a file name or a member
/// name from the input with an escape sequence or a line break in it cannot move the cursor or
/// forge a line of its own (a `verdict: VALID`, say).
pub fn text(report: &Report, source: &str) -> String {
    // The name first, whole: a line break in it must become `\n`, not a line of its own.
    let source = &agentconf_harness::report::terminal_safe(source);
    let raw = match report {
        Report::Receipt(r) => receipt(r, source),
        Report::Timeline(r) => timeline(r, source),
        Report::Workflow(r) => workflow(r, source),
    };
    raw.lines()
        .map(|line| agentconf_harness::report::terminal_safe(line) + "\n")
        .collect()
}

fn receipt(r: &ReceiptReport, source: &str) -> String {
    let mut out = format!("AER-1 receipt {source} ({DRAFT_NOTE})\n");
    let _ = writeln!(out, "tier: {} (id tier {})", r.tier, r.id_tier);
    if let Some(h) = &r.computed_output_hash {
        let _ = writeln!(out, "output hash of the decoded bytes: {h}");
    }
    verdict(&mut out, r.verdict, &r.failures, r.failures_omitted);
    for note in &r.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

fn timeline(r: &TimelineReport, source: &str) -> String {
    let mut out = format!("AER-1 timeline {source} ({DRAFT_NOTE})\n");
    if r.historical {
        let _ = writeln!(
            out,
            "revision: {} (HISTORICAL: the revision-06 construction binds only each entry's bytes; \
             this is not a result under the current construction)",
            r.revision
        );
    } else {
        let _ = writeln!(out, "revision: {}", r.revision);
    }
    let _ = writeln!(out, "entries: {}", r.entry_count);
    if let Some(job) = &r.job_id {
        let _ = writeln!(out, "job: {job:?}");
    }
    if let Some(d) = &r.final_entry_digest {
        let _ = writeln!(out, "final entry digest: {d}");
    }
    verdict(&mut out, r.verdict, &r.failures, r.failures_omitted);
    for note in &r.notes {
        let _ = writeln!(out, "note: {note}");
    }
    match r.truncation_evidence {
        TruncationEvidence::None => {
            let _ = writeln!(
                out,
                "truncation evidence: none. A chain that passes every rule can still have lost \
                 entries at either end, or had its last entry replaced, and been re-linked. Only \
                 an independently obtained commitment (--commitment) speaks to completeness."
            );
        }
        TruncationEvidence::CommitmentVerified => {
            let _ = writeln!(
                out,
                "truncation evidence: commitment-verified. The chain reaches the end the commitment \
                 publishes; that proves completeness only if the commitment was obtained \
                 independently of whoever controls the chain."
            );
        }
    }
    out
}

fn workflow(r: &WorkflowReport, source: &str) -> String {
    let mut out = format!("AER-1 workflow {source} ({DRAFT_NOTE})\n");
    let _ = writeln!(out, "steps: {}", r.step_count);
    if let Some(root) = &r.computed_merkle_root {
        let _ = writeln!(out, "recomputed Merkle root: {root}");
    }
    verdict(&mut out, r.verdict, &r.failures, r.failures_omitted);
    out
}

fn verdict(out: &mut String, verdict: Verdict, failures: &[Finding], omitted: u64) {
    match verdict {
        Verdict::Valid => {
            let _ = writeln!(out, "verdict: VALID");
        }
        Verdict::Invalid => {
            let total = failures.len() as u64 + omitted;
            let plural = if total == 1 { "" } else { "s" };
            let _ = writeln!(out, "verdict: INVALID ({total} failure{plural})");
            for f in failures {
                let _ = writeln!(out, "  {}", finding(f));
            }
            if omitted > 0 {
                let _ = writeln!(
                    out,
                    "  ... and {omitted} more (raise --max-failures to list them)"
                );
            }
        }
    }
}

/// One failure line: rule, level, place, message.
pub fn finding(f: &Finding) -> String {
    let level = f.rule.record().level.as_str();
    let place = match (&f.entry, &f.member) {
        (Some(e), Some(m)) => format!("entry {e}, {m}: "),
        (Some(e), None) => format!("entry {e}: "),
        (None, Some(m)) => format!("{m}: "),
        (None, None) => String::new(),
    };
    format!("{} ({level}) {place}{}", f.rule, f.message)
}
