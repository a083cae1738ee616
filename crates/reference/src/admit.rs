//! The GRP reference receiver on a stream: event lines in, exactly one decision line out per
//! line, each flushed as it goes (a harness drives it interactively).

use std::io::{BufRead, Write};
use std::path::Path;

use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::lines::BATCH_LIMIT;
use agentconf_grp::session::SessionContext;
pub use agentconf_grp::store::STATE_FILE;
use agentconf_grp::store::{
    AdmissionStore, BoxedStore, ClusterEnv, OpenStoreError, Opening, StoreSpec,
};
use agentconf_grp::stream::admit_stream;

/// The store of the contract's receiver: SQLite in `dir` (its `STATE_DIR`), created when `dir`
/// is empty (or missing), opened when it holds the store, refused otherwise. The one opener's
/// [`StoreSpec::StateDir`] with [`Opening::RECEIVER`]; the rule is explained in
/// [`agentconf_grp::store::state_dir`].
pub fn open_state(dir: &Path) -> Result<BoxedStore, OpenStoreError> {
    StoreSpec::StateDir(dir.to_path_buf()).open(Opening::RECEIVER)
}

/// The store of the contract's receiver as its environment chooses it (CONTRACT.md §5):
/// `AGENTCONF_GRP_STORE` unset is [`open_state`]; `postgres://…` is a store shared by the cluster's
/// nodes, reached at `AGENTCONF_STORE_ADDR` and namespaced by `AGENTCONF_CLUSTER`
/// ([`StoreSpec::for_receiver`]).
pub fn open_receiver_store(dir: &Path, env: &ClusterEnv) -> Result<BoxedStore, OpenStoreError> {
    StoreSpec::for_receiver(dir, env)?.open(Opening::RECEIVER)
}

/// Reads a session context file (bounded like every document).
pub fn read_session(path: &Path) -> Result<SessionContext, String> {
    let name = path.display().to_string();
    read_session_from(crate::dispatch::open_file(&name)?, &name)
}

/// Reads a session context from `input`, named `name` in messages.
pub fn read_session_from(input: impl std::io::Read, name: &str) -> Result<SessionContext, String> {
    let bytes = match agentconf_json::read_limited(input, crate::dispatch::MAX_DOCUMENT_BYTES)
        .map_err(|e| format!("cannot read {name}: {e}"))?
    {
        Ok(b) => b,
        Err(e) => return Err(format!("{name}: {e}")),
    };
    SessionContext::from_json(&bytes).map_err(|e| format!("{name}: {e}"))
}

/// `IMPL grp-admit REVISION SESSION STATE_DIR`: `Ok(false)` when the revision is not one the
/// reference implements (exit 89).
pub fn grp_admit(
    revision: &str,
    session: &str,
    state_dir: &str,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<bool, String> {
    let Some(revision) = Revision::parse(revision) else {
        return Ok(false);
    };
    let session = read_session(Path::new(session))?;
    let store = open_receiver_store(Path::new(state_dir), &ClusterEnv::from_process())
        .map_err(|e| e.to_string())?;
    run_stream(&Receiver::new(session, revision, store), input, out)?;
    Ok(true)
}

/// Delivers every line of `input` to `receiver` and writes its decisions to `out`: lines already
/// waiting together are admitted in one commit and answered after it
/// ([`agentconf_grp::stream::admit_stream`], up to [`BATCH_LIMIT`] lines).
pub fn run_stream<S: AdmissionStore>(
    receiver: &Receiver<S>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(), String> {
    admit_stream(receiver, input, out, BATCH_LIMIT).map_err(|e| e.to_string())
}

/// One decision line, flushed.
pub use agentconf_grp::stream::write_decision;
