//! `agentconf verify receipt|timeline|workflow`.

use crate::error::Sort as _;
use agentconf_aer1::commitment::read_commitment;
use agentconf_aer1::receipt::{verify_receipt_reader, Tier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow_reader;
use agentconf_aer1::Report;
use agentconf_rules::Rule;

use super::{emit, revision, say, ExitOutcome, MAX_DOCUMENT_BYTES};
use crate::args::{Format, ReceiptArgs, TierArg, TimelineArgs, WorkflowArgs};
use crate::error::Result;
use crate::input::{open, read_error};
use crate::render;

pub fn receipt(args: &ReceiptArgs) -> Result<ExitOutcome> {
    let tier = match args.tier {
        TierArg::Core => Tier::Core,
        TierArg::Strict => Tier::Strict,
        TierArg::Anchored => Tier::Anchored,
        TierArg::Profile => Tier::Profile,
    };
    let input = open(&args.file)?;
    let report = verify_receipt_reader(input.reader, tier, MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(&input.name, &e))?;
    show(&Report::Receipt(report), args.output.format, &input.name)
}

pub fn timeline(args: &TimelineArgs) -> Result<ExitOutcome> {
    let revision = revision(&args.revision)?;
    if args.commitment.is_some() {
        check_commitment_applies(&args.revision)?;
    }
    if args.file.as_os_str() == "-"
        && args
            .commitment
            .as_deref()
            .is_some_and(|c| c.as_os_str() == "-")
    {
        return Err("the timeline and the commitment cannot both be read from standard input")
            .usage();
    }
    let mut options = TimelineOptions {
        revision,
        max_failures: args.max_failures,
        ..TimelineOptions::default()
    };
    if let Some(path) = &args.commitment {
        let input = open(path)?;
        match read_commitment(input.reader, MAX_DOCUMENT_BYTES)
            .map_err(|e| read_error(&input.name, &e))?
        {
            Ok(c) => options.commitment = Some(c),
            Err(findings) => options.commitment_findings = findings,
        }
    }
    let input = open(&args.file)?;
    let mut report =
        verify_timeline(input.reader, &options).map_err(|e| read_error(&input.name, &e))?;
    // The report names the revision asked for, not the newest one of its construction.
    report.revision.clone_from(&args.revision);
    show(&Report::Timeline(report), args.output.format, &input.name)
}

/// The external commitment exists in the revisions its rules (AER1-CM-*) apply to, as the rule
/// catalogue says; elsewhere `--commitment` is a usage error, not a check to skip silently.
fn check_commitment_applies(revision: &str) -> Result<()> {
    if agentconf_aer1::commitment::exists_in(revision) {
        return Ok(());
    }
    let revisions = &Rule::Aer1CmFinal.record().revisions;
    Err(format!(
        "--commitment needs a revision the AER1-CM rules apply to ({}): revision {revision} has no \
         external commitment",
        revisions.join(", ")
    ))
    .usage()
}

pub fn workflow(args: &WorkflowArgs) -> Result<ExitOutcome> {
    let input = open(&args.file)?;
    let report = verify_workflow_reader(input.reader, MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(&input.name, &e))?;
    show(&Report::Workflow(report), args.output.format, &input.name)
}

fn show(report: &Report, format: Format, source: &str) -> Result<ExitOutcome> {
    match format {
        Format::Json => emit(&(render::json(report)? + "\n"))?,
        Format::Text => say(&render::text(report, source))?,
    }
    Ok(ExitOutcome::from_verdict(report.verdict()))
}
