//! `agentconf run`: the main job. Turns its arguments into the harness's run (the reference by
//! default, against the embedded corpus through the contract), renders what it returns, and signs
//! the results file when asked. Exit 0 when nothing unexpected happened, 1 otherwise, 2 for usage
//! errors, 130 when interrupted.

use agentconf_contract::case::Case;
use agentconf_harness::identity::PendingIdentity;
use agentconf_harness::report::{ReportFormat, View};
use agentconf_harness::results::{self, ResultLine, ResultsFile, Selection};
use agentconf_harness::{Finished, Grading, NamedFile, Outputs, RunBuilder, RunRecord};

use super::{say, ExitOutcome};
use crate::args::RunArgs;
use crate::corpus_choice::{self, ChosenCorpus};
use crate::error::{Error, Result};
use crate::progress::{report_notes, with_progress};
use crate::target::{grading_of, implementation, launch, options, target, Target};

pub fn run(args: &RunArgs) -> Result<ExitOutcome> {
    // The key is read and checked before anything runs, and its outputs are checked with the
    // run's own: a run that could not be signed costs nothing.
    let key = crate::signed::signing_key(args.sign.as_deref())?;
    let signature = key
        .as_ref()
        .map(|_| agentconf_harness::signing::signature_path(&args.out));
    let reserved = signature
        .iter()
        .map(|p| NamedFile::new("the signature (--out with .sig)", p))
        .chain(
            args.attestation
                .iter()
                .map(|p| NamedFile::new("--attestation", p)),
        )
        .collect();
    let ran = execute_inner(args, false, reserved)?;
    let (file, broken_wrapper) = (ran.file, ran.diagnosis.is_some());
    // Signed as written: the file's bytes read back must be the run's file (a line's bytes are
    // exactly what agentconf writes for it, so the same lines are the same bytes).
    let signed = if key.is_some() || args.attestation.is_some() {
        let bytes = crate::signed::results_bytes(&args.out, file.results.len())?;
        if results::read(&bytes[..], file.results.len()).ok().as_ref() != Some(&file) {
            return Err(Error::Usage(format!(
                "{} changed on disk after the run wrote it: not signed (run again)",
                args.out.display()
            )));
        }
        let attestation = args.attestation.as_deref();
        crate::signed::sign(&args.out, &bytes, &file, key.as_ref(), attestation)?
    } else {
        String::new()
    };
    say(&summary(args, &file, broken_wrapper, &signed))?;
    // Interrupted: 130, as a shell reports a process ended by SIGINT, whatever the verdict of
    // the part that ran. Otherwise FAIL and NOTHING TESTED exit 1, the same verdict as every
    // report of the file.
    if file.footer.as_ref().is_some_and(|f| f.interrupted) {
        return Ok(ExitOutcome::Exit(130));
    }
    Ok(if agentconf_harness::report::verdict(&file).exit_ok() {
        ExitOutcome::Valid
    } else {
        ExitOutcome::Invalid
    })
}

/// What `run` prints at the end: the table, where every file went, then what the verdict claims
/// (the last lines a newcomer reads).
fn summary(args: &RunArgs, file: &ResultsFile, broken_wrapper: bool, signed: &str) -> String {
    let verdict = agentconf_harness::report::verdict(file);
    // A broken wrapper's report is the smoke check's diagnosis, already said on standard error:
    // a per-rule table of cases that were never answered would list every rule at zero, and
    // bury what is wrong under it.
    let mut summary = if broken_wrapper {
        String::new()
    } else {
        ReportFormat::Text.render(&View::of(file))
    };
    if !broken_wrapper && file.results.iter().all(|r| r.status.is_no_answer()) {
        summary.push_str(
            "\nEvery vector crashed, timed out or broke the protocol: the implementation's wrapper is \
             probably broken (check the command, the argument order and the exit codes in \
             crates/contract/CONTRACT.md), not the implementation.\n",
        );
    }
    if !summary.is_empty() {
        summary.push('\n');
    }
    summary.push_str(&format!("results file: {}", args.out.display()));
    if broken_wrapper {
        summary.push_str(&format!(" ({} cases, none answered)", file.results.len()));
    }
    summary.push('\n');
    summary.push_str(signed);
    if let Some(html) = &args.html {
        summary.push_str(&format!("HTML report:  {}\n", html.display()));
    }
    if let Some(xfail) = &args.emit_xfail {
        summary.push_str(&format!(
            "expected failures written to: {}\n",
            xfail.display()
        ));
    }
    if broken_wrapper {
        summary.push_str(&format!(
            "{}: the wrapper is broken (the smoke check above says how): nothing here speaks of \
             the implementation.\n",
            verdict.headline()
        ));
    } else {
        summary.push_str(&format!("{}: {}.\n", verdict.headline(), verdict.meaning()));
    }
    summary
}

/// Runs the selected cases and writes the results file (and the HTML report and
/// expected-failures list when asked for); returns what it wrote.
pub fn execute(args: &RunArgs) -> Result<ResultsFile> {
    execute_keeping(args, false).map(|(file, _)| file)
}

/// As [`execute`]; with `keep_outputs`, also what each emitter case wrote (case id, bytes).
pub fn execute_keeping(args: &RunArgs, keep_outputs: bool) -> Result<(ResultsFile, Outputs)> {
    execute_inner(args, keep_outputs, Vec::new()).map(|ran| (ran.file, ran.outputs))
}

/// The run `args` describe, built and executed; `reserved` are files written after it.
fn execute_inner(args: &RunArgs, keep_outputs: bool, reserved: Vec<NamedFile>) -> Result<Finished> {
    // What ran, for the header, does not depend on the corpus: without an adapter (which is read
    // against the corpus) it is worked out while the corpus is built instead of after.
    let early_identity = match &args.adapter {
        None => {
            let (argv, name) = implementation(args)?;
            Some(PendingIdentity::start(name, argv))
        }
        Some(_) => None,
    };
    let ChosenCorpus {
        vectors,
        digest,
        case_count,
        case_ids,
    } = corpus_choice::choose(args);
    let Target {
        implementation: imp,
        adapter,
        adapter_digest,
        xfail_digest,
        name,
    } = target(args, &case_ids)?;
    let selection = Selection {
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        corpus_case_count: case_count,
    };
    let selected: Vec<Case<'_>> = vectors
        .iter()
        .flat_map(|v| v.cases())
        .filter(|c| selection.selects(&c.id))
        .collect();
    if selected.is_empty() {
        return Err(Error::Usage(
            "no vector matches the --include/--exclude prefixes".into(),
        ));
    }
    let record = RunRecord {
        suite_version: env!("CARGO_PKG_VERSION").into(),
        corpus_digest: digest,
        selection,
        implementation: early_identity
            .unwrap_or_else(|| PendingIdentity::start(name, imp.argv.clone())),
        adapter_digest,
        xfail_digest,
        grading: grading_of(args.grading),
        profiles: imp.profiles.clone(),
        persistent: args.persistent,
    };
    let named = |flag: &str, path: &Option<std::path::PathBuf>| {
        path.as_ref().map(|p| NamedFile::new(flag, p))
    };
    let run = RunBuilder::new(
        launch(&imp, adapter.as_ref(), args),
        record,
        options(args, keep_outputs),
    )
    .results_file(NamedFile::new("--out", &args.out))
    .html_report(named("--html", &args.html))
    .expected_failures_list(named("--emit-xfail", &args.emit_xfail));
    let run = reserved.into_iter().fold(run, RunBuilder::reserve);
    let finished = with_progress(selected.len(), |progress| run.execute(&selected, progress))?;
    report_notes(&finished);
    if let Some(failure) = finished.write_failure {
        // What was graded is not lost: the table goes to standard output, the lines written so
        // far stay in the temporary file, and the error says where.
        say(&ReportFormat::Text.render(&View::of(&finished.file)))?;
        return Err(Error::ResultsNotWritten {
            target: args.out.clone(),
            failure,
        });
    }
    Ok(finished)
}

/// A verifier's answers to `cases` (the matrix's emitted artifacts), loosely graded (the verdict
/// is the question), every case answered (a verifier's first crashes do not stop it), nothing
/// written: the lines are material for the matrix. `identity` is what its own run recorded.
pub fn answers(
    args: &RunArgs,
    corpus_ids: &std::collections::BTreeSet<String>,
    cases: &[Case<'_>],
    identity: &agentconf_harness::identity::ImplementationInfo,
) -> Result<Vec<ResultLine>> {
    let t = target(args, corpus_ids)?;
    if cases.is_empty() {
        return Ok(Vec::new());
    }
    let every = RunArgs {
        keep_going: true,
        ..args.clone()
    };
    let record = RunRecord {
        suite_version: env!("CARGO_PKG_VERSION").into(),
        corpus_digest: String::new(),
        selection: Selection {
            include: Vec::new(),
            exclude: Vec::new(),
            corpus_case_count: cases.len(),
        },
        implementation: PendingIdentity::known(identity.clone()),
        adapter_digest: None,
        xfail_digest: None,
        grading: Grading::Loose,
        profiles: t.implementation.profiles.clone(),
        persistent: false,
    };
    let run = RunBuilder::new(
        launch(&t.implementation, t.adapter.as_ref(), &every),
        record,
        options(&every, false),
    );
    let finished = with_progress(cases.len(), |progress| run.execute(cases, progress))?;
    report_notes(&finished);
    Ok(finished.file.results)
}
