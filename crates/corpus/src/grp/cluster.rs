//! `grp/admission/cluster/*`: the duplicate check across receiver nodes (capability `cluster`,
//! CONTRACT.md 7). Each node has its own `STATE_DIR`; only the implementation's shared store
//! joins them, so a receiver that keeps its admitted set per node admits a pair once per node.
//!
//! No expected decision is listed per step: the harness judges the whole history of the
//! scenario (exactly one admission per pair across all nodes, and every pair delivered to a
//! live, connected node eventually decided).

use agentconf_grp::event::PublisherType;
use agentconf_rules::Rule;

use super::common::{events_jsonl, session_json, Fixture, P3_ID};
use crate::builder::{Family, GRP_FROM_01};
use agentconf_contract::vector::{CrashPoint, Step, Suite, Vector};

/// What every cluster vector promises, after what its steps do.
const EXPECTATION: &str = "Across all nodes each (session, publisher, event) is admitted exactly \
     once, and every pair delivered to a live, connected node is eventually admitted or \
     rejected as duplicate_event_id; a node may answer deferred (cannot decide now), which is \
     never an admission, and is handed the line again once the fault is over.";

const NODE_RACE_NODES: usize = 3;
const NODE_RACE_ROUNDS: usize = 30;

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::GrpAdmission, "cluster");
    node_race(&mut f);
    failover(&mut f, CrashPoint::AfterDecision, "failover-after-answer");
    failover(&mut f, CrashPoint::BeforeDecision, "failover-before-answer");
    pause(&mut f);
    partition(&mut f);
}

/// `count` signed P-TYPE-3 events with ids `grp-evt-20260714-<label>-NNN`.
fn lines(fx: &Fixture, label: &str, count: usize) -> Vec<String> {
    (0..count)
        .map(|n| {
            fx.signed(&fx.event(
                &format!("grp-evt-20260714-{label}-{n:03}"),
                P3_ID,
                PublisherType::WellKnown,
            ))
        })
        .collect()
}

/// A cluster vector named `name` over `lines`, playing `steps`.
fn push(
    f: &mut Family<'_>,
    name: &str,
    fx: &Fixture,
    lines: &[String],
    steps: Vec<Step>,
    what: &str,
) {
    f.vector(name)
        .revisions(GRP_FROM_01)
        .requires("cluster")
        .describe(&format!("{what} {EXPECTATION}"))
        .session_file("session.json", &session_json(&fx.session()))
        .events_text(&events_jsonl(lines))
        .scenario(steps, Vec::new())
        .exercises(&[Rule::GrpDupEvent, Rule::GrpProfileAtomic])
        .push();
}

/// `node-race-3-nodes-30-rounds`.
fn node_race(f: &mut Family<'_>) {
    let name = format!("node-race-{NODE_RACE_NODES}-nodes-{NODE_RACE_ROUNDS}-rounds");
    let fx = Fixture::new(&f.id_of(&name));
    let lines = lines(&fx, "race", NODE_RACE_ROUNDS + 1);
    let what = format!(
        "{NODE_RACE_NODES} receiver nodes, each with its own STATE_DIR, share the \
         implementation's store. Each is handed a warm-up event in turn (the first admits it, \
         the others see it admitted), then, {NODE_RACE_ROUNDS} times, one fresh event is handed \
         to every node at the same instant."
    );
    let steps = vec![Step::NodeRace {
        nodes: NODE_RACE_NODES,
        warmup: 0,
        rounds: (1..=NODE_RACE_ROUNDS).collect(),
    }];
    push(f, &name, &fx, &lines, steps, &what);
}

/// `failover-after-answer`, `failover-before-answer`.
fn failover(f: &mut Family<'_>, at: CrashPoint, name: &str) {
    let fx = Fixture::new(&f.id_of(name));
    let lines = lines(&fx, "failover", 1);
    let when = match at {
        CrashPoint::AfterDecision => "right after its decision was read",
        CrashPoint::BeforeDecision => "as soon as it has read the line, before any decision",
    };
    let what = format!(
        "Node A is handed an event and its process group is killed with SIGKILL {when}; the \
         same line is then handed to node B (its own STATE_DIR, the same shared store), as a \
         load balancer fails over."
    );
    push(
        f,
        name,
        &fx,
        &lines,
        vec![Step::Failover { event: 0, at }],
        &what,
    );
}

/// `pause-after-read`.
fn pause(f: &mut Family<'_>) {
    let name = "pause-after-read";
    let fx = Fixture::new(&f.id_of(name));
    let lines = lines(&fx, "pause", 1);
    let what = "Node A is handed an event and stopped with SIGSTOP as soon as it has read the \
                line; the same line is handed to node B, and once B has answered (or a while \
                has passed) A is continued with SIGCONT and answers too.";
    push(f, name, &fx, &lines, vec![Step::Pause { event: 0 }], what);
}

/// `partition-cut-one-node`.
fn partition(f: &mut Family<'_>) {
    let name = "partition-cut-one-node";
    let fx = Fixture::new(&f.id_of(name));
    let lines = lines(&fx, "partition", 4);
    let what = "Node A's link to the shared store is cut (the harness's proxy closes it) while \
                events 0 to 3 arrive at A and events 1 and 3 also arrive at node B; A cannot \
                consult its admission state and must not admit. The link is healed and every \
                line is handed to A again. Needs the store's address (CONTRACT.md 12.5): \
                without it the step is not run.";
    let steps = vec![Step::Partition {
        to_cut: vec![0, 1, 2, 3],
        to_other: vec![1, 3],
    }];
    push(f, name, &fx, &lines, steps, what);
}
