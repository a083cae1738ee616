//! The PostgreSQL store (`postgres://…`): one admitted set shared by several receiver nodes,
//! namespaced by the cluster token ([`target`]), its open refusals and the errors that defer a
//! line rather than fail the store in [`error`].
//!
//! Each pair's unique key is the SHA-256 of the length-prefixed (cluster, session, publisher,
//! event): a unique index on the values themselves would fail on an event id longer than an index
//! entry may be (about 2.7 kB), and untrusted input must not stop the store. The admission is one
//! statement, so one transaction: the pair and its admission record (which node admitted it,
//! when) are inserted together or not at all, and of any number of nodes inserting the same pair
//! at once exactly one gets the row. Every round trip is bounded ([`ROUND_TRIP_LIMIT`]): a link
//! refused, lost, cut or stalled gives [`StoreError::unreachable`] (the receiver's `deferred`
//! decision), the connection is dropped, and the next call connects afresh and checks the schema
//! version again.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use sha2::{Digest as _, Sha256};
use tokio::runtime::Runtime;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

use super::{Admission, AdmissionStore, Create, Durability, Opening, StoreError};

mod error;
pub mod target;

pub use error::PostgresOpenError;
use error::{describe, is_unreachable, store_error};
pub use target::{ClusterEnv, PostgresTarget, TargetError};

/// The schema version this build reads and creates (`agentconf_grp_schema`).
pub const SCHEMA_VERSION: i32 = 1;

/// The longest any one database round trip (connecting with its setup and schema check, or one
/// statement) may take before the store is taken as unreachable: short enough that a cut link
/// gives `deferred` well inside a harness's deadline (at most two limits per line: a connection,
/// then the admission), long enough for a loaded server.
pub const ROUND_TRIP_LIMIT: Duration = Duration::from_secs(3);

/// The tables, created together under an advisory lock so that nodes starting at once on an
/// empty database make them once.
const SCHEMA: &str = "
    SELECT pg_advisory_xact_lock(4242001);
    CREATE TABLE IF NOT EXISTS agentconf_grp_schema (version integer NOT NULL);
    CREATE TABLE IF NOT EXISTS agentconf_grp_admitted (
        pair_key bytea PRIMARY KEY,
        scope_key bytea NOT NULL,
        cluster bytea NOT NULL,
        session_id bytea NOT NULL,
        publisher_id bytea NOT NULL,
        event_id bytea NOT NULL,
        handed_off boolean NOT NULL DEFAULT false
    );
    CREATE INDEX IF NOT EXISTS agentconf_grp_admitted_scope
        ON agentconf_grp_admitted (scope_key);
    CREATE TABLE IF NOT EXISTS agentconf_grp_admissions (
        seq bigserial PRIMARY KEY,
        pair_key bytea NOT NULL UNIQUE,
        scope_key bytea NOT NULL,
        node text NOT NULL,
        admitted_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO agentconf_grp_schema (version)
        SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM agentconf_grp_schema);
";

/// The admission: the pair, and its record only when the pair was new. One statement, so one
/// transaction; the unique key decides.
const ADMIT: &str = "
    WITH pair AS (
        INSERT INTO agentconf_grp_admitted
            (pair_key, scope_key, cluster, session_id, publisher_id, event_id)
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (pair_key) DO NOTHING
        RETURNING pair_key, scope_key
    )
    INSERT INTO agentconf_grp_admissions (pair_key, scope_key, node)
    SELECT pair_key, scope_key, $7 FROM pair";

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
    config: tokio_postgres::Config,
    durability: Durability,
    /// Whether a connection may create the schema: until the first connection that found or made
    /// it (an open that could not reach the database leaves that to the first admission).
    create: Mutex<Create>,
    link: Mutex<Link>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PostgresStore({})", self.shown)
    }
}

/// The runtime the client is driven on, and the connection when there is a live one.
struct Link {
    runtime: Runtime,
    client: Option<Arc<Client>>,
}

impl PostgresStore {
    /// Opens the store `target` names, as `opening` says. A database that cannot be reached is
    /// not an error here, except when the opening only creates: the store opens unconnected and
    /// every admission tries to connect ([`StoreError::unreachable`] until one does). A database
    /// that answers is checked now: its schema version, or its lack of a store.
    pub fn open(
        target: &PostgresTarget,
        opening: Opening,
    ) -> Result<PostgresStore, PostgresOpenError> {
        let config = target.config().map_err(PostgresOpenError::Target)?;
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
            create: Mutex::new(opening.create),
            link: Mutex::new(Link {
                runtime,
                client: None,
            }),
        };
        match store.connect() {
            Ok(_) => Ok(store),
            Err(PostgresOpenError::Unreachable { .. }) if opening.create != Create::Only => {
                Ok(store)
            }
            Err(e) => Err(e),
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
        let rows = self.round_trip("look up a pair", |client| async move {
            client
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

    /// Connects, sets the session up and checks (or, as allowed, creates) the schema; the live
    /// connection is kept for the calls that follow.
    fn connect(&self) -> Result<Arc<Client>, PostgresOpenError> {
        let database = |why: String| PostgresOpenError::Database {
            target: self.shown.clone(),
            why,
        };
        let mut link = self.link().map_err(|e| database(e.message().to_string()))?;
        if let Some(client) = link.client.as_ref().filter(|c| !c.is_closed()) {
            return Ok(client.clone());
        }
        link.client = None;
        let mut create = self
            .create
            .lock()
            .map_err(|_| database("poisoned by a panic".into()))?;
        // The whole setup within the one limit too, not one limit per round trip of it.
        let client = link
            .runtime
            .block_on(async {
                tokio::time::timeout(ROUND_TRIP_LIMIT, self.open_connection(*create))
                    .await
                    .unwrap_or(Err(Opened::TimedOut))
            })
            .map_err(|e| self.open_error(e))?;
        // The schema is there now: a later connection that finds none finds it removed.
        *create = Create::Never;
        let client = Arc::new(client);
        link.client = Some(client.clone());
        Ok(client)
    }

    /// One connection, set up and checked, within [`ROUND_TRIP_LIMIT`] per round trip.
    async fn open_connection(&self, create: Create) -> Result<Client, Opened> {
        let (client, connection) = bounded(self.config.connect(NoTls)).await?;
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
        let limit = ROUND_TRIP_LIMIT.as_millis();
        let application = format!("agentconf-grp {}", self.target.node);
        bounded(client.batch_execute(&format!(
            "SET statement_timeout = {limit}; SET lock_timeout = {limit};
             SET synchronous_commit = {synchronous_commit};
             SET application_name = '{}'",
            application.replace('\'', "''")
        )))
        .await?;
        match (schema_version(&client).await?, create) {
            (None, Create::Never) => Err(Opened::NoSchema),
            (Some(_), Create::Only) => Err(Opened::Exists),
            (None, _) => {
                bounded(client.batch_execute(&format!("BEGIN; {SCHEMA} COMMIT;"))).await?;
                check_version(schema_version(&client).await?)?;
                Ok(client)
            }
            (found, _) => {
                check_version(found)?;
                Ok(client)
            }
        }
    }

    fn open_error(&self, e: Opened) -> PostgresOpenError {
        let target = self.shown.clone();
        match e {
            Opened::Client(e) if is_unreachable(&e) => PostgresOpenError::Unreachable {
                target,
                why: describe(&e),
            },
            Opened::Client(e) => PostgresOpenError::Database {
                target,
                why: describe(&e),
            },
            Opened::TimedOut => PostgresOpenError::Unreachable {
                target,
                why: format!("no answer within {ROUND_TRIP_LIMIT:?}"),
            },
            Opened::NoSchema => PostgresOpenError::NoSchema { target },
            Opened::Exists => PostgresOpenError::Exists { target },
            Opened::Version(found) => PostgresOpenError::Version { target, found },
        }
    }

    /// Runs `op` on a live connection (made first if there is none) within
    /// [`ROUND_TRIP_LIMIT`]. When the link fails, the connection is dropped so that the next call
    /// connects afresh.
    fn round_trip<T, F, Fut>(&self, what: &str, op: F) -> Result<T, StoreError>
    where
        F: FnOnce(Arc<Client>) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let client = self
            .connect()
            .map_err(PostgresOpenError::into_store_error)?;
        let mut link = self.link()?;
        let outcome = link.runtime.block_on(bounded(op(client)));
        let result = match outcome {
            Ok(value) => return Ok(value),
            Err(Opened::Client(e)) => store_error(&self.shown, what, &e),
            Err(_) => StoreError::timed_out(format!(
                "{}: {what}: no answer within {ROUND_TRIP_LIMIT:?}",
                self.shown
            )),
        };
        if result.is_unreachable() {
            link.client = None;
        }
        Err(result)
    }

    fn pair_key(&self, session: &str, publisher: &str, event: &str) -> [u8; 32] {
        key_of(&[&self.target.cluster, session, publisher, event])
    }

    fn scope_key(&self, session: &str) -> [u8; 32] {
        key_of(&[&self.target.cluster, session])
    }
}

/// What a connection attempt met.
enum Opened {
    Client(tokio_postgres::Error),
    TimedOut,
    NoSchema,
    Exists,
    Version(String),
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

/// The versions in the version table, or `None` when there is no table.
async fn schema_version(client: &Client) -> Result<Option<Vec<i32>>, Opened> {
    match bounded(client.query("SELECT version FROM agentconf_grp_schema", &[])).await {
        Ok(rows) => Ok(Some(
            rows.iter()
                .map(|r| r.try_get(0))
                .collect::<Result<_, _>>()
                .map_err(|_| Opened::Version("unreadable (not an integer column)".into()))?,
        )),
        Err(Opened::Client(e)) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Exactly one row, of [`SCHEMA_VERSION`].
fn check_version(found: Option<Vec<i32>>) -> Result<(), Opened> {
    match found.as_deref() {
        Some([SCHEMA_VERSION]) => Ok(()),
        Some([other]) => Err(Opened::Version(other.to_string())),
        Some(rows) => Err(Opened::Version(format!(
            "unknown (the version table holds {} rows)",
            rows.len()
        ))),
        None => Err(Opened::Version("unknown (no version table)".into())),
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
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let pair = self.pair_key(session, publisher, event);
        let scope = self.scope_key(session);
        let cluster = self.target.cluster.as_bytes();
        let node = self.target.node.as_str();
        let inserted = self.round_trip("admit a pair", |client| async move {
            client
                .execute(
                    ADMIT,
                    &[
                        &pair.as_slice(),
                        &scope.as_slice(),
                        &cluster,
                        &session.as_bytes(),
                        &publisher.as_bytes(),
                        &event.as_bytes(),
                        &node,
                    ],
                )
                .await
        })?;
        Ok(if inserted == 0 {
            Admission::Duplicate
        } else {
            Admission::Admitted
        })
    }

    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        let pair = self.pair_key(session, publisher, event);
        self.round_trip("mark a hand-off", |client| async move {
            client.execute(HAND_OFF, &[&pair.as_slice()]).await
        })
        .map(|_| ())
    }

    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let scope = self.scope_key(session);
        let rows = self.round_trip("list pending hand-offs", |client| async move {
            client
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
        let row = self.round_trip("count pairs", |client| async move {
            client
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
        let row = self.round_trip("close a session", |client| async move {
            // One statement: the pairs and their records go together.
            client
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

/// The PostgreSQL server the project's tests use: `AGENTCONF_TEST_POSTGRES` (a `postgres://`
/// URL; CI starts a throwaway server with `.ci/postgres` and sets it). Without it a test that
/// needs the server skips, unless `AGENTCONF_REQUIRE_POSTGRES=1` (CI) makes that a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestServer {
    /// The server's URL.
    At(String),
    /// No server, and none required: the test says so in one line and returns.
    Skip(String),
    /// No server although one is required: the test fails.
    Missing(String),
}

impl TestServer {
    /// As this process's environment says.
    pub fn from_env() -> TestServer {
        let url = std::env::var("AGENTCONF_TEST_POSTGRES").unwrap_or_default();
        if !url.is_empty() {
            return TestServer::At(url);
        }
        if std::env::var("AGENTCONF_REQUIRE_POSTGRES").as_deref() == Ok("1") {
            return TestServer::Missing(
                "AGENTCONF_REQUIRE_POSTGRES=1 but AGENTCONF_TEST_POSTGRES is unset: start a \
                 server with `.ci/postgres start` and export its URL"
                    .into(),
            );
        }
        TestServer::Skip(
            "no PostgreSQL server (set AGENTCONF_TEST_POSTGRES to the URL `.ci/postgres start` \
             prints)"
                .into(),
        )
    }
}
