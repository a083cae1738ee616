//! The manifest (`vectors/manifest.json`): one line per vector and the corpus digest.

use agentconf_rules::{Level, Rule};
use serde::{Deserialize, Serialize};

use crate::vector::{Expectation, Suite};

/// One manifest line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    pub id: String,
    pub path: String,
    /// SHA-256 of the vector file's bytes.
    pub sha256: String,
    pub suite: Suite,
    pub family: String,
    pub revisions: Vec<String>,
    pub rules: Vec<Rule>,
    pub expectation: Expectation,
    pub level: Level,
    /// The expectations under other revisions, where they differ.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub other_revisions: Vec<ManifestRevisionExpectation>,
}

/// A vector's expectation under other revisions, as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestRevisionExpectation {
    pub revisions: Vec<String>,
    pub expectation: Expectation,
}

/// `vectors/manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// SHA-256 over the sorted lines `<id> <file sha256>\n`: one value to cite for the corpus.
    pub corpus_digest: String,
    pub vector_count: usize,
    pub vectors: Vec<ManifestEntry>,
}
