//! `agentconf run`: the main job. Runs an implementation (the reference by default) against the
//! embedded corpus through the contract, writes the results file and prints the summary.
//! Exit 0 when nothing unexpected happened, 1 otherwise, 2 for usage errors.

use std::time::Duration;

use agentconf_contract::case::Case;
use agentconf_harness::adapter::{Adapter, Mode};
use agentconf_harness::identity::ImplementationInfo;
use agentconf_harness::report::{ReportFormat, View};
use agentconf_harness::results::{self, write_atomically, ResultsFile, Selection};
use agentconf_harness::Grading;
use agentconf_harness::Implementation;
use agentconf_harness::{Backend, Launch, Outputs, Ran, RunError, RunNotes, RunOptions};
use agentconf_harness::{RunRecord, SealedRun};
use agentconf_reference::inprocess::InProcess;

use super::{say, to_stderr, ExitOutcome};
use crate::args::{GradingArg, ImplementationArg, RunArgs};
use crate::error::{Error, Result};

pub fn run(args: &RunArgs) -> Result<ExitOutcome> {
    // The key is read and checked, and its outputs found writable, before anything runs: a run
    // that could not be signed costs nothing.
    let key = crate::signed::signing_key(args.sign.as_deref())?;
    let signature = key
        .as_ref()
        .map(|_| agentconf_harness::signing::signature_path(&args.out));
    distinct_outputs(&[
        ("--out", Some(args.out.as_path())),
        ("--html", args.html.as_deref()),
        ("--emit-xfail", args.emit_xfail.as_deref()),
        ("the signature (--out with .sig)", signature.as_deref()),
        ("--attestation", args.attestation.as_deref()),
    ])?;
    for path in signature.iter().chain(args.attestation.iter()) {
        results::check_writable(path)?;
    }
    let Executed {
        file,
        broken_wrapper,
        ..
    } = execute_inner(args, false)?;
    // Signed as written: the file's bytes read back must be the run's file (a line's bytes are
    // exactly what agentconf writes for it, so the same lines are the same bytes).
    let signed = if key.is_some() || args.attestation.is_some() {
        let bytes = crate::signed::results_bytes(&args.out, file.results.len())?;
        let name = args.out.display().to_string();
        let read = results::read(&bytes[..], file.results.len()).ok();
        if read.as_ref() != Some(&file) {
            return Err(format!(
                "{name} changed on disk after the run wrote it: not signed (run again)"
            )
            .into());
        }
        crate::signed::sign(
            &args.out,
            &bytes,
            &file,
            key.as_ref(),
            args.attestation.as_deref(),
        )?
    } else {
        String::new()
    };
    let interrupted = file.footer.as_ref().is_some_and(|f| f.interrupted);
    let verdict = agentconf_harness::report::verdict(&file);
    // A broken wrapper's report is the smoke check's diagnosis, already said on standard error:
    // a per-rule table of cases that were never answered would list every rule at zero, and
    // bury what is wrong under it.
    let mut summary = if broken_wrapper {
        String::new()
    } else {
        ReportFormat::Text.render(&View::of(&file))
    };
    if !broken_wrapper && file.results.iter().all(|r| r.status.is_no_answer()) {
        summary.push_str(
            "\nEvery vector crashed, timed out or broke the protocol: the implementation's wrapper is \
             probably broken (check the command, the argument order and the exit codes in \
             crates/contract/CONTRACT.md), not the implementation.\n",
        );
    }
    // Where every file went, then what the verdict claims: the last lines a newcomer reads.
    if !summary.is_empty() {
        summary.push('\n');
    }
    summary.push_str(&format!("results file: {}", args.out.display()));
    if broken_wrapper {
        summary.push_str(&format!(" ({} cases, none answered)", file.results.len()));
    }
    summary.push('\n');
    summary.push_str(&signed);
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
    say(&summary)?;
    // Interrupted: 130, as a shell reports a process ended by SIGINT, whatever the verdict of
    // the part that ran. Otherwise FAIL and NOTHING TESTED exit 1, the same verdict as every
    // report of the file.
    if interrupted {
        return Ok(ExitOutcome::Exit(130));
    }
    Ok(if verdict.exit_ok() {
        ExitOutcome::Valid
    } else {
        ExitOutcome::Invalid
    })
}

/// A run's results file and what else it made: the emitters' outputs (when kept), and whether
/// it stopped on a broken wrapper (the smoke check's diagnosis is then on standard error).
struct Executed {
    file: ResultsFile,
    outputs: Outputs,
    broken_wrapper: bool,
}

/// Runs the selected cases and writes the results file (and the HTML report and
/// expected-failures list when asked for); returns what it wrote.
pub fn execute(args: &RunArgs) -> Result<ResultsFile> {
    execute_keeping(args, false).map(|(file, _)| file)
}

/// As [`execute`]; with `keep_outputs`, also what each emitter case wrote (case id, bytes).
pub fn execute_keeping(args: &RunArgs, keep_outputs: bool) -> Result<(ResultsFile, Outputs)> {
    execute_inner(args, keep_outputs).map(|ran| (ran.file, ran.outputs))
}

/// The implementation a run's arguments name: how to start it, the adapter it runs through, and
/// what the results header says of it.
pub struct Target {
    pub implementation: Implementation,
    pub adapter: Option<Adapter>,
    pub adapter_digest: Option<String>,
    /// The SHA-256 of the `--xfail` file, whose entries are in `adapter`.
    pub xfail_digest: Option<String>,
    pub name: String,
}

/// Reads the adapter (if any) and resolves the command, name and profiles `args` describe.
/// `corpus_ids` are the case ids an adapter's skip and expected-failure lists may name.
pub fn target(args: &RunArgs, corpus_ids: &std::collections::BTreeSet<String>) -> Result<Target> {
    let (adapter, adapter_digest) = match &args.adapter {
        None => (None, None),
        Some(path) => {
            let (name, text, digest) = crate::adapter_file::read_adapter(path)?;
            let mode = if args.persistent {
                Mode::Persistent
            } else {
                Mode::OneShot
            };
            let adapter = crate::adapter_file::checked_adapter(&name, &text, corpus_ids, mode)?;
            (Some(adapter), Some(digest))
        }
    };
    let (argv, name) = match (&adapter, one_command(adapter.as_ref(), &args.command)?) {
        (Some(a), Some(argv)) => {
            check_program(&argv)?;
            let name = a.name.clone().unwrap_or_else(|| name_of(&argv));
            (argv, name)
        }
        _ => implementation(args)?,
    };
    // The reference claims the GRP capability profiles it has unless told otherwise.
    let profiles = if let Some(a) = adapter.as_ref().filter(|a| !a.profiles.is_empty()) {
        a.profiles.clone()
    } else if args.command.is_empty() && adapter.is_none() && args.profiles.is_empty() {
        reference_profiles(argv.is_empty())
    } else {
        args.profiles
            .iter()
            .map(|p| p.as_str().to_string())
            .collect()
    };
    // `--xfail FILE`: its entries join the adapter's own list (an adapter that lists nothing
    // else when none was given).
    let (adapter, xfail_digest) = match &args.xfail {
        None => (adapter, None),
        Some(path) => {
            let (failures, digest) = crate::adapter_file::read_expected_failures(path, corpus_ids)?;
            let adapter = match adapter {
                Some(a) => a
                    .with_expected_failures(failures)
                    .map_err(|e| format!("{}: {e}", path.display()))?,
                None => Adapter::expecting(failures),
            };
            (Some(adapter), Some(digest))
        }
    };
    Ok(Target {
        implementation: Implementation {
            argv,
            timeout: Duration::from_secs(args.timeout.max(1)),
            capture_limit: agentconf_harness::DEFAULT_CAPTURE_BYTES,
            profiles,
        },
        adapter,
        adapter_digest,
        xfail_digest,
        name,
    })
}

/// The one command source of `run`, `claim verify` and `smoke`: the adapter's `command`, or the
/// command after `--`, never both (they would be joined into one argv that runs neither as
/// meant). `None` when neither names one and there is no adapter (`run` then runs the
/// reference); an adapter with no command needs one after `--`.
pub fn one_command(
    adapter: Option<&Adapter>,
    after_dashes: &[String],
) -> Result<Option<Vec<String>>> {
    match adapter {
        Some(a) if !after_dashes.is_empty() && !a.command.is_empty() => Err(format!(
            "--adapter names a command ({}) and another was given after -- ({}): give one",
            a.command.join(" "),
            after_dashes.join(" ")
        )
        .into()),
        // The adapter's command runs every operation, GRP receivers and a persistent server
        // included; its templates only say what follows it.
        Some(a) if !a.command.is_empty() => Ok(Some(a.command.clone())),
        Some(a) if after_dashes.is_empty() => Err(format!(
            "the adapter{} names no command, and none was given after --: nothing to run",
            a.name
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        )
        .into()),
        _ if after_dashes.is_empty() => Ok(None),
        _ => Ok(Some(after_dashes.to_vec())),
    }
}

/// Runs the selected cases and writes the results file (and the HTML report and
/// expected-failures list when asked for).
fn execute_inner(args: &RunArgs, keep_outputs: bool) -> Result<Executed> {
    // What ran, for the header: hashing the executable (agentconf itself, for the reference) and
    // the files its command names, and perhaps asking an interpreter its version, does not depend
    // on the corpus, so without an adapter (which is read against the corpus) it is worked out
    // while the corpus is built instead of after.
    let early_identity = match &args.adapter {
        None => {
            let (argv, name) = implementation(args)?;
            Some(std::thread::spawn(move || {
                ImplementationInfo::of(name, &argv)
            }))
        }
        Some(_) => None,
    };
    // The header's corpus digest and the selection's case count are the whole corpus's: computed
    // from it when it is built whole, else the facts compiled into this build
    // (`agentconf_corpus::embedded`), which spare building the drafts no prefix selects. Never a
    // file on disk. An adapter's lists and an expected-failure file are checked against every
    // case id, which needs them all.
    let lists_cases = args.adapter.is_some() || args.xfail.is_some();
    let whole = lists_cases || all_parts(&args.include);
    let corpus = if whole {
        agentconf_corpus::corpus()
    } else {
        agentconf_corpus::corpus_of(|suite| reaches(&args.include, suite))
    };
    let facts = if whole {
        CorpusFacts {
            digest: agentconf_corpus::writer::manifest(&corpus).corpus_digest,
            case_count: case_ids(&corpus).len(),
        }
    } else {
        CorpusFacts {
            digest: agentconf_corpus::embedded::CORPUS_DIGEST.to_string(),
            case_count: agentconf_corpus::embedded::CASE_COUNT,
        }
    };
    // Skip and expected-failure lists name cases.
    let corpus_ids = if lists_cases {
        case_ids(&corpus)
    } else {
        std::collections::BTreeSet::new()
    };
    let Target {
        implementation: imp,
        adapter,
        adapter_digest,
        xfail_digest,
        name,
    } = target(args, &corpus_ids)?;
    let grading = grading_of(args.grading);
    let selection = Selection {
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        corpus_case_count: facts.case_count,
    };
    let selected: Vec<Case<'_>> = corpus
        .iter()
        .flat_map(|v| v.cases())
        .filter(|c| selection.selects(&c.id))
        .collect();
    if selected.is_empty() {
        return Err("no vector matches the --include/--exclude prefixes".into());
    }
    // Before anything runs: every file the run will write can be written, the results file is
    // this run's alone (a second run writing it is refused now, not after both ran), and its
    // disk has room for it.
    distinct_outputs(&[
        ("--out", Some(args.out.as_path())),
        ("--html", args.html.as_deref()),
        ("--emit-xfail", args.emit_xfail.as_deref()),
    ])?;
    let out = results::ResultsWriter::create(&args.out, selected.len())?;
    for path in [args.html.as_ref(), args.emit_xfail.as_ref()]
        .into_iter()
        .flatten()
    {
        results::check_writable(path)?;
    }
    let record = RunRecord {
        suite_version: env!("CARGO_PKG_VERSION").into(),
        corpus_digest: facts.digest,
        selection,
        implementation: match early_identity.map(std::thread::JoinHandle::join) {
            Some(Ok(identity)) => identity,
            // The thread only hashes files and runs `--version`; a panic there is a bug here.
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => ImplementationInfo::of(name, &imp.argv),
        },
        adapter_digest,
        xfail_digest,
        grading,
        profiles: imp.profiles.clone(),
        persistent: args.persistent,
    };
    // From here on SIGINT or SIGTERM ends the implementation and still writes what ran; a
    // second signal ends the harness at once, and the results file's temporary goes with it.
    if let Err(e) = agentconf_harness::interrupt::install() {
        to_stderr(&format!("agentconf: cannot watch for interruption: {e}\n"));
    }
    let (sealed, broken_wrapper) = run_sealed(
        &imp,
        adapter.as_ref(),
        &selected,
        args,
        keep_outputs,
        record,
        out,
    )?;
    let file = sealed.file;
    if let Some(failure) = sealed.write_failure {
        // What was graded is not lost: the table goes to standard output, the lines written so
        // far stay in the temporary file, and the error says where.
        say(&ReportFormat::Text.render(&View::of(&file)))?;
        return Err(Error::ResultsNotWritten {
            target: args.out.clone(),
            failure,
        });
    }
    if let Some(path) = &args.emit_xfail {
        write_atomically(
            path,
            agentconf_harness::adapter::xfail_toml_for(&file.results).as_bytes(),
        )?;
    }
    if let Some(html) = &args.html {
        write_atomically(html, ReportFormat::Html.render(&View::of(&file)).as_bytes())?;
    }
    Ok(Executed {
        file,
        outputs: sealed.outputs,
        broken_wrapper,
    })
}

/// What a run records of the whole corpus, whatever it selects.
struct CorpusFacts {
    digest: String,
    case_count: usize,
}

/// Whether the `--include` prefixes reach every suite (or there are none): the whole corpus is
/// built then.
fn all_parts(include: &[String]) -> bool {
    agentconf_contract::vector::Suite::ALL
        .into_iter()
        .all(|suite| reaches(include, suite))
}

/// Every case id of `vectors`: a vector's id names its first case, `<id>@<revision>` its others.
fn case_ids(vectors: &[agentconf_contract::vector::Vector]) -> std::collections::BTreeSet<String> {
    vectors
        .iter()
        .flat_map(|v| v.cases().into_iter().map(|c| c.id))
        .collect()
}

/// Whether a vector of `suite` may be selected by the `--include` prefixes (every one when there
/// are none; excludes only take away): one of its ids may start with a prefix when the prefix
/// and the suite's id prefix are one a prefix of the other.
fn reaches(include: &[String], suite: agentconf_contract::vector::Suite) -> bool {
    let suite = suite.id_prefix();
    include.is_empty()
        || include
            .iter()
            .any(|p| p.starts_with(suite) || suite.starts_with(p.as_str()))
}

/// The grading a run's arguments ask for.
pub fn grading_of(arg: GradingArg) -> Grading {
    match arg {
        GradingArg::Loose => Grading::Loose,
        GradingArg::Strict => Grading::Strict,
    }
}

/// A name for a command: the file name of its last argument that names an existing file (the
/// script, not the interpreter running it), else its program.
fn name_of(argv: &[String]) -> String {
    argv.iter()
        .rev()
        .find(|a| std::path::Path::new(a).is_file())
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| argv.first().cloned())
        .unwrap_or_default()
}

/// The reference's own claims: `durable` and `atomic`, and `cluster` in process (its nodes share
/// one store) or when its processes are given a shared store (`AGENTCONF_GRP_STORE`): without
/// one each node process keeps its admitted set in its own STATE_DIR, which the cluster vectors
/// fail, as they must.
fn reference_profiles(in_process: bool) -> Vec<String> {
    let mut profiles = vec!["durable".to_string(), "atomic".to_string()];
    if in_process || std::env::var_os("AGENTCONF_GRP_STORE").is_some() {
        profiles.push("cluster".to_string());
    }
    profiles
}

/// The command to run and the name to report.
fn implementation(args: &RunArgs) -> Result<(Vec<String>, String)> {
    if !args.command.is_empty() {
        check_program(&args.command)?;
        return Ok((args.command.clone(), name_of(&args.command)));
    }
    if args.implementation == ImplementationArg::Reference && !args.persistent {
        // In process: no command at all.
        return Ok((Vec::new(), "reference (in process)".into()));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot locate agentconf itself: {e}"))?;
    Ok((
        vec![exe.display().to_string(), "impl".into()],
        "reference".into(),
    ))
}

/// Refuses a command whose program is a path to something other than a regular file (a FIFO, a
/// directory, a socket, a device), before anything opens it: hashing it for the results header
/// would wait forever on a FIFO's open, and none of them can be run. Looked at on an open that
/// cannot block (`O_NONBLOCK`). A program that is missing or unreadable is left to the run, which
/// says it cannot start it; a bare name is looked up in `PATH`, where only regular files count.
pub(crate) fn check_program(argv: &[String]) -> Result<()> {
    let Some(program) = argv.first().filter(|p| p.contains('/')) else {
        return Ok(());
    };
    match agentconf_json::file::open_regular(std::path::Path::new(program)) {
        Err(agentconf_json::file::OpenError::NotARegularFile(kind)) => {
            Err(format!("cannot run {program}: it is {kind}, not a regular file").into())
        }
        _ => Ok(()),
    }
}

/// Runs the cases on `--jobs` workers, each with its own backend; results come back in corpus
/// order, with what the implementation declared, the restarts of persistent processes and (with
/// `keep_outputs`) what emitters wrote. Not sealed into a results file: for runs whose lines are
/// material for something else (the matrix's cross runs).
pub fn run_all(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    cases: &[Case<'_>],
    grading: Grading,
    args: &RunArgs,
    keep_outputs: bool,
) -> Result<Ran> {
    let ran = with_progress(cases, |progress| {
        agentconf_harness::run_unsealed(
            &launch(imp, adapter, args),
            cases,
            grading,
            &options(args, keep_outputs),
            progress,
        )
    })?;
    report_notes(imp, adapter, cases, ran.notes());
    Ok(ran)
}

/// The whole run, sealed into its results file by the harness; and whether it stopped on a
/// broken wrapper.
fn run_sealed(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    cases: &[Case<'_>],
    args: &RunArgs,
    keep_outputs: bool,
    record: RunRecord,
    out: results::ResultsWriter,
) -> Result<(SealedRun, bool)> {
    let sealed = with_progress(cases, |progress| {
        agentconf_harness::run(
            &launch(imp, adapter, args),
            cases,
            &options(args, keep_outputs),
            record,
            progress,
            Some(out),
        )
    })?;
    let mut notes = sealed.notes;
    // A results file that could not be written stopped the run: its own error says so (a full
    // disk, a size limit), not the early-stop options, which were not given.
    if sealed.write_failure.is_some() {
        notes.stopped_early = false;
    }
    let broken_wrapper = report_notes(imp, adapter, cases, notes);
    Ok((sealed, broken_wrapper))
}

/// The reference in this process, one per worker.
fn in_process<'a>(grading: Grading) -> Box<dyn Backend + 'a> {
    Box::new(InProcess { grading })
}

/// What runs the cases, as a run's arguments say: a persistent server, the reference in process
/// (no command, no adapter), or the command once per case.
fn launch<'a>(imp: &'a Implementation, adapter: Option<&'a Adapter>, args: &RunArgs) -> Launch<'a> {
    if args.persistent {
        Launch::Persistent {
            implementation: imp,
            adapter,
            validate_protocol: args.validate_protocol,
        }
    } else if imp.argv.is_empty() {
        // The reference in process (an adapter names a command, so this one only lists
        // expected failures: `--xfail FILE`).
        Launch::InProcess(&in_process, adapter)
    } else {
        Launch::Command {
            implementation: imp,
            adapter,
        }
    }
}

/// How a run's arguments ask for the cases to be run.
fn options(args: &RunArgs, keep_outputs: bool) -> RunOptions {
    RunOptions {
        jobs: jobs(args.jobs),
        max_fail: if args.fail_fast {
            Some(1)
        } else {
            args.max_fail.map(|n| n.get())
        },
        keep_going: args.keep_going,
        keep_outputs,
    }
}

/// The workers `--jobs` asks for (the number of cores without it), at most
/// [`agentconf_harness::MAX_JOBS`]: asking for more says so (once per process: a matrix runs
/// several), and the run goes on with that many. The harness also starts no more workers than
/// there are cases.
fn jobs(asked: Option<std::num::NonZeroUsize>) -> usize {
    let Some(asked) = asked else {
        return std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(agentconf_harness::MAX_JOBS);
    };
    static SAID: std::sync::Once = std::sync::Once::new();
    if asked.get() > agentconf_harness::MAX_JOBS {
        SAID.call_once(|| {
            to_stderr(&format!(
                "agentconf: --jobs {asked}: a run starts at most {} workers (and no more than \
                 it has cases)\n",
                agentconf_harness::MAX_JOBS
            ))
        });
    }
    asked.get().min(agentconf_harness::MAX_JOBS)
}

/// `go` with a progress bar (or progress lines) for `cases`.
fn with_progress<T>(
    cases: &[Case<'_>],
    go: impl FnOnce(&(dyn Fn(usize, usize) + Sync)) -> std::result::Result<T, RunError>,
) -> Result<T> {
    let progress = Progress::start(cases.len());
    let on_progress = |done: usize, unexpected: usize| progress.update(done, unexpected);
    let out = go(&on_progress);
    progress.finish();
    Ok(out?)
}

/// What the user should hear about how a run went, on standard error: a broken wrapper (with
/// the smoke check), restarts of a persistent server, an early stop. Returns whether the run
/// stopped on a broken wrapper.
fn report_notes(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    cases: &[Case<'_>],
    notes: RunNotes,
) -> bool {
    if notes.broken_wrapper {
        to_stderr(&format!(
            "agentconf: the first {} cases all ended the same way, so the run stopped there \
             (give --keep-going to run every case). The smoke check says what is wrong:\n\n{}\n",
            agentconf_harness::smoke::IDENTICAL_CRASHES,
            agentconf_harness::smoke::check(imp, adapter, cases).0
        ));
    }
    if notes.restarts > 0 {
        to_stderr(&format!(
            "agentconf: the persistent implementation was restarted {} times (after crashes, \
             hangs or protocol errors, or because it exited between requests)\n",
            notes.restarts
        ));
    }
    if notes.stopped_early && !notes.broken_wrapper {
        to_stderr("agentconf: stopped early (--fail-fast / --max-fail); the results file lists the vectors that ran\n");
    }
    notes.broken_wrapper
}

/// How often a run says how far it is when standard error is not a terminal (a CI log, a file):
/// often enough that a slow implementation never looks like a hung harness.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(10);

/// The environment variable that sets another interval, in whole seconds (at least 1).
const PROGRESS_INTERVAL_VARIABLE: &str = "AGENTCONF_PROGRESS_INTERVAL";

/// A run's progress on standard error: a bar on a terminal, redrawn every second with the time
/// elapsed; elsewhere one plain line every [`PROGRESS_INTERVAL`] (cases done, unexpected so far,
/// time elapsed) from a thread of its own, so that a case that takes minutes still gets its
/// lines. A run shorter than the interval prints none.
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines(ProgressLines),
}

impl Progress {
    fn start(total: usize) -> Progress {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} cases {msg} [{elapsed}]",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_secs(1));
            return Progress::Bar(bar);
        }
        Progress::Lines(ProgressLines::start(total, progress_interval()))
    }

    fn update(&self, done: usize, unexpected: usize) {
        match self {
            Progress::Bar(bar) => {
                bar.set_position(done as u64);
                if unexpected > 0 {
                    bar.set_message(format!("({unexpected} unexpected)"));
                }
            }
            Progress::Lines(lines) => lines.update(done, unexpected),
        }
    }

    fn finish(self) {
        match self {
            Progress::Bar(bar) => bar.finish_and_clear(),
            Progress::Lines(lines) => lines.finish(),
        }
    }
}

/// [`PROGRESS_INTERVAL`], or the whole seconds [`PROGRESS_INTERVAL_VARIABLE`] gives.
fn progress_interval() -> Duration {
    std::env::var(PROGRESS_INTERVAL_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s >= 1)
        .map_or(PROGRESS_INTERVAL, Duration::from_secs)
}

/// What the progress lines report, updated by the workers.
struct Counts {
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    unexpected: std::sync::atomic::AtomicUsize,
    started: std::time::Instant,
}

impl Counts {
    /// `agentconf: 120 of 663 cases done, 2 unexpected so far, 30 s elapsed`.
    fn line(&self) -> String {
        use std::sync::atomic::Ordering::Relaxed;
        format!(
            "agentconf: {} of {} cases done, {} unexpected so far, {} s elapsed\n",
            self.done.load(Relaxed),
            self.total,
            self.unexpected.load(Relaxed),
            self.started.elapsed().as_secs()
        )
    }
}

/// The plain progress lines: a thread that writes one every interval until the run ends.
struct ProgressLines {
    counts: std::sync::Arc<Counts>,
    /// Dropped at the end of the run, which wakes the thread to stop.
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl ProgressLines {
    fn start(total: usize, every: Duration) -> ProgressLines {
        let counts = std::sync::Arc::new(Counts {
            total,
            done: Default::default(),
            unexpected: Default::default(),
            started: std::time::Instant::now(),
        });
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let seen = std::sync::Arc::clone(&counts);
        let thread = std::thread::spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every)
            {
                to_stderr(&seen.line());
            }
        });
        ProgressLines {
            counts,
            stop,
            thread,
        }
    }

    fn update(&self, done: usize, unexpected: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        // Workers report out of order: keep the largest count seen.
        self.counts.done.fetch_max(done, Relaxed);
        self.counts.unexpected.fetch_max(unexpected, Relaxed);
    }

    fn finish(self) {
        drop(self.stop);
        // The thread only sleeps and writes; a panic there would be a bug here.
        if let Err(panic) = self.thread.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

/// Refuses, before anything runs, one file named for two outputs (`--out X --html X`): the
/// second written would replace the first, and the results would be lost behind a success.
fn distinct_outputs(named: &[(&str, Option<&std::path::Path>)]) -> Result<()> {
    let given: Vec<(&str, &std::path::Path)> = named
        .iter()
        .filter_map(|(flag, path)| path.map(|p| (*flag, p)))
        .collect();
    for (i, (flag_a, a)) in given.iter().enumerate() {
        for (flag_b, b) in &given[i + 1..] {
            if same_target(a, b) {
                return Err(format!(
                    "{flag_a} and {flag_b} both name {}: each output needs a file of its own \
                     (nothing was run)",
                    a.display()
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Whether two output paths name one file: the same file where both exist (any links or `..`
/// in between), else the same name in the same (resolved) directory.
fn same_target(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return (ma.dev(), ma.ino()) == (mb.dev(), mb.ino());
    }
    let resolved = |p: &std::path::Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        std::fs::canonicalize(dir)
            .ok()
            .map(|d| d.join(p.file_name().unwrap_or_default()))
    };
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}
