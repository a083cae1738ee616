//! The reference run in process: the same grading as the process runner, with the reference
//! libraries called directly instead of `agentconf impl` (no spawns, no files for AER-1 vectors).
//! `agentconf run` uses it for `--implementation reference`; the contract plumbing itself is
//! exercised by running `agentconf impl` through the process runner (tests).

use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use agentconf_aer1::commitment::parse_commitment;
use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_corpus::model::{Case, Step, Suite, Vector};
use agentconf_grp::admission::{Outcome, Receiver, Revision as GrpRevision};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::SqliteStore;

use crate::runner::{grade_decision, grade_verdict, Grading, Status, VectorResult};

/// Runs one case through the reference libraries and grades it.
pub fn run_reference(c: &Case<'_>, work: &Path, grading: Grading) -> VectorResult {
    let started = Instant::now();
    let v = c.vector;
    let (status, detail) = match v.suite {
        Suite::GrpAdmission => match scenario(v, c.revision, work, grading) {
            Ok(()) => (Status::Pass, "every decision as expected".to_string()),
            Err((s, d)) => (s, d),
        },
        _ => match one_shot(v, c.revision) {
            Ok((verdict, findings)) => {
                let mut rules: Vec<String> = Vec::new();
                for f in &findings {
                    if !rules.iter().any(|r| r == f.rule.id()) {
                        rules.push(f.rule.id().to_string());
                    }
                }
                grade_verdict(c, verdict == Verdict::Valid, &rules, grading)
            }
            Err(detail) => (Status::Crash, detail),
        },
    };
    VectorResult {
        id: c.id.clone(),
        status,
        detail,
        stderr: String::new(),
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

fn input(v: &Vector, role: &str) -> Result<Vec<u8>, String> {
    v.input_bytes(role)
        .ok_or_else(|| format!("no {role} input"))
}

fn one_shot(v: &Vector, revision: &str) -> Result<(Verdict, Vec<Finding>), String> {
    Ok(match v.suite {
        Suite::Aer1Receipt => {
            let name = v.options.tier.as_deref().unwrap_or("core");
            let tier = Tier::parse(name).ok_or_else(|| format!("unknown receipt tier {name:?}"))?;
            let r = verify_receipt(&input(v, "receipt")?, tier);
            (r.verdict, r.failures)
        }
        Suite::Aer1Workflow => {
            let r = verify_workflow(&input(v, "workflow")?);
            (r.verdict, r.failures)
        }
        Suite::Aer1Timeline => {
            // 07 and 08 share the 09 construction.
            let revision = match revision {
                "06" => Revision::R06,
                _ => Revision::R09,
            };
            let mut options = TimelineOptions {
                revision,
                ..TimelineOptions::default()
            };
            if let Some(bytes) = v.input_bytes("commitment") {
                match parse_commitment(&bytes) {
                    Ok(c) => options.commitment = Some(c),
                    Err(f) => options.commitment_findings = f,
                }
            }
            let r = verify_timeline(input(v, "timeline")?.as_slice(), &options)
                .map_err(|e| e.to_string())?;
            (r.verdict, r.failures)
        }
        Suite::GrpAdmission => return Err("not a one-shot vector".into()),
    })
}

type Failure = (Status, String);

fn scenario(v: &Vector, revision: &str, work: &Path, grading: Grading) -> Result<(), Failure> {
    let crash = |e: String| (Status::Crash, e);
    let steps = &v
        .scenario
        .as_ref()
        .ok_or((Status::Crash, "no scenario".to_string()))?
        .steps;
    let events_text = input(v, "events").map_err(crash)?;
    let events: Vec<&[u8]> = events_text.split(|b| *b == b'\n').collect();
    let revision = GrpRevision::parse(revision)
        .ok_or((Status::Crash, format!("no GRP revision {revision}")))?;
    let session_of = |file: &str| -> Result<SessionContext, Failure> {
        let bytes = v
            .input_file_bytes(file)
            .ok_or((Status::Crash, format!("no input {file}")))?;
        SessionContext::from_json(&bytes).map_err(crash)
    };
    let first = v
        .inputs
        .iter()
        .find(|i| i.role == "session")
        .map(|i| i.file.clone())
        .unwrap_or_default();
    let name: String =
        v.id.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
    let dir = work.join(format!("inprocess-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| crash(e.to_string()))?;
    let db = dir.join("admitted.sqlite");
    let open = |ctx: &SessionContext| -> Result<Receiver<SqliteStore>, Failure> {
        let store = SqliteStore::open(&db).map_err(|e| crash(e.to_string()))?;
        Ok(Receiver::new(ctx.clone(), revision, store))
    };
    let mut ctx = session_of(&first)?;
    let mut receiver = open(&ctx)?;
    let result = (|| {
        for (index, step) in steps.iter().enumerate() {
            let expected = v.expected_decisions.iter().find(|e| e.step == index);
            let line = |n: usize| {
                events
                    .get(n)
                    .copied()
                    .ok_or((Status::Crash, format!("no event {n}")))
            };
            match step {
                Step::Deliver { event } => {
                    let d = receiver
                        .deliver(line(*event)?)
                        .map_err(|e| crash(e.to_string()))?;
                    if let Some(e) = expected {
                        let value = serde_json::to_value(&d).map_err(|e| crash(e.to_string()))?;
                        grade_decision(index, &value, e, grading)?;
                    }
                }
                Step::Restart => receiver = open(&ctx)?,
                Step::Session { file } => {
                    ctx = session_of(file)?;
                    receiver = open(&ctx)?;
                }
                Step::Concurrent { event, copies } => {
                    let bytes = line(*event)?.to_vec();
                    let barrier = Arc::new(Barrier::new(*copies));
                    let handles: Vec<_> = (0..*copies)
                        .map(|_| {
                            let (ctx, db, bytes, barrier) =
                                (ctx.clone(), db.clone(), bytes.clone(), barrier.clone());
                            std::thread::spawn(move || -> Result<bool, String> {
                                let store = SqliteStore::open(&db).map_err(|e| e.to_string())?;
                                let r = Receiver::new(ctx, revision, store);
                                barrier.wait();
                                Ok(r.deliver(&bytes).map_err(|e| e.to_string())?.outcome
                                    == Outcome::Admitted)
                            })
                        })
                        .collect();
                    let mut admitted = 0;
                    for h in handles {
                        let ok = h
                            .join()
                            .map_err(|_| crash("a receiver thread panicked".into()))?
                            .map_err(crash)?;
                        admitted += usize::from(ok);
                    }
                    let want = expected.and_then(|e| e.admitted_copies).unwrap_or(1);
                    if admitted != want {
                        let status = if admitted > want {
                            Status::FalseAccept
                        } else {
                            Status::FalseReject
                        };
                        return Err((status, format!("step {index}: {admitted} of {copies} copies admitted, expected {want}")));
                    }
                }
            }
        }
        Ok(())
    })();
    drop(receiver);
    let _ = std::fs::remove_dir_all(&dir);
    result
}
