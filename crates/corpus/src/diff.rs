//! What changed between two corpora (`agentconf vectors diff OLD [NEW]`, and the entries of
//! `vectors/CHANGELOG.md`): vectors added and retired, expectations that moved under a revision
//! graded on both sides, revisions a vector gained or lost, and files that changed while every
//! grade stayed the same.
//!
//! A corpus is first reduced to a [`CorpusSnapshot`]: per vector only its id, family, file hash,
//! exercised rules and one [`Grade`] per revision. That is all a diff needs, and it is what lets
//! corpora of older agentconf versions (older vector schemas) be compared with today's: see
//! [`load_dir`].

mod changelog;
mod load;
mod markdown;
mod render;
#[cfg(test)]
mod tests;
mod text;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

pub use changelog::{
    changelog_latest_digest, changelog_prepend, changelog_problems, CHANGELOG_HEADER,
};
pub use load::{empty_snapshot, from_vectors, load_dir};

/// What a vector expects under one revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Grade {
    /// `valid`, `invalid` or `acceptable` (kept as written, so a future value still compares).
    pub expectation: String,
    /// The rules a rejection must cite, sorted: their order in a file means nothing.
    pub expected_rules: Vec<String>,
}

/// One vector, reduced to what a diff compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorSummary {
    pub id: String,
    pub suite: String,
    pub family: String,
    /// SHA-256 of the vector file's bytes (lowercase hex), as the manifest lists it.
    pub sha256: String,
    /// SHA-256 of the vector without the members compared as grades (`revisions`,
    /// `expectation`, `expected_rules`, in the vector and in each `other_revisions` entry),
    /// members sorted: what changed in a file besides its grades (inputs, description, flags,
    /// expected decisions), so such a change is not hidden by a grade that moved with it.
    pub content_sha256: String,
    /// The rules the vector exercises, sorted.
    pub rules: Vec<String>,
    /// The grade under every revision the vector has one for: the main `revisions` and every
    /// `other_revisions` group.
    pub by_revision: BTreeMap<String, Grade>,
}

impl VectorSummary {
    /// The family as the id's parent (`aer1/timeline/valid`): family names repeat across suites,
    /// and a listed name under it gives back the whole id.
    fn family_key(&self) -> String {
        family_of(&self.id, &self.suite, &self.family)
    }
}

/// A corpus reduced for comparison: its digest and its vectors by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusSnapshot {
    pub digest: String,
    pub vectors: BTreeMap<String, VectorSummary>,
}

/// One side of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Side {
    pub digest: String,
    pub vector_count: usize,
}

/// A vector present on one side only, with its grades.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListedVector {
    pub id: String,
    pub suite: String,
    pub family: String,
    pub by_revision: BTreeMap<String, Grade>,
    /// Retired vectors only: what replaced the id, where the corpus records it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

/// A revision graded on both sides whose grade differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GradeChange {
    pub revision: String,
    pub before: Grade,
    pub after: Grade,
    /// Expected rules after that were not before.
    pub rules_added: Vec<String>,
    /// Expected rules before that are not after.
    pub rules_removed: Vec<String>,
}

/// A vector on both sides with at least one [`GradeChange`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExpectationChange {
    pub id: String,
    pub suite: String,
    pub family: String,
    pub revisions: Vec<GradeChange>,
}

/// The vectors on both sides that gained exactly `gained` and lost exactly `lost` revisions:
/// grouped, because a new draft revision touches most of the corpus at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RevisionChangeGroup {
    pub gained: Vec<String>,
    pub lost: Vec<String>,
    pub count: usize,
    /// How many of the grades gained (vector × gained revision) expect each expectation: what an
    /// implementer of the new revision is now held to. A grade is not a case: an AER-1 timeline
    /// runs once per construction, under the newest revision of it.
    pub gained_expectations: BTreeMap<String, usize>,
    pub by_family: BTreeMap<String, usize>,
    pub ids: Vec<String>,
}

/// A vector whose file changed besides its grades: its inputs, description, flags, options,
/// expected decisions or exercised rules. A vector whose expectation or revisions also moved is
/// listed there too, so content changes and expectation changes may count the same vector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContentChange {
    pub id: String,
    pub suite: String,
    pub family: String,
    pub old_sha256: String,
    pub new_sha256: String,
    /// Exercised rules after that were not before.
    pub rules_added: Vec<String>,
    /// Exercised rules before that are not after.
    pub rules_removed: Vec<String>,
}

/// Changed vectors of one family or one rule, by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub added: usize,
    pub retired: usize,
    pub expectation_changed: usize,
    pub revisions_changed: usize,
    pub content_changed: usize,
}

/// The number of vectors in each category (the first line of every rendering).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub added: usize,
    pub retired: usize,
    pub expectations_changed: usize,
    pub revisions_changed: usize,
    pub content_changed: usize,
}

/// The JSON rendering's format name; a change to its shape gets a new one.
/// `/2`: content changes are judged without the grades, so they may overlap expectation and
/// revision changes (in `/1` they excluded them).
pub const FORMAT: &str = "agentconf-corpus-diff/2";

/// Everything that changed from `old` to `new`; every list sorted (by id, or by the revisions
/// gained and lost), so equal inputs render byte for byte the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CorpusDiff {
    /// [`FORMAT`]: what a reader of the JSON checks before trusting its shape.
    pub format: &'static str,
    pub old: Side,
    pub new: Side,
    pub counts: Counts,
    pub added: Vec<ListedVector>,
    pub retired: Vec<ListedVector>,
    pub expectation_changes: Vec<ExpectationChange>,
    pub revision_changes: Vec<RevisionChangeGroup>,
    pub content_changes: Vec<ContentChange>,
    /// Keyed by family, as the ids' parent (`aer1/timeline/valid`).
    pub by_family: BTreeMap<String, Tally>,
    /// Keyed by rule id: a vector counts for every rule it exercises on either side.
    pub by_rule: BTreeMap<String, Tally>,
}

impl CorpusDiff {
    /// Whether the two corpora are the same.
    pub fn is_empty(&self) -> bool {
        self.old.digest == self.new.digest
            && self.added.is_empty()
            && self.retired.is_empty()
            && self.expectation_changes.is_empty()
            && self.revision_changes.is_empty()
            && self.content_changes.is_empty()
    }
}

/// Compares two snapshots.
pub fn diff(old: &CorpusSnapshot, new: &CorpusSnapshot) -> CorpusDiff {
    let mut out = CorpusDiff {
        format: FORMAT,
        old: Side {
            digest: old.digest.clone(),
            vector_count: old.vectors.len(),
        },
        new: Side {
            digest: new.digest.clone(),
            vector_count: new.vectors.len(),
        },
        counts: Counts::default(),
        added: Vec::new(),
        retired: Vec::new(),
        expectation_changes: Vec::new(),
        revision_changes: Vec::new(),
        content_changes: Vec::new(),
        by_family: BTreeMap::new(),
        by_rule: BTreeMap::new(),
    };
    for (id, n) in &new.vectors {
        if !old.vectors.contains_key(id) {
            out.added.push(listed(n, None));
            out.tally(None, n, |t| t.added += 1);
        }
    }
    let mut groups: BTreeMap<(Vec<String>, Vec<String>), Vec<&VectorSummary>> = BTreeMap::new();
    for (id, o) in &old.vectors {
        let Some(n) = new.vectors.get(id) else {
            out.retired
                .push(listed(o, crate::retired(id).map(str::to_string)));
            out.tally(None, o, |t| t.retired += 1);
            continue;
        };
        let changes = grade_changes(o, n);
        let gained = minus(n.by_revision.keys(), &o.by_revision);
        let lost = minus(o.by_revision.keys(), &n.by_revision);
        let grades_moved = !changes.is_empty();
        let revisions_moved = !gained.is_empty() || !lost.is_empty();
        if grades_moved {
            out.expectation_changes.push(ExpectationChange {
                id: id.clone(),
                suite: n.suite.clone(),
                family: n.family.clone(),
                revisions: changes,
            });
            out.tally(Some(o), n, |t| t.expectation_changed += 1);
        }
        if revisions_moved {
            groups.entry((gained, lost)).or_default().push(n);
            out.tally(Some(o), n, |t| t.revisions_changed += 1);
        }
        // Judged without the grades: a revision gained or an expectation moved changes the file
        // too, and must neither count as a content change nor hide one made with it.
        if o.content_sha256 != n.content_sha256 {
            let (rules_added, rules_removed) = set_difference(&o.rules, &n.rules);
            out.content_changes.push(ContentChange {
                id: id.clone(),
                suite: n.suite.clone(),
                family: n.family.clone(),
                old_sha256: o.sha256.clone(),
                new_sha256: n.sha256.clone(),
                rules_added,
                rules_removed,
            });
            out.tally(Some(o), n, |t| t.content_changed += 1);
        }
    }
    out.revision_changes = groups
        .into_iter()
        .map(|((gained, lost), vectors)| revision_group(gained, lost, &vectors))
        .collect();
    out.counts = Counts {
        added: out.added.len(),
        retired: out.retired.len(),
        expectations_changed: out.expectation_changes.len(),
        revisions_changed: out.revision_changes.iter().map(|g| g.count).sum(),
        content_changed: out.content_changes.len(),
    };
    out
}

impl CorpusDiff {
    /// Counts `new` (and `old`, when the vector is on both sides) in its family and under every
    /// rule either side exercises.
    fn tally(&mut self, old: Option<&VectorSummary>, new: &VectorSummary, bump: fn(&mut Tally)) {
        bump(self.by_family.entry(new.family_key()).or_default());
        let rules: BTreeSet<&String> = old
            .map(|o| o.rules.iter())
            .into_iter()
            .flatten()
            .chain(&new.rules)
            .collect();
        for rule in rules {
            bump(self.by_rule.entry(rule.clone()).or_default());
        }
    }
}

fn listed(v: &VectorSummary, replaced_by: Option<String>) -> ListedVector {
    ListedVector {
        id: v.id.clone(),
        suite: v.suite.clone(),
        family: v.family.clone(),
        by_revision: v.by_revision.clone(),
        replaced_by,
    }
}

/// The revisions graded on both sides whose grade differs.
fn grade_changes(old: &VectorSummary, new: &VectorSummary) -> Vec<GradeChange> {
    old.by_revision
        .iter()
        .filter_map(|(revision, before)| {
            let after = new.by_revision.get(revision)?;
            if before == after {
                return None;
            }
            let (rules_added, rules_removed) =
                set_difference(&before.expected_rules, &after.expected_rules);
            Some(GradeChange {
                revision: revision.clone(),
                before: before.clone(),
                after: after.clone(),
                rules_added,
                rules_removed,
            })
        })
        .collect()
}

/// The keys of `keys` that `other` lacks, in order.
fn minus<'a>(
    keys: impl Iterator<Item = &'a String>,
    other: &BTreeMap<String, Grade>,
) -> Vec<String> {
    keys.filter(|k| !other.contains_key(*k)).cloned().collect()
}

/// (in `after` only, in `before` only), each sorted.
fn set_difference(before: &[String], after: &[String]) -> (Vec<String>, Vec<String>) {
    let before: BTreeSet<&String> = before.iter().collect();
    let after: BTreeSet<&String> = after.iter().collect();
    (
        after.difference(&before).map(|s| s.to_string()).collect(),
        before.difference(&after).map(|s| s.to_string()).collect(),
    )
}

fn revision_group(
    gained: Vec<String>,
    lost: Vec<String>,
    vectors: &[&VectorSummary],
) -> RevisionChangeGroup {
    let mut gained_expectations: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_family: BTreeMap<String, usize> = BTreeMap::new();
    for v in vectors {
        *by_family.entry(v.family_key()).or_default() += 1;
        for revision in &gained {
            if let Some(grade) = v.by_revision.get(revision) {
                *gained_expectations
                    .entry(grade.expectation.clone())
                    .or_default() += 1;
            }
        }
    }
    RevisionChangeGroup {
        gained,
        lost,
        count: vectors.len(),
        gained_expectations,
        by_family,
        ids: vectors.iter().map(|v| v.id.clone()).collect(),
    }
}

/// The id's parent, or `suite/family` for an id without one (only a hand-made corpus has that).
fn family_of(id: &str, suite: &str, family: &str) -> String {
    match id.rsplit_once('/') {
        Some((parent, _)) => parent.to_string(),
        None => format!("{suite}/{family}"),
    }
}
