//! `agentconf report FILE [--format …]` and `agentconf report diff OLD NEW`: everything derived
//! from a results file. Exit 1 when the file holds unexpected results (or the diff regressions).

use std::path::Path;

use agentconf_harness::report;
use agentconf_harness::results::{self, ResultsFile};

use super::{emit, Outcome};
use crate::args::{ReportArgs, ReportFormat};
use crate::input::{open, read_error};

/// Reads and checks a results file (see `results::check`).
pub fn load(path: &Path) -> Result<ResultsFile, String> {
    let input = open(path)?;
    let bytes = match agentconf_json::read_limited(input.reader, results::MAX_RESULTS_BYTES)
        .map_err(|e| read_error(&input.name, &e))?
    {
        Ok(b) => b,
        Err(e) => return Err(format!("{}: {e}", input.name)),
    };
    let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", input.name))?;
    let file = results::parse(&text).map_err(|e| format!("{}: {e}", input.name))?;
    // No report is drawn from a file that is not the one a run wrote.
    results::check(&file).map_err(|e| format!("{}: refused: {e}", input.name))?;
    Ok(file)
}

pub fn run(args: &ReportArgs) -> Result<Outcome, String> {
    let files: Vec<&Path> = args.files.iter().map(|p| p.as_path()).collect();
    match files.as_slice() {
        [diff, old, new] if diff.as_os_str() == "diff" => {
            let d = report::diff(&load(old)?, &load(new)?);
            emit(&report::diff_text(&d))?;
            Ok(if d.has_regressions() {
                Outcome::Invalid
            } else {
                Outcome::Valid
            })
        }
        [file] if file.as_os_str() != "diff" => {
            let file = load(file)?;
            let text = match args.format {
                ReportFormat::Text => report::text(&file),
                ReportFormat::Json => report::json(&file),
                ReportFormat::Junit => report::junit(&file),
                ReportFormat::Markdown => report::markdown(&file),
                ReportFormat::Html => report::html(&file),
                ReportFormat::Badge => report::badge(&file),
            };
            emit(&text)?;
            // FAIL and NOTHING TESTED exit 1, whatever the format.
            Ok(if report::verdict(&file).exit_ok() {
                Outcome::Valid
            } else {
                Outcome::Invalid
            })
        }
        _ => Err(
            "usage: agentconf report FILE [--format FORMAT] | agentconf report diff OLD NEW".into(),
        ),
    }
}
