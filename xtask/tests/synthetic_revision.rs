//! A spec author's two most common changes, made in a copy of the workspace exactly as
//! `spec-notes/new-revision.md` tells them, to prove each is a data change that regenerates with
//! no hand edit:
//!
//! 1. one new vector: one code change in a generator, one `cargo xtask vectors`; every count and
//!    digest in README.md, vectors/README.md, vectors/COVERAGE.md and vectors/CHANGELOG.md follows;
//! 2. a made-up AER-1 revision 10 keeping revision 09's construction: one row in
//!    `spec-notes/revisions.toml`, then `cargo xtask rules`, `cargo xtask vectors` and
//!    `cargo xtask schemas`; the catalogue, the corpus, the schema and the documents all name
//!    revision 10, every check passes, and the reference conforms to the regenerated corpus.
//!
//! The copy lives in the system's temporary directory and is removed when the test ends; it is
//! built into `synthetic-revision` under the workspace's target directory (`CARGO_TARGET_DIR`
//! when set), kept between runs so only the first run compiles the dependencies, and without
//! debug information (nothing debugs the copy, and linking is most of a debug build). It works
//! offline: the dependencies are those of the real build.
//!
//! Following the procedure rebuilds the workspace's crates three times over, minutes even with
//! the dependencies built, so the test that does it is ignored by a plain `cargo test` and run by
//! `cargo xtask test --slow`, which `.ci/run` calls (README.md says so where it gives the test
//! command's duration).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Steps 2 to 4 of the procedure, in order: regenerate, then check nothing is stale.
const REGENERATE_AND_CHECK: &[&str] = &[
    "cargo xtask rules",
    "cargo xtask vectors",
    "cargo xtask schemas",
    "cargo xtask rules --check",
    "cargo xtask vectors --check",
    "cargo xtask schemas --check",
];

/// Running the reference against the regenerated corpus.
const RUN: &str = "cargo run -p agentconf-cli -- run";

/// Every command the test runs in the copy; the procedure document must name each.
fn steps() -> impl Iterator<Item = &'static str> {
    REGENERATE_AND_CHECK.iter().copied().chain([RUN])
}

const NEW_REVISION: &str = r#"
[[revision]]
draft = "draft-zambo-aer1"
revision = "10"
construction = "preimage"
facts = "carried"
summary = "a synthetic revision that keeps revision 09's checks"
"#;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The workspace's target directory: `CARGO_TARGET_DIR` when set (relative to the root when
/// relative), else `target/` under the root.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The copy, removed when the test ends, passed or not.
struct Copy(PathBuf);

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What is not copied: build output, git data, and the fuzzers' corpora and findings.
const NOT_COPIED: &[&str] = &[
    "target",
    ".git",
    "crates/fuzz/target",
    "crates/fuzz/corpus",
    "crates/fuzz/artifacts",
];

/// Copies the sources of the workspace at `from` (`relative` below the root) to `to`.
fn copy_tree(from: &Path, to: &Path, relative: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = if relative.is_empty() {
            name.clone()
        } else {
            format!("{relative}/{name}")
        };
        if NOT_COPIED.contains(&path.as_str()) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&src, &dst, &path);
        } else if kind.is_symlink() {
            // The crates' LICENSE links point at the root's; keep them links.
            let target = std::fs::read_link(&src).unwrap();
            std::os::unix::fs::symlink(target, &dst).unwrap();
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

fn read(dir: &Path, relative: &str) -> String {
    std::fs::read_to_string(dir.join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

fn edit(dir: &Path, relative: &str, from: &str, to: &str) {
    let text = read(dir, relative);
    assert!(
        text.contains(from),
        "{relative} no longer contains {from:?}: update this test's edit"
    );
    std::fs::write(dir.join(relative), text.replacen(from, to, 1)).unwrap();
}

/// Runs one step (`cargo …` as [`steps`] spells it) in the copy; returns its standard output.
fn step(dir: &Path, target: &Path, command: &str) -> String {
    assert!(steps().any(|s| s == command), "{command} is not a step");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut args: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect();
    if command.starts_with("cargo run") {
        args.push("--out".into());
        args.push(dir.join("results.jsonl").to_string_lossy().into_owned());
    }
    let output = Command::new(cargo)
        .args(&args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_NET_OFFLINE", "true")
        // A lean build: no debug information, and no incremental state for a copy that is
        // thrown away (its path changes every run).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "`{command}` failed in the copy:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn manifest(dir: &Path) -> Value {
    serde_json::from_str(&read(dir, "vectors/manifest.json")).unwrap()
}

/// Every document that states the corpus digest states the manifest's, and the changelog's
/// newest entry is for it.
fn documents_agree_with(dir: &Path, m: &Value) {
    let digest = m["corpus_digest"].as_str().unwrap();
    let count = m["vector_count"].as_u64().unwrap();
    let readme = read(dir, "README.md");
    assert!(readme.contains(digest), "README.md lacks digest {digest}");
    assert!(
        readme.contains(&format!("{count} test vectors")),
        "README.md lacks the count {count}"
    );
    let coverage = read(dir, "vectors/COVERAGE.md");
    assert!(coverage.contains(&format!("{count} vectors in ")));
    assert!(coverage.contains(digest));
    let changelog = read(dir, "vectors/CHANGELOG.md");
    assert_eq!(
        agentconf_corpus::diff::changelog_latest_digest(&changelog),
        Some(digest),
        "vectors/CHANGELOG.md's newest entry is not the current corpus"
    );
}

fn revisions_of(m: &Value, id: &str) -> Vec<String> {
    let v = m["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in the manifest"));
    serde_json::from_value(v["revisions"].clone()).unwrap()
}

#[test]
fn the_procedure_names_every_step_this_test_performs() {
    let procedure = read(&workspace_root(), "spec-notes/new-revision.md");
    for s in steps() {
        assert!(
            procedure.contains(s),
            "spec-notes/new-revision.md does not name `{s}`"
        );
    }
}

#[test]
#[ignore = "builds a copy of the workspace (minutes): run by `cargo xtask test --slow` and .ci/run"]
fn a_new_vector_and_a_new_revision_regenerate_with_no_hand_edit() {
    let root = workspace_root();
    let copy = Copy(std::env::temp_dir().join(format!(
        "agentconf-synthetic-revision-{}",
        std::process::id()
    )));
    let dir = &copy.0;
    let _ = std::fs::remove_dir_all(dir);
    copy_tree(&root, dir, "");
    let target = target_dir(&root).join("synthetic-revision");
    let before = manifest(dir);

    // 1. One more vector: one code change, one `cargo xtask vectors`.
    edit(
        dir,
        "crates/corpus/src/aer1/valid.rs",
        "for n in [1usize, 2, 5, 8, 100] {",
        "for n in [1usize, 2, 3, 5, 8, 100] {",
    );
    step(dir, &target, "cargo xtask vectors");
    step(dir, &target, "cargo xtask vectors --check");
    let one_more = manifest(dir);
    assert_eq!(
        one_more["vector_count"].as_u64(),
        before["vector_count"].as_u64().map(|n| n + 1)
    );
    assert_ne!(one_more["corpus_digest"], before["corpus_digest"]);
    assert_eq!(
        revisions_of(&one_more, "aer1/timeline/valid/example-3"),
        ["07", "08", "09"]
    );
    documents_agree_with(dir, &one_more);
    let changelog = read(dir, "vectors/CHANGELOG.md");
    let newest = &changelog[changelog.find("## Corpus ").unwrap()..];
    let newest = &newest[..newest[1..]
        .find("## Corpus ")
        .map_or(newest.len(), |i| i + 1)];
    assert!(
        newest.contains("1 added")
            && newest.contains("`aer1/timeline/valid`")
            && newest.contains("`example-3`"),
        "the changelog entry does not name the added vector:\n{newest}"
    );

    // 2. AER-1 revision 10: one row, then the regeneration steps.
    let table = read(dir, "spec-notes/revisions.toml");
    std::fs::write(dir.join("spec-notes/revisions.toml"), table + NEW_REVISION).unwrap();
    for s in REGENERATE_AND_CHECK {
        step(dir, &target, s);
    }
    let after = manifest(dir);
    documents_agree_with(dir, &after);
    // Open-ended expectations gained 10; closed ones (06 alone, say) did not.
    assert_eq!(
        revisions_of(&after, "aer1/timeline/valid/example-5"),
        ["07", "08", "09", "10"]
    );
    for v in before["vectors"].as_array().unwrap() {
        let id = v["id"].as_str().unwrap();
        let old: Vec<String> = serde_json::from_value(v["revisions"].clone()).unwrap();
        let new = revisions_of(&after, id);
        let mut expected = old.clone();
        if old.last().map(String::as_str) == Some("09") {
            expected.push("10".into());
        }
        assert_eq!(new, expected, "{id}");
    }
    let revisions_md = read(dir, "spec-notes/REVISIONS.md");
    assert!(revisions_md.contains("## draft-zambo-aer1 revision 10"));
    assert!(revisions_md.contains("not yet checked against the text of revision 10"));
    let rules_md = read(dir, "spec-notes/RULES.md");
    assert!(rules_md.contains("06, 07, 08, 09, 10"));
    assert!(rules_md.contains("draft-zambo-aer1 revision 10: its facts are carried over"));
    assert!(read(dir, "vectors/schema/vector.schema.json").contains("\"10\""));
    assert!(
        read(dir, "vectors/README.md").contains(
            "| draft-zambo-aer1 | 10 | `preimage` | **carried**, not yet read against this revision's text | `10` |"
        )
    );
    assert!(read(dir, "crates/rules/catalogue/revisions.toml").contains("revision = \"10\""));

    // The reference runs the regenerated corpus (timeline cases now run as revision 10) and
    // conforms: nothing in the code named 09 as the last revision.
    let run = step(dir, &target, RUN);
    assert!(run.contains("CONFORMS"), "{run}");
    let results = read(dir, "results.jsonl");
    assert!(
        results.contains("\"revision\":\"10\""),
        "no case ran under revision 10"
    );

    // The command line takes the new revision and still takes 09 (a user's script that names it
    // keeps working), and each report names the revision asked for.
    let agentconf = target.join("debug/agentconf");
    let chain = dir.join("crates/aer1/testdata/v07-valid-5.json");
    for revision in ["09", "10"] {
        let out = Command::new(&agentconf)
            .args([
                "verify",
                "timeline",
                "--format",
                "json",
                "--revision",
                revision,
            ])
            .arg(&chain)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        assert!(out.status.success(), "--revision {revision}: {report}");
        assert_eq!(report["revision"], revision);
    }
}
