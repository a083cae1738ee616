//! The reference as a backend of the harness, called as a library: the same grading as every
//! other backend, with no spawns and no files for AER-1 cases. GRP receivers run on threads
//! over one SQLite store per scenario, so `restart` reopens the store and `concurrent` copies
//! race for real.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver as Channel, Sender};
use std::thread::JoinHandle;
use std::time::Instant;

use agentconf_contract::case::Case;
use agentconf_contract::decision::DecisionLine;
use agentconf_contract::result::Verdict;
use agentconf_contract::vector::{Suite, Vector};
use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::SqliteStore;
use agentconf_harness::grade::{grade_verdict, Failure, Grading};
use agentconf_harness::runner::VectorResult;
use agentconf_harness::scenario::{play, Graded, ReceiverLink, Receivers};
use agentconf_harness::session::Backend;
use agentconf_harness::status::Status;

use crate::dispatch::{answer, Answer};
use crate::vector_inputs::{call_of, VectorInputs};

/// The reference in process.
pub struct InProcess {
    pub grading: Grading,
}

impl Backend for InProcess {
    fn run(&mut self, c: &Case<'_>, work: &Path) -> VectorResult {
        run_reference(c, work, self.grading)
    }
}

/// Runs one case through the reference libraries and grades it.
pub fn run_reference(c: &Case<'_>, work: &Path, grading: Grading) -> VectorResult {
    let started = Instant::now();
    let v = c.vector;
    let (status, detail) = match v.suite {
        Suite::GrpAdmission => match scenario(v, c.revision, work, grading) {
            Ok(()) => (Status::Pass, "every decision as expected".to_string()),
            Err(failure) => failure,
        },
        _ => match one_shot(c).map(|a| a.result_object()) {
            Ok(Some(o)) => grade_verdict(c, o.verdict == Verdict::Valid, &o.rules, grading),
            Ok(None) => (Status::Unsupported, "exit 89".into()),
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

fn one_shot(c: &Case<'_>) -> Result<Answer, String> {
    let call = call_of(c).ok_or("the vector lacks an input its operation needs")?;
    answer(&call, &VectorInputs(c.vector))
}

/// Plays a GRP scenario against in-process receivers in a fresh directory under `work`.
fn scenario(v: &Vector, revision: &str, work: &Path, grading: Grading) -> Result<(), Failure> {
    let name: String =
        v.id.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
    let dir = work.join(format!("inprocess-{name}"));
    let mut receivers = ThreadReceivers::new(v, revision, &dir)?;
    let result = play(v, &mut receivers, &mut Graded(grading));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Receivers on threads, sharing one SQLite store in a fresh directory.
pub struct ThreadReceivers<'v> {
    vector: &'v Vector,
    revision: Revision,
    db: PathBuf,
}

impl<'v> ThreadReceivers<'v> {
    /// Receivers for `v` under `revision`, their store in `dir` (emptied first).
    pub fn new(v: &'v Vector, revision: &str, dir: &Path) -> Result<ThreadReceivers<'v>, Failure> {
        let crash = |e: String| (Status::Crash, e);
        let revision = Revision::parse(revision)
            .ok_or_else(|| (Status::Unsupported, format!("no GRP revision {revision}")))?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| crash(e.to_string()))?;
        Ok(ThreadReceivers {
            vector: v,
            revision,
            db: dir.join(crate::admit::STATE_FILE),
        })
    }
}

impl Receivers for ThreadReceivers<'_> {
    type Receiver = ThreadReceiver;

    fn start(&mut self, session: &str) -> Result<ThreadReceiver, Failure> {
        let crash = |e: String| (Status::Crash, e);
        let bytes = self
            .vector
            .input_file_bytes(session)
            .ok_or_else(|| crash(format!("no input {session}")))?;
        let ctx = SessionContext::from_json(&bytes).map_err(crash)?;
        let store = SqliteStore::open(&self.db).map_err(|e| crash(e.to_string()))?;
        let receiver = Receiver::new(ctx, self.revision, store);
        let (lines, inbox) = channel::<Vec<u8>>();
        let (outbox, decisions) = channel::<Result<DecisionLine, String>>();
        let thread = std::thread::spawn(move || {
            for line in inbox {
                let decided = receiver
                    .deliver(&line)
                    .map_err(|e| e.to_string())
                    .and_then(|d| {
                        let value = serde_json::to_value(&d).map_err(|e| e.to_string())?;
                        serde_json::from_value(value).map_err(|e| e.to_string())
                    });
                if outbox.send(decided).is_err() {
                    break;
                }
            }
        });
        Ok(ThreadReceiver {
            lines: Some(lines),
            decisions,
            thread: Some(thread),
        })
    }
}

/// One in-process receiver: a thread that delivers each line it is handed.
pub struct ThreadReceiver {
    lines: Option<Sender<Vec<u8>>>,
    decisions: Channel<Result<DecisionLine, String>>,
    thread: Option<JoinHandle<()>>,
}

impl ReceiverLink for ThreadReceiver {
    fn send(&mut self, line: &[u8]) -> Result<(), Failure> {
        self.lines
            .as_ref()
            .and_then(|l| l.send(line.to_vec()).ok())
            .ok_or_else(|| (Status::Crash, "the receiver thread ended".to_string()))
    }

    fn decision(&mut self) -> Result<DecisionLine, Failure> {
        match self.decisions.recv() {
            Ok(Ok(d)) => Ok(d),
            Ok(Err(e)) => Err((Status::Crash, e)),
            Err(_) => Err((Status::Crash, "a receiver thread panicked".to_string())),
        }
    }

    fn stop(mut self) -> Result<(), Failure> {
        drop(self.lines.take());
        match self.thread.take().map(JoinHandle::join) {
            Some(Err(_)) => Err((Status::Crash, "a receiver thread panicked".to_string())),
            _ => Ok(()),
        }
    }
}

impl Drop for ThreadReceiver {
    fn drop(&mut self) {
        drop(self.lines.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
