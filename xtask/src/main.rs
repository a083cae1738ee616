//! `cargo xtask …`: chores for maintainers and spec authors.
//!
//! - `cargo xtask rules [--check]`: regenerate `spec-notes/RULES.md` from `spec-notes/rules.toml`
//!   (with `--check`, fail if it is stale instead of writing).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentconf_rules::Catalogue;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["rules"] => rules(false),
        ["rules", "--check"] => rules(true),
        _ => Err(
            "usage: cargo xtask rules [--check]\n  rules   regenerate spec-notes/RULES.md from spec-notes/rules.toml"
                .to_string(),
        ),
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

/// Writes (or checks) a generated file.
fn generate(relative: &str, contents: &str, check: bool) -> Result<(), String> {
    let path = workspace_root().join(relative);
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == contents {
        println!("{relative}: up to date");
        return Ok(());
    }
    if check {
        return Err(format!("{relative} is stale: run `cargo xtask rules`"));
    }
    std::fs::write(&path, contents).map_err(|e| format!("cannot write {relative}: {e}"))?;
    println!("{relative}: written");
    Ok(())
}

fn rules(check: bool) -> Result<(), String> {
    // Parse the file on disk, not the copy embedded at build time, so edits show immediately.
    let path = workspace_root().join("spec-notes/rules.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let catalogue = Catalogue::parse(&text)?;
    generate("spec-notes/RULES.md", &catalogue.to_markdown(), check)
}
