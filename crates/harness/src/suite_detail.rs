//! What a case of one suite records beyond its status and detail, for its results line: one
//! member, so the case's result and the results line carry it without knowing each suite's data.
//!
//! On a results line it is written flattened, as the members it has (`history` for a cluster
//! scenario), after `broken_rules`, and nothing at all when there is nothing: the bytes every
//! agentconf version has written.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::scenario::cluster::history::Entry;
use crate::scenario::cluster::MAX_HISTORY_ENTRIES;

/// Suite-specific data of one case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SuiteDetail {
    /// Nothing beyond status and detail: every case but a GRP case with cluster steps.
    #[default]
    None,
    /// A GRP case with cluster steps: what each node was handed and decided, and the faults
    /// made, in order (bounded, never empty).
    ClusterHistory(Vec<Entry>),
}

impl SuiteDetail {
    /// The history of a case's cluster steps: none when there were none.
    pub fn cluster_history(history: Vec<Entry>) -> SuiteDetail {
        if history.is_empty() {
            SuiteDetail::None
        } else {
            SuiteDetail::ClusterHistory(history)
        }
    }

    /// The cluster history, empty for any other case.
    pub fn history(&self) -> &[Entry] {
        match self {
            SuiteDetail::ClusterHistory(history) => history,
            SuiteDetail::None => &[],
        }
    }
}

/// The members it adds to a results line (flattened into it).
impl Serialize for SuiteDetail {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut members = s.serialize_map(None)?;
        match self {
            SuiteDetail::None => {}
            SuiteDetail::ClusterHistory(history) => members.serialize_entry("history", history)?,
        }
        members.end()
    }
}

/// Read from the line's members its own fields did not take. Others are left alone: the reader
/// refuses a member the format does not know on its own, naming it.
impl<'de> Deserialize<'de> for SuiteDetail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Members {
            #[serde(default)]
            history: Vec<Entry>,
        }
        // An empty `history` is read as none, which is written without it: the reader refuses
        // the line as not what agentconf writes, as it always has.
        let Members { history } = Members::deserialize(d)?;
        Ok(SuiteDetail::cluster_history(history))
    }
}

/// The members a results line may carry, none of them required.
impl JsonSchema for SuiteDetail {
    fn schema_name() -> Cow<'static, str> {
        "SuiteDetail".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let entry = generator.subschema_for::<Entry>();
        json_schema!({
            "type": "object",
            "properties": {
                "history": {
                    "description": "For a GRP case with cluster steps: what each node was \
                        handed and decided, and the faults made, in order (bounded). Absent \
                        otherwise, and in files written before it existed.",
                    "type": "array",
                    "items": entry,
                    "minItems": 1,
                    "maxItems": MAX_HISTORY_ENTRIES,
                },
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Line;

    /// A cluster case's line as `agentconf run` writes it: `history` last.
    const CLUSTER_LINE: &str = r#"{"type":"result","id":"grp/admission/cluster/x","revision":"01","suite":"grp-admission","family":"cluster","rules":["GRP-PROFILE-CLUSTER"],"level":"MUST","expectation":"valid","expected_rules":[],"status":"pass","detail":"every decision as expected","stderr":"","duration_ms":2,"history":[{"node":"n1","t_us":2122,"line":0,"decision":"delivered"},{"node":"n1","t_us":2312,"line":null,"decision":"killed"},{"node":"n2","t_us":2388,"line":0,"decision":"rejected","reason":"duplicate_event_id"}]}"#;

    fn result(line: &Line) -> &crate::results::ResultLine {
        match line {
            Line::Result(r) => r,
            other => panic!("not a result line: {other:?}"),
        }
    }

    /// Written and read back as the same bytes, in the same place; without a history the member
    /// is left out, and an empty one reads as none.
    #[test]
    fn the_history_is_written_flattened_where_it_always_was() {
        let line: Line = serde_json::from_str(CLUSTER_LINE).unwrap();
        let r = result(&line);
        assert_eq!(r.suite_detail.history().len(), 3);
        assert!(matches!(r.suite_detail, SuiteDetail::ClusterHistory(_)));
        assert_eq!(serde_json::to_string(&line).unwrap(), CLUSTER_LINE);
        let without = CLUSTER_LINE
            .split_once(",\"history\"")
            .map(|(head, _)| format!("{head}}}"))
            .unwrap();
        let line: Line = serde_json::from_str(&without).unwrap();
        assert!(matches!(result(&line).suite_detail, SuiteDetail::None));
        assert_eq!(serde_json::to_string(&line).unwrap(), without);
        let empty = format!("{},\"history\":[]}}", &without[..without.len() - 1]);
        let line: Line = serde_json::from_str(&empty).unwrap();
        assert!(matches!(result(&line).suite_detail, SuiteDetail::None));
    }

    /// A malformed history is no results line: serde's error, never a panic.
    #[test]
    fn a_malformed_history_is_refused() {
        let bad = CLUSTER_LINE.replacen("\"decision\":\"delivered\"", "\"decision\":7", 1);
        assert!(serde_json::from_str::<Line>(&bad).is_err());
    }
}
