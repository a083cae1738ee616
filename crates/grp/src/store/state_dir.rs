//! The store of the contract's receiver (`IMPL grp-admit REVISION SESSION STATE_DIR`, CONTRACT.md
//! section 5): SQLite at `STATE_DIR/admitted.sqlite`, created only in an empty `STATE_DIR`.
//!
//! The contract gives every vector an empty `STATE_DIR`: that empty directory is the harness's
//! explicit "fresh state", so it is where a store is created. A `STATE_DIR` with entries but no
//! store is a deleted store (what a deleted store leaves, or files that are not this receiver's),
//! and creating one there would forget every admitted pair: refused. Concurrent copies of the
//! receiver start together on one empty directory; the entries a copy makes while creating the
//! store (its temporary file, see [`SqliteStore::is_creation_file`]) do not count, so no copy
//! refuses for seeing another mid-creation: each one that finds the directory empty tries to
//! create, exactly one link wins, and the others open the store it made.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use super::{Create, OpenError, Opening, SqliteStore};

/// The file that holds a receiver's admission set under the contract's `STATE_DIR`.
pub const STATE_FILE: &str = "admitted.sqlite";

/// How many entry names a refusal quotes.
const NAMES_QUOTED: usize = 5;

/// Why a receiver has no admission store in its `STATE_DIR`: it admits nothing (exit 2).
#[derive(Debug)]
pub enum StateDirError {
    /// `STATE_DIR` cannot be made or listed.
    Dir { dir: PathBuf, source: io::Error },
    /// `STATE_DIR` holds entries but no store: the store was deleted (or the directory is not
    /// one the harness gave fresh). `entries` are some of the names found.
    NoStore { dir: PathBuf, entries: Vec<String> },
    /// The store could not be created or opened (missing, deleted, damaged, ...).
    Store(OpenError),
}

impl fmt::Display for StateDirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateDirError::Dir { dir, source } => {
                write!(f, "STATE_DIR {}: {source}", dir.display())
            }
            StateDirError::NoStore { dir, entries } => write!(
                f,
                "STATE_DIR {} is not empty ({}) but holds no admission store {STATE_FILE}: the \
                 store was deleted, and starting afresh would admit every replay again (a \
                 receiver creates its store only in an empty STATE_DIR)",
                dir.display(),
                entries.join(", ")
            ),
            StateDirError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StateDirError {}

/// The admission store in `dir`. With [`Create::IfAbsent`] (the contract's receiver): created
/// when `dir` is empty (or missing), opened when it holds the store, refused otherwise. With
/// [`Create::Never`] only an existing store is opened; with [`Create::Only`] one is only
/// created, in an empty `dir`.
pub fn open(dir: &Path, opening: Opening) -> Result<SqliteStore, StateDirError> {
    let store = dir.join(STATE_FILE);
    if opening.create != Create::Never {
        std::fs::create_dir_all(dir).map_err(|source| StateDirError::Dir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    // Listed before the store is looked for: the store is linked into place before its
    // journals appear, so whatever of another copy's store the listing saw, the look that
    // follows finds the store itself.
    let entries = entries_besides_creation(dir, &store)?;
    if entries.is_empty() && opening.create != Create::Never {
        match SqliteStore::create_with(&store, opening.durability) {
            Ok(s) => return Ok(s),
            // Another copy was first (or the store appeared after the listing): open it.
            Err(OpenError::Exists(_)) if opening.create == Create::IfAbsent => {}
            Err(e) => return Err(StateDirError::Store(e)),
        }
    } else if opening.create == Create::Only {
        // Only an empty STATE_DIR gets a new store.
        return Err(match std::fs::symlink_metadata(&store) {
            Ok(_) => StateDirError::Store(OpenError::Exists(store)),
            Err(_) => StateDirError::NoStore {
                dir: dir.to_path_buf(),
                entries,
            },
        });
    }
    match SqliteStore::open_with(&store, opening.durability) {
        Err(OpenError::Missing(_)) => Err(StateDirError::NoStore {
            dir: dir.to_path_buf(),
            entries,
        }),
        other => other.map_err(StateDirError::Store),
    }
}

/// The names in `dir` other than creations of `store` in progress, at most [`NAMES_QUOTED`] of
/// them (whether there are any is all that decides; the names are for the message).
fn entries_besides_creation(dir: &Path, store: &Path) -> Result<Vec<String>, StateDirError> {
    let failed = |source| StateDirError::Dir {
        dir: dir.to_path_buf(),
        source,
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(failed)? {
        let name = entry.map_err(failed)?.file_name();
        if !SqliteStore::is_creation_file(store, &name) {
            names.push(name.to_string_lossy().into_owned());
            if names.len() == NAMES_QUOTED {
                break;
            }
        }
    }
    Ok(names)
}
