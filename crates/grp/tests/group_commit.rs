//! Group commit: a stream whose lines are all waiting (admitted up to 64 at a time, one commit
//! each) writes byte for byte what the same stream gives one line at a time, on the memory,
//! SQLite and PostgreSQL stores, over random sequences with duplicates (inside one batch and
//! across batches), forged and malformed lines.

use agentconf_grp::admission::{Receiver, Revision};
use agentconf_grp::lines::BATCH_LIMIT;
use agentconf_grp::store::{
    AdmissionStore, ClusterEnv, Create, Durability, MemoryStore, Opening, PostgresStore,
    PostgresTarget, SqliteStore,
};
use agentconf_grp::stream::admit_stream;

mod support;

use support::postgres::ScratchSchema;
use support::postgres_server::{server, unique};
use support::{event, key, session, signed, TempDir, NONCE};

/// A stream of `n` lines from a small pool of pairs (so most come again), with a forged line,
/// a wrong-nonce line and a line that is not JSON now and then; deterministic from `seed`.
fn stream(seed: u64, n: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let (a, b) = ("pub-a.example", "pub-b.example");
    let mut out = Vec::new();
    for _ in 0..n {
        let publisher = if next() % 2 == 0 { a } else { b };
        let id = format!("evt-{}", next() % 40);
        let line = match next() % 20 {
            0 => "{not json".to_string(),
            1 => signed(event(publisher, &id, "LOW", "other-nonce"), &key(publisher)),
            2 => signed(event(publisher, &id, "LOW", NONCE), &key("forger")),
            _ => signed(event(publisher, &id, "LOW", NONCE), &key(publisher)),
        };
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out
}

fn answers<S: AdmissionStore>(store: S, input: &[u8], limit: usize) -> Vec<u8> {
    let receiver = Receiver::new(
        session(&["pub-a.example", "pub-b.example"]),
        Revision::R01,
        store,
    );
    let mut out = Vec::new();
    admit_stream(&receiver, input, &mut out, limit).expect("the stream runs");
    out
}

/// Both ways, each on a fresh store from `fresh`.
fn same_answers<S: AdmissionStore>(mut fresh: impl FnMut() -> S, what: &str) {
    for seed in 0..6 {
        let input = stream(seed, 300);
        let alone = answers(fresh(), &input, 1);
        let batched = answers(fresh(), &input, BATCH_LIMIT);
        let text = String::from_utf8_lossy(&alone);
        assert_eq!(text.lines().count(), 300);
        assert!(text.contains("\"admitted\"") && text.contains("duplicate_event_id"));
        assert!(
            alone == batched,
            "{what}, seed {seed}: the batched answers differ"
        );
    }
}

#[test]
fn memory_batched_equals_one_at_a_time() {
    same_answers(MemoryStore::new, "memory");
}

#[test]
fn sqlite_batched_equals_one_at_a_time() {
    let dir = TempDir::new("group-commit");
    let mut n = 0;
    same_answers(
        || {
            n += 1;
            SqliteStore::create_with(&dir.file(&format!("s{n}.sqlite")), Durability::ProcessCrash)
                .expect("create")
        },
        "SQLite",
    );
}

#[test]
fn sqlite_batch_is_recorded_and_marked() {
    let dir = TempDir::new("group-commit-marks");
    let path = dir.file("s.sqlite");
    let input = stream(7, 200);
    let out = answers(
        SqliteStore::create(&path).expect("create"),
        &input,
        BATCH_LIMIT,
    );
    let admitted = String::from_utf8_lossy(&out)
        .matches("\"admitted\"")
        .count() as u64;
    // Reopened (a new process would): every answered admission is there, every hand-off marked.
    let store = SqliteStore::open(&path).expect("open");
    assert_eq!(store.count("ses-grp-tests").unwrap(), admitted);
    assert!(store.pending("ses-grp-tests").unwrap().is_empty());
}

#[test]
fn postgres_batched_equals_one_at_a_time() {
    let Some(url) = server("postgres_batched_equals_one_at_a_time") else {
        return;
    };
    let schema = ScratchSchema::create(&url, &unique("grp_group"));
    let target = PostgresTarget::new(&schema.url).expect("URL");
    let opening = Opening {
        create: Create::IfAbsent,
        durability: Durability::PowerLoss,
    };
    let fresh = || {
        let env = ClusterEnv {
            cluster: Some(unique("group")),
            ..ClusterEnv::default()
        };
        PostgresStore::open(&target.clone().in_cluster(&env).expect("cluster"), opening)
            .expect("open")
    };
    same_answers(fresh, "PostgreSQL");
    let store = fresh();
    let out = answers(&store, &stream(9, 200), BATCH_LIMIT);
    let admitted = String::from_utf8_lossy(&out)
        .matches("\"admitted\"")
        .count() as u64;
    assert_eq!(store.count("ses-grp-tests").unwrap(), admitted);
    assert!(store.pending("ses-grp-tests").unwrap().is_empty());
}
