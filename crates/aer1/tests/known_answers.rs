//! Known-answer tests: the values published with the draft (spec notes AER1.md), checked against
//! the reference. The expected values are copied from the publication, never computed here (the
//! workflow values are in `support/worked_workflow.rs`).

use agentconf_aer1::digest::{merkle_root, Revision};
use agentconf_aer1::hex;
use agentconf_aer1::producer::{digest_entry, example_chain, timeline_json};
use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::timeline::{verify_timeline, verify_timeline_observed, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow;
use agentconf_aer1::{Report, TruncationEvidence, Verdict};

#[path = "support/worked_workflow.rs"]
mod wf;

/// Entry digests d0..d4 of `v07-valid-5`, as published.
const V07_VALID_5: [&str; 5] = [
    "380d45c6575bdb648e5723adee5a049ff212574d4c6d5dd8ad4cabcc54b6aa56",
    "c225aa2256e7984575f5a664b690f2b06c86abddc528def6164fb1bbb0aa4cba",
    "4c56c96378cea5939ad61d082fff24d075649ca888b0c61308307d14034a204a",
    "5dd618b1b3b904a92261bb747f8c4511b0882e1454fc41f20a59fa5bd0ded778",
    "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0",
];

/// The published preimage of entry 0.
const V07_ENTRY0_PREIMAGE: &str = r#"{"close":false,"id":"r-job-7a1f-0","job_id":"job-7a1f","output_hash":"0b6bce531a75c95378d96b13e36ee5c2ba0e98c696506d2f3c9a75b565d7f705","prev_digest":"0000000000000000000000000000000000000000000000000000000000000000","provenance_class":"LOGGED BY AGENT","seq":1,"tool":"price_lookup"}"#;

/// The shipped example file, which README's first command verifies.
const SHIPPED: &str = include_str!("../testdata/v07-valid-5.json");
const SHIPPED_COMMITMENT: &str = include_str!("../testdata/v07-valid-5.commitment.json");

#[test]
fn producer_reproduces_the_published_chain() {
    let entries = example_chain("job-7a1f", 5, Revision::R09);
    assert_eq!(
        entries[0].canonical_bytes,
        "eyJqb2IiOiJqb2ItN2ExZiIsImVudHJ5IjowLCJ0YWciOiJyIn0="
    );
    let mut scratch = Vec::new();
    for (entry, want) in entries.iter().zip(V07_VALID_5) {
        assert_eq!(
            hex::lower(&digest_entry(entry, Revision::R09, &mut scratch)),
            want
        );
    }
    assert_eq!(
        timeline_json(&entries),
        SHIPPED,
        "testdata/v07-valid-5.json is stale"
    );
}

#[test]
fn verifier_recomputes_the_published_digests_and_preimage() {
    let mut digests = Vec::new();
    let mut preimage0 = None;
    let report =
        verify_timeline_observed(SHIPPED.as_bytes(), &TimelineOptions::default(), &mut |d| {
            digests.push(hex::lower(&d.digest.expect("digestable")));
            if d.index == 0 {
                preimage0 = d.preimage.map(|p| String::from_utf8(p.to_vec()).unwrap());
            }
        })
        .unwrap();
    assert_eq!(report.verdict, Verdict::Valid, "{:?}", report.failures);
    assert_eq!(digests, V07_VALID_5);
    assert_eq!(preimage0.as_deref(), Some(V07_ENTRY0_PREIMAGE));
    assert_eq!(report.final_entry_digest.as_deref(), Some(V07_VALID_5[4]));
    assert_eq!(report.entry_count, 5);
    assert_eq!(report.truncation_evidence, TruncationEvidence::None);
}

#[test]
fn published_commitment_verifies() {
    let commitment =
        agentconf_aer1::commitment::parse_commitment(SHIPPED_COMMITMENT.as_bytes()).unwrap();
    assert_eq!(commitment.final_entry_digest, V07_VALID_5[4]);
    let options = TimelineOptions {
        commitment: Some(commitment),
        ..TimelineOptions::default()
    };
    let report = verify_timeline(SHIPPED.as_bytes(), &options).unwrap();
    assert_eq!(report.verdict, Verdict::Valid, "{:?}", report.failures);
    assert_eq!(
        report.truncation_evidence,
        TruncationEvidence::CommitmentVerified
    );
}

#[test]
fn receipt_worked_value() {
    let receipt = |bytes: &str, hash: &str| {
        format!(
            r#"{{"id":"e80168eb-a6a1-4ec9-8478-ac108f9397ff","receipt_schema_version":"0.3","created_at":"2026-10-01T18:30:00Z","tool":{{"name":"t","version":"1","scope":"read"}},"provenance_class":"EXECUTED BY ZAMBO","canonical_bytes":"{bytes}","output_hash":"{hash}","verification_status":"verified"}}"#
        )
    };
    let hash = "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50";
    let good = receipt(
        "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=",
        hash,
    );
    let r = verify_receipt(good.as_bytes(), Tier::Strict);
    assert_eq!(r.verdict, Verdict::Valid, "{:?}", r.failures);
    assert_eq!(r.computed_output_hash.as_deref(), Some(hash));
    // Without the padding it is invalid.
    let unpadded = receipt(
        "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0",
        hash,
    );
    let r = verify_receipt(unpadded.as_bytes(), Tier::Core);
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(
        r.failures.iter().map(|f| f.rule.id()).collect::<Vec<_>>(),
        ["AER1-RC-B64"]
    );
}

#[test]
fn merkle_published_roots() {
    let ids = wf::STEP_IDS;
    let root = |list: &[&str]| hex::lower(&merkle_root(list.iter().copied()));
    assert_eq!(root(&ids), wf::ROOT_5);
    // No domain separation: the five plus the fifth again give the same root.
    assert_eq!(
        root(&[ids[0], ids[1], ids[2], ids[3], ids[4], ids[4]]),
        wf::ROOT_5
    );
    assert_eq!(root(&ids[..3]), wf::ROOT_FIRST_3);
    let reversed: Vec<&str> = ids.iter().rev().copied().collect();
    assert_eq!(root(&reversed), wf::ROOT_REVERSED);
    assert_eq!(root(&ids[..1]), wf::ROOT_FIRST_1);
    // Empty: SHA-256 of the empty string.
    assert_eq!(root(&[]), wf::ROOT_EMPTY);
}

/// The legacy construction (leaves `"<seq>:<receipt_hash>"`) gives the published legacy root,
/// which is not the worked example's root.
#[test]
fn merkle_legacy_construction_gives_another_root() {
    let leaves: Vec<String> = wf::STEP_HASHES
        .iter()
        .enumerate()
        .map(|(i, h)| format!("{}:{h}", i + 1))
        .collect();
    let legacy = hex::lower(&merkle_root(leaves.iter().map(String::as_str)));
    assert_eq!(legacy, wf::ROOT_LEGACY);
    assert_ne!(legacy, wf::ROOT_5);
}

fn workflow_rules(r: &agentconf_aer1::report::WorkflowReport) -> Vec<&'static str> {
    r.failures.iter().map(|f| f.rule.id()).collect()
}

/// The draft's worked workflow receipt is a valid document, and its root is the published one.
#[test]
fn worked_workflow_receipt_verifies() {
    let r = verify_workflow(wf::WORKED_WORKFLOW.as_bytes());
    assert_eq!(r.verdict, Verdict::Valid, "{:#?}", r.failures);
    assert_eq!(r.step_count, 5);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(wf::ROOT_5));
}

/// Five steps plus the fifth again: the published root, and still invalid (duplicate receipt_id).
#[test]
fn five_ids_plus_the_fifth_again() {
    let mut doc: serde_json::Value = serde_json::from_str(wf::WORKED_WORKFLOW).unwrap();
    let steps = doc["steps"].as_array_mut().unwrap();
    let mut again = steps[4].clone();
    again["seq"] = 6.into();
    steps.push(again);
    let six = serde_json::to_vec(&doc).unwrap();
    let r = verify_workflow(&six);
    assert_eq!(r.step_count, 6);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(wf::ROOT_5));
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(workflow_rules(&r), ["AER1-WF-DUPLICATE"]);
    assert_eq!(r.failures[0].entry, Some(5));
    assert!(
        r.failures[0]
            .message
            .starts_with(&format!("duplicate receipt_id: {}", wf::STEP_IDS[4])),
        "{}",
        r.failures[0].message
    );
}

/// The worked example carrying the legacy root does not verify: a root mismatch, nothing else.
#[test]
fn worked_workflow_with_the_legacy_root_is_rejected() {
    let legacy = wf::WORKED_WORKFLOW.replacen(wf::ROOT_5, wf::ROOT_LEGACY, 1);
    assert_ne!(legacy, wf::WORKED_WORKFLOW);
    let r = verify_workflow(legacy.as_bytes());
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(workflow_rules(&r), ["AER1-WF-ROOT"]);
    assert_eq!(r.computed_merkle_root.as_deref(), Some(wf::ROOT_5));
}

#[test]
fn report_serializes_with_its_kind() {
    let report = verify_timeline(SHIPPED.as_bytes(), &TimelineOptions::default()).unwrap();
    let json = serde_json::to_value(Report::Timeline(report)).unwrap();
    assert_eq!(json["kind"], "aer1-timeline");
    assert_eq!(json["revision"], "09");
    assert_eq!(json["historical"], false);
    assert_eq!(json["truncation_evidence"], "none");
}
