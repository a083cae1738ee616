//! Why a PostgreSQL store was not opened, and what a client error says about the link: a fault
//! that passes (the line is deferred), no answer in time (deferred, and the store backs off), or
//! anything else (the store fails: a receiver stops, nothing admitted).

use std::fmt;
use std::io;

use tokio_postgres::error::SqlState;

use super::target::TargetError;
use crate::store::StoreError;

/// Why no PostgreSQL store was opened. Each one fails closed: the receiver admits nothing.
#[derive(Debug)]
pub enum PostgresOpenError {
    /// The spec or the node's address names no database the client can try.
    Target(TargetError),
    /// The database could not be reached when the opening had to reach it (creating a store):
    /// a fault that may pass (refused, reset, closed, no answer in time, the server starting up
    /// or out of connections). Any other opening opens unconnected instead.
    Unreachable { target: String, why: String },
    /// The client cannot connect as configured: no host, a host name that does not resolve,
    /// TLS required of a server that offers none, a password the server asks for and the URL
    /// lacks, a value the client refuses to send (a NUL byte). Waiting does not mend these, so
    /// they are refused at open rather than deferred line after line.
    Configuration { target: String, why: String },
    /// The database holds no admission store and the opening does not create one.
    NoSchema { target: String },
    /// A store is already there and the opening only creates (`grp init`).
    Exists { target: String },
    /// The database holds an admission store of another schema version (or a damaged version
    /// table): this build neither reads nor changes it.
    Version { target: String, found: String },
    /// The store's tables lack a column the store uses, have one of another type, or lack the
    /// unique key on `pair_key` that makes an admission happen once.
    Layout { target: String, why: String },
    /// The database refused what the open asked of it (credentials, an unknown database, a
    /// statement).
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
            PostgresOpenError::Configuration { target, why } => write!(
                f,
                "admission store {target}: cannot connect as configured: {why}; refused, \
                 nothing admitted"
            ),
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
            PostgresOpenError::Layout { target, why } => write!(
                f,
                "admission store {target}: not the tables this agentconf uses: {why}; refused, \
                 nothing admitted"
            ),
            PostgresOpenError::Database { target, why } => {
                write!(
                    f,
                    "admission store {target}: {why}; refused, nothing admitted"
                )
            }
        }
    }
}

impl std::error::Error for PostgresOpenError {}

/// What a client error says about the link to the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// The link failed in a way that passes: refused, reset, closed or cut by the peer, the
    /// server shutting down, starting up or out of connections, a transaction rolled back by
    /// the server. Tried again at the next call.
    Link,
    /// No answer in time: the client's socket timed out, or the server cancelled the statement
    /// at its `statement_timeout` or `lock_timeout`. Deferred, and the store backs off.
    Timeout,
    /// Anything else: the configuration (no host, an unknown host, TLS, credentials, a value
    /// the client refuses), or the server refusing what was asked. Waiting does not mend it.
    Permanent,
}

/// What `e` says about the link. A whitelist: only what is known to pass defers, so that a
/// misconfigured store fails loudly at start instead of deferring every line.
///
/// With a SQLSTATE: a connection exception (class 08), insufficient resources (53: too many
/// connections), a transaction rollback (40: serialization failure, deadlock), the server
/// shutting down, crashed, starting up or ending an idle session (57P01, 57P02, 57P03, 57P05)
/// are link faults; a cancelled statement (57014, the statement timeout) and a lock not
/// available in time (55P03) are timeouts. Without one: a closed connection, or an I/O error of
/// a kind that means the peer or the network went away ([`transient_io`]).
pub(super) fn fault(e: &tokio_postgres::Error) -> Fault {
    if let Some(state) = e.code() {
        return state_fault(state);
    }
    if e.is_closed() {
        return Fault::Link;
    }
    io_errors(e)
        .filter_map(transient_io)
        .next()
        .unwrap_or(Fault::Permanent)
}

fn state_fault(state: &SqlState) -> Fault {
    if *state == SqlState::QUERY_CANCELED || *state == SqlState::LOCK_NOT_AVAILABLE {
        return Fault::Timeout;
    }
    let code = state.code();
    let passes = ["08", "53", "40"]
        .iter()
        .any(|class| code.starts_with(class))
        || [
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
            SqlState::IDLE_SESSION_TIMEOUT,
        ]
        .contains(state);
    if passes {
        Fault::Link
    } else {
        Fault::Permanent
    }
}

/// The I/O errors in `e`'s chain of causes.
fn io_errors<'a>(e: &'a tokio_postgres::Error) -> impl Iterator<Item = &'a io::Error> + 'a {
    let first: Option<&'a (dyn std::error::Error + 'static)> = std::error::Error::source(e);
    std::iter::successors(first, |cause| cause.source())
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
}

/// An I/O error that means the link went away or did not answer, not that it was misdirected: a
/// host name that does not resolve is none of these (its error is uncategorized), nor is a
/// value the client refuses to send (`InvalidInput`). A stream that ends inside a message is
/// reported by the client's framing as "bytes remaining on stream" (kind `Other`): a cut link
/// too.
fn transient_io(e: &io::Error) -> Option<Fault> {
    use io::ErrorKind::*;
    match e.kind() {
        TimedOut => Some(Fault::Timeout),
        ConnectionRefused | ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
        | NotConnected | NetworkUnreachable | HostUnreachable | NetworkDown => Some(Fault::Link),
        Other if e.to_string() == "bytes remaining on stream" => Some(Fault::Link),
        _ => None,
    }
}

/// A client error as the store's error: [`fault`] decides which kind.
pub(super) fn store_error(target: &str, what: &str, e: &tokio_postgres::Error) -> StoreError {
    let message = format!("{target}: {what}: {}", describe(e));
    match fault(e) {
        Fault::Link => StoreError::unreachable(message),
        Fault::Timeout => StoreError::timed_out(message),
        Fault::Permanent => StoreError::new(message),
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
