use std::collections::BTreeSet;

use agentconf_contract::call::{Call, Operation};
use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::vector::{Tier, Vector};
use agentconf_rules::Rule;

use super::error::Problem;
use super::template::Placeholder;
use super::*;

fn known() -> BTreeSet<String> {
    [
        "a/b/c/d",
        "a/b/c/e",
        "a/b/c/e@06",
        "a/b/f/g",
        "aer1/timeline/hostile/empty-file",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}

fn parse(text: &str) -> Result<Adapter, AdapterErrors> {
    Adapter::parse(text, &known())
}

fn timeline(commitment: Option<&str>) -> Call {
    Call::Timeline {
        revision: "09".into(),
        timeline: "t.json".into(),
        commitment: commitment.map(String::from),
    }
}

#[test]
fn parses_and_applies() {
    let text = r#"
        command = ["tool"]
        profiles = ["durable"]
        crash_on_stderr = ["Traceback (most recent call last)", "panicked at"]
        [operations.aer1-timeline]
        argv = ["check", "--rev={revision}", "{timeline}"]
        argv_with_commitment = ["check", "--rev={revision}", "--c", "{commitment}", "{timeline}"]
        [operations.aer1-receipt]
        argv = ["receipt", "{receipt}", "--tier", "{tier}"]
        [exit_codes]
        0 = "accept"
        3 = "reject"
        [[error_map]]
        pattern = "bad base64"
        rule = "AER1-TL-B64"
        operation = "aer1-timeline"
        [[error_map]]
        pattern = "bad base64"
        rule = "AER1-RC-B64"
        operation = "aer1-receipt"
        [[error_map]]
        pattern = "gap"
        rule = "AER1-TL-SEQ"
        vectors = ["a/b/c/e"]
        [[skip]]
        id = "a/b/c/d"
        reason = "by design"
        [[skip]]
        glob = "a/b/f/*"
        reason = "a family out of scope"
    "#;
    let a = parse(text).unwrap();
    assert_eq!(a.command, ["tool"]);
    assert_eq!(
        a.arguments(&timeline(None)),
        ["check", "--rev=09", "t.json"]
    );
    assert_eq!(
        a.arguments(&timeline(Some("c.json"))),
        ["check", "--rev=09", "--c", "c.json", "t.json"]
    );
    let receipt = |tier: Option<Tier>| Call::receipt("r.json".into(), tier);
    assert_eq!(
        a.arguments(&receipt(None)),
        ["receipt", "r.json", "--tier", "core"]
    );
    assert_eq!(
        a.arguments(&receipt(Some(Tier::Anchored))),
        ["receipt", "r.json", "--tier", "anchored"]
    );
    // No template: the contract's order.
    let workflow = Call::Workflow {
        workflow: "w.json".into(),
    };
    assert_eq!(a.arguments(&workflow), ["aer1-workflow", "w.json"]);
    assert!(a.has_template(Operation::Aer1Timeline) && !a.has_template(Operation::Aer1Workflow));
    assert_eq!(a.exit_meaning(Some(3)), ExitMeaning::Reject);
    assert_eq!(a.exit_meaning(Some(1)), ExitMeaning::Crash);
    assert_eq!(a.exit_meaning(None), ExitMeaning::Crash);
    // One message, a rule per operation; a per-case mapping only for its case.
    let tl = Operation::Aer1Timeline;
    assert_eq!(
        a.mapped_rules(tl, "a/b/c/d", "ERROR: bad base64 and gap"),
        [Rule::Aer1TlB64]
    );
    assert_eq!(
        a.mapped_rules(tl, "a/b/c/e", "ERROR: bad base64 and gap"),
        [Rule::Aer1TlB64, Rule::Aer1TlSeq]
    );
    assert_eq!(
        a.mapped_rules(Operation::Aer1Receipt, "a/b/c/d", "bad base64"),
        [Rule::Aer1RcB64]
    );
    assert!(a
        .mapped_rules(Operation::Aer1Workflow, "a/b/c/d", "bad base64")
        .is_empty());
    assert_eq!(a.skip_reason("a/b/c/d"), Some("by design"));
    assert_eq!(a.skip_reason("a/b/f/g"), Some("a family out of scope"));
    assert_eq!(a.skip_reason("a/b/c/e"), None);
    assert_eq!(
        a.crash_pattern(b"x\nthread 'main' panicked at src/main.rs"),
        Some("panicked at")
    );
    assert_eq!(a.crash_pattern(b"warning: slow"), None);
    // Templates, exit codes and error maps shape one-shot calls: each is refused in
    // persistent mode, top to bottom.
    let e = a.check_persistent().unwrap_err();
    let lines: Vec<Option<usize>> = e.all().iter().map(|e| e.line).collect();
    assert_eq!(lines, [6, 7, 9, 10, 13, 17, 21].map(Some), "{e}");
    assert!(
        e.first()
            .to_string()
            .contains("[operations.aer1-timeline] argv"),
        "{e}"
    );
    // The same, with the file read for a persistent run.
    assert_eq!(
        Adapter::parse_for(text, &known(), Mode::Persistent).unwrap_err(),
        e
    );
}

/// A value is substituted once: a path that happens to contain `{tier}` is passed as it is.
#[test]
fn placeholders_are_filled_once() {
    let a = parse("[operations.aer1-receipt]\nargv = [\"{receipt}\", \"{tier}\"]\n").unwrap();
    let call = Call::receipt("/tmp/{tier}/r.json".into(), Some(Tier::Strict));
    assert_eq!(a.arguments(&call), ["/tmp/{tier}/r.json", "strict"]);
    // Braces that are not a placeholder are text.
    let a = parse(
        "[operations.aer1-workflow]\nargv = [\"--opts={\\\"a\\\":1}\", \"{}\", \"{workflow}\"]\n",
    )
    .unwrap();
    let call = Call::Workflow {
        workflow: "w.json".into(),
    };
    assert_eq!(a.arguments(&call), ["--opts={\"a\":1}", "{}", "w.json"]);
}

/// Every mistake is refused with its line and what is wrong, as a typed problem.
#[test]
fn mistakes_name_their_line() {
    // The file, the line the error must name, and what the problem must be.
    type Case = (&'static str, usize, fn(&Problem) -> bool);
    let cases: &[Case] = &[
        ("x = 1", 1, |p| matches!(p, Problem::Toml(m) if m.contains("`x`"))),
        ("name = \"n\"\nprofiles = [\"fast\"]", 2, |p| {
            matches!(p, Problem::UnknownProfile(_))
        }),
        ("\n[operations.aer1-timelines]\nargv = []", 2, |p| {
            matches!(p, Problem::UnknownOperation(n) if n == "aer1-timelines")
        }),
        (
            "[operations.aer1-workflow]\nargv = [\"a\",\n\"{file}\"]",
            3,
            |p| matches!(p, Problem::UnknownPlaceholder { name, .. } if name == "file"),
        ),
        (
            // A placeholder of another operation, named as written.
            "[operations.aer1-timeline]\nargv = [\"{revision}\", \"{timeline}\", \"{id_tier}\"]",
            2,
            |p| matches!(p, Problem::UnknownPlaceholder { name, .. } if name == "id_tier"),
        ),
        (
            "[operations.aer1-timeline]\nargv = [\"{revision}\", \"{timeline}\", \"{commitment}\"]",
            2,
            |p| matches!(p, Problem::CommitmentOutsideItsTemplate),
        ),
        (
            "[operations.aer1-timeline]\nargv = [\"{revision}\", \"{timeline}\"]\nargv_with_commitment = [\"{revision}\", \"{timeline}\"]",
            3,
            |p| {
                matches!(p, Problem::MissingInput { placeholder: Placeholder::Commitment, .. })
            },
        ),
        ("[operations.aer1-receipt]\nargv = [\"{tier}\"]", 2, |p| {
            matches!(p, Problem::MissingInput { placeholder: Placeholder::Receipt, .. })
        }),
        ("[operations.aer1-receipt]\nargv = [\"{receipt}\"]", 2, |p| {
            matches!(p, Problem::MissingValue { placeholder: Placeholder::Tier, .. })
        }),
        ("[operations.aer1-timeline]\nargv = [\"{timeline}\"]", 2, |p| {
            matches!(p, Problem::MissingValue { placeholder: Placeholder::Revision, .. })
        }),
        ("profiles = [\"cluster\"]\n[grp]\nstore_addr = \"db\"", 3, |p| {
            matches!(p, Problem::StoreAddress(a) if a == "db")
        }),
        (
            "[operations.aer1-timeline]\nargv = [\"{timeline}\"]\nrevisions = [\"06\", \"09\"]",
            2,
            |p| matches!(p, Problem::IndistinctValues { values, .. } if values.len() == 2),
        ),
        ("[operations.aer1-receipt]\ntiers = [\"core\", \"loose\"]", 2, |p| {
            matches!(p, Problem::UnknownValue { value, .. } if value == "loose")
        }),
        ("[operations.grp-admit]\nrevisions = [\"09\"]", 2, |p| {
            matches!(p, Problem::UnknownValue { value, .. } if value == "09")
        }),
        ("[operations.aer1-receipt]\ntiers = []", 2, |p| {
            matches!(p, Problem::EmptyDeclaration { .. })
        }),
        ("[operations.aer1-receipt]\nrevisions = [\"09\"]", 2, |p| {
            matches!(p, Problem::NotForOperation { key: "revisions", .. })
        }),
        ("[operations.aer1-workflow]\ntiers = [\"core\"]", 2, |p| {
            matches!(p, Problem::NotForOperation { key: "tiers", .. })
        }),
        (
            "[operations.aer1-receipt]\nargv_with_commitment = [\"{receipt}\", \"{tier}\"]",
            2,
            |p| matches!(p, Problem::NotForOperation { key: "argv_with_commitment", .. }),
        ),
        ("[operations.grp-admit]\nargv = [\"x\"]", 2, |p| {
            matches!(p, Problem::NotForOperation { key: "argv", .. })
        }),
        (
            "[operations.aer1-timeline]\nargv_with_commitment = [\"{revision}\", \"{timeline}\", \"{commitment}\"]",
            2,
            |p| matches!(p, Problem::CommitmentTemplateAlone),
        ),
        (
            "[operations.aer1-workflow]\nunsupported = true\nargv = [\"{workflow}\"]",
            2,
            |p| matches!(p, Problem::UnsupportedWithOthers { key: "argv", .. }),
        ),
        ("[exit_codes]\nzero = \"accept\"", 2, |p| {
            matches!(p, Problem::ExitCodeNotANumber(_))
        }),
        ("[exit_codes]\n0 = \"fine\"", 2, |p| {
            matches!(p, Problem::ExitCodeMeaning { .. })
        }),
        ("[[error_map]]\npattern = \"x\"\nrule = \"NOPE\"", 3, |p| {
            matches!(p, Problem::UnknownRule(_))
        }),
        ("[[error_map]]\npattern = \"\"\nrule = \"AER1-TL-B64\"", 2, |p| {
            matches!(p, Problem::EmptyPattern { .. })
        }),
        (
            "[[error_map]]\npattern = \"x\"\nrule = \"AER1-TL-B64\"\noperation = \"grp-admit\"",
            4,
            |p| matches!(p, Problem::NotAnErrorMapOperation(_)),
        ),
        (
            "[[error_map]]\npattern = \"x\"\nrule = \"AER1-TL-B64\"\nvectors = [\"a/b/c/zz\"]",
            4,
            |p| matches!(p, Problem::UnknownCase { key: "error_map vectors", .. }),
        ),
        ("crash_on_stderr = [\"\"]", 1, |p| {
            matches!(p, Problem::EmptyPattern { key: "crash_on_stderr" })
        }),
        ("[[skip]]\nid = \"a/b/*\"\nreason = \"glob\"", 2, |p| {
            matches!(p, Problem::UnknownCase { key: "skip", .. })
        }),
        ("[[skip]]\nglob = \"a/x/*\"\nreason = \"typo\"", 2, |p| {
            matches!(p, Problem::GlobMatchesNothing(_))
        }),
        ("[[skip]]\nid = \"a/b/c/d\"\nglob = \"a/b/*/*\"\nreason = \"x\"", 1, |p| {
            matches!(p, Problem::SkipTarget { both: true })
        }),
        ("[[skip]]\nreason = \"x\"", 1, |p| {
            matches!(p, Problem::SkipTarget { both: false })
        }),
        ("[[skip]]\nglob = \"a/b/*/*\"", 1, |p| {
            matches!(p, Problem::NoReason { key: "skip", .. })
        }),
        ("[[xfail]]\nid = \"a/b/c/d\"\nreason = \" \"", 1, |p| {
            matches!(p, Problem::NoReason { key: "xfail", .. })
        }),
        ("[[xfail]]\nid = \"a/b/c/*\"\nreason = \"x\"", 2, |p| {
            matches!(p, Problem::ExpectedFailureNotExact(_))
        }),
        ("[[xfail]]\nglob = \"a/b/c/*\"\nreason = \"x\"", 2, |p| {
            matches!(p, Problem::ExpectedFailureNotExact(_))
        }),
        ("[[xfail]]\nreason = \"x\"", 1, |p| {
            matches!(p, Problem::ExpectedFailureWithoutId)
        }),
        (
            "[[xfail]]\nid = \"a/b/c/d\"\nreason = \"x\"\n[[skip]]\nid = \"a/b/c/d\"\nreason = \"y\"",
            5,
            |p| matches!(p, Problem::ListedTwice { first_line: 2, .. }),
        ),
        (
            "[[skip]]\nglob = \"a/b/c/*\"\nreason = \"x\"\n[[xfail]]\nid = \"a/b/c/e@06\"\nreason = \"y\"",
            5,
            |p| matches!(p, Problem::ExpectedFailureSkipped { glob_line: 2, .. }),
        ),
    ];
    let mut wrong = Vec::new();
    for (text, line, is) in cases {
        match parse(text).map_err(|e| e.first().clone()) {
            Ok(_) => wrong.push(format!("accepted: {text}")),
            Err(e) if e.line != Some(*line) || !is(&e.problem) => {
                wrong.push(format!("{text}\n  -> {e} ({:?})", e.problem))
            }
            Err(e) => {
                let shown = e.to_string();
                assert!(
                    shown.starts_with(&format!("line {line}: ")) && !shown.contains('\n'),
                    "{shown}"
                );
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Untrusted text in a message stays on one line.
#[test]
fn messages_escape_what_the_file_says() {
    let e = parse("[operations.\"aer1-\\nreceipt\"]\nunsupported = true").unwrap_err();
    assert_eq!(e.all().len(), 1);
    assert_eq!(e.first().line, Some(1));
    assert!(e.to_string().contains("aer1-\\nreceipt"), "{e}");
    assert!(!e.to_string().contains('\n'));
    // The TOML reader's own message, one line.
    let e = parse("argv = [\"unclosed\"\n").unwrap_err();
    assert!(!e.to_string().contains('\n'), "{e}");
}

/// A retired id is named as retired, with what replaced it, even when a caller's list of
/// known ids would contain it.
#[test]
fn retired_ids_name_their_replacement() {
    let old = "aer1/timeline/revision06/example-06-5-under-current";
    let mut known = known();
    known.insert(old.to_string());
    let e =
        Adapter::parse(&format!("[[skip]]\nid = \"{old}\"\nreason = \"x\""), &known).unwrap_err();
    assert!(matches!(e.first().problem, Problem::RetiredId { .. }));
    assert!(
        e.to_string().contains("retired") && e.to_string().contains("example-06-5@09"),
        "{e}"
    );
}

#[test]
fn xfail_file_round_trips() {
    let text = xfail_toml(&[("a/b/c/d".into(), "false-accept".into())]);
    let a = parse(&text).unwrap();
    assert_eq!(a.xfail.len(), 1);
    assert!(a.xfail_reason("a/b/c/d").is_some());
}

#[test]
fn the_tiers_are_the_contracts() {
    let names: Vec<&str> = Tier::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(parse::TIERS, names);
}

/// A vector of `suite`, run under `revisions`, with `options` and input roles, for `declines`.
fn vector(suite: &str, revisions: &[&str], tier: Option<&str>, roles: &[&str]) -> Vector {
    let inputs: Vec<serde_json::Value> = roles
        .iter()
        .map(|r| {
            serde_json::json!({"role": r, "file": format!("{r}.json"), "encoding": "utf8",
                "content": "{}", "sha256": "0".repeat(64)})
        })
        .collect();
    let mut v = serde_json::json!({
        "id": "a/b/c/d", "suite": suite, "family": "c", "revisions": revisions,
        "description": "d", "rules": ["AER1-TL-B64"], "level": "MUST", "expectation": "valid",
        "expected_rules": [], "flags": [], "inputs": inputs,
    });
    if let Some(t) = tier {
        v["options"] = serde_json::json!({ "tier": t });
    }
    serde_json::from_value(v).unwrap()
}

/// What an adapter declares the tool does not take is unsupported; everything else runs.
#[test]
fn declarations_decline_cases() {
    let a = parse(
        "[operations.aer1-receipt]\nargv = [\"{receipt}\"]\ntiers = [\"core\"]\n\
         [operations.aer1-timeline]\nargv = [\"{timeline}\"]\nrevisions = [\"09\"]\n\
         [operations.aer1-workflow]\nunsupported = true\n\
         [operations.grp-admit]\nrevisions = [\"01\"]\n",
    )
    .unwrap();
    let declines = |v: &Vector| a.declines(&v.main_case());
    assert_eq!(
        declines(&vector("aer1-receipt", &["09"], None, &["receipt"])),
        None
    );
    let anchored = declines(&vector(
        "aer1-receipt",
        &["09"],
        Some("anchored"),
        &["receipt"],
    ));
    assert!(
        anchored
            .as_deref()
            .is_some_and(|d| d.contains("tiers core (line 3)") && d.contains("anchored")),
        "{anchored:?}"
    );
    assert_eq!(
        declines(&vector("aer1-timeline", &["09"], None, &["timeline"])),
        None
    );
    assert!(declines(&vector("aer1-timeline", &["06"], None, &["timeline"])).is_some());
    let committed = declines(&vector(
        "aer1-timeline",
        &["09"],
        None,
        &["timeline", "commitment"],
    ));
    assert!(
        committed
            .as_deref()
            .is_some_and(|d| d.contains("argv_with_commitment")),
        "{committed:?}"
    );
    assert!(
        declines(&vector("aer1-workflow", &["09"], None, &["workflow"]))
            .is_some_and(|d| d.contains("unsupported (line 7)"))
    );
    assert!(declines(&vector(
        "grp-admission",
        &["00"],
        None,
        &["session", "events"]
    ))
    .is_some());
    assert_eq!(
        declines(&vector(
            "grp-admission",
            &["01"],
            None,
            &["session", "events"]
        )),
        None
    );
    // Declarations alone (no template) apply too, and in persistent mode.
    assert!(a.check_persistent().is_err());
    let b = parse("[operations.aer1-workflow]\nunsupported = true\n").unwrap();
    assert!(b.check_persistent().is_ok());
    assert!(b
        .declines(&vector("aer1-workflow", &["09"], None, &["workflow"]).main_case())
        .is_some());
}

/// `implements` leaves every other operation unsupported, naming its line; the operations it
/// lists still take their tables.
#[test]
fn implements_declines_every_other_operation() {
    let a = parse(
        "command = [\"tool\"]\nimplements = [\"aer1-timeline\"]\n\
         [operations.aer1-timeline]\nargv = [\"{timeline}\"]\nrevisions = [\"09\"]\n",
    )
    .unwrap();
    let declines = |v: &Vector| a.declines(&v.main_case());
    assert_eq!(
        declines(&vector("aer1-timeline", &["09"], None, &["timeline"])),
        None
    );
    // The listed operation's own declarations still apply.
    assert!(
        declines(&vector("aer1-timeline", &["06"], None, &["timeline"]))
            .is_some_and(|d| d.contains("revisions 09"))
    );
    for (suite, roles) in [
        ("aer1-receipt", &["receipt"][..]),
        ("aer1-workflow", &["workflow"]),
        ("grp-admission", &["session", "events"]),
        ("aer1-emit-timeline", &["steps"]),
        ("aer1-emit-commitment", &["timeline"]),
        ("aer1-emit-receipt", &["payload", "meta"]),
    ] {
        let why = declines(&vector(suite, &["09"], None, roles));
        assert!(
            why.as_deref()
                .is_some_and(|d| d.contains("implements aer1-timeline only (line 2)")),
            "{suite}: {why:?}"
        );
    }
    // Several operations, in any order.
    let b = parse("implements = [\"grp-admit\", \"aer1-receipt\"]\n").unwrap();
    assert_eq!(
        b.declines(&vector("aer1-receipt", &["09"], None, &["receipt"]).main_case()),
        None
    );
    assert!(b
        .declines(&vector("aer1-timeline", &["09"], None, &["timeline"]).main_case())
        .is_some_and(|d| d.contains("implements grp-admit, aer1-receipt only")));
}

/// What `implements` cannot say: an unknown operation, nothing, or a table that contradicts it
/// or that it makes pointless. Each is named with its line, all in one pass.
#[test]
fn implements_mistakes_are_named() {
    let text = "implements = [\"aer1-timeline\", \"aer1-timelines\"]\n\
                [operations.aer1-receipt]\nargv = [\"{receipt}\", \"{tier}\"]\n\
                [operations.aer1-timeline]\nunsupported = true\n";
    let errors = parse(text).unwrap_err();
    let found: Vec<(Option<usize>, &Problem)> =
        errors.all().iter().map(|e| (e.line, &e.problem)).collect();
    assert!(
        matches!(found.as_slice(), [
            (Some(1), Problem::UnknownImplemented(name)),
            (Some(2), Problem::OutsideImplements { operation: Operation::Aer1Receipt, implements_line: 1, listed: false }),
            (Some(4), Problem::OutsideImplements { operation: Operation::Aer1Timeline, implements_line: 1, listed: true }),
        ] if name == "aer1-timelines"),
        "{errors}"
    );
    let text = errors.to_string();
    assert!(
        text.contains("add it to implements, or remove the table"),
        "{text}"
    );
    assert!(text.contains("lists it: remove one"), "{text}");
    let empty = parse("implements = []\n").unwrap_err();
    assert!(
        matches!(empty.first().problem, Problem::NothingImplemented),
        "{empty}"
    );
}

/// `{id_tier}`, the tier's name before agentconf 0.2.0, is sent `core` and `strict` only: the
/// anchored and profile cases are unsupported for that adapter, never handed to its tool.
#[test]
fn id_tier_templates_are_sent_core_and_strict_only() {
    let old = "[operations.aer1-receipt]\nargv = [\"{receipt}\", \"--tier\", \"{id_tier}\"]\n";
    let a = parse(old).unwrap();
    let receipt = |tier: Option<&str>| vector("aer1-receipt", &["09"], tier, &["receipt"]);
    for tier in [None, Some("core"), Some("strict")] {
        assert_eq!(a.declines(&receipt(tier).main_case()), None, "{tier:?}");
    }
    for tier in ["anchored", "profile"] {
        let declined = a.declines(&receipt(Some(tier)).main_case());
        assert!(
            declined.as_deref().is_some_and(|d| d.contains("{id_tier}")
                && d.contains("core and strict")
                && d.contains(tier)
                && d.contains("(line 2)")),
            "{tier}: {declined:?}"
        );
    }
    // What is sent is the case's tier, under either name.
    let strict = Call::receipt("r.json".into(), Some(Tier::Strict));
    assert_eq!(a.arguments(&strict), ["r.json", "--tier", "strict"]);
    // `{tier}` itself is sent every tier.
    let new = parse(&old.replace("{id_tier}", "{tier}")).unwrap();
    assert_eq!(new.declines(&receipt(Some("anchored")).main_case()), None);
    // A list of its own may narrow the old name's tiers...
    let narrowed = parse(&format!("{old}tiers = [\"core\"]\n")).unwrap();
    assert!(narrowed
        .declines(&receipt(Some("strict")).main_case())
        .is_some());
    // ...but not name a tier the old name never had.
    let e = parse(&format!("{old}tiers = [\"core\", \"anchored\"]\n")).unwrap_err();
    assert!(
        matches!(&e.first().problem, Problem::IdTierWithNewerTiers { tiers_line: 3, newer } if newer == &["anchored"]),
        "{e}"
    );
    assert_eq!(e.first().line, Some(2));
    assert!(e.to_string().contains("write {tier}"), "{e}");
}

/// A retired rule id names the rules that took its place, in an error map and where a case id
/// belongs.
#[test]
fn retired_rule_ids_name_their_successors() {
    let catalogue = agentconf_rules::Catalogue::embedded();
    let retired = catalogue.retired();
    assert!(!retired.is_empty());
    for record in retired {
        // Every successor is a current rule that the record's reason names.
        let now = parse::successors(record);
        assert!(!now.is_empty(), "{}: {}", record.id, record.reason);
        assert_eq!(now.len(), record.replaced_by.len(), "{}", record.id);
        for id in &now {
            assert!(Rule::from_id(id).is_some() && record.reason.contains(id));
        }
        let e = parse(&format!(
            "[[error_map]]\npattern = \"x\"\nrule = \"{}\"\n",
            record.id
        ))
        .unwrap_err();
        assert!(
            matches!(&e.first().problem, Problem::RetiredRule { successors, .. } if *successors == now),
            "{e}"
        );
        assert_eq!(e.first().line, Some(3));
        let shown = e.to_string();
        assert!(
            shown.contains(&record.retired_in) && now.iter().all(|id| shown.contains(id)),
            "{shown}"
        );
        let e = parse(&format!(
            "[[xfail]]\nid = \"{}\"\nreason = \"x\"\n",
            record.id
        ))
        .unwrap_err()
        .to_string();
        assert!(
            now.iter().all(|id| e.contains(id)) && e.contains("xfail takes case ids"),
            "{e}"
        );
    }
}

/// An error map reports a rule only for output whose answers can cite it.
#[test]
fn error_map_rules_belong_to_the_operation_suite() {
    let mapping = |rule: &str, scope: &str| {
        parse(&format!(
            "[[error_map]]\npattern = \"x\"\nrule = \"{rule}\"\n{scope}"
        ))
    };
    // Accepted: the rule's own operation, JSON rules anywhere, per-case maps of the rule's
    // suite, and a mapping for every operation when one of them cites the rule.
    for (rule, scope) in [
        ("AER1-RC-B64", "operation = \"aer1-receipt\""),
        ("AER1-CM-FINAL", "operation = \"aer1-timeline\""),
        ("AER1-JSON-SYNTAX", "operation = \"aer1-workflow\""),
        (
            "AER1-TL-SEQ",
            "vectors = [\"aer1/timeline/hostile/empty-file\"]",
        ),
        ("AER1-WF-HEX", ""),
    ] {
        assert!(mapping(rule, scope).is_ok(), "{rule} {scope}");
    }
    let e = mapping("AER1-RC-B64", "operation = \"aer1-workflow\"").unwrap_err();
    assert!(
        matches!(&e.first().problem, Problem::RuleOfAnotherSuite { rule: "AER1-RC-B64", operations, suites }
            if *operations == [Operation::Aer1Workflow] && *suites == [Suite::Aer1Receipt]),
        "{e}"
    );
    assert_eq!(e.first().line, Some(3));
    let shown = e.to_string();
    assert!(
        shown.contains("aer1-workflow")
            && shown.contains("aer1-receipt")
            && shown.contains("operation = \"aer1-receipt\""),
        "{shown}"
    );
    let e = mapping(
        "AER1-RC-B64",
        "vectors = [\"aer1/timeline/hostile/empty-file\"]",
    )
    .unwrap_err();
    assert!(
        matches!(&e.first().problem, Problem::RuleOfAnotherSuite { operations, .. }
            if *operations == [Operation::Aer1Timeline]),
        "{e}"
    );
    // A GRP rule: no output an error map reads cites it.
    let e = mapping("GRP-SIG-VERIFY", "").unwrap_err().to_string();
    assert!(
        e.contains("grp-admission") && e.contains("cannot report it"),
        "{e}"
    );
}

/// The suites a rule is cited by come from its catalogue family: every family is known.
#[test]
fn every_rule_has_the_suites_that_cite_it() {
    for rule in Rule::ALL {
        let suites = suites_citing(*rule);
        assert!(
            suites.is_some_and(|s| !s.is_empty()),
            "{} (family {})",
            rule.id(),
            rule.record().family
        );
    }
}

/// Every mistake of a file is reported at once, in line order, one per line of the message.
#[test]
fn every_mistake_is_reported_in_one_pass() {
    let text = "profiles = [\"fast\"]\n\
                [operations.aer1-workflow]\nargv = [\"{file}\"]\n\
                [operations.aer1-receipt]\nargv = [\"{receipt}\"]\n\
                [exit_codes]\n0 = \"fine\"\n\
                [[error_map]]\npattern = \"x\"\nrule = \"NOPE\"\n\
                [[skip]]\nid = \"a/b/c/zz\"\nreason = \"x\"\n\
                [[xfail]]\nid = \"a/b/c/d\"\n";
    let e = parse(text).unwrap_err();
    let found: Vec<(Option<usize>, &Problem)> =
        e.all().iter().map(|e| (e.line, &e.problem)).collect();
    // The line of each mistake, and what the problem must be.
    type Expected = (usize, fn(&Problem) -> bool);
    let expected: [Expected; 7] = [
        (1, |p| matches!(p, Problem::UnknownProfile(_))),
        (3, |p| matches!(p, Problem::UnknownPlaceholder { .. })),
        (5, |p| matches!(p, Problem::MissingValue { .. })),
        (7, |p| matches!(p, Problem::ExitCodeMeaning { .. })),
        (10, |p| matches!(p, Problem::UnknownRule(_))),
        (12, |p| matches!(p, Problem::UnknownCase { .. })),
        (14, |p| matches!(p, Problem::NoReason { key: "xfail", .. })),
    ];
    assert_eq!(found.len(), expected.len(), "{e}");
    for ((line, problem), (want, is)) in found.iter().zip(expected) {
        assert!(*line == Some(want) && is(problem), "line {want}: {e}");
    }
    assert_eq!(e.to_string().lines().count(), expected.len());
    // In persistent mode the one-shot parts are listed with them.
    let persistent = Adapter::parse_for(text, &known(), Mode::Persistent).unwrap_err();
    assert_eq!(persistent.all().len(), expected.len() + 4, "{persistent}");
}

/// `cluster` is a profile, and `[grp] store_addr` the address its nodes' proxies forward to.
#[test]
fn a_cluster_receiver_names_its_store() {
    let text = "profiles = [\"cluster\"]\n[grp]\nstore_addr = \"127.0.0.1:5432\"\n";
    let a = Adapter::parse(text, &BTreeSet::new()).expect("adapter");
    assert_eq!(a.profiles, ["cluster"]);
    assert_eq!(a.store_addr.as_deref(), Some("127.0.0.1:5432"));
    let none = Adapter::parse("profiles = [\"cluster\"]\n", &BTreeSet::new()).expect("adapter");
    assert_eq!(none.store_addr, None);
}

/// The top-level `revisions` scopes every operation of the drafts it names a revision of; an
/// operation's own list narrows it, never widens it; `commitments = false` puts the cases with a
/// commitment out of scope; a draft it names no revision of is not restricted.
#[test]
fn top_level_revisions_and_commitments_declare_the_scope() {
    let a = parse(
        "command = [\"tool\"]\nimplements = [\"aer1-timeline\", \"aer1-receipt\", \"grp-admit\"]\n\
         revisions = [\"09\"]\n\
         [operations.aer1-timeline]\ncommitments = false\n",
    )
    .unwrap();
    let declines = |v: &Vector| a.declines(&v.main_case());
    let t09 = vector("aer1-timeline", &["09"], None, &["timeline"]);
    assert_eq!(declines(&t09), None);
    let t06 = declines(&vector("aer1-timeline", &["06"], None, &["timeline"]));
    assert!(
        t06.as_deref()
            .is_some_and(|d| d.contains("revisions 09 (line 3)") && d.contains("revision 06")),
        "{t06:?}"
    );
    let committed = declines(&vector(
        "aer1-timeline",
        &["09"],
        None,
        &["timeline", "commitment"],
    ));
    assert!(
        committed
            .as_deref()
            .is_some_and(|d| d.contains("commitments = false") && d.contains("line 5")),
        "{committed:?}"
    );
    // A receipt case grades revisions 06-09: one of them is 09, so it is in scope; one that
    // grades 06 alone is not.
    assert_eq!(
        declines(&vector(
            "aer1-receipt",
            &["06", "07", "08", "09"],
            None,
            &["receipt"]
        )),
        None
    );
    assert!(declines(&vector("aer1-receipt", &["06"], None, &["receipt"])).is_some());
    // GRP: the list names no GRP revision, so both run.
    for rev in ["00", "01"] {
        assert_eq!(
            declines(&vector(
                "grp-admission",
                &[rev],
                None,
                &["session", "events"]
            )),
            None,
            "{rev}"
        );
    }
    // A template may leave {revision} out: the top-level list has one AER-1 revision.
    assert!(parse(
        "command = [\"t\"]\nrevisions = [\"09\"]\n[operations.aer1-timeline]\nargv = [\"{timeline}\"]\n"
    )
    .is_ok());
    // Narrowing is fine; widening, an unknown or empty list, and a contradicted commitment
    // declaration are mistakes.
    assert!(parse(
        "revisions = [\"08\", \"09\"]\n[operations.aer1-timeline]\nrevisions = [\"09\"]\n"
    )
    .is_ok());
    let wide = parse("revisions = [\"09\"]\n[operations.aer1-timeline]\nrevisions = [\"06\"]\n")
        .unwrap_err();
    assert!(
        matches!(wide.first().problem, Problem::RevisionOutsideScope { .. }),
        "{wide}"
    );
    assert!(
        wide.to_string().contains("line 3") && wide.to_string().contains("(line 1)"),
        "{wide}"
    );
    let unknown = parse("revisions = [\"10\", \"09\"]\n").unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("\"10\" in revisions is not a revision"),
        "{unknown}"
    );
    assert!(parse("revisions = []\n").is_err());
    let contradicted = parse(
        "[operations.aer1-timeline]\nargv = [\"{timeline}\", \"{revision}\"]\n\
         argv_with_commitment = [\"{timeline}\", \"{revision}\", \"{commitment}\"]\ncommitments = false\n",
    )
    .unwrap_err();
    assert!(contradicted
        .to_string()
        .contains("commitments = false, but argv_with_commitment"));
    assert!(parse("[operations.aer1-receipt]\ncommitments = false\n").is_err());
}

/// An error map without `operation` that reports a rule some implemented operation never cites
/// is said (a warning), not refused; scoped, or for a tool that implements only the citing
/// operation, it says nothing.
#[test]
fn unscoped_error_maps_of_another_suite_are_warned_about() {
    let map = "[[error_map]]\npattern = \"bad base64\"\nrule = \"AER1-RC-B64\"\n";
    let every = parse(&format!("command = [\"t\"]\n{map}")).unwrap();
    assert_eq!(every.warnings().len(), 1, "{:?}", every.warnings());
    let w = &every.warnings()[0];
    assert!(
        w.starts_with("line 2:")
            && w.contains("aer1-timeline, aer1-workflow")
            && w.contains("operation = \"aer1-receipt\""),
        "{w}"
    );
    // A timeline-only tool mapping a receipt rule: the map reads timeline output only.
    let timelines = parse(&format!(
        "command = [\"t\"]\nimplements = [\"aer1-timeline\"]\n{map}"
    ))
    .unwrap();
    assert_eq!(timelines.warnings().len(), 1);
    assert!(
        timelines.warnings()[0].contains("aer1-timeline output"),
        "{:?}",
        timelines.warnings()
    );
    let scoped = parse(&format!(
        "command = [\"t\"]\n{map}operation = \"aer1-receipt\"\n"
    ))
    .unwrap();
    assert!(scoped.warnings().is_empty());
    let receipts = parse(&format!(
        "command = [\"t\"]\nimplements = [\"aer1-receipt\"]\n{map}"
    ))
    .unwrap();
    assert!(receipts.warnings().is_empty());
    let json =
        parse("command = [\"t\"]\n[[error_map]]\npattern = \"deep\"\nrule = \"AER1-JSON-DEPTH\"\n")
            .unwrap();
    assert!(
        json.warnings().is_empty(),
        "a JSON rule is cited by every AER-1 operation"
    );
}

/// An expected-failures file is what `--emit-xfail` writes, read strictly: exact known ids,
/// reasons, nothing else; joined with an adapter's list, a case in both (or skipped) is refused.
#[test]
fn expected_failures_files_read_what_emit_xfail_writes() {
    let written = xfail_toml(&[
        ("a/b/c/d".into(), "false-accept".into()),
        ("a/b/c/e@06".into(), "wrong-reason".into()),
    ]);
    let listed = ExpectedFailures::parse(&written, &known()).unwrap();
    assert_eq!(listed.len(), 2);
    let a = Adapter::expecting(listed.clone());
    assert!(a
        .xfail_reason("a/b/c/d")
        .is_some_and(|r| r.contains("false-accept")));
    assert!(a.xfail_reason("a/b/f/g").is_none());
    // Nothing but [[xfail]] entries; each id exact and known; a reason each; none twice.
    for (bad, says) in [
        ("command = [\"t\"]\n", "unknown field"),
        ("[[xfail]]\nid = \"a/b/x\"\nreason = \"r\"\n", "names no case"),
        ("[[xfail]]\nid = \"a/b/c/*\"\nreason = \"r\"\n", "pattern"),
        ("[[xfail]]\nid = \"a/b/c/d\"\n", "no reason"),
        ("[[xfail]]\nid = \"a/b/c/d\"\nreason = \"r\"\n[[xfail]]\nid = \"a/b/c/d\"\nreason = \"r\"\n", "twice"),
    ] {
        let e = ExpectedFailures::parse(bad, &known()).unwrap_err().to_string();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
    let with = parse("command = [\"t\"]\n[[xfail]]\nid = \"a/b/c/d\"\nreason = \"r\"\n").unwrap();
    let both = with.with_expected_failures(listed.clone()).unwrap_err();
    assert!(
        both.contains("a/b/c/d is an expected failure of the adapter already"),
        "{both}"
    );
    let skipping =
        parse("command = [\"t\"]\n[[skip]]\nglob = \"a/b/c/*\"\nreason = \"r\"\n").unwrap();
    assert!(skipping.with_expected_failures(listed.clone()).is_err());
    let plain = parse("command = [\"t\"]\n").unwrap();
    let joined = plain.with_expected_failures(listed).unwrap();
    assert!(joined.xfail_reason("a/b/c/e@06").is_some());
}
