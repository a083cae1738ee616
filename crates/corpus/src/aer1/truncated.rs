//! `aer1/timeline/truncated/*`: chains cut at either end (draft Section 7.3, "what the chain
//! proves and what it does not").
//!
//! - A tail cut that is not re-closed shows: the new last entry lacks `close: true`. (A re-closed
//!   tail cut is the `reclosed` family.)
//! - A prefix cut that is renumbered from 1, given a new genesis and re-linked passes every chain
//!   rule. That is the honest limit the draft describes; only an outside commitment catches it.
//! - A prefix cut done carelessly (not renumbered, or not re-linked) shows on the genesis, seq and
//!   link rules, each as worked out below.

use agentconf_aer1::digest::{Revision, GENESIS_PREV_DIGEST};
use agentconf_aer1::producer::{relink, Entry};
use agentconf_rules::Rule;

use super::common::{commitment_for, example};
use crate::builder::{Family, FROM_07, FROM_09};
use agentconf_contract::vector::{Suite, Vector};

/// The id of the valid example chain of `n` entries (valid.rs makes n = 1, 2, 5, 8, 100).
fn example_id(n: usize) -> String {
    format!("aer1/timeline/valid/example-{n}")
}

/// `original` without its first `k` entries, `seq` renumbered from 1 and re-linked from a new
/// genesis: what someone who can rewrite the chain would produce.
fn prefix_dropped(original: &[Entry], k: usize) -> Vec<Entry> {
    let mut cut = original[k..].to_vec();
    renumber(&mut cut);
    relink(&mut cut, Revision::R09);
    cut
}

fn renumber(entries: &mut [Entry]) {
    for (i, e) in entries.iter_mut().enumerate() {
        e.seq = i as u64 + 1;
    }
}

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "truncated");

    // (a) Tail dropped, nothing else changed.
    for (n, k) in [(8usize, 1usize), (8, 2), (8, 7), (5, 2), (2, 1)] {
        let m = n - k;
        let mut cut = example(n);
        cut.truncate(m);
        f.vector(&format!("drop-last-{k}-of-{n}-not-reclosed"))
            .revisions(FROM_07)
            .describe(&format!(
                "The last {k} of {n} entries were dropped and nothing else was changed. The {m} \
                 remaining entries keep their genesis, contiguous seq 1..{m} and valid links (no \
                 entry points at a dropped one), but the new last entry (seq {m}) does not carry \
                 close: true, because it was written as an inner entry. AER1-TL-CLOSE-LAST is the \
                 only rule that breaks. A cut that also re-closes the new last entry passes every \
                 chain rule (family reclosed)."
            ))
            .timeline(&cut)
            .invalid(&[Rule::Aer1TlCloseLast])
            .derived_from(
                &example_id(n),
                &format!("dropped the last {k} entries; the new last entry left without close"),
            )
            .push();
    }

    {
        let original = example(8);
        let mut cut = original.clone();
        cut.truncate(6);
        let source = f.id_of("drop-last-2-of-8-not-reclosed");
        f.vector("drop-last-2-of-8-not-reclosed-against-commitment")
            .revisions(FROM_09)
            .describe(
                "The chain of drop-last-2-of-8-not-reclosed (entries 7 and 8 of eight dropped, entry \
                 6 not re-closed), checked against the commitment published for the original \
                 eight-entry chain. The chain rules fail on AER1-TL-CLOSE-LAST; the commitment \
                 comparisons fail too: entry_count 8 is not 6 (AER1-CM-COUNT) and entry 6's digest \
                 is not the committed final digest (AER1-CM-FINAL). The job still matches. A full \
                 verifier reports both the chain failure and the commitment failures.",
            )
            .timeline(&cut)
            .commitment(&commitment_for(&original))
            .invalid(&[Rule::Aer1TlCloseLast, Rule::Aer1CmCount, Rule::Aer1CmFinal])
            .exercises(&[Rule::Aer1CmJob])
            .derived_from(&source, "checked against the commitment of the original 8-entry chain")
            .push();
    }

    // (b) Prefix dropped, renumbered, new genesis, re-linked: valid alone; the original
    // commitment catches it.
    for (n, k) in [(8usize, 1usize), (8, 3), (5, 4), (8, 7)] {
        let m = n - k;
        let original = example(n);
        let cut = prefix_dropped(&original, k);
        let name = format!("drop-first-{k}-of-{n}");
        let alone = f.id_of(&name);
        f.vector(&name)
            .revisions(FROM_07)
            .describe(&format!(
                "The first {k} of {n} entries were dropped; the {m} remaining entries were \
                 renumbered from seq 1, the new first entry was given the genesis prev_digest (64 \
                 zeros) and every link was recomputed. This is the honest limit the draft \
                 describes (Section 7.3): whoever can rewrite the chain can cut it at either end \
                 and get a shorter chain that passes every chain rule, so it MUST verify. A valid \
                 verdict here says nothing about completeness; only an outside commitment (see \
                 {name}-against-commitment) shows the cut."
            ))
            .timeline(&cut)
            .exercises(&[
                Rule::Aer1TlGenesis,
                Rule::Aer1TlSeq,
                Rule::Aer1TlLink,
                Rule::Aer1TlJob,
                Rule::Aer1TlCloseLast,
            ])
            .valid()
            .derived_from(
                &example_id(n),
                &format!(
                    "dropped the first {k} entries, renumbered seq from 1, new genesis, re-linked"
                ),
            )
            .push();

        f.vector(&format!("{name}-against-commitment"))
            .revisions(FROM_09)
            .describe(&format!(
                "The prefix-dropped chain of {name} (valid alone), checked against the commitment \
                 a witness published for the original {n}-entry chain. The chain rules all pass. \
                 The commitment catches the cut twice: entry_count {n} is not {m} (AER1-CM-COUNT), \
                 and the last entry, renumbered to seq {m} and re-linked, no longer has the \
                 committed final digest (AER1-CM-FINAL). The job still matches (AER1-CM-JOB passes)."
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

    // (c) Prefix dropped and nothing else done.
    for (n, k) in [(8usize, 1usize), (8, 3), (5, 4), (8, 7)] {
        let m = n - k;
        let cut = example(n)[k..].to_vec();
        let links = if m > 1 {
            " Every link still holds: each remaining entry's prev_digest is the digest of the \
             remaining entry before it, which was not changed, so AER1-TL-LINK is not reported."
        } else {
            " A single entry has no links."
        };
        f.vector(&format!("drop-first-{k}-of-{n}-not-renumbered"))
            .revisions(FROM_07)
            .describe(&format!(
                "The first {k} of {n} entries were dropped and nothing else was changed. The new \
                 first entry's prev_digest is the digest of the dropped entry {k}, not 64 zeros \
                 (AER1-TL-GENESIS). Its seq is {}, not 1; seq is judged by position, so every one \
                 of the {m} remaining entries is out of place (AER1-TL-SEQ on each).{links}",
                k + 1
            ))
            .timeline(&cut)
            .invalid(&[Rule::Aer1TlGenesis, Rule::Aer1TlSeq])
            .exercises(&[Rule::Aer1TlLink])
            .derived_from(
                &example_id(n),
                &format!(
                    "dropped the first {k} entries; not renumbered, no new genesis, not re-linked"
                ),
            )
            .push();
    }

    // Partial rewrites of a prefix cut (3 of 8): each step left out shows on its own rules.
    {
        let original = example(8);
        let source = example_id(8);

        let mut cut = original[3..].to_vec();
        renumber(&mut cut);
        f.vector("drop-first-3-of-8-renumbered-not-relinked")
            .revisions(FROM_07)
            .describe(
                "The first 3 of 8 entries were dropped and seq renumbered 1..5, but prev_digest \
                 values were left as they were. The first entry's prev_digest is the digest of the \
                 dropped entry 3, not 64 zeros (AER1-TL-GENESIS). seq is bound into every digest, so \
                 renumbering changed each entry's digest and every later prev_digest, which still \
                 holds the old digest, breaks (AER1-TL-LINK). seq itself is now contiguous.",
            )
            .timeline(&cut)
            .invalid(&[Rule::Aer1TlGenesis, Rule::Aer1TlLink])
            .exercises(&[Rule::Aer1TlSeq])
            .derived_from(
                &source,
                "dropped the first 3 entries, renumbered seq from 1, prev_digest values left unchanged",
            )
            .push();

        let mut cut = original[3..].to_vec();
        renumber(&mut cut);
        cut[0].prev_digest = GENESIS_PREV_DIGEST.to_string();
        f.vector("drop-first-3-of-8-genesis-reset-not-relinked")
            .revisions(FROM_07)
            .describe(
                "The first 3 of 8 entries were dropped, seq renumbered 1..5 and the new first entry \
                 given the genesis prev_digest, but the links were not recomputed. Genesis and seq \
                 now hold; every entry's digest changed (seq and, for the first, prev_digest are \
                 bound), so every later prev_digest still holds a stale digest (AER1-TL-LINK on \
                 each). Only the final step of the rewrite, re-linking, is missing.",
            )
            .timeline(&cut)
            .invalid(&[Rule::Aer1TlLink])
            .exercises(&[Rule::Aer1TlGenesis, Rule::Aer1TlSeq])
            .derived_from(
                &source,
                "dropped the first 3 entries, renumbered seq from 1, genesis prev_digest on the new \
                 first entry, not re-linked",
            )
            .push();

        let mut cut = original[3..].to_vec();
        relink(&mut cut, Revision::R09);
        f.vector("drop-first-3-of-8-relinked-not-renumbered")
            .revisions(FROM_07)
            .describe(
                "The first 3 of 8 entries were dropped and the chain re-linked from a new genesis \
                 over the entries as they are, but seq was not renumbered: it runs 4..8. Genesis and \
                 every link hold (they were recomputed over seq as written), but seq is judged by \
                 position and must start at 1, so every entry is out of place (AER1-TL-SEQ on each).",
            )
            .timeline(&cut)
            .invalid(&[Rule::Aer1TlSeq])
            .exercises(&[Rule::Aer1TlGenesis, Rule::Aer1TlLink])
            .derived_from(
                &source,
                "dropped the first 3 entries, new genesis and re-linked, seq left at 4..8",
            )
            .push();
    }
}
