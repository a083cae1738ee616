//! The manifest (`vectors/manifest.json`): one line per vector and the corpus digest.

use agentconf_rules::{Level, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema_types::{
    LevelName, Revision, RuleId, Sha256, FAMILY_PATTERN, ID_PATTERN, PATH_PATTERN,
};
use crate::vector::{Expectation, Suite};

/// One manifest line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// The vector's id.
    #[schemars(pattern(ID_PATTERN))]
    pub id: String,
    /// The vector file, relative to `vectors/`.
    #[schemars(pattern(PATH_PATTERN))]
    pub path: String,
    /// SHA-256 of the vector file's bytes.
    #[schemars(with = "Sha256")]
    pub sha256: String,
    pub suite: Suite,
    #[schemars(pattern(FAMILY_PATTERN))]
    pub family: String,
    #[schemars(with = "Vec<Revision>", length(min = 1), extend("uniqueItems" = true))]
    pub revisions: Vec<String>,
    #[schemars(with = "Vec<RuleId>", length(min = 1), extend("uniqueItems" = true))]
    pub rules: Vec<Rule>,
    pub expectation: Expectation,
    #[schemars(with = "LevelName")]
    pub level: Level,
    /// The expectations under other revisions, where they differ.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub other_revisions: Vec<ManifestRevisionExpectation>,
}

/// A vector's expectation under other revisions, as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestRevisionExpectation {
    #[schemars(with = "Vec<Revision>", length(min = 1), extend("uniqueItems" = true))]
    pub revisions: Vec<String>,
    pub expectation: Expectation,
}

/// `vectors/manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// SHA-256 over the sorted lines `<id> <file sha256>\n`: one value to cite for the corpus.
    #[schemars(with = "Sha256")]
    pub corpus_digest: String,
    /// How many entries `vectors` has.
    pub vector_count: usize,
    /// One entry per vector file.
    pub vectors: Vec<ManifestEntry>,
}
