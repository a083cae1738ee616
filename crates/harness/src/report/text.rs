//! The terminal summary.

use std::fmt::Write as _;

use super::view::{Fact, View};
use super::{clip, seconds, terminal_safe, unexpected_phrase, DRAFTS_NOTE};

/// The terminal summary: header facts, totals (false accepts first), the unexpected results
/// (false accepts first), then the per-rule table. Every string from the file is shown with
/// control characters escaped.
pub fn render(view: &View) -> String {
    let safe = |s: &str| terminal_safe(s);
    let mut out = String::new();
    let v = &view.verdict;
    let _ = writeln!(out, "agentconf conformance report: {}", v.headline());
    for reason in &v.partial {
        let _ = writeln!(out, "  scope: {}", safe(reason));
    }
    for fact in &view.facts {
        let (k, v) = match fact {
            Fact::Implementation(name) => ("implementation", safe(name)),
            Fact::Command(argv) => ("command", safe(argv)),
            Fact::Executable(d) => ("executable", format!("sha256 {}", safe(d))),
            Fact::Declared { name, version } => (
                "declared",
                format!("{} {} (its own words)", safe(name), safe(version)),
            ),
            Fact::File { sha256, path } => {
                ("file", format!("sha256 {} {}", safe(sha256), safe(path)))
            }
            Fact::Interpreter(v) => ("interpreter", safe(v)),
            Fact::Adapter(d) => ("adapter", format!("sha256 {}", safe(d))),
            Fact::CorpusDigest(d) => ("corpus digest", safe(d)),
            Fact::SuiteVersion(s) => ("suite version", safe(s)),
            Fact::Grading(g) => ("grading", g.clone()),
            Fact::Profiles([]) => continue,
            Fact::Profiles(p) => ("profiles", safe(&p.join(", "))),
            Fact::Started(at) => ("started", safe(at)),
            Fact::Finished(Some((at, ms))) => {
                ("finished", format!("{} (took {})", safe(at), seconds(*ms)))
            }
            Fact::Finished(None) => (
                "finished",
                "never: the file has no footer (the run was cut short)".into(),
            ),
            Fact::Cases { results, announced } => (
                "cases",
                format!("{results} of the {announced} the header announced have results"),
            ),
        };
        let _ = writeln!(out, "  {k:<15} {v}");
    }
    let _ = writeln!(out, "  {DRAFTS_NOTE}.");

    let t = &view.totals;
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
            format!("; {} unexpected: {}", t.unexpected, unexpected_phrase(t))
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

    if !view.unexpected.is_empty() {
        let _ = writeln!(
            out,
            "\nUnexpected results ({}), false accepts first:",
            view.unexpected.len()
        );
        for r in &view.unexpected {
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

    let _ = writeln!(
        out,
        "\nRules ({}{}), by draft and section (a rejection counts only when its valid counterpart \
         was accepted, an acceptance only when an invalid counterpart was rejected; otherwise \
         `uncredited`):\n    {:<13} {:>7} {:<6} {:<24} rule text",
        view.rules.len(),
        view.rules_without_cases
            .as_ref()
            .map(|p| format!("; {p}"))
            .unwrap_or_default(),
        "status",
        "passed",
        "level",
        "rule"
    );
    for draft in &view.drafts {
        let _ = writeln!(out, "{}", safe(&draft.draft));
        for (section, rows) in &draft.sections {
            let name = if section.is_empty() {
                "(unknown section)".to_string()
            } else {
                safe(section)
            };
            let _ = writeln!(out, "  section {name}");
            for row in &view.rules[rows.clone()] {
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
        }
    }
    if !view.uncredited.is_empty() {
        let _ = writeln!(
            out,
            "\nUncredited passes ({}): passed, but earned no credit for their rules:",
            view.uncredited.len()
        );
        for u in &view.uncredited {
            let _ = writeln!(out, "  {}: {}", safe(&u.id), safe(&u.why));
        }
    }
    out
}
