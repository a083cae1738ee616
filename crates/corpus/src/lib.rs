//! The agentconf test-vector corpus.
//!
//! Vectors are written as code (one generator function per family, x509-limbo style), with ids
//! derived from the suite, family and name, and expectations declared by hand, never computed by
//! running the reference. [`corpus`] builds every vector in memory; [`writer`] turns them into
//! the files under `vectors/` byte for byte the same on every run. The `agentconf` binary links
//! this crate, so the corpus travels inside the tool: a test proves the in-memory corpus equals
//! the committed files.

pub mod aer1;
pub mod builder;
pub mod diff;
pub mod docs;
pub mod grp;
pub mod reader;
pub mod writer;

use agentconf_contract::vector::Vector;

pub use agentconf_contract::vector::{retired, RETIRED_IDS};

/// Every vector, sorted by id.
///
/// Every run of the tool builds the corpus before its first vector, so the two suites are built
/// on two threads: they share nothing, and sorting by id afterwards makes the result the same
/// whichever finishes first.
pub fn corpus() -> Vec<Vector> {
    let (mut out, grp_vectors) = std::thread::scope(|scope| {
        let grp_thread = scope.spawn(|| {
            let mut grp_vectors = Vec::new();
            grp::generate(&mut grp_vectors);
            grp_vectors
        });
        let mut aer1_vectors = Vec::new();
        aer1::generate(&mut aer1_vectors);
        // A panic in a generator is a bug of this crate, not of any input: propagate it as is.
        let grp_vectors = grp_thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (aer1_vectors, grp_vectors)
    });
    out.extend(grp_vectors);
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}
