//! A results file held to the corpus it names: the corpus digest, the selection its header
//! records, and every result line's metadata (rules, level, expectation, derivation, …) must be
//! what that corpus says. A file that passes [`crate::results::check`] is whole; one that passes
//! this too speaks of the cases it claims, graded as the corpus grades them. Neither can show
//! that the statuses are what the implementation did: only re-running does (`claim verify`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use agentconf_contract::vector::Vector;

use crate::results::{ResultLine, ResultsFile};

/// How a results file disagrees with a corpus. Lines are numbered as in the file (the header is
/// line 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorpusMismatch {
    /// The file was made against another corpus.
    OtherCorpus { file: String, corpus: String },
    /// The header's count of the corpus's cases is not this corpus's.
    CorpusCaseCount { file: usize, corpus: usize },
    /// The header's count of selected cases or vectors is not what its selection selects.
    SelectedCount {
        what: &'static str,
        file: usize,
        selected: usize,
    },
    /// A result line whose case is not in the corpus.
    UnknownCase { line: usize, id: String },
    /// A result line whose case the header's selection does not select.
    NotSelected { line: usize, id: String },
    /// A case twice, or out of the corpus's order.
    OutOfOrder { line: usize, id: String },
    /// A line says something of its case that the corpus does not.
    Metadata {
        line: usize,
        id: String,
        field: &'static str,
        file: String,
        corpus: String,
    },
}

impl fmt::Display for CorpusMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusMismatch::OtherCorpus { file, corpus } => {
                write!(f, "it was made against corpus {file}, not {corpus}")
            }
            CorpusMismatch::CorpusCaseCount { file, corpus } => write!(
                f,
                "the header says the corpus has {file} cases; it has {corpus}"
            ),
            CorpusMismatch::SelectedCount {
                what,
                file,
                selected,
            } => write!(
                f,
                "the header says {file} {what} were selected; its selection selects {selected}"
            ),
            CorpusMismatch::UnknownCase { line, id } => {
                write!(f, "line {line}: case {id:?} is not in the corpus")
            }
            CorpusMismatch::NotSelected { line, id } => write!(
                f,
                "line {line}: case {id:?} is not among the cases the header selected"
            ),
            CorpusMismatch::OutOfOrder { line, id } => write!(
                f,
                "line {line}: case {id:?} is repeated or out of the corpus's order"
            ),
            CorpusMismatch::Metadata {
                line,
                id,
                field,
                file,
                corpus,
            } => write!(
                f,
                "line {line}: case {id:?} has {field} {file} in the file, {corpus} in the corpus"
            ),
        }
    }
}

/// Checks `file` against the corpus `vectors` whose digest is `digest`.
pub fn check(file: &ResultsFile, vectors: &[Vector], digest: &str) -> Result<(), CorpusMismatch> {
    let h = &file.header;
    if h.corpus_digest != digest {
        return Err(CorpusMismatch::OtherCorpus {
            file: h.corpus_digest.clone(),
            corpus: digest.to_string(),
        });
    }
    let cases: Vec<ResultLine> = vectors
        .iter()
        .flat_map(|v| v.cases())
        .map(|c| ResultLine::describing(&c))
        .collect();
    // Without a recorded selection every case counts as selectable; the verdict of such a file
    // is never more than PARTIAL.
    let selected: Vec<&ResultLine> = match &h.selection {
        Some(s) => {
            if s.corpus_case_count != cases.len() {
                return Err(CorpusMismatch::CorpusCaseCount {
                    file: s.corpus_case_count,
                    corpus: cases.len(),
                });
            }
            let chosen: Vec<&ResultLine> = cases.iter().filter(|c| s.selects(&c.id)).collect();
            let vector_count = chosen
                .iter()
                .map(|c| vector_of(c))
                .collect::<BTreeSet<_>>()
                .len();
            for (what, file, selected) in [
                ("cases", h.case_count.unwrap_or(chosen.len()), chosen.len()),
                ("vectors", h.vector_count, vector_count),
            ] {
                if file != selected {
                    return Err(CorpusMismatch::SelectedCount {
                        what,
                        file,
                        selected,
                    });
                }
            }
            chosen
        }
        None => cases.iter().collect(),
    };
    let position: BTreeMap<&str, usize> = selected
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let known: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    // Lines follow the corpus's order (a run stopped early leaves gaps, never swaps).
    let mut next = 0;
    for (i, got) in file.results.iter().enumerate() {
        let line = i + 2;
        let id = got.id.clone();
        let Some(&at) = position.get(got.id.as_str()) else {
            return Err(if known.contains(got.id.as_str()) {
                CorpusMismatch::NotSelected { line, id }
            } else {
                CorpusMismatch::UnknownCase { line, id }
            });
        };
        if at < next {
            return Err(CorpusMismatch::OutOfOrder { line, id });
        }
        next = at + 1;
        metadata(line, got, selected[at])?;
    }
    Ok(())
}

/// The vector id of a case id (`<id>@<revision>` for a vector's further cases).
fn vector_of(c: &ResultLine) -> &str {
    c.id.split(agentconf_contract::case::CASE_REVISION_SEPARATOR)
        .next()
        .unwrap_or(&c.id)
}

/// The first field in which `got` says something of its case other than the corpus does.
fn metadata(line: usize, got: &ResultLine, want: &ResultLine) -> Result<(), CorpusMismatch> {
    // JSON text of a field, as the file spells it: the message quotes both sides that way.
    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap_or_default()
    }
    // Named field by field, with no `..`: a field added to the line must be placed here, among
    // the corpus's words or the outcome's, or this does not compile.
    let ResultLine {
        id: _,
        revision,
        suite,
        family,
        rules,
        level,
        expectation,
        expected_rules,
        derived_from,
        status: _,
        detail: _,
        stderr: _,
        duration_ms: _,
        failed_as: _,
        xfail_reason: _,
        broken_rules: _,
        suite_detail: _,
    } = got;
    let fields: [(&'static str, String, String); 8] = [
        ("revision", json(revision), json(&want.revision)),
        ("suite", json(suite), json(&want.suite)),
        ("family", json(family), json(&want.family)),
        ("rules", json(rules), json(&want.rules)),
        ("level", json(level), json(&want.level)),
        ("expectation", json(expectation), json(&want.expectation)),
        (
            "expected_rules",
            json(expected_rules),
            json(&want.expected_rules),
        ),
        ("derived_from", json(derived_from), json(&want.derived_from)),
    ];
    match fields.into_iter().find(|(_, file, corpus)| file != corpus) {
        None => Ok(()),
        Some((field, file, corpus)) => Err(CorpusMismatch::Metadata {
            line,
            id: got.id.clone(),
            field,
            file,
            corpus,
        }),
    }
}
