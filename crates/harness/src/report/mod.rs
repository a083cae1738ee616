//! Reports derived from a results file: pure functions from a parsed [`ResultsFile`] to text, no
//! I/O. Every format lists false accepts first — they are the security-relevant failure.
//!
//! A results file is read once into a [`View`] (the header's facts, the verdict and its scope,
//! the totals, the unexpected results, the per-rule table grouped by draft and section, the
//! uncredited passes); each [`ReportFormat`] renders the view and only formats it:
//!
//! - [`text`]: the terminal summary;
//! - [`json`] / [`summary`]: the same as one JSON object with a fixed key order;
//! - [`junit`]: JUnit XML for CI, one testsuite per corpus suite;
//! - [`markdown`]: for pull requests;
//! - [`html`]: one self-contained page with filters and per-vector detail;
//! - [`badge`]: a shields.io endpoint object;
//! - [`diff()`] / [`diff_text`] / [`diff_markdown`] / [`diff_json`]: what changed between two
//!   results files, regressions first, each difference with its cause (the implementation or
//!   the corpus).
//!
//! [`per_rule`] computes the per-rule table; [`Credit`] decides which passes earn credit.
//!
//! Everything in a results file is untrusted (an implementation's stderr and messages end up in
//! it): each format escapes what it embeds — HTML entities (`page::esc`, shared with the
//! matrix's page), Markdown punctuation (`markdown::md`, shared with the matrix's Markdown),
//! terminal control characters ([`terminal_safe`]), XML through quick-junit.

mod badge;
mod diff;
mod format;
pub(crate) mod html;
mod json;
mod junit;
mod lanes;
pub(crate) mod markdown;
pub(crate) mod page;
mod text;
mod verdict;
pub(crate) mod view;

use std::collections::BTreeMap;

use agentconf_contract::vector::Expectation;
use agentconf_rules::{Catalogue, Rule};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::grade::Grading;
use crate::results::{ResultLine, ResultsFile, RuleRef};
use crate::status::Status;
use crate::status::STATUSES;

pub use diff::{diff, CorpusVersions, Diff};
pub(crate) use diff::{diff_json, diff_markdown, diff_text};
#[cfg(test)]
pub(crate) use diff::{vector_of, Cause, Change};
pub use format::ReportFormat;
#[cfg(test)]
pub(crate) use json::summary;
pub use verdict::{verdict, Level, RunVerdict};
pub use view::View;

/// What the header of every human-facing format says about the drafts.
pub(crate) const DRAFTS_NOTE: &str = "AER-1 (draft-zambo-aer1) and GRP (draft-sato-soos-grp) are \
    individual Internet-Drafts: not RFCs, not endorsed by the IETF";

/// How one rule fared. `pass` is earned only when every case that exercises the rule inside the
/// declared scope ran and passed, none of them as an expected failure. Cases out of the scope
/// the adapter declares ([`Status::OutOfScope`]) are left out of the rule: they neither fail it
/// nor make it partial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleStatus {
    /// Every case that exercises the rule ran and passed.
    Pass,
    /// No case had an unexpected outcome, but at least one failed as an expected failure.
    KnownFailure,
    /// At least one case that exercises the rule had an unexpected outcome.
    Fail,
    /// Everything that ran passed, but some cases inside the scope were skipped or unsupported.
    Partial,
    /// No case that exercises the rule was counted (all unsupported or skipped).
    Untested,
    /// Every case that exercises the rule is outside the scope the adapter declares: the
    /// implementation does not claim it.
    OutOfScope,
    /// Its cases passed, but not all of them earned credit: a rejection whose valid counterpart
    /// was not accepted (or an acceptance whose invalid counterparts were not rejected) proves
    /// nothing about the rule (see [`credited`]).
    Uncredited,
}

impl RuleStatus {
    /// Whether no case of the rule ran (untested, or out of the declared scope): every format
    /// folds such rows after the implementation's own rules.
    pub(crate) fn folded(self) -> bool {
        matches!(self, RuleStatus::Untested | RuleStatus::OutOfScope)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RuleStatus::Pass => "pass",
            RuleStatus::KnownFailure => "known-failure",
            RuleStatus::Fail => "fail",
            RuleStatus::Partial => "partial",
            RuleStatus::Untested => "untested",
            RuleStatus::OutOfScope => "out-of-scope",
            RuleStatus::Uncredited => "uncredited",
        }
    }
}

/// One row of the per-rule table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleRow {
    /// The catalogue id, e.g. `AER1-TL-LINK`.
    pub rule: String,
    /// The draft's name, e.g. `draft-zambo-aer1`; `unknown` for an id this build does not know.
    pub draft: String,
    pub family: String,
    pub section: String,
    /// `MUST` or `SHOULD` (`?` for an unknown id).
    pub level: String,
    /// The rule in words, as the catalogue states it.
    pub title: String,
    /// Whether this build's rule catalogue knows the id.
    pub known: bool,
    /// Vectors exercising the rule that passed.
    pub passed: usize,
    /// Vectors exercising the rule, unsupported and out-of-scope ones excluded.
    pub total: usize,
    /// Vectors exercising the rule that were unsupported (not in `total`).
    pub unsupported: usize,
    /// Vectors exercising the rule that were out of the declared scope (not in `total`, and
    /// no part of the rule's status).
    pub out_of_scope: usize,
    pub status: RuleStatus,
    /// Ids of the vectors with an unexpected outcome, false accepts first.
    pub unexpected: Vec<String>,
    /// Ids of the vectors that failed as expected failures: failures of this rule too.
    pub known_failures: Vec<String>,
    /// Ids of the vectors that passed without earning credit (paired credit), not in `passed`.
    pub uncredited: Vec<String>,
}

impl RuleRow {
    /// `+3 unsupported, not counted`, when some of the rule's cases were unsupported;
    /// `+2 out of scope` when some were outside the declared scope.
    pub(crate) fn unsupported_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.unsupported > 0 {
            parts.push(format!("+{} unsupported, not counted", self.unsupported));
        }
        if self.out_of_scope > 0 {
            parts.push(format!("+{} out of scope", self.out_of_scope));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Vector counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Result lines in the file.
    pub vectors: usize,
    pub passed: usize,
    /// Vectors counted for conformance: all but the unsupported and out-of-scope ones.
    pub total: usize,
    pub unsupported: usize,
    /// Vectors outside the scope the adapter declares (not in `total`).
    pub out_of_scope: usize,
    /// Vectors whose status fails the run.
    pub unexpected: usize,
    /// Vectors per status in report order (false accepts first), zeros included.
    pub by_status: Vec<(String, usize)>,
    /// Expected failures (`xfail`) that failed as false accepts: listed by the adapter, and
    /// still inputs the drafts require to be rejected that were accepted.
    pub listed_false_accepts: usize,
}

impl Totals {
    /// The count for a status name (`false-accept`, …).
    pub(crate) fn count(&self, status: &str) -> usize {
        self.by_status
            .iter()
            .find(|(s, _)| s == status)
            .map_or(0, |(_, n)| *n)
    }
}

impl Serialize for Totals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Ordered<'a>(&'a [(String, usize)]);
        impl Serialize for Ordered<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(8))?;
        m.serialize_entry("vectors", &self.vectors)?;
        m.serialize_entry("passed", &self.passed)?;
        m.serialize_entry("total", &self.total)?;
        m.serialize_entry("unsupported", &self.unsupported)?;
        m.serialize_entry("out_of_scope", &self.out_of_scope)?;
        m.serialize_entry("unexpected", &self.unexpected)?;
        m.serialize_entry("by_status", &Ordered(&self.by_status))?;
        m.serialize_entry("listed_false_accepts", &self.listed_false_accepts)?;
        m.end()
    }
}

/// Counts per status, computed from the result lines (the footer may be missing when a run was
/// cut short, and is not trusted to agree).
pub(crate) fn totals(file: &ResultsFile) -> Totals {
    let mut by_status: Vec<(String, usize)> =
        STATUSES.iter().map(|s| (s.name().to_string(), 0)).collect();
    let mut extra: BTreeMap<&'static str, usize> = BTreeMap::new();
    for r in &file.results {
        let name = r.status.name();
        match by_status.iter_mut().find(|(s, _)| s == name) {
            Some((_, n)) => *n += 1,
            None => *extra.entry(name).or_default() += 1,
        }
    }
    by_status.extend(extra.into_iter().map(|(k, v)| (k.to_string(), v)));
    let passed = file
        .results
        .iter()
        .filter(|r| r.status == Status::Pass)
        .count();
    let unsupported = file
        .results
        .iter()
        .filter(|r| r.status == Status::Unsupported)
        .count();
    let out_of_scope = file
        .results
        .iter()
        .filter(|r| r.status == Status::OutOfScope)
        .count();
    Totals {
        listed_false_accepts: file
            .results
            .iter()
            .filter(|r| r.status == Status::Xfail && r.failed_as == Some(Status::FalseAccept))
            .count(),
        vectors: file.results.len(),
        passed,
        total: file.results.len() - unsupported - out_of_scope,
        unsupported,
        out_of_scope,
        unexpected: file
            .results
            .iter()
            .filter(|r| r.status.is_unexpected())
            .count(),
        by_status,
    }
}

/// Result lines in report order: by status (false accepts first, passes last), then by id.
pub(crate) fn ordered(file: &ResultsFile) -> Vec<&ResultLine> {
    let mut v: Vec<&ResultLine> = file.results.iter().collect();
    v.sort_by(|a, b| (a.status.rank(), &a.id).cmp(&(b.status.rank(), &b.id)));
    v
}

/// The unexpected results in report order: false accepts, false rejects, wrong reasons, crashes,
/// timeouts, protocol errors; by id within each.
pub(crate) fn unexpected(file: &ResultsFile) -> Vec<&ResultLine> {
    ordered(file)
        .into_iter()
        .filter(|r| r.status.is_unexpected())
        .collect()
}

/// The per-rule table: one row for each rule id that any result line mentions in `rules` or
/// `broken_rules`, sorted by draft (catalogue order: AER-1 before GRP), then section
/// (numerically: `3-6` before `7` before `8.6`; unnumbered sections such as `none (input
/// hygiene)` last), then id.
///
/// A line counts in the rows of its vector's rules, except an emitter's wrong output (or an
/// artifact it wrote where none may be) that records the rules it broke (`broken_rules`): it is a
/// failure of those alone, listed by the vector or not. Of the vector's other rules the output kept, it is left out: it is no failure of a rule it
/// did not break, and, the conservative choice, no pass either (the output kept them, but a case
/// that failed credits no rule). Their rows are still there (a rule whose every case failed on
/// another rule is `untested`, not missing). A wrong output without `broken_rules` (a file
/// written before they were recorded) counts for every rule of its vector, as it did then.
pub fn per_rule(file: &ResultsFile) -> Vec<RuleRow> {
    /// The rules `r` counts for, and the rules it names but is left out of.
    fn charged(r: &ResultLine) -> (&[RuleRef], Vec<&str>) {
        // An emitter's wrong output, or an artifact written where none may be: the rules it
        // broke, whatever the line's status (an expected failure included).
        if r.broken_rules.is_empty() {
            return (&r.rules, Vec::new());
        }
        let kept = r
            .rules
            .iter()
            .filter(|rule| !r.broken_rules.contains(rule))
            .map(RuleRef::id)
            .collect();
        (&r.broken_rules, kept)
    }
    let credit = Credit::of(file);
    let mut lines_by_rule: BTreeMap<&str, Vec<&ResultLine>> = BTreeMap::new();
    for r in &file.results {
        let (counted, kept) = charged(r);
        for rule in kept {
            lines_by_rule.entry(rule).or_default();
        }
        for rule in counted {
            let lines = lines_by_rule.entry(rule.id()).or_default();
            // A vector naming a rule twice still counts once.
            if !lines.iter().any(|l| std::ptr::eq(*l, r)) {
                lines.push(r);
            }
        }
    }
    let mut rows: Vec<RuleRow> = lines_by_rule
        .into_iter()
        .map(|(id, mut lines)| {
            lines.sort_by(|a, b| (a.status.rank(), &a.id).cmp(&(b.status.rank(), &b.id)));
            let uncredited: Vec<String> = lines
                .iter()
                .filter(|l| l.status == Status::Pass && !credit.credited(l))
                .map(|l| l.id.clone())
                .collect();
            let passed =
                lines.iter().filter(|l| l.status == Status::Pass).count() - uncredited.len();
            let unsupported = lines
                .iter()
                .filter(|l| l.status == Status::Unsupported)
                .count();
            // Out of the declared scope: no part of the rule's status.
            let out_of_scope = lines
                .iter()
                .filter(|l| l.status == Status::OutOfScope)
                .count();
            let in_scope = lines.len() - out_of_scope;
            let unexpected: Vec<String> = lines
                .iter()
                .filter(|l| l.status.is_unexpected())
                .map(|l| l.id.clone())
                .collect();
            let known_failures: Vec<String> = lines
                .iter()
                .filter(|l| l.status == Status::Xfail)
                .map(|l| l.id.clone())
                .collect();
            let total = in_scope - unsupported;
            let counted = lines.iter().filter(|l| l.status.is_counted()).count();
            let status = if !unexpected.is_empty() {
                RuleStatus::Fail
            } else if !known_failures.is_empty() {
                RuleStatus::KnownFailure
            } else if in_scope == 0 && !lines.is_empty() {
                RuleStatus::OutOfScope
            } else if counted == 0 {
                RuleStatus::Untested
            } else if !uncredited.is_empty() {
                RuleStatus::Uncredited
            } else if passed < in_scope {
                RuleStatus::Partial
            } else {
                RuleStatus::Pass
            };
            let record = Rule::from_id(id).map(Rule::record);
            RuleRow {
                rule: id.to_string(),
                draft: record.map_or("unknown".into(), |r| r.draft.clone()),
                family: record.map_or(String::new(), |r| r.family.clone()),
                section: record.map_or(String::new(), |r| r.section.clone()),
                level: record.map_or("?".into(), |r| r.level.as_str().to_string()),
                title: record.map_or("(not in this build's rule catalogue)".into(), |r| {
                    r.title.clone()
                }),
                known: record.is_some(),
                passed,
                total,
                unsupported,
                out_of_scope,
                status,
                unexpected,
                known_failures,
                uncredited,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        (draft_rank(&a.draft), section_key(&a.section), &a.rule).cmp(&(
            draft_rank(&b.draft),
            section_key(&b.section),
            &b.rule,
        ))
    });
    rows
}

/// `N more rules of the catalogue have no case in this file`, or nothing when every rule has one.
pub(crate) fn rules_without_cases_phrase(rows: &[RuleRow]) -> Option<String> {
    match rules_without_cases(rows) {
        0 => None,
        1 => Some("1 more rule of the catalogue has no case in this file".into()),
        n => Some(format!(
            "{n} more rules of the catalogue have no case in this file"
        )),
    }
}

/// How many rules of the catalogue have no row in `rows` (no case of theirs is in the file): a
/// subset's report says so rather than leaving them out unmentioned.
fn rules_without_cases(rows: &[RuleRow]) -> usize {
    Catalogue::embedded()
        .records()
        .iter()
        .filter(|rec| !rows.iter().any(|r| r.rule == rec.id))
        .count()
}

/// Paired credit: a passing case counts for its rules only when its counterpart went right too,
/// so an implementation that rejects (or accepts) everything earns no rule.
///
/// A case that was not graded (unsupported or skipped) is absent: it neither pairs with another
/// case nor fails a pair, so an implementation of a subset earns what it gets right in it.
///
/// - An `invalid` case that was rejected is credited when the vector it was derived from
///   (`derived_from`) was accepted (or, when that vector is itself `invalid`, was rejected and
///   credited); without a graded derivation source in the file, when some `valid` case of the same
///   suite was accepted.
/// - A `valid` case that was accepted is credited when at least one graded case derived from it
///   was rejected as expected; without one in the file, when some `invalid` case of the same suite
///   was.
/// - A valid case of a suite graded on output (an emitter's) is credited when it passed; its
///   refusals are credited as rejections are.
/// - An `acceptable` case (either verdict conforms) is credited when the implementation both
///   accepted a `valid` case and rejected an `invalid` case of the same suite: only then does
///   its verdict on the case say anything.
pub(crate) struct Credit<'a> {
    /// Graded cases (not unsupported, not skipped) by id.
    graded: BTreeMap<&'a str, &'a ResultLine>,
    /// Per source id: whether a graded case derived from it passed.
    derived: BTreeMap<&'a str, bool>,
    /// Per suite: whether a valid case passed, whether an invalid case passed.
    suites: BTreeMap<&'a str, (bool, bool)>,
}

impl<'a> Credit<'a> {
    pub(crate) fn of(file: &'a ResultsFile) -> Credit<'a> {
        let mut c = Credit {
            graded: BTreeMap::new(),
            derived: BTreeMap::new(),
            suites: BTreeMap::new(),
        };
        for l in file.results.iter().filter(|l| l.status.is_counted()) {
            let pass = l.status == Status::Pass;
            c.graded.insert(&l.id, l);
            if let (Some(src), Expectation::Invalid) = (l.derived_from.as_deref(), l.expectation) {
                *c.derived.entry(src).or_default() |= pass;
            }
            let s = c.suites.entry(l.suite.as_str()).or_default();
            match l.expectation {
                Expectation::Valid => s.0 |= pass,
                Expectation::Invalid => s.1 |= pass,
                Expectation::Acceptable => {}
            }
        }
        c
    }

    /// Whether a passing line earns credit for its rules.
    pub(crate) fn credited(&self, l: &ResultLine) -> bool {
        self.why_uncredited(l).is_none()
    }

    /// Why a passing line earns no credit for its rules, in words; `None` when it does.
    pub(crate) fn why_uncredited(&self, l: &ResultLine) -> Option<String> {
        self.uncredited_within(l, 0)
    }

    /// [`Credit::why_uncredited`], following derivations at most `MAX_DERIVATION_DEPTH` deep: a
    /// rejection derived from another rejection is credited only when that one is, so a chain
    /// of invalid vectors cannot lend a reject-all implementation credit.
    fn uncredited_within(&self, l: &ResultLine, depth: usize) -> Option<String> {
        const MAX_DERIVATION_DEPTH: usize = 8;
        // An emitter's pass on a valid case is its output, equal to the construction's: no
        // constant program earns it, so it needs no counterpart. A refusal (an invalid case) is
        // credited as any rejection is.
        if l.suite.graded_on_output() && l.expectation == Expectation::Valid {
            return None;
        }
        let suite = l.suite.as_str();
        let (valid_passed, invalid_passed) = self.suites.get(suite).copied().unwrap_or_default();
        let no_valid =
            || format!("no valid {suite} case was accepted, so a rejection proves nothing");
        let no_invalid =
            || format!("no invalid {suite} case was rejected, so an acceptance proves nothing");
        match l.expectation {
            Expectation::Acceptable => match (valid_passed, invalid_passed) {
                (true, true) => None,
                (false, _) => Some(no_valid()),
                (true, false) => Some(no_invalid()),
            },
            Expectation::Invalid => match l.derived_from.as_deref() {
                Some(src) if self.graded.contains_key(src) => {
                    let source = self.graded[src];
                    if source.status != Status::Pass {
                        Some(format!(
                            "its counterpart {src}, which it was derived from, was {}",
                            source.status.name()
                        ))
                    } else if source.expectation != Expectation::Invalid {
                        None
                    } else if depth >= MAX_DERIVATION_DEPTH {
                        Some(format!(
                            "its counterpart {src} is too many derivations away"
                        ))
                    } else {
                        self.uncredited_within(source, depth + 1)
                            .map(|_| format!("its counterpart {src} earned no credit either"))
                    }
                }
                _ => (!valid_passed).then(no_valid),
            },
            Expectation::Valid => match self.derived.get(l.id.as_str()) {
                Some(true) => None,
                Some(false) => Some("no case derived from it was rejected".to_string()),
                None => (!invalid_passed).then(no_invalid),
            },
        }
    }
}

/// A passing case that earned no credit for its rules, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct UncreditedCase {
    pub id: String,
    pub why: String,
}

/// `1 case passed`, `3 cases passed`.
pub(crate) fn passed_cases(n: usize) -> String {
    match n {
        1 => "1 case passed".into(),
        n => format!("{n} cases passed"),
    }
}

/// Every passing case that earned no credit (paired credit), in report order, with its reason:
/// what every format lists, one line each.
pub(crate) fn uncredited(file: &ResultsFile) -> Vec<UncreditedCase> {
    let credit = Credit::of(file);
    ordered(file)
        .into_iter()
        .filter(|l| l.status == Status::Pass)
        .filter_map(|l| {
            credit.why_uncredited(l).map(|why| UncreditedCase {
                id: l.id.clone(),
                why,
            })
        })
        .collect()
}

/// Drafts in catalogue order; unknown drafts last, by name.
fn draft_rank(draft: &str) -> (usize, String) {
    let pos = Catalogue::embedded()
        .records()
        .iter()
        .position(|r| r.draft == draft)
        .unwrap_or(usize::MAX);
    (pos, draft.to_string())
}

/// A sort key for a section string: the numbers it starts with, compared numerically; sections
/// without a number last.
fn section_key(section: &str) -> (bool, Vec<u64>, String) {
    let head = section.split('(').next().unwrap_or("");
    let numbers: Vec<u64> = head
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    (numbers.is_empty(), numbers, section.to_string())
}

/// The grading level's name as the results file spells it (`strict`, `loose`, …).
pub(crate) fn grading_name(g: Grading) -> String {
    serde_json::to_value(g)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{g:?}").to_lowercase())
}

/// `1234` ms as `1.2 s`.
pub(crate) fn seconds(ms: u64) -> String {
    format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
}

/// The argv as a person would type it (words with unusual characters single-quoted); `(run in
/// process)` when empty. Not escaped for any output format: callers escape.
pub(crate) fn argv_line(argv: &[String]) -> String {
    if argv.is_empty() {
        return "(run in process)".into();
    }
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A short phrase for the unexpected counts, false accepts first: `2 false accepts, 1 crash`.
pub(crate) fn unexpected_phrase(t: &Totals) -> String {
    t.by_status
        .iter()
        .filter(|(s, n)| *n > 0 && !matches!(s.as_str(), "pass" | "unsupported" | "out-of-scope"))
        .map(|(s, n)| {
            let words = s.replace('-', " ");
            if *n == 1 {
                format!("1 {words}")
            } else {
                format!("{n} {}", plural(&words))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(words: &str) -> String {
    if words.ends_with("sh") || words.ends_with('s') {
        format!("{words}es")
    } else {
        format!("{words}s")
    }
}

// The workspace's one clip and terminal escaping (`agentconf_json::text`), under the names the
// renderers use.
pub(crate) use agentconf_json::text::clip;
pub use agentconf_json::text::terminal_safe;

// Each format of one file at once, for the snapshot tests (callers render a `View` through a
// `ReportFormat`).

/// The terminal summary of `file` ([`ReportFormat::Text`]).
#[cfg(test)]
pub(crate) fn text(file: &ResultsFile) -> String {
    ReportFormat::Text.render(&View::of(file))
}

/// The summary of `file` as one JSON object ([`ReportFormat::Json`]).
#[cfg(test)]
pub(crate) fn json(file: &ResultsFile) -> String {
    ReportFormat::Json.render(&View::of(file))
}

/// JUnit XML of `file` ([`ReportFormat::Junit`]).
#[cfg(test)]
pub(crate) fn junit(file: &ResultsFile) -> String {
    ReportFormat::Junit.render(&View::of(file))
}

/// Markdown of `file` ([`ReportFormat::Markdown`]).
#[cfg(test)]
pub(crate) fn markdown(file: &ResultsFile) -> String {
    ReportFormat::Markdown.render(&View::of(file))
}

/// The self-contained HTML page of `file` ([`ReportFormat::Html`]).
#[cfg(test)]
pub(crate) fn html(file: &ResultsFile) -> String {
    ReportFormat::Html.render(&View::of(file))
}

/// The shields.io endpoint badge of `file` ([`ReportFormat::Badge`]).
#[cfg(test)]
pub(crate) fn badge(file: &ResultsFile) -> String {
    ReportFormat::Badge.render(&View::of(file))
}

// Snapshots of every format and the escaping, ordering and classification they must keep.
#[cfg(test)]
pub(crate) mod snapshot_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_sort_numerically_with_unnumbered_last() {
        let mut s = vec![
            "none (input hygiene)",
            "8.6",
            "7, 8",
            "3-6",
            "7 (external commitment artifact)",
            "7",
            "3, 7 (documents are JSON)",
            "8",
            "10",
        ];
        s.sort_by_key(|x| section_key(x));
        assert_eq!(
            s,
            [
                "3-6",
                "3, 7 (documents are JSON)",
                "7",
                "7 (external commitment artifact)",
                "7, 8",
                "8",
                "8.6",
                "10",
                "none (input hygiene)"
            ]
        );
    }

    #[test]
    fn aer1_before_grp() {
        assert!(draft_rank("draft-zambo-aer1") < draft_rank("draft-sato-soos-grp"));
        assert!(draft_rank("draft-sato-soos-grp") < draft_rank("unknown"));
    }

    #[test]
    fn argv_quoting() {
        assert_eq!(argv_line(&[]), "(run in process)");
        assert_eq!(
            argv_line(&["./impl".into(), "a b".into(), "it's".into()]),
            "./impl 'a b' 'it'\\''s'"
        );
    }
}
