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
pub mod grp;
pub mod model;
pub mod writer;

use model::Vector;

/// The JSON Schema of a vector file (`vectors/schema/vector.schema.json`).
pub const VECTOR_SCHEMA: &str = include_str!("../../../vectors/schema/vector.schema.json");
/// The JSON Schema of the manifest (`vectors/schema/manifest.schema.json`).
pub const MANIFEST_SCHEMA: &str = include_str!("../../../vectors/schema/manifest.schema.json");

/// Ids that were published once and withdrawn, each with what grades its input now. They are
/// never used again, so skip lists and citations that name them stay unambiguous; the harness
/// names the replacement when an adapter file lists one.
pub const RETIRED_IDS: &[(&str, &str)] = &[
    // A revision-06 chain checked under 07-09: now the `@09` case of the same input's vector,
    // which carries one expectation per revision.
    (
        "aer1/timeline/revision06/example-06-2-under-current",
        "case aer1/timeline/revision06/example-06-2@09",
    ),
    (
        "aer1/timeline/revision06/example-06-5-under-current",
        "case aer1/timeline/revision06/example-06-5@09",
    ),
    (
        "aer1/timeline/revision06/example-06-8-under-current",
        "case aer1/timeline/revision06/example-06-8@09",
    ),
    // Swapped two receipt ids in the invented `{steps: [{receipt_id}], merkle_root}` layout and
    // expected a root mismatch. In the draft's layout a reordering of whole steps is a seq failure
    // and exchanged ids with seq in place a root failure; spec-notes/aer1-workflow.md explains both.
    (
        "aer1/workflow/structure/steps-reordered",
        "aer1/workflow/structure/seq-swapped and aer1/workflow/structure/receipt-ids-swapped",
    ),
];

/// What replaced a retired id, if `id` is one.
pub fn retired(id: &str) -> Option<&'static str> {
    RETIRED_IDS
        .iter()
        .find(|(old, _)| *old == id)
        .map(|(_, now)| *now)
}

/// Every vector, sorted by id.
pub fn corpus() -> Vec<Vector> {
    let mut out = Vec::new();
    aer1::generate(&mut out);
    grp::generate(&mut out);
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}
