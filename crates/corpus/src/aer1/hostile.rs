//! `aer1/timeline/hostile/*`: input hygiene and resource limits. Ambiguous or hostile JSON
//! (duplicate names, lone surrogates, numbers past every machine type, deep nesting, bytes that are
//! not UTF-8, broken array structure, large strings) must be judged by a named rule, never crash a
//! verifier, and never be silently read in a way another verifier would not.
//!
//! Files stay small enough to commit (the largest is about 260 KiB).

use agentconf_aer1::digest::Revision;
use agentconf_aer1::producer::{build_timeline, CloseStyle, Entry};
use agentconf_rules::Rule;
use base64::Engine as _;
use sha2::{Digest as _, Sha256};

use super::common::{example, JOB};
use super::structure::{relink_from, replace_in_entry};
use crate::builder::{to_values, values_json, Family, AER1_ALL, FROM_07};
use agentconf_contract::vector::{Flag, Suite, Vector};

const EXAMPLE_1: &str = "aer1/timeline/valid/example-1";
const EXAMPLE_2: &str = "aer1/timeline/valid/example-2";
const EXAMPLE_5: &str = "aer1/timeline/valid/example-5";

/// Flags of a SHOULD-level input-hygiene interpretation that a Python-based verifier (the kit's
/// reader) does not enforce.
const SHOULD_KIT_ACCEPTS: &[Flag] = &[Flag::ShouldLevel, Flag::Interpretation, Flag::KitAccepts];

/// 2^64 + 3: past every 64-bit integer type; wraps to 3 modulo 2^64.
const SEQ_PAST_64_BITS: &str = "18446744073709551619";

/// The five-entry example as text, one entry per line.
fn example_text() -> String {
    values_json(&to_values(&example(5)))
}

/// Hex of SHA-256, computed here rather than by the reference.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The revision-09 digest of `entry` with `seq` written as the given decimal digits, built from
/// the draft's preimage layout (for entries whose strings are printable ASCII without escapes).
fn digest_with_seq_text(entry: &Entry, seq: &str) -> String {
    for s in [
        &entry.id,
        &entry.job_id,
        &entry.prev_digest,
        &entry.provenance_class,
        &entry.tool,
    ] {
        assert!(
            s.bytes()
                .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'),
            "only plain ASCII strings are written without escaping"
        );
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&entry.canonical_bytes)
        .unwrap_or_default();
    let preimage = format!(
        "{{\"close\":{},\"id\":\"{}\",\"job_id\":\"{}\",\"output_hash\":\"{}\",\"prev_digest\":\"{}\",\"provenance_class\":\"{}\",\"seq\":{},\"tool\":\"{}\"}}",
        entry.close.unwrap_or(false),
        entry.id,
        entry.job_id,
        sha256_hex(&bytes),
        entry.prev_digest,
        entry.provenance_class,
        seq,
        entry.tool,
    );
    sha256_hex(preimage.as_bytes())
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "hostile");
    duplicates(&mut f);
    surrogates(&mut f);
    numbers(&mut f);
    nesting(&mut f);
    encoding(&mut f);
    framing(&mut f);
    large_strings(&mut f);
}

fn duplicates(f: &mut Family<'_>) {
    let text = example_text();
    let cases = [
        (
            "duplicate-seq-same-value",
            1,
            "\"seq\":2,",
            "\"seq\":2,\"seq\":2,",
            "Entry 1 carries \"seq\":2 twice",
            "Both values are the same, so a parser keeping either one reads a valid chain",
        ),
        (
            "duplicate-job-id-same-value",
            2,
            "\"job_id\":\"job-7a1f\",",
            "\"job_id\":\"job-7a1f\",\"job_id\":\"job-7a1f\",",
            "Entry 2 carries \"job_id\":\"job-7a1f\" twice",
            "Both values are the same, so a parser keeping either one reads a valid chain",
        ),
        (
            "duplicate-job-id-first-value-differs",
            2,
            "\"job_id\":\"job-7a1f\",",
            "\"job_id\":\"job-evil\",\"job_id\":\"job-7a1f\",",
            "Entry 2 carries job_id twice, first \"job-evil\", then \"job-7a1f\"",
            "A parser keeping the last value (Python, the kit) reads a valid chain; one keeping \
             the first reads a mixed job and a broken link: two verifiers see two different chains",
        ),
        (
            "duplicate-close-on-last-entry",
            4,
            "\"close\":true,",
            "\"close\":false,\"close\":true,",
            "The last entry carries close twice, first false, then true",
            "A parser keeping the last value reads a closed chain; one keeping the first reads an \
             unclosed one",
        ),
        (
            "duplicate-name-nested-in-extra-member",
            2,
            "\"seq\":3,",
            "\"seq\":3,\"x_note\":{\"a\":[{\"b\":1,\"b\":2}]},",
            "Entry 2 has an extra member x_note whose nested object carries \"b\" twice",
            "The extra member is not bound into the digest, so the chain is valid whichever value \
             a parser keeps, but the document is still ambiguous JSON",
        ),
    ];
    for (name, entry, from, to, what, why) in cases {
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "{what}. {why}. Duplicate member names make a document ambiguous, and the suite \
                 asks verifiers to reject them (I-JSON, RFC 7493 section 2.3; a SHOULD, an \
                 interpretation). Python keeps the last value silently, so a kit-based verifier \
                 accepts: either verdict conforms, and a rejection cites the duplicate rule only."
            ))
            .timeline_text(&replace_in_entry(&text, entry, from, to))
            .acceptable(&[Rule::Aer1JsonDuplicate], SHOULD_KIT_ACCEPTS)
            .derived_from(EXAMPLE_5, &format!("{what} (text edit)"))
            .push();
    }
}

fn surrogates(f: &mut Family<'_>) {
    let text = example_text();
    let cases = [
        (
            "lone-high-surrogate-in-tool",
            "\"tool\":\"price_lookup\"",
            "\"tool\":\"price\\ud800lookup\"",
            "the last entry's tool contains the escape \\ud800, a high surrogate with no low \
             surrogate after it",
        ),
        (
            "lone-low-surrogate-in-id",
            "\"id\":\"r-job-7a1f-4\"",
            "\"id\":\"r-job-7a1f-4\\udc00\"",
            "the last entry's id ends with the escape \\udc00, a low surrogate with no high \
             surrogate before it",
        ),
        (
            "lone-surrogate-in-member-name",
            "\"seq\":5,",
            "\"seq\":5,\"x\\ud800\":1,",
            "the last entry has an extra member whose NAME contains the escape \\ud800",
        ),
    ];
    for (name, from, to, what) in cases {
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "In a valid chain, {what}. A lone surrogate names no character and has no UTF-8 \
                 form; the suite asks verifiers to reject it (RFC 7493 section 2.1; a SHOULD, an \
                 interpretation). Python keeps it in the string, and since the last entry is bound \
                 by no link a kit-based verifier accepts: either verdict conforms, and a rejection \
                 cites the surrogate rule only."
            ))
            .timeline_text(&replace_in_entry(&text, 4, from, to))
            .acceptable(&[Rule::Aer1JsonSurrogate], SHOULD_KIT_ACCEPTS)
            .derived_from(EXAMPLE_5, &format!("{what} (text edit)"))
            .push();
    }
}

fn numbers(f: &mut Family<'_>) {
    // seq = 2^64 + 3 on entry 2 (which should carry 3). Re-linked with the digest over the exact
    // digits, so a correct verifier finds only the sequence break.
    let mut chain = example(5);
    chain[3].prev_digest = digest_with_seq_text(&chain[2], SEQ_PAST_64_BITS);
    relink_from(&mut chain, 4);
    let relinked = replace_in_entry(
        &values_json(&to_values(&chain)),
        2,
        "\"seq\":3,",
        &format!("\"seq\":{SEQ_PAST_64_BITS},"),
    );
    f.vector("seq-past-64-bits-relinked")
        .revisions(FROM_07)
        .describe(
            "Entry 2's seq is 18446744073709551619 (2^64 + 3) instead of 3, and entry 3 is re-linked \
             over the digest with seq written digit for digit. It is an integer, so the seq type \
             rule holds, but it is not 3: only the sequence rule breaks. A verifier must not crash, \
             round it to a double, or wrap it modulo 2^64 (which gives 3).",
        )
        .timeline_text(&relinked)
        .invalid(&[Rule::Aer1TlSeq])
        .derived_from(EXAMPLE_5, "entry 2 seq written as 2^64 + 3; entries 3-4 re-linked")
        .push();

    let stale = replace_in_entry(
        &example_text(),
        2,
        "\"seq\":3,",
        &format!("\"seq\":{SEQ_PAST_64_BITS},"),
    );
    f.vector("seq-past-64-bits")
        .revisions(FROM_07)
        .describe(
            "Entry 2's seq is 18446744073709551619 (2^64 + 3) instead of 3; links are unchanged. \
             Read exactly, the seq breaks the sequence and, being bound into the digest, breaks \
             entry 3's link (made over 3). A verifier that wraps 64-bit integers reads 3 and \
             accepts the chain: a false accept.",
        )
        .timeline_text(&stale)
        .invalid(&[Rule::Aer1TlSeq, Rule::Aer1TlLink])
        .derived_from(EXAMPLE_5, "entry 2 seq written as 2^64 + 3 (text edit)")
        .push();

    f.vector("seq-1e400-on-last-entry")
        .revisions(FROM_07)
        .describe(
            "The last entry's seq is 1e400, beyond the range of a double (Python reads it as \
             infinity, which is not an integral value). It is not an integer: the seq type rule \
             breaks, not a JSON number rule. No link depends on the last entry.",
        )
        .timeline_text(&replace_in_entry(
            &example_text(),
            4,
            "\"seq\":5,",
            "\"seq\":1e400,",
        ))
        .invalid(&[Rule::Aer1TlSeqType])
        .derived_from(EXAMPLE_5, "last entry's seq written as 1e400 (text edit)")
        .push();

    f.vector("extra-member-1e400")
        .revisions(FROM_07)
        .describe(
            "Entry 1 has an extra member holding 1e400, beyond the range of an IEEE 754 double. \
             Extra members are not bound, so the chain is otherwise valid. The suite asks verifiers \
             to reject numbers outside the double range (RFC 7493 section 2.2; a SHOULD, an \
             interpretation); Python reads it as infinity and a kit-based verifier accepts, so \
             either verdict conforms. A rejection cites the number rule only: the entry cannot be \
             read, so entry 2's link is not judged.",
        )
        .timeline_text(&replace_in_entry(
            &example_text(),
            1,
            "\"seq\":2,",
            "\"seq\":2,\"x_big\":1e400,",
        ))
        .acceptable(&[Rule::Aer1JsonNumber], SHOULD_KIT_ACCEPTS)
        .derived_from(EXAMPLE_5, "extra member x_big = 1e400 added to entry 1 (text edit)")
        .push();

    f.vector("nan-in-extra-member")
        .revisions(FROM_07)
        .describe(
            "Entry 1 has an extra member holding the bare word NaN. NaN is not a JSON value (RFC \
             8259 has no NaN or Infinity), so the document is not JSON and the syntax rule breaks. \
             Python's json module accepts NaN by default and RFC 8259 section 9 lets a parser \
             accept extensions, so either verdict conforms; a rejection cites the syntax rule. \
             Entry 1 cannot be read, so entry 2's link is not judged.",
        )
        .timeline_text(&replace_in_entry(
            &example_text(),
            1,
            "\"seq\":2,",
            "\"seq\":2,\"x_ratio\":NaN,",
        ))
        .acceptable(
            &[Rule::Aer1JsonSyntax],
            &[Flag::ParserLatitude, Flag::KitAccepts],
        )
        .derived_from(
            EXAMPLE_5,
            "extra member x_ratio = NaN added to entry 1 (text edit)",
        )
        .push();
}

fn nesting(f: &mut Family<'_>) {
    let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));

    f.vector("extra-member-nested-200-levels")
        .revisions(FROM_07)
        .describe(
            "Entry 1 has an extra member holding 200 nested arrays. The chain is otherwise valid \
             (extra members are not bound). The suite bounds nesting at 127 levels as a resource \
             limit (a SHOULD, an interpretation; the draft sets none). Python's default limit is \
             about 1000, so a kit-based verifier accepts: either verdict conforms, and a rejection \
             cites the depth rule only (the entry cannot be read, so entry 2's link is not judged).",
        )
        .timeline_text(&replace_in_entry(
            &example_text(),
            1,
            "\"seq\":2,",
            &format!("\"seq\":2,\"x_deep\":{},", nested(200)),
        ))
        .acceptable(&[Rule::Aer1JsonDepth], SHOULD_KIT_ACCEPTS)
        .derived_from(EXAMPLE_5, "extra member x_deep of 200 nested arrays added to entry 1")
        .push();

    f.vector("extra-member-nested-20-levels")
        .revisions(FROM_07)
        .describe(
            "Entry 1 has an extra member holding 20 nested arrays: well within any reasonable \
             nesting limit. Extra members are not bound, so the chain verifies.",
        )
        .timeline_text(&replace_in_entry(
            &example_text(),
            1,
            "\"seq\":2,",
            &format!("\"seq\":2,\"x_deep\":{},", nested(20)),
        ))
        .exercises(&[Rule::Aer1JsonDepth])
        .valid()
        .derived_from(
            EXAMPLE_5,
            "extra member x_deep of 20 nested arrays added to entry 1",
        )
        .push();
}

fn encoding(f: &mut Family<'_>) {
    let text = example_text();
    let cases: [(&str, &[u8], &str); 2] = [
        (
            "non-utf8-byte-in-string",
            b"\xff",
            "the byte 0xFF, which never occurs in UTF-8",
        ),
        (
            "utf8-encoded-surrogate-in-string",
            b"\xed\xa0\x80",
            "the bytes ED A0 80, the UTF-8 pattern of the surrogate U+D800, which UTF-8 forbids",
        ),
    ];
    for (name, bad, what) in cases {
        let marked = replace_in_entry(
            &text,
            1,
            "\"tool\":\"price_lookup\"",
            "\"tool\":\"price@lookup\"",
        );
        let mut bytes = Vec::new();
        let at = marked.find("price@lookup").unwrap_or(0) + "price".len();
        bytes.extend_from_slice(&marked.as_bytes()[..at]);
        bytes.extend_from_slice(bad);
        bytes.extend_from_slice(&marked.as_bytes()[at + 1..]);
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "Entry 1's tool string contains {what}. JSON exchanged between systems must be \
                 UTF-8 (RFC 8259 section 8.1), so the input encoding rule breaks. Entry 1 cannot be \
                 read, so entry 2's link is not judged; the other entries are fine."
            ))
            .timeline_bytes(&bytes)
            .invalid(&[Rule::Aer1JsonUtf8])
            .derived_from(EXAMPLE_5, &format!("{what} put into entry 1's tool (byte edit)"))
            .push();
    }

    // The whole chain saved as UTF-16LE with a byte order mark, as some editors do.
    let mut utf16 = vec![0xff, 0xfe];
    for unit in text.encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    f.vector("utf16le-file")
        .revisions(AER1_ALL)
        .describe(
            "The valid five-entry chain saved as UTF-16LE with its byte order mark (FF FE). JSON \
             exchanged between systems must be UTF-8 (RFC 8259 section 8.1): the input encoding \
             rule breaks before any entry is read, so the result is the same under every \
             construction.",
        )
        .timeline_bytes(&utf16)
        .invalid(&[Rule::Aer1JsonUtf8])
        .derived_from(
            EXAMPLE_5,
            "file re-encoded as UTF-16LE with a byte order mark",
        )
        .push();

    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(text.as_bytes());
    f.vector("utf8-bom-before-array")
        .revisions(FROM_07)
        .describe(
            "The valid five-entry chain preceded by the UTF-8 byte order mark EF BB BF. RFC 8259 \
             section 8.1 forbids adding one but lets a parser ignore it, so a verifier may accept \
             (reading the valid chain) or reject; a rejection cites the syntax rule.",
        )
        .timeline_bytes(&bom)
        .acceptable(&[Rule::Aer1JsonSyntax], &[Flag::ParserLatitude])
        .derived_from(EXAMPLE_5, "UTF-8 byte order mark prepended")
        .push();

    let tab = replace_in_entry(
        &text,
        1,
        "\"tool\":\"price_lookup\"",
        "\"tool\":\"price\tlookup\"",
    );
    f.vector("raw-control-character-in-string")
        .revisions(FROM_07)
        .describe(
            "Entry 1's tool string contains a raw TAB character (U+0009) instead of the escape \\t. \
             JSON forbids unescaped control characters in strings, so the syntax rule breaks; \
             entry 1 cannot be read, so entry 2's link is not judged.",
        )
        .timeline_text(&tab)
        .invalid(&[Rule::Aer1JsonSyntax])
        .derived_from(EXAMPLE_5, "raw TAB put into entry 1's tool (text edit)")
        .push();
}

fn framing(f: &mut Family<'_>) {
    for (name, text, what) in [
        ("empty-file", "", "empty: zero bytes"),
        ("whitespace-only-file", " \n\t\r\n", "only JSON whitespace"),
    ] {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(&format!(
                "The timeline file is {what}. A JSON text must contain a value, so the syntax rule \
                 breaks (an empty array would be the array rule instead). No entry exists, so the \
                 result is the same under every construction."
            ))
            .timeline_text(text)
            .invalid(&[Rule::Aer1JsonSyntax])
            .push();
    }

    let text = example_text();
    let lines: Vec<&str> = text.split('\n').collect();
    // Lines 1-2 are entries 0-1; cut entry 2 in the middle.
    let entry2 = lines[3];
    let truncated = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &entry2[..entry2.len() / 2]
    );
    let cases = [
        (
            "truncated-inside-entry",
            truncated,
            "ends in the middle of entry 2 (entries 0 and 1 are complete)",
            "cut in the middle of entry 2",
        ),
        (
            "trailing-data-after-array",
            format!("{text}x\n"),
            "is followed by the stray character 'x' after the closing bracket",
            "'x' appended after the array",
        ),
        (
            "trailing-comma-after-last-entry",
            text.replacen("}\n]", "},\n]", 1),
            "has a comma after the last entry, before the closing bracket",
            "comma added after the last entry",
        ),
        (
            "missing-comma-between-entries",
            replace_in_entry(&text, 1, "},", "}"),
            "lacks the comma between entries 1 and 2",
            "comma between entries 1 and 2 removed",
        ),
    ];
    for (name, mutated, what, mutation) in cases {
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "The five-entry chain {what}. That is not one well-formed JSON text, so the syntax \
                 rule breaks. The entries after the break cannot be located, so the end-of-chain \
                 rules (close on the last entry) are not judged; the entries before it are valid."
            ))
            .timeline_text(&mutated)
            .invalid(&[Rule::Aer1JsonSyntax])
            .derived_from(EXAMPLE_5, mutation)
            .push();
    }
}

fn large_strings(f: &mut Family<'_>) {
    const SIZE: usize = 256 * 1024;

    let job = "j".repeat(SIZE);
    let chain = build_timeline(
        &job,
        &super::common_specs(1),
        Revision::R09,
        CloseStyle::LastOnly,
    );
    f.vector("job-id-256-kib")
        .revisions(FROM_07)
        .describe(
            "A single closed entry whose job_id is 262,144 'j' characters. Nothing in the draft \
             limits string length; a verifier must read and digest it like any other value. The \
             entry is well-formed and the chain verifies.",
        )
        .timeline(&chain)
        .exercises(&[Rule::Aer1TlJob, Rule::Aer1TlMembers])
        .valid()
        .derived_from(EXAMPLE_1, "job_id replaced by 256 KiB of 'j'")
        .push();

    let mut specs = super::common_specs(2);
    specs[0].tool = "t".repeat(SIZE);
    let chain = build_timeline(JOB, &specs, Revision::R09, CloseStyle::LastOnly);
    f.vector("tool-256-kib-linked")
        .revisions(FROM_07)
        .describe(
            "A two-entry chain whose first entry's tool is 262,144 't' characters. tool is bound \
             into entry 0's digest, and entry 1's prev_digest is that digest, so a verifier must \
             digest the long string exactly to verify the link. The chain verifies.",
        )
        .timeline(&chain)
        .exercises(&[Rule::Aer1TlLink, Rule::Aer1TlMembers])
        .valid()
        .derived_from(
            EXAMPLE_2,
            "entry 0 tool replaced by 256 KiB of 't'; chain re-linked",
        )
        .push();
}
