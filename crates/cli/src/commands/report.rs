//! `agentconf report FILE [--format …] [--emit-xfail XFAIL]` and `agentconf report diff OLD NEW`:
//! everything derived from a results file. Exit 1 when the file holds unexpected results (or the
//! diff regressions), unless `--exit-zero` asks to publish without failing; `--require LEVEL`
//! raises the least verdict that exits 0. A diff across two corpora says which differences the
//! corpus made, from the corpora [`corpora`] finds.

mod corpora;

use crate::error::Sort as _;
use std::path::Path;

use agentconf_harness::adapter::xfail_toml_for;
use agentconf_harness::corpus_check::{self, CorpusMismatch};
use agentconf_harness::report::{self, Level, ReportFormat, View};
use agentconf_harness::results::{self, ResultsFile};

use super::{emit, say, to_stderr, ExitOutcome};
use crate::args::{ReportArgs, ReportCommand, ReportDiffArgs, RequireLevel};
use crate::error::{Error, Result};
use crate::input::open;

/// Reads a results file as a stream of bounded lines, at most `max_cases` results (the corpus's
/// case count, or [`results::MAX_CASES_WITHOUT_CORPUS`] for `report diff`, whose two files may
/// come from different corpora), and checks that it is whole (see `results::check`).
pub fn load_whole(path: &Path, max_cases: usize) -> Result<ResultsFile> {
    let input = open(path)?;
    let reader = std::io::BufReader::with_capacity(1 << 16, input.reader);
    whole_from(reader, &input.name, max_cases)
}

/// As [`load_whole`], from a reader: the bytes already read (and their signature checked).
pub fn whole_from(
    reader: impl std::io::BufRead,
    name: &str,
    max_cases: usize,
) -> Result<ResultsFile> {
    let file = results::read(reader, max_cases).map_err(|error| Error::NotResults {
        name: name.to_string(),
        error,
    })?;
    // No report is drawn from a file that is not the one a run wrote.
    results::check(&file).map_err(|error| Error::Incomplete {
        name: name.to_string(),
        error,
    })?;
    Ok(file)
}

/// A signature to require of a results file: the signers allowed, and the signature file when
/// it is not `RESULTS.sig`.
pub struct SignedBy<'a> {
    pub signers: &'a Path,
    pub signature: Option<&'a Path>,
}

/// Reads a results file, checks that it is whole, and holds it to its corpus (see
/// `corpus_check`): the embedded one, or the corpus directory `corpus` when given. A verdict is
/// drawn only from a file that passes both. With `signed`, the file's bytes are read once, their
/// signature checked, and the same bytes read as the results file; who signed, when asked.
pub fn load_checked_signed(
    path: &Path,
    corpus: Option<&Path>,
    signed: Option<SignedBy<'_>>,
) -> Result<(ResultsFile, Option<agentconf_harness::signing::Signer>)> {
    let (vectors, digest) = match corpus {
        Some(dir) => {
            let read = agentconf_corpus::reader::read_dir(dir).refused()?;
            (read.vectors, read.digest)
        }
        None => {
            let vectors = agentconf_corpus::corpus();
            let digest = agentconf_corpus::writer::manifest(&vectors).corpus_digest;
            (vectors, digest)
        }
    };
    let cases = vectors.iter().map(|v| v.cases().len()).sum();
    let (file, signer) = match signed {
        None => (load_whole(path, cases)?, None),
        Some(s) => {
            let bytes = crate::signed::results_bytes(path, cases)?;
            let signer = crate::signed::check_signature(path, &bytes, s.signers, s.signature)?;
            let name = path.display().to_string();
            (whole_from(&bytes[..], &name, cases)?, Some(signer))
        }
    };
    corpus_check::check(&file, &vectors, &digest)
        .map_err(|e| {
            let hint = match (&e, corpus) {
                (CorpusMismatch::OtherCorpus { .. }, None) => {
                    " (the embedded corpus): check it with the agentconf version that made it, or \
                 give that version's corpus directory with --corpus DIR"
                }
                _ => "",
            };
            format!("{}: refused: {e}{hint}", path.display())
        })
        .refused()?;
    Ok((file, signer))
}

pub fn run(args: &ReportArgs) -> Result<ExitOutcome> {
    match (&args.diff, &args.file) {
        (Some(ReportCommand::Diff(d)), _) => diff(d),
        (None, Some(file)) => one(file, args),
        // The parser requires FILE unless `diff` is given.
        (None, None) => Err(
            "usage: agentconf report FILE [--format FORMAT] | agentconf report \
                             diff OLD NEW",
        )
        .usage(),
    }
}

/// `agentconf report FILE`: the report of one results file, held to its corpus.
fn one(path: &Path, args: &ReportArgs) -> Result<ExitOutcome> {
    if let Some(xfail) = &args.emit_xfail {
        // Before the report is printed: a list that cannot be written is said alone.
        if same_file(path, xfail) {
            return Err(format!(
                "{}: --emit-xfail names the results file itself: give another file",
                xfail.display()
            ))
            .usage();
        }
        results::check_writable(xfail)?;
    }
    let signed = args.signed_by.as_deref().map(|signers| SignedBy {
        signers,
        signature: args.signature.as_deref(),
    });
    let (file, signer) = load_checked_signed(path, args.corpus.as_deref(), signed)?;
    if let Some(signer) = &signer {
        // Standard output is the report (JSON, a badge…): who signed goes to stderr.
        to_stderr(&format!(
            "agentconf: {} is signed by {signer} ({})\n",
            path.display(),
            crate::signed::WHAT_A_SIGNATURE_PROVES
        ));
    }
    let view = View::of(&file);
    show(args.format, &args.format.render(&view))?;
    if let Some(xfail) = &args.emit_xfail {
        results::write_atomically(xfail, xfail_toml_for(&file.results).as_bytes())?;
        // Standard output is the report (JSON, a badge…): where the list went goes to stderr.
        to_stderr(&format!(
            "agentconf: expected failures written to: {}\n",
            xfail.display()
        ));
    }
    // FAIL and NOTHING TESTED exit 1, whatever the format (unless told not to); with
    // `--require`, so does any verdict below the level asked for.
    let verdict = view.verdict();
    if args.exit_zero {
        return Ok(ExitOutcome::Valid);
    }
    let Some(require) = args.require else {
        return Ok(if verdict.exit_ok() {
            ExitOutcome::Valid
        } else {
            ExitOutcome::Invalid
        });
    };
    let (level, flag, least) = required(require);
    let met = match require {
        RequireLevel::InScope => verdict.meets_in_scope(),
        _ => verdict.at_least(level),
    };
    if met {
        return Ok(ExitOutcome::Valid);
    }
    // Standard output is the report (Markdown, a badge…): the reason goes to stderr.
    to_stderr(&format!(
        "agentconf: the verdict is {}; --require {flag} asks for {least}{}\n",
        verdict.headline(),
        if require == RequireLevel::InScope {
            ""
        } else {
            " or better"
        }
    ));
    Ok(ExitOutcome::Invalid)
}

/// `agentconf report diff OLD NEW`: what changed between two results files, and why.
fn diff(args: &ReportDiffArgs) -> Result<ExitOutcome> {
    let (old, new) = (args.old.as_path(), args.new.as_path());
    let (old_file, new_file) = (
        load_whole(old, results::MAX_CASES_WITHOUT_CORPUS)?,
        load_whole(new, results::MAX_CASES_WITHOUT_CORPUS)?,
    );
    let side = |role, flag, path, file, dir| corpora::Side {
        role,
        flag,
        path,
        file,
        dir,
    };
    let known = corpora::of(
        &side(
            "OLD",
            "--old-corpus",
            old,
            &old_file,
            args.old_corpus.as_deref(),
        ),
        &side(
            "NEW",
            "--new-corpus",
            new,
            &new_file,
            args.new_corpus.as_deref(),
        ),
    )?;
    let d = report::diff(&old_file, &new_file, known.versions.as_ref());
    if d.corpus_changed() && !known.unknown.is_empty() {
        // The report says "of unknown cause"; stderr says how to know (and stays out of a JSON
        // or Markdown document on stdout).
        to_stderr(&format!(
            "agentconf: the two files were made against different corpora, and {} not the one \
             this agentconf embeds: give {} DIR (that corpus's directory, with its \
             manifest.json) to tell the corpus's differences from the implementation's\n",
            if known.unknown.len() == 2 {
                "neither is"
            } else {
                "one is"
            },
            known.unknown.join(" DIR and ")
        ));
    }
    // The parser takes only the formats that render a diff.
    show(args.format, &args.format.render_diff(&d))?;
    // Regressions fail the diff whatever their cause: one the corpus explains is still a
    // failure of the new run, listed as such.
    Ok(if d.has_regressions() && !args.exit_zero {
        ExitOutcome::Invalid
    } else {
        ExitOutcome::Valid
    })
}

/// Whether `a` and `b` name one existing file (through any path).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The least level `--require` accepts, the flag's value and how the message names the level.
fn required(require: RequireLevel) -> (Level, &'static str, &'static str) {
    match require {
        RequireLevel::Conforms => (Level::Conforms, "conforms", "CONFORMS"),
        RequireLevel::KnownFailures => (
            Level::ConformsWithKnownFailures,
            "known-failures",
            "CONFORMS WITH N KNOWN FAILURES",
        ),
        RequireLevel::InScope => (
            Level::Partial,
            "in-scope",
            "every case of the declared scope run strictly and passed (or a listed known failure)",
        ),
        RequireLevel::Partial => (Level::Partial, "partial", "PARTIAL"),
    }
}

/// A rendered report on standard output: the formats read on a terminal (text, Markdown) made
/// safe for it; the documents (JSON, JUnit, HTML, a badge) exactly as rendered, each of which
/// escaped its content for its own format.
fn show(format: ReportFormat, rendered: &str) -> Result<()> {
    match format {
        ReportFormat::Text | ReportFormat::Markdown => say(rendered),
        ReportFormat::Json | ReportFormat::Junit | ReportFormat::Html | ReportFormat::Badge => {
            emit(rendered)
        }
    }
}
