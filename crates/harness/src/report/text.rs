//! The terminal summary.

use std::fmt::Write as _;

use super::{
    argv_line, clip, grading_name, per_rule, rules_without_cases_phrase, seconds, terminal_safe,
    totals, uncredited, unexpected, unexpected_phrase, verdict, DRAFTS_NOTE,
};
use crate::results::ResultsFile;

/// The terminal summary: header facts, totals (false accepts first), the unexpected results
/// (false accepts first), then the per-rule table. Every string from the file is shown with
/// control characters escaped.
pub fn text(file: &ResultsFile) -> String {
    let h = &file.header;
    let t = totals(file);
    let safe = |s: &str| terminal_safe(s);
    let mut out = String::new();
    let v = verdict(file);
    let _ = writeln!(out, "agentconf conformance report: {}", v.headline());
    for reason in &v.partial {
        let _ = writeln!(out, "  scope: {}", safe(reason));
    }
    let mut fact = |k: &str, v: String| {
        let _ = writeln!(out, "  {k:<15} {v}");
    };
    fact("implementation", safe(&h.implementation.name));
    fact("command", safe(&argv_line(&h.implementation.argv)));
    if let Some(d) = &h.implementation.executable_sha256 {
        fact("executable", format!("sha256 {}", safe(d)));
    }
    if let Some(d) = &h.implementation.declared {
        fact(
            "declared",
            format!("{} {} (its own words)", safe(&d.name), safe(&d.version)),
        );
    }
    for f in &h.implementation.files {
        fact(
            "file",
            format!("sha256 {} {}", safe(&f.sha256), safe(&f.path)),
        );
    }
    if let Some(v) = &h.implementation.interpreter_version {
        fact("interpreter", safe(v));
    }
    if let Some(d) = &h.adapter_digest {
        fact("adapter", format!("sha256 {}", safe(d)));
    }
    fact("corpus digest", safe(&h.corpus_digest));
    fact("suite version", safe(&h.suite_version));
    fact("grading", grading_name(h.grading));
    if !h.profiles.is_empty() {
        fact("profiles", safe(&h.profiles.join(", ")));
    }
    fact("started", safe(&h.started_at));
    match &file.footer {
        Some(f) => fact(
            "finished",
            format!("{} (took {})", safe(&f.finished_at), seconds(f.duration_ms)),
        ),
        None => fact(
            "finished",
            "never: the file has no footer (the run was cut short)".into(),
        ),
    }
    // A complete run writes one line per case; files from before cases count vectors.
    let announced = h.case_count.unwrap_or(h.vector_count);
    if t.vectors != announced {
        fact(
            "cases",
            format!(
                "{} of the {announced} the header announced have results",
                t.vectors
            ),
        );
    }
    let _ = writeln!(out, "  {DRAFTS_NOTE}.");

    let _ = writeln!(
        out,
        "\nTotals: {}/{} passed{}{}",
        t.passed,
        t.total,
        if t.unsupported > 0 {
            format!(" ({} unsupported, not counted)", t.unsupported)
        } else {
            String::new()
        },
        if t.unexpected > 0 {
            format!("; {} unexpected: {}", t.unexpected, unexpected_phrase(&t))
        } else {
            String::new()
        }
    );
    for (status, n) in &t.by_status {
        let mark = if status == "false-accept" && *n > 0 {
            "  <- accepted input that must be rejected".to_string()
        } else if status == "xfail" && t.listed_false_accepts > 0 {
            // Listed as expected, and still inputs that must be rejected and were accepted.
            format!(
                "  <- {} of them false accepts, accepted input that must be rejected",
                t.listed_false_accepts
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "  {status:<15} {n:>5}{mark}");
    }

    let bad = unexpected(file);
    if !bad.is_empty() {
        let _ = writeln!(
            out,
            "\nUnexpected results ({}), false accepts first:",
            bad.len()
        );
        for r in bad {
            let _ = writeln!(out, "  {:<15} {}", r.status.name(), safe(&r.id));
            if !r.detail.is_empty() {
                let _ = writeln!(out, "  {:<15} {}", "", safe(&clip(&r.detail, 300)));
            }
            let stderr = r.stderr.trim();
            if !stderr.is_empty() {
                let _ = writeln!(out, "  {:<15} stderr: {}", "", safe(&clip(stderr, 200)));
            }
        }
    }

    let rows = per_rule(file);
    let _ = writeln!(
        out,
        "\nRules ({}{}), by draft and section (a rejection counts only when its valid counterpart \
         was accepted, an acceptance only when an invalid counterpart was rejected; otherwise \
         `uncredited`):\n    {:<13} {:>7} {:<6} {:<24} rule text",
        rows.len(),
        rules_without_cases_phrase(&rows)
            .map(|p| format!("; {p}"))
            .unwrap_or_default(),
        "status",
        "passed",
        "level",
        "rule"
    );
    let (mut draft, mut section) = (None, None);
    for row in &rows {
        if draft != Some(&row.draft) {
            draft = Some(&row.draft);
            section = None;
            let _ = writeln!(out, "{}", safe(&row.draft));
        }
        if section != Some(&row.section) {
            section = Some(&row.section);
            let name = if row.section.is_empty() {
                "(unknown section)".to_string()
            } else {
                safe(&row.section)
            };
            let _ = writeln!(out, "  section {name}");
        }
        let count = format!("{}/{}", row.passed, row.total);
        let unsupported = if row.unsupported > 0 {
            format!(" (+{} unsupported, not counted)", row.unsupported)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    {:<13} {:>7} {:<6} {:<24} {}{}",
            row.status.as_str(),
            count,
            safe(&row.level),
            safe(&row.rule),
            safe(&row.title),
            unsupported
        );
    }
    let unpaired = uncredited(file);
    if !unpaired.is_empty() {
        let _ = writeln!(
            out,
            "\nUncredited passes ({}): passed, but earned no credit for their rules:",
            unpaired.len()
        );
        for u in &unpaired {
            let _ = writeln!(out, "  {}: {}", safe(&u.id), safe(&u.why));
        }
    }
    out
}
