//! The terminal summary.

use std::fmt::Write as _;

use super::view::{counted, Sections, View};
use super::{clip, terminal_safe, unexpected_phrase, DRAFTS_NOTE};

/// How wide the folded list of untested rules may run, and how far it is indented.
const WIDTH: usize = 100;
const INDENT: usize = 4;

/// The terminal summary: the verdict and its scope, the per-suite summary (the implementation's
/// own suites first), the unexpected results and the known failures with their reasons, the
/// header's facts, the totals (false accepts first), then the per-rule table with the untested
/// rules folded last. Every string from the file is shown with control characters escaped.
pub(crate) fn render(view: &View) -> String {
    let mut text = Text {
        view,
        out: String::new(),
    };
    text.write_all();
    text.out
}

/// The terminal summary being written.
struct Text<'v, 'a> {
    view: &'v View<'a>,
    out: String,
}

impl Sections for Text<'_, '_> {
    fn headline(&mut self) {
        let v = &self.view.verdict;
        let _ = writeln!(self.out, "agentconf conformance report: {}", v.headline());
        let _ = writeln!(self.out, "  scope: {}", terminal_safe(&v.scope));
        for reason in &v.partial {
            let _ = writeln!(self.out, "  scope: {}", terminal_safe(reason));
        }
    }

    fn suites(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let columns = view.suite_columns();
        let (tested, _) = view.suites_tested();
        let _ = write!(
            out,
            "\nSuites, the implementation's own first (in cases):\n    {:<22}",
            "suite"
        );
        for c in &columns {
            let _ = write!(out, "  {:>w$}", c.heading, w = c.heading.len().max(5));
        }
        out.push('\n');
        for s in tested {
            let _ = write!(out, "    {:<22}", s.suite.as_str());
            for c in &columns {
                let _ = write!(out, "  {:>w$}", (c.count)(s), w = c.heading.len().max(5));
            }
            out.push('\n');
        }
        if let Some(list) = view.not_tested(str::to_string) {
            let _ = writeln!(
                out,
                "  not tested (every case unsupported, skipped or out of scope): {list}"
            );
        }
    }

    fn unexpected(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        if view.unexpected.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\nUnexpected results ({}), false accepts first:",
            view.unexpected.len()
        );
        for r in &view.unexpected {
            let _ = writeln!(out, "  {:<15} {}", r.status.name(), terminal_safe(&r.id));
            if !r.detail.is_empty() {
                let _ = writeln!(out, "  {:<15} {}", "", terminal_safe(&clip(&r.detail, 300)));
            }
            let stderr = r.stderr.trim();
            if !stderr.is_empty() {
                let _ = writeln!(
                    out,
                    "  {:<15} stderr: {}",
                    "",
                    terminal_safe(&clip(stderr, 200))
                );
            }
        }
    }

    fn known_failures(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        if view.known_failures.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\nKnown failures ({}), listed by the adapter, each still a failure of its rules:",
            view.known_failures.len()
        );
        for k in &view.known_failures {
            let how = k.failed_as.map_or("xfail", |s| s.name());
            let _ = writeln!(out, "  {how:<15} {}", terminal_safe(&k.id));
            let _ = writeln!(out, "  {:<15} reason: {}", "", terminal_safe(&k.reason));
        }
    }

    fn facts(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let _ = writeln!(out, "\nRun:");
        for f in &view.facts {
            let value: String = f.value.iter().map(|p| terminal_safe(p.as_str())).collect();
            let _ = writeln!(out, "  {:<15} {value}", f.label);
        }
        let _ = writeln!(out, "  {DRAFTS_NOTE}.");
    }

    fn totals(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let t = &view.totals;
        let _ = writeln!(
            out,
            "\nTotals: {}/{} cases passed{}{}",
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
    }

    fn rules(&mut self) {
        let (out, view) = (&mut self.out, self.view);
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
            let _ = writeln!(out, "{}", terminal_safe(&draft.draft));
            for section in &draft.sections {
                let _ = writeln!(out, "  {}", terminal_safe(&section.heading));
                for row in section.rows.iter().map(|i| &view.rules[*i]) {
                    let unsupported = (row.unsupported_note())
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "    {:<13} {:>7} {:<6} {:<24} {}{}",
                        row.status.as_str(),
                        format!("{}/{}", row.passed, row.total),
                        terminal_safe(&row.level),
                        terminal_safe(&row.rule),
                        terminal_safe(&row.title),
                        unsupported
                    );
                }
            }
        }
        untested_rules(out, view);
    }

    fn uncredited(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        if view.uncredited.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\nUncredited passes ({}): passed, but earned no credit for their rules:",
            view.uncredited.len()
        );
        for u in &view.uncredited {
            let _ = writeln!(out, "  {}: {}", terminal_safe(&u.id), terminal_safe(&u.why));
        }
    }
}

/// The rules no case of which ran, folded: each draft's ids, a few to a line.
fn untested_rules(out: &mut String, view: &View) {
    if view.untested.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "Untested ({}: every case of theirs was unsupported, skipped or out of scope):",
        counted(view.untested_rules(), "rule")
    );
    for draft in &view.untested {
        let _ = writeln!(out, "  {}", terminal_safe(&draft.draft));
        let mut line = String::new();
        for id in draft.rows().map(|i| terminal_safe(&view.rules[i].rule)) {
            if !line.is_empty() && INDENT + line.len() + 1 + id.len() > WIDTH {
                let _ = writeln!(out, "{:INDENT$}{line}", "");
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&id);
        }
        let _ = writeln!(out, "{:INDENT$}{line}", "");
    }
}
