//! Reading a corpus directory back (`vectors/`, or a copy of another agentconf version's): the
//! manifest and every vector file it lists, each held to its SHA-256, and the corpus digest
//! recomputed. The inverse of [`crate::writer`]; it lets a results file made against a corpus
//! other than the embedded one be checked against that corpus (`agentconf report --corpus DIR`).
//!
//! The directory is untrusted: paths stay inside it, sizes are bounded, duplicate member names
//! are refused, and every failure is an `Err` naming the file.

use std::path::{Component, Path};

use sha2::{Digest as _, Sha256};

use agentconf_contract::manifest::Manifest;
use agentconf_contract::vector::Vector;

use crate::writer::{corpus_digest, MANIFEST};

/// The largest manifest read (today's is about 400 KiB).
pub const MAX_MANIFEST_BYTES: u64 = 64 << 20;
/// The largest vector file read (today's largest is under 2 MiB).
pub const MAX_VECTOR_BYTES: u64 = 64 << 20;

/// A corpus read from a directory: its vectors sorted by id, and its digest. Each vector's input
/// files were checked (their file's SHA-256 against the manifest) but their content is not kept:
/// what a results file is held to is the vectors' metadata, and a corpus of large vectors must not
/// be held whole in memory.
#[derive(Debug)]
pub struct ReadCorpus {
    pub vectors: Vec<Vector>,
    pub digest: String,
}

/// Reads the corpus under `dir`: `dir/manifest.json` and the files it lists. `Err` is one line.
pub fn read_dir(dir: &Path) -> Result<ReadCorpus, String> {
    let manifest_path = dir.join(MANIFEST);
    let text = read_text(&manifest_path, MAX_MANIFEST_BYTES)?;
    let manifest: Manifest = parse_strict(&text).map_err(|e| at(&manifest_path, &e))?;
    let digest = corpus_digest(&manifest.vectors);
    if digest != manifest.corpus_digest {
        return Err(at(
            &manifest_path,
            &format!(
                "its entries digest to {digest}, but it says {}",
                manifest.corpus_digest
            ),
        ));
    }
    if manifest.vector_count != manifest.vectors.len() {
        return Err(at(
            &manifest_path,
            &format!(
                "vector_count is {}, but it lists {} vectors",
                manifest.vector_count,
                manifest.vectors.len()
            ),
        ));
    }
    // Every listed path and size before any vector is read: a directory that cannot be the
    // corpus is refused before it costs anything.
    let mut paths = Vec::with_capacity(manifest.vectors.len());
    for entry in &manifest.vectors {
        let relative = Path::new(&entry.path);
        // Only plain names below `dir`: no absolute path, no `..`, no `.`.
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(at(
                &manifest_path,
                &format!("{:?} is not a path inside the corpus directory", entry.path),
            ));
        }
        let path = dir.join(relative);
        match std::fs::metadata(&path) {
            Ok(m) if m.len() > MAX_VECTOR_BYTES => {
                return Err(at(
                    &path,
                    &format!(
                        "{} bytes, more than the {MAX_VECTOR_BYTES} a vector file may have",
                        m.len()
                    ),
                ))
            }
            Ok(_) => {}
            Err(e) => return Err(at(&path, &format!("cannot read: {e}"))),
        }
        paths.push(path);
    }
    let mut vectors = Vec::with_capacity(manifest.vectors.len());
    for (entry, path) in manifest.vectors.iter().zip(paths) {
        let text = read_text(&path, MAX_VECTOR_BYTES)?;
        let sha256 = agentconf_aer1::hex::lower(&Sha256::digest(text.as_bytes()));
        if sha256 != entry.sha256 {
            return Err(at(
                &path,
                &format!(
                    "its SHA-256 is {sha256}; the manifest says {}",
                    entry.sha256
                ),
            ));
        }
        let mut vector: Vector = parse_strict(&text).map_err(|e| at(&path, &e))?;
        drop(text);
        if vector.id != entry.id {
            return Err(at(
                &path,
                &format!("it holds {:?}; the manifest says {:?}", vector.id, entry.id),
            ));
        }
        for input in &mut vector.inputs {
            input.content = String::new();
        }
        vectors.push(vector);
    }
    vectors.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(w) = vectors.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(at(
            &manifest_path,
            &format!("vector {:?} is listed twice", w[0].id),
        ));
    }
    Ok(ReadCorpus { vectors, digest })
}

/// `what` prefixed with the file it is about: how every `Err` here names its file.
pub(crate) fn at(path: &Path, what: &str) -> String {
    format!("{}: {what}", path.display())
}

/// A file's text: at most `limit` bytes of UTF-8, and a regular file (not a directory or a
/// device).
fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    let bytes = read_bytes(path, limit)?;
    String::from_utf8(bytes).map_err(|_| at(path, "not UTF-8"))
}

/// A file's bytes: at most `limit` of them, and a regular file (not a directory or a device).
/// `Err` names the file.
pub(crate) fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let file = agentconf_json::file::open_regular(path).map_err(|e| match e {
        agentconf_json::file::OpenError::NotARegularFile(kind) => {
            at(path, &format!("{kind}, not a regular file"))
        }
        agentconf_json::file::OpenError::Io(e) => at(path, &format!("cannot open: {e}")),
    })?;
    match agentconf_json::read_limited(file, limit) {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(at(path, &e.to_string())),
        Err(e) => Err(at(path, &format!("cannot read: {e}"))),
    }
}

/// `T` from JSON text, refusing duplicate member names (which parsers resolve differently).
pub(crate) fn parse_strict<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let parsed = agentconf_json::parse(text, &[]).map_err(|e| e.to_string())?;
    if let Some(dup) = parsed.duplicates.first() {
        return Err(dup.to_string());
    }
    serde_json::from_str(text).map_err(|e| e.to_string())
}
