//! The constraints the model's `#[schemars(...)]` attributes name: the id and file name
//! patterns, and stand-ins for the types of `agentconf_rules` (which cannot implement
//! `JsonSchema` here: orphan rule). Below the model and the schema renderer alike.

use std::borrow::Cow;

use agentconf_rules::{Level, Revisions, Rule, Tier};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

/// A vector id: `<draft>/<suite part>/<family>/<name>`.
pub(crate) const ID_PATTERN: &str = "^[a-z0-9]+(/[a-z0-9][a-z0-9.-]*){3}$";
/// A family: the directory under the suite's.
pub(crate) const FAMILY_PATTERN: &str = "^[a-z0-9][a-z0-9-]*$";
/// An input's file name: one path component.
pub(crate) const FILE_PATTERN: &str = "^[a-z0-9][a-z0-9._-]*$";
/// A manifest entry's path: `<suite>/<family>/<name>.json`.
pub(crate) const PATH_PATTERN: &str = r"^[a-z0-9-]+/[a-z0-9-]+/[a-z0-9][a-z0-9.-]*\.json$";

/// The schema of a [`Rule`]: one of the catalogue's ids.
pub(crate) struct RuleId;

impl JsonSchema for RuleId {
    fn schema_name() -> Cow<'static, str> {
        "Rule".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_rules::Rule".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        json_schema!({
            "description": "A rule's catalogue id (spec-notes/RULES.md).",
            "type": "string",
            "enum": ids,
        })
    }
}

/// The schema of a [`Level`]: `MUST` or `SHOULD`.
pub struct LevelName;

impl JsonSchema for LevelName {
    fn schema_name() -> Cow<'static, str> {
        "Level".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_rules::Level".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "enum": [Level::Must.as_str(), Level::Should.as_str()],
        })
    }
}

/// The schema of a draft revision: one that the revisions table (`spec-notes/revisions.toml`) lists.
pub(crate) struct Revision;

impl JsonSchema for Revision {
    fn schema_name() -> Cow<'static, str> {
        "Revision".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_contract::schema::Revision".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let table = Revisions::embedded();
        let revisions = table.all_numbers();
        let per_draft: Vec<String> = table
            .drafts()
            .into_iter()
            .map(|draft| format!("{draft}: {}", table.numbers(draft).join(", ")))
            .collect();
        json_schema!({
            "description": format!("A draft revision ({}).", per_draft.join("; ")),
            "type": "string",
            "enum": revisions,
        })
    }
}

/// The schema of a SHA-256 digest written as lowercase hex.
pub struct Sha256;

impl JsonSchema for Sha256 {
    fn schema_name() -> Cow<'static, str> {
        "Sha256".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_contract::schema::Sha256".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A SHA-256 digest, 64 lowercase hex digits.",
            "type": "string",
            "pattern": "^[0-9a-f]{64}$",
        })
    }
}

/// The schema of a receipt [`Tier`]: its name, each with what it asks.
pub(crate) struct TierName;

impl JsonSchema for TierName {
    fn schema_name() -> Cow<'static, str> {
        "Tier".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_rules::Tier".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let one_of: Vec<serde_json::Value> = Tier::ALL
            .iter()
            .map(|t| {
                serde_json::json!({
                    "description": t.describe(),
                    "type": "string",
                    "const": t.as_str(),
                })
            })
            .collect();
        json_schema!({
            "description": "The receipt tier a receipt vector is checked under: the contract's `TIER` argument.",
            "oneOf": one_of,
        })
    }
}

/// The schema of a GRP decision's outcome: `admitted` or `rejected`.
pub(crate) struct OutcomeName;

impl JsonSchema for OutcomeName {
    fn schema_name() -> Cow<'static, str> {
        "Outcome".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_rules::Outcome".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "What a GRP receiver decided for one event.",
            "type": "string",
            "enum": ["admitted", "rejected"],
        })
    }
}
