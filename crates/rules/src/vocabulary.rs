//! The drafts' words every crate speaks: a document's verdict, a receipt tier, a GRP receiver's
//! decision. One type each, here at the bottom of the graph, so the references, the contract and
//! the harness cannot grow twins that drift apart.

use serde::{Deserialize, Serialize};

/// A document judged valid or invalid: the reference's verdict, and the one an implementation
/// reports in its result object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Valid,
    Invalid,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Invalid => "invalid",
        }
    }

    /// `Valid` when nothing was found wrong.
    pub fn of_clean(clean: bool) -> Verdict {
        if clean {
            Verdict::Valid
        } else {
            Verdict::Invalid
        }
    }
}

/// The receipt tier a receipt is checked under (revision 09 names the core and strict id tiers;
/// the kit's anchored tier and producer profile build on them).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The eight core members, `id` of the lowercase UUID shape (the nil UUID included, as at
    /// revision 09).
    #[default]
    Core,
    /// Core, and `id` a UUID version 4 with the RFC 4122 variant.
    Strict,
    /// Strict, and a well-formed `anchor` bound to the receipt's bytes.
    Anchored,
    /// Core, and the decoded payload an object carrying `inputs` (the producer profile). Not
    /// combined with the strict or anchored tier.
    Profile,
}

impl Tier {
    /// Every tier, in the order the contract lists them.
    pub const ALL: [Tier; 4] = [Tier::Core, Tier::Strict, Tier::Anchored, Tier::Profile];

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Core => "core",
            Tier::Strict => "strict",
            Tier::Anchored => "anchored",
            Tier::Profile => "profile",
        }
    }

    /// The tier with this name (`core`, `strict`, `anchored`, `profile`).
    pub fn parse(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// What the tier asks, in one line (the vector schema's words).
    pub fn describe(self) -> &'static str {
        match self {
            Tier::Core => "The eight core members, `id` of the lowercase UUID shape.",
            Tier::Strict => "Core, and `id` a UUID version 4 with the RFC 4122 variant.",
            Tier::Anchored => "Strict, and a well-formed `anchor` bound to the receipt's bytes.",
            Tier::Profile => {
                "Core, and the decoded payload an object carrying `inputs` (the producer profile)."
            }
        }
    }

    /// Whether the receipt's id must pass the strict (version 4) id tier.
    pub fn strict_id(self) -> bool {
        match self {
            Tier::Strict | Tier::Anchored => true,
            Tier::Core | Tier::Profile => false,
        }
    }

    /// The id tier this tier applies: `strict` for the strict and anchored tiers, else `core`.
    pub fn id_tier(self) -> &'static str {
        if self.strict_id() {
            "strict"
        } else {
            "core"
        }
    }
}

/// What a GRP receiver decided for one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Admitted,
    Rejected,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Admitted => "admitted",
            Outcome::Rejected => "rejected",
        }
    }
}

/// What a receiver says of one line: an [`Outcome`], or `deferred` ("cannot decide now": its
/// admission state could not be consulted, CONTRACT.md 5.2). A deferral is never an admission;
/// under the `cluster` profile the harness hands the line again once the fault is over, and
/// anywhere else it is a wrong decision. Vectors expect outcomes only, never a deferral.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecisionOutcome {
    Admitted,
    Rejected,
    Deferred,
}

impl DecisionOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionOutcome::Admitted => "admitted",
            DecisionOutcome::Rejected => "rejected",
            DecisionOutcome::Deferred => "deferred",
        }
    }

    /// The outcome it is, `None` for a deferral.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            DecisionOutcome::Admitted => Some(Outcome::Admitted),
            DecisionOutcome::Rejected => Some(Outcome::Rejected),
            DecisionOutcome::Deferred => None,
        }
    }
}

/// A decision compared with an expected outcome: a deferral equals neither.
impl PartialEq<Outcome> for DecisionOutcome {
    fn eq(&self, other: &Outcome) -> bool {
        self.outcome() == Some(*other)
    }
}
