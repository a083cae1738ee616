//! Each single-receipt rule (AER1-RC-*), broken on its own, is reported on that rule and member —
//! and nothing else is reported. Receipts start from the kit's worked value (spec AER1.md §1) and
//! are mutated as JSON values; cases that need exact source text (duplicate names) edit the text.

use agentconf_aer1::digest::sha256;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::hex;
use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::report::ReceiptReport;
use agentconf_aer1::Verdict;
use serde_json::{json, Value};

/// The kit's worked value: base64 of `{"inputs":{},"outputs":{"x":123},"tool":"t"}`.
const WORKED_B64: &str = "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=";
/// Its published output hash.
const WORKED_HASH: &str = "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50";
/// A lowercase UUID version 4 with the RFC 4122 variant: valid under both id tiers.
const V4_ID: &str = "e80168eb-a6a1-4ec9-8478-ac108f9397ff";

fn valid() -> Value {
    json!({
        "id": V4_ID,
        "receipt_schema_version": "0.3",
        "created_at": "2026-10-01T18:30:00Z",
        "tool": {"name": "price_lookup", "version": "1.2.0", "scope": "read"},
        "provenance_class": "EXECUTED BY ZAMBO",
        "canonical_bytes": WORKED_B64,
        "output_hash": WORKED_HASH,
        "verification_status": "verified",
    })
}

/// A valid receipt over other bytes (hash computed here, independently of the verifier's path).
fn valid_over(bytes: &[u8]) -> Value {
    let mut r = valid();
    r["canonical_bytes"] = json!(encode_base64(bytes));
    r["output_hash"] = json!(format!("sha256:{}", hex::lower(&sha256(bytes))));
    r
}

const MEMBERS: [&str; 8] = [
    "id",
    "receipt_schema_version",
    "created_at",
    "tool",
    "provenance_class",
    "canonical_bytes",
    "output_hash",
    "verification_status",
];

type Failure = (String, Option<u64>, Option<String>);

fn verify_text(text: &str, tier: Tier) -> ReceiptReport {
    verify_receipt(text.as_bytes(), tier)
}

fn verify(doc: &Value, tier: Tier) -> ReceiptReport {
    verify_receipt(&serde_json::to_vec(doc).unwrap(), tier)
}

fn core(doc: &Value) -> ReceiptReport {
    verify(doc, Tier::Core)
}

fn strict(doc: &Value) -> ReceiptReport {
    verify(doc, Tier::Strict)
}

/// (rule, entry, member) of every failure.
fn failures(report: &ReceiptReport) -> Vec<Failure> {
    report
        .failures
        .iter()
        .map(|f| (f.rule.id().to_string(), f.entry, f.member.clone()))
        .collect()
}

/// Receipt findings never carry an entry.
fn expected(list: &[(&str, Option<&str>)]) -> Vec<Failure> {
    list.iter()
        .map(|(rule, member)| (rule.to_string(), None, member.map(str::to_string)))
        .collect()
}

#[track_caller]
fn assert_valid(report: &ReceiptReport) {
    assert_eq!(report.verdict, Verdict::Valid, "{:#?}", report.failures);
    assert!(report.failures.is_empty());
}

#[track_caller]
fn assert_failures(report: &ReceiptReport, list: &[(&str, Option<&str>)]) {
    assert_eq!(report.verdict, Verdict::Invalid);
    assert_eq!(failures(report), expected(list), "{:#?}", report.failures);
}

#[track_caller]
fn assert_only(report: &ReceiptReport, rule: &str, member: Option<&str>) {
    assert_failures(report, &[(rule, member)]);
}

fn with(member: &str, value: Value) -> Value {
    let mut r = valid();
    r[member] = value;
    r
}

fn without(member: &str) -> Value {
    let mut r = valid();
    r.as_object_mut().unwrap().remove(member);
    r
}

fn with_tool(member: &str, value: Option<Value>) -> Value {
    let mut r = valid();
    let tool = r["tool"].as_object_mut().unwrap();
    match value {
        Some(v) => {
            tool.insert(member.to_string(), v);
        }
        None => {
            tool.remove(member);
        }
    }
    r
}

// ------------------------------------------------------------------------------------------------
// The valid starting point.

#[test]
fn worked_value_is_valid_under_both_id_tiers() {
    for tier in [Tier::Core, Tier::Strict] {
        let r = verify(&valid(), tier);
        assert_valid(&r);
        assert_eq!(r.tier, tier.as_str());
        assert_eq!(r.id_tier, tier.as_str());
        assert!(r.notes.is_empty(), "{:?}", r.notes);
        assert_eq!(r.computed_output_hash.as_deref(), Some(WORKED_HASH));
    }
    // The other two fixed provenance classes are valid too.
    for class in ["OBSERVED VIA GATEWAY", "LOGGED BY AGENT"] {
        assert_valid(&core(&with("provenance_class", json!(class))));
    }
    // The default tier is core.
    assert_eq!(Tier::default(), Tier::Core);
}

#[test]
fn the_hash_is_over_the_decoded_bytes_not_the_base64_text() {
    // The worked value decodes to exactly these bytes; hashing the base64 text would differ.
    let bytes = br#"{"inputs":{},"outputs":{"x":123},"tool":"t"}"#;
    assert_eq!(encode_base64(bytes), WORKED_B64);
    assert_eq!(
        format!("sha256:{}", hex::lower(&sha256(bytes))),
        WORKED_HASH
    );
    let over_text = format!("sha256:{}", hex::lower(&sha256(WORKED_B64.as_bytes())));
    assert_only(
        &core(&with("output_hash", json!(over_text))),
        "AER1-RC-HASH-MATCH",
        Some("output_hash"),
    );
}

#[test]
fn decoded_bytes_are_not_recanonicalised() {
    // Same JSON content, different bytes (whitespace, member order): each is valid with its own
    // hash, and the worked hash does not carry over to the re-serialised form.
    let respaced = br#"{ "tool": "t", "outputs": {"x": 123}, "inputs": {} }"#;
    assert_valid(&core(&valid_over(respaced)));
    let mut r = valid_over(respaced);
    r["output_hash"] = json!(WORKED_HASH);
    assert_only(&core(&r), "AER1-RC-HASH-MATCH", Some("output_hash"));
    // The bytes need not be JSON at all, and may be empty.
    assert_valid(&core(&valid_over(b"plain text, not JSON")));
    let empty = valid_over(b"");
    assert_eq!(empty["canonical_bytes"], json!(""));
    assert_valid(&core(&empty));
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-MEMBERS

#[test]
fn each_missing_member_is_reported_alone() {
    for member in MEMBERS {
        for tier in [Tier::Core, Tier::Strict] {
            let r = verify(&without(member), tier);
            assert_only(&r, "AER1-RC-MEMBERS", Some(member));
        }
    }
}

#[test]
fn all_missing_members_are_reported_in_order() {
    let r = core(&json!({}));
    let list: Vec<_> = MEMBERS
        .iter()
        .map(|m| ("AER1-RC-MEMBERS", Some(*m)))
        .collect();
    assert_failures(&r, &list);
    assert_eq!(r.computed_output_hash, None);
}

#[test]
fn a_document_that_is_not_an_object() {
    for text in ["[]", "[{}]", "\"receipt\"", "1", "null", "true"] {
        let r = verify_text(text, Tier::Core);
        assert_only(&r, "AER1-RC-MEMBERS", None);
        assert_eq!(r.computed_output_hash, None);
    }
    // The receipt wrapped in an array is still not a receipt.
    let r = core(&json!([valid()]));
    assert_only(&r, "AER1-RC-MEMBERS", None);
}

#[test]
fn a_member_of_the_wrong_type_fails_its_own_rule() {
    let rule_of = |member: &str| match member {
        "id" => "AER1-RC-ID",
        "receipt_schema_version" => "AER1-RC-SCHEMA-VERSION",
        "created_at" => "AER1-RC-CREATED-AT",
        "tool" => "AER1-RC-TOOL",
        "provenance_class" => "AER1-RC-PROVENANCE",
        "canonical_bytes" => "AER1-RC-B64",
        "output_hash" => "AER1-RC-HASH-FORMAT",
        "verification_status" => "AER1-RC-STATUS",
        other => panic!("{other}"),
    };
    for member in MEMBERS {
        let wrong: Vec<Value> = if member == "tool" {
            vec![
                json!("price_lookup"),
                json!(7),
                json!(null),
                json!([]),
                json!(true),
            ]
        } else {
            vec![json!(7), json!(null), json!([]), json!({}), json!(true)]
        };
        for value in wrong {
            let r = core(&with(member, value.clone()));
            assert_only(&r, rule_of(member), Some(member));
        }
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-ID and AER1-RC-ID-STRICT

#[test]
fn id_core_tier() {
    let bad = [
        "E80168EB-A6A1-4EC9-8478-AC108F9397FF",   // uppercase
        "e80168eb-a6a1-4ec9-8478-AC108F9397FF",   // partly uppercase
        "e80168eba6a14ec98478ac108f9397ff",       // no hyphens
        "{e80168eb-a6a1-4ec9-8478-ac108f9397ff}", // braces
        "e80168eb-a6a1-4ec9-8478-ac108f9397f",    // 35 characters
        "e80168eb-a6a1-4ec9-8478-ac108f9397ff0",  // 37 characters
        "e80168eb-a6a1-4ec9-8478-ac108f9397fg",   // not hex
        "e80168eb_a6a1-4ec9-8478-ac108f9397ff",   // wrong separator
        "e80168eb-a6a1-4ec9-8478-ac108f9397ff\n", // trailing newline
        "",
    ];
    for id in bad {
        // Under the strict tier a core failure is reported once, as AER1-RC-ID.
        for tier in [Tier::Core, Tier::Strict] {
            let r = verify(&with("id", json!(id)), tier);
            assert_only(&r, "AER1-RC-ID", Some("id"));
        }
    }
    // The nil UUID has the core shape. Revision 09 (and its kit) accept it under the core tier;
    // under the strict tier its version digit 0 fails AER1-RC-ID-STRICT (AER1.md section 1).
    let nil = with("id", json!("00000000-0000-0000-0000-000000000000"));
    assert_valid(&core(&nil));
    let r = strict(&nil);
    assert_only(&r, "AER1-RC-ID-STRICT", Some("id"));
    assert!(
        r.failures[0].message.contains("version is 0"),
        "{}",
        r.failures[0].message
    );
}

#[test]
fn id_is_matched_against_the_whole_string() {
    // The kit's revision-09 vector id-trailing-newline: a valid v4 id followed by a newline.
    // A regular expression anchored with `$` (which matches before a final newline in Python and
    // others) would accept it; the id must be the UUID and nothing else.
    for id in [
        format!("{V4_ID}\n"),
        format!("{V4_ID}\r\n"),
        format!("\n{V4_ID}"),
        format!("{V4_ID} "),
        format!("{V4_ID}\u{0}"),
    ] {
        for tier in [Tier::Core, Tier::Strict] {
            assert_only(
                &verify(&with("id", json!(id)), tier),
                "AER1-RC-ID",
                Some("id"),
            );
        }
    }
}

#[test]
fn id_strict_tier() {
    // Core-valid ids that are not version 4 with the RFC 4122 variant.
    let not_v4 = [
        "e80168eb-a6a1-1ec9-8478-ac108f9397ff", // version 1
        "e80168eb-a6a1-7ec9-8478-ac108f9397ff", // version 7
        "e80168eb-a6a1-0ec9-8478-ac108f9397ff", // version 0
        "e80168eb-a6a1-4ec9-c478-ac108f9397ff", // variant c (Microsoft)
        "e80168eb-a6a1-4ec9-0478-ac108f9397ff", // variant 0 (NCS)
        "e80168eb-a6a1-4ec9-f478-ac108f9397ff", // variant f
        "ffffffff-ffff-ffff-ffff-ffffffffffff", // the max UUID
    ];
    for id in not_v4 {
        let doc = with("id", json!(id));
        assert_valid(&core(&doc));
        assert_only(&strict(&doc), "AER1-RC-ID-STRICT", Some("id"));
    }
    // Each RFC 4122 variant digit passes the strict tier.
    for variant in ['8', '9', 'a', 'b'] {
        let id = format!("e80168eb-a6a1-4ec9-{variant}478-ac108f9397ff");
        assert_valid(&strict(&with("id", json!(id))));
    }
    let r = strict(&with("id", json!("e80168eb-a6a1-1ec9-8478-ac108f9397ff")));
    assert!(
        r.failures[0].message.contains("version"),
        "{}",
        r.failures[0].message
    );
    let r = strict(&with("id", json!("e80168eb-a6a1-4ec9-c478-ac108f9397ff")));
    assert!(
        r.failures[0].message.contains("variant"),
        "{}",
        r.failures[0].message
    );
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-SCHEMA-VERSION

#[test]
fn schema_version() {
    for bad in [json!(""), json!(0.3), json!(3), json!(null), json!(["0.3"])] {
        assert_only(
            &core(&with("receipt_schema_version", bad)),
            "AER1-RC-SCHEMA-VERSION",
            Some("receipt_schema_version"),
        );
    }
    // The value is not interpreted: any non-empty string will do.
    for ok in ["0.3", "1", "x", " "] {
        assert_valid(&core(&with("receipt_schema_version", json!(ok))));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-CREATED-AT

#[test]
fn created_at_invalid() {
    for bad in [
        "2026-02-30T00:00:00Z",      // 30 February
        "1900-02-29T00:00:00Z",      // century rule: 1900 is not a leap year
        "2023-02-29T00:00:00Z",      // not a leap year
        "2026-04-31T00:00:00Z",      // April has 30 days
        "2026-12-31T23:59:60Z",      // leap second rejected
        "2026-10-01t18:30:00Z",      // lowercase t
        "2026-10-01T18:30:00z",      // lowercase z
        "2026-10-01T18:30:00+24:00", // offset hour 24
        "2026-10-01T18:30:00+00:60", // offset minute 60
        "2026-10-01T18:30:00Z\n",    // trailing newline
        "2026-10-01T24:00:00Z",      // hour 24
        "2026-10-01T18:60:00Z",      // minute 60
        "2026-13-01T18:30:00Z",      // month 13
        "2026-00-01T18:30:00Z",      // month 0
        "2026-10-00T18:30:00Z",      // day 0
        "2026-10-01 18:30:00Z",      // space for T
        "2026-10-01T18:30:00",       // no offset
        "2026-10-01T18:30:00+0000",  // offset without colon
        "2026-10-01T18:30:00.Z",     // fraction without digits
        "26-10-01T18:30:00Z",        // two-digit year
        "2026-10-01",                // date only
        " 2026-10-01T18:30:00Z",     // leading space
        "",
    ] {
        assert_only(
            &core(&with("created_at", json!(bad))),
            "AER1-RC-CREATED-AT",
            Some("created_at"),
        );
    }
}

#[test]
fn created_at_valid() {
    for ok in [
        "2000-02-29T00:00:00Z",              // century rule: 2000 is a leap year
        "2024-02-29T12:00:00Z",              // ordinary leap year
        "2026-10-01T18:30:00.5Z",            // one fraction digit
        "2026-10-01T18:30:00.123456789012Z", // many fraction digits
        "2026-10-01T18:30:00+05:30",         // positive offset
        "2026-10-01T18:30:00-00:00",         // unknown local offset
        "2026-10-01T18:30:00.1-23:59",       // largest offset
        "2026-12-31T23:59:59Z",              // last second of a year
    ] {
        assert_valid(&core(&with("created_at", json!(ok))));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-TOOL

#[test]
fn tool_members() {
    for member in ["name", "version", "scope"] {
        let path = format!("tool.{member}");
        let mut cases = vec![
            None,
            Some(json!("")),
            Some(json!(1)),
            Some(json!(null)),
            Some(json!({"x": "y"})),
        ];
        cases.push(Some(json!(["a"])));
        for value in cases {
            let r = core(&with_tool(member, value.clone()));
            assert_only(&r, "AER1-RC-TOOL", Some(&path));
        }
    }
    // An empty tool object fails all three, in order.
    assert_failures(
        &core(&with("tool", json!({}))),
        &[
            ("AER1-RC-TOOL", Some("tool.name")),
            ("AER1-RC-TOOL", Some("tool.version")),
            ("AER1-RC-TOOL", Some("tool.scope")),
        ],
    );
    // Other members of tool are ignored.
    assert_valid(&core(&with_tool(
        "vendor",
        Some(json!({"anything": [1, 2, 3]})),
    )));
    // Tool member values are not otherwise interpreted.
    assert_valid(&core(&with_tool("name", Some(json!(" ")))));
}

#[test]
fn tool_not_an_object() {
    for value in [
        json!("price_lookup"),
        json!(["price_lookup", "1.2.0", "read"]),
        json!(1),
        json!(null),
    ] {
        assert_only(&core(&with("tool", value)), "AER1-RC-TOOL", Some("tool"));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-PROVENANCE

#[test]
fn provenance_class() {
    for bad in [
        "LOGGED BY AGENT\n",    // trailing newline
        "LOGGED BY AGENT ",     // trailing space
        " LOGGED BY AGENT",     // leading space
        "logged by agent",      // lowercase
        "Observed via gateway", // mixed case
        "OBSERVED VIA GATEWAY\n",
        "EXECUTED BY ",        // empty system
        "EXECUTED BY",         // no system, no space
        "EXECUTED BY  ZAMBO",  // system starts with a space
        "EXECUTED BY _ZAMBO",  // system starts with a symbol
        "EXECUTED BY zambo",   // lowercase system
        "EXECUTED BY ZAMBO\n", // trailing newline after the system
        "EXECUTED BY ZAMBÖ",   // non-ASCII system
        "EXECUTED BY ZAMBO/1", // '/' not allowed
        "EXECUTED  BY ZAMBO",
        "OBSERVED BY GATEWAY",
        "",
    ] {
        assert_only(
            &core(&with("provenance_class", json!(bad))),
            "AER1-RC-PROVENANCE",
            Some("provenance_class"),
        );
    }
    for ok in [
        "EXECUTED BY ZAMBO",
        "EXECUTED BY ACME-1.2_X",
        "EXECUTED BY 9",
        "EXECUTED BY ACME RUNNER 2",
        "EXECUTED BY A ", // trailing space is part of the system name grammar
        "OBSERVED VIA GATEWAY",
        "LOGGED BY AGENT",
    ] {
        assert_valid(&core(&with("provenance_class", json!(ok))));
    }
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-B64, AER1-RC-UTF8

#[test]
fn base64_variants() {
    let unpadded = WORKED_B64.trim_end_matches('=');
    assert_ne!(unpadded, WORKED_B64);
    let spaced = format!("{} {}", &WORKED_B64[..8], &WORKED_B64[8..]);
    let newline_in_block = format!("{}\n{}", &WORKED_B64[..8], &WORKED_B64[8..]);
    // Whitespace that keeps the length a multiple of four is still rejected.
    let four_spaces = format!("{}    {}", &WORKED_B64[..8], &WORKED_B64[8..]);
    let trailing_newline = format!("{WORKED_B64}\n");
    for bad in [
        unpadded.to_string(),
        spaced,
        newline_in_block,
        four_spaces,
        trailing_newline,
        format!("{WORKED_B64}===="),
        format!("={}", &WORKED_B64[1..]),
        "not base64!".to_string(),
        "====".to_string(),
    ] {
        let r = core(&with("canonical_bytes", json!(bad)));
        // Bytes that do not decode: no UTF-8 or hash comparison, no computed hash.
        assert_only(&r, "AER1-RC-B64", Some("canonical_bytes"));
        assert_eq!(r.computed_output_hash, None, "{bad:?}");
    }
}

#[test]
fn url_safe_alphabet_is_rejected() {
    // "???>>>" encodes with both '/' and '+'.
    let good = valid_over(b"???>>>");
    assert_eq!(good["canonical_bytes"], json!("Pz8/Pj4+"));
    assert_valid(&core(&good));
    for bad in ["Pz8_Pj4-", "Pz8_Pj4+", "Pz8/Pj4-"] {
        let mut r = good.clone();
        r["canonical_bytes"] = json!(bad);
        assert_only(&core(&r), "AER1-RC-B64", Some("canonical_bytes"));
    }
}

#[test]
fn non_zero_trailing_bits_are_rejected() {
    // "Zm8=" is the canonical encoding of "fo"; "Zm9=" decodes to "fo" under lenient decoders
    // (Python's b64decode) but carries non-zero bits past the data.
    let good = valid_over(b"fo");
    assert_eq!(good["canonical_bytes"], json!("Zm8="));
    assert_valid(&core(&good));
    let mut r = good.clone();
    r["canonical_bytes"] = json!("Zm9=");
    let report = core(&r);
    assert_only(&report, "AER1-RC-B64", Some("canonical_bytes"));
    assert!(
        report.failures[0].message.contains("trailing bits"),
        "{}",
        report.failures[0].message
    );
    // The same with two padding characters: "Zg==" is "f", "Zh==" is not canonical.
    let mut r = valid_over(b"f");
    assert_eq!(r["canonical_bytes"], json!("Zg=="));
    assert_valid(&core(&r));
    r["canonical_bytes"] = json!("Zh==");
    assert_only(&core(&r), "AER1-RC-B64", Some("canonical_bytes"));
}

#[test]
fn decoded_bytes_must_be_utf8_even_when_the_hash_matches() {
    for bytes in [
        &b"\xff\xfe"[..],
        b"ok\x80",
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"{\"x\":\"\xe2\x82\"}",
    ] {
        let r = core(&valid_over(bytes));
        assert_only(&r, "AER1-RC-UTF8", Some("canonical_bytes"));
        // The hash is still computed and compared (and matches).
        assert_eq!(
            r.computed_output_hash,
            Some(format!("sha256:{}", hex::lower(&sha256(bytes))))
        );
    }
    // Non-UTF-8 bytes and a wrong hash: both reported.
    let mut r = valid_over(b"\xff");
    r["output_hash"] = json!(WORKED_HASH);
    assert_failures(
        &core(&r),
        &[
            ("AER1-RC-UTF8", Some("canonical_bytes")),
            ("AER1-RC-HASH-MATCH", Some("output_hash")),
        ],
    );
    // Multi-byte UTF-8 is fine.
    assert_valid(&core(&valid_over("café ☕ 😀".as_bytes())));
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-HASH-FORMAT, AER1-RC-HASH-MATCH

#[test]
fn output_hash_format() {
    let hexpart = WORKED_HASH.strip_prefix("sha256:").unwrap();
    for bad in [
        format!("sha256:{}", hexpart.to_uppercase()), // uppercase hex
        format!("sha256:{}", &hexpart[..63].to_string()) + "A", // one uppercase digit
        hexpart.to_string(),                          // no prefix
        format!("SHA256:{hexpart}"),                  // uppercase prefix
        format!("sha-256:{hexpart}"),
        format!("sha256: {hexpart}"),
        format!("sha256:{}", &hexpart[..63]), // 63 hex
        format!("sha256:{hexpart}0"),         // 65 hex
        format!("sha256:{hexpart}\n"),        // trailing newline
        format!("sha256:{}", "g".repeat(64)), // not hex
        "sha256:".to_string(),
        String::new(),
    ] {
        let r = core(&with("output_hash", json!(bad)));
        // A malformed hash is not compared: only the format rule.
        assert_only(&r, "AER1-RC-HASH-FORMAT", Some("output_hash"));
        assert_eq!(r.computed_output_hash.as_deref(), Some(WORKED_HASH));
    }
}

#[test]
fn output_hash_mismatch() {
    for wrong in [
        format!("sha256:{}", "0".repeat(64)),
        // One digit off.
        "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc51".to_string(),
        // The hash of the bytes without the final '}'.
        format!(
            "sha256:{}",
            hex::lower(&sha256(br#"{"inputs":{},"outputs":{"x":123},"tool":"t""#))
        ),
    ] {
        let r = core(&with("output_hash", json!(wrong)));
        assert_only(&r, "AER1-RC-HASH-MATCH", Some("output_hash"));
        assert!(
            r.failures[0].message.contains(&WORKED_HASH[7..]),
            "{}",
            r.failures[0].message
        );
    }
    // A malformed value and bytes that do not decode: only the two format rules.
    let mut r = valid();
    r["canonical_bytes"] = json!("Zm9");
    r["output_hash"] = json!("sha256:XYZ");
    assert_failures(
        &core(&r),
        &[
            ("AER1-RC-B64", Some("canonical_bytes")),
            ("AER1-RC-HASH-FORMAT", Some("output_hash")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// AER1-RC-STATUS

#[test]
fn verification_status() {
    for bad in [
        "Verified",
        "VERIFIED",
        "verified\n",
        " verified",
        "unverified",
        "failed",
        "pending",
        "",
    ] {
        assert_only(
            &core(&with("verification_status", json!(bad))),
            "AER1-RC-STATUS",
            Some("verification_status"),
        );
    }
}

// ------------------------------------------------------------------------------------------------
// Extra members, duplicate names, several failures together.

#[test]
fn extra_members_do_not_change_the_verdict() {
    let mut r = valid();
    let obj = r.as_object_mut().unwrap();
    obj.insert("signature".into(), json!("not checked"));
    obj.insert(
        "extensions".into(),
        json!({"nested": [1, 2.5, null, {"a": "b"}]}),
    );
    obj.insert("ID".into(), json!("ANYTHING")); // names are case-sensitive: not the core id
    obj.insert("verified".into(), json!(false));
    assert_valid(&core(&r));
    assert_valid(&strict(&r));
    // And extra members do not hide a real failure.
    r["verification_status"] = json!("no");
    assert_only(&core(&r), "AER1-RC-STATUS", Some("verification_status"));
}

#[test]
fn duplicate_member_names_are_reported() {
    let text = serde_json::to_string(&valid()).unwrap();
    // A repeat of a valid value: only the duplicate.
    let dup = text.replacen(
        "\"verification_status\":\"verified\"",
        "\"verification_status\":\"verified\",\"verification_status\":\"verified\"",
        1,
    );
    assert_ne!(dup, text);
    assert_only(
        &verify_text(&dup, Tier::Core),
        "AER1-JSON-DUPLICATE",
        Some("verification_status"),
    );
    // Nested: the path names the member inside tool.
    let dup = text.replacen(
        "\"name\":\"price_lookup\"",
        "\"name\":\"x\",\"name\":\"price_lookup\"",
        1,
    );
    assert_ne!(dup, text);
    assert_only(
        &verify_text(&dup, Tier::Core),
        "AER1-JSON-DUPLICATE",
        Some("tool.name"),
    );
    // The last value is the one checked (as in Python): an invalid first value is not judged ...
    let dup = text.replacen(
        "\"verification_status\":\"verified\"",
        "\"verification_status\":\"bogus\",\"verification_status\":\"verified\"",
        1,
    );
    assert_only(
        &verify_text(&dup, Tier::Core),
        "AER1-JSON-DUPLICATE",
        Some("verification_status"),
    );
    // ... an invalid last value is.
    let dup = text.replacen(
        "\"verification_status\":\"verified\"",
        "\"verification_status\":\"verified\",\"verification_status\":\"bogus\"",
        1,
    );
    assert_failures(
        &verify_text(&dup, Tier::Core),
        &[
            ("AER1-JSON-DUPLICATE", Some("verification_status")),
            ("AER1-RC-STATUS", Some("verification_status")),
        ],
    );
    // Duplicates inside extra members are found too.
    let mut r = valid();
    r["extra"] = json!({"list": [{"k": 1}]});
    let text = serde_json::to_string(&r)
        .unwrap()
        .replacen("{\"k\":1}", "{\"k\":1,\"k\":2}", 1);
    assert_only(
        &verify_text(&text, Tier::Core),
        "AER1-JSON-DUPLICATE",
        Some("extra.list[0].k"),
    );
}

#[test]
fn several_simultaneous_breaks_are_all_reported_in_order() {
    let mut r = valid();
    r["id"] = json!("E80168EB-A6A1-4EC9-8478-AC108F9397FF");
    r["receipt_schema_version"] = json!("");
    r["created_at"] = json!("2026-02-30T00:00:00Z");
    r["tool"] = json!({"name": "", "version": 1});
    r["provenance_class"] = json!("LOGGED BY AGENT\n");
    r["canonical_bytes"] = json!(encode_base64(b"\xff"));
    r["output_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    r["verification_status"] = json!("Verified");
    let report = core(&r);
    assert_failures(
        &report,
        &[
            ("AER1-RC-ID", Some("id")),
            ("AER1-RC-SCHEMA-VERSION", Some("receipt_schema_version")),
            ("AER1-RC-CREATED-AT", Some("created_at")),
            ("AER1-RC-TOOL", Some("tool.name")),
            ("AER1-RC-TOOL", Some("tool.version")),
            ("AER1-RC-TOOL", Some("tool.scope")),
            ("AER1-RC-PROVENANCE", Some("provenance_class")),
            ("AER1-RC-UTF8", Some("canonical_bytes")),
            ("AER1-RC-HASH-MATCH", Some("output_hash")),
            ("AER1-RC-STATUS", Some("verification_status")),
        ],
    );
    // Missing members are reported before the checks of the members that are present, and the
    // present ones are still checked.
    let mut r = valid();
    r.as_object_mut().unwrap().remove("created_at");
    r.as_object_mut().unwrap().remove("verification_status");
    r["id"] = json!("e80168eb-a6a1-1ec9-8478-ac108f9397ff");
    r["output_hash"] = json!(WORKED_HASH.to_uppercase());
    assert_failures(
        &strict(&r),
        &[
            ("AER1-RC-MEMBERS", Some("created_at")),
            ("AER1-RC-MEMBERS", Some("verification_status")),
            ("AER1-RC-ID-STRICT", Some("id")),
            ("AER1-RC-HASH-FORMAT", Some("output_hash")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// Input-level failures stop the check with one finding.

/// The document with a raw 0xFF byte inside the schema version string.
fn not_utf8(text: &str) -> Vec<u8> {
    let mut bytes = text.replacen("\"0.3\"", "\"0.3#\"", 1).into_bytes();
    let at = bytes.iter().position(|b| *b == b'#').unwrap();
    bytes[at] = 0xff;
    bytes
}

#[test]
fn unreadable_documents_give_one_json_finding() {
    let text = serde_json::to_string(&valid()).unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (Vec::new(), "AER1-JSON-SYNTAX"),
        (b"  \n".to_vec(), "AER1-JSON-SYNTAX"),
        (format!("{text} {{}}").into_bytes(), "AER1-JSON-SYNTAX"),
        (
            text.as_bytes()[..text.len() - 1].to_vec(),
            "AER1-JSON-SYNTAX",
        ),
        (
            [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat(),
            "AER1-JSON-SYNTAX",
        ),
        (not_utf8(&text), "AER1-JSON-UTF8"),
        (
            text.replacen("\"0.3\"", "\"0.3\\ud800\"", 1).into_bytes(),
            "AER1-JSON-SURROGATE",
        ),
        (
            text.replacen("{", "{\"x\":1e400,", 1).into_bytes(),
            "AER1-JSON-NUMBER",
        ),
        (
            text.replacen(
                "{",
                &format!("{{\"x\":{}{},", "[".repeat(200), "]".repeat(200)),
                1,
            )
            .into_bytes(),
            "AER1-JSON-DEPTH",
        ),
    ];
    for (bytes, rule) in cases {
        let r = verify_receipt(&bytes, Tier::Core);
        assert_only(&r, rule, None);
        assert_eq!(r.computed_output_hash, None);
    }
    // Trailing whitespace after the document is fine.
    assert_valid(&verify_text(&format!("\n {text} \n"), Tier::Core));
}

#[test]
fn the_reader_enforces_its_size_limit() {
    use agentconf_aer1::receipt::verify_receipt_reader;
    let text = serde_json::to_string(&valid()).unwrap();
    let n = text.len() as u64;
    let r = verify_receipt_reader(text.as_bytes(), Tier::Core, n).unwrap();
    assert_valid(&r);
    let r = verify_receipt_reader(text.as_bytes(), Tier::Anchored, n - 1).unwrap();
    assert_only(&r, "AER1-JSON-SIZE", None);
    assert_eq!((r.tier, r.id_tier), ("anchored", "strict"));
}

// ------------------------------------------------------------------------------------------------
// Tiers

#[test]
fn tiers_have_names_and_apply_an_id_tier() {
    let names: Vec<&str> = Tier::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(names, ["core", "strict", "anchored", "profile"]);
    for tier in Tier::ALL {
        assert_eq!(Tier::parse(tier.as_str()), Some(tier));
    }
    for unknown in ["", "Core", "STRICT", "loose", "anchor", "strict "] {
        assert_eq!(Tier::parse(unknown), None, "{unknown:?}");
    }
    assert_eq!(Tier::default(), Tier::Core);
    let id_tiers: Vec<&str> = Tier::ALL.iter().map(|t| t.id_tier()).collect();
    assert_eq!(id_tiers, ["core", "strict", "strict", "core"]);
}

#[test]
fn the_report_names_the_tier_checked() {
    for tier in Tier::ALL {
        let r = verify(&anchored(), tier);
        assert_valid(&r);
        assert_eq!((r.tier, r.id_tier), (tier.as_str(), tier.id_tier()));
    }
    // The worked value has no anchor: valid under core, strict and profile; not under anchored.
    for tier in [Tier::Core, Tier::Strict, Tier::Profile] {
        let r = verify(&valid(), tier);
        assert_valid(&r);
        assert!(r.notes.is_empty(), "{:?}", r.notes);
    }
    assert_eq!(verify(&valid(), Tier::Anchored).verdict, Verdict::Invalid);
}

// ------------------------------------------------------------------------------------------------
// The anchored tier: AER1-RC-ANCHOR-* (and AER1-RC-ID-STRICT)

/// A well-formed anchor for the worked value: leaf_hash is the hash of the worked bytes.
fn anchor() -> Value {
    json!({
        "log": "https://log.example/aer1",
        "leaf_hash": WORKED_HASH,
        "anchored_at": "2026-10-01T18:31:00Z",
        "proof": {"tree_size": 8, "leaf_index": 3, "hashes": []},
    })
}

fn anchored() -> Value {
    let mut r = valid();
    r["anchor"] = anchor();
    r
}

fn with_anchor(member: &str, value: Option<Value>) -> Value {
    let mut r = anchored();
    let a = r["anchor"].as_object_mut().unwrap();
    match value {
        Some(v) => {
            a.insert(member.to_string(), v);
        }
        None => {
            a.remove(member);
        }
    }
    r
}

fn anchored_tier(doc: &Value) -> ReceiptReport {
    verify(doc, Tier::Anchored)
}

#[test]
fn a_well_formed_anchor_meets_the_anchored_tier() {
    let r = anchored_tier(&anchored());
    assert_valid(&r);
    assert_eq!((r.tier, r.id_tier), ("anchored", "strict"));
    // What the tier cannot check offline is said, not claimed.
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    assert!(r.notes[0].contains("not verified"), "{:?}", r.notes);
    // Any non-empty log, any proof object, any calendar-valid instant.
    let mut doc = anchored();
    doc["anchor"]["log"] = json!(" ");
    doc["anchor"]["proof"] = json!({});
    doc["anchor"]["anchored_at"] = json!("2000-02-29T23:59:59.123456789-23:59");
    assert_valid(&anchored_tier(&doc));
    // The leaf is over the bytes: another payload, with both hashes recomputed, is fine.
    let bytes = br#"{"inputs":{"q":"BTC"},"outputs":{}}"#;
    let mut doc = valid_over(bytes);
    doc["anchor"] = anchor();
    doc["anchor"]["leaf_hash"] = doc["output_hash"].clone();
    assert_valid(&anchored_tier(&doc));
}

#[test]
fn under_the_other_tiers_an_anchor_is_an_extra_member_and_a_note() {
    // A broken anchor: every anchor rule would fail.
    let mut doc = valid();
    doc["anchor"] = json!({"log": "", "leaf_hash": "x", "anchored_at": "2026-02-30T00:00:00Z",
                           "proof": "none", "extra": 1});
    for tier in [Tier::Core, Tier::Strict, Tier::Profile] {
        let r = verify(&doc, tier);
        assert_valid(&r);
        assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
        assert!(
            r.notes[0].contains("does not show that the anchored tier is met"),
            "{:?}",
            r.notes
        );
    }
    // Even `anchor: null` is a member the lower tiers leave alone, and say so.
    let r = core(&with("anchor", json!(null)));
    assert_valid(&r);
    assert_eq!(r.notes.len(), 1);
}

#[test]
fn anchor_missing_or_not_an_object() {
    let r = anchored_tier(&valid());
    assert_only(&r, "AER1-RC-ANCHOR-MEMBERS", Some("anchor"));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    for value in [
        json!("anchor"),
        json!([anchor()]),
        json!(null),
        json!(1),
        json!(true),
    ] {
        assert_only(
            &anchored_tier(&with("anchor", value)),
            "AER1-RC-ANCHOR-MEMBERS",
            Some("anchor"),
        );
    }
}

#[test]
fn anchor_has_exactly_four_members() {
    for member in ["log", "leaf_hash", "anchored_at", "proof"] {
        let path = format!("anchor.{member}");
        assert_only(
            &anchored_tier(&with_anchor(member, None)),
            "AER1-RC-ANCHOR-MEMBERS",
            Some(&path),
        );
    }
    // An extra member, and two: each once, in document order.
    assert_only(
        &anchored_tier(&with_anchor("signature", Some(json!("x")))),
        "AER1-RC-ANCHOR-MEMBERS",
        Some("anchor.signature"),
    );
    let mut doc = with_anchor("z_extra", Some(json!(1)));
    doc["anchor"]["a_extra"] = json!(2);
    let text = serde_json::to_string(&doc).unwrap();
    assert!(text.find("a_extra") < text.find("z_extra"));
    assert_failures(
        &verify_text(&text, Tier::Anchored),
        &[
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.a_extra")),
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.z_extra")),
        ],
    );
    // Names are case-sensitive: LOG is an extra member, and log is then missing.
    let mut doc = with_anchor("log", None);
    doc["anchor"]["LOG"] = json!("https://log.example/aer1");
    assert_failures(
        &anchored_tier(&doc),
        &[
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.log")),
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.LOG")),
        ],
    );
    // A duplicated anchor member is the JSON reader's finding, not an extra member.
    let text = serde_json::to_string(&anchored()).unwrap();
    let dup = text.replacen(
        "\"log\":\"https://log.example/aer1\"",
        "\"log\":\"https://log.example/aer1\",\"log\":\"https://log.example/aer1\"",
        1,
    );
    assert_ne!(dup, text);
    assert_only(
        &verify_text(&dup, Tier::Anchored),
        "AER1-JSON-DUPLICATE",
        Some("anchor.log"),
    );
}

#[test]
fn anchor_log() {
    for bad in [json!(""), json!(1), json!(null), json!({}), json!(["log"])] {
        assert_only(
            &anchored_tier(&with_anchor("log", Some(bad))),
            "AER1-RC-ANCHOR-LOG",
            Some("anchor.log"),
        );
    }
}

#[test]
fn anchor_leaf_hash_format() {
    let hexpart = WORKED_HASH.strip_prefix("sha256:").unwrap();
    for bad in [
        json!(format!("sha256:{}", hexpart.to_uppercase())),
        json!(hexpart),
        json!(format!("SHA256:{hexpart}")),
        json!(format!("sha256:{}", &hexpart[..63])),
        json!(format!("sha256:{hexpart}\n")),
        json!(""),
        json!(7),
        json!(null),
    ] {
        let r = anchored_tier(&with_anchor("leaf_hash", Some(bad.clone())));
        assert_only(&r, "AER1-RC-ANCHOR-LEAF-FORMAT", Some("anchor.leaf_hash"));
    }
}

#[test]
fn anchor_leaf_hash_is_the_hash_of_the_decoded_bytes() {
    for wrong in [
        format!("sha256:{}", "0".repeat(64)),
        format!("sha256:{}", hex::lower(&sha256(WORKED_B64.as_bytes()))),
    ] {
        let r = anchored_tier(&with_anchor("leaf_hash", Some(json!(wrong))));
        assert_only(&r, "AER1-RC-ANCHOR-LEAF-MATCH", Some("anchor.leaf_hash"));
        assert!(
            r.failures[0].message.contains(&WORKED_HASH[7..]),
            "{}",
            r.failures[0].message
        );
    }
    // The leaf is compared with the bytes, not with output_hash: a wrong output_hash over the
    // right leaf fails the output hash only.
    let mut doc = anchored();
    doc["output_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    assert_only(
        &anchored_tier(&doc),
        "AER1-RC-HASH-MATCH",
        Some("output_hash"),
    );
    // Bytes that do not decode: the leaf is not compared either.
    let mut doc = anchored();
    doc["canonical_bytes"] = json!(WORKED_B64.trim_end_matches('='));
    assert_only(&anchored_tier(&doc), "AER1-RC-B64", Some("canonical_bytes"));
}

#[test]
fn anchor_anchored_at() {
    for bad in [
        json!("2026-02-30T00:00:00Z"),
        json!("1900-02-29T00:00:00Z"),
        json!("2026-12-31T23:59:60Z"),
        json!("2026-10-01t18:31:00Z"),
        json!("2026-10-01T18:31:00Z\n"),
        json!("2026-10-01T18:31:00"),
        json!(""),
        json!(1_790_000_000),
        json!(null),
    ] {
        assert_only(
            &anchored_tier(&with_anchor("anchored_at", Some(bad))),
            "AER1-RC-ANCHOR-TIME",
            Some("anchor.anchored_at"),
        );
    }
}

#[test]
fn anchor_proof() {
    for bad in [
        json!("proof"),
        json!([]),
        json!(null),
        json!(1),
        json!(false),
    ] {
        assert_only(
            &anchored_tier(&with_anchor("proof", Some(bad))),
            "AER1-RC-ANCHOR-PROOF",
            Some("anchor.proof"),
        );
    }
}

#[test]
fn the_anchored_tier_requires_the_strict_id() {
    for id in [
        "e80168eb-a6a1-1ec9-8478-ac108f9397ff",
        "e80168eb-a6a1-4ec9-c478-ac108f9397ff",
        "00000000-0000-0000-0000-000000000000",
    ] {
        let mut doc = anchored();
        doc["id"] = json!(id);
        assert_valid(&core(&doc));
        assert_only(&anchored_tier(&doc), "AER1-RC-ID-STRICT", Some("id"));
    }
}

#[test]
fn every_anchor_failure_is_reported_in_order() {
    let mut doc = valid();
    doc["id"] = json!("e80168eb-a6a1-1ec9-8478-ac108f9397ff");
    doc["anchor"] = json!({"log": "", "leaf_hash": "x", "anchored_at": "2026-02-30T00:00:00Z",
                           "proof": "none", "extra": 1});
    assert_failures(
        &anchored_tier(&doc),
        &[
            ("AER1-RC-ID-STRICT", Some("id")),
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.extra")),
            ("AER1-RC-ANCHOR-LOG", Some("anchor.log")),
            ("AER1-RC-ANCHOR-LEAF-FORMAT", Some("anchor.leaf_hash")),
            ("AER1-RC-ANCHOR-TIME", Some("anchor.anchored_at")),
            ("AER1-RC-ANCHOR-PROOF", Some("anchor.proof")),
        ],
    );
    let r = anchored_tier(&with("anchor", json!({})));
    assert_failures(
        &r,
        &[
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.log")),
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.leaf_hash")),
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.anchored_at")),
            ("AER1-RC-ANCHOR-MEMBERS", Some("anchor.proof")),
        ],
    );
}

// ------------------------------------------------------------------------------------------------
// The producer profile: AER1-RC-PROFILE-INPUTS

fn profile(doc: &Value) -> ReceiptReport {
    verify(doc, Tier::Profile)
}

#[test]
fn a_payload_carrying_inputs_meets_the_profile() {
    // The worked value's payload is {"inputs":{},...}.
    assert_valid(&profile(&valid()));
    for payload in [
        &br#"{"inputs":null}"#[..],
        br#"{"outputs":1,"inputs":[1,2]}"#,
        br#" { "inputs" : "x" } "#,
    ] {
        assert_valid(&profile(&valid_over(payload)));
    }
    // The profile does not apply the strict id tier.
    assert_valid(&profile(&with(
        "id",
        json!("e80168eb-a6a1-1ec9-8478-ac108f9397ff"),
    )));
}

#[test]
fn a_payload_without_inputs_passes_core_and_fails_the_profile() {
    // The kit's invalid-profile/missing-inputs: core accepts, the profile does not.
    for payload in [
        &br#"{"outputs":{"x":123},"tool":"t"}"#[..],
        br#"{}"#,
        br#"{"outputs":{"inputs":{}}}"#, // nested, not a member of the payload object
        br#"{"INPUTS":{}}"#,
    ] {
        let doc = valid_over(payload);
        assert_valid(&core(&doc));
        let r = profile(&doc);
        assert_only(&r, "AER1-RC-PROFILE-INPUTS", Some("canonical_bytes"));
        assert!(
            r.failures[0].message.contains("inputs"),
            "{}",
            r.failures[0].message
        );
    }
}

#[test]
fn a_payload_that_is_not_a_json_object_fails_the_profile() {
    for payload in [
        &b"plain text output, not JSON"[..],
        b"",
        b"[{\"inputs\":{}}]",
        b"\"inputs\"",
        b"1",
        b"{\"inputs\":{}} trailing",
    ] {
        let doc = valid_over(payload);
        assert_valid(&core(&doc));
        assert_only(
            &profile(&doc),
            "AER1-RC-PROFILE-INPUTS",
            Some("canonical_bytes"),
        );
    }
}

#[test]
fn the_profile_judges_only_bytes_that_decoded_to_utf8() {
    // Not UTF-8: the UTF-8 rule, not the profile.
    assert_only(
        &profile(&valid_over(b"{\"inputs\":\"\xff\"}")),
        "AER1-RC-UTF8",
        Some("canonical_bytes"),
    );
    // Not base64: the base64 rule only.
    assert_only(
        &profile(&with(
            "canonical_bytes",
            json!(WORKED_B64.trim_end_matches('=')),
        )),
        "AER1-RC-B64",
        Some("canonical_bytes"),
    );
    // Profile and hash are judged apart: both failures are reported.
    let mut doc = valid_over(b"{}");
    doc["output_hash"] = json!(WORKED_HASH);
    assert_failures(
        &profile(&doc),
        &[
            ("AER1-RC-HASH-MATCH", Some("output_hash")),
            ("AER1-RC-PROFILE-INPUTS", Some("canonical_bytes")),
        ],
    );
}

#[test]
fn every_byte_flip_of_an_anchored_receipt_is_judged_without_panic() {
    let text = serde_json::to_string(&anchored()).unwrap();
    let bytes = text.as_bytes();
    let mut invalid = 0;
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut m = bytes.to_vec();
            m[at] ^= 1 << bit;
            for tier in [Tier::Anchored, Tier::Profile] {
                let r = verify_receipt(&m, tier);
                assert_eq!(r.verdict == Verdict::Valid, r.failures.is_empty());
                assert_eq!(r.tier, tier.as_str());
                invalid += usize::from(r.verdict == Verdict::Invalid);
            }
        }
    }
    // Most flips break something (a flip inside the made-up proof need not).
    assert!(invalid > bytes.len() * 8, "{invalid}");
}
