//! The PostgreSQL store against a live server (`AGENTCONF_TEST_POSTGRES`; see
//! `support::postgres_server::server`): admission and duplicates, exactly one admission of a pair
//! raced by several connections, the namespace of the cluster token, the schema (its version and
//! tables checked on connect, made once by nodes creating at once), a link refused, cut or
//! stalled giving `deferred` decisions, never an admission, until it heals, a silent server
//! backed off, an admission whose answer was lost resolved into one `admitted` answer, a
//! configuration the client cannot use refused at open, and a node name that never becomes
//! SQL.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use agentconf_grp::admission::{DecisionOutcome, Receiver, Revision};
use agentconf_grp::store::postgres::{FIRST_OPEN, SCHEMA_VERSION};
use agentconf_grp::store::{Admission, AdmissionStore, Create, PostgresOpenError, PostgresStore};

mod support;

use support::faults::{refused_address, ReplyCut, Silent};
use support::postgres::{
    address, node_at, query_text, run_sql, Proxy, ScratchDatabase, ScratchSchema,
};
use support::postgres_server::{server, unique};

/// A schema of this test's own on the server, dropped when the test ends: its tables apart from
/// other tests' and from what earlier runs (of other schema versions) left in the database.
fn database(test: &str) -> Option<ScratchSchema> {
    server(test).map(|url| ScratchSchema::create(&url, &unique("grp_test")))
}

/// Opens a store at `url` for cluster `cluster`, reached at `addr` when given.
fn store_at(
    url: &str,
    cluster: &str,
    addr: Option<String>,
    create: Create,
) -> Result<PostgresStore, PostgresOpenError> {
    node_at(url, cluster, "node-test", addr, create)
}

fn store(url: &str, cluster: &str) -> PostgresStore {
    store_at(url, cluster, None, Create::IfAbsent).unwrap()
}

#[test]
fn admits_once_per_pair_session_and_cluster() {
    let Some(schema) = database("admits_once_per_pair_session_and_cluster") else {
        return;
    };
    let url = schema.url.clone();
    let (a, b) = (unique("cluster_a"), unique("cluster_b"));
    let store = store(&url, &a);
    assert_eq!(store.admit("s1", "pub", "e1").unwrap(), Admission::Admitted);
    assert_eq!(
        store.admit("s1", "pub", "e1").unwrap(),
        Admission::Duplicate
    );
    // Each part of the key counts: another event, publisher or session is another pair.
    assert_eq!(store.admit("s1", "pub", "e2").unwrap(), Admission::Admitted);
    assert_eq!(
        store.admit("s1", "pub2", "e1").unwrap(),
        Admission::Admitted
    );
    assert_eq!(store.admit("s2", "pub", "e1").unwrap(), Admission::Admitted);
    // Untrusted ids of any length and content are keys, not errors.
    let long = "x".repeat(100_000);
    assert_eq!(
        store.admit("s1", "pub", &long).unwrap(),
        Admission::Admitted
    );
    assert_eq!(
        store.admit("s1", "pub", "nul\0id").unwrap(),
        Admission::Admitted
    );
    assert_eq!(
        store.admit("s1", "pub", "nul\0id").unwrap(),
        Admission::Duplicate
    );
    // Another cluster token is another namespace: none of these pairs are its.
    let other = self::store(&url, &b);
    assert_eq!(other.count("s1").unwrap(), 0);
    assert_eq!(other.admit("s1", "pub", "e1").unwrap(), Admission::Admitted);
    assert_eq!(store.count("s1").unwrap(), 5);
    // A second node of the same cluster shares the set.
    let node = self::store(&url, &a);
    assert!(node.contains("s1", "pub", "e2").unwrap());
    assert_eq!(node.admit("s1", "pub", "e2").unwrap(), Admission::Duplicate);
    // Pending until handed off; a closed session's pairs are gone, the other session's stay.
    store.handed_off("s1", "pub", "e1").unwrap();
    assert_eq!(
        store.pending("s2").unwrap(),
        [("pub".to_string(), "e1".to_string())]
    );
    assert!(!store
        .pending("s1")
        .unwrap()
        .contains(&("pub".into(), "e1".into())));
    assert_eq!(store.close_session("s1").unwrap(), 5);
    assert_eq!(store.count("s1").unwrap(), 0);
    assert_eq!(store.count("s2").unwrap(), 1);
    assert_eq!(other.count("s1").unwrap(), 1);
}

#[test]
fn connections_racing_a_pair_admit_it_once() {
    let Some(schema) = database("connections_racing_a_pair_admit_it_once") else {
        return;
    };
    let url = schema.url.clone();
    const NODES: usize = 4;
    const PAIRS: usize = 40;
    let cluster = unique("race");
    let stores: Vec<PostgresStore> = (0..NODES).map(|_| store(&url, &cluster)).collect();
    let barrier = Barrier::new(NODES);
    let admitted: Vec<Vec<usize>> = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .iter()
            .map(|store| {
                let barrier = &barrier;
                scope.spawn(move || {
                    (0..PAIRS)
                        .filter(|i| {
                            barrier.wait();
                            let event = format!("e{i}");
                            store.admit("s", "pub", &event).unwrap() == Admission::Admitted
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<usize> = admitted.into_iter().flatten().collect();
    all.sort_unstable();
    assert_eq!(
        all,
        (0..PAIRS).collect::<Vec<_>>(),
        "each pair admitted exactly once"
    );
    assert_eq!(stores[0].count("s").unwrap(), PAIRS as u64);
}

#[test]
fn the_schema_version_is_checked_on_connect() {
    let Some(server) = server("the_schema_version_is_checked_on_connect") else {
        return;
    };
    let schema = ScratchSchema::create(&server, &unique("grp_version"));
    let url = schema.url.clone();
    let cluster = unique("version");
    // An empty database: refused unless the opening creates.
    assert!(matches!(
        store_at(&url, &cluster, None, Create::Never),
        Err(PostgresOpenError::NoSchema { .. })
    ));
    let proxy = Proxy::to(address(&url));
    let made = store_at(&url, &cluster, Some(proxy.address()), Create::Only).unwrap();
    assert_eq!(made.admit("s", "p", "e").unwrap(), Admission::Admitted);
    assert!(matches!(
        store_at(&url, &cluster, None, Create::Only),
        Err(PostgresOpenError::Exists { .. })
    ));
    // Another version (here the first one, before the attempt column): refused at open, and by
    // a node already open when it reconnects.
    run_sql(&url, "UPDATE agentconf_grp_schema SET version = 1");
    let err = store_at(&url, &cluster, None, Create::IfAbsent).unwrap_err();
    assert!(
        matches!(&err, PostgresOpenError::Version { found, .. } if found == "1"),
        "{err}"
    );
    assert!(err.to_string().contains("schema version 1"), "{err}");
    proxy.heal();
    let refused = (0..2)
        .map(|_| made.admit("s", "p", "e2").unwrap_err())
        .find(|e| !e.is_unreachable())
        .expect("the reconnection checks the version");
    assert!(
        refused.to_string().contains("schema version 1"),
        "{refused}"
    );
    run_sql(
        &url,
        &format!("UPDATE agentconf_grp_schema SET version = {SCHEMA_VERSION}"),
    );
    assert!(store_at(&url, &cluster, None, Create::Never).is_ok());
    run_sql(&url, "INSERT INTO agentconf_grp_schema VALUES (1)");
    assert!(matches!(
        store_at(&url, &cluster, None, Create::Never),
        Err(PostgresOpenError::Version { .. })
    ));
}

#[test]
fn an_unreachable_store_defers_and_admits_nothing() {
    let Some(schema) = database("an_unreachable_store_defers_and_admits_nothing") else {
        return;
    };
    let url = schema.url.clone();
    let cluster = unique("unreachable");
    let proxy = Proxy::to(address(&url));
    proxy.cut();
    // Opening does not need the link; creating does.
    let node = store_at(&url, &cluster, Some(proxy.address()), Create::IfAbsent).unwrap();
    assert!(matches!(
        store_at(&url, &cluster, Some(proxy.address()), Create::Only),
        Err(PostgresOpenError::Unreachable { .. })
    ));
    let err = node.admit("s", "p", "e").unwrap_err();
    assert!(err.is_unreachable(), "{err}");
    proxy.heal();
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Admitted);
    // Cut with the connection live: the next admission meets the dead connection, the one
    // after that a refused link; after healing, the pair is a duplicate, the next one new.
    proxy.cut();
    for event in ["e", "e2"] {
        assert!(node.admit("s", "p", event).unwrap_err().is_unreachable());
    }
    proxy.heal();
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Duplicate);
    assert_eq!(node.admit("s", "p", "e2").unwrap(), Admission::Admitted);
    // Stalled: the statement on the live connection is bounded; the call after it is deferred
    // at once by the breaker, without waiting on the link again.
    proxy.stall();
    let err = node.admit("s", "p", "e3").unwrap_err();
    assert!(err.is_unreachable() && err.is_timeout(), "{err}");
    let started = Instant::now();
    let err = node.admit("s", "p", "e3").unwrap_err();
    assert!(
        err.is_timeout() && err.to_string().contains("breaker"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(1), "{err}");
    // Healed: tried again once the breaker's first interval has passed, well before a harness
    // hands the line again.
    proxy.heal();
    let healed = Instant::now();
    let admitted = loop {
        match node.admit("s", "p", "e3") {
            Ok(admission) => break admission,
            Err(e) if e.is_unreachable() && healed.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(admitted, Admission::Admitted);
    assert!(
        healed.elapsed() < FIRST_OPEN + Duration::from_millis(900),
        "{:?}",
        healed.elapsed()
    );
    assert_eq!(node.count("s").unwrap(), 3);
}

#[test]
fn the_receiver_defers_only_what_it_would_admit() {
    let Some(schema) = database("the_receiver_defers_only_what_it_would_admit") else {
        return;
    };
    let url = schema.url.clone();
    let cluster = unique("receiver");
    let proxy = Proxy::to(address(&url));
    let node = store_at(&url, &cluster, Some(proxy.address()), Create::IfAbsent).unwrap();
    let session = support::session(&["pub-a"]);
    let receiver = Receiver::new(session, Revision::R01, node);
    let event = |id: &str| {
        support::signed(
            support::event("pub-a", id, "LOW", support::NONCE),
            &support::key("pub-a"),
        )
    };
    let forged = support::signed(
        support::event("pub-a", "e-forged", "LOW", support::NONCE),
        &support::key("someone-else"),
    );
    proxy.cut();
    let outcome = |line: &str| receiver.deliver(line.as_bytes()).unwrap();
    let deferred = outcome(&event("e1"));
    assert_eq!(deferred.outcome, DecisionOutcome::Deferred);
    assert_eq!(
        (deferred.ale, deferred.rejection_reason, deferred.rule),
        (None, None, None)
    );
    assert_eq!(deferred.event_id.as_deref(), Some("e1"));
    let json = serde_json::to_value(&deferred).unwrap();
    assert_eq!(json["outcome"], "deferred");
    // A malformed or rejected event is decided without the store.
    assert_eq!(outcome("{not json").outcome, DecisionOutcome::Rejected);
    assert_eq!(outcome(&forged).outcome, DecisionOutcome::Rejected);
    proxy.heal();
    assert_eq!(outcome(&event("e1")).outcome, DecisionOutcome::Admitted);
    assert_eq!(
        outcome(&event("e1")).rejection_reason,
        Some("duplicate_event_id")
    );
    assert!(receiver
        .store()
        .pending(&receiver.session().session_id)
        .unwrap()
        .is_empty());
}

/// Whether `store` (another connection than the one under test) finds the pair within a few
/// seconds: the lost reply's statement commits on the server a moment after it was sent.
fn recorded_soon(store: &PostgresStore, session: &str, publisher: &str, event: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if store.contains(session, publisher, event).unwrap() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_commit_whose_answer_was_lost_is_admitted_once() {
    let Some(schema) = database("a_commit_whose_answer_was_lost_is_admitted_once") else {
        return;
    };
    let url = schema.url.clone();
    let cluster = unique("lost_answer");
    let cut = ReplyCut::to(address(&url));
    let node = node_at(&url, &cluster, "a", Some(cut.address()), Create::IfAbsent).unwrap();
    let direct = node_at(&url, &cluster, "b", None, Create::IfAbsent).unwrap();
    // The link drops between COMMIT and the answer: the outcome is unknown, so deferred.
    cut.arm();
    let err = node.admit("s", "p", "e").unwrap_err();
    assert!(err.is_unreachable(), "{err}");
    assert!(
        recorded_soon(&direct, "s", "p", "e"),
        "the statement reached the server and committed"
    );
    // The re-delivery resolves it: this node's own admission, never answered, stands, once.
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Admitted);
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Duplicate);
    // Any other node (another incarnation) finds a duplicate.
    assert_eq!(direct.admit("s", "p", "e").unwrap(), Admission::Duplicate);
    let restarted = node_at(&url, &cluster, "a", None, Create::Never).unwrap();
    assert_eq!(
        restarted.admit("s", "p", "e").unwrap(),
        Admission::Duplicate
    );
    assert_eq!(direct.count("s").unwrap(), 1);
}

#[test]
fn a_lost_answer_to_a_copy_never_admits_it_again() {
    let Some(schema) = database("a_lost_answer_to_a_copy_never_admits_it_again") else {
        return;
    };
    let url = schema.url.clone();
    let cluster = unique("lost_copy");
    let cut = ReplyCut::to(address(&url));
    let node = node_at(&url, &cluster, "a", Some(cut.address()), Create::IfAbsent).unwrap();
    let other = node_at(&url, &cluster, "b", None, Create::IfAbsent).unwrap();
    // Admitted and answered; then a copy's answer is lost: the copy found the pair (a
    // duplicate), so its re-delivery is a duplicate too, not a resumed admission.
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Admitted);
    cut.arm();
    assert!(node.admit("s", "p", "e").unwrap_err().is_unreachable());
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Duplicate);
    // Another node admitted the pair; this node's lost answer was for a copy of it.
    assert_eq!(other.admit("s", "p", "e2").unwrap(), Admission::Admitted);
    cut.arm();
    assert!(node.admit("s", "p", "e2").unwrap_err().is_unreachable());
    assert_eq!(node.admit("s", "p", "e2").unwrap(), Admission::Duplicate);
    // Another node's copy meets the pair this node's unanswered admission recorded: a
    // duplicate; this node's re-delivery resumes the admission, the pair's one `admitted`.
    cut.arm();
    assert!(node.admit("s", "p", "e3").unwrap_err().is_unreachable());
    assert!(recorded_soon(&other, "s", "p", "e3"));
    assert_eq!(other.admit("s", "p", "e3").unwrap(), Admission::Duplicate);
    assert_eq!(node.admit("s", "p", "e3").unwrap(), Admission::Admitted);
}

#[test]
fn the_receiver_answers_a_lost_commit_once() {
    let Some(schema) = database("the_receiver_answers_a_lost_commit_once") else {
        return;
    };
    let url = schema.url.clone();
    let cluster = unique("lost_receiver");
    let cut = ReplyCut::to(address(&url));
    let node = node_at(&url, &cluster, "a", Some(cut.address()), Create::IfAbsent).unwrap();
    let direct = node_at(&url, &cluster, "b", None, Create::IfAbsent).unwrap();
    let receiver = Receiver::new(support::session(&["pub-a"]), Revision::R01, node);
    let session = receiver.session().session_id.clone();
    let line = support::signed(
        support::event("pub-a", "e1", "LOW", support::NONCE),
        &support::key("pub-a"),
    );
    cut.arm();
    let mut decisions = vec![receiver.deliver(line.as_bytes()).unwrap()];
    assert!(recorded_soon(&direct, &session, "pub-a", "e1"));
    decisions.extend((0..2).map(|_| receiver.deliver(line.as_bytes()).unwrap()));
    let outcomes: Vec<_> = decisions.iter().map(|d| d.outcome).collect();
    assert_eq!(
        outcomes,
        [
            DecisionOutcome::Deferred,
            DecisionOutcome::Admitted,
            DecisionOutcome::Rejected
        ]
    );
    assert_eq!(decisions[2].rejection_reason, Some("duplicate_event_id"));
    // The resumed admission was handed off as any other.
    assert!(receiver.store().pending(&session).unwrap().is_empty());
    assert_eq!(receiver.store().count(&session).unwrap(), 1);
}

/// Asserts that `err` is a refusal at open (the receiver's exit 2), not a link it opens
/// without, in one line and without the password.
fn refused_at_open(spec: &str, err: &PostgresOpenError) {
    assert!(
        !matches!(err, PostgresOpenError::Unreachable { .. }),
        "{spec}: {err}"
    );
    assert!(!err.to_string().contains('\n'), "{spec}: one line: {err}");
    assert!(!err.to_string().contains("secret"), "{spec}: {err}");
}

#[test]
fn configuration_errors_refuse_the_open() {
    let Some(url) = server("configuration_errors_refuse_the_open") else {
        return;
    };
    let addr = address(&url);
    let cluster = unique("configuration");
    let missing = unique("no_such_db");
    // What the client cannot use, and what the server refuses (3D000, unknown database).
    let cases: [(String, &str, &str); 6] = [
        ("postgres://".into(), "Configuration", "host"),
        ("postgres:///agentconf".into(), "Configuration", "host"),
        (
            "postgres://postgres@no-such-host.invalid:5432/x".into(),
            "Configuration",
            "lookup",
        ),
        (
            format!("postgres://postgres:secret@{addr}/{missing}"),
            "Database",
            "3D000",
        ),
        (
            format!("postgres://postgres@{addr}/postgres?sslmode=require"),
            "Configuration",
            "TLS",
        ),
        // Refused as soon as the URL is read: the value cannot travel in the protocol.
        (
            format!("postgres://postgres@{addr}/post%00gres"),
            "Target",
            "NUL",
        ),
    ];
    for (spec, kind, names) in &cases {
        for create in [Create::Never, Create::IfAbsent, Create::Only] {
            let started = Instant::now();
            match node_at(spec, &cluster, "a", None, create) {
                Ok(_) => panic!("{spec} ({create:?}): opened"),
                Err(e) => {
                    refused_at_open(spec, &e);
                    assert!(format!("{e:?}").starts_with(kind), "{spec}: {e:?}");
                    assert!(e.to_string().contains(names), "{spec}: {e}");
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{spec}: promptly"
            );
        }
    }
}

#[test]
fn a_refused_port_opens_and_defers() {
    let Some(_) = server("a_refused_port_opens_and_defers") else {
        return;
    };
    let url = format!("postgres://postgres@{}/postgres", refused_address());
    let node = node_at(&url, &unique("refused"), "a", None, Create::IfAbsent).unwrap();
    for _ in 0..3 {
        let started = Instant::now();
        let err = node.admit("s", "p", "e").unwrap_err();
        assert!(err.is_unreachable() && !err.is_timeout(), "{err}");
        // A refused link is cheap and tried at every call, never backed off.
        assert!(started.elapsed() < Duration::from_secs(1), "{err}");
    }
    assert!(matches!(
        node_at(&url, &unique("refused"), "a", None, Create::Only),
        Err(PostgresOpenError::Unreachable { .. })
    ));
}

#[test]
fn a_silent_server_is_backed_off() {
    let Some(_) = server("a_silent_server_is_backed_off") else {
        return;
    };
    let silent = Silent::start();
    let url = format!("postgres://postgres@{}/postgres", silent.address());
    let node = node_at(&url, &unique("silent"), "a", None, Create::IfAbsent).unwrap();
    // Twenty lines, a tenth of a second apart. Each round trip to a silent server ends at its
    // 3 s limit, so without a back-off they take over 60 s. With it the first waits the full
    // limit, a few later ones probe the server for 1 s each (once the breaker's open interval has
    // passed: 1 s, then 4 s, 16 s, ...) and the others are deferred at once: about 7 s here. The
    // bound is loose (15 s) because this is a behaviour test on a shared, loaded machine, not a
    // measurement.
    let started = Instant::now();
    let mut calls = Vec::new();
    for i in 0..20 {
        let call = Instant::now();
        let outcome = node.admit("s", "p", &format!("e{i}"));
        calls.push((call.elapsed(), outcome));
        std::thread::sleep(Duration::from_millis(100));
    }
    let spent = started.elapsed();
    assert!(
        spent < Duration::from_secs(15),
        "20 deferrals took {spent:?}"
    );
    let mut tried = 0;
    for (n, (took, outcome)) in calls.into_iter().enumerate() {
        let err = outcome.unwrap_err();
        assert!(err.is_unreachable() && err.is_timeout(), "{err}");
        if took >= Duration::from_millis(900) {
            tried += 1;
            // The open already waited the full limit: every later try is a probe, which waits
            // the shorter one.
            assert!(took < Duration::from_millis(2500), "{n}: {took:?}");
        } else {
            assert!(err.to_string().contains("breaker"), "{err}");
        }
    }
    // The server is tried again once the interval has passed, not given up on.
    assert!(
        (1..=4).contains(&tried),
        "{tried} calls waited on the server"
    );
}

#[test]
fn concurrent_creations_make_one_store() {
    let Some(server_url) = server("concurrent_creations_make_one_store") else {
        return;
    };
    const NODES: usize = 8;
    let database = ScratchDatabase::create(&server_url, &unique("agentconf_init"));
    let cluster = unique("init");
    let barrier = Barrier::new(NODES);
    let opened: Vec<Result<PostgresStore, PostgresOpenError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..NODES)
            .map(|i| {
                let (barrier, url, cluster) = (&barrier, &database.url, &cluster);
                scope.spawn(move || {
                    barrier.wait();
                    node_at(url, cluster, &format!("n{i}"), None, Create::Only)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let made = opened.iter().filter(|o| o.is_ok()).count();
    let exists = opened
        .iter()
        .filter(|o| matches!(o, Err(PostgresOpenError::Exists { .. })))
        .count();
    assert_eq!((made, exists), (1, NODES - 1), "{opened:?}");
    drop(opened);
    let node = node_at(&database.url, &cluster, "a", None, Create::Never).unwrap();
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Admitted);
}

#[test]
fn the_tables_are_checked_on_connect() {
    let Some(server) = server("the_tables_are_checked_on_connect") else {
        return;
    };
    let cluster = unique("layout");
    let cases = [
        (
            "ALTER TABLE agentconf_grp_admitted DROP COLUMN handed_off",
            ["agentconf_grp_admitted", "handed_off"],
        ),
        (
            "ALTER TABLE agentconf_grp_admissions ALTER COLUMN node TYPE bytea USING node::bytea",
            ["agentconf_grp_admissions", "node"],
        ),
        (
            "ALTER TABLE agentconf_grp_admissions
             DROP CONSTRAINT agentconf_grp_admissions_pair_key_key",
            ["agentconf_grp_admissions", "pair_key"],
        ),
        (
            "DROP TABLE agentconf_grp_admissions",
            ["agentconf_grp_admissions", ""],
        ),
    ];
    for (change, names) in cases {
        let schema = ScratchSchema::create(&server, &unique("grp_layout"));
        let url = schema.url.clone();
        let node = node_at(&url, &cluster, "a", None, Create::IfAbsent).unwrap();
        assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Admitted);
        drop(node);
        run_sql(&url, change);
        let err = node_at(&url, &cluster, "a", None, Create::IfAbsent).unwrap_err();
        let text = err.to_string();
        assert!(
            names.iter().all(|name| text.contains(name)) && text.contains("refused"),
            "{change}: {text}"
        );
        refused_at_open(change, &err);
    }
}

#[test]
fn the_node_name_is_never_sql() {
    let Some(server_url) = server("the_node_name_is_never_sql") else {
        return;
    };
    let database = ScratchDatabase::create(&server_url, &unique("agentconf_name"));
    run_sql(
        &server_url,
        &format!(
            "ALTER DATABASE {} SET standard_conforming_strings = off",
            database.name
        ),
    );
    run_sql(&database.url, "CREATE TABLE victim (x integer)");
    let name = "x\\'; DROP TABLE victim; --";
    let node = node_at(&database.url, &unique("name"), name, None, Create::IfAbsent).unwrap();
    assert_eq!(node.admit("s", "p", "e").unwrap(), Admission::Admitted);
    assert_eq!(
        query_text(&database.url, "SELECT to_regclass('victim') IS NOT NULL").as_deref(),
        Some("t"),
        "the victim table is still there"
    );
    assert_eq!(
        query_text(&database.url, "SELECT node FROM agentconf_grp_admissions").as_deref(),
        Some(name)
    );
    let shown = query_text(
        &database.url,
        &format!(
            "SELECT application_name FROM pg_stat_activity WHERE datname = '{}' \
             AND application_name LIKE 'agentconf-grp %'",
            database.name
        ),
    );
    assert_eq!(shown, Some(format!("agentconf-grp {name}")));
}
