//! Grading: an implementation's answer against a case's expectation. The one place that says
//! what passes — for one-shot and persistent AER-1 answers ([`grade_verdict`]) and for every GRP
//! decision ([`grade_decision`]).

use agentconf_contract::case::Case;
use agentconf_contract::decision::DecisionLine;
use agentconf_contract::result::rule_list;
use agentconf_contract::vector::{Expectation, ExpectedDecision, Outcome};
use agentconf_rules::Rule;
use serde::{Deserialize, Serialize};

use crate::status::Status;

/// How strictly a rejection is graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grading {
    /// A rejection must cite every expected rule (and GRP draft-named reasons must match).
    Strict,
    /// Any rejection of an invalid vector passes.
    Loose,
}

/// A failed step: the status and why.
pub type Failure = (Status, String);

/// Grades an accept or a reject of an AER-1 case against the rules reported (`grading` is
/// already loose when nothing was reported).
pub fn grade_verdict(
    c: &Case<'_>,
    accepted: bool,
    reported: &[Rule],
    grading: Grading,
) -> (Status, String) {
    let missing = c.expected_rules.iter().any(|r| !reported.contains(r));
    match (c.expectation, accepted) {
        (Expectation::Valid, true) => (Status::Pass, "accepted".to_string()),
        (Expectation::Valid, false) => (
            Status::FalseReject,
            format!("rejected: {}", rule_list(reported)),
        ),
        (Expectation::Invalid, true) => (Status::FalseAccept, "accepted".to_string()),
        (Expectation::Acceptable, true) => (Status::Pass, "accepted (acceptable)".to_string()),
        (Expectation::Invalid | Expectation::Acceptable, false) => {
            if grading == Grading::Loose || !missing {
                (Status::Pass, format!("rejected: {}", rule_list(reported)))
            } else {
                (
                    Status::WrongReason,
                    format!(
                        "rejected with {}, expected {}",
                        rule_list(reported),
                        rule_list(c.expected_rules)
                    ),
                )
            }
        }
    }
}

/// The status of a played scenario: a pass when every decision was as judged, else the first
/// failure.
pub fn grade_scenario(played: Result<(), Failure>) -> (Status, String) {
    match played {
        Ok(()) => (Status::Pass, "every decision as expected".to_string()),
        Err(failure) => failure,
    }
}

/// Grades one decision of step `index` against its expectation.
pub fn grade_decision(
    index: usize,
    d: &DecisionLine,
    e: &ExpectedDecision,
    grading: Grading,
) -> Result<(), Failure> {
    match (e.outcome, d.outcome) {
        (Outcome::Admitted, Outcome::Admitted) => Ok(()),
        (Outcome::Admitted, Outcome::Rejected) => Err((
            Status::FalseReject,
            format!(
                "step {index}: rejected ({})",
                json_text(&d.rejection_reason)
            ),
        )),
        (Outcome::Rejected, Outcome::Admitted) => Err((
            Status::FalseAccept,
            format!(
                "step {index}: admitted, expected a rejection ({})",
                json_text(&e.rejection_reason)
            ),
        )),
        (Outcome::Rejected, Outcome::Rejected) => {
            if grading == Grading::Loose {
                return Ok(());
            }
            let reason = d.rejection_reason.as_deref();
            let reason_ok =
                e.reason_named_by_draft != Some(true) || reason == e.rejection_reason.as_deref();
            let rule_ok = d
                .rule
                .as_deref()
                .is_none_or(|r| Some(r) == e.rule.map(Rule::id));
            if reason_ok && rule_ok {
                Ok(())
            } else {
                Err((
                    Status::WrongReason,
                    format!(
                        "step {index}: rejected with reason {} and rule {}, expected reason {} \
                         and rule {}",
                        json_text(&d.rejection_reason),
                        json_text(&d.rule),
                        json_text(&e.rejection_reason),
                        json_text(&e.rule.map(|r| r.id().to_string()))
                    ),
                ))
            }
        }
    }
}

/// A string member as JSON text (`"x"`, or `null`), for messages.
fn json_text(s: &Option<String>) -> String {
    serde_json::to_string(s).unwrap_or_default()
}
