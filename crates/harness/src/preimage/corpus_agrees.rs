//! The judge's own entry preimage (`crate::preimage`) against the committed corpus:
//! every link of every valid timeline vector, recomputed by the harness, equals the `prev_digest`
//! the corpus (written by the reference producer) stores. Two independent writings of the
//! draft's construction agree, byte for byte, on every input the corpus has — non-ASCII, U+007F,
//! controls and non-BMP characters included — so neither grades the emitters alone.
//!
//! The vectors are read as data from `vectors/`, not through the corpus crate: the harness does
//! not link the reference (`tests/dependencies.rs`).

use std::path::{Path, PathBuf};

use crate::preimage::{digest_hex, preimage, Construction, Fields};
use agentconf_contract::vector::Vector;
use base64::Engine as _;
use serde_json::Value;

fn vector_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read the vectors directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            vector_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// An entry's `seq` as the integer text the preimage carries (`1.0` and `1e0` digest as `1`).
fn seq_text(v: &Value) -> Option<String> {
    if let Some(n) = v.as_u64() {
        return Some(n.to_string());
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && (1.0..9e15).contains(&f)).then(|| format!("{}", f as u64))
}

#[test]
fn the_judges_preimage_gives_every_link_of_the_valid_timelines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/aer1-timeline/valid");
    let mut files = Vec::new();
    vector_files(&root, &mut files);
    files.sort();
    let (mut links, mut non_ascii) = (0usize, 0usize);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read a vector");
        let v: Vector = serde_json::from_str(&text).expect("a vector");
        if !v.revisions.iter().any(|r| r == "09") {
            continue;
        }
        let timeline = v.input_bytes("timeline").expect("a timeline input");
        let entries: Vec<Value> = serde_json::from_slice(&timeline).expect("a JSON array");
        for (i, pair) in entries.windows(2).enumerate() {
            let e = &pair[0];
            let s = |m: &str| e[m].as_str().unwrap_or_else(|| panic!("{}: {m}", v.id));
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(s("canonical_bytes"))
                .expect("canonical base64");
            let output_hash = digest_hex(&bytes);
            let seq = seq_text(&e["seq"]).unwrap_or_else(|| panic!("{}: seq", v.id));
            let f = Fields {
                close: e["close"].as_bool().unwrap_or(false),
                id: s("id"),
                job_id: s("job_id"),
                output_hash: &output_hash,
                prev_digest: s("prev_digest"),
                provenance_class: s("provenance_class"),
                seq: &seq,
                tool: s("tool"),
            };
            let p = preimage(&f, Construction::Draft);
            assert_eq!(
                Some(digest_hex(&p).as_str()),
                pair[1]["prev_digest"].as_str(),
                "{}: the link from entry {i}",
                v.id
            );
            if preimage(&f, Construction::RawUtf8) != p {
                non_ascii += 1;
            }
            links += 1;
        }
    }
    assert!(links >= 100, "only {links} links checked");
    assert!(
        non_ascii >= 5,
        "only {non_ascii} links with escaped characters"
    );
    println!(
        "{links} links of {} vectors; {non_ascii} with escaped characters",
        files.len()
    );
}
