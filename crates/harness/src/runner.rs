//! Running one vector against an implementation and grading the result.
//!
//! AER-1 vectors are one-shot: the inputs are written into a fresh directory, the implementation
//! runs once, and its exit code (plus the optional result object) is graded. GRP vectors are
//! scenarios: receivers are started, fed event lines, restarted, run concurrently or switched to
//! another session as the steps say, and every decision is graded.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentconf_contract::call::Call;
use agentconf_contract::case::Case;
use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::result::parse_result;
use agentconf_contract::vector::Suite;
use agentconf_rules::Rule;

use crate::adapter::Adapter;
use crate::child::excerpt;
use crate::grade::{grade_verdict, Grade, Grading};
use crate::materialize::write_inputs;
use crate::process::{run, Ending, RunSpec, Strays};
use crate::scenario::cluster::{store_address, NodeSetup};
use crate::scenario::{play, Graded, ProcessReceivers};
use crate::status::Status;
use crate::suite_detail::SuiteDetail;

pub(crate) use crate::case_result::VectorResult;

/// The implementation under test.
#[derive(Clone, Debug)]
pub struct Implementation {
    /// The command prefix; the operation and its arguments are appended.
    pub argv: Vec<String>,
    pub timeout: Duration,
    pub capture_limit: usize,
    /// Capability profiles it claims (`durable`, `atomic`).
    pub profiles: Vec<String>,
}

/// Runs one case of a vector in a fresh directory under `work`.
pub fn run_case(imp: &Implementation, c: &Case<'_>, work: &Path, grading: Grading) -> VectorResult {
    run_case_with(imp, None, c, work, grading)
}

/// As [`run_case`], through an adapter: its templates, exit-code and error maps, and everything
/// [`adapted`] applies. `imp.argv` is the command (the adapter's own, when it names one).
pub fn run_case_with(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    work: &Path,
    grading: Grading,
) -> VectorResult {
    adapted(adapter, c, || {
        let started = Instant::now();
        let dir = work.join(safe_name(&c.id));
        let _ = std::fs::remove_dir_all(&dir);
        let CaseRun {
            mut grade,
            stderr,
            strays,
            output,
            broken_rules,
            suite_detail,
        } = match c.vector.suite {
            Suite::GrpAdmission => run_scenario(imp, adapter, c, &dir, grading),
            Suite::Aer1EmitTimeline | Suite::Aer1EmitCommitment | Suite::Aer1EmitReceipt => {
                run_emit(imp, adapter, c, &dir)
            }
            _ => run_one_shot(imp, adapter, c, &dir, grading),
        };
        if let Some(note) = strays.note() {
            grade.detail = format!("{}; {note}", grade.detail);
        }
        let _ = std::fs::remove_dir_all(&dir);
        VectorResult {
            stderr,
            duration_ms: started.elapsed().as_millis() as u64,
            broken_rules,
            suite_detail,
            output,
            ..VectorResult::graded(&c.id, grade)
        }
    })
}

/// What running one case came to, before it is a [`VectorResult`]: its grade, the excerpt of its
/// standard error, and what only some kinds of case have.
struct CaseRun {
    grade: Grade,
    stderr: String,
    /// What the implementation left running when it exited: its verdict stands, the detail says.
    strays: Strays,
    /// What an emitter wrote to standard output (exit 0, within the limit), for the matrix.
    output: Option<Vec<u8>>,
    /// The rules an emitter's wrong output broke.
    broken_rules: Vec<Rule>,
    /// What its suite records beyond status and detail (a cluster history).
    suite_detail: SuiteDetail,
}

impl CaseRun {
    /// A case that came to `status` and `detail`, with nothing more than its standard error.
    fn of(status: Status, detail: impl Into<String>, stderr: String) -> CaseRun {
        CaseRun::graded(Grade::new(status, detail), stderr)
    }

    fn graded(grade: Grade, stderr: String) -> CaseRun {
        CaseRun {
            grade,
            stderr,
            strays: Strays::None,
            output: None,
            broken_rules: Vec::new(),
            suite_detail: SuiteDetail::None,
        }
    }

    /// With what the implementation left running when it exited.
    fn with_strays(self, strays: Strays) -> CaseRun {
        CaseRun { strays, ..self }
    }
}

/// What an adapter decides around any way of running a case (one-shot, persistent, GRP): its
/// skips and what it declares the tool does not take (out of its scope), before `run`; its `crash_on_stderr`
/// patterns (over the standard error recorded for the case) and its expected failures, after.
pub(crate) fn adapted(
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    run: impl FnOnce() -> VectorResult,
) -> VectorResult {
    let Some(a) = adapter else { return run() };
    let not_run =
        |status: Status, detail: String| VectorResult::graded(&c.id, Grade::new(status, detail));
    if let Some(reason) = a.skip_reason(&c.id) {
        return not_run(Status::Skip, format!("skipped: {reason}"));
    }
    if let Some(why) = a.declines(c) {
        return not_run(Status::OutOfScope, why);
    }
    let mut r = run();
    // A one-shot run has already looked at all it captured; the recorded excerpt is what a
    // persistent run has.
    if !matches!(r.status, Status::Crash | Status::Timeout) {
        if let Some(pattern) = a.crash_pattern(r.stderr.as_bytes()) {
            r.detail = crash_detail(pattern, &r.detail);
            r.status = Status::Crash;
            // A crash is no judgement of the output: no rule is singled out as broken.
            r.broken_rules.clear();
        }
    }
    if let Some(reason) = a.xfail_reason(&c.id) {
        match r.status {
            Status::Pass => {
                r.status = Status::Xpass;
                r.detail = format!(
                    "passed, but listed as an expected failure ({reason}): remove it from the list"
                );
            }
            Status::Unsupported | Status::OutOfScope | Status::Skip => {}
            _ => {
                r.detail = format!("expected failure ({reason}): {}", r.detail);
                r.failed_as = Some(r.status);
                r.xfail_reason = Some(reason.to_string());
                r.status = Status::Xfail;
            }
        }
    }
    r
}

/// The detail of a case graded a crash for what its standard error says.
fn crash_detail(pattern: &str, otherwise: &str) -> String {
    format!(
        "standard error contains the crash_on_stderr pattern \"{pattern}\" (otherwise: {otherwise})"
    )
}

fn safe_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The call of an AER-1 case with its inputs written as `files`.
pub(crate) fn one_shot_call(c: &Case<'_>, files: &[(String, PathBuf)]) -> Option<Call> {
    Call::for_case(c, |role| {
        files
            .iter()
            .find(|(r, _)| r == role)
            .map(|(_, p)| p.display().to_string())
    })
}

/// A one-shot call made and its ending classified: the output, what the exit means, the call.
struct Invoked {
    out: crate::process::RunOutput,
    exit: ExitMeaning,
    call: Call,
    stderr: String,
}

/// Writes the case's inputs, runs the implementation once (through the adapter's template when
/// it has one) and reads its ending; `Err` is the case's run when no exit code came back (or an
/// adapter's crash pattern matched): its status and why, the excerpt of its standard error and
/// what it left running.
// The `Err` is large, but it is the case's whole run, made once per case and returned as is.
#[allow(clippy::result_large_err)]
fn invoke(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    dir: &Path,
    capture_limit: usize,
) -> Result<Invoked, CaseRun> {
    // Before the implementation ran: nothing on its standard error, nothing left running.
    let before_run = |detail: String| CaseRun::of(Status::Crash, detail, String::new());
    let v = c.vector;
    let files =
        write_inputs(v, dir).map_err(|e| before_run(format!("cannot prepare inputs: {e}")))?;
    let Some(call) = one_shot_call(c, &files) else {
        return Err(before_run(
            "the vector lacks an input its operation needs".into(),
        ));
    };
    let mut argv = imp.argv.clone();
    match adapter {
        Some(a) => argv.extend(a.arguments(&call)),
        None => argv.extend(call.argv()),
    }
    let out = run(&RunSpec {
        argv,
        stdin: Vec::new(),
        timeout: imp.timeout,
        capture_limit,
    })
    .map_err(|e| before_run(format!("cannot start the implementation: {e}")))?;
    let stderr = excerpt(&out.stderr.bytes);
    let strays = out.strays;
    let failed = move |status, detail: String, stderr| {
        CaseRun::of(status, detail, stderr).with_strays(strays)
    };
    let exit = match &out.ending {
        Ending::TimedOut => {
            return Err(failed(
                Status::Timeout,
                format!("no exit within {} s", imp.timeout.as_secs_f64()),
                stderr,
            ))
        }
        Ending::Signaled(sig) => {
            return Err(failed(
                Status::Crash,
                format!("killed by signal {sig}"),
                stderr,
            ))
        }
        Ending::Exited(code) => match adapter {
            Some(a) => {
                // All that was captured, not only the excerpt the results file keeps: a tool
                // may log much before it dies.
                if let Some(pattern) = a.crash_pattern(&out.stderr.bytes) {
                    let detail = crash_detail(pattern, &format!("exit code {code}"));
                    return Err(failed(Status::Crash, detail, stderr));
                }
                a.exit_meaning(Some(*code))
            }
            None => ExitMeaning::of(Some(*code)),
        },
    };
    if exit == ExitMeaning::Crash {
        return Err(failed(
            Status::Crash,
            format!(
                "exit code {} is not one of {}",
                out.ending
                    .code()
                    .map_or_else(|| "(none)".to_string(), |c| c.to_string()),
                adapter.map_or_else(
                    || agentconf_contract::exit::EXIT_CODES_IN_WORDS.to_string(),
                    |a| a.exit_codes_in_words()
                )
            ),
            stderr,
        ));
    }
    Ok(Invoked {
        out,
        exit,
        call,
        stderr,
    })
}

/// The detail of an unsupported answer: `unsupported (exit 89)`, with the code the tool exited
/// with (an adapter may map another code to unsupported).
fn unsupported_detail(ending: &Ending) -> String {
    match ending.code() {
        Some(code) => format!("unsupported (exit {code})"),
        None => "unsupported".into(),
    }
}

/// The most an emitter may write for one vector: at least four times the largest artifact any
/// emitter vector asks for (a 10,000-step timeline, about 3 MiB; a test in the corpus holds the
/// two together), so pretty-printing and extra members fit, and a runaway emitter costs the
/// harness at most this much memory per worker. More is `wrong-output`, with the size.
pub const EMIT_OUTPUT_LIMIT: usize = 16 << 20;

/// An emitter's case: its standard output graded against what the draft's construction gives
/// for the vector's input (a timeline of its steps, or a commitment of its timeline), with what
/// it wrote (`output`) and the rules a wrong output broke (`broken_rules`).
fn run_emit(imp: &Implementation, adapter: Option<&Adapter>, c: &Case<'_>, dir: &Path) -> CaseRun {
    let limit = EMIT_OUTPUT_LIMIT;
    let Invoked {
        out, exit, stderr, ..
    } = match invoke(imp, adapter, c, dir, limit) {
        Ok(i) => i,
        Err(failed) => return failed,
    };
    let strays = out.strays;
    // Every answer the call gave: with its standard error and what it left running.
    let ran = |grade| CaseRun::graded(grade, stderr).with_strays(strays);
    let mut output = None;
    let graded = match exit {
        ExitMeaning::Unsupported => {
            return ran(Grade::new(
                Status::Unsupported,
                unsupported_detail(&out.ending),
            ));
        }
        ExitMeaning::Reject => crate::emitted::grade_emitted(c, false, &[]),
        _ if out.stdout.truncated() => {
            return ran(Grade::new(
                Status::WrongOutput,
                format!(
                    "the output is over {limit} bytes ({} in all), the most an emitted artifact \
                     may take: at least four times the largest artifact any emitter vector asks \
                     for",
                    out.stdout.total
                ),
            ));
        }
        _ => {
            let graded = crate::emitted::grade_emitted(c, true, &out.stdout.bytes);
            output = Some(out.stdout.bytes);
            graded
        }
    };
    CaseRun {
        output,
        broken_rules: graded.broken_rules,
        ..ran(Grade::new(graded.status, graded.detail))
    }
}

fn run_one_shot(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    dir: &Path,
    grading: Grading,
) -> CaseRun {
    let Invoked {
        out,
        exit,
        call,
        stderr,
    } = match invoke(imp, adapter, c, dir, imp.capture_limit) {
        Ok(i) => i,
        Err(failed) => return failed,
    };
    let strays = out.strays;
    // Every answer the call gave: with its standard error and what it left running.
    let ran = |grade| CaseRun::graded(grade, stderr).with_strays(strays);
    let operation = call.operation();
    let result = match exit {
        ExitMeaning::Unsupported => {
            return ran(Grade::new(Status::Unsupported, unsupported_detail(&out.ending)));
        }
        // A tool run through an adapter template prints its own output, not the contract's
        // result object: its messages go through the adapter's error map instead.
        _ if adapter.is_some_and(|a| a.has_template(operation)) => None,
        _ => match parse_result(&out.stdout.bytes, exit) {
            Ok(r) => r,
            // A result object cut at the capture limit fails as malformed JSON; say why.
            Err(_) if out.stdout.truncated() => {
                return ran(Grade::new(
                    Status::ProtocolError,
                    format!(
                        "standard output is {} bytes, over the harness's {}-byte capture limit: the result object could not be read",
                        out.stdout.total, imp.capture_limit
                    ),
                ))
            }
            Err(e) => return ran(Grade::new(Status::ProtocolError, e.to_string())),
        },
    };
    let accepted = exit == ExitMeaning::Accept;
    // Rules come from the result object, else from the adapter's error map over the tool's
    // messages; with neither, grading is verdict-only.
    let mapped = match (&result, adapter) {
        (None, Some(a)) => {
            let mut text = String::from_utf8_lossy(&out.stdout.bytes).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr.bytes));
            a.mapped_rules(operation, &c.id, &text)
        }
        _ => Vec::new(),
    };
    let grading = if result.is_none() && mapped.is_empty() {
        Grading::Loose
    } else {
        grading
    };
    let reported: Vec<Rule> = result.map(|r| r.rules).unwrap_or(mapped);
    ran(grade_verdict(c, accepted, &reported, grading))
}

// ------------------------------------------------------------------------------------------------
// GRP scenarios

/// Creates a scenario's state directory under the state root, which another worker may be
/// removing at that moment (when its scenario was the last in it): a few tries.
fn create_state_dir(state: &Path) -> std::io::Result<()> {
    let mut tries = 0;
    loop {
        match std::fs::create_dir_all(state) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < 5 => tries += 1,
            other => return other,
        }
    }
}

fn run_scenario(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    dir: &Path,
    grading: Grading,
) -> CaseRun {
    let v = c.vector;
    if let Some(p) = v.requires.iter().find(|p| !imp.profiles.contains(p)) {
        return CaseRun::of(
            Status::Unsupported,
            format!("needs the {p} profile, which is not claimed"),
            String::new(),
        );
    }
    // The timeout is the whole scenario's, however many receivers and steps it has.
    let deadline = Instant::now() + imp.timeout;
    let left_descendants = std::rc::Rc::new(std::cell::Cell::new(false));
    // On a disk, not beside the inputs (which may be in memory); a number keeps two cases of one
    // vector apart (two implementations run by one process, say).
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let state = crate::dirs::state_root().join(format!("{n}-{}", safe_name(&c.id)));
    let stderr = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut judge = Graded::new(v, grading);
    let store_addr = store_address(adapter.and_then(|a| a.store_addr.as_deref()));
    let played = (|| {
        let crash = |e: std::io::Error| Grade::new(Status::Crash, e.to_string());
        write_inputs(v, dir).map_err(crash)?;
        create_state_dir(&state).map_err(crash)?;
        let mut receivers = ProcessReceivers {
            argv: &imp.argv,
            revision: c.revision,
            dir,
            state: state.clone(),
            deadline,
            timeout: imp.timeout,
            capture_limit: imp.capture_limit,
            left_descendants: std::rc::Rc::clone(&left_descendants),
            stderr: std::rc::Rc::clone(&stderr),
            started: 0,
            nodes: NodeSetup::new(&c.id, store_addr),
        };
        play(v, &mut receivers, &mut judge)
    })();
    let (grade, suite_detail) = judge.finish(played);
    let _ = std::fs::remove_dir_all(&state);
    // The root goes with the last scenario (it stays while another one's directory is in it).
    let _ = std::fs::remove_dir(crate::dirs::state_root());
    let strays = if left_descendants.get() {
        Strays::Killed
    } else {
        Strays::None
    };
    let stderr = String::from_utf8_lossy(&stderr.borrow()).into_owned();
    CaseRun {
        suite_detail,
        ..CaseRun::graded(grade, stderr).with_strays(strays)
    }
}
