//! The history of a cluster scenario, and the one check over all of it.
//!
//! Every line handed to a node, every decision read from one, and every fault the harness made
//! (a kill, a pause, a cut or stalled link) is an [`Entry`], in the order the harness saw them,
//! with the time since the scenario began. [`check`] reads the whole history at the end, not step
//! by step, so an anomaly is found whichever step's timing exposed it, and it names the smallest
//! witness: the first pair admitted twice with both admissions, the pair rejected as a duplicate
//! of an admission that never was, or the pair never decided.
//!
//! The rule it holds the history to: each admissible pair gets **exactly one `admitted` answer**
//! across all nodes. A deferral is never an admission. The one exception to "at least one" is a
//! crash: a node killed before it answered a copy may have recorded that admission and never
//! reported it (CONTRACT.md 5.3, `crash` and `failover` before the decision), so a pair with such
//! a copy may end with duplicates alone.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::status::Status;

/// What happened at one point of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum What {
    /// The line was written to the node.
    Delivered,
    Admitted,
    Rejected,
    /// "Cannot decide now" (CONTRACT.md 5.2): never an admission.
    Deferred,
    /// Its process group was killed (SIGKILL): lines it had not answered stay unanswered.
    Killed,
    /// SIGSTOP. Its `reason` says where the pause landed: `mid-statement` (the node's bytes to
    /// the store were in flight, held by the harness's proxy, and reached the store while the
    /// node was stopped) or `after-read` (the node had read its line).
    Paused,
    /// SIGCONT.
    Resumed,
    /// Its link to the shared store was cut.
    Cut,
    /// Its link to the shared store was stalled: held open, no byte forwarded either way.
    Stalled,
    /// Its link to the shared store works again (after a cut or a stall: what a stall held is
    /// forwarded then, late).
    Healed,
}

impl What {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            What::Delivered => "delivered",
            What::Admitted => "admitted",
            What::Rejected => "rejected",
            What::Deferred => "deferred",
            What::Killed => "killed",
            What::Paused => "paused",
            What::Resumed => "resumed",
            What::Cut => "cut",
            What::Stalled => "stalled",
            What::Healed => "healed",
        }
    }

    /// Whether it is a node's answer to a line.
    pub(crate) fn is_answer(self) -> bool {
        matches!(self, What::Admitted | What::Rejected | What::Deferred)
    }
}

/// A `paused` entry's reason: the node's statement was in flight to the store when it stopped.
pub(crate) const PAUSED_MID_STATEMENT: &str = "mid-statement";
/// A `paused` entry's reason: the node had read its line (no bytes to the store seen in flight).
pub(crate) const PAUSED_AFTER_READ: &str = "after-read";

/// One point of the history (the form of the results line's `history` items).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The node's name (`n1`, `n2`, …: its `AGENTCONF_NODE`).
    pub node: String,
    /// Microseconds since the scenario began (a monotonic clock).
    pub t_us: u64,
    /// The line of the `events` input (0-based) delivered or answered; null for a fault.
    // Written as null for a fault, never left out: required, and null kept (a required `Option`
    // loses it in the derived schema).
    #[schemars(required, extend("type" = ["integer", "null"]))]
    pub line: Option<usize>,
    pub decision: What,
    /// A rejection's `rejection_reason`; a pause's `mid-statement` or `after-read`.
    // Absent rather than null when there is none: the schema says a string.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "String")]
    pub reason: Option<String>,
}

/// What identifies the pair a line carries: the session (the line's `session_nonce`), the
/// publisher and the event; or, for a line without both `publisher_id` and `event_id` as
/// strings, the line itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PairKey {
    Members {
        nonce: Option<String>,
        publisher: String,
        event: String,
    },
    Line(usize),
}

/// The pair a line carries, and its name in messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pair {
    pub(crate) key: PairKey,
    /// `event E of publisher P` (and ` in session NONCE` when the scenario's lines carry more
    /// than one nonce), or `line N`.
    pub(crate) name: String,
}

/// Where and when something happened, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct At {
    pub(crate) node: String,
    pub(crate) t_us: u64,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {} at {}", self.node, ms(self.t_us))
    }
}

fn ms(t_us: u64) -> String {
    format!("{:.1} ms", t_us as f64 / 1000.0)
}

/// What the pair later met, for a duplicate answered too early: an admission (by whom, when,
/// after which fault), or a copy lost to a kill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Later {
    Admitted { at: At, after: Option<String> },
    LostToKill { to: At },
}

/// The smallest witness that the history breaks "exactly one admission per (session,
/// publisher, event) across all nodes, and every pair delivered to a live, connected node
/// eventually decided".
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Anomaly {
    /// Two admissions of one pair (the first such pair, by the time of its second admission).
    AdmittedTwice { pair: String, first: At, second: At },
    /// An admission by a node whose link to the shared store was cut.
    AdmittedWhileCut { pair: String, at: At },
    /// An admission by a node whose link to the shared store was stalled: no byte could reach
    /// the store, so the admission was decided without it.
    AdmittedWhileStalled { pair: String, at: At },
    /// A rejection for another reason than a duplicate: every line of a cluster scenario is
    /// admissible once.
    Rejected {
        pair: String,
        at: At,
        reason: Option<String>,
    },
    /// Rejected as a duplicate, and no node ever answered `admitted` for the pair (nor was a
    /// copy lost to a kill): the pair got no admission at all.
    NeverAdmitted {
        pair: String,
        at: At,
        /// It is the scenario's first pair of its session and publisher, and no copy of it was
        /// delivered before the rejection: a duplicate of something outside the scenario.
        first: bool,
        /// A copy delivered before the rejection was answered `deferred` (there): an admission
        /// whose outcome its node did not know, and never resolved.
        deferred: Option<At>,
    },
    /// Rejected as a duplicate before any copy that could have been admitted (every other copy
    /// delivered before was itself rejected), though the pair met an admission later.
    DuplicateOfNothing {
        pair: String,
        at: At,
        later: Later,
        first: bool,
    },
    /// Delivered, and never admitted or rejected by any node (deferred to the end, or never
    /// answered).
    NotDecided { pair: String, last: At },
}

impl Anomaly {
    /// The status a scenario with this anomaly fails with: an extra admission is a false
    /// accept, a missing one a false reject.
    pub(crate) fn status(&self) -> Status {
        match self {
            Anomaly::AdmittedTwice { .. }
            | Anomaly::AdmittedWhileCut { .. }
            | Anomaly::AdmittedWhileStalled { .. } => Status::FalseAccept,
            Anomaly::Rejected { .. }
            | Anomaly::NeverAdmitted { .. }
            | Anomaly::DuplicateOfNothing { .. }
            | Anomaly::NotDecided { .. } => Status::FalseReject,
        }
    }
}

/// Said of a duplicate on the scenario's first pair of a session and publisher.
const FIRST_PAIR_HINT: &str = "; it is the scenario's first pair of its session and publisher: \
     a store keyed without the scenario's AGENTCONF_CLUSTER token, the session or the publisher \
     sees pairs that were not admitted in this scenario's session";

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = |first: bool| if first { FIRST_PAIR_HINT } else { "" };
        match self {
            Anomaly::AdmittedTwice {
                pair,
                first,
                second,
            } => write!(f, "{pair} admitted by {first} and by {second}"),
            Anomaly::AdmittedWhileCut { pair, at } => write!(
                f,
                "{pair} admitted by {at} while its link to the shared store was cut"
            ),
            Anomaly::AdmittedWhileStalled { pair, at } => write!(
                f,
                "{pair} admitted by {at} while its link to the shared store was stalled (no \
                 byte could reach the store: the admission was decided without it)"
            ),
            Anomaly::Rejected { pair, at, reason } => write!(
                f,
                "{pair} rejected by {at} as {}; every line of the scenario is admissible once",
                serde_json::to_string(reason).unwrap_or_default()
            ),
            Anomaly::NeverAdmitted {
                pair,
                at,
                first,
                deferred,
            } => {
                write!(
                    f,
                    "{pair} was rejected as duplicate_event_id by {at} but no node ever answered \
                     admitted (a deferral is not an admission){}",
                    hint(*first)
                )?;
                match deferred {
                    Some(d) => write!(
                        f,
                        "; {d} answered a copy deferred: if its admission went through, it must \
                         still be answered admitted, once, when the line comes again"
                    ),
                    None => Ok(()),
                }
            }
            Anomaly::DuplicateOfNothing {
                pair,
                at,
                later,
                first,
            } => {
                write!(
                    f,
                    "{pair} rejected as duplicate_event_id by {at}, before any copy that could \
                     have been admitted; "
                )?;
                match later {
                    Later::Admitted { at, after } => {
                        write!(f, "node {} admitted it at {}", at.node, ms(at.t_us))?;
                        if let Some(after) = after {
                            write!(f, ", {after}")?;
                        }
                    }
                    Later::LostToKill { to } => write!(
                        f,
                        "only a copy delivered later, to {to}, may have been (the node was \
                         killed before answering it)"
                    )?,
                }
                f.write_str(hint(*first))
            }
            Anomaly::NotDecided { pair, last } => write!(
                f,
                "{pair} never decided: delivered last to {last}, and no node admitted or \
                 rejected it"
            ),
        }
    }
}

/// One delivery and the answer it got, if any.
struct Delivery {
    pair: usize,
    to: At,
    answer: Option<(What, At, Option<String>)>,
    /// Its node was killed before answering it.
    lost: bool,
}

/// A fault of the history, for what a late admission came after.
struct Fault {
    what: What,
    at: At,
}

/// Checks the whole `history`. `pairs[line]` is the pair line `line` carries (lines with the
/// same key are the same pair); a line without an entry is its own pair.
pub(crate) fn check(history: &[Entry], pairs: &[Pair]) -> Result<(), Anomaly> {
    let pair_of = |line: usize| {
        pairs.get(line).cloned().unwrap_or_else(|| Pair {
            key: PairKey::Line(line),
            name: format!("line {line}"),
        })
    };
    // Pairs by key, numbered in order of first delivery.
    let mut keys: BTreeMap<PairKey, usize> = BTreeMap::new();
    let mut seen: Vec<Pair> = Vec::new();
    let mut deliveries: Vec<Delivery> = Vec::new();
    // Per node: its deliveries not yet answered, oldest first (a node answers in order).
    let mut pending: BTreeMap<&str, VecDeque<usize>> = BTreeMap::new();
    // Per node: its link's fault (cut or stalled), while there is one.
    let mut link: BTreeMap<&str, What> = BTreeMap::new();
    let mut admitted: BTreeMap<usize, At> = BTreeMap::new();
    let mut faults: Vec<Fault> = Vec::new();
    for e in history {
        let at = At {
            node: e.node.clone(),
            t_us: e.t_us,
        };
        match (e.decision, e.line) {
            (What::Delivered, Some(line)) => {
                let p = pair_of(line);
                let next = keys.len();
                let pair = *keys.entry(p.key.clone()).or_insert(next);
                if pair == seen.len() {
                    seen.push(p);
                }
                pending
                    .entry(&e.node)
                    .or_default()
                    .push_back(deliveries.len());
                deliveries.push(Delivery {
                    pair,
                    to: at,
                    answer: None,
                    lost: false,
                });
            }
            (answer, Some(_)) if answer.is_answer() => {
                let Some(index) = pending
                    .get_mut(e.node.as_str())
                    .and_then(VecDeque::pop_front)
                else {
                    continue;
                };
                let d = &mut deliveries[index];
                d.answer = Some((answer, at.clone(), e.reason.clone()));
                if answer != What::Admitted {
                    continue;
                }
                let pair = seen[d.pair].name.clone();
                match link.get(e.node.as_str()) {
                    Some(What::Cut) => return Err(Anomaly::AdmittedWhileCut { pair, at }),
                    Some(What::Stalled) => return Err(Anomaly::AdmittedWhileStalled { pair, at }),
                    _ => {}
                }
                if let Some(first) = admitted.get(&d.pair) {
                    return Err(Anomaly::AdmittedTwice {
                        pair,
                        first: first.clone(),
                        second: at,
                    });
                }
                admitted.insert(d.pair, at);
            }
            (What::Killed, _) => {
                for index in pending.remove(e.node.as_str()).unwrap_or_default() {
                    deliveries[index].lost = true;
                }
                faults.push(Fault {
                    what: e.decision,
                    at,
                });
            }
            (What::Cut | What::Stalled, _) => {
                link.insert(&e.node, e.decision);
                faults.push(Fault {
                    what: e.decision,
                    at,
                });
            }
            (What::Healed, _) => {
                link.remove(e.node.as_str());
                faults.push(Fault {
                    what: e.decision,
                    at,
                });
            }
            (What::Resumed, _) => faults.push(Fault {
                what: e.decision,
                at,
            }),
            _ => {}
        }
    }
    let judged = Judged {
        deliveries: &deliveries,
        pairs: &seen,
        admitted: &admitted,
        faults: &faults,
    };
    judged.rejections()?;
    judged.decided()
}

/// The deliveries of a history, with what the check needs to judge them.
struct Judged<'a> {
    deliveries: &'a [Delivery],
    /// The pairs, in order of first delivery.
    pairs: &'a [Pair],
    /// Each pair's admission (there is at most one once the scan passed).
    admitted: &'a BTreeMap<usize, At>,
    faults: &'a [Fault],
}

impl Judged<'_> {
    /// Every rejection is a duplicate, and a duplicate of a pair that got an admission (or had a
    /// copy lost to a kill: it may have been recorded and never reported), with a copy that was
    /// (or may have been) admitted before it: one delivered before the rejection was read, to
    /// another node or earlier, whose answer was not a rejection (an admission, a deferral, or
    /// none: killed before answering). Judged in the order the rejections were read.
    fn rejections(&self) -> Result<(), Anomaly> {
        let mut rejected: Vec<(usize, &At, &Option<String>)> = self
            .deliveries
            .iter()
            .enumerate()
            .filter_map(|(i, d)| match &d.answer {
                Some((What::Rejected, at, reason)) => Some((i, at, reason)),
                _ => None,
            })
            .collect();
        rejected.sort_by_key(|(i, at, _)| (at.t_us, *i));
        for (i, at, reason) in rejected {
            let d = &self.deliveries[i];
            let pair = self.pairs[d.pair].name.clone();
            if reason.as_deref() != Some("duplicate_event_id") {
                return Err(Anomaly::Rejected {
                    pair,
                    at: at.clone(),
                    reason: reason.clone(),
                });
            }
            let of_pair = || {
                self.deliveries
                    .iter()
                    .enumerate()
                    .filter(move |(j, other)| *j != i && other.pair == d.pair)
            };
            let lost = of_pair().find(|(_, other)| other.lost).map(|(_, o)| o);
            let admission = self.admitted.get(&d.pair);
            let first = self.first_of_its_kind(d.pair)
                && !of_pair().any(|(_, other)| other.to.t_us <= at.t_us);
            if admission.is_none() && lost.is_none() {
                let deferred = of_pair()
                    .filter(|(_, other)| other.to.t_us <= at.t_us)
                    .find_map(|(_, other)| match &other.answer {
                        Some((What::Deferred, by, _)) => Some(by.clone()),
                        _ => None,
                    });
                return Err(Anomaly::NeverAdmitted {
                    pair,
                    at: at.clone(),
                    first,
                    deferred,
                });
            }
            let before = of_pair().any(|(_, other)| {
                other.to.t_us <= at.t_us && !matches!(other.answer, Some((What::Rejected, ..)))
            });
            if before {
                continue;
            }
            let later = match (admission, lost) {
                (Some(admitted), _) => Later::Admitted {
                    at: admitted.clone(),
                    after: self.after(at.t_us, admitted.t_us),
                },
                (None, Some(lost)) => Later::LostToKill {
                    to: lost.to.clone(),
                },
                (None, None) => unreachable!("a pair without either is never admitted"),
            };
            return Err(Anomaly::DuplicateOfNothing {
                pair,
                at: at.clone(),
                later,
                first,
            });
        }
        Ok(())
    }

    /// Every pair delivered was admitted or rejected by some node.
    fn decided(&self) -> Result<(), Anomaly> {
        for (pair, p) in self.pairs.iter().enumerate() {
            let of_pair = || self.deliveries.iter().filter(|d| d.pair == pair);
            let decided = of_pair().any(|d| {
                matches!(
                    d.answer,
                    Some((What::Admitted, ..)) | Some((What::Rejected, ..))
                )
            });
            if decided {
                continue;
            }
            if let Some(last) = of_pair().next_back() {
                return Err(Anomaly::NotDecided {
                    pair: p.name.clone(),
                    last: last.to.clone(),
                });
            }
        }
        Ok(())
    }

    /// Whether pair `pair` is the first pair delivered of its session and publisher: where a
    /// store keyed too coarsely (without the scenario's token, the session or the publisher)
    /// shows first.
    fn first_of_its_kind(&self, pair: usize) -> bool {
        let PairKey::Members {
            nonce, publisher, ..
        } = &self.pairs[pair].key
        else {
            return false;
        };
        !self.pairs[..pair].iter().any(|p| {
            matches!(&p.key, PairKey::Members { nonce: n, publisher: q, .. }
                if n == nonce && q == publisher)
        })
    }

    /// What an admission at `until` came after, since a duplicate at `since`: the last fault in
    /// between (`after the heal`, `after node n1 was resumed`, `after node n1 was killed`).
    fn after(&self, since: u64, until: u64) -> Option<String> {
        let fault = self
            .faults
            .iter()
            .rev()
            .find(|f| f.at.t_us >= since && f.at.t_us <= until)?;
        match fault.what {
            What::Healed => Some("after the heal".to_string()),
            What::Resumed => Some(format!("after node {} was resumed", fault.at.node)),
            What::Killed => Some(format!("after node {} was killed", fault.at.node)),
            What::Cut => Some(format!("after node {}'s link was cut", fault.at.node)),
            What::Stalled => Some(format!("after node {}'s link was stalled", fault.at.node)),
            _ => None,
        }
    }
}

/// The number of distinct session nonces among `keys` (pairs without members aside).
pub(crate) fn nonces(keys: &[PairKey]) -> usize {
    keys.iter()
        .filter_map(|k| match k {
            PairKey::Members { nonce, .. } => Some(nonce),
            PairKey::Line(_) => None,
        })
        .collect::<BTreeSet<_>>()
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(node, t_us, line, what)`, with a rejection's reason `duplicate_event_id`.
    fn history(points: &[(&str, u64, Option<usize>, What)]) -> Vec<Entry> {
        points
            .iter()
            .map(|&(node, t_us, line, decision)| Entry {
                node: node.into(),
                t_us,
                line,
                decision,
                reason: (decision == What::Rejected).then(|| "duplicate_event_id".into()),
            })
            .collect()
    }

    fn pair(event: &str, publisher: &str, nonce: &str, name: &str) -> Pair {
        Pair {
            key: PairKey::Members {
                nonce: Some(nonce.into()),
                publisher: publisher.into(),
                event: event.into(),
            },
            name: name.into(),
        }
    }

    /// Lines 0 and 2 carry the same pair (e0 of publisher p); line 1 another (e1 of p).
    fn pairs() -> Vec<Pair> {
        vec![
            pair("e0", "p", "n", "event e0"),
            pair("e1", "p", "n", "event e1"),
            pair("e0", "p", "n", "event e0"),
        ]
    }

    use What::*;

    #[test]
    fn one_admission_per_pair_and_every_pair_decided_passes() {
        let h = history(&[
            ("n1", 10, Some(0), Delivered),
            ("n2", 11, Some(0), Delivered),
            ("n1", 20, Some(0), Rejected),
            ("n2", 21, Some(0), Admitted),
            ("n1", 30, Some(1), Delivered),
            ("n1", 40, Some(1), Admitted),
            // Line 2 is the same pair as line 0.
            ("n2", 50, Some(2), Delivered),
            ("n2", 60, Some(2), Rejected),
        ]);
        assert_eq!(check(&h, &pairs()), Ok(()));
    }

    #[test]
    fn the_first_pair_admitted_twice_is_named_with_both_admissions() {
        let h = history(&[
            ("n1", 1000, Some(1), Delivered),
            ("n2", 1100, Some(1), Delivered),
            ("n1", 12100, Some(1), Admitted),
            ("n2", 12400, Some(1), Admitted),
            ("n1", 13000, Some(0), Delivered),
            ("n2", 13100, Some(2), Delivered),
            ("n1", 14000, Some(0), Admitted),
            ("n2", 14100, Some(2), Admitted),
        ]);
        let a = check(&h, &pairs()).unwrap_err();
        assert_eq!(
            a.to_string(),
            "event e1 admitted by node n1 at 12.1 ms and by node n2 at 12.4 ms"
        );
        assert_eq!(a.status(), Status::FalseAccept);
    }

    /// A deferral is never counted as an admission: deferred then admitted elsewhere is one
    /// admission, and deferred everywhere is a pair never decided.
    #[test]
    fn a_deferral_is_not_an_admission_and_does_not_decide() {
        let once = history(&[
            ("n1", 1, Some(0), Delivered),
            ("n1", 2, Some(0), Deferred),
            ("n2", 3, Some(0), Delivered),
            ("n2", 4, Some(0), Admitted),
            ("n1", 5, Some(0), Delivered),
            ("n1", 6, Some(0), Rejected),
        ]);
        assert_eq!(check(&once, &pairs()), Ok(()));
        let never = history(&[
            ("n1", 1, Some(1), Delivered),
            ("n1", 2000, Some(1), Deferred),
            ("n2", 3000, Some(1), Delivered),
            ("n2", 4500, Some(1), Deferred),
        ]);
        let a = check(&never, &pairs()).unwrap_err();
        assert_eq!(
            a,
            Anomaly::NotDecided {
                pair: "event e1".into(),
                last: At {
                    node: "n2".into(),
                    t_us: 3000
                }
            }
        );
        assert_eq!(a.status(), Status::FalseReject);
    }

    /// A node that commits, answers deferred and then, handed the line again, rejects its own
    /// admission as a duplicate: every answer is a deferral or a duplicate, and the pair never
    /// got its one admission.
    #[test]
    fn a_pair_deferred_then_only_rejected_was_never_admitted() {
        let h = history(&[
            ("n1", 1000, Some(1), Delivered),
            ("n1", 2000, Some(1), Deferred),
            ("n2", 3000, Some(1), Delivered),
            ("n2", 4000, Some(1), Rejected),
            ("n1", 5000, Some(1), Delivered),
            ("n1", 6000, Some(1), Rejected),
        ]);
        let a = check(&h, &pairs()).unwrap_err();
        assert_eq!(a.status(), Status::FalseReject);
        assert_eq!(
            a.to_string(),
            "event e1 was rejected as duplicate_event_id by node n2 at 4.0 ms but no node ever \
             answered admitted (a deferral is not an admission); node n1 at 2.0 ms answered a \
             copy deferred: if its admission went through, it must still be answered admitted, \
             once, when the line comes again"
        );
        // Not the first pair of its session and publisher (e0 came first): no hint.
        let h2 = {
            let mut h = history(&[
                ("n1", 10, Some(0), Delivered),
                ("n1", 20, Some(0), Admitted),
            ]);
            h.extend(history(&[
                ("n1", 1000, Some(1), Delivered),
                ("n1", 2000, Some(1), Deferred),
                ("n2", 3000, Some(1), Delivered),
                ("n2", 4000, Some(1), Rejected),
            ]));
            h
        };
        assert!(check(&h2, &pairs()).unwrap_err().to_string().starts_with(
            "event e1 was rejected as duplicate_event_id by node n2 at 4.0 ms but no node \
                 ever answered admitted (a deferral is not an admission); node n1"
        ));
        // The first pair of its session and publisher, no copy of it delivered before: the
        // hint about the store's key.
        let h3 = history(&[
            ("n2", 3000, Some(1), Delivered),
            ("n2", 4000, Some(1), Rejected),
        ]);
        assert_eq!(
            check(&h3, &pairs()).unwrap_err().to_string(),
            "event e1 was rejected as duplicate_event_id by node n2 at 4.0 ms but no node ever \
             answered admitted (a deferral is not an admission); it is the scenario's first \
             pair of its session and publisher: a store keyed without the scenario's \
             AGENTCONF_CLUSTER token, the session or the publisher sees pairs that were not \
             admitted in this scenario's session"
        );
    }

    #[test]
    fn an_admission_while_cut_from_the_store_is_an_anomaly() {
        let h = history(&[
            ("n1", 1, None, Cut),
            ("n1", 2, Some(0), Delivered),
            ("n1", 3, Some(0), Admitted),
        ]);
        assert!(matches!(
            check(&h, &pairs()),
            Err(Anomaly::AdmittedWhileCut { .. })
        ));
        let healed = history(&[
            ("n1", 1, None, Cut),
            ("n1", 2, Some(0), Delivered),
            ("n1", 3, Some(0), Deferred),
            ("n1", 4, None, Healed),
            ("n1", 5, Some(0), Delivered),
            ("n1", 6, Some(0), Admitted),
        ]);
        assert_eq!(check(&healed, &pairs()), Ok(()));
    }

    /// While its link is stalled no byte reaches the store: an admission then was decided
    /// without it. The same answer read after the heal is the slow node's, not a wrong one.
    #[test]
    fn an_admission_while_stalled_is_an_anomaly_and_after_the_heal_is_not() {
        let h = history(&[
            ("n1", 1000, None, Stalled),
            ("n1", 2000, Some(0), Delivered),
            ("n1", 3100, Some(0), Admitted),
        ]);
        let a = check(&h, &pairs()).unwrap_err();
        assert_eq!(
            a.to_string(),
            "event e0 admitted by node n1 at 3.1 ms while its link to the shared store was \
             stalled (no byte could reach the store: the admission was decided without it)"
        );
        assert_eq!(a.status(), Status::FalseAccept);
        let slow = history(&[
            ("n1", 1000, None, Stalled),
            ("n1", 2000, Some(0), Delivered),
            ("n1", 7000, None, Healed),
            ("n1", 7100, Some(0), Admitted),
        ]);
        assert_eq!(check(&slow, &pairs()), Ok(()));
    }

    /// After a kill before the answer, the survivor's duplicate is justified by the unanswered
    /// copy (its admission may have been recorded); a duplicate of nothing is not.
    #[test]
    fn a_duplicate_needs_a_copy_that_may_have_been_admitted() {
        let after_kill = history(&[
            ("n1", 1, Some(0), Delivered),
            ("n1", 2, None, Killed),
            ("n2", 3, Some(0), Delivered),
            ("n2", 4, Some(0), Rejected),
        ]);
        assert_eq!(check(&after_kill, &pairs()), Ok(()));
        let of_nothing = history(&[("n1", 1, Some(1), Delivered), ("n1", 2, Some(1), Rejected)]);
        assert!(matches!(
            check(&of_nothing, &pairs()),
            Err(Anomaly::NeverAdmitted { .. })
        ));
        let mut other_reason =
            history(&[("n1", 1, Some(1), Delivered), ("n1", 2, Some(1), Rejected)]);
        other_reason[1].reason = Some("malformed_event".into());
        assert_eq!(
            check(&other_reason, &pairs()).unwrap_err().to_string(),
            "event e1 rejected by node n1 at 0.0 ms as \"malformed_event\"; every line of the \
             scenario is admissible once"
        );
    }

    /// A duplicate answered before any copy could have been admitted is named with the
    /// admission that came later, and the fault it came after.
    #[test]
    fn a_duplicate_before_any_admissible_copy_names_the_later_admission() {
        let h = history(&[
            ("n2", 500, Some(0), Delivered),
            ("n2", 600, Some(0), Admitted),
            ("n1", 1000, None, Cut),
            ("n1", 2000, Some(1), Delivered),
            ("n1", 3100, Some(1), Rejected),
            ("n1", 30000, None, Healed),
            ("n1", 40000, Some(1), Delivered),
            ("n1", 40200, Some(1), Admitted),
        ]);
        let a = check(&h, &pairs()).unwrap_err();
        assert_eq!(
            a.to_string(),
            "event e1 rejected as duplicate_event_id by node n1 at 3.1 ms, before any copy that \
             could have been admitted; node n1 admitted it at 40.2 ms, after the heal"
        );
        assert_eq!(a.status(), Status::FalseReject);
    }

    /// In a race every line is written before any answer is read: a duplicate read before the
    /// winner's admission is still justified by the winner's copy.
    #[test]
    fn racing_copies_answered_in_any_order() {
        let h = history(&[
            ("n1", 1, Some(0), Delivered),
            ("n2", 2, Some(0), Delivered),
            ("n3", 3, Some(0), Delivered),
            ("n1", 4, Some(0), Rejected),
            ("n2", 5, Some(0), Rejected),
            ("n3", 6, Some(0), Admitted),
        ]);
        assert_eq!(check(&h, &pairs()), Ok(()));
    }

    /// The same event id and publisher in two sessions are two pairs: a receiver whose key
    /// lacks the session admits one and rejects the other as a duplicate of nothing.
    #[test]
    fn the_same_event_in_two_sessions_is_two_pairs() {
        let two = vec![
            pair(
                "e0",
                "p",
                "nonce-a",
                "event e0 of publisher p in session nonce-a",
            ),
            pair(
                "e0",
                "p",
                "nonce-b",
                "event e0 of publisher p in session nonce-b",
            ),
        ];
        let both = history(&[
            ("n1", 1000, Some(0), Delivered),
            ("n3", 1100, Some(1), Delivered),
            ("n1", 2000, Some(0), Admitted),
            ("n3", 2100, Some(1), Admitted),
        ]);
        assert_eq!(check(&both, &two), Ok(()));
        let keyless = history(&[
            ("n1", 1000, Some(0), Delivered),
            ("n1", 2000, Some(0), Admitted),
            ("n3", 3000, Some(1), Delivered),
            ("n3", 4000, Some(1), Rejected),
        ]);
        let a = check(&keyless, &two).unwrap_err();
        assert!(
            a.to_string().starts_with(
                "event e0 of publisher p in session nonce-b was rejected as duplicate_event_id \
                 by node n3 at 4.0 ms but no node ever answered admitted"
            ),
            "{a}"
        );
        assert!(a.to_string().contains("AGENTCONF_CLUSTER token"), "{a}");
    }

    #[test]
    fn the_nonces_of_the_keys_are_counted() {
        let keys: Vec<PairKey> = pairs().into_iter().map(|p| p.key).collect();
        assert_eq!(nonces(&keys), 1);
        let mut more = keys.clone();
        more.push(PairKey::Line(3));
        more.push(PairKey::Members {
            nonce: None,
            publisher: "p".into(),
            event: "e".into(),
        });
        assert_eq!(nonces(&more), 2);
    }
}
