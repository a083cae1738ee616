//! Each timeline rule, broken on its own, is reported on that rule, at that entry and member —
//! and nothing else is reported. Chains come from the reference producer and are mutated as JSON.

use agentconf_aer1::commitment::{parse_commitment, Commitment};
use agentconf_aer1::digest::Revision;
use agentconf_aer1::producer::{
    build_timeline, example_chain, relink, v07_example_specs, CloseStyle, Entry,
};
use agentconf_aer1::report::TimelineReport;
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::{TruncationEvidence, Verdict};
use serde_json::{json, Value};

fn entries(n: usize) -> Vec<Entry> {
    example_chain("job-7a1f", n, Revision::R09)
}

fn values(entries: &[Entry]) -> Vec<Value> {
    entries
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn verify_text(text: &str, options: &TimelineOptions) -> TimelineReport {
    verify_timeline(text.as_bytes(), options).unwrap()
}

fn verify(chain: &[Value]) -> TimelineReport {
    verify_text(
        &serde_json::to_string(chain).unwrap(),
        &TimelineOptions::default(),
    )
}

/// (rule, entry, member) of every failure.
fn failures(report: &TimelineReport) -> Vec<(String, Option<u64>, Option<String>)> {
    report
        .failures
        .iter()
        .map(|f| (f.rule.id().to_string(), f.entry, f.member.clone()))
        .collect()
}

fn one(
    rule: &str,
    entry: Option<u64>,
    member: Option<&str>,
) -> Vec<(String, Option<u64>, Option<String>)> {
    vec![(rule.to_string(), entry, member.map(str::to_string))]
}

fn assert_only(report: &TimelineReport, rule: &str, entry: Option<u64>, member: Option<&str>) {
    assert_eq!(report.verdict, Verdict::Invalid);
    assert_eq!(
        failures(report),
        one(rule, entry, member),
        "{:#?}",
        report.failures
    );
}

/// A digest of 64 hex characters for a value chosen by the test.
fn commitment_for(report: &TimelineReport) -> Commitment {
    parse_commitment(
        json!({
            "job_id": report.job_id.clone().unwrap(),
            "final_entry_digest": report.final_entry_digest.clone().unwrap(),
            "entry_count": report.entry_count,
            "published_at": "2026-10-01T18:30:00Z",
        })
        .to_string()
        .as_bytes(),
    )
    .unwrap()
}

fn with_commitment(c: &Commitment) -> TimelineOptions {
    TimelineOptions {
        commitment: Some(c.clone()),
        ..TimelineOptions::default()
    }
}

#[test]
fn valid_chains_of_several_lengths_verify() {
    for n in [1, 2, 5, 8, 100] {
        let r = verify(&values(&entries(n)));
        assert_eq!(r.verdict, Verdict::Valid, "n={n}: {:?}", r.failures);
        assert_eq!(r.entry_count, n as u64);
        assert_eq!(r.truncation_evidence, TruncationEvidence::None);
    }
    let explicit = build_timeline(
        "j",
        &v07_example_specs("j", 4),
        Revision::R09,
        CloseStyle::Explicit,
    );
    assert_eq!(verify(&values(&explicit)).verdict, Verdict::Valid);
}

#[test]
fn absent_and_explicit_false_close_digest_alike() {
    let absent = entries(3);
    let explicit = build_timeline(
        "job-7a1f",
        &v07_example_specs("job-7a1f", 3),
        Revision::R09,
        CloseStyle::Explicit,
    );
    assert_eq!(absent[1].prev_digest, explicit[1].prev_digest);
    assert_eq!(absent[2].prev_digest, explicit[2].prev_digest);
}

#[test]
fn seq_written_as_float_is_accepted_and_digests_as_integer() {
    let text = serde_json::to_string(&values(&entries(3)))
        .unwrap()
        .replace("\"seq\":2,", "\"seq\":2.0,");
    assert!(text.contains("\"seq\":2.0"));
    let r = verify_text(&text, &TimelineOptions::default());
    assert_eq!(r.verdict, Verdict::Valid, "{:?}", r.failures);
    let text = text.replace("\"seq\":2.0,", "\"seq\":2e0,");
    assert_eq!(
        verify_text(&text, &TimelineOptions::default()).verdict,
        Verdict::Valid
    );
}

#[test]
fn structure_rules_each_reported_alone() {
    let base = values(&entries(5));
    let mutate = |f: &dyn Fn(&mut Vec<Value>)| {
        let mut chain = base.clone();
        f(&mut chain);
        verify(&chain)
    };
    // Genesis.
    let r = mutate(&|c| c[0]["prev_digest"] = json!("1".repeat(64)));
    // Entry 1's link is computed over entry 0's content, which now holds the bad prev_digest.
    assert_eq!(
        failures(&r),
        [
            one("AER1-TL-GENESIS", Some(0), Some("prev_digest")),
            one("AER1-TL-LINK", Some(1), Some("prev_digest"))
        ]
        .concat()
    );
    // Mixed job on the last entry (the last entry is bound by nothing after it).
    let r = mutate(&|c| c[4]["job_id"] = json!("job-other"));
    assert_only(&r, "AER1-TL-JOB", Some(4), Some("job_id"));
    // Seq type.
    for bad in [json!(1.5), json!("5"), json!(true), Value::Null] {
        let r = mutate(&|c| c[4]["seq"] = bad.clone());
        assert_only(&r, "AER1-TL-SEQ-TYPE", Some(4), Some("seq"));
    }
    let r = mutate(&|c| {
        c[4].as_object_mut().unwrap().remove("seq");
    });
    assert_only(&r, "AER1-TL-SEQ-TYPE", Some(4), Some("seq"));
    // Seq contiguity on the last entry: 6 and a negative value.
    for bad in [json!(6), json!(-5), json!(4)] {
        let r = mutate(&|c| c[4]["seq"] = bad.clone());
        assert_only(&r, "AER1-TL-SEQ", Some(4), Some("seq"));
    }
    // Close: not boolean on the last entry (also then not closed).
    let r = mutate(&|c| c[4]["close"] = json!("true"));
    assert_eq!(
        failures(&r),
        [
            one("AER1-TL-CLOSE-TYPE", Some(4), Some("close")),
            one("AER1-TL-CLOSE-LAST", Some(4), Some("close"))
        ]
        .concat()
    );
    // Last entry not closed.
    let r = mutate(&|c| {
        c[4].as_object_mut().unwrap().remove("close");
    });
    assert_only(&r, "AER1-TL-CLOSE-LAST", Some(4), Some("close"));
    // Missing and mistyped members on the last entry.
    for member in [
        "canonical_bytes",
        "prev_digest",
        "job_id",
        "id",
        "tool",
        "provenance_class",
    ] {
        let r = mutate(&|c| {
            c[4].as_object_mut().unwrap().remove(member);
        });
        assert_only(&r, "AER1-TL-MEMBERS", Some(4), Some(member));
        let r = mutate(&|c| c[4][member] = json!(7));
        assert_only(&r, "AER1-TL-MEMBERS", Some(4), Some(member));
        let r = mutate(&|c| c[4][member] = json!(""));
        match member {
            // The empty string is base64 of no bytes; nothing links to the last entry.
            "canonical_bytes" => assert_eq!(r.verdict, Verdict::Valid, "{:?}", r.failures),
            // An empty prev_digest is judged as a link.
            "prev_digest" => assert_only(&r, "AER1-TL-LINK", Some(4), Some("prev_digest")),
            _ => assert_only(&r, "AER1-TL-MEMBERS", Some(4), Some(member)),
        }
    }
    // Entry not an object.
    let r = mutate(&|c| c[2] = json!([1]));
    assert_only(&r, "AER1-TL-ENTRY-OBJECT", Some(2), None);
}

#[test]
fn close_true_before_the_last_entry() {
    let mut chain = entries(5);
    chain[2].close = Some(true);
    relink(&mut chain, Revision::R09);
    let r = verify(&values(&chain));
    assert_only(&r, "AER1-TL-CLOSE-EARLY", Some(2), Some("close"));
}

#[test]
fn base64_variants_fail_the_chain() {
    let base = values(&entries(3));
    // Entry 0 bytes "eyJqb2IiOiJqb2ItN2ExZiIsImVudHJ5IjowLCJ0YWciOiJyIn0=" (padded).
    let padded = base[2]["canonical_bytes"].as_str().unwrap().to_string();
    for bad in [
        padded.trim_end_matches('=').to_string(),
        format!("{}\n{}", &padded[..8], &padded[8..]),
        padded.replace('/', "_").replace('+', "-") + "-",
        format!(" {padded}"),
    ] {
        let mut chain = base.clone();
        chain[2]["canonical_bytes"] = json!(bad);
        let r = verify(&chain);
        assert_only(&r, "AER1-TL-B64", Some(2), Some("canonical_bytes"));
    }
}

#[test]
fn interpretation_rules() {
    let mut chain = entries(3);
    // Bytes that are not UTF-8 (the link is recomputed, so only the UTF-8 rule breaks).
    chain[2].canonical_bytes = agentconf_aer1::formats::encode_base64(b"\xff\xfe");
    relink(&mut chain, Revision::R09);
    assert_only(
        &verify(&values(&chain)),
        "AER1-TL-UTF8",
        Some(2),
        Some("canonical_bytes"),
    );

    let mut chain = entries(3);
    chain[1].provenance_class = "LOGGED BY AGENT\n".into();
    relink(&mut chain, Revision::R09);
    assert_only(
        &verify(&values(&chain)),
        "AER1-TL-PROVENANCE",
        Some(1),
        Some("provenance_class"),
    );

    // A stored output_hash must match the bytes; a matching one is fine.
    let mut v = values(&entries(3));
    v[1]["output_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    assert_only(
        &verify(&v),
        "AER1-TL-OUTPUT-HASH",
        Some(1),
        Some("output_hash"),
    );
    let mut v = values(&entries(3));
    v[1]["output_hash"] =
        json!("sha256:e7d5c2e8a6b0a77ba1e3deb4e9d01a31bf33e8bc82f2adc67b28bd6b3ca8ee14");
    let r = verify(&v);
    // That value is not the hash of entry 1's bytes either: computed independently below.
    let bytes = b"{\"job\":\"job-7a1f\",\"entry\":1,\"tag\":\"r\"}";
    let good = format!(
        "sha256:{}",
        agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(bytes))
    );
    assert_eq!(r.verdict, Verdict::Invalid);
    v[1]["output_hash"] = json!(good);
    assert_eq!(verify(&v).verdict, Verdict::Valid);
}

#[test]
fn tampering_any_bound_member_breaks_the_next_link() {
    let base = values(&entries(5));
    let tampers: Vec<(&str, Value)> = vec![
        ("tool", json!("price_lookup2")),
        ("provenance_class", json!("OBSERVED VIA GATEWAY")),
        ("id", json!("r-job-7a1f-x")),
        ("canonical_bytes", json!("e30=")),
    ];
    for (member, value) in tampers {
        let mut chain = base.clone();
        chain[2][member] = value;
        assert_only(
            &verify(&chain),
            "AER1-TL-LINK",
            Some(3),
            Some("prev_digest"),
        );
    }
    // Job and seq are also caught by their own rules.
    let mut chain = base.clone();
    chain[2]["job_id"] = json!("job-x");
    assert_eq!(
        failures(&verify(&chain)),
        [
            one("AER1-TL-JOB", Some(2), Some("job_id")),
            one("AER1-TL-LINK", Some(3), Some("prev_digest"))
        ]
        .concat()
    );
    let mut chain = base.clone();
    chain[2]["close"] = json!(false);
    // Explicit false digests like absent: no change.
    assert_eq!(verify(&chain).verdict, Verdict::Valid);
}

#[test]
fn one_broken_entry_does_not_cascade() {
    let mut chain = values(&entries(5));
    chain[1]["canonical_bytes"] = json!("not base64!");
    // Entry 2's link cannot be judged (entry 1 has no digest): only the base64 failure.
    assert_only(
        &verify(&chain),
        "AER1-TL-B64",
        Some(1),
        Some("canonical_bytes"),
    );
}

#[test]
fn all_failures_are_reported_not_just_the_first() {
    let mut chain = values(&entries(6));
    chain[1]["job_id"] = json!("other");
    chain[3]["seq"] = json!(9);
    // Entry 5 is last: changing it breaks no link, only the close rule.
    chain[5].as_object_mut().unwrap().remove("close");
    let rules: Vec<_> = failures(&verify(&chain))
        .into_iter()
        .map(|(r, e, _)| (r, e))
        .collect();
    assert_eq!(
        rules,
        [
            ("AER1-TL-JOB".to_string(), Some(1)),
            ("AER1-TL-LINK".to_string(), Some(2)),
            ("AER1-TL-SEQ".to_string(), Some(3)),
            ("AER1-TL-LINK".to_string(), Some(4)),
            ("AER1-TL-CLOSE-LAST".to_string(), Some(5)),
        ]
    );
}

#[test]
fn failures_beyond_the_cap_are_counted() {
    let mut chain = values(&entries(50));
    for e in &mut chain {
        e["tool"] = json!(1);
    }
    let options = TimelineOptions {
        max_failures: 10,
        ..TimelineOptions::default()
    };
    let r = verify_text(&serde_json::to_string(&chain).unwrap(), &options);
    assert_eq!(r.failures.len(), 10);
    assert_eq!(r.failures_omitted, 40);
    assert_eq!(r.verdict, Verdict::Invalid);
}

#[test]
fn empty_and_non_array_timelines() {
    let d = TimelineOptions::default();
    assert_only(&verify_text("[]", &d), "AER1-TL-ARRAY", None, None);
    assert_only(&verify_text(" [ ] \n", &d), "AER1-TL-ARRAY", None, None);
    assert_only(&verify_text("{\"a\":1}", &d), "AER1-TL-ARRAY", None, None);
    assert_only(&verify_text("\"x\"", &d), "AER1-TL-ARRAY", None, None);
    assert_only(&verify_text("", &d), "AER1-JSON-SYNTAX", None, None);
    assert_only(&verify_text("{\"a\":", &d), "AER1-JSON-SYNTAX", None, None);
}

// ------------------------------------------------------------------------------------------------
// What the chain proves and what it does not: the commitment cases.

#[test]
fn truncated_tail_without_reclosing_is_invalid() {
    let mut chain = values(&entries(8));
    chain.truncate(6);
    assert_only(
        &verify(&chain),
        "AER1-TL-CLOSE-LAST",
        Some(5),
        Some("close"),
    );
}

#[test]
fn reclosed_chain_verifies_alone_and_fails_the_commitment() {
    let original = entries(8);
    let commitment = commitment_for(&verify(&values(&original)));
    let mut cut = original[..6].to_vec();
    cut[5].close = Some(true);
    relink(&mut cut, Revision::R09);
    let alone = verify(&values(&cut));
    assert_eq!(
        alone.verdict,
        Verdict::Valid,
        "the honest limit: a re-closed chain passes"
    );
    assert_eq!(alone.truncation_evidence, TruncationEvidence::None);
    let r = verify_text(
        &serde_json::to_string(&values(&cut)).unwrap(),
        &with_commitment(&commitment),
    );
    let rules: Vec<_> = r.failures.iter().map(|f| f.rule.id()).collect();
    assert_eq!(rules, ["AER1-CM-COUNT", "AER1-CM-FINAL"]);
    assert_eq!(r.truncation_evidence, TruncationEvidence::None);
}

#[test]
fn dropped_prefix_renumbered_verifies_alone_and_fails_the_commitment() {
    let original = entries(8);
    let commitment = commitment_for(&verify(&values(&original)));
    let mut cut = original[2..].to_vec();
    for (i, e) in cut.iter_mut().enumerate() {
        e.seq = i as u64 + 1;
    }
    relink(&mut cut, Revision::R09);
    assert_eq!(verify(&values(&cut)).verdict, Verdict::Valid);
    let r = verify_text(
        &serde_json::to_string(&values(&cut)).unwrap(),
        &with_commitment(&commitment),
    );
    let rules: Vec<_> = r.failures.iter().map(|f| f.rule.id()).collect();
    assert_eq!(rules, ["AER1-CM-COUNT", "AER1-CM-FINAL"]);
}

#[test]
fn substituted_final_entry_fails_the_commitment_on_the_final_digest_only() {
    let original = entries(8);
    let commitment = commitment_for(&verify(&values(&original)));
    let mut swapped = original.clone();
    swapped[7].canonical_bytes = agentconf_aer1::formats::encode_base64(b"{\"forged\":true}");
    // No re-linking needed: nothing inside the chain binds the last entry.
    let alone = verify(&values(&swapped));
    assert_eq!(alone.verdict, Verdict::Valid);
    let r = verify_text(
        &serde_json::to_string(&values(&swapped)).unwrap(),
        &with_commitment(&commitment),
    );
    assert_only(
        &r,
        "AER1-CM-FINAL",
        None,
        Some("commitment.final_entry_digest"),
    );
}

#[test]
fn commitment_from_another_job_and_matching_commitment() {
    let chain = entries(5);
    let report = verify(&values(&chain));
    let good = commitment_for(&report);
    let text = serde_json::to_string(&values(&chain)).unwrap();
    let r = verify_text(&text, &with_commitment(&good));
    assert_eq!(r.verdict, Verdict::Valid);
    assert_eq!(
        r.truncation_evidence,
        TruncationEvidence::CommitmentVerified
    );
    let other = Commitment {
        job_id: "job-other".into(),
        ..good
    };
    let r = verify_text(&text, &with_commitment(&other));
    assert_only(&r, "AER1-CM-JOB", None, Some("commitment.job_id"));
}

// ------------------------------------------------------------------------------------------------
// Revision 06.

#[test]
fn revision_06_chains_are_historical_and_never_current() {
    let old = example_chain("job-7a1f", 5, Revision::R06);
    let text = serde_json::to_string(&values(&old)).unwrap();
    let as_06 = verify_text(
        &text,
        &TimelineOptions {
            revision: Revision::R06,
            ..TimelineOptions::default()
        },
    );
    assert_eq!(as_06.verdict, Verdict::Valid, "{:?}", as_06.failures);
    assert!(as_06.historical);
    let as_09 = verify_text(&text, &TimelineOptions::default());
    assert_eq!(as_09.verdict, Verdict::Invalid);
    assert!(!as_09.historical);
    assert!(as_09.failures.iter().all(|f| f.rule.id() == "AER1-TL-LINK"));
    assert_eq!(as_09.failures.len(), 4);
    assert!(
        as_09.notes.iter().any(|n| n.contains("revision-06")),
        "{:?}",
        as_09.notes
    );
    // A current chain checked under 06 fails its links too, and gets no such note.
    let current = verify_text(
        &serde_json::to_string(&values(&entries(5))).unwrap(),
        &TimelineOptions {
            revision: Revision::R06,
            ..TimelineOptions::default()
        },
    );
    assert_eq!(current.verdict, Verdict::Invalid);
    assert!(current.historical);
    // Under 06, metadata is not bound: changing the tool of an inner entry goes unnoticed.
    let mut v = values(&old);
    v[2]["tool"] = json!("anything");
    let r = verify_text(
        &serde_json::to_string(&v).unwrap(),
        &TimelineOptions {
            revision: Revision::R06,
            ..TimelineOptions::default()
        },
    );
    assert_eq!(r.verdict, Verdict::Valid);
}

// ------------------------------------------------------------------------------------------------
// Revision 06 exactly as its text: a non-empty array of objects, canonical_bytes strict base64,
// genesis, links over the bytes alone, close a boolean where present, the last entry closed.
// Chains here are built with sha2 and base64 directly, not with the reference's digest code.

const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A chain in the shape real revision-06 chains have: `{id, canonical_bytes, prev_digest, close}`
/// only (no seq, job_id, tool or provenance_class), close only on the last entry.
fn chain_06(n: usize) -> Vec<Value> {
    use base64::Engine as _;
    use sha2::Digest as _;
    let mut prev = ZEROS.to_string();
    (0..n)
        .map(|i| {
            let bytes = format!("{{\"entry\":{i},\"tag\":\"r06\"}}");
            let mut e = json!({
                "id": format!("r06-{i}"),
                "canonical_bytes": base64::engine::general_purpose::STANDARD.encode(&bytes),
                "prev_digest": prev,
            });
            if i + 1 == n {
                e["close"] = json!(true);
            }
            prev = sha2::Sha256::digest(bytes.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            e
        })
        .collect()
}

fn options_06() -> TimelineOptions {
    TimelineOptions {
        revision: Revision::R06,
        ..TimelineOptions::default()
    }
}

fn verify_06(chain: &[Value]) -> TimelineReport {
    verify_text(&serde_json::to_string(chain).unwrap(), &options_06())
}

#[test]
fn revision_06_accepts_chains_in_the_real_06_shape() {
    for n in [1, 3, 5] {
        let r = verify_06(&chain_06(n));
        assert_eq!(r.verdict, Verdict::Valid, "{n}: {:#?}", r.failures);
        assert!(r.historical);
        // Every 06 result says what 06 does not protect.
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("binds only canonical_bytes")));
    }
    // No member beyond canonical_bytes and prev_digest is required: not even id.
    let mut c = chain_06(3);
    c[1].as_object_mut().unwrap().remove("id");
    assert_eq!(verify_06(&c).verdict, Verdict::Valid);
}

#[test]
fn revision_06_rejects_each_of_its_own_defects_on_its_rule() {
    type Edit = fn(&mut Vec<Value>);
    fn remove(e: &mut Value, member: &str) {
        e.as_object_mut().unwrap().remove(member);
    }
    // Each defect alone, on its rule, entry and member. A missing or non-string canonical_bytes
    // or prev_digest is the base64, genesis or link rule: 06 has no member rule of its own. The
    // broken entry's successor is left unjudged.
    let single: [(&str, Edit, &str, u64, &str); 9] = [
        (
            "tampered middle bytes",
            |c| c[1]["canonical_bytes"] = json!("eyJ4Ijp0cnVlfQ=="),
            "AER1-TL-LINK",
            2,
            "prev_digest",
        ),
        (
            "bad genesis",
            |c| c[0]["prev_digest"] = json!("1".repeat(64)),
            "AER1-TL-GENESIS",
            0,
            "prev_digest",
        ),
        (
            "no close on the last entry",
            |c| remove(&mut c[2], "close"),
            "AER1-TL-CLOSE-LAST",
            2,
            "close",
        ),
        (
            // The kit's check, on a rule of its own: the 06 text does not ask for it.
            "an inner close that is not a boolean",
            |c| c[1]["close"] = json!("yes"),
            "AER1-TL-06-CLOSE-TYPE",
            1,
            "close",
        ),
        (
            "bad base64",
            |c| c[2]["canonical_bytes"] = json!("not base64!"),
            "AER1-TL-B64",
            2,
            "canonical_bytes",
        ),
        (
            "no canonical_bytes",
            |c| remove(&mut c[2], "canonical_bytes"),
            "AER1-TL-B64",
            2,
            "canonical_bytes",
        ),
        (
            "no genesis prev_digest",
            |c| remove(&mut c[0], "prev_digest"),
            "AER1-TL-GENESIS",
            0,
            "prev_digest",
        ),
        (
            "a prev_digest that is a number",
            |c| c[2]["prev_digest"] = json!(7),
            "AER1-TL-LINK",
            2,
            "prev_digest",
        ),
        (
            "canonical_bytes a number",
            |c| c[1]["canonical_bytes"] = json!(1),
            "AER1-TL-B64",
            1,
            "canonical_bytes",
        ),
    ];
    for (what, edit, rule, entry, member) in single {
        let mut c = chain_06(3);
        edit(&mut c);
        let r = verify_06(&c);
        assert_eq!(failures(&r), one(rule, Some(entry), Some(member)), "{what}");
    }
    // Reordered entries: links fail, nothing else (06 has no seq to break).
    let c = chain_06(4);
    let reordered = vec![c[0].clone(), c[2].clone(), c[1].clone(), c[3].clone()];
    let r = verify_06(&reordered);
    assert_eq!(
        failures(&r),
        [1, 2, 3]
            .iter()
            .map(|i| (
                "AER1-TL-LINK".to_string(),
                Some(*i),
                Some("prev_digest".to_string())
            ))
            .collect::<Vec<_>>()
    );
    // Not an array of objects; empty.
    assert_only(
        &verify_text("[1]", &options_06()),
        "AER1-TL-ENTRY-OBJECT",
        Some(0),
        None,
    );
    assert_only(
        &verify_text("[]", &options_06()),
        "AER1-TL-ARRAY",
        None,
        None,
    );
}

/// What revision 07 added is exactly what 06 cannot see: each of these is valid under 06.
#[test]
fn revision_06_does_not_apply_the_rules_revision_07_added() {
    let full = values(&example_chain("job-7a1f", 5, Revision::R06));
    type Edit = fn(&mut Vec<Value>);
    let edits: [(&str, Edit); 7] = [
        ("tool relabelled", |c| c[2]["tool"] = json!("wire_transfer")),
        ("provenance swapped", |c| {
            c[2]["provenance_class"] = json!("EXECUTED BY ZAMBO")
        }),
        ("provenance not a class", |c| {
            c[2]["provenance_class"] = json!("whatever")
        }),
        ("job spliced", |c| c[3]["job_id"] = json!("job-other")),
        ("seq renumbered", |c| {
            for (i, e) in c.iter_mut().enumerate() {
                e["seq"] = json!(i + 11);
            }
        }),
        ("close on an inner entry", |c| c[1]["close"] = json!(true)),
        ("members dropped", |c| {
            for e in c.iter_mut() {
                let o = e.as_object_mut().unwrap();
                for m in ["seq", "job_id", "tool", "provenance_class"] {
                    o.remove(m);
                }
            }
        }),
    ];
    for (what, edit) in edits {
        let mut c = full.clone();
        edit(&mut c);
        let r = verify_06(&c);
        assert_eq!(r.verdict, Verdict::Valid, "{what}: {:#?}", r.failures);
    }
    // Bytes that are not UTF-8 are no 06 failure either (AER1-TL-UTF8 is an interpretation for
    // 07-09; the 06 digest is over any bytes).
    let mut c = chain_06(1);
    c[0]["canonical_bytes"] = json!("/w==");
    assert_eq!(verify_06(&c).verdict, Verdict::Valid);
}

#[test]
fn a_revision_09_check_of_a_06_chain_fails_and_notes_that_it_verifies_under_06() {
    // The real 06 shape: members missing under 09; the digests cannot be computed, so no link is
    // judged — and the note still says the chain verifies under 06.
    let r = verify(&chain_06(3));
    assert_eq!(r.verdict, Verdict::Invalid);
    assert!(!r.historical);
    let rules: std::collections::BTreeSet<String> =
        r.failures.iter().map(|f| f.rule.id().to_string()).collect();
    assert_eq!(
        rules.into_iter().collect::<Vec<_>>(),
        ["AER1-TL-MEMBERS", "AER1-TL-SEQ-TYPE"]
    );
    assert!(
        r.notes.iter().any(|n| n.contains("revision-06 check")),
        "{:?}",
        r.notes
    );
    // A 06 chain with a job splice: under 09 the links and the one-job rule fail; still noted.
    let mut c = values(&example_chain("job-7a1f", 5, Revision::R06));
    c[3]["job_id"] = json!("job-other");
    c[4]["job_id"] = json!("job-other");
    let r = verify(&c);
    assert!(r.failures.iter().any(|f| f.rule.id() == "AER1-TL-JOB"));
    assert!(r.notes.iter().any(|n| n.contains("revision-06 check")));
    // No note for chains that fail 06 too, or for a valid 09 chain.
    let mut c = chain_06(3);
    c[1]["canonical_bytes"] = json!("eyJ4Ijp0cnVlfQ==");
    assert!(verify(&c).notes.is_empty());
    let mut c = chain_06(3);
    c[2].as_object_mut().unwrap().remove("close");
    assert!(verify(&c).notes.is_empty());
    assert!(verify(&values(&entries(5))).notes.is_empty());
    // The note is about the chain: a valid one-entry chain (the same under both constructions)
    // with a mismatching commitment gets no note.
    let one = serde_json::to_string(&values(&entries(1))).unwrap();
    let good = commitment_for(&verify_text(&one, &TimelineOptions::default()));
    let wrong = Commitment {
        entry_count: "2".into(),
        ..good
    };
    let r = verify_text(&one, &with_commitment(&wrong));
    assert_eq!(r.verdict, Verdict::Invalid);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}
