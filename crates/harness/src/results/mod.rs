//! The results file: JSON lines — one header, one line per vector, one footer. Everything else
//! (terminal summary, per-rule table, JUnit, Markdown, HTML, badge) is derived from it, so a
//! conformance claim can be re-checked from the file alone. Timestamps and durations are the only
//! fields that differ between two runs of the same implementation on the same corpus.
//!
//! The model is here; [`digest`] seals a file (footer and digests), [`check`] says whether a file
//! is whole, [`read`] reads one and [`write`] writes one without ever exposing half a file;
//! [`schema`] renders the JSON Schema of a line from these types (`schema/results.schema.json`).

mod check;
mod digest;
mod read;
mod rule_ref;
mod time;
mod write;

use std::collections::BTreeMap;

use agentconf_contract::case::Case;
use agentconf_contract::schema::{LevelName, Sha256};
use agentconf_contract::vector::{Expectation, Suite};
use agentconf_rules::{Level, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::case_result::VectorResult;
use crate::grade::Grading;
use crate::status::Status;
use crate::suite_detail::SuiteDetail;

pub use check::{check, Incomplete};
pub(crate) use digest::{case_ids_sha256, footer, header_sha256};
pub use read::{parse, read, ReadError, MAX_CASES_WITHOUT_CORPUS, MAX_LINE_BYTES};
pub(crate) use rule_ref::joined;
pub use rule_ref::{RuleRef, UnknownRule};
pub(crate) use time::now_rfc3339;
pub use write::{check_writable, write_atomically, write_file, ResultsWriter, WriteError};

/// The results-file format version.
pub const FORMAT: &str = "agentconf-results/1";

pub(crate) use crate::identity::ImplementationInfo;

mod schema;
pub use schema::results_schema;
pub(crate) use schema::sha256_or_null;

// The schema's members follow the reader: every line is closed (the reader refuses a member it
// does not know), and a member left out when empty is described by what it holds when present,
// never as null (`with` the inner type).

/// The first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Header {
    #[schemars(extend("const" = FORMAT))]
    pub format: String,
    pub suite_version: String,
    #[schemars(with = "Sha256")]
    pub corpus_digest: String,
    /// Vectors selected for the run.
    pub vector_count: usize,
    /// Cases selected (a vector has one case per revision group it is graded under): the number
    /// of result lines a complete run writes. Absent in files written before cases existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub case_count: Option<usize>,
    pub implementation: ImplementationInfo,
    /// SHA-256 of the adapter file, when one was used.
    // Written as null without an adapter, never left out: required.
    #[schemars(schema_with = "schema::sha256_or_null", required)]
    pub adapter_digest: Option<String>,
    /// SHA-256 of the expected-failures file (`run --xfail FILE`), when one was given. Absent
    /// otherwise, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Sha256")]
    pub xfail_digest: Option<String>,
    #[schemars(with = "schema::GradingName")]
    pub grading: Grading,
    /// Capability profiles the implementation claimed.
    // The three an adapter may claim (its reader refuses any other).
    #[schemars(extend("items" = {"type": "string", "enum": agentconf_contract::vector::PROFILES}))]
    pub profiles: Vec<String>,
    /// How the implementation's processes were contained (CONTRACT.md 3.3): PID and mount
    /// namespaces of their own, a PID namespace only, or only a process group. Absent when no
    /// process ran (the reference in process), and in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "schema::ContainmentName")]
    pub(crate) containment: Option<crate::process::Containment>,
    /// What an implementation could still reach under `containment` (its
    /// [`Containment::note`](crate::Containment::note)). Absent with it, and in files
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) containment_note: Option<String>,
    /// Which cases were selected. Absent in files written before agentconf 0.2: the selection
    /// is unknown, and no verdict drawn from such a file says the whole corpus ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Selection")]
    pub selection: Option<Selection>,
    /// SHA-256 over the selected case ids, each with a newline, in run order (see
    /// [`case_ids_sha256`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Sha256")]
    pub case_ids_sha256: Option<String>,
    /// RFC 3339, UTC.
    pub started_at: String,
}

/// The cases a run was restricted to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Selection {
    /// Case-id prefixes a case had to start with (`--include`); empty: every case.
    pub include: Vec<String>,
    /// Case-id prefixes left out (`--exclude`).
    pub exclude: Vec<String>,
    /// The cases of the whole corpus the run was drawn from.
    pub corpus_case_count: usize,
}

impl Selection {
    /// Whether the case `id` is selected: it starts with an `include` prefix (or there is none)
    /// and with no `exclude` prefix. A vector id is a prefix of all its cases' ids. The one
    /// definition `run` selects by and a results file is checked against.
    pub fn selects(&self, id: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| id.starts_with(p.as_str())))
            && !self.exclude.iter().any(|p| id.starts_with(p.as_str()))
    }
}

/// One case's line: the vector's metadata (so reports need no corpus), the expectation under the
/// revision it ran, and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ResultLine {
    /// The case id: the vector id, or `<id>@<revision>` for a vector's further revisions.
    pub id: String,
    /// The draft revision the case ran under. Absent in files written before cases existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub revision: Option<String>,
    pub suite: Suite,
    pub family: String,
    // Any string, as before: a file from another version may name rules this build does not
    // know ([`RuleRef`]).
    #[schemars(with = "Vec<String>")]
    pub rules: Vec<RuleRef>,
    #[schemars(with = "LevelName")]
    pub level: Level,
    pub expectation: Expectation,
    #[schemars(with = "Vec<String>")]
    pub expected_rules: Vec<RuleRef>,
    /// The vector this one was derived from (`derivation.source`), for paired credit: a rejection
    /// counts for its rules only when that vector was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub derived_from: Option<String>,
    pub status: Status,
    pub detail: String,
    /// Captured standard error (an excerpt), never interpreted.
    pub stderr: String,
    pub duration_ms: u64,
    /// For an expected failure (`xfail`): the status it failed with, so that a false accept
    /// listed as expected is still shown as one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Status")]
    pub failed_as: Option<Status>,
    /// For an expected failure (`xfail`): the reason the adapter's list gives, which every
    /// report shows beside it. Absent otherwise, and in files written before it was recorded
    /// (the detail then starts with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub xfail_reason: Option<String>,
    /// For an emitter's `wrong-output` (or an expected failure that failed so): the rules of the
    /// faults found in what it wrote, each once, whether the vector lists them or not. The
    /// per-rule table charges the case to these alone ([`crate::report::per_rule`]). Absent
    /// otherwise, and in files written before it existed (such a line is charged to every rule
    /// of its vector, as it was then).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<String>", length(min = 1))]
    pub broken_rules: Vec<RuleRef>,
    /// What the case's suite records beyond status and detail, written as its own members
    /// (`history` for a GRP case with cluster steps), none when there is nothing
    /// ([`SuiteDetail`]). Last on the line: the member order every version has written.
    #[serde(flatten)]
    pub suite_detail: SuiteDetail,
}

impl ResultLine {
    pub fn new(c: &Case<'_>, r: VectorResult) -> ResultLine {
        ResultLine {
            status: r.status,
            detail: r.detail,
            stderr: r.stderr,
            duration_ms: r.duration_ms,
            failed_as: r.failed_as,
            xfail_reason: r.xfail_reason,
            broken_rules: r.broken_rules.into_iter().map(RuleRef::from).collect(),
            suite_detail: r.suite_detail,
            ..ResultLine::describing(c)
        }
    }

    /// The line `c` gets before it runs: everything the corpus says of the case (id, revision,
    /// suite, family, rules, level, expectation, expected rules, derivation), and an outcome not
    /// yet known (`skip`, no detail). What a results file is checked against
    /// ([`crate::corpus_check`]).
    pub(crate) fn describing(c: &Case<'_>) -> ResultLine {
        let v = c.vector;
        ResultLine {
            id: c.id.clone(),
            revision: Some(c.revision.to_string()),
            suite: v.suite,
            family: v.family.clone(),
            rules: rules_of_case(c),
            level: v.level,
            expectation: c.expectation,
            expected_rules: c
                .expected_rules
                .iter()
                .copied()
                .map(RuleRef::from)
                .collect(),
            derived_from: v.derivation.as_ref().map(|d| d.source.clone()),
            status: Status::Skip,
            detail: String::new(),
            stderr: String::new(),
            duration_ms: 0,
            failed_as: None,
            xfail_reason: None,
            broken_rules: Vec::new(),
            suite_detail: SuiteDetail::None,
        }
    }
}

/// The vector's rules that exist under the revisions the case grades: a per-rule table must not
/// count a revision-06 case under a rule revision 06 does not have. AER1-TL-VERSIONING, the
/// current construction's duty towards 06 chains, stays with the 06 cases that show it.
fn rules_of_case(c: &Case<'_>) -> Vec<RuleRef> {
    c.vector
        .rules
        .iter()
        .filter(|rule| match rule {
            Rule::Aer1TlVersioning => true,
            rule => rule
                .record()
                .revisions
                .iter()
                .any(|r| c.revisions.contains(r)),
        })
        .copied()
        .map(RuleRef::from)
        .collect()
}

/// The last line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Footer {
    /// Vectors per status (every status listed, zeros included).
    pub totals: BTreeMap<String, usize>,
    /// Statuses that make the run fail: false accepts and rejects, wrong reasons, crashes,
    /// timeouts, protocol errors, and expected failures that passed.
    pub unexpected: usize,
    pub finished_at: String,
    pub duration_ms: u64,
    /// SHA-256 over the result lines, each as written (`{"type":"result",…}` and a newline), in
    /// order: an edited, removed, added or reordered line no longer matches. Absent in files
    /// written before agentconf 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Sha256")]
    pub results_sha256: Option<String>,
    /// SHA-256 over the header line as written (see [`header_sha256`]): a header edited after
    /// the run (its grading, profiles, selection or implementation) no longer matches. Absent in
    /// files written before agentconf 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Sha256")]
    pub header_sha256: Option<String>,
    /// The run was interrupted (SIGINT or SIGTERM): the lines are the cases that finished
    /// before it, and the file can never support a conformance claim.
    // Written only when true (left out otherwise): the schema allows `true` alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("const" = true))]
    pub interrupted: bool,
    /// Persistent mode only: how many times the implementation's process was started again
    /// (after a crash, a hang or a protocol error, or because it exited between requests).
    /// Absent for one-shot runs, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub restarts: Option<usize>,
}

/// One line of the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum Line {
    Header(Header),
    Result(ResultLine),
    Footer(Footer),
}

/// A whole results file, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultsFile {
    pub header: Header,
    pub results: Vec<ResultLine>,
    pub footer: Option<Footer>,
}
