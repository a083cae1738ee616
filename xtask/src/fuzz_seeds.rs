//! `cargo xtask fuzz-seeds`: seed corpora for the fuzz targets under `crates/fuzz/corpus/`, from
//! the vector corpus. Each seed is prefixed with the selector byte its target reads first (see
//! each target's documentation), so seeds start the fuzzer in every mode a target has.

use std::collections::BTreeMap;
use std::path::Path;

use agentconf_contract::vector::{Suite, Vector};

/// Seeds by target, then by file name (the vector id with `/` replaced).
type Seeds = BTreeMap<&'static str, BTreeMap<String, Vec<u8>>>;

/// Larger inputs (a thousand-event replay) make every mutation slow; the fuzzer runs with the
/// same `-max_len`, so it would cut them anyway.
pub const MAX_SEED_BYTES: usize = 64 * 1024;

/// The receipt tiers in the order of `agentconf_aer1::receipt::Tier::ALL`.
const RECEIPT_TIERS: [&str; 4] = ["core", "strict", "anchored", "profile"];

fn add(seeds: &mut Seeds, target: &'static str, name: String, bytes: Vec<u8>) {
    if bytes.len() <= MAX_SEED_BYTES {
        seeds.entry(target).or_default().insert(name, bytes);
    }
}

fn prefixed(selector: u8, parts: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![selector];
    out.extend(parts.join(&0u8));
    out
}

/// A selector byte, a vector-choice byte, then the payload (the harness targets' layout).
fn two_bytes(selector: u8, which: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![selector, which];
    out.extend_from_slice(payload);
    out
}

/// Every seed, deterministically.
pub fn seeds(corpus: &[Vector]) -> Seeds {
    let mut seeds = Seeds::new();
    for v in corpus {
        let name = v.id.replace('/', "__");
        for input in &v.inputs {
            if let Some(bytes) = v.input_bytes(&input.role) {
                add(
                    &mut seeds,
                    "json_strict",
                    format!("{name}.{}", input.role),
                    prefixed(0, &[&bytes]),
                );
            }
        }
        match v.suite {
            // The emitted-timeline target reads an implementation's output: seed it with the
            // steps' own bytes (each step's output) and a timeline the reference would write.
            Suite::Aer1EmitTimeline => {
                if let Some(steps) = v.input_bytes("steps") {
                    add(&mut seeds, "emitted", name.clone(), steps);
                }
            }
            // Its timeline seeds `json_strict` above; no target of its own.
            Suite::Aer1EmitCommitment => {}
            // Its payload and meta seed `json_strict` above; the `emitted` target grades
            // receipts from its own inputs.
            Suite::Aer1EmitReceipt => {}
            Suite::Aer1Receipt => {
                if let Some(r) = v.input_bytes("receipt") {
                    // The receipt target's selector is an index into `receipt::Tier::ALL`.
                    for (selector, tier) in RECEIPT_TIERS.iter().enumerate() {
                        add(
                            &mut seeds,
                            "receipt",
                            format!("{name}.{tier}"),
                            prefixed(selector as u8, &[&r]),
                        );
                    }
                }
            }
            Suite::Aer1Timeline => {
                let Some(t) = v.input_bytes("timeline") else {
                    continue;
                };
                let historical = v.revisions.iter().all(|r| r == "06");
                add(
                    &mut seeds,
                    "timeline",
                    name.clone(),
                    prefixed(u8::from(historical), &[&t]),
                );
                if let Some(c) = v.input_bytes("commitment") {
                    add(
                        &mut seeds,
                        "timeline",
                        format!("{name}.committed"),
                        prefixed(2, &[&c, &t]),
                    );
                    add(&mut seeds, "commitment", name.clone(), c);
                }
            }
            Suite::Aer1Workflow => {
                if let Some(w) = v.input_bytes("workflow") {
                    add(&mut seeds, "workflow", name.clone(), w);
                }
            }
            Suite::GrpAdmission => {
                if let Some(s) = v.input_bytes("session") {
                    add(&mut seeds, "grp_session", name.clone(), s);
                }
                if let Some(e) = v.input_bytes("events") {
                    add(
                        &mut seeds,
                        "grp_admission",
                        format!("{name}.as-is"),
                        prefixed(0, &[&e]),
                    );
                    add(
                        &mut seeds,
                        "grp_admission",
                        format!("{name}.signed"),
                        prefixed(1, &[&e]),
                    );
                    add(
                        &mut seeds,
                        "grp_admission",
                        format!("{name}.rev00"),
                        prefixed(3, &[&e]),
                    );
                }
            }
        }
    }
    // The harness targets read an implementation's words, not vectors: seed them with the
    // shapes CONTRACT.md documents, with rules of real vectors.
    let results: [&[u8]; 5] = [
        br#"{"verdict":"invalid","rules":["AER1-TL-LINK"],"messages":["entry 3: link"]}"#,
        br#"{"verdict":"valid","rules":[]}"#,
        br#"{"verdict":"invalid","rules":["AER1-TL-B64","AER1-TL-SEQ"]}"#,
        br#"{"verdict":"maybe"}"#,
        b"",
    ];
    for (i, r) in results.iter().enumerate() {
        for sel in [0u8, 1, 5] {
            add(
                &mut seeds,
                "harness_result",
                format!("result-{i}-{sel}"),
                two_bytes(sel, i as u8 * 40, r),
            );
        }
    }
    let responses: [&[u8]; 5] = [
        br#"{"seq":7,"exit":1,"verdict":"invalid","rules":["AER1-TL-LINK"],"messages":["link"]}"#,
        br#"{"seq":7,"exit":0,"verdict":"valid","rules":[]}"#,
        br#"{"seq":7,"exit":89}"#,
        br#"{"seq":6,"exit":0}"#,
        br#"{"protocol":1,"implementation":{"name":"x","version":"1"},"capabilities":{"operations":["aer1-timeline"],"timeline_revisions":["09"]}}"#,
    ];
    for (i, r) in responses.iter().enumerate() {
        for sel in [0u8, 1, 2, 3] {
            add(
                &mut seeds,
                "harness_persistent",
                format!("response-{i}-{sel}"),
                two_bytes(sel, i as u8 * 50, r),
            );
        }
    }
    add(
        &mut seeds,
        "adapter_toml",
        "contract-example".into(),
        adapter_example(),
    );
    seeds
}

/// The adapter example of CONTRACT.md (its first TOML block), read from the file so the seed
/// follows the documentation.
fn adapter_example() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/contract/CONTRACT.md"
    );
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_default()
        .as_bytes()
        .to_vec()
}

/// Writes the seeds under `dir/<target>/`, adding to what the fuzzer has already found there.
pub fn write(dir: &Path, seeds: &Seeds) -> Result<usize, String> {
    let mut n = 0;
    for (target, files) in seeds {
        let d = dir.join(target);
        std::fs::create_dir_all(&d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
        for (name, bytes) in files {
            let path = d.join(format!("seed-{name}"));
            std::fs::write(&path, bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            n += 1;
        }
    }
    Ok(n)
}
