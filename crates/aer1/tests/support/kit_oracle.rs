// Each including test uses part of this module.
#![allow(dead_code)]

//! An independent oracle for revision-09 entry digests, shared by the reference's tests and the
//! corpus's tests (included with `#[path]`). It uses none of the reference's code: serde_json
//! parses the entry and serializes a sorted map (compact, RFC 8259 short escapes, raw non-ASCII),
//! then every character from U+007F up is rewritten as `\uXXXX` UTF-16 units, which is what the
//! kit's `json.dumps(..., ensure_ascii=True)` produces.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The preimage text of one entry, or `None` when the entry lacks what the digest needs.
pub fn preimage(entry: &Value) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(entry.get("canonical_bytes")?.as_str()?)
        .ok()?;
    let seq = entry.get("seq")?.as_f64()?;
    if seq.fract() != 0.0 {
        return None;
    }
    let mut p: BTreeMap<&str, Value> = BTreeMap::new();
    p.insert(
        "close",
        entry.get("close").cloned().unwrap_or(Value::Bool(false)),
    );
    for k in ["id", "job_id", "prev_digest", "provenance_class", "tool"] {
        p.insert(k, entry.get(k)?.clone());
    }
    p.insert("output_hash", json!(hex(&Sha256::digest(&bytes))));
    p.insert("seq", json!(seq as u64));
    let compact = serde_json::to_string(&p).ok()?;
    let mut escaped = String::new();
    for c in compact.chars() {
        if (c as u32) < 0x7f {
            escaped.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                escaped.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    Some(escaped)
}

/// Revision-09 digest of one entry.
pub fn digest_09(entry: &Value) -> Option<String> {
    preimage(entry).map(|p| hex(&Sha256::digest(p.as_bytes())))
}

/// Revision-06 digest of one entry: SHA-256 of the decoded bytes.
pub fn digest_06(entry: &Value) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(entry.get("canonical_bytes")?.as_str()?)
        .ok()?;
    Some(hex(&Sha256::digest(&bytes)))
}

/// Every entry's revision-09 digest of a timeline text.
pub fn digests_09(timeline: &str) -> Vec<Option<String>> {
    let entries: Vec<Value> = serde_json::from_str(timeline).unwrap_or_default();
    entries.iter().map(digest_09).collect()
}
