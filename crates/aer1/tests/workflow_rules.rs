//! Each workflow rule (AER1-WF-*), broken on its own, is reported on that rule, step and member —
//! and nothing else is reported. The document shape is this project's interpretation
//! (spec-notes/aer1-workflow.md): `{"steps":[{"receipt_id":...}],"merkle_root":"<hex>"}`.

use agentconf_aer1::report::WorkflowReport;
use agentconf_aer1::workflow::{verify_workflow, verify_workflow_reader};
use agentconf_aer1::Verdict;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

/// The five ids of the published worked example (spec AER1.md §5).
const IDS: [&str; 5] = [
    "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
    "514fe841-bbdd-4804-9ef4-6828842d8763",
    "a090bdad-f2cf-48c9-bc89-e9e17700fb15",
    "bf88a036-416b-456a-8e82-8c0991811d68",
    "ae795bf0-27f8-4cf2-8aef-3f8142b77217",
];
/// Their published root.
const ROOT: &str = "7c4817ca249edfeae259b98abf63ed38a31d9dbeebf5ee23139410a7a7f63b37";
/// SHA-256 of the empty string: the root of no steps.
const EMPTY_ROOT: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The Merkle tree of Section 8, written out independently of the library: leaf = SHA-256(id),
/// node = SHA-256(left || right), an odd level repeats its last digest, empty = SHA-256("").
fn root_of(ids: &[&str]) -> String {
    let mut level: Vec<[u8; 32]> = ids
        .iter()
        .map(|id| Sha256::digest(id.as_bytes()).into())
        .collect();
    if level.is_empty() {
        return hex(&Sha256::digest(b""));
    }
    while level.len() > 1 {
        let mut next = Vec::new();
        for i in (0..level.len()).step_by(2) {
            let left = level[i];
            let right = *level.get(i + 1).unwrap_or(&left);
            let mut h = Sha256::new();
            h.update(left);
            h.update(right);
            next.push(h.finalize().into());
        }
        level = next;
    }
    hex(&level[0])
}

fn doc(ids: &[&str], root: &str) -> Value {
    json!({
        "steps": ids.iter().map(|id| json!({"receipt_id": id})).collect::<Vec<_>>(),
        "merkle_root": root,
    })
}

/// A document whose root is right for its ids.
fn consistent(ids: &[&str]) -> Value {
    doc(ids, &root_of(ids))
}

fn verify(doc: &Value) -> WorkflowReport {
    verify_workflow(&serde_json::to_vec(doc).unwrap())
}

type Failure = (String, Option<u64>, Option<String>);

fn failures(report: &WorkflowReport) -> Vec<Failure> {
    report
        .failures
        .iter()
        .map(|f| (f.rule.id().to_string(), f.entry, f.member.clone()))
        .collect()
}

#[track_caller]
fn assert_failures(report: &WorkflowReport, list: &[(&str, Option<u64>, Option<&str>)]) {
    assert_eq!(report.verdict, Verdict::Invalid);
    let want: Vec<Failure> = list
        .iter()
        .map(|(r, e, m)| (r.to_string(), *e, m.map(str::to_string)))
        .collect();
    assert_eq!(failures(report), want, "{:#?}", report.failures);
}

#[track_caller]
fn assert_only(report: &WorkflowReport, rule: &str, entry: Option<u64>, member: Option<&str>) {
    assert_failures(report, &[(rule, entry, member)]);
}

#[track_caller]
fn assert_valid(report: &WorkflowReport) {
    assert_eq!(report.verdict, Verdict::Valid, "{:#?}", report.failures);
}

// ------------------------------------------------------------------------------------------------
// Valid documents.

#[test]
fn the_independent_tree_reproduces_the_published_values() {
    assert_eq!(root_of(&IDS), ROOT);
    assert_eq!(root_of(&[]), EMPTY_ROOT);
}

#[test]
fn published_worked_example_verifies() {
    let r = verify(&doc(&IDS, ROOT));
    assert_valid(&r);
    assert_eq!(r.step_count, 5);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT));
}

#[test]
fn one_step_root_is_its_leaf() {
    let leaf = hex(&Sha256::digest(IDS[0].as_bytes()));
    let r = verify(&doc(&IDS[..1], &leaf));
    assert_valid(&r);
    assert_eq!(r.step_count, 1);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(leaf.as_str()));
}

#[test]
fn empty_steps_root_is_sha256_of_nothing() {
    let r = verify(&doc(&[], EMPTY_ROOT));
    assert_valid(&r);
    assert_eq!(r.step_count, 0);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(EMPTY_ROOT));
    // Any other root for no steps is a mismatch.
    assert_only(
        &verify(&doc(&[], ROOT)),
        "AER1-WF-ROOT",
        None,
        Some("merkle_root"),
    );
}

#[test]
fn every_length_up_to_nine_verifies() {
    let ids: Vec<String> = (0..9).map(|i| format!("step-{i}")).collect();
    for n in 0..=ids.len() {
        let slice: Vec<&str> = ids[..n].iter().map(String::as_str).collect();
        let r = verify(&consistent(&slice));
        assert_valid(&r);
        assert_eq!(r.step_count, n as u64);
    }
}

#[test]
fn receipt_ids_are_any_strings_and_extra_members_are_ignored() {
    // receipt_id is not checked against the receipt id tiers.
    assert_valid(&verify(&consistent(&["A", " ", "not a uuid", "ü"])));
    let mut d = doc(&IDS, ROOT);
    d["name"] = json!("nightly");
    d["steps"][2]["tool"] = json!({"name": "x"});
    d["steps"][4]["status"] = json!(null);
    assert_valid(&verify(&d));
}

#[test]
fn order_matters() {
    let mut swapped = IDS;
    swapped.swap(0, 1);
    let r = verify(&doc(&swapped, ROOT));
    assert_only(&r, "AER1-WF-ROOT", None, Some("merkle_root"));
    assert_eq!(r.computed_merkle_root, Some(root_of(&swapped)));
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-DUPLICATE

#[test]
fn duplicated_last_id_has_the_same_root_and_is_still_rejected() {
    let mut ids = IDS.to_vec();
    ids.push(IDS[4]);
    // The collision the rule exists for: six ids, the published five-id root.
    assert_eq!(root_of(&ids), ROOT);
    let r = verify(&doc(&ids, ROOT));
    assert_only(
        &r,
        "AER1-WF-DUPLICATE",
        Some(5),
        Some("steps[5].receipt_id"),
    );
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT));
    assert_eq!(r.step_count, 6);
    assert!(
        r.failures[0].message.contains("step 4"),
        "{}",
        r.failures[0].message
    );
    // Same with three ids duplicated to four.
    let three = [IDS[0], IDS[1], IDS[2]];
    let four = [IDS[0], IDS[1], IDS[2], IDS[2]];
    assert_eq!(root_of(&three), root_of(&four));
    assert_only(
        &verify(&doc(&four, &root_of(&three))),
        "AER1-WF-DUPLICATE",
        Some(3),
        Some("steps[3].receipt_id"),
    );
}

#[test]
fn duplicate_in_the_middle() {
    // The root is right for the list as given: only the duplicate is wrong.
    let ids = [IDS[0], IDS[1], IDS[0], IDS[2]];
    let r = verify(&consistent(&ids));
    assert_only(
        &r,
        "AER1-WF-DUPLICATE",
        Some(2),
        Some("steps[2].receipt_id"),
    );
    assert!(
        r.failures[0].message.contains("step 0"),
        "{}",
        r.failures[0].message
    );
    // Two adjacent equal ids.
    let ids = [IDS[0], IDS[1], IDS[1], IDS[2], IDS[3]];
    assert_only(
        &verify(&consistent(&ids)),
        "AER1-WF-DUPLICATE",
        Some(2),
        Some("steps[2].receipt_id"),
    );
}

#[test]
fn every_repeat_is_reported_and_comparison_is_exact() {
    let ids = [IDS[0], IDS[0], IDS[1], IDS[0], IDS[1]];
    assert_failures(
        &verify(&consistent(&ids)),
        &[
            ("AER1-WF-DUPLICATE", Some(1), Some("steps[1].receipt_id")),
            ("AER1-WF-DUPLICATE", Some(3), Some("steps[3].receipt_id")),
            ("AER1-WF-DUPLICATE", Some(4), Some("steps[4].receipt_id")),
        ],
    );
    // Ids differing only in case are different ids.
    let upper = IDS[0].to_uppercase();
    assert_valid(&verify(&consistent(&[IDS[0], &upper])));
}

#[test]
fn duplicate_and_wrong_root_are_both_reported() {
    let ids = [IDS[0], IDS[1], IDS[0]];
    assert_failures(
        &verify(&doc(&ids, ROOT)),
        &[
            ("AER1-WF-DUPLICATE", Some(2), Some("steps[2].receipt_id")),
            ("AER1-WF-ROOT", None, Some("merkle_root")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-ROOT

#[test]
fn wrong_root() {
    for wrong in [
        "0".repeat(64),
        EMPTY_ROOT.to_string(),
        // The published root with its last digit changed.
        format!("{}0", &ROOT[..63]),
        // The root of the first four ids only.
        root_of(&IDS[..4]),
    ] {
        let r = verify(&doc(&IDS, &wrong));
        assert_only(&r, "AER1-WF-ROOT", None, Some("merkle_root"));
        assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT));
    }
    // A dropped step changes the root.
    assert_only(
        &verify(&doc(&IDS[..4], ROOT)),
        "AER1-WF-ROOT",
        None,
        Some("merkle_root"),
    );
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-FORMAT

#[test]
fn merkle_root_format() {
    for bad in [
        json!(ROOT.to_uppercase()),
        json!(format!("sha256:{ROOT}")),
        json!(&ROOT[..63]),
        json!(format!("{ROOT}0")),
        json!(format!("{ROOT}\n")),
        json!(""),
        json!(7),
        json!(null),
        json!([ROOT]),
    ] {
        let mut d = doc(&IDS, ROOT);
        d["merkle_root"] = bad.clone();
        let r = verify(&d);
        // Malformed: not compared, but still computed.
        assert_only(&r, "AER1-WF-FORMAT", None, Some("merkle_root"));
        assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT), "{bad}");
    }
    let mut d = doc(&IDS, ROOT);
    d.as_object_mut().unwrap().remove("merkle_root");
    let r = verify(&d);
    assert_only(&r, "AER1-WF-FORMAT", None, Some("merkle_root"));
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT));
}

#[test]
fn steps_missing_or_not_an_array() {
    for bad in [
        json!({"0": {"receipt_id": IDS[0]}}),
        json!(IDS[0]),
        json!(null),
        json!(5),
    ] {
        let mut d = doc(&IDS, ROOT);
        d["steps"] = bad;
        let r = verify(&d);
        assert_only(&r, "AER1-WF-FORMAT", None, Some("steps"));
        assert_eq!(r.computed_merkle_root, None);
        assert_eq!(r.step_count, 0);
    }
    let mut d = doc(&IDS, ROOT);
    d.as_object_mut().unwrap().remove("steps");
    assert_only(&verify(&d), "AER1-WF-FORMAT", None, Some("steps"));
    // Both members missing: both reported, root first (the order the reference checks them).
    assert_failures(
        &verify(&json!({})),
        &[
            ("AER1-WF-FORMAT", None, Some("merkle_root")),
            ("AER1-WF-FORMAT", None, Some("steps")),
        ],
    );
}

#[test]
fn step_not_an_object() {
    for bad in [json!(IDS[2]), json!([IDS[2]]), json!(null), json!(3)] {
        let mut d = doc(&IDS, ROOT);
        d["steps"][2] = bad;
        let r = verify(&d);
        assert_only(&r, "AER1-WF-FORMAT", Some(2), Some("steps[2]"));
        // No root is computed over malformed steps, and the stored one is not compared.
        assert_eq!(r.computed_merkle_root, None);
        assert_eq!(r.step_count, 5);
    }
}

#[test]
fn receipt_id_missing_or_not_a_string() {
    for bad in [
        Some(json!(7)),
        Some(json!(null)),
        Some(json!([IDS[3]])),
        Some(json!({"id": IDS[3]})),
        None,
    ] {
        let mut d = doc(&IDS, ROOT);
        match &bad {
            Some(v) => d["steps"][3]["receipt_id"] = v.clone(),
            None => {
                d["steps"][3].as_object_mut().unwrap().remove("receipt_id");
                d["steps"][3]["receiptId"] = json!(IDS[3]);
            }
        }
        let r = verify(&d);
        assert_only(&r, "AER1-WF-FORMAT", Some(3), Some("steps[3].receipt_id"));
        assert_eq!(r.computed_merkle_root, None);
    }
}

#[test]
fn document_not_an_object() {
    for text in ["[]", "[{\"receipt_id\":\"a\"}]", "\"x\"", "0", "null"] {
        let r = verify_workflow(text.as_bytes());
        assert_only(&r, "AER1-WF-FORMAT", None, Some("workflow"));
        assert_eq!(r.computed_merkle_root, None);
    }
}

#[test]
fn several_format_problems_are_all_reported() {
    let d = json!({
        "steps": [{"receipt_id": IDS[0]}, 5, {"receipt_id": 1}, {"receipt_id": IDS[0]}],
        "merkle_root": "X",
    });
    assert_failures(
        &verify(&d),
        &[
            ("AER1-WF-FORMAT", None, Some("merkle_root")),
            ("AER1-WF-FORMAT", Some(1), Some("steps[1]")),
            ("AER1-WF-FORMAT", Some(2), Some("steps[2].receipt_id")),
            // Duplicates are still found among the well-formed steps.
            ("AER1-WF-DUPLICATE", Some(3), Some("steps[3].receipt_id")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// Input-level failures.

#[test]
fn duplicate_member_names_in_a_workflow() {
    let text = serde_json::to_string(&doc(&IDS, ROOT)).unwrap();
    // A repeated receipt_id name inside step 2, with the same value: only the duplicate name.
    let needle = format!("{{\"receipt_id\":\"{}\"}}", IDS[2]);
    let dup = text.replacen(
        &needle,
        &format!(
            "{{\"receipt_id\":\"{}\",\"receipt_id\":\"{}\"}}",
            IDS[2], IDS[2]
        ),
        1,
    );
    assert_ne!(dup, text);
    assert_only(
        &verify_workflow(dup.as_bytes()),
        "AER1-JSON-DUPLICATE",
        None,
        Some("steps[2].receipt_id"),
    );
    // The last value is the one used: a different first value does not change the root.
    let dup = text.replacen(
        &needle,
        &format!("{{\"receipt_id\":\"other\",\"receipt_id\":\"{}\"}}", IDS[2]),
        1,
    );
    let r = verify_workflow(dup.as_bytes());
    assert_only(&r, "AER1-JSON-DUPLICATE", None, Some("steps[2].receipt_id"));
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT));
    // A repeated top-level merkle_root.
    let dup = text.replacen(
        "\"merkle_root\":",
        &format!("\"merkle_root\":\"{}\",\"merkle_root\":", "0".repeat(64)),
        1,
    );
    assert_only(
        &verify_workflow(dup.as_bytes()),
        "AER1-JSON-DUPLICATE",
        None,
        Some("merkle_root"),
    );
}

#[test]
fn unreadable_documents_and_the_size_limit() {
    let text = serde_json::to_string(&doc(&IDS, ROOT)).unwrap();
    assert_only(&verify_workflow(b""), "AER1-JSON-SYNTAX", None, None);
    assert_only(
        &verify_workflow(&text.as_bytes()[1..]),
        "AER1-JSON-SYNTAX",
        None,
        None,
    );
    assert_only(
        &verify_workflow(b"{\"steps\":[],\"merkle_root\":\"\\udc00\"}"),
        "AER1-JSON-SURROGATE",
        None,
        None,
    );
    assert_only(
        &verify_workflow(b"{\"steps\":[],\"merkle_root\":\"\xff\"}"),
        "AER1-JSON-UTF8",
        None,
        None,
    );
    let n = text.len() as u64;
    assert_valid(&verify_workflow_reader(text.as_bytes(), n).unwrap());
    assert_only(
        &verify_workflow_reader(text.as_bytes(), n - 1).unwrap(),
        "AER1-JSON-SIZE",
        None,
        None,
    );
}
