//! The JSON Schemas (2020-12) of a vector file, of the manifest and of the persistent-mode
//! responses, generated from the types of [`crate::vector`], [`crate::manifest`] and
//! [`crate::protocol`] so the files and the serde model cannot drift apart. `cargo xtask schemas`
//! writes them (`vectors/schema/`, `crates/contract/schema/`), and a test fails when the
//! checked-in files differ from what these functions produce.
//!
//! The constraints serde does not carry (id and file name patterns, minimum lengths, unique
//! items, the expectation/flags coupling) are `#[schemars(...)]` attributes on the types. The
//! rule ids, levels and revisions come from `agentconf_rules`, whose types cannot implement
//! `JsonSchema` here (orphan rule): the fields name the stand-ins of `schema_types` with
//! `#[schemars(with = ...)]`. `Rule` and `Level` have no schema of their own, so a new field of
//! either type without that attribute does not compile.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::manifest::Manifest;
/// The stand-ins other crates name in `#[schemars(with = ...)]` for levels and digests (the
/// harness's results line), so every published schema says them the same way.
pub use crate::schema_types::{LevelName, Sha256};
use crate::vector::Vector;

/// The JSON Schema of one vector file (`vectors/schema/vector.schema.json`): pretty JSON with a
/// trailing newline, the same bytes on every run.
pub fn vector_schema() -> String {
    render::<Vector>(
        "https://agentconf.invalid/schema/vector.schema.json",
        "agentconf test vector",
        "One vector: inputs handed to an implementation, and the expectation kept by the harness.",
    )
}

/// The JSON Schema of `vectors/manifest.json` (`vectors/schema/manifest.schema.json`).
pub fn manifest_schema() -> String {
    render::<Manifest>(
        "https://agentconf.invalid/schema/manifest.schema.json",
        "agentconf corpus manifest",
        "Every vector with its file's SHA-256, and one corpus digest: SHA-256 over the sorted \
         lines '<id> <sha256>\\n'.",
    )
}

/// The JSON Schema of the persistent-mode responses (`crates/contract/schema/protocol.schema.json`,
/// [`crate::protocol::SCHEMA`]): one definition per response (`$defs/start_response`,
/// `$defs/run_response`, `$defs/stop_response`), which `--validate-protocol` checks each response
/// against; the root accepts any of the three.
pub fn protocol_schema() -> String {
    render::<crate::protocol::Response>(
        "https://agentconf.invalid/schema/protocol.schema.json",
        "agentconf persistent-mode responses (protocol 1)",
        "The three response lines an implementation writes in persistent mode \
         (crates/contract/CONTRACT.md, section 8): one per request, in order. `agentconf run \
         --validate-protocol` checks every response against the definition for the request it \
         answers (`start_response`, `run_response`, `stop_response`); the root accepts any of \
         the three. Extra members are allowed everywhere and ignored.",
    )
}

/// The JSON Schema (2020-12) of `T` with its `$id`, title and description, as the vector and
/// manifest schemas are rendered: descriptions one line per paragraph, members in a fixed order,
/// pretty JSON with a trailing newline. Other crates render their published schemas with it (the
/// harness's attestation predicate).
pub fn render<T: JsonSchema>(id: &str, title: &str, description: &str) -> String {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    let object = value
        .as_object_mut()
        .expect("a derived schema is an object");
    object.insert("$id".into(), id.into());
    object.insert("title".into(), title.into());
    object.insert("description".into(), description.into());
    unwrap_descriptions(&mut value);
    let ordered = Ordered {
        value: &value,
        names: false,
    };
    let mut out = serde_json::to_string_pretty(&ordered).expect("a schema serializes");
    out.push('\n');
    out
}

/// Doc comments are wrapped at 100 columns: a description is one line per paragraph.
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| paragraph.split('\n').collect::<Vec<_>>().join(" "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// Members in a fixed order whatever map type serde_json was built with (feature unification
/// can switch it to insertion order). A schema's keywords: the identifying ones first, `$defs`
/// last, the rest sorted; the members of `properties` and `$defs` (names, not keywords) sorted.
struct Ordered<'a> {
    value: &'a Value,
    /// The value is a map from names to schemas.
    names: bool,
}

fn key_rank(key: &str) -> (u8, &str) {
    let rank = match key {
        "$schema" => 0,
        "$id" => 1,
        "$ref" => 2,
        "title" => 3,
        "description" => 4,
        "type" => 5,
        "$defs" => 7,
        _ => 6,
    };
    (rank, key)
}

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                if self.names {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                } else {
                    entries.sort_by(|a, b| key_rank(a.0).cmp(&key_rank(b.0)));
                }
                let mut out = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    let names = !self.names && matches!(k.as_str(), "properties" | "$defs");
                    out.serialize_entry(k, &Ordered { value: v, names })?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(&Ordered {
                        value: item,
                        names: false,
                    })?;
                }
                out.end()
            }
            other => other.serialize(s),
        }
    }
}
