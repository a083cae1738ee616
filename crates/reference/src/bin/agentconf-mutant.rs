//! `agentconf-mutant MUTANT OPERATION ARGS…`: deliberately wrong implementations, for the mutation
//! kill matrix (issue 5, item 6).
//!
//! Every mutant speaks the one-shot contract of `crates/contract/CONTRACT.md` exactly as the
//! reference's `agentconf impl` does (same operations, argument order, exit codes 0/1/89 and
//! result object), but carries one deliberate defect, selected by MUTANT. `none` is the reference
//! unchanged: the control, which must pass every vector. The harness's `kill_matrix` test runs the
//! corpus against each mutant and asserts that each one is caught, on the rule it breaks.
//!
//! `none` is not a copy: it is `agentconf_reference::command::run`, the entry `agentconf impl`
//! uses. The other mutants read their arguments with the contract's `Call::parse`, exit with the
//! contract's codes, and take the reference's reading of a call where they do not break it (the
//! timeline options from `dispatch::timeline_options`, files and session contexts as the
//! reference opens them).
//!
//! The mutants reuse the reference libraries for everything they do not break: AER-1 mutants run
//! the reference verifier and then drop findings, or recompute the chain links under a changed
//! construction (from the preimage the reference builds); GRP mutants run the reference
//! [`Receiver`] over an admission store with a changed key or atomicity, or a copy of its
//! pre-admission checks with one check left out. `agentconf-mutant --list` lists them.
//!
//! These are test fixtures. Nothing here is a way to verify anything.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentconf_aer1::digest::{sha256, Hash32};
use agentconf_aer1::hex;
use agentconf_aer1::receipt::{verify_receipt_reader, Tier};
use agentconf_aer1::timeline::{
    seq_digits, verify_timeline, verify_timeline_observed, TimelineOptions,
    DEFAULT_MAX_DOCUMENT_BYTES,
};
use agentconf_aer1::workflow::verify_workflow_reader;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_grp::admission::{
    Decision, Outcome as GrpOutcome, Receiver, RejectError, Revision as GrpRevision, ALE_064,
    MAX_EVENT_BYTES,
};
use agentconf_grp::event::{parse_event, ChangeEvent, Identity, PublisherType};
use agentconf_grp::jws::verify_event_signature;
use agentconf_grp::lines::{read_event_line, EventLine};
use agentconf_grp::session::{instant, SessionContext};
use agentconf_grp::store::{Admission, AdmissionStore, BoxedStore, MemoryStore, StoreError};
use agentconf_json::split::{ArraySplitter, Piece, SplitError};
use agentconf_json::{Node, Num};
use agentconf_rules::Rule;

use agentconf_contract::call::{Call, Parsed};
use agentconf_contract::exit::{
    EXIT_ACCEPT as EXIT_VALID, EXIT_REJECT as EXIT_INVALID, EXIT_UNSUPPORTED, EXIT_USAGE,
};
use agentconf_reference::dispatch::{Answer, Judgement};

/// One deliberate defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutant {
    None,
    // --- AER-1 timelines
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
    // --- AER-1, any operation
    AcceptsDuplicateMembers,
    FirstFindingOnly,
    // --- AER-1 receipts and workflows
    StrictTierAsCore,
    SkipsAnchors,
    TrustsReceiptHash,
    WorkflowIgnoresDuplicates,
    WorkflowIgnoresSeq,
    WorkflowSortsSteps,
    // --- AER-1 producers (the emit operations)
    EmitsRawUtf8,
    CommitsUnverified,
    CountOffByOne,
    ReserialisesPayload,
    UppercaseOutputHash,
    // --- GRP
    GrpNoDedup,
    GrpDedupEventIdOnly,
    GrpDedupAcrossSessions,
    GrpDedupBeforeSignature,
    GrpRecordsRejected,
    GrpMemoryClaimsDurable,
    GrpNonAtomicClaimsAtomic,
    GrpIgnoresSignature,
    GrpIgnoresNonce,
    GrpIgnoresWindow,
    GrpIgnoresRevocation,
    GrpIgnoresEventTypes,
    GrpCheckThenInsert,
    GrpAdmitBeforeInsert,
    GrpFlushAtExit,
    GrpIgnoresSignature01,
    GrpIgnoresNonce01,
    GrpIgnoresWindow01,
    GrpIgnoresRevocation01,
    GrpAlgNone01,
}

/// Name, mutant, and what it gets wrong.
const MUTANTS: &[(&str, Mutant, &str)] = &[
    (
        "none",
        Mutant::None,
        "the reference, unchanged (the control)",
    ),
    (
        "trusts-stored-links",
        Mutant::TrustsStoredLinks,
        "does not recompute links: any prev_digest after the first entry is accepted",
    ),
    (
        "ignores-close",
        Mutant::IgnoresClose,
        "skips every close rule (type, early close, last entry not closed)",
    ),
    (
        "raw-utf8-preimage",
        Mutant::RawUtf8Preimage,
        "writes non-ASCII characters and U+007F raw in the preimage (JCS-like), not as \\u escapes",
    ),
    (
        "raw-u007f",
        Mutant::RawU007f,
        "writes U+007F raw in the preimage (the draft text's reading, not the kit's)",
    ),
    (
        "uppercase-escapes",
        Mutant::UppercaseEscapes,
        "writes \\u escapes in the preimage with uppercase hex digits",
    ),
    (
        "accepts-06-as-current",
        Mutant::Accepts06AsCurrent,
        "under revision 07-09, accepts a chain whose links hold under either construction",
    ),
    (
        "applies-07-rules-under-06",
        Mutant::Applies07RulesUnder06,
        "under revision 06, also applies the member, seq, one-job and close-position rules that \
         revision 07 added (the suite's own mistake before issue 10)",
    ),
    (
        "accepts-raw-utf8-too",
        Mutant::AcceptsRawUtf8Too,
        "accepts a chain whose links hold under the kit's escaping or under raw UTF-8 (JCS-like)",
    ),
    (
        "commitment-count-only",
        Mutant::CommitmentCountOnly,
        "with a commitment, checks entry_count and job_id but not final_entry_digest",
    ),
    (
        "ignores-commitment-job",
        Mutant::IgnoresCommitmentJob,
        "with a commitment, does not compare the entries' job_id with the commitment's",
    ),
    (
        "rejects-seq-float",
        Mutant::RejectsSeqFloat,
        "treats a seq written with a fraction or exponent (1.0) as not an integer",
    ),
    (
        "ignores-seq-contiguity",
        Mutant::IgnoresSeqContiguity,
        "does not check that seq counts 1, 2, 3, ...",
    ),
    (
        "ignores-genesis",
        Mutant::IgnoresGenesis,
        "does not check the first entry's prev_digest against the genesis value",
    ),
    (
        "ignores-mixed-job",
        Mutant::IgnoresMixedJob,
        "does not check that every entry has the first entry's job_id",
    ),
    (
        "accepts-duplicate-members",
        Mutant::AcceptsDuplicateMembers,
        "accepts duplicate member names (last value wins) in AER-1 documents",
    ),
    (
        "first-finding-only",
        Mutant::FirstFindingOnly,
        "stops at the first failure: the verdict is right, only one rule is reported",
    ),
    (
        "strict-tier-as-core",
        Mutant::StrictTierAsCore,
        "checks receipt ids under the core tier when the strict (or anchored) tier is asked for",
    ),
    (
        "skips-anchors",
        Mutant::SkipsAnchors,
        "treats the anchored receipt tier as strict: never checks the anchor object",
    ),
    (
        "trusts-receipt-hash",
        Mutant::TrustsReceiptHash,
        "does not compare a receipt's output_hash with the hash of its decoded bytes",
    ),
    (
        "workflow-ignores-duplicates",
        Mutant::WorkflowIgnoresDuplicates,
        "accepts a workflow that lists the same step receipt twice",
    ),
    (
        "workflow-ignores-seq",
        Mutant::WorkflowIgnoresSeq,
        "accepts any step seq: neither its type nor 1..n in document order is checked",
    ),
    (
        "workflow-sorts-steps",
        Mutant::WorkflowSortsSteps,
        "sorts the steps by seq before checking seq and computing the root, so swapped steps pass",
    ),
    (
        "emits-raw-utf8",
        Mutant::EmitsRawUtf8,
        "a timeline producer that links entries with the preimage's non-ASCII written raw in UTF-8",
    ),
    (
        "commits-unverified",
        Mutant::CommitsUnverified,
        "a commitment producer that never verifies the timeline: it commits to a broken chain too",
    ),
    (
        "count-off-by-one",
        Mutant::CountOffByOne,
        "a commitment producer that writes entry_count one more than the timeline's entries \
         (every other member right)",
    ),
    (
        "reserialises-payload",
        Mutant::ReserialisesPayload,
        "a receipt producer that parses the payload as JSON and writes it again (and refuses text \
         that is not JSON)",
    ),
    (
        "uppercase-output-hash",
        Mutant::UppercaseOutputHash,
        "a receipt producer that writes output_hash in uppercase hex",
    ),
    (
        "grp-no-dedup",
        Mutant::GrpNoDedup,
        "GRP receiver without the duplicate check (revision 00 behaviour under 01)",
    ),
    (
        "grp-dedup-event-id-only",
        Mutant::GrpDedupEventIdOnly,
        "the duplicate key is event_id alone (publisher_id ignored)",
    ),
    (
        "grp-dedup-across-sessions",
        Mutant::GrpDedupAcrossSessions,
        "the admitted set is not per session: a new session inherits the old pairs",
    ),
    (
        "grp-dedup-before-signature",
        Mutant::GrpDedupBeforeSignature,
        "looks the pair up before the signature and nonce checks: a forged or wrong-session copy \
         of an admitted event is reported as duplicate_event_id",
    ),
    (
        "grp-records-rejected",
        Mutant::GrpRecordsRejected,
        "records every well-formed event's pair on arrival, before its checks: a rejected copy \
         blocks the genuine event",
    ),
    (
        "grp-memory-claims-durable",
        Mutant::GrpMemoryClaimsDurable,
        "keeps the admitted set in memory although STATE_DIR is given (run claiming `durable`)",
    ),
    (
        "grp-non-atomic-claims-atomic",
        Mutant::GrpNonAtomicClaimsAtomic,
        "looks the pair up, then records it in a separate step (run claiming `atomic`)",
    ),
    (
        "grp-ignores-signature",
        Mutant::GrpIgnoresSignature,
        "does not verify publisher_signature",
    ),
    (
        "grp-ignores-nonce",
        Mutant::GrpIgnoresNonce,
        "does not compare session_nonce with the session's nonce",
    ),
    (
        "grp-ignores-window",
        Mutant::GrpIgnoresWindow,
        "does not check a registration's not_before / not_after against the session clock",
    ),
    (
        "grp-ignores-revocation",
        Mutant::GrpIgnoresRevocation,
        "admits events of a revoked P-TYPE-1 publisher",
    ),
    (
        "grp-ignores-event-types",
        Mutant::GrpIgnoresEventTypes,
        "does not check the change_class against the publisher's permitted event types",
    ),
    (
        "grp-check-then-insert",
        Mutant::GrpCheckThenInsert,
        "looks the pair up, then records it durably (temporary file, fsync, rename) with no lock \
         and no delay added: the race window is the time of that write (run claiming `atomic`)",
    ),
    (
        "grp-admit-before-insert",
        Mutant::GrpAdmitBeforeInsert,
        "writes its `admitted` decision first and records the pair after (CONTRACT 5.1 asks the \
         reverse)",
    ),
    (
        "grp-flush-at-exit",
        Mutant::GrpFlushAtExit,
        "keeps the admitted set in memory, read from STATE_DIR at start and written back only at \
         a clean exit (run claiming `durable`)",
    ),
    (
        "grp-ignores-signature-under-01",
        Mutant::GrpIgnoresSignature01,
        "does not verify publisher_signature under revision 01 (00 is checked)",
    ),
    (
        "grp-ignores-nonce-under-01",
        Mutant::GrpIgnoresNonce01,
        "does not compare session_nonce under revision 01 (00 is checked)",
    ),
    (
        "grp-ignores-window-under-01",
        Mutant::GrpIgnoresWindow01,
        "does not check not_before / not_after under revision 01 (00 is checked)",
    ),
    (
        "grp-ignores-revocation-under-01",
        Mutant::GrpIgnoresRevocation01,
        "admits events of a revoked P-TYPE-1 publisher under revision 01 (00 is checked)",
    ),
    (
        "grp-alg-none-under-01",
        Mutant::GrpAlgNone01,
        "admits an event whose token header says `alg: none` without verifying anything, under \
         revision 01 (00 is checked)",
    ),
];

impl Mutant {
    fn parse(name: &str) -> Option<Mutant> {
        MUTANTS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, m, _)| *m)
    }

    /// Findings of these rules are dropped from the reference's report.
    fn dropped_rules(self) -> &'static [Rule] {
        match self {
            Mutant::TrustsStoredLinks => &[Rule::Aer1TlLink],
            Mutant::IgnoresClose => &[
                Rule::Aer1TlCloseType,
                Rule::Aer1TlCloseEarly,
                Rule::Aer1TlCloseLast,
            ],
            Mutant::CommitmentCountOnly => &[Rule::Aer1CmFinal],
            Mutant::IgnoresCommitmentJob => &[Rule::Aer1CmJob],
            Mutant::IgnoresSeqContiguity => &[Rule::Aer1TlSeq],
            Mutant::IgnoresGenesis => &[Rule::Aer1TlGenesis],
            Mutant::IgnoresMixedJob => &[Rule::Aer1TlJob],
            Mutant::AcceptsDuplicateMembers => &[Rule::Aer1JsonDuplicate],
            // The strict checks run only on ids the core tier accepts: dropping their findings is
            // checking the id under the core tier.
            Mutant::StrictTierAsCore => &[Rule::Aer1RcIdStrict],
            Mutant::TrustsReceiptHash => &[Rule::Aer1RcHashMatch],
            Mutant::WorkflowIgnoresDuplicates => &[Rule::Aer1WfDuplicate],
            Mutant::WorkflowIgnoresSeq => &[Rule::Aer1WfSeq, Rule::Aer1WfSeqType],
            _ => &[],
        }
    }
}

/// What one AER-1 operation concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Valid,
    Invalid,
    Unsupported,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.len() == 1 && args[0] == "--list" {
        let mut text = String::new();
        for (name, _, what) in MUTANTS {
            text.push_str(&format!("{name}\t{what}\n"));
        }
        let _ = io::stdout().lock().write_all(text.as_bytes());
        return ExitCode::from(EXIT_VALID);
    }
    let (Some(name), Some(operation)) = (args.first(), args.get(1)) else {
        to_stderr(
            "usage: agentconf-mutant MUTANT OPERATION ARGS… (agentconf-mutant --list lists them)\n",
        );
        return ExitCode::from(EXIT_USAGE);
    };
    let Some(mutant) = Mutant::parse(name) else {
        to_stderr(&format!(
            "agentconf-mutant: unknown mutant {name:?} (agentconf-mutant --list lists them)\n"
        ));
        return ExitCode::from(EXIT_USAGE);
    };
    if mutant == Mutant::None {
        // The control is the reference itself, through the same entry as `agentconf impl`.
        let stdin = io::stdin();
        return match agentconf_reference::command::run(
            operation,
            &args[2..],
            &mut stdin.lock(),
            &mut io::stdout().lock(),
            &mut io::stderr().lock(),
        ) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                to_stderr(&format!("agentconf-mutant {name}: {e}\n"));
                ExitCode::from(EXIT_USAGE)
            }
        };
    }
    match run(mutant, operation, &args[2..]) {
        Ok(Outcome::Valid) => ExitCode::from(EXIT_VALID),
        Ok(Outcome::Invalid) => ExitCode::from(EXIT_INVALID),
        Ok(Outcome::Unsupported) => ExitCode::from(EXIT_UNSUPPORTED),
        Err(e) => {
            to_stderr(&format!("agentconf-mutant {name}: {e}\n"));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn to_stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// The contract's operations, read as `agentconf impl` reads them.
fn run(m: Mutant, operation: &str, args: &[String]) -> Result<Outcome, String> {
    match Call::parse(operation, args) {
        Parsed::Call(Call::Receipt { receipt, tier }) => {
            receipt_op(m, &receipt, tier.as_deref().unwrap_or("core"))
        }
        Parsed::Call(Call::Timeline {
            revision,
            timeline,
            commitment,
        }) => timeline_op(m, &revision, &timeline, commitment.as_deref()),
        Parsed::Call(Call::Workflow { workflow }) => workflow_op(m, &workflow),
        Parsed::Call(Call::GrpAdmit {
            revision,
            session,
            state_dir,
        }) => grp_op(m, &revision, &session, &state_dir),
        Parsed::Call(
            call @ (Call::EmitTimeline { .. }
            | Call::EmitCommitment { .. }
            | Call::EmitReceipt { .. }),
        ) => emit_op(m, &call),
        Parsed::WrongArguments(op) => Err(op.usage_error()),
        Parsed::UnknownOperation(_) => Ok(Outcome::Unsupported),
    }
}

/// The producer mutants write the reference's artifact with their one defect; every other mutant
/// is a verifier mutant and declines the emit operations (89).
fn emit_op(m: Mutant, call: &Call) -> Result<Outcome, String> {
    use agentconf_reference::emit::emit_receipt;
    let read = |path: &str| fs::read(path).map_err(|e| format!("cannot read {path}: {e}"));
    let written: Option<String> = match (m, call) {
        (Mutant::EmitsRawUtf8, Call::EmitTimeline { steps }) => {
            Some(raw_utf8_timeline(&read(steps)?)?)
        }
        (
            Mutant::CommitsUnverified,
            Call::EmitCommitment {
                timeline,
                published_at,
            },
        ) => unverified_commitment(&read(timeline)?, published_at),
        (
            Mutant::CountOffByOne,
            Call::EmitCommitment {
                timeline,
                published_at,
            },
        ) => agentconf_reference::emit::emit_commitment(&read(timeline)?, published_at)?
            .map(|text| count_off_by_one(&text))
            .transpose()?,
        (Mutant::ReserialisesPayload, Call::EmitReceipt { payload, meta }) => {
            match serde_json::from_slice::<serde_json::Value>(&read(payload)?) {
                Ok(v) => emit_receipt(
                    &serde_json::to_vec(&v).map_err(|e| e.to_string())?,
                    &read(meta)?,
                )?,
                // What it cannot parse it cannot write again: it refuses.
                Err(_) => None,
            }
        }
        (Mutant::UppercaseOutputHash, Call::EmitReceipt { payload, meta }) => {
            let bytes = read(payload)?;
            let hash = hex::lower(&sha256(&bytes));
            emit_receipt(&bytes, &read(meta)?)?.map(|text| {
                text.replace(
                    &format!("sha256:{hash}"),
                    &format!("sha256:{}", hash.to_uppercase()),
                )
            })
        }
        _ => return Ok(Outcome::Unsupported),
    };
    match written {
        Some(text) => {
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write output: {e}"))?;
            Ok(Outcome::Valid)
        }
        None => Ok(Outcome::Invalid),
    }
}

/// The reference producer's timeline of `steps`, relinked with every preimage's `\uXXXX`
/// escapes of non-ASCII characters written raw.
fn raw_utf8_timeline(steps: &[u8]) -> Result<String, String> {
    use agentconf_aer1::producer::{build_timeline, digest_entry, timeline_json, CloseStyle};
    let steps = agentconf_contract::emit::TimelineSteps::parse(steps)?;
    let specs = agentconf_reference::emit::entry_specs(&steps);
    let mut entries = build_timeline(&steps.job_id, &specs, Revision::R09, CloseStyle::LastOnly);
    let mut scratch = Vec::new();
    for i in 1..entries.len() {
        // `digest_entry` leaves the entry's preimage in `scratch`.
        digest_entry(&entries[i - 1], Revision::R09, &mut scratch);
        entries[i].prev_digest =
            hex::lower(&sha256(&rewrite_preimage(&scratch, Rewrite::RawNonAscii)));
    }
    Ok(timeline_json(&entries))
}

/// The commitment of a timeline taken as it is, verified or not: the first entry's job, the
/// digest of the last entry, the count. `None` (a refusal) for input it cannot read as entries
/// (not JSON, a member missing or of another type, a `seq` that is not an unsigned integer).
fn unverified_commitment(timeline: &[u8], published_at: &str) -> Option<String> {
    use agentconf_aer1::producer::{digest_entry, Entry};
    let values: Vec<serde_json::Value> = serde_json::from_slice(timeline).ok()?;
    let text = |v: &serde_json::Value, m: &str| v.get(m)?.as_str().map(str::to_string);
    let entries: Vec<Entry> = values
        .iter()
        .map(|v| {
            Some(Entry {
                canonical_bytes: text(v, "canonical_bytes")?,
                prev_digest: text(v, "prev_digest")?,
                seq: v.get("seq")?.as_u64()?,
                job_id: text(v, "job_id")?,
                id: text(v, "id")?,
                tool: text(v, "tool")?,
                provenance_class: text(v, "provenance_class")?,
                close: v.get("close").and_then(serde_json::Value::as_bool),
            })
        })
        .collect::<Option<_>>()?;
    let last = entries.last()?;
    let digest = digest_entry(last, Revision::R09, &mut Vec::new());
    Some(
        serde_json::json!({
            "job_id": entries[0].job_id,
            "final_entry_digest": hex::lower(&digest),
            "entry_count": entries.len(),
            "published_at": published_at,
        })
        .to_string()
            + "\n",
    )
}

/// The reference's commitment `text` with `entry_count` one more than it is.
fn count_off_by_one(text: &str) -> Result<String, String> {
    let mut c: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let count = c["entry_count"]
        .as_u64()
        .ok_or("the commitment has no entry_count")?;
    c["entry_count"] = (count + 1).into();
    Ok(c.to_string() + "\n")
}

fn open(path: &str) -> Result<File, String> {
    agentconf_reference::dispatch::open_file(path)
}

fn read_error(path: &str, e: &io::Error) -> String {
    format!("cannot read {path}: {e}")
}

// ------------------------------------------------------------------------------------------------
// AER-1

fn receipt_op(m: Mutant, path: &str, tier: &str) -> Result<Outcome, String> {
    let tier = match Tier::parse(tier) {
        Some(Tier::Anchored) if m == Mutant::SkipsAnchors => Tier::Strict,
        Some(tier) => tier,
        None => return Ok(Outcome::Unsupported),
    };
    let r = verify_receipt_reader(open(path)?, tier, DEFAULT_MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(path, &e))?;
    result(m, r.failures, 0)
}

fn workflow_op(m: Mutant, path: &str) -> Result<Outcome, String> {
    let r = verify_workflow_reader(open(path)?, DEFAULT_MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(path, &e))?;
    let mut failures = r.failures;
    if m == Mutant::WorkflowSortsSteps {
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

fn timeline_op(
    m: Mutant,
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
        Mutant::RawUtf8Preimage => Some(Rewrite::RawNonAscii),
        Mutant::RawU007f => Some(Rewrite::RawDel),
        Mutant::UppercaseEscapes => Some(Rewrite::UppercaseHex),
        _ => None,
    };
    if let (Some(style), Revision::R09) = (style, revision) {
        return rewritten_preimage(m, timeline, &options, style);
    }
    if revision == Revision::R09 {
        match m {
            Mutant::Accepts06AsCurrent => {
                return either_construction(m, timeline, &options, Fallback::Revision06)
            }
            Mutant::AcceptsRawUtf8Too => {
                return either_construction(m, timeline, &options, Fallback::RawUtf8)
            }
            _ => {}
        }
    }
    let r = verify_timeline(open(timeline)?, &options).map_err(|e| read_error(timeline, &e))?;
    let mut failures = r.failures;
    if m == Mutant::Applies07RulesUnder06 && revision == Revision::R06 {
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
    if m == Mutant::RejectsSeqFloat {
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

/// How the preimage's string escapes are rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rewrite {
    /// Every escaped code point from U+007F up written as raw UTF-8 (JCS-like).
    RawNonAscii,
    /// Only U+007F written raw.
    RawDel,
    /// `\u00e9` written `\u00E9`.
    UppercaseHex,
}

/// Rewrites the `\uXXXX` escapes of a preimage the reference built. Other escapes (`\"`, `\n`,
/// control characters below U+0020) are kept as they are.
fn rewrite_preimage(preimage: &[u8], style: Rewrite) -> Vec<u8> {
    let mut out = Vec::with_capacity(preimage.len());
    let mut i = 0;
    let unit_at = |at: usize| -> Option<u16> {
        let digits = preimage.get(at + 2..at + 6)?;
        if preimage.get(at..at + 2) != Some(b"\\u") {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    while i < preimage.len() {
        if preimage[i] != b'\\' {
            out.push(preimage[i]);
            i += 1;
            continue;
        }
        let Some(unit) = unit_at(i) else {
            // A two-character escape: copy both.
            out.extend_from_slice(&preimage[i..(i + 2).min(preimage.len())]);
            i += 2;
            continue;
        };
        match style {
            Rewrite::UppercaseHex => {
                out.extend_from_slice(&preimage[i..i + 6].to_ascii_uppercase());
                // `\U` is not an escape: keep the `u` lowercase.
                let at = out.len() - 5;
                out[at] = b'u';
                i += 6;
            }
            Rewrite::RawDel if unit == 0x7f => {
                out.push(0x7f);
                i += 6;
            }
            Rewrite::RawNonAscii if (0xd800..0xdc00).contains(&unit) => {
                match unit_at(i + 6).filter(|low| (0xdc00..0xe000).contains(low)) {
                    Some(low) => {
                        let c = 0x10000
                            + ((u32::from(unit) - 0xd800) << 10)
                            + (u32::from(low) - 0xdc00);
                        push_char(&mut out, c);
                        i += 12;
                    }
                    None => {
                        out.extend_from_slice(&preimage[i..i + 6]);
                        i += 6;
                    }
                }
            }
            Rewrite::RawNonAscii if unit >= 0x7f && !(0xdc00..0xe000).contains(&unit) => {
                push_char(&mut out, u32::from(unit));
                i += 6;
            }
            _ => {
                out.extend_from_slice(&preimage[i..i + 6]);
                i += 6;
            }
        }
    }
    out
}

fn push_char(out: &mut Vec<u8>, code_point: u32) {
    let c = char::from_u32(code_point).unwrap_or('\u{fffd}');
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
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
    m: Mutant,
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
    m: Mutant,
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
fn result(m: Mutant, mut failures: Vec<Finding>, omitted: u64) -> Result<Outcome, String> {
    let dropped = m.dropped_rules();
    failures.retain(|f| !dropped.contains(&f.rule));
    if m == Mutant::FirstFindingOnly {
        failures.truncate(1);
    }
    let omitted = if failures.is_empty() && !dropped.is_empty() {
        0
    } else {
        omitted
    };
    let verdict = Verdict::from_findings(&failures, omitted);
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
    let mut out = io::stdout().lock();
    out.write_all((object + "\n").as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write output: {e}"))?;
    Ok(outcome)
}

// ------------------------------------------------------------------------------------------------
// GRP

/// A borrowed store, so that several receivers (and the mutants' own look-ups) share one.
struct Shared<'a>(&'a dyn AdmissionStore);

impl AdmissionStore for Shared<'_> {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        self.0.admit(session, publisher, event)
    }
    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        self.0.handed_off(session, publisher, event)
    }
    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.0.pending(session)
    }
    fn count(&self, session: &str) -> Result<u64, StoreError> {
        self.0.count(session)
    }
    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        self.0.close_session(session)
    }
    fn is_durable(&self) -> bool {
        self.0.is_durable()
    }
}

/// The reference's SQLite store with part of the key thrown away.
struct Rekeyed {
    inner: BoxedStore,
    ignore_publisher: bool,
    ignore_session: bool,
}

impl Rekeyed {
    fn key<'a>(&self, session: &'a str, publisher: &'a str) -> (&'a str, &'a str) {
        (
            if self.ignore_session { "*" } else { session },
            if self.ignore_publisher {
                "*"
            } else {
                publisher
            },
        )
    }
}

impl AdmissionStore for Rekeyed {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let (s, p) = self.key(session, publisher);
        self.inner.admit(s, p, event)
    }
    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        let (s, p) = self.key(session, publisher);
        self.inner.handed_off(s, p, event)
    }
    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.inner.pending(self.key(session, "").0)
    }
    fn count(&self, session: &str) -> Result<u64, StoreError> {
        self.inner.count(self.key(session, "").0)
    }
    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        self.inner.close_session(self.key(session, "").0)
    }
    fn is_durable(&self) -> bool {
        true
    }
}

/// The window between look-up and insert of the non-atomic store, on a process's first
/// admission (when concurrent copies race) and afterwards.
const RACE_WINDOW_FIRST: Duration = Duration::from_millis(100);
const RACE_WINDOW_LATER: Duration = Duration::from_millis(1);

/// How a [`FileStore`] records a pair.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Recording {
    /// `create_new`: the look-up and the insert are one step.
    Atomic,
    /// A look-up, then a separate write after a wait ([`RACE_WINDOW_FIRST`], then
    /// [`RACE_WINDOW_LATER`]): the race is won by whoever is slower.
    Widened,
    /// A look-up, then a durable write as a careful receiver without a lock would do it (a
    /// temporary file, fsync, rename into place): the window is the time that write takes,
    /// with no delay added.
    Racy,
}

/// Admitted pairs as files in STATE_DIR, one per pair: durable and shared between processes.
struct FileStore {
    dir: PathBuf,
    recording: Recording,
    first: AtomicBool,
}

impl FileStore {
    fn open(state_dir: &Path, recording: Recording) -> Result<FileStore, String> {
        let dir = state_dir.join("mutant-pairs");
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(FileStore {
            dir,
            recording,
            first: AtomicBool::new(true),
        })
    }

    fn path(&self, session: &str, publisher: &str, event: &str) -> PathBuf {
        // Length-prefixed, so no two pairs share a name.
        let key = format!(
            "{}:{session}{}:{publisher}{event}",
            session.len(),
            publisher.len()
        );
        self.dir.join(hex::lower(&sha256(key.as_bytes())))
    }

    fn contains(&self, session: &str, publisher: &str, event: &str) -> Result<bool, StoreError> {
        self.path(session, publisher, event)
            .try_exists()
            .map_err(|e| StoreError(e.to_string()))
    }
}

impl AdmissionStore for FileStore {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let path = self.path(session, publisher, event);
        let err = |e: io::Error| StoreError(format!("{}: {e}", path.display()));
        if self.recording == Recording::Atomic {
            return match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(_) => Ok(Admission::Admitted),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(Admission::Duplicate),
                Err(e) => Err(err(e)),
            };
        }
        // The defect: a look-up, then an insert that does not check again.
        if path.try_exists().map_err(err)? {
            return Ok(Admission::Duplicate);
        }
        if self.recording == Recording::Widened {
            std::thread::sleep(if self.first.swap(false, Ordering::Relaxed) {
                RACE_WINDOW_FIRST
            } else {
                RACE_WINDOW_LATER
            });
        }
        if self.recording == Recording::Racy {
            let temp = path.with_extension(format!("tmp-{}", std::process::id()));
            let file = File::create(&temp).map_err(err)?;
            file.sync_all().map_err(err)?;
            fs::rename(&temp, &path).map_err(err)?;
            return Ok(Admission::Admitted);
        }
        fs::write(&path, b"").map_err(err)?;
        Ok(Admission::Admitted)
    }
    fn handed_off(&self, _: &str, _: &str, _: &str) -> Result<(), StoreError> {
        Ok(())
    }
    fn pending(&self, _: &str) -> Result<Vec<(String, String)>, StoreError> {
        Ok(Vec::new())
    }
    fn count(&self, _: &str) -> Result<u64, StoreError> {
        let entries = fs::read_dir(&self.dir).map_err(|e| StoreError(e.to_string()))?;
        Ok(entries.count() as u64)
    }
    fn close_session(&self, _: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
    fn is_durable(&self) -> bool {
        true
    }
}

/// The admitted set in memory, read from a file in STATE_DIR at start; `pending("")` lists every
/// pair (as one key per line) so that the exit can write them back.
struct FlushAtExit {
    pairs: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

impl FlushAtExit {
    fn path(state_dir: &Path) -> PathBuf {
        state_dir.join("mutant-flushed-pairs")
    }

    fn load(state_dir: &Path) -> Result<FlushAtExit, String> {
        let text = match fs::read_to_string(Self::path(state_dir)) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e.to_string()),
        };
        Ok(FlushAtExit {
            pairs: std::sync::Mutex::new(text.lines().map(str::to_string).collect()),
        })
    }

    fn key(session: &str, publisher: &str, event: &str) -> String {
        // Length-prefixed, so no two pairs share a key; hex keeps it on one line.
        let raw = format!(
            "{}:{session}{}:{publisher}{event}",
            session.len(),
            publisher.len()
        );
        hex::lower(&sha256(raw.as_bytes()))
    }
}

impl AdmissionStore for FlushAtExit {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let mut pairs = self
            .pairs
            .lock()
            .map_err(|_| StoreError("poisoned".into()))?;
        Ok(if pairs.insert(Self::key(session, publisher, event)) {
            Admission::Admitted
        } else {
            Admission::Duplicate
        })
    }
    fn handed_off(&self, _: &str, _: &str, _: &str) -> Result<(), StoreError> {
        Ok(())
    }
    fn pending(&self, _: &str) -> Result<Vec<(String, String)>, StoreError> {
        let pairs = self
            .pairs
            .lock()
            .map_err(|_| StoreError("poisoned".into()))?;
        Ok(pairs.iter().map(|k| (k.clone(), String::new())).collect())
    }
    fn count(&self, _: &str) -> Result<u64, StoreError> {
        Ok(self.pending("")?.len() as u64)
    }
    fn close_session(&self, _: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
    fn is_durable(&self) -> bool {
        true
    }
}

fn read_session(path: &str) -> Result<SessionContext, String> {
    agentconf_reference::admit::read_session(Path::new(path))
}

/// The checks the replica of the pre-admission stage leaves out.
#[derive(Clone, Copy, Debug, Default)]
struct Skip {
    signature: bool,
    nonce: bool,
    window: bool,
    revocation: bool,
    event_types: bool,
    /// A token whose header says `alg: none` is taken as verified.
    alg_none: bool,
}

/// The checks `m` leaves out under `revision` (the `-under-01` mutants check everything under
/// 00).
fn skip_of(m: Mutant, revision: GrpRevision) -> Option<Skip> {
    let none = Skip::default();
    let r01 = revision == GrpRevision::R01;
    Some(match m {
        Mutant::GrpIgnoresSignature => Skip {
            signature: true,
            ..none
        },
        Mutant::GrpIgnoresNonce => Skip {
            nonce: true,
            ..none
        },
        Mutant::GrpIgnoresWindow => Skip {
            window: true,
            ..none
        },
        Mutant::GrpIgnoresRevocation => Skip {
            revocation: true,
            ..none
        },
        Mutant::GrpIgnoresEventTypes => Skip {
            event_types: true,
            ..none
        },
        Mutant::GrpIgnoresSignature01 if r01 => Skip {
            signature: true,
            ..none
        },
        Mutant::GrpIgnoresNonce01 if r01 => Skip {
            nonce: true,
            ..none
        },
        Mutant::GrpIgnoresWindow01 if r01 => Skip {
            window: true,
            ..none
        },
        Mutant::GrpIgnoresRevocation01 if r01 => Skip {
            revocation: true,
            ..none
        },
        Mutant::GrpAlgNone01 if r01 => Skip {
            alg_none: true,
            ..none
        },
        _ => return None,
    })
}

struct Grp<'a> {
    mutant: Mutant,
    session: &'a SessionContext,
    revision: GrpRevision,
    store: &'a dyn AdmissionStore,
    /// The file store, for the mutants that look a pair up without recording it.
    files: Option<&'a FileStore>,
    receiver: Receiver<Shared<'a>>,
    /// The same receiver without the duplicate check.
    receiver_00: Receiver<Shared<'a>>,
}

fn grp_op(m: Mutant, revision: &str, session: &str, state_dir: &str) -> Result<Outcome, String> {
    let Some(revision) = GrpRevision::parse(revision) else {
        return Ok(Outcome::Unsupported);
    };
    let session = read_session(session)?;
    let dir = Path::new(state_dir);
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {state_dir}: {e}"))?;
    let sqlite = || agentconf_reference::admit::open_state(dir).map_err(|e| e.to_string());
    let revision = if m == Mutant::GrpNoDedup {
        GrpRevision::R00
    } else {
        revision
    };
    let mut files = None;
    let store: Box<dyn AdmissionStore> = match m {
        Mutant::GrpMemoryClaimsDurable => Box::new(MemoryStore::new()),
        Mutant::GrpDedupEventIdOnly | Mutant::GrpDedupAcrossSessions => Box::new(Rekeyed {
            inner: sqlite()?,
            ignore_publisher: m == Mutant::GrpDedupEventIdOnly,
            ignore_session: m == Mutant::GrpDedupAcrossSessions,
        }),
        Mutant::GrpNonAtomicClaimsAtomic => Box::new(FileStore::open(dir, Recording::Widened)?),
        Mutant::GrpCheckThenInsert => Box::new(FileStore::open(dir, Recording::Racy)?),
        Mutant::GrpFlushAtExit => Box::new(FlushAtExit::load(dir)?),
        Mutant::GrpDedupBeforeSignature
        | Mutant::GrpRecordsRejected
        | Mutant::GrpAdmitBeforeInsert => {
            files = Some(FileStore::open(dir, Recording::Atomic)?);
            Box::new(MemoryStore::new())
        }
        _ => sqlite()?,
    };
    let store: &dyn AdmissionStore = match &files {
        Some(f) => f,
        None => &*store,
    };
    let flush = match m {
        Mutant::GrpFlushAtExit => Some(FlushAtExit::path(dir)),
        _ => None,
    };
    let grp = Grp {
        mutant: m,
        session: &session,
        revision,
        store,
        files: files.as_ref(),
        receiver: Receiver::new(session.clone(), revision, Shared(store)),
        receiver_00: Receiver::new(session.clone(), GrpRevision::R00, Shared(store)),
    };
    run_stream(&grp)?;
    if let Some(path) = flush {
        // The defect: the set reaches STATE_DIR only here, at a clean end of input.
        let pairs = grp.store.pending("").map_err(|e| e.to_string())?;
        let text: String = pairs.iter().map(|(k, _)| format!("{k}\n")).collect();
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(Outcome::Valid)
}

/// One decision line per event line, flushed, as `agentconf impl grp-admit` does.
fn run_stream(grp: &Grp<'_>) -> Result<Outcome, String> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut line = Vec::new();
    loop {
        let read = read_event_line(&mut input, &mut line)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        let decision = match read {
            EventLine::End => break,
            EventLine::Line => deliver(grp, &line),
            EventLine::TooLong => grp.receiver.deliver_oversized(MAX_EVENT_BYTES),
        }
        .map_err(|e| e.to_string())?;
        let text = serde_json::to_string(&decision).map_err(|e| e.to_string())?;
        writeln!(out, "{text}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write output: {e}"))?;
        if let (Mutant::GrpAdmitBeforeInsert, Some(files), GrpRevision::R01, GrpOutcome::Admitted) =
            (grp.mutant, grp.files, grp.revision, decision.outcome)
        {
            // The defect: the pair is recorded after the decision went out.
            let (publisher, event) = (
                decision.publisher_id.as_deref().unwrap_or_default(),
                decision.event_id.as_deref().unwrap_or_default(),
            );
            files
                .admit(&grp.session.session_id, publisher, event)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(Outcome::Valid)
}

fn deliver(grp: &Grp<'_>, line: &[u8]) -> Result<Decision, StoreError> {
    let sid = grp.session.session_id.as_str();
    let r01 = grp.revision == GrpRevision::R01;
    if let Some(skip) = skip_of(grp.mutant, grp.revision) {
        return replica_deliver(grp, line, skip);
    }
    match (grp.mutant, grp.files) {
        (Mutant::GrpAdmitBeforeInsert, Some(files)) if r01 => {
            // Every check in the reference's order, the pair looked up last; it is recorded only
            // after the decision is written (`run_stream`).
            let d = grp.receiver_00.deliver(line)?;
            if let (GrpOutcome::Admitted, Some(publisher), Some(event)) =
                (d.outcome, &d.publisher_id, &d.event_id)
            {
                if files.contains(sid, publisher, event)? {
                    let identity = Identity {
                        event_id: d.event_id.clone(),
                        publisher_id: d.publisher_id.clone(),
                    };
                    return Ok(rejected(&identity, RejectError::Duplicate));
                }
            }
            Ok(d)
        }
        (Mutant::GrpDedupBeforeSignature, Some(files)) if r01 => {
            // The pair is looked up before any check; it is recorded only on admission.
            if let (identity, Ok(event)) = parse_event(line) {
                if files.contains(sid, &event.publisher_id, &event.event_id)? {
                    return Ok(rejected(&identity, RejectError::Duplicate));
                }
            }
            grp.receiver.deliver(line)
        }
        (Mutant::GrpRecordsRejected, Some(files)) if r01 => {
            // Every well-formed event's pair is recorded on arrival, whatever comes of it.
            match parse_event(line) {
                (identity, Ok(event)) => {
                    if files.admit(sid, &event.publisher_id, &event.event_id)?
                        == Admission::Duplicate
                    {
                        return Ok(rejected(&identity, RejectError::Duplicate));
                    }
                    grp.receiver_00.deliver(line)
                }
                _ => grp.receiver.deliver(line),
            }
        }
        _ => grp.receiver.deliver(line),
    }
}

/// A rejection as the reference writes it.
fn rejected(identity: &Identity, error: RejectError) -> Decision {
    Decision {
        event_id: identity.event_id.clone(),
        publisher_id: identity.publisher_id.clone(),
        outcome: GrpOutcome::Rejected,
        ale: Some(ALE_064),
        rejection_reason: Some(error.reason()),
        rule: Some(error.rule()),
        member: match &error {
            RejectError::Event(e) => e.member(),
            RejectError::Signature { .. } => Some("publisher_signature".into()),
            RejectError::NonceMismatch => Some("session_nonce".into()),
            _ => None,
        },
        message: Some(error.to_string()),
    }
}

/// A copy of the reference's admission stage with some checks left out.
fn replica_deliver(grp: &Grp<'_>, line: &[u8], skip: Skip) -> Result<Decision, StoreError> {
    if line.len() > MAX_EVENT_BYTES {
        return grp.receiver.deliver_oversized(MAX_EVENT_BYTES);
    }
    let (identity, parsed) = parse_event(line);
    let event = match parsed {
        Ok(e) => e,
        Err(e) => return Ok(rejected(&identity, RejectError::Event(e))),
    };
    if let Err(e) = pre_admission(grp.session, &event, skip) {
        return Ok(rejected(&identity, e));
    }
    let (sid, publisher, event_id) = (
        grp.session.session_id.as_str(),
        event.publisher_id.as_str(),
        event.event_id.as_str(),
    );
    if grp.revision == GrpRevision::R01 {
        if grp.store.admit(sid, publisher, event_id)? == Admission::Duplicate {
            return Ok(rejected(&identity, RejectError::Duplicate));
        }
        grp.store.handed_off(sid, publisher, event_id)?;
    }
    Ok(Decision {
        event_id: Some(event.event_id.clone()),
        publisher_id: Some(event.publisher_id.clone()),
        outcome: GrpOutcome::Admitted,
        ale: None,
        rejection_reason: None,
        rule: None,
        member: None,
        message: None,
    })
}

/// Whether the event's token header (its first segment, base64url JSON) says `"alg": "none"`.
fn says_alg_none(event: &serde_json::Map<String, serde_json::Value>) -> bool {
    use base64::Engine as _;
    let header = event
        .get("publisher_signature")
        .and_then(serde_json::Value::as_str)
        .and_then(|t| t.split('.').next())
        .and_then(|h| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(h)
                .ok()
        })
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    header.and_then(|h| h.get("alg").cloned()) == Some(serde_json::Value::from("none"))
}

/// The reference's publisher, signature and nonce checks, in its order, minus `skip`.
fn pre_admission(
    session: &SessionContext,
    event: &ChangeEvent,
    skip: Skip,
) -> Result<(), RejectError> {
    let publisher =
        session
            .publisher(&event.publisher_id)
            .ok_or_else(|| RejectError::UnknownPublisher {
                publisher_id: agentconf_aer1::text::clip(&event.publisher_id, 80),
            })?;
    if publisher.publisher_type != event.publisher_type {
        return Err(RejectError::TypeMismatch {
            declared: event.publisher_type,
            registered: publisher.publisher_type,
        });
    }
    let clock = instant(&session.clock);
    match publisher.publisher_type {
        PublisherType::Principal => {
            if publisher.revoked && !skip.revocation {
                return Err(RejectError::Revoked);
            }
        }
        PublisherType::Registered | PublisherType::WellKnown => {
            if !skip.window {
                if let Some(nb) = &publisher.not_before {
                    if instant(nb) > clock {
                        return Err(RejectError::NotYetValid {
                            not_before: nb.clone(),
                            clock: session.clock.clone(),
                        });
                    }
                }
                if let Some(na) = &publisher.not_after {
                    if instant(na) < clock {
                        return Err(RejectError::Expired {
                            not_after: na.clone(),
                            clock: session.clock.clone(),
                        });
                    }
                }
            }
            if let (Some(types), false) = (&publisher.event_types, skip.event_types) {
                if !types.contains(&event.change_class) {
                    return Err(RejectError::EventTypeNotPermitted {
                        change_class: event.change_class.clone(),
                    });
                }
            }
        }
    }
    let unverified = skip.signature || (skip.alg_none && says_alg_none(&event.object));
    if !unverified {
        verify_event_signature(&event.object, &publisher.keys).map_err(|error| {
            RejectError::Signature {
                publisher_type: publisher.publisher_type,
                error,
            }
        })?;
    }
    if event.session_nonce != session.session_nonce && !skip.nonce {
        return Err(RejectError::NonceMismatch);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_escapes() {
        let p = br#"{"id":"a\u00e9\u007f\ud83d\ude00\u0001\"\\u00e9"}"#;
        assert_eq!(
            String::from_utf8(rewrite_preimage(p, Rewrite::RawNonAscii)).unwrap(),
            "{\"id\":\"a\u{e9}\u{7f}\u{1f600}\\u0001\\\"\\\\u00e9\"}"
        );
        assert_eq!(
            String::from_utf8(rewrite_preimage(p, Rewrite::RawDel)).unwrap(),
            "{\"id\":\"a\\u00e9\u{7f}\\ud83d\\ude00\\u0001\\\"\\\\u00e9\"}"
        );
        assert_eq!(
            String::from_utf8(rewrite_preimage(p, Rewrite::UppercaseHex)).unwrap(),
            r#"{"id":"a\u00E9\u007F\uD83D\uDE00\u0001\"\\u00e9"}"#
        );
    }

    #[test]
    fn every_mutant_has_a_unique_name() {
        for (i, (name, m, _)) in MUTANTS.iter().enumerate() {
            assert_eq!(Mutant::parse(name), Some(*m));
            assert!(MUTANTS[i + 1..].iter().all(|(n, _, _)| n != name));
        }
    }
}
