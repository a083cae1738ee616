//! Every vector through the reference, one named trial per case (libtest-mimic; a case is a
//! vector under one revision, named by the vector id, or `<id>@<revision>` for a vector's further
//! revisions): the reference's verdict must match the case's expectation, and for a rejection the
//! set of rules it reports must equal the case's `expected_rules` — so each negative vector breaks
//! exactly the rules it claims. Expectations are written by hand in the generators; this is where the
//! reference and the corpus check each other.
//!
//! Filter like any test: `cargo test -p agentconf-corpus --test self_test -- aer1/timeline/reclosed`.

use std::collections::BTreeSet;

use agentconf_aer1::{Finding, Verdict};
use agentconf_contract::case::Case;
use agentconf_contract::vector::{Expectation, Flag, Suite};
use agentconf_reference::dispatch::{answer, Answer};
use agentconf_reference::vector_inputs::{call_of, VectorInputs};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let corpus = std::sync::Arc::new(agentconf_corpus::corpus());
    let mut trials = Vec::new();
    for (n, v) in corpus.iter().enumerate() {
        for (k, case) in v.cases().iter().enumerate() {
            let corpus = corpus.clone();
            trials.push(Trial::test(case.id.clone(), move || {
                check(&corpus[n].cases()[k])
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn check(case: &Case<'_>) -> Result<(), Failed> {
    let v = case.vector;
    if v.suite == Suite::GrpAdmission {
        return grp::run(v, case.revision, case.expectation);
    }
    if v.suite == Suite::Aer1EmitTimeline {
        return emit(case);
    }
    if v.suite == Suite::Aer1EmitCommitment {
        return emit_commitment(case);
    }
    if v.suite == Suite::Aer1EmitReceipt {
        return emit_receipt(case);
    }
    // The same dispatch as `agentconf impl` and the in-process backend.
    let call = call_of(case).ok_or("the vector lacks an input its operation needs")?;
    let judged = match answer(&call, &VectorInputs(v))? {
        Answer::Judged(j) => j,
        Answer::Unsupported => {
            return Err(format!("the reference does not support {:?}", call.argv()).into())
        }
    };
    if v.suite == Suite::Aer1Timeline && judged.historical != (case.revision == "06") {
        return Err(format!(
            "a revision-{} result is labelled historical: {}",
            case.revision, judged.historical
        )
        .into());
    }
    compare(case, judged.verdict, &judged.failures)
}

/// An emitter vector: the reference emitter's timeline of the steps, graded by the harness's own
/// construction (which also checks the vector's expected final digest), and verified by the
/// reference verifier — three writings of the draft's construction that must agree.
fn emit(case: &Case<'_>) -> Result<(), Failed> {
    let steps = case.vector.input_bytes("steps").ok_or("no steps input")?;
    let text = agentconf_reference::emit::emit_timeline(&steps)?;
    let graded = agentconf_harness::emitted::grade_emitted(case, true, text.as_bytes());
    if graded.status != agentconf_harness::Status::Pass {
        return Err(format!("{}: {}", graded.status.name(), graded.detail).into());
    }
    let options = agentconf_aer1::timeline::TimelineOptions::default();
    let r = agentconf_aer1::timeline::verify_timeline(text.as_bytes(), &options)
        .map_err(|e| e.to_string())?;
    if r.verdict != Verdict::Valid {
        return Err(format!("the reference verifier rejects it: {:?}", r.failures).into());
    }
    Ok(())
}

/// A commitment emitter vector: the reference's commitment of the timeline, graded by the
/// harness's own construction (which also checks the vector's expected final digest).
fn emit_commitment(case: &Case<'_>) -> Result<(), Failed> {
    let v = case.vector;
    let timeline = v.input_bytes("timeline").ok_or("no timeline input")?;
    let published_at = v.options.published_at.as_deref().ok_or("no published_at")?;
    let made = agentconf_reference::emit::emit_commitment(&timeline, published_at)?;
    let graded = match &made {
        Some(text) => agentconf_harness::emitted::grade_emitted(case, true, text.as_bytes()),
        None => agentconf_harness::emitted::grade_emitted(case, false, &[]),
    };
    if graded.status != agentconf_harness::Status::Pass {
        return Err(format!("{}: {}", graded.status.name(), graded.detail).into());
    }
    Ok(())
}

/// A receipt emitter vector: the reference's receipt of the payload, graded by the harness's own
/// reading (bytes, hash, members), and accepted by the reference receipt verifier (core tier),
/// or refused when the payload is not UTF-8.
fn emit_receipt(case: &Case<'_>) -> Result<(), Failed> {
    let v = case.vector;
    let payload = v.input_bytes("payload").ok_or("no payload input")?;
    let meta = v.input_bytes("meta").ok_or("no meta input")?;
    let made = agentconf_reference::emit::emit_receipt(&payload, &meta)?;
    let graded = match &made {
        Some(text) => agentconf_harness::emitted::grade_emitted(case, true, text.as_bytes()),
        None => agentconf_harness::emitted::grade_emitted(case, false, &[]),
    };
    if graded.status != agentconf_harness::Status::Pass {
        return Err(format!("{}: {}", graded.status.name(), graded.detail).into());
    }
    if let Some(text) = made {
        let r = agentconf_aer1::receipt::verify_receipt(
            text.as_bytes(),
            agentconf_aer1::receipt::Tier::Core,
        );
        if r.verdict != Verdict::Valid {
            return Err(format!("the reference verifier rejects it: {:?}", r.failures).into());
        }
    }
    Ok(())
}

/// GRP scenarios, played by the harness's one player against the reference's in-process
/// receivers (threads over a SQLite store in a fresh directory), one case per revision the
/// vector lists, each decision compared exactly: outcome, reason and rule. In an `acceptable`
/// case an expected rejection may also be met by an admission (the draft leaves the input open
/// and the reference may take the admitting reading), but a rejection must still be exactly the
/// expected one.
mod grp {
    use std::path::PathBuf;

    use agentconf_contract::decision::{DecisionLine, Outcome};
    use agentconf_contract::vector::{Expectation, ExpectedDecision, Vector};
    use agentconf_harness::Grade;
    use agentconf_harness::Status;
    use agentconf_harness::{play, Judge};
    use agentconf_reference::inprocess::ThreadReceivers;
    use libtest_mimic::Failed;

    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(id: &str) -> Scratch {
        let name: String = id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        Scratch(
            std::env::temp_dir().join(format!("agentconf-selftest-{}-{name}", std::process::id())),
        )
    }

    /// Exact comparison of every decision with its expectation.
    struct Exact<'a> {
        revision: &'a str,
        /// The case is `acceptable`: an expected rejection may be an admission instead.
        acceptable: bool,
    }

    impl Judge for Exact<'_> {
        fn decision(
            &mut self,
            index: usize,
            d: &DecisionLine,
            e: Option<&ExpectedDecision>,
        ) -> Result<(), Grade> {
            let rev = self.revision;
            let e = e.ok_or_else(|| fail(format!("step {index}: no expected decision")))?;
            let rule = e.rule.map(|r| r.id().to_string());
            let exact = d.outcome == e.outcome
                && (e.outcome == Outcome::Admitted
                    || (d.rejection_reason == e.rejection_reason && d.rule == rule));
            // Only the admission is let through: a rejection is exact in every case.
            let admitted_instead =
                self.acceptable && e.outcome == Outcome::Rejected && d.outcome == Outcome::Admitted;
            let ok = exact || admitted_instead;
            if ok {
                Ok(())
            } else {
                Err(fail(format!(
                    "step {index} (revision {rev}): expected {} {:?} {:?}, the reference decided {} {:?} {:?}: {}",
                    e.outcome.as_str(),
                    e.rejection_reason,
                    rule,
                    d.outcome.as_str(),
                    d.rejection_reason,
                    d.rule,
                    d.message.clone().unwrap_or_default()
                )))
            }
        }

        /// A concurrent copy is admitted, or rejected as a duplicate: nothing else.
        fn copy(&mut self, index: usize, d: &DecisionLine) -> Result<(), Grade> {
            if d.outcome == Outcome::Rejected
                && d.rejection_reason.as_deref() != Some("duplicate_event_id")
            {
                return Err(fail(format!(
                    "step {index}: a concurrent copy was rejected as {:?}",
                    d.rejection_reason
                )));
            }
            Ok(())
        }
    }

    fn fail(message: String) -> Grade {
        Grade::new(Status::WrongReason, message)
    }

    /// Plays `v` under `rev`: a vector is a case per revision it lists, each its own trial.
    pub fn run(v: &Vector, rev: &str, expectation: Expectation) -> Result<(), Failed> {
        let dir = scratch(&format!("{}-{rev}", v.id));
        let mut receivers = ThreadReceivers::new(v, rev, &dir.0)
            .map_err(|g| format!("revision {rev}: {}", g.detail))?;
        let mut judge = Exact {
            revision: rev,
            acceptable: expectation == Expectation::Acceptable,
        };
        play(v, &mut receivers, &mut judge)
            .map_err(|g| format!("revision {rev}: {} {}", g.status.name(), g.detail))?;
        Ok(())
    }
}

fn compare(case: &Case<'_>, verdict: Verdict, failures: &[Finding]) -> Result<(), Failed> {
    let reported: BTreeSet<&str> = failures.iter().map(|f| f.rule.id()).collect();
    // The reference reports every rule it can, so it must report the required rules and the ones
    // a rejection may also cite: the exact set, so each vector breaks exactly what it says.
    let expected: BTreeSet<&str> = case
        .expected_rules
        .iter()
        .chain(case.also_reported)
        .map(|r| r.id())
        .collect();
    let label = format!(" (under revision {})", case.revision);
    let detail = || {
        failures
            .iter()
            .map(|f| format!("\n    {f}"))
            .collect::<String>()
    };
    // The reference fails closed on every rule it knows, so it rejects `acceptable` vectors;
    // except where only a later revision rejects: it follows the revisions the vector targets.
    let follows_targeted = case.flags.contains(&Flag::LaterRevision);
    match (case.expectation, verdict) {
        (Expectation::Valid, Verdict::Valid) => Ok(()),
        (Expectation::Acceptable, Verdict::Valid) if follows_targeted => Ok(()),
        (Expectation::Acceptable, Verdict::Invalid) if follows_targeted => Err(format!(
            "only a later revision rejects this input; the reference, which follows the targeted \
             revisions, rejected{label}:{}",
            detail()
        )
        .into()),
        (Expectation::Valid, Verdict::Invalid) => {
            Err(format!("expected valid, the reference rejected{label}:{}", detail()).into())
        }
        // The reference fails closed: it rejects acceptable vectors too, on their rules.
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
