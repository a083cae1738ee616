//! A run: the selected cases spread over workers, each with its own backend (a command, a
//! persistent server, or the reference in process), results kept in corpus order, and the
//! fail-fast limit. What the CLI asks for; the CLI only renders.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use agentconf_contract::case::Case;
use agentconf_contract::protocol::Named;

use crate::adapter::Adapter;
use crate::grade::{Grade, Grading};
use crate::interrupt;
use crate::persistent::{PersistentConfig, PersistentSession};
use crate::results::ResultLine;
use crate::runner::{adapted, run_case_with, Implementation, VectorResult};
use crate::smoke::{identical_crashes, IDENTICAL_CRASHES};

/// Something that runs cases and grades them: one per worker.
pub trait Backend {
    /// Runs one case, its inputs written under `work` if it needs files.
    fn run(&mut self, c: &Case<'_>, work: &Path) -> VectorResult;

    /// Ends the backend; how many times it had to restart its implementation.
    fn finish(self: Box<Self>) -> usize {
        0
    }

    /// The name and version the implementation declared about itself, if it declares any.
    fn declared(&self) -> Option<Named> {
        None
    }
}

/// A command run once per case (and per GRP receiver), optionally through an adapter.
pub(crate) struct CommandBackend<'a> {
    pub(crate) implementation: &'a Implementation,
    pub(crate) adapter: Option<&'a Adapter>,
    pub(crate) grading: Grading,
}

impl Backend for CommandBackend<'_> {
    fn run(&mut self, c: &Case<'_>, work: &Path) -> VectorResult {
        run_case_with(self.implementation, self.adapter, c, work, self.grading)
    }
}

/// A persistent server per worker (GRP scenarios still run one-shot), optionally through an
/// adapter: the parts that apply to any implementation (skips, declarations, crash patterns,
/// expected failures; see [`Adapter::check_persistent`]).
pub(crate) struct PersistentBackend<'a> {
    pub(crate) session: PersistentSession,
    pub(crate) adapter: Option<&'a Adapter>,
    pub(crate) grading: Grading,
}

impl Backend for PersistentBackend<'_> {
    fn run(&mut self, c: &Case<'_>, work: &Path) -> VectorResult {
        let (session, grading) = (&mut self.session, self.grading);
        adapted(self.adapter, c, || session.run(c, work, grading))
    }

    fn declared(&self) -> Option<Named> {
        let info = self.session.info();
        Some(Named {
            name: info.name.clone(),
            version: info.version.clone(),
        })
    }

    fn finish(self: Box<Self>) -> usize {
        let restarts = self.session.restarts();
        let _ = self.session.stop();
        restarts
    }
}

/// What runs the cases: how each worker gets the backend it runs them on.
pub enum Launch<'a> {
    /// The command once per case (and per GRP receiver), through the adapter if any.
    Command {
        implementation: &'a Implementation,
        adapter: Option<&'a Adapter>,
    },
    /// One persistent server per worker, through the adapter if any (GRP scenarios and emitters
    /// still run one-shot); with `validate_protocol`, every message is checked against the
    /// protocol's schema.
    Persistent {
        implementation: &'a Implementation,
        adapter: Option<&'a Adapter>,
        validate_protocol: bool,
    },
    /// A backend in this very process, one per worker, graded as asked: the reference's (the
    /// harness does not link it, so the front end hands it in); through an adapter's skips and
    /// expected failures when one is given (`run --xfail FILE`).
    InProcess(
        &'a (dyn Fn(Grading) -> Box<dyn Backend + 'a> + Sync + 'a),
        Option<&'a Adapter>,
    ),
}

/// A backend whose cases go through an adapter's skips, declarations, crash patterns and
/// expected failures (the reference in process, with `run --xfail FILE`).
struct AdaptedBackend<'a> {
    inner: Box<dyn Backend + 'a>,
    adapter: &'a Adapter,
}

impl Backend for AdaptedBackend<'_> {
    fn run(&mut self, c: &Case<'_>, work: &Path) -> VectorResult {
        let inner = &mut self.inner;
        adapted(Some(self.adapter), c, || inner.run(c, work))
    }

    fn declared(&self) -> Option<Named> {
        self.inner.declared()
    }

    fn finish(self: Box<Self>) -> usize {
        self.inner.finish()
    }
}

impl<'a> Launch<'a> {
    /// One worker's backend.
    pub(crate) fn start(&self, grading: Grading) -> Result<Box<dyn Backend + 'a>, String> {
        match *self {
            Launch::Command {
                implementation,
                adapter,
            } => Ok(Box::new(CommandBackend {
                implementation,
                adapter,
                grading,
            })),
            Launch::Persistent {
                implementation,
                adapter,
                validate_protocol,
            } => {
                let mut config = PersistentConfig::new(implementation.clone());
                config.validate_protocol = validate_protocol;
                let session = PersistentSession::start(config)
                    .map_err(|e| format!("the persistent implementation did not start: {e}"))?;
                Ok(Box::new(PersistentBackend {
                    session,
                    adapter,
                    grading,
                }))
            }
            Launch::InProcess(make, None) => Ok(make(grading)),
            Launch::InProcess(make, Some(adapter)) => Ok(Box::new(AdaptedBackend {
                inner: make(grading),
                adapter,
            })),
        }
    }

    /// The command (and its adapter) this launch runs, unless the backend is in this process:
    /// what a smoke check probes.
    pub(crate) fn command(&self) -> Option<(&'a Implementation, Option<&'a Adapter>)> {
        match *self {
            Launch::Command {
                implementation,
                adapter,
            }
            | Launch::Persistent {
                implementation,
                adapter,
                ..
            } => Some((implementation, adapter)),
            Launch::InProcess(..) => None,
        }
    }

    /// Only a command can be a broken wrapper; the reference in process is not one.
    fn may_be_broken_wrapper(&self) -> bool {
        !matches!(self, Launch::InProcess(..))
    }
}

/// The most workers a run starts, whatever it asks for: each is a thread, and may start a
/// process (a persistent server) of its own.
pub const MAX_JOBS: usize = 256;

/// How the cases are run, whatever runs them.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Workers (at least one; no more than there are cases, nor than [`MAX_JOBS`]).
    pub jobs: usize,
    /// Stop starting cases once this many unexpected results came in.
    pub max_fail: Option<usize>,
    /// Run every case even when the first ones all crash the same way (a broken wrapper, which
    /// otherwise stops the run after [`crate::smoke::IDENTICAL_CRASHES`] cases).
    pub keep_going: bool,
    /// Keep what emitters wrote ([`Ran::outputs`]): the interoperability matrix hands it to
    /// every verifier.
    pub keep_outputs: bool,
}

/// How to run the cases.
pub(crate) struct Plan<'a> {
    pub(crate) cases: &'a [Case<'a>],
    /// Workers (at least one).
    pub(crate) jobs: usize,
    /// Stop starting cases once this many unexpected results came in.
    pub(crate) max_fail: Option<usize>,
    /// Where the per-case input directories go; removed at the end.
    pub(crate) work: PathBuf,
    /// Stop when the first results all crash the same way ([`crate::smoke::identical_crashes`]):
    /// the wrapper is broken, and going on would only repeat the message hundreds of times.
    pub(crate) stop_on_identical_crashes: bool,
    /// Keep what emitters wrote ([`VectorResult::output`]) in [`Ran::outputs`]: the
    /// interoperability matrix hands it to every verifier.
    pub(crate) keep_outputs: bool,
    /// Told of every case as it is settled (its index, its line unless it was left out past the
    /// fail-fast limit, and what the implementation that ran it declared of itself), so the
    /// results file can be written as the run goes; `false` stops the run (the file could not be
    /// written).
    pub(crate) sink: Option<&'a Sink<'a>>,
}

impl<'a> Plan<'a> {
    /// The plan for `cases` launched by `launch`: per-case inputs under a directory of this
    /// process's own (removed at the end, and first of all by a second signal, with the
    /// receivers' state).
    pub(crate) fn new(
        cases: &'a [Case<'a>],
        launch: &Launch<'_>,
        options: &RunOptions,
        sink: Option<&'a Sink<'a>>,
    ) -> Plan<'a> {
        let work = crate::dirs::work_root().join(format!("agentconf-run-{}", std::process::id()));
        interrupt::register_work_dir(work.clone());
        interrupt::register_work_dir(crate::dirs::state_root());
        Plan {
            cases,
            jobs: options.jobs,
            max_fail: options.max_fail,
            work,
            stop_on_identical_crashes: !options.keep_going && launch.may_be_broken_wrapper(),
            keep_outputs: options.keep_outputs,
            sink,
        }
    }
}

/// Where settled cases go while a run goes on ([`Plan::sink`]).
pub(crate) type Sink<'a> = dyn Fn(usize, Option<&ResultLine>, Option<Named>) -> bool + Sync + 'a;

/// What a run produced.
pub struct Ran {
    /// The result lines of the cases that ran, in corpus order.
    pub lines: Vec<ResultLine>,
    /// Restarts of persistent implementations (after crashes, or exits between requests).
    pub restarts: usize,
    /// The fail-fast limit stopped the run.
    pub stopped_early: bool,
    /// The first results all crashed the same way, and the run stopped there.
    pub broken_wrapper: bool,
    /// What the implementation declared about itself (persistent servers do).
    pub declared: Option<Named>,
    /// With [`Plan::keep_outputs`]: what each emitter case wrote, in corpus order.
    pub outputs: Outputs,
}

impl Ran {
    /// What a front end may want to say about how the run went.
    pub fn notes(&self) -> RunNotes {
        RunNotes {
            stopped_early: self.stopped_early,
            broken_wrapper: self.broken_wrapper,
            restarts: self.restarts,
        }
    }
}

/// How a run went, beyond its results: what a front end says about it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunNotes {
    /// The fail-fast limit stopped the run.
    pub stopped_early: bool,
    /// The first results all crashed the same way, and the run stopped there.
    pub broken_wrapper: bool,
    /// Restarts of persistent implementations.
    pub restarts: usize,
}

/// Emitter cases' ids, each with what the emitter wrote to standard output.
pub type Outputs = Vec<(String, Vec<u8>)>;

/// Starts one backend for a worker.
pub(crate) type StartBackend<'a> = dyn Fn() -> Result<Box<dyn Backend + 'a>, String> + Sync + 'a;

/// Why a run could not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A worker's backend could not start (a persistent server that did not answer, say).
    BackendStart(String),
    /// A worker panicked: a bug of the harness, not of the implementation.
    WorkerPanicked,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::BackendStart(e) => f.write_str(e),
            RunError::WorkerPanicked => f.write_str("a worker of the harness panicked"),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs every case of `plan`; `progress(done, unexpected)` is called after each. `Err` when a
/// worker's backend could not start.
pub(crate) fn run_cases<'a>(
    plan: &Plan<'_>,
    start: &StartBackend<'a>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Ran, RunError> {
    // A worker without a case to run would only start a backend (a persistent server) for
    // nothing.
    let jobs = plan.jobs.min(plan.cases.len()).clamp(1, MAX_JOBS);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failures = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<ResultLine>>> = Mutex::new(vec![None; plan.cases.len()]);
    let outputs: Mutex<Vec<Option<Vec<u8>>>> = Mutex::new(vec![None; plan.cases.len()]);
    let restarts = AtomicUsize::new(0);
    let declared: Mutex<Option<Named>> = Mutex::new(None);
    let start_error: Mutex<Option<String>> = Mutex::new(None);
    let first: Mutex<Vec<Grade>> = Mutex::new(Vec::new());
    let broken = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                let mut backend = match start() {
                    Ok(b) => b,
                    Err(e) => {
                        if let Ok(mut slot) = start_error.lock() {
                            *slot = Some(e);
                        }
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                };
                loop {
                    if stop.load(Ordering::Relaxed) || interrupt::interrupted() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = plan.cases.get(i) else { break };
                    let mut r = backend.run(c, &plan.work);
                    // Interrupted while it ran: its process was ended by us, so its result says
                    // nothing about the implementation and is not kept.
                    if interrupt::interrupted() {
                        break;
                    }
                    if plan.stop_on_identical_crashes {
                        if let Ok(mut first) = first.lock() {
                            if first.len() < IDENTICAL_CRASHES {
                                first.push(Grade::new(r.status, r.detail.clone()));
                                if identical_crashes(&first) {
                                    broken.store(true, Ordering::Relaxed);
                                    stop.store(true, Ordering::Relaxed);
                                }
                            }
                        }
                    }
                    let mut unexpected = failures.load(Ordering::Relaxed);
                    if r.status.is_unexpected() {
                        unexpected = failures.fetch_add(1, Ordering::Relaxed) + 1;
                        if plan.max_fail.is_some_and(|m| unexpected >= m) {
                            stop.store(true, Ordering::Relaxed);
                        }
                        // Another worker's case was in flight when the limit was reached: its
                        // unexpected result is past the limit and is not kept, so the file holds
                        // exactly the limit (the case counts as not run).
                        if plan.max_fail.is_some_and(|m| unexpected > m) {
                            if plan
                                .sink
                                .is_some_and(|sink| !sink(i, None, backend.declared()))
                            {
                                stop.store(true, Ordering::Relaxed);
                            }
                            continue;
                        }
                    }
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, unexpected);
                    if let (true, Some(bytes), Ok(mut outputs)) =
                        (plan.keep_outputs, r.output.take(), outputs.lock())
                    {
                        outputs[i] = Some(bytes);
                    }
                    let line = ResultLine::new(c, r);
                    if plan
                        .sink
                        .is_some_and(|sink| !sink(i, Some(&line), backend.declared()))
                    {
                        stop.store(true, Ordering::Relaxed);
                    }
                    if let Ok(mut slots) = slots.lock() {
                        slots[i] = Some(line);
                    }
                }
                if let (Some(d), Ok(mut slot)) = (backend.declared(), declared.lock()) {
                    slot.get_or_insert(d);
                }
                restarts.fetch_add(backend.finish(), Ordering::Relaxed);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&plan.work);
    if let Ok(Some(e)) = start_error.into_inner() {
        return Err(RunError::BackendStart(e));
    }
    let slots = slots.into_inner().map_err(|_| RunError::WorkerPanicked)?;
    let outputs = outputs.into_inner().map_err(|_| RunError::WorkerPanicked)?;
    Ok(Ran {
        outputs: plan
            .cases
            .iter()
            .zip(outputs)
            .filter_map(|(c, o)| Some((c.id.clone(), o?)))
            .collect(),
        lines: slots.into_iter().flatten().collect(),
        restarts: restarts.into_inner(),
        stopped_early: stop.load(Ordering::Relaxed),
        broken_wrapper: broken.load(Ordering::Relaxed),
        declared: declared.into_inner().unwrap_or(None),
    })
}
