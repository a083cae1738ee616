//! `aer1/receipt/*`: single receipts (draft Sections 3-6).
//!
//! Families:
//! - `valid`: receipts every conforming verifier must accept, starting from the kit's worked value;
//! - `structure`: the worked value with one receipt rule broken at a time;
//! - `id-tier`: the revision-09 id tiers (core shape versus strict UUID v4 with the RFC 4122 variant);
//! - `anchored`: the kit's revision-09 anchored tier (the `anchor` object, on top of the strict id);
//! - `profile`: the kit's producer profile (the decoded payload is a JSON object carrying `inputs`);
//! - `hostile`: documents that are not clean JSON (duplicate names, lone surrogates, bad bytes).
//!
//! Hashes and base64 are computed here with `sha2` and the `base64` crate, not through the
//! reference verifier, and every expectation is declared by hand from the draft facts.

use agentconf_aer1::hex;
use agentconf_contract::vector::Tier;
use agentconf_rules::Rule;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

use crate::builder::{Family, AER1_ALL, FROM_09};
use agentconf_contract::vector::{Flag, Suite, Vector};

/// The kit's worked value (AER1.md section 1): the exact bytes that were hashed ...
const WORKED_BYTES: &[u8] = br#"{"inputs":{},"outputs":{"x":123},"tool":"t"}"#;
/// ... their standard base64 ...
const WORKED_B64: &str = "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=";
/// ... and their published output hash.
const WORKED_HASH: &str = "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50";
/// SHA-256 of zero bytes.
const EMPTY_HASH: &str = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// A lowercase UUID version 4 with the RFC 4122 variant: valid under both id tiers.
const V4_ID: &str = "e80168eb-a6a1-4ec9-8478-ac108f9397ff";

/// The eight core members.
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

/// The rules the worked value shows being satisfied (the strict id tier is not applied).
const CORE_RULES: &[Rule] = &[
    Rule::Aer1RcMembers,
    Rule::Aer1RcId,
    Rule::Aer1RcSchemaVersion,
    Rule::Aer1RcCreatedAt,
    Rule::Aer1RcTool,
    Rule::Aer1RcProvenance,
    Rule::Aer1RcB64,
    Rule::Aer1RcUtf8,
    Rule::Aer1RcHashFormat,
    Rule::Aer1RcHashMatch,
    Rule::Aer1RcStatus,
];

/// Why duplicate names are graded as they are (aer1-json.md).
const DUPLICATE_FLAGS: &[Flag] = &[Flag::ShouldLevel, Flag::Interpretation, Flag::KitAccepts];

pub fn generate(out: &mut Vec<Vector>) {
    let sources = valid(out);
    structure(out, &sources);
    id_tier(out);
    anchored(out);
    profile(out);
    hostile(out, &sources);
}

// ------------------------------------------------------------------------------------------------
// Building receipts

/// Standard padded base64 (RFC 4648 section 4).
fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// `sha256:` + lowercase hex SHA-256 of `bytes`.
fn hash_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::lower(&Sha256::digest(bytes)))
}

/// The worked value as a whole receipt: every member valid under both id tiers.
fn worked() -> Value {
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

/// A valid receipt over other bytes, with the matching hash.
fn over(bytes: &[u8]) -> Value {
    let mut r = worked();
    r["canonical_bytes"] = json!(b64(bytes));
    r["output_hash"] = json!(hash_of(bytes));
    r
}

/// The worked value with one member replaced.
fn with(member: &str, value: Value) -> Value {
    let mut r = worked();
    r[member] = value;
    r
}

/// The worked value without one member.
fn without(member: &str) -> Value {
    let mut r = worked();
    if let Some(obj) = r.as_object_mut() {
        obj.remove(member);
    }
    r
}

/// The worked value with one member of `tool` replaced (`Some`) or removed (`None`).
fn with_tool(member: &str, value: Option<Value>) -> Value {
    let mut r = worked();
    if let Some(tool) = r["tool"].as_object_mut() {
        match value {
            Some(v) => {
                tool.insert(member.to_string(), v);
            }
            None => {
                tool.remove(member);
            }
        }
    }
    r
}

/// A receipt document as the file's text: pretty JSON with a final newline.
fn text(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// `text` with the first occurrence of `from` replaced; panics (a generator bug) when absent.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "generator bug: {from:?} not in the document"
    );
    text.replacen(from, to, 1)
}

/// Member name to kebab case, for vector names.
fn kebab(name: &str) -> String {
    name.replace('_', "-")
}

/// Ids of valid vectors that other families derive from.
struct Sources {
    worked: String,
    plus_slash: String,
    one_byte: String,
}

// ------------------------------------------------------------------------------------------------
// valid

fn valid(out: &mut Vec<Vector>) -> Sources {
    // The published worked value, checked against an independent encoder and hash.
    assert_eq!(
        b64(WORKED_BYTES),
        WORKED_B64,
        "generator bug: worked base64"
    );
    assert_eq!(
        hash_of(WORKED_BYTES),
        WORKED_HASH,
        "generator bug: worked hash"
    );
    let mut f = Family::new(out, Suite::Aer1Receipt, "valid");

    f.vector("worked-value")
        .revisions(AER1_ALL)
        .describe(
            "The kit's worked value: canonical_bytes is padded standard base64 of \
             {\"inputs\":{},\"outputs\":{\"x\":123},\"tool\":\"t\"} and output_hash is sha256: plus the \
             lowercase hex SHA-256 of those decoded bytes (65c8ba37...). All eight members are present \
             and well-formed (lowercase UUID id, non-empty schema version, calendar-valid RFC 3339 \
             created_at, tool with non-empty name/version/scope, EXECUTED BY ZAMBO, status verified); \
             must verify.",
        )
        .receipt_text(&text(&worked()))
        .exercises(CORE_RULES)
        .valid()
        .push();
    let worked_id = f.id_of("worked-value");

    let classes = [
        (
            "provenance-observed-via-gateway",
            "OBSERVED VIA GATEWAY",
            "the fixed class OBSERVED VIA GATEWAY",
        ),
        (
            "provenance-logged-by-agent",
            "LOGGED BY AGENT",
            "the fixed class LOGGED BY AGENT. Verification checks the receipt's form and hash; it \
             does not turn the agent's own report into an observation, but the receipt is well-formed",
        ),
        (
            "provenance-executed-by-system-with-punctuation",
            "EXECUTED BY ACME-2.1_RUNNER 7",
            "EXECUTED BY with a system name using every allowed symbol class \
             ([A-Z0-9][A-Z0-9 ._-]*: letters, digits, '-', '.', '_' and space)",
        ),
    ];
    for (name, class, what) in classes {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(&format!(
                "provenance_class is {what}. It is exactly one of the three classes, matched against the \
                 whole string; must verify."
            ))
            .receipt_text(&text(&with("provenance_class", json!(class))))
            .exercises(&[Rule::Aer1RcProvenance])
            .valid()
            .derived_from(&worked_id, &format!("provenance_class set to {class:?}"))
            .push();
    }

    let times = [
        (
            "created-at-fractional-seconds",
            "2026-10-01T18:30:00.123456Z",
            "has a six-digit fraction of a second; RFC 3339 allows any number of fraction digits",
        ),
        (
            "created-at-many-fraction-digits",
            "2026-10-01T18:30:00.123456789012Z",
            "has a twelve-digit fraction of a second (finer than nanoseconds); any number of \
             fraction digits is allowed",
        ),
        (
            "created-at-numeric-offset",
            "2026-10-01T20:30:00+02:00",
            "uses a numeric offset (+02:00) instead of Z",
        ),
        (
            "created-at-largest-negative-offset",
            "2026-10-01T18:30:00.5-23:59",
            "uses the largest offset allowed (-23:59, hours <= 23, minutes <= 59) after a fraction",
        ),
        (
            "created-at-leap-day-2024",
            "2024-02-29T12:00:00Z",
            "is 29 February 2024; 2024 is divisible by 4 and not by 100, so it is a leap year",
        ),
        (
            "created-at-leap-day-2000",
            "2000-02-29T00:00:00Z",
            "is 29 February 2000; 2000 is divisible by 400, so the century rule makes it a leap year",
        ),
    ];
    for (name, value, what) in times {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(&format!(
                "created_at {value:?} {what}. It is an RFC 3339 date-time naming a real calendar \
                 instant; must verify."
            ))
            .receipt_text(&text(&with("created_at", json!(value))))
            .exercises(&[Rule::Aer1RcCreatedAt])
            .valid()
            .derived_from(&worked_id, &format!("created_at set to {value:?}"))
            .push();
    }

    let mut extra = worked();
    if let Some(obj) = extra.as_object_mut() {
        obj.insert(
            "signature".into(),
            json!("not defined by AER-1, not checked"),
        );
        obj.insert(
            "x_extensions".into(),
            json!({"nested": [1, 2.5, null, {"a": "b"}], "verified": false}),
        );
        obj.insert("ID".into(), json!("NOT-THE-CORE-ID"));
    }
    if let Some(tool) = extra["tool"].as_object_mut() {
        tool.insert("vendor".into(), json!("acme"));
    }
    f.vector("extra-members")
        .revisions(AER1_ALL)
        .describe(
            "The worked value plus members the draft does not define: signature, x_extensions, ID \
             (names are case-sensitive, so it is not the core id) and tool.vendor. Extra members may \
             appear and must not change the meaning of the eight core members; must verify.",
        )
        .receipt_text(&text(&extra))
        .exercises(&[Rule::Aer1RcMembers, Rule::Aer1RcTool])
        .valid()
        .derived_from(&worked_id, "added members signature, x_extensions, ID and tool.vendor")
        .push();

    let empty = over(b"");
    assert_eq!(empty["output_hash"], json!(EMPTY_HASH));
    f.vector("empty-payload")
        .revisions(AER1_ALL)
        .describe(
            "canonical_bytes is \"\", the base64 of zero bytes, and output_hash is the SHA-256 of \
             nothing (sha256:e3b0c442...). Empty bytes are valid base64 and valid UTF-8; must verify.",
        )
        .receipt_text(&text(&empty))
        .exercises(&[Rule::Aer1RcB64, Rule::Aer1RcUtf8, Rule::Aer1RcHashMatch])
        .valid()
        .derived_from(&worked_id, "canonical_bytes set to \"\", output_hash to the hash of no bytes")
        .push();

    let non_ascii = "{\"city\":\"Zürich\",\"price\":\"12,50 €\",\"note\":\"日本語 😀\"}";
    f.vector("non-ascii-payload")
        .revisions(AER1_ALL)
        .describe(
            "The hashed bytes are UTF-8 JSON with two-, three- and four-byte characters (ü, €, \
             日本語, 😀). output_hash is the SHA-256 of those exact UTF-8 bytes, not of any escaped \
             or re-serialised form; must verify.",
        )
        .receipt_text(&text(&over(non_ascii.as_bytes())))
        .exercises(&[Rule::Aer1RcUtf8, Rule::Aer1RcHashMatch])
        .valid()
        .derived_from(&worked_id, "canonical_bytes and output_hash replaced for a non-ASCII payload")
        .push();

    let respaced = br#"{ "tool": "t", "outputs": { "x": 123 }, "inputs": {} }"#;
    f.vector("payload-reserialised-json")
        .revisions(AER1_ALL)
        .describe(
            "The hashed bytes are the worked value's JSON content written with spaces and another \
             member order, and output_hash is the hash of these bytes. Receipts are not \
             re-canonicalised: each byte string carries its own hash, so this receipt verifies \
             (and the worked value's hash would not match it).",
        )
        .receipt_text(&text(&over(respaced)))
        .exercises(&[Rule::Aer1RcHashMatch])
        .valid()
        .derived_from(
            &worked_id,
            "the payload re-serialised with spaces and reordered members, rehashed",
        )
        .push();

    let payload_text = b"plain text output, not JSON";
    f.vector("payload-not-json")
        .revisions(AER1_ALL)
        .describe(
            "The hashed bytes are plain UTF-8 text, not JSON. The verifier only decodes, checks \
             UTF-8 and hashes the bytes; it never parses them, so they need not be JSON; must verify.",
        )
        .receipt_text(&text(&over(payload_text)))
        .exercises(&[Rule::Aer1RcUtf8, Rule::Aer1RcHashMatch])
        .valid()
        .derived_from(&worked_id, "canonical_bytes and output_hash replaced for a plain-text payload")
        .push();

    let plus_slash = b"???>>>";
    assert_eq!(b64(plus_slash), "Pz8/Pj4+");
    f.vector("payload-with-plus-and-slash")
        .revisions(AER1_ALL)
        .describe(
            "The hashed bytes are ???>>>, whose standard base64 is Pz8/Pj4+: it uses both '/' and \
             '+' of the standard alphabet, with no padding needed (6 bytes). Must verify.",
        )
        .receipt_text(&text(&over(plus_slash)))
        .exercises(&[Rule::Aer1RcB64, Rule::Aer1RcHashMatch])
        .valid()
        .derived_from(
            &worked_id,
            "canonical_bytes and output_hash replaced for the payload ???>>>",
        )
        .push();
    let plus_slash_id = f.id_of("payload-with-plus-and-slash");

    assert_eq!(b64(b"1"), "MQ==");
    f.vector("payload-one-byte")
        .revisions(AER1_ALL)
        .describe(
            "The hashed bytes are the single byte '1' (itself a JSON text), whose base64 is MQ== \
             with two padding characters. Must verify.",
        )
        .receipt_text(&text(&over(b"1")))
        .exercises(&[Rule::Aer1RcB64, Rule::Aer1RcHashMatch])
        .valid()
        .derived_from(
            &worked_id,
            "canonical_bytes and output_hash replaced for the one-byte payload 1",
        )
        .push();
    let one_byte_id = f.id_of("payload-one-byte");

    Sources {
        worked: worked_id,
        plus_slash: plus_slash_id,
        one_byte: one_byte_id,
    }
}

// ------------------------------------------------------------------------------------------------
// structure

/// One negative vector: the worked value with one change, breaking the given rules.
struct Case {
    name: String,
    why: String,
    doc: String,
    rules: Vec<Rule>,
    mutation: String,
}

fn case(name: &str, why: &str, doc: &Value, rules: &[Rule], mutation: &str) -> Case {
    Case {
        name: name.to_string(),
        why: why.to_string(),
        doc: text(doc),
        rules: rules.to_vec(),
        mutation: mutation.to_string(),
    }
}

fn structure(out: &mut Vec<Vector>, sources: &Sources) {
    let mut f = Family::new(out, Suite::Aer1Receipt, "structure");
    let mut cases: Vec<Case> = Vec::new();

    // AER1-RC-MEMBERS
    for member in MEMBERS {
        cases.push(case(
            &format!("missing-{}", kebab(member)),
            &format!(
                "The {member} member is absent. A receipt must carry all eight core members (id, \
                 receipt_schema_version, created_at, tool, provenance_class, canonical_bytes, \
                 output_hash, verification_status); the seven present are the worked value's and \
                 valid, so only AER1-RC-MEMBERS fails."
            ),
            &without(member),
            &[Rule::Aer1RcMembers],
            &format!("removed {member}"),
        ));
    }
    cases.push(case(
        "document-is-array",
        "The document is a JSON array holding the worked receipt, not the receipt itself. A receipt \
         is a JSON object; an array is not one, whatever it contains.",
        &json!([worked()]),
        &[Rule::Aer1RcMembers],
        "wrapped the receipt in an array",
    ));

    // AER1-RC-ID
    let ids = [
        (
            "id-uppercase",
            json!(V4_ID.to_uppercase()),
            "id is the worked UUID in uppercase hex. The id must be a lowercase UUID \
             (8-4-4-4-12 lowercase hex digits); uppercase is rejected.",
        ),
        (
            "id-not-a-uuid",
            json!("receipt-0001"),
            "id is the string receipt-0001, not 8-4-4-4-12 lowercase hex digits with hyphens.",
        ),
        (
            "id-not-a-string",
            json!(12345),
            "id is the JSON number 12345, not a string; the id must be a lowercase UUID string.",
        ),
        (
            "id-trailing-newline",
            json!(format!("{V4_ID}\n")),
            "id is the worked UUID followed by a newline (the kit's revision-09 vector \
             id-trailing-newline, which the kit rejects). The id is matched against the whole \
             string; a regular expression anchored with $ (which in Python and other engines also \
             matches just before a final newline) would wrongly accept it.",
        ),
    ];
    for (name, value, why) in ids {
        cases.push(case(
            name,
            why,
            &with("id", value.clone()),
            &[Rule::Aer1RcId],
            &format!("id set to {value}"),
        ));
    }

    // AER1-RC-SCHEMA-VERSION
    cases.push(case(
        "schema-version-empty",
        "receipt_schema_version is the empty string; it must be a non-empty string.",
        &with("receipt_schema_version", json!("")),
        &[Rule::Aer1RcSchemaVersion],
        "receipt_schema_version set to \"\"",
    ));
    cases.push(case(
        "schema-version-not-a-string",
        "receipt_schema_version is the JSON number 0.3, not the string \"0.3\"; it must be a \
         non-empty string.",
        &with("receipt_schema_version", json!(0.3)),
        &[Rule::Aer1RcSchemaVersion],
        "receipt_schema_version set to the number 0.3",
    ));

    // AER1-RC-CREATED-AT
    let times = [
        ("created-at-february-30", "2026-02-30T00:00:00Z", "names 30 February, a day that does not exist"),
        (
            "created-at-1900-02-29",
            "1900-02-29T00:00:00Z",
            "names 29 February 1900; 1900 is divisible by 100 and not by 400, so by the century \
             rule it is not a leap year",
        ),
        ("created-at-2023-02-29", "2023-02-29T00:00:00Z", "names 29 February 2023; 2023 is not a leap year"),
        (
            "created-at-second-60",
            "2026-12-31T23:59:60Z",
            "has second 60. RFC 3339 allows a leap second, but the kit (and this suite) accepts \
             seconds 00-59 only",
        ),
        ("created-at-hour-24", "2026-10-01T24:00:00Z", "has hour 24; hours are 00-23"),
        (
            "created-at-lowercase-t",
            "2026-10-01t18:30:00Z",
            "separates date and time with a lowercase t. RFC 3339 permits it, but the kit (and \
             this suite) requires uppercase T",
        ),
        (
            "created-at-lowercase-z",
            "2026-10-01T18:30:00z",
            "ends with a lowercase z. RFC 3339 permits it, but the kit (and this suite) requires \
             uppercase Z",
        ),
        (
            "created-at-space-separator",
            "2026-10-01 18:30:00Z",
            "separates date and time with a space, which the RFC 3339 date-time grammar does not allow",
        ),
        (
            "created-at-no-offset",
            "2026-10-01T18:30:00",
            "has no offset (neither Z nor +HH:MM/-HH:MM); an RFC 3339 date-time must carry one",
        ),
        (
            "created-at-offset-hour-24",
            "2026-10-01T18:30:00+24:00",
            "has offset +24:00; offset hours are 00-23",
        ),
        (
            "created-at-offset-without-colon",
            "2026-10-01T18:30:00+0000",
            "has offset +0000 without the colon RFC 3339 requires",
        ),
        (
            "created-at-trailing-newline",
            "2026-10-01T18:30:00Z\n",
            "is a valid date-time followed by a newline; the whole string must be the date-time",
        ),
    ];
    for (name, value, why) in times {
        cases.push(case(
            name,
            &format!(
                "created_at {value:?} {why}. created_at must be an RFC 3339 date-time naming a \
                 real calendar instant."
            ),
            &with("created_at", json!(value)),
            &[Rule::Aer1RcCreatedAt],
            &format!("created_at set to {value:?}"),
        ));
    }

    // AER1-RC-TOOL
    cases.push(case(
        "tool-not-an-object",
        "tool is the string price_lookup (the shape a timeline entry uses), not an object. In a \
         receipt, tool must be an object with non-empty string members name, version and scope.",
        &with("tool", json!("price_lookup")),
        &[Rule::Aer1RcTool],
        "tool set to the string \"price_lookup\"",
    ));
    let wrong_types = [
        ("name", json!(42)),
        ("version", json!(1.2)),
        ("scope", json!(["read"])),
    ];
    for (member, wrong) in wrong_types {
        cases.push(case(
            &format!("tool-{member}-missing"),
            &format!(
                "tool has no {member} member. tool must carry name, version and scope, each a \
                 non-empty string."
            ),
            &with_tool(member, None),
            &[Rule::Aer1RcTool],
            &format!("removed tool.{member}"),
        ));
        cases.push(case(
            &format!("tool-{member}-empty"),
            &format!("tool.{member} is the empty string; it must be a non-empty string."),
            &with_tool(member, Some(json!(""))),
            &[Rule::Aer1RcTool],
            &format!("tool.{member} set to \"\""),
        ));
        cases.push(case(
            &format!("tool-{member}-not-a-string"),
            &format!("tool.{member} is {wrong}, not a string; it must be a non-empty string."),
            &with_tool(member, Some(wrong.clone())),
            &[Rule::Aer1RcTool],
            &format!("tool.{member} set to {wrong}"),
        ));
    }

    // AER1-RC-PROVENANCE
    let classes = [
        (
            "provenance-trailing-newline",
            "LOGGED BY AGENT\n",
            "is LOGGED BY AGENT followed by a newline. The class is matched against the whole \
             string, so the newline makes it none of the three classes",
        ),
        (
            "provenance-lowercase",
            "logged by agent",
            "is logged by agent in lowercase; the classes are uppercase and matched exactly",
        ),
        (
            "provenance-empty-system",
            "EXECUTED BY ",
            "is EXECUTED BY with an empty system name; the system name must match \
             [A-Z0-9][A-Z0-9 ._-]*, so it needs at least one letter or digit",
        ),
        (
            "provenance-unknown-class",
            "OBSERVED BY AGENT",
            "is OBSERVED BY AGENT, which is not one of EXECUTED BY <SYSTEM>, OBSERVED VIA GATEWAY \
             or LOGGED BY AGENT",
        ),
    ];
    for (name, value, why) in classes {
        cases.push(case(
            name,
            &format!("provenance_class {value:?} {why}."),
            &with("provenance_class", json!(value)),
            &[Rule::Aer1RcProvenance],
            &format!("provenance_class set to {value:?}"),
        ));
    }

    // AER1-RC-B64
    let unpadded = WORKED_B64.trim_end_matches('=');
    let b64_cases = [
        (
            "canonical-bytes-unpadded",
            unpadded.to_string(),
            "is the worked value without its final '='. Standard base64 is padded to a multiple \
             of four characters; the kit rejects the worked value without its padding",
        ),
        (
            "canonical-bytes-embedded-newline",
            format!("{}\n{}", &WORKED_B64[..32], &WORKED_B64[32..]),
            "is the worked value with a line break after 32 characters (MIME-style wrapping). \
             canonical_bytes must be unbroken standard base64: no whitespace",
        ),
        (
            "canonical-bytes-embedded-space",
            format!("{} {}", &WORKED_B64[..32], &WORKED_B64[32..]),
            "is the worked value with a space after 32 characters. canonical_bytes must be \
             standard base64 with no whitespace",
        ),
    ];
    for (name, value, why) in b64_cases {
        cases.push(case(
            name,
            &format!(
                "canonical_bytes {why}. Bytes that do not decode are not hashed, so AER1-RC-UTF8 \
                 and AER1-RC-HASH-MATCH are not judged; only AER1-RC-B64 fails."
            ),
            &with("canonical_bytes", json!(value)),
            &[Rule::Aer1RcB64],
            &format!("canonical_bytes set to {value:?}"),
        ));
    }

    // AER1-RC-UTF8
    let not_utf8: &[u8] = b"{\"city\":\"Z\xfcrich\"}";
    cases.push(case(
        "canonical-bytes-not-utf8",
        "canonical_bytes decodes to {\"city\":\"Z\\xFCrich\"}: ü written as the single Latin-1 byte \
         0xFC, which is not UTF-8. output_hash is the correct SHA-256 of those bytes, so the hash \
         matches; the decoded bytes must still be strict UTF-8, so only AER1-RC-UTF8 fails.",
        &over(not_utf8),
        &[Rule::Aer1RcUtf8],
        "canonical_bytes and output_hash replaced for a Latin-1 (not UTF-8) payload",
    ));

    // AER1-RC-HASH-FORMAT
    let hex_part = &WORKED_HASH["sha256:".len()..];
    let hash_formats = [
        (
            "output-hash-uppercase-hex",
            format!("sha256:{}", hex_part.to_uppercase()),
            "is the right digest in uppercase hex; the hex digits must be lowercase",
        ),
        (
            "output-hash-missing-prefix",
            hex_part.to_string(),
            "is the right digest as bare hex, without the sha256: prefix",
        ),
        (
            "output-hash-63-digits",
            format!("sha256:{}", &hex_part[..63]),
            "is the right digest with its last hex digit dropped: 63 digits instead of 64",
        ),
        (
            "output-hash-trailing-newline",
            format!("{WORKED_HASH}\n"),
            "is the right value followed by a newline. The format is matched against the whole \
             string (a regular expression anchored with $ would also match before the newline)",
        ),
    ];
    for (name, value, why) in hash_formats {
        cases.push(case(
            name,
            &format!(
                "output_hash {why}. output_hash must be sha256: followed by 64 lowercase hex \
                 digits; a malformed value is a format failure, not a mismatch."
            ),
            &with("output_hash", json!(value)),
            &[Rule::Aer1RcHashFormat],
            &format!("output_hash set to {value:?}"),
        ));
    }

    // AER1-RC-HASH-MATCH
    let pretty = br#"{"inputs": {}, "outputs": {"x": 123}, "tool": "t"}"#;
    cases.push(case(
        "output-hash-of-reserialised-json",
        "output_hash is the SHA-256 of the same JSON content written with spaces after ':' and ',', \
         not of the exact bytes canonical_bytes holds. Receipts are not re-canonicalised: the hash \
         must be over the decoded bytes themselves, so it does not match.",
        &with("output_hash", json!(hash_of(pretty))),
        &[Rule::Aer1RcHashMatch],
        "output_hash replaced by the hash of a re-serialisation of the payload",
    ));
    cases.push(case(
        "output-hash-of-base64-text",
        "output_hash is the SHA-256 of the base64 text in canonical_bytes instead of the bytes it \
         decodes to. The hash must be over the decoded bytes, so it does not match.",
        &with("output_hash", json!(hash_of(WORKED_B64.as_bytes()))),
        &[Rule::Aer1RcHashMatch],
        "output_hash replaced by the hash of the base64 text",
    ));

    // AER1-RC-STATUS
    let statuses = [
        (
            "status-unverified",
            json!("unverified"),
            "is \"unverified\"",
        ),
        (
            "status-capitalised",
            json!("Verified"),
            "is \"Verified\" with a capital V",
        ),
        (
            "status-not-a-string",
            json!(true),
            "is the JSON boolean true, not a string",
        ),
        (
            "status-trailing-newline",
            json!("verified\n"),
            "is \"verified\" followed by a newline, which is not the string \"verified\"",
        ),
    ];
    for (name, value, why) in statuses {
        cases.push(case(
            name,
            &format!("verification_status {why}; it must be exactly the string \"verified\"."),
            &with("verification_status", value.clone()),
            &[Rule::Aer1RcStatus],
            &format!("verification_status set to {value}"),
        ));
    }

    for c in cases {
        f.vector(&c.name)
            .revisions(AER1_ALL)
            .describe(&c.why)
            .receipt_text(&c.doc)
            .invalid(&c.rules)
            .derived_from(&sources.worked, &c.mutation)
            .push();
    }

    // The nil UUID. Until issue 10 this vector was invalid on a rule (AER1-RC-ID-NIL) that
    // revision 09 does not have; its id is kept and its expectation corrected.
    f.vector("id-nil")
        .revisions(AER1_ALL)
        .describe(
            "id is the nil UUID 00000000-0000-0000-0000-000000000000. Expectation changed in \
             agentconf 0.2.0 (it was invalid): the nil UUID has the lowercase 8-4-4-4-12 shape of \
             the core id tier, and at revision 09 the draft author's kit accepts it; only revision \
             21 and later reject it. A verifier of revision 09 accepts this receipt under the core \
             tier; one that already follows the later revisions conforms too, and its rejection \
             cites AER1-RC-ID, this suite's id rule (the fact sheet records that revision 21 and \
             later reject nil, not under which of their rules). (Under the strict \
             tier the nil UUID fails the version check: see id-tier/strict-nil-id.)",
        )
        .receipt_text(&text(&with(
            "id",
            json!("00000000-0000-0000-0000-000000000000"),
        )))
        .acceptable(&[Rule::Aer1RcId], &[Flag::KitAccepts, Flag::LaterRevision])
        .derived_from(&sources.worked, "id set to the nil UUID")
        .push();

    // URL-safe alphabet: derived from the valid payload whose encoding uses '/' and '+'.
    let mut url_safe = over(b"???>>>");
    url_safe["canonical_bytes"] = json!("Pz8_Pj4-");
    f.vector("canonical-bytes-url-safe-alphabet")
        .revisions(AER1_ALL)
        .describe(
            "canonical_bytes is Pz8_Pj4-, the URL-safe base64 (RFC 4648 section 5) of ???>>>, whose \
             standard encoding is Pz8/Pj4+; output_hash is the hash of ???>>>. canonical_bytes must \
             use the standard alphabet A-Za-z0-9+/: '-' and '_' are rejected, so only AER1-RC-B64 \
             fails (bytes that do not decode are not hashed).",
        )
        .receipt_text(&text(&url_safe))
        .invalid(&[Rule::Aer1RcB64])
        .derived_from(&sources.plus_slash, "canonical_bytes re-encoded with the URL-safe alphabet")
        .push();

    // Non-zero trailing bits: the lenient decoding equals the canonical one, so the hash matches
    // and only the base64 rule is involved.
    let mut trailing = worked();
    let perturbed = format!("{}1=", &WORKED_B64[..WORKED_B64.len() - 2]);
    assert!(WORKED_B64.ends_with("0="));
    trailing["canonical_bytes"] = json!(perturbed);
    f.vector("canonical-bytes-non-zero-trailing-bits")
        .revisions(AER1_ALL)
        .describe(
            "canonical_bytes is the worked value with its last symbol before '=' changed from 0 to 1 \
             (…In1= instead of …In0=). The data bits are unchanged, so a lenient decoder produces \
             the worked bytes and output_hash (the worked hash) matches; but the two bits past the \
             data are non-zero, so this is not the canonical encoding. RFC 4648 section 3.5 lets a \
             decoder reject it and the reference does; the kit (Python's base64.b64decode) accepts \
             it. Either verdict conforms; a rejection cites AER1-RC-B64.",
        )
        .receipt_text(&text(&trailing))
        .acceptable(&[Rule::Aer1RcB64], &[Flag::KitAccepts])
        .derived_from(&sources.worked, "last base64 symbol before '=' changed from 0 to 1")
        .push();

    let mut trailing2 = over(b"1");
    trailing2["canonical_bytes"] = json!("MR==");
    f.vector("canonical-bytes-non-zero-trailing-bits-double-padding")
        .revisions(AER1_ALL)
        .describe(
            "canonical_bytes is MR== instead of MQ==, the encoding of the single byte '1'. The \
             second symbol carries four bits past the data, and here they are non-zero; a lenient \
             decoder still yields '1', so output_hash (the hash of '1') matches. RFC 4648 section \
             3.5 lets a decoder reject the non-canonical encoding and the reference does; the kit \
             (Python's base64.b64decode) accepts it. Either verdict conforms; a rejection cites \
             AER1-RC-B64.",
        )
        .receipt_text(&text(&trailing2))
        .acceptable(&[Rule::Aer1RcB64], &[Flag::KitAccepts])
        .derived_from(&sources.one_byte, "canonical_bytes MQ== changed to MR==")
        .push();
}

// ------------------------------------------------------------------------------------------------
// id-tier

fn id_tier(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Receipt, "id-tier");

    f.vector("strict-v4-id")
        .revisions(FROM_09)
        .describe(
            "id is a lowercase UUID version 4 (the 13th hex digit, the version, is 4) with the \
             RFC 4122 variant (the 17th hex digit is 8). It satisfies the core tier and the strict tier revision 09 defines for \
             anchored receipts; must verify under the strict tier.",
        )
        .tier(Tier::Strict)
        .receipt_text(&text(&worked()))
        .exercises(&[Rule::Aer1RcId, Rule::Aer1RcIdStrict])
        .valid()
        .push();
    let v4_id = f.id_of("strict-v4-id");

    // Core-valid ids that are not UUID v4 with the RFC 4122 variant.
    let ids = [
        (
            "version-1-id",
            "e80168eb-a6a1-1ec9-8478-ac108f9397ff",
            "a UUID version 1 (the version digit is 1)",
            "version digit changed from 4 to 1",
        ),
        (
            "version-7-id",
            "01928c3b-5e7a-7cc2-9a4e-3b1f0d6e8a21",
            "a UUID version 7 (time-ordered, RFC 9562), with the RFC 4122 variant but version digit 7",
            "id replaced by a UUID version 7",
        ),
        (
            "bad-variant-id",
            "e80168eb-a6a1-4ec9-c478-ac108f9397ff",
            "version 4 but with variant digit c (the Microsoft variant), not the RFC 4122 variant \
             8, 9, a or b",
            "variant digit changed from 8 to c",
        ),
    ];
    for (name, id, what, mutation) in ids {
        let doc = text(&with("id", json!(id)));
        let core_name = format!("core-{name}");
        f.vector(&core_name)
            .revisions(AER1_ALL)
            .describe(&format!(
                "id {id} is {what}. The core id tier asks only for the lowercase 8-4-4-4-12 UUID \
                 shape and a non-nil value, with any version and variant; checked under the core \
                 tier, the receipt must verify."
            ))
            .tier(Tier::Core)
            .receipt_text(&doc)
            .exercises(&[Rule::Aer1RcId])
            .valid()
            .derived_from(&v4_id, mutation)
            .push();
        let core_id = f.id_of(&core_name);
        f.vector(&format!("strict-{name}"))
            .revisions(FROM_09)
            .describe(&format!(
                "id {id} is {what}. It passes the core tier, but the strict id tier of revision 09 \
                 requires a UUID version 4 with the RFC 4122 variant, so under the strict tier the \
                 receipt must be rejected on AER1-RC-ID-STRICT."
            ))
            .tier(Tier::Strict)
            .receipt_text(&doc)
            .invalid(&[Rule::Aer1RcIdStrict])
            .derived_from(
                &core_id,
                "checked under the strict id tier instead of the core tier",
            )
            .push();
    }

    f.vector("strict-nil-id")
        .revisions(FROM_09)
        .describe(
            "id is the nil UUID 00000000-0000-0000-0000-000000000000. It has the core tier's \
             lowercase UUID shape (at revision 09 the core tier accepts it: see \
             structure/id-nil), but its version digit is 0, not 4, and its variant digit is 0, so \
             under the strict id tier of revision 09 the receipt must be rejected on \
             AER1-RC-ID-STRICT.",
        )
        .tier(Tier::Strict)
        .receipt_text(&text(&with(
            "id",
            json!("00000000-0000-0000-0000-000000000000"),
        )))
        .invalid(&[Rule::Aer1RcIdStrict])
        .derived_from(&v4_id, "id set to the nil UUID")
        .push();

    f.vector("strict-uppercase-v4-id")
        .revisions(FROM_09)
        .describe(
            "id is a version-4, RFC 4122-variant UUID written in uppercase hex. The strict tier is \
             the core tier plus version and variant; the id already fails the core tier's lowercase \
             shape, so under the strict tier it is rejected on AER1-RC-ID (its version and variant \
             digits are fine).",
        )
        .tier(Tier::Strict)
        .receipt_text(&text(&with("id", json!(V4_ID.to_uppercase()))))
        .invalid(&[Rule::Aer1RcId])
        .derived_from(&v4_id, "id written in uppercase hex")
        .push();
}

// ------------------------------------------------------------------------------------------------
// anchored

/// The anchored tier's rules (besides the strict id), for the valid vector.
const ANCHOR_RULES: &[Rule] = &[
    Rule::Aer1RcAnchorMembers,
    Rule::Aer1RcAnchorLog,
    Rule::Aer1RcAnchorLeafFormat,
    Rule::Aer1RcAnchorLeafMatch,
    Rule::Aer1RcAnchorTime,
    Rule::Aer1RcAnchorProof,
];

/// A well-formed anchor for the worked value: leaf_hash is the SHA-256 of the worked bytes
/// (computed here with sha2). The proof's contents are made up; the tier checks it is an object.
fn anchor() -> Value {
    json!({
        "log": "https://log.example/aer1",
        "leaf_hash": hash_of(WORKED_BYTES),
        "anchored_at": "2026-10-01T18:31:00Z",
        "proof": {
            "tree_size": 8,
            "leaf_index": 3,
            "audit_path": [hash_of(b"sibling-0"), hash_of(b"sibling-1"), hash_of(b"sibling-2")],
        },
    })
}

/// The worked value with a well-formed anchor (its id is already v4 with the RFC 4122 variant).
fn anchored_doc() -> Value {
    let mut r = worked();
    r["anchor"] = anchor();
    r
}

/// The anchored receipt with one anchor member replaced (`Some`) or removed (`None`).
fn with_anchor(member: &str, value: Option<Value>) -> Value {
    let mut r = anchored_doc();
    if let Some(a) = r["anchor"].as_object_mut() {
        match value {
            Some(v) => {
                a.insert(member.to_string(), v);
            }
            None => {
                a.remove(member);
            }
        }
    }
    r
}

fn anchored(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Receipt, "anchored");
    f.vector("valid")
        .revisions(FROM_09)
        .describe(
            "The worked receipt with an anchor: log https://log.example/aer1 (a non-empty string), \
             leaf_hash sha256:65c8ba37... (the SHA-256 of the decoded canonical_bytes, as the \
             output_hash), anchored_at 2026-10-01T18:31:00Z (a calendar-valid RFC 3339 instant) \
             and proof (an object), and no other member; the id is a UUID v4 with the RFC 4122 \
             variant. This is the kit's valid anchored vector of revision 09; must verify under the \
             anchored tier. (The tier checks the proof is an object, not that the log holds the leaf.)",
        )
        .tier(Tier::Anchored)
        .receipt_text(&text(&anchored_doc()))
        .exercises(&[Rule::Aer1RcId, Rule::Aer1RcIdStrict])
        .exercises(ANCHOR_RULES)
        .valid()
        .push();
    let valid_id = f.id_of("valid");

    // One anchor rule broken at a time, under the anchored tier.
    let other_bytes = br#"{"inputs":{},"outputs":{"x":124},"tool":"t"}"#;
    let leaf_hex = &WORKED_HASH["sha256:".len()..];
    let cases: Vec<(&str, Value, Rule, String, String)> = vec![
        (
            "bad-leaf-hash",
            with_anchor("leaf_hash", Some(json!(hash_of(other_bytes)))),
            Rule::Aer1RcAnchorLeafMatch,
            "anchor.leaf_hash is well-formed but is the SHA-256 of other bytes (the payload with \
             x 124 instead of 123), not of the decoded canonical_bytes. The kit's revision-09 \
             anchored vector \"bad leaf hash\": the leaf must be the hash of the receipt's own bytes."
                .into(),
            "anchor.leaf_hash set to the hash of another payload".into(),
        ),
        (
            "leaf-hash-of-base64-text",
            with_anchor("leaf_hash", Some(json!(hash_of(WORKED_B64.as_bytes())))),
            Rule::Aer1RcAnchorLeafMatch,
            "anchor.leaf_hash is the SHA-256 of the base64 text in canonical_bytes instead of the \
             bytes it decodes to; the leaf is the hash of the decoded bytes, so it does not match."
                .into(),
            "anchor.leaf_hash set to the hash of the base64 text".into(),
        ),
        (
            "leaf-hash-uppercase-hex",
            with_anchor("leaf_hash", Some(json!(format!("sha256:{}", leaf_hex.to_uppercase())))),
            Rule::Aer1RcAnchorLeafFormat,
            "anchor.leaf_hash is the right digest in uppercase hex; it must be sha256: followed by \
             64 lowercase hex digits (a malformed leaf is a format failure, not a mismatch)."
                .into(),
            "anchor.leaf_hash written in uppercase hex".into(),
        ),
        (
            "leaf-hash-missing-prefix",
            with_anchor("leaf_hash", Some(json!(leaf_hex))),
            Rule::Aer1RcAnchorLeafFormat,
            "anchor.leaf_hash is the right digest as bare hex, without the sha256: prefix; it must \
             be sha256: followed by 64 lowercase hex digits."
                .into(),
            "sha256: prefix removed from anchor.leaf_hash".into(),
        ),
        (
            "leaf-hash-trailing-newline",
            with_anchor("leaf_hash", Some(json!(format!("{WORKED_HASH}\n")))),
            Rule::Aer1RcAnchorLeafFormat,
            "anchor.leaf_hash is the right value followed by a newline; the format is matched \
             against the whole string."
                .into(),
            "newline appended to anchor.leaf_hash".into(),
        ),
        (
            "impossible-timestamp",
            with_anchor("anchored_at", Some(json!("2026-02-30T18:31:00Z"))),
            Rule::Aer1RcAnchorTime,
            "anchor.anchored_at is 2026-02-30T18:31:00Z: RFC 3339 in shape, but 30 February does not \
             exist. The kit's revision-09 anchored vector \"impossible timestamp\": anchored_at must \
             name a real calendar instant, under the same rules as created_at."
                .into(),
            "anchor.anchored_at set to 30 February".into(),
        ),
        (
            "anchored-at-not-a-string",
            with_anchor("anchored_at", Some(json!(1_790_880_660))),
            Rule::Aer1RcAnchorTime,
            "anchor.anchored_at is the JSON number 1790880660 (seconds since 1970), not an RFC 3339 \
             date-time string."
                .into(),
            "anchor.anchored_at replaced by a Unix timestamp".into(),
        ),
        (
            "log-not-a-string",
            with_anchor("log", Some(json!(42))),
            Rule::Aer1RcAnchorLog,
            "anchor.log is the JSON number 42; it must be a non-empty string naming the log.".into(),
            "anchor.log set to 42".into(),
        ),
        (
            "log-empty",
            with_anchor("log", Some(json!(""))),
            Rule::Aer1RcAnchorLog,
            "anchor.log is the empty string; it must be a non-empty string.".into(),
            "anchor.log set to \"\"".into(),
        ),
        (
            "proof-not-an-object",
            with_anchor("proof", Some(json!("inclusion-proof-17"))),
            Rule::Aer1RcAnchorProof,
            "anchor.proof is the string inclusion-proof-17; it must be an object.".into(),
            "anchor.proof set to a string".into(),
        ),
        (
            "proof-array",
            with_anchor("proof", Some(json!([hash_of(b"sibling-0")]))),
            Rule::Aer1RcAnchorProof,
            "anchor.proof is an array holding one hash (an audit path without its object); it must \
             be an object."
                .into(),
            "anchor.proof set to an array".into(),
        ),
        (
            "extra-member",
            with_anchor("signature", Some(json!("not part of the anchor"))),
            Rule::Aer1RcAnchorMembers,
            "The anchor has a fifth member, signature. The kit's revision-09 anchored vector \
             \"extra member\": the anchor has exactly the members log, leaf_hash, anchored_at and \
             proof (unlike the receipt itself, which may carry extra members)."
                .into(),
            "member signature added to the anchor".into(),
        ),
        (
            "anchor-not-an-object",
            with("anchor", json!("https://log.example/aer1/entries/17")),
            Rule::Aer1RcAnchorMembers,
            "anchor is a string (a URL of a log entry), not an object with log, leaf_hash, \
             anchored_at and proof."
                .into(),
            "anchor replaced by a string".into(),
        ),
        (
            "anchor-missing",
            worked(),
            Rule::Aer1RcAnchorMembers,
            "The receipt carries no anchor at all, and it is checked under the anchored tier. The \
             anchored tier needs the anchor object; a verifier that accepts here reports a tier it \
             never checked."
                .into(),
            "anchor removed".into(),
        ),
    ];
    for (name, doc, rule, why, mutation) in cases {
        f.vector(name)
            .revisions(FROM_09)
            .describe(&format!(
                "{why} Under the anchored tier the receipt must be rejected on {}; the receipt and \
                 the rest of the anchor are the valid anchored vector's.",
                rule.id()
            ))
            .tier(Tier::Anchored)
            .receipt_text(&text(&doc))
            .invalid(&[rule])
            .derived_from(&valid_id, &mutation)
            .push();
    }
    for member in ["log", "leaf_hash", "anchored_at", "proof"] {
        let kit = if member == "proof" {
            " This is the kit's revision-09 anchored vector \"missing proof\"."
        } else {
            ""
        };
        f.vector(&format!("missing-{}", kebab(member)))
            .revisions(FROM_09)
            .describe(&format!(
                "The anchor has no {member} member.{kit} The anchor must carry exactly log, \
                 leaf_hash, anchored_at and proof; under the anchored tier the receipt must be \
                 rejected on AER1-RC-ANCHOR-MEMBERS."
            ))
            .tier(Tier::Anchored)
            .receipt_text(&text(&with_anchor(member, None)))
            .invalid(&[Rule::Aer1RcAnchorMembers])
            .derived_from(&valid_id, &format!("anchor.{member} removed"))
            .push();
    }

    let mut v1 = anchored_doc();
    v1["id"] = json!("e80168eb-a6a1-1ec9-8478-ac108f9397ff");
    f.vector("non-v4-id")
        .revisions(FROM_09)
        .describe(
            "A well-formed anchor bound to the bytes, but the id e80168eb-a6a1-1ec9-... is a UUID \
             version 1 (core shape, not v4). The anchored tier requires the strict id tier, so the \
             receipt must be rejected on AER1-RC-ID-STRICT, and on nothing else.",
        )
        .tier(Tier::Anchored)
        .receipt_text(&text(&v1))
        .invalid(&[Rule::Aer1RcIdStrict])
        .derived_from(&valid_id, "id version digit changed from 4 to 1")
        .push();

    // An invalid anchor where the anchored tier is not asked for: an extra member, no more.
    let broken = with_anchor("leaf_hash", Some(json!(hash_of(other_bytes))));
    let bad_leaf_id = f.id_of("bad-leaf-hash");
    f.vector("bad-anchor-under-core")
        .revisions(AER1_ALL)
        .describe(
            "The receipt of bad-leaf-hash (its anchor.leaf_hash is the hash of other bytes), checked \
             under the core tier. The core tier does not check anchors: the anchor is an extra \
             member, which may appear and does not change the meaning of the core members, so the \
             receipt must verify. (A verifier must then not report the anchored tier as met.)",
        )
        .tier(Tier::Core)
        .receipt_text(&text(&broken))
        .exercises(&[Rule::Aer1RcMembers, Rule::Aer1RcAnchorLeafMatch])
        .valid()
        .derived_from(&bad_leaf_id, "checked under the core tier")
        .push();
    f.vector("bad-anchor-under-strict")
        .revisions(FROM_09)
        .describe(
            "The receipt of bad-leaf-hash, checked under the strict id tier. The strict tier adds \
             the v4 id check (which passes) and nothing about anchors, so the anchor is an extra \
             member and the receipt must verify.",
        )
        .tier(Tier::Strict)
        .receipt_text(&text(&broken))
        .exercises(&[Rule::Aer1RcIdStrict, Rule::Aer1RcAnchorLeafMatch])
        .valid()
        .derived_from(&bad_leaf_id, "checked under the strict tier")
        .push();
}

// ------------------------------------------------------------------------------------------------
// profile

fn profile(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Receipt, "profile");
    f.vector("payload-with-inputs")
        .revisions(AER1_ALL)
        .describe(
            "The kit's worked value: its decoded payload {\"inputs\":{},\"outputs\":{\"x\":123},\
             \"tool\":\"t\"} is a JSON object carrying inputs, as the producer profile asks; must \
             verify under the profile tier.",
        )
        .tier(Tier::Profile)
        .receipt_text(&text(&worked()))
        .exercises(&[Rule::Aer1RcProfileInputs])
        .valid()
        .push();
    let with_inputs = f.id_of("payload-with-inputs");

    let no_inputs = br#"{"outputs":{"x":123},"tool":"t"}"#;
    f.vector("missing-inputs")
        .revisions(AER1_ALL)
        .describe(
            "The decoded payload is {\"outputs\":{\"x\":123},\"tool\":\"t\"}: a JSON object without \
             inputs (output_hash matches it). The kit's vector invalid-profile/missing-inputs: it \
             fails the producer profile, so under the profile tier the receipt must be rejected on \
             AER1-RC-PROFILE-INPUTS.",
        )
        .tier(Tier::Profile)
        .receipt_text(&text(&over(no_inputs)))
        .invalid(&[Rule::Aer1RcProfileInputs])
        .derived_from(&with_inputs, "inputs removed from the payload, hashes recomputed")
        .push();
    let missing_inputs_id = f.id_of("missing-inputs");
    f.vector("missing-inputs-under-core")
        .revisions(AER1_ALL)
        .describe(
            "The receipt of missing-inputs (a payload object without inputs), checked under the \
             core tier. Interoperable verifiers must still accept receipts without inputs: the \
             kit's invalid-profile/missing-inputs passes core. Must verify.",
        )
        .tier(Tier::Core)
        .receipt_text(&text(&over(no_inputs)))
        .exercises(&[Rule::Aer1RcHashMatch, Rule::Aer1RcProfileInputs])
        .valid()
        .derived_from(&missing_inputs_id, "checked under the core tier")
        .push();

    let cases: [(&str, &[u8], &str); 3] = [
        (
            "payload-not-an-object",
            br#"[{"inputs":{},"outputs":{"x":123}}]"#,
            "The decoded payload is a JSON array holding an object with inputs, not itself an \
             object",
        ),
        (
            "payload-not-json",
            b"inputs: {}, outputs: {x: 123}",
            "The decoded payload is the text inputs: {}, outputs: {x: 123}, which is not JSON",
        ),
        (
            "inputs-only-nested",
            br#"{"outputs":{"inputs":{},"x":123},"tool":"t"}"#,
            "The decoded payload is a JSON object whose only inputs member is inside outputs; the \
             payload object itself does not carry inputs",
        ),
    ];
    for (name, bytes, why) in cases {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(&format!(
                "{why} (output_hash matches the bytes). The producer profile needs the decoded \
                 payload to be a JSON object carrying inputs, so under the profile tier the receipt \
                 must be rejected on AER1-RC-PROFILE-INPUTS (under the core tier it would verify)."
            ))
            .tier(Tier::Profile)
            .receipt_text(&text(&over(bytes)))
            .invalid(&[Rule::Aer1RcProfileInputs])
            .derived_from(&with_inputs, "payload replaced, hashes recomputed")
            .push();
    }
}

// ------------------------------------------------------------------------------------------------
// hostile

fn hostile(out: &mut Vec<Vector>, sources: &Sources) {
    let mut f = Family::new(out, Suite::Aer1Receipt, "hostile");
    let base = text(&worked());

    let dup_status = edit(
        &base,
        "\"verification_status\": \"verified\"",
        "\"verification_status\": \"verified\",\n  \"verification_status\": \"verified\"",
    );
    f.vector("duplicate-member-same-value")
        .revisions(AER1_ALL)
        .describe(
            "verification_status appears twice with the same value. Duplicate member names make a \
             JSON document ambiguous (RFC 8259 section 4; forbidden by I-JSON, RFC 7493 section 2.3) \
             and this suite grades rejecting them as SHOULD. The kit reads JSON as Python does, \
             keeping the last value, and accepts. Either verdict conforms; a rejection cites \
             AER1-JSON-DUPLICATE.",
        )
        .receipt_text(&dup_status)
        .acceptable(&[Rule::Aer1JsonDuplicate], DUPLICATE_FLAGS)
        .derived_from(&sources.worked, "verification_status repeated with the same value")
        .push();

    let dup_conflict = edit(
        &base,
        "\"verification_status\": \"verified\"",
        "\"verification_status\": \"unverified\",\n  \"verification_status\": \"verified\"",
    );
    f.vector("duplicate-member-conflicting-values")
        .revisions(AER1_ALL)
        .describe(
            "verification_status appears twice: first \"unverified\", then \"verified\". A parser \
             that keeps the last value (Python, and so the kit) sees a valid receipt; one that keeps \
             the first sees an invalid status. The document is ambiguous, rejecting duplicate names \
             is graded SHOULD (I-JSON, RFC 7493 section 2.3), and the kit accepts. Either verdict \
             conforms; a rejection cites AER1-JSON-DUPLICATE.",
        )
        .receipt_text(&dup_conflict)
        .acceptable(&[Rule::Aer1JsonDuplicate], DUPLICATE_FLAGS)
        .derived_from(&sources.worked, "verification_status preceded by a duplicate \"unverified\"")
        .push();

    let dup_nested = edit(
        &base,
        "\"name\": \"price_lookup\"",
        "\"name\": \"other_tool\",\n    \"name\": \"price_lookup\"",
    );
    f.vector("duplicate-member-in-tool")
        .revisions(AER1_ALL)
        .describe(
            "tool.name appears twice inside the tool object (other_tool, then price_lookup). Both \
             values are valid, but which tool the receipt names depends on the parser. Rejecting \
             duplicate names is graded SHOULD (I-JSON, RFC 7493 section 2.3) and the kit, keeping \
             the last value, accepts. Either verdict conforms; a rejection cites AER1-JSON-DUPLICATE.",
        )
        .receipt_text(&dup_nested)
        .acceptable(&[Rule::Aer1JsonDuplicate], DUPLICATE_FLAGS)
        .derived_from(&sources.worked, "tool.name preceded by a duplicate name with another value")
        .push();

    let surrogate = edit(&base, "\"price_lookup\"", "\"price_\\ud800lookup\"");
    f.vector("lone-surrogate-in-tool-name")
        .revisions(AER1_ALL)
        .describe(
            "tool.name contains the escape \\ud800, a high surrogate with no low surrogate after it. \
             It names no character and has no UTF-8 form (RFC 7493 section 2.1 rules it out); this \
             suite grades rejecting it as SHOULD. Python's json (and so the kit) accepts lone \
             surrogates and the rest of the receipt is valid. Either verdict conforms; a rejection \
             cites AER1-JSON-SURROGATE.",
        )
        .receipt_text(&surrogate)
        .acceptable(
            &[Rule::Aer1JsonSurrogate],
            &[Flag::ShouldLevel, Flag::Interpretation, Flag::KitAccepts],
        )
        .derived_from(&sources.worked, "\\ud800 inserted into tool.name")
        .push();

    // A receipt saved in Latin-1: the ü of the tool name is the single byte 0xFC.
    let mut latin1_doc = worked();
    latin1_doc["tool"]["name"] = json!("preis_abfrage_f#r");
    let mut latin1 = text(&latin1_doc).into_bytes();
    let at = latin1
        .iter()
        .position(|b| *b == b'#')
        .expect("generator bug: no marker");
    latin1[at] = 0xfc;
    f.vector("file-not-utf8")
        .revisions(AER1_ALL)
        .describe(
            "The receipt file is not UTF-8: tool.name preis_abfrage_für was saved in Latin-1, so ü \
             is the lone byte 0xFC. JSON exchanged between systems must be UTF-8 (RFC 8259 section \
             8.1) and AER-1 has no other encoding; the document must be rejected.",
        )
        .input("receipt", "receipt.json", &latin1)
        .invalid(&[Rule::Aer1JsonUtf8])
        .derived_from(&sources.worked, "tool.name set to preis_abfrage_für encoded in Latin-1")
        .push();

    f.vector("empty-file")
        .revisions(AER1_ALL)
        .describe(
            "The receipt file is empty. A JSON text must contain a value, so this is not JSON and \
             not a receipt; must be rejected.",
        )
        .input("receipt", "receipt.json", b"")
        .invalid(&[Rule::Aer1JsonSyntax])
        .push();

    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(base.as_bytes());
    f.vector("byte-order-mark")
        .revisions(AER1_ALL)
        .describe(
            "The worked receipt preceded by a UTF-8 byte order mark (EF BB BF). RFC 8259 section 8.1 \
             forbids adding a BOM but lets a parser ignore it rather than treat it as an error, so \
             either verdict conforms; a rejection cites AER1-JSON-SYNTAX.",
        )
        .input("receipt", "receipt.json", &bom)
        .acceptable(&[Rule::Aer1JsonSyntax], &[Flag::ParserLatitude])
        .derived_from(&sources.worked, "UTF-8 byte order mark prepended")
        .push();

    let cut = base.find("\"output_hash\"").unwrap_or(base.len() / 2);
    f.vector("truncated-document")
        .revisions(AER1_ALL)
        .describe(
            "The receipt file ends in the middle of the object, before output_hash (as after an \
             interrupted write). It is not a complete JSON text; must be rejected.",
        )
        .receipt_text(&base[..cut])
        .invalid(&[Rule::Aer1JsonSyntax])
        .derived_from(
            &sources.worked,
            "file cut off before the output_hash member",
        )
        .push();

    f.vector("trailing-data")
        .revisions(AER1_ALL)
        .describe(
            "The file holds the worked receipt followed by a second JSON object. A JSON text is one \
             value; data after it makes the file not JSON, so it must be rejected rather than \
             verified on its first value.",
        )
        .receipt_text(&format!("{base}{{\"verification_status\": \"unverified\"}}\n"))
        .invalid(&[Rule::Aer1JsonSyntax])
        .derived_from(&sources.worked, "a second JSON object appended")
        .push();

    let huge = edit(&base, "{\n", "{\n  \"x_amount\": 1e400,\n");
    f.vector("number-out-of-double-range")
        .revisions(AER1_ALL)
        .describe(
            "An extra member x_amount holds 1e400, beyond the range of an IEEE 754 double. I-JSON \
             (RFC 7493 section 2.2) rules such numbers out and this suite grades rejecting them as \
             SHOULD; Python's json (and so the kit) reads it as infinity, and the member is not a \
             core member, so the kit accepts. Either verdict conforms; a rejection cites \
             AER1-JSON-NUMBER.",
        )
        .receipt_text(&huge)
        .acceptable(
            &[Rule::Aer1JsonNumber],
            &[Flag::ShouldLevel, Flag::Interpretation, Flag::KitAccepts],
        )
        .derived_from(&sources.worked, "extra member x_amount: 1e400 added")
        .push();

    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let deep = edit(&base, "{\n", &format!("{{\n  \"x_nested\": {nested},\n"));
    f.vector("nesting-200-deep")
        .revisions(AER1_ALL)
        .describe(
            "An extra member x_nested holds 200 nested empty arrays. The draft sets no nesting \
             limit; this suite lets verifiers bound nesting (the reference stops at 127 levels) to \
             protect recursive parsers, graded SHOULD. Python's json (and so the kit) reads 200 \
             levels and accepts. Either verdict conforms; a rejection cites AER1-JSON-DEPTH.",
        )
        .receipt_text(&deep)
        .acceptable(
            &[Rule::Aer1JsonDepth],
            &[Flag::ShouldLevel, Flag::Interpretation, Flag::KitAccepts],
        )
        .derived_from(
            &sources.worked,
            "extra member x_nested with 200 nested arrays added",
        )
        .push();

    let compact = serde_json::to_string(&worked()).unwrap_or_default();
    f.vector("compact-with-surrounding-whitespace")
        .revisions(AER1_ALL)
        .describe(
            "The worked receipt on one line, preceded and followed by JSON whitespace (CR LF, tab, \
             spaces). Insignificant whitespace around a JSON value is allowed; must verify.",
        )
        .receipt_text(&format!("\r\n\t {compact} \r\n"))
        .exercises(&[Rule::Aer1JsonSyntax])
        .valid()
        .derived_from(&sources.worked, "written compactly with whitespace before and after")
        .push();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_value_constants_agree_with_an_independent_encoder() {
        assert_eq!(b64(WORKED_BYTES), WORKED_B64);
        assert_eq!(hash_of(WORKED_BYTES), WORKED_HASH);
        assert_eq!(hash_of(b""), EMPTY_HASH);
    }

    #[test]
    fn perturbed_trailing_bits_decode_leniently_to_the_same_bytes() {
        use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
        let lenient = GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            GeneralPurposeConfig::new()
                .with_decode_allow_trailing_bits(true)
                .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
        );
        let perturbed = format!("{}1=", &WORKED_B64[..WORKED_B64.len() - 2]);
        assert_eq!(lenient.decode(&perturbed).unwrap(), WORKED_BYTES);
        assert!(STANDARD.decode(&perturbed).is_err());
        assert_eq!(lenient.decode("MR==").unwrap(), b"1");
        assert!(STANDARD.decode("MR==").is_err());
    }
}
