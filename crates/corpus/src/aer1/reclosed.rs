//! `aer1/timeline/reclosed/*`: the tail cut of draft Section 7.3. Drop the last `k` of `n`
//! entries, set `close: true` on the new last entry and recompute its digest: no entry remains to
//! hold the old digest, so the shorter chain passes every chain rule. Only an outside commitment
//! shows the cut.

use agentconf_aer1::digest::Revision;
use agentconf_aer1::producer::{relink, Entry};
use agentconf_rules::Rule;

use super::common::{commitment_for, example};
use crate::builder::{Family, FROM_07, FROM_09};
use agentconf_contract::vector::{Suite, Vector};

/// `example(n)` without its last `k` entries, the new last entry re-closed, links recomputed.
fn reclosed(original: &[Entry], k: usize) -> Vec<Entry> {
    let mut cut = original[..original.len() - k].to_vec();
    if let Some(last) = cut.last_mut() {
        last.close = Some(true);
    }
    // Nothing before the new last entry changed, so this recomputes the same links; it is here
    // because it is what whoever cuts the chain would run.
    relink(&mut cut, Revision::R09);
    cut
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "reclosed");

    for (n, k) in [(8usize, 1usize), (8, 2), (8, 5), (5, 1), (5, 4), (2, 1)] {
        let m = n - k;
        let original = example(n);
        let cut = reclosed(&original, k);
        let name = format!("drop-{k}-of-{n}");
        let alone = f.id_of(&name);
        let before = if m == 1 {
            "It is now the only entry: genesis and closed at once, which the draft allows."
                .to_string()
        } else {
            format!(
                "Entries 1..{} are unchanged, so their links hold, including entry {m}'s own link.",
                m - 1
            )
        };
        f.vector(&name)
            .revisions(FROM_07)
            .describe(&format!(
                "Re-closed (draft Section 7.3): the last {k} of {n} entries were dropped, entry {m} \
                 was given close: true and its digest recomputed. {before} The only link that \
                 pointed at the old entry {m} was in a dropped entry, so nothing inside the chain \
                 holds its old digest. Genesis, seq 1..{m}, job, links and close-on-last all hold: \
                 the chain MUST verify. No re-linking is even needed, since nothing before entry \
                 {m} changed. This is the honest limit of the chain check: a valid verdict says \
                 nothing about completeness, and a verifier must not present it as \
                 truncation-resistant."
            ))
            .timeline(&cut)
            .exercises(&[
                Rule::Aer1TlCloseLast,
                Rule::Aer1TlLink,
                Rule::Aer1TlSeq,
                Rule::Aer1TlGenesis,
            ])
            .valid()
            .derived_from(
                &format!("aer1/timeline/valid/example-{n}"),
                &format!("dropped the last {k} entries, set close: true on entry {m}, re-linked"),
            )
            .push();

        f.vector(&format!("{name}-against-commitment"))
            .revisions(FROM_09)
            .describe(&format!(
                "The re-closed chain of {name} (valid alone), checked against the commitment a \
                 witness published for the original {n}-entry chain. The chain rules pass; the \
                 commitment shows the cut: entry_count {n} is not {m} (AER1-CM-COUNT), and entry \
                 {m}, now closed, has a digest other than the committed final one (AER1-CM-FINAL). \
                 The job still matches, so AER1-CM-JOB is not reported."
            ))
            .timeline(&cut)
            .commitment(&commitment_for(&original))
            .invalid(&[Rule::Aer1CmCount, Rule::Aer1CmFinal])
            .exercises(&[Rule::Aer1CmJob])
            .derived_from(
                &alone,
                &format!("checked against the commitment of the original {n}-entry chain"),
            )
            .push();
    }

    // The commitment only helps if it was obtained independently.
    let cut = reclosed(&example(8), 2);
    let source = f.id_of("drop-2-of-8");
    f.vector("drop-2-of-8-with-its-own-commitment")
        .revisions(FROM_09)
        .describe(
            "The re-closed chain of drop-2-of-8 with a commitment made for the cut chain itself \
             (entry_count 6, the re-closed entry's digest), as whoever cut the chain could publish \
             if they also control the witness. Count, job and final digest all match, so it MUST \
             verify: a matching commitment proves completeness only when it was obtained \
             independently of whoever controls the chain. Chain and commitment held by one \
             operator who can change both are one trust domain.",
        )
        .timeline(&cut)
        .commitment(&commitment_for(&cut))
        .exercises(&[Rule::Aer1CmCount, Rule::Aer1CmJob, Rule::Aer1CmFinal])
        .valid()
        .derived_from(
            &source,
            "checked against a commitment made for the cut chain",
        )
        .push();
}
