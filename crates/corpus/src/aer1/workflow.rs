//! `aer1/workflow/*`: workflow receipts (draft Section 8, the same text in revisions 06 to 09).
//!
//! Every vector is a workflow receipt in the draft's layout, built from the draft's worked example
//! (the project's fact sheet AER1.md §5): `valid` (the worked example itself, other step counts
//! with their published or recomputed roots, and what the draft leaves open) and `structure` (one
//! workflow rule broken at a time, including the three seq defects and the legacy root). How the
//! root relates to seq order is explained in spec-notes/aer1-workflow.md ("Seq order and document
//! order"); the expectations below follow it.

use agentconf_aer1::digest::merkle_root;
use agentconf_aer1::hex;
use agentconf_rules::Rule;
use serde_json::{json, Value};

use crate::builder::{Family, AER1_ALL};
use agentconf_contract::vector::{Flag, Suite, Vector};

/// One step of a workflow: the receipt it names and when it ran.
struct StepData {
    id: &'static str,
    hash: &'static str,
    started: &'static str,
    ended: &'static str,
}

/// The worked example's five steps (AER1.md §5), then two more for the seven-step workflow.
const STEPS: [StepData; 7] = [
    StepData {
        id: "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
        hash: "11c3a071051a42cbf5cf4da60a7577b1dffeb0419e6dd8a258b19c4c0d0d108e",
        started: "2026-09-29T10:57:40.911Z",
        ended: "2026-09-29T10:57:41.147Z",
    },
    StepData {
        id: "514fe841-bbdd-4804-9ef4-6828842d8763",
        hash: "68e3bcad3f46218672fd7ef7bf32f4a7089937dda2b8ade3cfe1050cec856285",
        started: "2026-09-29T10:57:42.920Z",
        ended: "2026-09-29T10:57:43.069Z",
    },
    StepData {
        id: "a090bdad-f2cf-48c9-bc89-e9e17700fb15",
        hash: "3da48b2d392fb79ed78f7ed0cc8e6c122fc1089947ff6d7f829748d7745840dd",
        started: "2026-09-29T10:57:45.415Z",
        ended: "2026-09-29T10:57:45.564Z",
    },
    StepData {
        id: "bf88a036-416b-456a-8e82-8c0991811d68",
        hash: "0f024f209392b918909df5478aadd3a9189520d74cfdf78e2ccf51b9f075f926",
        started: "2026-09-29T10:57:48.459Z",
        ended: "2026-09-29T10:57:48.605Z",
    },
    StepData {
        id: "ae795bf0-27f8-4cf2-8aef-3f8142b77217",
        hash: "f52d9c03605047ad0ac347e5e9cbc0e2e197a009d8ee5c7d775f86f360eca963",
        started: "2026-09-29T10:57:55.227Z",
        ended: "2026-09-29T10:57:55.434Z",
    },
    StepData {
        id: "3f2c1a9e-7b4d-4e8a-9c61-5d0f2b8e7a14",
        hash: "5f1d0c3b2a4e6f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708",
        started: "2026-09-29T10:57:57.010Z",
        ended: "2026-09-29T10:57:57.233Z",
    },
    StepData {
        id: "c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f",
        hash: "90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f",
        started: "2026-09-29T10:57:59.480Z",
        ended: "2026-09-29T10:57:59.702Z",
    },
];

/// The worked example's steps, by index into [`STEPS`].
const WORKED: [usize; 5] = [0, 1, 2, 3, 4];

const WORKFLOW_TYPE: &str = "verifiable-workflow-receipt";
const WORKFLOW_ID: &str = "42a3c2cf-2cdd-5b8a-aced-016e5a2fb634";
const RECEIPT_ID: &str = "442243d2-9c32-53f7-817e-2def28fa5b07";
const OUTPUT_HASH: &str = "16566e46433dd9a00e4437873102531be71fbae3872db8888b7ddc9282d90f54";
const VERIFY_URL: &str = "https://zambo.dev/workflow/42a3c2cf-2cdd-5b8a-aced-016e5a2fb634";

/// Published roots (AER1.md §5): the five ids, the first three, the five reversed, the first one,
/// none, and the legacy construction over the worked example (`"<seq>:<receipt_hash>"` leaves).
const ROOT: &str = "7c4817ca249edfeae259b98abf63ed38a31d9dbeebf5ee23139410a7a7f63b37";
const ROOT_FIRST_3: &str = "4860e25bbc8dba2382887cb08ccaf6cd88434bbda5aeda45c6a8373bb15f63e4";
const ROOT_REVERSED: &str = "362530ecc354e40c5787139705ca6d85af1354a4b6af83ee9c3a16cb66b8a66c";
const ROOT_FIRST_1: &str = "609eb71e8855515d3d1988f17c714429b4433cfbd8a837f22182652d22ae1f51";
const EMPTY_ROOT: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const LEGACY_ROOT: &str = "a4b2fcb4684cec481e4ece889ed15c7d9e47e58d9ba4fb02ea354c0cb2ca44c4";

/// Every workflow rule: what a valid workflow shows being satisfied.
const WF_RULES: &[Rule] = &[
    Rule::Aer1WfMembers,
    Rule::Aer1WfType,
    Rule::Aer1WfStrings,
    Rule::Aer1WfId,
    Rule::Aer1WfIdDistinct,
    Rule::Aer1WfHex,
    Rule::Aer1WfVerifyUrl,
    Rule::Aer1WfStepsNonempty,
    Rule::Aer1WfStepMembers,
    Rule::Aer1WfStepId,
    Rule::Aer1WfStepIdCase,
    Rule::Aer1WfStepHash,
    Rule::Aer1WfStepTime,
    Rule::Aer1WfSeqType,
    Rule::Aer1WfSeq,
    Rule::Aer1WfDuplicate,
    Rule::Aer1WfRoot,
];

pub fn generate(out: &mut Vec<Vector>) {
    check_published_roots();
    let example = valid(out);
    structure(out, &example);
    draft_silent(out, &example);
}

/// The library tree must reproduce the published values before anything is built on it.
fn check_published_roots() {
    let ids = |order: &[usize]| -> Vec<&str> { order.iter().map(|&i| STEPS[i].id).collect() };
    for (order, root) in [
        (&WORKED[..], ROOT),
        (&[0, 1, 2, 3, 4, 4][..], ROOT),
        (&[0, 1, 2][..], ROOT_FIRST_3),
        (&[4, 3, 2, 1, 0][..], ROOT_REVERSED),
        (&[0][..], ROOT_FIRST_1),
        (&[][..], EMPTY_ROOT),
    ] {
        assert_eq!(
            root_of(&ids(order)),
            root,
            "generator bug: merkle_root disagrees with the published root of {order:?}"
        );
    }
    let legacy: Vec<String> = WORKED
        .iter()
        .map(|&i| format!("{}:{}", i + 1, STEPS[i].hash))
        .collect();
    let legacy: Vec<&str> = legacy.iter().map(String::as_str).collect();
    assert_eq!(root_of(&legacy), LEGACY_ROOT, "generator bug: legacy root");
}

/// Lowercase hex Merkle root of `ids` (Section 8.1).
fn root_of(ids: &[&str]) -> String {
    hex::lower(&merkle_root(ids.iter().copied()))
}

fn step(seq: Value, s: &StepData) -> Value {
    json!({
        "seq": seq,
        "tool": "zambo_universal",
        "receipt_id": s.id,
        "receipt_hash": s.hash,
        "started_at": s.started,
        "ended_at": s.ended,
        "status": "ok",
    })
}

/// The steps `order` (indexes into [`STEPS`]), numbered 1..n in document order.
fn numbered(order: &[usize]) -> Vec<Value> {
    order
        .iter()
        .enumerate()
        .map(|(n, &i)| step(json!(n + 1), &STEPS[i]))
        .collect()
}

/// The root the steps `order` give, numbered 1..n.
fn root_of_order(order: &[usize]) -> String {
    let ids: Vec<&str> = order.iter().map(|&i| STEPS[i].id).collect();
    root_of(&ids)
}

/// The worked example's document members around these steps and this root.
fn document(steps: Vec<Value>, root: &str) -> Value {
    json!({
        "type": WORKFLOW_TYPE,
        "version": "1",
        "workflow_id": WORKFLOW_ID,
        "receipt_id": RECEIPT_ID,
        "session_id": "receipt-test-001",
        "goal": "get BTC price",
        "status": "ok",
        "steps": steps,
        "merkle_root": root,
        "output_hash": OUTPUT_HASH,
        "verify_url": VERIFY_URL,
    })
}

/// The draft's worked workflow receipt.
fn worked() -> Value {
    document(numbered(&WORKED), ROOT)
}

/// The worked example with one change.
fn changed(change: impl FnOnce(&mut Value)) -> Value {
    let mut d = worked();
    change(&mut d);
    d
}

fn remove(v: &mut Value, member: &str) {
    if let Some(o) = v.as_object_mut() {
        o.remove(member);
    }
}

// ------------------------------------------------------------------------------------------------
// The file's text

/// The members of a document, then of a step, in the order Section 8 lists them.
const DOCUMENT_ORDER: &[&str] = &[
    "type",
    "version",
    "workflow_id",
    "receipt_id",
    "session_id",
    "goal",
    "status",
    "steps",
    "merkle_root",
    "output_hash",
    "verify_url",
];
const STEP_ORDER: &[&str] = &[
    "seq",
    "tool",
    "receipt_id",
    "receipt_hash",
    "started_at",
    "ended_at",
    "status",
];

/// Where an object sits, which decides the order of its members.
#[derive(Clone, Copy)]
enum Place {
    Document,
    Step,
    Other,
}

/// A workflow document as the file's text: pretty JSON (two-space indent) with a final newline,
/// members in the draft's order so the files read like Section 8 (serde_json would sort them);
/// members the draft does not name follow, sorted.
fn text(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v, 0, Place::Document);
    out.push('\n');
    out
}

fn write_json(out: &mut String, v: &Value, depth: usize, place: Place) {
    let indent = |out: &mut String, depth: usize| out.push_str(&"  ".repeat(depth));
    match v {
        Value::Object(map) if !map.is_empty() => {
            let order = match place {
                Place::Document => DOCUMENT_ORDER,
                Place::Step => STEP_ORDER,
                Place::Other => &[],
            };
            let rank = |k: &str| order.iter().position(|o| *o == k).unwrap_or(order.len());
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
            out.push_str("{\n");
            for (n, k) in keys.iter().enumerate() {
                indent(out, depth + 1);
                out.push_str(&Value::String(k.to_string()).to_string());
                out.push_str(": ");
                let child = match (place, k.as_str()) {
                    (Place::Document, "steps") => Place::Step,
                    _ => Place::Other,
                };
                write_json(out, &map[k.as_str()], depth + 1, child);
                out.push_str(if n + 1 < keys.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            // The elements of `steps` (or of a document that is a bare steps array) are steps.
            let element = match place {
                Place::Step | Place::Document => Place::Step,
                Place::Other => Place::Other,
            };
            out.push_str("[\n");
            for (n, item) in items.iter().enumerate() {
                indent(out, depth + 1);
                write_json(out, item, depth + 1, element);
                out.push_str(if n + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push(']');
        }
        // Scalars and empty containers, exactly as serde_json writes them.
        other => out.push_str(&other.to_string()),
    }
}

// ------------------------------------------------------------------------------------------------
// valid

/// Returns the id of the worked-example vector.
fn valid(out: &mut Vec<Vector>) -> String {
    let mut f = Family::new(out, Suite::Aer1Workflow, "valid");

    f.vector("worked-example-5")
        .revisions(AER1_ALL)
        .describe(
            "The draft's worked workflow receipt (Section 8), a real record of the reference \
             producer: type verifiable-workflow-receipt, version 1, workflow_id and receipt_id \
             distinct lowercase UUIDs (version 5, which the core id shape accepts), non-empty \
             session_id, goal and status, five steps with seq 1 to 5 in document order, tool, \
             distinct lowercase-UUID receipt ids, 64-hex receipt hashes and RFC 3339 times, bare \
             64-hex output_hash and an https verify_url. merkle_root is the published root \
             7c4817ca... of the five ids in seq order (leaf SHA-256 of each id, node SHA-256 of \
             left || right, an odd last digest paired with itself). Every Section 8.2 check holds; \
             must verify.",
        )
        .workflow_text(&text(&worked()))
        .exercises(WF_RULES)
        .valid()
        .push();
    let example = f.id_of("worked-example-5");

    let published: [(&str, &[usize], &str, &str, &str); 3] = [
        (
            "one-step",
            &[0],
            ROOT_FIRST_1,
            "Only the worked example's first step (seq 1). The root of one id is its leaf, the \
             SHA-256 of the id's UTF-8 bytes, with no further hashing: the published value \
             609eb71e...; must verify.",
            "kept only the first step, root set to the published one-id root",
        ),
        (
            "three-steps",
            &[0, 1, 2],
            ROOT_FIRST_3,
            "The worked example's first three steps (seq 1 to 3). The third leaf is paired with \
             itself on the first level; merkle_root is the published root of the first three ids, \
             4860e25b...; must verify.",
            "kept the first three steps, root set to the published three-id root",
        ),
        (
            "reversed-5",
            &[4, 3, 2, 1, 0],
            ROOT_REVERSED,
            "The worked example's five steps in reverse order, renumbered so seq runs 1 to 5 in \
             document order. merkle_root is the published root of the reversed ids, 362530ec... \
             (the order of the leaves is bound, so it differs from 7c4817ca...); must verify.",
            "steps reversed and renumbered 1..5, root set to the published reversed root",
        ),
    ];
    for (name, order, root, why, mutation) in published {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(why)
            .workflow_text(&text(&document(numbered(order), root)))
            .exercises(WF_RULES)
            .valid()
            .derived_from(&example, mutation)
            .push();
    }

    for (order, word, shape) in [
        (&[0usize, 1][..], "two", "one node over two leaves"),
        (&[0, 1, 2, 3][..], "four", "a full tree of two levels"),
        (
            &[0, 1, 2, 3, 4, 5, 6][..],
            "seven",
            "the seventh leaf is paired with itself on the first level and the fourth node on the \
             second",
        ),
    ] {
        let n = order.len();
        let mutation = if n <= WORKED.len() {
            format!("kept the first {n} steps, root recomputed")
        } else {
            format!("appended {} more steps, root recomputed", n - WORKED.len())
        };
        f.vector(&format!("{word}-steps"))
            .revisions(AER1_ALL)
            .describe(&format!(
                "{n} steps with seq 1 to {n} and distinct receipt ids ({shape}); merkle_root is the \
                 root recomputed over the ids in seq order, and every member is well-formed, so the \
                 workflow must verify."
            ))
            .workflow_text(&text(&document(numbered(order), &root_of_order(order))))
            .exercises(WF_RULES)
            .valid()
            .derived_from(&example, &mutation)
            .push();
    }

    let open: Vec<(&str, Value, &str, &str)> = vec![
        (
            "extra-members",
            changed(|d| {
                d["name"] = json!("nightly-price-sync");
                d["links"] = json!([
                    {"step": 1, "receipt": "https://zambo.dev/receipt/e80168eb-a6a1-4ec9-8478-ac108f9397ff"}
                ]);
                d["steps"][2]["note"] = json!({"retries": 0});
            }),
            "The worked example with members the draft does not name: a name and a links list (as \
             a Section 8.3 presentation of step/workflow links might carry) on the document and a \
             note on step 2. Extra members are ignored (this suite's reading: the draft allows them \
             for single receipts and is silent here) and presentation never changes the verdict; \
             only the receipt ids, in seq order, enter the tree, so the published root still \
             matches; must verify.",
            "added name and links to the document and a note to step 2",
        ),
        (
            "seq-as-float",
            changed(|d| {
                for i in 0..5 {
                    d["steps"][i]["seq"] = json!(i as f64 + 1.0);
                }
            }),
            "Every step's seq written with a fraction: 1.0, 2.0, 3.0, 4.0, 5.0. seq is an integer, \
             and an integral value written as 1.0 is that integer, so seq still runs 1..5 in \
             document order; must verify.",
            "every seq written as N.0",
        ),
        (
            "http-verify-url",
            changed(|d| d["verify_url"] = json!(format!("http://zambo.dev/workflow/{WORKFLOW_ID}"))),
            "verify_url uses http:// instead of https://. Section 8 asks only that it start with \
             http:// or https://; must verify.",
            "verify_url scheme changed to http",
        ),
        (
            "step-times-with-offsets",
            changed(|d| {
                d["steps"][0]["started_at"] = json!("2026-09-29T12:57:40.911+02:00");
                d["steps"][0]["ended_at"] = json!("2026-09-29T05:57:41.147-05:00");
                d["steps"][4]["started_at"] = json!("2026-09-29T10:57:55Z");
                d["steps"][4]["ended_at"] = json!("2026-09-29T10:57:55.434000Z");
            }),
            "Step 0's times written with numeric offsets (+02:00, -05:00) for the same instants, \
             step 4's with no fraction and with six fraction digits. All are RFC 3339 date-times \
             naming real calendar instants; must verify.",
            "step 0 times rewritten with offsets, step 4 times with other fraction lengths",
        ),
        (
            "other-status-values",
            changed(|d| {
                d["status"] = json!("partial");
                d["steps"][3]["status"] = json!("error");
                d["steps"][4]["status"] = json!("skipped");
            }),
            "The workflow's status is partial and two steps carry error and skipped. status is a \
             non-empty string and its value is not restricted to ok: a workflow that did not \
             succeed is still a well-formed receipt; must verify.",
            "document status partial, steps 3 and 4 status error and skipped",
        ),
    ];
    for (name, value, why, mutation) in open {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(why)
            .workflow_text(&text(&value))
            .exercises(WF_RULES)
            .valid()
            .derived_from(&example, mutation)
            .push();
    }

    example
}

// ------------------------------------------------------------------------------------------------
// structure

/// One invalid vector: name, document, why it fails, the mutation, the rules it breaks.
type Case = (&'static str, Value, String, String, &'static [Rule]);
/// One document member set to a value: name, member, value, why it fails, the rules it breaks.
type MemberCase = (
    &'static str,
    &'static str,
    Value,
    &'static str,
    &'static [Rule],
);
/// One step member set to a value: as [`MemberCase`], with the step's index after the name.
type StepMemberCase = (
    &'static str,
    usize,
    &'static str,
    Value,
    &'static str,
    &'static [Rule],
);

/// The worked example with step 3's receipt_id set to `id`, and merkle_root recomputed over the
/// ids as written, so only the id itself can be wrong.
fn with_step_id(id: &str) -> Value {
    let mut ids: Vec<&str> = WORKED.iter().map(|&i| STEPS[i].id).collect();
    ids[3] = id;
    let root = root_of(&ids);
    changed(|d| {
        d["steps"][3]["receipt_id"] = json!(id);
        d["merkle_root"] = json!(root);
    })
}

/// Inputs where the draft's text does not require what the kit does: either verdict conforms
/// (`acceptable`, flagged as this project's interpretation), and a rejection cites the rule
/// that records the kit's behaviour or the reading every independent verifier shares.
fn draft_silent(out: &mut Vec<Vector>, example: &str) {
    let mut f = Family::new(out, Suite::Aer1Workflow, "structure");
    let upper = STEPS[3].id.to_uppercase();
    f.vector("step-receipt-id-uppercase")
        .revisions(AER1_ALL)
        .describe(&format!(
            "Step 3's receipt_id is {upper:?}, the worked id in upper case; merkle_root is the \
             root recomputed over the ids as written, so nothing else fails. The draft says a \
             step's receipt_id is a UUID, and RFC 9562 reads UUID hex digits case-insensitively \
             on input; only the kit insists on lower case (AER1-WF-STEP-ID-CASE, a kit rule \
             graded SHOULD). Either verdict conforms; a rejection cites that rule alone."
        ))
        .workflow_text(&text(&with_step_id(&upper)))
        .acceptable(
            &[Rule::Aer1WfStepIdCase],
            &[Flag::ShouldLevel, Flag::Interpretation],
        )
        .derived_from(
            example,
            &format!("steps[3].receipt_id set to {upper:?}, root recomputed"),
        )
        .push();
    f.vector("steps-empty")
        .revisions(AER1_ALL)
        .describe(
            "steps is an empty array (seq 1..n holds for n = 0) and merkle_root is the root of no \
             steps, SHA-256 of the empty string (e3b0c442...), so every check the draft states \
             holds. The draft does not say whether steps may be empty; every independent verifier \
             measured rejects an empty list. Either verdict conforms (this project's reading, \
             AER1-WF-STEPS-NONEMPTY, graded SHOULD); a rejection cites that rule alone. The same \
             input was once graded valid as aer1/workflow/valid/no-steps, now retired.",
        )
        .workflow_text(&text(&document(numbered(&[]), EMPTY_ROOT)))
        .acceptable(
            &[Rule::Aer1WfStepsNonempty],
            &[Flag::ShouldLevel, Flag::Interpretation],
        )
        .derived_from(
            example,
            "removed every step, root set to SHA-256 of the empty string",
        )
        .push();
}

fn structure(out: &mut Vec<Vector>, example: &str) {
    let mut cases: Vec<Case> = Vec::new();
    document_members(&mut cases);
    document_formats(&mut cases);
    step_members(&mut cases);
    step_formats(&mut cases);
    seq(&mut cases);
    duplicates_and_root(&mut cases);

    let mut f = Family::new(out, Suite::Aer1Workflow, "structure");
    for (name, value, why, mutation, rules) in cases {
        f.vector(name)
            .revisions(AER1_ALL)
            .describe(&why)
            .workflow_text(&text(&value))
            .invalid(rules)
            .derived_from(example, &mutation)
            .push();
    }
}

/// AER1-WF-MEMBERS: the document is not an object, or lacks a member, or steps is no array.
fn document_members(cases: &mut Vec<Case>) {
    let members: [(&str, &str); 11] = [
        ("type-missing", "type"),
        ("version-missing", "version"),
        ("workflow-id-missing", "workflow_id"),
        // The step-level `receipt-id-missing` keeps its id from before the draft's layout.
        ("document-receipt-id-missing", "receipt_id"),
        ("session-id-missing", "session_id"),
        ("goal-missing", "goal"),
        ("status-missing", "status"),
        ("steps-missing", "steps"),
        ("root-missing", "merkle_root"),
        ("output-hash-missing", "output_hash"),
        ("verify-url-missing", "verify_url"),
    ];
    for (name, member) in members {
        let consequence = match member {
            "steps" => " With no steps there is nothing to recompute the root from.",
            "merkle_root" => " The root is still recomputed, but there is none to compare it with.",
            _ => "",
        };
        cases.push((
            name,
            changed(|d| remove(d, member)),
            format!(
                "The worked example without its {member} member. A workflow receipt carries all \
                 eleven members of Section 8, so AER1-WF-MEMBERS fails; everything present is \
                 well-formed.{consequence}"
            ),
            format!("removed {member}"),
            &[Rule::Aer1WfMembers],
        ));
    }
    cases.push((
        "steps-not-an-array",
        changed(|d| {
            d["steps"] = json!({"0": step(json!(1), &STEPS[0]), "1": step(json!(2), &STEPS[1])});
        }),
        "steps is an object keyed by position instead of an array; the steps of a workflow \
         receipt are a JSON array, so AER1-WF-MEMBERS fails (and no root can be recomputed)."
            .into(),
        "steps replaced by an object keyed \"0\", \"1\"".into(),
        &[Rule::Aer1WfMembers],
    ));
    cases.push((
        "document-not-an-object",
        Value::Array(numbered(&WORKED)),
        "The document is the bare steps array with no surrounding object; a workflow receipt is a \
         JSON object, so AER1-WF-MEMBERS fails and nothing else is checked."
            .into(),
        "replaced the document by its steps array".into(),
        &[Rule::Aer1WfMembers],
    ));
}

/// AER1-WF-TYPE, -STRINGS, -ID, -ID-DISTINCT, -HEX, -VERIFY-URL: one document member wrong.
fn document_formats(cases: &mut Vec<Case>) {
    let one: Vec<MemberCase> = vec![
        (
            "type-other-value",
            "type",
            json!("workflow-receipt"),
            "type must be exactly verifiable-workflow-receipt",
            &[Rule::Aer1WfType],
        ),
        (
            "type-uppercase",
            "type",
            json!("Verifiable-Workflow-Receipt"),
            "type is matched exactly, case included",
            &[Rule::Aer1WfType],
        ),
        (
            "version-empty",
            "version",
            json!(""),
            "version must be a non-empty string",
            &[Rule::Aer1WfStrings],
        ),
        (
            "version-a-number",
            "version",
            json!(1),
            "version is the string \"1\" in the draft's example, not the number 1; it must be a \
             non-empty string",
            &[Rule::Aer1WfStrings],
        ),
        (
            "session-id-empty",
            "session_id",
            json!(""),
            "session_id must be a non-empty string",
            &[Rule::Aer1WfStrings],
        ),
        (
            "goal-empty",
            "goal",
            json!(""),
            "goal must be a non-empty string",
            &[Rule::Aer1WfStrings],
        ),
        (
            "status-empty",
            "status",
            json!(""),
            "the workflow's status must be a non-empty string",
            &[Rule::Aer1WfStrings],
        ),
        (
            "workflow-id-uppercase",
            "workflow_id",
            json!(WORKFLOW_ID.to_uppercase()),
            "workflow_id must be a lowercase UUID; uppercase hex digits are rejected",
            &[Rule::Aer1WfId],
        ),
        (
            "workflow-id-not-a-uuid",
            "workflow_id",
            json!("wf-42a3c2cf"),
            "workflow_id must be a lowercase UUID (8-4-4-4-12 hex digits), not a free-form name",
            &[Rule::Aer1WfId],
        ),
        (
            "document-receipt-id-uppercase",
            "receipt_id",
            json!(RECEIPT_ID.to_uppercase()),
            "the workflow receipt's own receipt_id must be a lowercase UUID; uppercase hex digits \
             are rejected",
            &[Rule::Aer1WfId],
        ),
        (
            "receipt-id-equals-workflow-id",
            "receipt_id",
            json!(WORKFLOW_ID),
            "receipt_id is set to the workflow_id; both are well-formed, but a workflow receipt's \
             id must differ from the workflow's id",
            &[Rule::Aer1WfIdDistinct],
        ),
        (
            "root-uppercase",
            "merkle_root",
            json!(ROOT.to_uppercase()),
            "merkle_root is the published root in uppercase hex; it must be 64 lowercase hex \
             digits. A malformed root is a format failure, not a mismatch",
            &[Rule::Aer1WfHex],
        ),
        (
            "root-with-sha256-prefix",
            "merkle_root",
            json!(format!("sha256:{ROOT}")),
            "merkle_root is the published root with a sha256: prefix (a single receipt's \
             output_hash style); a workflow's merkle_root is bare 64 lowercase hex",
            &[Rule::Aer1WfHex],
        ),
        (
            "output-hash-uppercase",
            "output_hash",
            json!(OUTPUT_HASH.to_uppercase()),
            "output_hash is written in uppercase hex; it must be bare 64 lowercase hex (only its \
             format can be checked: the bytes it covers are implementation-defined)",
            &[Rule::Aer1WfHex],
        ),
        (
            "output-hash-with-sha256-prefix",
            "output_hash",
            json!(format!("sha256:{OUTPUT_HASH}")),
            "output_hash carries a sha256: prefix; a workflow's output_hash is bare 64 lowercase \
             hex",
            &[Rule::Aer1WfHex],
        ),
        (
            "verify-url-ftp",
            "verify_url",
            json!(format!("ftp://zambo.dev/workflow/{WORKFLOW_ID}")),
            "verify_url uses ftp://; it must start with http:// or https://",
            &[Rule::Aer1WfVerifyUrl],
        ),
        (
            "verify-url-without-scheme",
            "verify_url",
            json!(format!("zambo.dev/workflow/{WORKFLOW_ID}")),
            "verify_url has no scheme; it must start with http:// or https://",
            &[Rule::Aer1WfVerifyUrl],
        ),
    ];
    for (name, member, value, why, rules) in one {
        let shown = clip_json(&value);
        cases.push((
            name,
            changed(|d| d[member] = value),
            format!(
                "The worked example with {member} {shown}: {why}. Only {} fails; the steps and the \
                 root are untouched.",
                rules[0].id()
            ),
            format!("{member} set to {shown}"),
            rules,
        ));
    }
}

/// AER1-WF-STEP-MEMBERS: a step is not an object, lacks a member, or has a non-string tool.
fn step_members(cases: &mut Vec<Case>) {
    cases.push((
        "step-not-an-object",
        changed(|d| d["steps"][2] = json!(STEPS[2].id)),
        "Step 2 is its bare receipt id string instead of an object; every step is an object \
         carrying seq, tool, receipt_id, receipt_hash, started_at, ended_at and status, so \
         AER1-WF-STEP-MEMBERS fails. No root can be recomputed without the step, so none is \
         compared."
            .into(),
        "step 2 replaced by its bare receipt id string".into(),
        &[Rule::Aer1WfStepMembers],
    ));
    cases.push((
        // Kept from before the draft's layout: the same defect, a step without receipt_id.
        "receipt-id-missing",
        changed(|d| {
            remove(&mut d["steps"][3], "receipt_id");
            d["steps"][3]["receiptId"] = json!(STEPS[3].id);
        }),
        "Step 3 carries receiptId instead of receipt_id (names are case-sensitive), so it has no \
         receipt_id member; every step carries one, so AER1-WF-STEP-MEMBERS fails. Without the \
         id there is no leaf, so no root is compared."
            .into(),
        "steps[3].receipt_id renamed receiptId".into(),
        &[Rule::Aer1WfStepMembers],
    ));
    for (name, member, consequence) in [
        (
            "step-seq-missing",
            "seq",
            " Without its seq the step has no place in seq order, so no root is compared.",
        ),
        ("step-tool-missing", "tool", ""),
        ("step-receipt-hash-missing", "receipt_hash", ""),
        ("step-started-at-missing", "started_at", ""),
        ("step-ended-at-missing", "ended_at", ""),
        ("step-status-missing", "status", ""),
    ] {
        cases.push((
            name,
            changed(|d| remove(&mut d["steps"][3], member)),
            format!(
                "Step 3 has no {member} member. Every step carries seq, tool, receipt_id, \
                 receipt_hash, started_at, ended_at and status, so AER1-WF-STEP-MEMBERS fails; the \
                 other steps and members are untouched.{consequence}"
            ),
            format!("removed steps[3].{member}"),
            &[Rule::Aer1WfStepMembers],
        ));
    }
    cases.push((
        "step-tool-not-a-string",
        changed(|d| d["steps"][1]["tool"] = json!({"name": "zambo_universal"})),
        "Step 1's tool is an object with a name instead of a string (a single receipt's tool \
         shape); a step's tool is a string, so AER1-WF-STEP-MEMBERS fails."
            .into(),
        "steps[1].tool replaced by {\"name\": \"zambo_universal\"}".into(),
        &[Rule::Aer1WfStepMembers],
    ));
}

/// AER1-WF-STEP-ID, -STEP-HASH, -STEP-TIME, -SEQ-TYPE: one step member malformed.
fn step_formats(cases: &mut Vec<Case>) {
    cases.push((
        "receipt-id-not-a-string",
        changed(|d| d["steps"][3]["receipt_id"] = json!(7)),
        "Step 3's receipt_id is the JSON number 7; a step's receipt_id is a lowercase UUID string, \
         so AER1-WF-STEP-ID fails. A number has no leaf, so no root is compared."
            .into(),
        "steps[3].receipt_id set to 7".into(),
        &[Rule::Aer1WfStepId],
    ));
    cases.push((
        "receipt-id-empty-collides-with-no-steps",
        document(
            vec![{
                let mut s = step(json!(1), &STEPS[0]);
                s["receipt_id"] = json!("");
                s
            }],
            EMPTY_ROOT,
        ),
        "The only step's receipt_id is the empty string, and merkle_root is SHA-256 of no bytes: \
         the leaf of \"\", which is also the root of a workflow with no steps, so the root matches. \
         Without domain separation the two documents would share a root; an empty id is not a \
         UUID, so AER1-WF-STEP-ID fails, and only it."
            .into(),
        "one step with receipt_id \"\" and the empty-workflow root".into(),
        &[Rule::Aer1WfStepId],
    ));
    let bad = "r-job-7a1f-3";
    cases.push((
        "step-receipt-id-not-a-uuid",
        with_step_id(bad),
        format!(
            "Step 3's receipt_id is {bad:?}: a step's receipt_id is a UUID, and a free-form id is \
             not one, so AER1-WF-STEP-ID fails. merkle_root is the root recomputed over the ids as \
             written, so the root matches and nothing else fails."
        ),
        format!("steps[3].receipt_id set to {bad:?}, root recomputed"),
        &[Rule::Aer1WfStepId],
    ));
    let one: Vec<StepMemberCase> = vec![
        (
            "step-receipt-hash-uppercase",
            1,
            "receipt_hash",
            json!(STEPS[1].hash.to_uppercase()),
            "a step's receipt_hash is 64 lowercase hex digits",
            &[Rule::Aer1WfStepHash],
        ),
        (
            "step-receipt-hash-with-sha256-prefix",
            1,
            "receipt_hash",
            json!(format!("sha256:{}", STEPS[1].hash)),
            "a step's receipt_hash is 64 lowercase hex digits with no prefix",
            &[Rule::Aer1WfStepHash],
        ),
        (
            "step-started-at-impossible-date",
            2,
            "started_at",
            json!("2026-09-31T10:57:45.415Z"),
            "September has 30 days: the date-time names no real instant",
            &[Rule::Aer1WfStepTime],
        ),
        (
            "step-ended-at-leap-second",
            2,
            "ended_at",
            json!("2026-09-29T10:57:60Z"),
            "second 60 is rejected (no leap seconds)",
            &[Rule::Aer1WfStepTime],
        ),
        (
            "step-started-at-without-offset",
            2,
            "started_at",
            json!("2026-09-29T10:57:45.415"),
            "an RFC 3339 date-time ends with Z or a numeric offset",
            &[Rule::Aer1WfStepTime],
        ),
        (
            "step-seq-fraction",
            1,
            "seq",
            json!(2.5),
            "seq is an integer; 2.5 is not integral. A step with no integer seq has no place in \
             seq order, so no root is compared",
            &[Rule::Aer1WfSeqType],
        ),
        (
            "step-seq-string",
            1,
            "seq",
            json!("2"),
            "seq is an integer, not the string \"2\". A step with no integer seq has no place in \
             seq order, so no root is compared",
            &[Rule::Aer1WfSeqType],
        ),
    ];
    for (name, i, member, value, why, rules) in one {
        let shown = clip_json(&value);
        cases.push((
            name,
            changed(|d| d["steps"][i][member] = value),
            format!(
                "Step {i}'s {member} is {shown}: {why}. Only {} fails.",
                rules[0].id()
            ),
            format!("steps[{i}].{member} set to {shown}"),
            rules,
        ));
    }
}

/// AER1-WF-SEQ: seq not 1..n in document order. The root is always taken in seq order
/// (spec-notes/aer1-workflow.md, "Seq order and document order").
fn seq(cases: &mut Vec<Case>) {
    // Whole steps 1 and 2 swapped: each keeps its seq and id.
    let mut swapped = numbered(&WORKED);
    swapped.swap(1, 2);
    cases.push((
        "seq-swapped",
        document(swapped, ROOT),
        "The worked example with whole steps 1 and 2 (0-based) swapped, each keeping its own seq \
         and receipt id, and the published root kept: in document order the steps carry seq \
         [1,3,2,4,5]. seq must run 1..n in document order, never sorted first, so AER1-WF-SEQ \
         fails (at indexes 1 and 2), and nothing else may be required: with seq broken the draft does \
         not define the seq order the root is taken in (in seq order the ids are the published \
         five, in document order they are not), so the root is not judged: only AER1-WF-SEQ is \
         required, and a verifier that also reports AER1-WF-ROOT (taking the root in document \
         order) is not wrong: that reading is accepted. A verifier that ignores seq, or sorts the steps before checking it, \
         accepts this."
            .into(),
        "steps 1 and 2 swapped with their seq values, root kept".into(),
        &[Rule::Aer1WfSeq],
    ));
    cases.push((
        "seq-gap",
        changed(|d| d["steps"][4]["seq"] = json!(9)),
        "The worked example with the last step's seq 9 instead of 5: seq [1,2,3,4,9], a gap. seq \
         must run exactly 1..n in document order, so AER1-WF-SEQ fails at index 4; with seq broken \
         the root is not judged (it would match in either order), so only AER1-WF-SEQ fails."
            .into(),
        "steps[4].seq set to 9, root kept".into(),
        &[Rule::Aer1WfSeq],
    ));
    cases.push((
        "seq-repeated",
        changed(|d| d["steps"][2]["seq"] = json!(2)),
        "The worked example with step 2's seq 2 instead of 3: seq [1,2,2,4,5], a repeat. seq must \
         run exactly 1..n in document order, so AER1-WF-SEQ fails at index 2; with seq broken the \
         root is not judged, so only AER1-WF-SEQ fails."
            .into(),
        "steps[2].seq set to 2, root kept".into(),
        &[Rule::Aer1WfSeq],
    ));
    cases.push((
        "seq-from-zero",
        changed(|d| {
            for i in 0..5 {
                d["steps"][i]["seq"] = json!(i);
            }
        }),
        "The worked example numbered from 0: seq [0,1,2,3,4]. seq starts at 1, so every step is \
         out of place and AER1-WF-SEQ fails at each index; with seq broken the root is not judged."
            .into(),
        "every seq lowered by one, root kept".into(),
        &[Rule::Aer1WfSeq],
    ));
    cases.push((
        "seq-values-exchanged",
        changed(|d| {
            d["steps"][1]["seq"] = json!(3);
            d["steps"][2]["seq"] = json!(2);
        }),
        "The other half of a swap: the steps stay where they are and only the seq values of steps \
         1 and 2 are exchanged, with the published root kept: seq [1,3,2,4,5]. AER1-WF-SEQ fails \
         at indexes 1 and 2. With seq broken the draft does not define the seq order the root is \
         taken in (in document order the root matches, in seq-value order it does not), so the \
         root is not judged and only AER1-WF-SEQ is required; a verifier may also report \
         AER1-WF-ROOT (taking the root in seq-value order): that reading is accepted. \
         Expectation changed: first generated expecting AER1-WF-ROOT as well."
            .into(),
        "steps[1].seq and steps[2].seq exchanged, root kept".into(),
        &[Rule::Aer1WfSeq],
    ));
}

/// AER1-WF-DUPLICATE and AER1-WF-ROOT.
fn duplicates_and_root(cases: &mut Vec<Case>) {
    let six = [0, 1, 2, 3, 4, 4];
    cases.push((
        "duplicate-last-id",
        document(numbered(&six), ROOT),
        "The worked example with its last step repeated as a sixth step (seq 6, the same receipt \
         id). The tree pairs an odd last digest with itself and has no domain separation, so these \
         six ids have exactly the published five-id root, and merkle_root (that root) is correct \
         for them. The root cannot tell the lists apart, which is why duplicate receipt ids must \
         be rejected: only AER1-WF-DUPLICATE fails."
            .into(),
        "appended a copy of the last step with seq 6".into(),
        &[Rule::Aer1WfDuplicate],
    ));
    let middle = [0, 1, 0, 2, 3];
    cases.push((
        "duplicate-id-in-middle",
        document(numbered(&middle), &root_of_order(&middle)),
        "Step 2 repeats the receipt of step 0 (seq renumbered 1..5). merkle_root is the correct \
         root of this five-step list, so the root matches; no two steps may carry the same receipt \
         id, so only AER1-WF-DUPLICATE fails."
            .into(),
        "a copy of step 0 inserted as step 2, the last step dropped, seq renumbered, root \
         recomputed"
            .into(),
        &[Rule::Aer1WfDuplicate],
    ));
    cases.push((
        "wrong-root",
        changed(|d| d["merkle_root"] = json!(format!("{}0", &ROOT[..63]))),
        "The worked example with the last hex digit of merkle_root changed (...3b30 instead of \
         ...3b37). The value is well-formed but differs from the root recomputed over the steps, \
         so AER1-WF-ROOT fails."
            .into(),
        "last digit of merkle_root changed from 7 to 0".into(),
        &[Rule::Aer1WfRoot],
    ));
    cases.push((
        "step-dropped",
        document(numbered(&[0, 1, 2, 3]), ROOT),
        "The worked example's last step removed, keeping the published five-id root. seq still \
         runs 1..4, but the root of the four remaining ids differs, so AER1-WF-ROOT fails."
            .into(),
        "last step removed, root kept".into(),
        &[Rule::Aer1WfRoot],
    ));
    cases.push((
        "legacy-root",
        changed(|d| d["merkle_root"] = json!(LEGACY_ROOT)),
        "The worked example carrying the root of the legacy construction, a4b2fcb4..., whose leaves \
         are \"<seq>:<receipt_hash>\" instead of the receipt ids. Section 8.1 defines one \
         construction, over the receipt ids; the legacy root must not verify, so AER1-WF-ROOT \
         fails."
            .into(),
        "merkle_root replaced by the legacy construction's root".into(),
        &[Rule::Aer1WfRoot],
    ));
    cases.push((
        "receipt-ids-swapped",
        changed(|d| {
            d["steps"][0]["receipt_id"] = json!(STEPS[1].id);
            d["steps"][1]["receipt_id"] = json!(STEPS[0].id);
        }),
        "The receipt ids of steps 0 and 1 exchanged while seq stays 1..5, the published root kept. \
         Leaves are combined in seq order (left || right), so the order is bound: the recomputed \
         root differs and AER1-WF-ROOT fails, and nothing else."
            .into(),
        "steps[0].receipt_id and steps[1].receipt_id exchanged, root kept".into(),
        &[Rule::Aer1WfRoot],
    ));
}

/// A JSON value for a description: compact, clipped.
fn clip_json(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 72 {
        format!("{}...\"", &s[..69])
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest as _, Sha256};

    /// Section 8.1's tree written out independently of the library.
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
        let all: Vec<&str> = STEPS.iter().map(|s| s.id).collect();
        for n in 0..=all.len() {
            assert_eq!(root_of(&all[..n]), independent_root(&all[..n]), "{n} ids");
        }
        assert_eq!(independent_root(&all[..5]), ROOT);
        assert_eq!(independent_root(&[]), EMPTY_ROOT);
    }

    #[test]
    fn every_step_is_well_formed_and_distinct() {
        let mut ids: Vec<&str> = STEPS.iter().map(|s| s.id).collect();
        for s in &STEPS {
            assert!(
                agentconf_aer1::formats::check_uuid_core(s.id).is_ok(),
                "{}",
                s.id
            );
            assert!(hex::is_lower_hex(s.hash, 64), "{}", s.hash);
        }
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), STEPS.len());
    }

    #[test]
    fn the_text_keeps_the_draft_order_and_is_the_same_json() {
        let d = worked();
        let t = text(&d);
        let back: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(back, d);
        let at = |needle: &str| t.find(needle).unwrap();
        assert!(at("\"type\"") < at("\"version\"") && at("\"steps\"") < at("\"merkle_root\""));
        assert!(at("\"seq\"") < at("\"tool\"") && at("\"receipt_hash\"") < at("\"started_at\""));
        assert!(t.starts_with("{\n  \"type\": \"verifiable-workflow-receipt\",\n"));
    }
}
