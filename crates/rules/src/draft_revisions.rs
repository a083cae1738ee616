//! The draft revisions the suite knows (`spec-notes/revisions.toml`): the one place a revision is
//! named. Rules, facts and vector expectations hold *from* a revision (`since`) and, when they
//! stopped holding, *until* one; [`Revisions::span`] turns that into the list of revisions, so a
//! new revision is a row in this table, not an edit wherever "09" was written.

use serde::{Deserialize, Serialize};

/// The draft revisions the suite knows (`spec-notes/revisions.toml`), embedded like the catalogue
/// from its copy under `crates/rules/catalogue/`.
pub const REVISIONS_TOML: &str = include_str!("../catalogue/revisions.toml");

/// The AER-1 draft's name, as the catalogue and the table spell it.
pub const AER1: &str = "draft-zambo-aer1";
/// The GRP draft's name.
pub const GRP: &str = "draft-sato-soos-grp";

/// Whether a revision's facts were checked against its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactsStatus {
    /// The facts of this revision were read against its text.
    Read,
    /// Carried over from the previous revision, not yet checked: generated documents say so.
    Carried,
}

impl FactsStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FactsStatus::Read => "read",
            FactsStatus::Carried => "carried",
        }
    }
}

/// One revision of one draft.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevisionRecord {
    pub draft: String,
    pub revision: String,
    /// How the reference checks documents of this revision (see the table's header).
    pub construction: String,
    pub facts: FactsStatus,
    pub summary: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevisionsFile {
    revision: Vec<RevisionRecord>,
}

/// The parsed table, oldest revision of each draft first.
#[derive(Clone, Debug)]
pub struct Revisions {
    records: Vec<RevisionRecord>,
}

impl Revisions {
    /// Parses the table. Each draft's revisions must be two-digit numbers in increasing order
    /// (order is what `since` and `until` mean), and every field must be filled in.
    pub fn parse(text: &str) -> Result<Revisions, String> {
        let file: RevisionsFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let records = file.revision;
        for (i, r) in records.iter().enumerate() {
            if r.draft != AER1 && r.draft != GRP {
                return Err(format!(
                    "revision record {i}: unknown draft {:?} (expected {AER1} or {GRP})",
                    r.draft
                ));
            }
            if r.revision.len() != 2 || !r.revision.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "{} revision {:?}: a revision is two digits, as in the draft's file name",
                    r.draft, r.revision
                ));
            }
            if r.construction.is_empty() || r.summary.is_empty() {
                return Err(format!(
                    "{} revision {}: construction and summary must not be empty",
                    r.draft, r.revision
                ));
            }
            // A vector's `revisions` and `vectors list --revision` name a revision by its number
            // alone, so a number must say which draft it belongs to.
            if let Some(other) = records[..i]
                .iter()
                .find(|e| e.draft != r.draft && e.revision == r.revision)
            {
                return Err(format!(
                    "revision {} is listed for both {} and {}: the corpus names a revision by its \
                     number alone, so the drafts' numbers must not overlap (see \
                     spec-notes/new-revision.md)",
                    r.revision, other.draft, r.draft
                ));
            }
            if let Some(earlier) = records[..i]
                .iter()
                .rfind(|e| e.draft == r.draft)
                .filter(|e| e.revision >= r.revision)
            {
                return Err(format!(
                    "{} revision {} comes after revision {}: list each draft's revisions oldest first, once each",
                    r.draft, r.revision, earlier.revision
                ));
            }
        }
        for draft in [AER1, GRP] {
            if !records.iter().any(|r| r.draft == draft) {
                return Err(format!("no revision of {draft}"));
            }
        }
        Ok(Revisions { records })
    }

    /// The table embedded in this build.
    pub fn embedded() -> &'static Revisions {
        static REVISIONS: std::sync::OnceLock<Revisions> = std::sync::OnceLock::new();
        REVISIONS.get_or_init(|| {
            // Checked by this crate's tests; failing here is a build defect, not an input problem.
            Revisions::parse(REVISIONS_TOML).expect("embedded spec-notes/revisions.toml parses")
        })
    }

    pub fn records(&self) -> &[RevisionRecord] {
        &self.records
    }

    /// The drafts, in table order.
    pub fn drafts(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.records {
            if !out.contains(&r.draft.as_str()) {
                out.push(&r.draft);
            }
        }
        out
    }

    /// Every revision number of either draft, sorted ([`Revisions::parse`] refuses a number both
    /// drafts use, so a bare number names one revision).
    pub fn all_numbers(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.records.iter().map(|r| r.revision.as_str()).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The records of one draft, oldest first.
    pub fn of(&self, draft: &str) -> Vec<&RevisionRecord> {
        self.records.iter().filter(|r| r.draft == draft).collect()
    }

    /// The revision numbers of one draft, oldest first.
    pub fn numbers(&self, draft: &str) -> Vec<&str> {
        self.of(draft)
            .into_iter()
            .map(|r| r.revision.as_str())
            .collect()
    }

    pub fn get(&self, draft: &str, revision: &str) -> Option<&RevisionRecord> {
        self.of(draft).into_iter().find(|r| r.revision == revision)
    }

    /// The newest revision of a draft: the suite's target.
    pub fn newest(&self, draft: &str) -> &str {
        // `parse` refuses a table without a revision of either draft.
        self.of(draft).last().map_or("", |r| r.revision.as_str())
    }

    /// How the reference checks documents of `revision`, if the table knows it.
    pub fn construction(&self, draft: &str, revision: &str) -> Option<&str> {
        self.get(draft, revision).map(|r| r.construction.as_str())
    }

    /// The revisions from `since` to `until` (the newest when `None`), both included, oldest first.
    pub fn span(
        &self,
        draft: &str,
        since: &str,
        until: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let numbers = self.numbers(draft);
        let position = |r: &str| {
            numbers.iter().position(|x| *x == r).ok_or_else(|| {
                format!(
                    "{draft} has no revision {r} in spec-notes/revisions.toml (known: {})",
                    numbers.join(", ")
                )
            })
        };
        let from = position(since)?;
        let to = match until {
            Some(u) => position(u)?,
            None => numbers.len() - 1,
        };
        if to < from {
            return Err(format!(
                "{draft}: until {until:?} is before since {since:?}"
            ));
        }
        Ok(numbers[from..=to].iter().map(|r| r.to_string()).collect())
    }

    /// Where `revision` stands among its draft's revisions, oldest first: their order.
    pub fn sort_key(&self, draft: &str, revision: &str) -> Option<usize> {
        self.of(draft).iter().position(|r| r.revision == revision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = r#"
[[revision]]
draft = "draft-zambo-aer1"
revision = "06"
construction = "bytes"
facts = "read"
summary = "a"
[[revision]]
draft = "draft-zambo-aer1"
revision = "07"
construction = "preimage"
facts = "read"
summary = "b"
[[revision]]
draft = "draft-zambo-aer1"
revision = "10"
construction = "preimage"
facts = "carried"
summary = "c"
[[revision]]
draft = "draft-sato-soos-grp"
revision = "00"
construction = "no-dedup"
facts = "read"
summary = "d"
"#;

    #[test]
    fn spans_resolve_against_the_table() {
        let t = Revisions::parse(TABLE).unwrap();
        assert_eq!(t.span(AER1, "07", None).unwrap(), ["07", "10"]);
        assert_eq!(t.span(AER1, "06", Some("06")).unwrap(), ["06"]);
        assert_eq!(t.span(AER1, "06", None).unwrap(), ["06", "07", "10"]);
        assert!(t
            .span(AER1, "08", None)
            .unwrap_err()
            .contains("no revision 08"));
        assert!(t.span(AER1, "10", Some("06")).is_err());
        assert_eq!(t.newest(AER1), "10");
        assert_eq!(t.construction(AER1, "07"), t.construction(AER1, "10"));
        assert_eq!(t.construction(AER1, "06"), Some("bytes"));
        assert_eq!(t.drafts(), [AER1, GRP]);
    }

    #[test]
    fn out_of_order_and_malformed_tables_are_refused() {
        let swapped = TABLE.replacen("\"06\"", "\"11\"", 1);
        assert!(Revisions::parse(&swapped)
            .unwrap_err()
            .contains("oldest first"));
        let three_digits = TABLE.replacen("\"06\"", "\"006\"", 1);
        assert!(Revisions::parse(&three_digits)
            .unwrap_err()
            .contains("two digits"));
        let no_grp = TABLE.replace("draft-sato-soos-grp", "draft-zambo-aer1");
        assert!(Revisions::parse(&no_grp).is_err());
        let unknown_field = TABLE.replacen("summary = \"a\"", "summary = \"a\"\nrules = []", 1);
        assert!(Revisions::parse(&unknown_field).is_err());
        // GRP revision 10 beside AER-1 revision 10: a vector's bare "10" would name both.
        let shared = TABLE.replacen("revision = \"00\"", "revision = \"10\"", 1);
        assert!(Revisions::parse(&shared)
            .unwrap_err()
            .contains("listed for both"));
    }

    #[test]
    fn the_embedded_table_parses() {
        let t = Revisions::embedded();
        assert_eq!(t.numbers(AER1).first(), Some(&"06"));
        assert_eq!(t.numbers(GRP).first(), Some(&"00"));
    }
}
