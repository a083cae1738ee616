//! `agentconf commit`: verify a timeline under the newest AER-1 revision and print its commitment
//! artifact.

use crate::error::Sort as _;
use agentconf_aer1::commitment::make_commitment;
use agentconf_aer1::formats::check_rfc3339;
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::{Report, Verdict};

use super::{emit, to_stderr, ExitOutcome};
use crate::args::CommitArgs;
use crate::error::Result;
use crate::input::{open, read_error};
use crate::render;

pub fn run(args: &CommitArgs) -> Result<ExitOutcome> {
    check_rfc3339(&args.published_at)
        .map_err(|e| format!("--published-at {:?}: {e}", args.published_at))
        .usage()?;
    let input = open(&args.file)?;
    let report = verify_timeline(input.reader, &TimelineOptions::default())
        .map_err(|e| read_error(&input.name, &e))?;
    let parts = (&report.job_id, &report.final_entry_digest);
    match (report.verdict, parts) {
        (Verdict::Valid, (Some(job_id), Some(digest))) => {
            let commitment =
                make_commitment(job_id, digest, report.entry_count, &args.published_at)
                    .map_err(|e| format!("cannot build the commitment: {e}"))
                    .refused()?;
            emit(&(commitment.to_json() + "\n"))?;
            Ok(ExitOutcome::Valid)
        }
        _ => {
            // Nothing on standard output: a commitment is only ever printed for a valid chain.
            let head = format!(
                "agentconf: no commitment: the timeline does not verify under revision {}\n",
                report.revision
            );
            to_stderr(&(head + &render::text(&Report::Timeline(report), &input.name)));
            Ok(ExitOutcome::Invalid)
        }
    }
}
