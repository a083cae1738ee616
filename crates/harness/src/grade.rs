//! Grading: an implementation's answer against a case's expectation. The one place that says
//! what passes — for one-shot and persistent AER-1 answers ([`grade_verdict`]) and for every GRP
//! decision ([`grade_decision`]).

use agentconf_contract::case::Case;
use agentconf_contract::decision::{DecisionLine, DecisionOutcome, LineIdentity};
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

/// What a case or a step came to: its status and why. A step that fails returns `Err(Grade)`
/// with the status the whole case takes; the first one ends the case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grade {
    pub status: Status,
    /// Why, for the results line's `detail`.
    pub detail: String,
}

impl Grade {
    pub fn new(status: Status, detail: impl Into<String>) -> Grade {
        Grade {
            status,
            detail: detail.into(),
        }
    }

    /// A pass, and why.
    pub fn pass(detail: impl Into<String>) -> Grade {
        Grade::new(Status::Pass, detail)
    }
}

/// Grades an accept or a reject of an AER-1 case against the rules reported (`grading` is
/// already loose when nothing was reported).
pub fn grade_verdict(c: &Case<'_>, accepted: bool, reported: &[Rule], grading: Grading) -> Grade {
    match (c.expectation, accepted) {
        (Expectation::Valid, true) => Grade::pass("accepted"),
        (Expectation::Valid, false) => Grade::new(
            Status::FalseReject,
            format!("rejected: {}", rule_list(reported)),
        ),
        (Expectation::Invalid, true) => Grade::new(Status::FalseAccept, "accepted"),
        (Expectation::Acceptable, true) => Grade::pass("accepted (acceptable)"),
        (Expectation::Invalid | Expectation::Acceptable, false) => {
            match (grading, wrong_reason(c, reported)) {
                (Grading::Loose, _) | (Grading::Strict, None) => {
                    Grade::pass(format!("rejected: {}", rule_list(reported)))
                }
                (Grading::Strict, Some(why)) => Grade::new(Status::WrongReason, why),
            }
        }
    }
}

/// Strict grading of a rejection's rules (CONTRACT.md section 4: "every rule the input breaks,
/// and only those"): the rules reported must include every rule the case expects and nothing
/// outside the expected rules and those it may also cite — or do the same for one of the case's
/// alternative readings (`any_of`). Otherwise the message (`Some`) names what is missing and
/// what the input does not break, against the case's own rules. A case that names no rule at all
/// (a derived matrix case, whose judge knows only that the input must be rejected) takes any.
pub(crate) fn wrong_reason(c: &Case<'_>, reported: &[Rule]) -> Option<String> {
    if c.expected_rules.is_empty() && c.any_of.is_empty() {
        return None;
    }
    let fits = |expected: &[Rule], also: &[Rule]| {
        expected.iter().all(|r| reported.contains(r))
            && reported
                .iter()
                .all(|r| expected.contains(r) || also.contains(r))
    };
    if fits(c.expected_rules, c.also_reported)
        || c.any_of
            .iter()
            .any(|a| fits(&a.expected_rules, &a.also_reported))
    {
        return None;
    }
    let missing: Vec<Rule> = c
        .expected_rules
        .iter()
        .filter(|r| !reported.contains(r))
        .copied()
        .collect();
    let mut extra: Vec<Rule> = Vec::new();
    for r in reported {
        if !c.expected_rules.contains(r) && !c.also_reported.contains(r) && !extra.contains(r) {
            extra.push(*r);
        }
    }
    let mut why = format!(
        "rejected with {}, expected {}",
        rule_list(reported),
        rule_list(c.expected_rules)
    );
    if !missing.is_empty() {
        why.push_str(&format!("; missing {}", rule_list(&missing)));
    }
    if !extra.is_empty() {
        why.push_str(&format!("; the input does not break {}", rule_list(&extra)));
    }
    if !c.any_of.is_empty() {
        let readings: Vec<String> = c
            .any_of
            .iter()
            .map(|a| rule_list(&a.expected_rules))
            .collect();
        why.push_str(&format!(
            " (nor matches another reading: {})",
            readings.join(" or ")
        ));
    }
    Some(why)
}

/// The status of a played scenario: a pass when every decision was as judged, else the first
/// failure.
pub(crate) fn grade_scenario(played: Result<(), Grade>) -> Grade {
    match played {
        Ok(()) => Grade::pass("every decision as expected"),
        Err(failure) => failure,
    }
}

/// The decision's `event_id` and `publisher_id` against the line it answers (CONTRACT 5.2),
/// whatever the grading: a wrong value is a protocol error. Members the line leaves open
/// ([`LineIdentity`]) are not compared.
pub(crate) fn grade_identity(index: usize, line: &[u8], d: &DecisionLine) -> Result<(), Grade> {
    let wrong = LineIdentity::of(line).mismatches(d);
    if wrong.is_empty() {
        return Ok(());
    }
    let said: Vec<String> = wrong
        .iter()
        .map(|(member, got, want)| {
            format!(
                "{member} {} where the line calls for {}",
                json_text(got),
                json_text(want)
            )
        })
        .collect();
    Err(Grade::new(
        Status::ProtocolError,
        format!("step {index}: the decision has {}", said.join(" and ")),
    ))
}

/// A line handed again after its receiver was killed before answering: admitted (its first
/// copy was not recorded) or rejected as `duplicate_event_id` (it was, and never reported); any
/// other rejection is a false one, under strict grading — under loose, any rejection passes.
pub(crate) fn grade_redelivery(
    index: usize,
    d: &DecisionLine,
    grading: Grading,
) -> Result<(), Grade> {
    // A deferral decides nothing, under any grading.
    let fine = d.outcome == Outcome::Admitted
        || (d.outcome == Outcome::Rejected
            && (grading == Grading::Loose
                || d.rejection_reason.as_deref() == Some("duplicate_event_id")));
    if fine {
        Ok(())
    } else {
        Err(Grade::new(
            Status::FalseReject,
            format!(
                "step {index}: handed again after the crash, the line was {}; expected \
                 admitted, or rejected as duplicate_event_id if the first copy was recorded",
                said(d)
            ),
        ))
    }
}

/// Grades one decision of step `index` against its expectation, for a vector whose expectation
/// is `expectation`: under `acceptable` the expected decision is the rejection a rejecting
/// receiver must give, and an admission passes too.
pub(crate) fn grade_decision(
    index: usize,
    d: &DecisionLine,
    e: &ExpectedDecision,
    expectation: Expectation,
    grading: Grading,
) -> Result<(), Grade> {
    grade_ale(index, d)?;
    // Outside the `cluster` profile nothing re-delivers a deferred line: "cannot decide now"
    // is a wrong decision there (never an admission, and never the rejection expected).
    let Some(outcome) = d.outcome.outcome() else {
        let status = match e.outcome {
            Outcome::Admitted => Status::FalseReject,
            Outcome::Rejected => Status::WrongReason,
        };
        return Err(Grade::new(
            status,
            format!(
                "step {index}: deferred (cannot decide now), expected {}",
                e.outcome.as_str()
            ),
        ));
    };
    match (e.outcome, outcome) {
        (Outcome::Admitted, Outcome::Admitted) => Ok(()),
        (Outcome::Rejected, Outcome::Admitted) if expectation == Expectation::Acceptable => Ok(()),
        (Outcome::Admitted, Outcome::Rejected) => Err(Grade::new(
            Status::FalseReject,
            format!(
                "step {index}: rejected ({})",
                json_text(&d.rejection_reason)
            ),
        )),
        (Outcome::Rejected, Outcome::Admitted) => Err(Grade::new(
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
            // Strict grading, to the letter of CONTRACT 5.2: every reason compared, named by
            // the draft or not, and the rule must match (a null rule is no match).
            let reason_ok = e.rejection_reason.is_none()
                || d.rejection_reason.as_deref() == e.rejection_reason.as_deref();
            let rule_ok = e.rule.is_none() || d.rule.as_deref() == e.rule.map(Rule::id);
            if reason_ok && rule_ok {
                Ok(())
            } else {
                Err(Grade::new(
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

/// The decision line's own form (CONTRACT 5.2), whatever the grading: `ale` is "ALE-064" for a
/// rejection and null for an admission or a deferral.
pub(crate) fn grade_ale(index: usize, d: &DecisionLine) -> Result<(), Grade> {
    let ale_ok = match d.outcome {
        DecisionOutcome::Admitted | DecisionOutcome::Deferred => d.ale.is_none(),
        DecisionOutcome::Rejected => d.ale.as_deref() == Some("ALE-064"),
    };
    if ale_ok {
        return Ok(());
    }
    Err(Grade::new(
        Status::ProtocolError,
        format!(
            "step {index}: {} with ale {}; the contract asks \"ALE-064\" for a rejection and \
             null for an admission or a deferral",
            d.outcome.as_str(),
            json_text(&d.ale)
        ),
    ))
}

/// What a decision said, for messages: `admitted`, `deferred`, `rejected as "x"`.
pub(crate) fn said(d: &DecisionLine) -> String {
    match d.outcome {
        DecisionOutcome::Rejected => format!("rejected as {}", json_text(&d.rejection_reason)),
        other => other.as_str().to_string(),
    }
}

/// A string member as JSON text (`"x"`, or `null`), for messages.
fn json_text(s: &Option<String>) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An invalid timeline vector expecting `expected`, with `also` and the readings `any_of`.
    fn invalid_vector(
        expected: &[&str],
        also: &[&str],
        any_of: serde_json::Value,
    ) -> agentconf_contract::vector::Vector {
        serde_json::from_value(serde_json::json!({
            "id": "aer1/timeline/structure/x", "suite": "aer1-timeline", "family": "structure",
            "revisions": ["09"], "description": "d", "rules": expected, "level": "MUST",
            "expectation": "invalid", "expected_rules": expected, "also_reported": also,
            "any_of": any_of, "flags": [],
            "inputs": [{"role": "timeline", "file": "t.json", "encoding": "utf8",
                        "content": "[]", "sha256": "0".repeat(64)}]
        }))
        .unwrap()
    }

    fn strict(v: &agentconf_contract::vector::Vector, reported: &[Rule]) -> Grade {
        grade_verdict(&v.main_case(), false, reported, Grading::Strict)
    }

    /// CONTRACT 4: every rule the input breaks, and only those. A superset is a wrong reason
    /// that names the extra rules; loose grading passes any rejection.
    #[test]
    fn strict_grading_is_exact() {
        let v = invalid_vector(&["AER1-TL-SEQ"], &["AER1-TL-LINK"], serde_json::json!([]));
        assert_eq!(strict(&v, &[Rule::Aer1TlSeq]).status, Status::Pass);
        assert_eq!(
            strict(&v, &[Rule::Aer1TlSeq, Rule::Aer1TlLink]).status,
            Status::Pass
        );
        let Grade {
            status,
            detail: why,
        } = strict(&v, &[Rule::Aer1TlSeq, Rule::Aer1TlJob]);
        assert_eq!(status, Status::WrongReason);
        assert!(why.contains("does not break [\"AER1-TL-JOB\"]"), "{why}");
        let Grade {
            status,
            detail: why,
        } = strict(&v, &[Rule::Aer1TlLink]);
        assert_eq!(status, Status::WrongReason);
        assert!(why.contains("missing [\"AER1-TL-SEQ\"]"), "{why}");
        let every: Vec<Rule> = Rule::ALL.to_vec();
        assert_eq!(strict(&v, &every).status, Status::WrongReason);
        assert_eq!(
            grade_verdict(&v.main_case(), false, &every, Grading::Loose).status,
            Status::Pass
        );
    }

    /// Another reading passes on its own rules, and only as a whole: its rules mixed with the
    /// main set's are a wrong reason.
    #[test]
    fn any_of_readings_pass_on_their_own_rules() {
        let v = invalid_vector(
            &["AER1-TL-MEMBERS"],
            &[],
            serde_json::json!([{"expected_rules": ["AER1-TL-B64"], "basis": "kit", "reason": "r"}]),
        );
        assert_eq!(strict(&v, &[Rule::Aer1TlMembers]).status, Status::Pass);
        assert_eq!(strict(&v, &[Rule::Aer1TlB64]).status, Status::Pass);
        let Grade {
            status,
            detail: why,
        } = strict(&v, &[Rule::Aer1TlMembers, Rule::Aer1TlB64]);
        assert_eq!(status, Status::WrongReason);
        assert!(why.contains("another reading"), "{why}");
        assert_eq!(strict(&v, &[Rule::Aer1TlSeq]).status, Status::WrongReason);
    }

    fn expected_rejection() -> ExpectedDecision {
        ExpectedDecision {
            step: 1,
            outcome: Outcome::Rejected,
            rejection_reason: Some("unknown_publisher".into()),
            reason_named_by_draft: Some(false),
            rule: Some(Rule::GrpPubKnown),
            admitted_copies: None,
        }
    }

    fn rejected(reason: &str, rule: Option<&str>, ale: Option<&str>) -> DecisionLine {
        serde_json::from_value(serde_json::json!({
            "event_id": "e", "publisher_id": "p", "outcome": "rejected",
            "ale": ale, "rejection_reason": reason, "rule": rule
        }))
        .unwrap()
    }

    fn status(d: &DecisionLine, grading: Grading) -> Option<Status> {
        grade_decision(1, d, &expected_rejection(), Expectation::Invalid, grading)
            .err()
            .map(|g| g.status)
    }

    /// Strict grading to the letter of CONTRACT 5.2: the reason compared even where the draft
    /// names none, a null rule no match, and `ale` checked whatever the grading.
    #[test]
    fn strict_grading_compares_reason_rule_and_ale() {
        let rule = Rule::GrpPubKnown.id();
        let exact = rejected("unknown_publisher", Some(rule), Some("ALE-064"));
        assert_eq!(status(&exact, Grading::Strict), None);
        let other_reason = rejected("malformed_event", Some(rule), Some("ALE-064"));
        assert_eq!(
            status(&other_reason, Grading::Strict),
            Some(Status::WrongReason)
        );
        assert_eq!(status(&other_reason, Grading::Loose), None);
        let null_rule = rejected("unknown_publisher", None, Some("ALE-064"));
        assert_eq!(
            status(&null_rule, Grading::Strict),
            Some(Status::WrongReason)
        );
        let no_ale = rejected("unknown_publisher", Some(rule), None);
        assert_eq!(
            status(&no_ale, Grading::Strict),
            Some(Status::ProtocolError)
        );
        assert_eq!(status(&no_ale, Grading::Loose), Some(Status::ProtocolError));
    }

    /// An `acceptable` vector passes when admitted; its rejection is still graded.
    #[test]
    fn acceptable_vectors_pass_admitted_and_grade_rejections() {
        let admitted: DecisionLine = serde_json::from_value(serde_json::json!({
            "event_id": "e", "publisher_id": "p", "outcome": "admitted", "ale": null
        }))
        .unwrap();
        let e = expected_rejection();
        for grading in [Grading::Strict, Grading::Loose] {
            assert!(grade_decision(1, &admitted, &e, Expectation::Acceptable, grading).is_ok());
            assert_eq!(
                grade_decision(1, &admitted, &e, Expectation::Invalid, grading)
                    .err()
                    .map(|g| g.status),
                Some(Status::FalseAccept)
            );
        }
        let other = rejected("malformed_event", Some("GRP-EV-MEMBERS"), Some("ALE-064"));
        assert_eq!(
            grade_decision(1, &other, &e, Expectation::Acceptable, Grading::Strict)
                .err()
                .map(|g| g.status),
            Some(Status::WrongReason)
        );
    }

    #[test]
    fn identity_members_are_compared_with_the_line() {
        let d = rejected("unknown_publisher", None, Some("ALE-064"));
        assert!(grade_identity(0, br#"{"event_id":"e","publisher_id":"p"}"#, &d).is_ok());
        assert_eq!(
            grade_identity(0, br#"{"event_id":"f","publisher_id":"p"}"#, &d)
                .err()
                .map(|g| g.status),
            Some(Status::ProtocolError)
        );
        // A line that is not JSON leaves them open.
        assert!(grade_identity(0, b"garbage", &d).is_ok());
        assert_eq!(
            grade_identity(0, b"[]", &d).err().map(|g| g.status),
            Some(Status::ProtocolError)
        );
    }

    #[test]
    fn redelivery_after_a_crash_is_admitted_or_a_duplicate() {
        let dup = rejected("duplicate_event_id", Some("GRP-DUP-EVENT"), Some("ALE-064"));
        let other = rejected("malformed_event", Some("GRP-EV-MEMBERS"), Some("ALE-064"));
        assert!(grade_redelivery(0, &dup, Grading::Strict).is_ok());
        assert_eq!(
            grade_redelivery(0, &other, Grading::Strict)
                .err()
                .map(|g| g.status),
            Some(Status::FalseReject)
        );
        assert!(grade_redelivery(0, &other, Grading::Loose).is_ok());
    }

    /// "Cannot decide now" is never an admission: outside the cluster steps it is a wrong
    /// decision whatever was expected, never a protocol error, and it never passes as a
    /// re-delivery's answer, even under loose grading.
    #[test]
    fn a_deferral_is_a_wrong_decision_and_never_an_admission() {
        let deferred: DecisionLine = serde_json::from_value(serde_json::json!({
            "event_id": "e", "publisher_id": "p", "outcome": "deferred", "ale": null,
            "rejection_reason": null, "rule": null
        }))
        .unwrap();
        let admit = ExpectedDecision {
            outcome: Outcome::Admitted,
            rejection_reason: None,
            reason_named_by_draft: None,
            rule: None,
            ..expected_rejection()
        };
        for grading in [Grading::Strict, Grading::Loose] {
            let graded = |e: &ExpectedDecision, x: Expectation| {
                grade_decision(1, &deferred, e, x, grading)
                    .err()
                    .map(|g| g.status)
            };
            assert_eq!(
                graded(&admit, Expectation::Valid),
                Some(Status::FalseReject)
            );
            assert_eq!(
                graded(&expected_rejection(), Expectation::Acceptable),
                Some(Status::WrongReason)
            );
            assert_eq!(
                grade_redelivery(0, &deferred, grading)
                    .err()
                    .map(|g| g.status),
                Some(Status::FalseReject)
            );
        }
        let with_ale = DecisionLine {
            ale: Some("ALE-064".into()),
            ..deferred
        };
        assert_eq!(
            grade_ale(1, &with_ale).err().map(|g| g.status),
            Some(Status::ProtocolError)
        );
    }
}
