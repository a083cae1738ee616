//! What one case came to, before it becomes a line of the results file: low in the house, so the
//! runner, the worker pool, the results file and the smoke check all build on it.

use agentconf_rules::Rule;
use serde::Serialize;

use crate::grade::Grade;
use crate::status::Status;
use crate::suite_detail::SuiteDetail;

/// What happened with one case (a vector under one revision).
#[derive(Clone, Debug, Serialize)]
pub struct VectorResult {
    /// The case id: the vector id, or `<id>@<revision>` for a vector's further revisions.
    pub id: String,
    pub status: Status,
    pub detail: String,
    /// The first bytes of what the implementation wrote to standard error (never interpreted).
    pub stderr: String,
    pub duration_ms: u64,
    /// For an expected failure (`xfail`): how it failed (a false accept stays one, listed or not).
    pub failed_as: Option<Status>,
    /// For an expected failure (`xfail`): the reason the adapter's list gives for it.
    pub xfail_reason: Option<String>,
    /// For an emitter's `wrong-output`: the rules its output broke ([`crate::emitted::EmitGrade`]).
    pub broken_rules: Vec<Rule>,
    /// What its suite records beyond status and detail (a cluster scenario's history), for the
    /// results line.
    pub suite_detail: SuiteDetail,
    /// What an emitter wrote to standard output (emitter suites, exit 0 only), kept for the
    /// interoperability matrix, which hands it to every verifier. Never part of a results file.
    #[serde(skip)]
    pub output: Option<Vec<u8>>,
}

impl VectorResult {
    /// Case `id` come to `grade`, with nothing more (no standard error, no time taken, no
    /// expected failure, nothing an emitter or a suite adds): what the other members start from.
    pub fn graded(id: &str, grade: Grade) -> VectorResult {
        VectorResult {
            id: id.to_string(),
            status: grade.status,
            detail: grade.detail,
            stderr: String::new(),
            duration_ms: 0,
            failed_as: None,
            xfail_reason: None,
            broken_rules: Vec::new(),
            suite_detail: SuiteDetail::None,
            output: None,
        }
    }
}
