//! The draft facts (`spec-notes/facts.toml`): what each draft revision's text, or the draft
//! author's kit, states. Rules cite them; tests hold every rule's claimed basis to them.

use serde::{Deserialize, Serialize};

use crate::{Basis, Catalogue, Revisions, RuleRecord};

/// Where a fact comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactSource {
    /// The draft's own text in the fact's revisions.
    Text,
    /// The behaviour of the draft author's reference kit (at AER-1 revision 09).
    Kit,
}

impl FactSource {
    pub fn as_str(self) -> &'static str {
        match self {
            FactSource::Text => "text",
            FactSource::Kit => "kit",
        }
    }
}

/// One requirement one or more draft revisions state.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub id: String,
    pub draft: String,
    /// The first revision that states it.
    pub since: String,
    /// The last revision that states it, when a later one no longer does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Every revision that states it, resolved from `since`/`until` against the revisions table.
    #[serde(skip_deserializing, default)]
    pub revisions: Vec<String>,
    pub source: FactSource,
    pub section: String,
    /// Where the project's fact sheet records it.
    pub sheet: String,
    /// The requirement, paraphrased.
    pub states: String,
    /// Why no rule grades it, when none does.
    #[serde(default)]
    pub not_graded: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FactsFile {
    fact: Vec<Fact>,
}

/// The parsed facts file.
#[derive(Clone, Debug)]
pub struct Facts {
    facts: Vec<Fact>,
}

impl Facts {
    /// Parses facts text, resolving each fact's `since`/`until` against `revisions`.
    pub fn parse(text: &str, revisions: &Revisions) -> Result<Facts, String> {
        let mut file: FactsFile = toml::from_str(text).map_err(|e| e.to_string())?;
        for f in &mut file.fact {
            f.revisions = revisions
                .span(&f.draft, &f.since, f.until.as_deref())
                .map_err(|e| format!("fact {}: {e}", f.id))?;
        }
        Ok(Facts { facts: file.fact })
    }

    /// The facts embedded in this build.
    pub fn embedded() -> &'static Facts {
        static FACTS: std::sync::OnceLock<Facts> = std::sync::OnceLock::new();
        FACTS.get_or_init(|| {
            // Checked by this crate's tests; failing here is a build defect, not an input problem.
            Facts::parse(crate::FACTS_TOML, Revisions::embedded())
                .expect("embedded spec-notes/facts.toml parses")
        })
    }

    pub fn all(&self) -> &[Fact] {
        &self.facts
    }

    pub fn get(&self, id: &str) -> Option<&Fact> {
        self.facts.iter().find(|f| f.id == id)
    }
}

/// Why a rule's basis is not supported by the facts it cites; empty when it is.
///
/// - `text`: for every revision the rule lists, a cited `text` fact of that revision;
/// - `text-09` / `text-01`: the same, with facts that the named revision added (their revisions
///   start there), and the rule lists no revision before it;
/// - `kit`: for every revision the rule lists, a cited `kit` fact of that revision;
/// - `interp`: nothing to check (the family notes give the reasoning).
///
/// Every cited fact must exist and belong to the rule's draft.
pub fn basis_problems(rule: &RuleRecord, facts: &Facts) -> Vec<String> {
    let mut problems = Vec::new();
    let mut cited = Vec::new();
    for id in &rule.facts {
        match facts.get(id) {
            None => problems.push(format!("{} cites an unknown fact {id}", rule.id)),
            Some(f) if f.draft != rule.draft => problems.push(format!(
                "{} cites {id}, a fact of another draft ({})",
                rule.id, f.draft
            )),
            Some(f) => cited.push(f),
        }
    }
    let (source, added_in) = match rule.basis {
        Basis::Interp => return problems,
        Basis::Text => (FactSource::Text, None),
        Basis::Text09 => (FactSource::Text, Some("09")),
        Basis::Text01 => (FactSource::Text, Some("01")),
        Basis::Kit => (FactSource::Kit, None),
    };
    for revision in &rule.revisions {
        if let Some(added) = added_in {
            if revision.as_str() < added {
                problems.push(format!(
                    "{} has basis {} but lists revision {revision}, before {added}",
                    rule.id,
                    rule.basis.as_str()
                ));
                continue;
            }
        }
        let supported = cited.iter().any(|f| {
            f.source == source
                && f.revisions.contains(revision)
                && added_in
                    .is_none_or(|added| f.revisions.first().map(String::as_str) == Some(added))
        });
        if !supported {
            problems.push(format!(
                "{} claims basis {} for revision {revision}, but cites no {} fact of that revision{}",
                rule.id,
                rule.basis.as_str(),
                source.as_str(),
                match added_in {
                    Some(added) => format!(" that revision {added} added"),
                    None => String::new(),
                }
            ));
        }
    }
    problems
}

/// Facts no rule cites and that do not say why.
pub fn uncited_facts<'f>(catalogue: &Catalogue, facts: &'f Facts) -> Vec<&'f Fact> {
    facts
        .all()
        .iter()
        .filter(|f| f.not_graded.is_none())
        .filter(|f| !catalogue.records().iter().any(|r| r.facts.contains(&f.id)))
        .collect()
}
