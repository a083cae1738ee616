//! `agentconf grp init|admit|sign|key|close|recover`: the GRP reference receiver and tools for
//! spec authors.
//!
//! `admit` reads change events as JSON lines on standard input and writes exactly one decision
//! line per input line, flushed as it goes (a harness can drive it interactively). A malformed
//! line gets a rejected decision and the stream goes on. Exit 0 when the stream was processed;
//! 2 for a usage error, an unreadable session, or a store failure (nothing is admitted then).
//!
//! A SQLite store is created only by `init` or `admit --create`: every other command opens an
//! existing store and refuses a missing one, so a deleted store is an error, not a fresh set.

use std::io;
use std::path::Path;

use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::{derive_signing_key, seed_hex, signing_key_from_hex};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::{AdmissionStore, Durability, MemoryStore, OpenError, SqliteStore};

use super::{emit, ExitOutcome, MAX_DOCUMENT_BYTES};
use crate::args::{
    DurabilityArg, GrpAdmitArgs, GrpCloseArgs, GrpInitArgs, GrpKeyArgs, GrpSignArgs,
};
use crate::error::Result;
use crate::input::{open, read_error};

pub fn read_session(path: &Path) -> Result<SessionContext> {
    let input = open(path)?;
    Ok(agentconf_reference::admit::read_session_from(
        input.reader,
        &input.name,
    )?)
}

enum Store {
    Memory(MemoryStore),
    Sqlite(SqliteStore),
}

/// The path of a `sqlite:PATH` store spec.
fn sqlite_path(spec: &str) -> Option<&Path> {
    match spec.strip_prefix("sqlite:") {
        Some(path) if !path.is_empty() => Some(Path::new(path)),
        _ => None,
    }
}

/// How a command gets its SQLite store.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// Only an existing store (`close`, `recover`, and `admit` without `--create`).
    Existing,
    /// Created when nothing is at the path (`admit --create`).
    CreateIfAbsent,
}

fn open_store(spec: &str, durability: Durability, opening: Opening) -> Result<Store> {
    if spec == "memory" {
        if opening == Opening::CreateIfAbsent {
            return Err("--create: applies to a `sqlite:PATH` store, not to memory".into());
        }
        return Ok(Store::Memory(MemoryStore::new()));
    }
    let path = sqlite_path(spec)
        .ok_or_else(|| format!("--store {spec:?}: expected `memory` or `sqlite:PATH`"))?;
    open_sqlite(path, durability, opening)
        .map(Store::Sqlite)
        .map_err(|e| format!("--store {spec}: {e}").into())
}

/// With `CreateIfAbsent`, a receiver that finds the store already there (made before, or by a
/// receiver started at the same moment) opens it; what a deleted store left is still refused.
fn open_sqlite(
    path: &Path,
    durability: Durability,
    opening: Opening,
) -> std::result::Result<SqliteStore, OpenError> {
    if opening == Opening::CreateIfAbsent {
        match SqliteStore::create_with(path, durability) {
            Err(OpenError::Exists(_)) => {}
            made => return made,
        }
    }
    SqliteStore::open_with(path, durability)
}

/// `grp init sqlite:PATH`: creates an empty store, and nothing else (exit 2 when something is
/// there).
pub fn init(args: &GrpInitArgs) -> Result<ExitOutcome> {
    let path = sqlite_path(&args.store)
        .ok_or_else(|| format!("{:?}: expected `sqlite:PATH`", args.store))?;
    drop(SqliteStore::create(path).map_err(|e| e.to_string())?);
    emit(&format!("created admission store {}\n", path.display()))?;
    Ok(ExitOutcome::Valid)
}

pub fn admit(args: &GrpAdmitArgs) -> Result<ExitOutcome> {
    let session = read_session(&args.session)?;
    let revision = Revision::parse(&args.revision).ok_or_else(|| {
        format!(
            "GRP revision {} uses a construction this build of agentconf does not implement",
            args.revision
        )
    })?;
    let durability = match args.durability {
        DurabilityArg::ProcessCrash => Durability::ProcessCrash,
        DurabilityArg::PowerLoss => Durability::PowerLoss,
    };
    let opening = if args.create {
        Opening::CreateIfAbsent
    } else {
        Opening::Existing
    };
    match open_store(&args.store, durability, opening)? {
        Store::Memory(s) => run_stream(Receiver::new(session, revision, s)),
        Store::Sqlite(s) => run_stream(Receiver::new(session, revision, s)),
    }
}

fn run_stream<S: AdmissionStore>(receiver: Receiver<S>) -> Result<ExitOutcome> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    agentconf_reference::admit::run_stream(&receiver, &mut input, &mut out)?;
    Ok(ExitOutcome::Valid)
}

pub fn sign(args: &GrpSignArgs) -> Result<ExitOutcome> {
    let key = signing_key_from_hex(&args.seed).map_err(|e| format!("--seed: {e}"))?;
    let input = open(&args.event)?;
    let bytes = match agentconf_json::read_limited(input.reader, MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(&input.name, &e))?
    {
        Ok(b) => b,
        Err(e) => return Err(format!("{}: {e}", input.name).into()),
    };
    let mut event: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a JSON object: {e}", input.name))?;
    event.remove(SIGNATURE_MEMBER);
    let token = sign_event(&event, &args.kid, &key);
    event.insert(
        SIGNATURE_MEMBER.to_string(),
        serde_json::Value::String(token),
    );
    emit(&(serde_json::Value::Object(event).to_string() + "\n"))?;
    Ok(ExitOutcome::Valid)
}

pub fn key(args: &GrpKeyArgs) -> Result<ExitOutcome> {
    let key = derive_signing_key(&args.vector_id, &args.label);
    let kid = args.kid.clone().unwrap_or_else(|| args.label.clone());
    let jwk = public_jwk(&kid, &key.verifying_key());
    let value = serde_json::json!({
        "note": "a public test key derived from the vector id: never use it for anything real",
        "seed": seed_hex(&key),
        "public_jwk": jwk,
    });
    emit(&(value.to_string() + "\n"))?;
    Ok(ExitOutcome::Valid)
}

pub fn close(args: &GrpCloseArgs) -> Result<ExitOutcome> {
    let session = read_session(&args.session)?;
    let n = match open_store(&args.store, Durability::PowerLoss, Opening::Existing)? {
        Store::Memory(_) => {
            return Err("--store memory has nothing to close: it ends with the process".into())
        }
        Store::Sqlite(s) => s
            .close_session(&session.session_id)
            .map_err(|e| e.to_string())?,
    };
    emit(&format!(
        "closed session {:?}: {n} admitted pairs deleted\n",
        session.session_id
    ))?;
    Ok(ExitOutcome::Valid)
}

pub fn recover(args: &GrpCloseArgs) -> Result<ExitOutcome> {
    let session = read_session(&args.session)?;
    let store = match open_store(&args.store, Durability::PowerLoss, Opening::Existing)? {
        Store::Memory(_) => {
            return Err("--store memory keeps nothing across a crash: nothing to recover".into())
        }
        Store::Sqlite(s) => s,
    };
    let sid = &session.session_id;
    let mut text = String::new();
    for (publisher_id, event_id) in store.pending(sid).map_err(|e| e.to_string())? {
        // Impact assessment is outside the suite: resuming means recording the hand-off as done
        // and saying so; a re-delivered copy stays a duplicate either way.
        store
            .handed_off(sid, &publisher_id, &event_id)
            .map_err(|e| e.to_string())?;
        let line = serde_json::json!({
            "session_id": sid,
            "publisher_id": publisher_id,
            "event_id": event_id,
            "action": "resume-hand-off",
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    emit(&text)?;
    Ok(ExitOutcome::Valid)
}
