//! Findings: what a verifier reports, each naming one rule, and where.
//!
//! Every error enum of this crate implements [`RuleError`] (the trait of `agentconf-rules`,
//! re-exported here), whose `rule` is one exhaustive `match`: adding a variant without deciding its
//! rule does not compile. [`JsonError`] belongs to `agentconf-json`, so its AER-1 rules are the
//! function [`json_rule`], which the error enums that wrap it call.

use std::fmt;

use agentconf_rules::Rule;
use serde::Serialize;

use crate::json::JsonError;

pub use agentconf_rules::RuleError;

/// One reported failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The catalogue id of the broken rule.
    pub rule: Rule,
    /// 0-based index of the timeline entry or workflow step, where there is one.
    pub entry: Option<u64>,
    /// The member concerned (a path such as `tool.name` for nested members).
    pub member: Option<String>,
    pub message: String,
}

impl Finding {
    pub fn from_error<E: RuleError + ?Sized>(error: &E, entry: Option<u64>) -> Finding {
        Finding {
            rule: error.rule(),
            entry,
            member: error.member(),
            message: error.to_string(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rule)?;
        match (&self.entry, &self.member) {
            (Some(e), Some(m)) => write!(f, " [entry {e}, {m}]")?,
            (Some(e), None) => write!(f, " [entry {e}]")?,
            (None, Some(m)) => write!(f, " [{m}]")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

/// Findings collected up to a cap, so a hostile input with a failure in every one of millions of
/// entries cannot grow memory without bound. Failures past the cap are counted, not kept.
#[derive(Clone, Debug)]
pub struct Findings {
    list: Vec<Finding>,
    omitted: u64,
    cap: usize,
}

impl Findings {
    pub fn new(cap: usize) -> Self {
        Findings {
            list: Vec::new(),
            omitted: 0,
            cap,
        }
    }

    pub fn push(&mut self, finding: Finding) {
        if self.list.len() < self.cap {
            self.list.push(finding);
        } else {
            self.omitted += 1;
        }
    }

    pub fn report<E: RuleError + ?Sized>(&mut self, error: &E, entry: Option<u64>) {
        if self.list.len() < self.cap {
            self.list.push(Finding::from_error(error, entry));
        } else {
            self.omitted += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.omitted == 0
    }

    pub fn total(&self) -> u64 {
        self.list.len() as u64 + self.omitted
    }

    pub fn list(&self) -> &[Finding] {
        &self.list
    }

    /// The kept findings in the order they were found (document order), and the number omitted.
    pub fn into_parts(self) -> (Vec<Finding>, u64) {
        (self.list, self.omitted)
    }
}

/// The AER-1 rule a strict-JSON reading error breaks. A function, not a [`RuleError`] impl: both
/// the trait and [`JsonError`] belong to other crates, and the GRP reference maps the same errors
/// onto its own rules. The member is [`JsonError::member`].
pub fn json_rule(error: &JsonError) -> Rule {
    match error {
        JsonError::Empty | JsonError::ByteOrderMark | JsonError::Syntax { .. } => {
            Rule::Aer1JsonSyntax
        }
        JsonError::NotUtf8 { .. } => Rule::Aer1JsonUtf8,
        JsonError::LoneSurrogate { .. } => Rule::Aer1JsonSurrogate,
        JsonError::TooDeep => Rule::Aer1JsonDepth,
        JsonError::NumberOutOfRange { .. } => Rule::Aer1JsonNumber,
        JsonError::DuplicateMember { .. } => Rule::Aer1JsonDuplicate,
        JsonError::TooLarge { .. }
        | JsonError::TooManyValues { .. }
        | JsonError::StringTooLong { .. } => Rule::Aer1JsonSize,
    }
}

/// Valid or invalid: the workspace's one verdict type.
pub use agentconf_rules::Verdict;

/// The verdict of a check that found `findings` (and `omitted` more beyond the cap).
pub fn verdict_of(findings: &[Finding], omitted: u64) -> Verdict {
    Verdict::of_clean(findings.is_empty() && omitted == 0)
}
