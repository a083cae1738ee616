//! The rule catalogue of agentconf.
//!
//! Two halves that tests keep in lock-step:
//! - [`Rule`], a closed enum with one variant per rule id. Error enums elsewhere map every variant
//!   to a `Rule` through one exhaustive `match`, so a new error cannot go unmapped.
//! - [`Catalogue`], the records in `spec-notes/rules.toml` (title, draft, revisions, section,
//!   level, basis), embedded at build time so the tool works from any directory.
//!
//! What is embedded is the copy under `crates/rules/catalogue/`, which `cargo xtask rules` writes
//! from `spec-notes/` (and `--check` and this crate's tests hold equal to it): a published crate
//! is built from its own directory alone, so it cannot include a file from outside it.
//!
//! The tests in this crate prove that every `Rule` has exactly one record and every record is a
//! `Rule`, and that every rule is explained in its family's notes file.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

use std::fmt;

use serde::{Deserialize, Serialize};

/// The catalogue file, embedded so the binary needs no files at run time.
pub const CATALOGUE_TOML: &str = include_str!("../catalogue/rules.toml");

/// The draft facts the catalogue rests on (`spec-notes/facts.toml`), embedded likewise.
pub const FACTS_TOML: &str = include_str!("../catalogue/facts.toml");

pub mod draft_revisions;
mod facts;
mod revisions_table;
mod rule_error;
mod vocabulary;

pub use draft_revisions::{FactsStatus, RevisionRecord, Revisions, REVISIONS_TOML};
pub use facts::{basis_problems, uncited_facts, Fact, FactSource, Facts};
pub use rule_error::RuleError;
pub use vocabulary::{DecisionOutcome, Outcome, Tier, Verdict};

macro_rules! rules {
    ($($variant:ident => $id:literal,)*) => {
        /// One rule of one draft, named by its stable catalogue id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $(#[doc = $id] $variant,)*
        }

        impl Rule {
            /// Every rule, in catalogue order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable id, e.g. `AER1-TL-GENESIS`.
            pub const fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// The rule with this id, if there is one.
            pub fn from_id(id: &str) -> Option<Rule> {
                match id {
                    $($id => Some(Rule::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

rules! {
    Aer1JsonSyntax => "AER1-JSON-SYNTAX",
    Aer1JsonUtf8 => "AER1-JSON-UTF8",
    Aer1JsonSurrogate => "AER1-JSON-SURROGATE",
    Aer1JsonDuplicate => "AER1-JSON-DUPLICATE",
    Aer1JsonDepth => "AER1-JSON-DEPTH",
    Aer1JsonNumber => "AER1-JSON-NUMBER",
    Aer1JsonSize => "AER1-JSON-SIZE",
    Aer1RcMembers => "AER1-RC-MEMBERS",
    Aer1RcId => "AER1-RC-ID",
    Aer1RcIdStrict => "AER1-RC-ID-STRICT",
    Aer1RcSchemaVersion => "AER1-RC-SCHEMA-VERSION",
    Aer1RcCreatedAt => "AER1-RC-CREATED-AT",
    Aer1RcTool => "AER1-RC-TOOL",
    Aer1RcProvenance => "AER1-RC-PROVENANCE",
    Aer1RcB64 => "AER1-RC-B64",
    Aer1RcUtf8 => "AER1-RC-UTF8",
    Aer1RcHashFormat => "AER1-RC-HASH-FORMAT",
    Aer1RcHashMatch => "AER1-RC-HASH-MATCH",
    Aer1RcStatus => "AER1-RC-STATUS",
    Aer1RcBytesKept => "AER1-RC-BYTES-KEPT",
    Aer1RcAnchorMembers => "AER1-RC-ANCHOR-MEMBERS",
    Aer1RcAnchorLog => "AER1-RC-ANCHOR-LOG",
    Aer1RcAnchorLeafFormat => "AER1-RC-ANCHOR-LEAF-FORMAT",
    Aer1RcAnchorLeafMatch => "AER1-RC-ANCHOR-LEAF-MATCH",
    Aer1RcAnchorTime => "AER1-RC-ANCHOR-TIME",
    Aer1RcAnchorProof => "AER1-RC-ANCHOR-PROOF",
    Aer1RcProfileInputs => "AER1-RC-PROFILE-INPUTS",
    Aer1TlArray => "AER1-TL-ARRAY",
    Aer1TlEntryObject => "AER1-TL-ENTRY-OBJECT",
    Aer1TlMembers => "AER1-TL-MEMBERS",
    Aer1TlB64 => "AER1-TL-B64",
    Aer1TlUtf8 => "AER1-TL-UTF8",
    Aer1TlOutputHash => "AER1-TL-OUTPUT-HASH",
    Aer1TlProvenance => "AER1-TL-PROVENANCE",
    Aer1TlSeqType => "AER1-TL-SEQ-TYPE",
    Aer1TlSeq => "AER1-TL-SEQ",
    Aer1TlJob => "AER1-TL-JOB",
    Aer1TlGenesis => "AER1-TL-GENESIS",
    Aer1TlLink => "AER1-TL-LINK",
    Aer1TlCloseType => "AER1-TL-CLOSE-TYPE",
    Aer1Tl06CloseType => "AER1-TL-06-CLOSE-TYPE",
    Aer1TlCloseEarly => "AER1-TL-CLOSE-EARLY",
    Aer1TlCloseLast => "AER1-TL-CLOSE-LAST",
    Aer1TlVersioning => "AER1-TL-VERSIONING",
    Aer1CmMembers => "AER1-CM-MEMBERS",
    Aer1CmJobFormat => "AER1-CM-JOB-FORMAT",
    Aer1CmDigestFormat => "AER1-CM-DIGEST-FORMAT",
    Aer1CmCountFormat => "AER1-CM-COUNT-FORMAT",
    Aer1CmPublishedAt => "AER1-CM-PUBLISHED-AT",
    Aer1CmCount => "AER1-CM-COUNT",
    Aer1CmJob => "AER1-CM-JOB",
    Aer1CmFinal => "AER1-CM-FINAL",
    Aer1WfMembers => "AER1-WF-MEMBERS",
    Aer1WfType => "AER1-WF-TYPE",
    Aer1WfStrings => "AER1-WF-STRINGS",
    Aer1WfId => "AER1-WF-ID",
    Aer1WfIdDistinct => "AER1-WF-ID-DISTINCT",
    Aer1WfHex => "AER1-WF-HEX",
    Aer1WfVerifyUrl => "AER1-WF-VERIFY-URL",
    Aer1WfStepsNonempty => "AER1-WF-STEPS-NONEMPTY",
    Aer1WfStepMembers => "AER1-WF-STEP-MEMBERS",
    Aer1WfStepId => "AER1-WF-STEP-ID",
    Aer1WfStepIdCase => "AER1-WF-STEP-ID-CASE",
    Aer1WfStepHash => "AER1-WF-STEP-HASH",
    Aer1WfStepTime => "AER1-WF-STEP-TIME",
    Aer1WfSeqType => "AER1-WF-SEQ-TYPE",
    Aer1WfSeq => "AER1-WF-SEQ",
    Aer1WfDuplicate => "AER1-WF-DUPLICATE",
    Aer1WfRoot => "AER1-WF-ROOT",
    GrpJsonSyntax => "GRP-JSON-SYNTAX",
    GrpJsonDuplicate => "GRP-JSON-DUPLICATE",
    GrpJsonSurrogate => "GRP-JSON-SURROGATE",
    GrpJsonLimits => "GRP-JSON-LIMITS",
    GrpEvMembers => "GRP-EV-MEMBERS",
    GrpEvPublisherType => "GRP-EV-PUBLISHER-TYPE",
    GrpEvChangeClass => "GRP-EV-CHANGE-CLASS",
    GrpEvSeverity => "GRP-EV-SEVERITY",
    GrpEvTimestamp => "GRP-EV-TIMESTAMP",
    GrpPubKnown => "GRP-PUB-KNOWN",
    GrpPubType => "GRP-PUB-TYPE",
    GrpPubRevoked => "GRP-PUB-REVOKED",
    GrpPubWindow => "GRP-PUB-WINDOW",
    GrpPubEventType => "GRP-PUB-EVENT-TYPE",
    GrpSigFormat => "GRP-SIG-FORMAT",
    GrpSigAlg => "GRP-SIG-ALG",
    GrpSigKey => "GRP-SIG-KEY",
    GrpSigVerify => "GRP-SIG-VERIFY",
    GrpSigPayload => "GRP-SIG-PAYLOAD",
    GrpNonce => "GRP-NONCE",
    GrpDupEvent => "GRP-DUP-EVENT",
    GrpDupOrder => "GRP-DUP-ORDER",
    GrpDupPair => "GRP-DUP-PAIR",
    GrpDupAdmittedOnly => "GRP-DUP-ADMITTED-ONLY",
    GrpDupSession => "GRP-DUP-SESSION",
    GrpRev00NoDedup => "GRP-REV00-NO-DEDUP",
    GrpProfileDurable => "GRP-PROFILE-DURABLE",
    GrpProfileAtomic => "GRP-PROFILE-ATOMIC",
    GrpProfileCluster => "GRP-PROFILE-CLUSTER",
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        Rule::from_id(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule id {id:?}")))
    }
}

/// MUST or SHOULD, as the suite grades the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    #[serde(rename = "MUST")]
    Must,
    #[serde(rename = "SHOULD")]
    Should,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}

/// Where a rule comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The draft's own text, in the revisions the rule lists.
    Text,
    /// Text that AER-1 revision 09 added.
    #[serde(rename = "text-09")]
    Text09,
    /// Text that GRP revision 01 added.
    #[serde(rename = "text-01")]
    Text01,
    /// Behaviour of the draft author's reference kit.
    Kit,
    /// This project's interpretation, written down in the family notes.
    Interp,
}

impl Basis {
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Text => "text",
            Basis::Text09 => "text-09",
            Basis::Text01 => "text-01",
            Basis::Kit => "kit",
            Basis::Interp => "interp",
        }
    }
}

/// One catalogue record.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleRecord {
    pub id: String,
    pub title: String,
    pub family: String,
    pub draft: String,
    /// The first revision the rule applies to.
    pub since: String,
    /// The last revision it applies to, when a later revision dropped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Every revision it applies to, oldest first: `since` to `until` (or the newest) in the
    /// revisions table, resolved when the catalogue is parsed.
    #[serde(skip_deserializing, default)]
    pub revisions: Vec<String>,
    pub section: String,
    pub level: Level,
    pub basis: Basis,
    /// Ids of the draft facts (`spec-notes/facts.toml`) the rule rests on. A rule whose basis is
    /// `text`, `text-09`, `text-01` or `kit` must cite a fact of that source for every revision it
    /// lists (tested); an `interp` rule may cite none.
    pub facts: Vec<String>,
}

/// A rule id that was published once and withdrawn. It stays in the catalogue so that it is never
/// given to another rule, and so that results files and skip lists naming it can be explained.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetiredRule {
    pub id: String,
    /// What the rule said while it was in use.
    pub title: String,
    /// The suite version that withdrew it.
    pub retired_in: String,
    /// Why it was withdrawn, and what grades its inputs now.
    pub reason: String,
    /// The current rules that grade its inputs now (a test holds each to the catalogue and to
    /// the reason), so a tool can name them where the retired id turns up.
    pub replaced_by: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueFile {
    rule: Vec<RuleRecord>,
    #[serde(default)]
    retired: Vec<RetiredRule>,
}

/// The parsed catalogue.
#[derive(Clone, Debug)]
pub struct Catalogue {
    records: Vec<RuleRecord>,
    retired: Vec<RetiredRule>,
    /// `(draft, revision)` of each revision whose facts are carried, not read: RULES.md says so.
    carried: Vec<(String, String)>,
}

impl Catalogue {
    /// Parses catalogue text, resolving each rule's `since`/`until` against `revisions`; used on
    /// the embedded file, by `cargo xtask rules` on the files on disk, and by tests on edited copies.
    pub fn parse(text: &str, revisions: &Revisions) -> Result<Catalogue, String> {
        let mut file: CatalogueFile = toml::from_str(text).map_err(|e| e.to_string())?;
        for r in &mut file.rule {
            r.revisions = revisions
                .span(&r.draft, &r.since, r.until.as_deref())
                .map_err(|e| format!("rule {}: {e}", r.id))?;
        }
        for retired in &file.retired {
            if retired.replaced_by.is_empty() {
                return Err(format!("retired {}: replaced_by names no rule", retired.id));
            }
            for id in &retired.replaced_by {
                if !file.rule.iter().any(|r| &r.id == id) {
                    return Err(format!(
                        "retired {}: replaced_by names {id}, which is no current rule",
                        retired.id
                    ));
                }
            }
        }
        let carried = revisions
            .records()
            .iter()
            .filter(|r| r.facts == FactsStatus::Carried)
            .map(|r| (r.draft.clone(), r.revision.clone()))
            .collect();
        Ok(Catalogue {
            records: file.rule,
            retired: file.retired,
            carried,
        })
    }

    /// Withdrawn ids, never reused.
    pub fn retired(&self) -> &[RetiredRule] {
        &self.retired
    }

    /// The retired record for an id, if the id was withdrawn.
    pub fn retired_id(&self, id: &str) -> Option<&RetiredRule> {
        self.retired.iter().find(|r| r.id == id)
    }

    /// The catalogue embedded in this build.
    pub fn embedded() -> &'static Catalogue {
        static CATALOGUE: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
        CATALOGUE.get_or_init(|| {
            // The embedded file is checked by this crate's tests; failing here is a build defect,
            // never a reaction to user input.
            Catalogue::parse(CATALOGUE_TOML, Revisions::embedded())
                .expect("embedded spec-notes/rules.toml parses")
        })
    }

    pub fn records(&self) -> &[RuleRecord] {
        &self.records
    }

    pub fn get(&self, rule: Rule) -> Option<&RuleRecord> {
        self.records.iter().find(|r| r.id == rule.id())
    }
}

impl Catalogue {
    /// The catalogue as a Markdown table, grouped by draft and family: the generated file
    /// `spec-notes/RULES.md`. A test regenerates it and fails on any difference; `cargo xtask
    /// rules` rewrites it.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from(
            "<!-- Generated from spec-notes/rules.toml by `cargo xtask rules`. Do not edit. -->\n\n\
             # Rule catalogue\n\n\
             Every rule the suite grades, one row per rule. Both drafts are individual Internet-Drafts: \
             not RFCs, not endorsed by the IETF. Basis: `text` the draft's text, `text-09` text added \
             by AER-1 revision 09, `text-01` text added by GRP revision 01, `kit` the draft author's reference kit, `interp` this project's \
             interpretation (explained in the family notes).\n",
        );
        for (draft, revision) in &self.carried {
            out.push_str(&format!(
                "\n**{draft} revision {revision}: its facts are carried over from the revision \
                 before it, not yet read against its text** (spec-notes/revisions.toml). A rule \
                 listing {revision} holds there by assumption until the text is read.\n"
            ));
        }
        let mut family = "";
        for r in &self.records {
            if r.family != family {
                family = &r.family;
                out.push_str(&format!(
                    "\n## {family} ([notes]({family}.md))\n\n\
                     | id | level | basis | revisions | section | rule |\n\
                     |---|---|---|---|---|---|\n"
                ));
            }
            let (level, basis) = (r.level.as_str(), r.basis.as_str());
            out.push_str(&format!(
                "| `{}` | {level} | {basis} | {} | {} | {} |\n",
                r.id,
                r.revisions.join(", "),
                r.section,
                r.title.replace('|', "\\|")
            ));
        }
        if !self.retired.is_empty() {
            out.push_str(
                "\n## Retired ids\n\n\
                 Withdrawn and never reused; no vector cites them and no check reports them.\n\n\
                 | id | retired in | was | why |\n|---|---|---|---|\n",
            );
            for r in &self.retired {
                out.push_str(&format!(
                    "| `{}` | {} | {} | {} |\n",
                    r.id,
                    r.retired_in,
                    r.title.replace('|', "\\|"),
                    r.reason.replace('|', "\\|")
                ));
            }
        }
        out
    }
}

impl Rule {
    /// This rule's catalogue record.
    pub fn record(self) -> &'static RuleRecord {
        // Bijection between `Rule` and the catalogue is a tested invariant.
        Catalogue::embedded()
            .get(self)
            .expect("every Rule has a catalogue record (tested)")
    }
}
