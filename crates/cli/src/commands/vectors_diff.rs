//! `agentconf vectors diff OLD [NEW]`: what changed between two corpora, for the spec author's
//! release notes and for the implementer whose results moved. The comparison itself is
//! `agentconf_corpus::diff`; this reads the two sides and prints one rendering.

use crate::error::Sort as _;
use std::path::Path;

use agentconf_corpus::diff::{self, CorpusSnapshot};

use super::{emit, say, ExitOutcome};
use crate::args::{DiffFormat, VectorsDiffArgs};
use crate::error::Result;

/// The name that stands for the corpus embedded in the binary.
const EMBEDDED: &str = "embedded";

pub fn run(args: &VectorsDiffArgs) -> Result<ExitOutcome> {
    let old = snapshot(&args.old)?;
    let new = match &args.new {
        Some(dir) => snapshot(dir)?,
        None => embedded(),
    };
    let d = diff::diff(&old, &new);
    match args.format {
        DiffFormat::Text => say(&d.to_text())?,
        DiffFormat::Markdown => say(&d.to_markdown())?,
        DiffFormat::Changelog => say(&d.changelog_entry())?,
        DiffFormat::Json => emit(
            &(serde_json::to_string_pretty(&d)
                .map_err(|e| format!("cannot render JSON: {e}"))
                .unwritable()?
                + "\n"),
        )?,
    }
    // Like `diff --exit-code`: a script (CI checking a pinned digest) asks whether anything
    // moved; without the option a difference is the answer, not a failure.
    Ok(if args.exit_code && !d.is_empty() {
        ExitOutcome::Invalid
    } else {
        ExitOutcome::Valid
    })
}

fn snapshot(arg: &Path) -> Result<CorpusSnapshot> {
    if arg == Path::new(EMBEDDED) {
        return Ok(embedded());
    }
    diff::load_dir(arg).refused()
}

fn embedded() -> CorpusSnapshot {
    diff::from_vectors(&agentconf_corpus::corpus())
}
