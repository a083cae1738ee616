//! Grading an emitter: the timeline an implementation wrote for a `STEPS` file, against the
//! timeline the draft's construction gives for the same steps (the vector's expected output).
//!
//! Every difference is a fault on the rule whose property it breaks: an entry's members must be
//! the step's (`AER1-TL-MEMBERS`, `-JOB`, `-B64`), `seq` 1..n (`-SEQ-TYPE`, `-SEQ`), the genesis
//! link (`-GENESIS`), every later link the digest of the entry before (`-LINK`, with the known
//! wrong construction that explains a wrong digest, and the first byte where its preimage departs
//! from the draft's), `close: true` on the last entry only (`-CLOSE-*`). As a verifier's checks,
//! one defect gives one fault: a link after an entry whose members already differ is not judged
//! (its digest is bound to differ). The rules of the faults go with the grade
//! ([`EmitGrade::broken_rules`]) into the results line, so the per-rule table blames the emitter
//! for the rules its output broke, not for every rule its vector lists.

use agentconf_contract::case::Case;
use agentconf_contract::emit::TimelineSteps;
use agentconf_contract::vector::{Expectation, Suite};
use agentconf_rules::Rule;
use serde::Deserialize;
use serde_json::Value;

mod fault;
mod receipt;

pub(crate) use fault::{EmitFault, EmitGrade};
pub(crate) use receipt::compare as compare_receipt;

pub(crate) use fault::shown;
use fault::{read_object, repeated_message, wrong_output};

use crate::grade::Grade;
use crate::preimage::{digest_hex, explain, preimage, Construction, Fields, GENESIS};
use crate::status::Status;

/// An entry as an emitter wrote it; members of other names are allowed and ignored. (A member
/// given twice is found in the text, [`crate::repeated`]: a value keeps only the last.)
#[derive(Deserialize)]
struct Entry {
    canonical_bytes: Value,
    prev_digest: Value,
    seq: Value,
    job_id: Value,
    id: Value,
    tool: Value,
    provenance_class: Value,
    /// Absent is `None`; a `null` is `Some(Null)` (a type fault, not an absent member).
    #[serde(default, deserialize_with = "present")]
    close: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The timeline the draft's construction gives for `steps`, written by the judge itself
/// ([`crate::preimage`]), and the digest of its last entry.
pub fn expected_timeline(steps: &TimelineSteps) -> (Vec<Value>, String) {
    let mut prev = GENESIS.to_string();
    let mut out = Vec::with_capacity(steps.steps.len());
    let last = steps.steps.len().saturating_sub(1);
    for (i, step) in steps.steps.iter().enumerate() {
        let output_hash = digest_hex(&step.output().unwrap_or_default());
        let seq = (i + 1).to_string();
        let fields = Fields {
            close: i == last,
            id: &step.id,
            job_id: &steps.job_id,
            output_hash: &output_hash,
            prev_digest: &prev,
            provenance_class: &step.provenance_class,
            seq: &seq,
            tool: &step.tool,
        };
        let digest = digest_hex(&preimage(&fields, Construction::Draft));
        let mut entry = serde_json::json!({
            "canonical_bytes": step.output_base64,
            "prev_digest": prev,
            "seq": i + 1,
            "job_id": steps.job_id,
            "id": step.id,
            "tool": step.tool,
            "provenance_class": step.provenance_class,
        });
        if i == last {
            entry["close"] = Value::Bool(true);
        }
        out.push(entry);
        prev = digest;
    }
    (out, prev)
}

/// Grades an emitter's answer to case `c`: whether it wrote something (`wrote`, exit 0) or
/// refused (exit 1), and what it wrote. A vector whose input no conforming producer may commit to
/// (`invalid`: a timeline that does not verify) must be refused; any other must be written as
/// the construction gives it; a wrong output's grade names the rules it broke.
pub fn grade_emitted(c: &Case<'_>, wrote: bool, stdout: &[u8]) -> EmitGrade {
    match (c.expectation, wrote) {
        (Expectation::Invalid, false) => EmitGrade::of(
            Status::Pass,
            "refused: nothing is made of input that does not verify",
        ),
        (Expectation::Invalid, true) => {
            // Charged to what it failed to check (the rules that make the input unfit) and to
            // what its output breaks besides, never to a rule the output kept: a commitment
            // whose final digest is the chain's is no failure of AER1-CM-FINAL.
            let mut broken_rules: Vec<Rule> = c.expected_rules.to_vec();
            let output = grade_output(c, stdout);
            if output.status == Status::WrongOutput {
                for r in output.broken_rules {
                    if !broken_rules.contains(&r) {
                        broken_rules.push(r);
                    }
                }
            }
            EmitGrade {
                status: Status::FalseAccept,
                detail: "wrote an artifact for input that does not verify (it must exit 1)".into(),
                broken_rules,
            }
        }
        (_, false) => EmitGrade::of(
            Status::FalseReject,
            "exit 1: it refused input that is well formed",
        ),
        (_, true) => grade_output(c, stdout),
    }
}

/// Grades an emitter's standard output for case `c`, of any emitter suite.
pub(crate) fn grade_any(c: &Case<'_>, stdout: &[u8]) -> Grade {
    grade_output(c, stdout).grade()
}

/// [`grade_any`], with the rules a wrong output broke.
pub(crate) fn grade_output(c: &Case<'_>, stdout: &[u8]) -> EmitGrade {
    match c.vector.suite {
        Suite::Aer1EmitCommitment => grade_commitment(c, stdout),
        Suite::Aer1EmitReceipt => receipt::grade(c, stdout),
        _ => grade_timeline(c, stdout),
    }
}

/// Grades an emitter's standard output for case `c` (an `aer1-emit-timeline` vector): a pass
/// when it is the timeline of the vector's steps, else `wrong-output` with the first faults and
/// the rules they broke.
fn grade_timeline(c: &Case<'_>, stdout: &[u8]) -> EmitGrade {
    let v = c.vector;
    let steps = match v.input_bytes("steps").map(|b| TimelineSteps::parse(&b)) {
        Some(Ok(s)) => s,
        Some(Err(e)) => return EmitGrade::of(Status::Crash, format!("the vector's steps: {e}")),
        None => return EmitGrade::of(Status::Crash, "the vector has no steps input"),
    };
    let (want, final_digest) = expected_timeline(&steps);
    // The vector's answer, written by the corpus, and the judge's own construction must agree
    // before anything is graded by either.
    if v.expected_final_digest.as_deref() != Some(final_digest.as_str()) {
        return EmitGrade::of(
            Status::Crash,
            format!(
                "the vector's expected_final_digest {:?} is not the judge's {final_digest}",
                v.expected_final_digest
            ),
        );
    }
    let faults = compare(&want, stdout);
    if faults.is_empty() {
        return EmitGrade::of(
            Status::Pass,
            format!(
                "the timeline of the {} steps, final digest {final_digest}",
                want.len()
            ),
        );
    }
    wrong_output(&faults)
}

/// The commitment artifact the draft gives for a valid `timeline` (already read as JSON) at
/// `published_at`, its final digest written by the judge; `None` when the timeline has no entry
/// or its last entry lacks a member the digest needs.
pub(crate) fn expected_commitment(timeline: &[Value], published_at: &str) -> Option<Value> {
    let first = timeline.first()?;
    let digest = entry_digest(timeline.last()?)?;
    Some(serde_json::json!({
        "job_id": first.get("job_id")?,
        "final_entry_digest": digest,
        "entry_count": timeline.len(),
        "published_at": published_at,
    }))
}

/// Grades a commitment emitter's standard output for case `c` (an `aer1-emit-commitment`
/// vector): the four members, each exactly the draft's (`entry_count` a JSON integer); members of
/// other names are ignored.
pub(crate) fn grade_commitment(c: &Case<'_>, stdout: &[u8]) -> EmitGrade {
    let v = c.vector;
    let timeline: Option<Vec<Value>> = v
        .input_bytes("timeline")
        .and_then(|b| serde_json::from_slice(&b).ok());
    let (Some(timeline), Some(published_at)) = (timeline, v.options.published_at.as_deref()) else {
        return EmitGrade::of(
            Status::Crash,
            "the vector has no readable timeline or no published_at",
        );
    };
    let Some(want) = expected_commitment(&timeline, published_at) else {
        return EmitGrade::of(
            Status::Crash,
            "the vector's timeline has no digestable last entry",
        );
    };
    if v.expected_final_digest.as_deref() != want["final_entry_digest"].as_str() {
        return EmitGrade::of(
            Status::Crash,
            format!(
                "the vector's expected_final_digest {:?} is not the judge's {}",
                v.expected_final_digest, want["final_entry_digest"]
            ),
        );
    }
    let faults = compare_commitment(&want, timeline.last(), stdout);
    if faults.is_empty() {
        EmitGrade::of(
            Status::Pass,
            format!("the commitment of the {} entries", timeline.len()),
        )
    } else {
        wrong_output(&faults)
    }
}

/// The faults of an emitted commitment against `want`; `last` is the timeline's last entry, for
/// explaining a wrong final digest.
pub(crate) fn compare_commitment(
    want: &Value,
    last: Option<&Value>,
    emitted: &[u8],
) -> Vec<EmitFault> {
    let fault = |rule, member, message: String| EmitFault {
        rule,
        entry: None,
        member,
        message,
    };
    let got = match read_object(emitted, Rule::Aer1CmMembers) {
        Ok(o) => o,
        Err(f) => return vec![f],
    };
    let mut faults = Vec::new();
    if let Some(name) = std::str::from_utf8(emitted)
        .ok()
        .and_then(crate::repeated::repeated_member)
    {
        faults.push(fault(Rule::Aer1CmMembers, None, repeated_message(&name)));
    }
    for (member, rule) in [
        ("job_id", Rule::Aer1CmJob),
        ("final_entry_digest", Rule::Aer1CmFinal),
        ("entry_count", Rule::Aer1CmCount),
        ("published_at", Rule::Aer1CmPublishedAt),
    ] {
        let expected = &want[member];
        match got.get(member) {
            None => faults.push(fault(Rule::Aer1CmMembers, Some(member), "missing".into())),
            Some(v) if v == expected => {}
            Some(v) if member == "entry_count" && v.as_f64() == expected.as_f64() => {
                faults.push(fault(
                    Rule::Aer1CmCountFormat,
                    Some(member),
                    format!("{} is not written as a JSON integer", shown(v)),
                ))
            }
            Some(v) => {
                let why = match (member, last, v.as_str()) {
                    ("final_entry_digest", Some(entry), Some(d)) => explain_link(entry, d),
                    _ => None,
                };
                faults.push(fault(
                    rule,
                    Some(member),
                    format!(
                        "{} where the draft gives {}{}",
                        shown(v),
                        shown(expected),
                        why.map(|w| format!(": {w}")).unwrap_or_default()
                    ),
                ));
            }
        }
    }
    faults
}

/// The draft's digest of a timeline entry as read from JSON; `None` when a member it needs is
/// missing or of another type.
pub(crate) fn entry_digest(e: &Value) -> Option<String> {
    with_fields(e, |f| digest_hex(&preimage(f, Construction::Draft)))
}

/// `use_fields` of the preimage members of a timeline entry read from JSON (`output_hash`
/// recomputed from the decoded bytes, `seq` of integral value: `1.0` is 1); `None` when a member
/// they need is missing or of another type.
fn with_fields<T>(e: &Value, use_fields: impl FnOnce(&Fields<'_>) -> T) -> Option<T> {
    use base64::Engine as _;
    let s = |m: &str| e.get(m).and_then(Value::as_str);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s("canonical_bytes")?)
        .ok()?;
    let output_hash = digest_hex(&bytes);
    let seq = e.get("seq").and_then(integer_text)?;
    Some(use_fields(&Fields {
        close: e.get("close").and_then(Value::as_bool).unwrap_or(false),
        id: s("id")?,
        job_id: s("job_id")?,
        output_hash: &output_hash,
        prev_digest: s("prev_digest")?,
        provenance_class: s("provenance_class")?,
        seq: &seq,
        tool: s("tool")?,
    }))
}

/// A JSON number of integral value as its integer text (`1.0` and `1e0` are `1`).
fn integer_text(v: &Value) -> Option<String> {
    if let Some(n) = v.as_u64() {
        return Some(n.to_string());
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && (1.0..9e15).contains(&f)).then(|| format!("{}", f as u64))
}

/// The faults of `emitted` (the implementation's standard output) against `want` (the timeline
/// the draft's construction gives). Empty when they agree on every member the draft binds.
pub(crate) fn compare(want: &[Value], emitted: &[u8]) -> Vec<EmitFault> {
    let fault = |rule, entry, member, message: String| EmitFault {
        rule,
        entry,
        member,
        message,
    };
    let Ok(text) = std::str::from_utf8(emitted) else {
        return vec![fault(
            Rule::Aer1JsonUtf8,
            None,
            None,
            "the output is not UTF-8".into(),
        )];
    };
    if let Err((rule, message)) = fault::bounded(text) {
        return vec![fault(rule, None, None, message)];
    }
    let got: Vec<Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(a)) if !a.is_empty() => a,
        Ok(_) => {
            return vec![fault(
                Rule::Aer1TlArray,
                None,
                None,
                "the output is not a non-empty JSON array".into(),
            )]
        }
        Err(e) => {
            return vec![fault(
                Rule::Aer1JsonSyntax,
                None,
                None,
                format!("the output is not one JSON text ({e})"),
            )]
        }
    };
    let mut faults = Vec::new();
    if let Some(name) = crate::repeated::repeated_member(text) {
        faults.push(fault(
            Rule::Aer1TlMembers,
            None,
            None,
            repeated_message(&name),
        ));
    }
    if got.len() != want.len() {
        faults.push(fault(
            Rule::Aer1TlArray,
            None,
            None,
            format!(
                "{} entries for {} steps: one entry per step",
                got.len(),
                want.len()
            ),
        ));
    }
    // Whether the entry before had every bound member as expected (so its digest is judged
    // through the next entry's prev_digest).
    let mut previous_intact = true;
    let last = got.len().saturating_sub(1);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let before = faults.len();
        let entry = match Entry::deserialize(g) {
            Ok(e) => e,
            Err(e) => {
                faults.push(fault(
                    Rule::Aer1TlMembers,
                    Some(i),
                    None,
                    format!("not an entry with the draft's members ({e})"),
                ));
                previous_intact = false;
                continue;
            }
        };
        for (member, value, rule) in [
            ("canonical_bytes", &entry.canonical_bytes, Rule::Aer1TlB64),
            ("job_id", &entry.job_id, Rule::Aer1TlJob),
            ("id", &entry.id, Rule::Aer1TlMembers),
            ("tool", &entry.tool, Rule::Aer1TlMembers),
            (
                "provenance_class",
                &entry.provenance_class,
                Rule::Aer1TlMembers,
            ),
        ] {
            if Some(value) != w.get(member) {
                faults.push(fault(
                    rule,
                    Some(i),
                    Some(member),
                    format!(
                        "{} where the step gives {}",
                        shown(value),
                        shown(&w[member])
                    ),
                ));
            }
        }
        let seq_ok = match entry.seq.as_u64() {
            Some(n) => n == i as u64 + 1,
            None => {
                faults.push(fault(
                    Rule::Aer1TlSeqType,
                    Some(i),
                    Some("seq"),
                    format!("{} is not an integer", shown(&entry.seq)),
                ));
                false
            }
        };
        if entry.seq.is_u64() && !seq_ok {
            faults.push(fault(
                Rule::Aer1TlSeq,
                Some(i),
                Some("seq"),
                format!("{} where entry {i} is seq {}", entry.seq, i + 1),
            ));
        }
        let close = match &entry.close {
            None => Some(false),
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                faults.push(fault(
                    Rule::Aer1TlCloseType,
                    Some(i),
                    Some("close"),
                    format!("{} is not a boolean", shown(other)),
                ));
                None
            }
        };
        match (close, i == last) {
            (Some(true), false) => faults.push(fault(
                Rule::Aer1TlCloseEarly,
                Some(i),
                Some("close"),
                "close: true before the last entry".into(),
            )),
            (Some(false), true) => faults.push(fault(
                Rule::Aer1TlCloseLast,
                Some(i),
                Some("close"),
                "the last entry does not carry close: true".into(),
            )),
            _ => {}
        }
        // The link into this entry: the genesis, or the digest of the entry before.
        if Some(&entry.prev_digest) != w.get("prev_digest") {
            if i == 0 {
                faults.push(fault(
                    Rule::Aer1TlGenesis,
                    Some(0),
                    Some("prev_digest"),
                    format!("{} is not 64 '0' characters", shown(&entry.prev_digest)),
                ));
            } else if previous_intact {
                let why = got
                    .get(i - 1)
                    .and_then(|p| explain_link(p, entry.prev_digest.as_str()?));
                faults.push(fault(
                    Rule::Aer1TlLink,
                    Some(i),
                    Some("prev_digest"),
                    format!(
                        "{} is not the draft's digest of entry {} ({}){}",
                        shown(&entry.prev_digest),
                        i - 1,
                        shown(&w["prev_digest"]),
                        why.map(|w| format!(": {w}")).unwrap_or_default()
                    ),
                ));
            }
        }
        previous_intact = faults.len() == before;
    }
    faults
}

/// Why the emitter's digest of `previous` (the next entry's `prev_digest`, `digest`) is not the
/// draft's: the known wrong construction that gives it, if one does.
fn explain_link(previous: &Value, digest: &str) -> Option<String> {
    with_fields(previous, |f| explain(f, digest).map(|e| e.to_string())).flatten()
}

#[cfg(test)]
mod tests {

    /// 16 MiB of `[0,0,…]` (the output limit filled with one-byte values) is refused before any
    /// tree is built: a fault charged to the size rule, not eight million values in memory.
    #[test]
    fn a_flood_of_values_is_refused_unparsed() {
        let flood = format!("[{}0]", "0,".repeat(8 * 1024 * 1024 - 1));
        let faults = compare(&[], flood.as_bytes());
        assert_eq!(faults.len(), 1, "{faults:?}");
        assert_eq!(faults[0].rule, Rule::Aer1JsonSize);
        assert!(
            faults[0].message.contains("not read"),
            "{}",
            faults[0].message
        );
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(compare(&[], deep.as_bytes())[0].rule, Rule::Aer1JsonDepth);
    }
    use super::*;
    use agentconf_contract::emit::EmitStep;

    /// A two-entry timeline of `job`, its links written under `c`.
    fn timeline(job: &str, c: Construction) -> Vec<Value> {
        use base64::Engine as _;
        let mut out = Vec::new();
        let mut prev = GENESIS.to_string();
        for i in 0..2 {
            let bytes = format!("out-{i}");
            let output_hash = digest_hex(bytes.as_bytes());
            let seq = (i + 1).to_string();
            let id = format!("r-{i}");
            let f = Fields {
                close: i == 1,
                id: &id,
                job_id: job,
                output_hash: &output_hash,
                prev_digest: &prev,
                provenance_class: "LOGGED BY AGENT",
                seq: &seq,
                tool: "t\u{e9}",
            };
            let mut e = serde_json::json!({
                "canonical_bytes": base64::engine::general_purpose::STANDARD.encode(&bytes),
                "prev_digest": prev,
                "seq": i + 1,
                "job_id": job,
                "id": id,
                "tool": "t\u{e9}",
                "provenance_class": "LOGGED BY AGENT",
            });
            if i == 1 {
                e["close"] = Value::Bool(true);
            }
            prev = digest_hex(&preimage(&f, c));
            out.push(e);
        }
        out
    }

    fn bytes(v: &[Value]) -> Vec<u8> {
        serde_json::to_vec(v).unwrap()
    }

    fn rules(faults: &[EmitFault]) -> Vec<&'static str> {
        faults.iter().map(|f| f.rule.id()).collect()
    }

    #[test]
    fn the_same_timeline_has_no_fault() {
        let t = bytes(&timeline("job-1", Construction::Draft));
        assert_eq!(compare(&timeline("job-1", Construction::Draft), &t), vec![]);
    }

    /// Raw UTF-8 in the preimage: the link is wrong, and the message names the construction and
    /// the first departing byte.
    #[test]
    fn a_wrong_construction_is_named() {
        let want = timeline("job-1", Construction::Draft);
        let got = bytes(&timeline("job-1", Construction::RawUtf8));
        let faults = compare(&want, &got);
        assert_eq!(rules(&faults), ["AER1-TL-LINK"]);
        let text = faults[0].to_string();
        assert!(
            text.contains("raw in UTF-8") && text.contains("byte"),
            "{text}"
        );
    }

    #[test]
    fn each_member_fault_is_its_rule() {
        let want_entries = timeline("job-1", Construction::Draft);
        let want = want_entries.clone();
        let change = |f: &dyn Fn(&mut Vec<Value>)| {
            let mut t = want_entries.clone();
            f(&mut t);
            rules(&compare(&want, &bytes(&t)))
        };
        assert_eq!(change(&|t| t[0]["seq"] = 0.into()), ["AER1-TL-SEQ"]);
        assert_eq!(change(&|t| t[0]["seq"] = "1".into()), ["AER1-TL-SEQ-TYPE"]);
        assert_eq!(
            change(&|t| t[0]["prev_digest"] = "x".into()),
            ["AER1-TL-GENESIS"]
        );
        assert_eq!(
            change(&|t| t[1]["close"] = Value::Null),
            ["AER1-TL-CLOSE-TYPE"]
        );
        assert_eq!(
            change(&|t| {
                t[1].as_object_mut().unwrap().remove("close");
            }),
            ["AER1-TL-CLOSE-LAST"]
        );
        assert_eq!(
            change(&|t| t[0]["close"] = true.into()),
            ["AER1-TL-CLOSE-EARLY"]
        );
        // A changed member: its own fault, and the link after it is not judged again.
        assert_eq!(
            change(&|t| t[0]["tool"] = "other".into()),
            ["AER1-TL-MEMBERS"]
        );
        assert_eq!(
            change(&|t| t[1]["job_id"] = "job-2".into()),
            ["AER1-TL-JOB"]
        );
        assert_eq!(
            change(&|t| t[0]["canonical_bytes"] = "b3V0LTA".into()),
            ["AER1-TL-B64"]
        );
        assert_eq!(
            change(&|t| {
                t.pop();
            }),
            ["AER1-TL-ARRAY", "AER1-TL-CLOSE-LAST"]
        );
    }

    /// The judge's expected timeline of the published steps ends on the published digest.
    #[test]
    fn the_expected_timeline_of_the_published_steps() {
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
        let (t, last) = expected_timeline(&steps);
        assert_eq!(
            last,
            "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0"
        );
        assert_eq!(
            t[4]["prev_digest"],
            "5dd618b1b3b904a92261bb747f8c4511b0882e1454fc41f20a59fa5bd0ded778"
        );
        assert_eq!(compare(&t, &bytes(&t)), vec![]);
    }

    /// A commitment: each member on its rule, an entry count written 5.0 on the count's format,
    /// a wrong digest explained from the last entry.
    #[test]
    fn commitment_members_each_on_their_rule() {
        let t = timeline("job-1", Construction::Draft);
        let want = expected_commitment(&t, "2026-10-01T18:30:00Z").unwrap();
        let ok = serde_json::to_vec(&want).unwrap();
        assert_eq!(compare_commitment(&want, t.last(), &ok), vec![]);
        let with = |m: &str, v: Value| {
            let mut c = want.clone();
            c[m] = v;
            rules(&compare_commitment(
                &want,
                t.last(),
                &serde_json::to_vec(&c).unwrap(),
            ))
        };
        assert_eq!(with("entry_count", 2.0.into()), ["AER1-CM-COUNT-FORMAT"]);
        assert_eq!(with("entry_count", 3.into()), ["AER1-CM-COUNT"]);
        assert_eq!(with("job_id", "job-2".into()), ["AER1-CM-JOB"]);
        assert_eq!(
            with("published_at", "2026-10-01T18:30:00+00:00".into()),
            ["AER1-CM-PUBLISHED-AT"]
        );
        let last = t.last().unwrap();
        let raw = entry_fields_digest(last, Construction::RawUtf8);
        let faults = compare_commitment(&want, Some(last), &{
            let mut c = want.clone();
            c["final_entry_digest"] = raw.into();
            serde_json::to_vec(&c).unwrap()
        });
        assert_eq!(rules(&faults), ["AER1-CM-FINAL"]);
        assert!(faults[0].message.contains("raw in UTF-8"), "{}", faults[0]);
        assert_eq!(
            rules(&compare_commitment(&want, None, br#"{"job_id":"job-1"}"#)),
            ["AER1-CM-MEMBERS", "AER1-CM-MEMBERS", "AER1-CM-MEMBERS"]
        );
    }

    /// The digest of a test entry under `c`.
    fn entry_fields_digest(e: &Value, c: Construction) -> String {
        use base64::Engine as _;
        let s = |m: &str| e[m].as_str().unwrap();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(s("canonical_bytes"))
            .unwrap();
        let hash = digest_hex(&bytes);
        let seq = e["seq"].to_string();
        digest_hex(&preimage(
            &Fields {
                close: e["close"].as_bool().unwrap_or(false),
                id: s("id"),
                job_id: s("job_id"),
                output_hash: &hash,
                prev_digest: s("prev_digest"),
                provenance_class: s("provenance_class"),
                seq: &seq,
                tool: s("tool"),
            },
            c,
        ))
    }

    #[test]
    fn output_that_is_no_timeline() {
        let want = timeline("job-1", Construction::Draft);
        assert_eq!(rules(&compare(&want, b"")), ["AER1-JSON-SYNTAX"]);
        assert_eq!(rules(&compare(&want, b"[]")), ["AER1-TL-ARRAY"]);
        assert_eq!(rules(&compare(&want, b"\xff")), ["AER1-JSON-UTF8"]);
        assert_eq!(
            rules(&compare(&want, br#"[{"seq":1,"seq":2}]"#)),
            // seq given twice (found in the text), one entry for three steps, members missing.
            ["AER1-TL-MEMBERS", "AER1-TL-ARRAY", "AER1-TL-MEMBERS"]
        );
    }
}
