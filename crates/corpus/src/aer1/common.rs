//! Building blocks shared by the AER-1 generators.

use agentconf_aer1::commitment::make_commitment;
use agentconf_aer1::digest::Revision;
use agentconf_aer1::hex;
use agentconf_aer1::producer::{digest_entry, example_chain, Entry};

/// The chain rules every valid chain demonstrates.
pub const CHAIN_RULES: &[agentconf_rules::Rule] = &[
    agentconf_rules::Rule::Aer1TlGenesis,
    agentconf_rules::Rule::Aer1TlLink,
    agentconf_rules::Rule::Aer1TlSeq,
    agentconf_rules::Rule::Aer1TlJob,
    agentconf_rules::Rule::Aer1TlCloseLast,
];

/// The chain rules a valid revision-06 chain demonstrates: the ones revision 06 has.
pub const CHAIN_RULES_06: &[agentconf_rules::Rule] = &[
    agentconf_rules::Rule::Aer1TlGenesis,
    agentconf_rules::Rule::Aer1TlLink,
    agentconf_rules::Rule::Aer1TlCloseLast,
];

/// The job id of the draft's published example.
pub const JOB: &str = "job-7a1f";
/// The `published_at` of every commitment in the corpus (the draft example's).
pub const PUBLISHED_AT: &str = "2026-10-01T18:30:00Z";

/// The draft-shaped example chain of `n` entries under revision 09 (`n` = 5 is `v07-valid-5`).
pub fn example(n: usize) -> Vec<Entry> {
    example_chain(JOB, n, Revision::R09)
}

/// The same chain under the historical revision-06 construction.
pub fn example_06(n: usize) -> Vec<Entry> {
    example_chain(JOB, n, Revision::R06)
}

/// The revision-09 digest of an entry, lowercase hex.
pub fn digest_09(entry: &Entry) -> String {
    hex::lower(&digest_entry(entry, Revision::R09, &mut Vec::new()))
}

/// The commitment a witness would publish for `entries` (revision 09), as one line of JSON.
pub fn commitment_for(entries: &[Entry]) -> String {
    let last = entries.last().map(digest_09).unwrap_or_default();
    let job = entries.first().map(|e| e.job_id.as_str()).unwrap_or(JOB);
    match make_commitment(job, &last, entries.len() as u64, PUBLISHED_AT) {
        Ok(c) => c.to_json(),
        // Generators only commit to chains they built; a failure here is a generator bug.
        Err(e) => panic!("cannot build a commitment: {e}"),
    }
}

/// A revision-06 chain in the shape real 06 chains have: each entry carries only `id`,
/// `canonical_bytes`, `prev_digest` and (on the last) `close` — no seq, job_id, tool or
/// provenance_class, which revision 06 neither required nor bound. The 06 links are those of
/// [`example_06`]: the 06 digest covers the bytes alone.
pub fn example_06_shape(n: usize) -> Vec<serde_json::Value> {
    example_06(n)
        .into_iter()
        .map(|e| {
            let mut v = serde_json::json!({
                "id": e.id,
                "canonical_bytes": e.canonical_bytes,
                "prev_digest": e.prev_digest,
            });
            if let Some(close) = e.close {
                v["close"] = serde_json::json!(close);
            }
            v
        })
        .collect()
}
