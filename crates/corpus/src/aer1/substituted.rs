//! `aer1/timeline/substituted/*`: the final entry replaced (draft Section 7.3). Every digest but
//! the last reappears as the next entry's `prev_digest`; the last one appears nowhere inside the
//! chain, so the final entry can be replaced, its digest recomputed (implicitly: nothing links to
//! it), the count kept, and the chain still passes every chain rule. A commitment's
//! `final_entry_digest` catches it; its `entry_count` does not, since the length is unchanged.

use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::Entry;
use agentconf_rules::Rule;

use super::common::{commitment_for, example, JOB};
use crate::builder::{Family, FROM_07, FROM_09};
use agentconf_contract::vector::{Suite, Vector};

/// A replacement for one or more members of the final entry: (name part, what changed, edit).
type Substitution = (&'static str, &'static str, fn(&mut Entry));

fn forged_bytes(e: &mut Entry) {
    // Other valid base64 of UTF-8 bytes, shaped like the example's.
    e.canonical_bytes = encode_base64(
        format!(
            "{{\"job\":\"{JOB}\",\"entry\":{},\"tag\":\"forged\"}}",
            e.seq - 1
        )
        .as_bytes(),
    );
}

fn forged_tool(e: &mut Entry) {
    e.tool = "wire_transfer".to_string();
}

fn forged_id(e: &mut Entry) {
    e.id = format!("r-{JOB}-forged");
}

fn forged_provenance(e: &mut Entry) {
    // Another valid class: turns the agent's own report into a claim of execution by a system.
    e.provenance_class = "EXECUTED BY ZAMBO".to_string();
}

fn forged_all(e: &mut Entry) {
    forged_bytes(e);
    forged_tool(e);
    forged_id(e);
    forged_provenance(e);
}

const BYTES: Substitution = (
    "bytes",
    "its canonical_bytes replaced by other valid base64 of UTF-8 bytes (a different output)",
    forged_bytes,
);
const TOOL: Substitution = (
    "tool",
    "its tool changed from price_lookup to wire_transfer",
    forged_tool,
);
const ID: Substitution = ("id", "its receipt id replaced", forged_id);
const PROVENANCE: Substitution = (
    "provenance",
    "its provenance_class changed from LOGGED BY AGENT to the valid class EXECUTED BY ZAMBO",
    forged_provenance,
);
const ALL: Substitution = (
    "all",
    "its canonical_bytes, tool, id and provenance_class all replaced (seq, job_id, close and \
     prev_digest kept)",
    forged_all,
);

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "substituted");

    let cases: [(usize, &[Substitution]); 3] = [
        (8, &[BYTES, TOOL, ID, PROVENANCE, ALL]),
        (5, &[BYTES, PROVENANCE, ALL]),
        (1, &[BYTES, ID, ALL]),
    ];
    for (n, substitutions) in cases {
        let original = example(n);
        for &(part, what, edit) in substitutions {
            let mut swapped = original.clone();
            if let Some(last) = swapped.last_mut() {
                edit(last);
            }
            let name = format!("replace-final-{part}-of-{n}");
            let alone = f.id_of(&name);
            let bound = if n == 1 {
                "The chain has one entry, so it is also the first: nothing at all inside the chain \
                 refers to its digest."
                    .to_string()
            } else {
                format!(
                    "Entries 1..{} are unchanged and their links hold; entry {n}'s own prev_digest \
                     still names entry {}, and nothing refers to entry {n}'s digest: every digest \
                     but the last reappears as the next prev_digest.",
                    n - 1,
                    n - 1
                )
            };
            f.vector(&name)
                .revisions(FROM_07)
                .describe(&format!(
                    "Substituted (draft Section 7.3): the final entry of the {n}-entry example had \
                     {what}; its digest changes, but no re-linking is needed. {bound} seq, job and \
                     close are unchanged, so every chain rule holds and the chain MUST verify. The \
                     final entry is bound by nothing inside the chain; only an outside commitment's \
                     final_entry_digest catches this."
                ))
                .timeline(&swapped)
                .exercises(&[Rule::Aer1TlLink, Rule::Aer1TlCloseLast])
                .valid()
                .derived_from(
                    &format!("aer1/timeline/valid/example-{n}"),
                    &format!("final entry: {what}"),
                )
                .push();

            f.vector(&format!("{name}-against-commitment"))
                .revisions(FROM_09)
                .describe(&format!(
                    "The substituted chain of {name} (valid alone), checked against the commitment \
                     a witness published for the original {n}-entry chain. The count still matches \
                     ({n} entries) and so does the job; only the recomputed digest of the replaced \
                     final entry differs from final_entry_digest, so AER1-CM-FINAL is the only rule \
                     that breaks. This is the draft's point that a count alone catches truncation \
                     but not substitution of the final entry: the commitment needs the final digest."
                ))
                .timeline(&swapped)
                .commitment(&commitment_for(&original))
                .invalid(&[Rule::Aer1CmFinal])
                .exercises(&[Rule::Aer1CmCount, Rule::Aer1CmJob])
                .derived_from(
                    &alone,
                    &format!("checked against the commitment of the original {n}-entry chain"),
                )
                .push();
        }
    }
    // job_id is not bound by a link either, but the one-job rule sees it once there is a first
    // entry to compare with; with a single entry only the commitment sees it.
    let original = example(8);
    let mut swapped = original.clone();
    swapped[7].job_id = "job-other".to_string();
    f.vector("replace-final-job-of-8")
        .revisions(FROM_07)
        .describe(
            "The final entry of the 8-entry example had its job_id changed to job-other. Like any \
             change to the final entry it breaks no link, but unlike tool, id, provenance or bytes \
             the job is also checked by its own rule: the first entry defines the job, and entry 8 \
             differs (AER1-TL-JOB, the only failure). Substitution stays undetectable inside the \
             chain only for the members no other rule compares.",
        )
        .timeline(&swapped)
        .invalid(&[Rule::Aer1TlJob])
        .derived_from(
            "aer1/timeline/valid/example-8",
            "final entry: job_id changed to job-other",
        )
        .push();

    let original = example(1);
    let mut swapped = original.clone();
    swapped[0].job_id = "job-other".to_string();
    let alone = f.id_of("replace-final-job-of-1");
    f.vector("replace-final-job-of-1")
        .revisions(FROM_07)
        .describe(
            "The only entry of the 1-entry example had its job_id changed to job-other. It is the \
             first entry, so it defines the job, and nothing refers to its digest: every chain rule \
             holds and the chain MUST verify, now as a chain of job-other.",
        )
        .timeline(&swapped)
        .exercises(&[Rule::Aer1TlJob, Rule::Aer1TlCloseLast])
        .valid()
        .derived_from("aer1/timeline/valid/example-1", "final (only) entry: job_id changed to job-other")
        .push();

    f.vector("replace-final-job-of-1-against-commitment")
        .revisions(FROM_09)
        .describe(
            "The chain of replace-final-job-of-1 (valid alone), checked against the commitment \
             published for the original job-7a1f chain. The count matches (1 entry); the entry's \
             job_id is not the committed job (AER1-CM-JOB) and, job_id being bound into the digest, \
             its digest is not the committed final digest (AER1-CM-FINAL).",
        )
        .timeline(&swapped)
        .commitment(&commitment_for(&original))
        .invalid(&[Rule::Aer1CmJob, Rule::Aer1CmFinal])
        .exercises(&[Rule::Aer1CmCount])
        .derived_from(&alone, "checked against the commitment of the original 1-entry chain")
        .push();
}
