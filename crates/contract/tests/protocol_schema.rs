//! The persistent-mode schema (`crates/contract/schema/protocol.schema.json`) is generated from
//! the response types (`agentconf_contract::schema::protocol_schema`): the checked-in file is the
//! generated one, it accepts what a conforming server writes, and it rejects every response the
//! hand-written schema before it rejected (each broken case below was run against that one
//! first).

use agentconf_contract::schema::protocol_schema;
use serde_json::{json, Value};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/protocol.schema.json");

/// A validator of one definition, as `--validate-protocol` builds it: the root pointed at it.
fn validator(def: &str) -> jsonschema::Validator {
    let mut schema: Value = serde_json::from_str(&protocol_schema()).unwrap();
    let object = schema.as_object_mut().unwrap();
    object.remove("anyOf");
    object.insert("$ref".into(), format!("#/$defs/{def}").into());
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn the_checked_in_schema_is_the_generated_one() {
    let on_disk = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        on_disk == protocol_schema(),
        "{FILE} differs from the schema generated from the types: run `cargo xtask schemas`"
    );
    assert_eq!(agentconf_contract::protocol::SCHEMA, on_disk);
}

#[test]
fn what_a_conforming_server_writes_passes() {
    let start = validator("start_response");
    for ok in [
        json!({"protocol": 1, "implementation": {"name": "x", "version": ""},
               "capabilities": {"operations": []}}),
        json!({"protocol": 1, "implementation": {"name": "x", "version": "1"},
               "capabilities": {"operations": ["aer1-receipt", "aer1-timeline", "aer1-workflow"],
                                "timeline_revisions": ["06", "09"], "tiers": ["core", "profile"],
                                "id_tiers": ["core", "strict"]}, "extra": true}),
    ] {
        assert!(start.is_valid(&ok), "{ok}");
    }
    let run = validator("run_response");
    for ok in [
        json!({"seq": 1, "exit": 0, "verdict": "valid"}),
        json!({"seq": "a", "exit": 1, "verdict": "invalid", "rules": ["X"], "messages": ["m"]}),
        json!({"seq": [1], "exit": 89, "verdict": null}),
        json!({"seq": 1, "exit": -3}),
    ] {
        assert!(run.is_valid(&ok), "{ok}");
    }
    assert!(validator("stop_response").is_valid(&json!({"stopped": true, "bye": 1})));
}

#[test]
fn what_the_hand_written_schema_rejected_is_rejected() {
    let start_ok = json!({"protocol": 1, "implementation": {"name": "x", "version": "1"},
                          "capabilities": {"operations": ["aer1-timeline"]}});
    let edit = |path: &[&str], value: Option<Value>| {
        let mut v = start_ok.clone();
        let (last, parents) = path.split_last().unwrap();
        let mut at = &mut v;
        for p in parents {
            at = &mut at[*p];
        }
        match value {
            Some(value) => at[*last] = value,
            None => {
                at.as_object_mut().unwrap().remove(*last);
            }
        }
        v
    };
    let start = validator("start_response");
    for (what, broken) in [
        ("protocol 2", edit(&["protocol"], Some(json!(2)))),
        ("protocol \"1\"", edit(&["protocol"], Some(json!("1")))),
        ("no protocol", edit(&["protocol"], None)),
        ("no implementation", edit(&["implementation"], None)),
        (
            "empty name",
            edit(&["implementation", "name"], Some(json!(""))),
        ),
        ("no version", edit(&["implementation", "version"], None)),
        (
            "version a number",
            edit(&["implementation", "version"], Some(json!(1))),
        ),
        ("no capabilities", edit(&["capabilities"], None)),
        ("no operations", edit(&["capabilities", "operations"], None)),
        (
            "an operation served one-shot",
            edit(&["capabilities", "operations"], Some(json!(["grp-admit"]))),
        ),
        (
            "an operation twice",
            edit(
                &["capabilities", "operations"],
                Some(json!(["aer1-timeline", "aer1-timeline"])),
            ),
        ),
        (
            "a GRP revision",
            edit(&["capabilities", "timeline_revisions"], Some(json!(["01"]))),
        ),
        (
            "null revisions",
            edit(&["capabilities", "timeline_revisions"], Some(Value::Null)),
        ),
        (
            "an unknown tier",
            edit(&["capabilities", "tiers"], Some(json!(["gold"]))),
        ),
        (
            "a tier twice",
            edit(&["capabilities", "id_tiers"], Some(json!(["core", "core"]))),
        ),
    ] {
        assert!(!start.is_valid(&broken), "{what} passes: {broken}");
    }
    let run = validator("run_response");
    for broken in [
        json!({"exit": 0}),
        json!({"seq": 1}),
        json!({"seq": 1, "exit": "zero"}),
        json!({"seq": 1, "exit": 0.5}),
        json!({"seq": 1, "exit": 0, "verdict": "VALID"}),
        json!({"seq": 1, "exit": 0, "rules": "X"}),
        json!({"seq": 1, "exit": 0, "rules": [1]}),
        json!({"seq": 1, "exit": 0, "messages": [null]}),
    ] {
        assert!(!run.is_valid(&broken), "{broken}");
    }
    let stop = validator("stop_response");
    for broken in [
        json!({}),
        json!({"stopped": false}),
        json!({"stopped": "true"}),
    ] {
        assert!(!stop.is_valid(&broken), "{broken}");
    }
}
