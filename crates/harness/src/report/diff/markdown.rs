//! The diff as Markdown, for a pull request.

use std::fmt::Write as _;

use super::text::{
    cause_summary, counts, coverage_line, coverage_sums, goalposts_phrase, runs, verdict_line,
    COVERAGE_LISTED,
};
use super::{Change, Diff, Entry, Origin};
use crate::report::markdown::{md, md_code};
use crate::report::{clip, DRAFTS_NOTE};

/// How many rows each section other than the regressions lists before "…and N more": a pull
/// request comment has a size limit. Regressions are all listed.
pub(crate) const MARKDOWN_DIFF_LIMIT: usize = 50;

/// Markdown for a pull request: the counts, both runs' corpora, where the differences came from,
/// then one table per section with each row's cause; regressions are never cut. Strings from the
/// files are escaped and kept to one line (see [`md`]).
pub(crate) fn diff_markdown(d: &Diff) -> String {
    let mut out = String::new();
    let icon = if d.has_regressions() { "❌" } else { "✅" };
    let (regressions, others) = counts(d);
    let _ = writeln!(
        out,
        "**agentconf report diff: {}** — {}\n",
        verdict_line(d).replace("->", "→"),
        coverage_line(d).replace("->", "→")
    );
    let _ = writeln!(out, "{icon} **{regressions}** — {others}\n");
    let _ = writeln!(
        out,
        "{}\n- {}\n",
        runs(d, "- ", md_code),
        md(&cause_summary(d))
    );
    if d.corpus_changed() && d.count_origin(Origin::Corpus) > 0 {
        let _ = writeln!(
            out,
            "_Differences from the corpus are listed with their cause; a regression among them \
             is still a failure of the new run._\n"
        );
    }
    let _ = writeln!(out, "_{DRAFTS_NOTE}._");
    changes(&mut out, "Regressions", &d.regressions, usize::MAX);
    changes(&mut out, "Fixes", &d.fixes, MARKDOWN_DIFF_LIMIT);
    coverage(
        &mut out,
        "No longer counted (unsupported or skipped in the new run)",
        &d.coverage_lost,
    );
    coverage(
        &mut out,
        "Newly counted (unsupported or skipped in the old run)",
        &d.coverage_gained,
    );
    changes(&mut out, "Other changes", &d.changed, MARKDOWN_DIFF_LIMIT);
    entries(&mut out, "New vectors", "", &d.new_vectors);
    entries(
        &mut out,
        "Removed vectors",
        ", status in the old run",
        &d.removed_vectors,
    );
    out
}

fn changes(out: &mut String, title: &str, list: &[Change], limit: usize) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### {title} ({})\n\n| change | cause | case | detail |\n|---|---|---|---|",
        list.len()
    );
    for c in list.iter().take(limit) {
        let mut detail = md(&clip(&c.detail, 200));
        if let Some(g) = &c.expected {
            detail = format!("expected {}; {detail}", md(&goalposts_phrase(g, "→")));
        }
        let _ = writeln!(
            out,
            "| {} → {} | {} | {} | {detail} |",
            c.old.name(),
            c.new.name(),
            cause_cell(c.cause),
            md_code(&c.id),
        );
    }
    more(out, list.len(), limit);
}

/// Cases that left or joined what a run counts: listed when few, else summed per suite and
/// change (as the text does).
fn coverage(out: &mut String, title: &str, list: &[Change]) {
    if list.len() <= COVERAGE_LISTED {
        changes(out, title, list, MARKDOWN_DIFF_LIMIT);
        return;
    }
    let _ = writeln!(
        out,
        "\n### {title} ({})\n\n| suite | cases | change |\n|---|---|---|",
        list.len()
    );
    for (suite, arrow, n) in coverage_sums(list) {
        let _ = writeln!(
            out,
            "| `{}` | {n} | {} |",
            suite.as_str(),
            arrow.replace("->", "→")
        );
    }
}

fn entries(out: &mut String, title: &str, note: &str, list: &[Entry]) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### {title} ({}{note})\n\n| status | cause | case |\n|---|---|---|",
        list.len()
    );
    for e in list.iter().take(MARKDOWN_DIFF_LIMIT) {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            e.status.name(),
            cause_cell(e.cause),
            md_code(&e.id)
        );
    }
    more(out, list.len(), MARKDOWN_DIFF_LIMIT);
}

/// The cause, marked when it came with the corpus, so that a reader skimming the table sees
/// which rows the corpus explains.
fn cause_cell(cause: super::Cause) -> String {
    if cause.came_with_corpus() {
        format!("`{}` (from the corpus)", cause.name())
    } else {
        format!("`{}`", cause.name())
    }
}

fn more(out: &mut String, total: usize, limit: usize) {
    if total > limit {
        let _ = writeln!(
            out,
            "\n…and {} more (`agentconf report diff --format json` lists them all).",
            total - limit
        );
    }
}
