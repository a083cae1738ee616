//! `aer1/timeline/revision06/*`: the historical revision-06 construction, and why revision 07
//! replaced it.
//!
//! Revision 06 digested the decoded bytes alone and asked for no more than a non-empty array of
//! objects, strict base64, genesis, links over the bytes, close a boolean where present and the
//! last entry closed. It has no seq, job_id, tool or provenance_class requirement and no
//! contiguity, one-job or close-position rule. The family shows that weakness the only honest way:
//! with chains that are **valid under 06 and invalid under 07-09** (one vector, an expectation per
//! revision), never by inventing 06 rules. Real 06 chains (`shape-06-*`) carry only `id`,
//! `canonical_bytes`, `prev_digest` and `close`.
//!
//! A timeline carries no revision marker, so a verifier is told which construction to check; a
//! vector's 06 expectation runs as its own case (`<id>@06`, or the vector id when 06 is its main
//! revision). Under AER1-TL-VERSIONING, a 06 result is labelled historical and a chain that
//! verifies under 06 is never reported as verifying under the current construction.

use agentconf_aer1::digest::Revision;
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::producer::{example_chain, relink, Entry};
use agentconf_rules::Rule;
use serde_json::{json, Value};

use super::common::{example, example_06, example_06_shape, CHAIN_RULES, CHAIN_RULES_06, JOB};
use crate::builder::{Family, AER1_ALL, FROM_07, ONLY_06};
use agentconf_contract::vector::{Flag, Suite, Vector};

/// A change to one entry: name part, the change in words, the edit.
type Edit = (&'static str, &'static str, fn(&mut Entry));

/// Why a chain linked over the bytes alone fails under 07-09, for `invalid_under` reasons.
const LINKS_FAIL_UNDER_07: &str =
    "Under 07-09 every prev_digest of a revision-06 chain is a hash of \
    the bytes alone, not the digest of the eight-member preimage, so every link fails \
    (AER1-TL-LINK); a 07-09 verifier reports that the chain passes every 06 check, and must not \
    fall back to 06.";

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "revision06");
    either_construction(&mut f);
    examples(&mut f);
    unbound_metadata(&mut f);
    own_defects(&mut f);
    real_06_shape(&mut f);
}

fn either_construction(f: &mut Family<'_>) {
    // A one-entry chain does not depend on the construction at all.
    let one = example_06(1);
    assert_eq!(
        one,
        example(1),
        "a one-entry chain is the same under both constructions"
    );
    f.vector("example-06-1-either-construction")
        .revisions(AER1_ALL)
        .describe(
            "A one-entry chain built under revision 06. Its only construction-dependent value \
             would be a link, and it has none: the entry (genesis prev_digest, seq 1, close: true) \
             is byte for byte the one-entry chain of the current construction (valid/example-1). \
             It MUST verify under 06 (labelled historical) and under 07-09 alike; it runs as two \
             cases, one per construction. This is a real limit of AER1-TL-VERSIONING, not a \
             violation of it: from the chain alone the two constructions cannot be told apart; \
             only the final digest differs, which a revision-09 commitment's final_entry_digest \
             would pin.",
        )
        .timeline(&one)
        .exercises(&[Rule::Aer1TlVersioning])
        .exercises(CHAIN_RULES)
        .valid()
        .push();
}

fn examples(f: &mut Family<'_>) {
    for n in [2usize, 5, 8] {
        let old = example_06(n);
        let name = format!("example-06-{n}");
        f.vector(&name)
            .revisions(ONLY_06)
            .describe(&format!(
                "{n} entries shaped like the draft's example (seq, job_id, tool and \
                 provenance_class present), linked with the revision-06 construction: each \
                 prev_digest is the SHA-256 of the previous entry's decoded bytes. Checked under 06 \
                 it MUST verify, and the result MUST be labelled historical (AER1-TL-VERSIONING): \
                 06 is for historical chains only. Checked under 07-09 (case @09) all {} links \
                 fail and nothing else: a chain that verifies under 06 MUST NOT be reported as \
                 verifying under the current construction. (This vector absorbed the retired \
                 {name}-under-current, which carried the same input.)",
                n - 1
            ))
            .timeline(&old)
            .exercises(&[Rule::Aer1TlVersioning])
            .exercises(CHAIN_RULES_06)
            .valid()
            .invalid_under(FROM_07, &[Rule::Aer1TlLink], LINKS_FAIL_UNDER_07)
            .push();

        f.vector(&format!("example-{n}-under-06"))
            .revisions(ONLY_06)
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
}

/// One attack revision 07 made visible: a revision-06 chain, changed where 06 cannot see it.
struct Weakness<'a> {
    name: &'a str,
    description: &'a str,
    chain: &'a [Entry],
    /// What a 07-09 verifier reports, and why 07-09 differs from 06.
    under_07: &'a [Rule],
    reason: &'a str,
    source: &'a str,
    mutation: &'a str,
}

/// Valid under 06 (labelled historical), invalid under 07-09 on `under_07`.
fn push_weakness(f: &mut Family<'_>, w: Weakness<'_>) {
    f.vector(w.name)
        .revisions(ONLY_06)
        .describe(w.description)
        .timeline(w.chain)
        .exercises(&[Rule::Aer1TlVersioning])
        .exercises(CHAIN_RULES_06)
        .valid()
        .invalid_under(FROM_07, w.under_07, w.reason)
        .derived_from(w.source, w.mutation)
        .push();
}

/// Each attack revision 07 made visible: valid under 06, invalid under 07-09.
fn unbound_metadata(f: &mut Family<'_>) {
    let source = f.id_of("example-06-5");
    let relabel: [Edit; 3] = [
        (
            "tool",
            "tool relabelled from price_lookup to wire_transfer",
            |e| e.tool = "wire_transfer".to_string(),
        ),
        (
            "provenance",
            "provenance_class swapped from LOGGED BY AGENT to EXECUTED BY ZAMBO (an agent's own \
             report passed off as the system's)",
            |e| e.provenance_class = "EXECUTED BY ZAMBO".to_string(),
        ),
        ("id", "receipt id changed to r-job-7a1f-x", |e| {
            e.id = format!("r-{JOB}-x")
        }),
    ];
    for (part, what, edit) in relabel {
        let mut old = example_06(5);
        edit(&mut old[2]);
        let name = format!("example-06-5-inner-{part}-changed");
        let description = format!(
            "The revision-06 chain of example-06-5 with entry 3 (index 2): {what}, links not \
             recomputed. Revision 06 digests only the decoded bytes, so the change breaks no \
             link and the chain MUST verify under 06 — the weakness that produced revision 07, \
             and why 06 results are labelled historical (AER1-TL-VERSIONING). Under 07-09 \
             (case @09) the chain is rejected on its links; on a current chain the same change \
             breaks the next link (the tamper family)."
        );
        let mutation = format!("third entry (index 2): {what}; not re-linked");
        push_weakness(
            f,
            Weakness {
                name: &name,
                description: &description,
                chain: &old,
                under_07: &[Rule::Aer1TlLink],
                reason: LINKS_FAIL_UNDER_07,
                source: &source,
                mutation: &mutation,
            },
        );
    }

    let mut old = example_06(5);
    for edit in relabel.map(|(_, _, e)| e) {
        edit(&mut old[2]);
    }
    f.vector("example-06-5-inner-metadata-changed-under-current")
        .revisions(FROM_07)
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

    // Rules revision 07 added, broken on a 06 chain: 06 cannot see them, 07-09 reports them (and
    // the links a 06 chain always fails there).
    let mut old = example_06(5);
    old[2].job_id = "job-other".to_string();
    push_weakness(
        f,
        Weakness {
            name: "example-06-5-inner-job-changed",
            description: "The revision-06 chain of example-06-5 with the third entry's (index 2) job_id changed \
                 to job-other, links not recomputed. Revision 06 neither binds job_id nor has a \
                 one-job rule, so the chain MUST verify under 06. Under 07-09 (case @09) the one-job \
                 rule catches it (AER1-TL-JOB on index 2) besides the links. Expectation changed: \
                 this vector once expected AER1-TL-JOB under 06, a rule revision 06 does not have.",
            chain: &old,
            under_07: &[Rule::Aer1TlLink, Rule::Aer1TlJob],
            reason: "Revision 07 added the one-job rule; and the links of a 06 chain fail under 07-09.",
            source: &source,
            mutation: "third entry (index 2): job_id changed to job-other; not re-linked",
        },
    );

    let mut old = example_06(5);
    old[2].seq = 7;
    push_weakness(
        f,
        Weakness {
            name: "example-06-5-inner-seq-changed",
            description: "The revision-06 chain of example-06-5 with the third entry's (index 2) seq changed \
                 from 3 to 7, links not recomputed. Revision 06 has no seq and no contiguity rule, so \
                 the chain MUST verify under 06. Under 07-09 (case @09) contiguity catches it \
                 (AER1-TL-SEQ on index 2, judged by position) besides the links. Expectation changed: \
                 this vector once expected AER1-TL-SEQ under 06, a rule revision 06 does not have.",
            chain: &old,
            under_07: &[Rule::Aer1TlLink, Rule::Aer1TlSeq],
            reason: "Revision 07 added seq and its contiguity rule; and the links of a 06 chain fail \
             under 07-09.",
            source: &source,
            mutation: "third entry (index 2): seq changed from 3 to 7; not re-linked",
        },
    );

    let mut old = example_06(5);
    old[2].close = Some(true);
    push_weakness(
        f,
        Weakness {
            name: "example-06-5-inner-close-true",
            description: "The revision-06 chain of example-06-5 with close: true also set on the third of 5 \
                 entries (index 2); the last entry still carries close: true. Revision 06 requires \
                 the last entry to be closed but says nothing about close elsewhere, and does not bind \
                 close, so the chain MUST verify under 06: a reader of a 06 chain cannot tell where \
                 the job really ended. Under 07-09 (case @09) close: true before the last entry is \
                 reported (AER1-TL-CLOSE-EARLY on index 2) besides the links. Expectation changed: \
                 this vector once expected AER1-TL-CLOSE-EARLY under 06, a rule revision 06 does not \
                 have.",
            chain: &old,
            under_07: &[Rule::Aer1TlLink, Rule::Aer1TlCloseEarly],
            reason: "Revision 07 allows close: true on the last entry only; and the links of a 06 chain \
             fail under 07-09.",
            source: &source,
            mutation: "third entry (index 2): close: true set; not re-linked",
        },
    );

    // A cross-job splice: the head of one job's chain, the tail of another's, re-linked under 06.
    let mut spliced = example_06(5);
    let other = example_chain("job-b", 5, Revision::R06);
    spliced.truncate(3);
    spliced.extend(other.into_iter().skip(3));
    relink(&mut spliced, Revision::R06);
    push_weakness(
        f,
        Weakness {
            name: "example-06-5-cross-job-splice",
            description: "Entries 1-3 of job-7a1f's revision-06 chain followed by entries 4-5 of job-b's, \
                 re-linked under 06 (each prev_digest the hash of the previous entry's bytes; no \
                 secret is needed). Revision 06 has no one-job rule and does not bind job_id, so the \
                 spliced chain MUST verify under 06. Under 07-09 (case @09) AER1-TL-JOB reports the \
                 two entries of job-b, besides the links.",
            chain: &spliced,
            under_07: &[Rule::Aer1TlLink, Rule::Aer1TlJob],
            reason: "Revision 07 added the one-job rule; and the links of a 06 chain fail under 07-09.",
            source: &source,
            mutation: "entries 4-5 replaced by entries 4-5 of job-b's 06 chain; re-linked under 06",
        },
    );

    let mut renumbered = example_06(5);
    for (i, e) in renumbered.iter_mut().enumerate() {
        e.seq = 11 + i as u64;
    }
    push_weakness(
        f,
        Weakness {
            name: "example-06-5-renumbered",
            description: "The revision-06 chain of example-06-5 with every seq renumbered to 11..15, links not \
                 recomputed (06 does not bind seq, so none changes). Revision 06 has no seq rule, so \
                 the chain MUST verify under 06. Under 07-09 (case @09) contiguity from 1 fails on \
                 every entry (AER1-TL-SEQ), besides the links.",
            chain: &renumbered,
            under_07: &[Rule::Aer1TlLink, Rule::Aer1TlSeq],
            reason: "Revision 07 added seq, starting at 1; and the links of a 06 chain fail under 07-09.",
            source: &source,
            mutation: "every seq renumbered to 11..15; not re-linked",
        },
    );
}

/// What revision 06 itself requires, broken on a 06 chain.
fn own_defects(f: &mut Family<'_>) {
    let source = f.id_of("example-06-5");
    let mut old = example_06(5);
    old[2].canonical_bytes =
        encode_base64(format!("{{\"job\":\"{JOB}\",\"entry\":2,\"tag\":\"x\"}}").as_bytes());
    f.vector("example-06-5-inner-bytes-changed")
        .revisions(ONLY_06)
        .describe(
            "The revision-06 chain of example-06-5 with the third entry's (index 2) \
             canonical_bytes replaced by other valid base64 of UTF-8 bytes. The bytes are the one \
             thing 06 binds: entry 4's prev_digest no longer equals the hash of entry 3's bytes \
             (AER1-TL-LINK, the only failure).",
        )
        .timeline(&old)
        .invalid(&[Rule::Aer1TlLink])
        .derived_from(
            &source,
            "third entry (index 2): canonical_bytes replaced; not re-linked",
        )
        .push();

    let mut old = example_06(5);
    old[4].close = None;
    f.vector("example-06-5-last-not-closed")
        .revisions(ONLY_06)
        .describe(
            "The revision-06 chain of example-06-5 with close removed from the last entry. \
             Revision 06 already required the last entry to carry close: true (it did not bind \
             close into the digest, so nothing else changes): AER1-TL-CLOSE-LAST is the only \
             failure.",
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
        .revisions(ONLY_06)
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

/// Why a real 06 chain fails under 07-09.
const MEMBERS_MISSING_UNDER_07: &str =
    "Revision 07 requires seq, job_id, tool and provenance_class \
    on every entry (AER1-TL-MEMBERS, AER1-TL-SEQ-TYPE); without them no entry digest can be \
    computed, so no link is judged. A 07-09 verifier reports that the chain passes every 06 \
    check.";

/// Chains in the shape real revision-06 chains have (`{id, canonical_bytes, prev_digest, close}`),
/// like the reference kit's own 06 vectors.
fn real_06_shape(f: &mut Family<'_>) {
    for n in [1usize, 3] {
        let name = format!("shape-06-{n}");
        f.vector(&name)
            .revisions(ONLY_06)
            .describe(&format!(
                "A revision-06 chain of {n} entr{} in the shape real 06 chains have: each entry \
                 carries only id, canonical_bytes, prev_digest and (the last) close: true — no \
                 seq, job_id, tool or provenance_class, which revision 06 neither required nor \
                 bound. It MUST verify under 06, labelled historical. Under 07-09 (case @09) it \
                 MUST be rejected: the members revision 07 requires are missing.",
                if n == 1 { "y" } else { "ies" }
            ))
            .timeline_values(&example_06_shape(n))
            .exercises(&[Rule::Aer1TlVersioning])
            .exercises(CHAIN_RULES_06)
            .valid()
            .invalid_under_also(
                FROM_07,
                &[Rule::Aer1TlMembers],
                &[Rule::Aer1TlSeqType],
                MEMBERS_MISSING_UNDER_07,
            )
            .push();
    }

    let source = f.id_of("shape-06-3");
    let mut inner_close = example_06_shape(3);
    inner_close[1]["close"] = json!(true);
    f.vector("shape-06-3-inner-close-true")
        .revisions(ONLY_06)
        .describe(
            "shape-06-3 with close: true also on the middle entry (index 1). Revision 06 has no \
             close-position rule and does not bind close, so the chain MUST verify under 06. \
             Under 07-09 (case @09) it is rejected on the missing members; a rejection may also cite \
             close: true before the last entry (AER1-TL-CLOSE-EARLY on index 1).",
        )
        .timeline_values(&inner_close)
        .exercises(&[Rule::Aer1TlVersioning])
        .exercises(CHAIN_RULES_06)
        .valid()
        .invalid_under_also(
            FROM_07,
            &[Rule::Aer1TlMembers],
            &[Rule::Aer1TlSeqType, Rule::Aer1TlCloseEarly],
            MEMBERS_MISSING_UNDER_07,
        )
        .derived_from(&source, "middle entry (index 1): close: true set")
        .push();

    // Revision 06's own rules, each broken alone on a real 06 chain (the kit's invalid 06 vectors
    // are of these kinds: tampered middle bytes, no final close, reordering, bad genesis, a
    // close that is not a boolean).
    type ShapeEdit = fn(&mut Vec<Value>);
    let defects: [(&str, &str, Rule, ShapeEdit); 6] = [
        (
            "shape-06-3-inner-bytes-tampered",
            "the middle entry's (index 1) canonical_bytes replaced by other valid base64: the \
             last entry's prev_digest no longer equals the hash of the middle entry's bytes \
             (AER1-TL-LINK on index 2)",
            Rule::Aer1TlLink,
            |c| c[1]["canonical_bytes"] = json!(encode_base64(b"{\"entry\":1,\"tag\":\"x\"}")),
        ),
        (
            "shape-06-3-last-not-closed",
            "close removed from the last entry (AER1-TL-CLOSE-LAST on index 2)",
            Rule::Aer1TlCloseLast,
            |c| {
                if let Some(o) = c[2].as_object_mut() {
                    o.remove("close");
                }
            },
        ),
        (
            "shape-06-3-reordered",
            "the first two entries swapped: the new first entry's prev_digest is not 64 zeros \
             (AER1-TL-GENESIS), and the links of the second and third entries no longer hold \
             (AER1-TL-LINK)",
            Rule::Aer1TlLink,
            |c| c.swap(0, 1),
        ),
        (
            "shape-06-3-bad-genesis",
            "the first entry's prev_digest set to 64 '1' characters (AER1-TL-GENESIS on index 0)",
            Rule::Aer1TlGenesis,
            |c| c[0]["prev_digest"] = json!("1".repeat(64)),
        ),
        (
            "shape-06-3-no-canonical-bytes",
            "the last entry has no canonical_bytes: revision 06 requires strict base64 there, \
             and has no member rule of its own (AER1-TL-B64 on index 2)",
            Rule::Aer1TlB64,
            |c| {
                if let Some(o) = c[2].as_object_mut() {
                    o.remove("canonical_bytes");
                }
            },
        ),
        (
            "shape-06-3-no-prev-digest",
            "the last entry has no prev_digest, so it cannot equal the digest of the entry before \
             (AER1-TL-LINK on index 2)",
            Rule::Aer1TlLink,
            |c| {
                if let Some(o) = c[2].as_object_mut() {
                    o.remove("prev_digest");
                }
            },
        ),
    ];
    for (name, what, rule, edit) in defects {
        let mut chain = example_06_shape(3);
        edit(&mut chain);
        let rules: &[Rule] = if name == "shape-06-3-reordered" {
            &[Rule::Aer1TlGenesis, Rule::Aer1TlLink]
        } else {
            std::slice::from_ref(&rule)
        };
        f.vector(name)
            .revisions(ONLY_06)
            .describe(&format!(
                "shape-06-3 (a real revision-06 chain) with {what}. A revision-06 verifier MUST \
                 reject it on that rule and nothing else."
            ))
            .timeline_values(&chain)
            .invalid(rules)
            .derived_from(&source, what)
            .push();
    }

    // The kit's sixth kind of invalid 06 vector: the 06 text does not ask for it.
    let mut close_string = example_06_shape(3);
    close_string[1]["close"] = json!("false");
    let what = "the middle entry (index 1) carries close: \"false\", a string";
    f.vector("shape-06-3-close-not-boolean")
        .revisions(ONLY_06)
        .describe(&format!(
            "shape-06-3 (a real revision-06 chain) with {what}. The 06 text asks only that the \
             last entry carry close: true; that close, where present, is a boolean is the kit's \
             check (it lists this input among its invalid 06 vectors), and independent 06 \
             verifiers accept it. Either verdict conforms (this project's interpretation); a \
             rejection cites AER1-TL-06-CLOSE-TYPE alone."
        ))
        .timeline_values(&close_string)
        .acceptable(
            &[Rule::Aer1Tl06CloseType],
            &[Flag::ShouldLevel, Flag::Interpretation],
        )
        .derived_from(&source, what)
        .push();
}
