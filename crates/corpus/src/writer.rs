//! Turning the in-memory corpus into the files under `vectors/`, byte for byte the same on every
//! run: pretty JSON with two-space indents and a final newline, fields in declaration order,
//! vectors sorted by id, and a manifest with each file's SHA-256 and one corpus digest.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use sha2::{Digest as _, Sha256};

use crate::model::{Manifest, ManifestEntry, Suite, Vector};

/// The manifest's path under `vectors/`.
pub const MANIFEST: &str = "manifest.json";

fn sha256_hex(bytes: &[u8]) -> String {
    agentconf_aer1::hex::lower(&Sha256::digest(bytes))
}

/// One vector file's exact text.
pub fn vector_file(v: &Vector) -> String {
    // A Vector holds strings, enums and vectors of them: serialization cannot fail.
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// The manifest of `vectors` (already sorted by id).
pub fn manifest(vectors: &[Vector]) -> Manifest {
    let entries: Vec<ManifestEntry> = vectors
        .iter()
        .map(|v| ManifestEntry {
            id: v.id.clone(),
            path: v.path(),
            sha256: sha256_hex(vector_file(v).as_bytes()),
            suite: v.suite,
            family: v.family.clone(),
            revisions: v.revisions.clone(),
            rules: v.rules.clone(),
            expectation: v.expectation,
            level: v.level.clone(),
        })
        .collect();
    Manifest {
        corpus_digest: corpus_digest(&entries),
        vector_count: entries.len(),
        vectors: entries,
    }
}

/// SHA-256 over the lines `<id> <sha256>\n`, sorted by id: one value that changes when any
/// vector is added, removed or changed, and that anyone can recompute from the manifest alone.
pub fn corpus_digest(entries: &[ManifestEntry]) -> String {
    let mut lines: Vec<String> = entries
        .iter()
        .map(|e| format!("{} {}\n", e.id, e.sha256))
        .collect();
    lines.sort();
    sha256_hex(lines.concat().as_bytes())
}

pub fn manifest_file(m: &Manifest) -> String {
    serde_json::to_string_pretty(m).unwrap_or_default() + "\n"
}

/// Every generated file: `vectors/`-relative path to contents.
pub fn files(vectors: &[Vector]) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> =
        vectors.iter().map(|v| (v.path(), vector_file(v))).collect();
    out.insert(MANIFEST.to_string(), manifest_file(&manifest(vectors)));
    out
}

/// Generated files found on disk that the corpus no longer produces (`.json` files under the
/// suite directories; `schema/` and hand-written files are not generated and are left alone).
fn stale_files(dir: &Path, expected: &BTreeMap<String, String>) -> io::Result<Vec<String>> {
    let mut stale = Vec::new();
    for suite in Suite::ALL {
        let root = dir.join(suite.as_str());
        if !root.exists() {
            continue;
        }
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            for entry in fs::read_dir(&d)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    let rel = path
                        .strip_prefix(dir)
                        .map(|p| p.to_string_lossy().replace('\\', "/"))
                        .unwrap_or_default();
                    if !expected.contains_key(&rel) {
                        stale.push(rel);
                    }
                }
            }
        }
    }
    stale.sort();
    Ok(stale)
}

/// Differences between the corpus and `dir`, one line each; empty when they agree.
pub fn check(dir: &Path, vectors: &[Vector]) -> io::Result<Vec<String>> {
    let expected = files(vectors);
    let mut problems = Vec::new();
    for (rel, contents) in &expected {
        match fs::read(dir.join(rel)) {
            Ok(bytes) if bytes == contents.as_bytes() => {}
            Ok(_) => problems.push(format!("differs: {rel}")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                problems.push(format!("missing: {rel}"))
            }
            Err(e) => return Err(e),
        }
    }
    for rel in stale_files(dir, &expected)? {
        problems.push(format!("stale: {rel}"));
    }
    Ok(problems)
}

/// Writes the corpus into `dir`: every file through a temporary name and a rename, so an
/// interrupted run leaves whole files only; stale generated files are removed.
pub fn write(dir: &Path, vectors: &[Vector]) -> io::Result<WriteSummary> {
    let expected = files(vectors);
    let mut summary = WriteSummary::default();
    for (rel, contents) in &expected {
        let path = dir.join(rel);
        if fs::read(&path).is_ok_and(|b| b == contents.as_bytes()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let tmp = path.with_extension("json.tmp");
        fs::write(&tmp, contents)?;
        fs::rename(&tmp, &path)?;
        summary.written += 1;
    }
    for rel in stale_files(dir, &expected)? {
        fs::remove_file(dir.join(&rel))?;
        summary.removed += 1;
    }
    summary.total = expected.len();
    Ok(summary)
}

/// What [`write`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WriteSummary {
    pub total: usize,
    pub written: usize,
    pub removed: usize,
}
