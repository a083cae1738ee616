//! The outcome of one case, with its name in results files and reports, its place in report
//! order, and whether it fails a run: all in one place.

use serde::{Deserialize, Serialize};

/// The outcome of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    /// Not run: the adapter skips it (with a reason).
    Skip,
    /// Failed, as the adapter's expected-failures list says it would.
    Xfail,
    /// Listed as an expected failure but passed: the list is stale, and that is an error.
    Xpass,
    /// Accepted an input that must be rejected: the security-relevant failure.
    FalseAccept,
    FalseReject,
    /// Rejected, but not for the expected rule (strict grading).
    WrongReason,
    /// An emitter wrote output that is not what the draft's construction gives for the steps.
    WrongOutput,
    Unsupported,
    /// Not run: outside the scope the adapter declares (`implements`, `revisions`, `tiers`,
    /// `commitments = false`, `unsupported = true`, a timeline template without a commitment
    /// template). Unlike an unsupported answer inside that scope, it is no failure to earn a
    /// rule: a rule is `pass` when every case of it inside the scope passed.
    OutOfScope,
    Timeout,
    Crash,
    ProtocolError,
}

/// Every status, in report order: false accepts first (the security-relevant failure).
pub(crate) const STATUSES: [Status; 13] = [
    Status::FalseAccept,
    Status::FalseReject,
    Status::WrongReason,
    Status::WrongOutput,
    Status::Crash,
    Status::Timeout,
    Status::ProtocolError,
    Status::Xpass,
    Status::Xfail,
    Status::Skip,
    Status::Unsupported,
    Status::OutOfScope,
    Status::Pass,
];

impl Status {
    /// The name in results files and reports (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::FalseAccept => "false-accept",
            Status::FalseReject => "false-reject",
            Status::WrongReason => "wrong-reason",
            Status::WrongOutput => "wrong-output",
            Status::Unsupported => "unsupported",
            Status::OutOfScope => "out-of-scope",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
            Status::ProtocolError => "protocol-error",
            Status::Skip => "skip",
            Status::Xfail => "xfail",
            Status::Xpass => "xpass",
        }
    }

    /// Whether the status fails the run (an expected failure that passed does: the list is
    /// stale).
    pub(crate) fn is_unexpected(self) -> bool {
        !matches!(
            self,
            Status::Pass | Status::Unsupported | Status::OutOfScope | Status::Skip | Status::Xfail
        )
    }

    /// Whether the case was graded: anything but unsupported, out of scope and skipped.
    /// Verdicts, rule statuses and the badge count these.
    pub(crate) fn is_counted(self) -> bool {
        !matches!(
            self,
            Status::Unsupported | Status::OutOfScope | Status::Skip
        )
    }

    /// Whether no verdict came back: the implementation crashed, ran past its deadline or broke
    /// the protocol. A wrapper whose every call ends so is broken, not wrong (the smoke check).
    pub fn is_no_answer(self) -> bool {
        matches!(
            self,
            Status::Crash | Status::Timeout | Status::ProtocolError
        )
    }

    /// Its place in report order ([`STATUSES`]).
    pub(crate) fn rank(self) -> usize {
        STATUSES
            .iter()
            .position(|x| *x == self)
            .unwrap_or(STATUSES.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serde_names_and_every_status_is_ranked() {
        for (i, s) in STATUSES.iter().enumerate() {
            assert_eq!(
                serde_json::to_string(s).unwrap(),
                format!("\"{}\"", s.name())
            );
            assert_eq!(s.rank(), i);
        }
        let mut names: Vec<&str> = STATUSES.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), STATUSES.len());
    }
}
