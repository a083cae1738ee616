//! `agentconf impl …`: the reference speaking the harness contract (crates/harness/CONTRACT.md).
//!
//! Fixed argument order per operation; exit 0 accept, 1 reject, 89 unsupported; one result object
//! `{"verdict","rules","messages"}` on standard output for AER-1 operations. A wrong argument list
//! is a usage error (exit 2), which a harness reports as a crash: it means the wrapper is broken.

use std::path::Path;

use agentconf_aer1::commitment::read_commitment;
use agentconf_aer1::receipt::{verify_receipt_reader, IdTier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow_reader;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_grp::admission::{Receiver, Revision as GrpRevision};
use agentconf_grp::store::SqliteStore;

use super::{emit, Outcome, MAX_DOCUMENT_BYTES};
use crate::args::ImplArgs;
use crate::input::{open, read_error};

pub fn run(args: &ImplArgs) -> Result<Outcome, String> {
    let a: Vec<&str> = args.args.iter().map(String::as_str).collect();
    match (args.operation.as_str(), a.as_slice()) {
        ("aer1-receipt", [receipt]) => receipt_op(receipt, "core"),
        ("aer1-receipt", [receipt, tier]) => receipt_op(receipt, tier),
        ("aer1-timeline", [revision, timeline]) => timeline_op(revision, timeline, None),
        ("aer1-timeline", [revision, timeline, commitment]) => {
            timeline_op(revision, timeline, Some(commitment))
        }
        ("aer1-workflow", [workflow]) => {
            let input = open(Path::new(workflow))?;
            let r = verify_workflow_reader(input.reader, MAX_DOCUMENT_BYTES)
                .map_err(|e| read_error(&input.name, &e))?;
            result(r.verdict, &r.failures)
        }
        ("grp-admit", [revision, session, state_dir]) => grp_op(revision, session, state_dir),
        ("aer1-receipt" | "aer1-timeline" | "aer1-workflow" | "grp-admit", _) => Err(format!(
            "wrong arguments for {}: see crates/harness/CONTRACT.md",
            args.operation
        )),
        // An operation this implementation does not know is unsupported, not an error.
        _ => Ok(Outcome::Unsupported),
    }
}

fn receipt_op(path: &str, tier: &str) -> Result<Outcome, String> {
    let tier = match tier {
        "core" => IdTier::Core,
        "strict" => IdTier::Strict,
        _ => return Ok(Outcome::Unsupported),
    };
    let input = open(Path::new(path))?;
    let r = verify_receipt_reader(input.reader, tier, MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(&input.name, &e))?;
    result(r.verdict, &r.failures)
}

fn timeline_op(
    revision: &str,
    timeline: &str,
    commitment: Option<&str>,
) -> Result<Outcome, String> {
    let revision = match revision {
        "06" => Revision::R06,
        "07" | "08" | "09" => Revision::R09,
        _ => return Ok(Outcome::Unsupported),
    };
    if revision == Revision::R06 && commitment.is_some() {
        return Ok(Outcome::Unsupported);
    }
    let mut options = TimelineOptions {
        revision,
        ..TimelineOptions::default()
    };
    if let Some(path) = commitment {
        let input = open(Path::new(path))?;
        match read_commitment(input.reader, MAX_DOCUMENT_BYTES)
            .map_err(|e| read_error(&input.name, &e))?
        {
            Ok(c) => options.commitment = Some(c),
            Err(findings) => options.commitment_findings = findings,
        }
    }
    let input = open(Path::new(timeline))?;
    let r = verify_timeline(input.reader, &options).map_err(|e| read_error(&input.name, &e))?;
    result(r.verdict, &r.failures)
}

fn grp_op(revision: &str, session: &str, state_dir: &str) -> Result<Outcome, String> {
    let Some(revision) = GrpRevision::parse(revision) else {
        return Ok(Outcome::Unsupported);
    };
    let session = super::grp::read_session(Path::new(session))?;
    let dir = Path::new(state_dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {state_dir}: {e}"))?;
    let store = SqliteStore::open(&dir.join("admitted.sqlite")).map_err(|e| e.to_string())?;
    super::grp::run_stream(Receiver::new(session, revision, store))
}

/// Prints the result object and maps the verdict to the contract's exit code.
fn result(verdict: Verdict, failures: &[Finding]) -> Result<Outcome, String> {
    let mut rules: Vec<&str> = Vec::new();
    for f in failures {
        if !rules.contains(&f.rule.id()) {
            rules.push(f.rule.id());
        }
    }
    let messages: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
    let (name, outcome) = match verdict {
        Verdict::Valid => ("valid", Outcome::Valid),
        Verdict::Invalid => ("invalid", Outcome::Invalid),
    };
    let object = serde_json::json!({"verdict": name, "rules": rules, "messages": messages});
    emit(&(object.to_string() + "\n"))?;
    Ok(outcome)
}
