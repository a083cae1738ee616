//! Admission stores: the set of `(publisher_id, event_id)` pairs admitted in a session.
//!
//! Semantics (spec-notes/grp-admission.md): admitting a pair is one atomic insert under the
//! unique key (session, publisher, event) that commits *before* the event is handed on; the row
//! records whether the hand-off completed. After a crash, a row still marked pending is a
//! hand-off to *resume* (the first admission happened; its measure may not have run), while a
//! re-delivery of a pair that exists is a *duplicate* and is rejected. A closed session's pairs
//! are deleted.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
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
fn row_check(session: &str, publisher: &str, event: &str, handed_off: bool) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [session, publisher, event] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    h.update([u8::from(handed_off)]);
    h.finalize().to_vec()
}

impl SqliteStore {
    /// Opens the store at `path`, durable against power loss; creates it when no file is there.
    /// An existing file that is not a whole, uncorrupted admission store is refused.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, Durability::PowerLoss)
    }

    /// As [`SqliteStore::open`], with the given durability.
    ///
    /// The admission set is security state: a store that silently came back empty would admit
    /// every replay again. So a new store is made whole under a temporary name and linked into
    /// place only if no file is there (several receivers may start together on a new path: one
    /// wins, the others open its store), and an existing file is opened only when it is a whole
    /// store of this kind: not empty, agentconf's application id and schema version, and a
    /// clean `PRAGMA quick_check`. Anything else fails closed.
    pub fn open_with(path: &Path, durability: Durability) -> Result<SqliteStore, StoreError> {
        if !path.exists() {
            create_whole(path)?;
        }
        check_file(path)?;
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
        // Writers from several processes wait for each other instead of failing at once.
        conn.busy_timeout(Duration::from_secs(30))?;
        let synchronous = match durability {
            // The insert must be on disk before the event is handed on.
            Durability::PowerLoss => "FULL",
            Durability::ProcessCrash => "NORMAL",
        };
        retry_while_busy(|| conn.pragma_update(None, "synchronous", synchronous))?;
        check_contents(&conn, path)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            durability,
        })
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

/// Makes a whole, empty store at a temporary name beside `path` and links it to `path` unless a
/// file is already there (then that file is the store, made by another receiver that started at
/// the same time). A link that cannot clobber makes the creation atomic: `path` never names a
/// half-made store, so an empty or truncated file there is always damage, never a creation in
/// progress.
fn create_whole(path: &Path) -> Result<(), StoreError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(
        ".{name}.new-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let made = (|| -> Result<(), StoreError> {
        let conn = Connection::open(&tmp)?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        conn.execute_batch(SCHEMA)?;
        // WAL is a property of the file: set it while the file is ours alone.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // Closing the only connection checkpoints and removes the WAL, so the file is whole.
        conn.close().map_err(|(_, e)| StoreError::from(e))?;
        Ok(())
    })();
    let linked = made.and_then(|()| match std::fs::hard_link(&tmp, path) {
        Ok(()) => Ok(()),
        // Another receiver made it first: its store is whole, and it is the one.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError(format!("cannot create {}: {e}", path.display()))),
    });
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", tmp.display()));
    }
    linked
}

/// Refuses a store file that is empty, or not a regular file: damage, never a new store (a new
/// store appears whole, see [`create_whole`]).
fn check_file(path: &Path) -> Result<(), StoreError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| StoreError(format!("cannot read {}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(StoreError(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    if meta.len() == 0 {
        return Err(StoreError(format!(
            "{} exists but is empty: a zeroed or truncated store is refused, since starting \
             afresh would admit every replay again",
            path.display()
        )));
    }
    Ok(())
}

/// Refuses a file that is not a whole agentconf admission store of this layout: another kind of
/// database, another schema version, or one `PRAGMA quick_check` finds damaged.
fn check_contents(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let refuse = |why: String| {
        StoreError(format!(
            "{} is refused: {why}; nothing is admitted from a store that may have lost pairs",
            path.display()
        ))
    };
    let read = |pragma: &str| -> Result<i64, StoreError> {
        retry_while_busy(|| conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0)))
            .map_err(|e| refuse(format!("it cannot be read as a database ({e})")))
    };
    let id = read("application_id")?;
    if id != i64::from(APPLICATION_ID) {
        return Err(refuse(format!(
            "it is not an agentconf admission store (application_id {id})"
        )));
    }
    let version = read("user_version")?;
    if version != i64::from(SCHEMA_VERSION) {
        return Err(refuse(format!(
            "its schema version is {version}, this agentconf reads {SCHEMA_VERSION}"
        )));
    }
    let problems: Vec<String> = retry_while_busy(|| {
        let mut stmt = conn.prepare("PRAGMA quick_check")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()
    })
    .map_err(|e| refuse(format!("its integrity cannot be checked ({e})")))?;
    if problems != ["ok"] {
        return Err(refuse(format!(
            "it is damaged (quick_check: {})",
            problems.join("; ")
        )));
    }
    let has_table: i64 = retry_while_busy(|| {
        conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'admitted'",
            [],
            |r| r.get(0),
        )
    })
    .map_err(|e| refuse(format!("its tables cannot be read ({e})")))?;
    if has_table != 1 {
        return Err(refuse("it has no table of admitted pairs".into()));
    }
    // Every row as it was written, and as many rows as were written: read in one transaction,
    // so a receiver admitting meanwhile cannot put a row between the two reads.
    type Row = (String, String, String, i64, Vec<u8>);
    let (rows, counted): (Vec<Row>, i64) = retry_while_busy(|| {
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
        let counted: i64 = tx.query_row("SELECT n FROM row_count", [], |r| r.get(0))?;
        tx.commit()?;
        Ok((rows, counted))
    })
    .map_err(|e| refuse(format!("its rows cannot be read ({e})")))?;
    for (session, publisher, event, handed_off, check) in &rows {
        if *check != row_check(session, publisher, event, *handed_off == 1) {
            return Err(refuse(format!(
                "a row does not match its check value (pair {publisher:?} / {event:?})"
            )));
        }
    }
    if counted != rows.len() as i64 {
        return Err(refuse(format!(
            "it holds {} rows but recorded {counted}: rows were lost",
            rows.len()
        )));
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
        exercise(&SqliteStore::open(&path).unwrap());
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
            let crashed = SqliteStore::open(&path).unwrap();
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
