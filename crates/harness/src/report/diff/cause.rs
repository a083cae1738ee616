//! Why a case differs between two results files: the implementation, or the corpus under it.
//!
//! Two runs on different corpora differ for two kinds of reasons, and a reader must not mistake
//! one for the other: the implementation changed (its problem), or the vector or its expectation
//! changed (the corpus moved the goalposts). The results lines record each case's expectation,
//! so a changed expectation shows without a corpus; telling a changed vector from an unchanged
//! one needs each corpus's file hashes ([`CorpusVersions`]), which the caller reads from the two
//! manifests: the harness never links the corpus.

use std::collections::BTreeMap;

use agentconf_contract::case::CASE_REVISION_SEPARATOR;
use agentconf_contract::vector::Expectation;
use serde::Serialize;

use crate::results::{ResultLine, ResultsFile};

/// Each corpus's vectors: vector id → SHA-256 of its file, as the corpus manifest lists them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CorpusVersions {
    /// The corpus the old results file was made against.
    pub old: BTreeMap<String, String>,
    /// The corpus the new results file was made against.
    pub new: BTreeMap<String, String>,
}

/// Why a case's status differs, or why it is in one file only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Cause {
    /// Same corpus, or the case's vector file is byte-identical in both corpora and its
    /// expectation is the same: the implementation behaves differently.
    Implementation,
    /// The case's expectation, expected rules or revision differ between the two files: the
    /// corpus changed what the case asks for.
    Expectation,
    /// Same expectation, but the vector's file differs between the two corpora (its inputs or
    /// its text changed); or the changed vector gained or lost this case.
    VectorContent,
    /// In the new file only, and its vector is in the new corpus only.
    VectorAdded,
    /// In the old file only, and its vector is in the old corpus only.
    VectorRetired,
    /// In one file only, though its vector is in both corpora: the other run did not run it
    /// (filtered with `--include`/`--exclude`, or cut short).
    NotRun,
    /// The corpora differ and no manifests were given: a change of the vector cannot be told
    /// from a change of the implementation.
    CorpusUnknown,
}

/// Every cause, in the order reports count them.
pub(crate) const CAUSES: [Cause; 7] = [
    Cause::Implementation,
    Cause::Expectation,
    Cause::VectorContent,
    Cause::VectorAdded,
    Cause::VectorRetired,
    Cause::NotRun,
    Cause::CorpusUnknown,
];

/// The kinds of cause a reader acts on differently; reports group by it, the implementation's
/// first (those are the implementer's to fix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Origin {
    Implementation,
    Corpus,
    Selection,
    Unknown,
}

impl Cause {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cause::Implementation => "implementation",
            Cause::Expectation => "expectation",
            Cause::VectorContent => "vector-content",
            Cause::VectorAdded => "vector-added",
            Cause::VectorRetired => "vector-retired",
            Cause::NotRun => "not-run",
            Cause::CorpusUnknown => "corpus-unknown",
        }
    }

    pub(crate) fn origin(self) -> Origin {
        match self {
            Cause::Implementation => Origin::Implementation,
            Cause::Expectation
            | Cause::VectorContent
            | Cause::VectorAdded
            | Cause::VectorRetired => Origin::Corpus,
            Cause::NotRun => Origin::Selection,
            Cause::CorpusUnknown => Origin::Unknown,
        }
    }

    /// Whether the difference came with the corpus, not the implementation.
    pub(crate) fn came_with_corpus(self) -> bool {
        self.origin() == Origin::Corpus
    }
}

/// What a results line says the corpus asked of its case: the goalposts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Expected {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    pub expectation: Expectation,
    pub expected_rules: Vec<crate::results::RuleRef>,
}

impl Expected {
    pub(crate) fn of(line: &ResultLine) -> Expected {
        Expected {
            revision: line.revision.clone(),
            expectation: line.expectation,
            expected_rules: line.expected_rules.clone(),
        }
    }
}

/// An expectation as the vector files spell it.
pub(crate) fn expectation_name(e: Expectation) -> &'static str {
    match e {
        Expectation::Valid => "valid",
        Expectation::Invalid => "invalid",
        Expectation::Acceptable => "acceptable",
    }
}

/// The vector id of a case id (`<id>` or `<id>@<revision>`), as `corpus_check` reads it.
pub(crate) fn vector_of(case_id: &str) -> &str {
    case_id
        .split(CASE_REVISION_SEPARATOR)
        .next()
        .unwrap_or(case_id)
}

/// What the causes are judged from: the two files' headers and, when known, both corpora.
pub(super) struct Judge<'a> {
    pub old: &'a ResultsFile,
    pub new: &'a ResultsFile,
    pub corpora: Option<&'a CorpusVersions>,
}

impl Judge<'_> {
    fn same_corpus(&self) -> bool {
        self.old.header.corpus_digest == self.new.header.corpus_digest
    }

    /// The cause of a case in both files whose status differs.
    pub(crate) fn change(&self, old: &ResultLine, new: &ResultLine) -> Cause {
        // The lines themselves say when the goalposts moved: no manifest needed.
        if Expected::of(old) != Expected::of(new) {
            return Cause::Expectation;
        }
        if self.same_corpus() {
            return Cause::Implementation;
        }
        let Some(c) = self.corpora else {
            return Cause::CorpusUnknown;
        };
        let id = vector_of(&new.id);
        match (c.old.get(id), c.new.get(id)) {
            (Some(a), Some(b)) if a == b => Cause::Implementation,
            (Some(_), Some(_)) => Cause::VectorContent,
            // A line whose vector its own corpus does not list: the file does not match the
            // manifest it was paired with, so nothing can be said.
            _ => Cause::CorpusUnknown,
        }
    }

    /// The cause of a case in the new file only.
    pub(crate) fn added(&self, line: &ResultLine) -> Cause {
        self.one_sided(line, Side::New)
    }

    /// The cause of a case in the old file only.
    pub(crate) fn removed(&self, line: &ResultLine) -> Cause {
        self.one_sided(line, Side::Old)
    }

    fn one_sided(&self, line: &ResultLine, here: Side) -> Cause {
        if self.same_corpus() {
            return Cause::NotRun;
        }
        let Some(c) = self.corpora else {
            return Cause::CorpusUnknown;
        };
        let (mine, theirs, other_run) = match here {
            Side::New => (&c.new, &c.old, self.old),
            Side::Old => (&c.old, &c.new, self.new),
        };
        let id = vector_of(&line.id);
        let Some(their_sha) = theirs.get(id) else {
            return match here {
                Side::New => Cause::VectorAdded,
                Side::Old => Cause::VectorRetired,
            };
        };
        // The vector is in both corpora. If the other run would have run this case had its
        // corpus had it, and the vector changed, the change added or dropped the case (e.g. a
        // revision group): the corpus. Otherwise the other run left it out.
        let changed = mine.get(id).is_some_and(|sha| sha != their_sha);
        if changed && would_run(other_run, &line.id) {
            Cause::VectorContent
        } else {
            Cause::NotRun
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Old,
    New,
}

/// Whether `file`'s run would have run case `id` had its corpus held it: selected by its filters
/// (unknown filters count as selecting) and run to the end.
fn would_run(file: &ResultsFile, id: &str) -> bool {
    let selected = file.header.selection.as_ref().is_none_or(|s| s.selects(id));
    let finished = file.footer.as_ref().is_some_and(|f| !f.interrupted);
    selected && finished
}
