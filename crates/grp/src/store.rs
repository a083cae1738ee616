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

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

/// What an attempt to admit a pair found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// This call recorded the pair: the caller hands the event on, then calls `handed_off`.
    Admitted,
    /// The pair was already recorded in this session.
    Duplicate,
}

/// A store failure. The receiver fails closed: nothing is handed on.
#[derive(Debug)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "admission store: {}", self.0)
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError(e.to_string())
    }
}

/// The admitted set of one or more sessions.
pub trait AdmissionStore {
    /// Atomically records the pair unless present.
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError>;
    /// Records that the admitted pair's hand-off completed.
    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError>;
    /// Pairs admitted but not yet handed off (after a crash: the hand-offs to resume).
    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError>;
    /// Number of pairs recorded for the session.
    fn count(&self, session: &str) -> Result<u64, StoreError>;
    /// Ends the session: its pairs are deleted. Returns how many.
    fn close_session(&self, session: &str) -> Result<u64, StoreError>;
    /// Whether the admitted set survives a restart of the receiver process.
    fn is_durable(&self) -> bool;
}

type Key = (String, String, String);

/// An in-memory store: correct within one process, gone on restart (not `durable`).
#[derive(Debug, Default)]
pub struct MemoryStore {
    /// Pair -> handed off.
    pairs: Mutex<HashMap<Key, bool>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<Key, bool>>, StoreError> {
        self.pairs
            .lock()
            .map_err(|_| StoreError("in-memory store poisoned by a panic".into()))
    }
}

fn key(session: &str, publisher: &str, event: &str) -> Key {
    (
        session.to_string(),
        publisher.to_string(),
        event.to_string(),
    )
}

impl AdmissionStore for MemoryStore {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let mut pairs = self.lock()?;
        let k = key(session, publisher, event);
        if pairs.contains_key(&k) {
            return Ok(Admission::Duplicate);
        }
        pairs.insert(k, false);
        Ok(Admission::Admitted)
    }

    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        if let Some(done) = self.lock()?.get_mut(&key(session, publisher, event)) {
            *done = true;
        }
        Ok(())
    }

    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut out: Vec<(String, String)> = self
            .lock()?
            .iter()
            .filter(|((s, _, _), done)| s == session && !**done)
            .map(|((_, p, e), _)| (p.clone(), e.clone()))
            .collect();
        out.sort();
        Ok(out)
    }

    fn count(&self, session: &str) -> Result<u64, StoreError> {
        Ok(self.lock()?.keys().filter(|(s, _, _)| s == session).count() as u64)
    }

    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        let mut pairs = self.lock()?;
        let before = pairs.len();
        pairs.retain(|(s, _, _), _| s != session);
        Ok((before - pairs.len()) as u64)
    }

    fn is_durable(&self) -> bool {
        false
    }
}

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

/// A durable store on SQLite (WAL). Several receiver processes may share one file: the unique
/// key makes exactly one of any number of concurrent inserts of a pair succeed.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    durability: Durability,
}

/// The layout. SQLite keeps no checksums of its own, so damage that leaves the file well formed
/// (a changed byte inside an event id, a flipped `handed_off`) would go unseen: every row carries
/// `row_check`, SHA-256 over its four values, and `row_count` counts the rows (kept by triggers in
/// the same transaction as the insert or delete). Opening a store verifies both.
const SCHEMA: &str = "
CREATE TABLE admitted (
    session_id   TEXT NOT NULL,
    publisher_id TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    handed_off   INTEGER NOT NULL DEFAULT 0 CHECK (handed_off IN (0, 1)),
    row_check    BLOB NOT NULL,
    PRIMARY KEY (session_id, publisher_id, event_id)
) WITHOUT ROWID;
CREATE TABLE row_count (n INTEGER NOT NULL);
INSERT INTO row_count (n) VALUES (0);
CREATE TRIGGER count_insert AFTER INSERT ON admitted BEGIN UPDATE row_count SET n = n + 1; END;
CREATE TRIGGER count_delete AFTER DELETE ON admitted BEGIN UPDATE row_count SET n = n - 1; END;
";

/// A row's check value: SHA-256 over its values, each length-prefixed so no two rows share one.
/// Public for tools that write rows in bulk without the store (the admission benchmark); a row
/// written without it is refused when the store is next opened.
pub fn row_check(session: &str, publisher: &str, event: &str, handed_off: bool) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [session, publisher, event] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    h.update([u8::from(handed_off)]);
    h.finalize().to_vec()
}

/// Why a SQLite admission store was not created or opened. Each one fails closed: nothing is
/// admitted, since a store that is not there whole may have lost pairs, and losing a pair
/// silently re-arms its replay.
#[derive(Debug)]
pub enum OpenError {
    /// [`SqliteStore::open`] found nothing at the path. Stores are created by an explicit act
    /// ([`SqliteStore::create`]), never on first use, so a deleted store cannot come back empty.
    Missing(PathBuf),
    /// Nothing at the path, but the store's WAL, shared-memory or rollback journal is beside it:
    /// what a deleted store leaves. Neither opened nor created over: SQLite would read the
    /// leftover journal into a new file, and a new file would forget every pair.
    Deleted {
        path: PathBuf,
        leftovers: Vec<PathBuf>,
    },
    /// [`SqliteStore::create`] found a file already there.
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

impl SqliteStore {
    /// Creates a new, empty store at `path`, durable against power loss, and opens it. Refused
    /// when a file is already there, or what a deleted store left ([`OpenError::Deleted`]).
    pub fn create(path: &Path) -> Result<SqliteStore, OpenError> {
        SqliteStore::create_with(path, Durability::PowerLoss)
    }

    /// As [`SqliteStore::create`], with the given durability.
    ///
    /// The store is made whole under a temporary name and linked into place only if no file is
    /// there, so `path` never names a half-made store. Several creators started together on one
    /// path: exactly one succeeds, the others get [`OpenError::Exists`] (and may open the store).
    pub fn create_with(path: &Path, durability: Durability) -> Result<SqliteStore, OpenError> {
        check_absent(path)?;
        create_whole(path)?;
        SqliteStore::open_with(path, durability)
    }

    /// Opens the existing store at `path`, durable against power loss. A missing file is refused
    /// ([`OpenError::Missing`], or [`OpenError::Deleted`] when its journal is left), and so is a
    /// file that is not a whole, uncorrupted admission store.
    pub fn open(path: &Path) -> Result<SqliteStore, OpenError> {
        SqliteStore::open_with(path, Durability::PowerLoss)
    }

    /// As [`SqliteStore::open`], with the given durability.
    ///
    /// The admission set is security state: a store that silently came back empty would admit
    /// every replay again. So only an existing file is opened, and only when it is a whole store
    /// of this kind: not empty, agentconf's application id and schema version, a clean
    /// integrity check, this layout's tables and triggers, every row matching its check value
    /// and the row count. Anything else fails closed.
    pub fn open_with(path: &Path, durability: Durability) -> Result<SqliteStore, OpenError> {
        check_present(path)?;
        check_file(path)?;
        let sqlite = |source: rusqlite::Error| OpenError::Sqlite {
            path: path.to_path_buf(),
            source: source.into(),
        };
        let conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(sqlite)?;
        // Writers from several processes wait for each other instead of failing at once.
        conn.busy_timeout(Duration::from_secs(30)).map_err(sqlite)?;
        let synchronous = match durability {
            // The insert must be on disk before the event is handed on.
            Durability::PowerLoss => "FULL",
            Durability::ProcessCrash => "NORMAL",
        };
        retry_while_busy(|| conn.pragma_update(None, "synchronous", synchronous)).map_err(
            |source| OpenError::Sqlite {
                path: path.to_path_buf(),
                source,
            },
        )?;
        check_contents(&conn).map_err(|why| OpenError::Refused {
            path: path.to_path_buf(),
            why,
        })?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            durability,
        })
    }

    /// Whether the directory entry `name` beside the store at `path` belongs to a creation of
    /// that store in progress: the temporary file [`SqliteStore::create`] makes whole before
    /// linking it into place, or that file's journal. A directory holding nothing else holds no
    /// store yet, only receivers busy making one (or one that died making it: the file was never
    /// linked, so no pair was ever admitted into it).
    pub fn is_creation_file(path: &Path, name: &std::ffi::OsStr) -> bool {
        let Some(store) = path.file_name() else {
            return false;
        };
        let prefix = creation_prefix(store);
        name.to_str().is_some_and(|n| n.starts_with(&prefix))
    }

    fn conn(&self) -> Result<std::sync::MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError("SQLite connection poisoned by a panic".into()))
    }
}

/// The SQLite `application_id` of an agentconf admission store ("AGRP"): a file of any other
/// kind is refused rather than written into.
const APPLICATION_ID: i32 = 0x4147_5250;
/// The layout of the `admitted` table (`user_version`); a store of another layout is refused.
const SCHEMA_VERSION: i32 = 2;
/// The integrity check run on every open: the full one, see [`check_integrity`] for why.
const INTEGRITY_CHECK: &str = "integrity_check";

/// The files SQLite keeps beside a database: after a crash, or while it is open, they hold
/// committed pairs not yet in the main file.
const JOURNAL_SUFFIXES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// The start of the temporary name a store at `store` is made under (see [`create_whole`]).
fn creation_prefix(store: &std::ffi::OsStr) -> String {
    format!(".{}.new-", store.to_string_lossy())
}

/// Whether anything (a dangling link included) is at `path`.
fn is_present(path: &Path) -> Result<bool, OpenError> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(OpenError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The journal files beside `path` (whether or not `path` is there).
fn journals(path: &Path) -> Result<Vec<PathBuf>, OpenError> {
    let mut found = Vec::new();
    for suffix in JOURNAL_SUFFIXES {
        let journal = with_suffix(path, suffix);
        if is_present(&journal)? {
            found.push(journal);
        }
    }
    Ok(found)
}

/// What is at a store's path when its file was not there.
enum Absent {
    /// No file and no journal.
    Nothing,
    /// Journals without the file: what a deleted store left.
    Leftovers(Vec<PathBuf>),
    /// The file is there now, made by a creator started together with this one.
    Appeared,
}

/// A second look at `path` after its file was not there. A live store's journals appear only
/// after its file was linked into place, so journals seen while the file is not there mean it
/// was deleted, unless the file appeared meanwhile: looking for it again, after the journals,
/// tells which.
fn look_again(path: &Path) -> Result<Absent, OpenError> {
    let leftovers = journals(path)?;
    Ok(if leftovers.is_empty() {
        Absent::Nothing
    } else if is_present(path)? {
        Absent::Appeared
    } else {
        Absent::Leftovers(leftovers)
    })
}

/// For `open`: the store file is there.
fn check_present(path: &Path) -> Result<(), OpenError> {
    if is_present(path)? {
        return Ok(());
    }
    match look_again(path)? {
        Absent::Appeared => Ok(()),
        Absent::Nothing => Err(OpenError::Missing(path.to_path_buf())),
        Absent::Leftovers(leftovers) => Err(OpenError::Deleted {
            path: path.to_path_buf(),
            leftovers,
        }),
    }
}

/// For `create`: nothing is there, neither a file nor what a deleted one left.
fn check_absent(path: &Path) -> Result<(), OpenError> {
    if is_present(path)? {
        return Err(OpenError::Exists(path.to_path_buf()));
    }
    match look_again(path)? {
        Absent::Nothing => Ok(()),
        Absent::Appeared => Err(OpenError::Exists(path.to_path_buf())),
        Absent::Leftovers(leftovers) => Err(OpenError::Deleted {
            path: path.to_path_buf(),
            leftovers,
        }),
    }
}

/// Makes a whole, empty store at a temporary name beside `path` and links it to `path` unless a
/// file is already there ([`OpenError::Exists`]: another creator was first). A link that cannot
/// clobber makes the creation atomic: `path` never names a half-made store, so an empty or
/// truncated file there is always damage, never a creation in progress.
fn create_whole(path: &Path) -> Result<(), OpenError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let prefix = creation_prefix(path.file_name().unwrap_or_default());
    let tmp = path.with_file_name(format!(
        "{prefix}{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let remove_tmp = || {
        for suffix in std::iter::once("").chain(JOURNAL_SUFFIXES) {
            let _ = std::fs::remove_file(with_suffix(&tmp, suffix));
        }
    };
    // What a creator that died under the same process id may have left at this name.
    remove_tmp();
    let linked = make_empty(&tmp)
        .map_err(|source| OpenError::Sqlite {
            path: path.to_path_buf(),
            source,
        })
        .and_then(|()| link_into_place(&tmp, path));
    remove_tmp();
    linked
}

/// `path` with `suffix` appended to its last component (`x.sqlite` -> `x.sqlite-wal`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A whole, empty store of this layout at `tmp`, closed (so its WAL is checkpointed away).
fn make_empty(tmp: &Path) -> Result<(), StoreError> {
    let conn = Connection::open(tmp)?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    conn.execute_batch(SCHEMA)?;
    // WAL is a property of the file: set it while the file is ours alone.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // Closing the only connection checkpoints and removes the WAL, so the file is whole.
    conn.close().map_err(|(_, e)| StoreError::from(e))
}

/// Links the whole store at `tmp` to `path` unless something is there, then makes the new
/// directory entry durable: a store whose name a power loss could undo would be a deleted one.
fn link_into_place(tmp: &Path, path: &Path) -> Result<(), OpenError> {
    let io = |source| OpenError::Io {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::hard_link(tmp, path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(OpenError::Exists(path.to_path_buf()))
        }
        Err(e) => return Err(io(e)),
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io)
}

/// Refuses a store file that is empty, or not a regular file: damage, never a new store (a new
/// store appears whole, see [`create_whole`]).
fn check_file(path: &Path) -> Result<(), OpenError> {
    let meta = std::fs::metadata(path).map_err(|source| OpenError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return Err(OpenError::NotAFile(path.to_path_buf()));
    }
    if meta.len() == 0 {
        return Err(OpenError::Empty(path.to_path_buf()));
    }
    Ok(())
}

/// Refuses a file that is not a whole agentconf admission store of this layout.
fn check_contents(conn: &Connection) -> Result<(), Refusal> {
    check_identity(conn)?;
    check_integrity(conn)?;
    check_schema(conn)?;
    check_rows(conn)
}

/// The reads of an open: `what` names the read in a refusal.
fn read<T>(what: &'static str, f: impl FnMut() -> rusqlite::Result<T>) -> Result<T, Refusal> {
    retry_while_busy(f).map_err(|e| Refusal::Unreadable { what, error: e.0 })
}

/// Another kind of database, or an admission store of another layout, is refused rather than
/// written into.
fn check_identity(conn: &Connection) -> Result<(), Refusal> {
    let pragma = |name: &str| {
        read("as a database", || {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
        })
    };
    let id = pragma("application_id")?;
    if id != i64::from(APPLICATION_ID) {
        return Err(Refusal::ForeignApplication(id));
    }
    let version = pragma("user_version")?;
    if version != i64::from(SCHEMA_VERSION) {
        return Err(Refusal::SchemaVersion(version));
    }
    Ok(())
}

/// SQLite's own check of the file's structure (pages, b-trees, free list, NOT NULL and CHECK
/// constraints), the full `integrity_check` rather than `quick_check`: `quick_check` does not
/// check that the rows of a `WITHOUT ROWID` table are in key order, and two swapped cell
/// pointers in a page of `admitted` (every row intact, so the row checks and the count agree)
/// make the unique key's look-up miss recorded pairs, which are then admitted again
/// (`tests/store_fails_closed.rs`, `out_of_order_rows_are_refused`). Measured on a store of
/// 10,000 pairs (release build): the full check takes about 1.25 times `quick_check` (1.6 ms
/// against 1.3), a whole open about 5% longer (7.5 ms against 7.2).
fn check_integrity(conn: &Connection) -> Result<(), Refusal> {
    let problems: Vec<String> = read("for an integrity check", || {
        let mut stmt = conn.prepare(&format!("PRAGMA {INTEGRITY_CHECK}"))?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()
    })?;
    if problems != ["ok"] {
        return Err(Refusal::Damaged(problems));
    }
    Ok(())
}

/// One entry of `sqlite_master`: type, name, table and the SQL text SQLite runs (a trigger's
/// body is this text, so a changed byte in it that still parses would change what a trigger
/// does, unseen by any structural check).
type SchemaEntry = (String, String, String, Option<String>);

fn schema_of(conn: &Connection) -> rusqlite::Result<Vec<SchemaEntry>> {
    let mut stmt =
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    rows.collect()
}

/// The tables and triggers must be exactly those a new store gets (compared with a store made
/// in memory from [`SCHEMA`]).
fn check_schema(conn: &Connection) -> Result<(), Refusal> {
    let expected = Connection::open_in_memory()
        .and_then(|fresh| fresh.execute_batch(SCHEMA).and_then(|()| schema_of(&fresh)))
        .map_err(|e| Refusal::Unreadable {
            what: "against the layout (no store can be made in memory)",
            error: e.to_string(),
        })?;
    if read("as a schema", || schema_of(conn))? != expected {
        return Err(Refusal::Schema);
    }
    Ok(())
}

/// Every row as it was written, and as many rows as were written: read in one transaction, so a
/// receiver admitting meanwhile cannot put a row between the two reads.
fn check_rows(conn: &Connection) -> Result<(), Refusal> {
    type Row = (String, String, String, i64, Vec<u8>);
    let (rows, recorded): (Vec<Row>, i64) = read("as rows", || {
        let tx = conn.unchecked_transaction()?;
        let rows = {
            let mut stmt = tx.prepare(
                "SELECT session_id, publisher_id, event_id, handed_off, row_check FROM admitted",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.collect::<rusqlite::Result<Vec<Row>>>()?
        };
        let recorded: i64 = tx.query_row("SELECT n FROM row_count", [], |r| r.get(0))?;
        tx.commit()?;
        Ok((rows, recorded))
    })?;
    for (session, publisher, event, handed_off, check) in &rows {
        if *check != row_check(session, publisher, event, *handed_off == 1) {
            return Err(Refusal::RowCheck {
                publisher: publisher.clone(),
                event: event.clone(),
            });
        }
    }
    if recorded != rows.len() as i64 {
        return Err(Refusal::RowCount {
            rows: rows.len(),
            recorded,
        });
    }
    Ok(())
}

/// Runs `f` until it succeeds or fails with something other than a busy or locked database,
/// for at most about 30 seconds.
fn retry_while_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> Result<T, StoreError> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut pause = Duration::from_millis(1);
    loop {
        match f() {
            Ok(v) => return Ok(v),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

impl AdmissionStore for SqliteStore {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let conn = self.conn()?;
        // One statement, one implicit transaction: the unique key decides, atomically.
        let inserted = retry_while_busy(|| {
            conn.execute(
                "INSERT INTO admitted (session_id, publisher_id, event_id, row_check)
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                params![
                    session,
                    publisher,
                    event,
                    row_check(session, publisher, event, false)
                ],
            )
        })?;
        Ok(if inserted == 1 {
            Admission::Admitted
        } else {
            Admission::Duplicate
        })
    }

    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        let conn = self.conn()?;
        // The mark need not be synced: if it is lost, the pair is merely pending and recovery
        // resumes it; the admission itself was synced before the hand-off.
        if self.durability == Durability::PowerLoss {
            conn.pragma_update(None, "synchronous", "NORMAL")?;
        }
        let result = retry_while_busy(|| {
            conn.execute(
                "UPDATE admitted SET handed_off = 1, row_check = ?4
                 WHERE session_id = ?1 AND publisher_id = ?2 AND event_id = ?3",
                params![
                    session,
                    publisher,
                    event,
                    row_check(session, publisher, event, true)
                ],
            )
        });
        if self.durability == Durability::PowerLoss {
            conn.pragma_update(None, "synchronous", "FULL")?;
        }
        result.map(|_| ())
    }

    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT publisher_id, event_id FROM admitted
             WHERE session_id = ?1 AND handed_off = 0 ORDER BY publisher_id, event_id",
        )?;
        let rows = stmt.query_map(params![session], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    fn count(&self, session: &str) -> Result<u64, StoreError> {
        let n: Option<i64> = self
            .conn()?
            .query_row(
                "SELECT COUNT(*) FROM admitted WHERE session_id = ?1",
                params![session],
                |r| r.get(0),
            )
            .optional()?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        let n = self.conn()?.execute(
            "DELETE FROM admitted WHERE session_id = ?1",
            params![session],
        )?;
        Ok(n as u64)
    }

    fn is_durable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(store: &dyn AdmissionStore) {
        assert_eq!(store.admit("s1", "p", "e").unwrap(), Admission::Admitted);
        assert_eq!(store.admit("s1", "p", "e").unwrap(), Admission::Duplicate);
        // The key is the pair, within a session.
        assert_eq!(store.admit("s1", "q", "e").unwrap(), Admission::Admitted);
        assert_eq!(store.admit("s2", "p", "e").unwrap(), Admission::Admitted);
        assert_eq!(store.pending("s1").unwrap().len(), 2);
        store.handed_off("s1", "p", "e").unwrap();
        assert_eq!(
            store.pending("s1").unwrap(),
            [("q".to_string(), "e".to_string())]
        );
        assert_eq!(store.count("s1").unwrap(), 2);
        assert_eq!(store.close_session("s1").unwrap(), 2);
        assert_eq!(store.count("s1").unwrap(), 0);
        assert_eq!(store.admit("s1", "p", "e").unwrap(), Admission::Admitted);
        assert_eq!(store.count("s2").unwrap(), 1);
    }

    #[test]
    fn memory_store() {
        exercise(&MemoryStore::new());
    }

    #[test]
    fn sqlite_store_and_reopening() {
        let dir = std::env::temp_dir().join(format!("agentconf-grp-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("admitted.sqlite");
        exercise(&SqliteStore::create(&path).unwrap());
        // A new connection (a restarted receiver) sees what the first admitted.
        let again = SqliteStore::open(&path).unwrap();
        assert_eq!(again.admit("s1", "p", "e").unwrap(), Admission::Duplicate);
        assert_eq!(again.admit("s2", "p", "e").unwrap(), Admission::Duplicate);
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod crash_tests {
    use super::*;

    /// A receiver that dies after admitting a pair and before handing it on leaves the pair
    /// pending: recovery resumes it, and a re-delivered copy is still a duplicate.
    #[test]
    fn pending_hand_off_is_resumed_not_duplicated() {
        let dir = std::env::temp_dir().join(format!("agentconf-grp-crash-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("admitted.sqlite");
        {
            let crashed = SqliteStore::create(&path).unwrap();
            assert_eq!(crashed.admit("s", "p", "e1").unwrap(), Admission::Admitted);
            crashed.handed_off("s", "p", "e1").unwrap();
            assert_eq!(crashed.admit("s", "p", "e2").unwrap(), Admission::Admitted);
            // The process dies here: e2 was admitted, its hand-off never completed.
        }
        let recovered = SqliteStore::open(&path).unwrap();
        assert_eq!(
            recovered.pending("s").unwrap(),
            [("p".to_string(), "e2".to_string())]
        );
        assert_eq!(
            recovered.admit("s", "p", "e2").unwrap(),
            Admission::Duplicate
        );
        recovered.handed_off("s", "p", "e2").unwrap();
        assert!(recovered.pending("s").unwrap().is_empty());
        drop(recovered);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod creation_tests {
    use super::*;

    fn scratch(label: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "agentconf-grp-create-{}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_store_is_not_created_by_opening() {
        let dir = scratch("missing");
        let path = dir.join("admitted.sqlite");
        let err = SqliteStore::open(&path).err().expect("refused");
        assert!(
            matches!(&err, OpenError::Missing(p) if *p == path),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("admitted.sqlite") && text.contains("grp init"),
            "{text}"
        );
        assert!(!path.exists(), "opening created the file");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn create_refuses_an_existing_file_and_open_then_works() {
        let dir = scratch("exists");
        let path = dir.join("admitted.sqlite");
        let store = SqliteStore::create(&path).unwrap();
        assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
        drop(store);
        let err = SqliteStore::create(&path).err().expect("refused");
        assert!(matches!(err, OpenError::Exists(_)), "{err:?}");
        // Refusing to create touched nothing: the pair is still there.
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Duplicate);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_store_deleted_with_its_journal_left_is_neither_opened_nor_created() {
        let dir = scratch("deleted");
        let path = dir.join("admitted.sqlite");
        let store = SqliteStore::create(&path).unwrap();
        assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
        // While the store is open its WAL is there; the file is deleted from under it.
        let wal = dir.join("admitted.sqlite-wal");
        assert!(wal.exists());
        std::fs::remove_file(&path).unwrap();
        for err in [
            SqliteStore::open(&path).err().expect("open refused"),
            SqliteStore::create(&path).err().expect("create refused"),
        ] {
            match &err {
                OpenError::Deleted { leftovers, .. } => assert!(leftovers.contains(&wal)),
                other => panic!("expected Deleted, got {other:?}"),
            }
            assert!(err.to_string().contains("admitted.sqlite-wal"), "{err}");
        }
        assert!(!path.exists());
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn creation_files_are_recognised_and_nothing_else() {
        let path = Path::new("/state/admitted.sqlite");
        let yes = [
            ".admitted.sqlite.new-12-0",
            ".admitted.sqlite.new-12-0-journal",
        ];
        for name in yes {
            assert!(SqliteStore::is_creation_file(path, name.as_ref()), "{name}");
        }
        let no = [
            "admitted.sqlite",
            "admitted.sqlite-wal",
            "admitted.sqlite-shm",
            ".admitted.sqlite",
            ".other.sqlite.new-1-0",
            "notes.txt",
        ];
        for name in no {
            assert!(
                !SqliteStore::is_creation_file(path, name.as_ref()),
                "{name}"
            );
        }
    }

    /// Creators started together on one path: exactly one creates, every other is told the
    /// store exists, and no creation file is left behind.
    #[test]
    fn concurrent_creators_one_wins() {
        let dir = scratch("race");
        for round in 0..20 {
            let path = dir.join(format!("admitted-{round}.sqlite"));
            let barrier = std::sync::Barrier::new(8);
            let results: Vec<Result<SqliteStore, OpenError>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            SqliteStore::create(&path)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let created = results.iter().filter(|r| r.is_ok()).count();
            assert_eq!(created, 1, "round {round}: {created} creators succeeded");
            for r in &results {
                if let Err(e) = r {
                    assert!(matches!(e, OpenError::Exists(_)), "round {round}: {e}");
                }
            }
        }
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".new-"))
            .collect();
        assert!(left.is_empty(), "creation files left: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
