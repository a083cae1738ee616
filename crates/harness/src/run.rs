//! A whole run as one call: the selected cases through the worker pool, and the results file
//! sealed around them — the header with what ran and what was selected (and digests of both),
//! the footer with the totals, the digests of the header and the lines, whether the run was
//! interrupted and how often a persistent server restarted. The judge's guarantees about its own
//! file live here, not in a front end: `claim verify` and every report check what this writes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use agentconf_contract::protocol::Named;

use crate::grade::Grading;
use crate::interrupt;
use crate::results::{
    case_ids_sha256, footer, header_sha256, now_rfc3339, Header, ImplementationInfo, Line,
    ResultLine, ResultsFile, ResultsWriter, Selection, WriteError, FORMAT,
};
use agentconf_contract::case::Case;

use crate::session::{run_cases, Launch, Outputs, Plan, RunError, RunNotes, RunOptions};

/// What the results header records of a run, beyond the cases it ran.
pub struct RunRecord {
    /// The version of agentconf that grades.
    pub suite_version: String,
    /// The corpus the cases come from.
    pub corpus_digest: String,
    /// How the cases were drawn from it.
    pub selection: Selection,
    /// What ran (its declared name, from a persistent server, is added once known).
    pub implementation: ImplementationInfo,
    pub adapter_digest: Option<String>,
    /// SHA-256 of the expected-failures file (`run --xfail FILE`), when one was given.
    pub xfail_digest: Option<String>,
    pub grading: Grading,
    /// The capability profiles it claimed.
    pub profiles: Vec<String>,
    /// Through a persistent server: the footer then counts its restarts.
    pub persistent: bool,
}

/// A run that finished (or was interrupted, which its footer says): the sealed results file,
/// what emitters wrote (when the plan keeps it) and what the front end may want to say.
pub struct SealedRun {
    pub file: ResultsFile,
    pub outputs: Outputs,
    pub notes: RunNotes,
    /// The results file could not be written as the run went (a full disk, say): the run stopped
    /// there, and what was written is kept.
    pub write_failure: Option<WriteFailure>,
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

/// Runs `cases` on the backends `launch` makes and seals the results file: written to `out` as
/// the run goes (header with the first settled case, each line as soon as every case before it
/// is settled, footer at the end), and returned whole. `progress(done, unexpected)` is called
/// after each case. A second signal ends the harness at once, and `out`'s temporary goes with it.
pub fn run(
    launch: &Launch<'_>,
    cases: &[Case<'_>],
    options: &RunOptions,
    record: RunRecord,
    progress: &(dyn Fn(usize, usize) + Sync),
    out: Option<ResultsWriter>,
) -> Result<SealedRun, RunError> {
    if let Some(out) = &out {
        interrupt::register_work_dir(out.temporary().to_path_buf());
    }
    let grading = record.grading;
    let vector_count = {
        let mut ids: Vec<&str> = cases.iter().map(|c| c.vector.id.as_str()).collect();
        ids.dedup();
        ids.len()
    };
    // Processes run only for a command (the reference in process has none).
    let containment = (!record.implementation.argv.is_empty()).then(crate::process::containment);
    let header = Header {
        format: FORMAT.into(),
        suite_version: record.suite_version,
        corpus_digest: record.corpus_digest,
        vector_count,
        case_count: Some(cases.len()),
        implementation: record.implementation,
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
    let writing = Mutex::new(Writing {
        out,
        header: Some(header),
        written_header: None,
        next: 0,
        pending: BTreeMap::new(),
        lines_written: 0,
        failure: None,
    });
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
    let header = match &w.written_header {
        Some(h) => h.clone(),
        None => {
            let mut h = w.header.take().ok_or(RunError::WorkerPanicked)?;
            h.implementation.declared = ran.declared.clone();
            h
        }
    };
    let mut footer = footer(&ran.lines, started.elapsed().as_millis() as u64);
    footer.header_sha256 = Some(header_sha256(&header));
    footer.interrupted = interrupt::interrupted();
    footer.restarts = record.persistent.then_some(ran.restarts);
    let write_failure = w.finish(&header, &footer);
    Ok(SealedRun {
        file: ResultsFile {
            header,
            results: ran.lines,
            footer: Some(footer),
        },
        outputs: ran.outputs,
        notes,
        write_failure,
    })
}

/// The results file as the run writes it.
struct Writing {
    out: Option<ResultsWriter>,
    /// The header until it is written.
    header: Option<Header>,
    /// The header once written, with what the implementation declared.
    written_header: Option<Header>,
    /// The first case not yet written (or left out).
    next: usize,
    /// Settled cases waiting for those before them: `None` for one left out.
    pending: BTreeMap<usize, Option<ResultLine>>,
    lines_written: usize,
    failure: Option<WriteError>,
}

impl Writing {
    /// Case `i` settled: writes every line now in order. `false` once the file cannot be
    /// written, which stops the run.
    fn settle(&mut self, i: usize, line: Option<&ResultLine>, declared: Option<Named>) -> bool {
        if self.failure.is_some() {
            return false;
        }
        if self.out.is_none() {
            return true;
        }
        if let Some(mut h) = self.header.take() {
            h.implementation.declared = declared;
            if let Err(e) = self.write(&Line::Header(h.clone())) {
                self.failure = Some(e);
                return false;
            }
            self.written_header = Some(h);
        }
        self.pending.insert(i, line.cloned());
        while let Some(settled) = self.pending.remove(&self.next) {
            self.next += 1;
            if let Some(line) = settled {
                if let Err(e) = self.write(&Line::Result(line)) {
                    self.failure = Some(e);
                    return false;
                }
                self.lines_written += 1;
            }
        }
        true
    }

    fn write(&mut self, line: &Line) -> Result<(), WriteError> {
        match &mut self.out {
            Some(out) => out.line(line),
            None => Ok(()),
        }
    }

    /// The end of the run: the header if no case wrote it, the lines still waiting (cases after
    /// one that never ran), the footer, and the rename; or, after a failure, the partial file
    /// kept.
    fn finish(mut self, header: &Header, footer: &crate::results::Footer) -> Option<WriteFailure> {
        let mut out = self.out.take()?;
        let mut result = Ok(());
        if self.failure.is_none() {
            if self.written_header.is_none() {
                result = out.line(&Line::Header(header.clone()));
            }
            for line in std::mem::take(&mut self.pending).into_values().flatten() {
                if result.is_err() {
                    break;
                }
                result = out.line(&Line::Result(line));
                self.lines_written += usize::from(result.is_ok());
            }
            if result.is_ok() {
                result = out.line(&Line::Footer(footer.clone()));
            }
            if result.is_ok() {
                return out.finish().err().map(|error| WriteFailure {
                    error,
                    partial: None,
                    lines_written: self.lines_written,
                });
            }
        }
        let error = match (self.failure.take(), result) {
            (Some(e), _) | (None, Err(e)) => e,
            (None, Ok(())) => return None,
        };
        Some(WriteFailure {
            error,
            partial: Some(out.keep_partial()),
            lines_written: self.lines_written,
        })
    }
}
