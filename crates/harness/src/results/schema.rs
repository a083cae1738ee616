//! The JSON Schema (2020-12) of a results file line (`crates/harness/schema/results.schema.json`),
//! generated from [`Line`] by [`results_schema`] (`cargo xtask schemas` writes it, `--check` and
//! a test hold the checked-in file equal), so the file and the serde model cannot drift apart.
//!
//! Two of the header's types, [`Grading`] and [`Containment`], live in modules this one leaves to
//! their owners; their schemas are the stand-ins below, each listing the values through an
//! exhaustive `match`, so a new variant does not compile until its schema says it.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

use super::Line;
use crate::grade::Grading;
use crate::process::Containment;

/// The `$id` of the results schema.
pub const RESULTS_SCHEMA_ID: &str = "https://agentconf.invalid/schema/results.schema.json";

/// The schema of one results file line: pretty JSON with a trailing newline, the same bytes on
/// every run.
pub fn results_schema() -> String {
    agentconf_contract::schema::render::<Line>(
        RESULTS_SCHEMA_ID,
        "agentconf results file line",
        "One line of a results file (JSON lines): a header, one result per case (a vector under \
         one revision), a footer.",
    )
}

/// A SHA-256 digest or null, for the members written as null when there is nothing to digest
/// (`adapter_digest`, `executable_sha256`): `with = "Option<Sha256>"` would drop the null of a
/// required member.
pub(crate) fn sha256_or_null(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A SHA-256 digest, 64 lowercase hex digits, or null.",
        "type": ["string", "null"],
        "pattern": "^[0-9a-f]{64}$",
    })
}

/// The schema of a [`Grading`]: its serde name.
pub(crate) struct GradingName;

impl JsonSchema for GradingName {
    fn schema_name() -> Cow<'static, str> {
        "Grading".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_harness::grade::Grading".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // Exhaustive: a new grading must be named here.
        let name = |g: Grading| match g {
            Grading::Strict | Grading::Loose => serde_json::to_value(g).unwrap_or_default(),
        };
        json_schema!({
            "description": "How strictly a rejection was graded.",
            "type": "string",
            "enum": [name(Grading::Strict), name(Grading::Loose)],
        })
    }
}

/// The schema of a [`Containment`]: its name, with what each one leaves reachable.
pub(crate) struct ContainmentName;

impl JsonSchema for ContainmentName {
    fn schema_name() -> Cow<'static, str> {
        "Containment".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agentconf_harness::process::Containment".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // Exhaustive: a new containment must be named here.
        let all = |c: Containment| match c {
            Containment::MountAndPidNamespace
            | Containment::UserMountAndPidNamespace
            | Containment::PidNamespace
            | Containment::UserAndPidNamespace
            | Containment::ProcessGroup => c.as_str(),
        };
        let names = [
            all(Containment::MountAndPidNamespace),
            all(Containment::UserMountAndPidNamespace),
            all(Containment::PidNamespace),
            all(Containment::UserAndPidNamespace),
            all(Containment::ProcessGroup),
        ];
        json_schema!({
            "description": "How the implementation's processes were contained (CONTRACT.md 3.3). \
                mount-and-pid-namespace (user-mount-and-pid-namespace: made inside a user \
                namespace): PID and mount namespaces of their own, whose processes all end when \
                the implementation exits, with a /proc showing only them and a /dev holding no \
                terminal of the system, no capabilities. pid-namespace (user-and-pid-namespace): \
                the system refused the mount namespace or the own /proc: the processes still all \
                end with the implementation, but /proc shows the whole system and /dev is the \
                system's, so a terminal another process holds open can be found and written to. \
                process-group: only a process group, which a process that moves to another \
                session escapes, and the terminal as reachable. Absent when no process ran (the \
                reference in process).",
            "type": "string",
            "enum": names,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/results.schema.json");

    #[test]
    fn the_checked_in_schema_is_the_generated_one() {
        let on_disk = std::fs::read_to_string(FILE).unwrap_or_default();
        assert!(
            on_disk == results_schema(),
            "{FILE} differs from the schema generated from the types: run `cargo xtask schemas`"
        );
    }

    /// Every line of a sealed file passes; lines the hand-written schema refused still fail.
    #[test]
    fn the_schema_takes_what_is_written_and_refuses_what_the_reader_refuses() {
        let schema: serde_json::Value = serde_json::from_str(&results_schema()).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut file = crate::report::snapshot_tests::file(true);
        file.header.adapter_digest = None;
        file.seal(12_345);
        let lines: Vec<serde_json::Value> =
            std::iter::once(serde_json::to_value(Line::Header(file.header.clone())).unwrap())
                .chain(
                    file.results
                        .iter()
                        .map(|r| serde_json::to_value(Line::Result(r.clone())).unwrap()),
                )
                .chain(
                    file.footer
                        .iter()
                        .map(|f| serde_json::to_value(Line::Footer(f.clone())).unwrap()),
                )
                .collect();
        for line in &lines {
            assert!(validator.is_valid(line), "{line}");
        }
        let broken = |n: usize, edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = lines[n].clone();
            edit(&mut v);
            v
        };
        let last = lines.len() - 1;
        for (what, v) in [
            ("unknown header member", broken(0, &|v| v["x"] = 1.into())),
            (
                "no adapter_digest",
                broken(0, &|v| {
                    v.as_object_mut().unwrap().remove("adapter_digest");
                }),
            ),
            (
                "short digest",
                broken(0, &|v| v["corpus_digest"] = "ab".into()),
            ),
            ("other format", broken(0, &|v| v["format"] = "x/2".into())),
            (
                "unknown grading",
                broken(0, &|v| v["grading"] = "lax".into()),
            ),
            (
                "unknown profile",
                broken(0, &|v| v["profiles"] = serde_json::json!(["fast"])),
            ),
            (
                "unknown containment",
                broken(0, &|v| v["containment"] = "jail".into()),
            ),
            (
                "closed implementation",
                broken(0, &|v| v["implementation"]["x"] = 1.into()),
            ),
            ("unknown result member", broken(1, &|v| v["x"] = 1.into())),
            ("unknown level", broken(1, &|v| v["level"] = "MAY".into())),
            ("unknown status", broken(1, &|v| v["status"] = "ok".into())),
            (
                "empty broken_rules",
                broken(1, &|v| v["broken_rules"] = serde_json::json!([])),
            ),
            (
                "null revision",
                broken(1, &|v| v["revision"] = serde_json::Value::Null),
            ),
            (
                "negative duration",
                broken(1, &|v| v["duration_ms"] = (-1).into()),
            ),
            (
                "interrupted false",
                broken(last, &|v| v["interrupted"] = false.into()),
            ),
            (
                "unknown footer member",
                broken(last, &|v| v["x"] = 1.into()),
            ),
        ] {
            assert!(!validator.is_valid(&v), "{what} passes: {v}");
        }
    }
}
