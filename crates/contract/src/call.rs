//! The one-shot operations and their arguments, in the contract's order (CONTRACT.md section 2):
//!
//! ```text
//! IMPL aer1-receipt  RECEIPT [TIER]
//! IMPL aer1-timeline REVISION TIMELINE [COMMITMENT]
//! IMPL aer1-workflow WORKFLOW
//! IMPL grp-admit     REVISION SESSION STATE_DIR      (event lines on stdin, decisions on stdout)
//! IMPL aer1-emit-timeline STEPS                       (the timeline on stdout)
//! IMPL aer1-emit-commitment TIMELINE PUBLISHED_AT      (the commitment artifact on stdout)
//! IMPL aer1-emit-receipt PAYLOAD META                 (the receipt on stdout)
//! ```
//!
//! The harness builds a [`Call`] from a case and turns it into arguments ([`Call::args`]); an
//! implementation reads its arguments back with [`Call::parse`]. Both sides use this one
//! definition, so the order cannot drift between them.

use crate::case::Case;
use crate::vector::{Suite, Tier};

/// An operation name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    Aer1Receipt,
    Aer1Timeline,
    Aer1Workflow,
    GrpAdmit,
    /// A producer's operation: write the timeline of the steps in a `STEPS` file
    /// ([`crate::emit::TimelineSteps`]).
    Aer1EmitTimeline,
    /// A producer's operation: write the external commitment artifact of a timeline.
    Aer1EmitCommitment,
    /// A producer's operation: write the receipt of a payload, its other members from a `META`
    /// file ([`crate::emit::ReceiptMeta`]).
    Aer1EmitReceipt,
}

impl Operation {
    pub const ALL: [Operation; 7] = [
        Operation::Aer1Receipt,
        Operation::Aer1Timeline,
        Operation::Aer1Workflow,
        Operation::GrpAdmit,
        Operation::Aer1EmitTimeline,
        Operation::Aer1EmitCommitment,
        Operation::Aer1EmitReceipt,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Aer1Receipt => "aer1-receipt",
            Operation::Aer1Timeline => "aer1-timeline",
            Operation::Aer1Workflow => "aer1-workflow",
            Operation::GrpAdmit => "grp-admit",
            Operation::Aer1EmitTimeline => "aer1-emit-timeline",
            Operation::Aer1EmitCommitment => "aer1-emit-commitment",
            Operation::Aer1EmitReceipt => "aer1-emit-receipt",
        }
    }

    pub fn parse(name: &str) -> Option<Operation> {
        Operation::ALL.into_iter().find(|o| o.as_str() == name)
    }

    /// What an implementation says when this operation comes with the wrong arguments (a usage
    /// error, exit 2).
    pub fn usage_error(self) -> String {
        format!(
            "wrong arguments for {}: see crates/contract/CONTRACT.md",
            self.as_str()
        )
    }
}

/// One call: an operation and its arguments (paths as given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    Receipt {
        receipt: String,
        /// Absent: `core`. Kept as written, so an implementation can answer 89 for a tier it
        /// does not know instead of checking under another.
        tier: Option<String>,
    },
    Timeline {
        revision: String,
        timeline: String,
        commitment: Option<String>,
    },
    Workflow {
        workflow: String,
    },
    GrpAdmit {
        revision: String,
        session: String,
        state_dir: String,
    },
    EmitTimeline {
        steps: String,
    },
    EmitCommitment {
        timeline: String,
        /// The RFC 3339 instant the artifact records, passed through as given.
        published_at: String,
    },
    EmitReceipt {
        /// The payload file: the exact bytes the receipt must carry.
        payload: String,
        meta: String,
    },
}

/// What a list of arguments is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Call(Call),
    /// An operation this contract does not define (or one not implemented): exit 89.
    UnknownOperation(String),
    /// A known operation with the wrong number of arguments: a usage error (exit 2).
    WrongArguments(Operation),
}

impl Call {
    pub fn operation(&self) -> Operation {
        match self {
            Call::Receipt { .. } => Operation::Aer1Receipt,
            Call::Timeline { .. } => Operation::Aer1Timeline,
            Call::Workflow { .. } => Operation::Aer1Workflow,
            Call::GrpAdmit { .. } => Operation::GrpAdmit,
            Call::EmitTimeline { .. } => Operation::Aer1EmitTimeline,
            Call::EmitCommitment { .. } => Operation::Aer1EmitCommitment,
            Call::EmitReceipt { .. } => Operation::Aer1EmitReceipt,
        }
    }

    /// A receipt call under a tier (`None`: the argument is left out, meaning `core`).
    pub fn receipt(receipt: String, tier: Option<Tier>) -> Call {
        Call::Receipt {
            receipt,
            tier: tier.map(|t| t.as_str().to_string()),
        }
    }

    /// The one-shot call of an AER-1 case, each input named by `name_of(role)` (a path in a
    /// fresh directory, or the vector's own file name). `None` for a GRP scenario, or when the
    /// vector lacks an input its operation needs.
    pub fn for_case(c: &Case<'_>, name_of: impl Fn(&str) -> Option<String>) -> Option<Call> {
        let v = c.vector;
        Some(match v.suite {
            Suite::Aer1Receipt => Call::receipt(name_of("receipt")?, v.options.tier),
            // A timeline carries no marker of its construction: the case says which.
            Suite::Aer1Timeline => Call::Timeline {
                revision: c.revision.to_string(),
                timeline: name_of("timeline")?,
                commitment: name_of("commitment"),
            },
            Suite::Aer1Workflow => Call::Workflow {
                workflow: name_of("workflow")?,
            },
            Suite::Aer1EmitTimeline => Call::EmitTimeline {
                steps: name_of("steps")?,
            },
            Suite::Aer1EmitCommitment => Call::EmitCommitment {
                timeline: name_of("timeline")?,
                published_at: v.options.published_at.clone()?,
            },
            Suite::Aer1EmitReceipt => Call::EmitReceipt {
                payload: name_of("payload")?,
                meta: name_of("meta")?,
            },
            Suite::GrpAdmission => return None,
        })
    }

    /// The arguments after the operation, in the contract's order.
    pub fn args(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Call::Receipt { receipt, tier } => {
                out.push(receipt.clone());
                out.extend(tier.clone());
            }
            Call::Timeline {
                revision,
                timeline,
                commitment,
            } => {
                out.push(revision.clone());
                out.push(timeline.clone());
                out.extend(commitment.clone());
            }
            Call::Workflow { workflow } => out.push(workflow.clone()),
            Call::GrpAdmit {
                revision,
                session,
                state_dir,
            } => out.extend([revision.clone(), session.clone(), state_dir.clone()]),
            Call::EmitTimeline { steps } => out.push(steps.clone()),
            Call::EmitCommitment {
                timeline,
                published_at,
            } => out.extend([timeline.clone(), published_at.clone()]),
            Call::EmitReceipt { payload, meta } => out.extend([payload.clone(), meta.clone()]),
        }
        out
    }

    /// The operation followed by its arguments.
    pub fn argv(&self) -> Vec<String> {
        let mut out = vec![self.operation().as_str().to_string()];
        out.extend(self.args());
        out
    }

    /// Reads an operation and its arguments.
    pub fn parse<S: AsRef<str>>(operation: &str, args: &[S]) -> Parsed {
        let Some(op) = Operation::parse(operation) else {
            return Parsed::UnknownOperation(operation.to_string());
        };
        let a: Vec<String> = args.iter().map(|s| s.as_ref().to_string()).collect();
        let call = match (op, a.as_slice()) {
            (Operation::Aer1Receipt, [receipt]) => Call::Receipt {
                receipt: receipt.clone(),
                tier: None,
            },
            (Operation::Aer1Receipt, [receipt, tier]) => Call::Receipt {
                receipt: receipt.clone(),
                tier: Some(tier.clone()),
            },
            (Operation::Aer1Timeline, [revision, timeline]) => Call::Timeline {
                revision: revision.clone(),
                timeline: timeline.clone(),
                commitment: None,
            },
            (Operation::Aer1Timeline, [revision, timeline, commitment]) => Call::Timeline {
                revision: revision.clone(),
                timeline: timeline.clone(),
                commitment: Some(commitment.clone()),
            },
            (Operation::Aer1Workflow, [workflow]) => Call::Workflow {
                workflow: workflow.clone(),
            },
            (Operation::GrpAdmit, [revision, session, state_dir]) => Call::GrpAdmit {
                revision: revision.clone(),
                session: session.clone(),
                state_dir: state_dir.clone(),
            },
            (Operation::Aer1EmitTimeline, [steps]) => Call::EmitTimeline {
                steps: steps.clone(),
            },
            (Operation::Aer1EmitCommitment, [timeline, published_at]) => Call::EmitCommitment {
                timeline: timeline.clone(),
                published_at: published_at.clone(),
            },
            (Operation::Aer1EmitReceipt, [payload, meta]) => Call::EmitReceipt {
                payload: payload.clone(),
                meta: meta.clone(),
            },
            _ => return Parsed::WrongArguments(op),
        };
        Parsed::Call(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_read_back_as_they_were_built() {
        let calls = [
            Call::receipt("r.json".into(), None),
            Call::receipt("r.json".into(), Some(Tier::Anchored)),
            Call::Timeline {
                revision: "09".into(),
                timeline: "t.json".into(),
                commitment: Some("c.json".into()),
            },
            Call::Timeline {
                revision: "06".into(),
                timeline: "t.json".into(),
                commitment: None,
            },
            Call::Workflow {
                workflow: "w.json".into(),
            },
            Call::GrpAdmit {
                revision: "01".into(),
                session: "s.json".into(),
                state_dir: "state".into(),
            },
            Call::EmitTimeline {
                steps: "steps.json".into(),
            },
            Call::EmitCommitment {
                timeline: "t.json".into(),
                published_at: "2026-10-01T18:30:00Z".into(),
            },
            Call::EmitReceipt {
                payload: "payload.bin".into(),
                meta: "meta.json".into(),
            },
        ];
        for call in calls {
            let argv = call.argv();
            assert_eq!(Call::parse(&argv[0], &argv[1..]), Parsed::Call(call));
        }
        assert_eq!(
            Call::receipt("r".into(), Some(Tier::Strict)).argv(),
            ["aer1-receipt", "r", "strict"]
        );
    }

    #[test]
    fn unknown_operations_and_wrong_arity() {
        assert_eq!(
            Call::parse::<&str>("aer2-thing", &[]),
            Parsed::UnknownOperation("aer2-thing".into())
        );
        assert_eq!(
            Call::parse::<&str>("aer1-workflow", &[]),
            Parsed::WrongArguments(Operation::Aer1Workflow)
        );
        assert_eq!(
            Call::parse("grp-admit", &["01", "s"]),
            Parsed::WrongArguments(Operation::GrpAdmit)
        );
    }
}
