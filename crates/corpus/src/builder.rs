//! A small API for writing generators: one call chain per vector.
//!
//! ```ignore
//! family.vector("drop-2-of-8")
//!     .revisions(FROM_09)
//!     .describe("…why it must fail…")
//!     .timeline(&entries)
//!     .commitment(&commitment_json)
//!     .invalid(&[Rule::Aer1CmCount, Rule::Aer1CmFinal])
//!     .derived_from("aer1/timeline/valid/example-8", "dropped entries 7 and 8, re-closed 6, re-linked")
//!     .push();
//! ```
//!
//! Expectations are declared by the generator's author, never computed by running the reference:
//! the self-test then checks the reference against them.

use agentconf_aer1::producer::{timeline_json, Entry};
use agentconf_rules::draft_revisions::{AER1, GRP};
use agentconf_rules::{Level, Revisions, Rule};
use sha2::{Digest as _, Sha256};

use agentconf_contract::vector::{
    Derivation, Encoding, Expectation, Flag, Input, Options, RevisionExpectation, Suite, Tier,
    Vector,
};

/// The draft revisions an expectation holds in: from `since` to `until`, or to the newest revision
/// the revisions table (`spec-notes/revisions.toml`) knows when `until` is `None`. Generators say
/// where an expectation starts (and, if a revision dropped it, where it ends), never the whole
/// list, so a new revision in the table reaches every open-ended expectation with no code change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub draft: &'static str,
    pub since: &'static str,
    pub until: Option<&'static str>,
}

impl Span {
    /// The revisions of the span, oldest first.
    pub fn revisions(self) -> Vec<String> {
        // A span naming a revision the table does not know is a bug of a generator, found the
        // first time the corpus is built (every test builds it): not a reaction to any input.
        Revisions::embedded()
            .span(self.draft, self.since, self.until)
            .unwrap_or_else(|e| panic!("corpus generator: {e}"))
    }
}

const fn aer1(since: &'static str, until: Option<&'static str>) -> Span {
    Span {
        draft: AER1,
        since,
        until,
    }
}

const fn grp(since: &'static str, until: Option<&'static str>) -> Span {
    Span {
        draft: GRP,
        since,
        until,
    }
}

/// From revision 07 on: the chain construction revision 07 introduced, and its rules.
pub const FROM_07: Span = aer1("07", None);
/// From revision 09 on (the external commitment, the strict id tier, the anchored tier).
pub const FROM_09: Span = aer1("09", None);
/// Revision 06 alone (the historical construction).
pub const ONLY_06: Span = aer1("06", Some("06"));
/// Every AER-1 revision the suite knows.
pub const AER1_ALL: Span = aer1("06", None);
/// From GRP revision 01 on (the duplicate check).
pub const GRP_FROM_01: Span = grp("01", None);
/// GRP revision 00 alone (no duplicate check).
pub const GRP_ONLY_00: Span = grp("00", Some("00"));
/// Every GRP revision (expectations that do not depend on the duplicate check).
pub const GRP_ALL: Span = grp("00", None);

/// Collects the vectors of one family.
pub struct Family<'a> {
    suite: Suite,
    family: &'static str,
    out: &'a mut Vec<Vector>,
}

impl<'a> Family<'a> {
    pub fn new(out: &'a mut Vec<Vector>, suite: Suite, family: &'static str) -> Self {
        Family { suite, family, out }
    }

    /// Starts the vector `<suite prefix>/<family>/<name>`.
    pub fn vector(&mut self, name: &str) -> VectorBuilder<'_> {
        VectorBuilder {
            out: self.out,
            vector: Vector {
                id: format!("{}/{}/{name}", self.suite.id_prefix(), self.family),
                suite: self.suite,
                family: self.family.to_string(),
                revisions: Vec::new(),
                description: String::new(),
                rules: Vec::new(),
                level: Level::Should,
                expectation: Expectation::Valid,
                expected_rules: Vec::new(),
                also_reported: Vec::new(),
                any_of: Vec::new(),
                flags: Vec::new(),
                options: Options::default(),
                inputs: Vec::new(),
                other_revisions: Vec::new(),
                derivation: None,
                requires: Vec::new(),
                scenario: None,
                expected_decisions: Vec::new(),
                expected_final_digest: None,
            },
            expectation_set: false,
        }
    }

    /// The id a vector of this family with this name has (for derivations).
    pub fn id_of(&self, name: &str) -> String {
        format!("{}/{}/{name}", self.suite.id_prefix(), self.family)
    }
}

/// One vector under construction.
pub struct VectorBuilder<'a> {
    out: &'a mut Vec<Vector>,
    vector: Vector,
    expectation_set: bool,
}

impl VectorBuilder<'_> {
    pub fn revisions(mut self, span: Span) -> Self {
        self.vector.revisions = span.revisions();
        self
    }

    pub fn describe(mut self, text: &str) -> Self {
        self.vector.description = text.to_string();
        self
    }

    /// Rules the vector exercises beyond those of its expectation (for valid vectors: the rules
    /// it shows being satisfied).
    pub fn exercises(mut self, rules: &[Rule]) -> Self {
        for r in rules {
            self.add_rule(*r);
        }
        self
    }

    /// Emitters: the digest of the last entry of the timeline the steps give (an answer).
    pub fn final_digest(mut self, digest: &str) -> Self {
        self.vector.expected_final_digest = Some(digest.to_string());
        self
    }

    pub fn valid(mut self) -> Self {
        self.vector.expectation = Expectation::Valid;
        self.expectation_set = true;
        self
    }

    /// Must be rejected, citing every one of `rules` under strict grading.
    pub fn invalid(mut self, rules: &[Rule]) -> Self {
        self.vector.expectation = Expectation::Invalid;
        self.set_expected(rules);
        self
    }

    /// Either verdict conforms for the reasons in `flags`; a rejection cites `rules`.
    pub fn acceptable(mut self, rules: &[Rule], flags: &[Flag]) -> Self {
        self.vector.expectation = Expectation::Acceptable;
        self.set_expected(rules);
        let mut flags = flags.to_vec();
        flags.sort();
        self.vector.flags = flags;
        self
    }

    /// Under `revisions` (disjoint from the main ones) the vector must be accepted; `reason` says
    /// why the expectation differs there.
    pub fn valid_under(self, revisions: Span, reason: &str) -> Self {
        self.other(revisions, Expectation::Valid, &[], &[], reason)
    }

    /// Under `revisions` (disjoint from the main ones) the vector must be rejected citing `rules`.
    pub fn invalid_under(self, revisions: Span, rules: &[Rule], reason: &str) -> Self {
        self.other(revisions, Expectation::Invalid, rules, &[], reason)
    }

    /// As [`Self::invalid_under`], where a rejection may also cite `also` (reported by the
    /// reference, not required: a verifier that stops at an entry's first failure never sees them).
    pub fn invalid_under_also(
        mut self,
        revisions: Span,
        rules: &[Rule],
        also: &[Rule],
        reason: &str,
    ) -> Self {
        for r in also {
            self.add_rule(*r);
        }
        self = self.other(revisions, Expectation::Invalid, rules, &[], reason);
        if let Some(o) = self.vector.other_revisions.last_mut() {
            o.also_reported = also.to_vec();
        }
        self
    }

    fn other(
        mut self,
        revisions: Span,
        expectation: Expectation,
        rules: &[Rule],
        flags: &[Flag],
        reason: &str,
    ) -> Self {
        for r in rules {
            self.add_rule(*r);
        }
        self.vector.other_revisions.push(RevisionExpectation {
            revisions: revisions.revisions(),
            expectation,
            expected_rules: rules.to_vec(),
            also_reported: Vec::new(),
            any_of: Vec::new(),
            flags: flags.to_vec(),
            reason: reason.to_string(),
        });
        self
    }

    fn set_expected(&mut self, rules: &[Rule]) {
        self.vector.expected_rules = rules.to_vec();
        for r in rules {
            self.add_rule(*r);
        }
        self.expectation_set = true;
    }

    fn add_rule(&mut self, rule: Rule) {
        if !self.vector.rules.contains(&rule) {
            self.vector.rules.push(rule);
        }
    }

    /// GRP: the scenario steps and, for each deliver/concurrent step, its expected decision.
    /// The vector's expectation is derived: `valid` when every delivery is admitted, else
    /// `invalid` citing the rules of the expected rejections.
    pub fn scenario(
        mut self,
        steps: Vec<agentconf_contract::vector::Step>,
        expected: Vec<agentconf_contract::vector::ExpectedDecision>,
    ) -> Self {
        let mut rules: Vec<Rule> = Vec::new();
        for e in &expected {
            let mut rule = e.rule;
            // A concurrent step (or barrier round) that admits fewer copies than it sends rejects the rest as
            // duplicates, even though its expectation names no rule.
            let copies = match steps.get(e.step) {
                Some(
                    agentconf_contract::vector::Step::Concurrent { copies, .. }
                    | agentconf_contract::vector::Step::Barrier { copies, .. },
                ) => Some(*copies),
                _ => None,
            };
            if let (Some(admitted), Some(copies)) = (e.admitted_copies, copies) {
                if admitted < copies {
                    rule = Some(Rule::GrpDupEvent);
                }
            }
            if let Some(r) = rule {
                if !rules.contains(&r) {
                    rules.push(r);
                }
            }
        }
        self.vector.scenario = Some(agentconf_contract::vector::Scenario { steps });
        self.vector.expected_decisions = expected;
        if rules.is_empty() {
            self.vector.expectation = Expectation::Valid;
            self.expectation_set = true;
            self
        } else {
            self.invalid(&rules)
        }
    }

    /// GRP: a capability profile the scenario needs (`durable`, `atomic`).
    pub fn requires(mut self, profile: &str) -> Self {
        self.vector.requires.push(profile.to_string());
        self
    }

    /// Receipts: the tier the vector is checked under (absent: core).
    /// Commitment emitters: the `PUBLISHED_AT` argument.
    pub fn published_at(mut self, instant: &str) -> Self {
        self.vector.options.published_at = Some(instant.to_string());
        self
    }

    pub fn tier(mut self, tier: Tier) -> Self {
        self.vector.options.tier = Some(tier);
        self
    }

    pub fn derived_from(mut self, source: &str, mutation: &str) -> Self {
        self.vector.derivation = Some(Derivation {
            source: source.to_string(),
            mutation: mutation.to_string(),
        });
        self
    }

    /// Adds an input file from bytes: stored as text when they are UTF-8, else as base64.
    pub fn input(mut self, role: &str, file: &str, bytes: &[u8]) -> Self {
        let sha256 = agentconf_aer1::hex::lower(&Sha256::digest(bytes));
        let (encoding, content) = match std::str::from_utf8(bytes) {
            Ok(text) => (Encoding::Utf8, text.to_string()),
            Err(_) => (
                Encoding::Base64,
                agentconf_aer1::formats::encode_base64(bytes),
            ),
        };
        self.vector.inputs.push(Input {
            role: role.to_string(),
            file: file.to_string(),
            encoding,
            content,
            sha256,
        });
        self
    }

    /// The timeline input as raw text (for vectors that are not well-formed entry lists).
    pub fn timeline_text(self, text: &str) -> Self {
        self.timeline_bytes(text.as_bytes())
    }

    pub fn timeline_bytes(self, bytes: &[u8]) -> Self {
        self.input("timeline", "timeline.json", bytes)
    }

    /// The timeline input from producer entries, one entry per line.
    pub fn timeline(self, entries: &[Entry]) -> Self {
        self.timeline_text(&timeline_json(entries))
    }

    /// The timeline input from JSON values (mutated entries), one entry per line.
    pub fn timeline_values(self, entries: &[serde_json::Value]) -> Self {
        self.timeline_text(&values_json(entries))
    }

    pub fn commitment(self, text: &str) -> Self {
        self.input("commitment", "commitment.json", text.as_bytes())
    }

    /// GRP: a session context file (`session.json`, or another name for a second session).
    pub fn session_file(self, file: &str, text: &str) -> Self {
        self.input("session", file, text.as_bytes())
    }

    /// GRP: the event lines.
    pub fn events_text(self, text: &str) -> Self {
        self.input("events", "events.jsonl", text.as_bytes())
    }

    pub fn receipt_text(self, text: &str) -> Self {
        self.input("receipt", "receipt.json", text.as_bytes())
    }

    pub fn workflow_text(self, text: &str) -> Self {
        self.input("workflow", "workflow.json", text.as_bytes())
    }

    /// Finishes the vector. Generator mistakes (a missing description, no revision, no rule, no
    /// expectation, no input) stop generation: they are bugs in this crate, not input problems.
    pub fn push(mut self) {
        let v = &mut self.vector;
        assert!(!v.description.is_empty(), "{}: no description", v.id);
        assert!(!v.revisions.is_empty(), "{}: no revisions", v.id);
        assert!(!v.rules.is_empty(), "{}: exercises no rule", v.id);
        assert!(self.expectation_set, "{}: no expectation", v.id);
        assert!(!v.inputs.is_empty(), "{}: no input", v.id);
        // A timeline carries no revision marker, so the revision is an argument and can change
        // the expectation; other operations take no revision, and GRP scenarios grade one set of
        // expected decisions.
        assert!(
            v.other_revisions.is_empty() || v.suite == Suite::Aer1Timeline,
            "{}: other_revisions are for timelines only",
            v.id
        );
        let mut seen: Vec<&String> = v.revisions.iter().collect();
        for o in &v.other_revisions {
            for r in &o.revisions {
                assert!(
                    !seen.contains(&r),
                    "{}: revision {r} has two expectations",
                    v.id
                );
                seen.push(r);
            }
            assert!(
                !o.reason.is_empty(),
                "{}: other revisions without a reason",
                v.id
            );
        }
        let must = v.rules.iter().any(|r| r.record().level == Level::Must);
        v.level = if must { Level::Must } else { Level::Should };
        self.out.push(self.vector);
    }
}

/// JSON values as a timeline array, one entry per line (the producer's layout).
pub fn values_json(entries: &[serde_json::Value]) -> String {
    let mut out = String::from("[\n");
    for (i, e) in entries.iter().enumerate() {
        out.push_str(&e.to_string());
        out.push_str(if i + 1 == entries.len() { "\n" } else { ",\n" });
    }
    out.push_str("]\n");
    out
}

/// Producer entries as JSON values, for mutation.
pub fn to_values(entries: &[Entry]) -> Vec<serde_json::Value> {
    entries
        .iter()
        .map(|e| serde_json::to_value(e).unwrap_or_default())
        .collect()
}
