//! The SQLite store (`sqlite:PATH`): durable, and shared by every receiver process that opens the
//! same file. Its files beside it and its creation are in [`files`], what an open checks in
//! [`checks`], why it refuses a file in [`error`], the record kept beside it of what it counted in
//! [`generation`], and the files looked at again before each insert in [`watch`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::{admit_each, Admission, AdmissionStore, Create, Durability, Opening, StoreError};

mod checks;
mod error;
mod files;
mod generation;
mod watch;

use checks::check_contents;
pub use checks::row_check;
pub use error::{OpenError, Refusal};
use files::{check_absent, check_file, check_present, create_whole, creation_prefix};
use watch::Watched;

/// The real path of an existing store: every link in `path` resolved (`realpath`), so that
/// two receivers that open one store by different names watch and record the same files. A path
/// that names nothing (or a link to nothing) is returned as it is, for the open's own refusal.
fn resolve(path: &Path) -> Result<PathBuf, OpenError> {
    match std::fs::canonicalize(path) {
        Ok(real) => Ok(real),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(source) => Err(OpenError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Where a new store at `path` is made: its directory resolved ([`resolve`]), its own name kept
/// (nothing is there yet: [`check_absent`] refused a link already at the name).
fn resolve_for_creation(path: &Path) -> Result<PathBuf, OpenError> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(path.to_path_buf());
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    Ok(resolve(dir)?.join(name))
}

/// A durable store on SQLite (WAL). Several receiver processes may share one file: the unique
/// key makes exactly one of any number of concurrent inserts of a pair succeed.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    durability: Durability,
    /// The generation record beside the store ([`generation`]), written after each admission.
    record: Mutex<generation::Record>,
    /// The files the connection writes through, looked at again at each admission ([`watch`]).
    watched: Watched,
}

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
        let path = &resolve_for_creation(path)?;
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
    /// and the row count, and a generation record beside it that names this store and counts
    /// no more admissions than it holds. Anything else fails closed.
    pub fn open_with(path: &Path, durability: Durability) -> Result<SqliteStore, OpenError> {
        // One store is one file whatever name it is opened by: SQLite keeps its log and index
        // beside the file a link points to, so the files watched and the generation record kept
        // are those beside the real file, never beside the link.
        let path = &resolve(path)?;
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
        let refused = |why| OpenError::Refused {
            path: path.to_path_buf(),
            why,
        };
        check_contents(&conn).map_err(refused)?;
        let record = generation::check_and_open(&conn, path).map_err(refused)?;
        // Taken now that the store was read: SQLite has its write-ahead log and index open.
        let watched =
            Watched::now(path, &generation::record_path(path)).map_err(|source| OpenError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            durability,
            record: Mutex::new(record),
            watched,
        })
    }

    /// The store at `path`, opened or created as `opening` says (the opener's SQLite arm): with
    /// [`Create::IfAbsent`], a store found already there (made before, or by a receiver started
    /// at the same moment) is opened; what a deleted store left is still refused.
    pub fn open_as(path: &Path, opening: Opening) -> Result<SqliteStore, OpenError> {
        let durability = opening.durability;
        match opening.create {
            Create::Never => SqliteStore::open_with(path, durability),
            Create::Only => SqliteStore::create_with(path, durability),
            Create::IfAbsent => match SqliteStore::create_with(path, durability) {
                Err(OpenError::Exists(_)) => SqliteStore::open_with(path, durability),
                made => made,
            },
        }
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

    /// The pairs of a batch inserted in one IMMEDIATE transaction, in order (a pair repeated in
    /// the batch meets its own first insert: a duplicate), committed once, so that the batch
    /// pays one sync. Any failure before the commit returns ends the transaction unchanged
    /// (the transaction is rolled back when dropped): none of the batch is admitted.
    fn admit_together(
        &self,
        session: &str,
        pairs: &[(&str, &str)],
    ) -> Result<Vec<Admission>, StoreError> {
        // As for one admission: a store whose files were replaced admits nothing more.
        self.watched.check()?;
        let conn = self.conn()?;
        let tx = retry_while_busy(|| {
            rusqlite::Transaction::new_unchecked(&conn, TransactionBehavior::Immediate)
        })?;
        let mut admissions = Vec::with_capacity(pairs.len());
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO admitted (session_id, publisher_id, event_id, row_check)
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            )?;
            for (publisher, event) in pairs {
                let check = row_check(session, publisher, event, false);
                let inserted = insert.execute(params![session, publisher, event, check])?;
                admissions.push(if inserted == 0 {
                    Admission::Duplicate
                } else {
                    Admission::Admitted
                });
            }
        }
        tx.commit()?;
        if admissions.contains(&Admission::Admitted) {
            let mut record = self
                .record
                .lock()
                .map_err(|_| StoreError::new("generation record poisoned by a panic"))?;
            generation::record_admission(&conn, &mut record)?;
        }
        Ok(admissions)
    }

    fn conn(&self) -> Result<std::sync::MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError::new("SQLite connection poisoned by a panic"))
    }
}

/// `path` with `suffix` appended to its last component (`x.sqlite` -> `x.sqlite-wal`): the names
/// of the files beside a store (`files`, `generation` and `watch` all name them).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
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
        // Before the insert, so that an admission into a journal no other receiver reads is never
        // made. A file removed in the moment between this look and the insert goes unseen here,
        // but not lost: the generation record, written after the insert, counts an admission the
        // store may then lose, and the store is refused at its next open.
        self.watched.check()?;
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
        if inserted == 0 {
            return Ok(Admission::Duplicate);
        }
        let mut record = self
            .record
            .lock()
            .map_err(|_| StoreError::new("generation record poisoned by a panic"))?;
        generation::record_admission(&conn, &mut record)?;
        Ok(Admission::Admitted)
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

    fn admit_batch(
        &self,
        session: &str,
        pairs: &[(&str, &str)],
    ) -> Vec<Result<Admission, StoreError>> {
        if pairs.len() < 2 {
            return admit_each(self, session, pairs);
        }
        match self.admit_together(session, pairs) {
            Ok(admissions) => admissions.into_iter().map(Ok).collect(),
            // One commit: it decided all of the batch or none of it.
            Err(e) => pairs.iter().map(|_| Err(e.clone())).collect(),
        }
    }

    fn handed_off_batch(&self, session: &str, pairs: &[(&str, &str)]) -> Result<(), StoreError> {
        if pairs.len() < 2 {
            return pairs
                .iter()
                .try_for_each(|(publisher, event)| self.handed_off(session, publisher, event));
        }
        let conn = self.conn()?;
        // Unsynced, as one mark is (`handed_off`): a lost mark leaves pairs pending, never lost.
        if self.durability == Durability::PowerLoss {
            conn.pragma_update(None, "synchronous", "NORMAL")?;
        }
        let marked = (|| {
            let tx = retry_while_busy(|| {
                rusqlite::Transaction::new_unchecked(&conn, TransactionBehavior::Immediate)
            })?;
            {
                let mut mark = tx.prepare_cached(
                    "UPDATE admitted SET handed_off = 1, row_check = ?4
                     WHERE session_id = ?1 AND publisher_id = ?2 AND event_id = ?3",
                )?;
                for (publisher, event) in pairs {
                    let check = row_check(session, publisher, event, true);
                    mark.execute(params![session, publisher, event, check])?;
                }
            }
            tx.commit()?;
            Ok::<(), StoreError>(())
        })();
        if self.durability == Durability::PowerLoss {
            conn.pragma_update(None, "synchronous", "FULL")?;
        }
        marked
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
