//! The agentconf test-vector corpus.
//!
//! Vectors are written as code (one generator function per family, x509-limbo style), with ids
//! derived from the suite, family and name, and expectations declared by hand, never computed by
//! running the reference. [`corpus`] builds every vector in memory; [`writer`] turns them into
//! the files under `vectors/` byte for byte the same on every run. The `agentconf` binary links
//! this crate, so the corpus travels inside the tool: a test proves the in-memory corpus equals
//! the committed files.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

pub mod aer1;
pub mod builder;
pub mod diff;
pub mod docs;
pub mod embedded;
pub mod grp;
pub mod reader;
pub mod writer;

use agentconf_contract::vector::{Suite, Vector};

pub use agentconf_contract::vector::{retired, RETIRED_IDS};

/// A part of the corpus that is built alone: the suites of its vectors, and its generator.
type Part = (&'static [Suite], fn(&mut Vec<Vector>));

/// The corpus in the parts a run builds only when it may select one of their suites: the emitter
/// vectors hold the corpus's largest artifacts (10,000-step timelines), GRP's its signed fixtures.
const PARTS: [Part; 3] = [
    (
        &[Suite::Aer1Timeline, Suite::Aer1Receipt, Suite::Aer1Workflow],
        aer1::generate_verifier_vectors,
    ),
    (
        &[
            Suite::Aer1EmitTimeline,
            Suite::Aer1EmitCommitment,
            Suite::Aer1EmitReceipt,
        ],
        aer1::generate_emitter_vectors,
    ),
    (&[Suite::GrpAdmission], grp::generate),
];

/// Every vector, sorted by id.
pub fn corpus() -> Vec<Vector> {
    corpus_of(|_| true)
}

/// The vectors of every part of the corpus holding a suite `wanted` accepts (perhaps those of
/// other suites too), sorted by id: a run that selects a few AER-1 timeline vectors does not pay
/// for GRP's signed fixtures nor for the emitters' largest artifacts.
///
/// Every run of the tool builds the corpus before its first vector, so the parts are built on
/// threads of their own: they share nothing, and sorting by id afterwards makes the result the
/// same whichever finishes first.
pub fn corpus_of(wanted: impl Fn(Suite) -> bool) -> Vec<Vector> {
    let parts: Vec<fn(&mut Vec<Vector>)> = PARTS
        .iter()
        .filter(|(suites, _)| suites.iter().any(|s| wanted(*s)))
        .map(|(_, generate)| *generate)
        .collect();
    let mut out = std::thread::scope(|scope| {
        let Some((here, elsewhere)) = parts.split_last() else {
            return Vec::new();
        };
        let threads: Vec<_> = elsewhere
            .iter()
            .map(|generate| {
                scope.spawn(move || {
                    let mut vectors = Vec::new();
                    generate(&mut vectors);
                    vectors
                })
            })
            .collect();
        let mut out = Vec::new();
        here(&mut out);
        for thread in threads {
            // A panic in a generator is a bug of this crate, not of any input: propagate it as
            // is.
            out.extend(
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        out
    });
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part built alone holds exactly the vectors of its suites the whole corpus holds.
    #[test]
    fn a_part_built_alone_is_the_corpus_s_own() {
        let all = corpus();
        for (suites, _) in PARTS {
            let alone = corpus_of(|s| suites.contains(&s));
            let expected: Vec<&Vector> = all.iter().filter(|v| suites.contains(&v.suite)).collect();
            assert!(!alone.is_empty(), "{suites:?}: no vector");
            assert_eq!(alone.iter().collect::<Vec<_>>(), expected, "{suites:?}");
        }
    }
}
