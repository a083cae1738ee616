//! The one-shot implementation contract (see `CONTRACT.md`): exit codes and the optional result
//! object on standard output. Reading an implementation's output never panics: every problem is a
//! typed [`ProtocolError`].

use std::fmt;

use serde::{Deserialize, Serialize};

/// The implementation accepted the input.
pub const EXIT_ACCEPT: i32 = 0;
/// The implementation rejected the input.
pub const EXIT_REJECT: i32 = 1;
/// The implementation does not support the operation, revision or option.
pub const EXIT_UNSUPPORTED: i32 = 89;

/// What an exit status means. Anything but 0, 1 and 89 is a crash, never a rejection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExitMeaning {
    Accept,
    Reject,
    Unsupported,
    Crash,
}

impl ExitMeaning {
    /// `code` is `None` when the process died by a signal.
    pub fn of(code: Option<i32>) -> ExitMeaning {
        match code {
            Some(EXIT_ACCEPT) => ExitMeaning::Accept,
            Some(EXIT_REJECT) => ExitMeaning::Reject,
            Some(EXIT_UNSUPPORTED) => ExitMeaning::Unsupported,
            _ => ExitMeaning::Crash,
        }
    }
}

/// The optional one-object result an implementation prints for strict grading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImplResult {
    /// `valid` or `invalid`; must agree with the exit code.
    pub verdict: String,
    /// Catalogue rule ids the implementation reports.
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
    let result: ImplResult =
        serde_json::from_str(text.trim()).map_err(|e| ProtocolError::NotAResult {
            detail: e.to_string(),
        })?;
    let expected = match result.verdict.as_str() {
        "valid" => ExitMeaning::Accept,
        "invalid" => ExitMeaning::Reject,
        _ => {
            return Err(ProtocolError::UnknownVerdict {
                verdict: result.verdict,
            })
        }
    };
    if matches!(exit, ExitMeaning::Accept | ExitMeaning::Reject) && exit != expected {
        return Err(ProtocolError::VerdictMismatch {
            verdict: result.verdict,
            exit,
        });
    }
    if let Some(rule) = result
        .rules
        .iter()
        .find(|r| agentconf_rules::Rule::from_id(r).is_none())
    {
        return Err(ProtocolError::UnknownRule { rule: rule.clone() });
    }
    Ok(Some(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        assert_eq!(ExitMeaning::of(Some(0)), ExitMeaning::Accept);
        assert_eq!(ExitMeaning::of(Some(1)), ExitMeaning::Reject);
        assert_eq!(ExitMeaning::of(Some(89)), ExitMeaning::Unsupported);
        for crash in [Some(2), Some(101), Some(-1), Some(139), None] {
            assert_eq!(ExitMeaning::of(crash), ExitMeaning::Crash, "{crash:?}");
        }
    }

    #[test]
    fn results() {
        let ok = br#"{"verdict":"invalid","rules":["AER1-TL-SEQ"],"messages":["x"]}"#;
        assert_eq!(
            parse_result(ok, ExitMeaning::Reject)
                .unwrap()
                .unwrap()
                .rules,
            ["AER1-TL-SEQ"]
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
}
