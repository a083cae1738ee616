//! `agentconf vectors list|show|export`: the corpus embedded in the binary.
//!
//! The binary links the generators, so "embedded" means generated in memory by the same code
//! that wrote `vectors/`; a test proves the two are byte-identical.

use crate::error::Sort as _;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use agentconf_contract::case::CASE_REVISION_SEPARATOR;
use agentconf_contract::vector::Vector;
use agentconf_corpus::writer;

use super::{emit, say, ExitOutcome};
use crate::args::{Format, VectorsExportArgs, VectorsListArgs, VectorsShowArgs};
use crate::error::Result;

pub fn list(args: &VectorsListArgs) -> Result<ExitOutcome> {
    if let Some(r) = &args.revision {
        check_revision(r)?;
    }
    if let Some(rule) = &args.rule {
        if agentconf_rules::Rule::from_id(rule).is_none() {
            return Err(format!("unknown rule id {rule:?} (see `agentconf rules`)")).usage();
        }
    }
    let corpus = agentconf_corpus::corpus();
    // A filter that can match nothing is a typing mistake, not an empty answer (an unknown
    // suite is refused by the argument parser, which lists the suites).
    if let Some(f) = &args.family {
        if !corpus.iter().any(|v| &v.family == f) {
            let mut families: Vec<&str> = corpus.iter().map(|v| v.family.as_str()).collect();
            families.sort_unstable();
            families.dedup();
            return Err(format!(
                "unknown family {f:?}: expected one of {}",
                families.join(", ")
            ))
            .usage();
        }
    }
    let manifest = writer::manifest(&corpus);
    let keep = |v: &Vector| {
        args.suite.as_deref().is_none_or(|s| v.suite.as_str() == s)
            && args.family.as_deref().is_none_or(|f| v.family == f)
            && args
                .rule
                .as_deref()
                .is_none_or(|r| v.rules.iter().any(|x| x.id() == r))
            && args
                .revision
                .as_deref()
                .is_none_or(|r| v.all_revisions().any(|x| x == r))
    };
    let selected: Vec<_> = manifest
        .vectors
        .iter()
        .zip(&corpus)
        .filter(|(_, v)| keep(v))
        .collect();
    // Under --revision, a vector's expectation is the one that holds under that revision.
    let expectation_of = |v: &Vector| {
        let e = match args.revision.as_deref().and_then(|r| v.for_revision(r)) {
            Some(flat) => flat.expectation,
            None => v.expectation,
        };
        serde_json::to_value(e)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let text = match args.output.format {
        Format::Json => {
            let value = serde_json::json!({
                "corpus_digest": manifest.corpus_digest,
                "vector_count": manifest.vector_count,
                "selected": selected.len(),
                // Under --revision, each entry as a reader of that revision sees it.
                "vectors": selected
                    .iter()
                    .map(|(entry, v)| {
                        let mut entry = (*entry).clone();
                        if let Some(flat) = args.revision.as_deref().and_then(|r| v.for_revision(r)) {
                            entry.revisions = flat.revisions;
                            entry.expectation = flat.expectation;
                            entry.other_revisions.clear();
                        }
                        entry
                    })
                    .collect::<Vec<_>>(),
            });
            value.to_string() + "\n"
        }
        Format::Text => {
            let mut out = String::new();
            for (e, v) in &selected {
                let expectation = expectation_of(v);
                let _ = writeln!(
                    out,
                    "{:<64} {:<10} {}",
                    e.id,
                    expectation,
                    e.rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(",")
                );
            }
            let _ = writeln!(
                out,
                "{} of {} vectors; corpus digest {}",
                selected.len(),
                manifest.vector_count,
                manifest.corpus_digest
            );
            out
        }
    };
    say(&text)?;
    Ok(ExitOutcome::Valid)
}

pub fn show(args: &VectorsShowArgs) -> Result<ExitOutcome> {
    let corpus = agentconf_corpus::corpus();
    // `<id>@<revision>` (a case id, as results files name it) shows the vector as a reader of that
    // revision sees it: that revision's expectation as the main one.
    let (id, revision) = match args.id.split_once(CASE_REVISION_SEPARATOR) {
        Some((id, revision)) => (id, Some(revision)),
        None => (args.id.as_str(), None),
    };
    let unknown = || {
        format!(
            "no vector with id {:?} (see `agentconf vectors list`)",
            args.id
        )
    };
    let found = corpus
        .iter()
        .find(|v| v.id == id)
        .ok_or_else(unknown)
        .usage()?;
    let flat;
    let vector = match revision {
        None => found,
        Some(r) => {
            flat = found
                .for_revision(r)
                .ok_or_else(|| format!("{id} has no expectation for revision {r:?}"))
                .usage()?;
            &flat
        }
    };
    match &args.input {
        None => emit(&writer::vector_file(vector))?,
        Some(role) => {
            let input = if role.is_empty() {
                vector.inputs.first()
            } else {
                // A role names its first input; a file name names exactly one.
                vector
                    .inputs
                    .iter()
                    .find(|i| &i.file == role)
                    .or_else(|| vector.inputs.iter().find(|i| &i.role == role))
            };
            let input = input
                .ok_or_else(|| {
                    let roles: Vec<&str> = vector.inputs.iter().map(|i| i.role.as_str()).collect();
                    format!(
                        "{} has no input {role:?}; its inputs: {}",
                        vector.id,
                        roles.join(", ")
                    )
                })
                .usage()?;
            let bytes = input
                .bytes()
                .ok_or("the embedded input does not decode (a corpus defect)")
                .refused()?;
            let mut out = io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write output: {e}"))
                .unwritable()?;
        }
    }
    Ok(ExitOutcome::Valid)
}

pub fn export(args: &VectorsExportArgs) -> Result<ExitOutcome> {
    check_revision(&args.revision)?;
    let dir = &args.dir;
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))
            .refused()?
            .next()
            .is_none();
        if !empty {
            return Err(format!(
                "{} exists and is not empty: nothing written (export never overwrites)",
                dir.display()
            ))
            .usage();
        }
    }
    // Each vector as a reader of that revision sees it: the expectation that holds there.
    let subset: Vec<Vector> = agentconf_corpus::corpus()
        .iter()
        .filter_map(|v| v.for_revision(&args.revision))
        .collect();
    let write = |rel: &str, bytes: &[u8]| -> Result<()> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))
                .unwritable()?;
        }
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
            .unwritable()
    };
    for (rel, contents) in writer::files(&subset) {
        write(&rel, contents.as_bytes())?;
    }
    // Rendered from the vector model's types, as `cargo xtask schemas` renders vectors/schema/
    // (its `--check` holds the committed files to these same bytes).
    write(
        "schema/vector.schema.json",
        agentconf_contract::schema::vector_schema().as_bytes(),
    )?;
    write(
        "schema/manifest.schema.json",
        agentconf_contract::schema::manifest_schema().as_bytes(),
    )?;
    for v in &subset {
        let stem = v.path();
        let stem = stem.trim_end_matches(".json");
        for input in &v.inputs {
            let bytes = input
                .bytes()
                .ok_or("an embedded input does not decode (a corpus defect)")
                .refused()?;
            write(&format!("inputs/{stem}/{}", input.file), &bytes)?;
        }
    }
    let manifest = writer::manifest(&subset);
    say(&format!(
        "exported {} vectors for revision {} to {} (subset corpus digest {})\n",
        subset.len(),
        args.revision,
        display(dir),
        manifest.corpus_digest
    ))?;
    Ok(ExitOutcome::Valid)
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// A revision of either draft that the revisions table lists (the two drafts' numbers do not
/// overlap, so a bare number names one revision).
fn check_revision(r: &str) -> Result<()> {
    let known = agentconf_rules::Revisions::embedded().all_numbers();
    if known.contains(&r) {
        return Ok(());
    }
    Err(format!(
        "unknown revision {r:?}: expected one of {}",
        known.join(", ")
    ))
    .usage()
}
