//! The decision line a GRP receiver writes for each event line it reads (CONTRACT.md section 5):
//! one JSON object per line, in order, flushed as it goes.

use serde::{Deserialize, Serialize};

pub use crate::vector::Outcome;

/// One decision as a receiver wrote it. Members beyond these are allowed and ignored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionLine {
    #[serde(default)]
    pub event_id: Option<String>,
    #[serde(default)]
    pub publisher_id: Option<String>,
    pub outcome: Outcome,
    /// `ALE-064` for rejections, null for admissions.
    #[serde(default)]
    pub ale: Option<String>,
    /// For rejections: the ALE-064 `rejection_reason`.
    #[serde(default)]
    pub rejection_reason: Option<String>,
    /// For rejections: the catalogue rule, when the receiver names one.
    #[serde(default)]
    pub rule: Option<String>,
    /// The member concerned, where there is one.
    #[serde(default)]
    pub member: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// Why a line is not a decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotADecision(pub String);

impl std::fmt::Display for NotADecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "decision is not JSON: {}", self.0)
    }
}

impl DecisionLine {
    /// Reads one line (its newline already removed or not).
    pub fn parse(line: &str) -> Result<DecisionLine, NotADecision> {
        serde_json::from_str(line.trim_end()).map_err(|e| NotADecision(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_lines() {
        let d = DecisionLine::parse(
            r#"{"event_id":"e","publisher_id":"p","outcome":"rejected","ale":"ALE-064","rejection_reason":"duplicate_event_id","rule":"GRP-DUP","extra":1}"#,
        )
        .unwrap();
        assert_eq!(d.outcome, Outcome::Rejected);
        assert_eq!(d.rejection_reason.as_deref(), Some("duplicate_event_id"));
        assert_eq!(
            DecisionLine::parse(r#"{"outcome":"admitted"}"#)
                .unwrap()
                .outcome,
            Outcome::Admitted
        );
        assert!(DecisionLine::parse(r#"{"outcome":"maybe"}"#).is_err());
        assert!(DecisionLine::parse("not json").is_err());
    }
}
