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

use crate::error::Sort as _;
use std::io;
use std::path::Path;

use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::jws::{public_jwk, sign_event, SIGNATURE_MEMBER};
use agentconf_grp::keys::{derive_signing_key, seed_hex, signing_key_from_hex};
use agentconf_grp::session::SessionContext;
use agentconf_grp::store::{
    AdmissionStore, BoxedStore, ClusterEnv, Create, Durability, Opening, StoreSpec,
};

use super::{emit, say, ExitOutcome, MAX_DOCUMENT_BYTES};
use crate::args::{
    DurabilityArg, GrpAdmitArgs, GrpCloseArgs, GrpInitArgs, GrpKeyArgs, GrpSignArgs,
};
use crate::error::Result;
use crate::input::{open, read_error};

pub fn read_session(path: &Path) -> Result<SessionContext> {
    let input = open(path)?;
    agentconf_reference::admit::read_session_from(input.reader, &input.name).refused()
}

/// The store `spec` names (`--store`), opened as `opening` says; a `postgres://` store as a
/// cluster node reaches it (`AGENTCONF_STORE_ADDR`, `AGENTCONF_CLUSTER`, `AGENTCONF_NODE`).
fn open_store(spec: &str, opening: Opening) -> Result<BoxedStore> {
    StoreSpec::parse(spec)
        .and_then(|spec| spec.in_cluster(&ClusterEnv::from_process()))
        .and_then(|spec| spec.open(opening))
        .map_err(|e| format!("--store: {e}"))
        .store()
}

/// `grp init sqlite:PATH` or `grp init postgres://…`: creates an empty store, and nothing else
/// (exit 2 when one is there; of several started at once on one database, exactly one creates).
pub fn init(args: &GrpInitArgs) -> Result<ExitOutcome> {
    let spec = StoreSpec::parse(&args.store)
        .map_err(|e| e.to_string())
        .store()?;
    let only = Opening {
        create: Create::Only,
        ..Opening::EXISTING
    };
    drop(spec.open(only).map_err(|e| e.to_string()).store()?);
    say(&format!("created admission store {spec}\n"))?;
    Ok(ExitOutcome::Valid)
}

pub fn admit(args: &GrpAdmitArgs) -> Result<ExitOutcome> {
    let session = read_session(&args.session)?;
    let revision = Revision::parse(&args.revision)
        .ok_or_else(|| {
            format!(
                "GRP revision {} uses a construction this build of agentconf does not implement",
                args.revision
            )
        })
        .usage()?;
    let durability = match args.durability {
        DurabilityArg::ProcessCrash => Durability::ProcessCrash,
        DurabilityArg::PowerLoss => Durability::PowerLoss,
    };
    let create = if args.create {
        Create::IfAbsent
    } else {
        Create::Never
    };
    let store = open_store(&args.store, Opening { create, durability })?;
    run_stream(Receiver::new(session, revision, store))
}

fn run_stream<S: AdmissionStore>(receiver: Receiver<S>) -> Result<ExitOutcome> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    agentconf_reference::admit::run_stream(&receiver, &mut input, &mut out).store()?;
    Ok(ExitOutcome::Valid)
}

pub fn sign(args: &GrpSignArgs) -> Result<ExitOutcome> {
    let key = signing_key_from_hex(&args.seed)
        .map_err(|e| format!("--seed: {e}"))
        .usage()?;
    let input = open(&args.event)?;
    let bytes = match agentconf_json::read_limited(input.reader, MAX_DOCUMENT_BYTES)
        .map_err(|e| read_error(&input.name, &e))?
    {
        Ok(b) => b,
        Err(e) => return Err(format!("{}: {e}", input.name)).refused(),
    };
    let mut event: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a JSON object: {e}", input.name))
        .refused()?;
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
    let store = open_store(&args.store, Opening::EXISTING)?;
    if !store.is_durable() {
        return Err(format!(
            "--store {} has nothing to close: it ends with the process",
            args.store
        ))
        .store();
    }
    let n = store
        .close_session(&session.session_id)
        .map_err(|e| e.to_string())
        .store()?;
    say(&format!(
        "closed session {:?}: {n} admitted pairs deleted\n",
        session.session_id
    ))?;
    Ok(ExitOutcome::Valid)
}

pub fn recover(args: &GrpCloseArgs) -> Result<ExitOutcome> {
    let session = read_session(&args.session)?;
    let store = open_store(&args.store, Opening::EXISTING)?;
    if !store.is_durable() {
        return Err(format!(
            "--store {} keeps nothing across a crash: nothing to recover",
            args.store
        ))
        .store();
    }
    let sid = &session.session_id;
    let mut text = String::new();
    for (publisher_id, event_id) in store.pending(sid).map_err(|e| e.to_string()).store()? {
        // Impact assessment is outside the suite: resuming means recording the hand-off as done
        // and saying so; a re-delivered copy stays a duplicate either way.
        store
            .handed_off(sid, &publisher_id, &event_id)
            .map_err(|e| e.to_string())
            .store()?;
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
