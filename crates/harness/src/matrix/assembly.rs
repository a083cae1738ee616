//! A matrix assembled from its members' runs: first each member over the corpus (its results
//! file and what its emitters wrote), then each member, as a verifier, over every artifact any
//! emitter wrote. The front end runs the implementations; what is crossed with what, who is at
//! fault in each cell and what the matrix file holds are decided here, once.

use agentconf_contract::case::Case;
use agentconf_contract::vector::Vector;

use super::{cases, cell, cross_cases, member, rule_lines, verified_kinds, Crossed, Kind, Matrix};
use crate::results::{ResultLine, ResultsFile};

/// One member's run over the corpus.
struct Run {
    name: String,
    file: ResultsFile,
    crossed: Vec<Crossed>,
}

/// A matrix being assembled: [`Assembly::add_run`] for every member, then
/// [`Assembly::finish`] with every member's answers to [`Assembly::cross_cases`].
pub struct Assembly<'c> {
    corpus: &'c [Vector],
    runs: Vec<Run>,
}

impl<'c> Assembly<'c> {
    /// An empty matrix over `corpus`, the vectors the members run (for a commitment's timeline
    /// and a receipt's payload and META).
    pub fn new(corpus: &'c [Vector]) -> Assembly<'c> {
        Assembly {
            corpus,
            runs: Vec::new(),
        }
    }

    /// The next member: its name, its results file over the corpus and what its emitter cases
    /// wrote (case id, bytes, as the run kept them).
    pub fn add_run(&mut self, name: &str, file: ResultsFile, outputs: &[(String, Vec<u8>)]) {
        let crossed = cross_cases(name, &file, outputs, self.corpus);
        self.runs.push(Run {
            name: name.to_string(),
            file,
            crossed,
        });
    }

    /// The results files added so far, in member order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &ResultsFile)> {
        self.runs.iter().map(|r| (r.name.as_str(), &r.file))
    }

    /// The derived cases that carry every emitted artifact to a verifier, every emitter's in
    /// member order: what each member is asked, as a verifier, before [`Assembly::finish`].
    pub fn cross_cases(&self) -> Vec<Case<'_>> {
        self.runs.iter().flat_map(|r| cases(&r.crossed)).collect()
    }

    /// The matrix, from every member's answers to [`Assembly::cross_cases`] (in member order,
    /// graded loosely: the verdict is the question). Cells kind-major, then emitter-major, then
    /// verifier, as the matrix file documents. `results_name` names a member's results file
    /// beside the matrix file. A member without answers verifies nothing.
    pub fn finish(
        self,
        answers: &[Vec<ResultLine>],
        suite_version: &str,
        results_name: impl Fn(&str) -> String,
    ) -> Matrix {
        let all: Vec<&Crossed> = self.runs.iter().flat_map(|r| &r.crossed).collect();
        let none = Vec::new();
        let answers = |v: usize| answers.get(v).unwrap_or(&none);
        let verifies: Vec<Vec<Kind>> = (0..self.runs.len())
            .map(|v| verified_kinds(&all, answers(v)))
            .collect();
        let mut cells = Vec::new();
        for kind in Kind::ALL {
            for emitter in &self.runs {
                for (v, verifier) in self.runs.iter().enumerate() {
                    cells.push(cell(
                        kind,
                        &emitter.name,
                        &verifier.name,
                        &emitter.crossed,
                        answers(v),
                        verifies[v].contains(&kind),
                    ));
                }
            }
        }
        Matrix {
            format: super::FORMAT.into(),
            suite_version: suite_version.into(),
            corpus_digest: self
                .runs
                .first()
                .map(|r| r.file.header.corpus_digest.clone())
                .unwrap_or_default(),
            implementations: self
                .runs
                .iter()
                .zip(verifies)
                .map(|(r, v)| member(&r.name, &results_name(&r.name), &r.file, &r.crossed, v))
                .collect(),
            cells,
            rules: rule_lines(&self.runs.iter().map(|r| &r.file).collect::<Vec<_>>()),
        }
    }
}
