//! GRP admission scenarios: the one player of a vector's steps (deliver, restart, concurrent
//! copies, session switch), generic over how receivers are reached — real processes through the
//! contract ([`ProcessReceivers`]) or the reference in process (`agentconf-reference`) — and over
//! who judges each decision ([`Judge`]: the harness's grading, or the corpus self-test's exact
//! comparison).
//!
//! Adding a step kind is a change to [`agentconf_contract::vector::Step`] and to [`play`] alone;
//! receivers only start, take lines, give decisions and stop.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use agentconf_contract::call::Call;
use agentconf_contract::decision::{DecisionLine, Outcome};
use agentconf_contract::exit::EXIT_UNSUPPORTED;
use agentconf_contract::vector::{ExpectedDecision, Step, Vector};

use crate::child::{describe_status, excerpt, LineFailure, LongLived};
use crate::grade::{grade_decision, Failure, Grading};
use crate::status::Status;

/// The longest decision line read from a receiver (a decision is a few hundred bytes).
pub const MAX_DECISION_LINE_BYTES: usize = 1 << 20;

/// How the player reaches receivers: each starts on the scenario's shared state.
pub trait Receivers {
    type Receiver: ReceiverLink;
    /// Starts a receiver for the session context in input file `session`.
    fn start(&mut self, session: &str) -> Result<Self::Receiver, Failure>;

    /// Starts `copies` receivers that will be handed the same line at once (a `concurrent`
    /// step): they must run in parallel, so the copies race. Processes always do; an in-process
    /// host starts threads here and may deliver on the caller's thread otherwise.
    fn start_concurrent(
        &mut self,
        session: &str,
        copies: usize,
    ) -> Result<Vec<Self::Receiver>, Failure> {
        (0..copies).map(|_| self.start(session)).collect()
    }
}

/// One running receiver.
pub trait ReceiverLink {
    /// Hands it one event line.
    fn send(&mut self, line: &[u8]) -> Result<(), Failure>;
    /// Its decision for the next line it was handed.
    fn decision(&mut self) -> Result<DecisionLine, Failure>;
    /// Ends it cleanly: the end of its input, and a clean exit.
    fn stop(self) -> Result<(), Failure>;
}

/// Who judges each decision.
pub trait Judge {
    /// The decision of a `deliver` step, with the step's expectation (if it has one).
    fn decision(
        &mut self,
        step: usize,
        got: &DecisionLine,
        want: Option<&ExpectedDecision>,
    ) -> Result<(), Failure>;

    /// One copy's decision in a `concurrent` step (the count is judged by the player).
    fn copy(&mut self, _step: usize, _got: &DecisionLine) -> Result<(), Failure> {
        Ok(())
    }
}

/// The harness's grading of decisions: strict or loose, as [`grade_decision`] says.
pub struct Graded(pub Grading);

impl Judge for Graded {
    fn decision(
        &mut self,
        step: usize,
        got: &DecisionLine,
        want: Option<&ExpectedDecision>,
    ) -> Result<(), Failure> {
        match want {
            Some(e) => grade_decision(step, got, e, self.0),
            None => Ok(()),
        }
    }
}

/// Plays the vector's scenario against `receivers`; `Ok` when every decision was as judged.
pub fn play<R: Receivers>(
    v: &Vector,
    receivers: &mut R,
    judge: &mut dyn Judge,
) -> Result<(), Failure> {
    let crash = |e: String| (Status::Crash, e);
    let steps = &v
        .scenario
        .as_ref()
        .ok_or_else(|| crash("no scenario".into()))?
        .steps;
    let events_text = v
        .input_bytes("events")
        .ok_or_else(|| crash("no events input".into()))?;
    let events: Vec<&[u8]> = events_text.split(|b| *b == b'\n').collect();
    let mut session = v
        .inputs
        .iter()
        .find(|i| i.role == "session")
        .ok_or_else(|| crash("no session".into()))?
        .file
        .clone();
    let mut current = Some(receivers.start(&session)?);
    for (index, step) in steps.iter().enumerate() {
        let expected = v.expected_decisions.iter().find(|e| e.step == index);
        let line = |n: usize| {
            events
                .get(n)
                .copied()
                .ok_or_else(|| crash(format!("no event {n}")))
        };
        match step {
            Step::Deliver { event } => {
                let r = current
                    .as_mut()
                    .ok_or_else(|| crash("no receiver".into()))?;
                r.send(line(*event)?)?;
                let d = r.decision()?;
                judge.decision(index, &d, expected)?;
            }
            Step::Restart | Step::Session { .. } => {
                if let Some(r) = current.take() {
                    r.stop()?;
                }
                if let Step::Session { file } = step {
                    session = file.clone();
                }
                current = Some(receivers.start(&session)?);
            }
            Step::Concurrent { event, copies } => {
                if let Some(r) = current.take() {
                    r.stop()?;
                }
                let mut all = receivers.start_concurrent(&session, *copies)?;
                let bytes = line(*event)?;
                for r in &mut all {
                    r.send(bytes)?;
                }
                let mut admitted = 0;
                for r in &mut all {
                    let d = r.decision()?;
                    judge.copy(index, &d)?;
                    if d.outcome == Outcome::Admitted {
                        admitted += 1;
                    }
                }
                for r in all {
                    r.stop()?;
                }
                let want = expected.and_then(|e| e.admitted_copies).unwrap_or(1);
                if admitted != want {
                    let status = if admitted > want {
                        Status::FalseAccept
                    } else {
                        Status::FalseReject
                    };
                    return Err((
                        status,
                        format!(
                            "step {index}: {admitted} of {copies} concurrent copies admitted, expected {want}"
                        ),
                    ));
                }
                current = Some(receivers.start(&session)?);
            }
        }
    }
    if let Some(r) = current.take() {
        r.stop()?;
    }
    Ok(())
}

/// Receivers as processes: `IMPL grp-admit REVISION SESSION STATE_DIR`, the inputs in `dir`,
/// the state in `dir/state`. One deadline holds for the whole scenario: every write, decision and
/// exit of every receiver must come before it, however many steps there are.
pub struct ProcessReceivers<'a> {
    pub argv: &'a [String],
    pub revision: &'a str,
    /// Where the vector's inputs were written.
    pub dir: &'a Path,
    pub state: PathBuf,
    /// When the scenario's time is up.
    pub deadline: Instant,
    /// The time the scenario was given (`deadline` minus its start), for messages.
    pub timeout: Duration,
    pub capture_limit: usize,
    /// Set when a receiver exited while descendants held its output (they were killed with its
    /// process group): the scenario's detail says so.
    pub left_descendants: Rc<Cell<bool>>,
}

impl Receivers for ProcessReceivers<'_> {
    type Receiver = ProcessReceiver;

    fn start(&mut self, session: &str) -> Result<ProcessReceiver, Failure> {
        let call = Call::GrpAdmit {
            revision: self.revision.to_string(),
            session: self.dir.join(session).display().to_string(),
            state_dir: self.state.display().to_string(),
        };
        let mut argv = self.argv.to_vec();
        argv.extend(call.argv());
        let child = LongLived::spawn(&argv, MAX_DECISION_LINE_BYTES, self.capture_limit)
            .map_err(|e| (Status::Crash, format!("cannot start the receiver: {e}")))?;
        Ok(ProcessReceiver {
            child,
            deadline: self.deadline,
            timeout: self.timeout,
            left_descendants: Rc::clone(&self.left_descendants),
        })
    }
}

/// A receiver process: events to its stdin, decisions from its stdout, line by line.
pub struct ProcessReceiver {
    child: LongLived,
    deadline: Instant,
    timeout: Duration,
    left_descendants: Rc<Cell<bool>>,
}

impl ProcessReceiver {
    fn out_of_time(&self, what: &str) -> Failure {
        (
            Status::Timeout,
            format!(
                "{what} within the {} the whole scenario may take",
                seconds(self.timeout)
            ),
        )
    }

    /// The verdict on a receiver that stopped taking lines or giving decisions: how it exited,
    /// waited for until the scenario's deadline. Exit 89 is how a receiver says its revision is
    /// unsupported (CONTRACT.md 3.2: at once, before any line), so it may come before the first
    /// line is even written; any other end is a crash.
    fn ended(&mut self, what: &str) -> Failure {
        match self.child.wait_exit(self.deadline) {
            Some(s) if s.code() == Some(i32::from(EXIT_UNSUPPORTED)) => (
                Status::Unsupported,
                "grp-admit exited 89: the revision is unsupported".into(),
            ),
            Some(s) => (
                Status::Crash,
                format!(
                    "the receiver {what}: it ended with {}{}",
                    describe_status(s),
                    stderr_note(&self.child.take_stderr())
                ),
            ),
            None => self.out_of_time(&format!("the receiver {what}, and did not exit")),
        }
    }
}

impl ReceiverLink for ProcessReceiver {
    fn send(&mut self, line: &[u8]) -> Result<(), Failure> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        match self.child.send(&bytes, self.deadline) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                Err(self.out_of_time("the receiver did not read its event line"))
            }
            // Its input is closed: it exited (or closed it) before taking the line.
            Err(e) => Err(self.ended(&format!("did not take an event line ({e})"))),
        }
    }

    fn decision(&mut self) -> Result<DecisionLine, Failure> {
        let line = match self.child.read_line(self.deadline) {
            Ok(line) => line,
            Err(LineFailure::TooLong) => {
                return Err((
                    Status::ProtocolError,
                    format!("a decision line is longer than {MAX_DECISION_LINE_BYTES} bytes"),
                ))
            }
            Err(LineFailure::Timeout) => return Err(self.out_of_time("no decision came")),
            // Its output ended: it exited (89 = unsupported) or died.
            Err(LineFailure::Eof | LineFailure::Io(_)) => {
                return Err(self.ended("ended its output without a decision"))
            }
        };
        let text = String::from_utf8(line).map_err(|_| {
            (
                Status::ProtocolError,
                "a decision line is not UTF-8".to_string(),
            )
        })?;
        DecisionLine::parse(&text).map_err(|e| (Status::ProtocolError, e.to_string()))
    }

    fn stop(mut self) -> Result<(), Failure> {
        self.child.close_stdin();
        match self.child.wait_exit(self.deadline) {
            Some(s) if s.code() == Some(0) => Ok(()),
            Some(_) => Err(self.ended("did not exit 0 after its input ended")),
            None => Err(self.out_of_time("the receiver did not exit after its input ended")),
        }
    }
}

impl Drop for ProcessReceiver {
    fn drop(&mut self) {
        // Notices an exit not yet seen (and kills the group either way).
        self.child.kill();
        if self.child.left_descendants() {
            self.left_descendants.set(true);
        }
    }
}

/// `1.5 s`, `30 s`: a duration for messages.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn stderr_note(stderr: &[u8]) -> String {
    let text = excerpt(stderr);
    let text = text.trim_end();
    if text.is_empty() {
        String::new()
    } else {
        format!("; stderr: {text}")
    }
}
