//! The files an open store writes through, watched at each admission.
//!
//! SQLite holds the database, its write-ahead log (`-wal`) and its shared-memory index (`-shm`)
//! open for as long as the connection lives, and never looks at their names again. Removed from
//! under it, they live on unnamed: commits go into a log no other connection will read, and is
//! gone at a crash; a receiver started meanwhile makes a new log and index, sees none of those
//! commits, and admits their replays again. So the names are looked at again before each
//! insert: each must still name the file it named when the store was
//! opened (the same device and inode; a file held open keeps its inode, so a new file at the name
//! never has the old one's number). The admission that finds one removed or replaced fails
//! ([`StoreError`]) before its insert: nothing is recorded or handed on, and the receiver stops.
//! Cost: four `stat` calls per delivery that reaches the store, against the commit (and, by
//! default, the fsync) every admission makes.

use std::fmt;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

use super::files::with_suffix;
use crate::store::StoreError;

/// What a file is, as far as telling it from another at the same name goes: its device and
/// inode where the platform says (elsewhere only that it is there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId(Option<(u64, u64)>);

impl FileId {
    #[cfg(unix)]
    fn of(meta: &Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId(Some((meta.dev(), meta.ino())))
    }

    #[cfg(not(unix))]
    fn of(_: &Metadata) -> FileId {
        FileId(None)
    }
}

/// What happened to a watched file.
#[derive(Debug)]
enum Change {
    Removed,
    Replaced,
    Unreadable(io::Error),
}

/// A watched file that no longer is what it was.
#[derive(Debug)]
struct Vanished {
    path: PathBuf,
    change: Change,
}

impl fmt::Display for Vanished {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.change {
            Change::Removed => write!(f, "{path} was removed while the store was open"),
            Change::Replaced => write!(
                f,
                "{path} was replaced by another file while the store was open"
            ),
            Change::Unreadable(e) => write!(f, "{path} cannot be looked at ({e})"),
        }?;
        f.write_str(
            ": admissions committed through it may be seen by no other receiver, or lost; \
             nothing more is admitted through this store until it is opened again",
        )
    }
}

/// The files of an open store and what each was when it was opened.
#[derive(Debug)]
pub(super) struct Watched {
    files: Vec<(PathBuf, FileId)>,
}

impl Watched {
    /// The store file, its journal files that are there now, and `record`: taken once the store
    /// is open and read, when SQLite has opened its write-ahead log and index.
    pub(super) fn now(path: &Path, record: &Path) -> io::Result<Watched> {
        let mut files = Vec::new();
        for file in [path.to_path_buf(), record.to_path_buf()] {
            let meta = std::fs::metadata(&file)?;
            files.push((file, FileId::of(&meta)));
        }
        for suffix in ["-wal", "-shm"] {
            let journal = with_suffix(path, suffix);
            match std::fs::metadata(&journal) {
                Ok(meta) => files.push((journal, FileId::of(&meta))),
                // Not in WAL mode: nothing of the store's is in a journal between transactions.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Watched { files })
    }

    /// Each file is still at its name.
    pub(super) fn check(&self) -> Result<(), StoreError> {
        for (path, id) in &self.files {
            let change = match std::fs::metadata(path) {
                Ok(meta) if FileId::of(&meta) == *id => continue,
                Ok(_) => Change::Replaced,
                Err(e) if e.kind() == io::ErrorKind::NotFound => Change::Removed,
                Err(e) => Change::Unreadable(e),
            };
            let vanished = Vanished {
                path: path.clone(),
                change,
            };
            return Err(StoreError(vanished.to_string()));
        }
        Ok(())
    }
}
