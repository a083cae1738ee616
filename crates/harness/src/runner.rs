//! Running one vector against an implementation and grading the result.
//!
//! AER-1 vectors are one-shot: the inputs are written into a fresh directory, the implementation
//! runs once, and its exit code (plus the optional result object) is graded. GRP vectors are
//! scenarios: receivers are started, fed event lines, restarted, run concurrently or switched to
//! another session as the steps say, and every decision is graded.

use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver as Channel, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use agentconf_corpus::model::{Case, Expectation, ExpectedDecision, Step, Suite, Vector};
use serde::Serialize;

use crate::adapter::Adapter;
use crate::contract::{parse_result, ExitMeaning};
use crate::materialize::write_inputs;
use crate::process::{kill_group, run, BackgroundCapture, Ending, RunSpec};

/// How strictly a rejection is graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grading {
    /// A rejection must cite every expected rule (and GRP draft-named reasons must match).
    Strict,
    /// Any rejection of an invalid vector passes.
    Loose,
}

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

/// The outcome of one vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    /// Not run: the adapter skips it (with a reason).
    Skip,
    /// Failed, as the adapter's expected-failures list says it would.
    Xfail,
    /// Listed as an expected failure but passed: the list is stale, and that is an error.
    Xpass,
    /// Accepted an input that must be rejected: the security-relevant failure.
    FalseAccept,
    FalseReject,
    /// Rejected, but not for the expected rule (strict grading).
    WrongReason,
    Unsupported,
    Timeout,
    Crash,
    ProtocolError,
}

/// What happened with one case (a vector under one revision).
#[derive(Clone, Debug, Serialize)]
pub struct VectorResult {
    /// The case id: the vector id, or `<id>@<revision>` for a vector's further revisions.
    pub id: String,
    pub status: Status,
    pub detail: String,
    /// The first bytes of what the implementation wrote to standard error (never interpreted).
    pub stderr: String,
    pub duration_ms: u64,
}

/// Runs one case of a vector in a fresh directory under `work`.
pub fn run_case(imp: &Implementation, c: &Case<'_>, work: &Path, grading: Grading) -> VectorResult {
    run_case_with(imp, None, c, work, grading)
}

/// As [`run_case`], through an adapter: its argv templates, exit-code and error maps, skips
/// and expected failures.
pub fn run_case_with(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    work: &Path,
    grading: Grading,
) -> VectorResult {
    let started = Instant::now();
    let v = c.vector;
    if let Some(reason) = adapter.and_then(|a| a.skip_reason(&c.id)) {
        return VectorResult {
            id: c.id.clone(),
            status: Status::Skip,
            detail: format!("skipped: {reason}"),
            stderr: String::new(),
            duration_ms: 0,
        };
    }
    let dir = work.join(safe_name(&c.id));
    let _ = std::fs::remove_dir_all(&dir);
    let (mut status, mut detail, stderr) = match v.suite {
        Suite::GrpAdmission => run_scenario(imp, c, &dir, grading),
        _ => run_one_shot(imp, adapter, c, &dir, grading),
    };
    if let Some(reason) = adapter.and_then(|a| a.xfail_reason(&c.id)) {
        match status {
            Status::Pass => {
                status = Status::Xpass;
                detail = format!(
                    "passed, but listed as an expected failure ({reason}): remove it from the list"
                );
            }
            Status::Unsupported | Status::Skip => {}
            _ => {
                detail = format!("expected failure ({reason}): {detail}");
                status = Status::Xfail;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    VectorResult {
        id: c.id.clone(),
        status,
        detail,
        stderr,
        duration_ms: started.elapsed().as_millis() as u64,
    }
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

fn excerpt(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned()
}

/// The operation and arguments for a case of an AER-1 vector, in the contract's order.
pub(crate) fn one_shot_args(c: &Case<'_>, files: &[(String, PathBuf)]) -> Option<Vec<String>> {
    let v = c.vector;
    let path = |role: &str| {
        files
            .iter()
            .find(|(r, _)| r == role)
            .map(|(_, p)| p.display().to_string())
    };
    // The construction the case runs under (a timeline carries no revision marker).
    let revision = c.revision;
    Some(match v.suite {
        Suite::Aer1Receipt => {
            let mut a = vec!["aer1-receipt".to_string(), path("receipt")?];
            if let Some(tier) = &v.options.tier {
                a.push(tier.clone());
            }
            a
        }
        Suite::Aer1Timeline => {
            let mut a = vec![
                "aer1-timeline".to_string(),
                revision.to_string(),
                path("timeline")?,
            ];
            if let Some(c) = path("commitment") {
                a.push(c);
            }
            a
        }
        Suite::Aer1Workflow => vec!["aer1-workflow".to_string(), path("workflow")?],
        Suite::GrpAdmission => return None,
    })
}

fn run_one_shot(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    c: &Case<'_>,
    dir: &Path,
    grading: Grading,
) -> (Status, String, String) {
    let v = c.vector;
    let files = match write_inputs(v, dir) {
        Ok(f) => f,
        Err(e) => {
            return (
                Status::Crash,
                format!("cannot prepare inputs: {e}"),
                String::new(),
            )
        }
    };
    let Some(args) = one_shot_args(c, &files) else {
        return (
            Status::Crash,
            "the vector lacks an input its operation needs".into(),
            String::new(),
        );
    };
    let argv = match adapter {
        Some(a) => {
            let mut argv = imp.argv.clone();
            argv.extend(a.argv(&args[0], &args[1..], &placeholders(c, &files)));
            argv
        }
        None => {
            let mut argv = imp.argv.clone();
            argv.extend(args.iter().cloned());
            argv
        }
    };
    let out = match run(&RunSpec {
        argv,
        stdin: Vec::new(),
        timeout: imp.timeout,
        capture_limit: imp.capture_limit,
    }) {
        Ok(o) => o,
        Err(e) => {
            return (
                Status::Crash,
                format!("cannot start the implementation: {e}"),
                String::new(),
            )
        }
    };
    let stderr = excerpt(&out.stderr.bytes);
    let exit = match &out.ending {
        Ending::TimedOut => {
            return (
                Status::Timeout,
                format!("no exit within {:?}", imp.timeout),
                stderr,
            )
        }
        Ending::Signaled(sig) => return (Status::Crash, format!("killed by signal {sig}"), stderr),
        Ending::Exited(code) => match adapter {
            Some(a) => a.exit_meaning(Some(*code)),
            None => ExitMeaning::of(Some(*code)),
        },
    };
    let result = match exit {
        ExitMeaning::Crash => {
            return (
                Status::Crash,
                format!("exit code {:?} is not 0, 1 or 89", out.ending.code()),
                stderr,
            )
        }
        ExitMeaning::Unsupported => return (Status::Unsupported, "exit 89".into(), stderr),
        // A tool run through an adapter template prints its own output, not the contract's
        // result object: its messages go through the adapter's error map instead.
        _ if adapter.is_some_and(|a| a.operations.contains_key(&args[0])) => None,
        _ => match parse_result(&out.stdout.bytes, exit) {
            Ok(r) => r,
            // A result object cut at the capture limit fails as malformed JSON; say why.
            Err(_) if out.stdout.truncated() => {
                return (
                    Status::ProtocolError,
                    format!(
                        "standard output is {} bytes, over the harness's {}-byte capture limit: the result object could not be read",
                        out.stdout.total, imp.capture_limit
                    ),
                    stderr,
                )
            }
            Err(e) => return (Status::ProtocolError, e.to_string(), stderr),
        },
    };
    let accepted = exit == ExitMeaning::Accept;
    // Rules come from the result object, else from the adapter's error map over the tool's
    // messages; with neither, grading is verdict-only.
    let mapped = match (&result, adapter) {
        (None, Some(a)) => {
            let mut text = String::from_utf8_lossy(&out.stdout.bytes).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr.bytes));
            a.mapped_rules(&c.id, &text)
        }
        _ => Vec::new(),
    };
    let grading = if result.is_none() && mapped.is_empty() {
        Grading::Loose
    } else {
        grading
    };
    let reported: Vec<String> = result.map(|r| r.rules).unwrap_or(mapped);
    let (status, detail) = grade_verdict(c, accepted, &reported, grading);
    (status, detail, stderr)
}

/// Grades an accept or a reject of an AER-1 case against the rules reported (`grading` is
/// already loose when nothing was reported). Shared by the one-shot and the persistent mode.
pub fn grade_verdict(
    c: &Case<'_>,
    accepted: bool,
    reported: &[String],
    grading: Grading,
) -> (Status, String) {
    let missing: Vec<&String> = c
        .expected_rules
        .iter()
        .filter(|r| !reported.contains(r))
        .collect();
    match (c.expectation, accepted) {
        (Expectation::Valid, true) => (Status::Pass, "accepted".to_string()),
        (Expectation::Valid, false) => (Status::FalseReject, format!("rejected: {reported:?}")),
        (Expectation::Invalid, true) => (Status::FalseAccept, "accepted".to_string()),
        (Expectation::Acceptable, true) => (Status::Pass, "accepted (acceptable)".to_string()),
        (Expectation::Invalid | Expectation::Acceptable, false) => {
            if grading == Grading::Loose || missing.is_empty() {
                (Status::Pass, format!("rejected: {reported:?}"))
            } else {
                (
                    Status::WrongReason,
                    format!(
                        "rejected with {reported:?}, expected {:?}",
                        c.expected_rules
                    ),
                )
            }
        }
    }
}

/// The values an adapter's argv templates may name.
fn placeholders<'a>(
    c: &Case<'_>,
    files: &[(String, PathBuf)],
) -> std::collections::BTreeMap<&'a str, String> {
    let v = c.vector;
    let mut values = std::collections::BTreeMap::new();
    for (role, path) in files {
        let key = match role.as_str() {
            "receipt" => "receipt",
            "timeline" => "timeline",
            "commitment" => "commitment",
            "workflow" => "workflow",
            "session" => "session",
            _ => continue,
        };
        values.insert(key, path.display().to_string());
    }
    values.insert("revision", c.revision.to_string());
    let tier = v.options.tier.clone().unwrap_or_else(|| "core".into());
    // `{id_tier}` is the name adapter files used before 0.2.0: the same value as `{tier}`.
    values.insert("id_tier", tier.clone());
    values.insert("tier", tier);
    values
}

// ------------------------------------------------------------------------------------------------
// GRP scenarios

/// The longest decision line read from a receiver (a decision is a few hundred bytes).
pub const MAX_DECISION_LINE_BYTES: usize = 1 << 20;

/// Decision lines read ahead of the harness at most; a receiver that writes faster blocks.
const DECISIONS_AHEAD: usize = 64;

/// What the reader thread hands over: a decision line, or why reading stopped early.
enum Line {
    Text(String),
    TooLong,
    NotUtf8,
}

/// A running receiver: events go to its stdin, decisions come back line by line. It runs in its
/// own process group, so a wrapper script's children are killed with it.
struct Receiver {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Channel<Line>,
    /// The first `capture_limit` bytes of its standard error (never interpreted).
    stderr: BackgroundCapture,
}

impl Receiver {
    fn start(
        imp: &Implementation,
        revision: &str,
        session: &Path,
        state: &Path,
    ) -> io::Result<Receiver> {
        let (program, prefix) = imp
            .argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let mut child = Command::new(program)
            .args(prefix)
            .arg("grp-admit")
            .arg(revision)
            .arg(session)
            .arg(state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let stderr_pipe = child
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no stderr pipe"))?;
        let (tx, lines) = sync_channel(DECISIONS_AHEAD);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let room = MAX_DECISION_LINE_BYTES as u64 + 1;
            loop {
                let mut line = Vec::new();
                let item = match io::Read::take(&mut reader, room).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(n) if n as u64 == room && line.last() != Some(&b'\n') => Line::TooLong,
                    Ok(_) => match String::from_utf8(line) {
                        Ok(text) => Line::Text(text),
                        Err(_) => Line::NotUtf8,
                    },
                };
                let stop = !matches!(item, Line::Text(_));
                if tx.send(item).is_err() || stop {
                    break;
                }
            }
        });
        let stderr = BackgroundCapture::start(stderr_pipe, imp.capture_limit);
        let stdin = child.stdin.take();
        Ok(Receiver {
            child,
            stdin,
            lines,
            stderr,
        })
    }

    /// Kills the receiver's whole process group.
    fn kill(&mut self) {
        kill_group(&mut self.child);
        let _ = self.child.kill();
    }

    fn stderr_excerpt(&self) -> String {
        excerpt(&self.stderr.take())
    }

    fn send(&mut self, line: &[u8]) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin closed"))?;
        stdin.write_all(line)?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    fn decision(&mut self, timeout: Duration) -> Result<serde_json::Value, (Status, String)> {
        let line = match self.lines.recv_timeout(timeout) {
            Ok(Line::Text(line)) => line,
            Ok(Line::TooLong) => {
                return Err((
                    Status::ProtocolError,
                    format!("a decision line is longer than {MAX_DECISION_LINE_BYTES} bytes"),
                ))
            }
            Ok(Line::NotUtf8) => {
                return Err((Status::ProtocolError, "a decision line is not UTF-8".into()))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err((Status::Timeout, format!("no decision within {timeout:?}")))
            }
            // Its output ended: it exited (89 = unsupported) or died.
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().ok();
                return Err(match status.and_then(|s| s.code()) {
                    Some(89) => (Status::Unsupported, "grp-admit exited 89".into()),
                    _ => (
                        Status::Crash,
                        format!(
                            "the receiver ended without a decision ({status:?}); stderr: {}",
                            self.stderr_excerpt()
                        ),
                    ),
                });
            }
        };
        serde_json::from_str(line.trim_end())
            .map_err(|e| (Status::ProtocolError, format!("decision is not JSON: {e}")))
    }

    /// Closes stdin and waits for a clean exit (0).
    fn stop(mut self, timeout: Duration) -> Result<(), (Status, String)> {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) if s.code() == Some(0) => return Ok(()),
                Ok(Some(s)) => return Err((Status::Crash, format!("receiver exited with {s}"))),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => {
                    self.kill();
                    let _ = self.child.wait();
                    return Err((
                        Status::Timeout,
                        "receiver did not exit after its input ended".into(),
                    ));
                }
            }
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        // Always the whole group: the receiver may have exited and left children behind.
        self.kill();
        let _ = self.child.wait();
    }
}

fn run_scenario(
    imp: &Implementation,
    c: &Case<'_>,
    dir: &Path,
    grading: Grading,
) -> (Status, String, String) {
    let v = c.vector;
    if let Some(p) = v.requires.iter().find(|p| !imp.profiles.contains(p)) {
        return (
            Status::Unsupported,
            format!("needs the {p} profile, which is not claimed"),
            String::new(),
        );
    }
    match scenario(imp, v, c.revision, dir, grading) {
        Ok(()) => (
            Status::Pass,
            "every decision as expected".into(),
            String::new(),
        ),
        Err((status, detail)) => (status, detail, String::new()),
    }
}

fn scenario(
    imp: &Implementation,
    v: &Vector,
    revision: &str,
    dir: &Path,
    grading: Grading,
) -> Result<(), (Status, String)> {
    let crash = |e: io::Error| (Status::Crash, e.to_string());
    let files = write_inputs(v, dir).map_err(crash)?;
    let state = dir.join("state");
    std::fs::create_dir_all(&state).map_err(crash)?;
    let steps = &v
        .scenario
        .as_ref()
        .ok_or((Status::Crash, "no scenario".to_string()))?
        .steps;
    let events_path = files
        .iter()
        .find(|(r, _)| r == "events")
        .map(|(_, p)| p.clone());
    let events_text = events_path
        .map(std::fs::read)
        .transpose()
        .map_err(crash)?
        .unwrap_or_default();
    let events: Vec<&[u8]> = events_text.split(|b| *b == b'\n').collect();
    let mut session = dir.join(
        &v.inputs
            .iter()
            .find(|i| i.role == "session")
            .ok_or((Status::Crash, "no session".to_string()))?
            .file,
    );
    let mut receiver = Some(Receiver::start(imp, revision, &session, &state).map_err(crash)?);
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
                let r = receiver
                    .as_mut()
                    .ok_or((Status::Crash, "no receiver".to_string()))?;
                r.send(line(*event)?).map_err(crash)?;
                let d = r.decision(imp.timeout)?;
                if let Some(e) = expected {
                    grade_decision(index, &d, e, grading)?;
                }
            }
            Step::Restart | Step::Session { .. } => {
                if let Some(r) = receiver.take() {
                    r.stop(imp.timeout)?;
                }
                if let Step::Session { file } = step {
                    session = dir.join(file);
                }
                receiver = Some(Receiver::start(imp, revision, &session, &state).map_err(crash)?);
            }
            Step::Concurrent { event, copies } => {
                if let Some(r) = receiver.take() {
                    r.stop(imp.timeout)?;
                }
                let mut all = Vec::new();
                for _ in 0..*copies {
                    all.push(Receiver::start(imp, revision, &session, &state).map_err(crash)?);
                }
                for r in &mut all {
                    r.send(line(*event)?).map_err(crash)?;
                }
                let mut admitted = 0;
                for r in &mut all {
                    let d = r.decision(imp.timeout)?;
                    if d["outcome"] == "admitted" {
                        admitted += 1;
                    }
                }
                for r in all {
                    r.stop(imp.timeout)?;
                }
                let want = expected.and_then(|e| e.admitted_copies).unwrap_or(1);
                if admitted != want {
                    let status = if admitted > want {
                        Status::FalseAccept
                    } else {
                        Status::FalseReject
                    };
                    return Err((status, format!("step {index}: {admitted} of {copies} concurrent copies admitted, expected {want}")));
                }
                receiver = Some(Receiver::start(imp, revision, &session, &state).map_err(crash)?);
            }
        }
    }
    if let Some(r) = receiver.take() {
        r.stop(imp.timeout)?;
    }
    Ok(())
}

pub(crate) fn grade_decision(
    index: usize,
    d: &serde_json::Value,
    e: &ExpectedDecision,
    grading: Grading,
) -> Result<(), (Status, String)> {
    let outcome = d["outcome"].as_str().unwrap_or_default();
    match (e.outcome.as_str(), outcome) {
        ("admitted", "admitted") => Ok(()),
        ("admitted", "rejected") => Err((
            Status::FalseReject,
            format!("step {index}: rejected ({})", d["rejection_reason"]),
        )),
        ("rejected", "admitted") => Err((
            Status::FalseAccept,
            format!("step {index}: admitted, expected {:?}", e.rejection_reason),
        )),
        ("rejected", "rejected") => {
            if grading == Grading::Loose {
                return Ok(());
            }
            let reason = d["rejection_reason"].as_str();
            let reason_ok =
                e.reason_named_by_draft != Some(true) || reason == e.rejection_reason.as_deref();
            let rule_ok = d
                .get("rule")
                .and_then(|r| r.as_str())
                .is_none_or(|r| Some(r) == e.rule.as_deref());
            if reason_ok && rule_ok {
                Ok(())
            } else {
                Err((
                    Status::WrongReason,
                    format!(
                        "step {index}: rejected as {:?} {:?}, expected {:?} {:?}",
                        reason,
                        d.get("rule"),
                        e.rejection_reason,
                        e.rule
                    ),
                ))
            }
        }
        _ => Err((
            Status::ProtocolError,
            format!("step {index}: outcome {outcome:?} is neither admitted nor rejected"),
        )),
    }
}
