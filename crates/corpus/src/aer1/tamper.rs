//! `aer1/timeline/tamper/*`: one bound member of one entry changed, the chain NOT re-linked
//! (draft Section 7.3: changing tool, provenance, receipt id, output, job, seq or close without
//! rebuilding the suffix breaks the next link).
//!
//! Entries are counted from 1, like `seq` (findings count from 0). Each mutant changes an entry
//! that has a successor, so the successor's link always breaks (AER1-TL-LINK); members that have a
//! rule of their own also break that rule. A change to the last entry alone is invisible inside
//! the chain: that is the `substituted` family, not this one.

use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::Entry;
use agentconf_rules::Rule;

use super::common::{digest_09, example, JOB};
use crate::builder::{Family, FROM_07};
use agentconf_contract::vector::{Suite, Vector};

/// A tampered member: the name part, the change, and the change in words.
struct Tamper {
    part: &'static str,
    edit: fn(&mut Entry),
    what: &'static str,
}

fn tampers() -> Vec<Tamper> {
    vec![
        Tamper {
            part: "tool",
            edit: |e| e.tool = "wire_transfer".to_string(),
            what: "its tool changed from price_lookup to wire_transfer",
        },
        Tamper {
            part: "provenance",
            edit: |e| e.provenance_class = "EXECUTED BY ZAMBO".to_string(),
            what:
                "its provenance_class changed from LOGGED BY AGENT to EXECUTED BY ZAMBO, another \
                   well-formed class (an agent's report dressed up as an execution record)",
        },
        Tamper {
            part: "id",
            edit: |e| e.id = format!("r-{JOB}-x"),
            what: "its receipt id changed to r-job-7a1f-x",
        },
        Tamper {
            part: "job",
            edit: |e| e.job_id = "job-other".to_string(),
            what: "its job_id changed to job-other",
        },
        Tamper {
            part: "seq",
            edit: |e| e.seq = if e.seq == 1 { 0 } else { e.seq - 1 },
            what: "its seq changed (to 0 for the first entry, otherwise repeating the previous \
                   entry's seq)",
        },
        Tamper {
            part: "close",
            edit: |e| e.close = Some(true),
            what: "close: true set on it although it is not the last entry",
        },
        Tamper {
            part: "bytes",
            edit: |e| {
                e.canonical_bytes = encode_base64(
                    format!(
                        "{{\"job\":\"{JOB}\",\"entry\":{},\"tag\":\"x\"}}",
                        e.seq - 1
                    )
                    .as_bytes(),
                )
            },
            what: "its canonical_bytes replaced by other valid base64 of UTF-8 bytes (a different \
                   output)",
        },
    ]
}

/// The rules a strict verifier reports, and why, for `part` changed at 1-based position `at` of an
/// `n`-entry chain (`at` < `n`).
fn expected(part: &str, at: usize, n: usize) -> (Vec<Rule>, String) {
    let next = at + 1;
    let link = format!(
        "Every member changed here is bound into the entry's digest, so entry {next}'s prev_digest \
         no longer matches the recomputed digest of entry {at} (AER1-TL-LINK)."
    );
    match part {
        "job" if at == 1 => (
            vec![Rule::Aer1TlJob, Rule::Aer1TlLink],
            format!(
                "{link} The first entry defines the chain's job, so the entries after it, still of \
                 job-7a1f, are the ones that differ: AER1-TL-JOB is reported on each of entries \
                 2..{n}, not on entry 1. The set of rules reported is still AER1-TL-JOB and \
                 AER1-TL-LINK."
            ),
        ),
        "job" => (
            vec![Rule::Aer1TlJob, Rule::Aer1TlLink],
            format!("{link} Entry {at}'s job differs from the first entry's (AER1-TL-JOB on entry {at}).")
        ),
        "seq" => (
            vec![Rule::Aer1TlSeq, Rule::Aer1TlLink],
            format!(
                "{link} seq is judged by position: entry {at} must carry seq {at} \
                 (AER1-TL-SEQ on entry {at} only; the entries after it are still in place)."
            ),
        ),
        "close" => (
            vec![Rule::Aer1TlCloseEarly, Rule::Aer1TlLink],
            format!("{link} close: true before the last entry is forbidden (AER1-TL-CLOSE-EARLY on entry {at}).")
        ),
        "provenance" => (
            vec![Rule::Aer1TlLink],
            format!("{link} The new class is well-formed, so AER1-TL-PROVENANCE holds; the link is the only failure.")
        ),
        "bytes" => (
            vec![Rule::Aer1TlLink],
            format!("{link} The output hash in the preimage is recomputed from the bytes; the new bytes are valid base64 of UTF-8, so the link is the only failure.")
        ),
        _ => (vec![Rule::Aer1TlLink], format!("{link} The link is the only failure.")),
    }
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "tamper");

    // (chain length, 1-based position) of each tampered entry.
    let positions = [(8usize, 1usize), (8, 4), (2, 1)];
    for t in tampers() {
        for (n, at) in positions {
            let mut chain = example(n);
            (t.edit)(&mut chain[at - 1]);
            let (rules, why) = expected(t.part, at, n);
            let what = t.what;
            f.vector(&format!("{}-at-{at}-of-{n}", t.part))
                .revisions(FROM_07)
                .describe(&format!(
                    "Positions here count from 1; reports index entries from 0 (position p is \
                     entry index p-1). Entry {at} of the {n}-entry example had {what}, without \
                     re-linking the entries after it. {why} The chain MUST be rejected."
                ))
                .timeline(&chain)
                .invalid(&rules)
                .derived_from(
                    &format!("aer1/timeline/valid/example-{n}"),
                    &format!("entry {at}: {what}; not re-linked"),
                )
                .push();
        }
    }

    // prev_digest is bound too.
    let mut chain = example(8);
    chain[0].prev_digest = "1".repeat(64);
    f.vector("prev-digest-at-1-of-8")
        .revisions(FROM_07)
        .describe(
            "Entry 1 of the 8-entry example had its prev_digest changed from the genesis value (64 \
             zeros) to 64 '1' characters, without re-linking. The first entry's prev_digest must be \
             the genesis value (AER1-TL-GENESIS), and, being bound into entry 1's digest, the change \
             also breaks entry 2's link (AER1-TL-LINK).",
        )
        .timeline(&chain)
        .invalid(&[Rule::Aer1TlGenesis, Rule::Aer1TlLink])
        .derived_from(
            "aer1/timeline/valid/example-8",
            "entry 1: prev_digest set to 64 '1' characters; not re-linked",
        )
        .push();

    let mut chain = example(8);
    chain[3].prev_digest = digest_09(&chain[1]);
    f.vector("prev-digest-at-4-of-8")
        .revisions(FROM_07)
        .describe(
            "Entry 4 of the 8-entry example had its prev_digest replaced by the digest of entry 2 \
             (as if entry 3 had been skipped), without re-linking. Entry 4's own link fails (it does \
             not name entry 3's digest), and prev_digest being bound, entry 4's digest changed, so \
             entry 5's link fails too: AER1-TL-LINK (twice) is the only rule reported.",
        )
        .timeline(&chain)
        .invalid(&[Rule::Aer1TlLink])
        .derived_from(
            "aer1/timeline/valid/example-8",
            "entry 4: prev_digest set to the digest of entry 2; not re-linked",
        )
        .push();

    // Everything at once on one inner entry.
    let mut chain = example(8);
    for t in tampers() {
        (t.edit)(&mut chain[3]);
    }
    f.vector("all-members-at-4-of-8")
        .revisions(FROM_07)
        .describe(
            "Entry 4 of the 8-entry example had its tool, provenance_class (to another valid class), \
             id, job_id, seq (to 3, repeating entry 3's), close (true) and canonical_bytes (other \
             valid base64 of UTF-8) all changed, without re-linking. Each member with a rule of its \
             own breaks it on entry 4 (AER1-TL-JOB, AER1-TL-SEQ, AER1-TL-CLOSE-EARLY), and entry 5's \
             link breaks (AER1-TL-LINK). Nothing else is reported: the entries after it keep their \
             job, seq and close.",
        )
        .timeline(&chain)
        .invalid(&[
            Rule::Aer1TlJob,
            Rule::Aer1TlSeq,
            Rule::Aer1TlCloseEarly,
            Rule::Aer1TlLink,
        ])
        .derived_from(
            "aer1/timeline/valid/example-8",
            "entry 4: tool, provenance_class, id, job_id, seq, close and canonical_bytes changed; \
             not re-linked",
        )
        .push();
}
