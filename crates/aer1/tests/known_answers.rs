//! Known-answer tests: the values published with the draft (spec notes AER1.md), checked against
//! the reference. The expected values are copied from the publication, never computed here.

use agentconf_aer1::digest::{merkle_root, Revision};
use agentconf_aer1::hex;
use agentconf_aer1::producer::{digest_entry, example_chain, timeline_json};
use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::timeline::{verify_timeline, verify_timeline_observed, TimelineOptions};
use agentconf_aer1::{Report, TruncationEvidence, Verdict};

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
fn merkle_worked_root() {
    let ids = [
        "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
        "514fe841-bbdd-4804-9ef4-6828842d8763",
        "a090bdad-f2cf-48c9-bc89-e9e17700fb15",
        "bf88a036-416b-456a-8e82-8c0991811d68",
        "ae795bf0-27f8-4cf2-8aef-3f8142b77217",
    ];
    assert_eq!(
        hex::lower(&merkle_root(ids)),
        "7c4817ca249edfeae259b98abf63ed38a31d9dbeebf5ee23139410a7a7f63b37"
    );
    // No domain separation: a duplicated last id gives the same root.
    let dup = [ids[0], ids[1], ids[2], ids[3], ids[4], ids[4]];
    assert_eq!(merkle_root(ids), merkle_root(dup));
    // Empty: SHA-256 of the empty string.
    assert_eq!(
        hex::lower(&merkle_root([])),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
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
