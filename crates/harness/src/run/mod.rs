//! A run, as one builder: the selected cases through the worker pool, and the results file
//! sealed around them — the header with what ran and what was selected (and digests of both),
//! the footer with the totals, the digests of the header and the lines, whether the run was
//! interrupted and how often a persistent server restarted — and the files beside it (the HTML
//! report, the expected-failures list), every one checked writable before anything runs.
//!
//! The judge's guarantees about its own file live here, not in a front end: `claim verify` and
//! every report check what this writes. A front end turns its arguments into a [`RunBuilder`]
//! and renders what [`RunBuilder::execute`] returns; it starts nothing and writes nothing itself.

mod files;
mod writing;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use agentconf_contract::case::Case;
use agentconf_contract::protocol::Named;

use crate::grade::Grading;
use crate::identity::PendingIdentity;
use crate::interrupt;
use crate::report::{ReportFormat, View};
use crate::results::{
    case_ids_sha256, footer, header_sha256, now_rfc3339, write_atomically, Header, ResultLine,
    ResultsFile, Selection, WriteError, FORMAT,
};
use crate::session::{run_cases, Launch, Outputs, Plan, RunError, RunNotes, RunOptions};
use writing::Writing;

pub use files::{FilesError, NamedFile};

/// What the results header records of a run, beyond the cases it ran.
pub struct RunRecord {
    /// The version of agentconf that grades.
    pub suite_version: String,
    /// The corpus the cases come from.
    pub corpus_digest: String,
    /// How the cases were drawn from it.
    pub selection: Selection,
    /// What ran (its declared name, from a persistent server, is added once known), perhaps
    /// still being worked out when the run is built.
    pub implementation: PendingIdentity,
    pub adapter_digest: Option<String>,
    /// SHA-256 of the expected-failures file (`run --xfail FILE`), when one was given.
    pub xfail_digest: Option<String>,
    pub grading: Grading,
    /// The capability profiles it claimed.
    pub profiles: Vec<String>,
    /// Through a persistent server: the footer then counts its restarts.
    pub persistent: bool,
}

/// A results file that could not be written whole.
#[derive(Debug)]
pub struct WriteFailure {
    pub error: WriteError,
    /// The temporary file holding the lines written before the failure (no footer), when any.
    pub partial: Option<PathBuf>,
    /// Result lines on disk in it.
    pub lines_written: usize,
}

/// A run to be made: what runs the cases, what the header records, how the cases are run, and
/// the files it writes.
pub struct RunBuilder<'a> {
    launch: Launch<'a>,
    record: RunRecord,
    options: RunOptions,
    results: Option<NamedFile>,
    html: Option<NamedFile>,
    expected_failures: Option<NamedFile>,
    /// Files the caller writes after the run (a signature, an attestation): checked distinct and
    /// writable with the others, before anything runs.
    reserved: Vec<NamedFile>,
}

/// A run that finished (or was interrupted, which its footer says): the sealed results file,
/// what emitters wrote (when the options keep it) and what the front end may want to say.
pub struct Finished {
    pub file: ResultsFile,
    pub outputs: Outputs,
    pub notes: RunNotes,
    /// The run stopped on a broken wrapper: the smoke check's one-screen report of what is wrong.
    pub diagnosis: Option<String>,
    /// The results file could not be written as the run went (a full disk, say): the run stopped
    /// there, what was written is kept, and neither the HTML report nor the expected-failures
    /// list was written.
    pub write_failure: Option<WriteFailure>,
    /// Interruption could not be watched (the signals could not be hooked): the run went on
    /// without it.
    pub unwatched: Option<std::io::Error>,
}

/// Why a run did not finish.
#[derive(Debug)]
pub enum RunFailure {
    /// Before anything ran: a file it would write cannot be.
    Files(FilesError),
    /// A worker's backend could not start, or a worker panicked.
    Run(RunError),
    /// After the run, whose results file is written: the HTML report or the expected-failures
    /// list could not be.
    SideOutput(WriteError),
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::Files(e) => write!(f, "{e}"),
            RunFailure::Run(e) => write!(f, "{e}"),
            RunFailure::SideOutput(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunFailure {}

impl<'a> RunBuilder<'a> {
    /// A run of what `launch` starts, recorded as `record` says, run as `options` say; it writes
    /// no file unless told to.
    pub fn new(launch: Launch<'a>, record: RunRecord, options: RunOptions) -> RunBuilder<'a> {
        RunBuilder {
            launch,
            record,
            options,
            results: None,
            html: None,
            expected_failures: None,
            reserved: Vec::new(),
        }
    }

    /// Writes the results file as the run goes (a second run writing it is refused before
    /// anything runs).
    pub fn results_file(mut self, file: NamedFile) -> Self {
        self.results = Some(file);
        self
    }

    /// Writes the HTML report of the results after the run.
    pub fn html_report(mut self, file: Option<NamedFile>) -> Self {
        self.html = file;
        self
    }

    /// Writes the list of the run's unexpected results, as an adapter's expected failures.
    pub fn expected_failures_list(mut self, file: Option<NamedFile>) -> Self {
        self.expected_failures = file;
        self
    }

    /// A file the caller writes after the run: checked distinct and writable before it.
    pub fn reserve(mut self, file: NamedFile) -> Self {
        self.reserved.push(file);
        self
    }

    /// Checks every file, watches for interruption, runs `cases` and seals the results file;
    /// then writes the report and the list beside it. `progress(done, unexpected)` is called
    /// after each case.
    pub fn execute(
        self,
        cases: &[Case<'_>],
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Finished, RunFailure> {
        let others: Vec<&NamedFile> = [&self.html, &self.expected_failures]
            .into_iter()
            .flatten()
            .chain(&self.reserved)
            .collect();
        let out = files::prepare(self.results.as_ref(), &others, cases.len())
            .map_err(RunFailure::Files)?;
        if let Some(out) = &out {
            interrupt::register_work_dir(out.temporary().to_path_buf());
        }
        // From here on SIGINT or SIGTERM ends the implementation and still writes what ran; a
        // second signal ends the harness at once, and the results file's temporary goes with it.
        let unwatched = interrupt::install().err();
        let mut finished = seal(
            &self.launch,
            cases,
            &self.options,
            self.record,
            progress,
            out,
        )
        .map_err(RunFailure::Run)?;
        finished.unwatched = unwatched;
        // A results file that could not be written stopped the run: its own error says so (a
        // full disk, a size limit), not the early-stop options, which were not given.
        if finished.write_failure.is_some() {
            finished.notes.stopped_early = false;
            return Ok(finished);
        }
        if finished.notes.broken_wrapper {
            finished.diagnosis = self
                .launch
                .command()
                .map(|(imp, adapter)| crate::smoke::check(imp, adapter, cases).0);
        }
        if let Some(list) = &self.expected_failures {
            let toml = crate::adapter::xfail_toml_for(&finished.file.results);
            write_atomically(&list.path, toml.as_bytes()).map_err(RunFailure::SideOutput)?;
        }
        if let Some(html) = &self.html {
            let page = ReportFormat::Html.render(&View::of(&finished.file));
            write_atomically(&html.path, page.as_bytes()).map_err(RunFailure::SideOutput)?;
        }
        Ok(finished)
    }
}

/// Runs `cases` on the backends `launch` makes and seals the results file: written to `out` as
/// the run goes (header with the first settled case, each line as soon as every case before it
/// is settled, footer at the end), and returned whole.
fn seal(
    launch: &Launch<'_>,
    cases: &[Case<'_>],
    options: &RunOptions,
    record: RunRecord,
    progress: &(dyn Fn(usize, usize) + Sync),
    out: Option<crate::results::ResultsWriter>,
) -> Result<Finished, RunError> {
    let grading = record.grading;
    let vector_count = {
        let mut ids: Vec<&str> = cases.iter().map(|c| c.vector.id.as_str()).collect();
        ids.dedup();
        ids.len()
    };
    // Processes run only for a command (the reference in process has none).
    let implementation = record.implementation.wait();
    let containment = (!implementation.argv.is_empty()).then(crate::process::containment);
    let header = Header {
        format: FORMAT.into(),
        suite_version: record.suite_version,
        corpus_digest: record.corpus_digest,
        vector_count,
        case_count: Some(cases.len()),
        implementation,
        adapter_digest: record.adapter_digest,
        xfail_digest: record.xfail_digest,
        grading: record.grading,
        profiles: record.profiles,
        containment,
        containment_note: containment.map(|c| c.note().to_owned()),
        case_ids_sha256: Some(case_ids_sha256(cases.iter().map(|c| c.id.as_str()))),
        selection: Some(record.selection),
        started_at: now_rfc3339(),
    };
    // What a run killed with SIGKILL left behind, its own clean-up never having run.
    crate::dirs::remove_stale();
    let started = Instant::now();
    let writing = Mutex::new(Writing::new(out, header));
    let sink = |i: usize, line: Option<&ResultLine>, declared: Option<Named>| match writing.lock() {
        Ok(mut w) => w.settle(i, line, declared),
        Err(_) => false,
    };
    let plan = Plan::new(cases, launch, options, Some(&sink));
    let ran = run_cases(&plan, &|| launch.start(grading), progress)?;
    let notes = ran.notes();
    let mut w = writing.into_inner().map_err(|_| RunError::WorkerPanicked)?;
    // The header as written with the first line (what its implementation declared), else as
    // the run ends.
    let header = match w.written_header() {
        Some(h) => h.clone(),
        None => {
            let mut h = w.take_header().ok_or(RunError::WorkerPanicked)?;
            h.implementation.declared = ran.declared.clone();
            h
        }
    };
    let mut footer = footer(&ran.lines, started.elapsed().as_millis() as u64);
    footer.header_sha256 = Some(header_sha256(&header));
    footer.interrupted = interrupt::interrupted();
    footer.restarts = record.persistent.then_some(ran.restarts);
    let write_failure = w.finish(&header, &footer);
    Ok(Finished {
        file: ResultsFile {
            header,
            results: ran.lines,
            footer: Some(footer),
        },
        outputs: ran.outputs,
        notes,
        diagnosis: None,
        write_failure,
        unwatched: None,
    })
}
