//! Why a PostgreSQL store was not opened, and which client errors mean "the store cannot be
//! consulted now" rather than "the store failed".

use std::fmt;

use tokio_postgres::error::SqlState;

use super::target::TargetError;
use crate::store::StoreError;

/// Why no PostgreSQL store was opened. Each one fails closed: the receiver admits nothing.
#[derive(Debug)]
pub enum PostgresOpenError {
    /// The spec or the node's address names no database the client can try.
    Target(TargetError),
    /// The database could not be reached when the opening had to reach it (creating a store).
    Unreachable { target: String, why: String },
    /// The database holds no admission store and the opening does not create one.
    NoSchema { target: String },
    /// A store is already there and the opening only creates (`grp init`).
    Exists { target: String },
    /// The database holds an admission store of another schema version (or a damaged version
    /// table): this build neither reads nor changes it.
    Version { target: String, found: String },
    /// The database refused what the open asked of it.
    Database { target: String, why: String },
}

impl fmt::Display for PostgresOpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PostgresOpenError::Target(e) => e.fmt(f),
            PostgresOpenError::Unreachable { target, why } => {
                write!(
                    f,
                    "admission store {target}: cannot reach the database: {why}"
                )
            }
            PostgresOpenError::NoSchema { target } => write!(
                f,
                "admission store {target}: the database holds no admission store (create one \
                 with `agentconf grp init` or `grp admit --create`)"
            ),
            PostgresOpenError::Exists { target } => write!(
                f,
                "admission store {target}: the database holds an admission store already"
            ),
            PostgresOpenError::Version { target, found } => write!(
                f,
                "admission store {target}: schema version {found}, this agentconf reads version \
                 {}; refused, nothing admitted",
                super::SCHEMA_VERSION
            ),
            PostgresOpenError::Database { target, why } => {
                write!(f, "admission store {target}: {why}")
            }
        }
    }
}

impl std::error::Error for PostgresOpenError {}

impl PostgresOpenError {
    /// The open error an admission meets on a new connection, as the admission's error: a
    /// database that cannot be reached now defers the line, anything else fails the store.
    pub(super) fn into_store_error(self) -> StoreError {
        match self {
            PostgresOpenError::Unreachable { .. } => StoreError::unreachable(self.to_string()),
            _ => StoreError::new(self.to_string()),
        }
    }
}

/// Whether `e` means the database could not be consulted now (the line is deferred and tried
/// again later) rather than that it refused what was asked (the store fails).
///
/// Without a SQLSTATE the error is the link's (refused, reset, closed, a protocol error on a
/// cut stream). With one: a connection exception (class 08), an operator intervention (57: the
/// statement timeout's cancel, a shutdown, "cannot connect now"), insufficient resources (53:
/// too many connections), a transaction rollback (40: serialization failure, deadlock) and a
/// lock not available in time (55P03). None of these says anything about the pair.
pub(super) fn is_unreachable(e: &tokio_postgres::Error) -> bool {
    let Some(state) = e.code() else {
        return true;
    };
    let code = state.code();
    ["08", "57", "53", "40"]
        .iter()
        .any(|class| code.starts_with(class))
        || *state == SqlState::LOCK_NOT_AVAILABLE
}

/// A client error as the store's error: [`is_unreachable`] decides which kind.
pub(super) fn store_error(target: &str, what: &str, e: &tokio_postgres::Error) -> StoreError {
    let message = format!("{target}: {what}: {}", describe(e));
    if is_unreachable(e) {
        StoreError::unreachable(message)
    } else {
        StoreError::new(message)
    }
}

/// The client error on one line, with the server's message where there is one.
pub(super) fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(cause) = source {
                text.push_str(": ");
                text.push_str(&cause.to_string());
                source = cause.source();
            }
            text.replace('\n', " ")
        }
    }
}
