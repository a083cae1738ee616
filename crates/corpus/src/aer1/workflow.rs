//! `aer1/workflow/*`: workflow receipts (draft Section 8), a Merkle root over step receipt ids.
//!
//! The document shape is this project's interpretation (spec-notes/aer1-workflow.md):
//! `{"steps": [{"receipt_id": "..."}, ...], "merkle_root": "<64 lowercase hex>"}`.
//! Families: `valid` (the published five-id example and other lengths) and `structure` (one
//! workflow rule broken at a time).

use agentconf_aer1::digest::merkle_root;
use agentconf_aer1::hex;
use agentconf_rules::Rule;
use serde_json::{json, Value};

use crate::builder::{Family, ALL_REVISIONS};
use crate::model::{Suite, Vector};

/// The five receipt ids of the published worked example (AER1.md section 5).
const IDS: [&str; 5] = [
    "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
    "514fe841-bbdd-4804-9ef4-6828842d8763",
    "a090bdad-f2cf-48c9-bc89-e9e17700fb15",
    "bf88a036-416b-456a-8e82-8c0991811d68",
    "ae795bf0-27f8-4cf2-8aef-3f8142b77217",
];
/// Their published root.
const ROOT: &str = "7c4817ca249edfeae259b98abf63ed38a31d9dbeebf5ee23139410a7a7f63b37";
/// SHA-256 of the empty string: the root of no steps.
const EMPTY_ROOT: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// Two more UUID v4 ids, for the seven-step workflow.
const MORE_IDS: [&str; 2] = [
    "3f2c1a9e-7b4d-4e8a-9c61-5d0f2b8e7a14",
    "c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f",
];

/// The rules a well-formed workflow with a matching root shows being satisfied.
const WF_RULES: &[Rule] = &[Rule::Aer1WfFormat, Rule::Aer1WfDuplicate, Rule::Aer1WfRoot];

pub fn generate(out: &mut Vec<Vector>) {
    let example = valid(out);
    structure(out, &example);
}

/// Lowercase hex Merkle root of `ids` (Section 8).
fn root_of(ids: &[&str]) -> String {
    hex::lower(&merkle_root(ids.iter().copied()))
}

fn steps(ids: &[&str]) -> Value {
    Value::Array(ids.iter().map(|id| json!({"receipt_id": id})).collect())
}

fn doc_value(ids: &[&str], root: &str) -> Value {
    json!({"steps": steps(ids), "merkle_root": root})
}

/// A workflow document as the file's text: pretty JSON with a final newline.
fn text(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

fn doc(ids: &[&str], root: &str) -> String {
    text(&doc_value(ids, root))
}

// ------------------------------------------------------------------------------------------------
// valid

/// Returns the id of the published example vector.
fn valid(out: &mut Vec<Vector>) -> String {
    // The library tree must reproduce the published values before anything is built on it.
    assert_eq!(
        root_of(&IDS),
        ROOT,
        "generator bug: merkle_root disagrees with the published root"
    );
    assert_eq!(root_of(&[]), EMPTY_ROOT, "generator bug: empty root");

    let mut f = Family::new(out, Suite::Aer1Workflow, "valid");

    f.vector("worked-example-5")
        .revisions(ALL_REVISIONS)
        .describe(
            "The draft's published five-id example with its published root 7c4817ca.... Leaves are \
             SHA-256 of each id's UTF-8 bytes, nodes SHA-256 of left || right, the odd last digest \
             of a level is paired with itself; the ids are distinct and the recomputed root equals \
             merkle_root, so the workflow must verify.",
        )
        .workflow_text(&doc(&IDS, ROOT))
        .exercises(WF_RULES)
        .valid()
        .push();
    let example = f.id_of("worked-example-5");

    let one = &IDS[..1];
    f.vector("one-step")
        .revisions(ALL_REVISIONS)
        .describe(
            "A single step: the root of one id is its leaf, the SHA-256 of the id's UTF-8 bytes, \
             with no further hashing. merkle_root is that leaf; must verify.",
        )
        .workflow_text(&doc(one, &root_of(one)))
        .exercises(WF_RULES)
        .valid()
        .derived_from(&example, "kept only the first step, root recomputed")
        .push();

    f.vector("no-steps")
        .revisions(ALL_REVISIONS)
        .describe(
            "steps is an empty array. The root of an empty list is SHA-256 of the empty string \
             (e3b0c442...), and merkle_root is exactly that; must verify.",
        )
        .workflow_text(&doc(&[], EMPTY_ROOT))
        .exercises(WF_RULES)
        .valid()
        .derived_from(
            &example,
            "removed every step, root set to SHA-256 of the empty string",
        )
        .push();

    let all: Vec<&str> = IDS.iter().chain(MORE_IDS.iter()).copied().collect();
    for (n, word, shape) in [
        (2usize, "two", "one node over two leaves"),
        (
            3,
            "three",
            "the third leaf is paired with itself on the first level",
        ),
        (4, "four", "a full tree of two levels"),
        (
            7,
            "seven",
            "the seventh leaf is paired with itself on the first level and the third node on the \
             second",
        ),
    ] {
        let ids = &all[..n];
        let mutation = if n <= IDS.len() {
            format!("kept the first {n} steps, root recomputed")
        } else {
            format!("appended {} more steps, root recomputed", n - IDS.len())
        };
        f.vector(&format!("{word}-steps"))
            .revisions(ALL_REVISIONS)
            .describe(&format!(
                "{n} distinct receipt ids ({shape}); merkle_root is the root recomputed over them in \
                 step order, so the workflow must verify."
            ))
            .workflow_text(&doc(ids, &root_of(ids)))
            .exercises(WF_RULES)
            .valid()
            .derived_from(&example, &mutation)
            .push();
    }

    let mut extra = doc_value(&IDS, ROOT);
    extra["name"] = json!("nightly-price-sync");
    extra["steps"][2]["tool"] = json!("price_lookup");
    f.vector("extra-members")
        .revisions(ALL_REVISIONS)
        .describe(
            "The worked example with members the tree does not use: a name on the document and a \
             tool on step 2. Only the receipt_ids, in order, enter the tree, so the published root \
             still matches; must verify.",
        )
        .workflow_text(&text(&extra))
        .exercises(WF_RULES)
        .valid()
        .derived_from(
            &example,
            "added a document name and a tool member to step 2",
        )
        .push();

    example
}

// ------------------------------------------------------------------------------------------------
// structure

fn structure(out: &mut Vec<Vector>, example: &str) {
    let mut f = Family::new(out, Suite::Aer1Workflow, "structure");

    // AER1-WF-DUPLICATE
    let six: Vec<&str> = IDS.iter().copied().chain([IDS[4]]).collect();
    let six_root = root_of(&six);
    assert_eq!(
        six_root, ROOT,
        "generator bug: a duplicated last id must keep the root"
    );
    f.vector("duplicate-last-id")
        .revisions(ALL_REVISIONS)
        .describe(
            "The worked example with its last receipt id repeated as a sixth step. The tree pairs an \
             odd last digest with itself and has no domain separation, so these six steps have \
             exactly the published five-id root, and merkle_root (that root) is correct for them. \
             The root cannot tell the lists apart, which is why duplicate receipt ids must be \
             rejected: only AER1-WF-DUPLICATE fails.",
        )
        .workflow_text(&doc(&six, &six_root))
        .invalid(&[Rule::Aer1WfDuplicate])
        .derived_from(example, "appended a copy of the last step")
        .push();

    let middle = [IDS[0], IDS[1], IDS[0], IDS[2], IDS[3]];
    f.vector("duplicate-id-in-middle")
        .revisions(ALL_REVISIONS)
        .describe(
            "Step 2 repeats the receipt id of step 0. merkle_root is the correct root of this \
             five-step list, so the root matches; no two steps may carry the same receipt id, so \
             only AER1-WF-DUPLICATE fails.",
        )
        .workflow_text(&doc(&middle, &root_of(&middle)))
        .invalid(&[Rule::Aer1WfDuplicate])
        .derived_from(
            example,
            "a copy of step 0 inserted as step 2, the last step dropped, root recomputed",
        )
        .push();

    // AER1-WF-ROOT
    let wrong = format!("{}0", &ROOT[..63]);
    f.vector("wrong-root")
        .revisions(ALL_REVISIONS)
        .describe(
            "The worked example with the last hex digit of merkle_root changed (…3b30 instead of \
             …3b37). The value is well-formed but differs from the root recomputed over the steps, \
             so AER1-WF-ROOT fails.",
        )
        .workflow_text(&doc(&IDS, &wrong))
        .invalid(&[Rule::Aer1WfRoot])
        .derived_from(example, "last digit of merkle_root changed from 7 to 0")
        .push();

    let mut swapped = IDS;
    swapped.swap(0, 1);
    f.vector("steps-reordered")
        .revisions(ALL_REVISIONS)
        .describe(
            "The worked example's first two steps swapped, keeping the published root. Leaves are \
             combined in step order (left || right), so the order is bound: the recomputed root \
             differs and AER1-WF-ROOT fails.",
        )
        .workflow_text(&doc(&swapped, ROOT))
        .invalid(&[Rule::Aer1WfRoot])
        .derived_from(example, "steps 0 and 1 swapped, root kept")
        .push();

    f.vector("step-dropped")
        .revisions(ALL_REVISIONS)
        .describe(
            "The worked example's last step removed, keeping the published five-id root. The root \
             of the four remaining ids differs, so AER1-WF-ROOT fails.",
        )
        .workflow_text(&doc(&IDS[..4], ROOT))
        .invalid(&[Rule::Aer1WfRoot])
        .derived_from(example, "last step removed, root kept")
        .push();

    // AER1-WF-FORMAT
    let format_cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "root-uppercase",
            doc_value(&IDS, &ROOT.to_uppercase()),
            "merkle_root is the published root in uppercase hex; it must be 64 lowercase hex digits. \
             A malformed root is a format failure, not a mismatch.",
            "merkle_root written in uppercase",
        ),
        (
            "root-with-sha256-prefix",
            doc_value(&IDS, &format!("sha256:{ROOT}")),
            "merkle_root is the published root with a sha256: prefix (the receipt output_hash \
             style); a workflow root is 64 lowercase hex digits with no prefix.",
            "merkle_root prefixed with sha256:",
        ),
        (
            "root-missing",
            {
                let mut d = doc_value(&IDS, ROOT);
                if let Some(o) = d.as_object_mut() {
                    o.remove("merkle_root");
                }
                d
            },
            "The document has no merkle_root member; a workflow must carry the root it commits to.",
            "removed merkle_root",
        ),
        (
            "steps-not-an-array",
            {
                let mut d = doc_value(&IDS, ROOT);
                d["steps"] = json!({"0": {"receipt_id": IDS[0]}, "1": {"receipt_id": IDS[1]}});
                d
            },
            "steps is an object keyed by position instead of an array; the steps of a workflow are \
             an ordered JSON array.",
            "steps replaced by an object keyed \"0\", \"1\"",
        ),
        (
            "steps-missing",
            {
                let mut d = doc_value(&IDS, ROOT);
                if let Some(o) = d.as_object_mut() {
                    o.remove("steps");
                }
                d
            },
            "The document has no steps member, so there is nothing to recompute the root from.",
            "removed steps",
        ),
        (
            "step-not-an-object",
            {
                let mut d = doc_value(&IDS, ROOT);
                d["steps"][2] = json!(IDS[2]);
                d
            },
            "Step 2 is the bare id string instead of an object with a receipt_id member; every step \
             must be an object.",
            "step 2 replaced by its bare receipt id string",
        ),
        (
            "receipt-id-not-a-string",
            {
                let mut d = doc_value(&IDS, ROOT);
                d["steps"][3]["receipt_id"] = json!(7);
                d
            },
            "Step 3's receipt_id is the JSON number 7; a receipt id is a string.",
            "steps[3].receipt_id set to 7",
        ),
        (
            "receipt-id-missing",
            {
                let mut d = doc_value(&IDS, ROOT);
                if let Some(o) = d["steps"][3].as_object_mut() {
                    o.remove("receipt_id");
                    o.insert("receiptId".into(), json!(IDS[3]));
                }
                d
            },
            "Step 3 carries receiptId instead of receipt_id (names are case-sensitive), so it has \
             no receipt_id member; every step must carry one.",
            "steps[3].receipt_id renamed receiptId",
        ),
        (
            "receipt-id-empty-collides-with-no-steps",
            {
                // One step with id "": its leaf SHA-256("") is the root of an empty workflow.
                let empty_root = agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(b""));
                json!({"steps": [{"receipt_id": ""}], "merkle_root": empty_root})
            },
            "The only step's receipt_id is the empty string. Its leaf, SHA-256 of no bytes, equals \
             the root of a workflow with no steps, and merkle_root is that value: without domain \
             separation the two documents would be indistinguishable, so an empty id is rejected.",
            "one step with receipt_id \"\" and the empty-workflow root",
        ),
        (
            "document-not-an-object",
            steps(&IDS),
            "The document is the bare steps array with no surrounding object and no merkle_root; a \
             workflow document is a JSON object.",
            "replaced the document by its steps array",
        ),
    ];
    for (name, value, why, mutation) in format_cases {
        f.vector(name)
            .revisions(ALL_REVISIONS)
            .describe(&format!(
                "{why} This breaks the workflow document shape (AER1-WF-FORMAT, this project's \
                 reading of Section 8); the steps present are distinct, so nothing else fails."
            ))
            .workflow_text(&text(&value))
            .invalid(&[Rule::Aer1WfFormat])
            .derived_from(example, mutation)
            .push();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest as _, Sha256};

    /// Section 8's tree written out independently of the library.
    fn independent_root(ids: &[&str]) -> String {
        let mut level: Vec<[u8; 32]> = ids
            .iter()
            .map(|id| Sha256::digest(id.as_bytes()).into())
            .collect();
        if level.is_empty() {
            return hex::lower(&Sha256::digest(b""));
        }
        while level.len() > 1 {
            let mut next = Vec::new();
            for i in (0..level.len()).step_by(2) {
                let left = level[i];
                let right = *level.get(i + 1).unwrap_or(&left);
                let mut h = Sha256::new();
                h.update(left);
                h.update(right);
                next.push(h.finalize().into());
            }
            level = next;
        }
        hex::lower(&level[0])
    }

    #[test]
    fn library_roots_agree_with_an_independent_tree() {
        let all: Vec<&str> = IDS.iter().chain(MORE_IDS.iter()).copied().collect();
        for n in 0..=all.len() {
            assert_eq!(root_of(&all[..n]), independent_root(&all[..n]), "{n} ids");
        }
        assert_eq!(independent_root(&IDS), ROOT);
        assert_eq!(independent_root(&[]), EMPTY_ROOT);
    }
}
