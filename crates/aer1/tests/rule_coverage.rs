//! Every AER-1 rule in the catalogue can actually be produced by the reference.
//!
//! The catalogue tests (crates/rules) prove that every error maps to a rule and every rule is a
//! record; they cannot prove that some input reaches each error. This file keeps one small input
//! per rule, runs it through the public verifier that owns the rule, checks the exact list of
//! rules it reports, and asserts that together the inputs report every `AER1-` rule — so a
//! catalogue rule that nothing can trigger fails here.
//!
//! Two rules are handled apart:
//! - `AER1-TL-VERSIONING` has no error of its own: it is honoured by labelling (a revision-06
//!   chain verifies only under 06, and that result is `historical`). `versioning_is_shown_by_labelling`
//!   checks that instead.
//! - `AER1-JSON-SIZE` needs an input over the 64 MiB default; it is triggered through the
//!   reader entry points with a small limit.

use std::collections::BTreeSet;

use agentconf_aer1::commitment::{parse_commitment, read_commitment, Commitment};
use agentconf_aer1::digest::{merkle_root, Revision};
use agentconf_aer1::finding::Finding;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::{example_chain, relink, Entry};
use agentconf_aer1::receipt::{verify_receipt, verify_receipt_reader, Tier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::{verify_workflow, verify_workflow_reader};
use agentconf_aer1::Verdict;
use agentconf_rules::Rule;
use serde_json::{json, Value};

#[path = "support/worked_workflow.rs"]
mod wf;

/// Rules shown by something other than a verifier's failure: a labelling (AER1-TL-VERSIONING),
/// and a producer's duty no document shows (AER1-RC-BYTES-KEPT: a receipt of re-serialised bytes
/// verifies; the harness grades it on a producer's output, `aer1-emit-receipt`).
const NOT_AN_ERROR: &[&str] = &["AER1-TL-VERSIONING", "AER1-RC-BYTES-KEPT"];

// ------------------------------------------------------------------------------------------------
// Inputs.

const WORKED_B64: &str = "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=";
const WORKED_HASH: &str = "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50";
fn receipt() -> Value {
    json!({
        "id": "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
        "receipt_schema_version": "0.3",
        "created_at": "2026-10-01T18:30:00Z",
        "tool": {"name": "t", "version": "1", "scope": "read"},
        "provenance_class": "LOGGED BY AGENT",
        "canonical_bytes": WORKED_B64,
        "output_hash": WORKED_HASH,
        "verification_status": "verified",
    })
}

fn receipt_with(member: &str, value: Value) -> Vec<u8> {
    let mut r = receipt();
    r[member] = value;
    serde_json::to_vec(&r).unwrap()
}

/// The receipt with a well-formed anchor (the leaf is the worked hash).
fn anchored_receipt() -> Value {
    let mut r = receipt();
    r["anchor"] = json!({
        "log": "https://log.example/aer1",
        "leaf_hash": WORKED_HASH,
        "anchored_at": "2026-10-01T18:31:00Z",
        "proof": {},
    });
    r
}

fn anchored(receipt: Value) -> Check {
    Check::Receipt(serde_json::to_vec(&receipt).unwrap(), Tier::Anchored)
}

fn receipt_text() -> String {
    serde_json::to_string(&receipt()).unwrap()
}

fn chain(n: usize) -> Vec<Entry> {
    example_chain("job-7a1f", n, Revision::R09)
}

fn chain_values(n: usize) -> Vec<Value> {
    chain(n)
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// A valid chain of `n` entries with one change made to the JSON of entry `i`.
fn chain_with(
    n: usize,
    i: usize,
    change: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> Vec<u8> {
    let mut v = chain_values(n);
    change(v[i].as_object_mut().unwrap());
    serde_json::to_vec(&v).unwrap()
}

fn entries_bytes(entries: &[Entry]) -> Vec<u8> {
    serde_json::to_vec(entries).unwrap()
}

/// The draft's worked workflow receipt with one change.
fn workflow_with(change: impl FnOnce(&mut Value)) -> Check {
    let mut w: Value = serde_json::from_str(wf::WORKED_WORKFLOW).unwrap();
    change(&mut w);
    Check::Workflow(serde_json::to_vec(&w).unwrap())
}

fn commitment_text(job: &str, digest: &str, count: &str, published: &str) -> Vec<u8> {
    format!(
        "{{\"job_id\":{},\"final_entry_digest\":{},\"entry_count\":{count},\"published_at\":{}}}",
        serde_json::to_string(job).unwrap(),
        serde_json::to_string(digest).unwrap(),
        serde_json::to_string(published).unwrap()
    )
    .into_bytes()
}

/// The commitment that matches `chain(n)`.
fn commitment_for(n: usize) -> Commitment {
    let report =
        verify_timeline(&entries_bytes(&chain(n))[..], &TimelineOptions::default()).unwrap();
    assert_eq!(report.verdict, Verdict::Valid);
    parse_commitment(&commitment_text(
        "job-7a1f",
        report.final_entry_digest.as_deref().unwrap(),
        &n.to_string(),
        "2026-10-01T18:30:00Z",
    ))
    .unwrap()
}

/// How one input is verified.
enum Check {
    Receipt(Vec<u8>, Tier),
    ReceiptReader(Vec<u8>, u64),
    Timeline(Vec<u8>, TimelineOptions),
    Workflow(Vec<u8>),
    WorkflowReader(Vec<u8>, u64),
    Commitment(Vec<u8>),
    CommitmentReader(Vec<u8>, u64),
}

impl Check {
    fn findings(&self) -> Vec<Finding> {
        match self {
            Check::Receipt(bytes, tier) => verify_receipt(bytes, *tier).failures,
            Check::ReceiptReader(bytes, limit) => {
                verify_receipt_reader(&bytes[..], Tier::Core, *limit)
                    .unwrap()
                    .failures
            }
            Check::Timeline(bytes, options) => {
                verify_timeline(&bytes[..], options).unwrap().failures
            }
            Check::Workflow(bytes) => verify_workflow(bytes).failures,
            Check::WorkflowReader(bytes, limit) => {
                verify_workflow_reader(&bytes[..], *limit).unwrap().failures
            }
            Check::Commitment(bytes) => parse_commitment(bytes).err().unwrap_or_default(),
            Check::CommitmentReader(bytes, limit) => read_commitment(&bytes[..], *limit)
                .unwrap()
                .err()
                .unwrap_or_default(),
        }
    }
}

fn core(bytes: Vec<u8>) -> Check {
    Check::Receipt(bytes, Tier::Core)
}

fn timeline(bytes: Vec<u8>) -> Check {
    Check::Timeline(bytes, TimelineOptions::default())
}

fn timeline_committed(bytes: Vec<u8>, commitment: Commitment) -> Check {
    Check::Timeline(
        bytes,
        TimelineOptions {
            commitment: Some(commitment),
            ..TimelineOptions::default()
        },
    )
}

/// (what the input is, the exact rules it must report, in order, and how it is checked).
fn cases() -> Vec<(&'static str, Vec<&'static str>, Check)> {
    let zeros = "0".repeat(64);
    let final_1 = commitment_for(1).final_entry_digest;
    vec![
        // ---- input documents
        (
            "empty receipt file",
            vec!["AER1-JSON-SYNTAX"],
            core(Vec::new()),
        ),
        (
            "receipt file not UTF-8",
            vec!["AER1-JSON-UTF8"],
            core(b"{\"id\":\"\xff\"}".to_vec()),
        ),
        (
            "lone surrogate in a receipt",
            vec!["AER1-JSON-SURROGATE"],
            core(b"{\"id\":\"\\ud800\"}".to_vec()),
        ),
        (
            "duplicate name in a receipt",
            vec!["AER1-JSON-DUPLICATE"],
            core(
                receipt_text()
                    .replacen("{", "{\"id\":\"x\",", 1)
                    .into_bytes(),
            ),
        ),
        (
            "deep nesting in a receipt",
            vec!["AER1-JSON-DEPTH"],
            core(format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes()),
        ),
        (
            "1e400 in a receipt",
            vec!["AER1-JSON-NUMBER"],
            core(
                receipt_text()
                    .replacen("{", "{\"x\":1e400,", 1)
                    .into_bytes(),
            ),
        ),
        (
            "receipt over a 10-byte limit",
            vec!["AER1-JSON-SIZE"],
            Check::ReceiptReader(receipt_text().into_bytes(), 10),
        ),
        (
            "workflow over a 10-byte limit",
            vec!["AER1-JSON-SIZE"],
            Check::WorkflowReader(wf::WORKED_WORKFLOW.as_bytes().to_vec(), 10),
        ),
        (
            "commitment over a 10-byte limit",
            vec!["AER1-JSON-SIZE"],
            Check::CommitmentReader(
                commitment_text("job-7a1f", &final_1, "1", "2026-10-01T18:30:00Z"),
                10,
            ),
        ),
        (
            "timeline entry over a 10-byte limit",
            vec!["AER1-JSON-SIZE"],
            Check::Timeline(
                entries_bytes(&chain(1)),
                TimelineOptions {
                    max_entry_bytes: 10,
                    ..TimelineOptions::default()
                },
            ),
        ),
        // ---- single receipt
        (
            "receipt is an array",
            vec!["AER1-RC-MEMBERS"],
            core(b"[]".to_vec()),
        ),
        (
            "receipt without verification_status",
            vec!["AER1-RC-MEMBERS"],
            {
                let mut r = receipt();
                r.as_object_mut().unwrap().remove("verification_status");
                core(serde_json::to_vec(&r).unwrap())
            },
        ),
        (
            "uppercase id",
            vec!["AER1-RC-ID"],
            core(receipt_with(
                "id",
                json!("E80168EB-A6A1-4EC9-8478-AC108F9397FF"),
            )),
        ),
        (
            "version-1 id under the strict tier",
            vec!["AER1-RC-ID-STRICT"],
            Check::Receipt(
                receipt_with("id", json!("e80168eb-a6a1-1ec9-8478-ac108f9397ff")),
                Tier::Strict,
            ),
        ),
        (
            "empty schema version",
            vec!["AER1-RC-SCHEMA-VERSION"],
            core(receipt_with("receipt_schema_version", json!(""))),
        ),
        (
            "30 February",
            vec!["AER1-RC-CREATED-AT"],
            core(receipt_with("created_at", json!("2026-02-30T00:00:00Z"))),
        ),
        (
            "tool without scope",
            vec!["AER1-RC-TOOL"],
            core(receipt_with("tool", json!({"name": "t", "version": "1"}))),
        ),
        (
            "lowercase provenance",
            vec!["AER1-RC-PROVENANCE"],
            core(receipt_with("provenance_class", json!("logged by agent"))),
        ),
        (
            "unpadded base64",
            vec!["AER1-RC-B64"],
            core(receipt_with(
                "canonical_bytes",
                json!(WORKED_B64.trim_end_matches('=')),
            )),
        ),
        ("bytes not UTF-8, hash matching", vec!["AER1-RC-UTF8"], {
            let mut r = receipt();
            r["canonical_bytes"] = json!(encode_base64(b"\xff"));
            r["output_hash"] =
                json!("sha256:a8100ae6aa1940d0b663bb31cd466142ebbdbd5187131b92d93818987832eb89");
            core(serde_json::to_vec(&r).unwrap())
        }),
        (
            "uppercase output_hash",
            vec!["AER1-RC-HASH-FORMAT"],
            core(receipt_with(
                "output_hash",
                json!(WORKED_HASH.to_uppercase()),
            )),
        ),
        (
            "wrong output_hash",
            vec!["AER1-RC-HASH-MATCH"],
            core(receipt_with(
                "output_hash",
                json!(format!("sha256:{zeros}")),
            )),
        ),
        (
            "status Verified",
            vec!["AER1-RC-STATUS"],
            core(receipt_with("verification_status", json!("Verified"))),
        ),
        (
            "no anchor under the anchored tier",
            vec!["AER1-RC-ANCHOR-MEMBERS"],
            anchored(receipt()),
        ),
        ("anchor with an empty log", vec!["AER1-RC-ANCHOR-LOG"], {
            let mut r = anchored_receipt();
            r["anchor"]["log"] = json!("");
            anchored(r)
        }),
        (
            "anchor leaf without prefix",
            vec!["AER1-RC-ANCHOR-LEAF-FORMAT"],
            {
                let mut r = anchored_receipt();
                r["anchor"]["leaf_hash"] = json!(&WORKED_HASH[7..]);
                anchored(r)
            },
        ),
        (
            "anchor leaf of other bytes",
            vec!["AER1-RC-ANCHOR-LEAF-MATCH"],
            {
                let mut r = anchored_receipt();
                r["anchor"]["leaf_hash"] = json!(format!("sha256:{zeros}"));
                anchored(r)
            },
        ),
        ("anchored 30 February", vec!["AER1-RC-ANCHOR-TIME"], {
            let mut r = anchored_receipt();
            r["anchor"]["anchored_at"] = json!("2026-02-30T00:00:00Z");
            anchored(r)
        }),
        ("anchor proof a string", vec!["AER1-RC-ANCHOR-PROOF"], {
            let mut r = anchored_receipt();
            r["anchor"]["proof"] = json!("none");
            anchored(r)
        }),
        (
            "payload without inputs under the profile tier",
            vec!["AER1-RC-PROFILE-INPUTS"],
            {
                let bytes = br#"{"outputs":{}}"#;
                let mut r = receipt();
                r["canonical_bytes"] = json!(encode_base64(bytes));
                r["output_hash"] = json!(format!(
                    "sha256:{}",
                    agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(bytes))
                ));
                Check::Receipt(serde_json::to_vec(&r).unwrap(), Tier::Profile)
            },
        ),
        // ---- timeline
        (
            "empty timeline",
            vec!["AER1-TL-ARRAY"],
            timeline(b"[]".to_vec()),
        ),
        (
            "timeline entry is a number",
            vec!["AER1-TL-ENTRY-OBJECT"],
            timeline(b"[1]".to_vec()),
        ),
        (
            "entry without tool",
            vec!["AER1-TL-MEMBERS"],
            timeline(chain_with(1, 0, |e| {
                e.remove("tool");
            })),
        ),
        (
            "entry with URL-safe base64",
            vec!["AER1-TL-B64"],
            timeline(chain_with(1, 0, |e| {
                e.insert("canonical_bytes".into(), json!("Pz8_"));
            })),
        ),
        (
            "entry bytes not UTF-8",
            vec!["AER1-TL-UTF8"],
            timeline(chain_with(1, 0, |e| {
                e.insert("canonical_bytes".into(), json!(encode_base64(b"\xfe")));
            })),
        ),
        (
            "entry with a wrong stored output_hash",
            vec!["AER1-TL-OUTPUT-HASH"],
            timeline(chain_with(1, 0, |e| {
                e.insert(
                    "output_hash".into(),
                    json!(format!("sha256:{}", "0".repeat(64))),
                );
            })),
        ),
        (
            "entry with an unknown provenance class",
            vec!["AER1-TL-PROVENANCE"],
            timeline(chain_with(1, 0, |e| {
                e.insert("provenance_class".into(), json!("TRUST ME"));
            })),
        ),
        (
            "seq 1.5",
            vec!["AER1-TL-SEQ-TYPE"],
            timeline(chain_with(1, 0, |e| {
                e.insert("seq".into(), json!(1.5));
            })),
        ),
        (
            "first seq 2",
            vec!["AER1-TL-SEQ"],
            timeline(chain_with(1, 0, |e| {
                e.insert("seq".into(), json!(2));
            })),
        ),
        (
            "last entry of another job",
            vec!["AER1-TL-JOB"],
            timeline(chain_with(2, 1, |e| {
                e.insert("job_id".into(), json!("job-other"));
            })),
        ),
        (
            "genesis not zeros",
            vec!["AER1-TL-GENESIS"],
            timeline(chain_with(1, 0, |e| {
                e.insert("prev_digest".into(), json!("1".repeat(64)));
            })),
        ),
        (
            "broken link",
            vec!["AER1-TL-LINK"],
            timeline(chain_with(2, 1, |e| {
                e.insert("prev_digest".into(), json!("a".repeat(64)));
            })),
        ),
        (
            "close as a string on the first entry",
            vec!["AER1-TL-CLOSE-TYPE"],
            timeline(chain_with(2, 0, |e| {
                e.insert("close".into(), json!("no"));
            })),
        ),
        (
            "revision 06: close as a string on the first entry",
            vec!["AER1-TL-06-CLOSE-TYPE"],
            {
                let mut v: Vec<Value> = example_chain("job-7a1f", 2, Revision::R06)
                    .iter()
                    .map(|e| serde_json::to_value(e).unwrap())
                    .collect();
                v[0]["close"] = json!("no");
                Check::Timeline(
                    serde_json::to_vec(&v).unwrap(),
                    TimelineOptions {
                        revision: Revision::R06,
                        ..TimelineOptions::default()
                    },
                )
            },
        ),
        (
            "close: true on the first of two",
            vec!["AER1-TL-CLOSE-EARLY"],
            {
                let mut c = chain(2);
                c[0].close = Some(true);
                relink(&mut c, Revision::R09);
                timeline(entries_bytes(&c))
            },
        ),
        (
            "last entry not closed",
            vec!["AER1-TL-CLOSE-LAST"],
            timeline(chain_with(1, 0, |e| {
                e.remove("close");
            })),
        ),
        // ---- commitment
        (
            "commitment is an array",
            vec!["AER1-CM-MEMBERS"],
            Check::Commitment(b"[]".to_vec()),
        ),
        (
            "commitment with an empty job",
            vec!["AER1-CM-JOB-FORMAT"],
            Check::Commitment(commitment_text("", &final_1, "1", "2026-10-01T18:30:00Z")),
        ),
        (
            "commitment with a prefixed digest",
            vec!["AER1-CM-DIGEST-FORMAT"],
            Check::Commitment(commitment_text(
                "job-7a1f",
                &format!("sha256:{final_1}"),
                "1",
                "2026-10-01T18:30:00Z",
            )),
        ),
        (
            "commitment count 1.0",
            vec!["AER1-CM-COUNT-FORMAT"],
            Check::Commitment(commitment_text(
                "job-7a1f",
                &final_1,
                "1.0",
                "2026-10-01T18:30:00Z",
            )),
        ),
        (
            "commitment published 1900-02-29",
            vec!["AER1-CM-PUBLISHED-AT"],
            Check::Commitment(commitment_text(
                "job-7a1f",
                &final_1,
                "1",
                "1900-02-29T00:00:00Z",
            )),
        ),
        (
            "commitment count 2 for one entry",
            vec!["AER1-CM-COUNT"],
            timeline_committed(
                entries_bytes(&chain(1)),
                Commitment {
                    entry_count: "2".into(),
                    ..commitment_for(1)
                },
            ),
        ),
        (
            "commitment of another job",
            vec!["AER1-CM-JOB"],
            timeline_committed(
                entries_bytes(&chain(1)),
                Commitment {
                    job_id: "job-other".into(),
                    ..commitment_for(1)
                },
            ),
        ),
        (
            "commitment to another final digest",
            vec!["AER1-CM-FINAL"],
            timeline_committed(
                entries_bytes(&chain(1)),
                Commitment {
                    final_entry_digest: zeros.clone(),
                    ..commitment_for(1)
                },
            ),
        ),
        // ---- workflow
        ("workflow without goal", vec!["AER1-WF-MEMBERS"], {
            workflow_with(|w| {
                w.as_object_mut().unwrap().remove("goal");
            })
        }),
        (
            "workflow of another type",
            vec!["AER1-WF-TYPE"],
            workflow_with(|w| w["type"] = json!("workflow-receipt")),
        ),
        (
            "workflow with an empty version",
            vec!["AER1-WF-STRINGS"],
            workflow_with(|w| w["version"] = json!("")),
        ),
        (
            "uppercase workflow_id",
            vec!["AER1-WF-ID"],
            workflow_with(|w| w["workflow_id"] = json!(wf::WORKFLOW_ID.to_uppercase())),
        ),
        (
            "receipt_id equal to workflow_id",
            vec!["AER1-WF-ID-DISTINCT"],
            workflow_with(|w| w["receipt_id"] = json!(wf::WORKFLOW_ID)),
        ),
        (
            "workflow root uppercase",
            vec!["AER1-WF-HEX"],
            workflow_with(|w| w["merkle_root"] = json!(wf::ROOT_5.to_uppercase())),
        ),
        (
            "ftp verify_url",
            vec!["AER1-WF-VERIFY-URL"],
            workflow_with(|w| w["verify_url"] = json!("ftp://zambo.dev/workflow/x")),
        ),
        ("step without ended_at", vec!["AER1-WF-STEP-MEMBERS"], {
            workflow_with(|w| {
                w["steps"][2].as_object_mut().unwrap().remove("ended_at");
            })
        }),
        (
            "step receipt_id a number",
            vec!["AER1-WF-STEP-ID"],
            workflow_with(|w| w["steps"][2]["receipt_id"] = json!(3)),
        ),
        (
            "step receipt_id in upper case, root over the ids as written",
            vec!["AER1-WF-STEP-ID-CASE"],
            workflow_with(|w| {
                let upper = wf::STEP_IDS[2].to_uppercase();
                let mut ids = wf::STEP_IDS.to_vec();
                ids[2] = &upper;
                w["steps"][2]["receipt_id"] = json!(upper);
                w["merkle_root"] = json!(agentconf_aer1::hex::lower(&merkle_root(ids)));
            }),
        ),
        (
            "no steps, the root of none",
            vec!["AER1-WF-STEPS-NONEMPTY"],
            workflow_with(|w| {
                w["steps"] = json!([]);
                w["merkle_root"] = json!(wf::ROOT_EMPTY);
            }),
        ),
        (
            "step receipt_hash with a prefix",
            vec!["AER1-WF-STEP-HASH"],
            workflow_with(|w| {
                w["steps"][2]["receipt_hash"] = json!(format!("sha256:{}", wf::STEP_HASHES[2]))
            }),
        ),
        (
            "step started 30 February",
            vec!["AER1-WF-STEP-TIME"],
            workflow_with(|w| w["steps"][2]["started_at"] = json!("2026-02-30T10:57:45.415Z")),
        ),
        (
            "step seq 2.5",
            vec!["AER1-WF-SEQ-TYPE"],
            workflow_with(|w| w["steps"][1]["seq"] = json!(2.5)),
        ),
        (
            "steps with seq 1, 2, 3, 4, 9",
            vec!["AER1-WF-SEQ"],
            workflow_with(|w| w["steps"][4]["seq"] = json!(9)),
        ),
        (
            "workflow with a duplicated last id",
            vec!["AER1-WF-DUPLICATE"],
            {
                workflow_with(|w| {
                    let mut again = w["steps"][4].clone();
                    again["seq"] = json!(6);
                    w["steps"].as_array_mut().unwrap().push(again);
                })
            },
        ),
        (
            "workflow with the legacy root",
            vec!["AER1-WF-ROOT"],
            workflow_with(|w| w["merkle_root"] = json!(wf::ROOT_LEGACY)),
        ),
    ]
}

fn aer1_rules() -> BTreeSet<Rule> {
    Rule::ALL
        .iter()
        .copied()
        .filter(|r| r.id().starts_with("AER1-"))
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Tests.

#[test]
fn every_case_reports_exactly_its_rules() {
    for (what, expected, check) in cases() {
        let got: Vec<&str> = check.findings().iter().map(|f| f.rule.id()).collect();
        assert_eq!(got, expected, "{what}");
    }
}

#[test]
fn every_aer1_rule_can_be_produced() {
    let mut produced = BTreeSet::new();
    for (_, _, check) in cases() {
        for f in check.findings() {
            produced.insert(f.rule);
        }
    }
    let mut wanted = aer1_rules();
    for id in NOT_AN_ERROR {
        let rule = Rule::from_id(id).unwrap_or_else(|| panic!("{id} is not in the catalogue"));
        assert!(wanted.remove(&rule));
    }
    let missing: Vec<&str> = wanted.difference(&produced).map(|r| r.id()).collect();
    assert!(
        missing.is_empty(),
        "catalogue rules no input produced: {missing:?}"
    );
    // Only AER-1 rules come out of the AER-1 verifiers.
    let foreign: Vec<&str> = produced
        .iter()
        .filter(|r| !r.id().starts_with("AER1-"))
        .map(|r| r.id())
        .collect();
    assert!(foreign.is_empty(), "{foreign:?}");
    // The exceptions produce nothing: they are honoured another way.
    for id in NOT_AN_ERROR {
        assert!(
            !produced.contains(&Rule::from_id(id).unwrap()),
            "{id} was reported as a failure"
        );
    }
}

#[test]
fn every_case_names_a_catalogue_rule_and_every_rule_has_a_named_case() {
    let named: BTreeSet<Rule> = cases()
        .iter()
        .flat_map(|(_, expected, _)| {
            expected
                .iter()
                .map(|id| Rule::from_id(id).unwrap_or_else(|| panic!("{id}")))
        })
        .collect();
    let mut wanted = aer1_rules();
    for id in NOT_AN_ERROR {
        wanted.remove(&Rule::from_id(id).unwrap());
    }
    assert_eq!(named, wanted);
}

#[test]
fn versioning_is_shown_by_labelling() {
    let old = example_chain("job-7a1f", 5, Revision::R06);
    let bytes = entries_bytes(&old);
    let r06 = TimelineOptions {
        revision: Revision::R06,
        ..TimelineOptions::default()
    };
    // Under 06: valid, and labelled historical.
    let as_06 = verify_timeline(&bytes[..], &r06).unwrap();
    assert_eq!(as_06.verdict, Verdict::Valid, "{:#?}", as_06.failures);
    assert!(as_06.historical);
    assert_eq!(as_06.revision, Revision::R06.as_str());
    // Under the current construction: never valid, not historical, and only the links fail.
    let as_09 = verify_timeline(&bytes[..], &TimelineOptions::default()).unwrap();
    assert_eq!(as_09.verdict, Verdict::Invalid);
    assert!(!as_09.historical);
    assert_eq!(as_09.revision, Revision::R09.as_str());
    let rules: Vec<&str> = as_09.failures.iter().map(|f| f.rule.id()).collect();
    assert_eq!(rules, ["AER1-TL-LINK"; 4]);
    assert!(!rules.contains(&"AER1-TL-VERSIONING"));
    assert!(
        as_09.notes.iter().any(|n| n.contains("revision-06")),
        "{:?}",
        as_09.notes
    );
    // A current chain: valid under 09 (not historical); under 06 it is still labelled historical.
    let current = entries_bytes(&chain(5));
    let r = verify_timeline(&current[..], &TimelineOptions::default()).unwrap();
    assert_eq!(r.verdict, Verdict::Valid);
    assert!(!r.historical);
    let r = verify_timeline(&current[..], &r06).unwrap();
    assert!(r.historical);
    // A one-entry chain has no link, so it verifies under both: the label is what tells them apart.
    let one_06 = example_chain("job-7a1f", 1, Revision::R06);
    let bytes = entries_bytes(&one_06);
    let a = verify_timeline(&bytes[..], &r06).unwrap();
    let b = verify_timeline(&bytes[..], &TimelineOptions::default()).unwrap();
    assert_eq!((a.verdict, a.historical), (Verdict::Valid, true));
    assert_eq!((b.verdict, b.historical), (Verdict::Valid, false));
}
