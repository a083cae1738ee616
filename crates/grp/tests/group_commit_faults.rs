//! Group commit under faults. A batch whose commit fails records none of its pairs and answers
//! only the lines it decided without the store; the same lines later are decided as if that
//! batch had never run. A batch whose commit reached the server but whose reply was lost is
//! answered `deferred` throughout, and its re-delivery gives each pair exactly one `admitted`.
//! (The fault-free equivalence of batched and one-at-a-time answers is in `group_commit.rs`.)

use std::time::{Duration, Instant};

use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::lines::BATCH_LIMIT;
use agentconf_grp::store::{AdmissionStore, Create, PostgresStore, SqliteStore};
use agentconf_grp::stream::{admit_stream, StreamError};
use serde_json::Value;

mod support;

use support::faults::ReplyCut;
use support::postgres::{address, node_at, ScratchSchema};
use support::postgres_server::{server, unique};
use support::{event, key, session, signed, TempDir, NONCE};

const PUBLISHER: &str = "pub-a.example";
const SESSION: &str = "ses-grp-tests";
/// The reason a line signed by a key the well-known publisher does not hold is rejected with.
const FORGED: &str = "well_known_signature_invalid";

/// One line of `event_id` from the session's publisher, signed by `signer`, and its newline.
fn line(event_id: &str, signer: &str) -> String {
    let mut text = signed(event(PUBLISHER, event_id, "LOW", NONCE), &key(signer));
    text.push('\n');
    text
}

/// The lines of one batch: a forged line first (decided without the store), new pairs, a pair
/// repeated inside the batch, `faulty` (the pair a fault is tied to, if any), a forged line late.
fn batch(faulty: &str) -> Vec<u8> {
    [
        line("evt-forged-1", "forger"),
        line("evt-1", PUBLISHER),
        line("evt-2", PUBLISHER),
        line("evt-1", PUBLISHER),
        line(faulty, PUBLISHER),
        line("evt-forged-2", "forger"),
        line("evt-3", PUBLISHER),
    ]
    .concat()
    .into_bytes()
}

/// The pairs of [`batch`] that reach the store, each once.
fn admissible(faulty: &str) -> [&str; 4] {
    ["evt-1", "evt-2", faulty, "evt-3"]
}

/// Runs `input` through a receiver on `store` as one stream (every line already waiting, so
/// the admissible ones form one batch): its answers, and how the stream ended.
fn run<S: AdmissionStore>(receiver: &Receiver<S>, input: &[u8]) -> (Vec<u8>, Result<(), String>) {
    let mut out = Vec::new();
    let ended = admit_stream(receiver, input, &mut out, BATCH_LIMIT).map_err(|e| match e {
        StreamError::Store(e) => format!("store: {e}"),
        other => format!("other: {other}"),
    });
    (out, ended)
}

fn receiver<S: AdmissionStore>(store: S) -> Receiver<S> {
    Receiver::new(session(&[PUBLISHER]), Revision::R01, store)
}

/// Each answer's (event id, outcome or rejection reason).
fn outcomes(answers: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(answers)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("an answer is JSON");
            let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let reason = text("rejection_reason");
            let outcome = if reason.is_empty() {
                text("outcome")
            } else {
                reason
            };
            (text("event_id"), outcome)
        })
        .collect()
}

/// `(event id, outcome)` pairs as [`outcomes`] gives them.
fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(e, o)| (e.to_string(), o.to_string()))
        .collect()
}

#[test]
fn sqlite_a_batch_whose_commit_fails_records_and_answers_nothing_of_it() {
    let dir = TempDir::new("group-commit-fault");
    let path = dir.file("s.sqlite");
    let store = SqliteStore::create(&path).expect("create");
    // The fault: another writer's trigger aborts the insert of one pair, in the middle of the
    // batch's transaction, after two of its pairs were inserted in it.
    let saboteur = rusqlite::Connection::open(&path).expect("open beside the store");
    saboteur
        .execute_batch(
            "CREATE TRIGGER injected_fault BEFORE INSERT ON admitted
             WHEN NEW.event_id = 'evt-boom'
             BEGIN SELECT RAISE(ABORT, 'injected fault'); END;",
        )
        .expect("trigger");
    let input = batch("evt-boom");
    let failing = receiver(store);
    let (answers, ended) = run(&failing, &input);
    let ended = ended.expect_err("the stream stops at the failed commit");
    assert!(
        ended.starts_with("store: ") && ended.contains("injected fault"),
        "{ended}"
    );
    // Only the forged line before the batch's first admission is answered: no pair of the
    // batch is answered (not even the two inserted before the fault), none is recorded.
    assert_eq!(
        outcomes(&answers),
        owned(&[("evt-forged-1", FORGED)]),
        "{}",
        String::from_utf8_lossy(&answers)
    );
    assert_eq!(failing.store().count(SESSION).unwrap(), 0);
    assert!(failing.store().pending(SESSION).unwrap().is_empty());
    drop(failing);

    // The fault gone, the same lines on the same store are answered as on a store that never
    // saw the failed batch.
    saboteur
        .execute_batch("DROP TRIGGER injected_fault;")
        .expect("drop trigger");
    drop(saboteur);
    let again = run(&receiver(SqliteStore::open(&path).expect("reopen")), &input);
    let clean = run(
        &receiver(SqliteStore::create(&dir.file("clean.sqlite")).expect("create")),
        &input,
    );
    assert_eq!(again.1, Ok(()));
    assert_eq!(again, clean, "the failed batch left a trace");
    let admitted = outcomes(&again.0)
        .into_iter()
        .filter(|(_, o)| o == "admitted")
        .count();
    assert_eq!(admitted, admissible("evt-boom").len());
    let reopened = SqliteStore::open(&path).expect("reopen");
    assert_eq!(reopened.count(SESSION).unwrap(), admitted as u64);
    assert!(reopened.pending(SESSION).unwrap().is_empty());
}

/// A node of cluster `cluster` on `url`, reached at `addr` when given.
fn node(url: &str, cluster: &str, name: &str, addr: Option<String>) -> PostgresStore {
    node_at(url, cluster, name, addr, Create::IfAbsent).expect("open")
}

/// Whether `store` finds every pair within a few seconds: a statement whose reply was lost
/// commits on the server a moment after it was sent.
fn all_recorded_soon(store: &PostgresStore, events: &[&str]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if events
            .iter()
            .all(|e| store.contains(SESSION, PUBLISHER, e).unwrap())
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn postgres_a_batch_whose_commit_reply_is_lost_is_deferred_then_admitted_once() {
    let Some(url) =
        server("postgres_a_batch_whose_commit_reply_is_lost_is_deferred_then_admitted_once")
    else {
        return;
    };
    let schema = ScratchSchema::create(&url, &unique("grp_group_fault"));
    let cluster = unique("batch_lost_reply");
    let cut = ReplyCut::to(address(&schema.url));
    let through_cut = receiver(node(&schema.url, &cluster, "a", Some(cut.address())));
    let direct = node(&schema.url, &cluster, "b", None);
    let input = batch("evt-4");
    let pairs = admissible("evt-4");

    // The batch's one statement reaches the server; its reply is lost with the link.
    cut.arm();
    let (first, ended) = run(&through_cut, &input);
    assert_eq!(
        ended,
        Ok(()),
        "a lost link defers, it does not stop the stream"
    );
    assert_eq!(
        outcomes(&first),
        owned(&[
            ("evt-forged-1", FORGED),
            ("evt-1", "deferred"),
            ("evt-2", "deferred"),
            ("evt-1", "deferred"),
            ("evt-4", "deferred"),
            ("evt-forged-2", FORGED),
            ("evt-3", "deferred"),
        ])
    );
    assert!(
        all_recorded_soon(&direct, &pairs),
        "the batch's statement reached the server and committed"
    );
    // Nothing was handed off: every recorded pair is still pending.
    assert_eq!(direct.pending(SESSION).unwrap().len(), pairs.len());

    // Another node's copy finds the pairs recorded: duplicates, never a second admission.
    let other = receiver(node(&schema.url, &cluster, "c", None));
    let (copies, ended) = run(&other, &line("evt-2", PUBLISHER).into_bytes());
    assert_eq!(ended, Ok(()));
    assert_eq!(outcomes(&copies), owned(&[("evt-2", "duplicate_event_id")]));

    // The re-delivery to the node that deferred resolves its own unanswered admissions: one
    // `admitted` per pair, the in-batch repeat a duplicate, the forged lines rejected as before.
    let (second, ended) = run(&through_cut, &input);
    assert_eq!(ended, Ok(()));
    assert_eq!(
        outcomes(&second),
        owned(&[
            ("evt-forged-1", FORGED),
            ("evt-1", "admitted"),
            ("evt-2", "admitted"),
            ("evt-1", "duplicate_event_id"),
            ("evt-4", "admitted"),
            ("evt-forged-2", FORGED),
            ("evt-3", "admitted"),
        ])
    );

    // And once only: a third delivery is all duplicates.
    let (third, ended) = run(&through_cut, &input);
    assert_eq!(ended, Ok(()));
    assert!(
        outcomes(&third)
            .iter()
            .all(|(_, o)| o == "duplicate_event_id" || o == FORGED),
        "{}",
        String::from_utf8_lossy(&third)
    );
    assert_eq!(direct.count(SESSION).unwrap(), pairs.len() as u64);
    assert!(
        direct.pending(SESSION).unwrap().is_empty(),
        "hand-offs marked"
    );
}
