//! The cluster steps: `node-race`, `failover`, `pause`, `partition` (CONTRACT.md 5.3).
//!
//! Each step starts its nodes (`n1` is node A, `n2` node B), plays, hands every deferred line
//! again once the fault is over ([`Play::settle`]), and stops the nodes that are still alive.
//! Nothing is judged here beyond each decision's form: the history is judged as a whole at the
//! end of the scenario.

use std::time::{Duration, Instant};

use agentconf_contract::decision::{DecisionLine, DecisionOutcome};
use agentconf_contract::vector::{CrashPoint, Step};

use super::history::What;
use super::Cluster;
use crate::grade::{grade_ale, grade_identity, Failure};
use crate::scenario::{ReceiverLink, Receivers};
use crate::status::Status;

/// How long a `pause` step waits for node B's decision while node A is stopped: B may be
/// waiting on something A holds (a lock in the shared store), and only A's resumption frees it.
const PAUSE_WAIT: Duration = Duration::from_secs(2);

/// How many times deferred lines are handed again, and the wait before the first time (it
/// doubles each time): a node that just got its link back may need a moment to reconnect.
const SETTLE_PASSES: u32 = 6;
const SETTLE_FIRST_WAIT: Duration = Duration::from_millis(25);

/// One node: its name and, while it runs, its receiver.
struct Node<L> {
    name: String,
    link: Option<L>,
    /// Its link to the shared store is cut.
    cut: bool,
}

/// Plays cluster step `step` (number `index`); `events` are the scenario's lines.
pub(crate) fn play_step<R: Receivers>(
    step: &Step,
    index: usize,
    receivers: &mut R,
    session: &str,
    events: &[&[u8]],
    cluster: &mut Cluster,
) -> Result<(), Failure> {
    let mut play = Play {
        receivers,
        session,
        events,
        index,
        cluster,
        deferred: Vec::new(),
    };
    match step {
        Step::NodeRace {
            nodes,
            warmup,
            rounds,
        } => play.node_race(*nodes, *warmup, rounds),
        Step::Failover { event, at } => play.failover(*event, *at),
        Step::Pause { event } => play.pause(*event),
        Step::Partition { to_cut, to_other } => play.partition(to_cut, to_other),
        _ => Err((Status::Crash, format!("step {index} is not a cluster step"))),
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
}

impl<R: Receivers> Play<'_, R> {
    fn start(&mut self, count: usize) -> Result<Vec<Node<R::Receiver>>, Failure> {
        (1..=count)
            .map(|n| {
                let name = format!("n{n}");
                let link = self.receivers.start_node(self.session, &name)?;
                Ok(Node {
                    name,
                    link: Some(link),
                    cut: false,
                })
            })
            .collect()
    }

    fn bytes(&self, line: usize) -> Result<&[u8], Failure> {
        self.events
            .get(line)
            .copied()
            .ok_or_else(|| (Status::Crash, format!("no event {line}")))
    }

    fn send(&mut self, node: &mut Node<R::Receiver>, line: usize) -> Result<(), Failure> {
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
    ) -> Result<Option<DecisionLine>, Failure> {
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
    ) -> Result<(), Failure> {
        self.read_by(nodes, n, line, None).map(|_| ())
    }

    /// Hands `line` to node `n` and reads its decision.
    fn answer(
        &mut self,
        nodes: &mut [Node<R::Receiver>],
        n: usize,
        line: usize,
    ) -> Result<(), Failure> {
        self.send(&mut nodes[n], line)?;
        self.read(nodes, n, line)
    }

    /// Hands every deferred line again, to the node that deferred it or, when that one is dead
    /// or cut off, to another live, connected node; waits a little longer before each pass. A
    /// line still deferred after the last pass stays so in the history (never decided).
    fn settle(&mut self, nodes: &mut [Node<R::Receiver>]) -> Result<(), Failure> {
        let mut wait = SETTLE_FIRST_WAIT;
        for _ in 0..SETTLE_PASSES {
            if self.deferred.is_empty() {
                return Ok(());
            }
            std::thread::sleep(wait);
            wait *= 2;
            for (n, line) in std::mem::take(&mut self.deferred) {
                let usable = |node: &Node<R::Receiver>| node.link.is_some() && !node.cut;
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
    fn end(&mut self, mut nodes: Vec<Node<R::Receiver>>) -> Result<(), Failure> {
        self.settle(&mut nodes)?;
        for node in nodes {
            if let Some(link) = node.link {
                link.stop()?;
            }
        }
        Ok(())
    }

    fn node_race(&mut self, count: usize, warmup: usize, rounds: &[usize]) -> Result<(), Failure> {
        let mut nodes = self.start(count)?;
        // One node after another: when the warm-up is over every node runs and has answered.
        for n in 0..nodes.len() {
            self.answer(&mut nodes, n, warmup)?;
        }
        for &line in rounds {
            for node in nodes.iter_mut() {
                self.send(node, line)?;
            }
            for n in 0..nodes.len() {
                self.read(&mut nodes, n, line)?;
            }
        }
        self.end(nodes)
    }

    fn failover(&mut self, line: usize, at: CrashPoint) -> Result<(), Failure> {
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

    fn pause(&mut self, line: usize) -> Result<(), Failure> {
        let mut nodes = self.start(2)?;
        self.send(&mut nodes[0], line)?;
        running(&mut nodes[0])?.pause()?;
        self.cluster
            .record(&nodes[0].name, None, What::Paused, None);
        self.send(&mut nodes[1], line)?;
        let b = self.read_by(&mut nodes, 1, line, Some(Instant::now() + PAUSE_WAIT))?;
        running(&mut nodes[0])?.resume()?;
        self.cluster
            .record(&nodes[0].name, None, What::Resumed, None);
        self.read(&mut nodes, 0, line)?;
        if b.is_none() {
            self.read(&mut nodes, 1, line)?;
        }
        self.end(nodes)
    }

    fn partition(&mut self, to_cut: &[usize], to_other: &[usize]) -> Result<(), Failure> {
        let mut nodes = self.start(2)?;
        let a = nodes[0].name.clone();
        if self.receivers.store_link(&a).is_none() {
            self.cluster.not_run.push((
                self.index,
                "a partition step needs the address of the implementation's shared store \
                 (CONTRACT.md 12.5), and none was given"
                    .to_string(),
            ));
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

    /// Cuts or heals `node`'s link to the store.
    fn link(&mut self, node: &mut Node<R::Receiver>, what: What) {
        if let Some(link) = self.receivers.store_link(&node.name) {
            if what == What::Cut {
                link.cut();
            } else {
                link.heal();
            }
        }
        node.cut = what == What::Cut;
        self.cluster.record(&node.name, None, what, None);
    }
}

fn running<L>(node: &mut Node<L>) -> Result<&mut L, Failure> {
    let name = &node.name;
    node.link
        .as_mut()
        .ok_or_else(|| (Status::Crash, format!("node {name} is not running")))
}
