//! `aer1/timeline/revision06/*`: the historical revision-06 construction against the current one.
//!
//! Revision 06 digested the decoded bytes alone; revision 07 bound the metadata (and 08 and 09 kept
//! that construction). A timeline carries no revision marker, so a verifier is told which
//! construction to check. Under AER1-TL-VERSIONING, a chain that verifies under 06 must never be
//! reported as verifying under the current construction, and 06 results are historical. The
//! self-test runs `06` vectors under the 06 construction (and requires the result to be labelled
//! historical), `07`-`09` vectors under the current one, and vectors listing both under both.

use agentconf_aer1::digest::Revision;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::{relink, Entry};
use agentconf_rules::Rule;

use super::common::{example, example_06, CHAIN_RULES, JOB};
use crate::builder::{Family, ALL_REVISIONS, R06, R07_09};
use crate::model::{Suite, Vector};

/// A change to one entry: name part, the change in words, the edit.
type Edit = (&'static str, &'static str, fn(&mut Entry));

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "revision06");

    // A one-entry chain does not depend on the construction at all.
    let one = example_06(1);
    assert_eq!(
        one,
        example(1),
        "a one-entry chain is the same under both constructions"
    );
    f.vector("example-06-1-either-construction")
        .revisions(ALL_REVISIONS)
        .describe(
            "A one-entry chain built under revision 06. Its only construction-dependent value \
             would be a link, and it has none: the entry (genesis prev_digest, seq 1, close: true) \
             is byte for byte the one-entry chain of the current construction (valid/example-1). \
             It MUST verify under 06 (labelled historical) and under 07-09 alike. This is a real \
             limit of AER1-TL-VERSIONING, not a violation of it: from the chain alone the two \
             constructions cannot be told apart; only the final digest differs, which a revision-09 \
             commitment's final_entry_digest would pin.",
        )
        .timeline(&one)
        .exercises(&[Rule::Aer1TlVersioning])
        .exercises(CHAIN_RULES)
        .valid()
        .push();

    for n in [2usize, 5, 8] {
        let old = example_06(n);
        let name = format!("example-06-{n}");
        let source = f.id_of(&name);
        f.vector(&name)
            .revisions(R06)
            .describe(&format!(
                "{n} entries shaped like the draft's example, linked with the revision-06 \
                 construction: each prev_digest is the SHA-256 of the previous entry's decoded \
                 bytes. Checked under 06 it MUST verify, and the result MUST be labelled historical \
                 (AER1-TL-VERSIONING): 06 is for historical chains only."
            ))
            .timeline(&old)
            .exercises(&[Rule::Aer1TlVersioning])
            .exercises(CHAIN_RULES)
            .valid()
            .push();

        f.vector(&format!("{name}-under-current"))
            .revisions(R07_09)
            .describe(&format!(
                "The revision-06 chain of {name}, checked under the current construction. Every \
                 prev_digest is a hash of the bytes alone, not of the eight-member preimage, so all \
                 {} links fail (AER1-TL-LINK, nothing else). AER1-TL-VERSIONING: a chain that \
                 verifies under 06 MUST NOT be reported as verifying under the current \
                 construction; a verifier must not guess the construction and fall back to 06.",
                n - 1
            ))
            .timeline(&old)
            .invalid(&[Rule::Aer1TlLink])
            .exercises(&[Rule::Aer1TlVersioning])
            .derived_from(&source, "checked under the current construction instead of 06")
            .push();

        f.vector(&format!("example-{n}-under-06"))
            .revisions(R06)
            .describe(&format!(
                "The current chain valid/example-{n}, checked under the revision-06 construction. \
                 Its prev_digest values are digests of the eight-member preimage, not hashes of the \
                 bytes alone, so all {} links fail under 06 (AER1-TL-LINK, nothing else). The \
                 constructions are told apart, not mixed (AER1-TL-VERSIONING).",
                n - 1
            ))
            .timeline(&example(n))
            .invalid(&[Rule::Aer1TlLink])
            .exercises(&[Rule::Aer1TlVersioning])
            .derived_from(
                &format!("aer1/timeline/valid/example-{n}"),
                "checked under revision 06 instead of the current construction",
            )
            .push();
    }

    // Metadata that 06 does not bind.
    let source = f.id_of("example-06-5");
    let metadata: [Edit; 3] = [
        (
            "tool",
            "tool changed from price_lookup to wire_transfer",
            |e| e.tool = "wire_transfer".to_string(),
        ),
        (
            "provenance",
            "provenance_class changed from LOGGED BY AGENT to EXECUTED BY ZAMBO",
            |e| e.provenance_class = "EXECUTED BY ZAMBO".to_string(),
        ),
        ("id", "receipt id changed to r-job-7a1f-x", |e| {
            e.id = format!("r-{JOB}-x")
        }),
    ];
    for (part, what, edit) in metadata {
        let mut old = example_06(5);
        edit(&mut old[2]);
        f.vector(&format!("example-06-5-inner-{part}-changed"))
            .revisions(R06)
            .describe(&format!(
                "The revision-06 chain of example-06-5 with entry 3 (an inner entry) changed: \
                 {what}, links not recomputed. Revision 06 digests only the decoded bytes, so the \
                 change breaks no link and the chain MUST verify under 06. This is why 06 results \
                 are labelled historical and never count as current (AER1-TL-VERSIONING): under the \
                 current construction the same change breaks entry 4's link (see the tamper family)."
            ))
            .timeline(&old)
            .exercises(&[Rule::Aer1TlVersioning, Rule::Aer1TlLink])
            .valid()
            .derived_from(&source, &format!("third entry (index 2): {what}; not re-linked"))
            .push();
    }

    let mut old = example_06(5);
    for edit in metadata.map(|(_, _, e)| e) {
        edit(&mut old[2]);
    }
    f.vector("example-06-5-inner-metadata-changed-under-current")
        .revisions(R07_09)
        .describe(
            "The revision-06 chain of example-06-5 with the tool, provenance_class and id of \
             entry 3 changed, checked under the current construction. Under 06 the changes go \
             unnoticed (example-06-5-inner-*-changed); under the current construction every link \
             of a 06 chain fails anyway (AER1-TL-LINK on all four), and the chain MUST NOT be \
             reported as verifying (AER1-TL-VERSIONING).",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlLink])
        .exercises(&[Rule::Aer1TlVersioning])
        .derived_from(
            &source,
            "third entry (index 2): tool, provenance_class and id changed; checked under the current construction",
        )
        .push();

    // Under 06, the chain rules other than links still apply; they just are not backed by links.
    let mut old = example_06(5);
    old[2].job_id = "job-other".to_string();
    f.vector("example-06-5-inner-job-changed")
        .revisions(R06)
        .describe(
            "The revision-06 chain of example-06-5 with the third entry's (index 2) job_id changed to job-other. 06 \
             does not bind job_id into the digest, so every link still holds, but the one-job rule \
             applies under 06 too: AER1-TL-JOB on the third entry (index 2) is the only failure.",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlJob])
        .exercises(&[Rule::Aer1TlLink])
        .derived_from(
            &source,
            "third entry (index 2): job_id changed to job-other; not re-linked",
        )
        .push();

    let mut old = example_06(5);
    old[2].seq = 7;
    f.vector("example-06-5-inner-seq-changed")
        .revisions(R06)
        .describe(
            "The revision-06 chain of example-06-5 with the third entry's (index 2) seq changed from 3 to 7. 06 does \
             not bind seq, so every link still holds, but seq contiguity applies under 06 too: \
             AER1-TL-SEQ on the third entry (index 2) is the only failure (seq is judged by position, so entries 4 \
             and 5 are still in place).",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlSeq])
        .exercises(&[Rule::Aer1TlLink])
        .derived_from(&source, "third entry (index 2): seq changed from 3 to 7; not re-linked")
        .push();

    let mut old = example_06(5);
    old[2].close = Some(true);
    f.vector("example-06-5-inner-close-true")
        .revisions(R06)
        .describe(
            "The revision-06 chain of example-06-5 with close: true set on the third of 5 entries \
             (index 2). 06 does \
             not bind close, so every link still holds, but close: true before the last entry is \
             still forbidden: AER1-TL-CLOSE-EARLY on index 2 is the only failure.",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlCloseEarly])
        .exercises(&[Rule::Aer1TlLink])
        .derived_from(
            &source,
            "third entry (index 2): close: true set; not re-linked",
        )
        .push();

    let mut old = example_06(5);
    old[2].canonical_bytes =
        encode_base64(format!("{{\"job\":\"{JOB}\",\"entry\":2,\"tag\":\"x\"}}").as_bytes());
    f.vector("example-06-5-inner-bytes-changed")
        .revisions(R06)
        .describe(
            "The revision-06 chain of example-06-5 with the third entry's (index 2) canonical_bytes replaced by other \
             valid base64 of UTF-8 bytes. The bytes are the one thing 06 binds: entry 4's \
             prev_digest no longer equals the hash of entry 3's bytes (AER1-TL-LINK, the only \
             failure).",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlLink])
        .derived_from(&source, "third entry (index 2): canonical_bytes replaced; not re-linked")
        .push();

    let mut old = example_06(5);
    old[4].close = None;
    f.vector("example-06-5-last-not-closed")
        .revisions(R06)
        .describe(
            "The revision-06 chain of example-06-5 with close removed from the last entry. Revision \
             06 already required the last entry to carry close: true (it did not bind close into \
             the digest, so nothing else changes): AER1-TL-CLOSE-LAST is the only failure.",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlCloseLast])
        .derived_from(&source, "last entry: close removed")
        .push();

    // The truncation limit is older than revision 07: under 06 it needs no digest work at all.
    let mut old = example_06(8);
    old.truncate(6);
    old[5].close = Some(true);
    relink(&mut old, Revision::R06);
    let source8 = f.id_of("example-06-8");
    f.vector("example-06-8-reclosed")
        .revisions(R06)
        .describe(
            "The revision-06 chain of example-06-8 with entries 7 and 8 dropped and close: true set \
             on entry 6. 06 does not bind close, so not even entry 6's digest changes; the \
             shorter chain passes every rule and MUST verify under 06 (labelled historical). \
             Revision 06 has no commitment artifact to catch this.",
        )
        .timeline(&old)
        .exercises(&[Rule::Aer1TlVersioning, Rule::Aer1TlCloseLast])
        .valid()
        .derived_from(&source8, "dropped entries 7 and 8, set close: true on entry 6")
        .push();
}
