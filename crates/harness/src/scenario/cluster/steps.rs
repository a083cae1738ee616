//! The cluster steps: `node-race`, `node-mix`, `failover`, `pause`, `partition`, `slow-link`
//! (CONTRACT.md 5.3).
//!
//! Each step starts its nodes (`n1` is node A, `n2` node B), plays, hands every deferred line
//! again once the fault is over ([`Play::settle`]), and stops the nodes that are still alive.
//! Nothing is judged here beyond each decision's form: the history is judged as a whole at the
//! end of the scenario.

use std::time::{Duration, Instant};

use agentconf_contract::decision::{DecisionLine, DecisionOutcome};
use agentconf_contract::vector::{CrashPoint, Step};

use super::history::{What, PAUSED_AFTER_READ, PAUSED_MID_STATEMENT};
use super::Cluster;
use crate::grade::{grade_ale, grade_identity, Grade};
use crate::scenario::{ReceiverLink, Receivers};
use crate::status::Status;

/// How long a `pause` step waits for node B's decision while node A is stopped: B may be
/// waiting on something A holds (a lock in the shared store), and only A's resumption frees it.
const PAUSE_WAIT: Duration = Duration::from_secs(2);

/// How long a `pause` step waits, once node A has taken its line, for A's first bytes to the
/// store to reach the proxy that holds them (A's statement in flight). A node that sends none
/// by then (it decided without its store, or its store is not behind the proxy) is stopped
/// anyway, after its read.
const HOLD_WAIT: Duration = Duration::from_secs(2);

/// How long a `pause` step lets node A's bytes to the store through while A has not yet taken
/// its line (a node still starting: its connection being set up). A node that takes longer is
/// stopped once it has read the line, as without a link that holds.
const TAKE_WAIT: Duration = Duration::from_secs(10);

/// How long a `slow-link` step waits for node A's decision while A's link to the store is
/// stalled. Longer than a receiver's own deadline for its store (the reference gives a round
/// trip 3 s, then answers `deferred`), so that a receiver that bounds its wait answers within
/// it; a receiver that waits longer is not wrong, only slow: its link is healed, and its
/// decision read then.
const SLOW_LINK_WAIT: Duration = Duration::from_secs(5);

/// How many times deferred lines are handed again, and the wait before the first time (it
/// doubles each time: 25 ms, 50 ms, … 3.2 s, about 6.4 s in all): a node that just got its link
/// back may need a moment to reconnect, and one that backs off after failures (a pause that
/// doubles) a few seconds. Passes happen only while lines stay deferred.
const SETTLE_PASSES: u32 = 8;
const SETTLE_FIRST_WAIT: Duration = Duration::from_millis(25);

/// The waits of the steps (the constants above; shorter in this module's tests).
#[derive(Clone, Copy, Debug)]
struct Timing {
    pause_wait: Duration,
    hold_wait: Duration,
    slow_link_wait: Duration,
    settle_passes: u32,
    settle_first_wait: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            pause_wait: PAUSE_WAIT,
            hold_wait: HOLD_WAIT,
            slow_link_wait: SLOW_LINK_WAIT,
            settle_passes: SETTLE_PASSES,
            settle_first_wait: SETTLE_FIRST_WAIT,
        }
    }
}

/// One node: its name, its session, and, while it runs, its receiver.
struct Node<L> {
    name: String,
    /// The input file of its session context.
    session: String,
    link: Option<L>,
    /// Its link to the shared store is cut or stalled (`What::Cut`, `What::Stalled`).
    fault: Option<What>,
}

/// Plays cluster step `step` (number `index`); `events` are the scenario's lines, `session` the
/// session context's input file.
pub(crate) fn play_step<R: Receivers>(
    step: &Step,
    index: usize,
    receivers: &mut R,
    session: &str,
    events: &[&[u8]],
    cluster: &mut Cluster,
) -> Result<(), Grade> {
    play_step_timed(
        step,
        index,
        receivers,
        session,
        events,
        cluster,
        Timing::default(),
    )
}

fn play_step_timed<R: Receivers>(
    step: &Step,
    index: usize,
    receivers: &mut R,
    session: &str,
    events: &[&[u8]],
    cluster: &mut Cluster,
    timing: Timing,
) -> Result<(), Grade> {
    let mut play = Play {
        receivers,
        session,
        events,
        index,
        cluster,
        deferred: Vec::new(),
        timing,
    };
    match step {
        Step::NodeRace {
            nodes,
            warmup,
            rounds,
        } => {
            let sessions = vec![session.to_string(); *nodes];
            let rounds: Vec<Vec<usize>> = rounds.iter().map(|&l| vec![l; *nodes]).collect();
            play.node_mix(&sessions, &vec![*warmup; *nodes], &rounds)
        }
        Step::NodeMix {
            nodes,
            warmup,
            rounds,
        } => play.node_mix(nodes, warmup, rounds),
        Step::Failover { event, at } => play.failover(*event, *at),
        Step::Pause { event } => play.pause(*event),
        Step::Partition { to_cut, to_other } => play.partition(to_cut, to_other),
        Step::SlowLink {
            warmup,
            to_slow,
            to_other,
        } => play.slow_link(*warmup, to_slow, to_other),
        _ => Err(Grade::new(
            Status::Crash,
            format!("step {index} is not a cluster step"),
        )),
    }
}

struct Play<'a, R: Receivers> {
    receivers: &'a mut R,
    session: &'a str,
    events: &'a [&'a [u8]],
    index: usize,
    cluster: &'a mut Cluster,
    /// Lines answered `deferred`, each with the node that deferred it.
    deferred: Vec<(usize, usize)>,
    timing: Timing,
}

impl<R: Receivers> Play<'_, R> {
    /// Starts `count` nodes on the scenario's session.
    fn start(&mut self, count: usize) -> Result<Vec<Node<R::Receiver>>, Grade> {
        let sessions = vec![self.session.to_string(); count];
        self.start_on(&sessions)
    }

    /// Starts one node per entry of `sessions`, node `n<k>` on the session context in input
    /// file `sessions[k - 1]`.
    fn start_on(&mut self, sessions: &[String]) -> Result<Vec<Node<R::Receiver>>, Grade> {
        sessions
            .iter()
            .enumerate()
            .map(|(n, session)| {
                let name = format!("n{}", n + 1);
                let link = self.receivers.start_node(session, &name)?;
                Ok(Node {
                    name,
                    session: session.clone(),
                    link: Some(link),
                    fault: None,
                })
            })
            .collect()
    }

    fn bytes(&self, line: usize) -> Result<&[u8], Grade> {
        self.events
            .get(line)
            .copied()
            .ok_or_else(|| Grade::new(Status::Crash, format!("no event {line}")))
    }

    fn send(&mut self, node: &mut Node<R::Receiver>, line: usize) -> Result<(), Grade> {
        let bytes = self.bytes(line)?;
        let link = running(node)?;
        // A line it wrote beyond its last decision is charged to the step that decision was for.
        link.no_surplus()?;
        link.send(bytes)?;
        self.cluster
            .record(&node.name, Some(line), What::Delivered, None);
        Ok(())
    }

    /// Node `n`'s decision for `line`, read by `by` (`None`: not yet).
    fn read_by(
        &mut self,
        nodes: &mut [Node<R::Receiver>],
        n: usize,
        line: usize,
        by: Option<Instant>,
    ) -> Result<Option<DecisionLine>, Grade> {
        let node = &mut nodes[n];
        let link = running(node)?;
        let d = match by {
            Some(by) => match link.decision_by(by)? {
                Some(d) => d,
                None => return Ok(None),
            },
            None => link.decision()?,
        };
        link.answered(self.index);
        let bytes = self.bytes(line)?;
        grade_identity(self.index, bytes, &d)?;
        grade_ale(self.index, &d)?;
        let what = match d.outcome {
            DecisionOutcome::Admitted => What::Admitted,
            DecisionOutcome::Rejected => What::Rejected,
            DecisionOutcome::Deferred => {
                self.deferred.push((n, line));
                What::Deferred
            }
        };
        let reason = d.rejection_reason.clone();
        self.cluster.record(&node.name, Some(line), what, reason);
        Ok(Some(d))
    }

    fn read(
        &mut self,
        nodes: &mut [Node<R::Receiver>],
        n: usize,
        line: usize,
    ) -> Result<(), Grade> {
        self.read_by(nodes, n, line, None).map(|_| ())
    }

    /// Hands `line` to node `n` and reads its decision.
    fn answer(
        &mut self,
        nodes: &mut [Node<R::Receiver>],
        n: usize,
        line: usize,
    ) -> Result<(), Grade> {
        self.send(&mut nodes[n], line)?;
        self.read(nodes, n, line)
    }

    /// Hands every deferred line again, to the node that deferred it or, when that one is dead
    /// or cut off, to another live, connected node of the same session; waits a little longer
    /// before each pass. A line still deferred after the last pass stays so in the history
    /// (never decided).
    fn settle(&mut self, nodes: &mut [Node<R::Receiver>]) -> Result<(), Grade> {
        let mut wait = self.timing.settle_first_wait;
        for _ in 0..self.timing.settle_passes {
            if self.deferred.is_empty() {
                return Ok(());
            }
            std::thread::sleep(wait);
            wait *= 2;
            for (n, line) in std::mem::take(&mut self.deferred) {
                let session = nodes[n].session.clone();
                let usable = |node: &Node<R::Receiver>| {
                    node.link.is_some() && node.fault.is_none() && node.session == session
                };
                let target = if usable(&nodes[n]) {
                    Some(n)
                } else {
                    nodes.iter().position(usable)
                };
                if let Some(target) = target {
                    self.answer(nodes, target, line)?;
                }
            }
        }
        Ok(())
    }

    /// Settles, then stops every node still running.
    fn end(&mut self, mut nodes: Vec<Node<R::Receiver>>) -> Result<(), Grade> {
        self.settle(&mut nodes)?;
        for node in nodes {
            if let Some(link) = node.link {
                link.stop()?;
            }
        }
        Ok(())
    }

    /// `node-race` (every node on the scenario's session, the same line to all) and
    /// `node-mix` (each node on its own session, its own line of each round): the warm-up one
    /// node after another, then every round handed to every node before any decision is read.
    fn node_mix(
        &mut self,
        sessions: &[String],
        warmup: &[usize],
        rounds: &[Vec<usize>],
    ) -> Result<(), Grade> {
        let count = sessions.len();
        let index = self.index;
        let malformed = |what: String| {
            Grade::new(
                Status::Crash,
                format!("step {index}: {what} for {count} nodes"),
            )
        };
        if warmup.len() != count {
            return Err(malformed(format!("{} warm-up lines", warmup.len())));
        }
        if let Some((r, round)) = rounds.iter().enumerate().find(|(_, r)| r.len() != count) {
            return Err(malformed(format!("round {r} has {} lines", round.len())));
        }
        let mut nodes = self.start_on(sessions)?;
        // One node after another: when the warm-up is over every node runs and has answered.
        for (n, &line) in warmup.iter().enumerate() {
            self.answer(&mut nodes, n, line)?;
        }
        for round in rounds {
            for (node, &line) in nodes.iter_mut().zip(round) {
                self.send(node, line)?;
            }
            for (n, &line) in round.iter().enumerate() {
                self.read(&mut nodes, n, line)?;
            }
        }
        self.end(nodes)
    }

    fn failover(&mut self, line: usize, at: CrashPoint) -> Result<(), Grade> {
        let mut nodes = self.start(2)?;
        self.send(&mut nodes[0], line)?;
        if at == CrashPoint::AfterDecision {
            self.read(&mut nodes, 0, line)?;
        }
        if let Some(a) = nodes[0].link.take() {
            a.crash(at)?;
        }
        self.cluster
            .record(&nodes[0].name, None, What::Killed, None);
        // Whatever A deferred before it died goes to B.
        self.answer(&mut nodes, 1, line)?;
        self.end(nodes)
    }

    /// Where node A's link can hold its bytes to the store, the pause lands mid-statement: A's
    /// bytes are held, A is handed the line (what it sends before it has taken the line, its
    /// start-up's, goes through), and once bytes from it are held after that (its statement in
    /// flight) A is stopped and the held bytes go to the store, which executes the statement
    /// while A is stopped. Otherwise A is stopped once it has read the line.
    fn pause(&mut self, line: usize) -> Result<(), Grade> {
        let mut nodes = self.start(2)?;
        let a = nodes[0].name.clone();
        let holding = self.receivers.store_link(&a).is_some_and(|l| l.hold());
        let stopped = self.stop_mid_statement(&mut nodes[0], line, holding);
        if holding {
            if let Some(link) = self.receivers.store_link(&a) {
                link.release();
            }
        }
        let mid_statement = stopped?;
        let reason = if mid_statement {
            PAUSED_MID_STATEMENT
        } else {
            PAUSED_AFTER_READ
        };
        self.cluster
            .record(&a, None, What::Paused, Some(reason.to_string()));
        self.send(&mut nodes[1], line)?;
        let wait = Instant::now() + self.timing.pause_wait;
        let b = self.read_by(&mut nodes, 1, line, Some(wait))?;
        running(&mut nodes[0])?.resume()?;
        self.cluster
            .record(&nodes[0].name, None, What::Resumed, None);
        self.read(&mut nodes, 0, line)?;
        if b.is_none() {
            self.read(&mut nodes, 1, line)?;
        }
        self.end(nodes)
    }

    /// Hands `line` to `node` and stops it (SIGSTOP): with its link `holding` its bytes to the
    /// store, once bytes it sent after taking its line are held (whether they were: the pause
    /// landed mid-statement); otherwise once it has read the line.
    fn stop_mid_statement(
        &mut self,
        node: &mut Node<R::Receiver>,
        line: usize,
        holding: bool,
    ) -> Result<bool, Grade> {
        self.send(node, line)?;
        let mid_statement = holding && self.held_after_taken(node)?;
        running(node)?.pause()?;
        Ok(mid_statement)
    }

    /// With `node`'s link holding its bytes to the store: lets them through until the node has
    /// taken its line (at most `TAKE_WAIT`), then waits (at most `hold_wait`) until the link
    /// holds bytes from it: whether it does (the node's statement is in flight).
    fn held_after_taken(&mut self, node: &mut Node<R::Receiver>) -> Result<bool, Grade> {
        let by = Instant::now() + TAKE_WAIT;
        loop {
            if let Some(link) = self.receivers.store_link(&node.name) {
                link.pass();
            }
            if running(node)?.taken()? {
                break;
            }
            if Instant::now() >= by {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let by = Instant::now() + self.timing.hold_wait;
        loop {
            if self
                .receivers
                .store_link(&node.name)
                .is_some_and(|l| l.held() > 0)
            {
                return Ok(true);
            }
            if Instant::now() >= by {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Records that step `what` could not run for want of the store's address.
    fn not_run(&mut self, what: &str) {
        self.cluster.not_run.push((
            self.index,
            format!(
                "a {what} step needs the address of the implementation's shared store \
                 (CONTRACT.md 12.5), and none was given"
            ),
        ));
    }

    fn partition(&mut self, to_cut: &[usize], to_other: &[usize]) -> Result<(), Grade> {
        let mut nodes = self.start(2)?;
        if self.receivers.store_link(&nodes[0].name).is_none() {
            self.not_run("partition");
            return self.end(nodes);
        }
        self.link(&mut nodes[0], What::Cut);
        let mut delivered = Vec::new();
        for i in 0..to_cut.len().max(to_other.len()) {
            for (n, lines) in [(0, to_cut), (1, to_other)] {
                if let Some(&line) = lines.get(i) {
                    self.answer(&mut nodes, n, line)?;
                    delivered.push(line);
                }
            }
        }
        self.link(&mut nodes[0], What::Healed);
        // Everything again, to the healed node: what it deferred is decided now, and what B
        // admitted meanwhile is a duplicate to it.
        self.deferred.clear();
        for line in delivered {
            self.answer(&mut nodes, 0, line)?;
        }
        self.end(nodes)
    }

    /// Node A's link stalled (held open, nothing forwarded): A is handed each line of `to_slow`
    /// and its decision waited for (at most `slow_link_wait`; if it does not come, the link is
    /// healed and the decision read then, and the link stalled again for A's next line), B the
    /// lines `to_other`, alternately; then the link is healed and every line handed to A again.
    fn slow_link(
        &mut self,
        warmup: usize,
        to_slow: &[usize],
        to_other: &[usize],
    ) -> Result<(), Grade> {
        let mut nodes = self.start(2)?;
        if self.receivers.store_link(&nodes[0].name).is_none() {
            self.not_run("slow-link");
            return self.end(nodes);
        }
        // A's link in use before the stall: what A then sends on it is held and reaches the
        // store late, at the heal, whether or not A still waits for the answer. A node that gave
        // up and answered `deferred` must then resolve that admission when the line comes again
        // (CONTRACT 5.1), not call its own commit a duplicate.
        self.answer(&mut nodes, 0, warmup)?;
        let mut delivered = Vec::new();
        for i in 0..to_slow.len().max(to_other.len()) {
            if let Some(&line) = to_slow.get(i) {
                if nodes[0].fault.is_none() {
                    self.link(&mut nodes[0], What::Stalled);
                }
                self.send(&mut nodes[0], line)?;
                delivered.push(line);
                let by = Instant::now() + self.timing.slow_link_wait;
                if self.read_by(&mut nodes, 0, line, Some(by))?.is_none() {
                    // Slow, not wrong: its statement reaches the store once healed.
                    self.link(&mut nodes[0], What::Healed);
                    self.read(&mut nodes, 0, line)?;
                }
            }
            if let Some(&line) = to_other.get(i) {
                self.answer(&mut nodes, 1, line)?;
                delivered.push(line);
            }
        }
        if nodes[0].fault.is_some() {
            self.link(&mut nodes[0], What::Healed);
        }
        // Everything again, to the healed node, as after a partition.
        self.deferred.clear();
        for line in delivered {
            self.answer(&mut nodes, 0, line)?;
        }
        self.end(nodes)
    }

    /// Cuts, stalls or heals `node`'s link to the store.
    fn link(&mut self, node: &mut Node<R::Receiver>, what: What) {
        if let Some(link) = self.receivers.store_link(&node.name) {
            match what {
                What::Cut => link.cut(),
                What::Stalled => link.stall(),
                _ => link.heal(),
            }
        }
        node.fault = matches!(what, What::Cut | What::Stalled).then_some(what);
        self.cluster.record(&node.name, None, what, None);
    }
}

fn running<L>(node: &mut Node<L>) -> Result<&mut L, Grade> {
    let name = &node.name;
    node.link
        .as_mut()
        .ok_or_else(|| Grade::new(Status::Crash, format!("node {name} is not running")))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};
    use std::io::{BufRead, BufReader, Write};
    use std::net::{SocketAddr, TcpListener, TcpStream};
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::thread::JoinHandle;

    use super::*;
    use crate::scenario::cluster::history::{self, Anomaly, Entry};
    use crate::scenario::cluster::proxy::Proxy;
    use crate::scenario::cluster::{pair_names, StoreLink};

    /// A store on a kept connection: `?` is answered `ok` (no effect: what a receiver sends
    /// first, as a statement is prepared before it runs), any other line `KEY` is answered
    /// `new` the first time and `dup` after.
    fn store() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(HashSet::<String>::new()));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || {
                    let mut lines = BufReader::new(conn.try_clone().unwrap()).lines();
                    while let Some(Ok(key)) = lines.next() {
                        let reply: &[u8] = if key == "?" {
                            b"ok\n"
                        } else if seen.lock().unwrap().insert(key) {
                            b"new\n"
                        } else {
                            b"dup\n"
                        };
                        if conn.write_all(reply).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        addr
    }

    /// How a fake node uses the store.
    #[derive(Clone, Copy)]
    struct Behaviour {
        /// Its key carries the line's session nonce.
        key_with_nonce: bool,
        /// How long it waits for the store's answer (`None`: as long as it takes).
        deadline: Option<Duration>,
        /// It admits when the store did not answer in time (instead of `deferred`).
        admit_on_timeout: bool,
        /// It talks to the store (a `?` round trip) as it starts, a little after it was started
        /// and before it takes any line.
        connect_at_start: bool,
    }

    const CORRECT: Behaviour = Behaviour {
        key_with_nonce: true,
        deadline: Some(Duration::from_millis(300)),
        admit_on_timeout: false,
        connect_at_start: false,
    };

    /// Nodes as threads, each through its own harness proxy to [`store`] (or straight to it).
    struct Fake {
        store: SocketAddr,
        behaviour: Behaviour,
        proxied: bool,
        proxies: BTreeMap<String, Proxy>,
        /// Set when a node's start-up round trip got no answer in time.
        start_failed: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Fake {
        fn new(behaviour: Behaviour) -> Fake {
            Fake {
                store: store(),
                behaviour,
                proxied: true,
                proxies: BTreeMap::new(),
                start_failed: Arc::default(),
            }
        }
    }

    impl Receivers for Fake {
        type Receiver = FakeNode;
        fn start(&mut self, _session: &str) -> Result<FakeNode, Grade> {
            Err(Grade::new(Status::Crash, "only nodes here"))
        }
        fn start_node(&mut self, _session: &str, node: &str) -> Result<FakeNode, Grade> {
            let addr = if self.proxied {
                let store = self.store.to_string();
                self.proxies
                    .entry(node.to_string())
                    .or_insert_with(|| Proxy::start(&store).unwrap())
                    .addr()
            } else {
                self.store
            };
            Ok(FakeNode::start(
                addr,
                self.behaviour,
                Arc::clone(&self.start_failed),
            ))
        }
        fn store_link(&mut self, node: &str) -> Option<&dyn StoreLink> {
            self.proxies.get(node).map(|p| p as &dyn StoreLink)
        }
    }

    struct FakeNode {
        lines: Option<mpsc::Sender<Vec<u8>>>,
        decisions: mpsc::Receiver<DecisionLine>,
        thread: Option<JoinHandle<()>>,
        /// Lines handed over, and lines its thread has taken.
        sent: usize,
        taken: Arc<std::sync::atomic::AtomicUsize>,
    }

    fn decision(line: &serde_json::Value, outcome: DecisionOutcome) -> DecisionLine {
        let member = |m: &str| line.get(m).and_then(|v| v.as_str()).map(str::to_string);
        let rejected = outcome == DecisionOutcome::Rejected;
        DecisionLine {
            event_id: member("event_id"),
            publisher_id: member("publisher_id"),
            outcome,
            ale: rejected.then(|| "ALE-064".into()),
            rejection_reason: rejected.then(|| "duplicate_event_id".into()),
            rule: rejected.then(|| "GRP-DUP-EVENT".into()),
            member: None,
            message: None,
        }
    }

    /// `?`, then `key`, on the kept connection (made first if there is none): the store's
    /// answer, or `None` (the connection dropped) when it did not come in time.
    fn ask(
        conn: &mut Option<(TcpStream, BufReader<TcpStream>)>,
        addr: SocketAddr,
        key: &str,
        deadline: Option<Duration>,
    ) -> Option<String> {
        if conn.is_none() {
            let s = TcpStream::connect(addr).ok()?;
            s.set_read_timeout(deadline).ok()?;
            let r = BufReader::new(s.try_clone().ok()?);
            *conn = Some((s, r));
        }
        let (s, r) = conn.as_mut()?;
        let mut reply = String::new();
        for message in ["?", key] {
            reply.clear();
            let answered = s.write_all(format!("{message}\n").as_bytes()).is_ok()
                && r.read_line(&mut reply).is_ok_and(|n| n > 0);
            if !answered {
                *conn = None;
                return None;
            }
        }
        Some(reply.trim().to_string())
    }

    impl FakeNode {
        fn start(
            addr: SocketAddr,
            b: Behaviour,
            start_failed: Arc<std::sync::atomic::AtomicBool>,
        ) -> FakeNode {
            let (lines, inbox) = mpsc::channel::<Vec<u8>>();
            let (outbox, decisions) = mpsc::channel();
            let taken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let took = Arc::clone(&taken);
            let thread = std::thread::spawn(move || {
                let mut conn = None;
                if b.connect_at_start {
                    // What a store's client does as it opens: a round trip, no line taken yet
                    // (after the harness has handed over the line, and its link holds).
                    std::thread::sleep(Duration::from_millis(50));
                    if ask(&mut conn, addr, "?", b.deadline).is_none() {
                        start_failed.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                }
                for line in inbox {
                    took.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
                    let part = |m: &str| v.get(m).and_then(|x| x.as_str()).unwrap_or("");
                    let mut key = format!("{}/{}", part("publisher_id"), part("event_id"));
                    if b.key_with_nonce {
                        key = format!("{}/{key}", part("session_nonce"));
                    }
                    let outcome = match ask(&mut conn, addr, &key, b.deadline).as_deref() {
                        Some("new") => DecisionOutcome::Admitted,
                        Some("dup") => DecisionOutcome::Rejected,
                        _ if b.admit_on_timeout => DecisionOutcome::Admitted,
                        _ => DecisionOutcome::Deferred,
                    };
                    if outbox.send(decision(&v, outcome)).is_err() {
                        return;
                    }
                }
            });
            FakeNode {
                lines: Some(lines),
                decisions,
                thread: Some(thread),
                sent: 0,
                taken,
            }
        }
    }

    impl ReceiverLink for FakeNode {
        fn send(&mut self, line: &[u8]) -> Result<(), Grade> {
            self.sent += 1;
            self.lines
                .as_ref()
                .and_then(|l| l.send(line.to_vec()).ok())
                .ok_or_else(|| Grade::new(Status::Crash, "gone"))
        }
        fn decision(&mut self) -> Result<DecisionLine, Grade> {
            self.decisions
                .recv_timeout(Duration::from_secs(30))
                .map_err(|e| Grade::new(Status::Timeout, e.to_string()))
        }
        fn decision_by(&mut self, by: Instant) -> Result<Option<DecisionLine>, Grade> {
            let wait = by.saturating_duration_since(Instant::now());
            match self.decisions.recv_timeout(wait) {
                Ok(d) => Ok(Some(d)),
                Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
                Err(e) => Err(Grade::new(Status::Crash, e.to_string())),
            }
        }
        fn stop(mut self) -> Result<(), Grade> {
            drop(self.lines.take());
            let _ = self.thread.take().map(JoinHandle::join);
            Ok(())
        }
        fn crash(self, _at: CrashPoint) -> Result<(), Grade> {
            self.stop()
        }
        fn taken(&mut self) -> Result<bool, Grade> {
            Ok(self.taken.load(std::sync::atomic::Ordering::SeqCst) == self.sent)
        }
    }

    const TIMING: Timing = Timing {
        pause_wait: Duration::from_secs(2),
        hold_wait: Duration::from_secs(2),
        slow_link_wait: Duration::from_secs(1),
        settle_passes: 8,
        settle_first_wait: Duration::from_millis(5),
    };

    /// `{"event_id":"e<n>","publisher_id":P,"session_nonce":S}`.
    fn line(n: usize, publisher: &str, nonce: &str) -> String {
        format!(r#"{{"event_id":"e{n}","publisher_id":"{publisher}","session_nonce":"{nonce}"}}"#)
    }

    /// Plays `step` on `fake` over `lines`: the history, and what its check says.
    fn play(
        step: &Step,
        fake: &mut Fake,
        lines: &[String],
        timing: Timing,
    ) -> (Vec<Entry>, Result<(), Anomaly>) {
        let events: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        let mut cluster = Cluster::default();
        play_step_timed(step, 0, fake, "session.json", &events, &mut cluster, timing)
            .expect("played");
        let checked = history::check(&cluster.history, &pair_names(&events));
        (cluster.history, checked)
    }

    fn whats(h: &[Entry], node: &str) -> Vec<What> {
        h.iter()
            .filter(|e| e.node == node)
            .map(|e| e.decision)
            .collect()
    }

    /// With a link that can hold node A's bytes, the pause lands while A's statement is in
    /// flight, every time; without one it lands after A read its line.
    #[test]
    fn a_pause_lands_mid_statement_where_the_link_can_hold() {
        let mut mid = 0;
        const RUNS: usize = 5;
        for _ in 0..RUNS {
            let mut fake = Fake::new(CORRECT);
            let (h, checked) = play(
                &Step::Pause { event: 0 },
                &mut fake,
                &[line(0, "p", "a")],
                TIMING,
            );
            assert_eq!(checked, Ok(()), "{h:?}");
            let paused = h.iter().find(|e| e.decision == What::Paused).unwrap();
            if paused.reason.as_deref() == Some(PAUSED_MID_STATEMENT) {
                mid += 1;
            }
        }
        assert_eq!(mid, RUNS, "pauses that landed mid-statement");

        // A node that talks to its store as it starts, before it takes its line: its start-up
        // goes through, and the pause still lands on its statement.
        let mut starting = Fake::new(Behaviour {
            connect_at_start: true,
            ..CORRECT
        });
        let (h, checked) = play(
            &Step::Pause { event: 0 },
            &mut starting,
            &[line(0, "p", "a")],
            TIMING,
        );
        assert_eq!(checked, Ok(()), "{h:?}");
        let paused = h.iter().find(|e| e.decision == What::Paused).unwrap();
        assert_eq!(
            paused.reason.as_deref(),
            Some(PAUSED_MID_STATEMENT),
            "{h:?}"
        );
        assert!(
            !starting
                .start_failed
                .load(std::sync::atomic::Ordering::SeqCst),
            "its start-up was held: {h:?}"
        );

        let mut direct = Fake::new(CORRECT);
        direct.proxied = false;
        let (h, checked) = play(
            &Step::Pause { event: 0 },
            &mut direct,
            &[line(0, "p", "a")],
            TIMING,
        );
        assert_eq!(checked, Ok(()));
        let paused = h.iter().find(|e| e.decision == What::Paused).unwrap();
        assert_eq!(paused.reason.as_deref(), Some(PAUSED_AFTER_READ));
    }

    fn slow_link() -> Step {
        Step::SlowLink {
            warmup: 0,
            to_slow: vec![1, 2],
            to_other: vec![2, 3],
        }
    }

    fn four_lines() -> Vec<String> {
        (0..4).map(|n| line(n, "p", "a")).collect()
    }

    /// A node that bounds its wait for the store answers `deferred` while its link is stalled,
    /// decides once healed, and passes.
    #[test]
    fn a_stalled_node_that_defers_passes() {
        let mut fake = Fake::new(CORRECT);
        let (h, checked) = play(&slow_link(), &mut fake, &four_lines(), TIMING);
        assert_eq!(checked, Ok(()), "{h:?}");
        let a = whats(&h, "n1");
        // The warm-up, answered before the stall.
        assert_eq!(a[..3], [What::Delivered, What::Admitted, What::Stalled]);
        assert!(
            a.contains(&What::Deferred) && a.contains(&What::Healed),
            "{a:?}"
        );
        // Deferred while stalled, admitted (its own line 1) after the heal.
        let healed = a.iter().position(|w| *w == What::Healed).unwrap();
        assert!(!a[3..healed].contains(&What::Admitted), "{a:?}");
        assert!(a[healed..].contains(&What::Admitted), "{a:?}");
    }

    /// A node that waits for its store as long as it takes is slow, not wrong: its link is
    /// healed when the step's wait is over, and its decision read then.
    #[test]
    fn a_stalled_node_that_just_waits_is_healed_and_passes() {
        let mut fake = Fake::new(Behaviour {
            deadline: None,
            ..CORRECT
        });
        let timing = Timing {
            slow_link_wait: Duration::from_millis(300),
            ..TIMING
        };
        let (h, checked) = play(&slow_link(), &mut fake, &four_lines(), timing);
        assert_eq!(checked, Ok(()), "{h:?}");
        let a = whats(&h, "n1");
        // Stalled for each of its two lines, healed after each wait.
        assert_eq!(
            a.iter().filter(|w| **w == What::Stalled).count(),
            2,
            "{a:?}"
        );
        assert!(!a.contains(&What::Deferred), "{a:?}");
    }

    /// A node that admits when its store does not answer in time admits while no byte could
    /// reach the store.
    #[test]
    fn a_stalled_node_that_admits_on_timeout_is_caught() {
        let mut fake = Fake::new(Behaviour {
            admit_on_timeout: true,
            ..CORRECT
        });
        let (h, checked) = play(&slow_link(), &mut fake, &four_lines(), TIMING);
        let a = checked.unwrap_err();
        assert!(
            matches!(a, Anomaly::AdmittedWhileStalled { .. }),
            "{a} {h:?}"
        );
        assert_eq!(a.status(), Status::FalseAccept);
        assert!(
            a.to_string()
                .starts_with("event e1 of publisher p admitted by node n1 at ")
                && a.to_string()
                    .contains(" while its link to the shared store was stalled"),
            "{a}"
        );
    }

    /// `node-mix`: two sessions (or two publishers) with the same event ids, on nodes of their
    /// own. Nodes that key the whole (session, publisher, event) pass; nodes whose key lacks the
    /// session are caught on the first pair of the second session, with the hint.
    #[test]
    fn node_mix_catches_a_key_without_the_session() {
        let mut lines = Vec::new();
        for n in 0..4 {
            lines.push(line(n, "p", "a"));
            lines.push(line(n, "p", "b"));
        }
        let step = Step::NodeMix {
            nodes: ["a.json", "a.json", "b.json", "b.json"]
                .map(String::from)
                .to_vec(),
            warmup: vec![0, 0, 1, 1],
            rounds: (1..4)
                .map(|k| vec![2 * k, 2 * k, 2 * k + 1, 2 * k + 1])
                .collect(),
        };
        let (h, checked) = play(&step, &mut Fake::new(CORRECT), &lines, TIMING);
        assert_eq!(checked, Ok(()), "{h:?}");
        assert_eq!(
            h.iter().filter(|e| e.decision == What::Admitted).count(),
            8,
            "one admission per pair: {h:?}"
        );

        let keyless = Behaviour {
            key_with_nonce: false,
            ..CORRECT
        };
        let (h, checked) = play(&step, &mut Fake::new(keyless), &lines, TIMING);
        let a = checked.unwrap_err();
        assert_eq!(a.status(), Status::FalseReject, "{h:?}");
        let text = a.to_string();
        assert!(
            text.starts_with(
                "event e0 of publisher p in session b was rejected as duplicate_event_id by \
                 node n3 at "
            ),
            "{text}"
        );
        assert!(
            text.contains("AGENTCONF_CLUSTER token, the session or the publisher"),
            "{text}"
        );
    }

    /// A `node-mix` step whose warm-up or rounds do not give one line per node is not played.
    #[test]
    fn node_mix_needs_one_line_per_node() {
        let step = Step::NodeMix {
            nodes: ["a.json", "a.json"].map(String::from).to_vec(),
            warmup: vec![0],
            rounds: vec![vec![0, 0]],
        };
        let events: Vec<&[u8]> = vec![b"{}"];
        let mut cluster = Cluster::default();
        let err = play_step_timed(
            &step,
            3,
            &mut Fake::new(CORRECT),
            "a.json",
            &events,
            &mut cluster,
            TIMING,
        )
        .unwrap_err();
        assert_eq!(err.detail, "step 3: 1 warm-up lines for 2 nodes");
    }

    /// A receiver with a short backoff recovers within the settle's passes: the passes wait
    /// 25 ms doubling, about 6.4 s in all, and happen only while lines stay deferred.
    #[test]
    fn the_settle_waits_about_six_seconds_at_most() {
        let t = Timing::default();
        let total: Duration = (0..t.settle_passes)
            .map(|k| t.settle_first_wait * 2u32.pow(k))
            .sum();
        assert_eq!(t.settle_passes, 8);
        assert!(
            total >= Duration::from_secs(6) && total <= Duration::from_secs(7),
            "{total:?}"
        );
        // Longer than a receiver's own store deadline (the reference's is 3 s).
        assert!(t.slow_link_wait > Duration::from_secs(3));
    }
}
