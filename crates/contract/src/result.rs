//! The optional result object an AER-1 call prints on standard output for strict grading:
//! `{"verdict": "valid"|"invalid", "rules": [catalogue ids], "messages": [text]}`. Reading an
//! implementation's output never panics: every problem is a typed [`ProtocolError`].

use std::fmt;

use agentconf_rules::Rule;
use serde::{Deserialize, Serialize};

use crate::exit::ExitMeaning;

/// An accept or a reject: the workspace's one verdict type.
pub use agentconf_rules::Verdict;

/// The exit meaning a verdict must come with.
pub fn exit_of(verdict: Verdict) -> ExitMeaning {
    match verdict {
        Verdict::Valid => ExitMeaning::Accept,
        Verdict::Invalid => ExitMeaning::Reject,
    }
}

/// A result object, checked: the verdict agrees with the exit code and every rule is a
/// catalogue id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImplResult {
    pub verdict: Verdict,
    /// The rules the implementation reports, in its order.
    pub rules: Vec<Rule>,
    pub messages: Vec<String>,
}

/// A result object as written, before it is checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawResult {
    pub verdict: String,
    #[serde(default)]
    pub rules: Vec<String>,
    #[serde(default)]
    pub messages: Vec<String>,
}

/// Why an implementation's output does not follow the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// Standard output is not one JSON object of the result shape.
    NotAResult { detail: String },
    /// `verdict` is neither `valid` nor `invalid`.
    UnknownVerdict { verdict: String },
    /// The verdict and the exit code disagree.
    VerdictMismatch { verdict: String, exit: ExitMeaning },
    /// A reported rule id is not in the catalogue.
    UnknownRule { rule: String },
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::NotAResult { detail } => {
                write!(f, "standard output is not one result object: {detail}")
            }
            ProtocolError::UnknownVerdict { verdict } => {
                write!(
                    f,
                    "verdict {verdict:?} is neither \"valid\" nor \"invalid\""
                )
            }
            ProtocolError::VerdictMismatch { verdict, exit } => {
                write!(
                    f,
                    "verdict {verdict:?} disagrees with the exit code ({exit:?})"
                )
            }
            ProtocolError::UnknownRule { rule } => {
                write!(f, "rule {rule:?} is not a catalogue id")
            }
        }
    }
}

/// Reads the optional result object. Empty (or whitespace-only) output is `Ok(None)`: the
/// implementation is graded on its exit code only.
pub fn parse_result(stdout: &[u8], exit: ExitMeaning) -> Result<Option<ImplResult>, ProtocolError> {
    let text = std::str::from_utf8(stdout).map_err(|e| ProtocolError::NotAResult {
        detail: format!("not UTF-8 ({e})"),
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let raw: RawResult =
        serde_json::from_str(text.trim()).map_err(|e| ProtocolError::NotAResult {
            detail: e.to_string(),
        })?;
    check_result(raw, exit).map(Some)
}

/// Checks a result object against the exit code it came with.
pub fn check_result(raw: RawResult, exit: ExitMeaning) -> Result<ImplResult, ProtocolError> {
    let verdict = match raw.verdict.as_str() {
        "valid" => Verdict::Valid,
        "invalid" => Verdict::Invalid,
        _ => {
            return Err(ProtocolError::UnknownVerdict {
                verdict: raw.verdict,
            })
        }
    };
    if matches!(exit, ExitMeaning::Accept | ExitMeaning::Reject) && exit != exit_of(verdict) {
        return Err(ProtocolError::VerdictMismatch {
            verdict: raw.verdict,
            exit,
        });
    }
    let mut rules = Vec::with_capacity(raw.rules.len());
    for id in &raw.rules {
        match Rule::from_id(id) {
            Some(rule) => rules.push(rule),
            None => return Err(ProtocolError::UnknownRule { rule: id.clone() }),
        }
    }
    Ok(ImplResult {
        verdict,
        rules,
        messages: raw.messages,
    })
}

/// Rule ids as a list for messages: `["AER1-TL-SEQ", "AER1-TL-LINK"]`.
pub fn rule_list(rules: &[Rule]) -> String {
    format!("{:?}", rules.iter().map(|r| r.id()).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results() {
        let ok = br#"{"verdict":"invalid","rules":["AER1-TL-SEQ"],"messages":["x"]}"#;
        assert_eq!(
            parse_result(ok, ExitMeaning::Reject)
                .unwrap()
                .unwrap()
                .rules,
            [Rule::from_id("AER1-TL-SEQ").unwrap()]
        );
        assert_eq!(parse_result(b"  \n", ExitMeaning::Accept).unwrap(), None);
        assert!(matches!(
            parse_result(ok, ExitMeaning::Accept),
            Err(ProtocolError::VerdictMismatch { .. })
        ));
        assert!(matches!(
            parse_result(b"garbage", ExitMeaning::Reject),
            Err(ProtocolError::NotAResult { .. })
        ));
        assert!(matches!(
            parse_result(b"\xff", ExitMeaning::Reject),
            Err(ProtocolError::NotAResult { .. })
        ));
        assert!(matches!(
            parse_result(br#"{"verdict":"maybe"}"#, ExitMeaning::Reject),
            Err(ProtocolError::UnknownVerdict { .. })
        ));
        assert!(matches!(
            parse_result(
                br#"{"verdict":"invalid","rules":["NOPE"]}"#,
                ExitMeaning::Reject
            ),
            Err(ProtocolError::UnknownRule { .. })
        ));
    }

    #[test]
    fn rule_lists_read_like_the_ids() {
        let rules: Vec<Rule> = ["AER1-TL-SEQ", "AER1-TL-LINK"]
            .iter()
            .filter_map(|id| Rule::from_id(id))
            .collect();
        assert_eq!(rule_list(&rules), r#"["AER1-TL-SEQ", "AER1-TL-LINK"]"#);
        assert_eq!(rule_list(&[]), "[]");
    }
}
