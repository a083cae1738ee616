//! The report view: everything a report of a results file shows, computed once. Every format
//! (text, JSON, JUnit, Markdown, HTML, badge) renders a [`View`] and decides nothing: the verdict
//! and its scope lines, the per-suite summary (the implementation's own suites first), the known
//! failures with their reasons, which facts the header states and in what words and order, the
//! totals, the unexpected results, the per-rule table grouped by draft and section (rules no case
//! of which ran apart, to be folded), and the passes that earned no credit are all here, so that
//! the formats cannot drift apart.

use std::borrow::Cow;
use std::collections::BTreeMap;

use agentconf_contract::vector::Suite;
use serde::Serialize;

use super::{
    argv_line, grading_name, per_rule, rules_without_cases_phrase, seconds, totals, uncredited,
    verdict, RuleRow, RunVerdict, Totals, UncreditedCase,
};
use crate::results::{Footer, Header, ResultLine, ResultsFile};
use crate::status::Status;

/// One piece of a fact's value: plain words, or a token shown as code (a digest, a command).
/// Either may hold the file's own strings (untrusted: each format escapes them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part<'a> {
    Text(Cow<'a, str>),
    Code(Cow<'a, str>),
}

impl Part<'_> {
    /// The piece's characters, whichever way it is shown.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Part::Text(s) | Part::Code(s) => s,
        }
    }
}

/// One fact of the header: its label and its value, the same words in every format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fact<'a> {
    pub label: &'static str,
    pub value: Vec<Part<'a>>,
}

/// How the cases of one suite fared. The implementation's own suites are those where a case ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct SuiteSummary {
    pub suite: Suite,
    /// Result lines of the suite.
    pub cases: usize,
    /// Cases graded: all but the unsupported and skipped ones.
    pub ran: usize,
    pub passed: usize,
    /// Cases whose status fails the run.
    pub failed: usize,
    /// Expected failures (`xfail`): listed by the adapter, each still a failure of its rules.
    pub known_failures: usize,
    pub unsupported: usize,
    /// Cases outside the scope the adapter declares.
    pub out_of_scope: usize,
    pub skipped: usize,
}

impl SuiteSummary {
    /// Whether any case of the suite ran: one of the implementation's own suites.
    pub(crate) fn tested(&self) -> bool {
        self.ran > 0
    }
}

/// A column of the per-suite summary: its heading and its count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SuiteColumn {
    pub heading: &'static str,
    pub count: fn(&SuiteSummary) -> usize,
    /// A count above zero here fails the run: formats make it stand out.
    pub alarm: bool,
}

/// The per-suite summary's columns: ran, passed, failed, known failures, unsupported, and
/// out of scope and skipped when the adapter declared a scope or skipped any case.
const SUITE_COLUMNS: [SuiteColumn; 7] = [
    column("ran", |s| s.ran, false),
    column("passed", |s| s.passed, false),
    column("failed", |s| s.failed, true),
    column("known failures", |s| s.known_failures, false),
    column("unsupported", |s| s.unsupported, false),
    column("out of scope", |s| s.out_of_scope, false),
    column("skipped", |s| s.skipped, false),
];

const fn column(
    heading: &'static str,
    count: fn(&SuiteSummary) -> usize,
    alarm: bool,
) -> SuiteColumn {
    SuiteColumn {
        heading,
        count,
        alarm,
    }
}

/// An expected failure, with the reason the adapter's list gives for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct KnownFailure {
    pub id: String,
    /// How it failed (`false-accept`, …); absent in files that did not record it.
    pub failed_as: Option<Status>,
    /// The reason the adapter's `[[xfail]]` entry gives (in files that did not record it, the
    /// case's detail, which starts with it).
    pub reason: String,
}

/// The rows of one section of a draft.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SectionGroup {
    /// The section as the catalogue spells it (`3-6`, `none (input hygiene)`).
    pub section: String,
    /// The section in words ([`section_heading`]).
    pub heading: String,
    /// Positions in [`View::rules`] (which are the rows' anchors).
    pub rows: Vec<usize>,
}

/// The rules of one draft, section by section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DraftGroup {
    pub draft: String,
    pub sections: Vec<SectionGroup>,
}

impl DraftGroup {
    /// Positions in [`View::rules`] of the whole draft's rows, in order.
    pub(crate) fn rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.sections.iter().flat_map(|s| s.rows.iter().copied())
    }
}

/// A results file as every report shows it.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub(crate) header: &'a Header,
    /// `None` when the run was cut short.
    pub(crate) footer: Option<&'a Footer>,
    /// The result lines in the file's order.
    pub(crate) results: &'a [ResultLine],
    pub(crate) verdict: RunVerdict,
    /// Per suite with results: the implementation's own suites (where a case ran) first, then
    /// the untested ones; in corpus order within each.
    pub(crate) suites: Vec<SuiteSummary>,
    /// The expected failures, false accepts first, then by id.
    pub(crate) known_failures: Vec<KnownFailure>,
    pub(crate) facts: Vec<Fact<'a>>,
    pub(crate) totals: Totals,
    /// Every result line: the graded ones first, by status (false accepts first) and id, then
    /// the skipped and unsupported ones, so that a partial implementation's own cases lead.
    pub(crate) lines: Vec<&'a ResultLine>,
    /// The unexpected results in report order.
    pub(crate) unexpected: Vec<&'a ResultLine>,
    /// The per-rule table ([`per_rule`]), in catalogue order.
    pub(crate) rules: Vec<RuleRow>,
    /// The rules a case of which ran, grouped by draft, then section.
    pub(crate) drafts: Vec<DraftGroup>,
    /// The rules no case of which ran (every one unsupported, skipped or out of the declared
    /// scope), grouped the same way: every format folds them after the others.
    pub(crate) untested: Vec<DraftGroup>,
    /// `N more rules of the catalogue have no case in this file`, when some have none.
    pub(crate) rules_without_cases: Option<String>,
    /// The passing cases that earned no credit for their rules, each with why.
    pub(crate) uncredited: Vec<UncreditedCase>,
    /// Positions in `uncredited` by case id.
    uncredited_by_id: BTreeMap<String, usize>,
}

impl<'a> View<'a> {
    /// The verdict every format of the file states.
    pub fn verdict(&self) -> &RunVerdict {
        &self.verdict
    }

    /// The view of `file`.
    pub fn of(file: &'a ResultsFile) -> View<'a> {
        let rules = per_rule(file);
        let uncredited = uncredited(file);
        let lines = lines(file);
        View {
            header: &file.header,
            footer: file.footer.as_ref(),
            results: &file.results,
            verdict: verdict(file),
            suites: suites(file),
            known_failures: known_failures(file),
            facts: facts(file),
            totals: totals(file),
            unexpected: super::unexpected(file),
            lines,
            drafts: drafts(&rules, |r| !r.status.folded()),
            untested: drafts(&rules, |r| r.status.folded()),
            rules_without_cases: rules_without_cases_phrase(&rules),
            uncredited_by_id: uncredited
                .iter()
                .enumerate()
                .map(|(i, u)| (u.id.clone(), i))
                .collect(),
            uncredited,
            rules,
        }
    }

    /// Why the passing case `id` earned no credit for its rules; `None` when it did.
    pub(crate) fn why_uncredited(&self, id: &str) -> Option<&str> {
        self.uncredited_by_id
            .get(id)
            .map(|i| self.uncredited[*i].why.as_str())
    }

    /// The per-suite summary's columns (skipped only when a case was skipped, out of scope only
    /// when a case was).
    pub(crate) fn suite_columns(&self) -> Vec<SuiteColumn> {
        let skips = self.suites.iter().any(|s| s.skipped > 0);
        let scoped = self.suites.iter().any(|s| s.out_of_scope > 0);
        SUITE_COLUMNS
            .into_iter()
            .filter(|c| c.heading != "skipped" || skips)
            .filter(|c| c.heading != "out of scope" || scoped)
            .collect()
    }

    /// The implementation's own suites (where a case ran), and the others.
    pub(crate) fn suites_tested(&self) -> (Vec<&SuiteSummary>, Vec<&SuiteSummary>) {
        self.suites.iter().partition(|s| s.tested())
    }

    /// The suites where nothing ran, each as `NAME (N cases)` with its name shown by `name`,
    /// comma-separated; `None` when a case of every suite ran.
    pub(crate) fn not_tested(&self, name: impl Fn(&str) -> String) -> Option<String> {
        let list: Vec<String> = (self.suites.iter())
            .filter(|s| !s.tested())
            .map(|s| format!("{} ({})", name(s.suite.as_str()), cases(s.cases)))
            .collect();
        (!list.is_empty()).then(|| list.join(", "))
    }

    /// How many rules no case of which ran.
    pub(crate) fn untested_rules(&self) -> usize {
        self.untested.iter().map(|d| d.rows().count()).sum()
    }
}

/// A human-facing format (text, Markdown, HTML): the parts of a report, each written from the
/// view alone, and [`Sections::write_all`], the one order every such format shows them in.
pub(crate) trait Sections {
    /// The verdict and its scope lines.
    fn headline(&mut self);
    /// The per-suite summary, the implementation's own suites first.
    fn suites(&mut self);
    /// The unexpected results, false accepts first.
    fn unexpected(&mut self);
    /// The known failures, each with its reason.
    fn known_failures(&mut self);
    /// The run's facts.
    fn facts(&mut self);
    /// The counts per status.
    fn totals(&mut self);
    /// The per-rule table, the untested rules folded after it.
    fn rules(&mut self);
    /// The passes that earned no credit, each with why.
    fn uncredited(&mut self);

    /// Every part, in order.
    fn write_all(&mut self) {
        self.headline();
        self.suites();
        self.unexpected();
        self.known_failures();
        self.facts();
        self.totals();
        self.rules();
        self.uncredited();
    }
}

/// `1 case`, `3 cases`.
pub(crate) fn cases(n: usize) -> String {
    counted(n, "case")
}

/// `1 rule`, `3 rules`: a count and a noun that takes an `s`.
pub(crate) fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// A catalogue section in words, as a heading: `Section 7`, `Sections 3-6`, `Section 8.6 (added
/// in 01)`; a rule outside the draft's numbered sections (`none (input hygiene)`) as `Input
/// hygiene (no draft section)`; `Unknown section` for a rule this build does not know.
pub(crate) fn section_heading(section: &str) -> String {
    if section.is_empty() {
        return "Unknown section".into();
    }
    if let Some(what) = section
        .strip_prefix("none (")
        .and_then(|s| s.strip_suffix(')'))
    {
        let mut chars = what.chars();
        let first: String = chars
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default();
        return format!("{first}{} (no draft section)", chars.as_str());
    }
    let numbers = section.split(" (").next().unwrap_or(section);
    if numbers.contains([',', '-']) {
        format!("Sections {section}")
    } else {
        format!("Section {section}")
    }
}

/// Every line: graded ones first (by status rank, then id), then those not graded.
fn lines(file: &ResultsFile) -> Vec<&ResultLine> {
    let mut v: Vec<&ResultLine> = file.results.iter().collect();
    v.sort_by(|a, b| {
        (!a.status.is_counted(), a.status.rank(), &a.id).cmp(&(
            !b.status.is_counted(),
            b.status.rank(),
            &b.id,
        ))
    });
    v
}

/// The per-suite summary: suites where a case ran first, then the others; corpus order within.
fn suites(file: &ResultsFile) -> Vec<SuiteSummary> {
    let mut out: Vec<SuiteSummary> = Suite::ALL
        .into_iter()
        .map(|suite| {
            let lines: Vec<&ResultLine> =
                file.results.iter().filter(|r| r.suite == suite).collect();
            let count = |s: Status| lines.iter().filter(|r| r.status == s).count();
            SuiteSummary {
                suite,
                cases: lines.len(),
                ran: lines.iter().filter(|r| r.status.is_counted()).count(),
                passed: count(Status::Pass),
                failed: lines.iter().filter(|r| r.status.is_unexpected()).count(),
                known_failures: count(Status::Xfail),
                unsupported: count(Status::Unsupported),
                out_of_scope: count(Status::OutOfScope),
                skipped: count(Status::Skip),
            }
        })
        .filter(|s| s.cases > 0)
        .collect();
    // A stable sort: corpus order is kept within each group.
    out.sort_by_key(|s| !s.tested());
    out
}

/// The expected failures, false accepts first (they are still inputs that had to be rejected),
/// then by how they failed and by id.
fn known_failures(file: &ResultsFile) -> Vec<KnownFailure> {
    let mut out: Vec<KnownFailure> = file
        .results
        .iter()
        .filter(|r| r.status == Status::Xfail)
        .map(|r| KnownFailure {
            id: r.id.clone(),
            failed_as: r.failed_as,
            reason: r.xfail_reason.clone().unwrap_or_else(|| r.detail.clone()),
        })
        .collect();
    out.sort_by(|a, b| {
        let rank = |k: &KnownFailure| k.failed_as.map_or(usize::MAX, Status::rank);
        (rank(a), &a.id).cmp(&(rank(b), &b.id))
    });
    out
}

/// The header's facts, in order, in words.
fn facts(file: &ResultsFile) -> Vec<Fact<'_>> {
    use Part::{Code, Text};
    let h = &file.header;
    let i = &h.implementation;
    let fact = |label, value| Fact { label, value };
    let text = |s: &str| Text(Cow::Owned(s.to_string()));
    // The name is the claimant's own words, checked by nothing: said so, and followed at once by
    // what ran, the executable's digest.
    let mut out = vec![fact(
        "implementation",
        vec![
            Text(Cow::Borrowed(i.name.as_str())),
            Text(Cow::Borrowed(" (named by the claimant)")),
        ],
    )];
    let sha256 = |d: &'_ str| {
        vec![
            Text(Cow::Borrowed("sha256 ")),
            Code(Cow::Owned(d.to_string())),
        ]
    };
    out.extend(
        i.executable_sha256
            .as_deref()
            .map(|d| fact("executable", sha256(d))),
    );
    out.extend(i.files.iter().map(|f| {
        let mut value = sha256(&f.sha256);
        value.push(text(" "));
        value.push(text(&f.path));
        fact("file", value)
    }));
    out.push(fact("command", vec![Code(Cow::Owned(argv_line(&i.argv)))]));
    out.extend(
        i.interpreter_version
            .as_deref()
            .map(|v| fact("interpreter", vec![text(v)])),
    );
    out.extend(i.declared.as_ref().map(|d| {
        fact(
            "declared",
            vec![text(&format!("{} {} (its own words)", d.name, d.version))],
        )
    }));
    out.extend(
        h.adapter_digest
            .as_deref()
            .map(|d| fact("adapter", sha256(d))),
    );
    out.extend([
        fact(
            "corpus digest",
            vec![Code(Cow::Borrowed(h.corpus_digest.as_str()))],
        ),
        fact("suite version", vec![text(&h.suite_version)]),
        fact("grading", vec![text(&grading_name(h.grading))]),
        fact(
            "profiles",
            vec![if h.profiles.is_empty() {
                text("none claimed")
            } else {
                text(&h.profiles.join(", "))
            }],
        ),
        // Start and finish in one fact, so that no layout can show the finish first.
        fact(
            "ran",
            vec![text(&match &file.footer {
                Some(f) => format!(
                    "{} to {} (took {})",
                    h.started_at,
                    f.finished_at,
                    seconds(f.duration_ms)
                ),
                None => format!(
                    "from {}, never finished: the file has no footer (the run was cut short)",
                    h.started_at
                ),
            })],
        ),
    ]);
    // A complete run writes one line per case; files from before cases count vectors.
    let announced = h.case_count.unwrap_or(h.vector_count);
    if file.results.len() != announced {
        out.push(fact(
            "cases",
            vec![text(&format!(
                "{} of the {announced} the header announced have results",
                file.results.len()
            ))],
        ));
    }
    out
}

/// The rows `keep` selects (in the table's draft, section, id order), grouped by draft, then by
/// section.
fn drafts(rows: &[RuleRow], keep: impl Fn(&RuleRow) -> bool) -> Vec<DraftGroup> {
    let mut out: Vec<DraftGroup> = Vec::new();
    for (i, row) in rows.iter().enumerate().filter(|(_, r)| keep(r)) {
        if out.last().is_none_or(|d| d.draft != row.draft) {
            out.push(DraftGroup {
                draft: row.draft.clone(),
                sections: Vec::new(),
            });
        }
        let Some(draft) = out.last_mut() else {
            continue;
        };
        match draft.sections.last_mut() {
            Some(s) if s.section == row.section => s.rows.push(i),
            _ => draft.sections.push(SectionGroup {
                section: row.section.clone(),
                heading: section_heading(&row.section),
                rows: vec![i],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_read_as_words() {
        for (section, heading) in [
            ("7", "Section 7"),
            ("3-6", "Sections 3-6"),
            ("8.1, 8.2", "Sections 8.1, 8.2"),
            (
                "3, 7 (documents are JSON)",
                "Sections 3, 7 (documents are JSON)",
            ),
            ("8.6 (added in 01)", "Section 8.6 (added in 01)"),
            (
                "7 (external commitment artifact)",
                "Section 7 (external commitment artifact)",
            ),
            ("none (input hygiene)", "Input hygiene (no draft section)"),
            (
                "none (capability profile)",
                "Capability profile (no draft section)",
            ),
            ("", "Unknown section"),
        ] {
            assert_eq!(section_heading(section), heading, "{section}");
        }
    }

    #[test]
    fn every_catalogue_section_reads_as_words() {
        for rec in agentconf_rules::Catalogue::embedded().records() {
            let heading = section_heading(&rec.section);
            assert!(!heading.contains("none"), "{}: {heading}", rec.id);
            assert!(
                heading.starts_with(char::is_uppercase),
                "{}: {heading}",
                rec.id
            );
        }
    }
}
