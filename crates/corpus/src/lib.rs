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
pub mod reader;
pub mod writer;

use agentconf_contract::vector::Vector;

/// The JSON Schema of a vector file (`vectors/schema/vector.schema.json`).
pub const VECTOR_SCHEMA: &str = include_str!("../../../vectors/schema/vector.schema.json");
/// The JSON Schema of the manifest (`vectors/schema/manifest.schema.json`).
pub const MANIFEST_SCHEMA: &str = include_str!("../../../vectors/schema/manifest.schema.json");

pub use agentconf_contract::vector::{retired, RETIRED_IDS};

/// Every vector, sorted by id.
pub fn corpus() -> Vec<Vector> {
    let mut out = Vec::new();
    aer1::generate(&mut out);
    grp::generate(&mut out);
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}
