//! Grading a receipt producer: the receipt an implementation wrote for `PAYLOAD` and `META`
//! (`aer1-emit-receipt`), against what the draft makes of them.
//!
//! Only two members depend on the payload, and both are exact: `canonical_bytes` decodes to
//! the payload byte for byte (`AER1-RC-BYTES-KEPT`: a producer that parses and re-serialises it
//! fails) in padded standard base64 (`AER1-RC-B64`), and `output_hash` is `sha256:` and the
//! lowercase hex SHA-256 of those bytes (`-HASH-FORMAT`, `-HASH-MATCH`). Every other member is
//! `META`'s, written as given, and `verification_status` is `verified`. Members of other names
//! are free (the draft allows extra members). One defect, one fault: when the bytes are not
//! the payload, the hash is judged against the bytes the producer did write.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;

use agentconf_contract::case::Case;
use agentconf_contract::emit::ReceiptMeta;
use agentconf_rules::Rule;

use super::fault::{shown, wrong_output, EmitFault, EmitGrade};
use crate::preimage::digest_hex;
use crate::status::Status;

/// A receipt as a producer wrote it; members of other names are allowed and ignored. (A member
/// given twice is found in the text, [`crate::repeated`]: a value keeps only the last.)
#[derive(Deserialize)]
struct Written {
    id: Value,
    receipt_schema_version: Value,
    created_at: Value,
    tool: Value,
    provenance_class: Value,
    canonical_bytes: Value,
    output_hash: Value,
    verification_status: Value,
}

/// Grades a receipt producer's standard output for case `c` (an `aer1-emit-receipt` vector).
pub(crate) fn grade(c: &Case<'_>, stdout: &[u8]) -> EmitGrade {
    let v = c.vector;
    let (Some(payload), Some(meta)) = (v.input_bytes("payload"), v.input_bytes("meta")) else {
        return EmitGrade::of(Status::Crash, "the vector lacks its payload or meta input");
    };
    let meta = match ReceiptMeta::parse(&meta) {
        Ok(m) => m,
        Err(e) => return EmitGrade::of(Status::Crash, format!("the vector's meta: {e}")),
    };
    let faults = compare(&payload, &meta, stdout);
    if faults.is_empty() {
        return EmitGrade::of(
            Status::Pass,
            format!(
                "the receipt of the {}-byte payload, output_hash sha256:{}",
                payload.len(),
                digest_hex(&payload)
            ),
        );
    }
    wrong_output(&faults)
}

/// The faults of `emitted` against the receipt of `payload` with `meta`'s members. Empty when
/// they agree on every member the draft binds.
pub(crate) fn compare(payload: &[u8], meta: &ReceiptMeta, emitted: &[u8]) -> Vec<EmitFault> {
    let fault = |rule, member, message: String| EmitFault {
        rule,
        entry: None,
        member,
        message,
    };
    let value = match super::read_object(emitted, Rule::Aer1RcMembers) {
        Ok(o) => Value::Object(o),
        Err(f) => return vec![f],
    };
    let written = match Written::deserialize(&value) {
        Ok(w) => w,
        Err(e) => {
            return vec![fault(
                Rule::Aer1RcMembers,
                None,
                format!("not a receipt with the draft's members ({e})"),
            )]
        }
    };
    let mut faults = Vec::new();
    if let Some(name) = std::str::from_utf8(emitted)
        .ok()
        .and_then(crate::repeated::repeated_member)
    {
        faults.push(fault(
            Rule::Aer1RcMembers,
            None,
            super::repeated_message(&name),
        ));
    }
    let tool = serde_json::json!({
        "name": meta.tool.name,
        "version": meta.tool.version,
        "scope": meta.tool.scope,
    });
    for (member, got, want, rule) in [
        (
            "id",
            &written.id,
            Value::from(meta.id.as_str()),
            Rule::Aer1RcId,
        ),
        (
            "receipt_schema_version",
            &written.receipt_schema_version,
            Value::from(meta.receipt_schema_version.as_str()),
            Rule::Aer1RcSchemaVersion,
        ),
        (
            "created_at",
            &written.created_at,
            Value::from(meta.created_at.as_str()),
            Rule::Aer1RcCreatedAt,
        ),
        (
            "provenance_class",
            &written.provenance_class,
            Value::from(meta.provenance_class.as_str()),
            Rule::Aer1RcProvenance,
        ),
    ] {
        if *got != want {
            faults.push(fault(
                rule,
                Some(member),
                format!("{} where META gives {}", shown(got), shown(&want)),
            ));
        }
    }
    if written.verification_status != "verified" {
        faults.push(fault(
            Rule::Aer1RcStatus,
            Some("verification_status"),
            format!(
                "{} where the draft requires \"verified\"",
                shown(&written.verification_status)
            ),
        ));
    }
    // The tool object: its three members as META gives them; others are free.
    let tool_differs = ["name", "version", "scope"]
        .iter()
        .any(|m| written.tool.get(m) != tool.get(m));
    if !written.tool.is_object() || tool_differs {
        faults.push(fault(
            Rule::Aer1RcTool,
            Some("tool"),
            format!("{} where META gives {}", shown(&written.tool), shown(&tool)),
        ));
    }
    // The bytes, then the hash of the bytes that were written.
    let hashed: Option<Vec<u8>> = match written.canonical_bytes.as_str() {
        None => {
            faults.push(fault(
                Rule::Aer1RcB64,
                Some("canonical_bytes"),
                format!("{} is not a string", shown(&written.canonical_bytes)),
            ));
            None
        }
        Some(b64) => {
            let engine = base64::engine::general_purpose::STANDARD;
            match engine.decode(b64) {
                Ok(bytes) if engine.encode(&bytes) == b64 => {
                    if bytes != payload {
                        faults.push(fault(
                            Rule::Aer1RcBytesKept,
                            Some("canonical_bytes"),
                            not_kept(payload, &bytes),
                        ));
                    }
                    Some(bytes)
                }
                _ => {
                    faults.push(fault(
                        Rule::Aer1RcB64,
                        Some("canonical_bytes"),
                        format!(
                            "{} is not padded standard base64 (the payload's is {})",
                            shown(&written.canonical_bytes),
                            shown(&Value::from(engine.encode(payload)))
                        ),
                    ));
                    None
                }
            }
        }
    };
    let hash = written.output_hash.as_str();
    let well_formed = hash.is_some_and(|h| {
        h.strip_prefix("sha256:").is_some_and(|hex| {
            hex.len() == 64
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
    });
    let expected = format!(
        "sha256:{}",
        digest_hex(hashed.as_deref().unwrap_or(payload))
    );
    // Bytes that do not decode were one fault already: their hash is not judged again.
    if hashed.is_none() && well_formed {
        return faults;
    }
    if !well_formed {
        faults.push(fault(
            Rule::Aer1RcHashFormat,
            Some("output_hash"),
            format!(
                "{} is not sha256: and 64 lowercase hex digits (expected {expected})",
                shown(&written.output_hash)
            ),
        ));
    } else if hash != Some(expected.as_str()) {
        faults.push(fault(
            Rule::Aer1RcHashMatch,
            Some("output_hash"),
            format!(
                "{} is not the SHA-256 of the bytes ({expected})",
                shown(&written.output_hash)
            ),
        ));
    }
    faults
}

/// Says how the written bytes depart from the payload: lengths and the first differing byte.
fn not_kept(payload: &[u8], got: &[u8]) -> String {
    let at = payload
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(payload.len().min(got.len()));
    let around = |b: &[u8]| {
        let end = (at + 16).min(b.len());
        let start = at.saturating_sub(8).min(end);
        b[start..end].escape_ascii().to_string()
    };
    format!(
        "decodes to {} bytes that are not the payload's {} (first differing byte at {at}: \
         expected …{}…, got …{}…): the producer must keep the bytes it was given, never parse \
         and re-serialise them",
        got.len(),
        payload.len(),
        around(payload),
        around(got)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentconf_contract::emit::ReceiptTool;

    fn meta() -> ReceiptMeta {
        ReceiptMeta {
            id: "0b4e5f2a-6c1d-4e8f-9a3b-2c7d1e0f5a6b".into(),
            receipt_schema_version: "0.3".into(),
            created_at: "2026-10-01T18:30:00Z".into(),
            tool: ReceiptTool {
                name: "t".into(),
                version: "1".into(),
                scope: "read".into(),
            },
            provenance_class: "EXECUTED BY ZAMBO".into(),
        }
    }

    /// The kit's worked value (AER1.md section 1): these bytes, this hash.
    const PAYLOAD: &[u8] = br#"{"inputs":{},"outputs":{"x":123},"tool":"t"}"#;
    const B64: &str = "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=";
    const HASH: &str = "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50";

    fn receipt(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
        let m = meta();
        let mut v = serde_json::json!({
            "id": m.id, "receipt_schema_version": m.receipt_schema_version,
            "created_at": m.created_at,
            "tool": {"name": "t", "version": "1", "scope": "read"},
            "provenance_class": m.provenance_class, "canonical_bytes": B64,
            "output_hash": HASH, "verification_status": "verified", "extra": 1,
        });
        edit(&mut v);
        serde_json::to_vec(&v).unwrap()
    }

    fn rules(out: &[u8]) -> Vec<&'static str> {
        compare(PAYLOAD, &meta(), out)
            .iter()
            .map(|f| f.rule.id())
            .collect()
    }

    #[test]
    fn the_published_receipt_passes() {
        assert_eq!(rules(&receipt(|_| {})), Vec::<&str>::new());
    }

    #[test]
    fn each_defect_is_one_fault_on_its_rule() {
        // Re-serialised (a space after each colon): the bytes, not the hash of what was written.
        let respaced = base64::engine::general_purpose::STANDARD
            .encode(br#"{"inputs": {}, "outputs": {"x": 123}, "tool": "t"}"#);
        let rehashed = format!(
            "sha256:{}",
            digest_hex(br#"{"inputs": {}, "outputs": {"x": 123}, "tool": "t"}"#)
        );
        assert_eq!(
            rules(&receipt(|v| {
                v["canonical_bytes"] = respaced.into();
                v["output_hash"] = rehashed.into();
            })),
            ["AER1-RC-BYTES-KEPT"]
        );
        assert_eq!(
            rules(&receipt(
                |v| v["canonical_bytes"] = B64.trim_end_matches('=').into()
            )),
            ["AER1-RC-B64"]
        );
        assert_eq!(
            rules(&receipt(|v| v["output_hash"] = HASH.to_uppercase().into())),
            ["AER1-RC-HASH-FORMAT"]
        );
        assert_eq!(
            rules(&receipt(
                |v| v["output_hash"] = HASH.replace("65c8", "65c9").into()
            )),
            ["AER1-RC-HASH-MATCH"]
        );
        assert_eq!(
            rules(&receipt(|v| v["tool"]["scope"] = "write".into())),
            ["AER1-RC-TOOL"]
        );
        assert_eq!(
            rules(&receipt(|v| v["verification_status"] = "ok".into())),
            ["AER1-RC-STATUS"]
        );
        assert_eq!(
            rules(&receipt(
                |v| v["created_at"] = "2026-10-01T18:30:00.000Z".into()
            )),
            ["AER1-RC-CREATED-AT"]
        );
        assert_eq!(
            rules(&receipt(|v| {
                v.as_object_mut().unwrap().remove("id");
            })),
            ["AER1-RC-MEMBERS"]
        );
        assert_eq!(rules(b"[1]"), ["AER1-RC-MEMBERS"]);
        assert_eq!(rules(b"{"), ["AER1-JSON-SYNTAX"]);
    }

    #[test]
    fn the_first_differing_byte_is_named() {
        let f = compare(
            PAYLOAD,
            &meta(),
            &receipt(|v| {
                v["canonical_bytes"] = base64::engine::general_purpose::STANDARD
                    .encode(br#"{"inputs":{},"outputs":{"x":123.0},"tool":"t"}"#)
                    .into()
            }),
        );
        assert!(
            f[0].message.contains("first differing byte at 31"),
            "{}",
            f[0].message
        );
    }
}
