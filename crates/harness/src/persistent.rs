//! Persistent mode (CONTRACT.md section 8): one long-lived implementation process answers JSON
//! lines. The harness writes `start`, then one `run` request per AER-1 vector (tagged with a fresh
//! `seq` that the response must echo), then `stop`; the implementation writes exactly one response
//! line per request, in order.
//!
//! A response that cannot be trusted to belong to its request — the output ended, the line is not
//! JSON, the `seq` is not echoed, or no line came within the timeout — fails that vector (crash,
//! protocol-error or timeout), and the process group is killed; the next vector starts a new
//! process (`start` again), so one crash costs one vector, not the run. A process that exited
//! between two requests (found gone, or gone before it read the next request) costs no vector at
//! all: the request goes to a new process. [`PersistentSession::restarts`] counts the restarts.
//! A response that is in step but wrong (a schema violation under `validate_protocol`, a verdict
//! that contradicts `exit`, an unknown rule id) is a protocol error of that vector only.
//!
//! GRP scenarios need real process restarts and concurrent processes, and an emitter's answer is
//! its whole output, so neither is sent to the persistent process: [`PersistentSession::run`]
//! runs them one-shot ([`crate::runner::run_case`]) with the same command prefix.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agentconf_contract::case::Case;
use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::protocol::{
    Capabilities, RunRequest, RunResponse, StartRequest, StartResponse, PROTOCOL_VERSION, SCHEMA,
    SERVE, STOP_REQUEST,
};
use agentconf_contract::result::{check_result, ImplResult, ProtocolError, RawResult};
use agentconf_contract::vector::Suite;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::child::{describe_status, excerpt, LineFailure, LongLived};
use crate::grade::{grade_verdict, Grade, Grading};
use crate::materialize::write_inputs;
use crate::runner::{one_shot_call, run_case, Implementation, VectorResult};
use crate::status::Status;

mod error;

pub use error::{PersistentError, ServerEnded, StartProblem, StopProblem};

/// After this many failed starts in a row, the remaining vectors fail at once instead of each
/// waiting for another start to fail.
const MAX_FAILED_STARTS: usize = 3;

/// At most this many bytes in one response line.
pub const MAX_RESPONSE_LINE_BYTES: usize = 1 << 20;

/// How to run an implementation in persistent mode.
#[derive(Clone, Debug)]
pub struct PersistentConfig {
    /// The command prefix, the timeout (per request, and for `start`), the capture limit (of
    /// standard error) and the claimed GRP profiles. GRP scenarios run one-shot with it.
    pub implementation: Implementation,
    /// Appended to the prefix to start the persistent process (`serve`).
    pub serve_args: Vec<String>,
    /// Check every response against [`SCHEMA`]; a violation is a protocol error that quotes the
    /// schema's complaint.
    pub validate_protocol: bool,
}

impl PersistentConfig {
    /// `IMPL serve`, without schema validation.
    pub fn new(implementation: Implementation) -> PersistentConfig {
        PersistentConfig {
            implementation,
            serve_args: vec![SERVE.to_string()],
            validate_protocol: false,
        }
    }
}

/// What the implementation said about itself in its `start` response.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub capabilities: Capabilities,
}

/// One implementation process in persistent mode, restarted after a crash.
pub struct PersistentSession {
    config: PersistentConfig,
    server: Option<LongLived>,
    info: ServerInfo,
    restarts: usize,
    failed_starts: usize,
    last_start_error: String,
    next_seq: u64,
}

/// Which response a line answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResponseKind {
    Start,
    Run,
    Stop,
}

impl ResponseKind {
    fn def(self) -> &'static str {
        match self {
            ResponseKind::Start => "start_response",
            ResponseKind::Run => "run_response",
            ResponseKind::Stop => "stop_response",
        }
    }
}

/// What the schema says is wrong with `response` as an answer of `kind` (empty: nothing).
pub(crate) fn schema_errors(kind: ResponseKind, response: &Value) -> Vec<String> {
    let validators = match validators() {
        Ok(v) => v,
        Err(e) => return vec![e.clone()],
    };
    let validator = &validators[kind as usize];
    validator
        .iter_errors(response)
        .map(|e| {
            let path = e.instance_path.to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("{path}: {e}")
            }
        })
        .collect()
}

/// One validator per response kind, each the schema with its root pointed at that definition.
fn validators() -> &'static Result<[jsonschema::Validator; 3], String> {
    static VALIDATORS: OnceLock<Result<[jsonschema::Validator; 3], String>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let root: Value = serde_json::from_str(SCHEMA)
            .map_err(|e| format!("protocol.schema.json is not JSON: {e}"))?;
        let build = |kind: ResponseKind| {
            let mut schema = root.clone();
            if let Some(object) = schema.as_object_mut() {
                object.remove("anyOf");
                object.insert(
                    "$ref".into(),
                    Value::String(format!("#/$defs/{}", kind.def())),
                );
            }
            jsonschema::validator_for(&schema)
                .map_err(|e| format!("protocol.schema.json is not a valid schema: {e}"))
        };
        Ok([
            build(ResponseKind::Start)?,
            build(ResponseKind::Run)?,
            build(ResponseKind::Stop)?,
        ])
    })
}

impl PersistentSession {
    /// Starts the process (`IMPL serve`), sends `start` and reads the capabilities. `Err` means
    /// the command or its wrapper is broken (it cannot be started, or its start response is
    /// wrong); the error says why and quotes its standard error.
    pub fn start(config: PersistentConfig) -> Result<PersistentSession, PersistentError> {
        let (server, info) = start_server(&config)?;
        Ok(PersistentSession {
            config,
            server: Some(server),
            info,
            restarts: 0,
            failed_starts: 0,
            last_start_error: String::new(),
            next_seq: 1,
        })
    }

    /// The implementation's name, version and capabilities, from its latest start.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// How many times the process was started again after the first start.
    pub fn restarts(&self) -> usize {
        self.restarts
    }

    /// Runs one case: its inputs are written into a fresh directory under `work` (removed
    /// afterwards). GRP scenarios and emitters run one-shot.
    pub fn run(&mut self, c: &Case<'_>, work: &Path, grading: Grading) -> VectorResult {
        if c.vector.suite == Suite::GrpAdmission || c.vector.suite.graded_on_output() {
            return run_case(&self.config.implementation, c, work, grading);
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = work.join(format!("persistent-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let result = match write_inputs(c.vector, &dir) {
            Ok(files) => self.run_with_files(c, &files, grading),
            Err(e) => VectorResult::graded(
                &c.id,
                Grade::new(Status::Crash, format!("cannot prepare inputs: {e}")),
            ),
        };
        let _ = std::fs::remove_dir_all(&dir);
        result
    }

    /// Runs a case of an AER-1 vector whose inputs were already written: `files` as returned by
    /// [`write_inputs`]. The implementation must not change them (each run reads them again).
    pub fn run_with_files(
        &mut self,
        c: &Case<'_>,
        files: &[(String, PathBuf)],
        grading: Grading,
    ) -> VectorResult {
        let started = Instant::now();
        let Answered { grade, stderr } = self.exchange(c, files, grading);
        VectorResult {
            stderr,
            duration_ms: started.elapsed().as_millis() as u64,
            ..VectorResult::graded(&c.id, grade)
        }
    }

    /// Sends `stop`, reads `{"stopped":true}` and waits for exit 0. `Err` says what went wrong
    /// (the process is killed then).
    pub fn stop(mut self) -> Result<(), PersistentError> {
        let Some(mut server) = self.server.take() else {
            return Ok(());
        };
        let timeout = self.config.implementation.timeout;
        let line = match server.request(format!("{STOP_REQUEST}\n").as_bytes(), timeout) {
            Ok(line) => line,
            Err(f) => {
                return Err(PersistentError::NoStopResponse {
                    why: describe(&f, timeout),
                    ended: end(server, Duration::from_millis(100)),
                });
            }
        };
        let checked = (|| {
            let value: Value = serde_json::from_slice(&line).map_err(StopProblem::NotJson)?;
            if self.config.validate_protocol {
                let errors = schema_errors(ResponseKind::Stop, &value);
                if !errors.is_empty() {
                    return Err(StopProblem::Schema(errors));
                }
            }
            if value.get("stopped") != Some(&Value::Bool(true)) {
                return Err(StopProblem::NotStopped(line.clone()));
            }
            Ok(())
        })();
        let ended = end(server, timeout);
        checked.map_err(PersistentError::StopResponse)?;
        if ended.how == "exit status 0" {
            Ok(())
        } else {
            Err(PersistentError::StopExit(ended))
        }
    }

    fn exchange(
        &mut self,
        c: &Case<'_>,
        files: &[(String, PathBuf)],
        grading: Grading,
    ) -> Answered {
        let Some(call) = one_shot_call(c, files) else {
            return Answered::alone(
                Status::Crash,
                "the vector lacks an input its operation needs",
            );
        };
        let args = call.argv();
        if let Some(reason) = self.unclaimed(&args) {
            return Answered::alone(Status::Unsupported, reason);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let mut request =
            serde_json::to_vec(&RunRequest::new(seq, &args[0], &args[1..])).unwrap_or_default();
        request.push(b'\n');
        self.send_run(c, seq, &request, grading)
    }

    /// Sends one run request and grades the response. A process that exited before it read the
    /// request — found exited before the request is sent, its input closed (a broken pipe), or
    /// the request still unread in its input pipe after its output ended — exited between two
    /// requests: it is restarted and the request sent again (once), not charged to the vector.
    fn send_run(&mut self, c: &Case<'_>, seq: u64, request: &[u8], grading: Grading) -> Answered {
        let timeout = self.config.implementation.timeout;
        let mut resent = false;
        let mut gone = Gone::default();
        let line = loop {
            if let Some(ended) = self.take_exited() {
                gone.note(ended);
            }
            if let Err(e) = self.ensure_started() {
                return gone.with(Answered::alone(Status::Crash, e));
            }
            let Some(server) = self.server.as_mut() else {
                return gone.with(Answered::alone(Status::Crash, "no running process"));
            };
            let f = match server.request(request, timeout) {
                Ok(line) => break line,
                Err(f) => f,
            };
            // After the end of its output, give it a moment to exit so its status can be
            // reported; a process that hangs or talks too much is killed at once.
            let (status, grace) = match &f {
                LineFailure::Timeout => (Status::Timeout, Duration::ZERO),
                LineFailure::Io(e) if e.kind() == io::ErrorKind::TimedOut => {
                    (Status::Timeout, Duration::ZERO)
                }
                LineFailure::TooLong => (Status::ProtocolError, Duration::ZERO),
                LineFailure::Eof | LineFailure::Io(_) => {
                    (Status::Crash, Duration::from_millis(100))
                }
            };
            let how = server
                .wait_exit(Instant::now() + grace)
                .map_or_else(|| "killed by the harness".to_string(), describe_status);
            // Killed (with its group) before its input is looked at: nothing of it can read the
            // request any more.
            server.kill();
            let unread = status == Status::Crash
                && (matches!(&f, LineFailure::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
                    || server.unread_input().is_some_and(|n| n >= request.len()));
            let stderr = self.discard_server(Duration::ZERO).stderr;
            if unread && !resent {
                resent = true;
                gone.note(ServerEnded { how, stderr });
                continue;
            }
            let again = if unread {
                "; it exited before reading the request, also right after a restart"
            } else {
                ""
            };
            return gone.with(Answered {
                grade: Grade::new(status, format!("{} ({how}){again}", describe(&f, timeout))),
                stderr,
            });
        };
        let Some(server) = self.server.as_mut() else {
            return gone.with(Answered::alone(Status::Crash, "no running process"));
        };
        let stderr = excerpt(&server.take_stderr());
        let answer = match read_run_response(&line, seq, self.config.validate_protocol) {
            Ok(answer) => answer,
            Err(ReplyError::OutOfStep(why)) => {
                // The next line could not be trusted to answer the next request.
                let more = self.discard_server(Duration::ZERO).stderr;
                return gone.with(Answered {
                    grade: Grade::new(
                        Status::ProtocolError,
                        format!("{why}; the process was restarted"),
                    ),
                    stderr: stderr + &more,
                });
            }
            Err(ReplyError::Invalid(why)) => {
                return gone.with(Answered {
                    grade: Grade::new(Status::ProtocolError, why),
                    stderr,
                })
            }
        };
        gone.with(Answered {
            grade: grade_run_answer(c, answer, grading),
            stderr,
        })
    }

    /// Why the vector's call is outside the claimed capabilities, if it is.
    fn unclaimed(&self, args: &[String]) -> Option<String> {
        let caps = &self.info.capabilities;
        let operation = args.first()?;
        if !caps.operations.contains(operation) {
            return Some(format!(
                "{operation} is not among the operations the implementation claims"
            ));
        }
        match operation.as_str() {
            "aer1-timeline" => {
                let revision = args.get(1)?;
                caps.timeline_revisions
                    .as_ref()
                    .filter(|r| !r.contains(revision))
                    .map(|_| {
                        format!("timeline revision {revision} is not among the claimed revisions")
                    })
            }
            "aer1-receipt" => {
                let tier = args.get(2).map_or("core", String::as_str);
                caps.receipt_tiers()
                    .filter(|t| !t.iter().any(|t| t == tier))
                    .map(|_| format!("receipt tier {tier} is not among the claimed tiers"))
            }
            _ => None,
        }
    }

    /// Discards the current process if it exited between requests: how it ended and the
    /// standard error it left, so that the next request's result can say so.
    fn take_exited(&mut self) -> Option<ServerEnded> {
        let server = self.server.as_mut()?;
        server.exited()?;
        Some(self.discard_server(Duration::ZERO))
    }

    /// A running process: the current one, else a new one (after [`Self::take_exited`], a
    /// process that is there is alive).
    fn ensure_started(&mut self) -> Result<(), String> {
        if self.server.is_some() {
            return Ok(());
        }
        if self.failed_starts >= MAX_FAILED_STARTS {
            return Err(format!(
                "gave up restarting the implementation after {MAX_FAILED_STARTS} failed starts: {}",
                self.last_start_error
            ));
        }
        match start_server(&self.config) {
            Ok((server, info)) => {
                self.server = Some(server);
                self.info = info;
                self.restarts += 1;
                self.failed_starts = 0;
                Ok(())
            }
            Err(e) => {
                self.failed_starts += 1;
                // Kept as its message: only the message is said again, when giving up.
                self.last_start_error = e.to_string();
                Err(format!("the implementation could not be restarted: {e}"))
            }
        }
    }

    /// Kills the current process (after up to `grace` for it to exit by itself); how it ended and
    /// its remaining standard error.
    fn discard_server(&mut self, grace: Duration) -> ServerEnded {
        match self.server.take() {
            Some(server) => end(server, grace),
            None => ServerEnded {
                how: "no process".into(),
                stderr: String::new(),
            },
        }
    }
}

/// A graded answer to one request, with the standard error that goes with it.
struct Answered {
    grade: Grade,
    stderr: String,
}

impl Answered {
    /// A grade given before the process said anything.
    fn alone(status: Status, detail: impl Into<String>) -> Answered {
        Answered {
            grade: Grade::new(status, detail),
            stderr: String::new(),
        }
    }
}

/// Processes that exited between two requests, found while sending the next one.
#[derive(Default)]
struct Gone {
    /// How the last of them ended, when one did.
    how: Option<String>,
    /// The standard error they left after their last responses.
    stderr: String,
}

impl Gone {
    fn note(&mut self, ended: ServerEnded) {
        self.how = Some(ended.how);
        self.stderr.push_str(&ended.stderr);
    }

    /// The answer to the request these processes exited before: its detail says one did, and
    /// their standard error comes first, as it goes with the next response (CONTRACT.md 8.2),
    /// also when the process that wrote it exited before that response and another gave it.
    fn with(self, answered: Answered) -> Answered {
        let Answered { mut grade, stderr } = answered;
        if let Some(how) = &self.how {
            grade.detail = format!(
                "{}; the process had exited between requests ({how}) and was restarted \
                 before this one (not charged to this vector)",
                grade.detail
            );
        }
        Answered {
            grade,
            stderr: self.stderr + &stderr,
        }
    }
}

impl Drop for PersistentSession {
    fn drop(&mut self) {
        self.discard_server(Duration::ZERO);
    }
}

/// The result object of an accept or reject response, checked as the one-shot contract checks
/// standard output (verdict agrees with exit, catalogue ids only).
fn result_object(response: RunResponse, exit: ExitMeaning) -> Result<Option<ImplResult>, String> {
    let Some(verdict) = response.verdict else {
        if response.rules.is_empty() {
            return Ok(None);
        }
        return Err("the response names rules but has no verdict".into());
    };
    let raw = RawResult {
        verdict,
        rules: response.rules,
        messages: response.messages,
    };
    check_result(raw, exit).map(Some).map_err(|e| match e {
        ProtocolError::NotAResult { detail } => detail,
        other => other.to_string(),
    })
}

/// Why a run response line cannot be graded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReplyError {
    /// The line is not JSON or does not echo the request's `seq`: it cannot be trusted to belong
    /// to this request, so the process must be restarted.
    OutOfStep(String),
    /// In step but wrong (schema or shape): this vector only. A verdict that contradicts the exit
    /// code or an unknown rule id is not this error but [`RunAnswer::result`]'s `Err`, graded
    /// the same way (a protocol error of this vector).
    Invalid(String),
}

/// A run response that is in step, read into what grading needs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunAnswer {
    pub exit: ExitMeaning,
    /// The exit number as the implementation wrote it.
    pub exit_number: i64,
    /// The result object, when the response carries a verdict (`Ok(None)` without one).
    pub result: Result<Option<ImplResult>, String>,
    pub messages: Vec<String>,
}

/// Reads one response line to the `run` request tagged `seq`. Pure: no process involved, so the
/// fuzz target `harness_persistent` and the unit tests below call it directly.
pub(crate) fn read_run_response(
    line: &[u8],
    seq: u64,
    validate: bool,
) -> Result<RunAnswer, ReplyError> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        ReplyError::OutOfStep(format!(
            "response is not JSON ({e}): {}",
            line_excerpt(line)
        ))
    })?;
    if value.get("seq") != Some(&Value::from(seq)) {
        return Err(ReplyError::OutOfStep(format!(
            "response seq {} does not echo the request's seq {seq}",
            value.get("seq").map_or("(absent)".to_string(), |s| excerpt(
                s.to_string().as_bytes()
            ))
        )));
    }
    if validate {
        let errors = schema_errors(ResponseKind::Run, &value);
        if !errors.is_empty() {
            return Err(ReplyError::Invalid(format!(
                "response breaks protocol.schema.json: {}; response: {}",
                errors.join("; "),
                line_excerpt(line)
            )));
        }
    }
    let response: RunResponse = serde_json::from_value(value).map_err(|e| {
        ReplyError::Invalid(format!(
            "response is not a run response ({e}): {}",
            line_excerpt(line)
        ))
    })?;
    let exit = ExitMeaning::of(i32::try_from(response.exit).ok());
    let messages = response.messages.clone();
    let exit_number = response.exit;
    let result = match exit {
        ExitMeaning::Accept | ExitMeaning::Reject => result_object(response, exit),
        ExitMeaning::Crash | ExitMeaning::Unsupported => Ok(None),
    };
    Ok(RunAnswer {
        exit,
        exit_number,
        result,
        messages,
    })
}

/// Grades an in-step answer against the case.
pub(crate) fn grade_run_answer(c: &Case<'_>, answer: RunAnswer, grading: Grading) -> Grade {
    match answer.exit {
        ExitMeaning::Crash => Grade::new(
            Status::Crash,
            format!(
                "exit {} is not 0, 1 or 89{}",
                answer.exit_number,
                messages_note(&answer.messages)
            ),
        ),
        ExitMeaning::Unsupported => Grade::new(
            Status::Unsupported,
            format!("unsupported (exit {})", answer.exit_number),
        ),
        ExitMeaning::Accept | ExitMeaning::Reject => match answer.result {
            Ok(result) => {
                // Without a result object there are no rules to compare.
                let grading = if result.is_none() {
                    Grading::Loose
                } else {
                    grading
                };
                let reported = result.map(|r| r.rules).unwrap_or_default();
                grade_verdict(c, answer.exit == ExitMeaning::Accept, &reported, grading)
            }
            Err(e) => Grade::new(Status::ProtocolError, e),
        },
    }
}

/// Reads the response line to `start`: the implementation's name and capabilities.
pub(crate) fn read_start_response(line: &[u8], validate: bool) -> Result<ServerInfo, StartProblem> {
    let value: Value = serde_json::from_slice(line).map_err(|source| StartProblem::NotJson {
        source,
        line: line.to_vec(),
    })?;
    if validate {
        let errors = schema_errors(ResponseKind::Start, &value);
        if !errors.is_empty() {
            return Err(StartProblem::Schema(errors));
        }
    }
    let response: StartResponse =
        serde_json::from_value(value).map_err(|source| StartProblem::NotStartResponse {
            source,
            line: line.to_vec(),
        })?;
    if response.protocol != PROTOCOL_VERSION {
        return Err(StartProblem::Protocol(excerpt(
            response.protocol.to_string().as_bytes(),
        )));
    }
    Ok(ServerInfo {
        name: response.implementation.name,
        version: response.implementation.version,
        capabilities: response.capabilities,
    })
}

/// Starts a process and has it answer `start`.
fn start_server(config: &PersistentConfig) -> Result<(LongLived, ServerInfo), PersistentError> {
    let imp = &config.implementation;
    let mut argv = imp.argv.clone();
    argv.extend(config.serve_args.iter().cloned());
    let mut server = LongLived::spawn(&argv, MAX_RESPONSE_LINE_BYTES, imp.capture_limit.max(2000))
        .map_err(|source| PersistentError::Spawn {
            command: imp.argv.join(" "),
            source,
        })?;
    let mut request = serde_json::to_vec(&StartRequest::new()).unwrap_or_default();
    request.push(b'\n');
    let grace = Duration::from_millis(100);
    let line = match server.request(&request, imp.timeout) {
        Ok(line) => line,
        Err(f) => {
            return Err(PersistentError::NoStartResponse {
                why: describe(&f, imp.timeout),
                ended: end(server, grace),
            })
        }
    };
    let info = match read_start_response(&line, config.validate_protocol) {
        Ok(info) => info,
        Err(problem) => {
            return Err(PersistentError::StartResponse {
                problem,
                ended: end(server, grace),
            })
        }
    };
    let _ = server.take_stderr();
    Ok((server, info))
}

// ------------------------------------------------------------------------------------------------
// The process

/// Why no response line came, in words.
fn describe(f: &LineFailure, timeout: Duration) -> String {
    match f {
        LineFailure::Eof => "the process ended its output without a response".into(),
        LineFailure::Timeout => format!("no response within {} s", timeout.as_secs_f64()),
        LineFailure::TooLong => {
            format!("a response line longer than {MAX_RESPONSE_LINE_BYTES} bytes")
        }
        LineFailure::Io(e) => format!("cannot talk to the process: {e}"),
    }
}

/// Ends the process (see [`LongLived::end`]); its remaining standard error as an excerpt.
fn end(server: LongLived, grace: Duration) -> ServerEnded {
    let (how, stderr) = server.end(grace);
    ServerEnded {
        how,
        stderr: excerpt(&stderr),
    }
}

fn line_excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(300)]).into_owned();
    if line.len() > 300 {
        format!("{text:?}…")
    } else {
        format!("{text:?}")
    }
}

fn stderr_note(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; stderr: {}", stderr.trim_end())
    }
}

fn messages_note(messages: &[String]) -> String {
    if messages.is_empty() {
        String::new()
    } else {
        format!("; messages: {}", messages.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_responses_out_of_step_or_invalid() {
        let out_of_step = |line: &str| {
            matches!(
                read_run_response(line.as_bytes(), 7, true),
                Err(ReplyError::OutOfStep(_))
            )
        };
        assert!(out_of_step("not json"));
        assert!(out_of_step(r#"{"exit":0}"#));
        assert!(out_of_step(r#"{"seq":6,"exit":0}"#));
        assert!(out_of_step(r#"{"seq":"7","exit":0}"#));
        // In step but breaking the schema (with validation) or the shape (without).
        assert!(matches!(
            read_run_response(br#"{"seq":7}"#, 7, true),
            Err(ReplyError::Invalid(_))
        ));
        assert!(matches!(
            read_run_response(br#"{"seq":7,"exit":"0"}"#, 7, false),
            Err(ReplyError::Invalid(_))
        ));
        // A verdict against the exit code, or an unknown rule: the answer carries the error.
        let a = read_run_response(br#"{"seq":7,"exit":0,"verdict":"invalid"}"#, 7, true).unwrap();
        assert!(a.result.is_err());
        let a = read_run_response(
            br#"{"seq":7,"exit":1,"verdict":"invalid","rules":["NOT-A-RULE"]}"#,
            7,
            true,
        )
        .unwrap();
        assert!(a.result.unwrap_err().contains("NOT-A-RULE"));
        // A good answer.
        let a = read_run_response(
            br#"{"seq":7,"exit":1,"verdict":"invalid","rules":["AER1-TL-SEQ"],"messages":["m"]}"#,
            7,
            true,
        )
        .unwrap();
        assert_eq!(a.exit, ExitMeaning::Reject);
        assert_eq!(
            a.result.unwrap().unwrap().rules,
            [agentconf_rules::Rule::Aer1TlSeq]
        );
        // exit 89 and crashes need no verdict.
        let a = read_run_response(br#"{"seq":7,"exit":89}"#, 7, true).unwrap();
        assert_eq!(a.exit, ExitMeaning::Unsupported);
        let a = read_run_response(br#"{"seq":7,"exit":3}"#, 7, false).unwrap();
        assert_eq!((a.exit, a.exit_number), (ExitMeaning::Crash, 3));
    }

    #[test]
    fn start_responses() {
        let good = br#"{"protocol":1,"implementation":{"name":"x","version":"1"},"capabilities":{"operations":["aer1-timeline"]}}"#;
        let info = read_start_response(good, true).unwrap();
        assert_eq!(info.name, "x");
        assert_eq!(info.capabilities.operations, ["aer1-timeline"]);
        let wrong_protocol =
            br#"{"protocol":2,"implementation":{"name":"x"},"capabilities":{"operations":[]}}"#;
        let refused = |line: &[u8]| {
            read_start_response(line, false)
                .err()
                .map(|e| e.to_string())
        };
        assert!(matches!(
            read_start_response(wrong_protocol, false),
            Err(StartProblem::Protocol(_))
        ));
        assert!(refused(wrong_protocol).is_some_and(|e| e.contains("protocol 2")));
        assert!(matches!(
            read_start_response(b"{", false),
            Err(StartProblem::NotJson { .. })
        ));
        assert!(refused(b"{").is_some_and(|e| e.contains("not JSON")));
    }

    #[test]
    fn receipt_tiers_are_read_under_both_names() {
        let start = |caps: &str| {
            let line = format!(
                r#"{{"protocol":1,"implementation":{{"name":"x","version":"1"}},"capabilities":{caps}}}"#
            );
            read_start_response(line.as_bytes(), true)
                .unwrap()
                .capabilities
        };
        let caps = start(r#"{"operations":["aer1-receipt"]}"#);
        assert_eq!(caps.receipt_tiers(), None);
        let caps = start(r#"{"operations":["aer1-receipt"],"tiers":["core","anchored"]}"#);
        assert_eq!(caps.receipt_tiers().unwrap(), ["core", "anchored"]);
        // The pre-0.2.0 name: core and strict only, so anchored and profile are not claimed.
        let caps = start(r#"{"operations":["aer1-receipt"],"id_tiers":["core","strict"]}"#);
        assert_eq!(caps.receipt_tiers().unwrap(), ["core", "strict"]);
        // Both: tiers wins.
        let caps =
            start(r#"{"operations":["aer1-receipt"],"id_tiers":["core"],"tiers":["profile"]}"#);
        assert_eq!(caps.receipt_tiers().unwrap(), ["profile"]);
        // The schema knows the four tiers and no others.
        let bad = json!({"protocol": 1, "implementation": {"name": "x", "version": "1"},
            "capabilities": {"operations": ["aer1-receipt"], "tiers": ["loose"]}});
        assert!(!schema_errors(ResponseKind::Start, &bad).is_empty());
    }
    use serde_json::json;

    #[test]
    fn the_schema_compiles_and_tells_the_shapes_apart() {
        assert!(validators().is_ok(), "{:?}", validators().as_ref().err());
        let start = json!({"protocol": 1, "implementation": {"name": "x", "version": "1"},
            "capabilities": {"operations": ["aer1-timeline"], "timeline_revisions": ["09"]}});
        assert!(schema_errors(ResponseKind::Start, &start).is_empty());
        assert!(!schema_errors(ResponseKind::Run, &start).is_empty());
        let run = json!({"seq": 3, "exit": 1, "verdict": "invalid", "rules": ["AER1-TL-SEQ"]});
        assert!(schema_errors(ResponseKind::Run, &run).is_empty());
        let loose = json!({"seq": "a", "exit": 0, "verdict": null});
        assert!(schema_errors(ResponseKind::Run, &loose).is_empty());
        let bad = json!({"seq": 3, "exit": "zero"});
        let errors = schema_errors(ResponseKind::Run, &bad);
        assert!(
            errors
                .iter()
                .any(|e| e.contains("/exit") && e.contains("integer")),
            "{errors:?}"
        );
        assert!(!schema_errors(ResponseKind::Run, &json!({"exit": 0})).is_empty());
        assert!(schema_errors(ResponseKind::Stop, &json!({"stopped": true})).is_empty());
        assert!(!schema_errors(ResponseKind::Stop, &json!({"stopped": "yes"})).is_empty());
        let wrong_op = json!({"protocol": 1, "implementation": {"name": "x", "version": "1"},
            "capabilities": {"operations": ["grp-admit"]}});
        assert!(!schema_errors(ResponseKind::Start, &wrong_op).is_empty());
    }
}
