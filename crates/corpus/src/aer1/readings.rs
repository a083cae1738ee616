//! Other readings of one defect: where the draft, the kit and independent verifiers legitimately
//! name different rules for the same input, a vector lists each reading (`any_of`), so strict
//! grading — every expected rule and nothing else — accepts any one of them and still refuses a
//! rule the input does not break.
//!
//! One table for the whole suite rather than a call in each generator: the readings are a
//! judgement about independent implementations, made and reviewed together, and a test holds
//! every row to a vector of the corpus.

use agentconf_contract::vector::{ReadingBasis, RuleAlternative, Vector};
use agentconf_rules::Rule;

/// One other reading: the vector, the rules it cites instead, and why that is legitimate.
pub struct Reading {
    pub id: &'static str,
    pub rules: &'static [Rule],
    pub basis: ReadingBasis,
    pub reason: &'static str,
}

/// Every other reading in the corpus. Each applies to the vector's main expectation.
pub const READINGS: &[Reading] = &[
    Reading {
        id: "aer1/receipt/structure/missing-canonical-bytes",
        rules: &[Rule::Aer1RcB64],
        basis: ReadingBasis::Text,
        reason: "canonical_bytes must be standard base64 of the hashed bytes; an absent member is \
                 no such text, so a verifier that checks the encoding before the member list \
                 reports bad base64 for the same defect",
    },
    Reading {
        id: "aer1/timeline/structure/member-missing-canonical-bytes",
        rules: &[Rule::Aer1TlB64],
        basis: ReadingBasis::Kit,
        reason: "the kit checks canonical_bytes before the other members and reports an absent \
                 one as 'canonical_bytes is not valid base64' (AER1.md section 2.2); verifiers \
                 derived from it name the base64 rule",
    },
    Reading {
        id: "aer1/timeline/structure/commitment-missing-published-at",
        rules: &[Rule::Aer1CmPublishedAt],
        basis: ReadingBasis::Kit,
        reason: "the kit collects the four field-format checks first; an absent published_at \
                 fails the RFC 3339 check of that field, so its readers report a format failure",
    },
    Reading {
        id: "aer1/timeline/structure/close-null-middle-entry",
        rules: &[Rule::Aer1TlCloseType, Rule::Aer1TlLink],
        basis: ReadingBasis::Kit,
        reason: CLOSE_AS_WRITTEN,
    },
    Reading {
        id: "aer1/timeline/structure/close-string-true-middle-entry",
        rules: &[Rule::Aer1TlCloseType, Rule::Aer1TlLink],
        basis: ReadingBasis::Kit,
        reason: CLOSE_AS_WRITTEN,
    },
    Reading {
        id: "aer1/workflow/structure/seq-swapped",
        rules: &[Rule::Aer1WfSeq, Rule::Aer1WfRoot],
        basis: ReadingBasis::Interp,
        reason:
            "with seq broken the draft does not define the order the root is taken in; in \
                 document order the ids are not the published five, so a verifier that takes the \
                 root in document order also reports the root failing (spec-notes/aer1-workflow.md)",
    },
    Reading {
        id: "aer1/workflow/structure/seq-values-exchanged",
        rules: &[Rule::Aer1WfSeq, Rule::Aer1WfRoot],
        basis: ReadingBasis::Interp,
        reason: "with seq broken the draft does not define the order the root is taken in; sorted \
                 by seq value the ids do not give the published root, so a verifier that takes \
                 the root in seq-value order also reports the root failing \
                 (spec-notes/aer1-workflow.md)",
    },
    Reading {
        id: "aer1/workflow/structure/root-missing",
        rules: &[Rule::Aer1WfRoot],
        basis: ReadingBasis::Interp,
        reason: "the root is recomputed over the steps either way; a verifier that compares it \
                 with the absent merkle_root reports the comparison failing rather than the \
                 member missing",
    },
];

/// Why a verifier may report the link rule beside the close type rule for a non-boolean close on
/// an inner entry.
const CLOSE_AS_WRITTEN: &str = "the kit digests a present non-boolean close as written (AER1.md \
    section 2.1), so its digest of the entry is not the one the next entry's stored link was \
    made with (close false) and that link breaks as well; the Perl port, both kit verifiers and \
    an independent timeline verifier report AER1-TL-LINK beside AER1-TL-CLOSE-TYPE";

/// Adds each reading of [`READINGS`] to its vector's main expectation. A row naming no vector
/// is a bug of this crate, found the first time the corpus is built (every test builds it).
pub fn apply(out: &mut [Vector]) {
    for r in READINGS {
        let v = out
            .iter_mut()
            .find(|v| v.id == r.id)
            .unwrap_or_else(|| panic!("readings: no vector {}", r.id));
        v.any_of.push(RuleAlternative {
            expected_rules: r.rules.to_vec(),
            also_reported: Vec::new(),
            basis: r.basis,
            reason: r.reason.to_string(),
        });
    }
}
