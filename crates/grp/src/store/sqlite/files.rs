//! The store's files: whether it (or what a deleted one left) is there, and its creation, whole,
//! under a temporary name linked into place.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::checks::{APPLICATION_ID, SCHEMA, SCHEMA_VERSION};
use super::generation::{new_store_id, RECORD_SUFFIX};
use super::OpenError;
use crate::store::StoreError;

/// The files SQLite keeps beside a database: after a crash, or while it is open, they hold
/// committed pairs not yet in the main file.
const JOURNAL_SUFFIXES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Everything a store keeps beside it: its journals and its generation record. Any of them
/// without the store is what a deleted store left.
const BESIDE_SUFFIXES: [&str; 4] = ["-wal", "-shm", "-journal", RECORD_SUFFIX];

/// The start of the temporary name a store at `store` is made under (see [`create_whole`]).
pub(super) fn creation_prefix(store: &std::ffi::OsStr) -> String {
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

/// The files a store keeps beside `path` that are there (whether or not `path` is).
fn beside(path: &Path) -> Result<Vec<PathBuf>, OpenError> {
    let mut found = Vec::new();
    for suffix in BESIDE_SUFFIXES {
        let journal = with_suffix(path, suffix);
        if is_present(&journal)? {
            found.push(journal);
        }
    }
    Ok(found)
}

/// What is at a store's path when its file was not there.
enum Absent {
    /// No file, and nothing of a store beside it.
    Nothing,
    /// Journals or a generation record without the file: what a deleted store left.
    Leftovers(Vec<PathBuf>),
    /// The file is there now, made by a creator started together with this one.
    Appeared,
}

/// A second look at `path` after its file was not there. A live store's journals and record
/// appear only after its file was linked into place, so any of them seen while the file is not
/// there means it was deleted, unless the file appeared meanwhile: looking for it again, after
/// them, tells which.
fn look_again(path: &Path) -> Result<Absent, OpenError> {
    let leftovers = beside(path)?;
    Ok(if leftovers.is_empty() {
        Absent::Nothing
    } else if is_present(path)? {
        Absent::Appeared
    } else {
        Absent::Leftovers(leftovers)
    })
}

/// For `open`: the store file is there.
pub(super) fn check_present(path: &Path) -> Result<(), OpenError> {
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
pub(super) fn check_absent(path: &Path) -> Result<(), OpenError> {
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
pub(super) fn create_whole(path: &Path) -> Result<(), OpenError> {
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
pub(super) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
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
    conn.execute(
        "INSERT INTO generation (store_id, admissions) VALUES (?1, 0)",
        [new_store_id(tmp)],
    )?;
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
pub(super) fn check_file(path: &Path) -> Result<(), OpenError> {
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
