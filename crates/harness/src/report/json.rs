//! The summary as one JSON object.

use serde::Serialize;

use super::view::{KnownFailure, SuiteSummary, View};
use super::{RuleRow, RunVerdict, Totals, UncreditedCase};
#[cfg(test)]
use crate::results::ResultsFile;
use crate::results::{Footer, Header, ResultLine};

/// The summary format version.
pub(crate) const SUMMARY_FORMAT: &str = "agentconf-summary/1";

/// Everything [`json`](super::json) writes, in its key order.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Summary<'a> {
    /// `agentconf-summary/1`.
    pub format: &'static str,
    pub header: &'a Header,
    /// `null` when the run was cut short.
    pub footer: Option<&'a Footer>,
    /// The verdict's level, known failures and the reasons it is partial.
    pub verdict: RunVerdict,
    /// Per suite with results, the implementation's own suites (where a case ran) first.
    pub suites: Vec<SuiteSummary>,
    /// Computed from the result lines.
    pub totals: Totals,
    /// The unexpected result lines, false accepts first.
    pub unexpected: Vec<&'a ResultLine>,
    /// The expected failures, each with how it failed and the adapter's reason.
    pub known_failures: Vec<KnownFailure>,
    /// The per-rule table.
    pub rules: Vec<RuleRow>,
    /// The passing cases that earned no credit for their rules, each with why.
    pub uncredited: Vec<UncreditedCase>,
}

impl<'a> From<View<'a>> for Summary<'a> {
    fn from(view: View<'a>) -> Summary<'a> {
        Summary {
            format: SUMMARY_FORMAT,
            header: view.header,
            footer: view.footer,
            verdict: view.verdict,
            suites: view.suites,
            totals: view.totals,
            unexpected: view.unexpected,
            known_failures: view.known_failures,
            rules: view.rules,
            uncredited: view.uncredited,
        }
    }
}

/// The summary of `file` (the JSON snapshot redacts its timestamps).
#[cfg(test)]
pub(crate) fn summary(file: &ResultsFile) -> Summary<'_> {
    Summary::from(View::of(file))
}

/// The summary as pretty-printed JSON with a fixed key order: `format`, `header`, `footer`,
/// `verdict`, `suites`, `totals`, `unexpected`, `known_failures`, `rules`, `uncredited`.
pub(crate) fn render(view: &View) -> String {
    // Only strings, numbers, booleans, options and sequences: serialisation cannot fail.
    let mut s = serde_json::to_string_pretty(&Summary::from(view.clone()))
        .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()));
    s.push('\n');
    s
}
