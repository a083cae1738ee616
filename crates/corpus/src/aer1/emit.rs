//! `aer1/emit-timeline/*`: producers under test. Each vector is a `STEPS` document (the job and
//! each step's receipt id, tool, provenance class and exact output bytes); the implementation
//! writes the timeline (`IMPL aer1-emit-timeline STEPS`), and the harness compares it with the
//! timeline the draft's construction gives, member by member and link by link (AER-1 revision 09,
//! section 7; the project's fact sheet, section 2). The answer kept in the vector is the digest of
//! the last entry, which binds every entry before it.
//!
//! Families: `escaping` (every character class the preimage escapes differently from common JSON
//! writers — quotes, backslashes, controls, U+007F, U+2028, non-BMP — in each string member),
//! `shape` (one step, empty and binary outputs, ids that look like numbers, each provenance class)
//! and `scale` (a large output, 10,000 steps).
//!
//! AER-1 (draft-zambo-aer1) is an individual Internet-Draft, not an RFC.

use agentconf_aer1::digest::Revision;
use agentconf_aer1::hex;
use agentconf_aer1::producer::{
    build_timeline, digest_entry, timeline_json, CloseStyle, Entry, EntrySpec,
};
use agentconf_contract::emit::{EmitStep, TimelineSteps};
use agentconf_contract::vector::{Suite, Vector};
use agentconf_rules::Rule;

use crate::builder::{Family, Span, FROM_09};

/// Emitters write the current construction; the revision is not an argument.
const REVISIONS: Span = FROM_09;
const JOB: &str = "job-7a1f";
const LOGGED: &str = "LOGGED BY AGENT";

pub fn generate(out: &mut Vec<Vector>) {
    escaping(&mut Family::new(out, Suite::Aer1EmitTimeline, "escaping"));
    shape(&mut Family::new(out, Suite::Aer1EmitTimeline, "shape"));
    scale(&mut Family::new(out, Suite::Aer1EmitTimeline, "scale"));
    commitments(&mut Family::new(out, Suite::Aer1EmitCommitment, "valid"));
    refusals(&mut Family::new(out, Suite::Aer1EmitCommitment, "refuse"));
}

/// `aer1/emit-commitment/valid/*`: a timeline that verifies under revision 09 and an instant;
/// the implementation writes the commitment artifact (AER-1 revision 09; the fact sheet, section
/// 4): the first entry's `job_id`, the digest of the last entry, the entry count as a JSON
/// integer, and the instant as given.
fn commitments(f: &mut Family<'_>) {
    let cases: [(&str, &str, &str, Vec<EmitStep>, &str); 4] = [
        (
            "published-example",
            "The draft's published five-entry chain `v07-valid-5` and its published commitment \
             instant: the artifact is the published one, final digest 79b1e2e2…",
            JOB,
            example_steps(5),
            "2026-10-01T18:30:00Z",
        ),
        (
            "one-entry",
            "A timeline of one closed entry: entry_count 1, and the final digest is the digest of \
             the genesis entry.",
            JOB,
            vec![step("r-only", "t", LOGGED, b"{}")],
            "2026-10-01T18:30:00Z",
        ),
        (
            "non-ascii-job-and-tool",
            "The job id and a tool hold non-ASCII characters and U+007F: job_id is copied as is \
             (any JSON escaping of the output), and the final digest follows the draft's escaping \
             of the preimage.",
            "job-\u{e9}",
            three(|i, s| {
                if i == 2 {
                    s.tool = "t\u{7f}\u{1f600}".into();
                }
            }),
            "2026-10-01T18:30:00Z",
        ),
        (
            "offset-and-fraction-instant",
            "The instant has a fraction of a second and an offset (`2026-10-01T20:30:00.250+02:00`): \
             published_at is written exactly as given, not normalised to UTC.",
            JOB,
            three(|_, _| {}),
            "2026-10-01T20:30:00.250+02:00",
        ),
    ];
    for (name, describe, job, steps, instant) in cases {
        let (entries, last) = timeline_of(job, &steps);
        f.vector(name)
            .revisions(REVISIONS)
            .describe(describe)
            .input(
                "timeline",
                "timeline.json",
                timeline_json(&entries).as_bytes(),
            )
            .published_at(instant)
            .valid()
            .exercises(&[
                Rule::Aer1CmMembers,
                Rule::Aer1CmJob,
                Rule::Aer1CmCount,
                Rule::Aer1CmCountFormat,
                Rule::Aer1CmFinal,
                Rule::Aer1CmPublishedAt,
            ])
            .final_digest(&last)
            .push();
    }
}

/// A refusal vector: its name, description, the chain rule it breaks, the mutation in words and
/// the change to the published chain's entries.
type Breakage = (
    &'static str,
    &'static str,
    Rule,
    &'static str,
    fn(&mut Vec<Entry>),
);

/// `aer1/emit-commitment/refuse/*`: timelines that do not verify, each derived from the
/// published example.
fn refusals(f: &mut Family<'_>) {
    // Timelines that do not verify: no commitment may be made of them (AER-1 revision 09, the
    // commitment lives outside a chain that verifies; `agentconf commit` prints none). The
    // producer must refuse (exit 1); writing one is a false acceptance.
    let source = format!(
        "{}/valid/published-example",
        Suite::Aer1EmitCommitment.id_prefix()
    );
    let published = example_steps(5);
    let broken: [Breakage; 2] = [
        (
            "tampered-entry",
            "The published chain with entry 2's tool changed and nothing re-linked: entry 3's \
             prev_digest no longer matches. A commitment would vouch for a chain that does not \
             verify: the producer must refuse (exit 1).",
            Rule::Aer1TlLink,
            "entry 2's tool changed to price_lookup_v2; links left as they were",
            |e| e[2].tool = "price_lookup_v2".into(),
        ),
        (
            "unclosed",
            "The published chain with its last entry's close: true removed and the links left \
             valid: the chain is not closed, so it does not verify and no commitment may be made.",
            Rule::Aer1TlCloseLast,
            "close removed from the last entry (no link depends on it)",
            |e| {
                if let Some(last) = e.last_mut() {
                    last.close = None;
                }
            },
        ),
    ];
    for (name, describe, rule, mutation, change) in broken {
        let (mut entries, _) = timeline_of(JOB, &published);
        change(&mut entries);
        f.vector(name)
            .revisions(REVISIONS)
            .describe(describe)
            .input(
                "timeline",
                "timeline.json",
                timeline_json(&entries).as_bytes(),
            )
            .published_at("2026-10-01T18:30:00Z")
            .invalid(&[rule])
            .exercises(&[Rule::Aer1CmFinal])
            .derived_from(&source, mutation)
            .push();
    }
}

/// The timeline the reference producer writes for `steps` of `job`, and its last entry's digest.
fn timeline_of(job: &str, steps: &[EmitStep]) -> (Vec<Entry>, String) {
    let specs: Vec<EntrySpec> = steps
        .iter()
        .map(|s| EntrySpec {
            bytes: s.output().unwrap_or_default(),
            id: s.id.clone(),
            tool: s.tool.clone(),
            provenance_class: s.provenance_class.clone(),
        })
        .collect();
    let entries = build_timeline(job, &specs, Revision::R09, CloseStyle::LastOnly);
    let last = entries
        .last()
        .map(|e| hex::lower(&digest_entry(e, Revision::R09, &mut Vec::new())))
        .unwrap_or_default();
    (entries, last)
}

/// A step with text output.
fn step(id: &str, tool: &str, class: &str, output: &[u8]) -> EmitStep {
    EmitStep::new(id, tool, class, output)
}

/// `n` steps shaped like the draft's published chain `v07-valid-5` (job `job-7a1f`, ids
/// `r-job-7a1f-i`, tool `price_lookup`, outputs `{"job":…,"entry":i,"tag":"r"}`).
fn example_steps(n: usize) -> Vec<EmitStep> {
    (0..n)
        .map(|i| {
            step(
                &format!("r-{JOB}-{i}"),
                "price_lookup",
                LOGGED,
                format!("{{\"job\":\"{JOB}\",\"entry\":{i},\"tag\":\"r\"}}").as_bytes(),
            )
        })
        .collect()
}

/// Three steps of the example shape, the `i`-th changed by `change`.
fn three(change: impl Fn(usize, &mut EmitStep)) -> Vec<EmitStep> {
    let mut steps = example_steps(3);
    for (i, s) in steps.iter_mut().enumerate() {
        change(i, s);
    }
    steps
}

/// Pushes the vector `name`: `steps` of `job`, the rules it exercises beyond the links.
fn push(
    f: &mut Family<'_>,
    name: &str,
    describe: &str,
    job: &str,
    steps: Vec<EmitStep>,
    rules: &[Rule],
) {
    let document = TimelineSteps {
        job_id: job.to_string(),
        steps,
    };
    let (_, last) = timeline_of(job, &document.steps);
    // Serialising a struct of strings cannot fail. Long documents compact, to keep the corpus
    // small; short ones one member a line, to be read.
    let text = if document.steps.len() > 100 {
        serde_json::to_string(&document).unwrap_or_default()
    } else {
        serde_json::to_string_pretty(&document).unwrap_or_default()
    };
    let mut b = f
        .vector(name)
        .revisions(REVISIONS)
        .describe(describe)
        .input("steps", "steps.json", text.as_bytes())
        .valid()
        .exercises(&[Rule::Aer1TlLink, Rule::Aer1TlGenesis, Rule::Aer1TlSeq])
        .exercises(&[Rule::Aer1TlCloseLast])
        .exercises(rules);
    b = b.final_digest(&last);
    b.push();
}

fn escaping(f: &mut Family<'_>) {
    let members = Rule::Aer1TlMembers;
    push(
        f,
        "quote-and-backslash-in-tool",
        "The second step's tool is `say \"hi\" \\ bye`: the preimage writes \\\" and \\\\, as every \
         JSON writer does.",
        JOB,
        three(|i, s| {
            if i == 1 {
                s.tool = "say \"hi\" \\ bye".into();
            }
        }),
        &[members],
    );
    push(
        f,
        "control-characters-in-id",
        "The second step's receipt id holds U+0001, backspace, tab, newline, form feed, carriage \
         return and U+001F: the preimage writes \\b \\t \\n \\f \\r and \\u0001, \\u001f (lowercase \
         hex).",
        JOB,
        three(|i, s| {
            if i == 1 {
                s.id = "r-\u{1}\u{8}\t\n\u{c}\r\u{1f}-1".into();
            }
        }),
        &[members],
    );
    push(
        f,
        "u007f-in-tool",
        "The first step's tool ends in U+007F (DEL): the draft's kit writes it \\u007f in the \
         preimage, where RFC 8785 and most writers leave it raw.",
        JOB,
        three(|i, s| {
            if i == 0 {
                s.tool = "price_lookup\u{7f}".into();
            }
        }),
        &[members],
    );
    push(
        f,
        "u2028-in-tool",
        "The first step's tool holds U+2028 and U+2029 (line and paragraph separators): written \
         \\u2028 and \\u2029.",
        JOB,
        three(|i, s| {
            if i == 0 {
                s.tool = "price\u{2028}lookup\u{2029}".into();
            }
        }),
        &[members],
    );
    push(
        f,
        "non-ascii-job-id",
        "The job id is `job-é-東京`: every non-ASCII character is written as a \\u escape with \
         lowercase hex in the preimage, never raw UTF-8.",
        "job-\u{e9}-\u{6771}\u{4eac}",
        three(|_, _| {}),
        &[Rule::Aer1TlJob],
    );
    push(
        f,
        "non-bmp-in-id-and-tool",
        "The second step's receipt id and tool carry characters above the BMP (U+1F600, U+10FFFF): \
         each is written as a surrogate pair, \\ud83d\\ude00 and \\udbff\\udfff.",
        JOB,
        three(|i, s| {
            if i == 1 {
                s.id = "r-\u{1f600}".into();
                s.tool = "tool-\u{10ffff}".into();
            }
        }),
        &[members],
    );
    push(
        f,
        "slash-and-ascii-punctuation",
        "The tool is `a/b<c>&d'e`: none of these is escaped in the preimage (the solidus is written \
         as is).",
        JOB,
        three(|i, s| {
            if i == 2 {
                s.tool = "a/b<c>&d'e".into();
            }
        }),
        &[members],
    );
}

fn shape(f: &mut Family<'_>) {
    push(
        f,
        "one-step",
        "A single step: its entry has the genesis prev_digest and is the last, so it carries close: \
         true.",
        JOB,
        vec![step("r-only", "price_lookup", LOGGED, b"{}")],
        &[],
    );
    push(
        f,
        "empty-output",
        "The second step's output is zero bytes: canonical_bytes is the empty string, and \
         output_hash the SHA-256 of nothing.",
        JOB,
        three(|i, s| {
            if i == 1 {
                s.output_base64 = String::new();
            }
        }),
        &[Rule::Aer1TlB64],
    );
    push(
        f,
        "utf8-output-of-every-width",
        "The outputs are UTF-8 text with characters of one to four bytes, a NUL, U+007F and a \
         byte order mark: canonical_bytes is their base64 and the output hash is over the bytes \
         exactly (nothing normalised, nothing escaped: the bytes are not JSON text in the \
         preimage, only their hash is).",
        JOB,
        vec![
            EmitStep::new(
                "r-0",
                "fetch",
                LOGGED,
                "a\u{e9}\u{6771}\u{1f600}".as_bytes(),
            ),
            EmitStep::new("r-1", "fetch", LOGGED, "\u{feff}\u{0}\u{7f}\r\n".as_bytes()),
        ],
        &[Rule::Aer1TlB64, Rule::Aer1TlUtf8],
    );
    push(
        f,
        "ids-that-look-like-numbers",
        "Receipt ids `1`, `2.0` and `1e3`, and job id `007`: they are strings, written quoted in \
         the preimage, never as numbers.",
        "007",
        vec![
            step("1", "t", LOGGED, b"a"),
            step("2.0", "t", LOGGED, b"b"),
            step("1e3", "t", LOGGED, b"c"),
        ],
        &[Rule::Aer1TlMembers],
    );
    push(
        f,
        "every-provenance-class",
        "One step per provenance class: `OBSERVED VIA GATEWAY`, `LOGGED BY AGENT`, and \
         `EXECUTED BY` a system name with digits, dots, underscores and hyphens.",
        JOB,
        vec![
            step("r-0", "t", "OBSERVED VIA GATEWAY", b"a"),
            step("r-1", "t", LOGGED, b"b"),
            step("r-2", "t", "EXECUTED BY SANDBOX-7.EU_WEST", b"c"),
        ],
        &[Rule::Aer1TlProvenance],
    );
}

fn scale(f: &mut Family<'_>) {
    push(
        f,
        "large-output",
        "One step whose output is 256 KiB of JSON text: its canonical_bytes is about 350 KB of \
         base64.",
        JOB,
        vec![step(
            "r-big",
            "dump",
            LOGGED,
            format!("[{}0]", "0,".repeat((1 << 17) - 1)).as_bytes(),
        )],
        &[],
    );
    push(
        f,
        "ten-thousand-steps",
        "10,000 steps: each entry's link is the digest of the one before, so one wrong digest \
         anywhere shows at the next entry.",
        JOB,
        (0..10_000)
            .map(|i| step(&format!("r-{i}"), "t", LOGGED, format!("{i}").as_bytes()))
            .collect(),
        &[],
    );
}
