//! A rule as a results line names it (`rules`, `expected_rules`, `broken_rules`).
//!
//! A results file is read back by `report`, `report diff` and `claim verify`, also when another
//! agentconf version wrote it: a rule that version's catalogue has and this one does not (one
//! added since, or retired) is no reason to refuse the file. Its reports list the rule as not in
//! this build's rule catalogue, so the id is kept as written. Everything this build runs names
//! catalogue rules only ([`RuleRef::Known`]).

use std::fmt;

use agentconf_rules::Rule;
use serde::{Deserialize, Serialize};

/// A catalogue rule, or an id this build's catalogue does not have.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuleRef {
    Known(Rule),
    Unknown(UnknownRule),
}

/// An id no rule of this build's catalogue has, as a results file wrote it. Made only by
/// [`RuleRef::parse`], so it is never the id of a known rule: two refs to one rule are equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnknownRule(String);

impl UnknownRule {
    pub fn id(&self) -> &str {
        &self.0
    }
}

impl RuleRef {
    /// The catalogue rule with this id, else the id kept as an unknown one.
    pub fn parse(id: &str) -> RuleRef {
        match Rule::from_id(id) {
            Some(rule) => RuleRef::Known(rule),
            None => RuleRef::Unknown(UnknownRule(id.to_string())),
        }
    }

    /// The id, as the results file writes it.
    pub fn id(&self) -> &str {
        match self {
            RuleRef::Known(rule) => rule.id(),
            RuleRef::Unknown(unknown) => unknown.id(),
        }
    }

    /// The catalogue rule, when this build knows it.
    pub fn known(&self) -> Option<Rule> {
        match self {
            RuleRef::Known(rule) => Some(*rule),
            RuleRef::Unknown(_) => None,
        }
    }
}

/// The ids of `rules`, joined with `separator`, for messages and reports.
pub(crate) fn joined(rules: &[RuleRef], separator: &str) -> String {
    let ids: Vec<&str> = rules.iter().map(RuleRef::id).collect();
    ids.join(separator)
}

impl From<Rule> for RuleRef {
    fn from(rule: Rule) -> RuleRef {
        RuleRef::Known(rule)
    }
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for RuleRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for RuleRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        Ok(RuleRef::parse(&id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_ids_are_rules_and_unknown_ones_are_kept_as_written() {
        let seq: RuleRef = serde_json::from_str(r#""AER1-TL-SEQ""#).unwrap();
        assert_eq!(seq, RuleRef::Known(Rule::Aer1TlSeq));
        assert_eq!(seq, RuleRef::parse("AER1-TL-SEQ"));
        assert_eq!(seq.known(), Some(Rule::Aer1TlSeq));
        let other: RuleRef = serde_json::from_str(r#""X-NOT-A-RULE<b>""#).unwrap();
        assert_eq!(other.known(), None);
        assert_eq!(other.id(), "X-NOT-A-RULE<b>");
        // Written back byte for byte, escapes included.
        for text in [r#""AER1-TL-SEQ""#, r#""X-NOT-A-RULE<b>""#, r#""a\"b""#] {
            let r: RuleRef = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&r).unwrap(), text);
        }
        // Not a string: refused with serde's words, never a panic.
        assert!(serde_json::from_str::<RuleRef>("7").is_err());
    }
}
