//! The JSON Schemas of the vector files and the manifest are generated from the types
//! (`agentconf_contract::schema`) and checked in under `vectors/schema/`: the checked-in files are
//! the generated ones, the corpus passes them, and they still reject what the hand-written
//! schemas rejected before them (each negative case below was run against those first).

use std::path::{Path, PathBuf};

use agentconf_contract::schema::{manifest_schema, vector_schema};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn validator(text: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(text).expect("the generated schema is JSON");
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("not a valid schema: {e}"))
}

fn read(relative: &str) -> Value {
    let path = root().join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_checked_in_schemas_are_the_generated_ones() {
    for (relative, fresh) in [
        ("vectors/schema/vector.schema.json", vector_schema()),
        ("vectors/schema/manifest.schema.json", manifest_schema()),
    ] {
        let on_disk = std::fs::read_to_string(root().join(relative)).unwrap_or_default();
        assert!(
            on_disk == fresh,
            "{relative} differs from the schema generated from the types: run `cargo xtask schemas`"
        );
    }
}

#[test]
fn generation_is_deterministic_and_ends_with_a_newline() {
    assert_eq!(vector_schema(), vector_schema());
    assert_eq!(manifest_schema(), manifest_schema());
    for text in [vector_schema(), manifest_schema()] {
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert!(v["$id"].as_str().unwrap().starts_with("https://"));
        assert!(v["title"].is_string() && v["description"].is_string());
    }
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("schema") {
                json_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn the_generated_schemas_accept_every_committed_file() {
    let vector = validator(&vector_schema());
    let manifest = validator(&manifest_schema());
    let mut files = Vec::new();
    json_files(&root().join("vectors"), &mut files);
    assert!(
        files.len() > 500,
        "only {} files under vectors/",
        files.len()
    );
    for path in files {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let v = if path.ends_with("manifest.json") {
            &manifest
        } else {
            &vector
        };
        let errors: Vec<String> = v
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
}

/// One broken document: a committed file with one change.
struct Broken {
    what: &'static str,
    file: &'static str,
    change: fn(&mut Value),
}

const RECEIPT: &str = "vectors/aer1-receipt/anchored/extra-member.json";
const TIMELINE: &str = "vectors/aer1-timeline/revision06/shape-06-3.json";
const GRP: &str = "vectors/grp-admission/duplicate-event/concurrent-2-copies.json";
const MANIFEST: &str = "vectors/manifest.json";

/// Documents the hand-written vector schema rejected, and the generated one must too.
const BROKEN_VECTORS: &[Broken] = &[
    Broken {
        what: "an unknown top-level member",
        file: RECEIPT,
        change: |v| v["comment"] = json!("hello"),
    },
    Broken {
        what: "an unknown member of an input",
        file: RECEIPT,
        change: |v| v["inputs"][0]["mode"] = json!("0644"),
    },
    Broken {
        what: "an unknown member of options",
        file: RECEIPT,
        change: |v| v["options"]["strictness"] = json!("high"),
    },
    Broken {
        what: "an unknown member of a derivation",
        file: RECEIPT,
        change: |v| v["derivation"]["by"] = json!("me"),
    },
    Broken {
        what: "an unknown member of an other_revisions entry",
        file: TIMELINE,
        change: |v| v["other_revisions"][0]["note"] = json!("x"),
    },
    Broken {
        what: "an unknown member of a step",
        file: GRP,
        change: |v| v["scenario"]["steps"][1]["copies"] = json!(2),
    },
    Broken {
        what: "an unknown member of an expected decision",
        file: GRP,
        change: |v| v["expected_decisions"][0]["why"] = json!("x"),
    },
    Broken {
        what: "a missing id",
        file: RECEIPT,
        change: |v| {
            v.as_object_mut().unwrap().remove("id");
        },
    },
    Broken {
        what: "an id with uppercase letters",
        file: RECEIPT,
        change: |v| v["id"] = json!("aer1/receipt/anchored/Extra-Member"),
    },
    Broken {
        what: "an id with three segments",
        file: RECEIPT,
        change: |v| v["id"] = json!("aer1/receipt/extra-member"),
    },
    Broken {
        what: "a family with an underscore",
        file: RECEIPT,
        change: |v| v["family"] = json!("anchored_tier"),
    },
    Broken {
        what: "an unknown suite",
        file: RECEIPT,
        change: |v| v["suite"] = json!("aer1-anchor"),
    },
    Broken {
        what: "empty revisions",
        file: RECEIPT,
        change: |v| v["revisions"] = json!([]),
    },
    Broken {
        what: "an unknown revision",
        file: RECEIPT,
        change: |v| v["revisions"] = json!(["05"]),
    },
    Broken {
        what: "a revision twice",
        file: TIMELINE,
        change: |v| v["revisions"] = json!(["06", "06"]),
    },
    Broken {
        what: "empty revisions in an other_revisions entry",
        file: TIMELINE,
        change: |v| v["other_revisions"][0]["revisions"] = json!([]),
    },
    Broken {
        what: "an empty description",
        file: RECEIPT,
        change: |v| v["description"] = json!(""),
    },
    Broken {
        what: "no rules",
        file: RECEIPT,
        change: |v| v["rules"] = json!([]),
    },
    Broken {
        what: "a rule id of the wrong shape",
        file: RECEIPT,
        change: |v| v["rules"] = json!(["aer1-rc-anchor-members"]),
    },
    Broken {
        what: "an expected rule id of the wrong shape",
        file: RECEIPT,
        change: |v| v["expected_rules"] = json!(["ANCHOR"]),
    },
    Broken {
        what: "a rule twice",
        file: RECEIPT,
        change: |v| v["rules"] = json!(["AER1-RC-ANCHOR-MEMBERS", "AER1-RC-ANCHOR-MEMBERS"]),
    },
    Broken {
        what: "an unknown level",
        file: RECEIPT,
        change: |v| v["level"] = json!("MAY"),
    },
    Broken {
        what: "an unknown expectation",
        file: RECEIPT,
        change: |v| v["expectation"] = json!("maybe"),
    },
    Broken {
        what: "an invalid vector citing no rule",
        file: RECEIPT,
        change: |v| v["expected_rules"] = json!([]),
    },
    Broken {
        what: "a valid vector citing a rule",
        file: TIMELINE,
        change: |v| v["expected_rules"] = json!(["AER1-TL-LINK"]),
    },
    Broken {
        what: "an invalid vector with a flag",
        file: RECEIPT,
        change: |v| v["flags"] = json!(["interpretation"]),
    },
    Broken {
        what: "an acceptable vector without flags",
        file: RECEIPT,
        change: |v| v["expectation"] = json!("acceptable"),
    },
    Broken {
        what: "an unknown flag",
        file: RECEIPT,
        change: |v| {
            v["expectation"] = json!("acceptable");
            v["flags"] = json!(["because"]);
        },
    },
    Broken {
        what: "an other_revisions entry without a reason",
        file: TIMELINE,
        change: |v| {
            v["other_revisions"][0]
                .as_object_mut()
                .unwrap()
                .remove("reason");
        },
    },
    Broken {
        what: "an empty reason",
        file: TIMELINE,
        change: |v| v["other_revisions"][0]["reason"] = json!(""),
    },
    Broken {
        what: "an unknown tier",
        file: RECEIPT,
        change: |v| v["options"]["tier"] = json!("paranoid"),
    },
    Broken {
        what: "a null tier",
        file: RECEIPT,
        change: |v| v["options"]["tier"] = Value::Null,
    },
    Broken {
        what: "a null derivation",
        file: RECEIPT,
        change: |v| v["derivation"] = Value::Null,
    },
    Broken {
        what: "no inputs",
        file: RECEIPT,
        change: |v| v["inputs"] = json!([]),
    },
    Broken {
        what: "an unknown input role",
        file: RECEIPT,
        change: |v| v["inputs"][0]["role"] = json!("certificate"),
    },
    Broken {
        what: "an input file name with a slash",
        file: RECEIPT,
        change: |v| v["inputs"][0]["file"] = json!("../receipt.json"),
    },
    Broken {
        what: "an unknown encoding",
        file: RECEIPT,
        change: |v| v["inputs"][0]["encoding"] = json!("hex"),
    },
    Broken {
        what: "an uppercase sha256",
        file: RECEIPT,
        change: |v| {
            let upper = v["inputs"][0]["sha256"].as_str().unwrap().to_uppercase();
            v["inputs"][0]["sha256"] = json!(upper);
        },
    },
    Broken {
        what: "a short sha256",
        file: RECEIPT,
        change: |v| v["inputs"][0]["sha256"] = json!("7d936f4b"),
    },
    Broken {
        what: "a derivation with an empty mutation",
        file: RECEIPT,
        change: |v| v["derivation"]["mutation"] = json!(""),
    },
    Broken {
        what: "an unknown capability profile",
        file: GRP,
        change: |v| v["requires"] = json!(["fast"]),
    },
    Broken {
        what: "an empty scenario",
        file: GRP,
        change: |v| v["scenario"]["steps"] = json!([]),
    },
    Broken {
        what: "an unknown step",
        file: GRP,
        change: |v| v["scenario"]["steps"][1] = json!({"op": "wait"}),
    },
    Broken {
        what: "a concurrent step with one copy",
        file: GRP,
        change: |v| v["scenario"]["steps"][0]["copies"] = json!(1),
    },
    Broken {
        what: "a deliver step with a negative event",
        file: GRP,
        change: |v| v["scenario"]["steps"][1]["event"] = json!(-1),
    },
    Broken {
        what: "a deliver step without its event",
        file: GRP,
        change: |v| v["scenario"]["steps"][1] = json!({"op": "deliver"}),
    },
    Broken {
        what: "an unknown outcome",
        file: GRP,
        change: |v| v["expected_decisions"][0]["outcome"] = json!("deferred"),
    },
    Broken {
        what: "a null rejection reason",
        file: GRP,
        change: |v| v["expected_decisions"][1]["rejection_reason"] = Value::Null,
    },
    Broken {
        what: "a decision citing a rule id of the wrong shape",
        file: GRP,
        change: |v| v["expected_decisions"][1]["rule"] = json!("dup"),
    },
];

/// Documents the hand-written vector schema let through and the generated one rejects: the rule
/// ids are the catalogue's, not merely rule-shaped strings, and a derivation names a vector id.
const NEWLY_REJECTED_VECTORS: &[Broken] = &[
    Broken {
        what: "an unknown, well-formed rule id",
        file: RECEIPT,
        change: |v| v["rules"] = json!(["AER1-RC-NO-SUCH-RULE"]),
    },
    Broken {
        what: "an unknown, well-formed expected rule id",
        file: TIMELINE,
        change: |v| v["other_revisions"][0]["expected_rules"] = json!(["AER1-TL-NOPE"]),
    },
    Broken {
        what: "an unknown, well-formed rule id in a decision",
        file: GRP,
        change: |v| v["expected_decisions"][1]["rule"] = json!("GRP-NO-SUCH-RULE"),
    },
    Broken {
        what: "a derivation from something that is not a vector id",
        file: RECEIPT,
        change: |v| v["derivation"]["source"] = json!("the valid one"),
    },
];

/// Documents the hand-written manifest schema rejected, and the generated one must too.
const BROKEN_MANIFESTS: &[Broken] = &[
    Broken {
        what: "an unknown top-level member",
        file: MANIFEST,
        change: |v| v["generated_at"] = json!("today"),
    },
    Broken {
        what: "an unknown member of an entry",
        file: MANIFEST,
        change: |v| v["vectors"][0]["size"] = json!(10),
    },
    Broken {
        what: "a corpus digest of the wrong shape",
        file: MANIFEST,
        change: |v| v["corpus_digest"] = json!("sha256:0"),
    },
    Broken {
        what: "a negative vector count",
        file: MANIFEST,
        change: |v| v["vector_count"] = json!(-1),
    },
    Broken {
        what: "an entry's bad sha256",
        file: MANIFEST,
        change: |v| v["vectors"][0]["sha256"] = json!("abc"),
    },
    Broken {
        what: "an entry's path outside a suite directory",
        file: MANIFEST,
        change: |v| v["vectors"][0]["path"] = json!("valid.json"),
    },
    Broken {
        what: "an entry's unknown suite",
        file: MANIFEST,
        change: |v| v["vectors"][0]["suite"] = json!("aer2-receipt"),
    },
    Broken {
        what: "an entry's empty revisions",
        file: MANIFEST,
        change: |v| v["vectors"][0]["revisions"] = json!([]),
    },
    Broken {
        what: "an entry without rules",
        file: MANIFEST,
        change: |v| v["vectors"][0]["rules"] = json!([]),
    },
    Broken {
        what: "an entry's unknown level",
        file: MANIFEST,
        change: |v| v["vectors"][0]["level"] = json!("MAY"),
    },
    Broken {
        what: "an entry without an expectation",
        file: MANIFEST,
        change: |v| {
            v["vectors"][0]
                .as_object_mut()
                .unwrap()
                .remove("expectation");
        },
    },
];

/// Documents the hand-written manifest schema let through and the generated one rejects: the
/// entries' ids, families, revisions and rules are held to what a vector's are.
const NEWLY_REJECTED_MANIFESTS: &[Broken] = &[
    Broken {
        what: "an entry's unknown rule id",
        file: MANIFEST,
        change: |v| v["vectors"][0]["rules"] = json!(["AER1-NO-SUCH-RULE"]),
    },
    Broken {
        what: "an entry's id of the wrong shape",
        file: MANIFEST,
        change: |v| v["vectors"][0]["id"] = json!("Valid"),
    },
    Broken {
        what: "an entry's family with an underscore",
        file: MANIFEST,
        change: |v| v["vectors"][0]["family"] = json!("anchored_tier"),
    },
    Broken {
        what: "an entry's revision twice",
        file: MANIFEST,
        change: |v| v["vectors"][0]["revisions"] = json!(["09", "09"]),
    },
];

/// Broken documents the generated schema accepts: an empty list means none.
fn let_through(schema: &str, cases: &[Broken]) -> Vec<&'static str> {
    let validator = validator(schema);
    cases
        .iter()
        .filter(|case| {
            let mut v = read(case.file);
            assert!(
                validator.is_valid(&v),
                "{} does not pass before the change",
                case.file
            );
            (case.change)(&mut v);
            validator.is_valid(&v)
        })
        .map(|case| case.what)
        .collect()
}

#[test]
fn the_vector_schema_rejects_broken_vectors() {
    assert_eq!(
        let_through(&vector_schema(), BROKEN_VECTORS),
        Vec::<&str>::new()
    );
}

#[test]
fn the_vector_schema_is_stricter_than_the_hand_written_one() {
    assert_eq!(
        let_through(&vector_schema(), NEWLY_REJECTED_VECTORS),
        Vec::<&str>::new()
    );
}

#[test]
fn the_manifest_schema_rejects_broken_manifests() {
    assert_eq!(
        let_through(&manifest_schema(), BROKEN_MANIFESTS),
        Vec::<&str>::new()
    );
}

#[test]
fn the_manifest_schema_is_stricter_than_the_hand_written_one() {
    assert_eq!(
        let_through(&manifest_schema(), NEWLY_REJECTED_MANIFESTS),
        Vec::<&str>::new()
    );
}
