//! Every vector through the reference, one named trial per vector id (libtest-mimic): the
//! reference's verdict must match the declared expectation, and for a rejection the set of rules
//! it reports must equal the vector's `expected_rules` — so each negative vector breaks exactly
//! the rules it claims. Expectations are written by hand in the generators; this is where the
//! reference and the corpus check each other.
//!
//! Filter like any test: `cargo test -p agentconf-corpus --test self_test -- aer1/timeline/reclosed`.

use std::collections::BTreeSet;

use agentconf_aer1::commitment::parse_commitment;
use agentconf_aer1::receipt::{verify_receipt, IdTier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_corpus::model::{Expectation, Suite, Vector};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let trials = agentconf_corpus::corpus()
        .into_iter()
        .map(|v| Trial::test(v.id.clone(), move || check(&v)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// The constructions a vector's revisions call for: 06, and/or the 07-09 one.
fn constructions(v: &Vector) -> Vec<Revision> {
    let mut out = Vec::new();
    if v.revisions.iter().any(|r| r == "06") {
        out.push(Revision::R06);
    }
    if v.revisions.iter().any(|r| r != "06") {
        out.push(Revision::R09);
    }
    out
}

fn check(v: &Vector) -> Result<(), Failed> {
    match v.suite {
        Suite::Aer1Receipt => {
            let tier = match v.options.id_tier.as_deref() {
                Some("strict") => IdTier::Strict,
                _ => IdTier::Core,
            };
            let report = verify_receipt(&input(v, "receipt")?, tier);
            compare(v, report.verdict, &report.failures, "")
        }
        Suite::Aer1Workflow => {
            let report = verify_workflow(&input(v, "workflow")?);
            compare(v, report.verdict, &report.failures, "")
        }
        Suite::Aer1Timeline => {
            let timeline = input(v, "timeline")?;
            for revision in constructions(v) {
                let mut options = TimelineOptions {
                    revision,
                    ..TimelineOptions::default()
                };
                if let Some(bytes) = v.input_bytes("commitment") {
                    match parse_commitment(&bytes) {
                        Ok(c) => options.commitment = Some(c),
                        Err(findings) => options.commitment_findings = findings,
                    }
                }
                let report = verify_timeline(timeline.as_slice(), &options)
                    .map_err(|e| format!("reading failed: {e}"))?;
                if revision == Revision::R06 && !report.historical {
                    return Err("a revision-06 result is not labelled historical".into());
                }
                let label = format!(" (under revision {})", revision.as_str());
                compare(v, report.verdict, &report.failures, &label)?;
            }
            Ok(())
        }
    }
}

fn input(v: &Vector, role: &str) -> Result<Vec<u8>, Failed> {
    v.input_bytes(role)
        .ok_or_else(|| format!("the vector has no readable {role} input").into())
}

fn compare(v: &Vector, verdict: Verdict, failures: &[Finding], label: &str) -> Result<(), Failed> {
    let reported: BTreeSet<&str> = failures.iter().map(|f| f.rule.id()).collect();
    let expected: BTreeSet<&str> = v.expected_rules.iter().map(String::as_str).collect();
    let detail = || {
        failures
            .iter()
            .map(|f| format!("\n    {f}"))
            .collect::<String>()
    };
    match (v.expectation, verdict) {
        (Expectation::Valid, Verdict::Valid) => Ok(()),
        (Expectation::Valid, Verdict::Invalid) => {
            Err(format!("expected valid, the reference rejected{label}:{}", detail()).into())
        }
        (Expectation::Invalid | Expectation::Acceptable, Verdict::Valid) => Err(format!(
            "expected a rejection citing {expected:?}, the reference accepted{label}"
        )
        .into()),
        (Expectation::Invalid | Expectation::Acceptable, Verdict::Invalid) => {
            if reported == expected {
                Ok(())
            } else {
                Err(format!(
                    "expected rules {expected:?}, the reference reported {reported:?}{label}:{}",
                    detail()
                )
                .into())
            }
        }
    }
}
