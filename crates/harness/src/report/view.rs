//! The report view: everything a report of a results file shows, computed once. Every format
//! (text, JSON, JUnit, Markdown, HTML, badge) renders a [`View`] and decides nothing: which facts
//! the header states and in what order, the verdict and its scope lines, the totals, the
//! unexpected results, the per-rule table grouped by draft and section, and the passes that
//! earned no credit are all here, so that the formats cannot drift apart.

use std::collections::BTreeMap;
use std::ops::Range;

use super::{
    argv_line, grading_name, ordered, per_rule, rules_without_cases_phrase, totals, uncredited,
    verdict, RuleRow, Totals, UncreditedCase, Verdict,
};
use crate::results::{Footer, Header, ResultLine, ResultsFile};

/// One fact of the header, in the order every format states them. Values are the file's own
/// strings (untrusted: each format escapes them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact<'a> {
    Implementation(&'a str),
    /// The command as a person would type it.
    Command(String),
    /// The SHA-256 of the implementation's executable.
    Executable(&'a str),
    /// What a persistent server declared itself to be (its own words, not checked).
    Declared {
        name: &'a str,
        version: &'a str,
    },
    /// A file the command names, with its SHA-256.
    File {
        sha256: &'a str,
        path: &'a str,
    },
    Interpreter(&'a str),
    /// The SHA-256 of the adapter file.
    Adapter(&'a str),
    CorpusDigest(&'a str),
    SuiteVersion(&'a str),
    Grading(String),
    /// The capability profiles claimed (possibly none).
    Profiles(&'a [String]),
    Started(&'a str),
    /// When the run finished and how long it took; `None` when the file has no footer.
    Finished(Option<(&'a str, u64)>),
    /// Fewer (or more) result lines than the header announced.
    Cases {
        results: usize,
        announced: usize,
    },
}

/// The rules of one draft, section by section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftGroup {
    pub draft: String,
    /// Each section's rows, as a range of [`View::rules`] (whose positions are the rows' anchors).
    pub sections: Vec<(String, Range<usize>)>,
}

impl DraftGroup {
    /// The rows of the whole draft, as a range of [`View::rules`].
    pub fn rows(&self) -> Range<usize> {
        let start = self.sections.first().map_or(0, |(_, r)| r.start);
        let end = self.sections.last().map_or(start, |(_, r)| r.end);
        start..end
    }
}

/// A results file as every report shows it.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub header: &'a Header,
    /// `None` when the run was cut short.
    pub footer: Option<&'a Footer>,
    /// The result lines in the file's order.
    pub results: &'a [ResultLine],
    pub verdict: Verdict,
    pub totals: Totals,
    pub facts: Vec<Fact<'a>>,
    /// Every result line in report order: by status (false accepts first), then by id.
    pub lines: Vec<&'a ResultLine>,
    /// The unexpected results in report order.
    pub unexpected: Vec<&'a ResultLine>,
    /// The per-rule table ([`per_rule`]).
    pub rules: Vec<RuleRow>,
    /// The per-rule table's rows grouped by draft, then section.
    pub drafts: Vec<DraftGroup>,
    /// `N more rules of the catalogue have no case in this file`, when some have none.
    pub rules_without_cases: Option<String>,
    /// The passing cases that earned no credit for their rules, each with why.
    pub uncredited: Vec<UncreditedCase>,
    /// Why each uncredited pass earned no credit, by case id.
    uncredited_by_id: BTreeMap<String, usize>,
}

impl<'a> View<'a> {
    /// The view of `file`.
    pub fn of(file: &'a ResultsFile) -> View<'a> {
        let rules = per_rule(file);
        let uncredited = uncredited(file);
        View {
            header: &file.header,
            footer: file.footer.as_ref(),
            results: &file.results,
            verdict: verdict(file),
            totals: totals(file),
            facts: facts(file),
            lines: ordered(file),
            unexpected: super::unexpected(file),
            drafts: drafts(&rules),
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
    pub fn why_uncredited(&self, id: &str) -> Option<&str> {
        self.uncredited_by_id
            .get(id)
            .map(|i| self.uncredited[*i].why.as_str())
    }

    /// The case count the header announced (files from before cases count vectors).
    pub fn announced_cases(&self) -> usize {
        self.header.case_count.unwrap_or(self.header.vector_count)
    }
}

/// The header's facts, in order.
fn facts(file: &ResultsFile) -> Vec<Fact<'_>> {
    let h = &file.header;
    let i = &h.implementation;
    let mut out = vec![
        Fact::Implementation(&i.name),
        Fact::Command(argv_line(&i.argv)),
    ];
    out.extend(i.executable_sha256.as_deref().map(Fact::Executable));
    out.extend(i.declared.as_ref().map(|d| Fact::Declared {
        name: &d.name,
        version: &d.version,
    }));
    out.extend(i.files.iter().map(|f| Fact::File {
        sha256: &f.sha256,
        path: &f.path,
    }));
    out.extend(i.interpreter_version.as_deref().map(Fact::Interpreter));
    out.extend(h.adapter_digest.as_deref().map(Fact::Adapter));
    out.extend([
        Fact::CorpusDigest(&h.corpus_digest),
        Fact::SuiteVersion(&h.suite_version),
        Fact::Grading(grading_name(h.grading)),
        Fact::Profiles(&h.profiles),
        Fact::Started(&h.started_at),
        Fact::Finished(
            file.footer
                .as_ref()
                .map(|f| (f.finished_at.as_str(), f.duration_ms)),
        ),
    ]);
    // A complete run writes one line per case; files from before cases count vectors.
    let announced = h.case_count.unwrap_or(h.vector_count);
    if file.results.len() != announced {
        out.push(Fact::Cases {
            results: file.results.len(),
            announced,
        });
    }
    out
}

/// The rows (already in draft, section, id order) grouped by draft, then by section.
fn drafts(rows: &[RuleRow]) -> Vec<DraftGroup> {
    let mut out: Vec<DraftGroup> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
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
            Some((section, range)) if *section == row.section => range.end = i + 1,
            _ => draft.sections.push((row.section.clone(), i..i + 1)),
        }
    }
    out
}
