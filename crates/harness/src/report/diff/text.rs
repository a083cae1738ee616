//! The diff for a terminal.

use std::fmt::Write as _;

use super::cause::expectation_name;
use agentconf_contract::vector::Suite;

use super::{Cause, Change, Diff, Entry, Expected, Goalposts, Origin};
use crate::report::{clip, terminal_safe};

/// The diff for a terminal: the verdict change and the coverage change first (what a reader
/// needs before any case), then the counts, which corpus each run used and how many differences
/// came from the corpus and how many from the implementation; then regressions (false accepts
/// first), fixes, the cases no longer counted and newly counted (summed per suite when there are
/// many), other changes, new and removed cases, each line with its cause. When the corpora
/// differ, each section is grouped by origin, the implementation's first.
pub(crate) fn diff_text(d: &Diff) -> String {
    let mut out = String::new();
    let (regressions, others) = counts(d);
    let _ = writeln!(out, "agentconf report diff: {}", verdict_line(d));
    let _ = writeln!(out, "  {}", coverage_line(d));
    let _ = writeln!(out, "  {regressions}, {others}");
    let _ = writeln!(out, "{}", runs(d, "  ", terminal_safe));
    let _ = writeln!(out, "  {}", terminal_safe(&cause_summary(d)));
    let grouped = d.corpus_changed();
    changes(&mut out, "REGRESSIONS", &d.regressions, grouped, true);
    changes(&mut out, "Fixes", &d.fixes, grouped, false);
    coverage(
        &mut out,
        "No longer counted (counted in the old run, unsupported or skipped in the new)",
        &d.coverage_lost,
        grouped,
    );
    coverage(
        &mut out,
        "Newly counted (unsupported or skipped in the old run)",
        &d.coverage_gained,
        grouped,
    );
    changes(&mut out, "Other changes", &d.changed, grouped, false);
    entries(&mut out, "New vectors", "", &d.new_vectors, grouped);
    entries(
        &mut out,
        "Removed vectors",
        ", status in the old run",
        &d.removed_vectors,
        grouped,
    );
    out
}

/// The verdicts: `CONFORMS -> PARTIAL`, or `PARTIAL in both runs`. Plain text (verdicts are the
/// harness's own words).
pub(crate) fn verdict_line(d: &Diff) -> String {
    if d.verdict_changed() {
        format!("verdict {} -> {}", d.old_verdict, d.new_verdict)
    } else {
        format!("verdict {} in both runs", d.new_verdict)
    }
}

/// What each run counted: `coverage: 663 -> 222 cases counted; suites no longer counted:
/// aer1-receipt, …`, or that it is the same.
pub(crate) fn coverage_line(d: &Diff) -> String {
    let (old, new) = (&d.old_coverage, &d.new_coverage);
    let names = |suites: Vec<&Suite>| {
        suites
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut line = if old.counted == new.counted {
        format!("coverage: {} cases counted in both runs", new.counted)
    } else {
        format!("coverage: {} -> {} cases counted", old.counted, new.counted)
    };
    let lost: Vec<&Suite> = old
        .suites
        .iter()
        .filter(|s| !new.suites.contains(s))
        .collect();
    let gained: Vec<&Suite> = new
        .suites
        .iter()
        .filter(|s| !old.suites.contains(s))
        .collect();
    if !lost.is_empty() {
        let _ = write!(line, "; suites no longer counted: {}", names(lost));
    }
    if !gained.is_empty() {
        let _ = write!(line, "; suites newly counted: {}", names(gained));
    }
    line
}

/// The counts a diff opens with, in two parts: the regressions ("2 regressions"), then the rest
/// ("1 fix, 441 no longer counted, 0 other changes, 3 new, 0 removed, 40 unchanged"; the
/// coverage counts only when there are any); Markdown sets the first in bold.
pub(crate) fn counts(d: &Diff) -> (String, String) {
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let regressions = count(d.regressions.len(), "regression", "regressions");
    let mut others = vec![count(d.fixes.len(), "fix", "fixes")];
    if !d.coverage_lost.is_empty() {
        others.push(format!("{} no longer counted", d.coverage_lost.len()));
    }
    if !d.coverage_gained.is_empty() {
        others.push(format!("{} newly counted", d.coverage_gained.len()));
    }
    others.push(count(d.changed.len(), "other change", "other changes"));
    others.push(format!(
        "{} new, {} removed, {} unchanged",
        d.new_vectors.len(),
        d.removed_vectors.len(),
        d.unchanged
    ));
    (regressions, others.join(", "))
}

/// Above this many, the cases that left or joined what a run counts are summed per suite and
/// change instead of listed (`--format json` lists them all): a suite the implementation stopped
/// claiming is one fact, not hundreds.
pub(crate) const COVERAGE_LISTED: usize = 20;

/// The cases of `list` summed per suite and change of status, in corpus order: (suite, `pass ->
/// unsupported`, count).
pub(crate) fn coverage_sums(list: &[Change]) -> Vec<(Suite, String, usize)> {
    let mut sums: Vec<(Suite, String, usize)> = Vec::new();
    for c in list {
        let suite = c.suite;
        let arrow = format!("{} -> {}", c.old.name(), c.new.name());
        match sums.iter_mut().find(|(s, a, _)| *s == suite && *a == arrow) {
            Some((_, _, n)) => *n += 1,
            None => sums.push((suite, arrow, 1)),
        }
    }
    sums.sort_by_key(|(s, a, _)| (Suite::ALL.iter().position(|x| x == s), a.clone()));
    sums
}

fn coverage(out: &mut String, title: &str, list: &[Change], grouped: bool) {
    if list.len() <= COVERAGE_LISTED {
        changes(out, title, list, grouped, false);
        return;
    }
    let _ = writeln!(out, "\n{title} ({}, by suite):", list.len());
    for (suite, arrow, n) in coverage_sums(list) {
        let _ = writeln!(out, "  {:<22} {n:>5}  {arrow}", suite.as_str());
    }
}

/// Which implementation ran on which corpus: an `old: …` and a `new: …` line (no final newline),
/// each starting with `bullet`, every string from the files passed through `escape`.
pub(crate) fn runs(d: &Diff, bullet: &str, escape: impl Fn(&str) -> String) -> String {
    let mut out = format!(
        "{bullet}old: {} on corpus {}\n{bullet}new: {} on corpus {}",
        escape(&d.old_implementation),
        escape(&d.old_corpus_digest),
        escape(&d.new_implementation),
        escape(&d.new_corpus_digest)
    );
    if d.old_suite_version != d.new_suite_version {
        out.push_str(&format!(
            "\n{bullet}graded by agentconf {} and {}: a grading change between them also moves \
             statuses, and is counted here as the implementation's",
            escape(&d.old_suite_version),
            escape(&d.new_suite_version)
        ));
    }
    out
}

/// One line on where the differences came from: "across corpus A → B: N differences from the
/// corpus (M expectation, K content, …), P from the implementation", or for one corpus, that
/// they came from the implementation (or from what each run selected). A zero is said only where
/// it is known: without manifests, nothing is known to come from the implementation. Plain
/// text; callers escape.
pub(crate) fn cause_summary(d: &Diff) -> String {
    let n = |c: Cause| d.count(c);
    let known = d.corpora_known || !d.corpus_changed();
    let mut parts: Vec<(usize, String)> = Vec::new();
    if d.corpus_changed() {
        let detail: Vec<String> = [
            (Cause::Expectation, "expectation"),
            (Cause::VectorContent, "content"),
            (Cause::VectorAdded, "added"),
            (Cause::VectorRetired, "retired"),
        ]
        .iter()
        .filter(|(c, _)| n(*c) > 0)
        .map(|(c, word)| format!("{} {word}", n(*c)))
        .collect();
        let corpus = d.count_origin(Origin::Corpus);
        if corpus > 0 || known {
            let detail = if detail.is_empty() {
                String::new()
            } else {
                format!(" ({})", detail.join(", "))
            };
            parts.push((corpus, format!("from the corpus{detail}")));
        }
    }
    if n(Cause::Implementation) > 0 || known {
        parts.push((n(Cause::Implementation), "from the implementation".into()));
    }
    if n(Cause::NotRun) > 0 {
        parts.push((n(Cause::NotRun), "not run by the other run".into()));
    }
    if n(Cause::CorpusUnknown) > 0 {
        parts.push((
            n(Cause::CorpusUnknown),
            "of unknown cause (without both corpora's manifests a changed vector cannot be told \
             from a changed implementation)"
                .into(),
        ));
    }
    // "N differences …" first, then "P …": the noun once.
    let said: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(i, (count, what))| match i {
            0 => format!("{} {what}", differences(*count)),
            _ => format!("{count} {what}"),
        })
        .collect();
    let said = if said.is_empty() {
        "no differences".to_string()
    } else {
        said.join(", ")
    };
    if d.corpus_changed() {
        format!(
            "across corpus {} → {}: {said}",
            short(&d.old_corpus_digest),
            short(&d.new_corpus_digest),
        )
    } else {
        format!("same corpus: {said}")
    }
}

/// What a group of differences of one origin is, after its count in a heading.
pub(crate) fn origin_heading(origin: Origin) -> &'static str {
    match origin {
        Origin::Implementation => "from the implementation",
        Origin::Corpus => "from the corpus (the case's vector or expectation changed)",
        Origin::Selection => "not run by the other run (filtered or cut short)",
        Origin::Unknown => {
            "of unknown cause (the corpora differ and their manifests were not given)"
        }
    }
}

/// How the goalposts moved, e.g. `valid -> invalid [AER1-X]`, with ` (revision 06 -> 09)` when
/// the revision changed too. `arrow` is `->` for a terminal, `→` for Markdown. Plain text;
/// callers escape.
pub(crate) fn goalposts_phrase(g: &Goalposts, arrow: &str) -> String {
    let side = |e: &Expected| {
        let mut s = expectation_name(e.expectation).to_string();
        if !e.expected_rules.is_empty() {
            let _ = write!(s, " [{}]", crate::results::joined(&e.expected_rules, ", "));
        }
        s
    };
    let mut s = format!("{} {arrow} {}", side(&g.old), side(&g.new));
    if g.old.revision != g.new.revision {
        let name = |r: &Option<String>| r.clone().unwrap_or_else(|| "unrecorded".into());
        let _ = write!(
            s,
            " (revision {} {arrow} {})",
            name(&g.old.revision),
            name(&g.new.revision)
        );
    }
    s
}

/// A digest's first 12 characters: enough to tell two corpora apart on one line (both are
/// printed in full above it).
fn short(digest: &str) -> String {
    match digest.char_indices().nth(12) {
        Some((i, _)) => format!("{}…", &digest[..i]),
        None => digest.to_string(),
    }
}

fn differences(n: usize) -> String {
    format!("{n} difference{}", if n == 1 { "" } else { "s" })
}

/// The lines of `list` grouped by origin when `grouped` (a heading before each group),
/// indented under it.
fn groups<T>(
    list: &[T],
    origin: impl Fn(&T) -> Origin,
    grouped: bool,
) -> Vec<(Option<Origin>, &[T])> {
    if !grouped {
        return vec![(None, list)];
    }
    list.chunk_by(|a, b| origin(a) == origin(b))
        .map(|chunk| (Some(origin(&chunk[0])), chunk))
        .collect()
}

fn changes(out: &mut String, title: &str, list: &[Change], grouped: bool, failures: bool) {
    if list.is_empty() {
        return;
    }
    let safe = |s: &str| terminal_safe(s);
    let _ = writeln!(out, "\n{title} ({}):", list.len());
    for (origin, group) in groups(list, |c| c.cause.origin(), grouped) {
        let indent = heading(out, origin, group.len(), failures);
        for c in group {
            let arrow = format!("{} -> {}", c.old.name(), c.new.name());
            let _ = writeln!(
                out,
                "{indent}{arrow:<30} {:<15} {}",
                c.cause.name(),
                safe(&c.id)
            );
            let pad = format!("{indent}{:<46} ", "");
            if let Some(g) = &c.expected {
                let _ = writeln!(out, "{pad}expected: {}", safe(&goalposts_phrase(g, "->")));
            }
            if !c.detail.is_empty() {
                let _ = writeln!(out, "{pad}{}", safe(&clip(&c.detail, 200)));
            }
        }
    }
}

fn entries(out: &mut String, title: &str, note: &str, list: &[Entry], grouped: bool) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title} ({}{note}):", list.len());
    for (origin, group) in groups(list, |e| e.cause.origin(), grouped) {
        let indent = heading(out, origin, group.len(), false);
        for e in group {
            let _ = writeln!(
                out,
                "{indent}{:<15} {:<15} {}",
                e.status.name(),
                e.cause.name(),
                terminal_safe(&e.id)
            );
        }
    }
}

/// Writes a group's heading (when grouped) and returns the indent of its lines. Regressions
/// that came with the corpus are said to be failures still: the corpus explains them, it does
/// not excuse them.
fn heading(out: &mut String, origin: Option<Origin>, n: usize, failures: bool) -> &'static str {
    let Some(o) = origin else {
        return "  ";
    };
    let still = match (failures && o == Origin::Corpus, n) {
        (false, _) => "",
        (true, 1) => ", still a failure of the new run",
        (true, _) => ", still failures of the new run",
    };
    let _ = writeln!(out, "  {n} {}{still}:", origin_heading(o));
    "    "
}
