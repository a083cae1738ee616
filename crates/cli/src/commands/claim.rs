//! `agentconf claim verify RESULTS [-- COMMAND]`: a conformance claim re-checked by anyone. The
//! claim is one results file (plus the adapter it names); this re-runs exactly the cases,
//! grading, profiles and adapter it records and compares every case's status.

use std::collections::BTreeMap;

use agentconf_harness::results::ResultsFile;

use super::{emit, Outcome};
use crate::args::{ClaimVerifyArgs, GradingArg, ImplementationArg, ProfileArg, RunArgs};

pub fn verify(args: &ClaimVerifyArgs) -> Result<Outcome, String> {
    let claim = super::report::load_whole(&args.results)?;
    let h = &claim.header;
    let name = args.results.display();
    let corpus = agentconf_corpus::corpus();
    let embedded = agentconf_corpus::writer::manifest(&corpus).corpus_digest;
    if h.corpus_digest != embedded {
        return Err(format!(
            "{name} was made against corpus {}; this agentconf embeds {embedded}: re-check it \
             with the agentconf version that made it",
            h.corpus_digest
        ));
    }
    // The same corpus: every line must then say what that corpus says.
    agentconf_harness::corpus_check::check(&claim, &corpus, &embedded)
        .map_err(|e| format!("{name}: refused: {e}"))?;
    let selection = h.selection.clone().ok_or_else(|| {
        format!("{name} does not record which cases it selected: there is nothing to reproduce")
    })?;
    // The adapter is checked before anything runs.
    match (&h.adapter_digest, &args.adapter) {
        (Some(_), None) => {
            return Err(format!(
                "{name} was made with an adapter: give it with --adapter"
            ))
        }
        (None, Some(_)) => {
            return Err(format!(
                "{name} was made without an adapter; --adapter would change what runs"
            ))
        }
        (Some(recorded), Some(path)) => {
            let (_, _, digest) = super::run::read_adapter(path)?;
            if *recorded != digest {
                return Err(format!(
                    "{} is not the adapter {name} was made with (sha256 {digest}, recorded \
                     {recorded})",
                    path.display()
                ));
            }
        }
        (None, None) => {}
    }
    let profiles = h
        .profiles
        .iter()
        .map(|p| match p.as_str() {
            "durable" => Ok(ProfileArg::Durable),
            "atomic" => Ok(ProfileArg::Atomic),
            other => Err(format!("{name} claims an unknown profile {other:?}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let run = RunArgs {
        implementation: ImplementationArg::Reference,
        command: args.command.clone(),
        grading: match h.grading {
            agentconf_harness::grade::Grading::Strict => GradingArg::Strict,
            agentconf_harness::grade::Grading::Loose => GradingArg::Loose,
        },
        profiles,
        include: selection.include.clone(),
        exclude: selection.exclude.clone(),
        jobs: args.jobs,
        timeout: args.timeout,
        fail_fast: false,
        max_fail: None,
        out: args.out.clone(),
        html: None,
        adapter: args.adapter.clone(),
        emit_xfail: None,
        persistent: args.persistent,
        validate_protocol: false,
        // The claim's statuses are compared one by one: every case must run again.
        keep_going: true,
    };
    let again = super::run::execute(&run)?;
    let differences = compare(&claim, &again);
    let mut text = String::new();
    if differences.is_empty() {
        text.push_str(&format!(
            "REPRODUCED: {} cases, every status as {name} records it (corpus {}).\n",
            claim.results.len(),
            h.corpus_digest
        ));
    } else {
        text.push_str(&format!(
            "NOT REPRODUCED: {} of {} cases differ from {name}:\n",
            differences.len(),
            claim.results.len().max(again.results.len())
        ));
        for d in &differences {
            text.push_str(&format!("  {d}\n"));
        }
    }
    text.push_str(&format!("new results: {}\n", args.out.display()));
    emit(&text)?;
    Ok(if differences.is_empty() {
        Outcome::Valid
    } else {
        Outcome::Invalid
    })
}

/// Every case whose status differs, or that only one file has, in the claim's order.
fn compare(claim: &ResultsFile, again: &ResultsFile) -> Vec<String> {
    let now: BTreeMap<&str, &str> = again
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.status.name()))
        .collect();
    let mut out = Vec::new();
    for r in &claim.results {
        match now.get(r.id.as_str()) {
            Some(s) if *s == r.status.name() => {}
            Some(s) => out.push(format!("{}: recorded {}, now {s}", r.id, r.status.name())),
            None => out.push(format!(
                "{}: recorded {}, not run now",
                r.id,
                r.status.name()
            )),
        }
    }
    let recorded: std::collections::BTreeSet<&str> =
        claim.results.iter().map(|r| r.id.as_str()).collect();
    for r in &again.results {
        if !recorded.contains(r.id.as_str()) {
            out.push(format!(
                "{}: not in the claim, now {}",
                r.id,
                r.status.name()
            ));
        }
    }
    out
}
