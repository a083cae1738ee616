//! What an emitter is asked to record: the input of `IMPL aer1-emit-timeline STEPS`, and the
//! `META` of `IMPL aer1-emit-receipt PAYLOAD META`.
//!
//! A producer of AER-1 timelines (a recorder, an agent-framework integration) is tested by
//! giving it the steps of a job and comparing the timeline it writes with the draft's
//! construction. The steps carry everything an entry binds: the job, each receipt id, tool name,
//! provenance class, and the exact output bytes (base64, so that any bytes at all — not only
//! text — can be recorded).

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `STEPS` file of `aer1-emit-timeline`: one job's steps, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineSteps {
    /// The job every entry belongs to (`job_id`).
    pub job_id: String,
    /// Entry i records step i; the last entry closes the timeline.
    #[schemars(length(min = 1))]
    pub steps: Vec<EmitStep>,
}

/// One step: what one timeline entry records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmitStep {
    /// The receipt id (`id`).
    pub id: String,
    /// The tool's name (`tool`).
    pub tool: String,
    /// `provenance_class`.
    pub provenance_class: String,
    /// The tool's exact output bytes, standard base64 with padding; the entry's
    /// `canonical_bytes` carries the same bytes.
    pub output_base64: String,
}

impl EmitStep {
    /// The output bytes; `None` when `output_base64` is not canonical padded base64.
    pub fn output(&self) -> Option<Vec<u8>> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.output_base64)
            .ok()?;
        // One spelling per byte string: trailing bits and padding must be as encoding writes them.
        (base64::engine::general_purpose::STANDARD.encode(&bytes) == self.output_base64)
            .then_some(bytes)
    }

    /// A step recording `output`.
    pub fn new(id: &str, tool: &str, provenance_class: &str, output: &[u8]) -> EmitStep {
        EmitStep {
            id: id.to_string(),
            tool: tool.to_string(),
            provenance_class: provenance_class.to_string(),
            output_base64: base64::engine::general_purpose::STANDARD.encode(output),
        }
    }
}

impl TimelineSteps {
    /// Reads a `STEPS` file: unknown and repeated members are refused, every output must be
    /// canonical base64, and there is at least one step.
    pub fn parse(bytes: &[u8]) -> Result<TimelineSteps, String> {
        let steps: TimelineSteps =
            serde_json::from_slice(bytes).map_err(|e| format!("not a STEPS document: {e}"))?;
        if steps.steps.is_empty() {
            return Err("not a STEPS document: no steps".into());
        }
        if let Some(i) = steps.steps.iter().position(|s| s.output().is_none()) {
            return Err(format!(
                "not a STEPS document: step {i}'s output_base64 is not canonical base64"
            ));
        }
        Ok(steps)
    }
}

/// The `META` file of `aer1-emit-receipt`: every member of the receipt that is the producer's
/// own knowledge rather than a function of the payload, so that the receipt it writes is
/// determined by its inputs (no clock, no random id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReceiptMeta {
    pub id: String,
    pub receipt_schema_version: String,
    pub created_at: String,
    pub tool: ReceiptTool,
    pub provenance_class: String,
}

/// A receipt's `tool` object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReceiptTool {
    pub name: String,
    pub version: String,
    pub scope: String,
}

impl ReceiptMeta {
    /// Reads a `META` file: unknown members are refused.
    pub fn parse(bytes: &[u8]) -> Result<ReceiptMeta, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("not a META document: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_back_and_refuse_what_is_not_one() {
        let s = TimelineSteps {
            job_id: "job-1".into(),
            steps: vec![EmitStep::new("r-1", "t", "LOGGED BY AGENT", b"\x00\xffout")],
        };
        let text = serde_json::to_vec(&s).unwrap();
        assert_eq!(TimelineSteps::parse(&text), Ok(s));
        for bad in [
            r#"{"job_id":"j","steps":[]}"#,
            r#"{"job_id":"j","steps":[{"id":"r","tool":"t","provenance_class":"p","output_base64":"YQ"}]}"#,
            r#"{"job_id":"j","steps":[{"id":"r","tool":"t","provenance_class":"p","output_base64":"YR=="}]}"#,
            r#"{"job_id":"j","job_id":"k","steps":[{"id":"r","tool":"t","provenance_class":"p","output_base64":""}]}"#,
            r#"{"job_id":"j","extra":1,"steps":[{"id":"r","tool":"t","provenance_class":"p","output_base64":""}]}"#,
        ] {
            assert!(TimelineSteps::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
