//! The environment a receiver node is started with (CONTRACT.md §5 and §7): which store it keeps
//! its admitted set in, where it reaches it, and the namespace and name it records. Read whatever
//! backends this build has: a build without the PostgreSQL store still reads (and refuses) a
//! `postgres://` spec.

/// The environment of a cluster node (CONTRACT.md §5): each node is the contract's receiver with
/// its own `STATE_DIR` and these variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterEnv {
    /// `AGENTCONF_GRP_STORE`: the reference's store (unset: SQLite in `STATE_DIR`).
    pub store: Option<String>,
    /// `AGENTCONF_STORE_ADDR`: `HOST:PORT` replacing the host and port of a `postgres://` URL.
    pub store_addr: Option<String>,
    /// `AGENTCONF_CLUSTER`: the token unique to a scenario; shared state is namespaced by it.
    pub cluster: Option<String>,
    /// `AGENTCONF_NODE`: this node's name, kept with each admission it records.
    pub node: Option<String>,
}

impl ClusterEnv {
    /// The variables as this process's environment has them (an empty one counts as unset).
    pub fn from_process() -> ClusterEnv {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        ClusterEnv {
            store: var("AGENTCONF_GRP_STORE"),
            store_addr: var("AGENTCONF_STORE_ADDR"),
            cluster: var("AGENTCONF_CLUSTER"),
            node: var("AGENTCONF_NODE"),
        }
    }
}
