//! [`CorpusDiff::to_text`]: the diff for a terminal.

use std::fmt::Write as _;

use super::render::{
    exercised_rule_changes, family_counts, folded, grade, grades, group_line, grouped_changes,
    rule_delta, safe, LIST_IDS_UP_TO, TEXT,
};
use super::CorpusDiff;

impl CorpusDiff {
    /// The diff for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (label, side) in [("old", &self.old), ("new", &self.new)] {
            let _ = writeln!(
                out,
                "{label} corpus {} ({} vectors)",
                safe(&side.digest),
                side.vector_count
            );
        }
        if self.is_empty() {
            out.push_str("no differences\n");
            return out;
        }
        let _ = writeln!(out, "{}", self.counts_line());
        if !self.added.is_empty() {
            let _ = write!(out, "\nadded ({}):\n", self.added.len());
            for v in &self.added {
                let _ = writeln!(out, "  {}  {}", safe(&v.id), grades(&v.by_revision, &TEXT));
            }
        }
        if !self.retired.is_empty() {
            let _ = write!(out, "\nretired ({}):\n", self.retired.len());
            for v in &self.retired {
                let _ = write!(out, "  {}  {}", safe(&v.id), grades(&v.by_revision, &TEXT));
                if let Some(now) = &v.replaced_by {
                    let _ = write!(out, "; replaced by {}", safe(now));
                }
                out.push('\n');
            }
        }
        if !self.expectation_changes.is_empty() {
            let _ = write!(
                out,
                "\nexpectations changed ({}):\n",
                self.expectation_changes.len()
            );
            for c in &self.expectation_changes {
                let _ = writeln!(out, "  {}", safe(&c.id));
                for (revisions, change) in grouped_changes(&c.revisions) {
                    let _ = writeln!(
                        out,
                        "    {}: {} {} {}{}",
                        revisions,
                        grade(&change.before, &TEXT),
                        TEXT.arrow,
                        grade(&change.after, &TEXT),
                        rule_delta(&change.rules_added, &change.rules_removed, &TEXT)
                    );
                }
            }
        }
        if !self.revision_changes.is_empty() {
            let _ = write!(
                out,
                "\nrevisions changed ({} vectors):\n",
                self.counts.revisions_changed
            );
            for g in &self.revision_changes {
                let _ = writeln!(out, "  {}", group_line(g));
                let _ = writeln!(out, "    {}", family_counts(&g.by_family, &TEXT));
                if g.ids.len() <= LIST_IDS_UP_TO {
                    for id in &g.ids {
                        let _ = writeln!(out, "    {}", safe(id));
                    }
                }
            }
        }
        if !self.content_changes.is_empty() {
            let _ = write!(
                out,
                "\ncontent changed besides the grades ({}):\n",
                self.content_changes.len()
            );
            for line in folded(self.content_changes.iter().map(|c| c.id.as_str()), &TEXT) {
                let _ = writeln!(out, "  {line}");
            }
            for (delta, ids) in exercised_rule_changes(self, &TEXT) {
                let _ = writeln!(out, "  exercised rules{delta} ({}):", ids.len());
                for line in folded(ids.into_iter(), &TEXT) {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        for (title, tallies) in [("by family", &self.by_family), ("by rule", &self.by_rule)] {
            let _ = write!(
                out,
                "\n{title}:\n  {:<48} {:>5} {:>7} {:>11} {:>9} {:>7}\n",
                "", "added", "retired", "expectation", "revisions", "content"
            );
            for (name, t) in tallies {
                let _ = writeln!(
                    out,
                    "  {:<48} {:>5} {:>7} {:>11} {:>9} {:>7}",
                    safe(name),
                    t.added,
                    t.retired,
                    t.expectation_changed,
                    t.revisions_changed,
                    t.content_changed
                );
            }
        }
        out
    }
}
