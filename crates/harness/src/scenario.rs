//! GRP admission scenarios: the one player of a vector's steps (deliver, restart, concurrent
//! copies, session switch), generic over how receivers are reached — real processes through the
//! contract ([`ProcessReceivers`]) or the reference in process (`agentconf-reference`) — and over
//! who judges each decision ([`Judge`]: the harness's grading, or the corpus self-test's exact
//! comparison).
//!
//! Adding a step kind is a change to [`agentconf_contract::vector::Step`] and to [`play`] alone;
//! receivers only start, take lines, give decisions and stop. The `cluster` profile's steps are
//! played in [`cluster`].

pub(crate) mod cluster;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use agentconf_contract::call::Call;
use agentconf_contract::decision::{DecisionLine, Outcome};
use agentconf_contract::exit::EXIT_UNSUPPORTED;
use agentconf_contract::vector::{CrashPoint, Expectation, ExpectedDecision, Step, Vector};

use self::cluster::history::Entry;
use self::cluster::{Cluster, NodeSetup, StoreLink};
use crate::child::{describe_status, excerpt, LineFailure, LongLived};
use crate::grade::{
    grade_decision, grade_identity, grade_redelivery, grade_scenario, Grade, Grading,
};
use crate::status::Status;
use crate::suite_detail::SuiteDetail;

/// The longest decision line read from a receiver (a decision is a few hundred bytes).
pub const MAX_DECISION_LINE_BYTES: usize = 1 << 20;

/// How the player reaches receivers: each starts on the scenario's shared state.
pub trait Receivers {
    type Receiver: ReceiverLink;
    /// Starts a receiver for the session context in input file `session`.
    fn start(&mut self, session: &str) -> Result<Self::Receiver, Grade>;

    /// Starts `copies` receivers that will be handed the same line at once (a `concurrent`
    /// step): they must run in parallel, so the copies race. Processes always do; an in-process
    /// host starts threads here and may deliver on the caller's thread otherwise.
    fn start_concurrent(
        &mut self,
        session: &str,
        copies: usize,
    ) -> Result<Vec<Self::Receiver>, Grade> {
        (0..copies).map(|_| self.start(session)).collect()
    }

    /// Starts receiver node `node` (`n1`, `n2`, …) of a cluster step: a process on its own
    /// state, with the node's environment. In process, nodes share the one store.
    fn start_node(&mut self, session: &str, _node: &str) -> Result<Self::Receiver, Grade> {
        self.start(session)
    }

    /// Node `node`'s link to the shared store, once the node was started, when the harness
    /// holds one: without it a `partition` or `slow-link` step is not run.
    fn store_link(&mut self, _node: &str) -> Option<&dyn StoreLink> {
        None
    }

    /// What kept the nodes' links from reaching the store, if anything did (a proxy that could
    /// not connect to it): said at the end of a failing scenario's detail.
    fn store_trouble(&self) -> Option<String> {
        None
    }
}

/// One running receiver.
pub trait ReceiverLink {
    /// Hands it one event line.
    fn send(&mut self, line: &[u8]) -> Result<(), Grade>;
    /// Its decision for the next line it was handed.
    fn decision(&mut self) -> Result<DecisionLine, Grade>;
    /// Ends it cleanly: the end of its input, and a clean exit.
    fn stop(self) -> Result<(), Grade>;
    /// Ends it abruptly, as a crash would (SIGKILL to a process's whole group): at once after a
    /// decision was read, or — `BeforeDecision` — as soon as it has taken the line last handed
    /// to it, before any decision for that line is read.
    fn crash(self, at: CrashPoint) -> Result<(), Grade>;

    /// Notes that the decision just read answers the line of `step`: a line it writes beyond
    /// that decision is charged to that step.
    fn answered(&mut self, _step: usize) {}

    /// `Err` (a protocol error charged to the step that caused it) when it has written a line
    /// beyond its decision for the line it last answered. Called before each line is handed
    /// over, so that such a line is never read as the next line's decision. A receiver in
    /// process writes none.
    fn no_surplus(&mut self) -> Result<(), Grade> {
        Ok(())
    }

    /// Its decision for the next line, if it comes by `by` (cluster steps wait a bounded time
    /// while another node is paused). In process it always comes.
    fn decision_by(&mut self, _by: Instant) -> Result<Option<DecisionLine>, Grade> {
        self.decision().map(Some)
    }

    /// Stops it (SIGSTOP to a process's group) once it has taken the line last handed to it.
    /// In process nothing runs between two calls, so there is nothing to stop.
    fn pause(&mut self) -> Result<(), Grade> {
        Ok(())
    }

    /// Lets a paused receiver go on (SIGCONT).
    fn resume(&mut self) -> Result<(), Grade> {
        Ok(())
    }

    /// Whether it has taken every line handed to it so far (a process: its input pipe is
    /// empty), without waiting; `Err` when it ended first. In process a line is taken when it is
    /// handed over.
    fn taken(&mut self) -> Result<bool, Grade> {
        Ok(true)
    }
}

/// Who judges each decision.
pub trait Judge {
    /// The decision of a `deliver` step, with the step's expectation (if it has one).
    fn decision(
        &mut self,
        step: usize,
        got: &DecisionLine,
        want: Option<&ExpectedDecision>,
    ) -> Result<(), Grade>;

    /// One copy's decision in a `concurrent` step or `barrier` round (the count is judged by the
    /// player).
    fn copy(&mut self, _step: usize, _got: &DecisionLine) -> Result<(), Grade> {
        Ok(())
    }

    /// The decision for a line handed again after a `crash` step killed the receiver before its
    /// answer: admitted, or rejected as `duplicate_event_id` (the documented recovery: the first
    /// admission was recorded but never reported).
    fn redelivered(&mut self, step: usize, got: &DecisionLine) -> Result<(), Grade> {
        grade_redelivery(step, got, Grading::Strict)
    }

    /// The history of the scenario's cluster steps, before it is checked.
    fn history(&mut self, _history: &[Entry]) {}

    /// A step that was not run, and why.
    fn not_run(&mut self, _step: usize, _why: &str) {}
}

/// The harness's grading of decisions: strict or loose, as [`grade_decision`] says, for a vector
/// whose expectation is `expectation` (an `acceptable` vector also passes when admitted).
pub struct Graded {
    pub grading: Grading,
    pub expectation: Expectation,
    /// The cluster steps' history (bounded), for the results line.
    history: Vec<Entry>,
    /// The steps not run, with why.
    pub not_run: Vec<(usize, String)>,
}

impl Graded {
    pub fn new(v: &Vector, grading: Grading) -> Graded {
        Graded {
            grading,
            expectation: v.expectation,
            history: Vec::new(),
            not_run: Vec::new(),
        }
    }

    /// The scenario's grade and the history its cluster steps recorded.
    pub fn finish(self, played: Result<(), Grade>) -> (Grade, SuiteDetail) {
        let grade = grade_scenario(self.conclude(played));
        (grade, SuiteDetail::cluster_history(self.history))
    }

    /// The scenario's end: a scenario that passed with a step not run is unsupported, not
    /// passed (what was not run was not tested), and its detail names the step and why.
    fn conclude(&self, played: Result<(), Grade>) -> Result<(), Grade> {
        played?;
        let Some((_, why)) = self.not_run.first() else {
            return Ok(());
        };
        let steps: Vec<String> = self.not_run.iter().map(|(s, _)| s.to_string()).collect();
        Err(Grade::new(
            Status::Unsupported,
            format!(
                "step {} not run: {why}; the steps run passed",
                steps.join(", ")
            ),
        ))
    }
}

impl Judge for Graded {
    fn decision(
        &mut self,
        step: usize,
        got: &DecisionLine,
        want: Option<&ExpectedDecision>,
    ) -> Result<(), Grade> {
        match want {
            Some(e) => grade_decision(step, got, e, self.expectation, self.grading),
            None => Ok(()),
        }
    }

    fn redelivered(&mut self, step: usize, got: &DecisionLine) -> Result<(), Grade> {
        grade_redelivery(step, got, self.grading)
    }

    fn history(&mut self, history: &[Entry]) {
        let kept = history.len().min(cluster::MAX_HISTORY_ENTRIES);
        self.history = history[..kept].to_vec();
    }

    fn not_run(&mut self, step: usize, why: &str) {
        self.not_run.push((step, why.to_string()));
    }
}

/// Plays the vector's scenario against `receivers`; `Ok` when every decision was as judged.
/// Every decision's `event_id` and `publisher_id` are compared with the line it answers, whoever
/// judges the rest (they are part of the decision line's form, like `ale`). A failing scenario
/// whose nodes could not reach their store says so at the end of its detail.
pub fn play<R: Receivers>(
    v: &Vector,
    receivers: &mut R,
    judge: &mut dyn Judge,
) -> Result<(), Grade> {
    play_steps(v, receivers, judge).map_err(|mut failed| {
        if let Some(trouble) = receivers.store_trouble() {
            failed.detail = format!("{}; {trouble}", failed.detail);
        }
        failed
    })
}

fn play_steps<R: Receivers>(
    v: &Vector,
    receivers: &mut R,
    judge: &mut dyn Judge,
) -> Result<(), Grade> {
    let crash = |e: String| Grade::new(Status::Crash, e);
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
    let line = |n: usize| {
        events
            .get(n)
            .copied()
            .ok_or_else(|| crash(format!("no event {n}")))
    };
    // A scenario that opens with cluster steps starts its nodes there.
    let mut current = match steps.first() {
        Some(first) if first.is_cluster() => None,
        _ => Some(receivers.start(&session)?),
    };
    let mut cluster = Cluster::default();
    for (index, step) in steps.iter().enumerate() {
        let expected = v.expected_decisions.iter().find(|e| e.step == index);
        let running = |current: &mut Option<R::Receiver>| {
            current.take().ok_or_else(|| crash("no receiver".into()))
        };
        match step {
            Step::Deliver { event } => {
                let r = current
                    .as_mut()
                    .ok_or_else(|| crash("no receiver".into()))?;
                let bytes = line(*event)?;
                let d = answer(r, bytes, index)?;
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
                let admitted = race(&mut all, line(*event)?, index, judge)?;
                for r in all {
                    r.stop()?;
                }
                count_admitted(index, None, admitted, *copies, expected)?;
                current = Some(receivers.start(&session)?);
            }
            Step::Barrier {
                copies,
                warmup,
                rounds,
            } => {
                if let Some(r) = current.take() {
                    r.stop()?;
                }
                let mut all = receivers.start_concurrent(&session, *copies)?;
                // The warm-up, one copy after another: when it is over every copy is running
                // and has answered once, so the rounds' lines reach ready receivers together.
                let warm = line(*warmup)?;
                for r in &mut all {
                    let d = answer(r, warm, index)?;
                    judge.copy(index, &d)?;
                }
                for (round, event) in rounds.iter().enumerate() {
                    let admitted = race(&mut all, line(*event)?, index, judge)?;
                    count_admitted(
                        index,
                        Some((round, rounds.len())),
                        admitted,
                        *copies,
                        expected,
                    )?;
                }
                for r in all {
                    r.stop()?;
                }
                current = Some(receivers.start(&session)?);
            }
            Step::Crash { event, at } => {
                let mut r = running(&mut current)?;
                let bytes = line(*event)?;
                r.no_surplus()?;
                r.send(bytes)?;
                if *at == CrashPoint::AfterDecision {
                    let d = r.decision()?;
                    r.answered(index);
                    grade_identity(index, bytes, &d)?;
                    judge.decision(index, &d, expected)?;
                }
                r.crash(*at)?;
                let mut fresh = receivers.start(&session)?;
                if *at == CrashPoint::BeforeDecision {
                    let d = answer(&mut fresh, bytes, index)?;
                    judge.redelivered(index, &d)?;
                }
                current = Some(fresh);
            }
            Step::NodeRace { .. }
            | Step::NodeMix { .. }
            | Step::Failover { .. }
            | Step::Pause { .. }
            | Step::Partition { .. }
            | Step::SlowLink { .. } => {
                if let Some(r) = current.take() {
                    r.stop()?;
                }
                let played =
                    cluster::play_step(step, index, receivers, &session, &events, &mut cluster);
                // The history so far goes on the results line even when the step failed.
                judge.history(cluster.history());
                played?;
                // Steps after it that are not cluster steps get a receiver on the scenario's
                // state, as after a `concurrent` step.
                if steps.get(index + 1).is_some_and(|next| !next.is_cluster()) {
                    current = Some(receivers.start(&session)?);
                }
            }
        }
    }
    if let Some(r) = current.take() {
        r.stop()?;
    }
    cluster.finish(&events, judge)
}

/// Hands `line` to `r` and reads its decision, whose identity members must match the line.
fn answer<L: ReceiverLink>(r: &mut L, line: &[u8], index: usize) -> Result<DecisionLine, Grade> {
    r.no_surplus()?;
    r.send(line)?;
    let d = r.decision()?;
    r.answered(index);
    grade_identity(index, line, &d)?;
    Ok(d)
}

/// Hands `line` to every copy before reading any decision (so they race), then reads one from
/// each; the number admitted.
fn race<L: ReceiverLink>(
    all: &mut [L],
    line: &[u8],
    index: usize,
    judge: &mut dyn Judge,
) -> Result<usize, Grade> {
    for r in all.iter_mut() {
        r.no_surplus()?;
        r.send(line)?;
    }
    let mut admitted = 0;
    for r in all.iter_mut() {
        let d = r.decision()?;
        r.answered(index);
        grade_identity(index, line, &d)?;
        judge.copy(index, &d)?;
        if d.outcome == Outcome::Admitted {
            admitted += 1;
        }
    }
    Ok(admitted)
}

/// Judges how many of `copies` admitted one line (`round`: which round of a barrier, of how many).
fn count_admitted(
    index: usize,
    round: Option<(usize, usize)>,
    admitted: usize,
    copies: usize,
    expected: Option<&ExpectedDecision>,
) -> Result<(), Grade> {
    let want = expected.and_then(|e| e.admitted_copies).unwrap_or(1);
    if admitted == want {
        return Ok(());
    }
    let status = if admitted > want {
        Status::FalseAccept
    } else {
        Status::FalseReject
    };
    let at = match round {
        Some((r, of)) => format!("step {index}, round {} of {of}", r + 1),
        None => format!("step {index}"),
    };
    Err(Grade::new(
        status,
        format!("{at}: {admitted} of {copies} concurrent copies admitted, expected {want}"),
    ))
}

/// Receivers as processes: `IMPL grp-admit REVISION SESSION STATE_DIR`, the inputs in `dir`,
/// the state in `dir/state`. One deadline holds for the whole scenario: every write, decision and
/// exit of every receiver must come before it, however many steps there are.
pub(crate) struct ProcessReceivers<'a> {
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
    /// Every receiver's standard error, in the order they ended (bounded by `capture_limit`).
    pub stderr: Rc<RefCell<Vec<u8>>>,
    /// How many receivers were started so far (names them in `stderr`).
    pub started: usize,
    /// What cluster nodes are started with.
    pub(crate) nodes: NodeSetup,
}

impl Receivers for ProcessReceivers<'_> {
    type Receiver = ProcessReceiver;

    fn start_concurrent(
        &mut self,
        session: &str,
        copies: usize,
    ) -> Result<Vec<ProcessReceiver>, Grade> {
        let mut all = Vec::with_capacity(copies);
        for _ in 0..copies {
            let mut r = self.start(session)?;
            r.child.without_spin();
            all.push(r);
        }
        Ok(all)
    }

    fn start(&mut self, session: &str) -> Result<ProcessReceiver, Grade> {
        let state = self.state.clone();
        let env = self.nodes.scenario_env();
        self.spawn(session, &state, &env)
    }

    fn start_node(&mut self, session: &str, node: &str) -> Result<ProcessReceiver, Grade> {
        cluster::start_process_node(self, session, node)
    }

    fn store_link(&mut self, node: &str) -> Option<&dyn StoreLink> {
        self.nodes.link(node)
    }

    fn store_trouble(&self) -> Option<String> {
        self.nodes.trouble()
    }
}

impl ProcessReceivers<'_> {
    /// Starts a receiver on `state` with `env` added to its environment.
    fn spawn(
        &mut self,
        session: &str,
        state: &Path,
        env: &[(String, String)],
    ) -> Result<ProcessReceiver, Grade> {
        let call = Call::GrpAdmit {
            revision: self.revision.to_string(),
            session: self.dir.join(session).display().to_string(),
            state_dir: state.display().to_string(),
        };
        let mut argv = self.argv.to_vec();
        argv.extend(call.argv());
        let child =
            LongLived::spawn_with_env(&argv, env, MAX_DECISION_LINE_BYTES, self.capture_limit)
                .map_err(|e| {
                    Grade::new(Status::Crash, format!("cannot start the receiver: {e}"))
                })?;
        self.started += 1;
        Ok(ProcessReceiver {
            child,
            deadline: self.deadline,
            timeout: self.timeout,
            left_descendants: Rc::clone(&self.left_descendants),
            number: self.started,
            stderr: Rc::clone(&self.stderr),
            capture_limit: self.capture_limit,
            last_step: None,
            sent: 0,
        })
    }
}

/// A receiver process: events to its stdin, decisions from its stdout, line by line.
pub(crate) struct ProcessReceiver {
    child: LongLived,
    deadline: Instant,
    timeout: Duration,
    left_descendants: Rc<Cell<bool>>,
    /// Which receiver of the scenario it is (1 = the first started).
    number: usize,
    stderr: Rc<RefCell<Vec<u8>>>,
    capture_limit: usize,
    /// The step whose line its last decision answered.
    last_step: Option<usize>,
    /// The length of the line last handed to it (with its newline).
    sent: usize,
}

impl ProcessReceiver {
    fn out_of_time(&self, what: &str) -> Grade {
        Grade::new(
            Status::Timeout,
            format!(
                "{what} within the {} the whole scenario may take",
                seconds(self.timeout)
            ),
        )
    }

    /// The verdict on a receiver that stopped taking lines or giving decisions: how it exited,
    /// waited for until the scenario's deadline. Exit 89 before any decision is how a receiver
    /// says its revision is unsupported (CONTRACT.md 3.2: at once, before any line), so it may
    /// come before the first line is even written. Any other exit before its input ended is a
    /// crash, whatever its status: an exit 0 too, so that the verdict does not depend on where
    /// the harness first notices the exit (writing a line, waiting for a decision, or ending
    /// the input), which is a matter of timing.
    fn ended(&mut self, what: &str) -> Grade {
        match self.child.wait_exit(self.deadline) {
            Some(s)
                if s.code() == Some(i32::from(EXIT_UNSUPPORTED)) && self.last_step.is_none() =>
            {
                Grade::new(
                    Status::Unsupported,
                    "grp-admit exited 89: the revision is unsupported",
                )
            }
            Some(s) => Grade::new(
                Status::Crash,
                format!(
                    "the receiver {what}: it ended with {}, before its input ended (CONTRACT \
                     3.2: an early exit is a crash, whatever its status){}",
                    describe_status(s),
                    stderr_note(&self.keep_stderr())
                ),
            ),
            None => self.out_of_time(&format!("the receiver {what}, and did not exit")),
        }
    }

    /// A protocol error for `line`, which answers no line handed to the receiver, charged to
    /// the step whose line it last answered.
    fn surplus_line(&self, line: &[u8]) -> Grade {
        let text = excerpt(line);
        let text = text.trim_end();
        Grade::new(
            Status::ProtocolError,
            match self.last_step {
                Some(step) => format!(
                    "step {step}: the receiver wrote a line no event asked for after its decision \
                     for this step's line (CONTRACT 5.1: exactly one decision per line): {text}"
                ),
                None => format!(
                    "the receiver wrote a line no event asked for before it was handed any: {text}"
                ),
            },
        )
    }
}

impl ReceiverLink for ProcessReceiver {
    fn send(&mut self, line: &[u8]) -> Result<(), Grade> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        self.sent = bytes.len();
        match self.child.send(&bytes, self.deadline) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                Err(self.out_of_time("the receiver did not read its event line"))
            }
            // Its input is closed: it exited (or closed it) before taking the line.
            Err(e) => Err(self.ended(&format!("did not take an event line ({e})"))),
        }
    }

    fn decision(&mut self) -> Result<DecisionLine, Grade> {
        match self.decision_by(self.deadline)? {
            Some(d) => Ok(d),
            None => Err(self.out_of_time("no decision came")),
        }
    }

    fn decision_by(&mut self, by: Instant) -> Result<Option<DecisionLine>, Grade> {
        let line = match self.child.read_line(by.min(self.deadline)) {
            Ok(line) => line,
            Err(LineFailure::TooLong) => {
                return Err(Grade::new(
                    Status::ProtocolError,
                    format!("a decision line is longer than {MAX_DECISION_LINE_BYTES} bytes"),
                ))
            }
            Err(LineFailure::Timeout) if by < self.deadline => return Ok(None),
            Err(LineFailure::Timeout) => return Err(self.out_of_time("no decision came")),
            // Its output ended: it exited (89 = unsupported) or died.
            Err(LineFailure::Eof | LineFailure::Io(_)) => {
                return Err(self.ended("ended its output without a decision"))
            }
        };
        // After a decision, a line that comes while the line just handed over is still unread
        // answers an earlier one. (Before its first decision, what it wrote is judged as one.)
        if self.last_step.is_some() && self.child.unread_input().is_some_and(|n| n >= self.sent) {
            return Err(self.surplus_line(&line));
        }
        let text = String::from_utf8(line).map_err(|_| {
            Grade::new(
                Status::ProtocolError,
                "a decision line is not UTF-8".to_string(),
            )
        })?;
        DecisionLine::parse(&text)
            .map(Some)
            .map_err(|e| Grade::new(Status::ProtocolError, e.to_string()))
    }

    fn pause(&mut self) -> Result<(), Grade> {
        cluster::pause(self)
    }

    fn resume(&mut self) -> Result<(), Grade> {
        cluster::resume(self);
        Ok(())
    }

    fn taken(&mut self) -> Result<bool, Grade> {
        cluster::taken(self)
    }

    fn stop(mut self) -> Result<(), Grade> {
        self.no_surplus()?;
        // Seen only when the exit has already happened (a receiver that exits at once after its
        // last decision may not have yet): never a false alarm, and caught whenever it shows.
        // `ended` says what the exit was: 89 declines the revision, any other an early exit.
        if self.child.exited().is_some() {
            return Err(self.ended("ended before its input did"));
        }
        self.child.close_stdin();
        match self.child.wait_exit(self.deadline) {
            Some(s) if s.code() == Some(0) => {}
            Some(_) => return Err(self.ended("did not exit 0 after its input ended")),
            None => return Err(self.out_of_time("the receiver did not exit after its input ended")),
        }
        // What it wrote after its last decision was read: an extra line is a protocol error.
        match self.child.read_line(self.deadline) {
            Ok(extra) => Err(self.surplus_line(&extra)),
            Err(_) => Ok(()),
        }
    }

    fn answered(&mut self, step: usize) {
        self.last_step = Some(step);
    }

    fn no_surplus(&mut self) -> Result<(), Grade> {
        // Before its first decision, whatever it wrote is read (and judged) as that decision.
        if self.last_step.is_none() {
            return Ok(());
        }
        match self.child.ready_line() {
            Some(line) => Err(self.surplus_line(&line)),
            None => Ok(()),
        }
    }

    fn crash(mut self, at: CrashPoint) -> Result<(), Grade> {
        if at == CrashPoint::BeforeDecision {
            self.wait_taken()?;
        }
        self.child.kill();
        Ok(())
    }
}

impl ProcessReceiver {
    /// Waits until it has taken everything written to its input (Linux tells how much of a pipe
    /// is unread; elsewhere a millisecond stands in), or failed before that.
    fn wait_taken(&mut self) -> Result<(), Grade> {
        loop {
            match self.child.unread_input() {
                Some(0) => return Ok(()),
                None => {
                    std::thread::sleep(Duration::from_millis(1));
                    return Ok(());
                }
                Some(_) => {}
            }
            if self.child.exited().is_some() {
                return Err(self.ended("ended before it read its event line"));
            }
            if Instant::now() >= self.deadline {
                return Err(self.out_of_time("the receiver did not read its event line"));
            }
            std::thread::sleep(Duration::from_micros(20));
        }
    }

    /// Its standard error so far, also kept for the scenario's results.
    fn keep_stderr(&mut self) -> Vec<u8> {
        let text = self.child.take_stderr();
        self.append_stderr(&text);
        text
    }

    fn append_stderr(&self, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        let mut all = self.stderr.borrow_mut();
        let header = format!("[receiver {}]\n", self.number);
        for part in [header.as_bytes(), text] {
            let room = self.capture_limit.saturating_sub(all.len());
            all.extend_from_slice(&part[..part.len().min(room)]);
        }
        if !all.ends_with(b"\n") && all.len() < self.capture_limit {
            all.push(b'\n');
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
        let rest = self.child.finish_stderr(Duration::from_millis(100));
        self.append_stderr(&rest);
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
