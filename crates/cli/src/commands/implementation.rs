//! `agentconf impl …`: the reference speaking the harness contract (crates/harness/CONTRACT.md).
//!
//! One-shot: fixed argument order per operation; exit 0 accept, 1 reject, 89 unsupported; one
//! result object `{"verdict","rules","messages"}` on standard output for AER-1 operations. A wrong
//! argument list is a usage error (exit 2), which a harness reports as a crash: it means the
//! wrapper is broken.
//!
//! Persistent (`agentconf impl serve`): JSON lines on standard input (`start`, `run`, `stop`), one
//! response line per request on standard output, flushed. A `run` goes through the same code as
//! the one-shot call with the same arguments ([`answer`]), and its response carries the exit code
//! the one-shot call would have had.

use std::io::{self, BufRead, Write};
use std::path::Path;

use agentconf_aer1::commitment::read_commitment;
use agentconf_aer1::receipt::{verify_receipt_reader, Tier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow_reader;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_grp::admission::{Receiver, Revision as GrpRevision};
use agentconf_grp::store::SqliteStore;
use serde_json::{json, Value};

use super::{emit, to_stderr, Outcome, EXIT_UNSUPPORTED, EXIT_USAGE};
use crate::args::ImplArgs;
use crate::input::{open, read_error};

/// The persistent-mode protocol version this server speaks.
const PROTOCOL: u64 = 1;

pub fn run(args: &ImplArgs) -> Result<Outcome, String> {
    let a: Vec<&str> = args.args.iter().map(String::as_str).collect();
    match (args.operation.as_str(), a.as_slice()) {
        ("serve", []) => serve(),
        ("serve", _) => Err("serve takes no arguments: see crates/harness/CONTRACT.md".into()),
        ("grp-admit", [revision, session, state_dir]) => grp_op(revision, session, state_dir),
        ("grp-admit", _) => Err(format!(
            "wrong arguments for {}: see crates/harness/CONTRACT.md",
            args.operation
        )),
        (operation, a) => {
            let answer = answer(operation, a)?;
            if let Some(object) = answer.result_object() {
                emit(&(object.to_string() + "\n"))?;
            }
            Ok(answer.outcome)
        }
    }
}

/// The outcome of one AER-1 call, and its result object when there is one.
struct Answer {
    outcome: Outcome,
    /// `(verdict, rule ids, messages)`; `None` for unsupported.
    result: Option<(&'static str, Vec<&'static str>, Vec<String>)>,
}

impl Answer {
    const UNSUPPORTED: Answer = Answer {
        outcome: Outcome::Unsupported,
        result: None,
    };

    fn result_object(&self) -> Option<Value> {
        self.result.as_ref().map(|(verdict, rules, messages)| {
            json!({"verdict": verdict, "rules": rules, "messages": messages})
        })
    }
}

/// One AER-1 operation with its arguments in the contract's order. `Err` is a usage error or an
/// unreadable input (exit 2 in one-shot mode).
fn answer(operation: &str, args: &[&str]) -> Result<Answer, String> {
    match (operation, args) {
        ("aer1-receipt", [receipt]) => receipt_op(receipt, "core"),
        ("aer1-receipt", [receipt, tier]) => receipt_op(receipt, tier),
        ("aer1-timeline", [revision, timeline]) => timeline_op(revision, timeline, None),
        ("aer1-timeline", [revision, timeline, commitment]) => {
            timeline_op(revision, timeline, Some(commitment))
        }
        ("aer1-workflow", [workflow]) => {
            let input = open(Path::new(workflow))?;
            let r = verify_workflow_reader(input.reader, super::MAX_DOCUMENT_BYTES)
                .map_err(|e| read_error(&input.name, &e))?;
            Ok(result(r.verdict, &r.failures))
        }
        ("aer1-receipt" | "aer1-timeline" | "aer1-workflow", _) => Err(format!(
            "wrong arguments for {operation}: see crates/harness/CONTRACT.md"
        )),
        // An operation this implementation does not know is unsupported, not an error.
        _ => Ok(Answer::UNSUPPORTED),
    }
}

fn receipt_op(path: &str, tier: &str) -> Result<Answer, String> {
    // A tier this implementation does not know is unsupported (89), never checked as another.
    let Some(tier) = Tier::parse(tier) else {
        return Ok(Answer::UNSUPPORTED);
    };
    let input = open(Path::new(path))?;
    let r = verify_receipt_reader(input.reader, tier, super::MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(&input.name, &e))?;
    Ok(result(r.verdict, &r.failures))
}

fn timeline_op(revision: &str, timeline: &str, commitment: Option<&str>) -> Result<Answer, String> {
    let revision = match revision {
        "06" => Revision::R06,
        "07" | "08" | "09" => Revision::R09,
        _ => return Ok(Answer::UNSUPPORTED),
    };
    if revision == Revision::R06 && commitment.is_some() {
        return Ok(Answer::UNSUPPORTED);
    }
    let mut options = TimelineOptions {
        revision,
        ..TimelineOptions::default()
    };
    if let Some(path) = commitment {
        let input = open(Path::new(path))?;
        match read_commitment(input.reader, super::MAX_DOCUMENT_BYTES)
            .map_err(|e| read_error(&input.name, &e))?
        {
            Ok(c) => options.commitment = Some(c),
            Err(findings) => options.commitment_findings = findings,
        }
    }
    let input = open(Path::new(timeline))?;
    let r = verify_timeline(input.reader, &options).map_err(|e| read_error(&input.name, &e))?;
    Ok(result(r.verdict, &r.failures))
}

fn grp_op(revision: &str, session: &str, state_dir: &str) -> Result<Outcome, String> {
    let Some(revision) = GrpRevision::parse(revision) else {
        return Ok(Outcome::Unsupported);
    };
    let session = super::grp::read_session(Path::new(session))?;
    let dir = Path::new(state_dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {state_dir}: {e}"))?;
    let store = SqliteStore::open(&dir.join("admitted.sqlite")).map_err(|e| e.to_string())?;
    super::grp::run_stream(Receiver::new(session, revision, store))
}

/// The result object's contents for a verdict, and the contract's outcome.
fn result(verdict: Verdict, failures: &[Finding]) -> Answer {
    let mut rules: Vec<&'static str> = Vec::new();
    for f in failures {
        if !rules.contains(&f.rule.id()) {
            rules.push(f.rule.id());
        }
    }
    let messages: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
    let (name, outcome) = match verdict {
        Verdict::Valid => ("valid", Outcome::Valid),
        Verdict::Invalid => ("invalid", Outcome::Invalid),
    };
    Answer {
        outcome,
        result: Some((name, rules, messages)),
    }
}

// ------------------------------------------------------------------------------------------------
// Persistent mode

/// `agentconf impl serve`: answers requests until `stop` (exit 0) or the end of standard input
/// (exit 0). A line that is not a request is a usage error (exit 2): the harness reads the
/// ended output as a crash.
fn serve() -> Result<Outcome, String> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return Ok(Outcome::Valid),
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read a request: {e}")),
        }
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = serde_json::from_str(line.trim_end())
            .map_err(|e| format!("a request is not JSON ({e}): {}", line.trim_end()))?;
        let (response, stop) = match request.get("cmd").and_then(Value::as_str) {
            Some("start") => (start_response(&request)?, false),
            Some("run") => (run_response(&request), false),
            Some("stop") => (json!({"stopped": true}), true),
            _ => return Err(format!("not a request: {}", line.trim_end())),
        };
        let mut text = response.to_string();
        text.push('\n');
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write a response: {e}"))?;
        if stop {
            return Ok(Outcome::Valid);
        }
    }
}

fn start_response(request: &Value) -> Result<Value, String> {
    if request.get("protocol") != Some(&Value::from(PROTOCOL)) {
        return Err(format!(
            "this server speaks protocol {PROTOCOL}, not {}",
            request.get("protocol").unwrap_or(&Value::Null)
        ));
    }
    Ok(json!({
        "protocol": PROTOCOL,
        "implementation": {"name": "agentconf-reference", "version": env!("CARGO_PKG_VERSION")},
        "capabilities": {
            "operations": ["aer1-receipt", "aer1-timeline", "aer1-workflow"],
            "timeline_revisions": ["06", "07", "08", "09"],
            "tiers": Tier::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        },
    }))
}

/// The response to a `run` request: what the one-shot call would have exited with and printed.
/// GRP is not served persistently (its scenarios need real process restarts): exit 89.
fn run_response(request: &Value) -> Value {
    let seq = request.get("seq").cloned().unwrap_or(Value::Null);
    let operation = request.get("operation").and_then(Value::as_str);
    let args: Option<Vec<&str>> = request
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(Value::as_str).collect());
    let answered = match (operation, args) {
        (Some("grp-admit"), _) => Ok(Answer::UNSUPPORTED),
        (Some(operation), Some(args)) => answer(operation, &args),
        _ => Err(
            "a run request needs an \"operation\" string and an \"args\" array of strings".into(),
        ),
    };
    match answered {
        Ok(a) => {
            let exit = match a.outcome {
                Outcome::Valid => super::EXIT_VALID,
                Outcome::Invalid => super::EXIT_INVALID,
                Outcome::Unsupported => EXIT_UNSUPPORTED,
            };
            let (verdict, rules, messages) = match a.result {
                Some((v, r, m)) => (Value::from(v), r, m),
                None => (Value::Null, Vec::new(), Vec::new()),
            };
            json!({"seq": seq, "exit": exit, "verdict": verdict, "rules": rules, "messages": messages})
        }
        // The one-shot call would have been a usage error: exit 2, a crash of this request.
        Err(message) => {
            to_stderr(&format!("agentconf impl serve: {message}\n"));
            json!({"seq": seq, "exit": EXIT_USAGE, "verdict": null, "rules": [], "messages": [message]})
        }
    }
}
