//! `cargo xtask …`: chores for maintainers and spec authors.
//!
//! - `cargo xtask rules [--check]`: regenerate `spec-notes/RULES.md` and `spec-notes/REVISIONS.md`
//!   from `spec-notes/revisions.toml`, `rules.toml` and `facts.toml`, and copy those three files
//!   to `crates/rules/catalogue/` (what the rules crate embeds).
//! - `cargo xtask vectors [--check]`: regenerate the corpus under `vectors/` from the generators
//!   in `crates/corpus`, the generated regions of README.md and vectors/README.md, the corpus's
//!   digest and case count compiled into the build (`crates/corpus/src/embedded.rs`), and, when the
//!   corpus digest changes, a new entry at the top of `vectors/CHANGELOG.md` (the diff from the
//!   corpus on disk).
//! - `cargo xtask schemas [--check]`: regenerate `vectors/schema/vector.schema.json` and
//!   `manifest.schema.json` from the vector model's types (`agentconf_contract::schema`),
//!   `crates/contract/schema/protocol.schema.json` from the persistent-mode response types
//!   (`agentconf_contract::protocol`), `crates/harness/schema/results.schema.json` from the
//!   results file's line types (`agentconf_harness::results`), and
//!   `crates/harness/schema/attestation-results-v1.schema.json` from the attestation predicate's
//!   type (`agentconf_harness::attestation`).
//!
//! - `cargo xtask test [--slow] [ARGS…]`: every test (`cargo test --workspace ARGS…`), closed by
//!   one line of totals over all test binaries, with a line saying what runs whenever the tests
//!   are quiet for long: the README's test command. `--slow` also runs the tests ignored for
//!   taking minutes (the synthetic-revision procedure), as `.ci/run` does.
//! - `cargo xtask fuzz-seeds`: write seed corpora for the fuzz targets (crates/fuzz/README.md)
//!   under `crates/fuzz/corpus/` (not committed).
//!
//! With `--check`, nothing is written: the command fails if a regeneration would change anything.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentconf_rules::{Catalogue, Facts, Revisions};

mod fuzz_seeds;
mod test_totals;

const USAGE: &str =
    "usage: cargo xtask <rules|vectors|schemas> [--check] | test [--slow] [ARGS…] | fuzz-seeds
  rules     regenerate spec-notes/RULES.md and REVISIONS.md from revisions.toml, rules.toml and
            facts.toml, and the rules crate's copies of the three (crates/rules/catalogue/)
  vectors   regenerate vectors/ (vector files, manifest.json, COVERAGE.md, a CHANGELOG.md entry
            when the digest changes) and the generated regions of README.md and vectors/README.md
  schemas   regenerate vectors/schema/*.schema.json from the vector model's types, the
            persistent-mode schema (crates/contract/schema/) from the response types, and the
            results line's and the attestation predicate's schemas (crates/harness/schema/)
            from theirs
  --check   change nothing; fail if the files are stale
  test      run every test (cargo test --workspace ARGS…) and close with the totals;
            --slow also runs the tests that take minutes (the synthetic-revision procedure)
  fuzz-seeds  write seed corpora for the fuzz targets under crates/fuzz/corpus/";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let ["test", rest @ ..] = args.as_slice() {
        return test_totals::run(rest);
    }
    let result = match args.as_slice() {
        ["rules"] => rules(false),
        ["rules", "--check"] => rules(true),
        ["vectors"] => vectors(false),
        ["vectors", "--check"] => vectors(true),
        ["schemas"] => schemas(false),
        ["schemas", "--check"] => schemas(true),
        ["fuzz-seeds"] => fuzz_seeds(),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn rules(check: bool) -> Result<(), String> {
    // Parse the files on disk, not the copies embedded at build time, so edits show immediately.
    let read = |relative: &str| {
        let path = workspace_root().join(relative);
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let revisions_toml = read("spec-notes/revisions.toml")?;
    let catalogue_toml = read("spec-notes/rules.toml")?;
    let facts_toml = read("spec-notes/facts.toml")?;
    let revisions =
        Revisions::parse(&revisions_toml).map_err(|e| format!("spec-notes/revisions.toml: {e}"))?;
    let catalogue = Catalogue::parse(&catalogue_toml, &revisions)
        .map_err(|e| format!("spec-notes/rules.toml: {e}"))?;
    let facts =
        Facts::parse(&facts_toml, &revisions).map_err(|e| format!("spec-notes/facts.toml: {e}"))?;
    let generated = [
        // The copies agentconf-rules embeds: a published crate cannot reach outside its directory.
        ("crates/rules/catalogue/revisions.toml", revisions_toml),
        ("crates/rules/catalogue/rules.toml", catalogue_toml),
        ("crates/rules/catalogue/facts.toml", facts_toml),
        ("spec-notes/RULES.md", catalogue.to_markdown()),
        (
            "spec-notes/REVISIONS.md",
            catalogue.to_revisions_markdown(&facts, &revisions),
        ),
    ];
    write_or_check(&generated, check, "rules")
}

fn schemas(check: bool) -> Result<(), String> {
    let generated = [
        (
            "vectors/schema/vector.schema.json",
            agentconf_contract::schema::vector_schema(),
        ),
        (
            "vectors/schema/manifest.schema.json",
            agentconf_contract::schema::manifest_schema(),
        ),
        (
            "crates/contract/schema/protocol.schema.json",
            agentconf_contract::schema::protocol_schema(),
        ),
        (
            "crates/harness/schema/results.schema.json",
            agentconf_harness::results::results_schema(),
        ),
        (
            "crates/harness/schema/attestation-results-v1.schema.json",
            agentconf_harness::attestation::predicate_schema(),
        ),
    ];
    write_or_check(&generated, check, "schemas")
}

/// Write each generated file that differs from the one on disk or, with `check`, fail naming
/// them; `command` is the xtask that regenerates them.
fn write_or_check(generated: &[(&str, String)], check: bool, command: &str) -> Result<(), String> {
    let mut stale = Vec::new();
    for &(relative, ref fresh) in generated {
        let target = workspace_root().join(relative);
        if std::fs::read_to_string(&target).unwrap_or_default() == *fresh {
            println!("{relative}: up to date");
        } else if check {
            stale.push(relative);
        } else {
            std::fs::write(&target, fresh).map_err(|e| format!("cannot write {relative}: {e}"))?;
            println!("{relative}: written");
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} stale: run `cargo xtask {command}`",
            stale.join(", ")
        ))
    }
}

fn fuzz_seeds() -> Result<(), String> {
    let dir = workspace_root().join("crates/fuzz/corpus");
    let seeds = fuzz_seeds::seeds(&agentconf_corpus::corpus());
    let n = fuzz_seeds::write(&dir, &seeds)?;
    println!("crates/fuzz/corpus/: {n} seeds for {} targets", seeds.len());
    Ok(())
}

fn vectors(check: bool) -> Result<(), String> {
    let dir = workspace_root().join("vectors");
    let corpus = agentconf_corpus::corpus();
    let manifest = agentconf_corpus::writer::manifest(&corpus);
    if check {
        let problems = agentconf_corpus::writer::check(&dir, &corpus)
            .map_err(|e| format!("cannot read vectors/: {e}"))?;
        if !problems.is_empty() {
            return Err(format!(
                "vectors/ is stale ({} problems; run `cargo xtask vectors`):\n  {}",
                problems.len(),
                problems.join("\n  ")
            ));
        }
        println!(
            "vectors/: up to date ({} vectors, corpus digest {})",
            manifest.vector_count, manifest.corpus_digest
        );
        check_changelog(&dir, &manifest.corpus_digest)?;
        return doc_regions(&corpus, true);
    }
    // The changelog entry compares the corpus on disk (before this run writes) with the new one.
    changelog(&dir, &corpus, &manifest.corpus_digest)?;
    let summary = agentconf_corpus::writer::write(&dir, &corpus)
        .map_err(|e| format!("cannot write vectors/: {e}"))?;
    println!(
        "vectors/: {} files, {} written, {} stale removed; {} vectors, corpus digest {}",
        summary.total,
        summary.written,
        summary.removed,
        manifest.vector_count,
        manifest.corpus_digest
    );
    doc_regions(&corpus, false)
}

/// `vectors/CHANGELOG.md`'s path under `vectors/`.
const CHANGELOG: &str = "CHANGELOG.md";

/// When the corpus digest changes, prepends to `vectors/CHANGELOG.md` the diff from the corpus on
/// disk to the new one. No corpus on disk yet (no manifest) is the empty corpus; a corpus on disk
/// that cannot be read (a hand-edited file, a broken manifest) is an error, not an empty corpus:
/// an entry diffed from nothing would list every vector as added and hide what changed.
fn changelog(
    dir: &Path,
    corpus: &[agentconf_contract::vector::Vector],
    digest: &str,
) -> Result<(), String> {
    use agentconf_corpus::diff;
    let path = dir.join(CHANGELOG);
    let text = read_changelog(&path)?;
    if diff::changelog_latest_digest(&text) == Some(digest) {
        println!("vectors/{CHANGELOG}: up to date");
        return Ok(());
    }
    let old = if dir.join(agentconf_corpus::writer::MANIFEST).exists() {
        diff::load_dir(dir).map_err(|e| {
            format!(
                "the corpus on disk cannot be read, so the changelog entry cannot say what \
                 changed: {e}\nRestore it (`git checkout -- vectors/`) and run `cargo xtask \
                 vectors` again"
            )
        })?
    } else {
        diff::empty_snapshot()
    };
    let entry = diff::diff(&old, &diff::from_vectors(corpus)).changelog_entry();
    let updated = diff::changelog_prepend(&text, &entry);
    let problems = diff::changelog_problems(&updated);
    if !problems.is_empty() {
        return Err(format!(
            "vectors/{CHANGELOG} would not hold together after this entry (was it edited, merged \
             by hand, or the corpus regenerated without it?):\n  {}\nTo recover, take vectors/ \
             and its changelog together from the branch you started from (`git checkout main -- \
             vectors/`), then run `cargo xtask vectors` again: the entry is regenerated from the \
             generators",
            problems.join("\n  ")
        ));
    }
    std::fs::write(&path, updated).map_err(|e| format!("cannot write vectors/{CHANGELOG}: {e}"))?;
    println!("vectors/{CHANGELOG}: entry for {digest} written");
    Ok(())
}

/// The changelog's text; none yet is empty, anything else unreadable is an error.
fn read_changelog(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("cannot read vectors/{CHANGELOG}: {e}")),
    }
}

/// The changelog's newest entry must be the current corpus (a corpus change committed without
/// `cargo xtask vectors` would leave the digest a claim cites untraceable), and its entries must
/// chain back to the empty corpus with no gap and no merge-conflict marker.
fn check_changelog(dir: &Path, digest: &str) -> Result<(), String> {
    use agentconf_corpus::diff;
    let text = read_changelog(&dir.join(CHANGELOG))?;
    match diff::changelog_latest_digest(&text) {
        Some(latest) if latest == digest => {}
        latest => {
            return Err(format!(
                "vectors/{CHANGELOG}'s newest entry is for {}, not the corpus {digest}: run `cargo xtask vectors`",
                latest.unwrap_or("no corpus")
            ))
        }
    }
    let problems = diff::changelog_problems(&text);
    if !problems.is_empty() {
        return Err(format!(
            "vectors/{CHANGELOG} does not hold together:\n  {}",
            problems.join("\n  ")
        ));
    }
    println!("vectors/{CHANGELOG}: up to date, every entry chained to the one below it");
    Ok(())
}

/// The generated regions of hand-written documents: README.md's corpus region (counts, digest,
/// families) and vectors/README.md's revisions table. Each is rewritten from the corpus and the
/// revisions table, or with `check` held equal to them.
fn doc_regions(corpus: &[agentconf_contract::vector::Vector], check: bool) -> Result<(), String> {
    use agentconf_corpus::{docs, writer};
    // The corpus facts compiled into the build (what a partial run's header records).
    write_or_check(
        &[(
            "crates/corpus/src/embedded.rs",
            writer::embedded_facts(corpus),
        )],
        check,
        "vectors",
    )?;
    let regions: [(&str, &str, String); 2] = [
        ("README.md", "corpus", writer::readme_summary(corpus)),
        (
            "vectors/README.md",
            "revisions",
            docs::revisions_region(corpus),
        ),
    ];
    let mut stale = Vec::new();
    for (document, name, content) in regions {
        let path = workspace_root().join(document);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {document}: {e}"))?;
        let fresh = docs::splice_region(&text, document, name, &content)?;
        if fresh == text {
            println!("{document} {name} region: up to date");
        } else if check {
            stale.push(format!("{document}'s {name} region"));
        } else {
            std::fs::write(&path, fresh).map_err(|e| format!("cannot write {document}: {e}"))?;
            println!("{document} {name} region: written");
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} stale: run `cargo xtask vectors`",
            stale.join(", ")
        ))
    }
}
