//! Reading an adapter file: the TOML as written (every value with its position), then every
//! check that turns it into an [`Adapter`]. A mistake is kept with its line and checking goes
//! on, so that the file's mistakes are all named at once.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use agentconf_contract::call::Operation;
use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::vector::PROFILES;
use agentconf_rules::Rule;

use super::error::{AdapterError, AdapterErrors, Problem, ERROR_MAP_OPERATIONS};
use super::template::{parse_argument, Placeholder, Segment, Template};
use super::{
    glob, operation_of, Adapter, Declared, ErrorMapping, ExitCodes, Implements, Listed, Mode,
    OperationSpec, Skip,
};

// ------------------------------------------------------------------------------------------------
// The file as written. Every key is listed here, and any other is refused by the TOML reader.

type Text = Spanned<String>;
type List = Spanned<Vec<Text>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    profiles: Vec<Text>,
    #[serde(default)]
    crash_on_stderr: Vec<Text>,
    /// The operations the tool implements; every other one is out of scope.
    implements: Option<List>,
    /// The draft revisions the tool implements; cases under another are out of scope.
    revisions: Option<List>,
    #[serde(default)]
    operations: BTreeMap<Text, Spanned<OperationTable>>,
    exit_codes: Option<Spanned<BTreeMap<Text, Text>>>,
    #[serde(default)]
    error_map: Vec<Spanned<ErrorMapTable>>,
    #[serde(default)]
    skip: Vec<Spanned<ListedTable>>,
    #[serde(default)]
    xfail: Vec<Spanned<ListedTable>>,
    grp: Option<GrpTable>,
}

/// An expected-failures file (`run --xfail FILE`): what `--emit-xfail` writes, `[[xfail]]`
/// entries and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct XfailFile {
    #[serde(default)]
    xfail: Vec<Spanned<ListedTable>>,
}

/// Reads an expected-failures file: each entry checked as an adapter's `[[xfail]]` is (an exact
/// case id of the corpus, a reason, named once), every mistake named with its line.
pub(super) fn parse_xfail_file(
    text: &str,
    known_ids: &BTreeSet<String>,
) -> Result<Vec<Listed>, AdapterErrors> {
    let lines = Lines(text);
    let file: XfailFile = toml::from_str(text).map_err(|e| {
        AdapterErrors::one(AdapterError {
            line: e.span().map(|s| lines.at(s.start)),
            problem: Problem::Toml(e.message().to_string()),
        })
    })?;
    let mut mistakes = Mistakes::default();
    let mut named = Named::default();
    let xfail: Vec<Listed> = (file.xfail.iter())
        .filter_map(|entry| xfail_entry(entry, known_ids, &lines, &[], &mut named, &mut mistakes))
        .collect();
    match AdapterErrors::of(mistakes.0) {
        Some(errors) => Err(errors),
        None => Ok(xfail),
    }
}

/// `[grp]`: what the harness needs to know of a GRP receiver beyond its operation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GrpTable {
    /// `HOST:PORT` of the store the receiver's cluster nodes share (CONTRACT.md 12.5).
    store_addr: Option<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationTable {
    argv: Option<List>,
    argv_with_commitment: Option<List>,
    unsupported: Option<Spanned<bool>>,
    tiers: Option<List>,
    revisions: Option<List>,
    /// `aer1-timeline`: whether the tool checks external commitments (`false`: the cases with
    /// one are out of scope).
    commitments: Option<Spanned<bool>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorMapTable {
    pattern: Text,
    rule: Text,
    #[serde(default)]
    vectors: Vec<Text>,
    operation: Option<Text>,
}

/// A `[[skip]]` or `[[xfail]]` entry; which keys each may have is checked after reading, so
/// that a mistake gets a message of its own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListedTable {
    id: Option<Text>,
    glob: Option<Text>,
    reason: Option<Text>,
}

// ------------------------------------------------------------------------------------------------
// Checking

/// The revisions of `op`'s draft (AER-1 for every operation but `grp-admit`).
pub(super) fn draft_revisions(op: Operation) -> &'static [&'static str] {
    known_revisions(op)
}

/// The revisions an operation takes, as the contract passes them: the revisions table's.
fn known_revisions(op: Operation) -> &'static [&'static str] {
    use agentconf_rules::draft_revisions::{AER1, GRP};
    use std::sync::OnceLock;
    static AER1_REVISIONS: OnceLock<Vec<&'static str>> = OnceLock::new();
    static GRP_REVISIONS: OnceLock<Vec<&'static str>> = OnceLock::new();
    let table = agentconf_rules::Revisions::embedded();
    if op == Operation::GrpAdmit {
        GRP_REVISIONS.get_or_init(|| table.numbers(GRP))
    } else {
        AER1_REVISIONS.get_or_init(|| table.numbers(AER1))
    }
}

/// The contract's tiers (`Tier::ALL`, as a test checks).
pub(super) const TIERS: &[&str] = &["core", "strict", "anchored", "profile"];

/// Where things are: byte offsets to 1-based lines.
struct Lines<'a>(&'a str);

impl Lines<'_> {
    fn of<T>(&self, s: &Spanned<T>) -> usize {
        self.at(s.span().start)
    }

    fn at(&self, offset: usize) -> usize {
        let end = offset.min(self.0.len());
        // A span starts on a character boundary; `get` keeps a bad one from panicking.
        self.0.get(..end).map_or(0, |t| t.matches('\n').count()) + 1
    }
}

/// The mistakes found so far. Checking goes on past each one, so that one run names every
/// mistake of the file.
#[derive(Default)]
struct Mistakes(Vec<AdapterError>);

impl Mistakes {
    fn add(&mut self, line: usize, problem: Problem) {
        self.0.push(AdapterError::at(line, problem));
    }

    /// How many so far: a part that added none is sound.
    fn count(&self) -> usize {
        self.0.len()
    }
}

pub(super) fn parse(
    text: &str,
    known_ids: &BTreeSet<String>,
    mode: Mode,
) -> Result<Adapter, AdapterErrors> {
    let lines = Lines(text);
    // The TOML reader stops at its first error: without the file nothing else can be checked.
    let file: File = toml::from_str(text).map_err(|e| {
        AdapterErrors::one(AdapterError {
            line: e.span().map(|s| lines.at(s.start)),
            problem: Problem::Toml(e.message().to_string()),
        })
    })?;
    let mut mistakes = Mistakes::default();

    let profiles = profiles(&file.profiles, &lines, &mut mistakes);
    let store_addr = (file.grp.as_ref())
        .and_then(|g| g.store_addr.as_ref())
        .and_then(|a| store_addr(a, &lines, &mut mistakes));
    let crash_on_stderr = crash_patterns(&file.crash_on_stderr, &lines, &mut mistakes);
    let implements = file
        .implements
        .as_ref()
        .map(|list| implemented(list, &lines, &mut mistakes));
    let revisions = file
        .revisions
        .as_ref()
        .map(|list| top_revisions(list, &lines, &mut mistakes));
    let mut operations = Vec::new();
    for (name, table) in &file.operations {
        match Operation::parse(name.get_ref()) {
            Some(op) => {
                if let Some(problem) = implements.as_ref().and_then(|i| outside(i, op, table)) {
                    mistakes.add(lines.of(name), problem);
                }
                let scope = revisions.as_ref().and_then(|r| r.of_draft(op));
                operations.push((op, operation(op, table, scope, &lines, &mut mistakes)));
            }
            None => mistakes.add(
                lines.of(name),
                Problem::UnknownOperation(name.get_ref().clone()),
            ),
        }
    }
    let exit_codes = file
        .exit_codes
        .as_ref()
        .map(|table| exit_codes(table, &lines, &mut mistakes));
    let error_map: Vec<ErrorMapping> = (file.error_map.iter())
        .filter_map(|entry| error_mapping(entry, known_ids, &lines, &mut mistakes))
        .collect();
    // Skips, then expected failures: each names a case once, and no expected failure is hidden
    // by a skip.
    let mut named = Named::default();
    let skip: Vec<Skip> = (file.skip.iter())
        .filter_map(|entry| skip_entry(entry, known_ids, &lines, &mut named, &mut mistakes))
        .collect();
    let xfail: Vec<Listed> = (file.xfail.iter())
        .filter_map(|entry| xfail_entry(entry, known_ids, &lines, &skip, &mut named, &mut mistakes))
        .collect();
    let warnings = unscoped_error_maps(&error_map, implements.as_ref(), &operations);
    let one_shot_parts = one_shot_parts(&file, &lines);
    if mode == Mode::Persistent {
        mistakes
            .0
            .extend(refused_in_persistent_mode(&one_shot_parts));
    }

    if let Some(errors) = AdapterErrors::of(mistakes.0) {
        return Err(errors);
    }
    Ok(Adapter {
        name: file.name,
        command: file.command,
        profiles,
        store_addr,
        crash_on_stderr,
        implements,
        revisions,
        operations,
        exit_codes,
        error_map,
        skip,
        xfail,
        one_shot_parts,
        warnings,
    })
}

/// Warnings (never mistakes) for error maps that read every operation (no `operation`, no
/// `vectors`) and report a rule that some operation the tool implements cannot cite: a receipt
/// rule mapped from a message the tool's timeline answers print too reads as a wrong reason on
/// every such timeline case.
fn unscoped_error_maps(
    maps: &[ErrorMapping],
    implements: Option<&Implements>,
    operations: &[(Operation, OperationSpec)],
) -> Vec<String> {
    let used: Vec<Operation> = ERROR_MAP_OPERATIONS
        .into_iter()
        .filter(|op| implements.is_none_or(|i| i.operations.contains(op)))
        .filter(|op| !operations.iter().any(|(o, s)| o == op && s.unsupported))
        .collect();
    let mut out = Vec::new();
    for m in maps
        .iter()
        .filter(|m| m.operation.is_none() && m.vectors.is_empty())
    {
        let Some(suites) = super::suites_citing(m.rule) else {
            continue;
        };
        let cites = |op: &Operation| suites.iter().any(|s| operation_of(*s) == *op);
        let wrong: Vec<&str> = used
            .iter()
            .filter(|op| !cites(op))
            .map(|o| o.as_str())
            .collect();
        let Some(right) = used.iter().find(|op| cites(op)) else {
            // No operation in use cites it: with an `implements` list that is no mistake of the
            // map (every operation it could serve is out of scope), but it maps nothing right.
            if !wrong.is_empty() {
                out.push(format!(
                    "line {}: error_map rule {} is cited by {} answers only, which this tool does \
                     not give: the mapping reads {} output, whose answers never cite it",
                    m.line,
                    m.rule.id(),
                    suites
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    wrong.join(", ")
                ));
            }
            continue;
        };
        if !wrong.is_empty() {
            out.push(format!(
                "line {}: error_map rule {} (pattern \"{}\") has no operation, so it also reads {} \
                 output, whose answers never cite it: a match there grades the case on a rule of \
                 another suite. Scope it with operation = \"{}\"",
                m.line,
                m.rule.id(),
                crate::report::terminal_safe(&crate::report::clip(&m.pattern, 60)),
                wrong.join(", "),
                right.as_str()
            ));
        }
    }
    out
}

/// `implements = [...]`: operation names, at least one; unknown names are mistakes.
fn implemented(list: &List, lines: &Lines<'_>, mistakes: &mut Mistakes) -> Implements {
    if list.get_ref().is_empty() {
        mistakes.add(lines.of(list), Problem::NothingImplemented);
    }
    let mut operations = Vec::new();
    for name in list.get_ref() {
        match Operation::parse(name.get_ref()) {
            Some(op) if !operations.contains(&op) => operations.push(op),
            Some(_) => {}
            None => mistakes.add(
                lines.of(name),
                Problem::UnknownImplemented(name.get_ref().clone()),
            ),
        }
    }
    Implements {
        line: lines.of(list),
        operations,
    }
}

/// The top-level `revisions = [...]`: revisions of either draft (the revisions table's), at
/// least one.
fn top_revisions(list: &List, lines: &Lines<'_>, mistakes: &mut Mistakes) -> Declared {
    use agentconf_rules::draft_revisions::{AER1, GRP};
    if list.get_ref().is_empty() {
        mistakes.add(lines.of(list), Problem::NoRevisions);
    }
    let table = agentconf_rules::Revisions::embedded();
    let (aer1, grp) = (table.numbers(AER1), table.numbers(GRP));
    let mut values = Vec::new();
    for v in list.get_ref() {
        let value = v.get_ref();
        if aer1.contains(&value.as_str()) || grp.contains(&value.as_str()) {
            if !values.contains(value) {
                values.push(value.clone());
            }
        } else {
            mistakes.add(
                lines.of(v),
                Problem::UnknownRevision {
                    value: value.clone(),
                    valid: format!("{} (AER-1) or {} (GRP)", aer1.join(", "), grp.join(", ")),
                },
            );
        }
    }
    Declared {
        line: lines.of(list),
        values,
        by_id_tier: false,
    }
}

/// An `[operations.X]` table that contradicts `implements`, or that it makes pointless.
fn outside(
    implements: &Implements,
    op: Operation,
    table: &Spanned<OperationTable>,
) -> Option<Problem> {
    let listed = implements.operations.contains(&op);
    let unsupported = table
        .get_ref()
        .unsupported
        .as_ref()
        .is_some_and(|u| *u.get_ref());
    (!listed || unsupported).then_some(Problem::OutsideImplements {
        operation: op,
        implements_line: implements.line,
        listed,
    })
}

fn profiles(list: &[Text], lines: &Lines<'_>, mistakes: &mut Mistakes) -> Vec<String> {
    let mut out = Vec::new();
    for p in list {
        if PROFILES.contains(&p.get_ref().as_str()) {
            out.push(p.get_ref().clone());
        } else {
            mistakes.add(lines.of(p), Problem::UnknownProfile(p.get_ref().clone()));
        }
    }
    out
}

/// `HOST:PORT`, the port a number: the address the harness's proxies forward to.
fn store_addr(addr: &Text, lines: &Lines<'_>, mistakes: &mut Mistakes) -> Option<String> {
    let text = addr.get_ref();
    let well_formed = text
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if well_formed {
        Some(text.clone())
    } else {
        mistakes.add(lines.of(addr), Problem::StoreAddress(text.clone()));
        None
    }
}

fn crash_patterns(list: &[Text], lines: &Lines<'_>, mistakes: &mut Mistakes) -> Vec<String> {
    let mut out = Vec::new();
    for p in list {
        if p.get_ref().is_empty() {
            mistakes.add(
                lines.of(p),
                Problem::EmptyPattern {
                    key: "crash_on_stderr",
                },
            );
        } else {
            out.push(p.get_ref().clone());
        }
    }
    out
}

fn exit_codes(
    table: &Spanned<BTreeMap<Text, Text>>,
    lines: &Lines<'_>,
    mistakes: &mut Mistakes,
) -> ExitCodes {
    let mut map = BTreeMap::new();
    for (code, meaning) in table.get_ref() {
        let number = code.get_ref().parse::<i32>();
        if number.is_err() {
            mistakes.add(
                lines.of(code),
                Problem::ExitCodeNotANumber(code.get_ref().clone()),
            );
        }
        let m = match meaning.get_ref().as_str() {
            "accept" => Some(ExitMeaning::Accept),
            "reject" => Some(ExitMeaning::Reject),
            "unsupported" => Some(ExitMeaning::Unsupported),
            other => {
                mistakes.add(
                    lines.of(meaning),
                    Problem::ExitCodeMeaning {
                        code: code.get_ref().clone(),
                        meaning: other.to_string(),
                    },
                );
                None
            }
        };
        if let (Ok(number), Some(m)) = (number, m) {
            map.insert(number, m);
        }
    }
    ExitCodes {
        line: lines.of(table),
        map,
    }
}

/// One `[[error_map]]` entry, when it has no mistake.
fn error_mapping(
    entry: &Spanned<ErrorMapTable>,
    known_ids: &BTreeSet<String>,
    lines: &Lines<'_>,
    mistakes: &mut Mistakes,
) -> Option<ErrorMapping> {
    let before = mistakes.count();
    let m = entry.get_ref();
    let rule = rule_id(&m.rule, lines, mistakes);
    if m.pattern.get_ref().is_empty() {
        mistakes.add(
            lines.of(&m.pattern),
            Problem::EmptyPattern {
                key: "error_map pattern",
            },
        );
    }
    // `None`: every operation; a name that is not an error map's operation is a mistake.
    let (operation, operation_known) = match &m.operation {
        None => (None, true),
        Some(name) => {
            match Operation::parse(name.get_ref()).filter(|o| ERROR_MAP_OPERATIONS.contains(o)) {
                Some(op) => (Some(op), true),
                None => {
                    mistakes.add(
                        lines.of(name),
                        Problem::NotAnErrorMapOperation(name.get_ref().clone()),
                    );
                    (None, false)
                }
            }
        }
    };
    for id in &m.vectors {
        known_case("error_map vectors", id, known_ids, lines, mistakes);
    }
    let vectors: Vec<String> = m.vectors.iter().map(|v| v.get_ref().clone()).collect();
    if let Some(rule) = rule.filter(|_| operation_known) {
        if let Some(problem) = outside_its_suites(rule, operation, &vectors) {
            mistakes.add(lines.of(&m.rule), problem);
        }
    }
    if mistakes.count() > before {
        return None;
    }
    Some(ErrorMapping {
        line: lines.of(entry),
        pattern: m.pattern.get_ref().clone(),
        rule: rule?,
        operation,
        vectors,
    })
}

/// An error map's rule: a current catalogue id. A retired one is named with its successors.
fn rule_id(text: &Text, lines: &Lines<'_>, mistakes: &mut Mistakes) -> Option<Rule> {
    let id = text.get_ref();
    if let Some(rule) = Rule::from_id(id) {
        return Some(rule);
    }
    let problem =
        retired_rule("error_map rule", id).unwrap_or_else(|| Problem::UnknownRule(id.clone()));
    mistakes.add(lines.of(text), problem);
    None
}

/// `id` named under `key`, when the catalogue retired it: the problem names the rules its
/// retired record says took its place.
fn retired_rule(key: &'static str, id: &str) -> Option<Problem> {
    let record = agentconf_rules::Catalogue::embedded().retired_id(id)?;
    Some(Problem::RetiredRule {
        key,
        id: id.to_string(),
        retired_in: record.retired_in.clone(),
        successors: successors(record),
    })
}

/// The current rule ids that replaced a retired one, as its catalogue record lists them.
pub(super) fn successors(record: &agentconf_rules::RetiredRule) -> Vec<&'static str> {
    record
        .replaced_by
        .iter()
        .filter_map(|id| Rule::from_id(id))
        .map(Rule::id)
        .collect()
}

/// The problem when an error map reports `rule` for output whose answers never cite it: the
/// operation it is scoped to, else the operations of the cases it names, else (a mapping for
/// every operation) only when no operation an error map reads cites the rule.
fn outside_its_suites(
    rule: Rule,
    operation: Option<Operation>,
    vectors: &[String],
) -> Option<Problem> {
    let suites = super::suites_citing(rule)?;
    let cites = |op: &Operation| suites.iter().any(|s| operation_of(*s) == *op);
    let scoped: Vec<Operation> = match operation {
        Some(op) => vec![op],
        None => {
            let mut ops = Vec::new();
            for op in vectors
                .iter()
                .filter_map(|id| super::suite_of_case(id))
                .map(operation_of)
            {
                if !ops.contains(&op) {
                    ops.push(op);
                }
            }
            ops
        }
    };
    let wrong: Vec<Operation> = if scoped.is_empty() {
        // A mapping for every operation is wrong only when none of them can cite the rule.
        let every = ERROR_MAP_OPERATIONS.to_vec();
        if every.iter().any(cites) {
            Vec::new()
        } else {
            every
        }
    } else {
        scoped.into_iter().filter(|op| !cites(op)).collect()
    };
    (!wrong.is_empty()).then(|| Problem::RuleOfAnotherSuite {
        rule: rule.id(),
        operations: wrong,
        suites,
    })
}

/// The ids skips and expected failures have named so far, with their lines.
#[derive(Default)]
struct Named(BTreeMap<String, usize>);

impl Named {
    /// Records `id`; a mistake if it was named before.
    fn once(&mut self, id: &Text, lines: &Lines<'_>, mistakes: &mut Mistakes) {
        let here = lines.of(id);
        match self.0.get(id.get_ref()) {
            // Skips are read before expected failures: name the later line of the two.
            Some(&other) => mistakes.add(
                here.max(other),
                Problem::ListedTwice {
                    id: id.get_ref().clone(),
                    first_line: here.min(other),
                },
            ),
            None => {
                self.0.insert(id.get_ref().clone(), here);
            }
        }
    }
}

/// One `[[skip]]` entry. It is kept even with a mistake in its reason, so that the expected
/// failures are still checked against it.
fn skip_entry(
    entry: &Spanned<ListedTable>,
    known_ids: &BTreeSet<String>,
    lines: &Lines<'_>,
    named: &mut Named,
    mistakes: &mut Mistakes,
) -> Option<Skip> {
    let e = entry.get_ref();
    let at = lines.of(entry);
    let (target, is_glob) = match (&e.id, &e.glob) {
        (Some(id), None) => {
            if known_case("skip", id, known_ids, lines, mistakes) {
                named.once(id, lines, mistakes);
            }
            (id, false)
        }
        (None, Some(g)) => {
            if !known_ids.iter().any(|id| glob::matches(g.get_ref(), id)) {
                mistakes.add(
                    lines.of(g),
                    Problem::GlobMatchesNothing(g.get_ref().clone()),
                );
            }
            (g, true)
        }
        (id, _) => {
            mistakes.add(at, Problem::SkipTarget { both: id.is_some() });
            return None;
        }
    };
    Some(Skip {
        line: lines.of(target),
        pattern: target.get_ref().clone(),
        is_glob,
        reason: reason("skip", target, &e.reason, at, mistakes).unwrap_or_default(),
    })
}

/// One `[[xfail]]` entry, when it has no mistake.
fn xfail_entry(
    entry: &Spanned<ListedTable>,
    known_ids: &BTreeSet<String>,
    lines: &Lines<'_>,
    skip: &[Skip],
    named: &mut Named,
    mistakes: &mut Mistakes,
) -> Option<Listed> {
    let before = mistakes.count();
    let e = entry.get_ref();
    let at = lines.of(entry);
    let id = match (&e.id, &e.glob) {
        (_, Some(g)) => {
            mistakes.add(
                lines.of(g),
                Problem::ExpectedFailureNotExact(g.get_ref().clone()),
            );
            return None;
        }
        (None, None) => {
            mistakes.add(at, Problem::ExpectedFailureWithoutId);
            return None;
        }
        (Some(id), None) => id,
    };
    if id.get_ref().contains('*') && !known_ids.contains(id.get_ref()) {
        mistakes.add(
            lines.of(id),
            Problem::ExpectedFailureNotExact(id.get_ref().clone()),
        );
    } else if known_case("xfail", id, known_ids, lines, mistakes) {
        named.once(id, lines, mistakes);
        if let Some(s) = skip
            .iter()
            .find(|s| s.is_glob && glob::matches(&s.pattern, id.get_ref()))
        {
            mistakes.add(
                lines.of(id),
                Problem::ExpectedFailureSkipped {
                    id: id.get_ref().clone(),
                    glob: s.pattern.clone(),
                    glob_line: s.line,
                },
            );
        }
    }
    let reason = reason("xfail", id, &e.reason, at, mistakes);
    (mistakes.count() == before).then(|| Listed {
        id: id.get_ref().clone(),
        reason: reason.unwrap_or_default(),
    })
}

/// The parts of the file that shape one-shot calls, each with its line: a persistent server is
/// sent the contract's requests and answers with exit numbers and catalogue ids of its own.
/// Everything else (command, profiles, declarations, skips, expected failures, crash patterns)
/// applies in both modes.
fn one_shot_parts(file: &File, lines: &Lines<'_>) -> Vec<(usize, String)> {
    let mut parts = Vec::new();
    for (name, table) in &file.operations {
        let t = table.get_ref();
        for (key, list) in [
            ("argv", &t.argv),
            ("argv_with_commitment", &t.argv_with_commitment),
        ] {
            if let Some(list) = list {
                parts.push((
                    lines.of(list),
                    format!("[operations.{}] {key}", name.get_ref()),
                ));
            }
        }
    }
    if let Some(codes) = &file.exit_codes {
        parts.push((lines.of(codes), "[exit_codes]".into()));
    }
    for entry in &file.error_map {
        parts.push((lines.of(entry), "[[error_map]]".into()));
    }
    parts
}

/// Each one-shot part, refused in persistent mode.
pub(super) fn refused_in_persistent_mode(parts: &[(usize, String)]) -> Vec<AdapterError> {
    parts
        .iter()
        .map(|(line, part)| {
            AdapterError::at(*line, Problem::NotInPersistentMode { part: part.clone() })
        })
        .collect()
}

/// `[operations.X]`: what the tool is given for operation `op`, checked against what the
/// contract's call of `op` carries.
fn operation(
    op: Operation,
    table: &Spanned<OperationTable>,
    scope: Option<Declared>,
    lines: &Lines<'_>,
    mistakes: &mut Mistakes,
) -> OperationSpec {
    let t = table.get_ref();
    let keys: [(&'static str, Option<usize>); 5] = [
        ("argv", t.argv.as_ref().map(|s| lines.of(s))),
        (
            "argv_with_commitment",
            t.argv_with_commitment.as_ref().map(|s| lines.of(s)),
        ),
        ("tiers", t.tiers.as_ref().map(|s| lines.of(s))),
        ("revisions", t.revisions.as_ref().map(|s| lines.of(s))),
        ("commitments", t.commitments.as_ref().map(|s| lines.of(s))),
    ];
    let unsupported = t.unsupported.as_ref().is_some_and(|u| *u.get_ref());
    if let Some(u) = t.unsupported.as_ref().filter(|_| unsupported) {
        for (key, _) in keys.iter().filter(|(_, at)| at.is_some()) {
            mistakes.add(
                lines.of(u),
                Problem::UnsupportedWithOthers { operation: op, key },
            );
        }
    }
    // Which keys this operation takes: a template when it has placeholders, a commitment
    // template for timelines, the values it can declare.
    let takes = |key: &str| match key {
        "argv" => op != Operation::GrpAdmit,
        "argv_with_commitment" | "commitments" => op == Operation::Aer1Timeline,
        "tiers" => op == Operation::Aer1Receipt,
        _ => matches!(op, Operation::Aer1Timeline | Operation::GrpAdmit),
    };
    for (key, at) in keys {
        if let (Some(at), false) = (at, takes(key)) {
            mistakes.add(at, Problem::NotForOperation { operation: op, key });
        }
    }
    if let (None, Some(with)) = (&t.argv, &t.argv_with_commitment) {
        mistakes.add(lines.of(with), Problem::CommitmentTemplateAlone);
    }
    // Only what the operation takes is checked further: the rest is a mistake already.
    let tiers = (t.tiers.as_ref())
        .filter(|_| takes("tiers"))
        .map(|l| declared(op, "tiers", l, TIERS, lines, mistakes));
    let own = (t.revisions.as_ref())
        .filter(|_| takes("revisions"))
        .map(|l| declared(op, "revisions", l, known_revisions(op), lines, mistakes));
    // The operation's revisions and the top-level ones both apply: its own list may narrow the
    // top-level one, never widen it. Either alone is what the templates are checked against.
    if let (Some(own), Some(scope)) = (&own, &scope) {
        for v in own.values.iter().filter(|v| !scope.values.contains(v)) {
            mistakes.add(
                own.line,
                Problem::RevisionOutsideScope {
                    operation: op,
                    value: v.clone(),
                    scope_line: scope.line,
                },
            );
        }
    }
    let revisions = own.or(scope.filter(|_| takes("revisions")));
    let argv = (t.argv.as_ref())
        .filter(|_| takes("argv"))
        .and_then(|a| template(op, "argv", a, lines, &tiers, &revisions, mistakes));
    let argv_with_commitment = (t.argv_with_commitment.as_ref())
        .filter(|_| takes("argv_with_commitment"))
        .and_then(|a| {
            template(
                op,
                "argv_with_commitment",
                a,
                lines,
                &tiers,
                &revisions,
                mistakes,
            )
        });
    let tiers = id_tier_declaration(argv.as_ref(), tiers, mistakes);
    let commitments = (t.commitments.as_ref()).filter(|_| takes("commitments"));
    if let Some(c) = commitments {
        let declared = *c.get_ref();
        let contradicted = if declared {
            t.argv.is_some() && t.argv_with_commitment.is_none()
        } else {
            t.argv_with_commitment.is_some()
        };
        if contradicted {
            mistakes.add(lines.of(c), Problem::CommitmentsContradicted { declared });
        }
    }
    OperationSpec {
        line: lines.of(table),
        unsupported,
        argv,
        argv_with_commitment,
        tiers,
        revisions,
        no_commitments: commitments.filter(|c| !*c.get_ref()).map(|c| lines.of(c)),
    }
}

/// A receipt template written with `{id_tier}` was made for a tool that knows the tiers before
/// agentconf 0.2.0 only: it is declared to take those, so the cases of a newer tier are
/// unsupported instead of handing the tool a tier it never knew. A `tiers` list of its own may
/// narrow that, but not name a newer tier.
fn id_tier_declaration(
    argv: Option<&Template>,
    tiers: Option<Declared>,
    mistakes: &mut Mistakes,
) -> Option<Declared> {
    let Some(t) = argv.filter(|t| t.writes(Placeholder::IdTier)) else {
        return tiers;
    };
    let Some(declared) = tiers else {
        return Some(Declared {
            line: t.line,
            values: Placeholder::ID_TIER_VALUES.map(String::from).to_vec(),
            by_id_tier: true,
        });
    };
    let newer: Vec<String> = declared
        .values
        .iter()
        .filter(|v| !Placeholder::ID_TIER_VALUES.contains(&v.as_str()))
        .cloned()
        .collect();
    if !newer.is_empty() {
        mistakes.add(
            t.line,
            Problem::IdTierWithNewerTiers {
                tiers_line: declared.line,
                newer,
            },
        );
    }
    Some(declared)
}

/// `tiers` / `revisions`: known values, at least one. The declaration keeps the known values
/// only, so that the template checks after it judge what the file says, not its typos.
fn declared(
    op: Operation,
    key: &'static str,
    list: &List,
    valid: &'static [&'static str],
    lines: &Lines<'_>,
    mistakes: &mut Mistakes,
) -> Declared {
    if list.get_ref().is_empty() {
        mistakes.add(
            lines.of(list),
            Problem::EmptyDeclaration { operation: op, key },
        );
    }
    let mut values = Vec::new();
    for v in list.get_ref() {
        if valid.contains(&v.get_ref().as_str()) {
            values.push(v.get_ref().clone());
        } else {
            mistakes.add(
                lines.of(v),
                Problem::UnknownValue {
                    operation: op,
                    key,
                    value: v.get_ref().clone(),
                    valid,
                },
            );
        }
    }
    Declared {
        line: lines.of(list),
        values,
        by_id_tier: false,
    }
}

/// One template of `op`: every placeholder known and the operation's; the input files named;
/// the tier or revision named, unless exactly one is declared. `None` when an argument cannot
/// be read (what it names is then unknown, so nothing more is judged of it).
fn template(
    op: Operation,
    key: &'static str,
    list: &List,
    lines: &Lines<'_>,
    tiers: &Option<Declared>,
    revisions: &Option<Declared>,
    mistakes: &mut Mistakes,
) -> Option<Template> {
    let before = mistakes.count();
    let mut arguments = Vec::new();
    for part in list.get_ref() {
        let at = lines.of(part);
        match parse_argument(part.get_ref(), Placeholder::of(op)) {
            Ok(segments) => {
                if key == "argv" && segments.contains(&Segment::Value(Placeholder::Commitment)) {
                    mistakes.add(at, Problem::CommitmentOutsideItsTemplate);
                }
                arguments.push(segments);
            }
            Err(name) => mistakes.add(
                at,
                Problem::UnknownPlaceholder {
                    operation: op,
                    key,
                    name,
                },
            ),
        }
    }
    if mistakes.count() > before {
        return None;
    }
    let t = Template {
        line: lines.of(list),
        arguments,
    };
    let (inputs, value): (&[Placeholder], Option<(Placeholder, &Option<Declared>)>) = match op {
        Operation::Aer1Receipt => (&[Placeholder::Receipt], Some((Placeholder::Tier, tiers))),
        Operation::Aer1Timeline if key == "argv_with_commitment" => (
            &[Placeholder::Timeline, Placeholder::Commitment],
            Some((Placeholder::Revision, revisions)),
        ),
        Operation::Aer1Timeline => (
            &[Placeholder::Timeline],
            Some((Placeholder::Revision, revisions)),
        ),
        Operation::Aer1Workflow => (&[Placeholder::Workflow], None),
        Operation::Aer1EmitTimeline => (&[Placeholder::Steps], None),
        Operation::Aer1EmitCommitment => (&[Placeholder::Timeline, Placeholder::PublishedAt], None),
        Operation::Aer1EmitReceipt => (&[Placeholder::Payload, Placeholder::Meta], None),
        Operation::GrpAdmit => (&[], None),
    };
    for p in inputs.iter().filter(|p| !t.names(**p)) {
        mistakes.add(
            t.line,
            Problem::MissingInput {
                operation: op,
                key,
                placeholder: *p,
            },
        );
    }
    if let Some((p, declared)) = value.filter(|(p, _)| !t.names(*p)) {
        match declared {
            None => mistakes.add(
                t.line,
                Problem::MissingValue {
                    operation: op,
                    key,
                    placeholder: p,
                },
            ),
            Some(d) if d.values.len() > 1 => mistakes.add(
                t.line,
                Problem::IndistinctValues {
                    operation: op,
                    key,
                    placeholder: p,
                    values: d.values.clone(),
                },
            ),
            Some(_) => {}
        }
    }
    Some(t)
}

/// An id that must name a case of the corpus; `false`, with the mistake kept, when it does not.
fn known_case(
    key: &'static str,
    id: &Text,
    known_ids: &BTreeSet<String>,
    lines: &Lines<'_>,
    mistakes: &mut Mistakes,
) -> bool {
    let text = id.get_ref();
    // A retired id is named as retired, with what replaced it, even when a caller's list of
    // known ids would contain it.
    let problem = if let Some(now) = agentconf_contract::vector::retired(text) {
        Problem::RetiredId {
            key,
            id: text.clone(),
            now,
        }
    } else if known_ids.contains(text) {
        return true;
    } else if let Some(retired) = retired_rule(key, text) {
        // A retired rule id where a case id belongs: say what grades its inputs now.
        retired
    } else {
        Problem::UnknownCase {
            key,
            id: text.clone(),
        }
    };
    mistakes.add(lines.of(id), problem);
    false
}

/// The entry's reason: required, and not blank.
fn reason(
    key: &'static str,
    target: &Text,
    reason: &Option<Text>,
    at: usize,
    mistakes: &mut Mistakes,
) -> Option<String> {
    match reason {
        Some(r) if !r.get_ref().trim().is_empty() => Some(r.get_ref().clone()),
        _ => {
            mistakes.add(
                at,
                Problem::NoReason {
                    key,
                    id: target.get_ref().clone(),
                },
            );
            None
        }
    }
}
