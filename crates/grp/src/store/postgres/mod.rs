//! The PostgreSQL store (`postgres://…`): one admitted set shared by several receiver nodes,
//! namespaced by the cluster token ([`target`]), its open refusals and what a client error says
//! about the link in `error`.
//!
//! Each pair's unique key is the SHA-256 of the length-prefixed (cluster, session, publisher,
//! event): a unique index on the values themselves would fail on an event id longer than an index
//! entry may be (about 2.7 kB), and untrusted input must not stop the store. The admission is one
//! statement, so one transaction: the pair and its admission record (which node admitted it,
//! when) are inserted together or not at all, and of any number of nodes inserting the same pair
//! at once exactly one gets the row. The statements are prepared once per connection, so an
//! admission, a batch's admissions and a hand-off mark are each one round trip.
//!
//! # Faults and refusals
//!
//! What cannot be mended by waiting is refused when the store is opened
//! ([`PostgresOpenError`]; a receiver reports it in one line and exits 2 before reading a line):
//! a URL with no host, a host name that does not resolve, TLS required of a server without it,
//! missing or wrong credentials, an unknown database, a value the client refuses to send, a
//! database without the store (unless the opening creates it), another schema version, tables
//! without the columns, types or unique keys the store uses (module `schema`). Only a fault that
//! may pass (`error::fault`: refused, reset, closed, timed out, the server starting up or out of
//! connections) opens the store unconnected: every call then tries to connect, and the line gets
//! [`StoreError::unreachable`] (the receiver's `deferred` decision) until one does. A connection
//! made later is checked the same way: a refusal then fails the store (exit 2), a fault defers.
//!
//! Every round trip is bounded ([`ROUND_TRIP_LIMIT`]); a link refused, lost or cut gives
//! [`StoreError::unreachable`], the connection is dropped, and the next call connects afresh
//! (and checks the tables again). A round trip that timed out gives [`StoreError::timed_out`] and
//! opens a circuit breaker (module `breaker`): for a short, growing interval calls are deferred at
//! once without touching the network, so a silent server costs a few seconds a minute, not a
//! limit per line.
//!
//! # An admission whose outcome is unknown
//!
//! When the link fails after the admission was sent, it may have committed with only its answer
//! lost. The line is deferred and the admission kept as unresolved, in memory (module `attempts`:
//! why in memory); each admission writes a token of its own attempt with the pair, so the
//! re-delivery can tell this store's unanswered admission (it stands: `admitted`, once, and the
//! hand-off is marked as for any admission) from anyone else's (a duplicate). A pair with no
//! unresolved admission is decided as always: one found recorded is a duplicate, whoever
//! recorded it.
//!
//! The node's name reaches the server as the connection's `application_name` startup parameter,
//! never inside SQL; every value in a statement is a bound parameter.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};
use tokio::runtime::Runtime;
use tokio_postgres::{Client, NoTls, Statement};

use super::{admit_each, Admission, AdmissionStore, Create, Durability, Opening, StoreError};

mod attempts;
mod breaker;
mod error;
mod schema;
pub mod target;

use attempts::{Attempt, Attempts, PairKey};
use breaker::Breaker;
pub use breaker::{FIRST_OPEN, LONGEST_OPEN, PROBE_LIMIT};
pub use error::PostgresOpenError;
use error::{describe, fault, store_error, Fault};
pub use target::{PostgresTarget, TargetError};

/// The schema version this build reads and creates (`agentconf_grp_schema`). Version 2 added
/// the attempt token to each pair (`agentconf_grp_admitted.attempt`); a version-1 store is
/// refused.
pub const SCHEMA_VERSION: i32 = 2;

/// The longest any one database round trip (connecting with its setup and schema check, or one
/// statement) may take before the store is taken as unreachable: short enough that a cut link
/// gives `deferred` well inside a harness's deadline (at most two limits per line: a connection,
/// then the admission; after a timeout the breaker defers at once), long enough for a loaded
/// server.
pub const ROUND_TRIP_LIMIT: Duration = Duration::from_secs(3);

/// The admission: the pair with this attempt's token, and its record only when the pair was
/// new. One statement, so one transaction; the unique key decides. Prepared on each connection.
const ADMIT: &str = "
    WITH pair AS (
        INSERT INTO agentconf_grp_admitted
            (pair_key, scope_key, cluster, session_id, publisher_id, event_id, attempt)
        VALUES ($1, $2, $3, $4, $5, $6, $8)
        ON CONFLICT (pair_key) DO NOTHING
        RETURNING pair_key, scope_key
    )
    INSERT INTO agentconf_grp_admissions (pair_key, scope_key, node)
    SELECT pair_key, scope_key, $7 FROM pair";

/// The admission of a batch's distinct pairs: [`ADMIT`] for many rows, one statement, so one
/// transaction and one commit. Each row carries its own attempt token (an unresolved pair keeps
/// its earlier one); the pairs inserted come back, so each pair's answer is known once the
/// statement's commit is.
const ADMIT_MANY: &str = "
    WITH pair AS (
        INSERT INTO agentconf_grp_admitted
            (pair_key, scope_key, cluster, session_id, publisher_id, event_id, attempt)
        SELECT given.pair_key, $2::bytea, $3::bytea, $4::bytea, given.publisher_id,
               given.event_id, given.attempt
        FROM unnest($1::bytea[], $5::bytea[], $6::bytea[], $8::bytea[])
            AS given (pair_key, publisher_id, event_id, attempt)
        ON CONFLICT (pair_key) DO NOTHING
        RETURNING pair_key, scope_key
    ), record AS (
        INSERT INTO agentconf_grp_admissions (pair_key, scope_key, node)
        SELECT pair_key, scope_key, $7::text FROM pair
    )
    SELECT pair_key FROM pair";

/// [`HAND_OFF`] for many pairs at once, as unflushed.
const HAND_OFF_MANY: &str = "
    WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
    UPDATE agentconf_grp_admitted SET handed_off = true
    WHERE pair_key = ANY($1::bytea[]) AND EXISTS (SELECT 1 FROM relaxed)";

/// Which attempt recorded a pair, and whether its hand-off is done.
const RECORDED_BY: &str =
    "SELECT attempt, handed_off FROM agentconf_grp_admitted WHERE pair_key = $1";

/// The hand-off mark, committed without waiting for its flush (as the SQLite store writes it
/// unsynced): if it is lost, the pair is merely pending and recovery resumes it, while the
/// admission itself was flushed before the hand-off. `set_config(…, true)` holds for this
/// statement's own transaction, whose commit it governs.
const HAND_OFF: &str = "
    WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
    UPDATE agentconf_grp_admitted SET handed_off = true
    WHERE pair_key = $1 AND EXISTS (SELECT 1 FROM relaxed)";

/// A store on PostgreSQL, shared by every receiver node that reaches the same database with the
/// same cluster token.
pub struct PostgresStore {
    target: PostgresTarget,
    /// The target as messages show it (no password).
    shown: String,
    /// The client's configuration: the URL's, with the node's `application_name`.
    config: tokio_postgres::Config,
    durability: Durability,
    link: Mutex<Link>,
    attempts: Attempts,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PostgresStore({})", self.shown)
    }
}

/// The runtime the client is driven on, the connection when there is a live one, and what the
/// next connection may do and when it may be tried.
struct Link {
    runtime: Runtime,
    live: Option<Live>,
    /// Whether a connection may create the schema: until the first connection that found or made
    /// it (an open that could not reach the database leaves that to the first admission).
    create: Create,
    breaker: Breaker,
}

/// A connection, set up and checked, with its prepared statements: an admission and a
/// hand-off mark each cost one round trip, alone or for a batch.
#[derive(Clone)]
struct Live {
    client: Arc<Client>,
    admit: Statement,
    admit_many: Statement,
    hand_off: Statement,
    hand_off_many: Statement,
}

/// How a round trip failed: before its statement was sent (connecting, or deferred by the
/// breaker), or after, when the statement may have run.
enum Tripped {
    Unsent(StoreError),
    Sent(StoreError),
}

impl Tripped {
    fn into_error(self) -> StoreError {
        match self {
            Tripped::Unsent(e) | Tripped::Sent(e) => e,
        }
    }
}

impl PostgresStore {
    /// Opens the store `target` names, as `opening` says. A database that cannot be reached now
    /// for a reason that may pass is not an error here, except when the opening only creates:
    /// the store opens unconnected and every admission tries to connect
    /// ([`StoreError::unreachable`] until one does). Anything else is refused: a configuration
    /// the client cannot use, a database that refuses the connection, and, from a database that
    /// answers, no store (unless created), another schema version or other tables.
    pub fn open(
        target: &PostgresTarget,
        opening: Opening,
    ) -> Result<PostgresStore, PostgresOpenError> {
        let mut config = target.config().map_err(PostgresOpenError::Target)?;
        // A startup parameter, not a `SET`: the name is a value and never becomes SQL.
        config.application_name(format!("agentconf-grp {}", target.node));
        let shown = target.to_string();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| PostgresOpenError::Database {
                target: shown.clone(),
                why: format!("cannot start the client's runtime: {e}"),
            })?;
        let store = PostgresStore {
            target: target.clone(),
            shown,
            config,
            durability: opening.durability,
            link: Mutex::new(Link {
                runtime,
                live: None,
                create: opening.create,
                breaker: Breaker::default(),
            }),
            attempts: Attempts::new(),
        };
        let connected = match store.link() {
            Ok(mut link) => store.connect(&mut link).map(drop),
            Err(e) => Err(Opened::Poisoned(e.message().to_string())),
        };
        match connected {
            Ok(()) => Ok(store),
            Err(e) if e.passes() && opening.create != Create::Only => Ok(store),
            Err(e) => Err(store.open_error(e)),
        }
    }

    /// The database and namespace this store uses.
    pub fn target(&self) -> &PostgresTarget {
        &self.target
    }

    /// Whether the pair is recorded (a look-up alone: the admission is [`AdmissionStore::admit`],
    /// which needs none).
    pub fn contains(
        &self,
        session: &str,
        publisher: &str,
        event: &str,
    ) -> Result<bool, StoreError> {
        let key = self.pair_key(session, publisher, event);
        let rows = self.round_trip("look up a pair", |live| async move {
            live.client
                .query(
                    "SELECT 1 FROM agentconf_grp_admitted WHERE pair_key = $1",
                    &[&key.as_slice()],
                )
                .await
        })?;
        Ok(!rows.is_empty())
    }

    fn link(&self) -> Result<MutexGuard<'_, Link>, StoreError> {
        self.link
            .lock()
            .map_err(|_| StoreError::new("PostgreSQL link poisoned by a panic"))
    }

    /// The live connection, or a new one: connected, set up and checked (or, as allowed, the
    /// schema created), the whole within one [`ROUND_TRIP_LIMIT`]. A timeout opens the breaker.
    fn connect(&self, link: &mut Link) -> Result<Live, Opened> {
        if let Some(live) = link.live.as_ref().filter(|l| !l.client.is_closed()) {
            return Ok(live.clone());
        }
        link.live = None;
        let create = link.create;
        let limit = link.breaker.limit();
        let made = link.runtime.block_on(async {
            tokio::time::timeout(limit, self.open_connection(create))
                .await
                .unwrap_or(Err(Opened::TimedOut))
        });
        let live = match made {
            Ok(live) => live,
            Err(e) => {
                if e.timed_out() {
                    link.breaker.timed_out(Instant::now());
                }
                return Err(e);
            }
        };
        // The schema is there now: a later connection that finds none finds it removed.
        link.create = Create::Never;
        link.live = Some(live.clone());
        Ok(live)
    }

    /// One connection, set up and checked, within [`ROUND_TRIP_LIMIT`] per round trip.
    async fn open_connection(&self, create: Create) -> Result<Live, Opened> {
        let (mut client, connection) = bounded(self.config.connect(NoTls)).await?;
        // The connection task runs whenever the runtime does: during each call's `block_on`.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let synchronous_commit = match self.durability {
            Durability::PowerLoss => "on",
            // The receiver's crash loses nothing the server committed; the server's own crash
            // may lose its last moments of commits.
            Durability::ProcessCrash => "off",
        };
        // Constants only: no value from outside is ever part of a statement's text.
        let limit = ROUND_TRIP_LIMIT.as_millis();
        bounded(client.batch_execute(&format!(
            "SET statement_timeout = {limit}; SET lock_timeout = {limit};
             SET synchronous_commit = {synchronous_commit}"
        )))
        .await?;
        schema::settle(&mut client, create).await?;
        let admit = bounded(client.prepare(ADMIT)).await?;
        let admit_many = bounded(client.prepare(ADMIT_MANY)).await?;
        let hand_off = bounded(client.prepare(HAND_OFF)).await?;
        let hand_off_many = bounded(client.prepare(HAND_OFF_MANY)).await?;
        Ok(Live {
            client: Arc::new(client),
            admit,
            admit_many,
            hand_off,
            hand_off_many,
        })
    }

    fn open_error(&self, e: Opened) -> PostgresOpenError {
        let target = self.shown.clone();
        match e {
            Opened::Client(e) => {
                let why = describe(&e);
                if fault(&e) != Fault::Permanent {
                    PostgresOpenError::Unreachable { target, why }
                } else if e.code().is_some() {
                    PostgresOpenError::Database { target, why }
                } else {
                    PostgresOpenError::Configuration { target, why }
                }
            }
            Opened::TimedOut => PostgresOpenError::Unreachable {
                target,
                why: format!("no answer within {ROUND_TRIP_LIMIT:?}"),
            },
            Opened::NoSchema => PostgresOpenError::NoSchema { target },
            Opened::Exists => PostgresOpenError::Exists { target },
            Opened::Version(found) => PostgresOpenError::Version { target, found },
            Opened::Layout(why) => PostgresOpenError::Layout { target, why },
            Opened::Poisoned(why) => PostgresOpenError::Database { target, why },
        }
    }

    /// A failed connection as the error of the call that needed it: a fault defers the line
    /// (a timeout as [`StoreError::timed_out`]), a refusal fails the store.
    fn connect_error(&self, e: Opened) -> StoreError {
        match e {
            Opened::Client(e) if fault(&e) != Fault::Permanent => {
                store_error(&self.shown, "connect", &e)
            }
            Opened::TimedOut => StoreError::timed_out(format!(
                "{}: connect: no answer within {ROUND_TRIP_LIMIT:?}",
                self.shown
            )),
            e => StoreError::new(self.open_error(e).to_string()),
        }
    }

    /// Runs `op` on a live connection (made first if there is none) within
    /// [`ROUND_TRIP_LIMIT`], unless the breaker is open. When the link fails, the connection is
    /// dropped so that the next call connects afresh.
    fn round_trip<T, F, Fut>(&self, what: &str, op: F) -> Result<T, StoreError>
    where
        F: FnOnce(Live) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        self.trip(what, op).map_err(Tripped::into_error)
    }

    /// [`Self::round_trip`], saying whether a failure came before the statement was sent.
    fn trip<T, F, Fut>(&self, what: &str, op: F) -> Result<T, Tripped>
    where
        F: FnOnce(Live) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let mut guard = self.link().map_err(Tripped::Unsent)?;
        let link = &mut *guard;
        if let Some(left) = link.breaker.open_for(Instant::now()) {
            return Err(Tripped::Unsent(StoreError::timed_out(format!(
                "{}: {what}: not tried: the circuit breaker is open for another {:.2} s (after \
                 {} consecutive round trips without an answer within {ROUND_TRIP_LIMIT:?})",
                self.shown,
                left.as_secs_f64(),
                link.breaker.timeouts()
            ))));
        }
        let live = match self.connect(link) {
            Ok(live) => live,
            Err(e) => {
                let error = self.connect_error(e);
                return Err(Tripped::Unsent(backing_off(error, &link.breaker)));
            }
        };
        // A probe after a timeout waits the breaker's shorter limit.
        let limit = link.breaker.limit();
        let answered = link.runtime.block_on(async {
            tokio::time::timeout(limit, bounded(op(live)))
                .await
                .unwrap_or(Err(Opened::TimedOut))
        });
        let error = match answered {
            Ok(value) => {
                link.breaker.answered();
                return Ok(value);
            }
            Err(Opened::Client(e)) => store_error(&self.shown, what, &e),
            Err(_) => StoreError::timed_out(format!(
                "{}: {what}: no answer within {limit:?}",
                self.shown
            )),
        };
        if error.is_unreachable() {
            link.live = None;
        }
        if error.is_timeout() {
            link.breaker.timed_out(Instant::now());
        }
        Err(Tripped::Sent(backing_off(error, &link.breaker)))
    }

    /// Whether the pair, found recorded, was recorded by one of `attempts` (this store's
    /// admissions whose outcome it does not know) and not yet handed off: the admission stands.
    fn recorded_by(&self, pair: &PairKey, attempts: &[Attempt]) -> Result<bool, StoreError> {
        let rows = self.round_trip("look up an unresolved admission", |live| async move {
            live.client.query(RECORDED_BY, &[&pair.as_slice()]).await
        })?;
        let Some(row) = rows.first() else {
            // Deleted since (its session closed): not this admission's to resume.
            return Ok(false);
        };
        let attempt: Vec<u8> = row
            .try_get(0)
            .map_err(|e| StoreError::new(format!("a stored attempt: {e}")))?;
        let handed_off: bool = row
            .try_get(1)
            .map_err(|e| StoreError::new(format!("a stored hand-off mark: {e}")))?;
        Ok(!handed_off && attempts.iter().any(|a| a[..] == attempt[..]))
    }

    fn pair_key(&self, session: &str, publisher: &str, event: &str) -> PairKey {
        key_of(&[&self.target.cluster, session, publisher, event])
    }

    fn scope_key(&self, session: &str) -> [u8; 32] {
        key_of(&[&self.target.cluster, session])
    }
}

/// A timeout's error, saying for how long the breaker it opened defers calls.
fn backing_off(error: StoreError, breaker: &Breaker) -> StoreError {
    match breaker.open_for(Instant::now()) {
        Some(open) if error.is_timeout() => StoreError::timed_out(format!(
            "{}; the circuit breaker is open for {:.2} s",
            error.message(),
            open.as_secs_f64()
        )),
        _ => error,
    }
}

/// What a connection attempt (or a round trip) met.
enum Opened {
    Client(tokio_postgres::Error),
    TimedOut,
    NoSchema,
    Exists,
    Version(String),
    Layout(String),
    Poisoned(String),
}

impl Opened {
    /// A fault that may pass (the store opens unconnected), not a refusal.
    fn passes(&self) -> bool {
        match self {
            Opened::Client(e) => fault(e) != Fault::Permanent,
            Opened::TimedOut => true,
            _ => false,
        }
    }

    /// No answer in time, from the client's limit or the server's.
    fn timed_out(&self) -> bool {
        match self {
            Opened::Client(e) => fault(e) == Fault::Timeout,
            Opened::TimedOut => true,
            _ => false,
        }
    }
}

impl From<tokio_postgres::Error> for Opened {
    fn from(e: tokio_postgres::Error) -> Self {
        Opened::Client(e)
    }
}

/// `future` within [`ROUND_TRIP_LIMIT`].
async fn bounded<T>(
    future: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, Opened> {
    match tokio::time::timeout(ROUND_TRIP_LIMIT, future).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(Opened::TimedOut),
    }
}

/// SHA-256 of the parts, each prefixed by its length, so that no two tuples share a key.
fn key_of(parts: &[&str]) -> [u8; 32] {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hash.finalize().into()
}

impl AdmissionStore for PostgresStore {
    /// One statement; for a pair with an unresolved admission of this store's, a second that
    /// reads which attempt recorded it when the first finds it recorded.
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let pair = self.pair_key(session, publisher, event);
        let scope = self.scope_key(session);
        let cluster = self.target.cluster.as_bytes();
        let node = self.target.node.as_str();
        let unresolved = self.attempts.take(&pair)?;
        // An unresolved pair is tried with its earlier token: if that admission never
        // committed, this one records the same attempt.
        let attempt = unresolved
            .first()
            .copied()
            .unwrap_or_else(|| self.attempts.next());
        let tried = self.trip("admit a pair", |live| async move {
            live.client
                .execute(
                    &live.admit,
                    &[
                        &pair.as_slice(),
                        &scope.as_slice(),
                        &cluster,
                        &session.as_bytes(),
                        &publisher.as_bytes(),
                        &event.as_bytes(),
                        &node,
                        &attempt.as_slice(),
                    ],
                )
                .await
        });
        let inserted = match tried {
            Ok(inserted) => inserted,
            Err(Tripped::Unsent(e)) => {
                self.attempts.keep(pair, unresolved)?;
                return Err(e);
            }
            Err(Tripped::Sent(e)) => {
                // It may have committed: unresolved until the pair comes again.
                let mut keep = unresolved;
                keep.push(attempt);
                self.attempts.keep(pair, keep)?;
                return Err(e);
            }
        };
        if inserted > 0 {
            return Ok(Admission::Admitted);
        }
        if unresolved.is_empty() {
            return Ok(Admission::Duplicate);
        }
        match self.recorded_by(&pair, &unresolved) {
            Ok(true) => Ok(Admission::Admitted),
            Ok(false) => Ok(Admission::Duplicate),
            Err(e) => {
                self.attempts.keep(pair, unresolved)?;
                Err(e)
            }
        }
    }

    /// A batch of two or more: its distinct pairs in one statement ([`ADMIT_MANY`]), with the
    /// same unresolved-attempt rules as [`Self::admit`] for each pair; a later copy of a pair in
    /// the batch is a duplicate of the first (or, when the first is not decided, not decided
    /// either).
    fn admit_batch(
        &self,
        session: &str,
        pairs: &[(&str, &str)],
    ) -> Vec<Result<Admission, StoreError>> {
        if pairs.len() < 2 {
            return admit_each(self, session, pairs);
        }
        let keys: Vec<PairKey> = pairs
            .iter()
            .map(|(publisher, event)| self.pair_key(session, publisher, event))
            .collect();
        // Each pair's first place in the batch; `distinct` lists those places in order.
        let mut first: std::collections::HashMap<PairKey, usize> = Default::default();
        let mut distinct = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            first.entry(*key).or_insert_with(|| {
                distinct.push(i);
                i
            });
        }
        let mut unresolved = Vec::with_capacity(distinct.len());
        for &i in &distinct {
            match self.attempts.take(&keys[i]) {
                Ok(kept) => unresolved.push(kept),
                Err(e) => return pairs.iter().map(|_| Err(e.clone())).collect(),
            }
        }
        let attempts: Vec<Attempt> = unresolved
            .iter()
            .map(|kept| {
                kept.first()
                    .copied()
                    .unwrap_or_else(|| self.attempts.next())
            })
            .collect();
        let scope = self.scope_key(session);
        let cluster = self.target.cluster.as_bytes();
        let node = self.target.node.as_str();
        let column = |f: &dyn Fn(usize) -> Vec<u8>| distinct.iter().map(|&i| f(i)).collect();
        let pair_keys: Vec<Vec<u8>> = column(&|i| keys[i].to_vec());
        let publishers: Vec<Vec<u8>> = column(&|i| pairs[i].0.as_bytes().to_vec());
        let events: Vec<Vec<u8>> = column(&|i| pairs[i].1.as_bytes().to_vec());
        let tokens: Vec<Vec<u8>> = attempts.iter().map(|a| a.to_vec()).collect();
        let tried = self.trip("admit pairs", |live| async move {
            live.client
                .query(
                    &live.admit_many,
                    &[
                        &pair_keys,
                        &scope.as_slice(),
                        &cluster,
                        &session.as_bytes(),
                        &publishers,
                        &events,
                        &node,
                        &tokens,
                    ],
                )
                .await
        });
        let mut decided: Vec<Result<Admission, StoreError>> = Vec::with_capacity(distinct.len());
        match tried {
            Ok(rows) => {
                let mut inserted = std::collections::HashSet::new();
                for row in &rows {
                    match row.try_get::<_, Vec<u8>>(0) {
                        Ok(key) => {
                            inserted.insert(key);
                        }
                        Err(e) => {
                            // Committed, but which pairs is unreadable: each stays unresolved
                            // with this attempt, to be resolved when it comes again.
                            let e = StoreError::new(format!("an inserted pair's key: {e}"));
                            for (d, kept) in unresolved.into_iter().enumerate() {
                                let mut keep = kept;
                                keep.push(attempts[d]);
                                let _ = self.attempts.keep(keys[distinct[d]], keep);
                            }
                            return pairs.iter().map(|_| Err(e.clone())).collect();
                        }
                    }
                }
                for (d, kept) in unresolved.into_iter().enumerate() {
                    let key = keys[distinct[d]];
                    decided.push(if inserted.contains(&key[..]) {
                        Ok(Admission::Admitted)
                    } else if kept.is_empty() {
                        Ok(Admission::Duplicate)
                    } else {
                        match self.recorded_by(&key, &kept) {
                            Ok(true) => Ok(Admission::Admitted),
                            Ok(false) => Ok(Admission::Duplicate),
                            Err(e) => match self.attempts.keep(key, kept) {
                                Ok(()) => Err(e),
                                Err(lost) => Err(lost),
                            },
                        }
                    });
                }
            }
            Err(tripped) => {
                let sent = matches!(tripped, Tripped::Sent(_));
                let e = tripped.into_error();
                for (d, kept) in unresolved.into_iter().enumerate() {
                    let mut keep = kept;
                    if sent {
                        // It may have committed: unresolved until the pair comes again.
                        keep.push(attempts[d]);
                    }
                    if let Err(lost) = self.attempts.keep(keys[distinct[d]], keep) {
                        return pairs.iter().map(|_| Err(lost.clone())).collect();
                    }
                }
                return pairs.iter().map(|_| Err(e.clone())).collect();
            }
        }
        keys.iter()
            .enumerate()
            .map(|(i, key)| {
                let at = first[key];
                let d = distinct.binary_search(&at).unwrap_or_default();
                match &decided[d] {
                    first_copy if at == i => first_copy.clone(),
                    Ok(_) => Ok(Admission::Duplicate),
                    Err(e) => Err(e.clone()),
                }
            })
            .collect()
    }

    fn handed_off_batch(&self, session: &str, pairs: &[(&str, &str)]) -> Result<(), StoreError> {
        if pairs.len() < 2 {
            return pairs
                .iter()
                .try_for_each(|(publisher, event)| self.handed_off(session, publisher, event));
        }
        let keys: Vec<Vec<u8>> = pairs
            .iter()
            .map(|(publisher, event)| self.pair_key(session, publisher, event).to_vec())
            .collect();
        self.round_trip("mark hand-offs", |live| async move {
            live.client.execute(&live.hand_off_many, &[&keys]).await
        })
        .map(|_| ())
    }

    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        let pair = self.pair_key(session, publisher, event);
        self.round_trip("mark a hand-off", |live| async move {
            live.client
                .execute(&live.hand_off, &[&pair.as_slice()])
                .await
        })
        .map(|_| ())
    }

    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let scope = self.scope_key(session);
        let rows = self.round_trip("list pending hand-offs", |live| async move {
            live.client
                .query(
                    "SELECT publisher_id, event_id FROM agentconf_grp_admitted
                     WHERE scope_key = $1 AND NOT handed_off ORDER BY publisher_id, event_id",
                    &[&scope.as_slice()],
                )
                .await
        })?;
        rows.iter()
            .map(|row| Ok((text(row.try_get(0))?, text(row.try_get(1))?)))
            .collect()
    }

    fn count(&self, session: &str) -> Result<u64, StoreError> {
        let scope = self.scope_key(session);
        let row = self.round_trip("count pairs", |live| async move {
            live.client
                .query_one(
                    "SELECT count(*) FROM agentconf_grp_admitted WHERE scope_key = $1",
                    &[&scope.as_slice()],
                )
                .await
        })?;
        number(row.try_get(0))
    }

    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        let scope = self.scope_key(session);
        let row = self.round_trip("close a session", |live| async move {
            // One statement: the pairs and their records go together.
            live.client
                .query_one(
                    "WITH records AS (
                         DELETE FROM agentconf_grp_admissions WHERE scope_key = $1
                     ), pairs AS (
                         DELETE FROM agentconf_grp_admitted WHERE scope_key = $1 RETURNING 1
                     )
                     SELECT count(*) FROM pairs",
                    &[&scope.as_slice()],
                )
                .await
        })?;
        number(row.try_get(0))
    }

    fn is_durable(&self) -> bool {
        true
    }
}

/// A stored id as text (every one was written from a `&str`).
fn text(column: Result<Vec<u8>, tokio_postgres::Error>) -> Result<String, StoreError> {
    let bytes = column.map_err(|e| StoreError::new(format!("a stored id: {e}")))?;
    String::from_utf8(bytes).map_err(|_| StoreError::new("a stored id is not UTF-8"))
}

/// A count the database returned.
fn number(column: Result<i64, tokio_postgres::Error>) -> Result<u64, StoreError> {
    let n = column.map_err(|e| StoreError::new(format!("a count: {e}")))?;
    Ok(n.max(0) as u64)
}
