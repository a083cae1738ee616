//! Valid timeline vectors, checked without the reference: every link, the genesis, seq, job,
//! close and any commitment are recomputed by an independent Rust oracle (serde_json based, see
//! `crates/aer1/tests/support/kit_oracle.rs`) and by Python's `json.dumps` (the kit's own
//! behaviour). The self-test checks the reference against the vectors; this checks the vectors
//! against something that is not the reference.

#[path = "../../aer1/tests/support/kit_oracle.rs"]
mod kit_oracle;

use std::io::Write;
use std::process::{Command, Stdio};

use agentconf_contract::vector::{Expectation, Suite, Vector};
use serde_json::Value;

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Every timeline vector that must verify under some revision, with the constructions it must
/// verify under: `true` for the 07-09 one, `false` for revision 06.
fn valid_timelines() -> Vec<(Vector, Vec<bool>)> {
    agentconf_corpus::corpus()
        .into_iter()
        .filter(|v| v.suite == Suite::Aer1Timeline)
        .filter_map(|v| {
            let current: Vec<bool> = v
                .cases()
                .iter()
                .filter(|c| c.expectation == Expectation::Valid)
                .map(|c| c.revision != "06")
                .collect();
            (!current.is_empty()).then_some((v, current))
        })
        .collect()
}

/// Revision 06 exactly as its text, written without the reference: a non-empty array of objects,
/// canonical_bytes strict base64, genesis, each prev_digest the SHA-256 of the previous entry's
/// bytes, close a boolean where present, the last entry closed. Nothing else is looked at.
fn check_chain_06(entries: &[Value]) -> Result<(), String> {
    if entries.is_empty() {
        return Err("empty".into());
    }
    let mut prev = GENESIS.to_string();
    for (i, e) in entries.iter().enumerate() {
        let o = e.as_object().ok_or(format!("entry {i} is not an object"))?;
        if o.get("prev_digest").and_then(Value::as_str) != Some(prev.as_str()) {
            return Err(format!(
                "entry {i}: prev_digest is not the 06 digest of the entry before"
            ));
        }
        let b64 = o
            .get("canonical_bytes")
            .and_then(Value::as_str)
            .ok_or(format!("entry {i}: canonical_bytes"))?;
        prev =
            kit_oracle::digest_06(e).ok_or(format!("entry {i}: bytes are not base64 ({b64})"))?;
        match o.get("close") {
            None | Some(Value::Bool(_)) => {}
            Some(_) => return Err(format!("entry {i}: close is not a boolean")),
        }
    }
    if entries.last().and_then(|e| e.get("close")) != Some(&Value::Bool(true)) {
        return Err("the last entry is not closed".into());
    }
    Ok(())
}

/// Checks one chain under one construction; returns the digests on success.
fn check_chain(
    v: &Vector,
    entries: &[Value],
    digest: impl Fn(&Value) -> Option<String>,
) -> Result<Vec<String>, String> {
    if entries.is_empty() {
        return Err("empty".into());
    }
    let job = entries[0]["job_id"].as_str().ok_or("no job")?;
    let mut digests: Vec<String> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let d = digest(e).ok_or_else(|| format!("entry {i} cannot be digested"))?;
        let expected_prev = if i == 0 {
            GENESIS.to_string()
        } else {
            digests[i - 1].clone()
        };
        if e["prev_digest"].as_str() != Some(expected_prev.as_str()) {
            return Err(format!(
                "entry {i}: prev_digest is not the digest of the entry before"
            ));
        }
        if e["seq"].as_f64() != Some(i as f64 + 1.0) {
            return Err(format!("entry {i}: seq is not {}", i + 1));
        }
        if e["job_id"].as_str() != Some(job) {
            return Err(format!("entry {i}: another job"));
        }
        let last = i + 1 == entries.len();
        let close = e
            .get("close")
            .map(|c| c.as_bool().ok_or("close not boolean"))
            .transpose()?
            .unwrap_or(false);
        if close != last {
            return Err(format!("entry {i}: close is {close}"));
        }
        digests.push(d);
    }
    if let Some(bytes) = v.input_bytes("commitment") {
        let c: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
        if c["entry_count"].as_u64() != Some(entries.len() as u64) {
            return Err("commitment count".into());
        }
        if c["job_id"].as_str() != Some(job) {
            return Err("commitment job".into());
        }
        if c["final_entry_digest"].as_str() != digests.last().map(String::as_str) {
            return Err("commitment final digest".into());
        }
    }
    Ok(digests)
}

#[test]
fn valid_timeline_vectors_verify_under_the_rust_oracle() {
    let vectors = valid_timelines();
    assert!(
        vectors.len() >= 20,
        "only {} valid timeline vectors",
        vectors.len()
    );
    for (v, constructions) in &vectors {
        let text = v.input_bytes("timeline").unwrap();
        let entries: Vec<Value> = serde_json::from_slice(&text).unwrap();
        for current in constructions {
            if *current {
                check_chain(v, &entries, kit_oracle::digest_09)
                    .unwrap_or_else(|e| panic!("{} (current construction): {e}", v.id));
            } else {
                check_chain_06(&entries).unwrap_or_else(|e| panic!("{} (revision 06): {e}", v.id));
            }
        }
    }
}

#[test]
fn valid_timeline_vectors_digest_alike_under_python() {
    let vectors: Vec<Vector> = valid_timelines()
        .into_iter()
        .filter(|(_, constructions)| constructions.contains(&true))
        .map(|(v, _)| v)
        .collect();
    let timelines: Vec<Value> = vectors
        .iter()
        .map(|v| serde_json::from_slice(&v.input_bytes("timeline").unwrap()).unwrap())
        .collect();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../aer1/testdata/kit_digests.py"
    );
    let mut child = Command::new("python3")
        .args([script, "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is required for the kit oracle (install python3)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(Value::Array(timelines.clone()).to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let python: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    for ((v, t), digests) in vectors.iter().zip(&timelines).zip(&python) {
        let entries = t.as_array().unwrap();
        for (i, e) in entries.iter().enumerate().skip(1) {
            assert_eq!(
                e["prev_digest"].as_str(),
                Some(digests[i - 1].as_str()),
                "{} entry {i}",
                v.id
            );
        }
        if let Some(bytes) = v.input_bytes("commitment") {
            let c: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(
                c["final_entry_digest"].as_str(),
                digests.last().map(String::as_str),
                "{}",
                v.id
            );
        }
    }
}
