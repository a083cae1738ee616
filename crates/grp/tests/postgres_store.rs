//! The PostgreSQL store against a live server (`AGENTCONF_TEST_POSTGRES`; see
//! `support::postgres::server`): admission and duplicates, exactly one admission of a pair raced
//! by several connections, the namespace of the cluster token, the schema version checked on
//! connect, and a link refused, cut or stalled giving `deferred` decisions, never an admission,
//! until it heals.

use std::sync::Barrier;

use agentconf_grp::admission::{DecisionOutcome, Receiver, Revision};
use agentconf_grp::store::{
    Admission, AdmissionStore, ClusterEnv, Create, Durability, Opening, PostgresOpenError,
    PostgresStore, PostgresTarget,
};

mod support;

use support::postgres::{address, in_schema, run_sql, Proxy};
use support::postgres_server::{server, unique};

/// Opens a store at `url` for cluster `cluster`, reached at `addr` when given.
fn store_at(
    url: &str,
    cluster: &str,
    addr: Option<String>,
    create: Create,
) -> Result<PostgresStore, PostgresOpenError> {
    let env = ClusterEnv {
        store: None,
        store_addr: addr,
        cluster: Some(cluster.to_string()),
        node: Some("node-test".into()),
    };
    let target = PostgresTarget::new(url)
        .and_then(|t| t.in_cluster(&env))
        .map_err(PostgresOpenError::Target)?;
    PostgresStore::open(
        &target,
        Opening {
            create,
            durability: Durability::ProcessCrash,
        },
    )
}

fn store(url: &str, cluster: &str) -> PostgresStore {
    store_at(url, cluster, None, Create::IfAbsent).unwrap()
}

#[test]
fn admits_once_per_pair_session_and_cluster() {
    let Some(url) = server("admits_once_per_pair_session_and_cluster") else {
        return;
    };
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
    let Some(url) = server("connections_racing_a_pair_admit_it_once") else {
        return;
    };
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
    let url = in_schema(&server, &unique("grp_version"));
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
    // Another version: refused at open, and by a node already open when it reconnects.
    run_sql(&url, "UPDATE agentconf_grp_schema SET version = 2");
    let err = store_at(&url, &cluster, None, Create::IfAbsent).unwrap_err();
    assert!(
        matches!(&err, PostgresOpenError::Version { found, .. } if found == "2"),
        "{err}"
    );
    assert!(err.to_string().contains("schema version 2"), "{err}");
    proxy.heal();
    let refused = (0..2)
        .map(|_| made.admit("s", "p", "e2").unwrap_err())
        .find(|e| !e.is_unreachable())
        .expect("the reconnection checks the version");
    assert!(
        refused.to_string().contains("schema version 2"),
        "{refused}"
    );
    run_sql(&url, "INSERT INTO agentconf_grp_schema VALUES (1)");
    assert!(matches!(
        store_at(&url, &cluster, None, Create::Never),
        Err(PostgresOpenError::Version { .. })
    ));
}

#[test]
fn an_unreachable_store_defers_and_admits_nothing() {
    let Some(url) = server("an_unreachable_store_defers_and_admits_nothing") else {
        return;
    };
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
    // Stalled: the statement on the live connection is bounded, and so is the new connection
    // the next call makes; then the same.
    proxy.stall();
    assert!(node.admit("s", "p", "e3").unwrap_err().is_unreachable());
    assert!(node.admit("s", "p", "e3").unwrap_err().is_unreachable());
    proxy.heal();
    assert_eq!(node.admit("s", "p", "e3").unwrap(), Admission::Admitted);
    assert_eq!(node.count("s").unwrap(), 3);
}

#[test]
fn the_receiver_defers_only_what_it_would_admit() {
    let Some(url) = server("the_receiver_defers_only_what_it_would_admit") else {
        return;
    };
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
