//! The diff as one JSON object.

use serde::Serialize;

use super::Diff;

/// The diff format version.
/// 2: the verdicts and coverage of both runs, and the changes into and out of what a run counts
/// (`coverage_lost`, `coverage_gained`) in lists of their own, no longer among `changed`.
pub(crate) const DIFF_FORMAT: &str = "agentconf-diff/2";

#[derive(Serialize)]
struct DiffJson<'a> {
    format: &'static str,
    verdict_changed: bool,
    corpus_changed: bool,
    has_regressions: bool,
    #[serde(flatten)]
    diff: &'a Diff,
}

/// The diff as pretty-printed JSON: `format` (`agentconf-diff/2`), `verdict_changed`,
/// `corpus_changed`, `has_regressions`, then every field of [`Diff`]; each change and entry
/// carries its `cause`, and `by_cause` counts them.
pub(crate) fn diff_json(d: &Diff) -> String {
    let doc = DiffJson {
        format: DIFF_FORMAT,
        verdict_changed: d.verdict_changed(),
        corpus_changed: d.corpus_changed(),
        has_regressions: d.has_regressions(),
        diff: d,
    };
    // Only strings, numbers, booleans, options, maps with string keys and sequences:
    // serialisation cannot fail.
    let mut s = serde_json::to_string_pretty(&doc)
        .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()));
    s.push('\n');
    s
}
