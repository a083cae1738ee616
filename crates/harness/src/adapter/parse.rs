//! Reading an adapter file: the TOML as written (every value with its position), then every
//! check that turns it into an [`Adapter`], each failing with the line at fault.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use agentconf_contract::call::Operation;
use agentconf_contract::exit::ExitMeaning;
use agentconf_rules::Rule;

use super::error::{AdapterError, Problem, ERROR_MAP_OPERATIONS};
use super::template::{parse_argument, Placeholder, Segment, Template};
use super::{glob, Adapter, Declared, ErrorMapping, ExitCodes, Listed, OperationSpec, Skip};

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
    #[serde(default)]
    operations: BTreeMap<Text, Spanned<OperationTable>>,
    exit_codes: Option<Spanned<BTreeMap<Text, Text>>>,
    #[serde(default)]
    error_map: Vec<Spanned<ErrorMapTable>>,
    #[serde(default)]
    skip: Vec<Spanned<ListedTable>>,
    #[serde(default)]
    xfail: Vec<Spanned<ListedTable>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationTable {
    argv: Option<List>,
    argv_with_commitment: Option<List>,
    unsupported: Option<Spanned<bool>>,
    tiers: Option<List>,
    revisions: Option<List>,
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

pub(super) fn parse(text: &str, known_ids: &BTreeSet<String>) -> Result<Adapter, AdapterError> {
    let lines = Lines(text);
    let file: File = toml::from_str(text).map_err(|e| AdapterError {
        line: e.span().map(|s| lines.at(s.start)),
        problem: Problem::Toml(e.message().to_string()),
    })?;

    let mut profiles = Vec::new();
    for p in &file.profiles {
        if !matches!(p.get_ref().as_str(), "durable" | "atomic") {
            return fail(lines.of(p), Problem::UnknownProfile(p.get_ref().clone()));
        }
        profiles.push(p.get_ref().clone());
    }

    let mut crash_on_stderr = Vec::new();
    for p in &file.crash_on_stderr {
        if p.get_ref().is_empty() {
            return fail(
                lines.of(p),
                Problem::EmptyPattern {
                    key: "crash_on_stderr",
                },
            );
        }
        crash_on_stderr.push(p.get_ref().clone());
    }

    let mut operations = Vec::new();
    for (name, table) in &file.operations {
        let Some(op) = Operation::parse(name.get_ref()) else {
            return fail(
                lines.of(name),
                Problem::UnknownOperation(name.get_ref().clone()),
            );
        };
        operations.push((op, operation(op, table, &lines)?));
    }

    let exit_codes = match &file.exit_codes {
        None => None,
        Some(table) => {
            let mut map = BTreeMap::new();
            for (code, meaning) in table.get_ref() {
                let number = code.get_ref().parse::<i32>().map_err(|_| {
                    AdapterError::at(
                        lines.of(code),
                        Problem::ExitCodeNotANumber(code.get_ref().clone()),
                    )
                })?;
                let m = match meaning.get_ref().as_str() {
                    "accept" => ExitMeaning::Accept,
                    "reject" => ExitMeaning::Reject,
                    "unsupported" => ExitMeaning::Unsupported,
                    other => {
                        return fail(
                            lines.of(meaning),
                            Problem::ExitCodeMeaning {
                                code: code.get_ref().clone(),
                                meaning: other.to_string(),
                            },
                        )
                    }
                };
                map.insert(number, m);
            }
            Some(ExitCodes {
                line: lines.of(table),
                map,
            })
        }
    };

    let mut error_map = Vec::new();
    for entry in &file.error_map {
        let m = entry.get_ref();
        let Some(rule) = Rule::from_id(m.rule.get_ref()) else {
            return fail(
                lines.of(&m.rule),
                Problem::UnknownRule(m.rule.get_ref().clone()),
            );
        };
        if m.pattern.get_ref().is_empty() {
            return fail(
                lines.of(&m.pattern),
                Problem::EmptyPattern {
                    key: "error_map pattern",
                },
            );
        }
        let operation = match &m.operation {
            None => None,
            Some(name) => Some(
                Operation::parse(name.get_ref())
                    .filter(|o| ERROR_MAP_OPERATIONS.contains(o))
                    .ok_or_else(|| {
                        AdapterError::at(
                            lines.of(name),
                            Problem::NotAnErrorMapOperation(name.get_ref().clone()),
                        )
                    })?,
            ),
        };
        for id in &m.vectors {
            known_case("error_map vectors", id, known_ids, &lines)?;
        }
        error_map.push(ErrorMapping {
            line: lines.of(entry),
            pattern: m.pattern.get_ref().clone(),
            rule,
            operation,
            vectors: m.vectors.iter().map(|v| v.get_ref().clone()).collect(),
        });
    }

    // Skips, then expected failures: each names a case once, and no expected failure is hidden
    // by a skip.
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    let mut once = |id: &Text| {
        let here = lines.of(id);
        match listed.get(id.get_ref()) {
            // Skips are read before expected failures: name the later line of the two.
            Some(&other) => fail(
                here.max(other),
                Problem::ListedTwice {
                    id: id.get_ref().clone(),
                    first_line: here.min(other),
                },
            ),
            None => {
                listed.insert(id.get_ref().clone(), here);
                Ok(())
            }
        }
    };
    let mut skip = Vec::new();
    for entry in &file.skip {
        let e = entry.get_ref();
        let at = lines.of(entry);
        let (target, is_glob) = match (&e.id, &e.glob) {
            (Some(id), None) => {
                known_case("skip", id, known_ids, &lines)?;
                once(id)?;
                (id, false)
            }
            (None, Some(g)) => {
                if !known_ids.iter().any(|id| glob::matches(g.get_ref(), id)) {
                    return fail(
                        lines.of(g),
                        Problem::GlobMatchesNothing(g.get_ref().clone()),
                    );
                }
                (g, true)
            }
            (id, _) => return fail(at, Problem::SkipTarget { both: id.is_some() }),
        };
        let reason = reason("skip", target, &e.reason, at)?;
        skip.push(Skip {
            line: lines.of(target),
            pattern: target.get_ref().clone(),
            is_glob,
            reason,
        });
    }
    let mut xfail = Vec::new();
    for entry in &file.xfail {
        let e = entry.get_ref();
        let at = lines.of(entry);
        let id = match (&e.id, &e.glob) {
            (_, Some(g)) => {
                return fail(
                    lines.of(g),
                    Problem::ExpectedFailureNotExact(g.get_ref().clone()),
                )
            }
            (None, None) => return fail(at, Problem::ExpectedFailureWithoutId),
            (Some(id), None) => id,
        };
        if id.get_ref().contains('*') && !known_ids.contains(id.get_ref()) {
            return fail(
                lines.of(id),
                Problem::ExpectedFailureNotExact(id.get_ref().clone()),
            );
        }
        known_case("xfail", id, known_ids, &lines)?;
        once(id)?;
        if let Some(s) = skip
            .iter()
            .find(|s: &&Skip| s.is_glob && glob::matches(&s.pattern, id.get_ref()))
        {
            return fail(
                lines.of(id),
                Problem::ExpectedFailureSkipped {
                    id: id.get_ref().clone(),
                    glob: s.pattern.clone(),
                    glob_line: s.line,
                },
            );
        }
        xfail.push(Listed {
            id: id.get_ref().clone(),
            reason: reason("xfail", id, &e.reason, at)?,
        });
    }

    Ok(Adapter {
        name: file.name,
        command: file.command,
        profiles,
        crash_on_stderr,
        operations,
        exit_codes,
        error_map,
        skip,
        xfail,
    })
}

/// `[operations.X]`: what the tool is given for operation `op`, checked against what the
/// contract's call of `op` carries.
fn operation(
    op: Operation,
    table: &Spanned<OperationTable>,
    lines: &Lines<'_>,
) -> Result<OperationSpec, AdapterError> {
    let t = table.get_ref();
    let keys: [(&'static str, Option<usize>); 4] = [
        ("argv", t.argv.as_ref().map(|s| lines.of(s))),
        (
            "argv_with_commitment",
            t.argv_with_commitment.as_ref().map(|s| lines.of(s)),
        ),
        ("tiers", t.tiers.as_ref().map(|s| lines.of(s))),
        ("revisions", t.revisions.as_ref().map(|s| lines.of(s))),
    ];
    let unsupported = t.unsupported.as_ref().is_some_and(|u| *u.get_ref());
    if let Some(u) = t.unsupported.as_ref().filter(|_| unsupported) {
        if let Some((key, _)) = keys.iter().find(|(_, at)| at.is_some()) {
            return Err(AdapterError::at(
                lines.of(u),
                Problem::UnsupportedWithOthers { operation: op, key },
            ));
        }
    }
    // Which keys this operation takes: a template when it has placeholders, a commitment
    // template for timelines, the values it can declare.
    for (key, at) in keys {
        let takes = match key {
            "argv" => op != Operation::GrpAdmit,
            "argv_with_commitment" => op == Operation::Aer1Timeline,
            "tiers" => op == Operation::Aer1Receipt,
            _ => matches!(op, Operation::Aer1Timeline | Operation::GrpAdmit),
        };
        if let (Some(at), false) = (at, takes) {
            return Err(AdapterError::at(
                at,
                Problem::NotForOperation { operation: op, key },
            ));
        }
    }
    if let (None, Some(with)) = (&t.argv, &t.argv_with_commitment) {
        return Err(AdapterError::at(
            lines.of(with),
            Problem::CommitmentTemplateAlone,
        ));
    }
    let tiers = declared(op, "tiers", &t.tiers, TIERS, lines)?;
    let revisions = declared(op, "revisions", &t.revisions, known_revisions(op), lines)?;
    let argv = match &t.argv {
        None => None,
        Some(a) => Some(template(op, "argv", a, lines, &tiers, &revisions)?),
    };
    let argv_with_commitment = match &t.argv_with_commitment {
        None => None,
        Some(a) => Some(template(
            op,
            "argv_with_commitment",
            a,
            lines,
            &tiers,
            &revisions,
        )?),
    };
    Ok(OperationSpec {
        line: lines.of(table),
        unsupported,
        argv,
        argv_with_commitment,
        tiers,
        revisions,
    })
}

/// `tiers` / `revisions`: known values, at least one.
fn declared(
    op: Operation,
    key: &'static str,
    list: &Option<List>,
    valid: &'static [&'static str],
    lines: &Lines<'_>,
) -> Result<Option<Declared>, AdapterError> {
    let Some(list) = list else { return Ok(None) };
    if list.get_ref().is_empty() {
        return Err(AdapterError::at(
            lines.of(list),
            Problem::EmptyDeclaration { operation: op, key },
        ));
    }
    for v in list.get_ref() {
        if !valid.contains(&v.get_ref().as_str()) {
            return Err(AdapterError::at(
                lines.of(v),
                Problem::UnknownValue {
                    operation: op,
                    key,
                    value: v.get_ref().clone(),
                    valid,
                },
            ));
        }
    }
    Ok(Some(Declared {
        line: lines.of(list),
        values: list.get_ref().iter().map(|v| v.get_ref().clone()).collect(),
    }))
}

/// One template of `op`: every placeholder known and the operation's; the input files named;
/// the tier or revision named, unless exactly one is declared.
fn template(
    op: Operation,
    key: &'static str,
    list: &List,
    lines: &Lines<'_>,
    tiers: &Option<Declared>,
    revisions: &Option<Declared>,
) -> Result<Template, AdapterError> {
    let mut arguments = Vec::new();
    for part in list.get_ref() {
        let at = lines.of(part);
        let segments = parse_argument(part.get_ref(), Placeholder::of(op)).map_err(|name| {
            AdapterError::at(
                at,
                Problem::UnknownPlaceholder {
                    operation: op,
                    key,
                    name,
                },
            )
        })?;
        if key == "argv" && segments.contains(&Segment::Value(Placeholder::Commitment)) {
            return Err(AdapterError::at(at, Problem::CommitmentOutsideItsTemplate));
        }
        arguments.push(segments);
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
    if let Some(p) = inputs.iter().find(|p| !t.names(**p)) {
        return Err(AdapterError::at(
            t.line,
            Problem::MissingInput {
                operation: op,
                key,
                placeholder: *p,
            },
        ));
    }
    if let Some((p, declared)) = value.filter(|(p, _)| !t.names(*p)) {
        match declared {
            None => {
                return Err(AdapterError::at(
                    t.line,
                    Problem::MissingValue {
                        operation: op,
                        key,
                        placeholder: p,
                    },
                ))
            }
            Some(d) if d.values.len() > 1 => {
                return Err(AdapterError::at(
                    t.line,
                    Problem::IndistinctValues {
                        operation: op,
                        key,
                        placeholder: p,
                        values: d.values.clone(),
                    },
                ))
            }
            Some(_) => {}
        }
    }
    Ok(t)
}

fn fail<T>(at: usize, problem: Problem) -> Result<T, AdapterError> {
    Err(AdapterError::at(at, problem))
}

/// An id that must name a case of the corpus.
fn known_case(
    key: &'static str,
    id: &Text,
    known_ids: &BTreeSet<String>,
    lines: &Lines<'_>,
) -> Result<(), AdapterError> {
    // A retired id is named as retired, with what replaced it, even when a caller's list of
    // known ids would contain it.
    if let Some(now) = agentconf_contract::vector::retired(id.get_ref()) {
        return Err(AdapterError::at(
            lines.of(id),
            Problem::RetiredId {
                key,
                id: id.get_ref().clone(),
                now,
            },
        ));
    }
    if !known_ids.contains(id.get_ref()) {
        return Err(AdapterError::at(
            lines.of(id),
            Problem::UnknownCase {
                key,
                id: id.get_ref().clone(),
            },
        ));
    }
    Ok(())
}

/// The entry's reason: required, and not blank.
fn reason(
    key: &'static str,
    target: &Text,
    reason: &Option<Text>,
    at: usize,
) -> Result<String, AdapterError> {
    match reason {
        Some(r) if !r.get_ref().trim().is_empty() => Ok(r.get_ref().clone()),
        _ => Err(AdapterError::at(
            at,
            Problem::NoReason {
                key,
                id: target.get_ref().clone(),
            },
        )),
    }
}
