//! The interoperability matrix: every emitter's timelines, commitments and receipts through
//! every verifier, and every implementation's per-rule results side by side.
//!
//! The CLI runs the implementations (each over the whole corpus, keeping what the emitters
//! wrote), hands each emitted timeline to every verifier as a derived `aer1-timeline` case, each
//! emitted commitment as a derived `aer1-timeline` case with the vector's timeline beside it
//! (`aer1-timeline 09 TIMELINE COMMITMENT`), and each emitted receipt as a derived `aer1-receipt`
//! case ([`cross_cases`]), and this module turns what came back into the matrix file
//! ([`Matrix`]), then Markdown and HTML: one grid per kind of artifact. Each answer is held
//! against the judge's own verdict on the emitted artifact ([`judge`], [`judge_commitment`],
//! [`judge_receipt`]), so a cell says not only whether a pair interoperates but which side is at
//! fault: a verifier that accepts everything still disagrees with a broken emitter.
//!
//! Deterministic: the file holds no timestamps or durations (the results files do), and every
//! list is in corpus order, then in the order the implementations were given.

mod assembly;
mod html;
mod judge;
mod markdown;

use serde::{Deserialize, Serialize};

use agentconf_contract::case::Case;
use agentconf_contract::emit::ReceiptMeta;
use agentconf_contract::vector::{Encoding, Expectation, Input, Options, Suite, Vector};
use agentconf_rules::{Level, Rule};

use crate::report::{per_rule, verdict};
use crate::results::{ResultLine, ResultsFile};
use crate::status::Status;
use agentconf_json::hex::lower as hex;

pub use assembly::Assembly;
pub use html::{html, report_name};
pub use judge::Judged;
pub(crate) use judge::{judge, judge_commitment, judge_receipt};
pub use markdown::markdown;

/// The matrix file's format name. `/2` added the `commitment` kind (a value a `/1` reader does
/// not know) and counts a commitment written for a timeline that does not verify among an
/// emitter's artifacts.
pub(crate) const FORMAT: &str = "agentconf-matrix/2";

/// The id prefix of the derived cases that carry an emitted artifact to a verifier.
pub(crate) const CROSS_PREFIX: &str = "matrix/";

/// The matrix file: what every report of the matrix is rendered from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matrix {
    pub format: String,
    pub suite_version: String,
    pub corpus_digest: String,
    pub implementations: Vec<Member>,
    /// One per kind × emitter × verifier: kinds in [`Kind::ALL`] order, then emitters in the
    /// order given, then verifiers.
    pub cells: Vec<Cell>,
    /// One per rule of the catalogue any results file names, in the per-rule table's order.
    pub rules: Vec<RuleLine>,
}

/// A member's verdict over the whole corpus: its level, and the count of known failures that
/// CONFORMS WITH N KNOWN FAILURES names. The matrix file writes it as the headline every report
/// of the member's results shows, and reads back only a headline written so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberVerdict {
    pub level: crate::report::Level,
    pub known_failures: usize,
}

impl MemberVerdict {
    /// The headline: `CONFORMS WITH 3 KNOWN FAILURES`.
    pub fn headline(&self) -> String {
        self.level.headline(self.known_failures)
    }
}

impl Serialize for MemberVerdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.headline())
    }
}

impl<'de> Deserialize<'de> for MemberVerdict {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let headline = String::deserialize(deserializer)?;
        crate::report::Level::from_headline(&headline)
            .map(|(level, known_failures)| MemberVerdict {
                level,
                known_failures,
            })
            .ok_or_else(|| {
                serde::de::Error::custom(format!("not a verdict's headline: {headline:?}"))
            })
    }
}

/// One implementation of the matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub name: String,
    /// Its results file, beside the matrix file.
    pub results: String,
    /// Its own verdict over the whole corpus, as every report of that file gives it.
    pub verdict: MemberVerdict,
    pub passed: usize,
    pub total: usize,
    /// Valid emitter vectors it wrote the expected artifact for.
    pub emitted_expected: usize,
    /// Emitter vectors it wrote something else for (each went to every verifier): a wrong
    /// artifact for a valid vector, or a commitment to a timeline that does not verify.
    pub emitted_other: usize,
    /// Valid emitter vectors it wrote nothing for (declined, refused, crashed), by id.
    pub emitted_nothing: Vec<String>,
    /// What it wrote that the judge does not hold to be the expected artifact, in corpus order.
    pub emitted_wrong: Vec<EmittedWrong>,
    /// The kinds of artifact it gave any verdict on (`timeline`, `commitment`, `receipt`).
    pub verifies: Vec<Kind>,
}

/// A kind of emitted artifact, and the grid it has in the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Timeline,
    Commitment,
    Receipt,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Timeline, Kind::Commitment, Kind::Receipt];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Timeline => "timeline",
            Kind::Commitment => "commitment",
            Kind::Receipt => "receipt",
        }
    }

    /// The emitter suite whose outputs are of this kind.
    fn emitter_suite(self) -> Suite {
        match self {
            Kind::Timeline => Suite::Aer1EmitTimeline,
            Kind::Commitment => Suite::Aer1EmitCommitment,
            Kind::Receipt => Suite::Aer1EmitReceipt,
        }
    }

    /// How an artifact of this kind reaches a verifier, in a sentence for the reports (plain
    /// text: Markdown and HTML show it alike).
    pub(crate) fn how_verified(self) -> &'static str {
        match self {
            Kind::Timeline => "Each timeline is verified under the newest AER-1 revision.",
            Kind::Commitment => {
                "Each commitment is verified beside the timeline it was made for, under the \
                 newest AER-1 revision (the call aer1-timeline REVISION TIMELINE COMMITMENT); \
                 one written for a timeline that does not verify must be rejected, and its \
                 emitter is at fault."
            }
            Kind::Receipt => "Each receipt is verified under the core tier.",
        }
    }

    /// Whether an artifact written for a vector that must be refused goes to the verifiers too.
    /// A commitment does: it travels with the timeline it commits to, which does not verify, so
    /// every verifier must reject the pair. A receipt of bytes that are not UTF-8 does not: what
    /// makes it wrong is in the refused payload, not in anything a verifier is shown.
    fn crosses_refusals(self) -> bool {
        self == Kind::Commitment
    }
}

/// An artifact an emitter wrote that is not the expected one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmittedWrong {
    /// The emitter vector whose inputs it records.
    pub vector: String,
    #[serde(flatten)]
    pub judged: Judged,
    /// What the emitter grading said of it: the first faults, with the first departing
    /// preimage byte where a digest differs.
    pub detail: String,
}

/// One emitter × verifier cell of one kind of artifact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub kind: Kind,
    pub emitter: String,
    pub verifier: String,
    /// Emitted artifacts the verifier accepted and the judge holds valid.
    pub agree: usize,
    /// Every other answer, in corpus order.
    pub disagree: Vec<Pair>,
}

impl Cell {
    /// `agree`, `disagree`, or `none` when no artifact of the emitter reached a verdict of the
    /// verifier's (it wrote none, or the verifier does not verify this kind).
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

/// An artifact on which an emitter and a verifier do not agree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    /// The emitter vector whose inputs the artifact records.
    pub vector: String,
    #[serde(flatten)]
    pub judged: Judged,
    /// `accepted`, `rejected` or `no-verdict` (crashed, timed out, broke the protocol).
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

/// An emitted artifact on its way to the verifiers: the derived case's vector, the emitter
/// vector it came from, and the judge's verdict on it.
pub(crate) struct Crossed {
    pub kind: Kind,
    pub vector: Vector,
    pub source: String,
    pub judged: Judged,
    pub emitter_detail: String,
}

/// What `emitter` wrote for the corpus's valid emitter vectors, and the commitments it wrote for
/// timelines that do not verify (`outputs`: case id and bytes, as the run kept them; `file`: its
/// results; `corpus`: the vectors, for a commitment's timeline and a receipt's payload and META),
/// each as a derived vector a verifier checks: a revision-09 `aer1-timeline` (a commitment with
/// its timeline) or a core-tier `aer1-receipt`, whose expectation is the judge's (`unjudged` ones
/// are asked as valid, only to read the verdict).
pub(crate) fn cross_cases(
    emitter: &str,
    file: &ResultsFile,
    outputs: &[(String, Vec<u8>)],
    corpus: &[Vector],
) -> Vec<Crossed> {
    outputs
        .iter()
        .filter_map(|(id, bytes)| {
            let line = file.results.iter().find(|l| &l.id == id)?;
            let kind = Kind::ALL
                .into_iter()
                .find(|k| k.emitter_suite() == line.suite)?;
            let crosses = match line.expectation {
                Expectation::Valid => true,
                Expectation::Invalid => kind.crosses_refusals(),
                Expectation::Acceptable => false,
            };
            crosses.then_some((kind, line, bytes))
        })
        .filter_map(|(kind, line, bytes)| {
            let v = corpus.iter().find(|v| v.id == line.id)?;
            // Graded again from the bytes alone: the run's status may say something else of
            // right output (an expected failure that passed, a crash pattern in its stderr).
            let is_expected = v.expectation == Expectation::Valid
                && crate::emitted::grade_any(&v.main_case(), bytes).status == Status::Pass;
            let judged = match kind {
                Kind::Timeline => judge(bytes, is_expected),
                Kind::Commitment => judge_commitment(bytes, is_expected, v),
                Kind::Receipt => {
                    let meta = ReceiptMeta::parse(&v.input_bytes("meta")?).ok()?;
                    judge_receipt(bytes, is_expected, &v.input_bytes("payload")?, &meta)
                }
            };
            Some(Crossed {
                kind,
                vector: cross_vector(kind, emitter, v, bytes, &judged)?,
                source: line.id.clone(),
                judged,
                emitter_detail: line.detail.clone(),
            })
        })
        .collect()
}

/// The derived vector that carries `bytes`, what `emitter` wrote for `source`, to a verifier;
/// `None` when `source` lacks an input the artifact travels with (a commitment's timeline).
fn cross_vector(
    kind: Kind,
    emitter: &str,
    source: &Vector,
    bytes: &[u8],
    judged: &Judged,
) -> Option<Vector> {
    // Judged under the draft's newest revision, as the revisions table names it.
    let newest_aer1 = agentconf_rules::Revisions::embedded()
        .newest(agentconf_rules::draft_revisions::AER1)
        .to_string();
    // The inputs the artifact travels with, and how the artifact is named beside them.
    let (suite, with, role, file, fallback) = match kind {
        Kind::Timeline => (
            Suite::Aer1Timeline,
            Vec::new(),
            "timeline",
            "timeline.json",
            Rule::Aer1TlLink,
        ),
        Kind::Commitment => (
            Suite::Aer1Timeline,
            vec![source.inputs.iter().find(|i| i.role == "timeline")?.clone()],
            "commitment",
            "commitment.json",
            Rule::Aer1CmFinal,
        ),
        Kind::Receipt => (
            Suite::Aer1Receipt,
            Vec::new(),
            "receipt",
            "receipt.json",
            Rule::Aer1RcHashMatch,
        ),
    };
    let (expectation, rules) = match judged {
        Judged::Invalid { rule, .. } => (
            Expectation::Invalid,
            vec![Rule::from_id(rule).unwrap_or(fallback)],
        ),
        _ => (Expectation::Valid, vec![fallback]),
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
    let source = &source.id;
    let mut inputs = with;
    inputs.push(Input {
        role: role.into(),
        file: file.into(),
        encoding,
        content,
        sha256: hex(&sha2_digest(bytes)),
    });
    Some(Vector {
        id: format!("{CROSS_PREFIX}{emitter}/{source}"),
        suite,
        family: "matrix".into(),
        revisions: vec![newest_aer1],
        description: format!("the {} {emitter} wrote for {source}", kind.as_str()),
        rules,
        level: Level::Must,
        expectation,
        expected_rules: Vec::new(),
        also_reported: Vec::new(),
        any_of: Vec::new(),
        flags: Vec::new(),
        other_revisions: Vec::new(),
        options: Options::default(),
        inputs,
        derivation: None,
        requires: Vec::new(),
        scenario: None,
        expected_decisions: Vec::new(),
        expected_final_digest: None,
    })
}

fn sha2_digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

/// The derived cases of `crossed`, to run through a verifier (loose grading: the question is
/// the verdict; rule citations are graded in each implementation's own run).
pub(crate) fn cases(crossed: &[Crossed]) -> Vec<Case<'_>> {
    crossed
        .iter()
        .flat_map(|c| c.vector.cases().into_iter().take(1))
        .collect()
}

/// The `kind` cell of `emitter` × `verifier`: `answers` are the verifier's result lines for the
/// derived cases of `crossed`; `verifies_kind` whether it gave a verdict on any artifact of this
/// kind ([`verified_kinds`]). A verifier that verifies none is left out (the cell is `none`: no
/// disagreement). One that does must answer every artifact of the kind: declining one (89), or
/// leaving it unanswered (a run cut short), is no verdict, and its fault.
pub(crate) fn cell(
    kind: Kind,
    emitter: &str,
    verifier: &str,
    crossed: &[Crossed],
    answers: &[ResultLine],
    verifies_kind: bool,
) -> Cell {
    let mut agree = 0;
    let mut disagree = Vec::new();
    for c in crossed.iter().filter(|c| c.kind == kind && verifies_kind) {
        let answer = answers.iter().find(|a| a.id == c.vector.id);
        let verdict = answer.map_or("no-verdict", |a| verdict_of(c.vector.expectation, a.status));
        let fault = match (&c.judged, verdict) {
            (Judged::Valid, "accepted") => {
                agree += 1;
                continue;
            }
            (Judged::Valid, _) => "verifier",
            (Judged::Invalid { .. }, "rejected") => "emitter",
            (Judged::Invalid { .. }, _) => "both",
            // No verdict on a wrong artifact: the emitter is wrong, and the verifier said nothing.
            (Judged::Unjudged { .. }, "no-verdict") => "both",
            (Judged::Unjudged { .. }, _) => "emitter",
        };
        disagree.push(Pair {
            vector: c.source.clone(),
            judged: c.judged.clone(),
            verdict: verdict.into(),
            fault: fault.into(),
            verifier_detail: match answer {
                Some(a) => crate::report::clip(&a.detail, 500),
                None => "no answer: the run ended before this artifact".into(),
            },
        });
    }
    Cell {
        kind,
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

/// The kinds of artifact a verifier gave any verdict (accept or reject) on.
pub(crate) fn verified_kinds(crossed: &[&Crossed], answers: &[ResultLine]) -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| {
            crossed.iter().filter(|c| c.kind == *k).any(|c| {
                answers
                    .iter()
                    .find(|a| a.id == c.vector.id)
                    .is_some_and(|a| verdict_of(c.vector.expectation, a.status) != "no-verdict")
            })
        })
        .collect()
}

/// An implementation's row of facts: `file` its results, `results` the file's name, `crossed`
/// what it emitted, `verifies` the kinds of artifact it answered.
pub(crate) fn member(
    name: &str,
    results: &str,
    file: &ResultsFile,
    crossed: &[Crossed],
    verifies: Vec<Kind>,
) -> Member {
    let t = crate::report::totals(file);
    let emitted: Vec<&str> = crossed.iter().map(|c| c.source.as_str()).collect();
    Member {
        name: name.into(),
        results: results.into(),
        verdict: {
            let v = verdict(file);
            MemberVerdict {
                level: v.level,
                known_failures: v.known_failures,
            }
        },
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
                Kind::ALL.iter().any(|k| k.emitter_suite() == l.suite)
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
pub(crate) fn rule_lines(files: &[&ResultsFile]) -> Vec<RuleLine> {
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

#[cfg(test)]
mod member_verdict_tests {
    use super::MemberVerdict;
    use crate::report::Level;

    #[test]
    fn a_member_verdict_is_written_as_its_headline_and_read_back_only_from_one() {
        let v = MemberVerdict {
            level: Level::ConformsWithKnownFailures,
            known_failures: 3,
        };
        let json = serde_json::to_string(&v).expect("serializes");
        assert_eq!(json, "\"CONFORMS WITH 3 KNOWN FAILURES\"");
        assert_eq!(
            serde_json::from_str::<MemberVerdict>(&json).expect("reads back"),
            v
        );
        for bad in [
            "\"CONFORMS WITH 1 KNOWN FAILURES\"",
            "\"CONFORMS WITH x KNOWN FAILURES\"",
            "\"conforms\"",
            "\"PASS\"",
        ] {
            assert!(serde_json::from_str::<MemberVerdict>(bad).is_err(), "{bad}");
        }
    }
}
