//! The `cluster` profile through real processes (CONTRACT.md 7): receiver nodes with their own
//! `STATE_DIR` that share only a store. A receiver that keeps its admitted set per node fails
//! the node race and the failover, naming the pair admitted twice; nodes that share their set
//! pass; a deferral is never an admission; and without the store's address the partition step
//! is not run while the others are.

mod support;

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentconf_contract::vector::Vector;
use agentconf_harness::adapter::Adapter;
use agentconf_harness::{
    run_case, run_case_with, Grading, HistoryWhat, Implementation, Status, VectorResult,
};
use support::TempDir;

const NODE_RACE: &str = "grp/admission/cluster/node-race-3-nodes-30-rounds";
const FAILOVER_AFTER: &str = "grp/admission/cluster/failover-after-answer";
const FAILOVER_BEFORE: &str = "grp/admission/cluster/failover-before-answer";
const PAUSE: &str = "grp/admission/cluster/pause-after-read";
const PARTITION: &str = "grp/admission/cluster/partition-cut-one-node";

fn implementation(argv: Vec<String>) -> Implementation {
    Implementation {
        argv,
        timeout: Duration::from_secs(60),
        capture_limit: 1 << 16,
        profiles: vec!["cluster".into()],
    }
}

fn run(imp: &Implementation, adapter: Option<&Adapter>, id: &str, work: &TempDir) -> VectorResult {
    let corpus = agentconf_corpus::corpus();
    let v: &Vector = corpus.iter().find(|v| v.id == id).expect("vector");
    match adapter {
        Some(a) => run_case_with(imp, Some(a), &v.main_case(), work.path(), Grading::Strict),
        None => run_case(imp, &v.main_case(), work.path(), Grading::Strict),
    }
}

/// The reference's own processes: each node keeps its admitted set in its own STATE_DIR, so
/// each node admits every pair once (correct in every other respect).
#[test]
fn a_receiver_that_keeps_its_admitted_set_per_node_fails_node_race_and_failover() {
    let work = TempDir::new("per-node");
    let per_node = implementation(vec![
        env!("CARGO_BIN_EXE_agentconf").to_string(),
        "impl".to_string(),
    ]);
    for id in [NODE_RACE, FAILOVER_AFTER] {
        let r = run(&per_node, None, id, &work);
        assert_eq!(r.status, Status::FalseAccept, "{id}: {}", r.detail);
        // The history that shows it goes on the results line.
        assert!(
            r.suite_detail
                .history()
                .iter()
                .filter(|e| e.decision == HistoryWhat::Admitted)
                .count()
                >= 2,
            "{id}: {:?}",
            r.suite_detail
        );
        // The minimal anomaly: the first pair, both admissions, each with node and time.
        assert!(
            r.detail.contains("admitted by node n1 at ")
                && r.detail.contains(" and by node n2 at "),
            "{id}: {}",
            r.detail
        );
    }
    let race = run(&per_node, None, NODE_RACE, &work);
    assert!(
        race.detail.contains("grp-evt-20260714-race-000"),
        "the warm-up pair is the first admitted twice: {}",
        race.detail
    );
}

/// The reference's processes with one STATE_DIR per scenario run (named after
/// AGENTCONF_CLUSTER) instead of the node's: the nodes share their admitted set.
#[test]
fn nodes_sharing_their_state_pass_and_partition_is_not_run_without_a_store_address() {
    let work = TempDir::new("shared");
    let shared = implementation(vec![
        "sh".into(),
        "-c".into(),
        format!(
            "shared=\"$(dirname \"$4\")/shared-$AGENTCONF_CLUSTER\"; mkdir -p \"$shared\" && \
             exec {} impl grp-admit \"$2\" \"$3\" \"$shared\"",
            env!("CARGO_BIN_EXE_agentconf")
        ),
        "impl".into(),
    ]);
    for id in [NODE_RACE, FAILOVER_AFTER, FAILOVER_BEFORE, PAUSE] {
        let r = run(&shared, None, id, &work);
        assert_eq!(r.status, Status::Pass, "{id}: {} {}", r.detail, r.stderr);
    }
    // The store's address comes from the adapter or from AGENTCONF_GRP_STORE; with neither the
    // partition step is not run, and the case says so.
    if std::env::var_os("AGENTCONF_GRP_STORE").is_none() {
        let r = run(&shared, None, PARTITION, &work);
        assert_eq!(r.status, Status::Unsupported, "{}", r.detail);
        assert!(r.detail.contains("step 0 not run"), "{}", r.detail);
        assert!(r.detail.contains("store"), "{}", r.detail);
    }
}

/// A store for [`receiver`]: one line `KEY` per connection, answered `new` the first time and
/// `dup` after.
fn tcp_store() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(HashSet::<String>::new()));
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let seen = Arc::clone(&seen);
            std::thread::spawn(move || {
                let mut key = String::new();
                if BufReader::new(&conn).read_line(&mut key).is_err() {
                    return;
                }
                let new = seen.lock().unwrap().insert(key.trim().to_string());
                let _ = conn.write_all(if new { b"new\n" } else { b"dup\n" });
            });
        }
    });
    addr
}

/// The python receiver of tests/support, through an adapter naming `store` as its store.
fn receiver(store: SocketAddr) -> (Implementation, Adapter) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/support/cluster_receiver.py"
    );
    let text = format!(
        "command = [\"python3\", \"{script}\"]\nprofiles = [\"cluster\"]\n\n[grp]\nstore_addr = \
         \"{store}\"\n"
    );
    let ids: BTreeSet<String> = agentconf_corpus::corpus()
        .iter()
        .map(|v| v.id.clone())
        .collect();
    let adapter = Adapter::parse(&text, &ids).expect("adapter");
    (implementation(adapter.command.clone()), adapter)
}

/// Nodes sharing a TCP store through the harness's proxies pass every cluster vector, the
/// partition included: cut off, node A defers; healed, it decides.
#[test]
fn nodes_sharing_a_store_through_the_proxies_pass_the_partition_too() {
    let work = TempDir::new("proxied");
    let (imp, adapter) = receiver(tcp_store());
    for id in [NODE_RACE, FAILOVER_AFTER, FAILOVER_BEFORE, PAUSE, PARTITION] {
        let r = run(&imp, Some(&adapter), id, &work);
        assert_eq!(r.status, Status::Pass, "{id}: {} {}", r.detail, r.stderr);
    }
}

/// A store that cannot be reached: every answer is `deferred`. That never counts as an
/// admission: the pairs are never decided (a false reject), and outside the cluster steps a
/// deferral is a wrong decision, not a protocol error.
#[test]
fn a_deferral_is_never_counted_as_an_admission() {
    let work = TempDir::new("deferred");
    let nothing = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let (mut imp, adapter) = receiver(nothing);
    let r = run(&imp, Some(&adapter), FAILOVER_AFTER, &work);
    assert_eq!(r.status, Status::FalseReject, "{}", r.detail);
    assert!(r.detail.contains("never decided"), "{}", r.detail);
    imp.profiles = vec!["durable".into(), "atomic".into()];
    let r = run(
        &imp,
        Some(&adapter),
        "grp/admission/duplicate-event/exact-redelivery-p-type-3",
        &work,
    );
    assert_eq!(r.status, Status::FalseReject, "{}", r.detail);
    assert!(r.detail.contains("deferred"), "{}", r.detail);
}

/// `agentconf run` with the reference in process (it claims `cluster`: its nodes share one
/// store, and a node cut off defers): every cluster case passes, its results line carries the
/// history (valid under the published schema), and the HTML report draws it as lanes.
#[test]
fn results_lines_carry_the_history_and_the_html_report_draws_lanes() {
    let dir = TempDir::new("lanes");
    let out = dir.path().join("results.jsonl");
    let html = dir.path().join("report.html");
    let run = support::run(&[
        "run",
        "--include",
        "grp/admission/cluster/",
        "--out",
        out.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    // A subset of the corpus: nothing failed, but no claim of conformance.
    assert_eq!(run.code, 0, "{}", run.both());
    assert!(run.stdout.contains("PARTIAL"), "{}", run.both());
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../harness/schema/results.schema.json")).unwrap();
    let schema = jsonschema::validator_for(&schema).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "result")
        .collect();
    let cluster_cases: usize = agentconf_corpus::corpus()
        .iter()
        .filter(|v| v.id.starts_with("grp/admission/cluster/"))
        .map(|v| v.cases().len())
        .sum();
    assert!(cluster_cases >= 8, "{cluster_cases} cluster cases");
    assert_eq!(results.len(), cluster_cases, "{text}");
    for r in &results {
        assert!(schema.is_valid(r), "{r}");
        assert_eq!(r["status"], "pass", "{r}");
        let history = r["history"].as_array().expect("a history");
        let nodes: BTreeSet<&str> = history.iter().filter_map(|e| e["node"].as_str()).collect();
        assert!(nodes.contains("n1") && nodes.contains("n2"), "{r}");
    }
    let partition = results
        .iter()
        .find(|r| r["id"] == PARTITION)
        .expect("partition");
    let decisions: Vec<&str> = partition["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["decision"].as_str())
        .collect();
    for what in ["cut", "deferred", "healed", "admitted"] {
        assert!(decisions.contains(&what), "{what}: {decisions:?}");
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(
        page.matches("aria-label=\"history of the cluster steps\"")
            .count(),
        cluster_cases
    );
}
