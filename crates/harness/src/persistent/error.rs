//! Why a persistent process could not be started or stopped cleanly: what failed, with what the
//! message needs. The messages are the ones a run prints when its implementation does not start
//! (and the detail of a vector whose restart failed), so `Display` keeps their wording.

use std::fmt;
use std::io;

use agentconf_contract::protocol::PROTOCOL_VERSION;

use super::{line_excerpt, stderr_note};

/// How the process ended once the harness gave up on it, and the excerpt of what it had left on
/// standard error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerEnded {
    /// `exit status 3`, `killed by the harness`, …
    pub how: String,
    pub stderr: String,
}

impl fmt::Display for ServerEnded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}){}", self.how, stderr_note(&self.stderr))
    }
}

/// Why a persistent session did not start ([`super::PersistentSession::start`], also a restart)
/// or did not stop cleanly ([`super::PersistentSession::stop`]).
#[derive(Debug)]
pub enum PersistentError {
    /// The command could not be started at all.
    Spawn { command: String, source: io::Error },
    /// No line answered `start`: `why` says what came instead (the end of its output, nothing
    /// within the timeout, a line over the limit, an I/O error).
    NoStartResponse { why: String, ended: ServerEnded },
    /// The line that answered `start` is not a start response the harness takes.
    StartResponse {
        problem: StartProblem,
        ended: ServerEnded,
    },
    /// No line answered `stop`.
    NoStopResponse { why: String, ended: ServerEnded },
    /// The line that answered `stop` is not `{"stopped":true}`.
    StopResponse(StopProblem),
    /// After its stop response, the process did not exit 0.
    StopExit(ServerEnded),
}

impl fmt::Display for PersistentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersistentError::Spawn { command, source } => {
                write!(f, "cannot start {command}: {source}")
            }
            PersistentError::NoStartResponse { why, ended } => {
                write!(f, "no start response: {why} {ended}")
            }
            PersistentError::StartResponse { problem, ended } => write!(f, "{problem} {ended}"),
            PersistentError::NoStopResponse { why, ended } => {
                write!(f, "no stop response: {why} {ended}")
            }
            PersistentError::StopResponse(problem) => write!(f, "{problem}"),
            PersistentError::StopExit(ServerEnded { how, stderr }) => write!(
                f,
                "after stop the process ended with {how}, not exit 0{}",
                stderr_note(stderr)
            ),
        }
    }
}

impl std::error::Error for PersistentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PersistentError::Spawn { source, .. } => Some(source),
            PersistentError::StartResponse { problem, .. } => match problem {
                StartProblem::NotJson { source, .. }
                | StartProblem::NotStartResponse { source, .. } => Some(source),
                StartProblem::Schema(_) | StartProblem::Protocol(_) => None,
            },
            PersistentError::StopResponse(StopProblem::NotJson(source)) => Some(source),
            PersistentError::NoStartResponse { .. }
            | PersistentError::NoStopResponse { .. }
            | PersistentError::StopResponse(_)
            | PersistentError::StopExit(_) => None,
        }
    }
}

/// What is wrong with the line that answered `start` (quoted in the message, clipped).
#[derive(Debug)]
pub enum StartProblem {
    NotJson {
        source: serde_json::Error,
        line: Vec<u8>,
    },
    /// What `protocol.schema.json` says is wrong (with `--validate-protocol`).
    Schema(Vec<String>),
    /// JSON, but not the shape of a start response.
    NotStartResponse {
        source: serde_json::Error,
        line: Vec<u8>,
    },
    /// The protocol version it answered (as its JSON text), not the harness's.
    Protocol(String),
}

impl fmt::Display for StartProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartProblem::NotJson { source, line } => write!(
                f,
                "start response is not JSON ({source}): {}",
                line_excerpt(line)
            ),
            StartProblem::Schema(errors) => write!(
                f,
                "start response breaks protocol.schema.json: {}",
                errors.join("; ")
            ),
            StartProblem::NotStartResponse { source, line } => write!(
                f,
                "start response is not a start response ({source}): {}",
                line_excerpt(line)
            ),
            StartProblem::Protocol(answered) => write!(
                f,
                "the implementation answered protocol {answered}, the harness speaks \
                 {PROTOCOL_VERSION}"
            ),
        }
    }
}

impl std::error::Error for StartProblem {}

/// What is wrong with the line that answered `stop`.
#[derive(Debug)]
pub enum StopProblem {
    NotJson(serde_json::Error),
    /// What `protocol.schema.json` says is wrong (with `--validate-protocol`).
    Schema(Vec<String>),
    /// JSON, but not `{"stopped":true}`: the line, quoted clipped in the message.
    NotStopped(Vec<u8>),
}

impl fmt::Display for StopProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopProblem::NotJson(source) => write!(f, "stop response is not JSON: {source}"),
            StopProblem::Schema(errors) => write!(
                f,
                "stop response breaks protocol.schema.json: {}",
                errors.join("; ")
            ),
            StopProblem::NotStopped(line) => write!(
                f,
                "stop response is not {{\"stopped\":true}}: {}",
                line_excerpt(line)
            ),
        }
    }
}
