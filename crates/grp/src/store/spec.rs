//! The one opener: a store from its spec.
//!
//! | spec | store |
//! |---|---|
//! | `memory` (or `memory:`) | [`MemoryStore`], this process's alone, gone with it |
//! | `sqlite:PATH` | [`SqliteStore`] at `PATH` |
//! | `postgres://…` or `postgresql://…` | [`PostgresStore`], shared by receiver nodes |
//! | none: the contract's receiver | [`SqliteStore`] in its `STATE_DIR` ([`StoreSpec::StateDir`]) |
//!
//! Every receiver gets its store here (the CLI's `grp` commands, the contract's receiver, the
//! in-process receivers and the mutants), boxed, so a new backend is one module beside these, a
//! variant of [`StoreSpec`] and its arms in [`StoreSpec::parse`] and [`StoreSpec::open`]. The
//! contract's receiver takes its spec from `AGENTCONF_GRP_STORE` ([`StoreSpec::for_receiver`]),
//! and a cluster node reaches a PostgreSQL store through its environment's address and namespace
//! ([`StoreSpec::in_cluster`]).

use std::fmt;
use std::path::Path;
#[cfg(feature = "sqlite")]
use std::path::PathBuf;

#[cfg(feature = "postgres")]
use super::postgres::{PostgresOpenError, PostgresStore, PostgresTarget};
#[cfg(feature = "sqlite")]
use super::{state_dir, OpenError, SqliteStore, StateDirError};
use super::{BoxedStore, ClusterEnv, Durability, MemoryStore};

/// Where a receiver keeps its admitted set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreSpec {
    /// `memory`: in the receiver process.
    Memory,
    /// `sqlite:PATH`: a SQLite file, shared by every receiver that opens it.
    #[cfg(feature = "sqlite")]
    Sqlite(PathBuf),
    /// The contract's receiver's store: SQLite in its `STATE_DIR` (no spec string names it).
    #[cfg(feature = "sqlite")]
    StateDir(PathBuf),
    /// `postgres://…`: a PostgreSQL database, shared by every receiver node that reaches it with
    /// the same cluster token.
    #[cfg(feature = "postgres")]
    Postgres(PostgresTarget),
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
    /// A spec the contract's receiver does not take from `AGENTCONF_GRP_STORE` (`memory`: the
    /// receiver's set must outlive its process).
    NotForReceiver(String),
    /// `sqlite:` with no path.
    NoPath(String),
    /// Creation asked of a store that lives and dies with its process (`memory`).
    NothingToCreate(String),
    /// A backend this build was made without (the crate's `sqlite` or `postgres` feature).
    NotBuilt { spec: String, feature: &'static str },
    /// The SQLite store was refused (missing, deleted, damaged, ...).
    #[cfg(feature = "sqlite")]
    Sqlite(OpenError),
    /// The `STATE_DIR` holds no store the receiver may open or create.
    #[cfg(feature = "sqlite")]
    StateDir(StateDirError),
    /// The PostgreSQL store was refused (no such database, another schema version, ...).
    #[cfg(feature = "postgres")]
    Postgres(PostgresOpenError),
}

impl fmt::Display for OpenStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenStoreError::Unknown(spec) => write!(
                f,
                "admission store {spec:?}: expected `memory`, `sqlite:PATH` or `postgres://…`"
            ),
            OpenStoreError::NotForReceiver(spec) => write!(
                f,
                "AGENTCONF_GRP_STORE {spec:?}: the receiver's admitted set must outlive its \
                 process (expected `sqlite:` for its STATE_DIR, `sqlite:PATH` or `postgres://…`)"
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
            OpenStoreError::NotBuilt { spec, feature } => write!(
                f,
                "admission store {spec:?}: this build has no {feature} store (built without the \
                 `{feature}` feature of agentconf-grp)"
            ),
            #[cfg(feature = "sqlite")]
            OpenStoreError::Sqlite(e) => e.fmt(f),
            #[cfg(feature = "sqlite")]
            OpenStoreError::StateDir(e) => e.fmt(f),
            #[cfg(feature = "postgres")]
            OpenStoreError::Postgres(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OpenStoreError {}

impl fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Memory => f.write_str("memory"),
            #[cfg(feature = "sqlite")]
            StoreSpec::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            #[cfg(feature = "sqlite")]
            StoreSpec::StateDir(dir) => write!(f, "STATE_DIR {}", dir.display()),
            #[cfg(feature = "postgres")]
            StoreSpec::Postgres(target) => target.fmt(f),
        }
    }
}

impl StoreSpec {
    /// Reads a spec: `memory` (or `memory:`), `sqlite:PATH`, `postgres://…` (or
    /// `postgresql://…`, as the client reads it).
    pub fn parse(spec: &str) -> Result<StoreSpec, OpenStoreError> {
        match spec.split_once(':') {
            None if spec == "memory" => Ok(StoreSpec::Memory),
            Some(("memory", "")) => Ok(StoreSpec::Memory),
            Some(("sqlite", "")) => Err(OpenStoreError::NoPath(spec.to_string())),
            #[cfg(feature = "sqlite")]
            Some(("sqlite", path)) => Ok(StoreSpec::Sqlite(PathBuf::from(path))),
            #[cfg(not(feature = "sqlite"))]
            Some(("sqlite", _)) => Err(OpenStoreError::NotBuilt {
                spec: spec.to_string(),
                feature: "sqlite",
            }),
            #[cfg(feature = "postgres")]
            Some(("postgres" | "postgresql", rest)) if rest.starts_with("//") => {
                PostgresTarget::new(spec)
                    .map(StoreSpec::Postgres)
                    .map_err(|e| OpenStoreError::Postgres(PostgresOpenError::Target(e)))
            }
            #[cfg(not(feature = "postgres"))]
            Some(("postgres" | "postgresql", rest)) if rest.starts_with("//") => {
                Err(OpenStoreError::NotBuilt {
                    spec: spec.to_string(),
                    feature: "postgres",
                })
            }
            _ => Err(OpenStoreError::Unknown(spec.to_string())),
        }
    }

    /// The contract's receiver's store for `STATE_DIR` `dir` (CONTRACT.md §5): unset
    /// `AGENTCONF_GRP_STORE` (or `sqlite:`) is SQLite in `dir`; `sqlite:PATH` and `postgres://…`
    /// name a store shared by the nodes, the latter reached as [`StoreSpec::in_cluster`] says.
    pub fn for_receiver(dir: &Path, env: &ClusterEnv) -> Result<StoreSpec, OpenStoreError> {
        let spec = match env.store.as_deref() {
            #[cfg(feature = "sqlite")]
            None | Some("sqlite:") => return Ok(StoreSpec::StateDir(dir.to_path_buf())),
            #[cfg(not(feature = "sqlite"))]
            None | Some("sqlite:") => {
                let _ = dir;
                return Err(OpenStoreError::NotBuilt {
                    spec: "sqlite:".into(),
                    feature: "sqlite",
                });
            }
            Some(spec) => StoreSpec::parse(spec)?,
        };
        if spec == StoreSpec::Memory {
            return Err(OpenStoreError::NotForReceiver(spec.to_string()));
        }
        spec.in_cluster(env)
    }

    /// This spec as a cluster node reaches it: a PostgreSQL store through `env`'s address
    /// (`AGENTCONF_STORE_ADDR`), in `env`'s namespace (`AGENTCONF_CLUSTER`), recording `env`'s
    /// node name; any other spec unchanged.
    pub fn in_cluster(self, env: &ClusterEnv) -> Result<StoreSpec, OpenStoreError> {
        #[cfg(not(feature = "postgres"))]
        let _ = env;
        match self {
            #[cfg(feature = "postgres")]
            StoreSpec::Postgres(target) => target
                .in_cluster(env)
                .map(StoreSpec::Postgres)
                .map_err(|e| OpenStoreError::Postgres(PostgresOpenError::Target(e))),
            other => Ok(other),
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
            #[cfg(feature = "sqlite")]
            StoreSpec::Sqlite(path) => {
                Box::new(SqliteStore::open_as(path, opening).map_err(OpenStoreError::Sqlite)?)
            }
            #[cfg(feature = "sqlite")]
            StoreSpec::StateDir(dir) => {
                Box::new(state_dir::open(dir, opening).map_err(OpenStoreError::StateDir)?)
            }
            #[cfg(feature = "postgres")]
            StoreSpec::Postgres(target) => {
                Box::new(PostgresStore::open(target, opening).map_err(OpenStoreError::Postgres)?)
            }
        })
    }
}

/// The store `spec` names, opened as `opening` says: [`StoreSpec::parse`], then
/// [`StoreSpec::open`].
pub fn open(spec: &str, opening: Opening) -> Result<BoxedStore, OpenStoreError> {
    StoreSpec::parse(spec)?.open(opening)
}

#[cfg(all(test, feature = "sqlite", feature = "postgres"))]
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
        for spec in ["postgres://db/grp", "postgresql://u@db:5432/grp"] {
            assert!(
                matches!(StoreSpec::parse(spec), Ok(StoreSpec::Postgres(_))),
                "{spec}"
            );
        }
        assert!(matches!(
            StoreSpec::parse("postgres://db:port/grp"),
            Err(OpenStoreError::Postgres(PostgresOpenError::Target(_)))
        ));
        for spec in [
            "",
            "memory:x",
            "Memory",
            "sqlite",
            "/state/a.sqlite",
            "file:a",
            "postgres:db",
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

    #[test]
    fn the_receiver_takes_its_store_from_the_environment() {
        let dir = Path::new("/state/node-a");
        let env = |store: Option<&str>| ClusterEnv {
            store: store.map(str::to_string),
            store_addr: Some("127.0.0.1:7000".into()),
            cluster: Some("scenario-1".into()),
            node: Some("a".into()),
        };
        for unset in [None, Some("sqlite:")] {
            assert_eq!(
                StoreSpec::for_receiver(dir, &env(unset)).unwrap(),
                StoreSpec::StateDir(dir.to_path_buf())
            );
        }
        let Ok(StoreSpec::Postgres(target)) =
            StoreSpec::for_receiver(dir, &env(Some("postgres://grp@db:5432/agentconf")))
        else {
            panic!("a postgres:// spec names a PostgreSQL store");
        };
        assert_eq!(
            (target.cluster.as_str(), target.node.as_str()),
            ("scenario-1", "a")
        );
        assert!(target
            .to_string()
            .starts_with("postgres://grp@127.0.0.1:7000/agentconf"));
        assert!(matches!(
            StoreSpec::for_receiver(dir, &env(Some("memory"))),
            Err(OpenStoreError::NotForReceiver(_))
        ));
    }
}
