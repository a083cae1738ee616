//! The AER-1 producer mutants (the emit operations): the reference producer's timeline,
//! commitment or receipt, written with one defect.

use std::fs;

use agentconf_aer1::digest::sha256;
use agentconf_aer1::{hex, Revision};
use agentconf_contract::call::Call;

use crate::preimage::{rewrite_preimage, Rewrite};
use crate::{write_out, Outcome};

/// One deliberate defect of a producer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Producer {
    EmitsRawUtf8,
    CommitsUnverified,
    CountOffByOne,
    ReserialisesPayload,
    UppercaseOutputHash,
}

/// Name, mutant, and what it gets wrong.
pub const MUTANTS: &[(&str, Producer, &str)] = &[
    (
        "emits-raw-utf8",
        Producer::EmitsRawUtf8,
        "a timeline producer that links entries with the preimage's non-ASCII written raw in UTF-8",
    ),
    (
        "commits-unverified",
        Producer::CommitsUnverified,
        "a commitment producer that never verifies the timeline: it commits to a broken chain too",
    ),
    (
        "count-off-by-one",
        Producer::CountOffByOne,
        "a commitment producer that writes entry_count one more than the timeline's entries \
         (every other member right)",
    ),
    (
        "reserialises-payload",
        Producer::ReserialisesPayload,
        "a receipt producer that parses the payload as JSON and writes it again (and refuses text \
         that is not JSON)",
    ),
    (
        "uppercase-output-hash",
        Producer::UppercaseOutputHash,
        "a receipt producer that writes output_hash in uppercase hex",
    ),
];

/// The reference's artifact with `m`'s one defect; an emit operation `m` does not produce is
/// declined (89).
pub fn emit(m: Producer, call: &Call) -> Result<Outcome, String> {
    use agentconf_reference::emit::emit_receipt;
    let read = |path: &str| fs::read(path).map_err(|e| format!("cannot read {path}: {e}"));
    let written: Option<String> = match (m, call) {
        (Producer::EmitsRawUtf8, Call::EmitTimeline { steps }) => {
            Some(raw_utf8_timeline(&read(steps)?)?)
        }
        (
            Producer::CommitsUnverified,
            Call::EmitCommitment {
                timeline,
                published_at,
            },
        ) => unverified_commitment(&read(timeline)?, published_at),
        (
            Producer::CountOffByOne,
            Call::EmitCommitment {
                timeline,
                published_at,
            },
        ) => agentconf_reference::emit::emit_commitment(&read(timeline)?, published_at)?
            .map(|text| count_off_by_one(&text))
            .transpose()?,
        (Producer::ReserialisesPayload, Call::EmitReceipt { payload, meta }) => {
            match serde_json::from_slice::<serde_json::Value>(&read(payload)?) {
                Ok(v) => emit_receipt(
                    &serde_json::to_vec(&v).map_err(|e| e.to_string())?,
                    &read(meta)?,
                )?,
                // What it cannot parse it cannot write again: it refuses.
                Err(_) => None,
            }
        }
        (Producer::UppercaseOutputHash, Call::EmitReceipt { payload, meta }) => {
            let bytes = read(payload)?;
            let hash = hex::lower(&sha256(&bytes));
            emit_receipt(&bytes, &read(meta)?)?.map(|text| {
                text.replace(
                    &format!("sha256:{hash}"),
                    &format!("sha256:{}", hash.to_uppercase()),
                )
            })
        }
        _ => return Ok(Outcome::Unsupported),
    };
    match written {
        Some(text) => {
            write_out(&text)?;
            Ok(Outcome::Valid)
        }
        None => Ok(Outcome::Invalid),
    }
}

/// The reference producer's timeline of `steps`, relinked with every preimage's `\uXXXX`
/// escapes of non-ASCII characters written raw.
fn raw_utf8_timeline(steps: &[u8]) -> Result<String, String> {
    use agentconf_aer1::producer::{build_timeline, digest_entry, timeline_json, CloseStyle};
    let steps = agentconf_contract::emit::TimelineSteps::parse(steps)?;
    let specs = agentconf_reference::emit::entry_specs(&steps);
    let mut entries = build_timeline(&steps.job_id, &specs, Revision::R09, CloseStyle::LastOnly);
    let mut scratch = Vec::new();
    for i in 1..entries.len() {
        // `digest_entry` leaves the entry's preimage in `scratch`.
        digest_entry(&entries[i - 1], Revision::R09, &mut scratch);
        entries[i].prev_digest =
            hex::lower(&sha256(&rewrite_preimage(&scratch, Rewrite::RawNonAscii)));
    }
    Ok(timeline_json(&entries))
}

/// The commitment of a timeline taken as it is, verified or not: the first entry's job, the
/// digest of the last entry, the count. `None` (a refusal) for input it cannot read as entries
/// (not JSON, a member missing or of another type, a `seq` that is not an unsigned integer).
fn unverified_commitment(timeline: &[u8], published_at: &str) -> Option<String> {
    use agentconf_aer1::producer::{digest_entry, Entry};
    let values: Vec<serde_json::Value> = serde_json::from_slice(timeline).ok()?;
    let text = |v: &serde_json::Value, m: &str| v.get(m)?.as_str().map(str::to_string);
    let entries: Vec<Entry> = values
        .iter()
        .map(|v| {
            Some(Entry {
                canonical_bytes: text(v, "canonical_bytes")?,
                prev_digest: text(v, "prev_digest")?,
                seq: v.get("seq")?.as_u64()?,
                job_id: text(v, "job_id")?,
                id: text(v, "id")?,
                tool: text(v, "tool")?,
                provenance_class: text(v, "provenance_class")?,
                close: v.get("close").and_then(serde_json::Value::as_bool),
            })
        })
        .collect::<Option<_>>()?;
    let last = entries.last()?;
    let digest = digest_entry(last, Revision::R09, &mut Vec::new());
    Some(
        serde_json::json!({
            "job_id": entries[0].job_id,
            "final_entry_digest": hex::lower(&digest),
            "entry_count": entries.len(),
            "published_at": published_at,
        })
        .to_string()
            + "\n",
    )
}

/// The reference's commitment `text` with `entry_count` one more than it is.
fn count_off_by_one(text: &str) -> Result<String, String> {
    let mut c: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let count = c["entry_count"]
        .as_u64()
        .ok_or("the commitment has no entry_count")?;
    c["entry_count"] = (count + 1).into();
    Ok(c.to_string() + "\n")
}
