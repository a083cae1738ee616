//! What changed between two results files, case by case, and why: the implementation or the
//! corpus under it (see [`cause`]).

mod cause;
mod json;
mod markdown;
mod text;

use std::collections::BTreeMap;

use serde::Serialize;

use agentconf_contract::vector::Suite;

use crate::results::{ResultLine, ResultsFile};
use crate::status::Status;

#[cfg(test)]
pub(crate) use cause::vector_of;
pub use cause::CorpusVersions;
pub(crate) use cause::{Cause, Expected, Origin, CAUSES};
pub(crate) use json::diff_json;
pub(crate) use markdown::diff_markdown;
pub(crate) use text::diff_text;

/// One case whose status changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Change {
    pub id: String,
    /// The suite of the case (in the new file).
    pub suite: Suite,
    pub old: Status,
    pub new: Status,
    /// The new run's detail.
    pub detail: String,
    pub cause: Cause,
    /// For [`Cause::Expectation`]: what the case asked for in each file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Goalposts>,
}

/// A case's expectation in the old file and in the new one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Goalposts {
    pub old: Expected,
    pub new: Expected,
}

/// A case present in only one of the two files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Entry {
    pub id: String,
    pub status: Status,
    pub detail: String,
    pub cause: Cause,
}

/// What one run covered: the cases it graded, and the suites they belong to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Coverage {
    /// Result lines in the file.
    pub cases: usize,
    /// Cases graded: all but the unsupported and skipped ones (what a verdict counts).
    pub counted: usize,
    /// The suites with at least one counted case, in corpus order.
    pub suites: Vec<Suite>,
}

impl Coverage {
    /// The coverage of `file`'s result lines.
    pub(crate) fn of(file: &ResultsFile) -> Coverage {
        let counted: Vec<&ResultLine> = file
            .results
            .iter()
            .filter(|r| r.status.is_counted())
            .collect();
        Coverage {
            cases: file.results.len(),
            counted: counted.len(),
            suites: Suite::ALL
                .into_iter()
                .filter(|s| counted.iter().any(|r| r.suite == *s))
                .collect(),
        }
    }
}

/// The difference between two results files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// Each run's verdict as every report of its file shows it (`CONFORMS`, `PARTIAL`, …): what
    /// a reader of the diff needs first.
    pub(crate) old_verdict: String,
    pub(crate) new_verdict: String,
    /// What each run covered.
    pub(crate) old_coverage: Coverage,
    pub(crate) new_coverage: Coverage,
    pub(crate) old_implementation: String,
    pub(crate) new_implementation: String,
    pub(crate) old_corpus_digest: String,
    pub(crate) new_corpus_digest: String,
    /// The agentconf versions that graded each run: grading can change between versions, and a
    /// status moved by it would otherwise pass for the implementation's doing.
    pub(crate) old_suite_version: String,
    pub(crate) new_suite_version: String,
    /// Whether both corpora's file hashes were given, so that a changed vector can be told from
    /// an unchanged one.
    pub(crate) corpora_known: bool,
    /// Was `pass`, now anything unexpected; or newly a false accept whatever it was before
    /// (a false reject turned false accept is worse, not sideways). Those from the
    /// implementation first, then those that came with the corpus; false accepts first in each.
    pub(crate) regressions: Vec<Change>,
    /// Was unexpected, now `pass`.
    pub(crate) fixes: Vec<Change>,
    /// Counted in the old run, not in the new (now unsupported or skipped): coverage lost, not a
    /// failure, and not to be read case by case when a whole suite went.
    pub(crate) coverage_lost: Vec<Change>,
    /// Unsupported or skipped in the old run, counted in the new with an expected result.
    pub(crate) coverage_gained: Vec<Change>,
    /// Any other change of status (e.g. `crash` → `false-reject`).
    pub(crate) changed: Vec<Change>,
    /// In the new file only (their status as in the new file), unexpected ones first.
    pub(crate) new_vectors: Vec<Entry>,
    /// In the old file only (their status as in the old file).
    pub(crate) removed_vectors: Vec<Entry>,
    /// Cases in both files with the same status.
    pub(crate) unchanged: usize,
    /// Changes, new and removed cases per cause, every cause listed (zeros included).
    pub(crate) by_cause: BTreeMap<Cause, usize>,
}

impl Diff {
    /// Whether the two runs' verdicts differ.
    pub(crate) fn verdict_changed(&self) -> bool {
        self.old_verdict != self.new_verdict
    }

    /// Whether any case regressed, whatever the cause: a failure that came with the corpus is
    /// still a failure of the new run, so it still fails `report diff`.
    pub fn has_regressions(&self) -> bool {
        !self.regressions.is_empty()
    }

    /// Whether the two runs used different corpora (statuses may then differ for that reason).
    pub fn corpus_changed(&self) -> bool {
        self.old_corpus_digest != self.new_corpus_digest
    }

    /// How many differences have `cause`.
    pub(crate) fn count(&self, cause: Cause) -> usize {
        self.by_cause.get(&cause).copied().unwrap_or(0)
    }

    /// How many differences have a cause of `origin`.
    pub(crate) fn count_origin(&self, origin: Origin) -> usize {
        self.by_cause
            .iter()
            .filter(|(c, _)| c.origin() == origin)
            .map(|(_, n)| n)
            .sum()
    }
}

/// Compares two results files case by case (by id). `corpora`, the file hashes of the corpora
/// the two files were made against, tells a changed vector from an unchanged one when the corpus
/// digests differ; without it such changes are [`Cause::CorpusUnknown`] (unless the lines show
/// the expectation changed).
pub fn diff(old: &ResultsFile, new: &ResultsFile, corpora: Option<&CorpusVersions>) -> Diff {
    let index = |f: &ResultsFile| -> BTreeMap<String, ResultLine> {
        f.results
            .iter()
            .map(|r| (r.id.clone(), r.clone()))
            .collect()
    };
    let (o, n) = (index(old), index(new));
    let judge = cause::Judge { old, new, corpora };
    let mut d = Diff {
        old_verdict: super::verdict(old).headline(),
        new_verdict: super::verdict(new).headline(),
        old_coverage: Coverage::of(old),
        new_coverage: Coverage::of(new),
        old_implementation: old.header.implementation.name.clone(),
        new_implementation: new.header.implementation.name.clone(),
        old_corpus_digest: old.header.corpus_digest.clone(),
        new_corpus_digest: new.header.corpus_digest.clone(),
        old_suite_version: old.header.suite_version.clone(),
        new_suite_version: new.header.suite_version.clone(),
        corpora_known: corpora.is_some(),
        regressions: Vec::new(),
        fixes: Vec::new(),
        coverage_lost: Vec::new(),
        coverage_gained: Vec::new(),
        changed: Vec::new(),
        new_vectors: Vec::new(),
        removed_vectors: Vec::new(),
        unchanged: 0,
        by_cause: CAUSES.iter().map(|c| (*c, 0)).collect(),
    };
    for (id, nr) in &n {
        let Some(or) = o.get(id) else {
            d.new_vectors.push(Entry {
                id: id.clone(),
                status: nr.status,
                detail: nr.detail.clone(),
                cause: judge.added(nr),
            });
            continue;
        };
        if or.status == nr.status {
            d.unchanged += 1;
            continue;
        }
        let cause = judge.change(or, nr);
        let change = Change {
            id: id.clone(),
            suite: nr.suite,
            old: or.status,
            new: nr.status,
            detail: nr.detail.clone(),
            cause,
            expected: (cause == Cause::Expectation).then(|| Goalposts {
                old: Expected::of(or),
                new: Expected::of(nr),
            }),
        };
        let regression = (or.status == Status::Pass && nr.status.is_unexpected())
            || nr.status == Status::FalseAccept;
        if regression {
            d.regressions.push(change);
        } else if or.status.is_unexpected() && nr.status == Status::Pass {
            d.fixes.push(change);
        } else if or.status.is_counted() && !nr.status.is_counted() {
            d.coverage_lost.push(change);
        } else if !or.status.is_counted() && !nr.status.is_unexpected() {
            d.coverage_gained.push(change);
        } else {
            d.changed.push(change);
        }
    }
    for (id, or) in &o {
        if !n.contains_key(id) {
            d.removed_vectors.push(Entry {
                id: id.clone(),
                status: or.status,
                detail: or.detail.clone(),
                cause: judge.removed(or),
            });
        }
    }
    let causes = d
        .regressions
        .iter()
        .chain(&d.fixes)
        .chain(&d.coverage_lost)
        .chain(&d.coverage_gained)
        .chain(&d.changed)
        .map(|c| c.cause)
        .chain(d.new_vectors.iter().map(|e| e.cause))
        .chain(d.removed_vectors.iter().map(|e| e.cause))
        .collect::<Vec<_>>();
    for c in causes {
        *d.by_cause.entry(c).or_default() += 1;
    }
    // Grouped by origin (the implementation's first) so that a reader sees at once which
    // differences are theirs; within a group, the order each list had before causes existed.
    let by_new = |c: &Change| (c.cause.origin(), c.new.rank(), c.id.clone());
    d.regressions.sort_by_key(by_new);
    d.changed.sort_by_key(by_new);
    d.coverage_lost.sort_by_key(by_new);
    d.coverage_gained.sort_by_key(by_new);
    d.fixes
        .sort_by_key(|c| (c.cause.origin(), c.old.rank(), c.id.clone()));
    let entry = |e: &Entry| (e.cause.origin(), e.status.rank(), e.id.clone());
    d.new_vectors.sort_by_key(entry);
    d.removed_vectors
        .sort_by_key(|e| (e.cause.origin(), e.id.clone()));
    d
}

#[cfg(test)]
mod tests {
    use agentconf_contract::vector::{Expectation, Suite};

    use super::*;
    use crate::grade::Grading;
    use crate::results::{footer, Header, ImplementationInfo, Selection, FORMAT};
    use agentconf_rules::{Level, Rule};

    const A: &str = "aaaa";
    const B: &str = "bbbb";

    fn line(id: &str, expectation: Expectation, status: Status) -> ResultLine {
        ResultLine {
            id: id.into(),
            revision: Some("09".into()),
            suite: Suite::Aer1Timeline,
            family: "f".into(),
            rules: vec![Rule::Aer1TlLink.into()],
            level: Level::Must,
            expectation,
            expected_rules: match expectation {
                Expectation::Valid => Vec::new(),
                _ => vec![Rule::Aer1TlLink.into()],
            },
            derived_from: None,
            status,
            detail: String::new(),
            stderr: String::new(),
            duration_ms: 0,
            failed_as: None,
            xfail_reason: None,
            broken_rules: Vec::new(),
            suite_detail: crate::SuiteDetail::None,
        }
    }

    fn file(digest: &str, include: &[&str], results: Vec<ResultLine>) -> ResultsFile {
        ResultsFile {
            header: Header {
                format: FORMAT.into(),
                suite_version: "0.1.0".into(),
                corpus_digest: digest.into(),
                vector_count: results.len(),
                case_count: None,
                implementation: ImplementationInfo {
                    name: "impl".into(),
                    argv: Vec::new(),
                    executable_sha256: None,
                    files: Vec::new(),
                    declared: None,
                    interpreter_version: None,
                },
                adapter_digest: None,
                xfail_digest: None,
                grading: Grading::Strict,
                profiles: Vec::new(),
                containment: None,
                containment_note: None,
                selection: Some(Selection {
                    include: include.iter().map(|s| s.to_string()).collect(),
                    exclude: Vec::new(),
                    corpus_case_count: results.len(),
                }),
                case_ids_sha256: None,
                started_at: "2025-06-01T12:00:00Z".into(),
            },
            footer: Some(footer(&results, 1)),
            results,
        }
    }

    fn versions(old: &[(&str, &str)], new: &[(&str, &str)]) -> CorpusVersions {
        let map = |l: &[(&str, &str)]| {
            l.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        CorpusVersions {
            old: map(old),
            new: map(new),
        }
    }

    use Expectation::{Invalid, Valid};
    use Status::{FalseAccept, FalseReject, Pass};

    /// Every difference of a diff, with its cause.
    fn causes(d: &Diff) -> Vec<(String, Cause)> {
        let mut v: Vec<(String, Cause)> = d
            .regressions
            .iter()
            .chain(&d.fixes)
            .chain(&d.coverage_lost)
            .chain(&d.coverage_gained)
            .chain(&d.changed)
            .map(|c| (c.id.clone(), c.cause))
            .chain(
                d.new_vectors
                    .iter()
                    .chain(&d.removed_vectors)
                    .map(|e| (e.id.clone(), e.cause)),
            )
            .collect();
        v.sort();
        v
    }

    #[test]
    fn same_corpus_every_change_is_the_implementations() {
        let old = file(A, &[], vec![line("v/1", Invalid, Pass)]);
        let new = file(A, &[], vec![line("v/1", Invalid, FalseAccept)]);
        let d = diff(&old, &new, None);
        assert_eq!(causes(&d), [("v/1".into(), Cause::Implementation)]);
        assert!(d.has_regressions() && !d.corpus_changed());
        assert_eq!(d.count(Cause::Implementation), 1);
    }

    #[test]
    fn runs_graded_by_two_agentconf_versions_say_so() {
        let old = file(A, &[], vec![line("v/1", Invalid, Pass)]);
        let mut new = file(A, &[], vec![line("v/1", Invalid, FalseAccept)]);
        let same = super::text::runs(&diff(&old, &new, None), "", str::to_string);
        assert!(!same.contains("graded by"), "{same}");
        new.header.suite_version = "0.2.0".into();
        let d = diff(&old, &new, None);
        let text = super::text::runs(&d, "", str::to_string);
        assert!(
            text.contains("graded by agentconf 0.1.0 and 0.2.0"),
            "{text}"
        );
    }

    #[test]
    fn an_unchanged_vector_across_corpora_is_the_implementations() {
        let old = file(A, &[], vec![line("v/1", Invalid, Pass)]);
        let new = file(B, &[], vec![line("v/1", Invalid, FalseAccept)]);
        let c = versions(
            &[("v/1", "s1"), ("v/2", "s2")],
            &[("v/1", "s1"), ("v/2", "s3")],
        );
        let d = diff(&old, &new, Some(&c));
        assert_eq!(causes(&d), [("v/1".into(), Cause::Implementation)]);
    }

    #[test]
    fn a_changed_expectation_is_the_corpus_even_without_manifests() {
        let old = file(A, &[], vec![line("v/1", Valid, Pass)]);
        let new = file(B, &[], vec![line("v/1", Invalid, FalseAccept)]);
        let d = diff(&old, &new, None);
        assert_eq!(causes(&d), [("v/1".into(), Cause::Expectation)]);
        // Still a regression, still listed, still failing the diff.
        assert!(d.has_regressions());
        let g = d.regressions[0].expected.as_ref().expect("goalposts");
        assert_eq!((g.old.expectation, g.new.expectation), (Valid, Invalid));
        // Another revision or other expected rules move the goalposts too.
        let mut other_rules = line("v/1", Invalid, Pass);
        other_rules.expected_rules = vec![Rule::Aer1TlSeq.into()];
        let old = file(A, &[], vec![other_rules]);
        let d = diff(&old, &new, None);
        assert_eq!(causes(&d), [("v/1".into(), Cause::Expectation)]);
        let mut other_revision = line("v/1", Invalid, Pass);
        other_revision.revision = Some("08".into());
        let d = diff(&file(A, &[], vec![other_revision]), &new, None);
        assert_eq!(causes(&d), [("v/1".into(), Cause::Expectation)]);
        assert!(
            diff_text(&d).contains(
                "expected: invalid [AER1-TL-LINK] -> invalid [AER1-TL-LINK] (revision 08 -> 09)"
            ),
            "{}",
            diff_text(&d)
        );
    }

    #[test]
    fn a_changed_vector_file_is_its_content() {
        // A further case (`<id>@<revision>`) is looked up by its vector's id.
        let old = file(A, &[], vec![line("v/1@06", Invalid, Pass)]);
        let new = file(B, &[], vec![line("v/1@06", Invalid, FalseReject)]);
        let c = versions(&[("v/1", "s1")], &[("v/1", "s2")]);
        let d = diff(&old, &new, Some(&c));
        assert_eq!(causes(&d), [("v/1@06".into(), Cause::VectorContent)]);
        assert_eq!(vector_of("v/1@06"), "v/1");
    }

    #[test]
    fn added_retired_and_not_run() {
        let old = file(
            A,
            &[],
            vec![
                line("v/kept", Invalid, Pass),
                line("v/gone", Invalid, Pass),
                line("v/changed@06", Invalid, Pass),
            ],
        );
        // The new run was filtered (`--include v/new --include v/changed`): it left v/kept out.
        let new = file(
            B,
            &["v/new", "v/changed"],
            vec![
                line("v/new", Invalid, FalseAccept),
                line("v/changed", Invalid, Pass),
            ],
        );
        let c = versions(
            &[("v/kept", "k"), ("v/gone", "g"), ("v/changed", "c1")],
            &[("v/kept", "k"), ("v/new", "n"), ("v/changed", "c2")],
        );
        let d = diff(&old, &new, Some(&c));
        assert_eq!(
            causes(&d),
            [
                // The changed vector lost its revision-06 case: the new run would have run it.
                ("v/changed".into(), Cause::VectorContent),
                ("v/changed@06".into(), Cause::VectorContent),
                ("v/gone".into(), Cause::VectorRetired),
                ("v/kept".into(), Cause::NotRun),
                ("v/new".into(), Cause::VectorAdded),
            ]
        );
        assert_eq!(d.count_origin(Origin::Corpus), 4);
        assert_eq!(d.count(Cause::NotRun), 1);
    }

    #[test]
    fn one_corpus_and_a_filtered_run_is_not_run() {
        let old = file(A, &["v/"], vec![line("v/1", Invalid, Pass)]);
        let new = file(
            A,
            &[],
            vec![line("v/1", Invalid, Pass), line("w/1", Valid, Pass)],
        );
        let d = diff(&old, &new, None);
        assert_eq!(causes(&d), [("w/1".into(), Cause::NotRun)]);
    }

    #[test]
    fn other_corpora_without_manifests_are_unknown() {
        let old = file(
            A,
            &[],
            vec![line("v/1", Invalid, Pass), line("v/2", Valid, Pass)],
        );
        let new = file(
            B,
            &[],
            vec![line("v/1", Invalid, FalseAccept), line("v/3", Valid, Pass)],
        );
        let d = diff(&old, &new, None);
        assert!(!d.corpora_known);
        assert_eq!(
            causes(&d),
            [
                ("v/1".into(), Cause::CorpusUnknown),
                ("v/2".into(), Cause::CorpusUnknown),
                ("v/3".into(), Cause::CorpusUnknown),
            ]
        );
        // A line whose vector its own manifest does not list cannot be judged either.
        let c = versions(&[], &[]);
        let d = diff(&old, &new, Some(&c));
        assert_eq!(d.regressions[0].cause, Cause::CorpusUnknown);
    }

    #[test]
    fn the_implementations_regressions_come_first() {
        let old = file(
            A,
            &[],
            vec![line("v/a", Valid, Pass), line("v/b", Invalid, Pass)],
        );
        let new = file(
            B,
            &[],
            vec![
                line("v/a", Invalid, FalseAccept),
                line("v/b", Invalid, FalseReject),
            ],
        );
        let c = versions(&[("v/a", "1"), ("v/b", "2")], &[("v/a", "3"), ("v/b", "2")]);
        let d = diff(&old, &new, Some(&c));
        let order: Vec<(&str, Cause)> = d
            .regressions
            .iter()
            .map(|c| (c.id.as_str(), c.cause))
            .collect();
        // v/a is a false accept (ranked first by status) but came with the corpus.
        assert_eq!(
            order,
            [("v/b", Cause::Implementation), ("v/a", Cause::Expectation)]
        );
        let text = diff_text(&d);
        assert!(
            text.contains(
                "1 difference from the corpus (1 expectation), 1 from the implementation"
            ),
            "{text}"
        );
    }

    /// An implementation that stopped claiming a suite: the diff opens with the verdict and the
    /// coverage, and the cases that left are summed per suite, not listed one by one, and not
    /// among the other changes.
    #[test]
    fn the_verdict_and_the_coverage_lead_and_a_dropped_suite_is_one_line() {
        let lines = |dropped: Status| -> Vec<ResultLine> {
            let receipts = (0..25).map(|i| {
                let mut l = line(&format!("aer1/receipt/x/{i:02}"), Invalid, dropped);
                l.suite = Suite::Aer1Receipt;
                l
            });
            let timelines = (0..5).map(|i| line(&format!("aer1/timeline/x/{i}"), Invalid, Pass));
            receipts.chain(timelines).collect()
        };
        let (old, new) = (
            file(A, &[], lines(Pass)),
            file(A, &[], lines(Status::Unsupported)),
        );
        let d = diff(&old, &new, None);
        assert_eq!(
            (d.old_verdict.as_str(), d.new_verdict.as_str()),
            ("CONFORMS", "PARTIAL")
        );
        assert!(d.verdict_changed() && !d.has_regressions());
        assert_eq!((d.old_coverage.counted, d.new_coverage.counted), (30, 5));
        assert_eq!(d.new_coverage.suites, [Suite::Aer1Timeline]);
        assert_eq!(d.coverage_lost.len(), 25);
        assert!(d.changed.is_empty() && d.coverage_gained.is_empty());

        let text = diff_text(&d);
        let mut first = text.lines();
        assert_eq!(
            first.next(),
            Some("agentconf report diff: verdict CONFORMS -> PARTIAL")
        );
        assert_eq!(
            first.next(),
            Some("  coverage: 30 -> 5 cases counted; suites no longer counted: aer1-receipt")
        );
        assert!(
            text.contains("aer1-receipt              25  pass -> unsupported"),
            "{text}"
        );
        assert!(!text.contains("aer1/receipt/x/07"), "{text}");
        assert!(!text.contains("Other changes"), "{text}");
        let md = diff_markdown(&d);
        assert!(
            md.starts_with("**agentconf report diff: verdict CONFORMS → PARTIAL**"),
            "{md}"
        );
        assert!(
            md.contains("| `aer1-receipt` | 25 | pass → unsupported |"),
            "{md}"
        );
        let json: serde_json::Value = serde_json::from_str(&diff_json(&d)).unwrap();
        assert_eq!(json["format"], "agentconf-diff/2");
        assert_eq!(json["verdict_changed"], true);
        assert_eq!(json["coverage_lost"].as_array().map(Vec::len), Some(25));

        // The way back: newly counted. A few cases are listed by id.
        let back = diff(&new, &old, None);
        assert_eq!(back.coverage_gained.len(), 25);
        let few = diff(
            &file(A, &[], vec![line("aer1/timeline/x/0", Invalid, Pass)]),
            &file(
                A,
                &[],
                vec![line("aer1/timeline/x/0", Invalid, Status::Skip)],
            ),
            None,
        );
        let text = diff_text(&few);
        assert!(
            text.contains("verdict CONFORMS -> NOTHING TESTED"),
            "{text}"
        );
        assert!(
            text.contains("pass -> skip") && text.contains("aer1/timeline/x/0"),
            "{text}"
        );
    }

    #[test]
    fn causes_serialise_in_kebab_case() {
        let json = serde_json::to_string(&CAUSES).unwrap();
        assert_eq!(
            json,
            r#"["implementation","expectation","vector-content","vector-added","vector-retired","not-run","corpus-unknown"]"#
        );
        for c in CAUSES {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.name())
            );
        }
    }
}
