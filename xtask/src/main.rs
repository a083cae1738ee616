//! `cargo xtask …`: chores for maintainers and spec authors.
//!
//! - `cargo xtask rules [--check]`: regenerate `spec-notes/RULES.md` and `spec-notes/REVISIONS.md`
//!   from `spec-notes/rules.toml` and `spec-notes/facts.toml`, and copy those two files to
//!   `crates/rules/catalogue/` (what the rules crate embeds).
//! - `cargo xtask vectors [--check]`: regenerate the corpus under `vectors/` from the generators
//!   in `crates/corpus`.
//! - `cargo xtask schemas [--check]`: regenerate `vectors/schema/vector.schema.json` and
//!   `manifest.schema.json` from the vector model's types (`agentconf_contract::schema`).
//!
//! - `cargo xtask test [ARGS…]`: every test (`cargo test --workspace ARGS…`), closed by one line
//!   of totals over all test binaries: the README's test command, and what `.ci/run` calls.
//! - `cargo xtask fuzz-seeds`: write seed corpora for the fuzz targets (crates/fuzz/README.md)
//!   under `crates/fuzz/corpus/` (not committed).
//!
//! With `--check`, nothing is written: the command fails if a regeneration would change anything.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentconf_rules::{Catalogue, Facts};

mod fuzz_seeds;
mod test_totals;

const USAGE: &str =
    "usage: cargo xtask <rules|vectors|schemas> [--check] | test [ARGS…] | fuzz-seeds
  rules     regenerate spec-notes/RULES.md and REVISIONS.md from rules.toml and facts.toml,
            and the rules crate's copies of both (crates/rules/catalogue/)
  vectors   regenerate vectors/ (vector files and manifest.json) and README's corpus region
  schemas   regenerate vectors/schema/*.schema.json from the vector model's types
  --check   change nothing; fail if the files are stale
  test      run every test (cargo test --workspace ARGS…) and close with the totals
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
    let catalogue_toml = read("spec-notes/rules.toml")?;
    let facts_toml = read("spec-notes/facts.toml")?;
    let catalogue = Catalogue::parse(&catalogue_toml)?;
    let facts = Facts::parse(&facts_toml)?;
    let generated = [
        // The copies agentconf-rules embeds: a published crate cannot reach outside its directory.
        ("crates/rules/catalogue/rules.toml", catalogue_toml),
        ("crates/rules/catalogue/facts.toml", facts_toml),
        ("spec-notes/RULES.md", catalogue.to_markdown()),
        (
            "spec-notes/REVISIONS.md",
            catalogue.to_revisions_markdown(&facts),
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
        return readme_region(&corpus, true);
    }
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
    readme_region(&corpus, false)
}

/// README.md's generated corpus region (counts, digest, families).
fn readme_region(corpus: &[agentconf_contract::vector::Vector], check: bool) -> Result<(), String> {
    let path = workspace_root().join("README.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read README.md: {e}"))?;
    let fresh = agentconf_corpus::writer::splice_readme(&text, corpus)?;
    if fresh == text {
        println!("README.md corpus region: up to date");
    } else if check {
        return Err("README.md's corpus region is stale: run `cargo xtask vectors`".into());
    } else {
        std::fs::write(&path, fresh).map_err(|e| format!("cannot write README.md: {e}"))?;
        println!("README.md corpus region: written");
    }
    Ok(())
}
