//! `aer1/emit-receipt/*`: receipt producers under test. Each vector is a payload (the exact bytes
//! a tool returned) and a `META` document (every member that is the producer's own knowledge);
//! the implementation writes the receipt (`IMPL aer1-emit-receipt PAYLOAD META`), and the harness
//! compares it with what the draft makes of them (AER-1 sections 3-6; the project's fact sheet,
//! section 1): `canonical_bytes` the payload byte for byte, `output_hash` its SHA-256, every other
//! member META's.
//!
//! Families: `bytes` (payloads that any parse-and-re-serialise writes back differently: key order,
//! whitespace, number forms, escapes, raw non-ASCII, repeated keys, text that is not JSON, and
//! the kit's worked value), `meta` (members copied as given, whatever their spelling) and
//! `refuse` (payloads that are not UTF-8: no conforming receipt can carry them, so the producer
//! must exit 1).
//!
//! AER-1 (draft-zambo-aer1) is an individual Internet-Draft, not an RFC.

use agentconf_contract::emit::{ReceiptMeta, ReceiptTool};
use agentconf_contract::vector::{Suite, Vector};
use agentconf_rules::Rule;

use crate::builder::{Family, Span, VectorBuilder, FROM_09};

/// Receipts take no revision argument; the rules are those of revisions 06 to 09 alike.
const REVISIONS: Span = FROM_09;

/// The kit's worked receipt payload (the fact sheet, section 1): its `output_hash` is published.
pub const PUBLISHED_PAYLOAD: &[u8] = br#"{"inputs":{},"outputs":{"x":123},"tool":"t"}"#;

pub fn generate(out: &mut Vec<Vector>) {
    bytes(&mut Family::new(out, Suite::Aer1EmitReceipt, "bytes"));
    meta(&mut Family::new(out, Suite::Aer1EmitReceipt, "meta"));
    refuse(&mut Family::new(out, Suite::Aer1EmitReceipt, "refuse"));
}

fn meta_of(id: &str, created_at: &str, tool: (&str, &str, &str), provenance: &str) -> ReceiptMeta {
    ReceiptMeta {
        id: id.into(),
        receipt_schema_version: "0.3".into(),
        created_at: created_at.into(),
        tool: ReceiptTool {
            name: tool.0.into(),
            version: tool.1.into(),
            scope: tool.2.into(),
        },
        provenance_class: provenance.into(),
    }
}

fn plain_meta() -> ReceiptMeta {
    meta_of(
        "0b4e5f2a-6c1d-4e8f-9a3b-2c7d1e0f5a6b",
        "2026-10-01T18:30:00Z",
        ("price_lookup", "1.4.2", "read"),
        "EXECUTED BY ZAMBO",
    )
}

/// A receipt producer's vector: its payload and META, before its expectation.
fn receipt_vector<'f>(
    f: &'f mut Family<'_>,
    name: &str,
    describe: &str,
    payload: &[u8],
    meta: &ReceiptMeta,
) -> VectorBuilder<'f> {
    f.vector(name)
        .revisions(REVISIONS)
        .describe(describe)
        .input("payload", "payload.bin", payload)
        .input("meta", "meta.json", &meta_json(meta))
}

fn meta_json(m: &ReceiptMeta) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(m).unwrap_or_default();
    text.push('\n');
    text.into_bytes()
}

/// The rules every receipt a producer writes is graded on: the payload's bytes and hash, and
/// every member META gives (a family differs only in what its inputs make hard).
const GRADED_RULES: &[Rule] = &[
    Rule::Aer1RcBytesKept,
    Rule::Aer1RcB64,
    Rule::Aer1RcHashFormat,
    Rule::Aer1RcHashMatch,
    Rule::Aer1RcMembers,
    Rule::Aer1RcId,
    Rule::Aer1RcSchemaVersion,
    Rule::Aer1RcCreatedAt,
    Rule::Aer1RcTool,
    Rule::Aer1RcProvenance,
    Rule::Aer1RcStatus,
];

fn bytes(f: &mut Family<'_>) {
    let cases: [(&str, &str, &[u8]); 8] = [
        (
            "published-example",
            "The kit's worked payload: canonical_bytes eyJpbnB1dHMi…fQ== and output_hash \
             sha256:65c8ba37…, as published.",
            PUBLISHED_PAYLOAD,
        ),
        (
            "key-order",
            "A JSON payload whose keys are not in sorted order: a producer that parses and \
             re-serialises it (sorted keys, RFC 8785) changes the bytes.",
            br#"{"tool":"t","outputs":{"x":123},"inputs":{}}"#,
        ),
        (
            "whitespace",
            "A pretty-printed payload with a trailing line break: every space and line break is \
             part of the bytes.",
            b"{\n  \"inputs\": {},\n  \"outputs\": {\n    \"x\": 123\n  }\n}\n",
        ),
        (
            "number-forms",
            "Numbers as a serialiser would not write them back: 1.0, 1e2, -0 and an integer past \
             2^64.",
            br#"{"a":1.0,"b":1e2,"c":-0,"d":123456789012345678901234567890}"#,
        ),
        (
            "escaped-unicode",
            "JSON escapes a serialiser would rewrite: \\u00e9, a surrogate pair and an escaped \
             solidus.",
            br#"{"s":"caf\u00e9 \ud83d\ude00 \/"}"#,
        ),
        (
            "raw-non-ascii",
            "Raw UTF-8 (é, an emoji, U+2028) that an ASCII-escaping serialiser would rewrite.",
            "{\"s\":\"caf\u{e9} \u{1f600} \u{2028}\"}".as_bytes(),
        ),
        (
            "repeated-key",
            "A key given twice: a parser keeps one of them, the bytes keep both.",
            br#"{"a":1,"a":2}"#,
        ),
        (
            "not-json",
            "Text that is not JSON at all: a receipt carries any UTF-8 bytes.",
            b"price: 123 USD\r\n",
        ),
    ];
    for (name, describe, payload) in cases {
        receipt_vector(f, name, describe, payload, &plain_meta())
            .valid()
            .exercises(GRADED_RULES)
            .push();
    }
}

fn meta(f: &mut Family<'_>) {
    let cases: [(&str, &str, ReceiptMeta); 3] = [
        (
            "system-name-and-offset",
            "A provenance class naming a system with spaces, dots and dashes, a tool name with \
             non-ASCII characters, and an instant with a fraction and an offset: every member is \
             written exactly as META gives it.",
            meta_of(
                "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
                "2026-10-01T20:30:00.250+02:00",
                ("prix-\u{20ac}", "2.0.0-rc.1", "read write"),
                "EXECUTED BY ACME-7 RUNNER.EU",
            ),
        ),
        (
            "observed-via-gateway",
            "An observation through a gateway: the class is copied, never upgraded or \
             downgraded.",
            meta_of(
                "1a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d",
                "2026-02-28T23:59:59Z",
                ("gateway", "1", "observe"),
                "OBSERVED VIA GATEWAY",
            ),
        ),
        (
            "logged-by-agent",
            "An agent's own log: the class is copied as given (verification never turns a log \
             into an observation).",
            meta_of(
                "00000000-0000-4000-8000-000000000000",
                "2024-02-29T12:00:00.123456789Z",
                ("agent-notes", "0.1", "self"),
                "LOGGED BY AGENT",
            ),
        ),
    ];
    for (name, describe, m) in cases {
        receipt_vector(f, name, describe, PUBLISHED_PAYLOAD, &m)
            .valid()
            .exercises(GRADED_RULES)
            .push();
    }
}

fn refuse(f: &mut Family<'_>) {
    let cases: [(&str, &str, &[u8]); 2] = [
        (
            "latin-1",
            "A payload in Latin-1 (caf\\xe9): not UTF-8, so no conforming receipt can carry it; \
             the producer must refuse (exit 1), and writing one is a false acceptance.",
            b"{\"s\":\"caf\xe9\"}",
        ),
        (
            "encoded-surrogate",
            "A payload with a UTF-16 surrogate encoded as three bytes (\\xed\\xa0\\x80, as CESU-8 \
             writes it): not strict UTF-8; the producer must refuse (exit 1).",
            b"{\"s\":\"\xed\xa0\x80\"}",
        ),
    ];
    for (name, describe, payload) in cases {
        receipt_vector(f, name, describe, payload, &plain_meta())
            .invalid(&[Rule::Aer1RcUtf8])
            .push();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kit's worked value: the published payload's hash, as published.
    #[test]
    fn the_published_payload_has_the_published_hash() {
        assert_eq!(
            agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(PUBLISHED_PAYLOAD)),
            "65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50"
        );
        assert_eq!(
            agentconf_aer1::formats::encode_base64(PUBLISHED_PAYLOAD),
            "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0="
        );
    }
}
