//! The GRP receiver mutants: the reference [`Receiver`] walking a pipeline with one step left
//! out or moved ([`GrpMutant::pipeline`], no check copied), or recording into a store with a
//! changed key, atomicity or durability ([`stores`]), or looking a pair up or recording it
//! outside the pipeline, at a moment the reference does not. The cluster mutants ([`cluster`])
//! take the reference's store from the same environment (`AGENTCONF_GRP_STORE` and the cluster's
//! variables) and misuse the shared one; where it names no PostgreSQL store they are the
//! reference (`grp-node-local` aside, which never shares).

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use agentconf_grp::admission::{
    Decision, DecisionOutcome, Pipeline, Receiver, RejectError, Revision, Step, MAX_EVENT_BYTES,
};
use agentconf_grp::event::{parse_event, Identity};
use agentconf_grp::lines::{read_event_line, EventLine};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::{self, AdmissionStore, ClusterEnv, Opening, StoreError};

use crate::Outcome;

mod cluster;
mod stores;

use cluster::{shared_store, Defect, Fault, Misused};
use stores::{widen, FileStore, FlushAtExit, PairLookup, Recording, Rekeyed};

/// One deliberate defect of a receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrpMutant {
    NoDedup,
    DedupEventIdOnly,
    DedupAcrossSessions,
    DedupBeforeSignature,
    RecordsRejected,
    MemoryClaimsDurable,
    NonAtomicClaimsAtomic,
    IgnoresSignature,
    IgnoresNonce,
    IgnoresWindow,
    IgnoresRevocation,
    IgnoresEventTypes,
    CheckThenInsert,
    AdmitBeforeInsert,
    FlushAtExit,
    IgnoresSignature01,
    IgnoresNonce01,
    IgnoresWindow01,
    IgnoresRevocation01,
    AlgNone01,
    NodeLocal,
    LookupThenInsert,
    LocalFallback,
    AdmitThenWrite,
    FallbackOnTimeout,
    ClusterNoSessionKey,
    ClusterNoPublisherKey,
    CommitThenDefer,
}

/// Name, mutant, and what it gets wrong.
pub const MUTANTS: &[(&str, GrpMutant, &str)] = &[
    (
        "grp-no-dedup",
        GrpMutant::NoDedup,
        "GRP receiver without the duplicate check (revision 00 behaviour under 01)",
    ),
    (
        "grp-dedup-event-id-only",
        GrpMutant::DedupEventIdOnly,
        "the duplicate key is event_id alone (publisher_id ignored)",
    ),
    (
        "grp-dedup-across-sessions",
        GrpMutant::DedupAcrossSessions,
        "the admitted set is not per session: a new session inherits the old pairs",
    ),
    (
        "grp-dedup-before-signature",
        GrpMutant::DedupBeforeSignature,
        "looks the pair up before the signature and nonce checks: a forged or wrong-session copy \
         of an admitted event is reported as duplicate_event_id",
    ),
    (
        "grp-records-rejected",
        GrpMutant::RecordsRejected,
        "records every well-formed event's pair on arrival, before its checks: a rejected copy \
         blocks the genuine event",
    ),
    (
        "grp-memory-claims-durable",
        GrpMutant::MemoryClaimsDurable,
        "keeps the admitted set in memory although STATE_DIR is given (run claiming `durable`)",
    ),
    (
        "grp-non-atomic-claims-atomic",
        GrpMutant::NonAtomicClaimsAtomic,
        "looks the pair up, then records it in a separate step (run claiming `atomic`)",
    ),
    (
        "grp-ignores-signature",
        GrpMutant::IgnoresSignature,
        "does not verify publisher_signature",
    ),
    (
        "grp-ignores-nonce",
        GrpMutant::IgnoresNonce,
        "does not compare session_nonce with the session's nonce",
    ),
    (
        "grp-ignores-window",
        GrpMutant::IgnoresWindow,
        "does not check a registration's not_before / not_after against the session clock",
    ),
    (
        "grp-ignores-revocation",
        GrpMutant::IgnoresRevocation,
        "admits events of a revoked P-TYPE-1 publisher",
    ),
    (
        "grp-ignores-event-types",
        GrpMutant::IgnoresEventTypes,
        "does not check the change_class against the publisher's permitted event types",
    ),
    (
        "grp-check-then-insert",
        GrpMutant::CheckThenInsert,
        "looks the pair up, then records it durably (temporary file, fsync, rename) with no lock \
         and no delay added: the race window is the time of that write (run claiming `atomic`)",
    ),
    (
        "grp-admit-before-insert",
        GrpMutant::AdmitBeforeInsert,
        "writes its `admitted` decision first and records the pair after (CONTRACT 5.1 asks the \
         reverse)",
    ),
    (
        "grp-flush-at-exit",
        GrpMutant::FlushAtExit,
        "keeps the admitted set in memory, read from STATE_DIR at start and written back only at \
         a clean exit (run claiming `durable`)",
    ),
    (
        "grp-ignores-signature-under-01",
        GrpMutant::IgnoresSignature01,
        "does not verify publisher_signature under revision 01 (00 is checked)",
    ),
    (
        "grp-ignores-nonce-under-01",
        GrpMutant::IgnoresNonce01,
        "does not compare session_nonce under revision 01 (00 is checked)",
    ),
    (
        "grp-ignores-window-under-01",
        GrpMutant::IgnoresWindow01,
        "does not check not_before / not_after under revision 01 (00 is checked)",
    ),
    (
        "grp-ignores-revocation-under-01",
        GrpMutant::IgnoresRevocation01,
        "admits events of a revoked P-TYPE-1 publisher under revision 01 (00 is checked)",
    ),
    (
        "grp-alg-none-under-01",
        GrpMutant::AlgNone01,
        "admits an event whose token header says `alg: none` without verifying anything, under \
         revision 01 (00 is checked)",
    ),
    (
        "grp-node-local",
        GrpMutant::NodeLocal,
        "cluster: keeps its admitted set in its own STATE_DIR whatever AGENTCONF_GRP_STORE says, \
         so each node dedups alone: a copy another node admitted is admitted again",
    ),
    (
        "grp-lookup-then-insert",
        GrpMutant::LookupThenInsert,
        "cluster: looks the pair up in the shared database, then inserts it without reading the \
         unique key's answer (as if there were none), the window between widened as \
         grp-non-atomic-claims-atomic's: copies delivered at once to two nodes are both admitted",
    ),
    (
        "grp-local-fallback",
        GrpMutant::LocalFallback,
        "cluster: when the shared database cannot be reached, admits against a set of its own in \
         STATE_DIR instead of deferring: a cut link yields admissions, and copies admitted \
         elsewhere (or again after healing) are admitted twice",
    ),
    (
        "grp-admit-then-write",
        GrpMutant::AdmitThenWrite,
        "cluster: looks the pair up in the shared database, writes its `admitted` decision, and \
         only then (after the widened window) inserts the pair, ignoring a failed insert: a copy \
         at another node meanwhile, or a link cut before the insert, admits the pair twice",
    ),
    (
        "grp-fallback-on-timeout",
        GrpMutant::FallbackOnTimeout,
        "cluster: defers while the shared database refuses or closes its link, but when it is \
         slow (no answer within the store's deadline) admits against a set of its own in \
         STATE_DIR: a stalled link yields admissions the store never saw",
    ),
    (
        "grp-cluster-no-session-key",
        GrpMutant::ClusterNoSessionKey,
        "cluster: keys the shared database's pairs by (cluster, publisher, event), without the \
         session: a fresh event of another session that shares an event id is rejected as a \
         duplicate",
    ),
    (
        "grp-cluster-no-publisher-key",
        GrpMutant::ClusterNoPublisherKey,
        "cluster: keys the shared database's pairs by (cluster, session, event), without the \
         publisher: another publisher's event with the same id is rejected as a duplicate",
    ),
    (
        "grp-commit-then-defer",
        GrpMutant::CommitThenDefer,
        "cluster: commits the pair to the shared database, then answers `deferred` (as if the \
         commit's outcome were unknown) and never resolves it: the re-delivery is rejected as a \
         duplicate, so no node ever answers `admitted`",
    ),
];

impl GrpMutant {
    /// The check this mutant leaves out of the reference's pipeline under `revision` (the
    /// `-under-01` mutants check everything under 00).
    fn skipped(self, revision: Revision) -> Option<Step> {
        let r01 = revision == Revision::R01;
        match self {
            GrpMutant::NoDedup => Some(Step::Admit),
            GrpMutant::IgnoresSignature => Some(Step::Signature),
            GrpMutant::IgnoresNonce => Some(Step::Nonce),
            GrpMutant::IgnoresWindow => Some(Step::Window),
            GrpMutant::IgnoresRevocation => Some(Step::Revocation),
            GrpMutant::IgnoresEventTypes => Some(Step::EventTypes),
            GrpMutant::IgnoresSignature01 if r01 => Some(Step::Signature),
            GrpMutant::IgnoresNonce01 if r01 => Some(Step::Nonce),
            GrpMutant::IgnoresWindow01 if r01 => Some(Step::Window),
            GrpMutant::IgnoresRevocation01 if r01 => Some(Step::Revocation),
            // Looked up, or recorded, outside the pipeline (`deliver`, `run_stream`).
            GrpMutant::AdmitBeforeInsert | GrpMutant::AdmitThenWrite => Some(Step::Admit),
            _ => None,
        }
    }

    /// The steps this mutant's receiver walks under `revision`.
    fn pipeline(self, revision: Revision) -> Pipeline {
        let reference = Pipeline::reference(revision);
        if self == GrpMutant::RecordsRejected {
            // The admission first, before any check: whatever comes of the event, its pair is
            // recorded.
            let mut steps = reference.steps().to_vec();
            steps.retain(|s| *s != Step::Admit);
            if reference.steps().contains(&Step::Admit) {
                steps.insert(0, Step::Admit);
            }
            return Pipeline::of(steps);
        }
        match self.skipped(revision) {
            Some(step) => reference.without(step),
            None => reference,
        }
    }
}

/// The store a mutant's receiver records into.
enum MutantStore {
    /// What the one opener hands out (or a mutant's wrapper around it).
    Any(Box<dyn AdmissionStore>),
    /// Pairs the mutants that look a pair up without recording it also read: as files in
    /// `STATE_DIR`, or the shared database's.
    Lookup(Box<dyn PairLookup>),
}

impl MutantStore {
    /// The store of `m` (the reference's, as the environment chooses it, without a defect).
    fn of(m: Option<GrpMutant>, dir: &Path) -> Result<MutantStore, String> {
        let reference = || {
            agentconf_reference::admit::open_receiver_store(dir, &ClusterEnv::from_process())
                .map_err(|e| e.to_string())
        };
        let local = || agentconf_reference::admit::open_state(dir).map_err(|e| e.to_string());
        if let Some(store) = Self::of_cluster(m, dir, &local)? {
            return Ok(store);
        }
        Ok(match m {
            Some(GrpMutant::MemoryClaimsDurable) => MutantStore::Any(
                store::open("memory", Opening::EXISTING).map_err(|e| e.to_string())?,
            ),
            Some(m @ (GrpMutant::DedupEventIdOnly | GrpMutant::DedupAcrossSessions)) => {
                MutantStore::Any(Box::new(Rekeyed {
                    inner: reference()?,
                    ignore_publisher: m == GrpMutant::DedupEventIdOnly,
                    ignore_session: m == GrpMutant::DedupAcrossSessions,
                }))
            }
            Some(GrpMutant::NonAtomicClaimsAtomic) => {
                MutantStore::Lookup(Box::new(FileStore::open(dir, Recording::Widened)?))
            }
            Some(GrpMutant::CheckThenInsert) => {
                MutantStore::Lookup(Box::new(FileStore::open(dir, Recording::Racy)?))
            }
            Some(GrpMutant::FlushAtExit) => MutantStore::Any(Box::new(FlushAtExit::load(dir)?)),
            Some(GrpMutant::DedupBeforeSignature | GrpMutant::AdmitBeforeInsert) => {
                MutantStore::Lookup(Box::new(FileStore::open(dir, Recording::Atomic)?))
            }
            _ => MutantStore::Any(reference()?),
        })
    }

    /// The store of a cluster mutant `m` (`None`: not one, or no shared store to misuse).
    fn of_cluster(
        m: Option<GrpMutant>,
        dir: &Path,
        local: &dyn Fn() -> Result<store::BoxedStore, String>,
    ) -> Result<Option<MutantStore>, String> {
        let Some(m) = m else {
            return Ok(None);
        };
        if m == GrpMutant::NodeLocal {
            return Ok(Some(MutantStore::Any(local()?)));
        }
        if !matches!(
            m,
            GrpMutant::LookupThenInsert
                | GrpMutant::LocalFallback
                | GrpMutant::AdmitThenWrite
                | GrpMutant::FallbackOnTimeout
                | GrpMutant::ClusterNoSessionKey
                | GrpMutant::ClusterNoPublisherKey
                | GrpMutant::CommitThenDefer
        ) {
            return Ok(None);
        }
        let Some(shared) = shared_store(dir)? else {
            return Ok(None);
        };
        Ok(Some(match m {
            GrpMutant::LookupThenInsert => MutantStore::Any(Box::new(Misused {
                shared,
                defect: Defect::LookupThenInsert {
                    first: AtomicBool::new(true),
                },
            })),
            GrpMutant::LocalFallback | GrpMutant::FallbackOnTimeout => {
                MutantStore::Any(Box::new(Misused {
                    shared,
                    defect: Defect::LocalFallback {
                        local: local()?,
                        on: if m == GrpMutant::FallbackOnTimeout {
                            Fault::TimedOut
                        } else {
                            Fault::Unreachable
                        },
                    },
                }))
            }
            GrpMutant::ClusterNoSessionKey | GrpMutant::ClusterNoPublisherKey => {
                MutantStore::Any(Box::new(Rekeyed {
                    inner: Box::new(shared),
                    ignore_publisher: m == GrpMutant::ClusterNoPublisherKey,
                    ignore_session: m == GrpMutant::ClusterNoSessionKey,
                }))
            }
            GrpMutant::CommitThenDefer => MutantStore::Any(Box::new(Misused {
                shared,
                defect: Defect::CommitThenDefer,
            })),
            _ => MutantStore::Lookup(Box::new(shared)),
        }))
    }

    fn as_dyn(&self) -> &dyn AdmissionStore {
        match self {
            MutantStore::Any(store) => store.as_ref(),
            MutantStore::Lookup(files) => files.as_ref(),
        }
    }

    fn files(&self) -> Option<&dyn PairLookup> {
        match self {
            MutantStore::Lookup(files) => Some(files.as_ref()),
            MutantStore::Any(_) => None,
        }
    }
}

/// A mutant's receiver for one stream.
struct Grp<'a> {
    mutant: Option<GrpMutant>,
    session: &'a SessionContext,
    revision: Revision,
    /// The store the mutants that look a pair up without recording it read.
    files: Option<&'a dyn PairLookup>,
    /// `grp-admit-then-write`: the race window before its first write is still to come.
    first_write: AtomicBool,
    receiver: Receiver<&'a dyn AdmissionStore>,
    /// `grp-alg-none-under-01` under revision 01: the same receiver without the signature step,
    /// for events whose token header says `alg: none`.
    unsigned: Option<Receiver<&'a dyn AdmissionStore>>,
}

/// `grp-admit REVISION SESSION STATE_DIR`, with `m`'s defect.
pub fn admit(
    m: Option<GrpMutant>,
    revision: &str,
    session: &str,
    state_dir: &str,
) -> Result<Outcome, String> {
    let Some(revision) = Revision::parse(revision) else {
        return Ok(Outcome::Unsupported);
    };
    let session = agentconf_reference::admit::read_session(Path::new(session))?;
    let dir = Path::new(state_dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {state_dir}: {e}"))?;
    let store = MutantStore::of(m, dir)?;
    let pipeline = m.map_or_else(|| Pipeline::reference(revision), |m| m.pipeline(revision));
    let unsigned = (m == Some(GrpMutant::AlgNone01) && revision == Revision::R01).then(|| {
        let without = pipeline.clone().without(Step::Signature);
        Receiver::with_pipeline(session.clone(), without, store.as_dyn())
    });
    let grp = Grp {
        mutant: m,
        session: &session,
        revision,
        files: store.files(),
        first_write: AtomicBool::new(true),
        receiver: Receiver::with_pipeline(session.clone(), pipeline, store.as_dyn()),
        unsigned,
    };
    run_stream(&grp)?;
    if m == Some(GrpMutant::FlushAtExit) {
        // The defect: the set reaches STATE_DIR only here, at a clean end of input.
        let pairs = grp
            .receiver
            .store()
            .pending("")
            .map_err(|e| e.to_string())?;
        let text: String = pairs.iter().map(|(k, _)| format!("{k}\n")).collect();
        let path = FlushAtExit::path(dir);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(Outcome::Valid)
}

/// One decision line per event line, flushed, as `agentconf impl grp-admit` does.
fn run_stream(grp: &Grp<'_>) -> Result<(), String> {
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
        if let (
            Some(m @ (GrpMutant::AdmitBeforeInsert | GrpMutant::AdmitThenWrite)),
            Some(files),
            Revision::R01,
        ) = (grp.mutant, grp.files, grp.revision)
        {
            if decision.outcome == DecisionOutcome::Admitted {
                // The defect: the pair is recorded after the decision went out.
                let (publisher, event) = (
                    decision.publisher_id.as_deref().unwrap_or_default(),
                    decision.event_id.as_deref().unwrap_or_default(),
                );
                if m == GrpMutant::AdmitThenWrite {
                    widen(&grp.first_write);
                }
                match files.admit(&grp.session.session_id, publisher, event) {
                    // The admission stands whatever became of its write.
                    Err(e) if m == GrpMutant::AdmitThenWrite && e.is_unreachable() => {}
                    written => {
                        written.map_err(|e| e.to_string())?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// One line through the mutant's receiver, with the look-ups it makes outside the pipeline.
fn deliver(grp: &Grp<'_>, line: &[u8]) -> Result<Decision, StoreError> {
    let sid = grp.session.session_id.as_str();
    let r01 = grp.revision == Revision::R01;
    match (grp.mutant, grp.files, &grp.unsigned) {
        (Some(GrpMutant::AdmitBeforeInsert | GrpMutant::AdmitThenWrite), Some(files), _) if r01 => {
            // Every check in the reference's order, the pair looked up last; it is recorded only
            // after the decision is written (`run_stream`).
            let d = grp.receiver.deliver(line)?;
            if let (DecisionOutcome::Admitted, Some(publisher), Some(event)) =
                (d.outcome, &d.publisher_id, &d.event_id)
            {
                let identity = Identity {
                    event_id: d.event_id.clone(),
                    publisher_id: d.publisher_id.clone(),
                };
                match files.contains(sid, publisher, event) {
                    Ok(true) => return Ok(Decision::rejected(&identity, &RejectError::Duplicate)),
                    Ok(false) => {}
                    Err(e) if e.is_unreachable() => return Ok(Decision::deferred(&identity, &e)),
                    Err(e) => return Err(e),
                }
            }
            Ok(d)
        }
        (Some(GrpMutant::DedupBeforeSignature), Some(files), _) if r01 => {
            // The pair is looked up before any check; it is recorded only on admission.
            if let (identity, Ok(event)) = parse_event(line) {
                if files.contains(sid, &event.publisher_id, &event.event_id)? {
                    return Ok(Decision::rejected(&identity, &RejectError::Duplicate));
                }
            }
            grp.receiver.deliver(line)
        }
        (_, _, Some(unsigned)) if says_alg_none(line) => unsigned.deliver(line),
        _ => grp.receiver.deliver(line),
    }
}

/// Whether the line is a change event whose token header (its first segment, base64url JSON)
/// says `"alg": "none"`.
fn says_alg_none(line: &[u8]) -> bool {
    use base64::Engine as _;
    let (_, Ok(event)) = parse_event(line) else {
        return false;
    };
    let header = event
        .object
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
