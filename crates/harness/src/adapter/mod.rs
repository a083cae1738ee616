//! Adapters: running a command-line tool that was not written for the contract.
//!
//! The format, with a worked example of every key, is section 12 of
//! `crates/contract/CONTRACT.md` (each example there is parsed, and most are run, by
//! `crates/cli/tests/adapter_doc.rs`, so the two cannot drift). In short: a command (used for
//! every operation, GRP receivers included); the operations it implements (`implements`, every
//! other one unsupported); per operation an argv template, a declaration of the tiers or
//! revisions the tool takes, or `unsupported = true`; an exit-code map; error maps
//! (global, per operation or per case); `crash_on_stderr` patterns; profiles; skips by id or
//! glob, each with a reason; and strict expected failures by exact id.
//!
//! Every mistake is an [`AdapterError`] naming its line, and [`parse`] checks the whole file,
//! returning every mistake at once ([`AdapterErrors`]); what a checked adapter does to a run is
//! the methods of [`Adapter`], applied by [`crate::runner`].

mod error;
mod glob;
mod parse;
mod template;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use agentconf_contract::call::{Call, Operation};
use agentconf_contract::case::Case;
use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::vector::Suite;
use agentconf_rules::Rule;

pub(crate) use error::AdapterErrors;
use template::Template;

/// An adapter file is configuration, a few kilobytes; `agentconf run` refuses a larger one.
pub const MAX_ADAPTER_BYTES: u64 = 1024 * 1024;

/// How the harness calls the tool: some parts of an adapter shape one-shot calls only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    OneShot,
    /// `--persistent`: the contract's requests to `COMMAND serve` (CONTRACT.md section 8).
    Persistent,
}

/// A checked adapter file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adapter {
    pub name: Option<String>,
    /// The tool's command (argv prefix), for every operation.
    pub command: Vec<String>,
    /// The GRP capability profiles the tool claims.
    pub profiles: Vec<String>,
    /// `[grp] store_addr`: `HOST:PORT` of the store its cluster nodes share.
    pub store_addr: Option<String>,
    /// Substrings of standard error that mean the tool crashed, whatever its exit status.
    pub crash_on_stderr: Vec<String>,
    /// `implements = [...]`: the operations the tool implements (absent: every operation not
    /// declared unsupported).
    implements: Option<Implements>,
    /// The top-level `revisions = [...]`: the revisions of either draft the tool implements
    /// (absent: every revision). An operation's own `revisions` may narrow it for that operation.
    revisions: Option<Declared>,
    operations: Vec<(Operation, OperationSpec)>,
    exit_codes: Option<ExitCodes>,
    error_map: Vec<ErrorMapping>,
    skip: Vec<Skip>,
    xfail: Vec<Listed>,
    /// The parts that shape one-shot calls (templates, exit codes, error maps), each with its
    /// line: what persistent mode refuses.
    one_shot_parts: Vec<(usize, String)>,
    /// What is legal but probably a trap (an error map that reads every operation's output and
    /// reports a rule some of them never cite), each with its line: said, never refused.
    warnings: Vec<String>,
}

/// `implements = [...]`, and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Implements {
    line: usize,
    operations: Vec<Operation>,
}

/// `[operations.X]`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct OperationSpec {
    /// The line of the table.
    line: usize,
    unsupported: bool,
    argv: Option<Template>,
    argv_with_commitment: Option<Template>,
    /// The tiers (receipts) or revisions (timelines, GRP) the tool takes; absent: all.
    tiers: Option<Declared>,
    revisions: Option<Declared>,
    /// `commitments = false` (`aer1-timeline`), and its line: the cases with a commitment are
    /// out of scope.
    no_commitments: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Declared {
    line: usize,
    values: Vec<String>,
    /// Not written as `tiers`, but implied by a template's `{id_tier}` (the tiers before
    /// agentconf 0.2.0); `line` is the template's.
    by_id_tier: bool,
}

impl Declared {
    /// The values that are revisions of `op`'s draft, as a declaration of their own; `None`
    /// when it lists none of them (the draft's revisions are then not restricted).
    fn of_draft(&self, op: Operation) -> Option<Declared> {
        let draft_revisions = parse::draft_revisions(op);
        let values: Vec<String> = (self.values.iter())
            .filter(|v| draft_revisions.contains(&v.as_str()))
            .cloned()
            .collect();
        (!values.is_empty()).then_some(Declared {
            line: self.line,
            values,
            by_id_tier: false,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ExitCodes {
    line: usize,
    map: BTreeMap<i32, ExitMeaning>,
}

/// A message pattern and the rule it means, for some operations or cases.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ErrorMapping {
    line: usize,
    /// A substring of the tool's standard output or error (case-sensitive).
    pattern: String,
    rule: Rule,
    /// Only for this operation's output (absent: every operation).
    operation: Option<Operation>,
    /// Only for these case ids (empty: every case).
    vectors: Vec<String>,
}

/// A case not to run, by id or glob, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Skip {
    line: usize,
    pattern: String,
    is_glob: bool,
    reason: String,
}

/// An expected failure: an exact case id, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Listed {
    id: String,
    reason: String,
}

/// The operation a case of `suite` calls.
fn operation_of(suite: Suite) -> Operation {
    match suite {
        Suite::Aer1Receipt => Operation::Aer1Receipt,
        Suite::Aer1Timeline => Operation::Aer1Timeline,
        Suite::Aer1Workflow => Operation::Aer1Workflow,
        Suite::GrpAdmission => Operation::GrpAdmit,
        Suite::Aer1EmitTimeline => Operation::Aer1EmitTimeline,
        Suite::Aer1EmitCommitment => Operation::Aer1EmitCommitment,
        Suite::Aer1EmitReceipt => Operation::Aer1EmitReceipt,
    }
}

/// The suite of a case id (`aer1/receipt/...` is `aer1-receipt`), if it has a suite's prefix.
fn suite_of_case(id: &str) -> Option<Suite> {
    Suite::ALL.into_iter().find(|s| {
        id.strip_prefix(s.id_prefix())
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The suites whose answers cite `rule`, from its catalogue family: the verifying operations
/// and GRP decisions (an emitter's output is graded by the harness and cites nothing). `None`
/// for a family this does not know (a test holds every family of the catalogue known), which is
/// then not checked.
fn suites_citing(rule: Rule) -> Option<&'static [Suite]> {
    let family = rule.record().family.as_str();
    Some(match family {
        // Every AER-1 document is JSON read by the one strict reader.
        "aer1-json" => &[Suite::Aer1Receipt, Suite::Aer1Timeline, Suite::Aer1Workflow],
        "aer1-receipt" => &[Suite::Aer1Receipt],
        // A commitment is checked with the timeline it commits to.
        "aer1-timeline" | "aer1-commitment" => &[Suite::Aer1Timeline],
        "aer1-workflow" => &[Suite::Aer1Workflow],
        f if f.starts_with("grp-") => &[Suite::GrpAdmission],
        _ => return None,
    })
}

/// The entries of an expected-failures file (`run --xfail FILE`), checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedFailures(Vec<Listed>);

impl ExpectedFailures {
    /// Reads an expected-failures file, as `--emit-xfail` writes it (`[[xfail]]` entries with
    /// `id` and `reason`, nothing else): each id an exact case id of `known_ids`, each with a
    /// reason, none twice. Every mistake is returned, each with its line.
    pub fn parse(text: &str, known_ids: &BTreeSet<String>) -> Result<Self, AdapterErrors> {
        parse::parse_xfail_file(text, known_ids).map(ExpectedFailures)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Adapter {
    /// An adapter that only lists expected failures (`run --xfail FILE` without `--adapter`):
    /// no command, no declaration; every case runs as the contract says.
    pub fn expecting(failures: ExpectedFailures) -> Adapter {
        Adapter {
            name: None,
            command: Vec::new(),
            profiles: Vec::new(),
            store_addr: None,
            crash_on_stderr: Vec::new(),
            implements: None,
            revisions: None,
            operations: Vec::new(),
            exit_codes: None,
            error_map: Vec::new(),
            skip: Vec::new(),
            xfail: failures.0,
            one_shot_parts: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The adapter with the expected failures of a file added to its own `[[xfail]]` list: a
    /// case listed in both, or skipped by the adapter, is a mistake (`Err` names each).
    pub fn with_expected_failures(mut self, failures: ExpectedFailures) -> Result<Adapter, String> {
        let mut mistakes = Vec::new();
        for f in &failures.0 {
            if self.xfail.iter().any(|x| x.id == f.id) {
                mistakes.push(format!(
                    "{} is an expected failure of the adapter already",
                    crate::report::terminal_safe(&f.id)
                ));
            } else if self.skip_reason(&f.id).is_some() {
                mistakes.push(format!(
                    "{} is skipped by the adapter, so it would never run",
                    crate::report::terminal_safe(&f.id)
                ));
            }
        }
        if !mistakes.is_empty() {
            return Err(mistakes.join("; "));
        }
        self.xfail.extend(failures.0);
        Ok(self)
    }

    /// Reads and checks an adapter file for one-shot calls; `known_ids` are the corpus's case
    /// ids, which every skip, expected failure and per-case error map must name (a glob:
    /// match). Every mistake of the file is returned, each with its line.
    pub fn parse(text: &str, known_ids: &BTreeSet<String>) -> Result<Adapter, AdapterErrors> {
        parse::parse(text, known_ids, Mode::OneShot)
    }

    /// As [`Adapter::parse`], for a run in `mode`: in persistent mode the parts that shape
    /// one-shot calls are mistakes too, listed with the others.
    pub fn parse_for(
        text: &str,
        known_ids: &BTreeSet<String>,
        mode: Mode,
    ) -> Result<Adapter, AdapterErrors> {
        parse::parse(text, known_ids, mode)
    }

    /// What is legal in the file but probably a mistake, each line starting with its line
    /// number (`line N: …`): the front end says them before the run, and runs.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn spec(&self, op: Operation) -> Option<&OperationSpec> {
        self.operations
            .iter()
            .find(|(o, _)| *o == op)
            .map(|(_, s)| s)
    }

    /// Why the case is not run through this adapter, when it declares that the tool does not
    /// take what the case needs: its operation (`implements`, `unsupported = true`), its
    /// revision (the top-level `revisions`, or its operation's), its tier (`tiers`), or a
    /// commitment (`commitments = false`, or a timeline template without
    /// `argv_with_commitment`). Such a case is out of the declared scope, never run as
    /// something else.
    ///
    /// A timeline or GRP case is in the scope of a revision list when the revision it runs
    /// under (the one its call carries) is listed; a case of another operation, whose call
    /// carries no revision, when one of the revisions it grades is.
    pub(crate) fn declines(&self, c: &Case<'_>) -> Option<String> {
        let op = operation_of(c.vector.suite);
        let name = op.as_str();
        if let Some(i) = self
            .implements
            .as_ref()
            .filter(|i| !i.operations.contains(&op))
        {
            let listed: Vec<&str> = i.operations.iter().map(|o| o.as_str()).collect();
            return Some(format!(
                "the adapter implements {} only (line {}): {name} is unsupported",
                listed.join(", "),
                i.line
            ));
        }
        if let Some(spec) = self.spec(op).filter(|s| s.unsupported) {
            return Some(format!(
                "the adapter declares {name} unsupported (line {})",
                spec.line
            ));
        }
        if let Some(d) = self.revisions.as_ref().and_then(|r| r.of_draft(op)) {
            let carries_revision = matches!(op, Operation::Aer1Timeline | Operation::GrpAdmit);
            let in_scope = if carries_revision {
                d.values.iter().any(|v| v == c.revision)
            } else {
                c.revisions.iter().any(|r| d.values.contains(r))
            };
            if !in_scope {
                let runs = if carries_revision {
                    format!("this case runs under revision {}", c.revision)
                } else {
                    format!("this case grades revisions {}", c.revisions.join(", "))
                };
                return Some(format!(
                    "the adapter implements revisions {} (line {}); {runs}",
                    d.values.join(", "),
                    d.line
                ));
            }
        }
        let spec = self.spec(op)?;
        let needs = |d: &Declared, key: &str, value: &str| {
            (!d.values.iter().any(|v| v == value)).then(|| {
                if d.by_id_tier {
                    format!(
                        "the adapter's {name} template (line {}) writes {{id_tier}}, the tier's \
                         name before agentconf 0.2.0, so its tool takes {} only; this case needs \
                         {value} (write {{tier}} to send it every tier)",
                        d.line,
                        d.values.join(" and ")
                    )
                } else {
                    format!(
                        "the adapter's {name} takes {key} {} (line {}); this case needs {value}",
                        d.values.join(", "),
                        d.line
                    )
                }
            })
        };
        let declined = match op {
            Operation::Aer1Receipt => spec
                .tiers
                .as_ref()
                .and_then(|d| needs(d, "tiers", c.vector.options.tier().as_str())),
            Operation::Aer1Timeline | Operation::GrpAdmit => spec
                .revisions
                .as_ref()
                .and_then(|d| needs(d, "revisions", c.revision)),
            Operation::Aer1Workflow
            | Operation::Aer1EmitTimeline
            | Operation::Aer1EmitCommitment
            | Operation::Aer1EmitReceipt => None,
        };
        declined.or_else(|| {
            let commitment = c.vector.inputs.iter().any(|i| i.role == "commitment");
            if let Some(line) = spec.no_commitments.filter(|_| commitment) {
                return Some(format!(
                    "the adapter declares commitments = false for aer1-timeline (line {line}); \
                     this case has a commitment"
                ));
            }
            match (&spec.argv, &spec.argv_with_commitment) {
                (Some(t), None) if op == Operation::Aer1Timeline && commitment => Some(format!(
                    "the adapter's aer1-timeline template (line {}) takes no commitment (it has \
                     no argv_with_commitment); this case has one",
                    t.line
                )),
                _ => None,
            }
        })
    }

    /// Whether the tool is called through a template for `op` (its standard output is then its
    /// own text, not the contract's result object).
    pub(crate) fn has_template(&self, op: Operation) -> bool {
        self.spec(op).is_some_and(|s| s.argv.is_some())
    }

    /// The arguments after the command for `call`: the operation's template with the call's
    /// values filled in, or the contract's own order when it has no template.
    pub(crate) fn arguments(&self, call: &Call) -> Vec<String> {
        let spec = self.spec(call.operation());
        let commitment = matches!(
            call,
            Call::Timeline {
                commitment: Some(_),
                ..
            }
        );
        let template = spec.and_then(|s| match (&s.argv_with_commitment, commitment) {
            (Some(with), true) => Some(with),
            _ => s.argv.as_ref(),
        });
        match template {
            Some(t) => t.fill(call),
            None => call.argv(),
        }
    }

    /// The contract meaning of an exit code under this adapter: the map's when there is one
    /// (codes it does not list are crashes), else the contract's.
    /// The exit codes a call may end with, in words, for a crash's detail: the adapter's map
    /// when it has one, else the contract's.
    pub(crate) fn exit_codes_in_words(&self) -> String {
        match &self.exit_codes {
            None => agentconf_contract::exit::EXIT_CODES_IN_WORDS.to_string(),
            Some(codes) => {
                let listed: Vec<String> = codes.map.keys().map(|c| c.to_string()).collect();
                format!("the adapter's exit_codes ({})", listed.join(", "))
            }
        }
    }

    pub(crate) fn exit_meaning(&self, code: Option<i32>) -> ExitMeaning {
        let Some(codes) = &self.exit_codes else {
            return ExitMeaning::of(code);
        };
        code.and_then(|c| codes.map.get(&c).copied())
            .unwrap_or(ExitMeaning::Crash)
    }

    /// The rules the tool's messages map to, for case `id` of operation `op`.
    pub(crate) fn mapped_rules(&self, op: Operation, id: &str, output: &str) -> Vec<Rule> {
        let mut rules = Vec::new();
        for m in &self.error_map {
            let applies = m.operation.is_none_or(|o| o == op)
                && (m.vectors.is_empty() || m.vectors.iter().any(|v| v == id));
            if applies && output.contains(&m.pattern) && !rules.contains(&m.rule) {
                rules.push(m.rule);
            }
        }
        rules
    }

    /// The first `crash_on_stderr` pattern in `stderr`, if any.
    pub(crate) fn crash_pattern(&self, stderr: &[u8]) -> Option<&str> {
        self.crash_on_stderr
            .iter()
            .find(|p| {
                let p = p.as_bytes();
                // Patterns are never empty (checked when read); `windows(0)` would panic.
                !p.is_empty() && stderr.windows(p.len()).any(|w| w == p)
            })
            .map(String::as_str)
    }

    /// Why the case is skipped, by an exact id or a glob.
    pub(crate) fn skip_reason(&self, id: &str) -> Option<&str> {
        self.skip
            .iter()
            .find(|s| {
                if s.is_glob {
                    glob::matches(&s.pattern, id)
                } else {
                    s.pattern == id
                }
            })
            .map(|s| s.reason.as_str())
    }

    pub(crate) fn xfail_reason(&self, id: &str) -> Option<&str> {
        self.xfail
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.reason.as_str())
    }

    /// `Err` naming every part of the adapter that shapes one-shot calls — a template, the
    /// exit-code map, an error map — since a persistent server is sent the contract's requests
    /// and answers with exit numbers and catalogue ids of its own. Everything else (command,
    /// profiles, declarations, skips, expected failures, crash patterns) applies in both modes.
    /// [`Adapter::parse_for`] in [`Mode::Persistent`] says the same with the file's other
    /// mistakes.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn check_persistent(&self) -> Result<(), AdapterErrors> {
        match AdapterErrors::of(parse::refused_in_persistent_mode(&self.one_shot_parts)) {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }
}

/// The expected-failures file a run's results start: one entry for each unexpected result but an
/// unexpected pass (an `xpass` is a listed failure that now passes: it belongs off the list, not
/// on it), each with the status it failed as. `run --emit-xfail` writes it from the run's lines,
/// `report --emit-xfail` from a results file's.
pub fn xfail_toml_for(results: &[crate::results::ResultLine]) -> String {
    let failing: Vec<(String, String)> = results
        .iter()
        .filter(|r| r.status.is_unexpected() && r.status != crate::status::Status::Xpass)
        .map(|r| (r.id.clone(), r.status.name().to_string()))
        .collect();
    xfail_toml(&failing)
}

/// An expected-failures file for the vectors that did not pass, as a starting point.
pub(crate) fn xfail_toml(failures: &[(String, String)]) -> String {
    let mut out = String::from(
        "# Expected failures written by `agentconf run --emit-xfail`. Every entry needs a real reason;\n\
         # an expected failure that passes, or an unknown id, fails the run.\n",
    );
    for (id, status) in failures {
        out.push_str(&format!(
            "\n[[xfail]]\nid = {}\nreason = {}\n",
            toml_string(id),
            toml_string(&format!("failed as {status} when this file was written"))
        ));
    }
    out
}

fn toml_string(s: &str) -> String {
    // A basic TOML string: escape backslash and quote; ids and statuses have no control chars.
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
