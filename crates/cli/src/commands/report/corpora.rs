//! The two corpora behind `report diff`: for each results file, its corpus's vector hashes
//! (vector id → SHA-256 of the vector file, as the corpus manifest lists them), so that the diff
//! can tell a difference the corpus made from one the implementation made. A side's corpus is the
//! directory given for it (`--old-corpus` / `--new-corpus`), which must be the one the file was
//! made against, or else the embedded corpus when the file's digest is the embedded one's.

use crate::error::Sort as _;
use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Result;
use agentconf_contract::manifest::Manifest;
use agentconf_corpus::reader::{self, MAX_MANIFEST_BYTES};
use agentconf_corpus::writer::{self, MANIFEST};
use agentconf_harness::report::{terminal_safe, CorpusVersions};
use agentconf_harness::results::ResultsFile;

/// One results file of the diff and the corpus directory given for it.
pub struct Side<'a> {
    /// How messages name the file: `OLD` or `NEW`.
    pub role: &'static str,
    /// The option that gives its corpus: `--old-corpus` or `--new-corpus`.
    pub flag: &'static str,
    pub path: &'a Path,
    pub file: &'a ResultsFile,
    pub dir: Option<&'a Path>,
}

/// What is known of the two corpora.
pub struct Corpora {
    /// Both sides' hashes, when both are known.
    pub versions: Option<CorpusVersions>,
    /// The sides whose corpus is neither given nor embedded.
    pub unknown: Vec<&'static str>,
}

/// Each side's vector hashes. A directory given for a side is always read and held to that
/// file's digest (a wrong one is an error naming both digests); the embedded corpus is built
/// only when the two files' corpora differ, the only case the hashes are needed.
pub fn of(old: &Side<'_>, new: &Side<'_>) -> Result<Corpora> {
    let needed = old.file.header.corpus_digest != new.file.header.corpus_digest;
    let mut embedded: Option<(String, BTreeMap<String, String>)> = None;
    let mut unknown = Vec::new();
    let mut hashes = |side: &Side<'_>| -> Result<Option<BTreeMap<String, String>>> {
        let digest = &side.file.header.corpus_digest;
        if let Some(dir) = side.dir {
            return from_dir(dir, side).map(Some);
        }
        if !needed {
            return Ok(None);
        }
        let (embedded_digest, map) = embedded.get_or_insert_with(from_embedded);
        if embedded_digest == digest {
            return Ok(Some(map.clone()));
        }
        unknown.push(side.flag);
        Ok(None)
    };
    let (o, n) = (hashes(old)?, hashes(new)?);
    let versions = match (o, n) {
        (Some(old), Some(new)) => Some(CorpusVersions { old, new }),
        _ => None,
    };
    Ok(Corpora { versions, unknown })
}

fn from_embedded() -> (String, BTreeMap<String, String>) {
    let m = writer::manifest(&agentconf_corpus::corpus());
    let map = m.vectors.into_iter().map(|e| (e.id, e.sha256)).collect();
    (m.corpus_digest, map)
}

/// The hashes of the corpus under `dir`, which must be `side`'s. `read_dir` checks every file
/// against the manifest and the manifest against its digest; the hashes are then the manifest's
/// own (those of the files as written, whatever their formatting).
fn from_dir(dir: &Path, side: &Side<'_>) -> Result<BTreeMap<String, String>> {
    let read = reader::read_dir(dir).refused()?;
    let want = &side.file.header.corpus_digest;
    if &read.digest != want {
        return Err(format!(
            "{} ({}): its corpus digest is {}, but {} ({}) was made against corpus {}",
            side.flag,
            dir.display(),
            read.digest,
            side.role,
            side.path.display(),
            // The file is untrusted: its digest is shown, not interpreted by the terminal.
            terminal_safe(want)
        ))
        .refused();
    }
    let path = dir.join(MANIFEST);
    let file = std::fs::File::open(&path)
        .map_err(|e| format!("{}: cannot open: {e}", path.display()))
        .refused()?;
    let bytes = match agentconf_json::read_limited(file, MAX_MANIFEST_BYTES)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))
        .refused()?
    {
        Ok(b) => b,
        Err(e) => return Err(format!("{}: {e}", path.display())).refused(),
    };
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: {e}", path.display()))
        .refused()?;
    // The manifest read again must be the one just checked (not replaced in between).
    if writer::corpus_digest(&manifest.vectors) != read.digest {
        return Err(format!(
            "{}: changed while it was being read",
            path.display()
        ))
        .refused();
    }
    Ok(manifest
        .vectors
        .into_iter()
        .map(|e| (e.id, e.sha256))
        .collect())
}
