//! `agentconf matrix`: several implementations, each over the whole corpus (one results file
//! and HTML report each), then every timeline, commitment and receipt an emitter wrote through
//! every verifier; writes the matrix file, its Markdown and its HTML. Exit 0 when every emitter ×
//! verifier pair agrees, 1 when any disagrees or an implementation gave no verdict at all (every
//! case a crash, a timeout or a protocol error), 2 for usage errors, 130 when interrupted.

use crate::error::Sort as _;
use std::path::{Path, PathBuf};

use agentconf_harness::matrix::{self, Assembly, Matrix};
use agentconf_harness::results::write_atomically;

use super::run::execute_keeping;
use super::{say, to_stderr, ExitOutcome};
use crate::args::{GradingArg, ImplementationArg, MatrixArgs, RunArgs};
use crate::error::Result;

/// The reference's name in the matrix, reserved.
const REFERENCE: &str = "reference";

/// How one implementation is run.
enum Spec {
    Reference,
    Adapter(PathBuf),
    Command(Vec<String>),
}

pub fn run(args: &MatrixArgs) -> Result<ExitOutcome> {
    let mut members = vec![(REFERENCE.to_string(), Spec::Reference)];
    for given in &args.implementations {
        let (name, spec) = parse_member(given)?;
        if members.iter().any(|(n, _)| *n == name) {
            return Err(format!(
                "{given}: the name {name:?} is given twice (the reference is always {REFERENCE:?})"
            ))
            .usage();
        }
        members.push((name, spec));
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))
        .unwritable()?;

    let corpus = agentconf_corpus::corpus();
    // Each implementation over the whole corpus, keeping what it emitted.
    let mut assembly = Assembly::new(&corpus);
    let mut run_args: Vec<(RunArgs, agentconf_harness::identity::ImplementationInfo)> = Vec::new();
    for (name, spec) in &members {
        to_stderr(&format!("agentconf matrix: {name} over the corpus\n"));
        let a = run_args_of(args, name, spec);
        let (file, outputs) = execute_keeping(&a, true)?;
        if agentconf_harness::interrupt::interrupted() {
            return Ok(interrupted());
        }
        run_args.push((a, file.header.implementation.clone()));
        assembly.add_run(name, file, &outputs);
    }

    // Every emitted artifact through every verifier.
    let corpus_ids = crate::corpus_choice::case_ids(&corpus);
    let cases = assembly.cross_cases();
    let mut answers = Vec::new();
    for ((name, _), (a, identity)) in members.iter().zip(&run_args) {
        to_stderr(&format!(
            "agentconf matrix: {} emitted artifacts through {name}\n",
            cases.len()
        ));
        answers.push(super::run::answers(a, &corpus_ids, &cases, identity)?);
        if agentconf_harness::interrupt::interrupted() {
            return Ok(interrupted());
        }
    }
    let silent = no_verdict_at_all(&assembly);
    let m = assembly.finish(&answers, env!("CARGO_PKG_VERSION"), results_name);
    let written = [
        ("matrix.json", matrix::to_json(&m)),
        ("matrix.md", matrix::markdown(&m)),
        ("matrix.html", matrix::html(&m)),
    ];
    for (file, text) in &written {
        write_atomically(&args.out.join(file), text.as_bytes())?;
    }
    say(&summary(&m, &args.out))?;
    for (name, cases) in &silent {
        to_stderr(&format!(
            "agentconf matrix: {name} gave no verdict at all: each of its {cases} cases crashed, \
             timed out or broke the protocol (a broken wrapper?), so the matrix fails\n"
        ));
    }
    Ok(if matrix::all_agree(&m) && silent.is_empty() {
        ExitOutcome::Valid
    } else {
        ExitOutcome::Invalid
    })
}

/// What an interrupted matrix says and exits with: 130, as a shell reports a process ended by
/// SIGINT (the members' results files written so far stay; no matrix is written from a part of
/// its answers).
fn interrupted() -> ExitOutcome {
    to_stderr("agentconf matrix: interrupted: no matrix is written from a part of its answers\n");
    ExitOutcome::Exit(130)
}

/// The members (name, cases run) whose every case ended without a verdict: crashed, timed out
/// or broke the protocol. A grid column of theirs shows no verdict and blames nobody, as for an
/// implementation that declines every artifact (89), so the exit status says it instead.
fn no_verdict_at_all(assembly: &Assembly<'_>) -> Vec<(String, usize)> {
    assembly
        .files()
        .filter(|(_, f)| {
            !f.results.is_empty()
                && f.results
                    .iter()
                    .all(|l| l.failed_as.unwrap_or(l.status).is_no_answer())
        })
        .map(|(name, f)| (name.to_string(), f.results.len()))
        .collect()
}

/// `NAME=ADAPTER.toml` or `NAME=COMMAND ARGS…`. A value of one word ending in `.toml` names an
/// adapter file, which must be there: a missing one is an error, never a command to run.
fn parse_member(given: &str) -> Result<(String, Spec)> {
    let Some((name, rest)) = given.split_once('=') else {
        return Err(format!("{given}: give NAME=ADAPTER.toml or NAME=COMMAND")).usage();
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        || name.starts_with('.')
    {
        return Err(format!(
            "{given}: the name {name:?} must be letters, digits, '.', '_' or '-' (it names files), not starting with '.'"
        )).usage();
    }
    let rest = rest.trim();
    if rest.is_empty() {
        return Err(format!("{given}: nothing to run after '='")).usage();
    }
    let spec = if rest.ends_with(".toml") && Path::new(rest).is_file() {
        Spec::Adapter(PathBuf::from(rest))
    } else if rest.ends_with(".toml") && !rest.contains(char::is_whitespace) {
        return Err(match std::fs::metadata(rest) {
            Ok(m) => format!(
                "{given}: {rest} is {}, not an adapter file",
                agentconf_json::file::kind_of(&m.file_type()).unwrap_or("not a regular file")
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                format!("{given}: no such adapter file: {rest}")
            }
            Err(e) => format!("{given}: cannot read the adapter file {rest}: {e}"),
        })
        .refused();
    } else {
        let argv: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
        // Before any member runs, not when its turn comes.
        crate::target::check_program(&argv)?;
        Spec::Command(argv)
    };
    Ok((name.to_string(), spec))
}

fn results_name(name: &str) -> String {
    format!("{name}.results.jsonl")
}

/// The arguments of an `agentconf run` of one member: the whole corpus, strict grading, its
/// results file and HTML report in the matrix's directory.
fn run_args_of(args: &MatrixArgs, name: &str, spec: &Spec) -> RunArgs {
    let out = args.out.join(results_name(name));
    RunArgs {
        implementation: ImplementationArg::Reference,
        command: match spec {
            Spec::Command(argv) => argv.clone(),
            _ => Vec::new(),
        },
        grading: GradingArg::Strict,
        profiles: Vec::new(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        jobs: args.jobs,
        timeout: args.timeout,
        fail_fast: false,
        max_fail: None,
        html: Some(args.out.join(matrix::report_name(&results_name(name)))),
        out,
        adapter: match spec {
            Spec::Adapter(p) => Some(p.clone()),
            _ => None,
        },
        emit_xfail: None,
        xfail: None,
        persistent: false,
        validate_protocol: false,
        keep_going: false,
        sign: None,
        attestation: None,
    }
}

/// The lines printed at the end: the matrix as text and where every file went.
fn summary(m: &Matrix, dir: &Path) -> String {
    let mut s = String::from("emitter -> verifier\n");
    for c in &m.cells {
        if c.state() == "none" {
            continue;
        }
        let state = match c.state() {
            "agree" => format!("agree on {}", c.agree),
            "disagree" => format!("DISAGREE on {} (agree on {})", c.disagree.len(), c.agree),
            _ => "no artifact reached a verdict".into(),
        };
        s.push_str(&format!(
            "  {}s: {} -> {}: {state}\n",
            c.kind.as_str(),
            c.emitter,
            c.verifier
        ));
    }
    s.push_str(&format!(
        "\nwrote {} (matrix.json, matrix.md, matrix.html, and each implementation's \
         <name>.results.jsonl and <name>.results.html)\n",
        dir.display()
    ));
    s
}
