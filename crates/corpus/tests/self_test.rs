//! Every vector through the reference, one named trial per case (libtest-mimic; a case is a
//! vector under one revision, named by the vector id, or `<id>@<revision>` for a vector's further
//! revisions): the reference's verdict must match the case's expectation, and for a rejection the
//! set of rules it reports must equal the case's `expected_rules` — so each negative vector breaks
//! exactly the rules it claims. Expectations are written by hand in the generators; this is where the
//! reference and the corpus check each other.
//!
//! Filter like any test: `cargo test -p agentconf-corpus --test self_test -- aer1/timeline/reclosed`.

use std::collections::BTreeSet;

use agentconf_aer1::commitment::parse_commitment;
use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_corpus::model::{Case, Expectation, Flag, Suite, Vector};
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
    match v.suite {
        Suite::Aer1Receipt => {
            let name = v.options.tier.as_deref().unwrap_or("core");
            let tier = Tier::parse(name).ok_or_else(|| format!("unknown tier {name:?}"))?;
            let report = verify_receipt(&input(v, "receipt")?, tier);
            compare(case, report.verdict, &report.failures)
        }
        Suite::Aer1Workflow => {
            let report = verify_workflow(&input(v, "workflow")?);
            compare(case, report.verdict, &report.failures)
        }
        Suite::GrpAdmission => grp::run(v),
        Suite::Aer1Timeline => {
            let timeline = input(v, "timeline")?;
            let revision = Revision::parse(case.revision)
                .ok_or_else(|| format!("no construction for revision {}", case.revision))?;
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
            if report.historical != revision.is_historical() {
                return Err(format!(
                    "a revision-{} result is labelled historical: {}",
                    case.revision, report.historical
                )
                .into());
            }
            compare(case, report.verdict, &report.failures)
        }
    }
}

/// GRP scenarios, run through the reference receiver in-process on a SQLite store in a fresh
/// directory: `restart` reopens the store, `concurrent` opens one connection per copy on threads
/// released together, `session` starts a receiver for another session context on the same store.
mod grp {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Barrier};

    use agentconf_corpus::model::{ExpectedDecision, Step, Vector};
    use agentconf_grp::admission::{Decision, Outcome, Receiver, Revision};
    use agentconf_grp::session::SessionContext;
    use agentconf_grp::store::SqliteStore;
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
        let dir =
            std::env::temp_dir().join(format!("agentconf-selftest-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        Scratch(dir)
    }

    fn session(v: &Vector, file: &str) -> Result<SessionContext, Failed> {
        let bytes = v
            .input_file_bytes(file)
            .ok_or_else(|| format!("no readable input file {file}"))?;
        Ok(SessionContext::from_json(&bytes)?)
    }

    fn receiver(
        ctx: &SessionContext,
        revision: Revision,
        db: &Path,
    ) -> Result<Receiver<SqliteStore>, Failed> {
        let store = SqliteStore::open(db).map_err(|e| e.to_string())?;
        Ok(Receiver::new(ctx.clone(), revision, store))
    }

    pub fn run(v: &Vector) -> Result<(), Failed> {
        let scenario = v
            .scenario
            .as_ref()
            .ok_or("a grp-admission vector without a scenario")?;
        let events_text = v.input_bytes("events").ok_or("no events input")?;
        let events: Vec<&[u8]> = events_text.split(|b| *b == b'\n').collect();
        let first = v
            .inputs
            .iter()
            .find(|i| i.role == "session")
            .ok_or("no session input")?
            .file
            .clone();
        for rev in &v.revisions {
            let revision = Revision::parse(rev).ok_or_else(|| format!("revision {rev}?"))?;
            let dir = scratch(&format!("{}-{rev}", v.id));
            let db = dir.0.join("state.sqlite");
            let mut ctx = session(v, &first)?;
            let mut current = receiver(&ctx, revision, &db)?;
            for (index, step) in scenario.steps.iter().enumerate() {
                let expected = v.expected_decisions.iter().find(|e| e.step == index);
                let event = |n: usize| {
                    events
                        .get(n)
                        .copied()
                        .ok_or_else(|| format!("step {index}: no event line {n}"))
                };
                match step {
                    Step::Deliver { event: n } => {
                        let d = current.deliver(event(*n)?).map_err(|e| e.to_string())?;
                        let e = expected
                            .ok_or_else(|| format!("step {index}: no expected decision"))?;
                        compare(index, rev, &d, e)?;
                    }
                    Step::Restart => current = receiver(&ctx, revision, &db)?,
                    Step::Session { file } => {
                        ctx = session(v, file)?;
                        current = receiver(&ctx, revision, &db)?;
                    }
                    Step::Concurrent { event: n, copies } => {
                        let line = event(*n)?.to_vec();
                        let barrier = Arc::new(Barrier::new(*copies));
                        let handles: Vec<_> = (0..*copies)
                            .map(|_| {
                                let (ctx, db, line, barrier) =
                                    (ctx.clone(), db.clone(), line.clone(), barrier.clone());
                                std::thread::spawn(move || -> Result<Decision, String> {
                                    let store =
                                        SqliteStore::open(&db).map_err(|e| e.to_string())?;
                                    let r = Receiver::new(ctx, revision, store);
                                    barrier.wait();
                                    r.deliver(&line).map_err(|e| e.to_string())
                                })
                            })
                            .collect();
                        let mut admitted = 0;
                        for h in handles {
                            let d = h.join().map_err(|_| "a concurrent receiver panicked")??;
                            if d.outcome == Outcome::Admitted {
                                admitted += 1;
                            } else if d.rejection_reason != Some("duplicate_event_id") {
                                return Err(format!(
                                    "step {index}: a concurrent copy was rejected as {:?}",
                                    d.rejection_reason
                                )
                                .into());
                            }
                        }
                        let e = expected
                            .ok_or_else(|| format!("step {index}: no expected decision"))?;
                        let want = e
                            .admitted_copies
                            .ok_or_else(|| format!("step {index}: no admitted_copies"))?;
                        if admitted != want {
                            return Err(format!("step {index} (revision {rev}): {admitted} of {copies} concurrent copies admitted, expected {want}").into());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn compare(index: usize, rev: &str, d: &Decision, e: &ExpectedDecision) -> Result<(), Failed> {
        let outcome = match d.outcome {
            Outcome::Admitted => "admitted",
            Outcome::Rejected => "rejected",
        };
        let rule = d.rule.map(|r| r.id().to_string());
        let ok = outcome == e.outcome
            && (e.outcome == "admitted"
                || (d.rejection_reason.map(str::to_string) == e.rejection_reason
                    && rule == e.rule));
        if ok {
            Ok(())
        } else {
            Err(format!(
                "step {index} (revision {rev}): expected {} {:?} {:?}, the reference decided {outcome} {:?} {:?}: {}",
                e.outcome,
                e.rejection_reason,
                e.rule,
                d.rejection_reason,
                rule,
                d.message.clone().unwrap_or_default()
            )
            .into())
        }
    }
}

fn input(v: &Vector, role: &str) -> Result<Vec<u8>, Failed> {
    v.input_bytes(role)
        .ok_or_else(|| format!("the vector has no readable {role} input").into())
}

fn compare(case: &Case<'_>, verdict: Verdict, failures: &[Finding]) -> Result<(), Failed> {
    let reported: BTreeSet<&str> = failures.iter().map(|f| f.rule.id()).collect();
    // The reference reports every rule it can, so it must report the required rules and the ones
    // a rejection may also cite: the exact set, so each vector breaks exactly what it says.
    let expected: BTreeSet<&str> = case
        .expected_rules
        .iter()
        .chain(case.also_reported)
        .map(String::as_str)
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
