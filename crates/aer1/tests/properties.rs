//! Property tests (proptest): the preimage escaper against an independently written one, single-
//! member mutations of a valid chain, and re-linked truncations against the original commitment.

use std::fmt::Write as _;

use agentconf_aer1::commitment::{make_commitment, Commitment};
use agentconf_aer1::digest::Revision;
use agentconf_aer1::escape::push_json_string;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::{digest_entry, example_chain, relink, timeline_json, Entry};
use agentconf_aer1::report::TimelineReport;
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::{hex, Verdict};
use proptest::prelude::*;
use serde_json::Value;

// ------------------------------------------------------------------------------------------------
// The escaper

/// Python's `json.dumps(s, ensure_ascii=True)`, written from its documentation, char by char:
/// the two mandatory escapes, the five short ones, printable ASCII as is, everything else as
/// UTF-16 code units in lowercase `\uXXXX`.
fn reference_escape(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

/// Characters weighted towards the interesting ones: controls, U+007F, quotes, backslashes,
/// the edges of the BMP and characters that need a surrogate pair.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => any::<char>(),
        2 => (0x20u8..0x7f).prop_map(char::from),
        2 => (0u8..0x20).prop_map(char::from),
        1 => Just('\u{7f}'),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('/'),
        1 => (0x80u32..0x800).prop_filter_map("scalar", char::from_u32),
        1 => Just('\u{ffff}'),
        1 => Just('\u{fffd}'),
        1 => (0x10000u32..=0x10ffff).prop_filter_map("scalar", char::from_u32),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn escaper_matches_an_independent_one(chars in prop::collection::vec(interesting_char(), 0..40)) {
        let s: String = chars.into_iter().collect();
        let mut out = Vec::new();
        push_json_string(&mut out, &s);
        let ours = String::from_utf8(out).expect("ASCII");
        prop_assert_eq!(&ours, &reference_escape(&s));
        // And it is a JSON string that reads back as `s`.
        prop_assert_eq!(serde_json::from_str::<String>(&ours).expect("JSON"), s);
    }
}

// ------------------------------------------------------------------------------------------------
// Chains

const JOB: &str = "job-7a1f";
const PUBLISHED: &str = "2026-07-14T10:30:00Z";

fn digest_hex(e: &Entry) -> String {
    hex::lower(&digest_entry(e, Revision::R09, &mut Vec::new()))
}

fn commitment_of(entries: &[Entry]) -> Commitment {
    let last = entries.last().expect("non-empty");
    make_commitment(
        &last.job_id,
        &digest_hex(last),
        entries.len() as u64,
        PUBLISHED,
    )
    .expect("a well-formed commitment")
}

fn verify(text: &str, commitment: Option<&Commitment>) -> TimelineReport {
    let options = TimelineOptions {
        commitment: commitment.cloned(),
        ..TimelineOptions::default()
    };
    verify_timeline(text.as_bytes(), &options).expect("reading a slice")
}

fn found(r: &TimelineReport) -> Vec<(&'static str, Option<u64>)> {
    r.failures.iter().map(|f| (f.rule.id(), f.entry)).collect()
}

/// The members of an entry a mutation can target.
#[derive(Clone, Copy, Debug)]
enum Member {
    CanonicalBytes,
    CanonicalBytesNotBase64,
    PrevDigest,
    JobId,
    Id,
    Tool,
    ProvenanceOther,
    ProvenanceInvalid,
    Seq,
    CloseFlip,
    CloseNotBool,
    OutputHash,
    EmptyString,
}

fn member() -> impl Strategy<Value = Member> {
    use Member::*;
    prop_oneof![
        Just(CanonicalBytes),
        Just(CanonicalBytesNotBase64),
        Just(PrevDigest),
        Just(JobId),
        Just(Id),
        Just(Tool),
        Just(ProvenanceOther),
        Just(ProvenanceInvalid),
        Just(Seq),
        Just(CloseFlip),
        Just(CloseNotBool),
        Just(OutputHash),
        Just(EmptyString),
    ]
}

/// Applies the mutation to entry `i` (as JSON) and returns the rules that must then be reported,
/// with their entry (`None`: any entry, for commitment findings).
fn mutate(
    entries: &mut [Value],
    i: usize,
    m: Member,
    salt: u32,
) -> Vec<(&'static str, Option<u64>)> {
    let n = entries.len();
    let last = i + 1 == n;
    let at = Some(i as u64);
    // A change to a member the preimage binds breaks the next link, or the commitment's final
    // digest when the entry is the last.
    let consequence = if last {
        ("AER1-CM-FINAL", None)
    } else {
        ("AER1-TL-LINK", Some(i as u64 + 1))
    };
    let e = entries[i].as_object_mut().expect("object");
    match m {
        Member::CanonicalBytes => {
            let bytes = format!("{{\"changed\":{salt}}}");
            e.insert(
                "canonical_bytes".into(),
                Value::from(encode_base64(bytes.as_bytes())),
            );
            // Entries carry a correct output_hash, which no longer matches.
            vec![("AER1-TL-OUTPUT-HASH", at), consequence]
        }
        Member::CanonicalBytesNotBase64 => {
            e.insert(
                "canonical_bytes".into(),
                Value::from(format!("not base64 {salt}")),
            );
            vec![("AER1-TL-B64", at)]
        }
        Member::PrevDigest => {
            let other = hex::lower(&agentconf_aer1::digest::sha256(&salt.to_be_bytes()));
            e.insert("prev_digest".into(), Value::from(other));
            let own = if i == 0 {
                "AER1-TL-GENESIS"
            } else {
                "AER1-TL-LINK"
            };
            vec![(own, at)]
        }
        Member::JobId => {
            e.insert("job_id".into(), Value::from(format!("other-job-{salt}")));
            if i == 0 && n > 1 {
                // The first entry's job is the chain's: every other entry now differs from it.
                vec![("AER1-TL-JOB", Some(1)), ("AER1-CM-JOB", None)]
            } else if i == 0 {
                vec![("AER1-CM-JOB", None)]
            } else {
                vec![("AER1-TL-JOB", at), ("AER1-CM-JOB", None)]
            }
        }
        Member::Id => {
            e.insert("id".into(), Value::from(format!("changed-{salt}")));
            vec![consequence]
        }
        Member::Tool => {
            e.insert("tool".into(), Value::from(format!("changed-{salt}")));
            vec![consequence]
        }
        Member::ProvenanceOther => {
            // The chain is built with LOGGED BY AGENT.
            let other = if salt.is_multiple_of(2) {
                "OBSERVED VIA GATEWAY".to_string()
            } else {
                format!("EXECUTED BY SYSTEM-{salt}")
            };
            e.insert("provenance_class".into(), Value::from(other));
            vec![consequence]
        }
        Member::ProvenanceInvalid => {
            e.insert(
                "provenance_class".into(),
                Value::from(format!("LOGGED BY AGENT {salt}")),
            );
            vec![("AER1-TL-PROVENANCE", at)]
        }
        Member::Seq => {
            let seq = e["seq"].as_u64().expect("seq");
            e.insert("seq".into(), Value::from(seq + 1 + u64::from(salt % 5)));
            vec![("AER1-TL-SEQ", at)]
        }
        Member::CloseFlip => {
            if last {
                e.insert("close".into(), Value::Bool(false));
                vec![("AER1-TL-CLOSE-LAST", at)]
            } else {
                e.insert("close".into(), Value::Bool(true));
                vec![("AER1-TL-CLOSE-EARLY", at)]
            }
        }
        Member::CloseNotBool => {
            e.insert("close".into(), Value::from("true"));
            vec![("AER1-TL-CLOSE-TYPE", at)]
        }
        Member::OutputHash => {
            let other = hex::lower(&agentconf_aer1::digest::sha256(&salt.to_le_bytes()));
            e.insert("output_hash".into(), Value::from(format!("sha256:{other}")));
            vec![("AER1-TL-OUTPUT-HASH", at)]
        }
        Member::EmptyString => {
            let name = [
                "canonical_bytes",
                "prev_digest",
                "job_id",
                "id",
                "tool",
                "provenance_class",
            ][salt as usize % 6];
            e.insert(name.into(), Value::from(""));
            // An empty canonical_bytes or prev_digest is a well-formed value (empty bytes; a
            // link that does not match); the others must be non-empty.
            match name {
                "canonical_bytes" => vec![("AER1-TL-OUTPUT-HASH", at)],
                "prev_digest" if i == 0 => vec![("AER1-TL-GENESIS", at)],
                "prev_digest" => vec![("AER1-TL-LINK", at)],
                _ => vec![("AER1-TL-MEMBERS", at)],
            }
        }
    }
}

/// A valid chain of `n` entries as JSON values, each carrying its (correct) output_hash.
fn valid_chain(n: usize) -> (Vec<Entry>, Vec<Value>) {
    let entries = example_chain(JOB, n, Revision::R09);
    let values: Value = serde_json::from_str(&timeline_json(&entries)).expect("JSON");
    let mut values = match values {
        Value::Array(v) => v,
        _ => unreachable!(),
    };
    for (v, e) in values.iter_mut().zip(&entries) {
        let mut bytes = Vec::new();
        agentconf_aer1::formats::decode_base64_into(&e.canonical_bytes, &mut bytes).expect("b64");
        let hash = hex::lower(&agentconf_aer1::digest::sha256(&bytes));
        v.as_object_mut()
            .expect("object")
            .insert("output_hash".into(), Value::from(format!("sha256:{hash}")));
    }
    (entries, values)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Any single-member mutation that is not re-linked is rejected, on the rule of that member
    /// (its own rule where it has one; otherwise the link it breaks or, for the last entry, the
    /// commitment's final digest), and nothing is reported before the mutated entry.
    #[test]
    fn a_single_member_mutation_is_rejected_on_its_rule(
        n in 1usize..7,
        pick in any::<prop::sample::Index>(),
        m in member(),
        salt in any::<u32>(),
    ) {
        let (entries, mut values) = valid_chain(n);
        let commitment = commitment_of(&entries);
        let original = serde_json::to_string(&values).expect("JSON");
        prop_assert_eq!(verify(&original, Some(&commitment)).verdict, Verdict::Valid);

        let i = pick.index(n);
        let expected = mutate(&mut values, i, m, salt);
        let text = serde_json::to_string(&values).expect("JSON");
        let r = verify(&text, Some(&commitment));
        let got = found(&r);
        prop_assert_eq!(r.verdict, Verdict::Invalid);
        for (rule, entry) in &expected {
            let hit = got.iter().any(|(g, e)| g == rule && (entry.is_none() || e == entry));
            prop_assert!(hit, "{:?} on entry {} of {}: expected {} at {:?}, got {:?}", m, i, n, rule, entry, got);
        }
        for (rule, entry) in &got {
            if let Some(e) = entry {
                prop_assert!(*e as usize >= i, "{:?}: {} reported at {} before the mutated entry {}", m, rule, e, i);
            }
        }
    }

    /// A truncated chain, re-linked (and re-closed), verifies on its own, which is why a verified
    /// chain is not proof of completeness, and fails against the original commitment.
    #[test]
    fn a_relinked_truncation_verifies_alone_and_fails_the_commitment(
        n in 2usize..12,
        cut in any::<prop::sample::Index>(),
        from_the_front in any::<bool>(),
    ) {
        let entries = example_chain(JOB, n, Revision::R09);
        let commitment = commitment_of(&entries);
        let keep = 1 + cut.index(n - 1); // 1..n-1 entries kept
        let mut truncated: Vec<Entry> = if from_the_front {
            entries[n - keep..].to_vec()
        } else {
            entries[..keep].to_vec()
        };
        for (k, e) in truncated.iter_mut().enumerate() {
            e.seq = k as u64 + 1;
            e.close = None;
        }
        if let Some(last) = truncated.last_mut() {
            last.close = Some(true);
        }
        relink(&mut truncated, Revision::R09);
        let text = timeline_json(&truncated);

        let alone = verify(&text, None);
        prop_assert_eq!(alone.verdict, Verdict::Valid, "{:?}", alone.failures);
        prop_assert_eq!(alone.truncation_evidence, agentconf_aer1::TruncationEvidence::None);

        let committed = verify(&text, Some(&commitment));
        let got: Vec<&str> = committed.failures.iter().map(|f| f.rule.id()).collect();
        prop_assert_eq!(committed.verdict, Verdict::Invalid);
        prop_assert!(got.contains(&"AER1-CM-COUNT"), "{:?}", got);
        prop_assert!(got.contains(&"AER1-CM-FINAL"), "{:?}", got);
    }
}
