//! Markdown for pull requests.

use std::fmt::Write as _;

use super::view::View;
use super::{clip, is_bidi_control, unexpected_phrase, Level, RuleStatus, DRAFTS_NOTE};

/// How many unexpected results are listed before "…and N more".
pub const MARKDOWN_UNEXPECTED_LIMIT: usize = 50;

/// Markdown for a pull request: a one-line verdict, the totals table, the unexpected results
/// (false accepts first; the first 50), and the per-rule table folded in a `<details>` block.
/// Strings from the file are escaped (HTML entities and Markdown punctuation) and kept to one
/// line, so they can neither break a table nor inject markup.
pub fn render(view: &View) -> String {
    let h = view.header;
    let t = &view.totals;
    let mut out = String::new();
    let v = &view.verdict;
    let icon = match v.level {
        Level::Conforms => "✅",
        Level::Fail => "❌",
        Level::ConformsWithKnownFailures => "⚠️",
        Level::Partial | Level::NothingTested => "➖",
    };
    let _ = write!(
        out,
        "**agentconf: {icon} {}** — {}/{} passed",
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
    let _ = writeln!(out, " ({})\n", md_code(&h.implementation.name));

    let _ = writeln!(
        out,
        "Corpus {} · suite {} · grading {}{}{}\n",
        md_code(&h.corpus_digest),
        md_code(&h.suite_version),
        super::grading_name(h.grading),
        if h.profiles.is_empty() {
            String::new()
        } else {
            format!(" · profiles {}", md(&h.profiles.join(", ")))
        },
        if view.footer.is_none() {
            " · **the run was cut short (no footer)**"
        } else {
            ""
        }
    );
    for reason in &v.partial {
        let _ = writeln!(out, "- scope: {}", md(reason));
    }
    if !v.partial.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, "_{DRAFTS_NOTE}._\n");

    let _ = writeln!(out, "| status | vectors |\n|---|---:|");
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

    let bad = &view.unexpected;
    if !bad.is_empty() {
        let _ = writeln!(
            out,
            "\n### Unexpected results ({}), false accepts first\n",
            bad.len()
        );
        let _ = writeln!(out, "| status | vector | detail |\n|---|---|---|");
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

    let rows = &view.rules;
    let failing = rows.iter().filter(|r| r.status == RuleStatus::Fail).count();
    let _ = writeln!(
        out,
        "\n<details><summary>Per-rule table: {} rules, {failing} failing</summary>\n",
        rows.len()
    );
    for draft in &view.drafts {
        let _ = writeln!(
            out,
            "\n#### {}\n\n| section | rule | level | passed | status | rule text |\n\
             |---|---|---|---:|---|---|",
            md(&draft.draft)
        );
        for row in &rows[draft.rows()] {
            let icon = match row.status {
                RuleStatus::Pass => "✅ pass",
                RuleStatus::KnownFailure => "⚠️ known failure",
                RuleStatus::Fail => "❌ fail",
                RuleStatus::Partial => "➖ partial",
                RuleStatus::Untested => "➖ untested",
                RuleStatus::Uncredited => "➖ uncredited",
            };
            let unsupported = if row.unsupported > 0 {
                format!(" (+{} unsupported)", row.unsupported)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {}/{}{unsupported} | {icon} | {} |",
                md(&row.section),
                md_code(&row.rule),
                md(&row.level),
                row.passed,
                row.total,
                md(&row.title)
            );
        }
    }
    let _ = writeln!(out, "\n</details>");
    if !view.uncredited.is_empty() {
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
    out
}

/// `s` as inline Markdown text on one line: HTML-significant characters as entities, Markdown
/// punctuation backslash-escaped, control and bidirectional characters and line breaks as spaces.
pub(crate) fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '|' | '~' | '!' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || is_bidi_control(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
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
