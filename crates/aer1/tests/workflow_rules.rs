//! Each workflow rule (AER1-WF-*), broken on its own, is reported on that rule, step and member —
//! and nothing else is reported. Documents start from the draft's worked workflow receipt
//! (Section 8, transcribed in `support/worked_workflow.rs`); roots that the draft does not
//! publish come from a tree written out here, independently of the library.

#[path = "support/worked_workflow.rs"]
mod wf;

use agentconf_aer1::report::WorkflowReport;
use agentconf_aer1::workflow::{verify_workflow, verify_workflow_reader};
use agentconf_aer1::Verdict;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

use wf::{ROOT_5, ROOT_EMPTY, STEP_IDS as IDS};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The Merkle tree of Section 8.1, written out independently of the library: leaf = SHA-256(id),
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

/// The draft's worked workflow receipt.
fn worked() -> Value {
    serde_json::from_str(wf::WORKED_WORKFLOW).unwrap()
}

/// Step `i` (0-based) of the worked example, carrying `seq`.
fn worked_step(i: usize, seq: Value) -> Value {
    let mut s = worked()["steps"][i].clone();
    s["seq"] = seq;
    s
}

/// The worked example with these steps and this root.
fn with_steps(steps: Vec<Value>, root: &str) -> Value {
    let mut d = worked();
    d["steps"] = Value::Array(steps);
    d["merkle_root"] = json!(root);
    d
}

/// The worked example's steps `order` (indexes), renumbered 1..n, with the root their ids give.
fn reordered(order: &[usize]) -> Value {
    let steps = order
        .iter()
        .enumerate()
        .map(|(n, &i)| worked_step(i, json!(n + 1)))
        .collect();
    let ids: Vec<&str> = order.iter().map(|&i| IDS[i]).collect();
    with_steps(steps, &root_of(&ids))
}

/// A distinct lowercase UUID per `n`, for workflows longer than the worked example.
fn uuid(n: usize) -> String {
    format!("{n:08x}-0000-4000-8000-{n:012x}")
}

/// A workflow of `n` generated steps with a matching root.
fn generated(n: usize) -> Value {
    let ids: Vec<String> = (0..n).map(uuid).collect();
    let steps = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let mut s = worked_step(i % 5, json!(i + 1));
            s["receipt_id"] = json!(id);
            s
        })
        .collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    with_steps(steps, &root_of(&refs))
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

/// The worked example with one change.
fn changed(change: impl FnOnce(&mut Value)) -> Value {
    let mut d = worked();
    change(&mut d);
    d
}

fn remove(v: &mut Value, member: &str) {
    v.as_object_mut().unwrap().remove(member);
}

// ------------------------------------------------------------------------------------------------
// Valid documents.

#[test]
fn the_independent_tree_reproduces_the_published_values() {
    assert_eq!(root_of(&IDS), ROOT_5);
    assert_eq!(root_of(&IDS[..3]), wf::ROOT_FIRST_3);
    assert_eq!(root_of(&IDS[..1]), wf::ROOT_FIRST_1);
    let reversed: Vec<&str> = IDS.iter().rev().copied().collect();
    assert_eq!(root_of(&reversed), wf::ROOT_REVERSED);
    assert_eq!(root_of(&[]), ROOT_EMPTY);
}

#[test]
fn the_worked_example_verifies() {
    let r = verify(&worked());
    assert_valid(&r);
    assert_eq!(r.step_count, 5);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5));
}

#[test]
fn published_sub_workflows_verify_with_their_published_roots() {
    for (order, root) in [
        (&[0usize][..], wf::ROOT_FIRST_1),
        (&[0, 1, 2][..], wf::ROOT_FIRST_3),
        (&[4, 3, 2, 1, 0][..], wf::ROOT_REVERSED),
    ] {
        let d = reordered(order);
        assert_eq!(d["merkle_root"], root);
        let r = verify(&d);
        assert_valid(&r);
        assert_eq!(r.computed_merkle_root.as_deref(), Some(root));
    }
}

#[test]
fn no_steps_root_is_sha256_of_nothing() {
    // The draft does not say whether steps may be empty: the reference rejects an empty list on
    // this project's SHOULD rule alone, and still computes and compares the root of none.
    let r = verify(&with_steps(vec![], ROOT_EMPTY));
    assert_only(&r, "AER1-WF-STEPS-NONEMPTY", None, Some("steps"));
    assert_eq!(r.step_count, 0);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_EMPTY));
    // Any other root for no steps is a mismatch as well.
    assert_failures(
        &verify(&with_steps(vec![], ROOT_5)),
        &[
            ("AER1-WF-STEPS-NONEMPTY", None, Some("steps")),
            ("AER1-WF-ROOT", None, Some("merkle_root")),
        ],
    );
}

#[test]
fn every_length_up_to_nine_verifies() {
    for n in 1..=9 {
        let r = verify(&generated(n));
        assert_valid(&r);
        assert_eq!(r.step_count, n as u64);
    }
}

#[test]
fn integral_seq_written_with_a_fraction_or_exponent_is_accepted() {
    for (i, seq) in [json!(1.0), json!(2.0), json!(3), json!(4.0), json!(5)]
        .into_iter()
        .enumerate()
    {
        let d = changed(|d| d["steps"][i]["seq"] = seq);
        assert_valid(&verify(&d));
    }
    let text = wf::WORKED_WORKFLOW
        .replacen("\"seq\": 1,", "\"seq\": 1e0,", 1)
        .replacen("\"seq\": 2,", "\"seq\": 0.2e1,", 1);
    assert_valid(&verify_workflow(text.as_bytes()));
}

#[test]
fn extra_members_and_presentation_are_ignored() {
    let d = changed(|d| {
        d["name"] = json!("nightly");
        d["links"] = json!([{"step": 1, "href": "https://zambo.dev/receipt/e80168eb"}]);
        d["steps"][2]["note"] = json!({"x": 1});
        d["steps"][4]["tool_version"] = json!(null);
    });
    assert_valid(&verify(&d));
}

#[test]
fn the_draft_leaves_these_open_and_the_reference_accepts_them() {
    for d in [
        // Any non-empty version; any non-empty status, ok or not.
        changed(|d| d["version"] = json!("2")),
        changed(|d| d["status"] = json!("failed")),
        // http:// as well as https://.
        changed(|d| d["verify_url"] = json!("http://localhost:8080/workflow/42a3c2cf")),
        // A step's tool is a string, possibly empty; its status has no type in the draft.
        changed(|d| d["steps"][1]["tool"] = json!("")),
        changed(|d| d["steps"][1]["status"] = json!({"code": 0})),
        changed(|d| d["steps"][3]["status"] = json!(null)),
        // Times with offsets, without fractions; ended before started is not judged.
        changed(|d| {
            d["steps"][0]["started_at"] = json!("2026-09-29T12:57:40+02:00");
            d["steps"][0]["ended_at"] = json!("2026-09-29T05:57:41.1470000-05:00");
        }),
        changed(|d| d["steps"][2]["ended_at"] = json!("2026-09-29T10:00:00Z")),
        // Version-4 ids (the worked example's are version 5).
        changed(|d| {
            d["workflow_id"] = json!("3f2c1a9e-7b4d-4e8a-9c61-5d0f2b8e7a14");
            d["receipt_id"] = json!("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f");
        }),
    ] {
        assert_valid(&verify(&d));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-MEMBERS

#[test]
fn document_not_an_object() {
    for text in ["[]", "[{\"receipt_id\":\"a\"}]", "\"x\"", "0", "null"] {
        let r = verify_workflow(text.as_bytes());
        assert_only(&r, "AER1-WF-MEMBERS", None, None);
        assert_eq!(r.computed_merkle_root, None);
    }
}

/// The document's members in the order Section 8 lists them (and the reference reports them).
const DOCUMENT_MEMBERS: [&str; 11] = [
    "type",
    "version",
    "workflow_id",
    "receipt_id",
    "session_id",
    "goal",
    "status",
    "steps",
    "merkle_root",
    "output_hash",
    "verify_url",
];

#[test]
fn each_missing_member_is_reported_alone() {
    // `steps` has its own consequences, checked below.
    for member in DOCUMENT_MEMBERS.into_iter().filter(|m| *m != "steps") {
        let r = verify(&changed(|d| remove(d, member)));
        assert_only(&r, "AER1-WF-MEMBERS", None, Some(member));
        // The root is still recomputed.
        assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5), "{member}");
    }
    let r = verify(&changed(|d| remove(d, "steps")));
    assert_only(&r, "AER1-WF-MEMBERS", None, Some("steps"));
    assert_eq!(r.computed_merkle_root, None);
    assert_eq!(r.step_count, 0);
}

#[test]
fn steps_not_an_array() {
    for bad in [
        json!({"0": worked()["steps"][0]}),
        json!(IDS[0]),
        json!(null),
        json!(5),
    ] {
        let r = verify(&changed(|d| d["steps"] = bad));
        assert_only(&r, "AER1-WF-MEMBERS", None, Some("steps"));
        assert_eq!(r.computed_merkle_root, None);
        assert_eq!(r.step_count, 0);
    }
}

#[test]
fn an_empty_object_lacks_every_member_in_order() {
    let r = verify_workflow(b"{}");
    let want: Vec<(&str, Option<u64>, Option<&str>)> = DOCUMENT_MEMBERS
        .iter()
        .map(|m| ("AER1-WF-MEMBERS", None, Some(*m)))
        .collect();
    assert_failures(&r, &want);
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-TYPE, AER1-WF-STRINGS

#[test]
fn type_must_be_exact() {
    for bad in [
        json!("workflow-receipt"),
        json!("Verifiable-Workflow-Receipt"),
        json!("verifiable-workflow-receipt "),
        json!("verifiable-workflow-receipt\n"),
        json!(""),
        json!(1),
        json!(null),
    ] {
        let r = verify(&changed(|d| d["type"] = bad.clone()));
        assert_only(&r, "AER1-WF-TYPE", None, Some("type"));
    }
}

#[test]
fn strings_must_be_non_empty_strings() {
    for member in ["version", "session_id", "goal", "status"] {
        for bad in [json!(""), json!(1), json!(null), json!(["x"])] {
            let r = verify(&changed(|d| d[member] = bad.clone()));
            assert_only(&r, "AER1-WF-STRINGS", None, Some(member));
        }
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-ID, AER1-WF-ID-DISTINCT

#[test]
fn ids_must_be_lowercase_uuids() {
    for member in ["workflow_id", "receipt_id"] {
        for bad in [
            json!(wf::WORKFLOW_ID.to_uppercase()),
            json!("42a3c2cf2cdd5b8aaced016e5a2fb634"),
            json!(format!("{}\n", wf::RECEIPT_ID)),
            json!("wf-42"),
            json!(""),
            json!(42),
        ] {
            let r = verify(&changed(|d| d[member] = bad.clone()));
            assert_only(&r, "AER1-WF-ID", None, Some(member));
        }
    }
}

#[test]
fn the_receipt_id_must_differ_from_the_workflow_id() {
    let r = verify(&changed(|d| d["receipt_id"] = json!(wf::WORKFLOW_ID)));
    assert_only(&r, "AER1-WF-ID-DISTINCT", None, Some("receipt_id"));
    // Two equal malformed ids are reported as malformed, not also as equal.
    let upper = wf::WORKFLOW_ID.to_uppercase();
    let r = verify(&changed(|d| {
        d["workflow_id"] = json!(upper);
        d["receipt_id"] = json!(upper);
    }));
    assert_failures(
        &r,
        &[
            ("AER1-WF-ID", None, Some("workflow_id")),
            ("AER1-WF-ID", None, Some("receipt_id")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-HEX, AER1-WF-VERIFY-URL

#[test]
fn root_and_output_hash_are_bare_lowercase_hex() {
    for member in ["merkle_root", "output_hash"] {
        let good = worked()[member].as_str().unwrap().to_string();
        for bad in [
            json!(good.to_uppercase()),
            json!(format!("sha256:{good}")),
            json!(&good[..63]),
            json!(format!("{good}0")),
            json!(format!("{good}\n")),
            json!(""),
            json!(7),
            json!(null),
            json!([good.clone()]),
        ] {
            let r = verify(&changed(|d| d[member] = bad.clone()));
            assert_only(&r, "AER1-WF-HEX", None, Some(member));
            // Malformed: not compared, but still computed.
            assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5), "{bad}");
        }
    }
}

#[test]
fn output_hash_is_format_only() {
    // Any well-formed value: the bytes it covers are implementation-defined.
    for other in ["0".repeat(64), ROOT_5.to_string()] {
        assert_valid(&verify(&changed(|d| d["output_hash"] = json!(other))));
    }
}

#[test]
fn verify_url_starts_with_http_or_https() {
    for bad in [
        json!("ftp://zambo.dev/workflow/42a3c2cf"),
        json!("zambo.dev/workflow/42a3c2cf"),
        json!("HTTPS://zambo.dev/workflow/42a3c2cf"),
        json!("https:/zambo.dev"),
        json!(" https://zambo.dev"),
        json!(""),
        json!(1),
    ] {
        let r = verify(&changed(|d| d["verify_url"] = bad.clone()));
        assert_only(&r, "AER1-WF-VERIFY-URL", None, Some("verify_url"));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-STEP-MEMBERS

#[test]
fn step_not_an_object() {
    for bad in [json!(IDS[2]), json!([IDS[2]]), json!(null), json!(3)] {
        let r = verify(&changed(|d| d["steps"][2] = bad.clone()));
        assert_only(&r, "AER1-WF-STEP-MEMBERS", Some(2), Some("steps[2]"));
        // No root is computed over a step that is missing, and the stored one is not compared.
        assert_eq!(r.computed_merkle_root, None);
        assert_eq!(r.step_count, 5);
    }
}

#[test]
fn each_missing_step_member_is_reported_alone() {
    for member in [
        "seq",
        "tool",
        "receipt_id",
        "receipt_hash",
        "started_at",
        "ended_at",
        "status",
    ] {
        let r = verify(&changed(|d| remove(&mut d["steps"][3], member)));
        let path = format!("steps[3].{member}");
        assert_only(&r, "AER1-WF-STEP-MEMBERS", Some(3), Some(&path));
        // The tree needs seq and receipt_id; without either there is no root to compare.
        let needed = member == "seq" || member == "receipt_id";
        let want = (!needed).then_some(ROOT_5);
        assert_eq!(r.computed_merkle_root.as_deref(), want, "{member}");
    }
}

#[test]
fn step_tool_is_a_string() {
    for bad in [json!(7), json!(null), json!({"name": "zambo_universal"})] {
        let r = verify(&changed(|d| d["steps"][0]["tool"] = bad.clone()));
        assert_only(&r, "AER1-WF-STEP-MEMBERS", Some(0), Some("steps[0].tool"));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-STEP-ID, AER1-WF-STEP-HASH, AER1-WF-STEP-TIME

#[test]
fn step_receipt_id_is_a_uuid_and_the_kit_asks_for_lower_case() {
    // A UUID in upper case is a UUID (RFC 9562 reads the digits case-insensitively): only the
    // kit's lower-case rule breaks.
    let upper = IDS[3].to_uppercase();
    let mut ids = IDS;
    ids[3] = &upper;
    let r = verify(&changed(|d| {
        d["steps"][3]["receipt_id"] = json!(upper);
        d["merkle_root"] = json!(root_of(&ids));
    }));
    assert_only(
        &r,
        "AER1-WF-STEP-ID-CASE",
        Some(3),
        Some("steps[3].receipt_id"),
    );
    for bad in [
        "r-job-7a1f-3".to_string(),
        format!("{}\n", IDS[3]),
        String::new(),
    ] {
        // The root is right for the ids as written, so only the shape is wrong.
        let mut ids = IDS;
        ids[3] = &bad;
        let d = changed(|d| {
            d["steps"][3]["receipt_id"] = json!(bad);
            d["merkle_root"] = json!(root_of(&ids));
        });
        let r = verify(&d);
        assert_only(&r, "AER1-WF-STEP-ID", Some(3), Some("steps[3].receipt_id"));
        assert_eq!(r.computed_merkle_root, Some(root_of(&ids)));
    }
    for bad in [
        json!(7),
        json!(null),
        json!([IDS[3]]),
        json!({"id": IDS[3]}),
    ] {
        let r = verify(&changed(|d| d["steps"][3]["receipt_id"] = bad.clone()));
        assert_only(&r, "AER1-WF-STEP-ID", Some(3), Some("steps[3].receipt_id"));
        assert_eq!(r.computed_merkle_root, None);
    }
}

#[test]
fn an_empty_receipt_id_would_collide_with_no_steps() {
    // Its leaf is SHA-256(""), the root of an empty workflow.
    let mut step = worked_step(0, json!(1));
    step["receipt_id"] = json!("");
    let r = verify(&with_steps(vec![step], ROOT_EMPTY));
    assert_only(&r, "AER1-WF-STEP-ID", Some(0), Some("steps[0].receipt_id"));
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_EMPTY));
}

#[test]
fn step_receipt_hash_is_lowercase_hex() {
    let good = wf::STEP_HASHES[1];
    for bad in [
        json!(good.to_uppercase()),
        json!(format!("sha256:{good}")),
        json!(&good[..62]),
        json!(""),
        json!(1),
    ] {
        let r = verify(&changed(|d| d["steps"][1]["receipt_hash"] = bad.clone()));
        assert_only(
            &r,
            "AER1-WF-STEP-HASH",
            Some(1),
            Some("steps[1].receipt_hash"),
        );
        assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5));
    }
}

#[test]
fn step_times_are_real_rfc3339_instants() {
    for member in ["started_at", "ended_at"] {
        for bad in [
            json!("2026-09-31T10:57:40.911Z"),
            json!("2026-02-29T10:57:40.911Z"),
            json!("2026-09-29T10:57:60Z"),
            json!("2026-09-29t10:57:40.911z"),
            json!("2026-09-29T10:57:40.911"),
            json!("2026-09-29 10:57:40.911Z"),
            json!(1_790_000_000),
            json!(null),
        ] {
            let r = verify(&changed(|d| d["steps"][4][member] = bad.clone()));
            let path = format!("steps[4].{member}");
            assert_only(&r, "AER1-WF-STEP-TIME", Some(4), Some(&path));
        }
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-SEQ-TYPE, AER1-WF-SEQ

#[test]
fn seq_must_be_an_integer() {
    for bad in [json!(2.5), json!("2"), json!(true), json!(null), json!([2])] {
        let r = verify(&changed(|d| d["steps"][1]["seq"] = bad.clone()));
        assert_only(&r, "AER1-WF-SEQ-TYPE", Some(1), Some("steps[1].seq"));
        // A step that cannot be placed in seq order leaves no root to compare.
        assert_eq!(r.computed_merkle_root, None, "{bad}");
    }
}

/// Whole steps 1 and 2 swapped: seq [1,3,2,4,5] in document order. seq alone fails; with seq
/// broken the draft does not define the order the root is taken in, so it is not judged.
#[test]
fn swapped_steps_fail_on_seq_only() {
    let steps = vec![
        worked_step(0, json!(1)),
        worked_step(2, json!(3)),
        worked_step(1, json!(2)),
        worked_step(3, json!(4)),
        worked_step(4, json!(5)),
    ];
    let r = verify(&with_steps(steps, ROOT_5));
    assert_failures(
        &r,
        &[
            ("AER1-WF-SEQ", Some(1), Some("steps[1].seq")),
            ("AER1-WF-SEQ", Some(2), Some("steps[2].seq")),
        ],
    );
    assert_eq!(r.computed_merkle_root, None);
    assert_eq!(
        r.failures[0].message,
        "step seq values are not 1..n in order (index 1 carries seq 3)"
    );
    assert_eq!(
        r.failures[1].message,
        "step seq values are not 1..n in order (index 2 carries seq 2)"
    );
}

/// [1,2,3,4,9] and [1,2,2,4,5]: seq alone fails, and the root is not judged.
#[test]
fn a_gap_or_a_repeat_fails_on_seq_only() {
    for (i, seq, message) in [
        (4, 9, "index 4 carries seq 9"),
        (2, 2, "index 2 carries seq 2"),
    ] {
        let r = verify(&changed(|d| d["steps"][i]["seq"] = json!(seq)));
        let path = format!("steps[{i}].seq");
        assert_only(&r, "AER1-WF-SEQ", Some(i as u64), Some(&path));
        assert!(r.failures[0].message.contains(message), "{:?}", r.failures);
        assert_eq!(r.computed_merkle_root, None);
    }
}

/// Steps in place, seq values of steps 1 and 2 exchanged: in document order the root would match,
/// in seq-value order it would not. The draft leaves that open, so only seq is reported.
#[test]
fn exchanged_seq_values_fail_on_seq_only() {
    let r = verify(&changed(|d| {
        d["steps"][1]["seq"] = json!(3);
        d["steps"][2]["seq"] = json!(2);
    }));
    assert_failures(
        &r,
        &[
            ("AER1-WF-SEQ", Some(1), Some("steps[1].seq")),
            ("AER1-WF-SEQ", Some(2), Some("steps[2].seq")),
        ],
    );
    assert_eq!(r.computed_merkle_root, None);
}

#[test]
fn seq_must_start_at_one_and_count_by_one() {
    // Every step off by one.
    let d = changed(|d| {
        for i in 0..5 {
            d["steps"][i]["seq"] = json!(i);
        }
    });
    let r = verify(&d);
    let want: Vec<(&str, Option<u64>, Option<String>)> = (0..5u64)
        .map(|i| ("AER1-WF-SEQ", Some(i), Some(format!("steps[{i}].seq"))))
        .collect();
    let want: Vec<(&str, Option<u64>, Option<&str>)> = want
        .iter()
        .map(|(r, e, m)| (*r, *e, m.as_deref()))
        .collect();
    assert_failures(&r, &want);
    assert_eq!(r.computed_merkle_root, None);
    // Negative and huge integers are integers: they fail the order, not the type.
    for (i, seq) in [
        (0, json!(-1)),
        (4, json!(18_446_744_073_709_551_615u64)),
        (4, json!(1e20)),
    ] {
        let r = verify(&changed(|d| d["steps"][i]["seq"] = seq.clone()));
        let path = format!("steps[{i}].seq");
        assert_only(&r, "AER1-WF-SEQ", Some(i as u64), Some(&path));
    }
    // A huge seq on the first step: the seq failure alone, the root not judged (seq order is not
    // defined once seq is broken).
    let r = verify(&changed(|d| d["steps"][0]["seq"] = json!(1e20)));
    assert_only(&r, "AER1-WF-SEQ", Some(0), Some("steps[0].seq"));
    assert_eq!(r.computed_merkle_root, None);
    // A step without an integer seq is not also out of order, and the others are still judged.
    let r = verify(&changed(|d| {
        d["steps"][1]["seq"] = json!("2");
        d["steps"][3]["seq"] = json!(7);
    }));
    assert_failures(
        &r,
        &[
            ("AER1-WF-SEQ-TYPE", Some(1), Some("steps[1].seq")),
            ("AER1-WF-SEQ", Some(3), Some("steps[3].seq")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// AER1-WF-DUPLICATE

#[test]
fn duplicated_last_id_has_the_same_root_and_is_still_rejected() {
    let mut d = worked();
    let mut again = d["steps"][4].clone();
    again["seq"] = json!(6);
    d["steps"].as_array_mut().unwrap().push(again);
    // The collision the rule exists for: six steps, the published five-id root.
    let six = [IDS[0], IDS[1], IDS[2], IDS[3], IDS[4], IDS[4]];
    assert_eq!(root_of(&six), ROOT_5);
    let r = verify(&d);
    assert_only(
        &r,
        "AER1-WF-DUPLICATE",
        Some(5),
        Some("steps[5].receipt_id"),
    );
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5));
    assert_eq!(r.step_count, 6);
    assert_eq!(
        r.failures[0].message,
        format!(
            "duplicate receipt_id: {} (step 5 repeats step 4; the Merkle tree cannot tell \
             duplicates apart)",
            IDS[4]
        )
    );
}

#[test]
fn duplicate_in_the_middle() {
    // The root is right for the list as given: only the duplicate is wrong.
    let d = reordered(&[0, 1, 0, 2, 3]);
    let r = verify(&d);
    assert_only(
        &r,
        "AER1-WF-DUPLICATE",
        Some(2),
        Some("steps[2].receipt_id"),
    );
    assert!(
        r.failures[0].message.contains("repeats step 0"),
        "{}",
        r.failures[0].message
    );
}

#[test]
fn every_repeat_is_reported_and_comparison_is_exact() {
    let r = verify(&reordered(&[0, 0, 1, 0, 1]));
    assert_failures(
        &r,
        &[
            ("AER1-WF-DUPLICATE", Some(1), Some("steps[1].receipt_id")),
            ("AER1-WF-DUPLICATE", Some(3), Some("steps[3].receipt_id")),
            ("AER1-WF-DUPLICATE", Some(4), Some("steps[4].receipt_id")),
        ],
    );
    // Ids differing only in case are compared as written, as the kit does (their leaves differ
    // too): the upper-case one breaks the lower-case rule, and is not a repeat.
    let upper = IDS[0].to_uppercase();
    let mut d = reordered(&[0, 0]);
    d["steps"][1]["receipt_id"] = json!(upper);
    d["merkle_root"] = json!(root_of(&[IDS[0], &upper]));
    assert_only(
        &verify(&d),
        "AER1-WF-STEP-ID-CASE",
        Some(1),
        Some("steps[1].receipt_id"),
    );
}

#[test]
fn duplicate_and_wrong_root_are_both_reported() {
    let mut d = reordered(&[0, 1, 0]);
    d["merkle_root"] = json!(ROOT_5);
    assert_failures(
        &verify(&d),
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
        ROOT_EMPTY.to_string(),
        // The published root with its last digit changed.
        format!("{}0", &ROOT_5[..63]),
        // The root of the first four ids only, of the first three, of the reversed list.
        root_of(&IDS[..4]),
        wf::ROOT_FIRST_3.to_string(),
        wf::ROOT_REVERSED.to_string(),
        // The legacy construction over "<seq>:<receipt_hash>".
        wf::ROOT_LEGACY.to_string(),
    ] {
        let r = verify(&changed(|d| d["merkle_root"] = json!(wrong)));
        assert_only(&r, "AER1-WF-ROOT", None, Some("merkle_root"));
        assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5));
    }
    // A dropped step changes the root.
    let mut d = worked();
    d["steps"].as_array_mut().unwrap().pop();
    assert_only(&verify(&d), "AER1-WF-ROOT", None, Some("merkle_root"));
}

#[test]
fn the_root_binds_which_id_has_which_seq() {
    // Receipt ids of steps 0 and 1 exchanged, seq left 1..5: the ids in seq order change.
    let r = verify(&changed(|d| {
        d["steps"][0]["receipt_id"] = json!(IDS[1]);
        d["steps"][1]["receipt_id"] = json!(IDS[0]);
    }));
    assert_only(&r, "AER1-WF-ROOT", None, Some("merkle_root"));
    let swapped = [IDS[1], IDS[0], IDS[2], IDS[3], IDS[4]];
    assert_eq!(r.computed_merkle_root, Some(root_of(&swapped)));
}

// ------------------------------------------------------------------------------------------------
// Several failures, input-level failures.

#[test]
fn several_problems_are_all_reported_in_order() {
    let mut d = worked();
    d["type"] = json!("workflow");
    d["goal"] = json!("");
    d["verify_url"] = json!("ftp://x");
    d["steps"][1] = json!(5);
    d["steps"][2]["seq"] = json!(9);
    d["steps"][2]["receipt_hash"] = json!("X");
    d["steps"][3]["receipt_id"] = json!(IDS[0]);
    remove(&mut d["steps"][4], "status");
    assert_failures(
        &verify(&d),
        &[
            ("AER1-WF-TYPE", None, Some("type")),
            ("AER1-WF-STRINGS", None, Some("goal")),
            ("AER1-WF-VERIFY-URL", None, Some("verify_url")),
            ("AER1-WF-STEP-MEMBERS", Some(1), Some("steps[1]")),
            ("AER1-WF-SEQ", Some(2), Some("steps[2].seq")),
            ("AER1-WF-STEP-HASH", Some(2), Some("steps[2].receipt_hash")),
            // Duplicates are still found among the other steps.
            ("AER1-WF-DUPLICATE", Some(3), Some("steps[3].receipt_id")),
            ("AER1-WF-STEP-MEMBERS", Some(4), Some("steps[4].status")),
        ],
    );
}

#[test]
fn duplicate_member_names_in_a_workflow() {
    let text = serde_json::to_string(&worked()).unwrap();
    // A repeated receipt_id name inside step 2, with the same value: only the duplicate name.
    let needle = format!("\"receipt_id\":\"{}\"", IDS[2]);
    assert!(text.contains(&needle));
    let dup = text.replacen(&needle, &format!("{needle},{needle}"), 1);
    assert_only(
        &verify_workflow(dup.as_bytes()),
        "AER1-JSON-DUPLICATE",
        None,
        Some("steps[2].receipt_id"),
    );
    // The last value is the one used: a different first value does not change the root.
    let dup = text.replacen(&needle, &format!("\"receipt_id\":\"other\",{needle}"), 1);
    let r = verify_workflow(dup.as_bytes());
    assert_only(&r, "AER1-JSON-DUPLICATE", None, Some("steps[2].receipt_id"));
    assert_eq!(r.computed_merkle_root.as_deref(), Some(ROOT_5));
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
    let text = serde_json::to_string(&worked()).unwrap();
    assert_only(&verify_workflow(b""), "AER1-JSON-SYNTAX", None, None);
    assert_only(
        &verify_workflow(&text.as_bytes()[1..]),
        "AER1-JSON-SYNTAX",
        None,
        None,
    );
    let surrogate = text.replacen("get BTC price", "get \\udc00 price", 1);
    assert_only(
        &verify_workflow(surrogate.as_bytes()),
        "AER1-JSON-SURROGATE",
        None,
        None,
    );
    let mut not_utf8 = text.clone().into_bytes();
    let at = text.find("BTC").unwrap();
    not_utf8[at] = 0xff;
    assert_only(&verify_workflow(&not_utf8), "AER1-JSON-UTF8", None, None);
    let n = text.len() as u64;
    assert_valid(&verify_workflow_reader(text.as_bytes(), n).unwrap());
    assert_only(
        &verify_workflow_reader(text.as_bytes(), n - 1).unwrap(),
        "AER1-JSON-SIZE",
        None,
        None,
    );
}
