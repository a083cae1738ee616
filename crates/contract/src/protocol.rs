//! Persistent mode (CONTRACT.md section 8): JSON lines between the harness and one long-lived
//! implementation process. The harness writes `start`, then `run` requests (each with a fresh
//! `seq` the response echoes), then `stop`; the implementation answers each with one line, in
//! order.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version (the `protocol` member of `start` and of its response).
pub const PROTOCOL_VERSION: u64 = 1;

/// The JSON Schema (2020-12) of the three responses: `$defs/start_response`,
/// `$defs/run_response`, `$defs/stop_response`.
pub const SCHEMA: &str = include_str!("../schema/protocol.schema.json");

/// The operation that starts an implementation in persistent mode: `IMPL serve`.
pub const SERVE: &str = "serve";

/// `{"cmd":"start","protocol":1}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartRequest {
    pub cmd: String,
    pub protocol: Value,
}

impl StartRequest {
    pub fn new() -> StartRequest {
        StartRequest {
            cmd: "start".into(),
            protocol: Value::from(PROTOCOL_VERSION),
        }
    }
}

impl Default for StartRequest {
    fn default() -> Self {
        StartRequest::new()
    }
}

/// `{"cmd":"run","seq":…,"operation":…,"args":[…]}`: one one-shot call, its arguments in the
/// contract's order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    pub cmd: String,
    /// Opaque to the implementation: echoed in the response.
    pub seq: Value,
    pub operation: String,
    pub args: Vec<String>,
}

impl RunRequest {
    pub fn new(seq: u64, operation: &str, args: &[String]) -> RunRequest {
        RunRequest {
            cmd: "run".into(),
            seq: Value::from(seq),
            operation: operation.into(),
            args: args.to_vec(),
        }
    }
}

/// `{"cmd":"stop"}`.
pub const STOP_REQUEST: &str = r#"{"cmd":"stop"}"#;

/// The implementation's name and version, as its start response gives them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    pub name: String,
    #[serde(default)]
    pub version: String,
}

/// The capabilities an implementation claims. Vectors outside them are reported unsupported
/// without being sent.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct Capabilities {
    /// `aer1-receipt`, `aer1-timeline`, `aer1-workflow`.
    pub operations: Vec<String>,
    /// `REVISION` values of `aer1-timeline`; `None`: not restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline_revisions: Option<Vec<String>>,
    /// `TIER` values of `aer1-receipt`; `None`: not restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<Vec<String>>,
    /// The name `tiers` had before 0.2.0 (when it held `core` and `strict` only), still read;
    /// `tiers` wins when both are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_tiers: Option<Vec<String>>,
}

impl Capabilities {
    /// The claimed `TIER` values of `aer1-receipt`, under either name; `None`: not restricted.
    pub fn receipt_tiers(&self) -> Option<&[String]> {
        self.tiers.as_deref().or(self.id_tiers.as_deref())
    }
}

/// The answer to `start`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartResponse {
    pub protocol: Value,
    pub implementation: Named,
    pub capabilities: Capabilities,
}

/// The answer to `run`: what the one-shot call would have exited with and printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResponse {
    pub seq: Value,
    pub exit: i64,
    /// `valid`, `invalid`, or null for no result object.
    #[serde(default)]
    pub verdict: Option<String>,
    #[serde(default)]
    pub rules: Vec<String>,
    #[serde(default)]
    pub messages: Vec<String>,
}

/// The answer to `stop`: `{"stopped":true}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopResponse {
    pub stopped: bool,
}
