//! The AER-1 verifier mutants: the reference verifier with findings of one rule dropped, a
//! chain linked under a wrong construction (or accepted under either of two), or a wrong reading
//! of a receipt tier, a workflow's steps or a timeline's `seq`. Without a defect (`None`) each
//! operation is the reference's.

use std::fs::File;
use std::io;

use agentconf_aer1::digest::{sha256, Hash32};
use agentconf_aer1::hex;
use agentconf_aer1::receipt::{verify_receipt_reader, Tier};
use agentconf_aer1::timeline::{
    seq_digits, verify_timeline, verify_timeline_observed, TimelineOptions,
    DEFAULT_MAX_DOCUMENT_BYTES,
};
use agentconf_aer1::workflow::verify_workflow_reader;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_json::split::{ArraySplitter, Piece, SplitError};
use agentconf_json::{Node, Num};
use agentconf_reference::dispatch::{Answer, Judgement};
use agentconf_rules::Rule;

use crate::preimage::{rewrite_preimage, Rewrite};
use crate::{write_out, Outcome};

/// One deliberate defect of a verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verifier {
    TrustsStoredLinks,
    IgnoresClose,
    RawUtf8Preimage,
    RawU007f,
    UppercaseEscapes,
    Accepts06AsCurrent,
    Applies07RulesUnder06,
    AcceptsRawUtf8Too,
    CommitmentCountOnly,
    IgnoresCommitmentJob,
    RejectsSeqFloat,
    IgnoresSeqContiguity,
    IgnoresGenesis,
    IgnoresMixedJob,
    AcceptsDuplicateMembers,
    FirstFindingOnly,
    StrictTierAsCore,
    SkipsAnchors,
    TrustsReceiptHash,
    WorkflowIgnoresDuplicates,
    WorkflowIgnoresSeq,
    WorkflowSortsSteps,
}

/// Name, mutant, and what it gets wrong.
pub const MUTANTS: &[(&str, Verifier, &str)] = &[
    (
        "trusts-stored-links",
        Verifier::TrustsStoredLinks,
        "does not recompute links: any prev_digest after the first entry is accepted",
    ),
    (
        "ignores-close",
        Verifier::IgnoresClose,
        "skips every close rule (type, early close, last entry not closed)",
    ),
    (
        "raw-utf8-preimage",
        Verifier::RawUtf8Preimage,
        "writes non-ASCII characters and U+007F raw in the preimage (JCS-like), not as \\u escapes",
    ),
    (
        "raw-u007f",
        Verifier::RawU007f,
        "writes U+007F raw in the preimage (the draft text's reading, not the kit's)",
    ),
    (
        "uppercase-escapes",
        Verifier::UppercaseEscapes,
        "writes \\u escapes in the preimage with uppercase hex digits",
    ),
    (
        "accepts-06-as-current",
        Verifier::Accepts06AsCurrent,
        "under revision 07-09, accepts a chain whose links hold under either construction",
    ),
    (
        "applies-07-rules-under-06",
        Verifier::Applies07RulesUnder06,
        "under revision 06, also applies the member, seq, one-job and close-position rules that \
         revision 07 added (the suite's own mistake before issue 10)",
    ),
    (
        "accepts-raw-utf8-too",
        Verifier::AcceptsRawUtf8Too,
        "accepts a chain whose links hold under the kit's escaping or under raw UTF-8 (JCS-like)",
    ),
    (
        "commitment-count-only",
        Verifier::CommitmentCountOnly,
        "with a commitment, checks entry_count and job_id but not final_entry_digest",
    ),
    (
        "ignores-commitment-job",
        Verifier::IgnoresCommitmentJob,
        "with a commitment, does not compare the entries' job_id with the commitment's",
    ),
    (
        "rejects-seq-float",
        Verifier::RejectsSeqFloat,
        "treats a seq written with a fraction or exponent (1.0) as not an integer",
    ),
    (
        "ignores-seq-contiguity",
        Verifier::IgnoresSeqContiguity,
        "does not check that seq counts 1, 2, 3, ...",
    ),
    (
        "ignores-genesis",
        Verifier::IgnoresGenesis,
        "does not check the first entry's prev_digest against the genesis value",
    ),
    (
        "ignores-mixed-job",
        Verifier::IgnoresMixedJob,
        "does not check that every entry has the first entry's job_id",
    ),
    (
        "accepts-duplicate-members",
        Verifier::AcceptsDuplicateMembers,
        "accepts duplicate member names (last value wins) in AER-1 documents",
    ),
    (
        "first-finding-only",
        Verifier::FirstFindingOnly,
        "stops at the first failure: the verdict is right, only one rule is reported",
    ),
    (
        "strict-tier-as-core",
        Verifier::StrictTierAsCore,
        "checks receipt ids under the core tier when the strict (or anchored) tier is asked for",
    ),
    (
        "skips-anchors",
        Verifier::SkipsAnchors,
        "treats the anchored receipt tier as strict: never checks the anchor object",
    ),
    (
        "trusts-receipt-hash",
        Verifier::TrustsReceiptHash,
        "does not compare a receipt's output_hash with the hash of its decoded bytes",
    ),
    (
        "workflow-ignores-duplicates",
        Verifier::WorkflowIgnoresDuplicates,
        "accepts a workflow that lists the same step receipt twice",
    ),
    (
        "workflow-ignores-seq",
        Verifier::WorkflowIgnoresSeq,
        "accepts any step seq: neither its type nor 1..n in document order is checked",
    ),
    (
        "workflow-sorts-steps",
        Verifier::WorkflowSortsSteps,
        "sorts the steps by seq before checking seq and computing the root, so swapped steps pass",
    ),
];

impl Verifier {
    /// Findings of these rules are dropped from the reference's report.
    fn dropped_rules(self) -> &'static [Rule] {
        match self {
            Verifier::TrustsStoredLinks => &[Rule::Aer1TlLink],
            Verifier::IgnoresClose => &[
                Rule::Aer1TlCloseType,
                Rule::Aer1TlCloseEarly,
                Rule::Aer1TlCloseLast,
            ],
            Verifier::CommitmentCountOnly => &[Rule::Aer1CmFinal],
            Verifier::IgnoresCommitmentJob => &[Rule::Aer1CmJob],
            Verifier::IgnoresSeqContiguity => &[Rule::Aer1TlSeq],
            Verifier::IgnoresGenesis => &[Rule::Aer1TlGenesis],
            Verifier::IgnoresMixedJob => &[Rule::Aer1TlJob],
            Verifier::AcceptsDuplicateMembers => &[Rule::Aer1JsonDuplicate],
            // The strict checks run only on ids the core tier accepts: dropping their findings is
            // checking the id under the core tier.
            Verifier::StrictTierAsCore => &[Rule::Aer1RcIdStrict],
            Verifier::TrustsReceiptHash => &[Rule::Aer1RcHashMatch],
            Verifier::WorkflowIgnoresDuplicates => &[Rule::Aer1WfDuplicate],
            Verifier::WorkflowIgnoresSeq => &[Rule::Aer1WfSeq, Rule::Aer1WfSeqType],
            _ => &[],
        }
    }
}

/// The findings `m` drops (none without a defect).
fn dropped_rules(m: Option<Verifier>) -> &'static [Rule] {
    m.map_or(&[], Verifier::dropped_rules)
}

fn open(path: &str) -> Result<File, String> {
    agentconf_reference::dispatch::open_file(path)
}

fn read_error(path: &str, e: &io::Error) -> String {
    format!("cannot read {path}: {e}")
}
// ------------------------------------------------------------------------------------------------
// AER-1

pub fn receipt(m: Option<Verifier>, path: &str, tier: &str) -> Result<Outcome, String> {
    let tier = match Tier::parse(tier) {
        Some(Tier::Anchored) if m == Some(Verifier::SkipsAnchors) => Tier::Strict,
        Some(tier) => tier,
        None => return Ok(Outcome::Unsupported),
    };
    let r = verify_receipt_reader(open(path)?, tier, DEFAULT_MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(path, &e))?;
    result(m, r.failures, 0)
}

pub fn workflow(m: Option<Verifier>, path: &str) -> Result<Outcome, String> {
    let r = verify_workflow_reader(open(path)?, DEFAULT_MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(path, &e))?;
    let mut failures = r.failures;
    if m == Some(Verifier::WorkflowSortsSteps) {
        // Judged on the steps sorted by seq: the seq check sees only gaps and repeats, and the
        // root (which the reference leaves unjudged when seq is broken) is taken over the
        // sorted ids, so a swap of whole steps passes.
        if let Some((mut steps, stored_root)) = sorted_view(path)? {
            steps.sort_by_key(|(seq, _)| *seq);
            let seq_broken = failures.iter().any(|f| f.rule == Rule::Aer1WfSeq);
            failures.retain(|f| f.rule != Rule::Aer1WfSeq);
            let sorted = sorted_seq_findings(steps.iter().map(|(s, _)| *s).collect());
            if seq_broken && sorted.is_empty() {
                let root = agentconf_aer1::hex::lower(&agentconf_aer1::digest::merkle_root(
                    steps.iter().map(|(_, id)| id.as_str()),
                ));
                if stored_root.as_deref().is_some_and(|s| s != root) {
                    failures.push(Finding {
                        rule: Rule::Aer1WfRoot,
                        entry: None,
                        member: Some("merkle_root".into()),
                        message: format!(
                            "merkle_root does not match the sorted steps' root {root} (mutant)"
                        ),
                    });
                }
            }
            failures.extend(sorted);
        }
    }
    result(m, failures, r.failures_omitted)
}

/// Every step's seq (as the reference reads it) and receipt id, when every step has both, with
/// the stored merkle_root.
type SortedView = (Vec<(i128, String)>, Option<String>);

fn sorted_view(path: &str) -> Result<Option<SortedView>, String> {
    let bytes = match agentconf_json::read_limited(open(path)?, DEFAULT_MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(path, &e))?
    {
        Ok(b) => b,
        Err(_) => return Ok(None),
    };
    let Ok(parsed) = agentconf_json::as_text(&bytes).and_then(|t| agentconf_json::parse(t, &[]))
    else {
        return Ok(None);
    };
    let Some(doc) = parsed.root.as_object() else {
        return Ok(None);
    };
    let Some(Node::Array(steps)) = doc.get("steps") else {
        return Ok(None);
    };
    let stored_root = doc
        .get("merkle_root")
        .and_then(|r| r.as_str())
        .map(str::to_string);
    let steps: Option<Vec<(i128, String)>> = steps
        .iter()
        .map(|step| {
            let step = step.as_object()?;
            let seq = seq_digits(step.get("seq")?).ok()?.parse::<i128>().ok()?;
            Some((seq, step.get("receipt_id")?.as_str()?.to_string()))
        })
        .collect();
    Ok(steps.map(|s| (s, stored_root)))
}

/// The seq check on the values sorted (the defect): only gaps and repeats remain.
fn sorted_seq_findings(mut seqs: Vec<i128>) -> Vec<Finding> {
    seqs.sort_unstable();
    seqs.iter()
        .enumerate()
        .filter(|(i, seq)| **seq != *i as i128 + 1)
        .map(|(i, seq)| Finding {
            rule: Rule::Aer1WfSeq,
            entry: Some(i as u64),
            member: Some(format!("steps[{i}].seq")),
            message: format!(
                "step seq values are not 1..n in order (index {i} carries seq {seq}, after \
                 sorting: mutant)"
            ),
        })
        .collect()
}

pub fn timeline(
    m: Option<Verifier>,
    revision: &str,
    timeline: &str,
    commitment: Option<&str>,
) -> Result<Outcome, String> {
    // Which construction and commitment a call means: exactly as the reference reads it.
    let Some(options) = agentconf_reference::dispatch::timeline_options(
        revision,
        commitment,
        &agentconf_reference::dispatch::Files,
    )?
    else {
        return Ok(Outcome::Unsupported);
    };
    let revision = options.revision;
    let style = match m {
        Some(Verifier::RawUtf8Preimage) => Some(Rewrite::RawNonAscii),
        Some(Verifier::RawU007f) => Some(Rewrite::RawDel),
        Some(Verifier::UppercaseEscapes) => Some(Rewrite::UppercaseHex),
        _ => None,
    };
    if let (Some(style), Revision::R09) = (style, revision) {
        return rewritten_preimage(m, timeline, &options, style);
    }
    if revision == Revision::R09 {
        match m {
            Some(Verifier::Accepts06AsCurrent) => {
                return either_construction(m, timeline, &options, Fallback::Revision06)
            }
            Some(Verifier::AcceptsRawUtf8Too) => {
                return either_construction(m, timeline, &options, Fallback::RawUtf8)
            }
            _ => {}
        }
    }
    let r = verify_timeline(open(timeline)?, &options).map_err(|e| read_error(timeline, &e))?;
    let mut failures = r.failures;
    if m == Some(Verifier::Applies07RulesUnder06) && revision == Revision::R06 {
        // The 07-09 check's findings on the rules revision 07 added, reported under 06 as well.
        let added_in_07 = [
            Rule::Aer1TlMembers,
            Rule::Aer1TlSeqType,
            Rule::Aer1TlSeq,
            Rule::Aer1TlJob,
            Rule::Aer1TlCloseEarly,
            Rule::Aer1TlProvenance,
            Rule::Aer1TlUtf8,
        ];
        let current = TimelineOptions {
            revision: Revision::R09,
            max_entry_bytes: options.max_entry_bytes,
            ..TimelineOptions::default()
        };
        let r09 =
            verify_timeline(open(timeline)?, &current).map_err(|e| read_error(timeline, &e))?;
        failures.extend(
            r09.failures
                .into_iter()
                .filter(|f| added_in_07.contains(&f.rule)),
        );
    }
    if m == Some(Verifier::RejectsSeqFloat) {
        for (index, entry) in read_entries(timeline, options.max_entry_bytes)?
            .iter()
            .enumerate()
        {
            if let Some(seq) = entry
                .seq_text
                .as_deref()
                .filter(|t| t.contains(['.', 'e', 'E']))
            {
                failures.push(Finding {
                    rule: Rule::Aer1TlSeqType,
                    entry: Some(index as u64),
                    member: Some("seq".into()),
                    message: format!("seq {seq} is written with a fraction or exponent (mutant)"),
                });
            }
        }
    }
    result(m, failures, r.failures_omitted)
}
/// What the mutants need of one entry, read as the reference reads it.
#[derive(Clone, Debug, Default)]
struct EntryFacts {
    prev_digest: Option<String>,
    /// The exact text of a numeric `seq`.
    seq_text: Option<String>,
}

/// Reads the entries of a timeline (stopping where the array cannot be read further).
fn read_entries(path: &str, max_entry_bytes: usize) -> Result<Vec<EntryFacts>, String> {
    let mut splitter = ArraySplitter::new(open(path)?, max_entry_bytes);
    let mut entries = Vec::new();
    loop {
        match splitter.next_piece() {
            Ok(Piece::Element { bytes, .. }) => entries.push(entry_facts(bytes)),
            Ok(Piece::End) => break,
            Err(SplitError::Io(e)) => return Err(read_error(path, &e)),
            Err(_) => break,
        }
    }
    Ok(entries)
}

fn entry_facts(bytes: &[u8]) -> EntryFacts {
    let Ok(text) = agentconf_json::as_text(bytes) else {
        return EntryFacts::default();
    };
    let Ok(parsed) = agentconf_json::parse_nested(text, &["seq"], 1) else {
        return EntryFacts::default();
    };
    let Node::Object(entry) = &parsed.root else {
        return EntryFacts::default();
    };
    EntryFacts {
        prev_digest: entry
            .get("prev_digest")
            .and_then(Node::as_str)
            .map(str::to_string),
        seq_text: match entry.get("seq") {
            Some(Node::Number(Num::Text(t))) => Some(t.to_string()),
            _ => None,
        },
    }
}

fn link_finding(index: usize, found: &str, expected: &Hash32) -> Finding {
    Finding {
        rule: Rule::Aer1TlLink,
        entry: Some(index as u64),
        member: Some("prev_digest".into()),
        message: format!(
            "prev_digest {} does not match the digest of entry {} ({}) (mutant construction)",
            agentconf_aer1::text::clip(found, 80),
            index - 1,
            hex::lower(expected)
        ),
    }
}

fn final_finding(committed: &str, computed: &Hash32) -> Finding {
    Finding {
        rule: Rule::Aer1CmFinal,
        entry: None,
        member: Some("commitment.final_entry_digest".into()),
        message: format!(
            "the last entry digests to {}, the commitment publishes {committed} (mutant construction)",
            hex::lower(computed)
        ),
    }
}

/// Replaces the reference's link and final-digest judgements with ones over `digests` (one per
/// entry, `None` where the entry could not be digested).
fn relinked(
    mut failures: Vec<Finding>,
    entries: &[EntryFacts],
    digests: &[Option<Hash32>],
    options: &TimelineOptions,
    final_was_compared: bool,
) -> Vec<Finding> {
    failures.retain(|f| f.rule != Rule::Aer1TlLink);
    for (index, entry) in entries.iter().enumerate().skip(1) {
        if let (Some(prev), Some(Some(d))) = (&entry.prev_digest, digests.get(index - 1)) {
            if !hex::eq_lower(prev, d) {
                failures.push(link_finding(index, prev, d));
            }
        }
    }
    if let (Some(c), true) = (&options.commitment, final_was_compared) {
        failures.retain(|f| f.rule != Rule::Aer1CmFinal);
        if let Some(Some(last)) = digests.last() {
            if !hex::eq_lower(&c.final_entry_digest, last) {
                failures.push(final_finding(&c.final_entry_digest, last));
            }
        }
    }
    failures
}

/// The chain checked with entry digests over a rewritten preimage.
fn rewritten_preimage(
    m: Option<Verifier>,
    timeline: &str,
    options: &TimelineOptions,
    style: Rewrite,
) -> Result<Outcome, String> {
    let mut digests: Vec<Option<Hash32>> = Vec::new();
    let r = verify_timeline_observed(open(timeline)?, options, &mut |e| {
        let index = e.index as usize;
        if digests.len() <= index {
            digests.resize(index + 1, None);
        }
        digests[index] = e.preimage.map(|p| sha256(&rewrite_preimage(p, style)));
    })
    .map_err(|e| read_error(timeline, &e))?;
    let entries = read_entries(timeline, options.max_entry_bytes)?;
    // The reference compared the final digest only when the chain was read whole and its last
    // entry digested; it then reports the digest.
    let compared = r.final_entry_digest.is_some();
    let failures = relinked(r.failures, &entries, &digests, options, compared);
    result(m, failures, r.failures_omitted)
}

/// The second construction a lenient verifier falls back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fallback {
    /// Revision 06: the digest of the bytes alone.
    Revision06,
    /// The current preimage with raw UTF-8 strings.
    RawUtf8,
}

/// Revision 07-09, falling back to a second construction when every link holds under it.
fn either_construction(
    m: Option<Verifier>,
    timeline: &str,
    options: &TimelineOptions,
    fallback: Fallback,
) -> Result<Outcome, String> {
    let mut alternative: Vec<Option<Hash32>> = Vec::new();
    let r = verify_timeline_observed(open(timeline)?, options, &mut |e| {
        if fallback == Fallback::RawUtf8 {
            alternative.push(
                e.preimage
                    .map(|p| sha256(&rewrite_preimage(p, Rewrite::RawNonAscii))),
            );
        }
    })
    .map_err(|e| read_error(timeline, &e))?;
    if !r.failures.iter().any(|f| f.rule == Rule::Aer1TlLink) {
        return result(m, r.failures, r.failures_omitted);
    }
    if fallback == Fallback::Revision06 {
        let options_06 = TimelineOptions {
            revision: Revision::R06,
            max_entry_bytes: options.max_entry_bytes,
            ..TimelineOptions::default()
        };
        verify_timeline_observed(open(timeline)?, &options_06, &mut |e| {
            alternative.push(e.digest);
        })
        .map_err(|e| read_error(timeline, &e))?;
    }
    // "It verifies under one of the constructions": when every link holds under the second one,
    // the links and the final digest are judged under it.
    let entries = read_entries(timeline, options.max_entry_bytes)?;
    let compared = r.final_entry_digest.is_some();
    let failures = relinked(
        r.failures.clone(),
        &entries,
        &alternative,
        options,
        compared,
    );
    if failures.iter().any(|f| f.rule == Rule::Aer1TlLink) {
        return result(m, r.failures, r.failures_omitted);
    }
    result(m, failures, r.failures_omitted)
}

/// Applies the findings-level defects, prints the result object and returns the verdict.
fn result(
    m: Option<Verifier>,
    mut failures: Vec<Finding>,
    omitted: u64,
) -> Result<Outcome, String> {
    let dropped = dropped_rules(m);
    failures.retain(|f| !dropped.contains(&f.rule));
    if m == Some(Verifier::FirstFindingOnly) {
        failures.truncate(1);
    }
    let omitted = if failures.is_empty() && !dropped.is_empty() {
        0
    } else {
        omitted
    };
    let verdict = agentconf_aer1::finding::verdict_of(&failures, omitted);
    let outcome = match verdict {
        Verdict::Valid => Outcome::Valid,
        Verdict::Invalid => Outcome::Invalid,
    };
    // The result object exactly as the reference writes it.
    let answer = Answer::Judged(Judgement {
        verdict,
        failures,
        historical: false,
    });
    let object = serde_json::to_string(&answer.result_object()).map_err(|e| e.to_string())?;
    write_out(&(object + "\n"))?;
    Ok(outcome)
}
