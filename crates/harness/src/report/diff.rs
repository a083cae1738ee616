//! What changed between two results files.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::{clip, terminal_safe};
use crate::results::{ResultLine, ResultsFile};
use crate::status::Status;

/// One vector whose status changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    pub id: String,
    pub old: Status,
    pub new: Status,
    /// The new run's detail.
    pub detail: String,
}

/// A vector present in only one of the two files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub id: String,
    pub status: Status,
    pub detail: String,
}

/// The difference between two results files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diff {
    pub old_implementation: String,
    pub new_implementation: String,
    pub old_corpus_digest: String,
    pub new_corpus_digest: String,
    /// Was `pass`, now anything unexpected; or newly a false accept whatever it was before
    /// (a false reject turned false accept is worse, not sideways). False accepts first.
    pub regressions: Vec<Change>,
    /// Was unexpected, now `pass`.
    pub fixes: Vec<Change>,
    /// Any other change of status (e.g. `pass` → `unsupported`, `crash` → `false-reject`).
    pub changed: Vec<Change>,
    /// In the new file only (their status as in the new file), unexpected ones first.
    pub new_vectors: Vec<Entry>,
    /// In the old file only (their status as in the old file).
    pub removed_vectors: Vec<Entry>,
    /// Vectors in both files with the same status.
    pub unchanged: usize,
}

impl Diff {
    pub fn has_regressions(&self) -> bool {
        !self.regressions.is_empty()
    }

    /// Whether the two runs used different corpora (statuses may then differ for that reason).
    pub fn corpus_changed(&self) -> bool {
        self.old_corpus_digest != self.new_corpus_digest
    }
}

/// Compares two results files vector by vector (by id).
pub fn diff(old: &ResultsFile, new: &ResultsFile) -> Diff {
    let index = |f: &ResultsFile| -> BTreeMap<String, ResultLine> {
        f.results
            .iter()
            .map(|r| (r.id.clone(), r.clone()))
            .collect()
    };
    let (o, n) = (index(old), index(new));
    let mut d = Diff {
        old_implementation: old.header.implementation.name.clone(),
        new_implementation: new.header.implementation.name.clone(),
        old_corpus_digest: old.header.corpus_digest.clone(),
        new_corpus_digest: new.header.corpus_digest.clone(),
        regressions: Vec::new(),
        fixes: Vec::new(),
        changed: Vec::new(),
        new_vectors: Vec::new(),
        removed_vectors: Vec::new(),
        unchanged: 0,
    };
    for (id, nr) in &n {
        let Some(or) = o.get(id) else {
            d.new_vectors.push(Entry {
                id: id.clone(),
                status: nr.status,
                detail: nr.detail.clone(),
            });
            continue;
        };
        if or.status == nr.status {
            d.unchanged += 1;
            continue;
        }
        let change = Change {
            id: id.clone(),
            old: or.status,
            new: nr.status,
            detail: nr.detail.clone(),
        };
        let regression = (or.status == Status::Pass && nr.status.is_unexpected())
            || nr.status == Status::FalseAccept;
        if regression {
            d.regressions.push(change);
        } else if or.status.is_unexpected() && nr.status == Status::Pass {
            d.fixes.push(change);
        } else {
            d.changed.push(change);
        }
    }
    for (id, or) in &o {
        if !n.contains_key(id) {
            d.removed_vectors.push(Entry {
                id: id.clone(),
                status: or.status,
                detail: or.detail.clone(),
            });
        }
    }
    let by_new = |c: &Change| (c.new.rank(), c.id.clone());
    d.regressions.sort_by_key(by_new);
    d.changed.sort_by_key(by_new);
    d.fixes.sort_by_key(|c| (c.old.rank(), c.id.clone()));
    d.new_vectors
        .sort_by_key(|e| (e.status.rank(), e.id.clone()));
    d
}

/// The diff for a terminal: regressions first (false accepts first among them), then fixes,
/// other changes, new and removed vectors, and a note when the corpora differ.
pub fn diff_text(d: &Diff) -> String {
    let safe = |s: &str| terminal_safe(s);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "agentconf report diff: {} regression{}, {} fix{}, {} other change{}, {} new, {} removed, \
         {} unchanged",
        d.regressions.len(),
        if d.regressions.len() == 1 { "" } else { "s" },
        d.fixes.len(),
        if d.fixes.len() == 1 { "" } else { "es" },
        d.changed.len(),
        if d.changed.len() == 1 { "" } else { "s" },
        d.new_vectors.len(),
        d.removed_vectors.len(),
        d.unchanged
    );
    let _ = writeln!(
        out,
        "  old: {} on corpus {}\n  new: {} on corpus {}",
        safe(&d.old_implementation),
        safe(&d.old_corpus_digest),
        safe(&d.new_implementation),
        safe(&d.new_corpus_digest)
    );
    if d.corpus_changed() {
        let _ = writeln!(
            out,
            "  note: the corpus digests differ: vectors may have been added, removed or changed, \
             so a status change can come from the corpus rather than the implementation"
        );
    }
    let changes = |out: &mut String, title: &str, list: &[Change]| {
        if list.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n{title} ({}):", list.len());
        for c in list {
            let arrow = format!("{} -> {}", c.old.name(), c.new.name());
            let _ = writeln!(out, "  {arrow:<30} {}", safe(&c.id));
            if !c.detail.is_empty() {
                let _ = writeln!(out, "  {:<30} {}", "", safe(&clip(&c.detail, 200)));
            }
        }
    };
    let entries = |out: &mut String, title: &str, note: &str, list: &[Entry]| {
        if list.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n{title} ({}{note}):", list.len());
        for e in list {
            let _ = writeln!(out, "  {:<15} {}", e.status.name(), safe(&e.id));
        }
    };
    changes(&mut out, "REGRESSIONS", &d.regressions);
    changes(&mut out, "Fixes", &d.fixes);
    changes(&mut out, "Other changes", &d.changed);
    entries(&mut out, "New vectors", "", &d.new_vectors);
    entries(
        &mut out,
        "Removed vectors",
        ", status in the old run",
        &d.removed_vectors,
    );
    out
}
