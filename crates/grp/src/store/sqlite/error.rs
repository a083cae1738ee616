//! Why a SQLite store was not created or opened, each in words that name the file.

use std::fmt;
use std::path::PathBuf;

use super::checks::{INTEGRITY_CHECK, SCHEMA_VERSION};
use crate::store::StoreError;

/// Why a SQLite admission store was not created or opened. Each one fails closed: nothing is
/// admitted, since a store that is not there whole may have lost pairs, and losing a pair
/// silently re-arms its replay.
#[derive(Debug)]
pub enum OpenError {
    /// [`SqliteStore::open`](crate::store::SqliteStore::open) found nothing at the path. Stores
    /// are created by an explicit act ([`SqliteStore::create`](crate::store::SqliteStore::create)),
    /// never on first use, so a deleted store cannot come back empty.
    Missing(PathBuf),
    /// Nothing at the path, but the store's WAL, shared-memory file, rollback journal or
    /// generation record is beside it: what a deleted store leaves. Neither opened nor created
    /// over: SQLite would read the leftover journal into a new file, and a new file would forget
    /// every pair.
    Deleted {
        path: PathBuf,
        leftovers: Vec<PathBuf>,
    },
    /// [`SqliteStore::create`](crate::store::SqliteStore::create) found a file already there.
    Exists(PathBuf),
    /// The path names something other than a regular file.
    NotAFile(PathBuf),
    /// The file is there but empty: zeroed or truncated, never a creation in progress (a new
    /// store appears whole).
    Empty(PathBuf),
    /// The file is not a whole admission store of this agentconf.
    Refused { path: PathBuf, why: Refusal },
    /// The file system failed while looking at, creating or linking the file.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// SQLite failed while creating the file or setting up the connection.
    Sqlite { path: PathBuf, source: StoreError },
}

/// What is wrong with an existing file that is refused as a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A read SQLite could not do (`what`: "as a database", "its rows", ...), with its error.
    Unreadable { what: &'static str, error: String },
    /// Another kind of SQLite database (its `application_id`).
    ForeignApplication(i64),
    /// An admission store of another layout (its `user_version`).
    SchemaVersion(i64),
    /// The integrity check reported these problems.
    Damaged(Vec<String>),
    /// Its tables or triggers are not the ones this agentconf creates.
    Schema,
    /// A row's values do not match its check value.
    RowCheck { publisher: String, event: String },
    /// Fewer or more rows than the count kept beside them.
    RowCount { rows: usize, recorded: i64 },
    /// Its `generation` table does not hold one row that counts at least its rows.
    GenerationRow(String),
    /// The generation record beside it cannot be read, made or written.
    GenerationRecord { record: PathBuf, why: String },
    /// The generation record beside it was written for another store: the file was swapped.
    OtherStore {
        record: PathBuf,
        recorded: String,
        found: String,
    },
    /// It counts fewer admissions than the record beside it: admissions were lost (a journal
    /// removed while the store was open, or an older copy put back).
    LostAdmissions {
        record: PathBuf,
        recorded: u64,
        found: u64,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unreadable { what, error } => write!(f, "it cannot be read {what} ({error})"),
            Refusal::ForeignApplication(id) => write!(
                f,
                "it is not an agentconf admission store (application_id {id})"
            ),
            Refusal::SchemaVersion(v) => write!(
                f,
                "its schema version is {v}, this agentconf reads {SCHEMA_VERSION}"
            ),
            Refusal::Damaged(problems) => write!(
                f,
                "it is damaged ({INTEGRITY_CHECK}: {})",
                problems.join("; ")
            ),
            Refusal::Schema => write!(
                f,
                "its tables and triggers are not those of an admission store"
            ),
            Refusal::RowCheck { publisher, event } => write!(
                f,
                "a row does not match its check value (pair {publisher:?} / {event:?})"
            ),
            Refusal::RowCount { rows, recorded } => write!(
                f,
                "it holds {rows} rows but recorded {recorded}: rows were lost"
            ),
            Refusal::GenerationRow(what) => write!(f, "its generation is damaged ({what})"),
            Refusal::GenerationRecord { record, why } => write!(
                f,
                "its generation record {} cannot be used: {why}",
                record.display()
            ),
            Refusal::OtherStore {
                record,
                recorded,
                found,
            } => write!(
                f,
                "it is store {found}, but its generation record {} was written for store \
                 {recorded}: another store was put in its place (remove the record only if this \
                 store is really meant to be here)",
                record.display()
            ),
            Refusal::LostAdmissions {
                record,
                recorded,
                found,
            } => write!(
                f,
                "it counts {found} admissions, but its generation record {} counted {recorded}: \
                 admissions were lost (its journal removed while it was open, or an older copy \
                 put back); remove the record only if going back to this copy is really meant, \
                 since every pair admitted since can then be replayed",
                record.display()
            ),
        }
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "admission store: ")?;
        match self {
            OpenError::Missing(path) => write!(
                f,
                "there is no store at {}: a store is created explicitly (`agentconf grp init \
                 sqlite:PATH`), never on first use, so that a deleted store cannot come back \
                 empty and admit every replay again",
                path.display()
            ),
            OpenError::Deleted { path, leftovers } => {
                let names: Vec<String> =
                    leftovers.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "there is no store at {}, but {} is there: the store was deleted, and a new \
                     one would admit every replay again (remove what it left only if a new, \
                     empty admission set is really meant)",
                    path.display(),
                    names.join(" and ")
                )
            }
            OpenError::Exists(path) => write!(
                f,
                "{} already exists: a store is created only where there is none",
                path.display()
            ),
            OpenError::NotAFile(path) => write!(f, "{} is not a regular file", path.display()),
            OpenError::Empty(path) => write!(
                f,
                "{} exists but is empty: a zeroed or truncated store is refused, since starting \
                 afresh would admit every replay again",
                path.display()
            ),
            OpenError::Refused { path, why } => write!(
                f,
                "{} is refused: {why}; nothing is admitted from a store that may have lost pairs",
                path.display()
            ),
            OpenError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            OpenError::Sqlite { path, source } => write!(f, "{}: {}", path.display(), source.0),
        }
    }
}

impl std::error::Error for OpenError {}
