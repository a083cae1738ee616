//! The vector model: what one vector file holds.
//!
//! A vector separates inputs (handed to an implementation) from answers (kept by the harness):
//! `inputs` and `scenario` are what an implementation is given; everything else is metadata and
//! expectation. Rules, levels, tiers and decision outcomes are enums, written as the strings of
//! the vector files (`AER1-TL-SEQ`, `MUST`, `strict`, `admitted`).

use agentconf_rules::{Level, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema_types::{
    LevelName, OutcomeName, Revision, RuleId, Sha256, TierName, FAMILY_PATTERN, FILE_PATTERN,
    ID_PATTERN,
};

/// What the vector operates on; also the first directory under `vectors/`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Suite {
    #[serde(rename = "aer1-receipt")]
    Aer1Receipt,
    #[serde(rename = "aer1-timeline")]
    Aer1Timeline,
    #[serde(rename = "aer1-workflow")]
    Aer1Workflow,
    #[serde(rename = "grp-admission")]
    GrpAdmission,
    /// A producer's timelines: the implementation writes the timeline of the vector's steps.
    #[serde(rename = "aer1-emit-timeline")]
    Aer1EmitTimeline,
    /// A producer's commitments: the implementation writes the commitment artifact of the
    /// vector's timeline.
    #[serde(rename = "aer1-emit-commitment")]
    Aer1EmitCommitment,
    /// A producer's receipts: the implementation writes the receipt of the vector's payload,
    /// its other members as the vector's `meta` gives them.
    #[serde(rename = "aer1-emit-receipt")]
    Aer1EmitReceipt,
}

impl Suite {
    pub fn as_str(self) -> &'static str {
        match self {
            Suite::Aer1Receipt => "aer1-receipt",
            Suite::Aer1Timeline => "aer1-timeline",
            Suite::Aer1Workflow => "aer1-workflow",
            Suite::GrpAdmission => "grp-admission",
            Suite::Aer1EmitTimeline => "aer1-emit-timeline",
            Suite::Aer1EmitCommitment => "aer1-emit-commitment",
            Suite::Aer1EmitReceipt => "aer1-emit-receipt",
        }
    }

    /// The draft whose revisions this suite's vectors name, as the revisions table spells it.
    pub fn draft(self) -> &'static str {
        match self {
            Suite::Aer1Receipt
            | Suite::Aer1Timeline
            | Suite::Aer1Workflow
            | Suite::Aer1EmitTimeline
            | Suite::Aer1EmitCommitment
            | Suite::Aer1EmitReceipt => agentconf_rules::draft_revisions::AER1,
            Suite::GrpAdmission => agentconf_rules::draft_revisions::GRP,
        }
    }

    /// The id prefix of this suite's vectors, e.g. `aer1/timeline`.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Suite::Aer1Receipt => "aer1/receipt",
            Suite::Aer1Timeline => "aer1/timeline",
            Suite::Aer1Workflow => "aer1/workflow",
            Suite::GrpAdmission => "grp/admission",
            Suite::Aer1EmitTimeline => "aer1/emit-timeline",
            Suite::Aer1EmitCommitment => "aer1/emit-commitment",
            Suite::Aer1EmitReceipt => "aer1/emit-receipt",
        }
    }

    /// Whether its cases are graded on the output the implementation writes (an emitter's),
    /// not on a verdict: a pass then shows the construction was followed, whatever else passed.
    pub fn graded_on_output(self) -> bool {
        matches!(
            self,
            Suite::Aer1EmitTimeline | Suite::Aer1EmitCommitment | Suite::Aer1EmitReceipt
        )
    }

    pub const ALL: [Suite; 7] = [
        Suite::Aer1Receipt,
        Suite::Aer1Timeline,
        Suite::Aer1Workflow,
        Suite::GrpAdmission,
        Suite::Aer1EmitTimeline,
        Suite::Aer1EmitCommitment,
        Suite::Aer1EmitReceipt,
    ];
}

/// What a conforming implementation must do with the vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Expectation {
    /// Must accept.
    Valid,
    /// Must reject; strict grading also requires every rule in `expected_rules` to be reported.
    Invalid,
    /// Either verdict conforms (`flags` say why); under strict grading a rejection must cite
    /// `expected_rules`, and an acceptance passes.
    Acceptable,
}

/// Why an `acceptable` vector accepts either verdict (Wycheproof-style flags).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Flag {
    /// The broken rule is graded SHOULD.
    ShouldLevel,
    /// The rule is this project's interpretation, not draft text.
    Interpretation,
    /// The draft author's reference kit accepts this input.
    KitAccepts,
    /// RFC 8259 lets a parser ignore or accept this (e.g. a byte order mark).
    ParserLatitude,
    /// A later draft revision, beyond the ones the vector targets, rejects this input: a verifier
    /// that already follows it conforms too. The reference follows the targeted revisions and
    /// accepts.
    LaterRevision,
}

/// How an input file's bytes are stored in the vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// `content` is the file's text (the file is UTF-8).
    Utf8,
    /// `content` is standard base64 of the file's bytes (for bytes that are not UTF-8).
    Base64,
}

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// What the file is: `receipt`, `timeline`, `commitment`, `workflow` (AER-1); `session`,
    /// `events` (GRP); `steps`, `payload`, `meta` (AER-1 producers).
    #[schemars(extend("enum" = ["receipt", "timeline", "commitment", "workflow", "session", "events", "steps", "payload", "meta"]))]
    pub role: String,
    /// File name to use when the input is written to disk.
    #[schemars(pattern(FILE_PATTERN))]
    pub file: String,
    pub encoding: Encoding,
    pub content: String,
    /// SHA-256 (lowercase hex) of the file's bytes.
    #[schemars(with = "Sha256")]
    pub sha256: String,
}

/// How a mutant was derived from another vector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Derivation {
    /// The id of the vector it was derived from.
    #[schemars(pattern(ID_PATTERN))]
    pub source: String,
    /// What was changed, in words.
    #[schemars(length(min = 1))]
    pub mutation: String,
}

/// The receipt tier a receipt vector is checked under: the contract's `TIER` argument (the
/// workspace's one tier type; its schema is [`crate::schema_types::TierName`]).
pub use agentconf_rules::Tier;

/// Options of the operation, beyond the input files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Receipts only: the tier the vector is checked under; absent means `core`.
    // Vector files before 0.2.0 called it `id_tier`: the model still reads that, the schema of
    // today's files does not list it.
    #[serde(skip_serializing_if = "Option::is_none", default, alias = "id_tier")]
    #[schemars(with = "TierName")]
    pub tier: Option<Tier>,
    /// Commitment emitters only: the `PUBLISHED_AT` argument (RFC 3339), which the artifact
    /// records as given.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "String")]
    pub published_at: Option<String>,
}

impl Options {
    pub fn is_empty(&self) -> bool {
        self.tier.is_none() && self.published_at.is_none()
    }

    /// The tier a receipt is checked under: `core` unless the vector says otherwise.
    pub fn tier(&self) -> Tier {
        self.tier.unwrap_or_default()
    }
}

/// One step of a GRP admission scenario, run by the harness in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum Step {
    /// Deliver line `event` (0-based) of the `events` input to the running receiver.
    Deliver { event: usize },
    /// Stop the receiver and start a new one on the same state (a new process, same store).
    Restart,
    /// Start `copies` receivers sharing the state and deliver line `event` to all at once.
    Concurrent {
        event: usize,
        #[schemars(range(min = 2))]
        copies: usize,
    },
    /// Stop the receiver and start one for the session context in input file `file`, same state.
    Session { file: String },
    /// Stop the receiver and start `copies` receivers on the shared state; deliver line `warmup`
    /// to each in turn and read its decision (so every copy is running and ready), then, round by
    /// round, hand each line of `rounds` to every copy at once and read every decision. The
    /// copies race on every round, not only on their first admission.
    Barrier {
        #[schemars(range(min = 2))]
        copies: usize,
        warmup: usize,
        #[schemars(length(min = 1))]
        rounds: Vec<usize>,
    },
    /// Kill the running receiver's whole process group (SIGKILL) at `at` while it handles line
    /// `event`, then start a new receiver on the same state (no clean stop: nothing is flushed
    /// at exit).
    Crash { event: usize, at: CrashPoint },
    /// `cluster`: stop the running receiver and start `nodes` receiver nodes, each on its own
    /// state (CONTRACT.md 7); deliver line `warmup` to each in turn, then, round by round, hand
    /// each line of `rounds` to every node at once and read every decision.
    #[serde(rename = "node-race")]
    NodeRace {
        #[schemars(range(min = 2))]
        nodes: usize,
        warmup: usize,
        #[schemars(length(min = 1))]
        rounds: Vec<usize>,
    },
    /// `cluster`: stop the running receiver and start one node per entry of `nodes`, node
    /// `n<k>` on the session context in input file `nodes[k - 1]`, each on its own state
    /// (CONTRACT.md 7); deliver to each node in turn its line of `warmup` (one line per node),
    /// then, round by round, hand each node its line of the round (one line per node) before
    /// reading any decision, and read every decision. Nodes of different sessions, or lines of
    /// different publishers, with the same event id show whether the nodes' shared store keys
    /// the whole (session, publisher, event).
    #[serde(rename = "node-mix")]
    NodeMix {
        #[schemars(length(min = 2))]
        nodes: Vec<String>,
        #[schemars(length(min = 2))]
        warmup: Vec<usize>,
        #[schemars(length(min = 1))]
        rounds: Vec<Vec<usize>>,
    },
    /// `cluster`: start nodes A and B; hand line `event` to A and SIGKILL A's process group at
    /// `at`; then hand the line to B.
    Failover { event: usize, at: CrashPoint },
    /// `cluster`: start nodes A and B; hand line `event` to A and SIGSTOP A (where A's link to
    /// the shared store can hold A's bytes, once A's statement is in flight, the held bytes then
    /// reaching the store while A is stopped; otherwise once A has read the line); hand the
    /// line to B and read its decision (or wait a while for it); SIGCONT A and read A's
    /// decision.
    Pause { event: usize },
    /// `cluster`: start nodes A and B; cut A's link to the shared store; hand the lines
    /// `to_cut` to A and `to_other` to B, alternately; heal the link and hand every one of
    /// those lines to A again. Needs the store's address (CONTRACT.md 12.5): without it the
    /// step is not run.
    Partition {
        #[schemars(length(min = 1))]
        to_cut: Vec<usize>,
        to_other: Vec<usize>,
    },
    /// `cluster`: start nodes A and B; hand A line `warmup` and read its decision (its link to
    /// the store working, so that a node that connects on first use has its connection open, as
    /// a deployed node's would be); stall A's link to the shared store (held open, no byte
    /// forwarded either way: a delay, not a cut; what A sent on it reaches the store at the heal,
    /// its answer lost to A if A gave up on the connection); hand A each line of `to_slow` and wait for
    /// its decision (longer than a receiver's own deadline for its store; one that does not
    /// come by then is read after the link is healed), and B the lines `to_other`,
    /// alternately; heal the link (what it held is forwarded, late) and hand every one of those
    /// lines to A again. Needs the store's address (CONTRACT.md 12.5): without it the step is
    /// not run.
    #[serde(rename = "slow-link")]
    SlowLink {
        warmup: usize,
        #[schemars(length(min = 1))]
        to_slow: Vec<usize>,
        to_other: Vec<usize>,
    },
}

impl Step {
    /// Whether it is one of the `cluster` profile's steps, played on receiver nodes with their
    /// own state.
    pub fn is_cluster(&self) -> bool {
        matches!(
            self,
            Step::NodeRace { .. }
                | Step::NodeMix { .. }
                | Step::Failover { .. }
                | Step::Pause { .. }
                | Step::Partition { .. }
                | Step::SlowLink { .. }
        )
    }
}

/// Where a `crash` step kills the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CrashPoint {
    /// Right after its decision for the line was read (the step's expectation judges that
    /// decision): an admission it reported must survive the kill.
    AfterDecision,
    /// Right after it read the line, before any decision was read. Its fate was never reported,
    /// so the new receiver is handed the line again: admitted (the first one was not recorded)
    /// or rejected as `duplicate_event_id` (it was: the documented recovery) both conform. What
    /// follows must see the pair recorded either way.
    BeforeDecision,
}

/// What a GRP receiver decided for one event (the workspace's one outcome type; its schema is
/// [`crate::schema_types::OutcomeName`]).
pub use agentconf_rules::Outcome;

/// What must come of one `deliver` step, of the line a `crash` step kills the receiver after
/// (`after-decision`), or of every copy of a `concurrent` step or `barrier` round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectedDecision {
    /// Index of the step in `scenario` this expectation belongs to.
    pub step: usize,
    /// `admitted` or `rejected`; for `concurrent`: how many copies are admitted is `admitted`.
    #[schemars(with = "OutcomeName")]
    pub outcome: Outcome,
    /// For rejections: the ALE-064 rejection_reason.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "String")]
    pub rejection_reason: Option<String>,
    /// Whether the draft itself names the reason (else any reason is accepted unless strict).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "bool")]
    pub reason_named_by_draft: Option<bool>,
    /// For rejections: the rule a strict grader expects.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "RuleId")]
    pub rule: Option<Rule>,
    /// For `concurrent` steps, and for each round of a `barrier` step: exactly this many copies
    /// are admitted (the others rejected as duplicates).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "usize")]
    pub admitted_copies: Option<usize>,
}

/// Where a reading of the draft comes from: the basis of a [`RuleAlternative`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReadingBasis {
    /// The draft's own text supports this reading as well as the main one.
    Text,
    /// The draft author's reference kit reports the defect this way.
    Kit,
    /// This project's interpretation (written down in the rule family's notes).
    Interp,
}

/// Another set of rules a strict rejection may cite for the same input, where the draft and
/// independent readings of it legitimately name different rules for one defect (a missing
/// `canonical_bytes` reported as bad base64 rather than a missing member, say). A rejection
/// passes strict grading when it matches the expectation's own rules or any one alternative:
/// it names every rule of the set's `expected_rules` and nothing outside that set and its
/// `also_reported` (CONTRACT.md section 4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleAlternative {
    /// The rules this reading requires.
    #[schemars(with = "Vec<RuleId>", length(min = 1), extend("uniqueItems" = true))]
    pub expected_rules: Vec<Rule>,
    /// Rules this reading may also cite.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[schemars(with = "Vec<RuleId>", extend("uniqueItems" = true))]
    pub also_reported: Vec<Rule>,
    /// What supports this reading.
    pub basis: ReadingBasis,
    /// Why the input may be read this way.
    #[schemars(length(min = 1))]
    pub reason: String,
}

/// A GRP admission scenario: the steps (inputs for the harness) and the decisions (answers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[schemars(length(min = 1))]
    pub steps: Vec<Step>,
}

/// The expectation under further revisions, where it differs from the vector's main one. The
/// main `revisions`/`expectation`/`expected_rules`/`flags` keep their meaning (a reader that knows
/// nothing of this field grades those revisions correctly and merely skips these).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionExpectation {
    /// Revisions under which this expectation holds; disjoint from the vector's `revisions` and
    /// from every other entry's.
    #[schemars(with = "Vec<Revision>", length(min = 1), extend("uniqueItems" = true))]
    pub revisions: Vec<String>,
    pub expectation: Expectation,
    /// For `invalid` and `acceptable`: the rules a rejection must (strict) cite.
    #[schemars(with = "Vec<RuleId>", extend("uniqueItems" = true))]
    pub expected_rules: Vec<Rule>,
    /// Rules a rejection may also cite without being required to: where the draft's (or the
    /// kit's) reading stops at the first failure of an entry, the later ones are not demanded.
    /// The reference reports them; strict grading requires only `expected_rules`, and refuses
    /// any rule outside `expected_rules` and these.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[schemars(with = "Vec<RuleId>", extend("uniqueItems" = true))]
    pub also_reported: Vec<Rule>,
    /// Other readings of the same defect a strict rejection may cite instead (see
    /// [`RuleAlternative`]).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub any_of: Vec<RuleAlternative>,
    /// For `acceptable`: why either verdict is fine.
    #[schemars(extend("uniqueItems" = true))]
    pub flags: Vec<Flag>,
    /// Why the expectation differs under these revisions.
    #[schemars(length(min = 1))]
    pub reason: String,
}

/// The GRP capability profiles (CONTRACT.md): what a vector may require, an adapter claim and a
/// results header record.
pub const PROFILES: [&str; 3] = ["durable", "atomic", "cluster"];

/// One test vector.
///
/// The schema also ties `expected_rules` and `flags` to the expectation: none for `valid`, at
/// least one rule for `invalid` and `acceptable`, at least one flag for `acceptable` and none for
/// `invalid`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("allOf" = [
    {
        "if": {"properties": {"expectation": {"const": "valid"}}},
        "then": {"properties": {"expected_rules": {"maxItems": 0}, "flags": {"maxItems": 0}}}
    },
    {
        "if": {"properties": {"expectation": {"const": "invalid"}}},
        "then": {"properties": {"expected_rules": {"minItems": 1}, "flags": {"maxItems": 0}}}
    },
    {
        "if": {"properties": {"expectation": {"const": "acceptable"}}},
        "then": {"properties": {"expected_rules": {"minItems": 1}, "flags": {"minItems": 1}}}
    }
]))]
pub struct Vector {
    /// Stable id, e.g. `aer1/timeline/reclosed/drop-2-of-8`; never renamed or reused.
    #[schemars(pattern(ID_PATTERN))]
    pub id: String,
    pub suite: Suite,
    /// The family: the directory under the suite's.
    #[schemars(pattern(FAMILY_PATTERN))]
    pub family: String,
    /// The draft revisions under which the expectation holds.
    #[schemars(with = "Vec<Revision>", length(min = 1), extend("uniqueItems" = true))]
    pub revisions: Vec<String>,
    /// Why it must pass or fail.
    #[schemars(length(min = 1))]
    pub description: String,
    /// The rules the vector exercises.
    #[schemars(with = "Vec<RuleId>", length(min = 1), extend("uniqueItems" = true))]
    pub rules: Vec<Rule>,
    /// MUST when any exercised rule is MUST, else SHOULD.
    #[schemars(with = "LevelName")]
    pub level: Level,
    pub expectation: Expectation,
    /// For `invalid` and `acceptable`: the rules a rejection must (strict) cite.
    #[schemars(with = "Vec<RuleId>", extend("uniqueItems" = true))]
    pub expected_rules: Vec<Rule>,
    /// Rules a rejection may also cite without being required to (as in
    /// [`RevisionExpectation::also_reported`]); strict grading refuses any rule outside
    /// `expected_rules` and these.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[schemars(with = "Vec<RuleId>", extend("uniqueItems" = true))]
    pub also_reported: Vec<Rule>,
    /// Other readings of the same defect a strict rejection may cite instead (see
    /// [`RuleAlternative`]).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub any_of: Vec<RuleAlternative>,
    /// For `acceptable`: why either verdict is fine.
    #[schemars(extend("uniqueItems" = true))]
    pub flags: Vec<Flag>,
    /// Expectations under other revisions, where they differ from the one above (a chain valid
    /// under revision 06 and invalid under 09, for example).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub other_revisions: Vec<RevisionExpectation>,
    #[serde(skip_serializing_if = "Options::is_empty", default)]
    pub options: Options,
    #[schemars(length(min = 1))]
    pub inputs: Vec<Input>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Derivation")]
    pub derivation: Option<Derivation>,
    /// GRP: capability profiles the scenario needs (`durable`, `atomic`, `cluster`); an
    /// implementation that does not claim them reports the vector as unsupported, not failed.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[schemars(extend("items" = {"enum": PROFILES}, "uniqueItems" = true))]
    pub requires: Vec<String>,
    /// GRP: the steps to run (part of the inputs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Scenario")]
    pub scenario: Option<Scenario>,
    /// GRP: the decision each `deliver`/`concurrent` step must produce (answers).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub expected_decisions: Vec<ExpectedDecision>,
    /// Emitters: the digest of the last entry of the timeline the draft's construction gives
    /// for the `steps` input, or of the `timeline` input's last entry for a commitment emitter
    /// (lowercase hex; an answer). It binds every entry before it through the links.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "String", regex(pattern = "^[0-9a-f]{64}$"))]
    pub expected_final_digest: Option<String>,
}

impl Vector {
    /// Every revision the vector has an expectation for.
    pub fn all_revisions(&self) -> impl Iterator<Item = &String> {
        self.revisions
            .iter()
            .chain(self.other_revisions.iter().flat_map(|o| &o.revisions))
    }

    /// The vector as seen by a reader of one revision: the expectation that holds under
    /// `revision` becomes the main one, and the other revisions' are dropped (`vectors export`).
    /// `None` when the vector has no expectation for that revision.
    pub fn for_revision(&self, revision: &str) -> Option<Vector> {
        if self.revisions.iter().any(|r| r == revision) {
            let mut v = self.clone();
            v.other_revisions.clear();
            return Some(v);
        }
        let other = self
            .other_revisions
            .iter()
            .find(|o| o.revisions.iter().any(|r| r == revision))?;
        let mut v = self.clone();
        v.revisions = other.revisions.clone();
        v.expectation = other.expectation;
        v.expected_rules = other.expected_rules.clone();
        v.also_reported = other.also_reported.clone();
        v.any_of = other.any_of.clone();
        v.flags = other.flags.clone();
        v.other_revisions.clear();
        Some(v)
    }

    /// `vectors/`-relative path: `<suite>/<family>/<name>.json`.
    pub fn path(&self) -> String {
        let name = self.id.rsplit('/').next().unwrap_or(&self.id);
        format!("{}/{}/{name}.json", self.suite.as_str(), self.family)
    }

    /// The bytes of the (first) input with this role, decoded.
    pub fn input_bytes(&self, role: &str) -> Option<Vec<u8>> {
        self.inputs.iter().find(|i| i.role == role)?.bytes()
    }

    /// The bytes of the input with this file name, decoded.
    pub fn input_file_bytes(&self, file: &str) -> Option<Vec<u8>> {
        self.inputs.iter().find(|i| i.file == file)?.bytes()
    }
}

impl Input {
    /// The file's bytes, decoded from the vector's encoding.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        let input = self;
        match input.encoding {
            Encoding::Utf8 => Some(input.content.clone().into_bytes()),
            Encoding::Base64 => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(&input.content)
                    .ok()
            }
        }
    }
}

/// Ids that were published once and withdrawn, each with what grades its input now. They are
/// never used again, so skip lists and citations that name them stay unambiguous; the harness
/// names the replacement when an adapter file lists one.
pub const RETIRED_IDS: &[(&str, &str)] = &[
    // A revision-06 chain checked under 07-09: now the `@09` case of the same input's vector,
    // which carries one expectation per revision.
    (
        "aer1/timeline/revision06/example-06-2-under-current",
        "case aer1/timeline/revision06/example-06-2@09",
    ),
    (
        "aer1/timeline/revision06/example-06-5-under-current",
        "case aer1/timeline/revision06/example-06-5@09",
    ),
    (
        "aer1/timeline/revision06/example-06-8-under-current",
        "case aer1/timeline/revision06/example-06-8@09",
    ),
    // Swapped two receipt ids in the invented `{steps: [{receipt_id}], merkle_root}` layout and
    // expected a root mismatch. In the draft's layout a reordering of whole steps is a seq failure
    // and exchanged ids with seq in place a root failure; spec-notes/aer1-workflow.md explains both.
    (
        "aer1/workflow/structure/steps-reordered",
        "aer1/workflow/structure/seq-swapped and aer1/workflow/structure/receipt-ids-swapped",
    ),
    // The session clock exactly at an end of a P-TYPE-2 window, once graded valid. The draft does
    // not say whether the ends are inside the window, so the same input is now `acceptable` (an
    // exclusive-bound receiver's rejection also conforms), and a `valid-` name would mislead.
    (
        "grp/admission/admission/valid-p-type-2-at-not-before",
        "grp/admission/admission/p-type-2-clock-at-not-before",
    ),
    (
        "grp/admission/admission/valid-p-type-2-at-not-after",
        "grp/admission/admission/p-type-2-clock-at-not-after",
    ),
    // An empty `steps` list, once graded valid. The draft does not say whether steps may be
    // empty and every independent verifier measured rejects one, so the same input is now
    // `acceptable` (a rejection cites AER1-WF-STEPS-NONEMPTY), and a name in the `valid` family
    // would mislead.
    (
        "aer1/workflow/valid/no-steps",
        "aer1/workflow/structure/steps-empty",
    ),
];

/// What replaced a retired id, if `id` is one.
pub fn retired(id: &str) -> Option<&'static str> {
    RETIRED_IDS
        .iter()
        .find(|(old, _)| *old == id)
        .map(|(_, now)| *now)
}
