//! The reference as a backend of the harness, called as a library: the same grading as every
//! other backend, with no spawns and no files for AER-1 cases. GRP receivers share one SQLite
//! store per scenario, so `restart` reopens the store; they deliver on the caller's thread, except
//! the copies of a `concurrent` step, which get a thread each and race for real. The nodes of a
//! `cluster` step share that store too, each through a link the player can cut: a node cut off
//! answers `deferred`, as the reference does when its store cannot be reached.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver as Channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use agentconf_contract::case::Case;
use agentconf_contract::decision::{DecisionLine, DecisionOutcome, LineIdentity};
use agentconf_contract::result::Verdict;
use agentconf_contract::vector::{CrashPoint, Suite, Vector};
use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::BoxedStore;
use agentconf_harness::Backend;
use agentconf_harness::Status;
use agentconf_harness::{grade_verdict, Grade, Grading};
use agentconf_harness::{play, Graded, ReceiverLink, Receivers, StoreLink};
use agentconf_harness::{SuiteDetail, VectorResult};

use crate::dispatch::{answer, Answer};
use crate::emit::{emit_commitment, emit_receipt, emit_timeline};
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
    let Ran {
        grade,
        output,
        broken_rules,
        suite_detail,
    } = match v.suite {
        Suite::GrpAdmission => scenario(v, c.revision, work, grading),
        // The reference emits; the harness grades what it wrote, as any emitter's output.
        Suite::Aer1EmitTimeline => {
            let made = match v.input_bytes("steps") {
                Some(steps) => emit_timeline(&steps).map(Some),
                None => Err("the vector has no steps input".into()),
            };
            graded_artifact(c, made)
        }
        Suite::Aer1EmitCommitment => {
            let timeline = v.input_bytes("timeline").unwrap_or_default();
            let published_at = v.options.published_at.as_deref().unwrap_or_default();
            let made = emit_commitment(&timeline, published_at);
            graded_artifact(c, made)
        }
        Suite::Aer1EmitReceipt => {
            let payload = v.input_bytes("payload").unwrap_or_default();
            let meta = v.input_bytes("meta").unwrap_or_default();
            let made = emit_receipt(&payload, &meta);
            graded_artifact(c, made)
        }
        _ => Ran::graded(match one_shot(c).map(|a| a.result_object()) {
            Ok(Some(o)) => grade_verdict(c, o.verdict == Verdict::Valid, &o.rules, grading),
            Ok(None) => Grade::new(Status::Unsupported, "exit 89"),
            Err(detail) => Grade::new(Status::Crash, detail),
        }),
    };
    VectorResult {
        duration_ms: started.elapsed().as_millis() as u64,
        broken_rules,
        suite_detail,
        output,
        ..VectorResult::graded(&c.id, grade)
    }
}

/// What running one case gave, before it becomes a result: its grade and what some suites add.
struct Ran {
    grade: Grade,
    /// An emitter's artifact, kept for the matrix.
    output: Option<Vec<u8>>,
    /// The rules a wrong artifact broke.
    broken_rules: Vec<agentconf_rules::Rule>,
    suite_detail: SuiteDetail,
}

impl Ran {
    /// A grade and nothing more.
    fn graded(grade: Grade) -> Ran {
        Ran {
            grade,
            output: None,
            broken_rules: Vec::new(),
            suite_detail: SuiteDetail::None,
        }
    }
}

/// Grades what the reference made for an emitter case: an artifact (kept for the matrix), a
/// refusal (`None`), or an error (a crash: the vector's inputs are not what the operation takes).
fn graded_artifact(c: &Case<'_>, made: Result<Option<String>, String>) -> Ran {
    let (graded, output) = match made {
        Ok(Some(text)) => (
            agentconf_harness::emitted::grade_emitted(c, true, text.as_bytes()),
            Some(text.into_bytes()),
        ),
        Ok(None) => (
            agentconf_harness::emitted::grade_emitted(c, false, &[]),
            None,
        ),
        Err(e) => return Ran::graded(Grade::new(Status::Crash, e)),
    };
    Ran {
        grade: Grade::new(graded.status, graded.detail),
        output,
        broken_rules: graded.broken_rules,
        suite_detail: SuiteDetail::None,
    }
}

fn one_shot(c: &Case<'_>) -> Result<Answer, String> {
    let call = call_of(c).ok_or("the vector lacks an input its operation needs")?;
    answer(&call, &VectorInputs(c.vector))
}

/// Plays a GRP scenario against in-process receivers in a fresh directory under `work`: its
/// grade, and the history of its cluster steps.
fn scenario(v: &Vector, revision: &str, work: &Path, grading: Grading) -> Ran {
    let name: String =
        v.id.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
    // One directory per case: a vector runs once per revision, maybe on two workers at once.
    let dir = work.join(format!("inprocess-{name}-{revision}"));
    let mut receivers = match ThreadReceivers::new(v, revision, &dir) {
        Ok(receivers) => receivers,
        Err(grade) => return Ran::graded(grade),
    };
    let mut judge = Graded::new(v, grading);
    let played = play(v, &mut receivers, &mut judge);
    let (grade, suite_detail) = judge.finish(played);
    let _ = std::fs::remove_dir_all(&dir);
    Ran {
        suite_detail,
        ..Ran::graded(grade)
    }
}

/// In-process receivers sharing one SQLite store in a fresh directory.
pub struct ThreadReceivers<'v> {
    vector: &'v Vector,
    revision: Revision,
    /// Their `STATE_DIR`: emptied here, so the first receiver creates the store in it, as a
    /// receiver process does in the empty directory the harness gives it.
    dir: PathBuf,
    /// Each cluster node's link to the store, by node name.
    links: BTreeMap<String, NodeLink>,
}

/// A cluster node's link to the shared store: while it is cut the node cannot consult its
/// admission state.
#[derive(Clone, Default)]
pub struct NodeLink(Arc<AtomicBool>);

impl StoreLink for NodeLink {
    fn cut(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    fn heal(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl<'v> ThreadReceivers<'v> {
    /// Receivers for `v` under `revision`, their store in `dir` (emptied first).
    pub fn new(v: &'v Vector, revision: &str, dir: &Path) -> Result<ThreadReceivers<'v>, Grade> {
        let crash = |e: String| Grade::new(Status::Crash, e);
        let revision = Revision::parse(revision).ok_or_else(|| {
            Grade::new(Status::Unsupported, format!("no GRP revision {revision}"))
        })?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| crash(e.to_string()))?;
        Ok(ThreadReceivers {
            vector: v,
            revision,
            dir: dir.to_path_buf(),
            links: BTreeMap::new(),
        })
    }
}

impl ThreadReceivers<'_> {
    fn receiver(&self, session: &str) -> Result<Receiver<BoxedStore>, Grade> {
        let crash = |e: String| Grade::new(Status::Crash, e);
        let bytes = self
            .vector
            .input_file_bytes(session)
            .ok_or_else(|| crash(format!("no input {session}")))?;
        let ctx = SessionContext::from_json(&bytes).map_err(crash)?;
        let store = crate::admit::open_state(&self.dir).map_err(|e| crash(e.to_string()))?;
        Ok(Receiver::new(ctx, self.revision, store))
    }
}

impl Receivers for ThreadReceivers<'_> {
    type Receiver = ThreadReceiver;

    /// A receiver delivering on the caller's thread: a scenario's steps are sequential, and a
    /// thread hop per event doubled the time of the 2,000-event vectors.
    fn start(&mut self, session: &str) -> Result<ThreadReceiver, Grade> {
        Ok(ThreadReceiver::Direct {
            receiver: Box::new(self.receiver(session)?),
            pending: Vec::new(),
            link: None,
        })
    }

    /// A node on the caller's thread, on the one store, through the node's link.
    fn start_node(&mut self, session: &str, node: &str) -> Result<ThreadReceiver, Grade> {
        let link = self.links.entry(node.to_string()).or_default().clone();
        Ok(ThreadReceiver::Direct {
            receiver: Box::new(self.receiver(session)?),
            pending: Vec::new(),
            link: Some(link),
        })
    }

    fn store_link(&mut self, node: &str) -> Option<&dyn StoreLink> {
        self.links.get(node).map(|l| l as &dyn StoreLink)
    }

    /// Copies of a `concurrent` step each on their own thread, so they race for the store.
    fn start_concurrent(
        &mut self,
        session: &str,
        copies: usize,
    ) -> Result<Vec<ThreadReceiver>, Grade> {
        (0..copies)
            .map(|_| Ok(ThreadReceiver::threaded(self.receiver(session)?)))
            .collect()
    }
}

/// One in-process receiver: on the caller's thread, or on a thread of its own.
pub enum ThreadReceiver {
    /// Lines are delivered when their decision is asked for.
    Direct {
        /// Boxed: a receiver (its store, session and decoded keys) is several times the size of
        /// the threaded variant.
        receiver: Box<Receiver<BoxedStore>>,
        pending: Vec<Vec<u8>>,
        /// A cluster node's link to the store.
        link: Option<NodeLink>,
    },
    /// A thread that delivers each line as soon as it is handed over.
    Threaded {
        lines: Option<Sender<Vec<u8>>>,
        decisions: Channel<Result<DecisionLine, String>>,
        thread: Option<JoinHandle<()>>,
    },
}

/// The decision line the reference's decision is, as a receiver process would have written it.
fn decided(receiver: &Receiver<BoxedStore>, line: &[u8]) -> Result<DecisionLine, String> {
    let d = receiver.deliver(line).map_err(|e| e.to_string())?;
    let value = serde_json::to_value(&d).map_err(|e| e.to_string())?;
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// "Cannot decide now" for `line`: its store is out of reach.
fn deferred(line: &[u8]) -> DecisionLine {
    let id = LineIdentity::of(line);
    DecisionLine {
        event_id: id.event_id.flatten(),
        publisher_id: id.publisher_id.flatten(),
        outcome: DecisionOutcome::Deferred,
        ale: None,
        rejection_reason: None,
        rule: None,
        member: None,
        message: Some("the admission store cannot be reached".into()),
    }
}

impl ThreadReceiver {
    fn threaded(receiver: Receiver<BoxedStore>) -> ThreadReceiver {
        let (lines, inbox) = channel::<Vec<u8>>();
        let (outbox, decisions) = channel::<Result<DecisionLine, String>>();
        let thread = std::thread::spawn(move || {
            for line in inbox {
                if outbox.send(decided(&receiver, &line)).is_err() {
                    break;
                }
            }
        });
        ThreadReceiver::Threaded {
            lines: Some(lines),
            decisions,
            thread: Some(thread),
        }
    }
}

impl ReceiverLink for ThreadReceiver {
    fn send(&mut self, line: &[u8]) -> Result<(), Grade> {
        match self {
            ThreadReceiver::Direct { pending, .. } => {
                pending.push(line.to_vec());
                Ok(())
            }
            ThreadReceiver::Threaded { lines, .. } => lines
                .as_ref()
                .and_then(|l| l.send(line.to_vec()).ok())
                .ok_or_else(|| Grade::new(Status::Crash, "the receiver thread ended")),
        }
    }

    fn decision(&mut self) -> Result<DecisionLine, Grade> {
        match self {
            ThreadReceiver::Direct {
                receiver,
                pending,
                link,
            } => {
                if pending.is_empty() {
                    return Err(Grade::new(Status::Crash, "no event line was handed over"));
                }
                let line = pending.remove(0);
                if link.as_ref().is_some_and(|l| l.0.load(Ordering::SeqCst)) {
                    return Ok(deferred(&line));
                }
                decided(receiver, &line).map_err(|e| Grade::new(Status::Crash, e))
            }
            ThreadReceiver::Threaded { decisions, .. } => match decisions.recv() {
                Ok(Ok(d)) => Ok(d),
                Ok(Err(e)) => Err(Grade::new(Status::Crash, e)),
                Err(_) => Err(Grade::new(Status::Crash, "a receiver thread panicked")),
            },
        }
    }

    fn crash(mut self, _at: CrashPoint) -> Result<(), Grade> {
        self.abandon();
        Ok(())
    }

    fn stop(mut self) -> Result<(), Grade> {
        match &mut self {
            ThreadReceiver::Direct { .. } => Ok(()),
            ThreadReceiver::Threaded { lines, thread, .. } => {
                drop(lines.take());
                match thread.take().map(JoinHandle::join) {
                    Some(Err(_)) => Err(Grade::new(Status::Crash, "a receiver thread panicked")),
                    _ => Ok(()),
                }
            }
        }
    }
}

impl ThreadReceiver {
    /// The in-process stand-in for a kill: the lines handed over are processed (their admissions
    /// committed) and their decisions dropped unread; nothing else is done at the end. (A thread
    /// cannot be killed; the process receivers are, with SIGKILL.)
    fn abandon(&mut self) {
        match self {
            ThreadReceiver::Direct {
                receiver, pending, ..
            } => {
                for line in pending.drain(..) {
                    let _ = receiver.deliver(&line);
                }
            }
            ThreadReceiver::Threaded { lines, thread, .. } => {
                drop(lines.take());
                if let Some(t) = thread.take() {
                    let _ = t.join();
                }
            }
        }
    }
}

impl Drop for ThreadReceiver {
    fn drop(&mut self) {
        if let ThreadReceiver::Threaded { lines, thread, .. } = self {
            drop(lines.take());
            if let Some(t) = thread.take() {
                let _ = t.join();
            }
        }
    }
}
