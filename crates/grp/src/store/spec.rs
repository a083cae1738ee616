//! The one opener: a store from its spec.
//!
//! | spec | store |
//! |---|---|
//! | `memory` (or `memory:`) | [`MemoryStore`], this process's alone, gone with it |
//! | `sqlite:PATH` | [`SqliteStore`] at `PATH` |
//! | none: the contract's receiver | [`SqliteStore`] in its `STATE_DIR` ([`StoreSpec::StateDir`]) |
//!
//! Every receiver gets its store here (the CLI's `grp` commands, the contract's receiver, the
//! in-process receivers and the mutants), boxed, so a new backend (a PostgreSQL store shared by
//! several receiver nodes, say) is one module beside these, a variant of [`StoreSpec`] and its
//! arms in [`StoreSpec::parse`] and [`StoreSpec::open`]. Until one is built in, a `postgres://`
//! spec is refused as not built in rather than as unknown.

use std::fmt;
use std::path::PathBuf;

use super::{
    state_dir, BoxedStore, Durability, MemoryStore, OpenError, SqliteStore, StateDirError,
};

/// Where a receiver keeps its admitted set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreSpec {
    /// `memory`: in the receiver process.
    Memory,
    /// `sqlite:PATH`: a SQLite file, shared by every receiver that opens it.
    Sqlite(PathBuf),
    /// The contract's receiver's store: SQLite in its `STATE_DIR` (no spec string names it).
    StateDir(PathBuf),
}

/// Whether opening may create the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    /// Only an existing store is opened; a missing one is refused.
    Never,
    /// Created where there is none yet, opened otherwise (`grp admit --create`; for a
    /// `STATE_DIR`, the contract's rule: created in an empty directory).
    IfAbsent,
    /// Only created; one already there is refused (`grp init`).
    Only,
}

/// How a store is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    pub create: Create,
    /// For stores that keep the set on disk.
    pub durability: Durability,
}

impl Opening {
    /// An existing store, durable against power loss (`grp close`, `grp recover`).
    pub const EXISTING: Opening = Opening {
        create: Create::Never,
        durability: Durability::PowerLoss,
    };

    /// The contract's receiver: its store created in an empty `STATE_DIR` and opened otherwise,
    /// durable against power loss.
    pub const RECEIVER: Opening = Opening {
        create: Create::IfAbsent,
        durability: Durability::PowerLoss,
    };
}

/// Why no store was opened. Each one fails closed: the receiver admits nothing.
#[derive(Debug)]
pub enum OpenStoreError {
    /// Not a spec of any backend.
    Unknown(String),
    /// A backend this build of agentconf does not include.
    NotBuiltIn { spec: String, backend: &'static str },
    /// `sqlite:` with no path.
    NoPath(String),
    /// Creation asked of a store that lives and dies with its process (`memory`).
    NothingToCreate(String),
    /// The SQLite store was refused (missing, deleted, damaged, ...).
    Sqlite(OpenError),
    /// The `STATE_DIR` holds no store the receiver may open or create.
    StateDir(StateDirError),
}

impl fmt::Display for OpenStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenStoreError::Unknown(spec) => write!(
                f,
                "admission store {spec:?}: expected `memory` or `sqlite:PATH`"
            ),
            OpenStoreError::NotBuiltIn { spec, backend } => write!(
                f,
                "admission store {spec:?}: this agentconf has no {backend} store built in \
                 (expected `memory` or `sqlite:PATH`)"
            ),
            OpenStoreError::NoPath(spec) => {
                write!(f, "admission store {spec:?}: `sqlite:` needs a path")
            }
            OpenStoreError::NothingToCreate(spec) => write!(
                f,
                "admission store {spec:?}: a store in memory is made with its process and ends \
                 with it, so there is nothing to create (`--create` and `grp init` are for \
                 `sqlite:PATH`)"
            ),
            OpenStoreError::Sqlite(e) => e.fmt(f),
            OpenStoreError::StateDir(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OpenStoreError {}

impl fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Memory => f.write_str("memory"),
            StoreSpec::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            StoreSpec::StateDir(dir) => write!(f, "STATE_DIR {}", dir.display()),
        }
    }
}

impl StoreSpec {
    /// Reads a spec: `memory` (or `memory:`), `sqlite:PATH`.
    pub fn parse(spec: &str) -> Result<StoreSpec, OpenStoreError> {
        match spec.split_once(':') {
            None if spec == "memory" => Ok(StoreSpec::Memory),
            Some(("memory", "")) => Ok(StoreSpec::Memory),
            Some(("sqlite", "")) => Err(OpenStoreError::NoPath(spec.to_string())),
            Some(("sqlite", path)) => Ok(StoreSpec::Sqlite(PathBuf::from(path))),
            Some(("postgres" | "postgresql", _)) => Err(OpenStoreError::NotBuiltIn {
                spec: spec.to_string(),
                backend: "PostgreSQL",
            }),
            _ => Err(OpenStoreError::Unknown(spec.to_string())),
        }
    }

    /// Opens (or creates, as `opening` allows) the store this spec names.
    pub fn open(&self, opening: Opening) -> Result<BoxedStore, OpenStoreError> {
        Ok(match self {
            StoreSpec::Memory => {
                if opening.create != Create::Never {
                    return Err(OpenStoreError::NothingToCreate(self.to_string()));
                }
                Box::new(MemoryStore::new())
            }
            StoreSpec::Sqlite(path) => {
                Box::new(SqliteStore::open_as(path, opening).map_err(OpenStoreError::Sqlite)?)
            }
            StoreSpec::StateDir(dir) => {
                Box::new(state_dir::open(dir, opening).map_err(OpenStoreError::StateDir)?)
            }
        })
    }
}

/// The store `spec` names, opened as `opening` says: [`StoreSpec::parse`], then
/// [`StoreSpec::open`].
pub fn open(spec: &str, opening: Opening) -> Result<BoxedStore, OpenStoreError> {
    StoreSpec::parse(spec)?.open(opening)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_read_and_refused_by_kind() {
        assert_eq!(StoreSpec::parse("memory").unwrap(), StoreSpec::Memory);
        assert_eq!(StoreSpec::parse("memory:").unwrap(), StoreSpec::Memory);
        assert_eq!(
            StoreSpec::parse("sqlite:/state/a.sqlite").unwrap(),
            StoreSpec::Sqlite(PathBuf::from("/state/a.sqlite"))
        );
        assert!(matches!(
            StoreSpec::parse("sqlite:"),
            Err(OpenStoreError::NoPath(_))
        ));
        for spec in ["postgres://db/grp", "postgresql://db/grp"] {
            let err = StoreSpec::parse(spec).unwrap_err();
            assert!(
                matches!(err, OpenStoreError::NotBuiltIn { .. }),
                "{spec}: {err:?}"
            );
            assert!(err.to_string().contains("PostgreSQL"), "{err}");
        }
        for spec in [
            "",
            "memory:x",
            "Memory",
            "sqlite",
            "/state/a.sqlite",
            "file:a",
        ] {
            assert!(
                matches!(StoreSpec::parse(spec), Err(OpenStoreError::Unknown(_))),
                "{spec:?}"
            );
        }
    }

    #[test]
    fn memory_is_opened_never_created() {
        let store = open("memory", Opening::EXISTING).unwrap();
        assert!(!store.is_durable());
        for create in [Create::IfAbsent, Create::Only] {
            let opening = Opening {
                create,
                durability: Durability::PowerLoss,
            };
            assert!(matches!(
                open("memory", opening),
                Err(OpenStoreError::NothingToCreate(_))
            ));
        }
    }
}
