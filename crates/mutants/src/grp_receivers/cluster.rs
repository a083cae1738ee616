//! The cluster mutants' stores: the reference's shared PostgreSQL store (as the environment
//! names it, CONTRACT.md §5) used without its unique key, set aside when its link fails or is
//! slow, or answered `deferred` after a commit that went through.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use agentconf_grp::store::{
    Admission, AdmissionStore, BoxedStore, ClusterEnv, Opening, PostgresStore, StoreError,
    StoreSpec,
};

use super::stores::{widen, PairLookup};

/// The reference's shared store when the environment names a PostgreSQL one (`None`: the
/// receiver's store is not shared, and a cluster mutant is the reference).
pub fn shared_store(dir: &Path) -> Result<Option<PostgresStore>, String> {
    match StoreSpec::for_receiver(dir, &ClusterEnv::from_process()).map_err(|e| e.to_string())? {
        StoreSpec::Postgres(target) => PostgresStore::open(&target, Opening::RECEIVER)
            .map(Some)
            .map_err(|e| e.to_string()),
        _ => Ok(None),
    }
}

impl PairLookup for PostgresStore {
    fn contains(&self, session: &str, publisher: &str, event: &str) -> Result<bool, StoreError> {
        PostgresStore::contains(self, session, publisher, event)
    }
}

/// The shared store with one of two defects in how a pair is admitted; the rest (pending
/// hand-offs, counts, closing a session) is the shared store's.
pub struct Misused {
    pub shared: PostgresStore,
    pub defect: Defect,
}

/// How a [`Misused`] store admits.
pub enum Defect {
    /// A pair looked up and then inserted as if there were no unique key: the decision is the
    /// look-up's, whatever the insert finds. Two nodes that look the same pair up before either
    /// inserts it both admit it. The window between look-up and insert is widened as the file
    /// store's is (`stores::widen`), so that copies delivered at once to two nodes fall in it.
    LookupThenInsert { first: AtomicBool },
    /// The node's own SQLite store in its `STATE_DIR` for when the database cannot be reached
    /// (`on`: any fault, or only a timeout): a cut (or stalled) link admits against this node's
    /// pairs alone, so a copy another node admitted (or this node admits again after healing) is
    /// admitted twice, and an admission is made that the shared store never saw.
    LocalFallback { local: BoxedStore, on: Fault },
    /// The pair committed to the shared store, then answered as if the commit's outcome were
    /// unknown (`deferred`), and never resolved: the re-delivery finds the pair and is rejected
    /// as a duplicate, so no `admitted` answer is ever given for it.
    CommitThenDefer,
}

/// Which store errors a [`Defect::LocalFallback`] falls back on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Any error that says the store cannot be consulted now (refused, cut, timed out).
    Unreachable,
    /// Only an answer that did not come in time (a slow or stalled link, a silent server): a
    /// refused or closed link is deferred as the reference does.
    TimedOut,
}

impl Fault {
    fn matches(self, e: &StoreError) -> bool {
        match self {
            Fault::Unreachable => e.is_unreachable(),
            Fault::TimedOut => e.is_timeout(),
        }
    }
}

impl Misused {
    /// `op` on the shared store, or (local fallback) on the local one when the shared one is
    /// unreachable.
    fn either<T>(
        &self,
        op: impl Fn(&dyn AdmissionStore) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match (op(&self.shared), &self.defect) {
            (Err(e), Defect::LocalFallback { local, on }) if on.matches(&e) => op(local.as_ref()),
            (done, _) => done,
        }
    }
}

impl AdmissionStore for Misused {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        if let Defect::CommitThenDefer = self.defect {
            return match self.shared.admit(session, publisher, event)? {
                Admission::Admitted => Err(StoreError::unreachable(
                    "the commit's outcome is taken as unknown (grp-commit-then-defer)",
                )),
                duplicate => Ok(duplicate),
            };
        }
        let Defect::LookupThenInsert { first } = &self.defect else {
            return self.either(|store| store.admit(session, publisher, event));
        };
        if self.shared.contains(session, publisher, event)? {
            return Ok(Admission::Duplicate);
        }
        widen(first);
        // The defect: the insert's own answer (a duplicate, when another node got there first)
        // is not read.
        self.shared.admit(session, publisher, event)?;
        Ok(Admission::Admitted)
    }
    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        self.either(|store| store.handed_off(session, publisher, event))
    }
    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.shared.pending(session)
    }
    fn count(&self, session: &str) -> Result<u64, StoreError> {
        self.shared.count(session)
    }
    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        self.shared.close_session(session)
    }
    fn is_durable(&self) -> bool {
        true
    }
}
