//! Hostile input: every case gets a typed failure naming the rule and the place, never a panic.

use std::io::Read;

use agentconf_aer1::digest::Revision;
use agentconf_aer1::producer::{
    build_timeline, example_chain, relink, timeline_json, CloseStyle, Entry, EntrySpec,
};
use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::report::TimelineReport;
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::workflow::verify_workflow;
use agentconf_aer1::Verdict;

#[path = "support/worked_workflow.rs"]
mod worked_workflow;

fn chain(n: usize) -> String {
    timeline_json(&example_chain("job-7a1f", n, Revision::R09))
}

fn verify_bytes(bytes: &[u8]) -> TimelineReport {
    verify_timeline(bytes, &TimelineOptions::default()).unwrap()
}

fn rules(r: &TimelineReport) -> Vec<(&'static str, Option<u64>)> {
    r.failures.iter().map(|f| (f.rule.id(), f.entry)).collect()
}

/// The text of entry `i` (one entry per line in the producer's output).
fn replace_in_entry(text: &str, i: usize, from: &str, to: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[i + 1].contains(from), "entry {i} has no {from:?}");
    lines[i + 1] = lines[i + 1].replacen(from, to, 1);
    lines.join("\n")
}

#[test]
fn duplicate_member_names() {
    let text = replace_in_entry(&chain(3), 1, "\"seq\":2,", "\"seq\":2,\"seq\":2,");
    let r = verify_bytes(text.as_bytes());
    assert_eq!(rules(&r), [("AER1-JSON-DUPLICATE", Some(1))]);
    assert_eq!(r.failures[0].member.as_deref(), Some("seq"));
    // Nested duplicates are found too, with their path.
    let text = replace_in_entry(
        &chain(3),
        2,
        "\"seq\":3,",
        "\"seq\":3,\"x\":{\"a\":[{\"b\":1,\"b\":2}]},",
    );
    let r = verify_bytes(text.as_bytes());
    assert_eq!(r.failures[0].member.as_deref(), Some("x.a[0].b"));
    assert_eq!(rules(&r), [("AER1-JSON-DUPLICATE", Some(2))]);
}

#[test]
fn lone_surrogates() {
    for escape in ["\\ud800", "\\udfff", "\\uDBFF\\u0041"] {
        let text = replace_in_entry(
            &chain(4),
            2,
            "\"tool\":\"price_lookup\"",
            &format!("\"tool\":\"price{escape}\""),
        );
        let r = verify_bytes(text.as_bytes());
        // Entry 2 cannot be read, so entry 3's link is not judged: one failure.
        assert_eq!(rules(&r), [("AER1-JSON-SURROGATE", Some(2))], "{escape}");
    }
    // A correctly paired escape is fine (entry 3 is the last, so no link binds its tool).
    let text = replace_in_entry(
        &chain(4),
        3,
        "\"tool\":\"price_lookup\"",
        "\"tool\":\"p\\ud83d\\ude00\"",
    );
    assert_eq!(rules(&verify_bytes(text.as_bytes())), []);
}

#[test]
fn huge_numbers() {
    let text = replace_in_entry(&chain(3), 2, "\"seq\":3,", "\"seq\":18446744073709551619,");
    let r = verify_bytes(text.as_bytes());
    assert_eq!(rules(&r), [("AER1-TL-SEQ", Some(2))]);
    assert!(
        r.failures[0].message.contains("18446744073709551619"),
        "{}",
        r.failures[0].message
    );
    let text = replace_in_entry(&chain(3), 2, "\"seq\":3,", "\"seq\":1e400,");
    assert_eq!(
        rules(&verify_bytes(text.as_bytes())),
        [("AER1-TL-SEQ-TYPE", Some(2))]
    );
    let text = replace_in_entry(&chain(3), 1, "\"seq\":2,", "\"seq\":2,\"extra\":1e400,");
    assert_eq!(
        rules(&verify_bytes(text.as_bytes())),
        [("AER1-JSON-NUMBER", Some(1))]
    );
}

#[test]
fn deep_nesting() {
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    let text = replace_in_entry(
        &chain(3),
        1,
        "\"seq\":2,",
        &format!("\"seq\":2,\"extra\":{deep},"),
    );
    assert_eq!(
        rules(&verify_bytes(text.as_bytes())),
        [("AER1-JSON-DEPTH", Some(1))]
    );
    // A whole document of a million open brackets: a clean syntax failure, no stack overflow.
    let r = verify_bytes("[".repeat(1_000_000).as_bytes());
    assert_eq!(rules(&r), [("AER1-JSON-SYNTAX", Some(0))]);
    let balanced = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    assert_eq!(
        rules(&verify_bytes(balanced.as_bytes())),
        [("AER1-JSON-DEPTH", Some(0))]
    );
}

#[test]
fn non_utf8_bom_empty() {
    let mut bytes = replace_in_entry(&chain(3), 1, "price_lookup", "price\u{1}").into_bytes();
    let at = bytes.windows(6).position(|w| w == b"price\x01").unwrap() + 5;
    bytes[at] = 0xff;
    let r = verify_bytes(&bytes);
    assert_eq!(rules(&r), [("AER1-JSON-UTF8", Some(1))]);
    assert!(
        r.failures[0].message.contains(&format!("offset {at}")),
        "{}",
        r.failures[0].message
    );

    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(chain(2).as_bytes());
    assert_eq!(rules(&verify_bytes(&bom)), [("AER1-JSON-SYNTAX", None)]);
    assert_eq!(rules(&verify_bytes(b"")), [("AER1-JSON-SYNTAX", None)]);
    assert_eq!(rules(&verify_bytes(b" \n ")), [("AER1-JSON-SYNTAX", None)]);
    assert_eq!(
        rules(&verify_bytes(b"\xff\xfe")),
        [("AER1-JSON-UTF8", None)]
    );
}

#[test]
fn structure_between_entries() {
    let text = chain(3);
    let r = verify_bytes(text.replacen("},\n{", "} x {", 1).as_bytes());
    assert_eq!(r.failures[0].rule.id(), "AER1-JSON-SYNTAX");
    assert_eq!(r.verdict, Verdict::Invalid);
    let r = verify_bytes(format!("{text} []").as_bytes());
    assert_eq!(rules(&r), [("AER1-JSON-SYNTAX", None)]);
    let r = verify_bytes(text.replacen("}\n]", "},\n]", 1).as_bytes());
    assert_eq!(rules(&r), [("AER1-JSON-SYNTAX", None)]);
    let r = verify_bytes(b"[1,]");
    assert_eq!(r.verdict, Verdict::Invalid);
    let r = verify_bytes(b"[}");
    assert_eq!(r.verdict, Verdict::Invalid);
}

#[test]
fn multi_megabyte_strings() {
    // An 8 MiB payload verifies (bytes are data, not a failure).
    let big = "x".repeat(8 * 1024 * 1024);
    let specs = vec![EntrySpec {
        bytes: format!("{{\"blob\":\"{big}\"}}").into_bytes(),
        id: "r-0".into(),
        tool: "t".into(),
        provenance_class: "LOGGED BY AGENT".into(),
    }];
    let entries = build_timeline("job", &specs, Revision::R09, CloseStyle::LastOnly);
    assert_eq!(
        verify_bytes(timeline_json(&entries).as_bytes()).verdict,
        Verdict::Valid
    );
    // A multi-megabyte job_id that mismatches: the message stays short.
    let mut entries: Vec<Entry> = example_chain("job", 2, Revision::R09);
    entries[1].job_id = "j".repeat(4 * 1024 * 1024);
    relink(&mut entries, Revision::R09);
    let r = verify_bytes(timeline_json(&entries).as_bytes());
    assert_eq!(rules(&r), [("AER1-TL-JOB", Some(1))]);
    assert!(
        r.failures[0].message.len() < 400,
        "{}",
        r.failures[0].message.len()
    );
}

/// Calls `cut` with every proper prefix of `bytes` and whether it must be invalid (it lacks more
/// than trailing whitespace), and `flipped` with every single-bit flip of `bytes`.
fn each_prefix_and_bit_flip(bytes: &[u8], cut: impl Fn(&[u8], bool), flipped: impl Fn(&[u8])) {
    for end in 0..bytes.len() {
        cut(
            &bytes[..end],
            bytes[end..].iter().any(|b| !b.is_ascii_whitespace()),
        );
    }
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut m = bytes.to_vec();
            m[at] ^= 1 << bit;
            flipped(&m);
        }
    }
}

#[test]
fn every_prefix_and_every_byte_flip_is_judged_without_panic() {
    let text = chain(3);
    each_prefix_and_bit_flip(
        text.as_bytes(),
        |cut, must_fail| {
            let r = verify_bytes(cut);
            if must_fail {
                assert_eq!(r.verdict, Verdict::Invalid, "prefix of {} bytes", cut.len());
            }
        },
        |m| {
            let _ = verify_bytes(m);
            let _ = verify_receipt(m, Tier::Strict);
            let _ = verify_workflow(m);
            let _ = agentconf_aer1::commitment::parse_commitment(m);
        },
    );
}

/// The draft's worked workflow receipt, cut at every length and with every single bit flipped:
/// always a typed verdict, never a panic, and a cut document is never valid.
#[test]
fn every_prefix_and_every_byte_flip_of_a_workflow_is_judged_without_panic() {
    let bytes = worked_workflow::WORKED_WORKFLOW.as_bytes();
    assert_eq!(verify_workflow(bytes).verdict, Verdict::Valid);
    each_prefix_and_bit_flip(
        bytes,
        |cut, must_fail| {
            let r = verify_workflow(cut);
            if must_fail {
                assert_eq!(r.verdict, Verdict::Invalid, "prefix of {} bytes", cut.len());
            }
        },
        |m| {
            let r = verify_workflow(m);
            assert_eq!(r.verdict == Verdict::Valid, r.failures.is_empty());
        },
    );
}

/// A reader handing out `n` bytes per call, to prove the result does not depend on chunking.
struct Trickle<'a> {
    data: &'a [u8],
    n: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

#[test]
fn chunking_does_not_change_the_result() {
    let good = chain(6);
    let cases = [
        good.clone(),
        replace_in_entry(&good, 2, "\"seq\":3,", "\"seq\":3.5,"),
        replace_in_entry(
            &good,
            4,
            "\"tool\":\"price_lookup\"",
            "\"tool\":\"a\\\"b\\\\\"",
        ),
        good.replacen("},\n{", "}, {", 1),
        good[..good.len() - 10].to_string(),
        good.replace('\n', " \r\n\t "),
    ];
    for text in &cases {
        let whole = serde_json::to_string(&verify_bytes(text.as_bytes())).unwrap();
        for n in [1, 2, 7, 64, 4096] {
            let r = verify_timeline(
                Trickle {
                    data: text.as_bytes(),
                    n,
                },
                &TimelineOptions::default(),
            )
            .unwrap();
            assert_eq!(serde_json::to_string(&r).unwrap(), whole, "chunk size {n}");
        }
    }
}

#[test]
fn reader_errors_are_io_errors_not_verdicts() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    assert!(verify_timeline(Broken, &TimelineOptions::default()).is_err());
}

/// The limits on what is held in memory (README "Resource limits"): values per entry, string
/// length, workflow steps. Each refusal names AER1-JSON-SIZE, the entry and the member, and the
/// entries after a refused one are still judged.
#[test]
fn resource_limits_refuse_with_the_place() {
    use agentconf_aer1::json::{DEFAULT_MAX_STRING_BYTES, DEFAULT_MAX_VALUES};

    // An entry carrying one value more than the limit (the entry's own members count too).
    let zeros = vec!["0"; DEFAULT_MAX_VALUES].join(",");
    let text = replace_in_entry(
        &chain(3),
        1,
        "\"seq\":2,",
        &format!("\"x\":[{zeros}],\"seq\":2,"),
    );
    let r = verify_bytes(text.as_bytes());
    assert_eq!(rules(&r), [("AER1-JSON-SIZE", Some(1))], "{:?}", r.failures);
    assert!(
        r.failures[0].message.contains("values"),
        "{}",
        r.failures[0].message
    );

    // A string one byte over the limit, named by its member path.
    let long = "y".repeat(DEFAULT_MAX_STRING_BYTES + 1);
    let text = replace_in_entry(
        &chain(2),
        0,
        "\"seq\":1,",
        &format!("\"note\":{{\"text\":\"{long}\"}},\"seq\":1,"),
    );
    let r = verify_bytes(text.as_bytes());
    assert_eq!(rules(&r), [("AER1-JSON-SIZE", Some(0))], "{:?}", r.failures);
    assert_eq!(r.failures[0].member.as_deref(), Some("note.text"));
    // At the limit it is data, and the chain verifies.
    let fits = "y".repeat(DEFAULT_MAX_STRING_BYTES);
    let text = replace_in_entry(
        &chain(2),
        0,
        "\"seq\":1,",
        &format!("\"note\":\"{fits}\",\"seq\":1,"),
    );
    assert_eq!(verify_bytes(text.as_bytes()).verdict, Verdict::Valid);

    // Limits are options: a caller can lower them.
    let options = TimelineOptions {
        json_limits: agentconf_aer1::json::Limits {
            max_values: 5,
            max_string_bytes: 1 << 20,
        },
        ..TimelineOptions::default()
    };
    let r = verify_timeline(chain(2).as_bytes(), &options).unwrap();
    assert_eq!(
        rules(&r),
        [("AER1-JSON-SIZE", Some(0)), ("AER1-JSON-SIZE", Some(1))]
    );
}

#[test]
fn workflow_step_limit() {
    use agentconf_aer1::digest::merkle_root;
    use agentconf_aer1::workflow::MAX_WORKFLOW_STEPS;

    // A workflow receipt of n steps in the draft's layout, with distinct ids and its root.
    let doc = |n: usize| {
        let ids: Vec<String> = (0..n)
            .map(|i| format!("{i:08x}-0000-4000-8000-{i:012x}"))
            .collect();
        let root = merkle_root(ids.iter().map(String::as_str));
        let steps: Vec<String> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                format!(
                    "{{\"seq\":{},\"tool\":\"t\",\"receipt_id\":\"{id}\",\"receipt_hash\":\"{}\",\
                     \"started_at\":\"2026-09-29T10:57:40Z\",\"ended_at\":\"2026-09-29T10:57:41Z\",\
                     \"status\":\"ok\"}}",
                    i + 1,
                    "0".repeat(64)
                )
            })
            .collect();
        let hex: String = root.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{{\"type\":\"verifiable-workflow-receipt\",\"version\":\"1\",\
             \"workflow_id\":\"42a3c2cf-2cdd-5b8a-aced-016e5a2fb634\",\
             \"receipt_id\":\"442243d2-9c32-53f7-817e-2def28fa5b07\",\"session_id\":\"s\",\
             \"goal\":\"g\",\"status\":\"ok\",\"steps\":[{}],\"merkle_root\":\"{hex}\",\
             \"output_hash\":\"{}\",\"verify_url\":\"https://example.invalid/w\"}}",
            steps.join(","),
            "0".repeat(64)
        )
    };
    let at = verify_workflow(doc(MAX_WORKFLOW_STEPS).as_bytes());
    assert_eq!(at.verdict, Verdict::Valid, "{:?}", at.failures);
    let over = verify_workflow(doc(MAX_WORKFLOW_STEPS + 1).as_bytes());
    let got: Vec<_> = over
        .failures
        .iter()
        .map(|f| (f.rule.id(), f.member.as_deref()))
        .collect();
    assert_eq!(got, [("AER1-JSON-SIZE", Some("steps"))]);
    assert!(over.computed_merkle_root.is_none());
}
