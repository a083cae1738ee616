//! The GRP reference receiver on a stream: event lines in, exactly one decision line out per
//! line, each flushed as it goes (a harness drives it interactively).

use std::fmt;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use agentconf_grp::admission::{Decision, Receiver, Revision, MAX_EVENT_BYTES};
use agentconf_grp::lines::{read_event_line, EventLine};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::{AdmissionStore, OpenError, SqliteStore};

/// The file that holds a receiver's admission set under the contract's `STATE_DIR`.
pub const STATE_FILE: &str = "admitted.sqlite";

/// Why a receiver has no admission store in its `STATE_DIR`: it admits nothing (exit 2).
#[derive(Debug)]
pub enum StateError {
    /// `STATE_DIR` cannot be made or listed.
    Dir { dir: PathBuf, source: io::Error },
    /// `STATE_DIR` holds entries but no store: the store was deleted (or the directory is not
    /// one the harness gave fresh). `entries` are some of the names found.
    NoStore { dir: PathBuf, entries: Vec<String> },
    /// The store could not be created or opened (missing, deleted, damaged, ...).
    Store(OpenError),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Dir { dir, source } => write!(f, "STATE_DIR {}: {source}", dir.display()),
            StateError::NoStore { dir, entries } => write!(
                f,
                "STATE_DIR {} is not empty ({}) but holds no admission store {STATE_FILE}: the \
                 store was deleted, and starting afresh would admit every replay again (a \
                 receiver creates its store only in an empty STATE_DIR)",
                dir.display(),
                entries.join(", ")
            ),
            StateError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StateError {}

/// How many entry names a refusal quotes.
const NAMES_QUOTED: usize = 5;

/// The admission store of a receiver in `dir` (the contract's `STATE_DIR`): created when `dir`
/// is empty (or missing), opened when it holds the store, refused otherwise.
///
/// The contract gives every vector an empty `STATE_DIR`: that empty directory is the harness's
/// explicit "fresh state", so it is where a store is created. A `STATE_DIR` with entries but no
/// store is a deleted store (what a deleted store leaves, or files that are not this
/// receiver's), and creating one there would forget every admitted pair: refused. Concurrent
/// copies of the receiver start together on one empty directory; the entries a copy makes while
/// creating the store (its temporary file, see [`SqliteStore::is_creation_file`]) do not count,
/// so no copy refuses for seeing another mid-creation: each one that finds the directory empty
/// tries to create, exactly one link wins, and the others open the store it made.
pub fn open_state(dir: &Path) -> Result<SqliteStore, StateError> {
    let store = dir.join(STATE_FILE);
    std::fs::create_dir_all(dir).map_err(|source| StateError::Dir {
        dir: dir.to_path_buf(),
        source,
    })?;
    // Listed before the store is looked for: the store is linked into place before its
    // journals appear, so whatever of another copy's store the listing saw, the look that
    // follows finds the store itself.
    let entries = entries_besides_creation(dir, &store)?;
    if entries.is_empty() {
        match SqliteStore::create(&store) {
            Ok(s) => return Ok(s),
            // Another copy was first (or the store appeared after the listing): open it.
            Err(OpenError::Exists(_)) => {}
            Err(e) => return Err(StateError::Store(e)),
        }
    }
    match SqliteStore::open(&store) {
        Err(OpenError::Missing(_)) => Err(StateError::NoStore {
            dir: dir.to_path_buf(),
            entries,
        }),
        other => other.map_err(StateError::Store),
    }
}

/// The names in `dir` other than creations of `store` in progress, at most [`NAMES_QUOTED`] of
/// them (whether there are any is all that decides; the names are for the message).
fn entries_besides_creation(dir: &Path, store: &Path) -> Result<Vec<String>, StateError> {
    let failed = |source| StateError::Dir {
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
