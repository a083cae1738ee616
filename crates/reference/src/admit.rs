//! The GRP reference receiver on a stream: event lines in, exactly one decision line out per
//! line, each flushed as it goes (a harness drives it interactively).

use std::io::{self, BufRead, Write};
use std::path::Path;

use agentconf_grp::admission::{Decision, Receiver, Revision, MAX_EVENT_BYTES};
use agentconf_grp::lines::{read_event_line, EventLine};
use agentconf_grp::session::SessionContext;
pub use agentconf_grp::store::STATE_FILE;
use agentconf_grp::store::{AdmissionStore, BoxedStore, OpenStoreError, Opening, StoreSpec};

/// The store of the contract's receiver: SQLite in `dir` (its `STATE_DIR`), created when `dir`
/// is empty (or missing), opened when it holds the store, refused otherwise. The one opener's
/// [`StoreSpec::StateDir`] with [`Opening::RECEIVER`]; the rule is explained in
/// [`agentconf_grp::store::state_dir`].
pub fn open_state(dir: &Path) -> Result<BoxedStore, OpenStoreError> {
    StoreSpec::StateDir(dir.to_path_buf()).open(Opening::RECEIVER)
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
    let store = open_state(Path::new(state_dir)).map_err(|e| e.to_string())?;
    run_stream(&Receiver::new(session, revision, store), input, out)?;
    Ok(true)
}

/// Delivers every line of `input` to `receiver` and writes its decisions to `out`.
pub fn run_stream<S: AdmissionStore>(
    receiver: &Receiver<S>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(), String> {
    let mut line = Vec::new();
    loop {
        let read = read_event_line(input, &mut line)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        // The admitted decision is the hand-off: it is written after the pair committed and
        // before the store marks the hand-off done, so a crash in between leaves the pair pending
        // (recoverable with `agentconf grp recover`), never lost.
        let mut handed_off: Option<io::Result<()>> = None;
        let decision = match read {
            EventLine::End => break,
            EventLine::Line => receiver.deliver_then(&line, |d| {
                handed_off = Some(write_decision(out, d));
            }),
            EventLine::TooLong => receiver.deliver_oversized(MAX_EVENT_BYTES),
        };
        match handed_off {
            Some(Err(e)) => return Err(format!("cannot write output: {e}")),
            Some(Ok(())) => {
                decision.map_err(|e| e.to_string())?;
            }
            None => {
                let decision = decision.map_err(|e| e.to_string())?;
                write_decision(out, &decision).map_err(|e| format!("cannot write output: {e}"))?;
            }
        }
    }
    Ok(())
}

/// One decision line, flushed.
pub fn write_decision(out: &mut impl Write, d: &Decision) -> io::Result<()> {
    let mut text = serde_json::to_string(d).map_err(io::Error::other)?;
    text.push('\n');
    out.write_all(text.as_bytes())?;
    out.flush()
}
