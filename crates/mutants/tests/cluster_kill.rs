//! The cluster mutants are caught on their steps, on every run: receiver nodes with their own
//! `STATE_DIR`s on one PostgreSQL store (`AGENTCONF_TEST_POSTGRES`; without it this test skips
//! with one line, unless `AGENTCONF_REQUIRE_POSTGRES=1` makes that a failure), through the
//! harness's cluster steps, exactly as `agentconf run --profile cluster` plays them. The
//! reference (`none`) run as the same nodes passes every cluster vector on every run.

use std::time::Duration;

use agentconf_contract::case::Case;
use agentconf_harness::{run_case, Grading, Implementation, Status};

#[path = "../../grp/tests/support/postgres_server.rs"]
mod postgres_server;

/// Each mutant, and the cluster vectors (by name in `grp/admission/cluster/`) that must catch it
/// on every run, with the status they catch it with: the step that shows its defect. An extra
/// admission is a false accept; a pair never admitted, or rejected as a duplicate of nothing, a
/// false reject.
const MUST_CATCH: &[(&str, &[(&str, Status)])] = &[
    // Each node dedups alone: a copy delivered to another node is admitted again.
    (
        "grp-node-local",
        &[
            ("node-race-3-nodes-30-rounds", Status::FalseAccept),
            ("failover-after-answer", Status::FalseAccept),
        ],
    ),
    // Looks the pair up, then inserts without the unique key's answer: racing nodes both admit.
    (
        "grp-lookup-then-insert",
        &[("node-race-3-nodes-30-rounds", Status::FalseAccept)],
    ),
    // Admits against a local set when the database is cut off: the partitioned node admits
    // what another node admitted.
    (
        "grp-local-fallback",
        &[("partition-cut-one-node", Status::FalseAccept)],
    ),
    // Answers before the pair is written: a node killed after its answer leaves the pair
    // unrecorded, and the copy re-delivered to another node is admitted again.
    (
        "grp-admit-then-write",
        &[("failover-after-answer", Status::FalseAccept)],
    ),
    // Admits locally when the store is slow rather than cut: the stalled node admits while no
    // byte can reach the store.
    (
        "grp-fallback-on-timeout",
        &[("slow-link-one-node", Status::FalseAccept)],
    ),
    // A key without the session: the second session's pairs look admitted already.
    (
        "grp-cluster-no-session-key",
        &[("two-sessions-shared-event-ids", Status::FalseReject)],
    ),
    // A key without the publisher: the second publisher's pairs look admitted already.
    (
        "grp-cluster-no-publisher-key",
        &[("two-publishers-shared-event-ids", Status::FalseReject)],
    ),
    // Commits, answers deferred, never resolves: no node ever answers admitted.
    (
        "grp-commit-then-defer",
        &[("node-race-3-nodes-30-rounds", Status::FalseReject)],
    ),
];

/// Runs of each vector against each implementation: a catch that happens now and then fails.
const RUNS: usize = 3;

fn implementation(mutant: &str) -> Implementation {
    Implementation {
        argv: vec![
            env!("CARGO_BIN_EXE_agentconf-mutant").to_string(),
            mutant.to_string(),
        ],
        timeout: Duration::from_secs(60),
        capture_limit: 1 << 20,
        profiles: vec!["durable".into(), "atomic".into(), "cluster".into()],
    }
}

#[test]
fn cluster_mutants_are_caught_on_their_steps_on_every_run() {
    let Some(url) = postgres_server::server("cluster_mutants_are_caught_on_their_steps") else {
        return;
    };
    // The harness takes the store's address from it, and every node it starts inherits it: the
    // one test of this binary, so no other thread reads the environment meanwhile.
    std::env::set_var("AGENTCONF_GRP_STORE", &url);
    let corpus = agentconf_corpus::corpus();
    let cases: Vec<Case<'_>> = corpus
        .iter()
        .filter(|v| v.requires.iter().any(|p| p == "cluster"))
        .flat_map(|v| v.cases())
        .collect();
    assert!(cases.len() >= 5, "the cluster vectors: {}", cases.len());
    let name = |c: &Case<'_>| c.vector.id.rsplit('/').next().unwrap_or("").to_string();
    for (must, _) in MUST_CATCH.iter().flat_map(|(_, v)| v.iter()) {
        assert!(
            cases.iter().any(|c| name(c) == *must),
            "no cluster vector named {must}"
        );
    }
    let work = std::env::temp_dir().join(format!("agentconf-cluster-kill-{}", std::process::id()));
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for (mutant, must) in std::iter::once(&("none", &[][..])).chain(MUST_CATCH) {
        let imp = implementation(mutant);
        for case in &cases {
            let vector = name(case);
            let caught_as = must
                .iter()
                .find(|(v, _)| *v == vector.as_str())
                .map(|(_, status)| *status);
            let mut statuses = Vec::new();
            for run in 0..RUNS {
                let r = run_case(
                    &imp,
                    case,
                    &work.join(format!("{mutant}-{vector}-{run}")),
                    Grading::Strict,
                );
                let wanted = if *mutant == "none" {
                    r.status == Status::Pass
                } else {
                    caught_as.is_none_or(|status| r.status == status)
                };
                if !wanted {
                    problems.push(format!(
                        "{mutant} on {vector}, run {run}: {} ({})",
                        r.status.name(),
                        r.detail
                    ));
                }
                statuses.push(r.status.name());
            }
            seen.push(format!("{mutant} on {vector}: {}", statuses.join(", ")));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!("{}", seen.join("\n"));
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
