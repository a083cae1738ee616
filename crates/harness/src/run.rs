//! A whole run as one call: the selected cases through the worker pool, and the results file
//! sealed around them — the header with what ran and what was selected (and digests of both),
//! the footer with the totals, the digests of the header and the lines, whether the run was
//! interrupted and how often a persistent server restarted. The judge's guarantees about its own
//! file live here, not in a front end: `claim verify` and every report check what this writes.

use std::time::Instant;

use crate::grade::Grading;
use crate::interrupt;
use crate::results::{
    case_ids_sha256, footer, header_sha256, now_rfc3339, Header, ImplementationInfo, ResultsFile,
    Selection, FORMAT,
};
use crate::session::{run_cases, Outputs, Plan, RunError, RunNotes, StartBackend};

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
}

/// Runs `plan` with backends from `start` and seals the results file. `progress(done,
/// unexpected)` is called after each case.
pub fn run(
    plan: &Plan<'_>,
    record: RunRecord,
    start: &StartBackend<'_>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<SealedRun, RunError> {
    let vector_count = {
        let mut ids: Vec<&str> = plan.cases.iter().map(|c| c.vector.id.as_str()).collect();
        ids.dedup();
        ids.len()
    };
    // Processes run only for a command (the reference in process has none).
    let containment = (!record.implementation.argv.is_empty()).then(crate::process::containment);
    let mut header = Header {
        format: FORMAT.into(),
        suite_version: record.suite_version,
        corpus_digest: record.corpus_digest,
        vector_count,
        case_count: Some(plan.cases.len()),
        implementation: record.implementation,
        adapter_digest: record.adapter_digest,
        grading: record.grading,
        profiles: record.profiles,
        containment,
        case_ids_sha256: Some(case_ids_sha256(plan.cases.iter().map(|c| c.id.as_str()))),
        selection: Some(record.selection),
        started_at: now_rfc3339(),
    };
    // What a run killed with SIGKILL left behind, its own clean-up never having run.
    crate::dirs::remove_stale();
    let started = Instant::now();
    let ran = run_cases(plan, start, progress)?;
    let notes = ran.notes();
    header.implementation.declared = ran.declared;
    let mut footer = footer(&ran.lines, started.elapsed().as_millis() as u64);
    footer.header_sha256 = Some(header_sha256(&header));
    footer.interrupted = interrupt::interrupted();
    footer.restarts = record.persistent.then_some(ran.restarts);
    Ok(SealedRun {
        file: ResultsFile {
            header,
            results: ran.lines,
            footer: Some(footer),
        },
        outputs: ran.outputs,
        notes,
    })
}
