//! The reference producer: builds well-formed timelines, for spec authors, tests and the corpus.
//!
//! A producer writes entries whose `prev_digest` is the digest of the entry before under the
//! chosen construction, and `close: true` on the last one only.

use serde::Serialize;

use crate::digest::{
    entry_digest_06, sha256, write_preimage, Hash32, PreimageFields, Revision, GENESIS_PREV_DIGEST,
};
use crate::formats::encode_base64;
use crate::hex;

/// One entry as a producer writes it. Member order follows the draft's list; verifiers must not
/// depend on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub canonical_bytes: String,
    pub prev_digest: String,
    pub seq: u64,
    pub job_id: String,
    pub id: String,
    pub tool: String,
    pub provenance_class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub close: Option<bool>,
}

/// What goes into one entry before linking.
#[derive(Clone, Debug)]
pub struct EntrySpec {
    pub bytes: Vec<u8>,
    pub id: String,
    pub tool: String,
    pub provenance_class: String,
}

/// How `close` is written on entries before the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseStyle {
    /// Only the last entry carries `close` (absent digests as false).
    LastOnly,
    /// Every entry carries it: `false` before the last.
    Explicit,
}

/// Digest of an entry under `revision`.
pub fn digest_entry(entry: &Entry, revision: Revision, scratch: &mut Vec<u8>) -> Hash32 {
    // A producer digests entries it built, whose bytes are valid base64; anything else digests
    // as the empty byte string, which no verifier would accept as a link anyway.
    let mut decoded = Vec::new();
    if crate::formats::decode_base64_into(&entry.canonical_bytes, &mut decoded).is_err() {
        decoded.clear();
    }
    let output_hash = sha256(&decoded);
    match revision {
        Revision::R06 => entry_digest_06(&output_hash),
        Revision::R09 => {
            let seq = entry.seq.to_string();
            write_preimage(
                scratch,
                &PreimageFields {
                    close: entry.close.unwrap_or(false),
                    id: &entry.id,
                    job_id: &entry.job_id,
                    output_hash: &output_hash,
                    prev_digest: &entry.prev_digest,
                    provenance_class: &entry.provenance_class,
                    seq: &seq,
                    tool: &entry.tool,
                },
            );
            sha256(scratch)
        }
    }
}

/// Builds a linked, closed chain for `job_id` from `specs` under `revision`.
pub fn build_timeline(
    job_id: &str,
    specs: &[EntrySpec],
    revision: Revision,
    close: CloseStyle,
) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(specs.len());
    let mut prev = GENESIS_PREV_DIGEST.to_string();
    let mut scratch = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let last = i + 1 == specs.len();
        let entry = Entry {
            canonical_bytes: encode_base64(&spec.bytes),
            prev_digest: prev,
            seq: i as u64 + 1,
            job_id: job_id.to_string(),
            id: spec.id.clone(),
            tool: spec.tool.clone(),
            provenance_class: spec.provenance_class.clone(),
            close: match (last, close) {
                (true, _) => Some(true),
                (false, CloseStyle::Explicit) => Some(false),
                (false, CloseStyle::LastOnly) => None,
            },
        };
        prev = hex::lower(&digest_entry(&entry, revision, &mut scratch));
        entries.push(entry);
    }
    entries
}

/// Re-links `entries` in place from the first: recomputes every `prev_digest` (genesis first),
/// as whoever truncates or rewrites a chain would.
pub fn relink(entries: &mut [Entry], revision: Revision) {
    let mut prev = GENESIS_PREV_DIGEST.to_string();
    let mut scratch = Vec::new();
    for entry in entries.iter_mut() {
        entry.prev_digest = prev;
        prev = hex::lower(&digest_entry(entry, revision, &mut scratch));
    }
}

/// The specs of the draft's published five-entry example `v07-valid-5` (job `job-7a1f`), or of a
/// chain of any length built the same way.
pub fn v07_example_specs(job_id: &str, n: usize) -> Vec<EntrySpec> {
    (0..n)
        .map(|i| EntrySpec {
            bytes: format!("{{\"job\":\"{job_id}\",\"entry\":{i},\"tag\":\"r\"}}").into_bytes(),
            id: format!("r-{job_id}-{i}"),
            tool: "price_lookup".to_string(),
            provenance_class: "LOGGED BY AGENT".to_string(),
        })
        .collect()
}

/// A chain shaped like the draft's published example `v07-valid-5` (bytes
/// `{"job":…,"entry":i,"tag":"r"}`, ids `r-<job>-<i>`, tool `price_lookup`, `LOGGED BY AGENT`),
/// with `n` entries, under `revision`, `close` only on the last entry.
pub fn example_chain(job_id: &str, n: usize, revision: Revision) -> Vec<Entry> {
    build_timeline(
        job_id,
        &v07_example_specs(job_id, n),
        revision,
        CloseStyle::LastOnly,
    )
}

/// Writes entries as a JSON array, one entry per line.
pub fn timeline_json(entries: &[Entry]) -> String {
    let mut out = String::from("[\n");
    for (i, e) in entries.iter().enumerate() {
        // Serializing plain strings and integers cannot fail.
        out.push_str(&serde_json::to_string(e).unwrap_or_default());
        out.push_str(if i + 1 == entries.len() { "\n" } else { ",\n" });
    }
    out.push_str("]\n");
    out
}
