//! Admissions of the GRP reference receiver on a store shared by receiver nodes: PostgreSQL with
//! 1, 2 and 4 nodes against the SQLite store on one node, in one run.
//!
//! What: for each configuration, admissions per second (all nodes together, over the wall time)
//! and the p50 and p99 latency of one admission, each through [`Receiver::deliver`] with every
//! check on (parse, publisher, signature, nonce, the atomic insert of the pair, the hand-off
//! mark). Each node is a thread with its own receiver and its own store (its own connection),
//! delivering events of its own; the ratios to SQLite on one node close the output.
//!
//! Why: a cluster pays a network round trip per statement (two per admission: the insert with its
//! record, then the hand-off mark) where SQLite pays a local fsync; the question is what a node
//! and a cluster admit per second on PostgreSQL compared with the embedded store. Both run at
//! their receiver durability (SQLite `synchronous=FULL`, PostgreSQL `synchronous_commit=on`).
//! Nothing here asserts a time.
//!
//! Then, for one session of 2,000 events written to the receiver's input at once (a burst: every
//! line already waiting), the stream as the reference receiver runs it
//! ([`agentconf_grp::stream::admit_stream`]): group commit (up to 64 waiting lines per commit,
//! each answer written after its commit) and one line per commit, SQLite and PostgreSQL rounds
//! interleaved, the median round of each; it prints
//! `PostgreSQL N admissions/s, SQLite M admissions/s, ratio R` for each way.
//!
//! How: start a server (`.ci/postgres start` prints its URL), then
//! `AGENTCONF_TEST_POSTGRES=URL cargo bench -p agentconf-grp --bench cluster` (about 25 s once
//! built). Without `--bench` (`cargo test --benches`) a smoke version runs with tiny counts. With
//! no server it measures SQLite alone and says so in one line (a failure under
//! `AGENTCONF_REQUIRE_POSTGRES=1`).

use std::time::{Duration, Instant};

use agentconf_grp::admission::{DecisionOutcome, Receiver, Revision};
use agentconf_grp::store::{
    BoxedStore, ClusterEnv, Create, Durability, Opening, PostgresStore, PostgresTarget, SqliteStore,
};

mod support;

#[path = "../tests/support/postgres_server.rs"]
mod postgres_server;
use postgres_server::TestServer;

use support::{key, session, signed_line, TempDir};

/// Node counts measured on PostgreSQL.
const NODES: [usize; 3] = [1, 2, 4];

/// What one configuration measured.
struct Measured {
    name: String,
    admissions: usize,
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (budget, per_node) = if full {
        (Duration::from_secs(5), 20_000)
    } else {
        (Duration::from_millis(30), 20)
    };
    let key = key();
    // Every node's events, signed before any clock starts; a configuration uses a fresh store
    // (or namespace), so the same lines serve them all.
    let lines: Vec<Vec<Vec<u8>>> = (0..NODES[NODES.len() - 1])
        .map(|node| {
            (0..per_node)
                .map(|i| signed_line(&key, &format!("grp-evt-n{node}-{i:06}")))
                .collect()
        })
        .collect();
    let dir = TempDir::new("bench");
    let sqlite = SqliteStore::create_with(&dir.file("bench.sqlite"), Durability::PowerLoss)
        .expect("create the SQLite store");
    let mut results = vec![measure(
        "SQLite, 1 node".into(),
        vec![Box::new(sqlite)],
        &lines,
        budget,
    )];
    match TestServer::from_env() {
        TestServer::At(url) => {
            for nodes in NODES {
                let stores = postgres_nodes(&url, nodes);
                let name = format!(
                    "PostgreSQL, {nodes} node{}",
                    if nodes > 1 { "s" } else { "" }
                );
                results.push(measure(name, stores, &lines, budget));
            }
        }
        TestServer::Skip(why) => eprintln!("PostgreSQL not measured: {why}"),
        TestServer::Missing(why) => panic!("{why}"),
    }
    report(&results);
    burst(&key, full);
}

/// One session's burst through the stream, group commit and one line per commit, SQLite and
/// PostgreSQL rounds interleaved (the machine's noise falls on both alike).
fn burst(key: &ed25519_dalek::SigningKey, full: bool) {
    use agentconf_grp::lines::BATCH_LIMIT;
    use agentconf_grp::stream::admit_stream;
    let (events, rounds) = if full { (2_000, 5) } else { (20, 1) };
    let mut input = Vec::new();
    for i in 0..events {
        input.extend_from_slice(&signed_line(key, &format!("grp-evt-burst-{i:06}")));
        input.push(b'\n');
    }
    let url = match TestServer::from_env() {
        TestServer::At(url) => Some(url),
        TestServer::Skip(why) => {
            println!("PostgreSQL skipped (no server: {why}); SQLite only");
            None
        }
        TestServer::Missing(why) => panic!("{why}"),
    };
    let dir = TempDir::new("burst");
    for (way, limit) in [("group commit", BATCH_LIMIT), ("one line per commit", 1)] {
        let (mut sqlite, mut postgres) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // A fresh store each round: every event is new.
            let stores: Vec<(bool, BoxedStore)> = std::iter::once((
                false,
                Box::new(
                    SqliteStore::create_with(
                        &dir.file(&format!("{limit}-{round}.sqlite")),
                        Durability::PowerLoss,
                    )
                    .expect("create the SQLite store"),
                ) as BoxedStore,
            ))
            .chain(url.iter().map(|u| (true, postgres_nodes(u, 1).remove(0))))
            .collect();
            for (is_postgres, store) in stores {
                let receiver = Receiver::new(session(), Revision::R01, store);
                let mut out = Vec::new();
                let began = Instant::now();
                admit_stream(&receiver, &input[..], &mut out, limit).expect("the stream runs");
                let rate = events as f64 / began.elapsed().as_secs_f64();
                let admitted = String::from_utf8_lossy(&out)
                    .matches("\"admitted\"")
                    .count();
                assert_eq!(admitted, events, "every event admitted");
                if is_postgres {
                    postgres.push(rate)
                } else {
                    sqlite.push(rate)
                }
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let s = median(&mut sqlite);
        if postgres.is_empty() {
            println!("one session of {events} events, {way}: PostgreSQL skipped, SQLite {s:.0} admissions/s");
        } else {
            let p = median(&mut postgres);
            println!(
                "one session of {events} events, {way}: PostgreSQL {p:.0} admissions/s, SQLite {s:.0} admissions/s, ratio {:.2}",
                p / s
            );
        }
    }
}

/// `nodes` stores on the server at `url`, one connection each, in a namespace of their own.
fn postgres_nodes(url: &str, nodes: usize) -> Vec<BoxedStore> {
    let env = ClusterEnv {
        cluster: Some(format!(
            "bench-{}-{nodes}-{:?}",
            std::process::id(),
            Instant::now()
        )),
        ..ClusterEnv::default()
    };
    let target = PostgresTarget::new(url)
        .and_then(|t| t.in_cluster(&env))
        .expect("AGENTCONF_TEST_POSTGRES is a postgres:// URL");
    let opening = Opening {
        create: Create::IfAbsent,
        durability: Durability::PowerLoss,
    };
    (0..nodes)
        .map(|_| {
            Box::new(PostgresStore::open(&target, opening).expect("open the PostgreSQL store"))
                as BoxedStore
        })
        .collect()
}

/// Each store a node (a thread with its own receiver) delivering its own lines until `budget`
/// has passed or they run out.
fn measure(
    name: String,
    stores: Vec<BoxedStore>,
    lines: &[Vec<Vec<u8>>],
    budget: Duration,
) -> Measured {
    let start = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|scope| {
        let nodes: Vec<_> = stores
            .into_iter()
            .zip(lines)
            .map(|(store, lines)| {
                scope.spawn(move || {
                    let receiver = Receiver::new(session(), Revision::R01, store);
                    let mut latencies = Vec::new();
                    for line in lines {
                        if start.elapsed() >= budget {
                            break;
                        }
                        let began = Instant::now();
                        let decision = receiver.deliver(line).expect("the store works");
                        latencies.push(began.elapsed());
                        assert_eq!(
                            decision.outcome,
                            DecisionOutcome::Admitted,
                            "{:?}",
                            decision.message
                        );
                    }
                    latencies
                })
            })
            .collect();
        nodes
            .into_iter()
            .flat_map(|n| n.join().expect("node thread"))
            .collect()
    });
    let wall = start.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    Measured {
        name,
        admissions: latencies.len(),
        per_second: latencies.len() as f64 / wall,
        p50: at(0.50),
        p99: at(0.99),
    }
}

fn report(results: &[Measured]) {
    println!("GRP admissions through Receiver::deliver, every check on, one run:");
    println!(
        "{:<22} {:>10} {:>14} {:>10} {:>10}",
        "store", "admitted", "admissions/s", "p50 ms", "p99 ms"
    );
    for m in results {
        println!(
            "{:<22} {:>10} {:>14.0} {:>10.2} {:>10.2}",
            m.name,
            m.admissions,
            m.per_second,
            m.p50.as_secs_f64() * 1e3,
            m.p99.as_secs_f64() * 1e3
        );
    }
    let sqlite = &results[0];
    for m in &results[1..] {
        println!(
            "{} / {}: {:.2}x the admissions per second, {:.2}x the p50 latency, {:.2}x the p99",
            m.name,
            sqlite.name,
            m.per_second / sqlite.per_second,
            m.p50.as_secs_f64() / sqlite.p50.as_secs_f64(),
            m.p99.as_secs_f64() / sqlite.p99.as_secs_f64()
        );
    }
}
