//! The history of a cluster scenario, and the one check over all of it.
//!
//! Every line handed to a node, every decision read from one, and every fault the harness made
//! (a kill, a pause, a cut link) is an [`Entry`], in the order the harness saw them, with the
//! time since the scenario began. [`check`] reads the whole history at the end, not step by step,
//! so an anomaly is found whichever step's timing exposed it, and it names the smallest witness:
//! the first pair admitted twice with both admissions, or the pair never decided.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::status::Status;

/// What happened at one point of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// SIGSTOP.
    Paused,
    /// SIGCONT.
    Resumed,
    /// Its link to the shared store was cut.
    Cut,
    /// Its link to the shared store works again.
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
            What::Healed => "healed",
        }
    }

    /// Whether it is a node's answer to a line.
    pub(crate) fn is_answer(self) -> bool {
        matches!(self, What::Admitted | What::Rejected | What::Deferred)
    }
}

/// One point of the history (the form of the results line's `history` items).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The node's name (`n1`, `n2`, …: its `AGENTCONF_NODE`).
    pub node: String,
    /// Microseconds since the scenario began (a monotonic clock).
    pub t_us: u64,
    /// The line of the `events` input (0-based) delivered or answered; null for a fault.
    pub line: Option<usize>,
    pub decision: What,
    /// A rejection's `rejection_reason`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
}

/// Where and when something happened, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct At {
    pub(crate) node: String,
    pub(crate) t_us: u64,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "node {} at {:.1} ms",
            self.node,
            self.t_us as f64 / 1000.0
        )
    }
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
    /// A rejection for another reason than a duplicate: every line of a cluster scenario is
    /// admissible once.
    Rejected {
        pair: String,
        at: At,
        reason: Option<String>,
    },
    /// Rejected as a duplicate while no copy of the pair was admitted, or could have been
    /// (every other copy delivered before was itself rejected).
    DuplicateOfNothing { pair: String, at: At },
    /// Delivered, and never admitted or rejected by any node (deferred to the end, or never
    /// answered).
    NotDecided { pair: String, last: At },
}

impl Anomaly {
    /// The status a scenario with this anomaly fails with: an extra admission is a false
    /// accept, a missing one a false reject.
    pub(crate) fn status(&self) -> Status {
        match self {
            Anomaly::AdmittedTwice { .. } | Anomaly::AdmittedWhileCut { .. } => Status::FalseAccept,
            Anomaly::Rejected { .. }
            | Anomaly::DuplicateOfNothing { .. }
            | Anomaly::NotDecided { .. } => Status::FalseReject,
        }
    }
}

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            Anomaly::Rejected { pair, at, reason } => write!(
                f,
                "{pair} rejected by {at} as {}; every line of the scenario is admissible once",
                serde_json::to_string(reason).unwrap_or_default()
            ),
            Anomaly::DuplicateOfNothing { pair, at } => write!(
                f,
                "{pair} rejected as duplicate_event_id by {at}, but no node admitted it"
            ),
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
}

/// Checks the whole `history`. `pairs[line]` names the pair line `line` carries (lines that
/// carry the same `(publisher_id, event_id)` have equal names, e.g. `event e7 of publisher p`);
/// a line without a name is its own pair.
pub fn check(history: &[Entry], pairs: &[String]) -> Result<(), Anomaly> {
    let name = |line: usize| {
        pairs
            .get(line)
            .cloned()
            .unwrap_or_else(|| format!("line {line}"))
    };
    // Pairs by name, numbered in order of first delivery.
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut deliveries: Vec<Delivery> = Vec::new();
    // Per node: its deliveries not yet answered, oldest first (a node answers in order).
    let mut pending: BTreeMap<&str, VecDeque<usize>> = BTreeMap::new();
    let mut cut: BTreeMap<&str, bool> = BTreeMap::new();
    let mut admitted: BTreeMap<usize, At> = BTreeMap::new();
    for e in history {
        let at = At {
            node: e.node.clone(),
            t_us: e.t_us,
        };
        match (e.decision, e.line) {
            (What::Delivered, Some(line)) => {
                let label = name(line);
                let next = keys.len();
                let pair = *keys.entry(label.clone()).or_insert(next);
                if pair == names.len() {
                    names.push(label);
                }
                pending
                    .entry(&e.node)
                    .or_default()
                    .push_back(deliveries.len());
                deliveries.push(Delivery {
                    pair,
                    to: at,
                    answer: None,
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
                if cut.get(e.node.as_str()).copied().unwrap_or(false) {
                    return Err(Anomaly::AdmittedWhileCut {
                        pair: names[d.pair].clone(),
                        at,
                    });
                }
                if let Some(first) = admitted.get(&d.pair) {
                    return Err(Anomaly::AdmittedTwice {
                        pair: names[d.pair].clone(),
                        first: first.clone(),
                        second: at,
                    });
                }
                admitted.insert(d.pair, at);
            }
            (What::Killed, _) => {
                pending.remove(e.node.as_str());
            }
            (What::Cut, _) => {
                cut.insert(&e.node, true);
            }
            (What::Healed, _) => {
                cut.insert(&e.node, false);
            }
            _ => {}
        }
    }
    check_rejections(&deliveries, &names)?;
    check_decided(&deliveries, &names)
}

/// Every rejection is a duplicate, and a duplicate of a copy that was (or may have been)
/// admitted: one delivered before the rejection was read, to another node or earlier, whose
/// answer was not a rejection (an admission, a deferral, or none: killed before answering).
fn check_rejections(deliveries: &[Delivery], names: &[String]) -> Result<(), Anomaly> {
    for (i, d) in deliveries.iter().enumerate() {
        let Some((What::Rejected, at, reason)) = &d.answer else {
            continue;
        };
        if reason.as_deref() != Some("duplicate_event_id") {
            return Err(Anomaly::Rejected {
                pair: names[d.pair].clone(),
                at: at.clone(),
                reason: reason.clone(),
            });
        }
        let justified = deliveries.iter().enumerate().any(|(j, other)| {
            j != i
                && other.pair == d.pair
                && other.to.t_us <= at.t_us
                && !matches!(other.answer, Some((What::Rejected, ..)))
        });
        if !justified {
            return Err(Anomaly::DuplicateOfNothing {
                pair: names[d.pair].clone(),
                at: at.clone(),
            });
        }
    }
    Ok(())
}

/// Every pair delivered was admitted or rejected by some node.
fn check_decided(deliveries: &[Delivery], names: &[String]) -> Result<(), Anomaly> {
    for (pair, name) in names.iter().enumerate() {
        let of_pair = || deliveries.iter().filter(|d| d.pair == pair);
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
                pair: name.clone(),
                last: last.to.clone(),
            });
        }
    }
    Ok(())
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

    fn pairs() -> Vec<String> {
        ["event e0", "event e1", "event e0"]
            .map(String::from)
            .to_vec()
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
            Err(Anomaly::DuplicateOfNothing { .. })
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
}
