//! `agentconf impl …`: the reference speaking the contract (crates/contract/CONTRACT.md).
//!
//! One-shot: the argument order of [`Call`]; exit 0 accept, 1 reject, 89 unsupported; one result
//! object on standard output for AER-1 operations. A wrong argument list or an unreadable input
//! is a usage error (exit 2), which a harness reports as a crash: the wrapper is broken.
//!
//! Persistent ([`serve`]): JSON lines in (`start`, `run`, `stop`), one response line per request
//! out, flushed. A `run` goes through the same [`answer`] as the one-shot call with the same
//! arguments, and its response carries the exit code the one-shot call would have had.

use std::io::{BufRead, Write};

use agentconf_aer1::digest::Revision;
use agentconf_aer1::receipt::Tier;
use agentconf_contract::call::{Call, Operation, Parsed};
use agentconf_contract::exit::{ExitMeaning, EXIT_UNSUPPORTED, EXIT_USAGE};
use agentconf_contract::protocol::{
    Capabilities, Named, RunResponse, StartResponse, StopResponse, PERSISTENT_OPERATIONS,
    PROTOCOL_VERSION, SERVE,
};
use serde_json::Value;

use crate::dispatch::{answer, Answer, Files};

/// The name the reference gives itself in persistent mode.
pub const NAME: &str = "agentconf-reference";

/// Runs `IMPL OPERATION ARGS…` with standard input `input` and standard output `out`; returns
/// the exit code. `Err` is a usage error or an unreadable input (exit 2), its message for
/// standard error.
pub fn run(
    operation: &str,
    args: &[String],
    input: &mut impl BufRead,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<u8, String> {
    if operation == SERVE {
        if !args.is_empty() {
            return Err("serve takes no arguments: see crates/contract/CONTRACT.md".into());
        }
        serve(input, out, log)?;
        return Ok(ExitMeaning::Accept.code());
    }
    let call = match Call::parse(operation, args) {
        Parsed::Call(call) => call,
        // An operation this implementation does not know is unsupported, not an error.
        Parsed::UnknownOperation(_) => return Ok(EXIT_UNSUPPORTED),
        Parsed::WrongArguments(op) => return Err(op.usage_error()),
    };
    if let Call::GrpAdmit {
        revision,
        session,
        state_dir,
    } = &call
    {
        let supported = crate::admit::grp_admit(revision, session, state_dir, input, out)?;
        return Ok(if supported {
            ExitMeaning::Accept.code()
        } else {
            EXIT_UNSUPPORTED
        });
    }
    if let Call::EmitTimeline { steps } = &call {
        let bytes = read_document(steps)?;
        let text = crate::emit::emit_timeline(&bytes).map_err(|e| format!("{steps}: {e}"))?;
        return write_artifact(out, Some(text));
    }
    if let Call::EmitCommitment {
        timeline,
        published_at,
    } = &call
    {
        let bytes = read_document(timeline)?;
        // Nothing on standard output for a refusal: a commitment is only ever written for a
        // valid chain.
        return write_artifact(out, crate::emit::emit_commitment(&bytes, published_at)?);
    }
    if let Call::EmitReceipt { payload, meta } = &call {
        let (bytes, meta_bytes) = (read_document(payload)?, read_document(meta)?);
        // No receipt is made of bytes that are not UTF-8.
        let made =
            crate::emit::emit_receipt(&bytes, &meta_bytes).map_err(|e| format!("{meta}: {e}"))?;
        return write_artifact(out, made);
    }
    let a = answer(&call, &Files)?;
    if let Some(object) = a.result_object() {
        let mut text = serde_json::to_string(&object).map_err(|e| e.to_string())?;
        text.push('\n');
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write output: {e}"))?;
    }
    Ok(a.exit().code())
}

/// `IMPL serve`: answers requests until `stop` or the end of input. A line that is not a request
/// is an error (exit 2): the harness reads the ended output as a crash.
/// Writes an artifact an emit operation made (exit 0), or nothing for a refusal (exit 1).
fn write_artifact(out: &mut impl Write, made: Option<String>) -> Result<u8, String> {
    match made {
        Some(text) => {
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write output: {e}"))?;
            Ok(ExitMeaning::Accept.code())
        }
        None => Ok(ExitMeaning::Reject.code()),
    }
}

/// A document read whole, bounded like every document the reference reads.
fn read_document(name: &str) -> Result<Vec<u8>, String> {
    let file = crate::dispatch::open_file(name)?;
    match agentconf_json::read_limited(file, crate::dispatch::MAX_DOCUMENT_BYTES)
        .map_err(|e| format!("cannot read {name}: {e}"))?
    {
        Ok(bytes) => Ok(bytes),
        Err(e) => Err(format!("{name}: {e}")),
    }
}

pub fn serve(
    input: &mut impl BufRead,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), String> {
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return Ok(()),
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
            Some("run") => (run_response(&request, log)?, false),
            Some("stop") => (to_line(&StopResponse { stopped: true })?, true),
            _ => return Err(format!("not a request: {}", line.trim_end())),
        };
        out.write_all(response.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write a response: {e}"))?;
        if stop {
            return Ok(());
        }
    }
}

fn to_line(value: &impl serde::Serialize) -> Result<String, String> {
    let mut text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

fn start_response(request: &Value) -> Result<String, String> {
    if request.get("protocol") != Some(&Value::from(PROTOCOL_VERSION)) {
        return Err(format!(
            "this server speaks protocol {PROTOCOL_VERSION}, not {}",
            request.get("protocol").unwrap_or(&Value::Null)
        ));
    }
    to_line(&StartResponse {
        protocol: Value::from(PROTOCOL_VERSION),
        implementation: Named {
            name: NAME.into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        capabilities: Capabilities {
            operations: PERSISTENT_OPERATIONS
                .map(|o| o.as_str().to_string())
                .to_vec(),
            timeline_revisions: Some(timeline_revisions()),
            tiers: Some(Tier::ALL.iter().map(|t| t.as_str().to_string()).collect()),
            id_tiers: None,
        },
    })
}

/// The AER-1 revisions whose construction the reference implements, from the revisions table.
fn timeline_revisions() -> Vec<String> {
    agentconf_rules::Revisions::embedded()
        .numbers(agentconf_rules::draft_revisions::AER1)
        .into_iter()
        .filter(|r| Revision::parse(r).is_some())
        .map(String::from)
        .collect()
}

/// The response to a `run` request: what the one-shot call would have exited with and printed.
/// GRP is not served persistently (its scenarios need real process restarts): exit 89.
fn run_response(request: &Value, log: &mut impl Write) -> Result<String, String> {
    let seq = request.get("seq").cloned().unwrap_or(Value::Null);
    let operation = request.get("operation").and_then(Value::as_str);
    let args: Option<Vec<String>> = request
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(|v| v.as_str().map(String::from)).collect());
    let answered = match (operation, args) {
        (Some(operation), Some(args)) => match Call::parse(operation, &args) {
            // A stream and an emitter's output do not fit a response line: one-shot only.
            Parsed::Call(
                Call::GrpAdmit { .. }
                | Call::EmitTimeline { .. }
                | Call::EmitCommitment { .. }
                | Call::EmitReceipt { .. },
            )
            | Parsed::WrongArguments(
                Operation::GrpAdmit
                | Operation::Aer1EmitTimeline
                | Operation::Aer1EmitCommitment
                | Operation::Aer1EmitReceipt,
            )
            | Parsed::UnknownOperation(_) => Ok(Answer::Unsupported),
            Parsed::Call(call) => answer(&call, &Files),
            Parsed::WrongArguments(op) => Err(op.usage_error()),
        },
        _ => Err(
            "a run request needs an \"operation\" string and an \"args\" array of strings".into(),
        ),
    };
    let response = match answered {
        Ok(a) => {
            let object = a.result_object();
            RunResponse {
                seq,
                exit: i64::from(a.exit().code()),
                verdict: object.as_ref().map(|o| o.verdict.as_str().to_string()),
                rules: object
                    .as_ref()
                    .map(|o| o.rules.iter().map(|r| r.id().to_string()).collect())
                    .unwrap_or_default(),
                messages: object.map(|o| o.messages).unwrap_or_default(),
            }
        }
        // The one-shot call would have been a usage error: exit 2, a crash of this request.
        Err(message) => {
            let _ = log.write_all(format!("agentconf impl serve: {message}\n").as_bytes());
            RunResponse {
                seq,
                exit: i64::from(EXIT_USAGE),
                verdict: None,
                rules: Vec::new(),
                messages: vec![message],
            }
        }
    };
    to_line(&response)
}
