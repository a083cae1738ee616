//! [`RuleError`]: the one way an error of either reference names the catalogue rule it breaks.

use std::fmt;

use crate::Rule;

/// An error that breaks exactly one catalogue rule.
///
/// Implementations map every variant of their error enum with one exhaustive `match`, so adding a
/// variant without deciding its rule does not compile. The AER-1 reference (`agentconf-aer1`, which
/// re-exports this trait as `agentconf_aer1::RuleError`) and the GRP reference (`agentconf-grp`)
/// implement the same trait.
pub trait RuleError: fmt::Display {
    /// The rule this error breaks.
    fn rule(&self) -> Rule;
    /// The member the error is about, where there is one.
    fn member(&self) -> Option<String> {
        None
    }
}
