//! [`CorpusDiff::to_markdown`]: the diff as Markdown, for release notes.

use std::fmt::Write as _;

use super::render::{
    cell, code, exercised_rule_changes, expectation_counts, family_counts, folded, grade, grades,
    group_label, grouped_changes, revision_list, rule_delta, LIST_IDS_UP_TO, MARKDOWN,
};
use super::{CorpusDiff, RevisionChangeGroup, Tally};

impl CorpusDiff {
    /// The diff as Markdown, for release notes: a `##` heading, the digests, then `###` sections.
    pub fn to_markdown(&self) -> String {
        let mut out =
            String::from("## Corpus changes\n\n| | corpus digest | vectors |\n|---|---|---|\n");
        for (label, side) in [("old", &self.old), ("new", &self.new)] {
            let _ = writeln!(
                out,
                "| {label} | {} | {} |",
                cell(&code(&side.digest)),
                side.vector_count
            );
        }
        if self.is_empty() {
            out.push_str("\nNo differences.\n");
            return out;
        }
        let _ = write!(out, "\n{}.\n", self.counts_line());
        if !self.added.is_empty() {
            let _ = write!(
                out,
                "\n### Added ({})\n\n| vector | grades |\n|---|---|\n",
                self.added.len()
            );
            for v in &self.added {
                let _ = writeln!(
                    out,
                    "| {} | {} |",
                    cell(&code(&v.id)),
                    cell(&grades(&v.by_revision, &MARKDOWN))
                );
            }
        }
        if !self.retired.is_empty() {
            let _ = write!(
                out,
                "\n### Retired ({})\n\n| vector | grades | replaced by |\n|---|---|---|\n",
                self.retired.len()
            );
            for v in &self.retired {
                // Prose from the corpus's own table of retired ids ("X and Y", "case X@09"), not
                // one name: plain text, not a code span.
                let now = v
                    .replaced_by
                    .as_deref()
                    .map(agentconf_json::text::markdown_text)
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    cell(&code(&v.id)),
                    cell(&grades(&v.by_revision, &MARKDOWN)),
                    cell(&now)
                );
            }
        }
        if !self.expectation_changes.is_empty() {
            let _ = write!(
                out,
                "\n### Expectations changed ({})\n\n\
                 | vector | revisions | before | after | expected rules |\n|---|---|---|---|---|\n",
                self.expectation_changes.len()
            );
            for c in &self.expectation_changes {
                for (revisions, change) in grouped_changes(&c.revisions) {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} | {} |",
                        cell(&code(&c.id)),
                        cell(&revisions),
                        cell(&grade(&change.before, &MARKDOWN)),
                        cell(&grade(&change.after, &MARKDOWN)),
                        cell(
                            rule_delta(&change.rules_added, &change.rules_removed, &MARKDOWN)
                                .trim()
                        )
                    );
                }
            }
        }
        if !self.revision_changes.is_empty() {
            let _ = write!(
                out,
                "\n### Revisions changed ({} vectors)\n\n\
                 | gained | lost | vectors | grades added, by expectation | families |\n\
                 |---|---|---|---|---|\n",
                self.counts.revisions_changed
            );
            for g in &self.revision_changes {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    cell(&revision_list(&g.gained)),
                    cell(&revision_list(&g.lost)),
                    g.count,
                    cell(&expectation_counts(&g.gained_expectations)),
                    cell(&family_counts(&g.by_family, &MARKDOWN))
                );
            }
            let small: Vec<&RevisionChangeGroup> = self
                .revision_changes
                .iter()
                .filter(|g| g.ids.len() <= LIST_IDS_UP_TO)
                .collect();
            if !small.is_empty() {
                out.push('\n');
            }
            for g in small {
                let ids: Vec<String> = g.ids.iter().map(|id| code(id)).collect();
                let _ = writeln!(out, "- {}: {}", group_label(g), ids.join(", "));
            }
        }
        if !self.content_changes.is_empty() {
            let _ = write!(
                out,
                "\n### Content changed besides the grades ({})\n\n",
                self.content_changes.len()
            );
            for line in folded(
                self.content_changes.iter().map(|c| c.id.as_str()),
                &MARKDOWN,
            ) {
                let _ = writeln!(out, "- {line}");
            }
            for (delta, ids) in exercised_rule_changes(self, &MARKDOWN) {
                let _ = writeln!(out, "- exercised rules{delta} ({}):", ids.len());
                for line in folded(ids.into_iter(), &MARKDOWN) {
                    let _ = writeln!(out, "  - {line}");
                }
            }
        }
        for (title, key, tallies) in [
            ("By family", "family", &self.by_family),
            ("By rule", "rule", &self.by_rule),
        ] {
            let _ = write!(
                out,
                "\n### {title}\n\n| {key} | added | retired | expectation changed | revisions changed | content changed |\n\
                 |---|---|---|---|---|---|\n"
            );
            for (name, t) in tallies {
                let _ = writeln!(out, "| {} | {} |", cell(&code(name)), tally_cells(t));
            }
        }
        out
    }
}

fn tally_cells(t: &Tally) -> String {
    format!(
        "{} | {} | {} | {} | {}",
        t.added, t.retired, t.expectation_changed, t.revisions_changed, t.content_changed
    )
}
