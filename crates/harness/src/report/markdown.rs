//! Markdown for pull requests.

use std::fmt::Write as _;

use super::view::{counted, DraftGroup, Part, Sections, View};
use super::{clip, unexpected_phrase, Level, RuleStatus, DRAFTS_NOTE};

/// How many unexpected results are listed before "…and N more".
pub(crate) const MARKDOWN_UNEXPECTED_LIMIT: usize = 50;

/// Markdown for a pull request: a one-line verdict and its scope, the per-suite summary (the
/// implementation's own suites first), the unexpected results (false accepts first; the first
/// 50), the known failures with their reasons, the run's facts (folded), the totals, and the
/// per-rule table folded in a `<details>` block (the untested rules folded again). Strings from
/// the file are escaped (HTML entities and Markdown punctuation) and kept to one line, so they
/// can neither break a table nor inject markup. Green only where the verdict is not FAIL.
pub(crate) fn render(view: &View) -> String {
    let mut markdown = Markdown {
        view,
        out: String::new(),
    };
    markdown.write_all();
    markdown.out
}

/// The Markdown being written.
struct Markdown<'v, 'a> {
    view: &'v View<'a>,
    out: String,
}

impl Sections for Markdown<'_, '_> {
    fn headline(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let t = &view.totals;
        let v = &view.verdict;
        let icon = match v.level {
            Level::Conforms => "✅",
            Level::Fail => "❌",
            Level::ConformsWithKnownFailures => "⚠️",
            Level::Partial | Level::NothingTested => "➖",
        };
        let _ = write!(
            out,
            "**agentconf: {icon} {}** — {}/{} cases passed",
            v.headline(),
            t.passed,
            t.total
        );
        if t.unexpected > 0 {
            let _ = write!(out, "; {}", unexpected_phrase(t));
        }
        if t.unsupported > 0 {
            let _ = write!(out, "; {} unsupported", t.unsupported);
        }
        let _ = writeln!(
            out,
            " ({}, named by the claimant)\n",
            md_code(&view.header.implementation.name)
        );
        let _ = writeln!(out, "- scope: {}", md(&v.scope));
        for reason in &v.partial {
            let _ = writeln!(out, "- scope: {}", md(reason));
        }
        out.push('\n');
        let _ = writeln!(out, "_{DRAFTS_NOTE}._");
    }

    fn suites(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let columns = view.suite_columns();
        let (tested, _) = view.suites_tested();
        out.push_str("\n| suite |");
        for c in &columns {
            let _ = write!(out, " {} |", c.heading);
        }
        out.push_str("\n|---|");
        for _ in &columns {
            out.push_str("---:|");
        }
        out.push('\n');
        for s in tested {
            let _ = write!(out, "| {} |", md_code(s.suite.as_str()));
            for c in &columns {
                match (c.count)(s) {
                    n if n > 0 && c.alarm => {
                        let _ = write!(out, " **{n}** |");
                    }
                    n => {
                        let _ = write!(out, " {n} |");
                    }
                }
            }
            out.push('\n');
        }
        if let Some(list) = view.not_tested(md_code) {
            let _ = writeln!(
                out,
                "\nNot tested (every case unsupported, skipped or out of scope): {list}."
            );
        }
    }

    fn unexpected(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let bad = &view.unexpected;
        if bad.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\n### Unexpected results ({}), false accepts first\n",
            bad.len()
        );
        let _ = writeln!(out, "| status | case | detail |\n|---|---|---|");
        for r in bad.iter().take(MARKDOWN_UNEXPECTED_LIMIT) {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                r.status.name(),
                md_code(&r.id),
                md(&clip(&r.detail, 200))
            );
        }
        if bad.len() > MARKDOWN_UNEXPECTED_LIMIT {
            let _ = writeln!(
                out,
                "\n…and {} more.",
                bad.len() - MARKDOWN_UNEXPECTED_LIMIT
            );
        }
    }

    fn known_failures(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        if view.known_failures.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\n### Known failures ({}), listed by the adapter, each still a failure of its rules\n\n\
             | case | failed as | reason |\n|---|---|---|",
            view.known_failures.len()
        );
        for k in &view.known_failures {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                md_code(&k.id),
                k.failed_as.map_or("xfail", |s| s.name()),
                md(&clip(&k.reason, 200))
            );
        }
    }

    fn facts(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let _ = writeln!(
            out,
            "\n<details><summary>Run: the implementation, its command and the corpus</summary>\n\n\
             | | |\n|---|---|"
        );
        for f in &view.facts {
            let value: String = f
                .value
                .iter()
                .map(|p| match p {
                    Part::Text(s) => md(s),
                    Part::Code(s) => md_code(s),
                })
                .collect();
            let _ = writeln!(out, "| {} | {value} |", f.label);
        }
        let _ = writeln!(out, "\n</details>");
    }

    fn totals(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let t = &view.totals;
        let _ = writeln!(out, "\n| status | cases |\n|---|---:|");
        for (status, n) in &t.by_status {
            if status == "false-accept" && *n > 0 {
                let _ = writeln!(out, "| **{status}** | **{n}** |");
            } else {
                let _ = writeln!(out, "| {status} | {n} |");
            }
        }
        let _ = writeln!(
            out,
            "| **passed** (unsupported not counted) | **{}/{}** |",
            t.passed, t.total
        );
    }

    fn rules(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        let failing = view
            .rules
            .iter()
            .filter(|r| r.status == RuleStatus::Fail)
            .count();
        let _ = writeln!(
            out,
            "\n<details><summary>Per-rule table: {} rules, {failing} failing</summary>\n",
            view.rules.len()
        );
        rule_tables(out, view, &view.drafts);
        if !view.untested.is_empty() {
            let _ = writeln!(
                out,
                "\n<details><summary>Untested: {}, every case of theirs unsupported, \
                 skipped or out of scope</summary>\n",
                counted(view.untested_rules(), "rule")
            );
            rule_tables(out, view, &view.untested);
            let _ = writeln!(out, "\n</details>");
        }
        let _ = writeln!(out, "\n</details>");
    }

    fn uncredited(&mut self) {
        let (out, view) = (&mut self.out, self.view);
        if view.uncredited.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\n<details><summary>Uncredited passes: {} without earning credit for their \
             rules</summary>\n",
            super::passed_cases(view.uncredited.len())
        );
        for u in &view.uncredited {
            let _ = writeln!(out, "- {}: {}", md_code(&u.id), md(&u.why));
        }
        let _ = writeln!(out, "\n</details>");
    }
}

/// One table per draft, its section in words on each row.
fn rule_tables(out: &mut String, view: &View, drafts: &[DraftGroup]) {
    // ✅ is green: not on a FAIL report.
    let pass = if view.verdict.level == Level::Fail {
        "✔ pass"
    } else {
        "✅ pass"
    };
    for draft in drafts {
        let _ = writeln!(
            out,
            "\n#### {}\n\n| section | rule | level | passed | status | rule text |\n\
             |---|---|---|---:|---|---|",
            md(&draft.draft)
        );
        for section in &draft.sections {
            for row in section.rows.iter().map(|i| &view.rules[*i]) {
                let icon = match row.status {
                    RuleStatus::Pass => pass,
                    RuleStatus::KnownFailure => "⚠️ known failure",
                    RuleStatus::Fail => "❌ fail",
                    RuleStatus::Partial => "➖ partial",
                    RuleStatus::Untested => "➖ untested",
                    RuleStatus::OutOfScope => "➖ out of scope",
                    RuleStatus::Uncredited => "➖ uncredited",
                };
                let unsupported = (row.unsupported_note())
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {}/{}{unsupported} | {icon} | {} |",
                    md(&section.heading),
                    md_code(&row.rule),
                    md(&row.level),
                    row.passed,
                    row.total,
                    md(&row.title)
                );
            }
        }
    }
}

/// `s` as inline Markdown text on one line: the workspace's one Markdown rule
/// ([`agentconf_json::text::markdown_text`]).
pub(crate) fn md(s: &str) -> String {
    agentconf_json::text::markdown_text(s)
}

/// `s` as a code span when it is made only of harmless characters (ids, digests), else as
/// escaped text.
pub(crate) fn md_code(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._:+-".contains(c))
    {
        format!("`{s}`")
    } else {
        md(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escaping() {
        assert_eq!(
            md("a|b <script>\n`x` *y* [l](u)"),
            "a\\|b &lt;script&gt; \\`x\\` \\*y\\* \\[l\\]\\(u\\)"
        );
        assert_eq!(md_code("aer1/timeline/x-1"), "`aer1/timeline/x-1`");
        assert_eq!(md_code("a`b"), "a\\`b");
    }
}
