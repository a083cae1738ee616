//! Admission stores: the set of `(publisher_id, event_id)` pairs admitted in a session.
//!
//! Semantics (spec-notes/grp-admission.md): admitting a pair is one atomic insert under the
//! unique key (session, publisher, event) that commits *before* the event is handed on; the row
//! records whether the hand-off completed. After a crash, a row still marked pending is a
//! hand-off to *resume* (the first admission happened; its measure may not have run), while a
//! re-delivery of a pair that exists is a *duplicate* and is rejected. A closed session's pairs
//! are deleted.
//!
//! A SQLite store is created by an explicit act ([`SqliteStore::create`]) and opened only when
//! it exists and is whole ([`SqliteStore::open`]): a store that was deleted, zeroed or damaged
//! is refused ([`OpenError`]), never replaced by an empty one, which would re-arm every replay.
//!
//! # What the SQLite store can and cannot detect
//!
//! Detected, and failed closed (nothing admitted; a receiver exits 2):
//!
//! - at open: no store (never made on first use); a store deleted with its journals or its
//!   generation record left beside it; an empty or truncated file; a file of another kind or
//!   layout; damage SQLite's `integrity_check` reports; a row whose values do not match its
//!   check value; a row lost or added (the row count); a trigger changed;
//! - while open, before each insert: the store file, its write-ahead log, its shared-memory index
//!   or its generation record removed or replaced. That admission fails and nothing more is
//!   admitted through the store;
//! - at open, against the generation record beside the store (`STORE-generation`, which names the
//!   store and counts every admission it recorded): admissions lost from the file (its log removed
//!   while a receiver had it open, the receiver then killed), an older copy of the store put back,
//!   another store (another session's, or a new empty one) put in its place.
//!
//! Not detected:
//!
//! - the store and its generation record replaced together by a copy of both, or the record
//!   removed too (a store without one starts a new record from what it holds). Whoever can write
//!   the directory can do this; only a count kept out of that writer's reach (another machine, a
//!   hardware counter) could tell. A key kept beside the store would not help either: the same
//!   writer reads it. So the row checks stay unkeyed: they catch damage, not a writer who
//!   recomputes them;
//! - admissions lost to a power loss within moments of being recorded: the record is not synced,
//!   so it can be left behind the store (never ahead of it);
//! - a file removed in the instant between the look before an insert and the insert: that
//!   receiver goes on, but the record counts the admission, so its loss is refused at the next
//!   open;
//! - a store deleted together with everything beside it: a missing store is refused, but in the
//!   contract's `STATE_DIR` that leaves an empty directory, the harness's sign for a fresh store.
//!
//! Backends: [`MemoryStore`] (`memory`), [`SqliteStore`] (`sqlite:PATH`, and the contract's
//! receiver's store in its `STATE_DIR`, [`state_dir`]), [`PostgresStore`] (`postgres://…`, one
//! set shared by several receiver nodes; a configuration it cannot use is refused at open, while
//! a link that fails for a while defers the line instead of deciding it, see [`postgres`]). A
//! receiver gets its store from a spec
//! through one opener ([`StoreSpec::open`], or [`open`] for a spec string), boxed
//! ([`BoxedStore`]), so that a new backend is one module and its arm there.

use std::fmt;

// The backends that keep a set on disk or in a database are features (`sqlite`, on by default;
// `postgres`): a crate that only signs, reads or checks events (the corpus) compiles neither a
// database client nor an async runtime.
mod env;
mod memory;
#[cfg(feature = "postgres")]
pub mod postgres;
mod spec;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "sqlite")]
pub mod state_dir;
#[cfg(all(test, feature = "sqlite"))]
mod tests;

pub use env::ClusterEnv;
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresOpenError, PostgresStore, PostgresTarget};
pub use spec::{open, Create, OpenStoreError, Opening, StoreSpec};
#[cfg(feature = "sqlite")]
pub use sqlite::{row_check, OpenError, Refusal, SqliteStore};
#[cfg(feature = "sqlite")]
pub use state_dir::{StateDirError, STATE_FILE};

/// How far a committed admission is durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Every admission is synced to disk before it is handed on (`synchronous=FULL`): it survives
    /// a power loss or OS crash, at the cost of one fsync per admission.
    PowerLoss,
    /// Admissions survive a crash or kill of the receiver process, not of the machine
    /// (`synchronous=NORMAL` in WAL mode). This is what the `durable` profile tests.
    ProcessCrash,
}

/// What an attempt to admit a pair found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// This call recorded the pair: the caller hands the event on, then calls `handed_off`.
    Admitted,
    /// The pair was already recorded in this session.
    Duplicate,
}

/// A store failure. The receiver fails closed: nothing is handed on. Cloned when one failed
/// commit decides every pair of a batch ([`AdmissionStore::admit_batch`]).
#[derive(Clone, Debug)]
pub struct StoreError {
    message: String,
    unreachable: bool,
    /// Unreachable because no answer came in time (the link may be slow rather than cut).
    timed_out: bool,
}

impl StoreError {
    /// The store failed: the receiver stops (exit 2), nothing more is admitted through it.
    pub fn new(message: impl Into<String>) -> StoreError {
        StoreError {
            message: message.into(),
            unreachable: false,
            timed_out: false,
        }
    }

    /// The store could not be consulted now (a shared store's link refused, lost or timed out):
    /// the line gets the `deferred` decision, nothing is admitted, and the receiver goes on (the
    /// next line tries again).
    pub fn unreachable(message: impl Into<String>) -> StoreError {
        StoreError {
            message: message.into(),
            unreachable: true,
            timed_out: false,
        }
    }

    /// Unreachable because the store gave no answer in time: a stalled or slow link, or a
    /// silent server (what a deadline, not a refusal, ended), or a call a store deferred without
    /// trying while it backs off from such a server (the PostgreSQL store's circuit breaker).
    /// Also [`StoreError::is_unreachable`].
    pub fn timed_out(message: impl Into<String>) -> StoreError {
        StoreError {
            message: message.into(),
            unreachable: true,
            timed_out: true,
        }
    }

    /// Whether this is [`StoreError::unreachable`] (or [`StoreError::timed_out`]).
    pub fn is_unreachable(&self) -> bool {
        self.unreachable
    }

    /// Whether this is [`StoreError::timed_out`].
    pub fn is_timeout(&self) -> bool {
        self.timed_out
    }

    /// What went wrong, without the `admission store:` prefix.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "admission store: {}", self.message)
    }
}

#[cfg(feature = "sqlite")]
impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::new(e.to_string())
    }
}

/// The admitted set of one or more sessions.
pub trait AdmissionStore {
    /// Atomically records the pair unless present.
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError>;
    /// Records that the admitted pair's hand-off completed.
    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError>;
    /// Admits `pairs` (publisher, event) in order, as that many calls of [`Self::admit`] would
    /// decide them (a pair repeated in the batch is a duplicate the second time): one result per
    /// pair. A store with transactions commits them together, so that a batch costs one commit;
    /// a commit that fails decides none of them (every result is that error). This default
    /// admits one pair at a time and stops at the first failure that is not
    /// [`StoreError::unreachable`] (the pairs after it get that error, untried), as the
    /// receiver stops there.
    fn admit_batch(
        &self,
        session: &str,
        pairs: &[(&str, &str)],
    ) -> Vec<Result<Admission, StoreError>> {
        admit_each(self, session, pairs)
    }
    /// [`Self::handed_off`] for each pair; a store may write the marks together.
    fn handed_off_batch(&self, session: &str, pairs: &[(&str, &str)]) -> Result<(), StoreError> {
        pairs
            .iter()
            .try_for_each(|(publisher, event)| self.handed_off(session, publisher, event))
    }
    /// Pairs admitted but not yet handed off (after a crash: the hand-offs to resume).
    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError>;
    /// Number of pairs recorded for the session.
    fn count(&self, session: &str) -> Result<u64, StoreError>;
    /// Ends the session: its pairs are deleted. Returns how many.
    fn close_session(&self, session: &str) -> Result<u64, StoreError>;
    /// Whether the admitted set survives a restart of the receiver process.
    fn is_durable(&self) -> bool;
}

/// [`AdmissionStore::admit_batch`] one pair at a time (the default, and every store's way for a
/// batch of one).
pub fn admit_each<S: AdmissionStore + ?Sized>(
    store: &S,
    session: &str,
    pairs: &[(&str, &str)],
) -> Vec<Result<Admission, StoreError>> {
    let mut results = Vec::with_capacity(pairs.len());
    for (publisher, event) in pairs {
        let result = store.admit(session, publisher, event);
        let fatal = matches!(&result, Err(e) if !e.is_unreachable());
        results.push(result);
        if fatal {
            // Nothing more is admitted through a store that failed: the rest stay untried.
            while results.len() < pairs.len() {
                if let Some(Err(e)) = results.last() {
                    let e = e.clone();
                    results.push(Err(e));
                }
            }
            break;
        }
    }
    results
}

/// A store of any backend, as the opener hands it out: shareable between threads (the
/// copies of a `concurrent` step each deliver on their own).
pub type BoxedStore = Box<dyn AdmissionStore + Send + Sync>;

/// `AdmissionStore` for a pointer type, each call passed to the store it points to.
macro_rules! store_through {
    ($(#[$doc:meta])* $pointer:ty) => {
        $(#[$doc])*
        impl<S: AdmissionStore + ?Sized> AdmissionStore for $pointer {
            fn admit(
                &self,
                session: &str,
                publisher: &str,
                event: &str,
            ) -> Result<Admission, StoreError> {
                (**self).admit(session, publisher, event)
            }
            fn handed_off(
                &self,
                session: &str,
                publisher: &str,
                event: &str,
            ) -> Result<(), StoreError> {
                (**self).handed_off(session, publisher, event)
            }
            fn admit_batch(
                &self,
                session: &str,
                pairs: &[(&str, &str)],
            ) -> Vec<Result<Admission, StoreError>> {
                (**self).admit_batch(session, pairs)
            }
            fn handed_off_batch(
                &self,
                session: &str,
                pairs: &[(&str, &str)],
            ) -> Result<(), StoreError> {
                (**self).handed_off_batch(session, pairs)
            }
            fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
                (**self).pending(session)
            }
            fn count(&self, session: &str) -> Result<u64, StoreError> {
                (**self).count(session)
            }
            fn close_session(&self, session: &str) -> Result<u64, StoreError> {
                (**self).close_session(session)
            }
            fn is_durable(&self) -> bool {
                (**self).is_durable()
            }
        }
    };
}

store_through!(
    /// A boxed store is a store, so a receiver holds any backend the opener hands out.
    Box<S>
);
store_through!(
    /// A borrowed store is a store, so several receivers can share one.
    &S
);
