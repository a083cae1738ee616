//! The external chain commitment of revision 09 (AER1-CM-*): the format rules of
//! `parse_commitment`, each broken on its own, and the comparisons with a chain, each broken on its
//! own, through `verify_timeline`.

use std::io::ErrorKind;

use agentconf_aer1::commitment::{parse_commitment, read_commitment, Commitment};
use agentconf_aer1::digest::Revision;
use agentconf_aer1::finding::Finding;
use agentconf_aer1::producer::{example_chain, relink, Entry};
use agentconf_aer1::report::TimelineReport;
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::{TruncationEvidence, Verdict};
use serde_json::{json, Value};

/// The final entry digest of the published chain `v07-valid-5` (spec AER1.md §2.1).
const FINAL: &str = "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0";

/// The draft's example commitment (spec AER1.md §4), as a value.
fn good() -> Value {
    json!({
        "job_id": "job-7a1f",
        "final_entry_digest": FINAL,
        "entry_count": 5,
        "published_at": "2026-10-01T18:30:00Z",
    })
}

/// The example commitment as text with one member's value replaced by `raw` (exact JSON text), so
/// that number spellings such as `5.0` or `1e1` survive.
fn good_with_raw(member: &str, raw: &str) -> String {
    let mut members: Vec<String> = Vec::new();
    for (k, v) in [
        ("job_id", "\"job-7a1f\"".to_string()),
        ("final_entry_digest", format!("\"{FINAL}\"")),
        ("entry_count", "5".to_string()),
        ("published_at", "\"2026-10-01T18:30:00Z\"".to_string()),
    ] {
        let v = if k == member { raw.to_string() } else { v };
        members.push(format!("\"{k}\":{v}"));
    }
    format!("{{{}}}", members.join(","))
}

type Failure = (String, Option<u64>, Option<String>);

fn triples(findings: &[Finding]) -> Vec<Failure> {
    findings
        .iter()
        .map(|f| (f.rule.id().to_string(), f.entry, f.member.clone()))
        .collect()
}

fn want(list: &[(&str, Option<u64>, Option<&str>)]) -> Vec<Failure> {
    list.iter()
        .map(|(r, e, m)| (r.to_string(), *e, m.map(str::to_string)))
        .collect()
}

/// The format failures of a commitment text (panics if it parses).
#[track_caller]
fn format_failures(text: &str) -> Vec<Failure> {
    match parse_commitment(text.as_bytes()) {
        Ok(c) => panic!("{text} parsed as {c:?}"),
        Err(findings) => triples(&findings),
    }
}

#[track_caller]
fn assert_format_only(text: &str, rule: &str, member: Option<&str>) {
    assert_eq!(
        format_failures(text),
        want(&[(rule, None, member)]),
        "{text}"
    );
}

// ------------------------------------------------------------------------------------------------
// Format rules.

#[test]
fn the_draft_example_parses() {
    let c = parse_commitment(good().to_string().as_bytes()).unwrap();
    assert_eq!(
        c,
        Commitment {
            job_id: "job-7a1f".into(),
            final_entry_digest: FINAL.into(),
            entry_count: "5".into(),
            published_at: "2026-10-01T18:30:00Z".into(),
        }
    );
    // Extra members are ignored, and member order does not matter.
    let mut v = good();
    v["witness"] = json!({"name": "log.example", "entry_count": 1.5});
    v["note"] = json!(null);
    assert_eq!(parse_commitment(v.to_string().as_bytes()).unwrap(), c);
    let reordered = format!(
        "{{\"published_at\":\"2026-10-01T18:30:00Z\",\"entry_count\":5,\"final_entry_digest\":\"{FINAL}\",\"job_id\":\"job-7a1f\"}}"
    );
    assert_eq!(parse_commitment(reordered.as_bytes()).unwrap(), c);
}

#[test]
fn cm_members_each_missing() {
    for member in [
        "job_id",
        "final_entry_digest",
        "entry_count",
        "published_at",
    ] {
        let mut v = good();
        v.as_object_mut().unwrap().remove(member);
        let path = format!("commitment.{member}");
        assert_format_only(&v.to_string(), "AER1-CM-MEMBERS", Some(&path));
    }
    assert_eq!(
        format_failures("{}"),
        want(&[
            ("AER1-CM-MEMBERS", None, Some("commitment.job_id")),
            (
                "AER1-CM-MEMBERS",
                None,
                Some("commitment.final_entry_digest")
            ),
            ("AER1-CM-MEMBERS", None, Some("commitment.entry_count")),
            ("AER1-CM-MEMBERS", None, Some("commitment.published_at")),
        ])
    );
}

#[test]
fn cm_members_not_an_object() {
    for text in ["[]", "[{}]", "\"job-7a1f\"", "5", "null", "true"] {
        assert_format_only(text, "AER1-CM-MEMBERS", Some("commitment"));
    }
    assert_format_only(
        &json!([good()]).to_string(),
        "AER1-CM-MEMBERS",
        Some("commitment"),
    );
}

#[test]
fn cm_job_format() {
    for raw in ["\"\"", "7", "null", "true", "[\"job-7a1f\"]", "{}"] {
        assert_format_only(
            &good_with_raw("job_id", raw),
            "AER1-CM-JOB-FORMAT",
            Some("commitment.job_id"),
        );
    }
    // Any non-empty string is a well-formed job id.
    for ok in ["\" \"", "\"JOB\"", "\"j\\u00f6b\""] {
        assert!(
            parse_commitment(good_with_raw("job_id", ok).as_bytes()).is_ok(),
            "{ok}"
        );
    }
}

#[test]
fn cm_digest_format() {
    for bad in [
        json!(FINAL.to_uppercase()),
        json!(format!("{}B", &FINAL[..63])),
        json!(format!("sha256:{FINAL}")),
        json!(&FINAL[..63]),
        json!(format!("{FINAL}0")),
        json!(format!("{FINAL}\n")),
        json!(format!(" {FINAL}")),
        json!("g".repeat(64)),
        json!(""),
        json!(7),
        json!(null),
        json!([FINAL]),
    ] {
        let mut v = good();
        v["final_entry_digest"] = bad;
        assert_format_only(
            &v.to_string(),
            "AER1-CM-DIGEST-FORMAT",
            Some("commitment.final_entry_digest"),
        );
    }
}

#[test]
fn cm_count_format() {
    for raw in [
        "5.0",
        "5.00",
        "5e0",
        "5E0",
        "1e1",
        "0.5e1",
        "50e-1",
        "5.5",
        "-5.0",
        "1e400",
        "\"5\"",
        "true",
        "null",
        "[5]",
        "{\"n\":5}",
    ] {
        assert_format_only(
            &good_with_raw("entry_count", raw),
            "AER1-CM-COUNT-FORMAT",
            Some("commitment.entry_count"),
        );
    }
    // Integer literals are well-formed (whether they match a chain is AER1-CM-COUNT's business).
    for (raw, kept) in [
        ("5", "5"),
        ("0", "0"),
        ("-0", "0"),
        ("-3", "-3"),
        ("18446744073709551617", "18446744073709551617"),
    ] {
        let c = parse_commitment(good_with_raw("entry_count", raw).as_bytes()).unwrap();
        assert_eq!(c.entry_count, kept, "{raw}");
    }
    // Leading zeros are not JSON at all.
    assert_format_only(
        &good_with_raw("entry_count", "05"),
        "AER1-JSON-SYNTAX",
        None,
    );
}

#[test]
fn cm_published_at() {
    for bad in [
        "2026-02-30T18:30:00Z",      // 30 February
        "1900-02-29T18:30:00Z",      // century rule
        "2026-10-01T18:30:60Z",      // leap second
        "2026-10-01t18:30:00Z",      // lowercase t
        "2026-10-01T18:30:00z",      // lowercase z
        "2026-10-01T18:30:00+24:00", // offset hour
        "2026-10-01T18:30:00Z\n",    // trailing newline
        "2026-10-01T18:30:00",       // no offset
        "2026-10-01",                // date only
        "",
    ] {
        let mut v = good();
        v["published_at"] = json!(bad);
        assert_format_only(
            &v.to_string(),
            "AER1-CM-PUBLISHED-AT",
            Some("commitment.published_at"),
        );
    }
    // Not a string: the same rule.
    for raw in ["1790879400", "null", "true", "[\"2026-10-01T18:30:00Z\"]"] {
        assert_format_only(
            &good_with_raw("published_at", raw),
            "AER1-CM-PUBLISHED-AT",
            Some("commitment.published_at"),
        );
    }
    for ok in [
        "2000-02-29T00:00:00Z",
        "2026-10-01T18:30:00.123456Z",
        "2026-10-01T18:30:00+05:30",
    ] {
        let mut v = good();
        v["published_at"] = json!(ok);
        assert_eq!(
            parse_commitment(v.to_string().as_bytes())
                .unwrap()
                .published_at,
            ok
        );
    }
}

#[test]
fn all_format_failures_are_collected_together() {
    let text = format!(
        "{{\"job_id\":\"\",\"final_entry_digest\":\"{}\",\"entry_count\":5.0,\"published_at\":\"2026-02-30T18:30:00Z\"}}",
        FINAL.to_uppercase()
    );
    assert_eq!(
        format_failures(&text),
        want(&[
            ("AER1-CM-JOB-FORMAT", None, Some("commitment.job_id")),
            (
                "AER1-CM-DIGEST-FORMAT",
                None,
                Some("commitment.final_entry_digest")
            ),
            ("AER1-CM-COUNT-FORMAT", None, Some("commitment.entry_count")),
            (
                "AER1-CM-PUBLISHED-AT",
                None,
                Some("commitment.published_at")
            ),
        ])
    );
    // Missing members and malformed ones together, in member order.
    assert_eq!(
        format_failures("{\"job_id\":7,\"entry_count\":\"5\"}"),
        want(&[
            ("AER1-CM-JOB-FORMAT", None, Some("commitment.job_id")),
            (
                "AER1-CM-MEMBERS",
                None,
                Some("commitment.final_entry_digest")
            ),
            ("AER1-CM-COUNT-FORMAT", None, Some("commitment.entry_count")),
            ("AER1-CM-MEMBERS", None, Some("commitment.published_at")),
        ])
    );
}

#[test]
fn input_level_failures() {
    let text = good().to_string();
    // A duplicate name makes the commitment unusable, even with two equal, valid values.
    let dup = text.replacen(
        "\"job_id\":\"job-7a1f\"",
        "\"job_id\":\"job-7a1f\",\"job_id\":\"job-7a1f\"",
        1,
    );
    assert_ne!(dup, text);
    assert_format_only(&dup, "AER1-JSON-DUPLICATE", Some("commitment.job_id"));
    // Duplicates are collected with the format failures.
    let dup = good_with_raw("entry_count", "5.0").replacen("{", "{\"x\":{\"a\":1,\"a\":1},", 1);
    assert_eq!(
        format_failures(&dup),
        want(&[
            ("AER1-JSON-DUPLICATE", None, Some("commitment.x.a")),
            ("AER1-CM-COUNT-FORMAT", None, Some("commitment.entry_count")),
        ])
    );
    // Documents that cannot be read give one finding.
    assert_format_only("", "AER1-JSON-SYNTAX", None);
    assert_format_only(&text[..text.len() - 1], "AER1-JSON-SYNTAX", None);
    assert_format_only(&format!("\u{feff}{text}"), "AER1-JSON-SYNTAX", None);
    assert_format_only(
        &good_with_raw("job_id", "\"\\ud800\""),
        "AER1-JSON-SURROGATE",
        None,
    );
    // 1e400 elsewhere is a number-range failure; as entry_count it is a count-format failure.
    assert_format_only(
        &text.replacen("{", "{\"x\":1e400,", 1),
        "AER1-JSON-NUMBER",
        None,
    );
    let mut bytes = text.clone().into_bytes();
    let at = text.find("job-7a1f").unwrap();
    bytes[at] = 0xff;
    assert_eq!(
        triples(&parse_commitment(&bytes).unwrap_err()),
        want(&[("AER1-JSON-UTF8", None, None)])
    );
    // The reader's size limit.
    let n = text.len() as u64;
    assert!(read_commitment(text.as_bytes(), n).unwrap().is_ok());
    let r = read_commitment(text.as_bytes(), n - 1)
        .unwrap()
        .unwrap_err();
    assert_eq!(triples(&r), want(&[("AER1-JSON-SIZE", None, None)]));
}

// ------------------------------------------------------------------------------------------------
// Comparisons with a chain.

fn entries(n: usize) -> Vec<Entry> {
    example_chain("job-7a1f", n, Revision::R09)
}

fn text_of(entries: &[Entry]) -> String {
    serde_json::to_string(entries).unwrap()
}

fn verify_with(text: &str, commitment: &Commitment) -> TimelineReport {
    let options = TimelineOptions {
        commitment: Some(commitment.clone()),
        ..TimelineOptions::default()
    };
    verify_timeline(text.as_bytes(), &options).unwrap()
}

fn commitment(v: &Value) -> Commitment {
    parse_commitment(v.to_string().as_bytes()).unwrap()
}

#[track_caller]
fn assert_chain_failures(report: &TimelineReport, list: &[(&str, Option<u64>, Option<&str>)]) {
    assert_eq!(report.verdict, Verdict::Invalid);
    assert_eq!(
        triples(&report.failures),
        want(list),
        "{:#?}",
        report.failures
    );
    assert_eq!(report.truncation_evidence, TruncationEvidence::None);
}

#[test]
fn the_matching_commitment_verifies() {
    let text = text_of(&entries(5));
    let c = commitment(&good());
    let r = verify_with(&text, &c);
    assert_eq!(r.verdict, Verdict::Valid, "{:#?}", r.failures);
    assert_eq!(
        r.truncation_evidence,
        TruncationEvidence::CommitmentVerified
    );
    assert_eq!(r.commitment.as_ref(), Some(&c));
    assert_eq!(r.final_entry_digest.as_deref(), Some(FINAL));
    // Without it, the same chain says nothing about completeness.
    let alone = verify_timeline(text.as_bytes(), &TimelineOptions::default()).unwrap();
    assert_eq!(alone.verdict, Verdict::Valid);
    assert_eq!(alone.truncation_evidence, TruncationEvidence::None);
}

#[test]
fn count_mismatch_only() {
    let text = text_of(&entries(5));
    for count in [json!(6), json!(4), json!(0), json!(-5)] {
        let mut v = good();
        v["entry_count"] = count;
        assert_chain_failures(
            &verify_with(&text, &commitment(&v)),
            &[("AER1-CM-COUNT", None, Some("commitment.entry_count"))],
        );
    }
    // Past 64 bits: compared as digits, never wrapped or rounded.
    let c =
        parse_commitment(good_with_raw("entry_count", "18446744073709551621").as_bytes()).unwrap();
    assert_chain_failures(
        &verify_with(&text, &c),
        &[("AER1-CM-COUNT", None, Some("commitment.entry_count"))],
    );
}

#[test]
fn job_mismatch_only() {
    let text = text_of(&entries(5));
    for job in ["job-other", "JOB-7A1F", "job-7a1f ", "job-7a1"] {
        let mut v = good();
        v["job_id"] = json!(job);
        let r = verify_with(&text, &commitment(&v));
        assert_chain_failures(&r, &[("AER1-CM-JOB", None, Some("commitment.job_id"))]);
        // One finding for the whole chain, counting every entry.
        assert!(
            r.failures[0].message.contains("5 entries"),
            "{}",
            r.failures[0].message
        );
    }
}

#[test]
fn final_digest_mismatch_only() {
    let text = text_of(&entries(5));
    for digest in [
        "0".repeat(64),
        // d3, the digest of the entry before the last: what a chain re-closed one entry early
        // would have to match.
        "5dd618b1b3b904a92261bb747f8c4511b0882e1454fc41f20a59fa5bd0ded778".to_string(),
    ] {
        let mut v = good();
        v["final_entry_digest"] = json!(digest);
        assert_chain_failures(
            &verify_with(&text, &commitment(&v)),
            &[("AER1-CM-FINAL", None, Some("commitment.final_entry_digest"))],
        );
    }
}

#[test]
fn all_three_mismatches_together() {
    // Another job's three-entry chain checked against job-7a1f's five-entry commitment.
    let other = example_chain("job-b", 3, Revision::R09);
    let r = verify_with(&text_of(&other), &commitment(&good()));
    assert_chain_failures(
        &r,
        &[
            ("AER1-CM-COUNT", None, Some("commitment.entry_count")),
            ("AER1-CM-JOB", None, Some("commitment.job_id")),
            ("AER1-CM-FINAL", None, Some("commitment.final_entry_digest")),
        ],
    );
}

#[test]
fn a_count_alone_does_not_catch_a_substituted_final_entry() {
    let mut swapped = entries(5);
    swapped[4].canonical_bytes = agentconf_aer1::formats::encode_base64(b"{\"forged\":true}");
    let r = verify_with(&text_of(&swapped), &commitment(&good()));
    // Count and job still match: only the final digest tells.
    assert_chain_failures(
        &r,
        &[("AER1-CM-FINAL", None, Some("commitment.final_entry_digest"))],
    );
}

#[test]
fn chain_failures_and_commitment_failures_are_reported_together() {
    // Entry 2 of another job: a chain failure (job, then the next link) and one commitment finding.
    let mut chain = entries(5);
    chain[2].job_id = "job-x".into();
    relink(&mut chain, Revision::R09);
    let r = verify_with(&text_of(&chain), &commitment(&good()));
    let final_now = r.final_entry_digest.clone().unwrap();
    assert_ne!(final_now, FINAL);
    assert_chain_failures(
        &r,
        &[
            ("AER1-TL-JOB", Some(2), Some("job_id")),
            ("AER1-CM-JOB", None, Some("commitment.job_id")),
            ("AER1-CM-FINAL", None, Some("commitment.final_entry_digest")),
        ],
    );
    assert!(
        r.failures[1].message.contains("1 entries") && r.failures[1].message.contains("entry 2"),
        "{}",
        r.failures[1].message
    );
}

#[test]
fn an_undigestable_last_entry_cannot_confirm_the_commitment() {
    let mut v: Vec<Value> = entries(5)
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    v[4]["canonical_bytes"] = json!("not base64");
    let r = verify_with(&serde_json::to_string(&v).unwrap(), &commitment(&good()));
    assert_chain_failures(
        &r,
        &[
            ("AER1-TL-B64", Some(4), Some("canonical_bytes")),
            ("AER1-CM-FINAL", None, Some("commitment.final_entry_digest")),
        ],
    );
}

#[test]
fn commitment_file_findings_are_carried_into_the_report() {
    let findings = parse_commitment(good_with_raw("entry_count", "5.0").as_bytes()).unwrap_err();
    let options = TimelineOptions {
        commitment_findings: findings,
        ..TimelineOptions::default()
    };
    let r = verify_timeline(text_of(&entries(5)).as_bytes(), &options).unwrap();
    assert_chain_failures(
        &r,
        &[("AER1-CM-COUNT-FORMAT", None, Some("commitment.entry_count"))],
    );
    assert_eq!(r.commitment, None);
}

#[test]
fn a_commitment_under_revision_06_is_refused() {
    let old = example_chain("job-7a1f", 5, Revision::R06);
    let options = TimelineOptions {
        revision: Revision::R06,
        commitment: Some(commitment(&good())),
        ..TimelineOptions::default()
    };
    let err = verify_timeline(text_of(&old).as_bytes(), &options).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    // Also when the input is not even a timeline: the options are refused before reading.
    let err = verify_timeline(&b"not json"[..], &options).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    // The same chain without the commitment verifies, labelled historical.
    let options = TimelineOptions {
        revision: Revision::R06,
        ..TimelineOptions::default()
    };
    let r = verify_timeline(text_of(&old).as_bytes(), &options).unwrap();
    assert_eq!(r.verdict, Verdict::Valid, "{:#?}", r.failures);
    assert!(r.historical);
    assert_eq!(r.truncation_evidence, TruncationEvidence::None);
}
