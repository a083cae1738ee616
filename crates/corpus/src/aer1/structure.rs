//! `aer1/timeline/structure/*`: each vector breaks one structural rule of a timeline (or of the
//! revision-09 commitment that goes with it), where the draft lets a single rule break on its own.
//!
//! Mutants start from the valid example chains. Where a mutation changes a member bound into the
//! digest, the chain is re-linked after it (as whoever made the change would), so that the link
//! rule does not break as well; vectors that keep the stale links say so and expect the link
//! failure too.

use agentconf_aer1::digest::Revision;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::{relink, Entry};
use agentconf_rules::Rule;
use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

use super::common::{digest_09, example, JOB, PUBLISHED_AT};
use crate::builder::{to_values, values_json, Family, AER1_ALL, FROM_07, FROM_09};
use agentconf_contract::vector::{Flag, Suite, Vector};

const EXAMPLE_1: &str = "aer1/timeline/valid/example-1";
const EXAMPLE_5: &str = "aer1/timeline/valid/example-5";
const EXAMPLE_5_COMMITMENT: &str = "aer1/timeline/valid/example-5-with-commitment";

/// The six string members every entry carries (`seq` and `close` have rules of their own).
const STRING_MEMBERS: [&str; 6] = [
    "canonical_bytes",
    "prev_digest",
    "job_id",
    "id",
    "tool",
    "provenance_class",
];

/// Flags of a SHOULD-level interpretation the kit does not enforce.
const SHOULD_KIT_ACCEPTS: &[Flag] = &[Flag::ShouldLevel, Flag::Interpretation, Flag::KitAccepts];

/// Recomputes the `prev_digest` of every entry from index `start` on (revision-09 construction),
/// leaving the entries before `start` exactly as they are (so a changed genesis value stays).
pub(super) fn relink_from(entries: &mut [Entry], start: usize) {
    for i in start.max(1)..entries.len() {
        entries[i].prev_digest = digest_09(&entries[i - 1]);
    }
}

/// Replaces the first `from` in the text of entry `i` of a timeline written one entry per line
/// (line 0 is `[`). Panics when the entry does not contain `from`: that is a generator bug.
pub(super) fn replace_in_entry(text: &str, i: usize, from: &str, to: &str) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    assert!(
        lines[i + 1].contains(from),
        "entry {i} does not contain {from:?}"
    );
    lines[i + 1] = lines[i + 1].replacen(from, to, 1);
    lines.join("\n")
}

/// The example chain of `n` entries as JSON values, for mutation.
fn values(n: usize) -> Vec<Value> {
    to_values(&example(n))
}

/// `sha256:` + lowercase hex SHA-256 of the bytes an entry's `canonical_bytes` decodes to,
/// computed here (base64 and sha2 crates), not by the reference.
fn stored_output_hash(entry: &Value) -> String {
    let text = entry["canonical_bytes"].as_str().unwrap_or_default();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_default();
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// A commitment file from the exact JSON text of each member's value.
fn commitment_raw(
    job_id: &str,
    final_entry_digest: &str,
    entry_count: &str,
    published_at: &str,
) -> String {
    format!(
        "{{\"job_id\":{job_id},\"final_entry_digest\":{final_entry_digest},\"entry_count\":{entry_count},\"published_at\":{published_at}}}"
    )
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "structure");
    genesis(&mut f);
    seq(&mut f);
    job(&mut f);
    close(&mut f);
    members(&mut f);
    top_level(&mut f);
    links(&mut f);
    base64_forms(&mut f);
    interpretations(&mut f);
    commitment_formats(&mut f);
    raw_utf8_links(&mut f);
}

/// A chain whose links were computed over raw-UTF-8 (JCS-like) preimages instead of the kit's
/// escaped form: every link after the first entry fails. A verifier that accepts either form would
/// accept this; the kill matrix found the corpus had no such vector.
fn raw_utf8_links(f: &mut Family<'_>) {
    use agentconf_aer1::producer::{build_timeline, CloseStyle, EntrySpec};
    let specs: Vec<EntrySpec> = (0..4)
        .map(|i| EntrySpec {
            bytes: format!("{{\"i\":{i}}}").into_bytes(),
            id: format!("r-\u{e9}-\u{7f}-\u{1F600}-{i}"),
            tool: "pr\u{ee}ce_lookup".to_string(),
            provenance_class: "LOGGED BY AGENT".to_string(),
        })
        .collect();
    let mut chain = build_timeline("job-\u{fc}", &specs, Revision::R09, CloseStyle::LastOnly);
    // Re-link with the raw form: serde_json's compact, sorted serialization writes non-ASCII and
    // U+007F as themselves.
    let mut prev = "0".repeat(64);
    for e in chain.iter_mut() {
        e.prev_digest = prev.clone();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&e.canonical_bytes)
            .unwrap_or_default();
        let preimage = json!({
            "close": e.close.unwrap_or(false),
            "id": e.id,
            "job_id": e.job_id,
            "output_hash": agentconf_aer1::hex::lower(&Sha256::digest(&bytes)),
            "prev_digest": e.prev_digest,
            "provenance_class": e.provenance_class,
            "seq": e.seq,
            "tool": e.tool,
        });
        prev = agentconf_aer1::hex::lower(&Sha256::digest(preimage.to_string().as_bytes()));
    }
    f.vector("links-over-raw-utf8-preimages")
        .revisions(FROM_07)
        .describe(
            "Four entries whose id, tool and job_id contain non-ASCII characters and U+007F; every \
             link was computed over a preimage with those characters written raw (RFC 8785 style), \
             not escaped as \\uXXXX as the kit does. The entries' own digests therefore differ from \
             the prev_digest values that follow them: AER1-TL-LINK fails on entries 1-3. A verifier \
             that accepts either escaping would accept this chain.",
        )
        .timeline(&chain)
        .invalid(&[Rule::Aer1TlLink])
        .push();
}

fn genesis(f: &mut Family<'_>) {
    let cases = [
        ("genesis-64-f", "f".repeat(64), "64 'f' characters"),
        (
            "genesis-63-zeros",
            "0".repeat(63),
            "63 '0' characters, one short",
        ),
        ("genesis-64-ones", "1".repeat(64), "64 '1' characters"),
    ];
    for (name, value, what) in cases {
        let mut chain = example(5);
        chain[0].prev_digest = value;
        relink_from(&mut chain, 1);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry 0's prev_digest is {what} instead of the genesis value, exactly 64 '0' \
                 characters. Entries 1-4 are re-linked over the changed entry 0 (its prev_digest is \
                 bound into its digest), so every link holds and only the genesis rule breaks."
            ))
            .timeline(&chain)
            .invalid(&[Rule::Aer1TlGenesis])
            .derived_from(
                EXAMPLE_5,
                &format!("entry 0 prev_digest set to {what}; entries 1-4 re-linked"),
            )
            .push();
    }

    let mut chain = example(5);
    chain[0].prev_digest = "1".repeat(64);
    f.vector("genesis-64-ones-not-relinked")
        .revisions(FROM_07)
        .describe(
            "Entry 0's prev_digest is 64 '1' characters, not the genesis value, and the chain is \
             not re-linked. prev_digest is bound into entry 0's digest, so entry 1's stored link \
             (made over the genesis value) no longer matches: genesis and link both break.",
        )
        .timeline(&chain)
        .invalid(&[Rule::Aer1TlGenesis, Rule::Aer1TlLink])
        .derived_from(
            EXAMPLE_5,
            "entry 0 prev_digest set to 64 '1' characters, links kept",
        )
        .push();

    let mut single = example(1);
    single[0].prev_digest = "1".repeat(64);
    f.vector("genesis-single-entry")
        .revisions(FROM_07)
        .describe(
            "A single closed entry whose prev_digest is 64 '1' characters. The genesis rule applies \
             to a one-entry chain too; there is no link to judge, so only the genesis rule breaks.",
        )
        .timeline(&single)
        .invalid(&[Rule::Aer1TlGenesis])
        .derived_from(EXAMPLE_1, "prev_digest set to 64 '1' characters")
        .push();
}

fn seq(f: &mut Family<'_>) {
    // Contiguity, re-linked so that only AER1-TL-SEQ breaks. seq is judged by position: the
    // entry at index i must carry i + 1, so one misplaced value flags every later entry too.
    let cases: [(&str, [u64; 5], &str); 5] = [
        (
            "seq-starts-at-0",
            [0, 1, 2, 3, 4],
            "seq runs 0..4: the first seq must be 1",
        ),
        (
            "seq-starts-at-2",
            [2, 3, 4, 5, 6],
            "seq runs 2..6: the first seq must be 1",
        ),
        (
            "seq-gap",
            [1, 2, 4, 5, 6],
            "seq runs 1, 2, 4, 5, 6: 3 is skipped, so entries 2-4 are each out of place",
        ),
        (
            "seq-one-wrong-value",
            [1, 2, 7, 4, 5],
            "seq runs 1, 2, 7, 4, 5: entry 2 carries 7 instead of 3",
        ),
        (
            "seq-repeat",
            [1, 2, 2, 3, 4],
            "seq runs 1, 2, 2, 3, 4: 2 is repeated, so entries 2-4 are each out of place",
        ),
    ];
    for (name, seqs, what) in cases {
        let mut chain = example(5);
        for (e, s) in chain.iter_mut().zip(seqs) {
            e.seq = s;
        }
        relink(&mut chain, Revision::R09);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "{what}. seq must start at 1 and grow by one. The chain is re-linked over the \
                 changed seq values (seq is bound into the digest), so only the sequence rule \
                 breaks."
            ))
            .timeline(&chain)
            .invalid(&[Rule::Aer1TlSeq])
            .derived_from(
                EXAMPLE_5,
                &format!("seq values set to {seqs:?}; chain re-linked"),
            )
            .push();
    }

    let mut swapped = example(5);
    swapped.swap(2, 3);
    let mut relinked = swapped.clone();
    relink(&mut relinked, Revision::R09);
    f.vector("entries-reordered-relinked")
        .revisions(FROM_07)
        .describe(
            "Entries 2 and 3 swap places, each keeping its own seq (so seq runs 1, 2, 4, 3, 5), and \
             the chain is re-linked in the new order. Every link holds, but reordering still shows \
             in the sequence: only the sequence rule breaks.",
        )
        .timeline(&relinked)
        .invalid(&[Rule::Aer1TlSeq])
        .derived_from(EXAMPLE_5, "entries 2 and 3 swapped; chain re-linked")
        .push();
    f.vector("entries-reordered")
        .revisions(FROM_07)
        .describe(
            "Entries 2 and 3 swap places with their seq and stored links unchanged. The sequence \
             runs 1, 2, 4, 3, 5, and the links of the moved entries and of entry 4 no longer name \
             the digest of the entry now before them: sequence and link both break.",
        )
        .timeline(&swapped)
        .invalid(&[Rule::Aer1TlSeq, Rule::Aer1TlLink])
        .derived_from(EXAMPLE_5, "entries 2 and 3 swapped; links kept")
        .push();

    // seq of the wrong type on the last entry: nothing links to the last entry, so the type
    // rule is the only one involved.
    let bad: [(&str, Option<Value>, &str); 5] = [
        (
            "seq-string-on-last-entry",
            Some(json!("5")),
            "the string \"5\"",
        ),
        (
            "seq-fraction-on-last-entry",
            Some(json!(4.5)),
            "4.5, a number with a fraction",
        ),
        (
            "seq-boolean-on-last-entry",
            Some(json!(true)),
            "the boolean true",
        ),
        ("seq-null-on-last-entry", Some(Value::Null), "null"),
        ("seq-missing-on-last-entry", None, "absent"),
    ];
    for (name, value, what) in bad {
        let mut chain = values(5);
        match value {
            Some(v) => chain[4]["seq"] = v,
            None => {
                if let Some(o) = chain[4].as_object_mut() {
                    o.remove("seq");
                }
            }
        }
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "The last entry's seq is {what}. seq must be present and be a JSON number with an \
                 integral value; an entry without an integer seq has no place in the sequence and \
                 cannot be digested. It is the last entry, so no link depends on its digest: only \
                 the seq type rule breaks."
            ))
            .timeline_values(&chain)
            .invalid(&[Rule::Aer1TlSeqType])
            .derived_from(EXAMPLE_5, &format!("last entry's seq made {what}"))
            .push();
    }

    let mut chain = values(5);
    chain[2]["seq"] = json!("3");
    f.vector("seq-string-on-middle-entry")
        .revisions(FROM_07)
        .describe(
            "Entry 2's seq is the string \"3\"; links are unchanged. seq must be a number, so the \
             seq type rule breaks. Entry 2 cannot be digested, so entry 3's link cannot be judged \
             and is not reported (one broken entry, one failure). A verifier that coerces \"3\" to \
             3 would wrongly accept the chain.",
        )
        .timeline_values(&chain)
        .invalid(&[Rule::Aer1TlSeqType])
        .derived_from(EXAMPLE_5, "entry 2 seq written as the string \"3\"")
        .push();

    let mut chain = values(5);
    chain[4]["seq"] = json!(-5);
    f.vector("seq-negative-on-last-entry")
        .revisions(FROM_07)
        .describe(
            "The last entry's seq is -5. A negative number is an integer, so the seq type rule \
             holds, but it is not the previous seq plus one: the sequence rule breaks. No link \
             depends on the last entry.",
        )
        .timeline_values(&chain)
        .invalid(&[Rule::Aer1TlSeq])
        .derived_from(EXAMPLE_5, "last entry's seq set to -5")
        .push();

    // Integral numbers written with a fraction or exponent are integers (the kit reads them
    // with float.is_integer) and digest as integers, so the links made over 1, 2, 3 still hold.
    let text = values_json(&values(5));
    let forms = [
        ("seq-written-1e0", 0, "1", "1e0"),
        ("seq-written-2-point-0", 1, "2", "2.0"),
    ];
    for (name, entry, plain, written) in forms {
        let mutated = replace_in_entry(
            &text,
            entry,
            &format!("\"seq\":{plain},"),
            &format!("\"seq\":{written},"),
        );
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry {entry}'s seq is written {written}. That is a JSON number with the integral \
                 value {plain}, which is an acceptable seq; it digests as {plain}, so the stored \
                 link from entry {entry} to the next entry (made over {plain}) holds. Must verify."
            ))
            .timeline_text(&mutated)
            .exercises(&[Rule::Aer1TlSeqType, Rule::Aer1TlSeq, Rule::Aer1TlLink])
            .valid()
            .derived_from(
                EXAMPLE_5,
                &format!("entry {entry} seq written as {written}"),
            )
            .push();
    }
}

fn job(f: &mut Family<'_>) {
    let cases = [
        (
            "job-mixed-middle-entry-relinked",
            2,
            "job-7a1g",
            "Entry 2 carries job_id \"job-7a1g\" while the others carry \"job-7a1f\"",
        ),
        (
            "job-differs-only-in-case-relinked",
            2,
            "JOB-7A1F",
            "Entry 2 carries job_id \"JOB-7A1F\": job ids compare as exact strings, without case \
             folding",
        ),
        (
            "job-first-entry-differs-relinked",
            0,
            "job-0000",
            "Entry 0 carries job_id \"job-0000\" while entries 1-4 carry \"job-7a1f\"",
        ),
        (
            "job-mixed-last-entry",
            4,
            "job-other",
            "The last entry carries job_id \"job-other\" while the others carry \"job-7a1f\"",
        ),
    ];
    for (name, at, job, what) in cases {
        let mut chain = example(5);
        chain[at].job_id = job.to_string();
        relink(&mut chain, Revision::R09);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "{what}. Every entry of a timeline must carry the same job_id. The chain is \
                 re-linked after the change (job_id is bound into the digest), so only the one-job \
                 rule breaks."
            ))
            .timeline(&chain)
            .invalid(&[Rule::Aer1TlJob])
            .derived_from(
                EXAMPLE_5,
                &format!("entry {at} job_id set to {job:?}; chain re-linked"),
            )
            .push();
    }
}

fn close(f: &mut Family<'_>) {
    let mut chain = example(5);
    chain[2].close = Some(true);
    let stale = chain.clone();
    relink(&mut chain, Revision::R09);
    f.vector("close-true-middle-entry-relinked")
        .revisions(FROM_07)
        .describe(
            "Entry 2 of 5 carries close: true and the chain is re-linked over it. close: true may \
             appear only on the last entry; every link holds, so only the early-close rule breaks.",
        )
        .timeline(&chain)
        .invalid(&[Rule::Aer1TlCloseEarly])
        .derived_from(EXAMPLE_5, "entry 2 close set to true; chain re-linked")
        .push();
    f.vector("close-true-middle-entry")
        .revisions(FROM_07)
        .describe(
            "Entry 2 of 5 carries close: true; links are unchanged. close: true may appear only on \
             the last entry, and close is bound into the digest, so entry 3's stored link (made \
             with close false) no longer matches: early close and link both break.",
        )
        .timeline(&stale)
        .invalid(&[Rule::Aer1TlCloseEarly, Rule::Aer1TlLink])
        .derived_from(EXAMPLE_5, "entry 2 close set to true; links kept")
        .push();

    let mut chain = example(5);
    for e in &mut chain {
        e.close = Some(true);
    }
    relink(&mut chain, Revision::R09);
    f.vector("close-true-on-every-entry-relinked")
        .revisions(FROM_07)
        .describe(
            "Every entry carries close: true and the chain is re-linked. The last entry is properly \
             closed, but entries 0-3 close early: only the early-close rule breaks (once per early \
             entry).",
        )
        .timeline(&chain)
        .invalid(&[Rule::Aer1TlCloseEarly])
        .derived_from(EXAMPLE_5, "close set to true on every entry; chain re-linked")
        .push();

    for (name, value, what) in [
        (
            "close-string-true-middle-entry",
            json!("true"),
            "the string \"true\"",
        ),
        ("close-null-middle-entry", Value::Null, "null"),
    ] {
        let mut chain = values(5);
        chain[2]["close"] = value;
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry 2's close is {what}; links are unchanged. close, where present, must be a \
                 boolean, so the close type rule breaks (required). It is not close: true, so the \
                 early-close rule does not apply. The draft author's kit digests a present \
                 non-boolean close as written (AER1.md 2.1, kit), so its digest of entry 2 differs \
                 from the one entry 3's stored link was made with (close false): a verifier that \
                 also reports the link rule on entry 3 is right: that reading (close type and \
                 link) is accepted as well as the close type rule alone (the reference does not \
                 judge a link from an entry it cannot digest)."
            ))
            .timeline_values(&chain)
            .invalid(&[Rule::Aer1TlCloseType])
            .derived_from(EXAMPLE_5, &format!("entry 2 close set to {what}"))
            .push();
    }

    let mut chain = values(5);
    if let Some(o) = chain[4].as_object_mut() {
        o.remove("close");
    }
    f.vector("close-absent-on-last-entry")
        .revisions(FROM_07)
        .describe(
            "The last entry has no close member. The last entry must carry close: true (an absent \
             close counts as false), so the close-last rule breaks; nothing links to the last \
             entry.",
        )
        .timeline_values(&chain)
        .invalid(&[Rule::Aer1TlCloseLast])
        .derived_from(EXAMPLE_5, "close removed from the last entry")
        .push();

    let mut chain = values(5);
    chain[4]["close"] = json!(false);
    f.vector("close-false-on-last-entry")
        .revisions(FROM_07)
        .describe(
            "The last entry carries close: false. The last entry must carry close: true, so the \
             close-last rule breaks; nothing links to the last entry.",
        )
        .timeline_values(&chain)
        .invalid(&[Rule::Aer1TlCloseLast])
        .derived_from(EXAMPLE_5, "last entry's close set to false")
        .push();

    let mut chain = values(5);
    chain[4]["close"] = json!("true");
    f.vector("close-string-true-on-last-entry")
        .revisions(FROM_07)
        .describe(
            "The last entry carries close: \"true\", a string. close must be a boolean (close type \
             rule), and a string is not close: true, so the last entry is not closed either \
             (close-last rule). Both break.",
        )
        .timeline_values(&chain)
        .invalid(&[Rule::Aer1TlCloseType, Rule::Aer1TlCloseLast])
        .derived_from(EXAMPLE_5, "last entry's close set to the string \"true\"")
        .push();
}

fn members(f: &mut Family<'_>) {
    // On the last entry, which no link depends on: only the members rule is involved.
    for member in STRING_MEMBERS {
        let mut chain = values(5);
        if let Some(o) = chain[4].as_object_mut() {
            o.remove(member);
        }
        f.vector(&format!("member-missing-{}", member.replace('_', "-")))
            .revisions(FROM_07)
            .describe(&format!(
                "The last entry has no {member}. Every entry must carry canonical_bytes, \
                 prev_digest, job_id, id, tool and provenance_class as non-empty strings. It is the \
                 last entry, so no link depends on it: only the members rule breaks (the rules that \
                 read {member} cannot judge a missing value)."
            ))
            .timeline_values(&chain)
            .invalid(&[Rule::Aer1TlMembers])
            .derived_from(EXAMPLE_5, &format!("{member} removed from the last entry"))
            .push();
    }

    let mistyped: [(&str, &str, Value, &str); 6] = [
        ("member-tool-is-number", "tool", json!(7), "the number 7"),
        ("member-job-id-is-null", "job_id", Value::Null, "null"),
        (
            "member-prev-digest-is-null",
            "prev_digest",
            Value::Null,
            "null",
        ),
        (
            "member-id-is-empty-string",
            "id",
            json!(""),
            "the empty string",
        ),
        (
            "member-provenance-class-is-empty-string",
            "provenance_class",
            json!(""),
            "the empty string",
        ),
        (
            "member-tool-is-receipt-tool-object",
            "tool",
            json!({"name": "price_lookup", "version": "1.0", "scope": "read"}),
            "an object shaped like a receipt's tool (name, version, scope)",
        ),
    ];
    for (name, member, value, what) in mistyped {
        let mut chain = values(5);
        chain[4][member] = value;
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "The last entry's {member} is {what}. In a timeline entry {member} must be a \
                 non-empty string (an entry's tool is the tool's name, not the receipt's tool \
                 object). No link depends on the last entry: only the members rule breaks."
            ))
            .timeline_values(&chain)
            .invalid(&[Rule::Aer1TlMembers])
            .derived_from(EXAMPLE_5, &format!("last entry's {member} set to {what}"))
            .push();
    }

    let base = values(5);
    let entry_text = base[2].to_string();
    let not_objects: [(&str, Value, &str); 3] = [
        (
            "entry-is-array",
            json!([base[2].clone()]),
            "an array holding the entry object",
        ),
        (
            "entry-is-string",
            json!(entry_text),
            "a string holding the entry's JSON text (encoded twice)",
        ),
        ("entry-is-null", Value::Null, "null"),
    ];
    for (name, value, what) in not_objects {
        let mut chain = base.clone();
        chain[2] = value;
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry 2 of 5 is {what}, not an object. Every entry must be a JSON object. Entry 2 \
                 cannot be digested, so entry 3's link cannot be judged and is not reported (one \
                 broken entry, one failure); the other entries are fine."
            ))
            .timeline_values(&chain)
            .invalid(&[Rule::Aer1TlEntryObject])
            .derived_from(EXAMPLE_5, &format!("entry 2 replaced by {what}"))
            .push();
    }
}

fn top_level(f: &mut Family<'_>) {
    let chain_text = values_json(&values(5));
    let wrapped = format!("{{\"timeline\":{chain_text}}}\n");
    let as_string = format!("{}\n", quoted(&chain_text));
    let cases: [(&str, &str, &str, bool); 5] = [
        (
            "top-level-object",
            wrapped.as_str(),
            "a JSON object whose member \"timeline\" holds the valid five-entry chain",
            true,
        ),
        (
            "top-level-string",
            as_string.as_str(),
            "a JSON string holding the text of the valid five-entry chain (encoded twice)",
            true,
        ),
        ("top-level-number", "5\n", "the JSON number 5", false),
        ("empty-array", "[]", "an empty array", false),
        (
            "empty-array-with-whitespace",
            "[ \n\t]\n",
            "an empty array with whitespace inside and after it",
            false,
        ),
    ];
    for (name, text, what, derived) in cases {
        let b = f
            .vector(name)
            .revisions(AER1_ALL)
            .describe(&format!(
                "The document is {what}. A timeline must be a non-empty JSON array; the document is \
                 well-formed JSON, so only the array rule breaks. No entry is checked, so the \
                 result is the same under every construction."
            ))
            .timeline_text(text)
            .invalid(&[Rule::Aer1TlArray]);
        let b = if derived {
            b.derived_from(EXAMPLE_5, &format!("the chain wrapped as {what}"))
        } else {
            b
        };
        b.push();
    }
}

fn links(f: &mut Family<'_>) {
    let wrong = "ab".repeat(32);
    let mut stale = example(5);
    stale[2].prev_digest = wrong.clone();
    let mut relinked = stale.clone();
    relink_from(&mut relinked, 3);
    f.vector("link-wrong-prev-digest")
        .revisions(FROM_07)
        .describe(
            "Entry 2's prev_digest is 64 hex digits that are not the digest of entry 1; later \
             links are unchanged. Entry 2's link breaks, and since prev_digest is bound into entry \
             2's digest, entry 3's stored link breaks too: only the link rule is involved.",
        )
        .timeline(&stale)
        .invalid(&[Rule::Aer1TlLink])
        .derived_from(
            EXAMPLE_5,
            "entry 2 prev_digest set to \"ab\" x 32; links kept",
        )
        .push();
    f.vector("link-wrong-prev-digest-suffix-relinked")
        .revisions(FROM_07)
        .describe(
            "Entry 2's prev_digest is 64 hex digits that are not the digest of entry 1, and entries \
             3-4 are re-linked after it. Only entry 2's link breaks.",
        )
        .timeline(&relinked)
        .invalid(&[Rule::Aer1TlLink])
        .derived_from(
            EXAMPLE_5,
            "entry 2 prev_digest set to \"ab\" x 32; entries 3-4 re-linked",
        )
        .push();

    let cases = [
        (
            "link-prev-digest-uppercase",
            "the digest of entry 1 in uppercase hex",
            "Digests are compared as lowercase hex strings, so the uppercase form does not match",
        ),
        (
            "link-prev-digest-sha256-prefix",
            "\"sha256:\" followed by the digest of entry 1",
            "prev_digest is the bare lowercase hex digest; a prefixed value does not match",
        ),
    ];
    for (name, what, why) in cases {
        let mut chain = example(5);
        let d1 = digest_09(&chain[1]);
        chain[2].prev_digest = if name.ends_with("uppercase") {
            d1.to_uppercase()
        } else {
            format!("sha256:{d1}")
        };
        relink_from(&mut chain, 3);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry 2's prev_digest is {what}. {why}. Entries 3-4 are re-linked after the change, \
                 so only entry 2's link breaks."
            ))
            .timeline(&chain)
            .invalid(&[Rule::Aer1TlLink])
            .derived_from(
                EXAMPLE_5,
                &format!("entry 2 prev_digest written as {what}; entries 3-4 re-linked"),
            )
            .push();
    }
}

fn base64_forms(f: &mut Family<'_>) {
    let base = values(5);
    let padded = base[4]["canonical_bytes"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(padded.ends_with('=') && !padded.ends_with("=="));

    // Bytes whose standard encoding uses both '+' and '/', for the URL-safe case.
    let symbols = b"{\"job\":\"job-7a1f\",\"entry\":4,\"tag\":\"r\",\"q\":\"~~~???\"}";
    let standard = encode_base64(symbols);
    assert!(standard.contains('+') && standard.contains('/'));
    let url_safe = standard.replace('+', "-").replace('/', "_");

    let cases: [(&str, String, &str); 4] = [
        (
            "b64-unpadded-on-last-entry",
            padded.trim_end_matches('=').to_string(),
            "without its '=' padding",
        ),
        (
            "b64-url-safe-alphabet-on-last-entry",
            url_safe,
            "in the URL-safe alphabet ('-' and '_' for '+' and '/')",
        ),
        (
            "b64-embedded-newline-on-last-entry",
            format!("{}\n{}", &padded[..8], &padded[8..]),
            "with a line feed after the eighth character",
        ),
        (
            "b64-leading-space-on-last-entry",
            format!(" {padded}"),
            "with a leading space",
        ),
    ];
    for (name, value, what) in cases {
        let mut chain = base.clone();
        chain[4]["canonical_bytes"] = json!(value);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "The last entry's canonical_bytes is base64 {what}. canonical_bytes must be padded \
                 standard base64 with no whitespace; bad base64 fails the chain and is never \
                 repaired. It is the last entry, so no link depends on its digest: only the base64 \
                 rule breaks."
            ))
            .timeline_values(&chain)
            .invalid(&[Rule::Aer1TlB64])
            .derived_from(
                EXAMPLE_5,
                &format!("last entry's canonical_bytes written {what}"),
            )
            .push();
    }

    // Non-zero trailing bits: the character before the single '=' carries two unused bits.
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bytes = padded.clone().into_bytes();
    let at = bytes.len() - 2;
    let index = ALPHABET.iter().position(|&c| c == bytes[at]).unwrap_or(0);
    assert_eq!(
        index & 0b11,
        0,
        "the producer's encoding has zero trailing bits"
    );
    bytes[at] = ALPHABET[index | 0b01];
    let flipped = String::from_utf8(bytes).unwrap_or_default();
    let mut chain = base.clone();
    chain[4]["canonical_bytes"] = json!(flipped);
    f.vector("b64-non-zero-trailing-bits-on-last-entry")
        .revisions(FROM_07)
        .describe(
            "The last entry's canonical_bytes has non-zero unused bits in its final character \
             (\"...In1=\" for \"...In0=\"). It decodes to the same bytes under a lenient decoder, \
             but it is not the canonical encoding; RFC 4648 section 3.5 lets a decoder reject it. \
             Python's base64.b64decode, which the kit uses, accepts it, so either verdict \
             conforms; a rejection cites the base64 rule. Nothing links to the last entry.",
        )
        .timeline_values(&chain)
        .acceptable(&[Rule::Aer1TlB64], &[Flag::KitAccepts])
        .derived_from(
            EXAMPLE_5,
            "a trailing bit set in the last entry's canonical_bytes",
        )
        .push();
}

fn interpretations(f: &mut Family<'_>) {
    let mut chain = example(5);
    chain[2].canonical_bytes =
        encode_base64(b"{\"job\":\"job-7a1f\",\"entry\":2,\"tag\":\"\xff\xfe\"}");
    relink(&mut chain, Revision::R09);
    f.vector("bytes-not-utf8-relinked")
        .revisions(FROM_07)
        .describe(
            "Entry 2's canonical_bytes is valid base64 of bytes that are not UTF-8 (0xFF 0xFE inside \
             a JSON string), and the chain is re-linked over them. The suite reads the receipt's \
             strict UTF-8 requirement as applying to entries (a SHOULD, an interpretation); the kit \
             does not check it, so either verdict conforms and a rejection cites the entry UTF-8 \
             rule.",
        )
        .timeline(&chain)
        .acceptable(&[Rule::Aer1TlUtf8], SHOULD_KIT_ACCEPTS)
        .derived_from(
            EXAMPLE_5,
            "entry 2 bytes replaced by non-UTF-8 bytes; chain re-linked",
        )
        .push();

    let base = values(5);
    let mut wrong = base.clone();
    wrong[2]["output_hash"] = json!(stored_output_hash(&base[1]));
    f.vector("output-hash-stored-mismatch")
        .revisions(FROM_07)
        .describe(
            "Entry 2 carries an output_hash member holding the hash of entry 1's bytes, not of its \
             own. The digest always recomputes the hash from the bytes, so the chain itself holds; \
             the suite's interpretation (a SHOULD) is that a stored output_hash must match the \
             bytes. The kit never reads it, so either verdict conforms; a rejection cites the \
             output hash rule.",
        )
        .timeline_values(&wrong)
        .acceptable(&[Rule::Aer1TlOutputHash], SHOULD_KIT_ACCEPTS)
        .derived_from(EXAMPLE_5, "entry 2 given output_hash = sha256 of entry 1's bytes")
        .push();

    let mut matching = base.clone();
    for e in &mut matching {
        let h = stored_output_hash(e);
        e["output_hash"] = json!(h);
    }
    f.vector("output-hash-stored-matches")
        .revisions(FROM_07)
        .describe(
            "Every entry carries an output_hash member equal to \"sha256:\" plus the hex SHA-256 of \
             its decoded bytes. The stored value agrees with the bytes and is not part of the \
             preimage, so the chain verifies.",
        )
        .timeline_values(&matching)
        .exercises(&[Rule::Aer1TlOutputHash, Rule::Aer1TlLink])
        .valid()
        .derived_from(EXAMPLE_5, "every entry given its correct output_hash")
        .push();

    for (name, class, what) in [
        (
            "provenance-trailing-newline-relinked",
            "LOGGED BY AGENT\n",
            "\"LOGGED BY AGENT\\n\" (a trailing line feed)",
        ),
        (
            "provenance-lowercase-relinked",
            "logged by agent",
            "\"logged by agent\" (lowercase)",
        ),
    ] {
        let mut chain = example(5);
        chain[2].provenance_class = class.to_string();
        relink(&mut chain, Revision::R09);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry 2's provenance_class is {what}, which is none of the three classes a receipt \
                 may carry (whole-string match). The chain is re-linked over it, so only the \
                 provenance interpretation (a SHOULD) breaks; the kit only requires a non-empty \
                 string, so either verdict conforms and a rejection cites the provenance rule."
            ))
            .timeline(&chain)
            .acceptable(&[Rule::Aer1TlProvenance], SHOULD_KIT_ACCEPTS)
            .derived_from(
                EXAMPLE_5,
                &format!("entry 2 provenance_class set to {what}; chain re-linked"),
            )
            .push();
    }
}

fn commitment_formats(f: &mut Family<'_>) {
    let chain = example(5);
    let last = digest_09(&chain[4]);
    let job = quoted(JOB);
    let digest = quoted(&last);
    let published = quoted(PUBLISHED_AT);

    let cases: Vec<(&str, String, Rule, &str)> = vec![
        (
            "commitment-count-written-5-point-0",
            commitment_raw(&job, &digest, "5.0", &published),
            Rule::Aer1CmCountFormat,
            "entry_count is written 5.0. It must be a JSON integer: unlike seq, an integral value \
             written with a fraction is rejected",
        ),
        (
            "commitment-count-as-string",
            commitment_raw(&job, &digest, "\"5\"", &published),
            Rule::Aer1CmCountFormat,
            "entry_count is the string \"5\"; it must be a JSON integer",
        ),
        (
            "commitment-published-at-february-30",
            commitment_raw(&job, &digest, "5", &quoted("2026-02-30T18:30:00Z")),
            Rule::Aer1CmPublishedAt,
            "published_at is 2026-02-30T18:30:00Z, RFC 3339 in shape but not a calendar date",
        ),
        (
            "commitment-published-at-lowercase-t",
            commitment_raw(&job, &digest, "5", &quoted("2026-10-01t18:30:00Z")),
            Rule::Aer1CmPublishedAt,
            "published_at separates date and time with a lowercase 't'; the suite requires the \
             uppercase 'T'",
        ),
        (
            "commitment-digest-uppercase",
            commitment_raw(&job, &quoted(&last.to_uppercase()), "5", &published),
            Rule::Aer1CmDigestFormat,
            "final_entry_digest is the right digest in uppercase hex; it must be 64 lowercase hex \
             digits",
        ),
        (
            "commitment-digest-sha256-prefix",
            commitment_raw(&job, &quoted(&format!("sha256:{last}")), "5", &published),
            Rule::Aer1CmDigestFormat,
            "final_entry_digest is the right digest with a \"sha256:\" prefix; it must be the bare \
             64 hex digits",
        ),
        (
            "commitment-digest-63-digits",
            commitment_raw(&job, &quoted(&last[..63]), "5", &published),
            Rule::Aer1CmDigestFormat,
            "final_entry_digest is the right digest without its last hex digit: 63 digits, not 64",
        ),
        (
            "commitment-job-id-empty",
            commitment_raw("\"\"", &digest, "5", &published),
            Rule::Aer1CmJobFormat,
            "job_id is the empty string; it must be a non-empty string",
        ),
        (
            "commitment-job-id-number",
            commitment_raw("7", &digest, "5", &published),
            Rule::Aer1CmJobFormat,
            "job_id is the number 7; it must be a non-empty string",
        ),
        (
            "commitment-missing-published-at",
            format!("{{\"job_id\":{job},\"final_entry_digest\":{digest},\"entry_count\":5}}"),
            Rule::Aer1CmMembers,
            "the commitment has no published_at member; all four members are required",
        ),
        (
            "commitment-not-an-object",
            format!("[{}]", commitment_raw(&job, &digest, "5", &published)),
            Rule::Aer1CmMembers,
            "the commitment document is an array holding the right commitment object; a \
             commitment must be a JSON object",
        ),
    ];
    for (name, text, rule, what) in cases {
        f.vector(name)
            .revisions(FROM_09)
            .describe(&format!(
                "The five-entry example chain (valid) with a malformed commitment: {what}. A \
                 malformed commitment is reported and not used, so the count, job and final-digest \
                 comparisons are not made: only this format rule breaks."
            ))
            .timeline(&chain)
            .commitment(&text)
            .invalid(&[rule])
            .derived_from(EXAMPLE_5_COMMITMENT, &format!("commitment changed: {what}"))
            .push();
    }

    f.vector("commitment-from-another-job")
        .revisions(FROM_09)
        .describe(
            "The five-entry example chain (valid) with a well-formed commitment whose entry_count \
             (5) and final_entry_digest match this chain but whose job_id is \"job-7a1g\". Every \
             entry's job_id must equal the commitment's, so the commitment job rule breaks; count \
             and final digest match.",
        )
        .timeline(&chain)
        .commitment(&commitment_raw(
            &quoted("job-7a1g"),
            &digest,
            "5",
            &published,
        ))
        .invalid(&[Rule::Aer1CmJob])
        .derived_from(
            EXAMPLE_5_COMMITMENT,
            "commitment job_id set to \"job-7a1g\"",
        )
        .push();
}
