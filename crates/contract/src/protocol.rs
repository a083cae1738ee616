//! Persistent mode (CONTRACT.md section 8): JSON lines between the harness and one long-lived
//! implementation process. The harness writes `start`, then `run` requests (each with a fresh
//! `seq` the response echoes), then `stop`; the implementation answers each with one line, in
//! order.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::call::Operation;
use crate::schema_types::TierName;

/// The protocol version (the `protocol` member of `start` and of its response).
pub const PROTOCOL_VERSION: u64 = 1;

/// The JSON Schema (2020-12) of the three responses: `$defs/start_response`,
/// `$defs/run_response`, `$defs/stop_response`. Generated from the response types below
/// ([`crate::schema::protocol_schema`]; `cargo xtask schemas` writes the file, `--check` and a
/// test hold it equal).
pub const SCHEMA: &str = include_str!("../schema/protocol.schema.json");

/// The operations an implementation may answer in persistent mode (`capabilities.operations`).
/// GRP scenarios and the emitters always run one-shot.
pub const PERSISTENT_OPERATIONS: [Operation; 3] = [
    Operation::Aer1Receipt,
    Operation::Aer1Timeline,
    Operation::Aer1Workflow,
];

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
///
/// The reader takes a missing `version` as empty, but the protocol asks for it: the schema lists
/// it as required (the derive would not, because of the serde default).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("required" = ["name", "version"]))]
pub struct Named {
    pub name: String,
    #[serde(default)]
    pub version: String,
}

/// The capabilities an implementation claims. Vectors outside them are reported unsupported
/// without being sent.
///
/// The members are read as strings, so that a name the harness does not know is an operation,
/// revision or tier not claimed rather than a broken start response; the schema (what
/// `--validate-protocol` holds a server to) names the values it may list, each once, and no
/// `null` where a list may be absent.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Capabilities {
    /// The operations it answers in persistent mode (`aer1-receipt`, `aer1-timeline`,
    /// `aer1-workflow`). Vectors of other operations are reported unsupported without being
    /// sent.
    #[schemars(with = "Vec<PersistentOperation>", extend("uniqueItems" = true))]
    pub operations: Vec<String>,
    /// The `REVISION` values `aer1-timeline` supports. Absent: not restricted here (answer exit
    /// 89 for what you lack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<TimelineRevision>", extend("uniqueItems" = true))]
    pub timeline_revisions: Option<Vec<String>>,
    /// The `TIER` values `aer1-receipt` supports. Absent: not restricted here (answer exit 89
    /// for what you lack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<TierName>", extend("uniqueItems" = true))]
    pub tiers: Option<Vec<String>>,
    /// The name `tiers` had before agentconf 0.2.0, still read when `tiers` is absent (then it
    /// restricts `aer1-receipt` to the tiers listed, so an implementation that lists only `core`
    /// and `strict` gets the `anchored` and `profile` vectors as unsupported); `tiers` wins when
    /// both are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<TierName>", extend("uniqueItems" = true))]
    pub id_tiers: Option<Vec<String>>,
}

impl Capabilities {
    /// The claimed `TIER` values of `aer1-receipt`, under either name; `None`: not restricted.
    pub fn receipt_tiers(&self) -> Option<&[String]> {
        self.tiers.as_deref().or(self.id_tiers.as_deref())
    }
}

/// The answer to `{"cmd":"start","protocol":1}`.
///
/// Extra members are allowed in every response and ignored (the reader does not refuse them), so
/// no response schema closes its members.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "start_response")]
pub struct StartResponse {
    /// The protocol version the implementation speaks: the one it was asked for.
    ///
    /// Read as any JSON value so that another version gets its own message, not a parse error;
    /// the schema holds it to the version
    /// this protocol is (`PROTOCOL_VERSION`).
    #[schemars(schema_with = "protocol_version_schema")]
    pub protocol: Value,
    /// Its name (not empty) and version.
    #[schemars(schema_with = "implementation_schema")]
    pub implementation: Named,
    pub capabilities: Capabilities,
}

/// The answer to `{"cmd":"run","seq":…,"operation":…,"args":[…]}`: what the one-shot call would
/// have exited with and printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "run_response")]
pub struct RunResponse {
    /// The request's seq, echoed exactly (an opaque JSON value).
    pub seq: Value,
    /// The one-shot exit status: 0 accept, 1 reject, 89 unsupported. Any other integer reports
    /// that this request crashed (graded as a crash; the process keeps serving).
    pub exit: i64,
    /// `"valid"` with exit 0, `"invalid"` with exit 1, or null (or absent) for no result object:
    /// verdict-only grading, like an empty standard output in one-shot mode.
    ///
    /// A string, so that another word is graded as a protocol error of this request with its
    /// own message; the schema names the two it may be.
    #[serde(default)]
    #[schemars(schema_with = "verdict_schema")]
    pub verdict: Option<String>,
    /// Catalogue ids of the rules the input breaks. Absent means empty.
    ///
    /// Strings, not catalogue ids: an id the catalogue lacks is graded as a protocol error of
    /// this request, which names it, whether or not the schema is checked.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Human-readable explanations, never graded. Absent means empty.
    #[serde(default)]
    pub messages: Vec<String>,
}

/// The answer to `{"cmd":"stop"}`, written just before a clean exit 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "stop_response")]
pub struct StopResponse {
    /// Always `true`: the reader refuses any other value, so the schema says so.
    #[schemars(extend("const" = true))]
    pub stopped: bool,
}

/// Any of the three responses: the root of the protocol schema, which `--validate-protocol`
/// points at one definition at a time ([`SCHEMA`]). Never read or written as such.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
pub(crate) enum Response {
    Start(StartResponse),
    Run(RunResponse),
    Stop(StopResponse),
}

/// `protocol`: the constant [`PROTOCOL_VERSION`] (the field is a `Value`, whose derived schema
/// would accept anything).
fn protocol_version_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "const": PROTOCOL_VERSION })
}

/// `implementation`: a [`Named`] whose name is not empty. The constraint is the protocol's, not
/// the type's: the results header records what a server declared with the same type, empty name
/// or not, so it cannot sit on [`Named`] itself.
fn implementation_schema(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = Named::json_schema(generator);
    if let Some(name) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("name"))
        .and_then(Value::as_object_mut)
    {
        name.insert("minLength".into(), 1.into());
    }
    schema
}

/// `verdict`: `"valid"`, `"invalid"` or null.
fn verdict_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["valid", "invalid", null] })
}

/// The schema of an operation name in `capabilities.operations`: one of
/// [`PERSISTENT_OPERATIONS`].
struct PersistentOperation;

impl JsonSchema for PersistentOperation {
    fn schema_name() -> Cow<'static, str> {
        "PersistentOperation".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_contract::protocol::PersistentOperation".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = PERSISTENT_OPERATIONS.iter().map(|o| o.as_str()).collect();
        json_schema!({ "type": "string", "enum": names })
    }
}

/// The schema of a revision in `capabilities.timeline_revisions`: one of AER-1's, as the
/// revisions table lists them.
struct TimelineRevision;

impl JsonSchema for TimelineRevision {
    fn schema_name() -> Cow<'static, str> {
        "TimelineRevision".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_contract::protocol::TimelineRevision".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let table = agentconf_rules::Revisions::embedded();
        let numbers = table.numbers(agentconf_rules::draft_revisions::AER1);
        json_schema!({ "type": "string", "enum": numbers })
    }
}
