//! The generation record: what the store counted, kept outside it.
//!
//! A SQLite file that is whole can still be the wrong file: one whose write-ahead log was removed
//! while a receiver had it open (its main file then lacks every admission not yet checkpointed),
//! an older copy put back, or another store put in its place. Nothing inside the file can tell,
//! since each of these is a well-formed store. So the store carries an identity (`store_id`,
//! made at creation) and counts every admission it ever recorded (`admissions`, kept by a
//! trigger in the insert's transaction, never decreased), and the record beside it
//! (`STORE-generation`) holds the same two values as of the last admission. Opening compares
//! them: another identity, or fewer admissions than the record counted, is refused.
//!
//! Why this and not a journal mode that keeps every commit in the main file: a rollback journal
//! with `synchronous=FULL` costs three or four fsyncs per commit instead of one (the journal, the
//! database, the journal's reset), on every receiver, to protect against a file removed from
//! under it; the record costs no fsync. It is written after
//! the admission committed, while holding the store's write lock (an IMMEDIATE transaction that
//! changes nothing), so receivers sharing the store write it in the order they commit, and it
//! never counts an admission the store does not hold: a crash before it is written leaves it
//! behind the store, never ahead. It is not synced: with [`super::Durability::PowerLoss`] the
//! admission is on disk before the record is written, so a power loss can only leave the record
//! behind; with [`super::Durability::ProcessCrash`] neither is synced, a power loss can leave the
//! store behind its record, and the store is then refused (that durability does not promise to
//! survive a machine crash).
//!
//! What it cannot see: the record removed as well (a store without one starts a new record from
//! what it holds, as a store made by `create` does on its first open), or the store and its record
//! replaced together by a copy of both.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, TransactionBehavior};

use super::{retry_while_busy, with_suffix, Refusal};
use crate::store::StoreError;

/// The record's name beside the store: `STORE-generation`.
pub(super) const RECORD_SUFFIX: &str = "-generation";

/// The record's first line, naming its format.
const HEADER: &str = "agentconf admission store generation 1\n";

/// A record's length, always the same: the header, the 32-digit store id and the 20-digit count
/// on their lines. A file is read no further than one byte past it.
const RECORD_LEN: usize = HEADER.len() + "store ".len() + 32 + 1 + "admissions ".len() + 20 + 1;

/// What the store and its record both hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Generation {
    pub store_id: String,
    pub admissions: u64,
}

impl Generation {
    /// The record's bytes: always the same length (the count zero-padded), so that writing it
    /// again over the old one at offset 0 leaves no tail, in a single write of one sector.
    fn text(&self) -> String {
        format!(
            "{HEADER}store {}\nadmissions {:020}\n",
            self.store_id, self.admissions
        )
    }

    /// Reads a record's bytes: exactly the form [`Generation::text`] writes.
    fn parse(text: &str) -> Option<Generation> {
        let rest = text.strip_prefix(HEADER)?;
        let (store_line, rest) = rest.split_once('\n')?;
        let (count_line, rest) = rest.split_once('\n')?;
        let store_id = store_line.strip_prefix("store ")?;
        let digits = count_line.strip_prefix("admissions ")?;
        let well_formed = rest.is_empty()
            && is_store_id(store_id)
            && digits.len() == 20
            && digits.bytes().all(|b| b.is_ascii_digit());
        if !well_formed {
            return None;
        }
        Some(Generation {
            store_id: store_id.to_string(),
            admissions: digits.parse().ok()?,
        })
    }
}

/// A store identity: 32 lower-case hex digits.
fn is_store_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A new store's identity: unique, not secret (SHA-256 over the time, the process, a counter
/// and the path, cut to 128 bits).
pub(super) fn new_store_id(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut h = Sha256::new();
    h.update(now.as_nanos().to_be_bytes());
    h.update(std::process::id().to_be_bytes());
    h.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_be_bytes());
    h.update(path.as_os_str().as_encoded_bytes());
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The path of the record beside the store at `path`.
pub(super) fn record_path(path: &Path) -> PathBuf {
    with_suffix(path, RECORD_SUFFIX)
}

fn unreadable(e: rusqlite::Error) -> Refusal {
    Refusal::Unreadable {
        what: "for its generation",
        error: e.to_string(),
    }
}

/// The store's own values: its one row of `generation` (prepared once per connection, since it
/// is read after every admission).
fn of_store(conn: &Connection) -> Result<Generation, Refusal> {
    let mut stmt = conn
        .prepare_cached("SELECT store_id, admissions FROM generation")
        .map_err(unreadable)?;
    let rows: Vec<(String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(|rows| rows.collect())
        .map_err(unreadable)?;
    match rows.as_slice() {
        [(store_id, admissions)] if is_store_id(store_id) && *admissions >= 0 => Ok(Generation {
            store_id: store_id.clone(),
            admissions: *admissions as u64,
        }),
        _ => Err(Refusal::GenerationRow(format!(
            "{} rows where there is one with a store id and a count",
            rows.len()
        ))),
    }
}

/// Opening: the store's values, which count at least as many admissions as it holds rows.
fn of_whole_store(conn: &Connection) -> Result<Generation, Refusal> {
    let held = of_store(conn)?;
    let rows: i64 = conn
        .query_row("SELECT n FROM row_count", [], |r| r.get(0))
        .map_err(unreadable)?;
    if held.admissions < rows.max(0) as u64 {
        return Err(Refusal::GenerationRow(format!(
            "{} admissions counted for {rows} rows",
            held.admissions
        )));
    }
    Ok(held)
}

fn record_problem(record: &Path, why: String) -> Refusal {
    Refusal::GenerationRecord {
        record: record.to_path_buf(),
        why,
    }
}

/// The record at `record`, `None` when there is none.
fn read_record(record: &Path) -> Result<Option<Generation>, Refusal> {
    let problem = |why: String| record_problem(record, why);
    let mut text = String::new();
    // Opened without blocking and held to be a regular file: a FIFO planted at the record's name
    // would otherwise hang the open until a writer came.
    match agentconf_json::file::open_regular(record) {
        Err(agentconf_json::file::OpenError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(None)
        }
        Err(e) => return Err(problem(e.to_string())),
        Ok(f) => f
            .take(RECORD_LEN as u64 + 1)
            .read_to_string(&mut text)
            .map_err(|e| problem(e.to_string()))?,
    };
    Generation::parse(&text)
        .map(Some)
        .ok_or_else(|| problem("it is not a generation record of this agentconf".into()))
}

/// Writes a record where there is none, whole or not at all: made under a temporary name and
/// linked into place.
fn create_record(record: &Path, generation: &Generation) -> io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let tmp = with_suffix(record, &format!(".new-{}", std::process::id()));
    // A new file under the temporary name, never one already there (a link planted at that
    // predictable name is not followed, nor a file truncated).
    let written = File::options()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| f.write_all(generation.text().as_bytes()))
        .and_then(|()| std::fs::hard_link(&tmp, record));
    let _ = std::fs::remove_file(&tmp);
    written
}

/// Holds the store's write lock around `f`: an IMMEDIATE transaction that changes nothing, so
/// that every receiver of the store reads and writes the record in turn.
fn under_write_lock<T>(
    conn: &Connection,
    f: impl FnOnce() -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    let lock = retry_while_busy(|| {
        rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
    })
    .map_err(|e| Refusal::Unreadable {
        what: "under its write lock",
        error: e.message().to_string(),
    })?;
    let result = f();
    // Nothing was changed: ending the transaction only releases the lock.
    drop(lock);
    result
}

/// The record of an open store, open for the writes after each admission.
pub(super) struct Record {
    path: PathBuf,
    file: File,
}

/// Opening: the store and its record agree (the record made from the store where there is
/// none), and the record is opened for the writes after each admission.
pub(super) fn check_and_open(conn: &Connection, path: &Path) -> Result<Record, Refusal> {
    let record = record_path(path);
    under_write_lock(conn, || {
        let held = of_whole_store(conn)?;
        match read_record(&record)? {
            None => {
                create_record(&record, &held).map_err(|e| record_problem(&record, e.to_string()))?
            }
            Some(recorded) if recorded.store_id != held.store_id => {
                return Err(Refusal::OtherStore {
                    record: record.clone(),
                    recorded: recorded.store_id,
                    found: held.store_id,
                })
            }
            Some(recorded) if recorded.admissions > held.admissions => {
                return Err(Refusal::LostAdmissions {
                    record: record.clone(),
                    recorded: recorded.admissions,
                    found: held.admissions,
                })
            }
            Some(_) => {}
        }
        let file = open_for_writes(&record)?;
        Ok(Record {
            path: record.clone(),
            file,
        })
    })
}

/// The record opened for the writes after each admission: without blocking, not through a link,
/// and only when it is a regular file.
fn open_for_writes(record: &Path) -> Result<File, Refusal> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = File::options()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(record)
        .map_err(|e| record_problem(record, e.to_string()))?;
    match file.metadata() {
        Ok(m) if m.is_file() => Ok(file),
        Ok(_) => Err(record_problem(record, "it is not a regular file".into())),
        Err(e) => Err(record_problem(record, e.to_string())),
    }
}

/// After an admission committed: the record counts it (and whatever other receivers of the store
/// committed meanwhile).
pub(super) fn record_admission(conn: &Connection, record: &mut Record) -> Result<(), StoreError> {
    under_write_lock(conn, || {
        let held = of_store(conn)?;
        let file = &mut record.file;
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(held.text().as_bytes()))
            .map_err(|e| record_problem(&record.path, e.to_string()))
    })
    .map_err(|why| StoreError::new(why.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_and_nothing_else_does() {
        let g = Generation {
            store_id: "0123456789abcdef0123456789abcdef".into(),
            admissions: 42,
        };
        assert_eq!(Generation::parse(&g.text()), Some(g.clone()));
        let more = Generation {
            admissions: u64::MAX,
            ..g.clone()
        };
        assert_eq!(more.text().len(), RECORD_LEN);
        assert_eq!(g.text().len(), RECORD_LEN);
        let text = g.text();
        for bad in [
            String::new(),
            text.replace("generation 1", "generation 2"),
            text.replace("0123", "0G23"),
            text.replace("00042", "0042"),
            text.replace("00042", "0004x"),
            format!("{text}\n"),
            text.trim_end().to_string(),
        ] {
            assert_eq!(Generation::parse(&bad), None, "{bad:?}");
        }
        assert!(is_store_id(&new_store_id(Path::new("/a"))));
        assert_ne!(new_store_id(Path::new("/a")), new_store_id(Path::new("/a")));
    }
}
