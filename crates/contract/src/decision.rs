//! The decision line a GRP receiver writes for each event line it reads (CONTRACT.md section 5):
//! one JSON object per line, in order, flushed as it goes.

use serde::{Deserialize, Serialize};

pub use crate::vector::Outcome;

/// What a receiver says of one line (the drafts' two outcomes, or `deferred`): one type for the
/// reference receiver that writes it and the harness that reads it.
pub use agentconf_rules::DecisionOutcome;

/// One decision as a receiver wrote it. Members beyond these are allowed and ignored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionLine {
    #[serde(default)]
    pub event_id: Option<String>,
    #[serde(default)]
    pub publisher_id: Option<String>,
    pub outcome: DecisionOutcome,
    /// `ALE-064` for rejections, null for admissions and deferrals.
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

/// What a decision's `event_id` and `publisher_id` must be for the line it answers (CONTRACT.md
/// 5.2): the line's member when the line is a JSON object and the member a string, otherwise
/// null. `None` for a member the line leaves open, which is then not compared: a line that is not
/// JSON as `serde_json` reads it (a receiver with other limits may still read it) or an object
/// that gives the member twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIdentity {
    pub event_id: Option<Option<String>>,
    pub publisher_id: Option<Option<String>>,
}

impl LineIdentity {
    /// The identity `line` (without its newline) calls for.
    pub fn of(line: &[u8]) -> LineIdentity {
        let open = LineIdentity {
            event_id: None,
            publisher_id: None,
        };
        match serde_json::from_slice::<serde_json::Value>(line) {
            Err(_) => open,
            Ok(serde_json::Value::Object(_)) => match serde_json::from_slice::<Members>(line) {
                Ok(m) => LineIdentity {
                    event_id: m.event_id.expected(),
                    publisher_id: m.publisher_id.expected(),
                },
                Err(_) => open,
            },
            Ok(_) => LineIdentity {
                event_id: Some(None),
                publisher_id: Some(None),
            },
        }
    }

    /// Where `d` differs from what the line calls for: `(member, got, expected)`.
    pub fn mismatches(
        &self,
        d: &DecisionLine,
    ) -> Vec<(&'static str, Option<String>, Option<String>)> {
        let mut out = Vec::new();
        for (member, want, got) in [
            ("event_id", &self.event_id, &d.event_id),
            ("publisher_id", &self.publisher_id, &d.publisher_id),
        ] {
            if let Some(want) = want {
                if want != got {
                    out.push((member, got.clone(), want.clone()));
                }
            }
        }
        out
    }
}

/// How often an object gives a member, and its value when once.
#[derive(Default)]
enum Seen {
    #[default]
    Absent,
    Once(serde_json::Value),
    Twice,
}

impl Seen {
    fn add(&mut self, v: serde_json::Value) {
        *self = match self {
            Seen::Absent => Seen::Once(v),
            _ => Seen::Twice,
        };
    }

    fn expected(self) -> Option<Option<String>> {
        match self {
            Seen::Absent => Some(None),
            Seen::Once(v) => Some(v.as_str().map(str::to_string)),
            Seen::Twice => None,
        }
    }
}

/// The two identity members of an object, with repeats noticed (a `serde_json::Value` keeps
/// only the last).
#[derive(Default)]
struct Members {
    event_id: Seen,
    publisher_id: Seen,
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members, A::Error> {
                let mut m = Members::default();
                while let Some(key) = map.next_key::<String>()? {
                    let value: serde_json::Value = map.next_value()?;
                    match key.as_str() {
                        "event_id" => m.event_id.add(value),
                        "publisher_id" => m.publisher_id.add(value),
                        _ => {}
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_identity() {
        let of = |s: &str| {
            let i = LineIdentity::of(s.as_bytes());
            (i.event_id, i.publisher_id)
        };
        let some = |s: &str| Some(Some(s.to_string()));
        assert_eq!(
            of(r#"{"event_id":"e","publisher_id":"p"}"#),
            (some("e"), some("p"))
        );
        assert_eq!(of(r#"{"event_id":1}"#), (Some(None), Some(None)));
        assert_eq!(of("[1]"), (Some(None), Some(None)));
        assert_eq!(of("not json"), (None, None));
        assert_eq!(
            of(r#"{"event_id":"a","event_id":"b","publisher_id":"p"}"#),
            (None, some("p"))
        );
        let d = DecisionLine::parse(
            r#"{"event_id":"x","publisher_id":"p","outcome":"admitted","ale":null}"#,
        )
        .unwrap();
        let want = LineIdentity::of(br#"{"event_id":"e","publisher_id":"p"}"#);
        assert_eq!(
            want.mismatches(&d),
            vec![("event_id", Some("x".to_string()), Some("e".to_string()))]
        );
    }

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
        let deferred = DecisionLine::parse(
            r#"{"event_id":"e","publisher_id":"p","outcome":"deferred","ale":null,"rejection_reason":null,"rule":null}"#,
        )
        .unwrap();
        assert_eq!(deferred.outcome, DecisionOutcome::Deferred);
        assert!(deferred.outcome != Outcome::Admitted && deferred.outcome != Outcome::Rejected);
        assert!(DecisionLine::parse(r#"{"outcome":"maybe"}"#).is_err());
        assert!(DecisionLine::parse("not json").is_err());
    }
}
