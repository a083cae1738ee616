//! ARCHITECTURE.md cannot drift from the code: each crate's module table lists exactly the
//! modules its `lib.rs` (or `main.rs`) declares, and the dependency table lists exactly the
//! workspace crates each crate depends on, as `cargo metadata` reads them from the manifests.
//! A module added without a row, a row left for a module removed, or a dependency added without
//! saying so fails here, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The first-column names of the table under the heading `## <heading>` (up to the next `## `),
/// backticks removed: `| `formats` | … |` gives `formats`.
fn table_names(doc: &str, heading: &str) -> Option<BTreeSet<String>> {
    let start = doc.find(&format!("\n## {heading}\n"))?;
    let body = &doc[start + heading.len() + 5..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    let mut names = BTreeSet::new();
    for line in body.lines().filter(|l| l.starts_with("| `")) {
        let cell = line
            .trim_start_matches("| ")
            .split(" |")
            .next()
            .unwrap_or("");
        for name in cell.split(", ") {
            names.insert(name.trim_matches('`').to_string());
        }
    }
    Some(names)
}

/// The modules a crate root declares: `mod x;` and `pub mod x;` (any visibility), not inline
/// test modules.
fn declared_modules(crate_root: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(crate_root).expect("the crate root");
    text.lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';') && !l.starts_with("//"))
        .filter_map(|l| {
            let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect()
}

/// Workspace members by directory (`crates/aer1`) with their package name and root source file.
fn members() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root().join("crates")).expect("crates/") {
        let dir = dir.expect("an entry").path();
        // The fuzz targets are a workspace of their own, outside the default build.
        if dir.file_name().is_some_and(|n| n == "fuzz") || !dir.join("Cargo.toml").is_file() {
            continue;
        }
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        let package = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
            .expect("a package name")
            .to_string();
        let lib = dir.join("src/lib.rs");
        let source = if lib.is_file() {
            lib
        } else {
            dir.join("src/main.rs")
        };
        let rel = dir
            .strip_prefix(root())
            .expect("inside the workspace")
            .display()
            .to_string();
        out.push((rel, package, source));
    }
    // xtask is a workspace member outside crates/, and its modules have a table too.
    out.push((
        "xtask".to_string(),
        "xtask".to_string(),
        root().join("xtask/src/main.rs"),
    ));
    out.sort();
    out
}

#[test]
fn every_crate_has_a_module_table_that_lists_its_modules() {
    let doc = architecture();
    let mut problems = Vec::new();
    for (dir, package, source) in members() {
        let declared = declared_modules(&source);
        if declared.is_empty() {
            continue;
        }
        let heading = format!("{dir}, by module");
        let Some(listed) = table_names(&doc, &heading) else {
            problems.push(format!(
                "{package} declares modules {declared:?}, and ARCHITECTURE.md has no section \
                 \"## {heading}\" with a row for each"
            ));
            continue;
        };
        for m in declared.difference(&listed) {
            problems.push(format!(
                "{dir}: module `{m}` has no row in ARCHITECTURE.md's \"{heading}\" table"
            ));
        }
        for m in listed.difference(&declared) {
            problems.push(format!(
                "{dir}: ARCHITECTURE.md's \"{heading}\" table lists `{m}`, which \
                 {} does not declare",
                source.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The workspace crates each package depends on (normal dependencies), from `cargo metadata`.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str())
                .filter(|n| names.contains(*n))
                .map(str::to_string)
                .collect();
            (p["name"].as_str().unwrap_or_default().to_string(), deps)
        })
        .collect()
}

/// The dependency table of ARCHITECTURE.md: `| `crate` | `dep`, `dep` |` rows under the heading
/// "Dependencies".
fn documented_dependencies(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let start = doc
        .find("\n## Dependencies\n")
        .expect("a \"## Dependencies\" section");
    let body = &doc[start + 1..];
    let body = &body[..body[3..].find("\n## ").map_or(body.len(), |i| i + 3)];
    body.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            let name = cells[0].trim_matches('`').to_string();
            let deps = cells
                .get(1)
                .into_iter()
                .flat_map(|c| c.split(", "))
                .map(|d| d.trim_matches('`').to_string())
                .filter(|d| !d.is_empty() && d != "none")
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn the_dependency_table_is_the_manifests() {
    let doc = architecture();
    let documented = documented_dependencies(&doc);
    let actual = dependencies();
    let mut problems = Vec::new();
    for (package, deps) in &actual {
        match documented.get(package) {
            None => problems.push(format!(
                "{package} has no row in ARCHITECTURE.md's dependency table"
            )),
            Some(listed) if listed != deps => problems.push(format!(
                "{package}: ARCHITECTURE.md says it depends on {listed:?}; its manifest says \
                 {deps:?}"
            )),
            Some(_) => {}
        }
    }
    for package in documented.keys().filter(|p| !actual.contains_key(*p)) {
        problems.push(format!(
            "ARCHITECTURE.md's dependency table lists {package}, which is no workspace crate"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Whether a line of code (not a comment) uses `unsafe`: a block, a function, an impl, an
/// extern block or an attribute that needs it.
fn uses_unsafe(line: &str) -> bool {
    let code = line.trim_start();
    !code.starts_with("//")
        && [
            "unsafe {",
            "unsafe fn",
            "unsafe impl",
            "unsafe extern",
            "unsafe(",
        ]
        .iter()
        .any(|u| code.contains(u))
}

/// Invariant 14 of ARCHITECTURE.md: `unsafe` only where it says, every other crate forbidding it
/// (the fuzz targets' shared library too), so a new `unsafe` elsewhere fails to compile or here.
#[test]
fn unsafe_code_is_where_the_architecture_says_and_forbidden_elsewhere() {
    let allowed = [
        "crates/harness/src/process/spawn.rs",
        "crates/harness/src/signing.rs",
        "crates/cli/src/main.rs",
    ];
    let mut crates: Vec<(String, PathBuf)> = members()
        .into_iter()
        .map(|(rel, _, source)| (rel, source))
        .collect();
    crates.push((
        "crates/fuzz".to_string(),
        root().join("crates/fuzz/src/lib.rs"),
    ));
    let mut wrong = Vec::new();
    for (rel, crate_root) in crates {
        let mut users = BTreeSet::new();
        for file in rust_files(&root().join(&rel).join("src")) {
            let text = std::fs::read_to_string(&file).expect("a source file");
            if text.lines().any(uses_unsafe) {
                let shown = file
                    .strip_prefix(root())
                    .expect("inside the workspace")
                    .display()
                    .to_string();
                users.insert(shown);
            }
        }
        for user in &users {
            if !allowed.contains(&user.as_str()) {
                wrong.push(format!(
                    "{user} uses unsafe; ARCHITECTURE.md says it does not"
                ));
            }
        }
        let forbids = std::fs::read_to_string(&crate_root)
            .expect("the crate root")
            .contains("#![forbid(unsafe_code)]");
        if users.is_empty() && !forbids {
            wrong.push(format!("{rel} has no unsafe but does not forbid it"));
        }
    }
    let harness =
        std::fs::read_to_string(root().join("crates/harness/src/lib.rs")).expect("lib.rs");
    for lint in [
        "unsafe_op_in_unsafe_fn",
        "clippy::undocumented_unsafe_blocks",
    ] {
        if !harness.contains(lint) {
            wrong.push(format!("the harness no longer denies {lint}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
