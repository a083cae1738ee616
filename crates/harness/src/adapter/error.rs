//! What can be wrong with an adapter file, and where: every mistake is refused before anything
//! runs, with the line it is on and a message that names the key, table or placeholder at fault.
//! A file is checked whole, so [`AdapterErrors`] lists every mistake at once.

use std::fmt;

use agentconf_contract::call::Operation;
use agentconf_contract::vector::Suite;

use super::template::Placeholder;

/// An adapter file that cannot be used as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterError {
    /// The 1-based line of the file the problem is on (absent only when the TOML reader gives
    /// no position).
    pub(crate) line: Option<usize>,
    pub(crate) problem: Problem,
}

impl AdapterError {
    pub(crate) fn at(line: usize, problem: Problem) -> AdapterError {
        AdapterError {
            line: Some(line),
            problem,
        }
    }
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.problem),
            None => write!(f, "{}", self.problem),
        }
    }
}

impl std::error::Error for AdapterError {}

/// Every mistake of an adapter file, in the order of its lines (never empty): fixing them top
/// to bottom needs one run, not one run per mistake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterErrors(Vec<AdapterError>);

impl AdapterErrors {
    pub(crate) fn one(mistake: AdapterError) -> AdapterErrors {
        AdapterErrors(vec![mistake])
    }

    /// `None` when there is no mistake.
    pub(crate) fn of(mut mistakes: Vec<AdapterError>) -> Option<AdapterErrors> {
        // Stable: mistakes of one line keep the order they were found in.
        mistakes.sort_by_key(|e| e.line);
        (!mistakes.is_empty()).then_some(AdapterErrors(mistakes))
    }

    pub fn all(&self) -> &[AdapterError] {
        &self.0
    }

    /// The mistake on the earliest line.
    #[cfg(test)]
    pub(crate) fn first(&self) -> &AdapterError {
        // `of` never builds an empty list.
        &self.0[0]
    }
}

/// One mistake per line of text.
impl fmt::Display for AdapterErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, e) in self.0.iter().enumerate() {
            if n > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AdapterErrors {}

/// One mistake. Values copied from the file are clipped and their control characters escaped
/// when shown, so a message stays one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Not TOML, a value of the wrong type, or a key the format does not have (the TOML
    /// reader's own words).
    Toml(String),
    /// `[operations.NAME]` with a name that is not an operation.
    UnknownOperation(String),
    /// `{name}` in a template, where `name` is not one of the operation's placeholders.
    UnknownPlaceholder {
        operation: Operation,
        key: &'static str,
        name: String,
    },
    /// `{commitment}` in `argv`, which runs the cases that have no commitment.
    CommitmentOutsideItsTemplate,
    /// A template that never hands the tool the case's input.
    MissingInput {
        operation: Operation,
        key: &'static str,
        placeholder: Placeholder,
    },
    /// A template without `{tier}` / `{revision}`, and no single value declared for it.
    MissingValue {
        operation: Operation,
        key: &'static str,
        placeholder: Placeholder,
    },
    /// A template without `{tier}` / `{revision}` while the declaration lists several values.
    IndistinctValues {
        operation: Operation,
        key: &'static str,
        placeholder: Placeholder,
        values: Vec<String>,
    },
    /// A value in `tiers` or `revisions` that the operation does not have.
    UnknownValue {
        operation: Operation,
        key: &'static str,
        value: String,
        valid: &'static [&'static str],
    },
    /// A receipt template written with `{id_tier}` (sent `core` and `strict` only) beside a
    /// `tiers` list naming a tier added since.
    IdTierWithNewerTiers {
        tiers_line: usize,
        newer: Vec<String>,
    },
    /// `tiers = []` or `revisions = []`.
    EmptyDeclaration {
        operation: Operation,
        key: &'static str,
    },
    /// A key of `[operations.X]` that this operation does not take.
    NotForOperation {
        operation: Operation,
        key: &'static str,
    },
    /// A name in `implements` that is not an operation.
    UnknownImplemented(String),
    /// `implements = []`: a tool that implements nothing has nothing to run.
    NothingImplemented,
    /// An `[operations.X]` table for an operation `implements` leaves out (its cases are
    /// unsupported already), or one declaring `unsupported = true` for an operation it lists.
    OutsideImplements {
        operation: Operation,
        implements_line: usize,
        listed: bool,
    },
    /// `unsupported = true` beside a key that would then never be used.
    UnsupportedWithOthers {
        operation: Operation,
        key: &'static str,
    },
    /// `argv_with_commitment` without `argv`.
    CommitmentTemplateAlone,
    ExitCodeNotANumber(String),
    ExitCodeMeaning {
        code: String,
        meaning: String,
    },
    UnknownRule(String),
    /// A rule id the catalogue withdrew, where a current rule (`error_map`) or a case id
    /// (`skip`, `xfail`) belongs; `successors` are the current rules its record names.
    RetiredRule {
        key: &'static str,
        id: String,
        retired_in: String,
        successors: Vec<&'static str>,
    },
    /// An error map that reports a rule for an operation whose answers never cite it (a
    /// receipt rule on workflow output); `suites` are the suites whose answers do.
    RuleOfAnotherSuite {
        rule: &'static str,
        operations: Vec<Operation>,
        suites: &'static [Suite],
    },
    /// An empty `error_map` or `crash_on_stderr` pattern (it would match every output).
    EmptyPattern {
        key: &'static str,
    },
    /// An error map scoped to something that is not an AER-1 operation.
    NotAnErrorMapOperation(String),
    UnknownProfile(String),
    /// `[grp] store_addr` that is not `HOST:PORT`.
    StoreAddress(String),
    /// A vector id that was renamed; `now` is its new name.
    RetiredId {
        key: &'static str,
        id: String,
        now: &'static str,
    },
    /// An id that names no case of the corpus.
    UnknownCase {
        key: &'static str,
        id: String,
    },
    /// An expected failure given as a pattern.
    ExpectedFailureNotExact(String),
    /// An `[[xfail]]` entry without an `id`.
    ExpectedFailureWithoutId,
    /// A skip with both or neither of `id` and `glob`.
    SkipTarget {
        both: bool,
    },
    GlobMatchesNothing(String),
    NoReason {
        key: &'static str,
        id: String,
    },
    ListedTwice {
        id: String,
        first_line: usize,
    },
    /// An expected failure that a skip glob covers: it would never run.
    ExpectedFailureSkipped {
        id: String,
        glob: String,
        glob_line: usize,
    },
    /// A part of the adapter that shapes one-shot calls, in a persistent run.
    NotInPersistentMode {
        part: String,
    },
    /// A value of the top-level `revisions` that is no revision of either draft.
    UnknownRevision {
        value: String,
        valid: String,
    },
    /// The top-level `revisions = []`.
    NoRevisions,
    /// An operation's `revisions` names a revision of its draft that the top-level list leaves
    /// out: its cases would never be in scope.
    RevisionOutsideScope {
        operation: Operation,
        value: String,
        scope_line: usize,
    },
    /// `commitments = false` beside an `argv_with_commitment`, or `commitments = true` for a
    /// template without one.
    CommitmentsContradicted {
        declared: bool,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Toml(message) => write!(f, "{}", one_line(message)),
            Problem::UnknownOperation(name) => write!(
                f,
                "[operations.{}] is not an operation; the operations are {}",
                shown(name),
                operation_names(&Operation::ALL)
            ),
            Problem::UnknownPlaceholder {
                operation,
                key,
                name,
            } => write!(
                f,
                "{{{}}} in the {} {key} is not a placeholder; the placeholders of {} are {}",
                shown(name),
                operation.as_str(),
                operation.as_str(),
                Placeholder::names(Placeholder::of(*operation))
            ),
            Problem::CommitmentOutsideItsTemplate => write!(
                f,
                "{{commitment}} in the aer1-timeline argv has no value: argv runs the cases \
                 without a commitment; name it in argv_with_commitment"
            ),
            Problem::MissingInput {
                operation,
                key,
                placeholder,
            } => write!(
                f,
                "the {} {key} does not name {}: the tool would never see the case's input",
                operation.as_str(),
                placeholder.name()
            ),
            Problem::MissingValue {
                operation,
                key,
                placeholder,
            } => {
                let (list, example, what) = declaration(*operation, *placeholder);
                write!(
                    f,
                    "the {} {key} does not name {}: every case would run as one {what}, whatever \
                     it needs. Name {}, or declare the one {what} the tool takes, e.g. \
                     {list} = [\"{example}\"] (cases under another are then unsupported)",
                    operation.as_str(),
                    placeholder.name(),
                    placeholder.name()
                )
            }
            Problem::IndistinctValues {
                operation,
                key,
                placeholder,
                values,
            } => {
                let (list, _, what) = declaration(*operation, *placeholder);
                write!(
                    f,
                    "the {} {key} does not name {}, but {list} lists {}: the tool could not tell \
                     them apart. Name {}, or list one {what}",
                    operation.as_str(),
                    placeholder.name(),
                    values.join(", "),
                    placeholder.name()
                )
            }
            Problem::UnknownValue {
                operation,
                key,
                value,
                valid,
            } => write!(
                f,
                "\"{}\" in {key} is not a value {} takes; use {}",
                shown(value),
                operation.as_str(),
                valid.join(", ")
            ),
            Problem::IdTierWithNewerTiers { tiers_line, newer } => write!(
                f,
                "the aer1-receipt argv writes {{id_tier}}, the tier's name before agentconf \
                 0.2.0, which is sent {} only, but tiers (line {tiers_line}) lists {}: write \
                 {{tier}} for a tool that takes every tier",
                Placeholder::ID_TIER_VALUES.join(" and "),
                newer
                    .iter()
                    .map(|t| shown(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Problem::EmptyDeclaration { operation, key } => write!(
                f,
                "{key} of {} is empty; to say the tool takes none, write unsupported = true",
                operation.as_str()
            ),
            Problem::NotForOperation { operation, key } => write!(
                f,
                "{key} does not apply to {}: {}",
                operation.as_str(),
                why_not(*operation, key)
            ),
            Problem::UnknownImplemented(name) => write!(
                f,
                "\"{}\" in implements is not an operation; the operations are {}",
                shown(name),
                operation_names(&Operation::ALL)
            ),
            Problem::NothingImplemented => write!(
                f,
                "implements is empty: list the operations the tool implements (the others are \
                 unsupported)"
            ),
            Problem::OutsideImplements {
                operation,
                implements_line,
                listed: false,
            } => write!(
                f,
                "[operations.{}] is for an operation implements (line {implements_line}) leaves \
                 out, so its cases are unsupported already: add it to implements, or remove the \
                 table",
                operation.as_str()
            ),
            Problem::OutsideImplements {
                operation,
                implements_line,
                listed: true,
            } => write!(
                f,
                "{} is declared unsupported = true, but implements (line {implements_line}) lists \
                 it: remove one",
                operation.as_str()
            ),
            Problem::UnsupportedWithOthers { operation, key } => write!(
                f,
                "{} is declared unsupported = true, so its {key} would never be used; remove one",
                operation.as_str()
            ),
            Problem::CommitmentTemplateAlone => write!(
                f,
                "argv_with_commitment needs argv, the template of the cases without a commitment"
            ),
            Problem::ExitCodeNotANumber(code) => {
                write!(f, "exit code \"{}\" is not a number", shown(code))
            }
            Problem::ExitCodeMeaning { code, meaning } => write!(
                f,
                "exit code {} maps to \"{}\"; use accept, reject or unsupported",
                shown(code),
                shown(meaning)
            ),
            Problem::UnknownRule(rule) => write!(
                f,
                "error_map rule \"{}\" is not a catalogue id (agentconf rules lists them)",
                shown(rule)
            ),
            Problem::RetiredRule {
                key,
                id,
                retired_in,
                successors,
            } => {
                write!(
                    f,
                    "{key} \"{}\" is a rule id retired in {}; ",
                    shown(id),
                    shown(retired_in)
                )?;
                if successors.is_empty() {
                    write!(f, "no rule took its place (agentconf rules says why)")?;
                } else {
                    write!(f, "replaced by {}", successors.join(", "))?;
                }
                if *key != "error_map rule" {
                    write!(f, "; {key} takes case ids, not rule ids")?;
                }
                Ok(())
            }
            Problem::RuleOfAnotherSuite {
                rule,
                operations,
                suites,
            } => {
                let cited_by: Vec<&str> = suites.iter().map(|s| s.as_str()).collect();
                let reads = operation_names(operations);
                write!(
                    f,
                    "error_map rule {rule} is cited by {} answers only, but the mapping reads \
                     {reads} output: ",
                    cited_by.join(", ")
                )?;
                match suites
                    .iter()
                    .map(|s| super::operation_of(*s))
                    .find(|o| ERROR_MAP_OPERATIONS.contains(o))
                {
                    Some(op) => write!(
                        f,
                        "scope it with operation = \"{}\", or map a rule of {reads}",
                        op.as_str()
                    ),
                    None => write!(
                        f,
                        "an error map cannot report it (a GRP decision names its own rule)"
                    ),
                }
            }
            Problem::EmptyPattern { key } => {
                write!(f, "an empty {key} pattern would match every output")
            }
            Problem::NotAnErrorMapOperation(name) => write!(
                f,
                "error_map operation \"{}\" is not an operation whose output an error map reads; \
                 use {}",
                shown(name),
                operation_names(&ERROR_MAP_OPERATIONS)
            ),
            Problem::UnknownProfile(p) => write!(
                f,
                "unknown profile \"{}\"; the profiles are {}",
                shown(p),
                agentconf_contract::vector::PROFILES.join(", ")
            ),
            Problem::StoreAddress(a) => write!(
                f,
                "store_addr \"{}\" is not HOST:PORT (the address of the store the receiver's \
                 cluster nodes share)",
                shown(a)
            ),
            Problem::RetiredId { key, id, now } => write!(
                f,
                "{key} names \"{}\", a retired vector id; it is now {now}",
                shown(id)
            ),
            Problem::UnknownCase { key, id } => write!(
                f,
                "{key} \"{}\" names no case of the corpus (ids are exact; a skip can take a \
                 glob = \"...\" instead)",
                shown(id)
            ),
            Problem::ExpectedFailureNotExact(id) => write!(
                f,
                "xfail \"{}\" is a pattern: expected failures are exact case ids, one entry per \
                 case, so that each one that starts to pass is reported",
                shown(id)
            ),
            Problem::ExpectedFailureWithoutId => {
                write!(f, "an xfail needs id, the exact id of one case")
            }
            Problem::SkipTarget { both: true } => {
                write!(f, "a skip has both id and glob; give one")
            }
            Problem::SkipTarget { both: false } => {
                write!(f, "a skip needs id (one case) or glob (a pattern)")
            }
            Problem::GlobMatchesNothing(glob) => write!(
                f,
                "skip glob \"{}\" matches no case of the corpus",
                shown(glob)
            ),
            Problem::NoReason { key, id } => {
                write!(f, "{key} \"{}\" has no reason", shown(id))
            }
            Problem::ListedTwice { id, first_line } => write!(
                f,
                "\"{}\" is listed twice (first at line {first_line})",
                shown(id)
            ),
            Problem::ExpectedFailureSkipped {
                id,
                glob,
                glob_line,
            } => write!(
                f,
                "xfail \"{}\" is also skipped by glob \"{}\" (line {glob_line}), so it would never \
                 run; remove one",
                shown(id),
                shown(glob)
            ),
            Problem::UnknownRevision { value, valid } => write!(
                f,
                "\"{}\" in revisions is not a revision of either draft; use {valid}",
                shown(value)
            ),
            Problem::NoRevisions => write!(
                f,
                "revisions is empty: list the revisions the tool implements (leave the key out \
                 for every revision)"
            ),
            Problem::RevisionOutsideScope {
                operation,
                value,
                scope_line,
            } => write!(
                f,
                "{} takes revision {}, which the top-level revisions (line {scope_line}) leave \
                 out, so its cases would never be in scope: add it there, or remove it here",
                operation.as_str(),
                shown(value)
            ),
            Problem::CommitmentsContradicted { declared: false } => write!(
                f,
                "commitments = false, but argv_with_commitment is given: remove one"
            ),
            Problem::CommitmentsContradicted { declared: true } => write!(
                f,
                "commitments = true, but the template has no argv_with_commitment to pass the \
                 commitment with: add one, or write commitments = false"
            ),
            Problem::NotInPersistentMode { part } => write!(
                f,
                "{part} cannot apply with --persistent: a persistent server is sent the \
                 contract's requests and answers in the contract's terms (CONTRACT.md section 8); \
                 remove it, or run without --persistent"
            ),
        }
    }
}

/// The operations whose output an error map reads: GRP decisions name their own rule.
pub(crate) const ERROR_MAP_OPERATIONS: [Operation; 3] = [
    Operation::Aer1Receipt,
    Operation::Aer1Timeline,
    Operation::Aer1Workflow,
];

fn operation_names(ops: &[Operation]) -> String {
    ops.iter()
        .map(|o| o.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The declaration that stands in for a value placeholder: its key, an example (the newest
/// revision of the operation's draft), what it lists.
fn declaration(operation: Operation, p: Placeholder) -> (&'static str, &'static str, &'static str) {
    use agentconf_rules::draft_revisions::{AER1, GRP};
    let draft = if operation == Operation::GrpAdmit {
        GRP
    } else {
        AER1
    };
    match p {
        Placeholder::Tier => ("tiers", "core", "tier"),
        _ => (
            "revisions",
            agentconf_rules::Revisions::embedded().newest(draft),
            "revision",
        ),
    }
}

fn why_not(operation: Operation, key: &str) -> &'static str {
    match (operation, key) {
        (Operation::GrpAdmit, "argv") => {
            "a receiver speaks the contract's stream (CONTRACT.md section 5), so it is always \
             started in the contract's argument order, after the adapter's command"
        }
        (_, "tiers") => "only aer1-receipt takes a tier",
        (_, "revisions") => "only aer1-timeline and grp-admit take a revision",
        (_, "argv_with_commitment" | "commitments") => "only aer1-timeline takes a commitment",
        _ => "it has no such key",
    }
}

/// A value from the file, for a message: at most 120 characters, made terminal-safe by the
/// reports' own helpers (control and bidirectional characters escaped).
fn shown(s: &str) -> String {
    crate::report::terminal_safe(&crate::report::clip(s, 120))
}

/// The TOML reader's message on one line.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}
