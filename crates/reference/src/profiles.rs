//! The GRP capability profiles the reference claims when nothing else is said: what `agentconf
//! run` records for it.

/// The reference's own claims: `durable` and `atomic`, and `cluster` in process (its nodes share
/// one store) or when its processes are given a shared store (`AGENTCONF_GRP_STORE`): without
/// one each node process keeps its admitted set in its own STATE_DIR, which the cluster vectors
/// fail, as they must.
pub fn claimed(in_process: bool) -> Vec<String> {
    let mut profiles = vec!["durable".to_string(), "atomic".to_string()];
    if in_process || std::env::var_os("AGENTCONF_GRP_STORE").is_some() {
        profiles.push("cluster".to_string());
    }
    profiles
}
