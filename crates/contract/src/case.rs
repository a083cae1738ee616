//! The cases of a vector: one run per revision group with its own expectation.

use agentconf_rules::{Revisions, Rule};

use crate::vector::{Expectation, Flag, RuleAlternative, Suite, Vector};

/// One run of a vector: a revision to run it under and the expectation that holds there. A vector
/// has one case per group of revisions sharing an expectation — and, for timelines, per digest
/// construction the group spans (the revisions table names each revision's construction), since
/// a timeline is checked under the revision it is given and carries no marker of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case<'v> {
    pub vector: &'v Vector,
    /// The vector id for its first case, `<id>@<revision>` for the others.
    pub id: String,
    /// The revision the case runs under (the contract's `REVISION` argument for timelines).
    pub revision: &'v str,
    /// The revisions whose expectation this case grades.
    pub revisions: &'v [String],
    pub expectation: Expectation,
    pub expected_rules: &'v [Rule],
    /// Rules a rejection may also cite, not required (see [`crate::vector::RevisionExpectation`]).
    pub also_reported: &'v [Rule],
    /// Other readings a strict rejection may cite instead ([`RuleAlternative`]).
    pub any_of: &'v [RuleAlternative],
    pub flags: &'v [Flag],
}

/// The separator between a vector id and the revision in the id of a vector's further cases.
pub const CASE_REVISION_SEPARATOR: char = '@';

/// The revisions a case of `suite` runs under for a group of revisions, read from the revisions
/// table (`spec-notes/revisions.toml`). Timelines: one case per digest construction the group
/// spans (a timeline carries no revision marker, so each construction is its own run), under the
/// group's newest revision of that construction, the newest construction first. Other AER-1
/// suites (emitters too: they write the current construction) take no revision argument: one
/// case, run as the group's newest revision. GRP: each listed one.
fn run_revisions(suite: Suite, group: &[String]) -> Vec<&str> {
    let table = Revisions::embedded();
    let draft = suite.draft();
    // Newest first; a revision the table does not know sorts last (the schema refuses those).
    let mut newest_first: Vec<&str> = group.iter().map(String::as_str).collect();
    newest_first.sort_by_key(|r| std::cmp::Reverse(table.sort_key(draft, r)));
    match suite {
        Suite::Aer1Timeline => {
            let mut out: Vec<&str> = Vec::new();
            let mut seen: Vec<Option<&str>> = Vec::new();
            for r in newest_first {
                let construction = table.construction(draft, r);
                if !seen.contains(&construction) {
                    seen.push(construction);
                    out.push(r);
                }
            }
            out
        }
        Suite::Aer1Receipt
        | Suite::Aer1Workflow
        | Suite::Aer1EmitTimeline
        | Suite::Aer1EmitCommitment
        | Suite::Aer1EmitReceipt => newest_first.into_iter().take(1).collect(),
        // Every listed revision, the newest (the suite's target) first: a receiver that behaves
        // differently under one revision is caught there, and one that supports only one
        // revision answers the other's cases as unsupported (a partial run, never a pass).
        Suite::GrpAdmission => newest_first,
    }
}

impl Vector {
    /// Every run of this vector, the main expectation first.
    pub fn cases(&self) -> Vec<Case<'_>> {
        let main = (
            &self.revisions[..],
            self.expectation,
            &self.expected_rules[..],
            &self.also_reported[..],
            &self.any_of[..],
            &self.flags[..],
        );
        let others = self.other_revisions.iter().map(|o| {
            (
                &o.revisions[..],
                o.expectation,
                &o.expected_rules[..],
                &o.also_reported[..],
                &o.any_of[..],
                &o.flags[..],
            )
        });
        let mut out = Vec::new();
        for (revisions, expectation, expected_rules, also_reported, any_of, flags) in
            std::iter::once(main).chain(others)
        {
            for revision in run_revisions(self.suite, revisions) {
                let id = if out.is_empty() {
                    self.id.clone()
                } else {
                    format!("{}{CASE_REVISION_SEPARATOR}{revision}", self.id)
                };
                out.push(Case {
                    vector: self,
                    id,
                    revision,
                    revisions,
                    expectation,
                    expected_rules,
                    also_reported,
                    any_of,
                    flags,
                });
            }
        }
        out
    }

    /// The vector's first case: its main expectation, under its main run revision.
    pub fn main_case(&self) -> Case<'_> {
        let mut cases = self.cases();
        // Every vector has at least one revision (the builder and the schema require it).
        assert!(
            !cases.is_empty(),
            "{}: a vector without a revision",
            self.id
        );
        cases.swap_remove(0)
    }
}
