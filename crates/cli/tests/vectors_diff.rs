//! `agentconf vectors diff`: the committed corpus against the embedded one, and copies of it with
//! one expectation changed or one vector removed, in every output format, with and without
//! `--exit-code`.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod support;
use support::{run, TempDir};

/// The vector whose expectation the tests move (valid under every revision it has).
const MOVED: &str = "aer1/workflow/valid/seven-steps";
/// The vector the tests remove.
const REMOVED: &str = "aer1/workflow/valid/two-steps";

fn committed_vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("dir entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// SHA-256 in lowercase hex, as the manifest lists it.
fn sha256_hex(bytes: &[u8]) -> String {
    agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(bytes))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

/// Rewrites the manifest after `edit` changed its entries: each listed file's SHA-256 and the
/// corpus digest recomputed as the writer does.
fn fix_manifest(dir: &Path, edit: impl FnOnce(&mut Vec<Value>)) {
    let path = dir.join("manifest.json");
    let mut manifest = read_json(&path);
    let mut entries = manifest["vectors"].as_array().cloned().expect("vectors");
    edit(&mut entries);
    let mut lines = Vec::new();
    for e in &mut entries {
        let file = dir.join(e["path"].as_str().expect("path"));
        let sha = sha256_hex(&std::fs::read(file).expect("vector file"));
        lines.push(format!("{} {sha}\n", e["id"].as_str().expect("id")));
        e["sha256"] = Value::from(sha);
    }
    lines.sort();
    manifest["corpus_digest"] = Value::from(sha256_hex(lines.concat().as_bytes()));
    manifest["vector_count"] = Value::from(entries.len());
    manifest["vectors"] = Value::from(entries);
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&manifest).expect("JSON") + "\n",
    )
    .expect("write manifest");
}

fn entry_path(dir: &Path, id: &str) -> PathBuf {
    let manifest = read_json(&dir.join("manifest.json"));
    let entry = manifest["vectors"]
        .as_array()
        .and_then(|v| v.iter().find(|e| e["id"] == id))
        .unwrap_or_else(|| panic!("{id} is not in the corpus"));
    dir.join(entry["path"].as_str().expect("path"))
}

/// A copy of the committed corpus in which MOVED is `acceptable` under every revision, and, with
/// `also_edit_flags`, flagged too (a content change made along with the expectation's).
fn corpus_with_moved_expectation() -> TempDir {
    corpus_with_moved_expectation_and(false)
}

fn corpus_with_moved_expectation_and(also_edit_flags: bool) -> TempDir {
    let tmp = TempDir::new("moved");
    copy_dir(&committed_vectors(), tmp.path());
    let file = entry_path(tmp.path(), MOVED);
    let mut vector = read_json(&file);
    assert_eq!(
        vector["expectation"], "valid",
        "the test expects {MOVED} valid"
    );
    vector["expectation"] = Value::from("acceptable");
    vector["expected_rules"] = serde_json::json!(["AER1-WF-ROOT"]);
    if also_edit_flags {
        vector["flags"] = serde_json::json!(["interpretation"]);
    }
    std::fs::write(
        &file,
        serde_json::to_string_pretty(&vector).expect("JSON") + "\n",
    )
    .expect("write vector");
    fix_manifest(tmp.path(), |entries| {
        for e in entries.iter_mut().filter(|e| e["id"] == MOVED) {
            e["expectation"] = Value::from("acceptable");
        }
    });
    tmp
}

#[test]
fn committed_corpus_equals_the_embedded_one() {
    let dir = committed_vectors();
    let dir = dir.to_str().expect("UTF-8 path");
    for args in [
        vec!["vectors", "diff", dir],
        vec!["vectors", "diff", dir, "embedded", "--exit-code"],
        vec!["vectors", "diff", "embedded", dir, "--exit-code"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("no differences"), "{}", r.stdout);
    }
    let md = run(&["vectors", "diff", dir, "--format", "markdown"]);
    assert!(md.stdout.contains("No differences."), "{}", md.stdout);
    let json: Value =
        serde_json::from_str(&run(&["vectors", "diff", dir, "--format", "json"]).stdout)
            .expect("JSON");
    assert_eq!(json["old"]["digest"], json["new"]["digest"]);
    assert_eq!(json["counts"]["expectations_changed"], 0);
}

#[test]
fn a_moved_expectation_is_listed_alone_in_every_format() {
    let tmp = corpus_with_moved_expectation();
    let new = tmp.path().to_str().expect("UTF-8 path");

    let text = run(&["vectors", "diff", "embedded", new]);
    assert_eq!(text.code, 0, "no --exit-code: 0 even when they differ");
    assert!(
        text.stdout.contains(
            "0 added, 0 retired, 1 expectations changed, 0 revisions changed, 0 content changed"
        ),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(&format!(
            "expectations changed (1):\n  {MOVED}\n    06, 07, 08, 09: valid -> acceptable (AER1-WF-ROOT) [+AER1-WF-ROOT]\n"
        )),
        "{}",
        text.stdout
    );

    let md = run(&["vectors", "diff", "embedded", new, "--format", "markdown"]);
    assert_eq!(md.code, 0);
    assert!(
        md.stdout.starts_with("## Corpus changes\n"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("### Expectations changed (1)"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains(&format!(
            "| `{MOVED}` | 06, 07, 08, 09 | valid | acceptable (`AER1-WF-ROOT`) | +`AER1-WF-ROOT` |"
        )),
        "{}",
        md.stdout
    );
    assert!(!md.stdout.contains("### Added") && !md.stdout.contains("### Content"));

    let json = run(&["vectors", "diff", "embedded", new, "--format", "json"]);
    assert_eq!(json.code, 0);
    let json: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let changes = json["expectation_changes"].as_array().expect("array");
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0]["id"], MOVED);
    assert_eq!(changes[0]["revisions"][0]["before"]["expectation"], "valid");
    assert_eq!(
        changes[0]["revisions"][0]["after"]["expectation"],
        "acceptable"
    );
    for empty in ["added", "retired", "revision_changes", "content_changes"] {
        assert_eq!(json[empty], serde_json::json!([]), "{empty}");
    }
    assert_ne!(json["old"]["digest"], json["new"]["digest"]);
    assert_eq!(json["format"], "agentconf-corpus-diff/2");

    // The entry `cargo xtask vectors` writes into vectors/CHANGELOG.md for the same two corpora.
    let entry = run(&["vectors", "diff", "embedded", new, "--format", "changelog"]);
    assert_eq!(entry.code, 0);
    assert!(
        entry.stdout.starts_with(&format!(
            "## Corpus {}\n\nFrom {}: 0 added, 0 retired, 1 expectations changed",
            json["new"]["digest"].as_str().expect("digest"),
            json["old"]["digest"].as_str().expect("digest")
        )),
        "{}",
        entry.stdout
    );
    assert!(entry.stdout.contains(MOVED), "{}", entry.stdout);

    let strict = run(&["vectors", "diff", "embedded", new, "--exit-code"]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    // The same vector seen the other way round.
    let back = run(&["vectors", "diff", new, "--format", "json", "--exit-code"]);
    assert_eq!(back.code, 1);
    let back: Value = serde_json::from_str(&back.stdout).expect("JSON");
    assert_eq!(
        back["expectation_changes"][0]["revisions"][0]["after"]["expectation"],
        "valid"
    );
}

/// A file edited besides its grade is a content change as well: the moved expectation does not
/// hide it.
#[test]
fn a_content_change_made_with_a_moved_expectation_is_listed_too() {
    let tmp = corpus_with_moved_expectation_and(true);
    let new = tmp.path().to_str().expect("UTF-8 path");
    let text = run(&["vectors", "diff", "embedded", new]);
    assert!(
        text.stdout.contains(
            "0 added, 0 retired, 1 expectations changed, 0 revisions changed, 1 content changed"
        ),
        "{}",
        text.stdout
    );
    let json = run(&["vectors", "diff", "embedded", new, "--format", "json"]);
    let json: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(json["content_changes"][0]["id"], MOVED);
    assert_eq!(json["expectation_changes"][0]["id"], MOVED);
}

#[test]
fn a_removed_vector_is_retired() {
    let tmp = TempDir::new("removed");
    copy_dir(&committed_vectors(), tmp.path());
    std::fs::remove_file(entry_path(tmp.path(), REMOVED)).expect("remove vector");
    fix_manifest(tmp.path(), |entries| entries.retain(|e| e["id"] != REMOVED));
    let new = tmp.path().to_str().expect("UTF-8 path");
    let r = run(&[
        "vectors",
        "diff",
        "embedded",
        new,
        "--format",
        "json",
        "--exit-code",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let json: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(json["retired"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["retired"][0]["id"], REMOVED);
    assert_eq!(json["counts"]["retired"], 1);
    assert_eq!(
        json["new"]["vector_count"].as_u64(),
        json["old"]["vector_count"].as_u64().map(|n| n - 1)
    );
    let text = run(&["vectors", "diff", "embedded", new]);
    assert!(
        text.stdout
            .contains(&format!("retired (1):\n  {REMOVED}  ")),
        "{}",
        text.stdout
    );
    // Seen from the copy, the embedded corpus adds it.
    let md = run(&["vectors", "diff", new, "--format", "markdown"]);
    assert!(md.stdout.contains("### Added (1)"), "{}", md.stdout);
}

#[test]
fn a_corpus_that_does_not_hold_together_is_refused_with_exit_2() {
    let tmp = corpus_with_moved_expectation();
    // A vector edited after the manifest was written.
    let file = entry_path(tmp.path(), MOVED);
    std::fs::write(&file, "{}").expect("write");
    let r = run(&["vectors", "diff", tmp.path().to_str().expect("UTF-8 path")]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("seven-steps.json"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    let missing = run(&["vectors", "diff", "/nonexistent/agentconf/corpus"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("manifest.json"),
        "{}",
        missing.stderr
    );
}
