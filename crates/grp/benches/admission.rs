//! Admission throughput of the GRP reference receiver, as RATIOS measured in one run.
//!
//! What: (i) the bare Ed25519 verification rate (`verify_strict` of one signature over one JWS
//! signing input, per second) — the floor any signed-event receiver pays; (ii) admissions per
//! second through [`Receiver::deliver`] with every check on (parse, publisher, signature,
//! nonce, duplicate pair, admission, hand-off mark), with the in-memory store and with the SQLite
//! store on a fresh temporary file, each as a ratio to (i); (iii) the cost of the duplicate
//! lookup when the session already holds 1,000,000 admitted pairs, against the same probes on a
//! table holding only the probed pairs, for SQLite (duplicates and new pairs) and for the
//! in-memory store (duplicates).
//!
//! Why: revision 01 puts a lookup in front of every admission. The suite's claim is that the
//! check is cheap next to the signature it follows (target: SQLite admissions ≥ 0.5 × the bare
//! verification rate) and that it does not degrade as a session accumulates pairs. The SQLite
//! store runs with `synchronous=FULL` in WAL mode so that an admitted pair is on disk before the
//! event is handed on: every admission is a commit, and so is the hand-off mark after it. On
//! most disks that fsync, not the lookup, sets the SQLite rate; the output says so with a
//! store-only line (the same commits without parsing or signatures). Nothing here asserts a
//! time: the numbers depend on the machine and above all on its disk.
//!
//! How: `cargo bench -p agentconf-grp --bench admission` (about 30 s on two cores once built;
//! temporary files go under the system temp directory, `TMPDIR` to move them, and are removed at
//! the end).
//! Without `--bench` on the command line (`cargo test --benches`) a smoke version runs in well
//! under a second with tiny counts, checking only that every path still works.
//!
//! Keys are the project's derived **public test keys** (`derive_signing_key("bench", …)`); the
//! session is built like the corpus fixture (`crates/corpus/src/grp/common.rs`), copied into
//! `benches/support` because a bench cannot depend on the corpus crate.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use agentconf_grp::admission::{DecisionOutcome, Receiver, Revision};
use agentconf_grp::jws::sign_event;
use agentconf_grp::store::{Admission, AdmissionStore, MemoryStore, SqliteStore};
use ed25519_dalek::{Signature, Signer};

mod support;

use support::{event, event_id, key, session, signed_line, TempDir, KID, PUBLISHER, SESSION_ID};

/// Sizes and time budgets of one run.
struct Plan {
    full: bool,
    /// Time spent on each rate measurement.
    budget: Duration,
    /// Pairs already admitted for the lookup measurements.
    big: usize,
    /// Duplicate probes per lookup measurement.
    dup_probes: usize,
    /// Upper bound of new-pair probes (each one a commit on SQLite).
    new_probes: usize,
    /// Upper bound of pre-signed events for the admission rates.
    max_events: usize,
}

impl Plan {
    fn from_args() -> Plan {
        if std::env::args().any(|a| a == "--bench") {
            Plan {
                full: true,
                budget: Duration::from_secs(3),
                big: 1_000_000,
                dup_probes: 50_000,
                new_probes: 2_000,
                max_events: 200_000,
            }
        } else {
            Plan {
                full: false,
                budget: Duration::from_millis(20),
                big: 1_000,
                dup_probes: 100,
                new_probes: 20,
                max_events: 200,
            }
        }
    }
}

/// Runs `op(i)` for i = 0, 1, … until `budget` has passed or `limit` calls were made; returns
/// (calls, calls per second).
fn rate(budget: Duration, limit: usize, mut op: impl FnMut(usize)) -> (usize, f64) {
    let start = Instant::now();
    let mut n = 0;
    while n < limit {
        // Check the clock every few calls only.
        for _ in 0..16 {
            if n == limit {
                break;
            }
            op(n);
            n += 1;
        }
        if start.elapsed() >= budget {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    (n, n as f64 / secs)
}

/// Mean seconds per call of `op` over `n` calls.
fn per_call(n: usize, mut op: impl FnMut(usize)) -> f64 {
    let start = Instant::now();
    for i in 0..n {
        op(i);
    }
    start.elapsed().as_secs_f64() / n.max(1) as f64
}

/// Inserts pairs `grp-evt-{from..to}` into the store file's `admitted` table through a separate
/// connection, in one transaction (the table and its schema are created by `SqliteStore::create`).
fn fill_sqlite(path: &Path, from: usize, to: usize) {
    fill_rows(path, (from..to).map(event_id));
}

/// Inserts handed-off rows for `events` in one transaction, each with its row check (a row
/// without one is refused when the store is next opened).
fn fill_rows(path: &Path, events: impl Iterator<Item = String>) {
    let mut conn = rusqlite::Connection::open(path).expect("open the store file");
    let tx = conn.transaction().expect("begin");
    {
        let mut stmt = tx
            .prepare(
                "INSERT INTO admitted (session_id, publisher_id, event_id, handed_off, row_check)
                 VALUES (?1, ?2, ?3, 1, ?4)",
            )
            .expect("prepare");
        for id in events {
            let check = agentconf_grp::store::row_check(SESSION_ID, PUBLISHER, &id, true);
            stmt.execute(rusqlite::params![SESSION_ID, PUBLISHER, id, check])
                .expect("insert");
        }
    }
    tx.commit().expect("commit");
}

/// A probe order that jumps around the key space instead of walking it (`big` is never a
/// multiple of the odd stride's factors used here, so the map is one-to-one over 0..big).
fn scattered(i: usize, big: usize) -> usize {
    (i.wrapping_mul(7_919) + 13) % big
}

fn main() {
    let plan = Plan::from_args();
    let tmp = TempDir::new("bench");
    let key = key();
    println!(
        "GRP admission bench ({} run; draft-sato-soos-grp rev 01 is an individual \
         Internet-Draft, not a standard)",
        if plan.full { "full" } else { "smoke" }
    );
    if !plan.full {
        println!("smoke: tiny counts, numbers meaningless; `cargo bench` for the real run");
    }

    // (i) Bare Ed25519 verification of the JWS signing input of one event.
    let token = sign_event(&event("grp-evt-bare"), KID, &key);
    let signing_input = token
        .rsplit_once('.')
        .map(|(input, _)| input.to_string())
        .expect("a compact JWS");
    let signature: Signature = key.sign(signing_input.as_bytes());
    let verifying = key.verifying_key();
    let (_, verify_rate) = rate(plan.budget, usize::MAX, |_| {
        verifying
            .verify_strict(black_box(signing_input.as_bytes()), black_box(&signature))
            .expect("the signature verifies");
    });
    println!(
        "(i)   bare Ed25519 verify_strict:               {verify_rate:>12.0} /s  (ratio 1.00)"
    );

    // (ii) Admissions through Receiver::deliver, every check on, new event ids.
    let n_events =
        ((verify_rate * plan.budget.as_secs_f64() * 1.1) as usize).clamp(16, plan.max_events);
    let lines: Vec<Vec<u8>> = (0..n_events)
        .map(|i| signed_line(&key, &event_id(i)))
        .collect();
    let admit_all = |receiver: &dyn Fn(&[u8]) -> DecisionOutcome, budget: Duration| {
        rate(budget, lines.len(), |i| {
            assert_eq!(
                receiver(&lines[i]),
                DecisionOutcome::Admitted,
                "event {i} admitted"
            );
        })
    };

    let memory = Receiver::new(session(), Revision::R01, MemoryStore::new());
    let (n_mem, mem_rate) = admit_all(
        &|l| memory.deliver(l).expect("memory store").outcome,
        plan.budget,
    );
    // A copy of an admitted event: every check, then the duplicate lookup.
    let (_, mem_dup_rate) = rate(plan.budget, usize::MAX, |i| {
        let d = memory.deliver(&lines[i % n_mem]).expect("memory store");
        assert_eq!(d.rejection_reason, Some("duplicate_event_id"));
    });
    println!(
        "(ii)  admissions, MemoryStore:                   {mem_rate:>12.0} /s  (ratio {:.2}; {n_mem} events)",
        mem_rate / verify_rate
    );
    println!(
        "      duplicate copies rejected, MemoryStore:    {mem_dup_rate:>12.0} /s  (ratio {:.2})",
        mem_dup_rate / verify_rate
    );

    let sqlite_path = tmp.file("admission-rate.sqlite");
    let sqlite = Receiver::new(
        session(),
        Revision::R01,
        SqliteStore::create(&sqlite_path).expect("create the SQLite store"),
    );
    let (n_sql, sql_rate) = admit_all(
        &|l| sqlite.deliver(l).expect("SQLite store").outcome,
        plan.budget,
    );
    let sql_ratio = sql_rate / verify_rate;
    println!(
        "      admissions, SqliteStore (synchronous=FULL):{sql_rate:>12.0} /s  (ratio {sql_ratio:.2}; {n_sql} events; target >= 0.50: {})",
        if sql_ratio >= 0.5 { "met" } else { "NOT met" }
    );
    // The same with process-crash durability (WAL, synchronous=NORMAL): what the `durable`
    // profile asks for (survive a killed receiver), without an fsync per admission.
    let normal = Receiver::new(
        session(),
        Revision::R01,
        SqliteStore::create_with(
            &tmp.file("admission-rate-normal.sqlite"),
            agentconf_grp::store::Durability::ProcessCrash,
        )
        .expect("create the SQLite store"),
    );
    let (n_normal, normal_rate) = admit_all(
        &|l| normal.deliver(l).expect("SQLite store").outcome,
        plan.budget,
    );
    let normal_ratio = normal_rate / verify_rate;
    println!(
        "      admissions, SqliteStore (synchronous=NORMAL):{normal_rate:>10.0} /s  (ratio {normal_ratio:.2}; {n_normal} events; target >= 0.50: {})",
        if normal_ratio >= 0.5 { "met" } else { "NOT met" }
    );
    let (_, sql_dup_rate) = rate(plan.budget, usize::MAX, |i| {
        let d = sqlite.deliver(&lines[i % n_sql]).expect("SQLite store");
        assert_eq!(d.rejection_reason, Some("duplicate_event_id"));
    });
    println!(
        "      duplicate copies rejected, SqliteStore:    {sql_dup_rate:>12.0} /s  (ratio {:.2})",
        sql_dup_rate / verify_rate
    );
    // Where the SQLite time goes: the two commits of an admission (insert, hand-off mark)
    // without parsing or signatures.
    let store_only = SqliteStore::create(&tmp.file("store-only.sqlite")).expect("create");
    let (_, store_rate) = rate(plan.budget, usize::MAX, |i| {
        let id = event_id(i);
        assert_eq!(
            store_only.admit(SESSION_ID, PUBLISHER, &id).expect("admit"),
            Admission::Admitted
        );
        store_only
            .handed_off(SESSION_ID, PUBLISHER, &id)
            .expect("hand-off mark");
    });
    println!(
        "      SqliteStore alone (admit + hand-off mark, 2 commits each, no checks): {store_rate:.0} /s"
    );
    drop(store_only);
    drop(sqlite);
    drop(memory);

    // (iii) Duplicate lookups with `big` pairs admitted, against a table holding only the probes.
    let big = plan.big;
    let probes = plan.dup_probes.min(big);
    let big_path = tmp.file("big.sqlite");
    let big_store = SqliteStore::create(&big_path).expect("create");
    let fill_start = Instant::now();
    fill_sqlite(&big_path, 0, big);
    let fill_secs = fill_start.elapsed().as_secs_f64();
    assert_eq!(big_store.count(SESSION_ID).expect("count"), big as u64);

    let small_path = tmp.file("small.sqlite");
    let small_store = SqliteStore::create(&small_path).expect("create");
    // The small table holds exactly the pairs the duplicate probes will ask for.
    fill_rows(
        &small_path,
        (0..probes).map(|i| event_id(scattered(i, big))),
    );
    let dup_ids: Vec<String> = (0..probes).map(|i| event_id(scattered(i, big))).collect();
    let dup = |store: &SqliteStore| {
        per_call(probes, |i| {
            assert_eq!(
                store
                    .admit(SESSION_ID, PUBLISHER, &dup_ids[i])
                    .expect("admit"),
                Admission::Duplicate
            );
        })
    };
    // Warm both once (page cache), then measure.
    dup(&big_store);
    dup(&small_store);
    let dup_big = dup(&big_store);
    let dup_small = dup(&small_store);

    // New pairs: each is a commit (fsync), whose time varies with whatever else the disk is
    // doing; the two stores are therefore probed alternately, so that both see the same disk.
    // The number of probes is bounded by the time budget.
    let (mut new_big_secs, mut new_small_secs) = (0.0f64, 0.0f64);
    let (new_n, _) = rate(plan.budget, plan.new_probes, |i| {
        // Spread over the key space: ids that sort between existing ones.
        let big_id = format!("{}-new", event_id(scattered(i, big)));
        let small_id = format!("{}-new", event_id(scattered(i, big)));
        let t = Instant::now();
        let a = big_store.admit(SESSION_ID, PUBLISHER, &big_id);
        new_big_secs += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let b = small_store.admit(SESSION_ID, PUBLISHER, &small_id);
        new_small_secs += t.elapsed().as_secs_f64();
        assert_eq!(a.expect("admit"), Admission::Admitted);
        assert_eq!(b.expect("admit"), Admission::Admitted);
    });
    let new_big = new_big_secs / new_n.max(1) as f64;
    let new_small = new_small_secs / new_n.max(1) as f64;
    println!(
        "(iii) SQLite, {big} pairs admitted (filled in {fill_secs:.1} s in one transaction), vs {probes} pairs:"
    );
    println!(
        "      duplicate lookup (admit of a present pair): {:>8.2} us vs {:>8.2} us  (ratio {:.2}; {probes} probes)",
        dup_big * 1e6,
        dup_small * 1e6,
        dup_big / dup_small
    );
    println!(
        "      admit of a new pair (one commit):          {:>8.2} us vs {:>8.2} us  (ratio {:.2}; {new_n} probes)",
        new_big * 1e6,
        new_small * 1e6,
        new_big / new_small
    );
    println!(
        "      duplicate lookup / bare verify:            {:.3} (one lookup costs that fraction of a signature check)",
        dup_big * verify_rate
    );
    drop(big_store);
    drop(small_store);

    // The in-memory store with `big` pairs.
    let big_mem = MemoryStore::new();
    for i in 0..big {
        big_mem
            .admit(SESSION_ID, PUBLISHER, &event_id(i))
            .expect("admit");
    }
    let small_mem = MemoryStore::new();
    for id in &dup_ids {
        small_mem.admit(SESSION_ID, PUBLISHER, id).expect("admit");
    }
    let mem_dup = |store: &MemoryStore| {
        per_call(probes, |i| {
            assert_eq!(
                store
                    .admit(SESSION_ID, PUBLISHER, &dup_ids[i])
                    .expect("admit"),
                Admission::Duplicate
            );
        })
    };
    mem_dup(&big_mem);
    mem_dup(&small_mem);
    let mem_big = mem_dup(&big_mem);
    let mem_small = mem_dup(&small_mem);
    println!(
        "      MemoryStore duplicate lookup, {big} vs {probes} pairs: {:.3} us vs {:.3} us  (ratio {:.2})",
        mem_big * 1e6,
        mem_small * 1e6,
        mem_big / mem_small
    );
    println!(
        "note: SQLite rates with synchronous=FULL are bound by the disk's fsync (every admission \
         and every hand-off mark is a commit); temp files in {}",
        std::env::temp_dir().display()
    );
}
