//! What the text, Markdown and changelog renderings of a [`CorpusDiff`] share: how a grade, a
//! change of grades, a group of revision changes and a folded list of ids are written.
//!
//! Every rendering opens with the two digests and counts. A vector whose expectation moved gets
//! a line of its own (that is what an implementer needs); revision changes are summarised per
//! group of revisions gained and lost, because a new draft revision touches most vectors at once;
//! long lists of names are folded per family. Every string from a corpus directory is untrusted:
//! control characters are escaped, and Markdown code spans cannot be closed early.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{CorpusDiff, Grade, GradeChange, RevisionChangeGroup};

/// Groups of revision changes at most this large also list their ids in text and Markdown.
pub(super) const LIST_IDS_UP_TO: usize = 10;

impl CorpusDiff {
    /// `N added, N retired, N expectations changed, N revisions changed, N content changed`.
    pub fn counts_line(&self) -> String {
        let c = &self.counts;
        format!(
            "{} added, {} retired, {} expectations changed, {} revisions changed, {} content changed",
            c.added, c.retired, c.expectations_changed, c.revisions_changed, c.content_changed
        )
    }
}

/// The content changes whose exercised rules changed, grouped by the change (a rule renamed
/// touches whole families the same way), keyed by its rendering.
pub(super) fn exercised_rule_changes<'a>(
    d: &'a CorpusDiff,
    style: &Style,
) -> BTreeMap<String, Vec<&'a str>> {
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for c in &d.content_changes {
        if !c.rules_added.is_empty() || !c.rules_removed.is_empty() {
            let delta = rule_delta(&c.rules_added, &c.rules_removed, style);
            groups.entry(delta).or_default().push(&c.id);
        }
    }
    groups
}

/// How names are written: plain (escaped) in text, as code spans in Markdown.
pub(super) struct Style {
    pub name: fn(&str) -> String,
    pub arrow: &'static str,
    pub markdown: bool,
}

pub(super) const TEXT: Style = Style {
    name: safe,
    arrow: "->",
    markdown: false,
};

pub(super) const MARKDOWN: Style = Style {
    name: code,
    arrow: "→",
    markdown: true,
};

/// `s` with control characters escaped (`\u{1b}`), so a hostile name cannot drive a terminal or
/// break a line.
pub(super) fn safe(s: &str) -> String {
    agentconf_json::text::terminal_safe(s)
}

/// `s` as a Markdown code span: the workspace's one rule
/// ([`agentconf_json::text::markdown_code`]).
pub(super) fn code(s: &str) -> String {
    agentconf_json::text::markdown_code(s)
}

/// A Markdown table cell: a `|` would end it.
pub(super) fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// `invalid (AER1-TL-LINK, AER1-TL-SEQ)`, or `valid`.
pub(super) fn grade(g: &Grade, style: &Style) -> String {
    // An expectation is one word; in Markdown, characters that would start markup are dropped.
    let name = if style.markdown {
        safe(&g.expectation).replace(['`', '*', '_', '<', '[', '\\'], "")
    } else {
        safe(&g.expectation)
    };
    if g.expected_rules.is_empty() {
        return name;
    }
    let rules: Vec<String> = g.expected_rules.iter().map(|r| (style.name)(r)).collect();
    format!("{name} ({})", rules.join(", "))
}

/// Every revision's grade, revisions with the same grade together: `06, 07: valid; 09: invalid
/// (AER1-TL-LINK)`.
pub(super) fn grades(by_revision: &BTreeMap<String, Grade>, style: &Style) -> String {
    let mut groups: Vec<(&Grade, Vec<&str>)> = Vec::new();
    for (revision, g) in by_revision {
        match groups.iter_mut().find(|(x, _)| *x == g) {
            Some((_, revisions)) => revisions.push(revision),
            None => groups.push((g, vec![revision])),
        }
    }
    if groups.is_empty() {
        return "no revisions".to_string();
    }
    groups
        .iter()
        .map(|(g, revisions)| format!("{}: {}", safe(&revisions.join(", ")), grade(g, style)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A vector's changed revisions, those with the same before and after together.
pub(super) fn grouped_changes(changes: &[GradeChange]) -> Vec<(String, &GradeChange)> {
    let mut groups: Vec<(Vec<&str>, &GradeChange)> = Vec::new();
    for c in changes {
        match groups
            .iter_mut()
            .find(|(_, x)| x.before == c.before && x.after == c.after)
        {
            Some((revisions, _)) => revisions.push(&c.revision),
            None => groups.push((vec![&c.revision], c)),
        }
    }
    groups
        .into_iter()
        .map(|(revisions, c)| (safe(&revisions.join(", ")), c))
        .collect()
}

/// ` [+A -B]` (empty when nothing was added or removed).
pub(super) fn rule_delta(added: &[String], removed: &[String], style: &Style) -> String {
    let parts: Vec<String> = added
        .iter()
        .map(|r| format!("+{}", (style.name)(r)))
        .chain(removed.iter().map(|r| format!("-{}", (style.name)(r))))
        .collect();
    if parts.is_empty() {
        String::new()
    } else if style.markdown {
        format!(" {}", parts.join(" "))
    } else {
        format!(" [{}]", parts.join(" "))
    }
}

pub(super) fn revision_list(revisions: &[String]) -> String {
    if revisions.is_empty() {
        "–".to_string()
    } else {
        // Revision names are short words (`09`, `06`); anything else (from a corpus directory on
        // disk) is shown escaped, safe in text and in Markdown alike.
        let words: Vec<String> = revisions
            .iter()
            .map(|r| {
                r.chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || "._-".contains(c) {
                            c.to_string()
                        } else {
                            c.escape_unicode().to_string()
                        }
                    })
                    .collect()
            })
            .collect();
        words.join(", ")
    }
}

/// `gained 10`, `lost 06`, or `gained 10; lost 06`.
pub(super) fn group_label(g: &RevisionChangeGroup) -> String {
    let mut parts = Vec::new();
    if !g.gained.is_empty() {
        parts.push(format!("gained {}", revision_list(&g.gained)));
    }
    if !g.lost.is_empty() {
        parts.push(format!("lost {}", revision_list(&g.lost)));
    }
    parts.join("; ")
}

/// `gained 10: 500 vectors (500 grades added: invalid 300, valid 200)`. A grade is one vector
/// under one revision, not a case: a timeline case runs under its construction's newest revision.
pub(super) fn group_line(g: &RevisionChangeGroup) -> String {
    let mut line = format!(
        "{}: {} vector{}",
        group_label(g),
        g.count,
        if g.count == 1 { "" } else { "s" }
    );
    if !g.gained_expectations.is_empty() {
        let _ = write!(
            line,
            " ({} grades added: {})",
            g.gained_expectations.values().sum::<usize>(),
            expectation_counts(&g.gained_expectations)
        );
    }
    line
}

pub(super) fn expectation_counts(counts: &BTreeMap<String, usize>) -> String {
    counts
        .iter()
        .map(|(e, n)| format!("{} {n}", safe(e)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `aer1/timeline/valid 20, grp/admission/admission 3`.
pub(super) fn family_counts(by_family: &BTreeMap<String, usize>, style: &Style) -> String {
    by_family
        .iter()
        .map(|(f, n)| format!("{} {n}", (style.name)(f)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Ids folded per family, one line each: `aer1/timeline/valid (2): a, b`; each id is the family
/// and one of its names.
pub(super) fn folded<'a>(ids: impl Iterator<Item = &'a str>, style: &Style) -> Vec<String> {
    let mut families: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for id in ids {
        let (family, name) = id.rsplit_once('/').unwrap_or(("", id));
        families.entry(family).or_default().push(name);
    }
    families
        .into_iter()
        .map(|(family, names)| {
            let names: Vec<String> = names.iter().map(|n| (style.name)(n)).collect();
            format!(
                "{} ({}): {}",
                (style.name)(family),
                names.len(),
                names.join(", ")
            )
        })
        .collect()
}
