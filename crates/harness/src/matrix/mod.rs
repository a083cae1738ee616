//! The interoperability matrix: every emitter's timelines through every verifier, and every
//! implementation's per-rule results side by side.
//!
//! The CLI runs the implementations (each over the whole corpus, keeping what the emitters
//! wrote), hands each emitted timeline to every verifier as a derived `aer1-timeline` case
//! ([`cross_cases`]), and this module turns what came back into the matrix file ([`Matrix`]),
//! then Markdown and HTML. Each answer is held against the judge's own verdict on the emitted
//! timeline ([`judge`]), so a cell says not only whether a pair interoperates but which side is
//! at fault: a verifier that accepts everything still disagrees with a broken emitter.
//!
//! Deterministic: the file holds no timestamps or durations (the results files do), and every
//! list is in corpus order, then in the order the implementations were given.

mod html;
mod judge;
mod markdown;

use serde::{Deserialize, Serialize};

use agentconf_contract::case::Case;
use agentconf_contract::vector::{Encoding, Expectation, Input, Options, Suite, Vector};
use agentconf_rules::{Level, Rule};

use crate::report::{per_rule, verdict};
use crate::results::{hex, ResultLine, ResultsFile};
use crate::status::Status;

pub use html::{html, report_name};
pub use judge::{judge, Judged};
pub use markdown::markdown;

/// The matrix file's format name.
pub const FORMAT: &str = "agentconf-matrix/1";

/// The id prefix of the derived cases that carry an emitted timeline to a verifier.
pub const CROSS_PREFIX: &str = "matrix/";

/// The matrix file: what every report of the matrix is rendered from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matrix {
    pub format: String,
    pub suite_version: String,
    pub corpus_digest: String,
    pub implementations: Vec<Member>,
    /// One per emitter × verifier, emitters in the order given, then verifiers.
    pub cells: Vec<Cell>,
    /// One per rule of the catalogue any results file names, in the per-rule table's order.
    pub rules: Vec<RuleLine>,
}

/// One implementation of the matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub name: String,
    /// Its results file, beside the matrix file.
    pub results: String,
    /// Its own verdict over the whole corpus, as every report of that file gives it.
    pub verdict: String,
    pub passed: usize,
    pub total: usize,
    /// Timeline emitter vectors it wrote the steps' timeline for.
    pub emitted_expected: usize,
    /// Timeline emitter vectors it wrote something else for (each went to every verifier).
    pub emitted_other: usize,
    /// Timeline emitter vectors it wrote nothing for (declined, refused, crashed), by id.
    pub emitted_nothing: Vec<String>,
    /// What it wrote that the judge does not hold to be the steps' timeline, in corpus order.
    pub emitted_wrong: Vec<EmittedWrong>,
    /// Whether it gave any verdict on an emitted timeline (false: it verifies no timelines).
    pub verifies: bool,
}

/// A timeline an emitter wrote that is not the steps' timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmittedWrong {
    /// The emitter vector whose steps it records.
    pub vector: String,
    #[serde(flatten)]
    pub judged: Judged,
    /// What the emitter grading said of it: the first faults, with the first departing
    /// preimage byte where a digest differs.
    pub detail: String,
}

/// One emitter × verifier cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub emitter: String,
    pub verifier: String,
    /// Emitted timelines the verifier accepted and the judge holds valid.
    pub agree: usize,
    /// Every other answer, in corpus order.
    pub disagree: Vec<Pair>,
}

impl Cell {
    /// `agree`, `disagree`, or `none` when no timeline of the emitter reached a verdict of the
    /// verifier's.
    pub fn state(&self) -> &'static str {
        if !self.disagree.is_empty() {
            "disagree"
        } else if self.agree > 0 {
            "agree"
        } else {
            "none"
        }
    }
}

/// A timeline on which an emitter and a verifier do not agree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    /// The emitter vector whose steps the timeline records.
    pub vector: String,
    #[serde(flatten)]
    pub judged: Judged,
    /// `accepted`, `rejected` or `no-verdict` (crashed, timed out, broke the protocol, declined).
    pub verdict: String,
    /// Who is at fault: `emitter`, `verifier` or `both`.
    pub fault: String,
    /// What the verifier's answer was graded as.
    pub verifier_detail: String,
}

/// One rule across the implementations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleLine {
    pub rule: String,
    pub level: String,
    pub title: String,
    /// One per implementation, in order.
    pub results: Vec<RuleResult>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleResult {
    pub status: String,
    pub passed: usize,
    pub total: usize,
}

/// An emitted timeline on its way to the verifiers: the derived case's vector, the emitter
/// vector it came from, and the judge's verdict on it.
pub struct Crossed {
    pub vector: Vector,
    pub source: String,
    pub judged: Judged,
    pub emitter_detail: String,
}

/// The timelines `emitter` wrote for the corpus's valid timeline emitter vectors (`outputs`:
/// case id and bytes, as the run kept them; `file`: its results), each as a derived revision-09
/// `aer1-timeline` vector whose expectation is the judge's (`unjudged` ones are asked as valid,
/// only to read the verdict).
pub fn cross_cases(
    emitter: &str,
    file: &ResultsFile,
    outputs: &[(String, Vec<u8>)],
) -> Vec<Crossed> {
    outputs
        .iter()
        .filter_map(|(id, bytes)| {
            let line = file.results.iter().find(|l| &l.id == id)?;
            (line.suite == Suite::Aer1EmitTimeline && line.expectation == Expectation::Valid)
                .then_some((line, bytes))
        })
        .map(|(line, bytes)| {
            let judged = judge(bytes, line.status == Status::Pass);
            Crossed {
                vector: cross_vector(emitter, &line.id, bytes, &judged),
                source: line.id.clone(),
                judged,
                emitter_detail: line.detail.clone(),
            }
        })
        .collect()
}

fn cross_vector(emitter: &str, source: &str, bytes: &[u8], judged: &Judged) -> Vector {
    let (expectation, rules) = match judged {
        Judged::Invalid { rule, .. } => (
            Expectation::Invalid,
            vec![Rule::from_id(rule).unwrap_or(Rule::Aer1TlLink)],
        ),
        _ => (Expectation::Valid, vec![Rule::Aer1TlLink]),
    };
    let (encoding, content) = match std::str::from_utf8(bytes) {
        Ok(text) => (Encoding::Utf8, text.to_string()),
        Err(_) => {
            use base64::Engine as _;
            (
                Encoding::Base64,
                base64::engine::general_purpose::STANDARD.encode(bytes),
            )
        }
    };
    Vector {
        id: format!("{CROSS_PREFIX}{emitter}/{source}"),
        suite: Suite::Aer1Timeline,
        family: "matrix".into(),
        revisions: vec!["09".into()],
        description: format!("the timeline {emitter} wrote for {source}"),
        rules,
        level: Level::Must,
        expectation,
        expected_rules: Vec::new(),
        flags: Vec::new(),
        other_revisions: Vec::new(),
        options: Options::default(),
        inputs: vec![Input {
            role: "timeline".into(),
            file: "timeline.json".into(),
            encoding,
            content,
            sha256: hex(&sha2_digest(bytes)),
        }],
        derivation: None,
        requires: Vec::new(),
        scenario: None,
        expected_decisions: Vec::new(),
        expected_final_digest: None,
    }
}

fn sha2_digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

/// The derived cases of `crossed`, to run through a verifier (loose grading: the question is
/// the verdict; rule citations are graded in each implementation's own run).
pub fn cases(crossed: &[Crossed]) -> Vec<Case<'_>> {
    crossed
        .iter()
        .flat_map(|c| c.vector.cases().into_iter().take(1))
        .collect()
}

/// The cell of `emitter` × `verifier`: `answers` are the verifier's result lines for the
/// derived cases of `crossed`, in the same order.
pub fn cell(emitter: &str, verifier: &str, crossed: &[Crossed], answers: &[ResultLine]) -> Cell {
    let mut agree = 0;
    let mut disagree = Vec::new();
    for c in crossed {
        let Some(answer) = answers.iter().find(|a| a.id == c.vector.id) else {
            continue;
        };
        let verdict = verdict_of(c.vector.expectation, answer.status);
        let fault = match (&c.judged, verdict) {
            (Judged::Valid, "accepted") => {
                agree += 1;
                continue;
            }
            (Judged::Valid, _) => "verifier",
            (Judged::Invalid { .. }, "rejected") => "emitter",
            (Judged::Invalid { .. }, "accepted") => "both",
            (Judged::Invalid { .. }, _) => "both",
            (Judged::Unjudged { .. }, _) => "emitter",
        };
        disagree.push(Pair {
            vector: c.source.clone(),
            judged: c.judged.clone(),
            verdict: verdict.into(),
            fault: fault.into(),
            verifier_detail: answer.detail.clone(),
        });
    }
    Cell {
        emitter: emitter.into(),
        verifier: verifier.into(),
        agree,
        disagree,
    }
}

/// The verdict a graded status stands for, given the case's expectation.
fn verdict_of(expectation: Expectation, status: Status) -> &'static str {
    match (expectation, status) {
        (Expectation::Invalid, Status::Pass) | (_, Status::FalseReject) => "rejected",
        (_, Status::Pass) | (_, Status::FalseAccept) => "accepted",
        _ => "no-verdict",
    }
}

/// Whether any of a verifier's answers is a verdict (accept or reject).
pub fn gave_verdicts(crossed: &[Crossed], answers: &[ResultLine]) -> bool {
    crossed.iter().any(|c| {
        answers
            .iter()
            .find(|a| a.id == c.vector.id)
            .is_some_and(|a| verdict_of(c.vector.expectation, a.status) != "no-verdict")
    })
}

/// An implementation's row of facts: `file` its results, `results` the file's name, `crossed`
/// what it emitted, `verifies` whether it answered any emitted timeline.
pub fn member(
    name: &str,
    results: &str,
    file: &ResultsFile,
    crossed: &[Crossed],
    verifies: bool,
) -> Member {
    let t = crate::report::totals(file);
    let emitted: Vec<&str> = crossed.iter().map(|c| c.source.as_str()).collect();
    Member {
        name: name.into(),
        results: results.into(),
        verdict: verdict(file).headline(),
        passed: t.passed,
        total: t.total,
        emitted_expected: crossed.iter().filter(|c| c.judged == Judged::Valid).count(),
        emitted_other: crossed.iter().filter(|c| c.judged != Judged::Valid).count(),
        emitted_wrong: crossed
            .iter()
            .filter(|c| c.judged != Judged::Valid)
            .map(|c| EmittedWrong {
                vector: c.source.clone(),
                judged: c.judged.clone(),
                detail: c.emitter_detail.clone(),
            })
            .collect(),
        emitted_nothing: file
            .results
            .iter()
            .filter(|l| {
                l.suite == Suite::Aer1EmitTimeline
                    && l.expectation == Expectation::Valid
                    && !emitted.contains(&l.id.as_str())
            })
            .map(|l| l.id.clone())
            .collect(),
        verifies,
    }
}

/// The per-rule table across `files` (one per member, same order): the rows of the first file's
/// per-rule table, then any rule only a later file names.
pub fn rule_lines(files: &[&ResultsFile]) -> Vec<RuleLine> {
    let tables: Vec<Vec<crate::report::RuleRow>> = files.iter().map(|f| per_rule(f)).collect();
    let mut order: Vec<&crate::report::RuleRow> = Vec::new();
    for row in tables.iter().flatten() {
        if !order.iter().any(|r| r.rule == row.rule) {
            order.push(row);
        }
    }
    order
        .iter()
        .map(|row| RuleLine {
            rule: row.rule.clone(),
            level: row.level.clone(),
            title: row.title.clone(),
            results: tables
                .iter()
                .map(|t| match t.iter().find(|r| r.rule == row.rule) {
                    Some(r) => RuleResult {
                        status: r.status.as_str().into(),
                        passed: r.passed,
                        total: r.total,
                    },
                    None => RuleResult {
                        status: "untested".into(),
                        passed: 0,
                        total: 0,
                    },
                })
                .collect(),
        })
        .collect()
}

/// The file's bytes: pretty JSON, one trailing line break.
pub fn to_json(m: &Matrix) -> String {
    let mut s = serde_json::to_string_pretty(m).unwrap_or_default();
    s.push('\n');
    s
}

/// Whether no cell holds a disagreement: the matrix command's exit status.
pub fn all_agree(m: &Matrix) -> bool {
    m.cells.iter().all(|c| c.disagree.is_empty())
}
