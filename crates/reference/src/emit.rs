//! The reference as an emitter: `agentconf impl aer1-emit-timeline STEPS` writes the timeline of
//! the steps, built by the reference producer under the current construction (revision 09), the
//! last entry closed and `close` left out before it (absent digests as `false`);
//! `agentconf impl aer1-emit-commitment TIMELINE PUBLISHED_AT` writes the commitment artifact of
//! a timeline that verifies under revision 09, as `agentconf commit` does;
//! `agentconf impl aer1-emit-receipt PAYLOAD META` writes the receipt of the payload's exact
//! bytes, its other members as META gives them.

use agentconf_aer1::commitment::make_commitment;
use agentconf_aer1::producer::{build_timeline, timeline_json, CloseStyle, EntrySpec};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::{Revision, Verdict};
use agentconf_contract::emit::{ReceiptMeta, TimelineSteps};

/// The timeline of the `STEPS` document `bytes`, as JSON text (one entry per line). `Err` says
/// why the document is not one (a usage error: the harness wrote it).
pub fn emit_timeline(bytes: &[u8]) -> Result<String, String> {
    let steps = TimelineSteps::parse(bytes)?;
    let specs = entry_specs(&steps);
    let entries = build_timeline(&steps.job_id, &specs, Revision::R09, CloseStyle::LastOnly);
    Ok(timeline_json(&entries))
}

/// What the producer records for each step of a parsed `STEPS` document.
pub fn entry_specs(steps: &TimelineSteps) -> Vec<EntrySpec> {
    steps
        .steps
        .iter()
        .map(|s| EntrySpec {
            // `TimelineSteps::parse` checked every output.
            bytes: s.output().unwrap_or_default(),
            id: s.id.clone(),
            tool: s.tool.clone(),
            provenance_class: s.provenance_class.clone(),
        })
        .collect()
}

/// The commitment artifact (one line) of the timeline `bytes` at `published_at`; `None` when the
/// timeline does not verify under revision 09 (no commitment is made for it). `Err`: an
/// unreadable timeline or a `published_at` that is not RFC 3339 (a usage error).
pub fn emit_commitment(bytes: &[u8], published_at: &str) -> Result<Option<String>, String> {
    let report = verify_timeline(bytes, &TimelineOptions::default()).map_err(|e| e.to_string())?;
    match (report.verdict, &report.job_id, &report.final_entry_digest) {
        (Verdict::Valid, Some(job_id), Some(digest)) => {
            let c = make_commitment(job_id, digest, report.entry_count, published_at)
                .map_err(|e| format!("cannot build the commitment: {e}"))?;
            Ok(Some(c.to_json() + "\n"))
        }
        _ => Ok(None),
    }
}

/// The receipt (one line) of `payload` with `meta`'s members (the bytes of a META document);
/// `None` when the payload is not UTF-8, which no conforming receipt can carry. `Err`: META is
/// not a META document (a usage error).
pub fn emit_receipt(payload: &[u8], meta: &[u8]) -> Result<Option<String>, String> {
    use base64::Engine as _;
    let meta = ReceiptMeta::parse(meta)?;
    if std::str::from_utf8(payload).is_err() {
        return Ok(None);
    }
    let hash = agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(payload));
    // The bytes are carried as given: never parsed, never re-serialised.
    let receipt = serde_json::json!({
        "id": meta.id,
        "receipt_schema_version": meta.receipt_schema_version,
        "created_at": meta.created_at,
        "tool": {
            "name": meta.tool.name,
            "version": meta.tool.version,
            "scope": meta.tool.scope,
        },
        "provenance_class": meta.provenance_class,
        "canonical_bytes": base64::engine::general_purpose::STANDARD.encode(payload),
        "output_hash": format!("sha256:{hash}"),
        "verification_status": "verified",
    });
    Ok(Some(receipt.to_string() + "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentconf_contract::emit::EmitStep;

    /// The steps of the kit's published chain `v07-valid-5` give its published links, and the
    /// reference verifier accepts what the emitter wrote.
    #[test]
    fn the_published_steps_give_the_published_chain() {
        let steps = TimelineSteps {
            job_id: "job-7a1f".into(),
            steps: (0..5)
                .map(|i| {
                    EmitStep::new(
                        &format!("r-job-7a1f-{i}"),
                        "price_lookup",
                        "LOGGED BY AGENT",
                        format!("{{\"job\":\"job-7a1f\",\"entry\":{i},\"tag\":\"r\"}}").as_bytes(),
                    )
                })
                .collect(),
        };
        let text = emit_timeline(&serde_json::to_vec(&steps).unwrap()).unwrap();
        let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(
            entries[4]["prev_digest"],
            "5dd618b1b3b904a92261bb747f8c4511b0882e1454fc41f20a59fa5bd0ded778"
        );
        assert_eq!(entries[4]["close"], true);
        assert!(entries[0].get("close").is_none());
        let options = agentconf_aer1::timeline::TimelineOptions::default();
        let r = agentconf_aer1::timeline::verify_timeline(text.as_bytes(), &options).unwrap();
        assert_eq!(
            r.verdict,
            agentconf_aer1::Verdict::Valid,
            "{:?}",
            r.failures
        );
    }

    #[test]
    fn a_document_that_is_not_steps_is_refused() {
        assert!(emit_timeline(b"{}").is_err());
        assert!(emit_timeline(br#"{"job_id":"j","steps":[]}"#).is_err());
    }
}
