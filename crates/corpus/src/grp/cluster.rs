//! `grp/admission/cluster/*`: the duplicate check across receiver nodes (capability `cluster`,
//! CONTRACT.md 7). Each node has its own `STATE_DIR`; only the implementation's shared store
//! joins them, so a receiver that keeps its admitted set per node admits a pair once per node.
//!
//! No expected decision is listed per step: the harness judges the whole history of the
//! scenario (exactly one admission per pair across all nodes, and every pair delivered to a
//! live, connected node eventually decided).

use agentconf_grp::event::PublisherType;
use agentconf_grp::session::SessionContext;
use agentconf_rules::Rule;
use serde_json::Value;

use super::common::{events_jsonl, session_json, Fixture, P2_ID, P3_ID};
use crate::builder::{Family, GRP_FROM_01};
use agentconf_contract::vector::{CrashPoint, Step, Suite, Vector};

/// What every cluster vector promises, after what its steps do.
const EXPECTATION: &str = "Across all nodes each (session, publisher, event) is admitted exactly \
     once, and every pair delivered to a live, connected node is eventually admitted or \
     rejected as duplicate_event_id; a node may answer deferred (cannot decide now), which is \
     never an admission, and is handed the line again once the fault is over.";

const NODE_RACE_NODES: usize = 3;
const NODE_RACE_ROUNDS: usize = 30;

/// The rounds of each `node-mix` vector (4 nodes: two pairs per round).
const NODE_MIX_ROUNDS: usize = 10;

/// The second session of `two-sessions-shared-event-ids`.
const SESSION_B: &str = "ses-aep-session-002";
const NONCE_B: &str = "ses-nonce-aep-session-002";

pub fn generate(out: &mut Vec<Vector>) {
    let mut f = Family::new(out, Suite::GrpAdmission, "cluster");
    node_race(&mut f);
    failover(&mut f, CrashPoint::AfterDecision, "failover-after-answer");
    failover(&mut f, CrashPoint::BeforeDecision, "failover-before-answer");
    pause(&mut f);
    partition(&mut f);
    slow_link(&mut f);
    two_sessions(&mut f);
    two_publishers(&mut f);
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
    push_sessions(
        f,
        name,
        &[("session.json", fx.session())],
        lines,
        steps,
        what,
    );
}

/// A cluster vector named `name` with the session contexts `sessions` (input file, context; the
/// first is the scenario's), over `lines`, playing `steps`. A cluster failure is charged to
/// GRP-PROFILE-CLUSTER alone: the claim that failed (the single receiver's duplicate check,
/// GRP-DUP-EVENT, is the duplicate-event vectors' to show).
fn push_sessions(
    f: &mut Family<'_>,
    name: &str,
    sessions: &[(&str, SessionContext)],
    lines: &[String],
    steps: Vec<Step>,
    what: &str,
) {
    let mut b = f
        .vector(name)
        .revisions(GRP_FROM_01)
        .requires("cluster")
        .describe(&format!("{what} {EXPECTATION}"));
    for (file, session) in sessions {
        b = b.session_file(file, &session_json(session));
    }
    b.events_text(&events_jsonl(lines))
        .scenario(steps, Vec::new())
        .exercises(&[Rule::GrpProfileCluster])
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

/// `slow-link-one-node`.
fn slow_link(f: &mut Family<'_>) {
    let name = "slow-link-one-node";
    let fx = Fixture::new(&f.id_of(name));
    let lines = lines(&fx, "slow", 4);
    let what = "Node A is handed event 0 while its link to the shared store works (its \
                connection is open, as a deployed node's is). Then the link is stalled (the \
                harness's proxy keeps it open and takes new connections, but forwards no byte \
                either way) while events 1 and 2 arrive at A, each waited for longer than a \
                receiver's own deadline for its store, and events 2 and 3 arrive at node B. \
                Nothing A sends reaches the store while the stall lasts, so A must not admit: it \
                answers deferred (or, if it just waits, the link is healed and its answer read \
                then). The link is healed: what A sent arrives, late, and may commit an \
                admission whose answer A gave up on, which A must resolve as its own (answered \
                admitted once, CONTRACT.md 5.1) when the line comes again. Every line is handed \
                to A again. Needs the store's address (CONTRACT.md 12.5): without it the step is \
                not run.";
    let steps = vec![Step::SlowLink {
        warmup: 0,
        to_slow: vec![1, 2],
        to_other: vec![2, 3],
    }];
    push(f, name, &fx, &lines, steps, what);
}

/// The `node-mix` step of the two vectors below: 4 nodes, `n1` and `n2` on `first`, `n3` and
/// `n4` on `second` (input files); lines `2k` and `2k + 1` are event `k` of each side, the
/// warm-up `k = 0`, then one round per further `k`.
fn node_mix(first: &str, second: &str) -> Step {
    Step::NodeMix {
        nodes: [first, first, second, second].map(String::from).to_vec(),
        warmup: vec![0, 0, 1, 1],
        rounds: (1..=NODE_MIX_ROUNDS)
            .map(|k| vec![2 * k, 2 * k, 2 * k + 1, 2 * k + 1])
            .collect(),
    }
}

/// The event id of round `k` of the `node-mix` vectors (round 0: the warm-up).
fn mix_id(k: usize) -> String {
    format!("grp-evt-20260714-mix-{k:03}")
}

/// `two-sessions-shared-event-ids`.
fn two_sessions(f: &mut Family<'_>) {
    let name = "two-sessions-shared-event-ids";
    let fx = Fixture::new(&f.id_of(name));
    let first = fx.session();
    let mut second = fx.session();
    second.session_id = SESSION_B.into();
    second.session_nonce = NONCE_B.into();
    let mut lines = Vec::new();
    for k in 0..=NODE_MIX_ROUNDS {
        let a = fx.event(&mix_id(k), P3_ID, PublisherType::WellKnown);
        let mut b = a.clone();
        b.insert("session_nonce".into(), Value::String(NONCE_B.into()));
        lines.push(fx.signed(&a));
        lines.push(fx.signed(&b));
    }
    let what = format!(
        "Four receiver nodes share the implementation's store: n1 and n2 run session \
         {} (session.json), n3 and n4 session {SESSION_B} (session-b.json, its own nonce). \
         Each node is handed a warm-up event in turn, then, {NODE_MIX_ROUNDS} times, event k of \
         the first session to n1 and n2 and the same event id of the same publisher, signed \
         with the second session's nonce, to n3 and n4, all at the same instant. The two \
         sessions' events are distinct pairs: each is admitted once, by one node of its own \
         session. A store keyed without the session admits one and rejects the other as a \
         duplicate of a pair no node admitted.",
        first.session_id
    );
    push_sessions(
        f,
        name,
        &[("session.json", first), ("session-b.json", second)],
        &lines,
        vec![node_mix("session.json", "session-b.json")],
        &what,
    );
}

/// `two-publishers-shared-event-ids`.
fn two_publishers(f: &mut Family<'_>) {
    let name = "two-publishers-shared-event-ids";
    let fx = Fixture::new(&f.id_of(name));
    let mut lines = Vec::new();
    for k in 0..=NODE_MIX_ROUNDS {
        lines.push(fx.signed(&fx.event(&mix_id(k), P3_ID, PublisherType::WellKnown)));
        lines.push(fx.signed(&fx.event(&mix_id(k), P2_ID, PublisherType::Registered)));
    }
    let what = format!(
        "Four receiver nodes of one session share the implementation's store. Each is handed \
         a warm-up event in turn, then, {NODE_MIX_ROUNDS} times, event k of publisher {P3_ID} \
         (P-TYPE-3) to n1 and n2 and the same event id from publisher {P2_ID} (P-TYPE-2) to n3 \
         and n4, all at the same instant. An event id is unique only within its publisher's \
         stream: the two are distinct pairs, each admitted once. A store keyed without the \
         publisher admits one and rejects the other as a duplicate of a pair no node admitted."
    );
    push(
        f,
        name,
        &fx,
        &lines,
        vec![node_mix("session.json", "session.json")],
        &what,
    );
}
