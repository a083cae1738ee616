//! `aer1/timeline/valid/*`: chains every conforming verifier must accept.

use agentconf_aer1::digest::Revision;
use agentconf_aer1::producer::{build_timeline, CloseStyle, EntrySpec};
use agentconf_rules::Rule;

use super::common::{commitment_for, example, CHAIN_RULES, JOB};
use crate::builder::{to_values, Family, FROM_07, FROM_09};
use agentconf_contract::vector::{Suite, Vector};

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::Aer1Timeline, "valid");

    for n in [1usize, 2, 5, 8, 100] {
        let what = match n {
            1 => "A single entry that is both genesis and closed.".to_string(),
            5 => "The draft's published example v07-valid-5: five entries, close only on the last."
                .to_string(),
            _ => format!("{n} entries shaped like the draft's example, close only on the last."),
        };
        f.vector(&format!("example-{n}"))
            .revisions(FROM_07)
            .describe(&format!(
                "{what} Every link is the recomputed digest of the entry before; must verify."
            ))
            .timeline(&example(n))
            .exercises(CHAIN_RULES)
            .valid()
            .push();
    }

    for n in [1usize, 5, 8] {
        let chain = example(n);
        f.vector(&format!("example-{n}-with-commitment"))
            .revisions(FROM_09)
            .describe(&format!(
                "The {n}-entry example chain with the commitment a witness published for it: count, \
                 job and final digest all match, so the chain verifies together with the commitment."
            ))
            .timeline(&chain)
            .commitment(&commitment_for(&chain))
            .exercises(&[Rule::Aer1CmCount, Rule::Aer1CmJob, Rule::Aer1CmFinal])
            .valid()
            .push();
    }

    let classes = [
        ("executed-by", "EXECUTED BY ZAMBO"),
        ("executed-by-system-punctuation", "EXECUTED BY ACME-2.1_X Y"),
        ("observed-via-gateway", "OBSERVED VIA GATEWAY"),
        ("logged-by-agent", "LOGGED BY AGENT"),
    ];
    for (name, class) in classes {
        let specs = specs_with(4, |s| s.provenance_class = class.to_string());
        f.vector(&format!("provenance-{name}"))
            .revisions(FROM_07)
            .describe(&format!(
                "Every entry carries provenance class {class:?}; the class is bound by the digest and \
                 well-formed, so the chain verifies."
            ))
            .timeline(&build_timeline(JOB, &specs, Revision::R09, CloseStyle::LastOnly))
            .exercises(&[Rule::Aer1TlProvenance, Rule::Aer1TlLink])
            .valid()
            .push();
    }

    // Strings that exercise every escaping path of the preimage.
    let strings: [(&str, &str, &str); 6] = [
        ("non-ascii-job-id", "job_id", "jöb-ü-€-7a1f"),
        (
            "control-characters-in-id",
            "id",
            "r\u{0}\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f}-0",
        ),
        ("u007f-in-tool", "tool", "price\u{7f}lookup"),
        ("non-bmp-in-tool", "tool", "price_lookup_😀_𝄞"),
        ("quote-backslash-slash-in-id", "id", "r\"q\\b/s"),
        (
            "mixed-unicode-everywhere",
            "all",
            "x\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}",
        ),
    ];
    for (name, member, value) in strings {
        let job = if member == "job_id" || member == "all" {
            value.to_string()
        } else {
            JOB.to_string()
        };
        let specs = specs_with(3, |s| {
            if member == "id" || member == "all" {
                s.id = format!("{value}-{}", s.id);
            }
            if member == "tool" || member == "all" {
                s.tool = value.to_string();
            }
        });
        f.vector(name)
            .revisions(FROM_07)
            .describe(&format!(
                "{member} contains {value:?}. The preimage escapes it as the kit does (every character \
                 outside U+0020-U+007E, U+007F included, as lowercase \\uXXXX, surrogate pairs above \
                 the BMP); digests computed with raw UTF-8 or RFC 8785 escaping do not match."
            ))
            .timeline(&build_timeline(&job, &specs, Revision::R09, CloseStyle::LastOnly))
            .exercises(&[Rule::Aer1TlLink])
            .valid()
            .push();
    }

    let base = example(5);
    let text = crate::builder::values_json(&to_values(&base));
    let source = f.id_of("example-5");
    f.vector("seq-written-as-float")
        .revisions(FROM_07)
        .describe(
            "Every seq is written with a fraction (1.0, 2.0, ...). The kit accepts integral numbers \
             and digests them as integers (1.0 is written 1 in the preimage), so the chain verifies.",
        )
        .timeline_text(&seq_as_float(&text, 5))
        .exercises(&[Rule::Aer1TlSeqType, Rule::Aer1TlSeq])
        .valid()
        .derived_from(&source, "every seq N written as N.0")
        .push();

    let explicit = build_timeline(
        JOB,
        &super::common_specs(5),
        Revision::R09,
        CloseStyle::Explicit,
    );
    f.vector("close-false-explicit")
        .revisions(FROM_07)
        .describe(
            "Every entry but the last carries close: false explicitly. Absent close digests as false, \
             so this chain has the same links as one without the member, and verifies.",
        )
        .timeline(&explicit)
        .exercises(&[Rule::Aer1TlCloseType, Rule::Aer1TlCloseEarly, Rule::Aer1TlCloseLast])
        .valid()
        .push();

    let mut extra = to_values(&example(3));
    for (i, e) in extra.iter_mut().enumerate() {
        e["x_annotation"] = serde_json::json!({"note": "extra members are not bound", "i": i});
    }
    f.vector("extra-members")
        .revisions(FROM_07)
        .describe(
            "Entries carry an extra member the draft does not define. Extra members are not part of \
             the preimage and do not change the meaning of the entry; the chain verifies.",
        )
        .timeline_values(&extra)
        .exercises(&[Rule::Aer1TlMembers, Rule::Aer1TlLink])
        .valid()
        .push();
}

/// Entry specs of the example, changed by `edit`.
fn specs_with(n: usize, edit: impl Fn(&mut EntrySpec)) -> Vec<EntrySpec> {
    let mut specs = super::common_specs(n);
    for s in &mut specs {
        edit(s);
    }
    specs
}

/// Rewrites `"seq":N,` as `"seq":N.0,` for N in 1..=n.
fn seq_as_float(text: &str, n: usize) -> String {
    let mut out = text.to_string();
    for i in 1..=n {
        out = out.replacen(&format!("\"seq\":{i},"), &format!("\"seq\":{i}.0,"), 1);
    }
    out
}
