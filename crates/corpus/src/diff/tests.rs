//! Each category of a diff from small hand-made snapshots; the renderers and the changelog; the
//! lenient reading of corpus directories, old formats and malformed files included.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

use super::changelog::chain_problems;
use super::*;

fn grade(expectation: &str, rules: &[&str]) -> Grade {
    Grade {
        expectation: expectation.to_string(),
        expected_rules: rules.iter().map(|r| r.to_string()).collect(),
    }
}

/// A vector `suite-prefix/family/name` with one grade per listed revision.
fn vector(id: &str, sha: &str, rules: &[&str], grades: &[(&str, Grade)]) -> VectorSummary {
    let mut parts = id.split('/');
    let suite = format!(
        "{}-{}",
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default()
    );
    VectorSummary {
        id: id.to_string(),
        suite,
        family: parts.next().unwrap_or_default().to_string(),
        sha256: sha.to_string(),
        // What the hand-made vectors change besides grades is their exercised rules.
        content_sha256: format!("content exercising {rules:?}"),
        rules: rules.iter().map(|r| r.to_string()).collect(),
        by_revision: grades
            .iter()
            .map(|(r, g)| (r.to_string(), g.clone()))
            .collect(),
    }
}

fn snapshot(digest: &str, vectors: Vec<VectorSummary>) -> CorpusSnapshot {
    CorpusSnapshot {
        digest: digest.to_string(),
        vectors: vectors.into_iter().map(|v| (v.id.clone(), v)).collect(),
    }
}

fn valid() -> Grade {
    grade("valid", &[])
}

fn link() -> Grade {
    grade("invalid", &["AER1-TL-LINK"])
}

#[test]
fn diff_of_equal_snapshots_is_empty_in_every_rendering() {
    let s = snapshot(
        "d1",
        vec![vector(
            "aer1/timeline/valid/a",
            "s1",
            &["R"],
            &[("09", valid())],
        )],
    );
    let d = diff(&s, &s);
    assert!(d.is_empty());
    assert_eq!(d.counts, Counts::default());
    let text = d.to_text();
    assert!(text.starts_with("old corpus d1 (1 vectors)\nnew corpus d1 (1 vectors)\n"));
    assert!(text.contains("no differences"), "{text}");
    assert!(d.to_markdown().contains("No differences."));
    assert!(d.to_markdown().contains("| old | `d1` | 1 |"));
}

#[test]
fn diff_lists_added_and_retired_with_their_grades() {
    let old = snapshot(
        "d1",
        vec![
            vector(
                "aer1/timeline/valid/kept",
                "s1",
                &["R1"],
                &[("09", valid())],
            ),
            // A retired id the corpus records a replacement for.
            vector(
                "aer1/workflow/structure/steps-reordered",
                "s2",
                &["R2"],
                &[("09", link())],
            ),
        ],
    );
    let new = snapshot(
        "d2",
        vec![
            vector(
                "aer1/timeline/valid/kept",
                "s1",
                &["R1"],
                &[("09", valid())],
            ),
            vector(
                "aer1/timeline/revision06/new",
                "s3",
                &["R3"],
                &[("06", valid()), ("09", link())],
            ),
        ],
    );
    let d = diff(&old, &new);
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.added[0].id, "aer1/timeline/revision06/new");
    assert_eq!(d.added[0].by_revision["09"], link());
    assert_eq!(d.retired.len(), 1);
    assert!(d.retired[0]
        .replaced_by
        .as_deref()
        .is_some_and(|r| r.contains("seq-swapped")));
    assert!(d.expectation_changes.is_empty() && d.content_changes.is_empty());
    assert_eq!(d.by_family["aer1/timeline/revision06"].added, 1);
    assert_eq!(d.by_family["aer1/workflow/structure"].retired, 1);
    assert_eq!(d.by_rule["R3"].added, 1);
    assert_eq!(d.by_rule["R2"].retired, 1);
    assert!(!d.by_rule.contains_key("R1"));
    let text = d.to_text();
    assert!(
        text.contains("aer1/timeline/revision06/new  06: valid; 09: invalid (AER1-TL-LINK)"),
        "{text}"
    );
    assert!(text.contains("replaced by aer1/workflow/structure/seq-swapped"));
}

#[test]
fn diff_shows_an_expectation_moved_under_a_revision_on_both_sides() {
    let old = snapshot(
        "d1",
        vec![vector(
            "aer1/receipt/id/nil",
            "s1",
            &["R1"],
            &[("08", link()), ("09", link())],
        )],
    );
    let new = snapshot(
        "d2",
        vec![vector(
            "aer1/receipt/id/nil",
            "s2",
            &["R1"],
            &[
                ("08", link()),
                ("09", grade("acceptable", &["AER1-TL-LINK", "AER1-TL-SEQ"])),
            ],
        )],
    );
    let d = diff(&old, &new);
    assert_eq!(d.expectation_changes.len(), 1);
    let change = &d.expectation_changes[0];
    assert_eq!(change.revisions.len(), 1, "08 did not change");
    assert_eq!(change.revisions[0].revision, "09");
    assert_eq!(change.revisions[0].before.expectation, "invalid");
    assert_eq!(change.revisions[0].after.expectation, "acceptable");
    assert_eq!(change.revisions[0].rules_added, ["AER1-TL-SEQ"]);
    assert!(change.revisions[0].rules_removed.is_empty());
    // The file changed because the grade did: not a content change too.
    assert!(d.content_changes.is_empty() && d.revision_changes.is_empty());
    // A content change made along with the grade is not hidden by it.
    let mut edited = new.clone();
    if let Some(v) = edited.vectors.get_mut("aer1/receipt/id/nil") {
        v.content_sha256 = "new inputs".into();
    }
    let d = diff(&old, &edited);
    assert_eq!(d.expectation_changes.len(), 1);
    assert_eq!(
        d.content_changes.len(),
        1,
        "content hidden by the grade change"
    );
    assert_eq!(d.counts.content_changed, 1);
    assert_eq!(d.by_family["aer1/receipt/id"].expectation_changed, 1);
    assert_eq!(d.by_rule["R1"].expectation_changed, 1);
    let text = d.to_text();
    assert!(
        text.contains(
            "09: invalid (AER1-TL-LINK) -> acceptable (AER1-TL-LINK, AER1-TL-SEQ) [+AER1-TL-SEQ]"
        ),
        "{text}"
    );
    let md = d.to_markdown();
    assert!(
        md.contains("| `aer1/receipt/id/nil` | 09 | invalid (`AER1-TL-LINK`) |"),
        "{md}"
    );
}

#[test]
fn diff_groups_revision_changes_and_summarises_large_groups() {
    // Thirty vectors gain a new revision 10 (a new draft revision); one loses 06.
    let names: Vec<String> = (0..30)
        .map(|i| format!("aer1/timeline/valid/v{i:02}"))
        .collect();
    let old = snapshot(
        "d1",
        names
            .iter()
            .map(|id| vector(id, "s1", &["R"], &[("09", valid())]))
            .chain([vector(
                "aer1/timeline/revision06/x",
                "s1",
                &["R"],
                &[("06", valid()), ("09", link())],
            )])
            .collect(),
    );
    let new = snapshot(
        "d2",
        names
            .iter()
            .map(|id| vector(id, "s2", &["R"], &[("09", valid()), ("10", valid())]))
            .chain([vector(
                "aer1/timeline/revision06/x",
                "s2",
                &["R"],
                &[("09", link())],
            )])
            .collect(),
    );
    let d = diff(&old, &new);
    assert_eq!(d.revision_changes.len(), 2);
    let gained = &d.revision_changes[1];
    assert_eq!(
        (gained.gained.as_slice(), gained.lost.len()),
        (&["10".to_string()][..], 0)
    );
    assert_eq!(gained.count, 30);
    assert_eq!(gained.gained_expectations["valid"], 30);
    assert_eq!(gained.ids.len(), 30, "JSON lists every id");
    let lost = &d.revision_changes[0];
    assert_eq!(lost.lost, ["06"]);
    assert_eq!(lost.ids, ["aer1/timeline/revision06/x"]);
    assert_eq!(d.counts.revisions_changed, 31);
    assert!(d.expectation_changes.is_empty() && d.content_changes.is_empty());
    let text = d.to_text();
    assert!(
        text.contains("gained 10: 30 vectors (30 grades added: valid 30)"),
        "{text}"
    );
    assert!(
        !text.contains("valid/v07"),
        "a large group is not listed id by id:\n{text}"
    );
    assert!(text.contains("lost 06: 1 vector\n"), "{text}");
    assert!(text.contains("    aer1/timeline/revision06/x\n"), "{text}");
    let md = d.to_markdown();
    assert!(
        md.contains("| 10 | – | 30 | valid 30 | `aer1/timeline/valid` 30 |"),
        "{md}"
    );
    assert!(!md.contains("v07"));
    let json = serde_json::to_value(&d).unwrap_or_default();
    assert_eq!(
        json["revision_changes"][1]["ids"].as_array().map(Vec::len),
        Some(30)
    );
}

#[test]
fn diff_reports_a_changed_file_with_the_same_grades_as_content() {
    let old = snapshot(
        "d1",
        vec![vector(
            "grp/admission/replay/a",
            "s1",
            &["R1"],
            &[("01", valid())],
        )],
    );
    let new = snapshot(
        "d2",
        vec![vector(
            "grp/admission/replay/a",
            "s2",
            &["R1", "R2"],
            &[("01", valid())],
        )],
    );
    let d = diff(&old, &new);
    assert_eq!(d.content_changes.len(), 1);
    let c = &d.content_changes[0];
    assert_eq!((c.old_sha256.as_str(), c.new_sha256.as_str()), ("s1", "s2"));
    assert_eq!(c.rules_added, ["R2"]);
    assert_eq!(d.by_rule["R2"].content_changed, 1);
    assert_eq!(d.by_rule["R1"].content_changed, 1);
    assert_eq!(d.by_family["grp/admission/replay"].content_changed, 1);
    let text = d.to_text();
    assert!(text.contains("grp/admission/replay (1): a"), "{text}");
    assert!(
        text.contains("exercised rules [+R2] (1):\n    grp/admission/replay (1): a\n"),
        "{text}"
    );
}

#[test]
fn diff_renders_hostile_names_inertly() {
    let old = snapshot("d1", vec![]);
    let new = snapshot(
        "d2",
        vec![vector("x/y/f/\u{1b}[2J`|", "s", &[], &[("09", valid())])],
    );
    let d = diff(&old, &new);
    assert!(!d.to_text().contains('\u{1b}'));
    let md = d.to_markdown();
    assert!(!md.contains('\u{1b}'));
    assert!(md.contains("``x/y/f/\\u{1b}[2J`\\|``"), "{md}");
    // A right-to-left override would make the id read as something else.
    let bidi = snapshot(
        "d3",
        vec![vector(
            "x/y/f/a\u{202e}gnp.exe",
            "s",
            &[],
            &[("09", valid())],
        )],
    );
    let d = diff(&old, &bidi);
    for rendering in [d.to_text(), d.to_markdown(), d.changelog_entry()] {
        assert!(!rendering.contains('\u{202e}'), "{rendering}");
        assert!(rendering.contains("a\\u{202e}gnp.exe"), "{rendering}");
    }
}

/// Content is judged without the grades, in the vector and in its revision groups: a group split
/// off is a grade change only; a group's flags, an answer or an input changed is content.
#[test]
fn content_is_what_remains_without_the_grades() {
    let content = |v: &Value| {
        super::load::summarise(v, "0".repeat(64))
            .expect("summary")
            .content_sha256
    };
    let base = json!({
        "id": "aer1/timeline/revision06/x", "suite": "aer1-timeline", "family": "revision06",
        "revisions": ["06", "07", "08", "09"], "expectation": "valid", "expected_rules": [],
        "flags": [], "rules": ["AER1-TL-LINK"], "description": "d", "inputs": [{"name": "a"}]
    });
    let mut split = base.clone();
    split["revisions"] = json!(["06"]);
    split["other_revisions"] = json!([{
        "revisions": ["07", "08", "09"], "expectation": "invalid",
        "expected_rules": ["AER1-TL-LINK"], "flags": []
    }]);
    assert_eq!(
        content(&base),
        content(&split),
        "a split group is a grade change"
    );
    let mut flagged = split.clone();
    flagged["other_revisions"][0]["flags"] = json!(["interpretation"]);
    assert_ne!(
        content(&split),
        content(&flagged),
        "a group's flags are content"
    );
    let mut input = base.clone();
    input["inputs"][0]["name"] = json!("b");
    assert_ne!(content(&base), content(&input));
    let mut answer = base.clone();
    answer["expected_decisions"] = json!([{"step": 0, "outcome": "admit"}]);
    assert_ne!(
        content(&base),
        content(&answer),
        "an expected decision is content"
    );
}

#[test]
fn changelog_entry_heads_with_the_new_digest_and_counts() {
    let old = snapshot(
        "d1",
        vec![
            vector("aer1/timeline/valid/a", "s1", &["R"], &[("09", valid())]),
            vector("aer1/timeline/valid/b", "s1", &["R"], &[("09", valid())]),
        ],
    );
    let new = snapshot(
        "d2",
        vec![
            vector("aer1/timeline/valid/a", "s2", &["R"], &[("09", link())]),
            vector("aer1/timeline/valid/c", "s1", &["R"], &[("09", valid())]),
            vector("aer1/timeline/valid/d", "s1", &["R"], &[("09", valid())]),
        ],
    );
    let entry = diff(&old, &new).changelog_entry();
    assert!(entry.starts_with(
        "## Corpus d2\n\nFrom d1: 2 added, 1 retired, 1 expectations changed, \
         0 revisions changed, 0 content changed.\n"
    ));
    assert!(
        entry.contains("- Added (2):\n  - `aer1/timeline/valid` (2): `c`, `d`\n"),
        "{entry}"
    );
    assert!(
        entry.contains("- Retired (1):\n  - `aer1/timeline/valid/b`\n"),
        "{entry}"
    );
    assert!(
        entry.contains("  - `aer1/timeline/valid/a`: 09 valid → invalid (`AER1-TL-LINK`)\n"),
        "{entry}"
    );
}

#[test]
fn changelog_prepend_keeps_the_header_and_puts_the_newest_first() {
    assert_eq!(changelog_latest_digest(""), None);
    let first = changelog_prepend("", "## Corpus d1\n\nFrom d0: 1 added.\n");
    assert!(first.starts_with(CHANGELOG_HEADER));
    assert_eq!(changelog_latest_digest(&first), Some("d1"));
    // A hand edit above the entries is replaced by the header.
    let edited = first.replace("# Corpus changelog", "# Something else");
    let second = changelog_prepend(&edited, "## Corpus d2\n\nFrom d1: 1 retired.\n");
    assert!(second.starts_with(CHANGELOG_HEADER));
    assert!(!second.contains("Something else"));
    assert_eq!(changelog_latest_digest(&second), Some("d2"));
    let d2 = second.find("## Corpus d2").unwrap_or(usize::MAX);
    let d1 = second.find("## Corpus d1").unwrap_or(0);
    assert!(d2 < d1, "{second}");
    // The same digest again replaces its entry.
    let again = changelog_prepend(&second, "## Corpus d2\n\nFrom d1: 2 retired.\n");
    assert_eq!(again.matches("## Corpus d2").count(), 1, "{again}");
    assert!(again.contains("2 retired") && !again.contains("1 retired"));
    assert!(again.contains("## Corpus d1"));
    assert_eq!(
        changelog_prepend(&again, "## Corpus d2\n\nFrom d1: 2 retired.\n"),
        again
    );
}

#[test]
fn changelog_problems_find_gaps_conflicts_and_edited_headers() {
    let one = changelog_prepend("", "## Corpus d1\n\nFrom d0: 1 added.\n");
    let two = changelog_prepend(&one, "## Corpus d2\n\nFrom d1: 1 retired.\n");
    assert_eq!(chain_problems(&two, "d0"), Vec::<String>::new());
    // The oldest entry must start from the empty corpus.
    let wrong_start = chain_problems(&two, "e0");
    assert_eq!(wrong_start.len(), 1, "{wrong_start:?}");
    assert!(wrong_start[0].contains("starts from d0"), "{wrong_start:?}");
    // An entry skipped (a corpus committed without its entry) breaks the chain.
    let gap = changelog_prepend(&two, "## Corpus d4\n\nFrom d3: 1 added.\n");
    let problems = chain_problems(&gap, "d0");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("d4 starts from d3") && problems[0].contains("gap"),
        "{problems:?}"
    );
    // Two branches' entries merged by hand.
    let conflicted = two.replace(
        "## Corpus d2",
        "<<<<<<< HEAD\n## Corpus d2\n=======\n## Corpus d5\n>>>>>>> branch",
    );
    let problems = chain_problems(&conflicted, "d0");
    assert!(
        problems
            .iter()
            .filter(|p| p.contains("merge-conflict marker"))
            .count()
            == 3,
        "{problems:?}"
    );
    let edited = two.replace("# Corpus changelog", "# Changes");
    assert!(chain_problems(&edited, "d0")[0].contains("header"));
    let prose = two.replace("\n## Corpus d2", "\nA note by hand.\n\n## Corpus d2");
    assert!(chain_problems(&prose, "d0")[0].contains("above the first entry"));
    let no_from = two.replace("From d1: 1 retired.", "Nothing here.");
    assert!(
        chain_problems(&no_from, "d0")
            .iter()
            .any(|p| p.contains("d2 has no `From` line")),
        "{:?}",
        chain_problems(&no_from, "d0")
    );
    assert!(chain_problems(CHANGELOG_HEADER, "d0")
        .iter()
        .any(|p| p == "no entry"));
}

// ---------------------------------------------------------------------------------------------
// Reading directories
// ---------------------------------------------------------------------------------------------

/// A fresh directory per test, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "agentconf-corpus-diff-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sha_hex(bytes: &[u8]) -> String {
    agentconf_aer1::hex::lower(&Sha256::digest(bytes))
}

/// Writes `files` (path, text) as a corpus with a manifest that is right about them.
fn write_corpus(dir: &Path, files: &[(&str, &str, String)]) {
    let mut entries = Vec::new();
    let mut lines = Vec::new();
    for (id, path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap_or(dir)).expect("mkdir");
        std::fs::write(&full, text).expect("write vector");
        let sha = sha_hex(text.as_bytes());
        lines.push(format!("{id} {sha}\n"));
        entries.push(json!({"id": id, "path": path, "sha256": sha}));
    }
    lines.sort();
    let manifest = json!({
        "corpus_digest": sha_hex(lines.concat().as_bytes()),
        "vector_count": entries.len(),
        "vectors": entries,
    });
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).expect("write manifest");
}

/// A vector file as the corpus of c3e22cd wrote it: no `other_revisions`, `options.id_tier`.
fn old_format_vector() -> String {
    serde_json::to_string_pretty(&json!({
        "id": "aer1/receipt/id/nil",
        "suite": "aer1-receipt",
        "family": "id",
        "revisions": ["07", "08", "09"],
        "description": "nil id",
        "rules": ["AER1-RC-ID-NIL"],
        "level": "MUST",
        "expectation": "invalid",
        "expected_rules": ["AER1-RC-ID-NIL"],
        "flags": [],
        "options": {"id_tier": "strict"},
        "inputs": []
    }))
    .unwrap_or_default()
}

#[test]
fn load_dir_reads_an_old_format_vector_without_other_revisions() {
    let tmp = TempDir::new("old-format");
    let newer = json!({
        "id": "aer1/timeline/revision06/example",
        "suite": "aer1-timeline",
        "family": "revision06",
        "revisions": ["06"],
        "expectation": "valid",
        "expected_rules": [],
        "other_revisions": [{
            "revisions": ["07", "09"],
            "expectation": "invalid",
            "expected_rules": ["B", "A"],
            "flags": [],
            "reason": "07 changed the construction"
        }]
    });
    write_corpus(
        &tmp.0,
        &[
            (
                "aer1/receipt/id/nil",
                "aer1-receipt/id/nil.json",
                old_format_vector(),
            ),
            (
                "aer1/timeline/revision06/example",
                "aer1-timeline/revision06/example.json",
                newer.to_string(),
            ),
        ],
    );
    let snap = load_dir(&tmp.0).unwrap_or_else(|e| panic!("{e}"));
    let old = &snap.vectors["aer1/receipt/id/nil"];
    assert_eq!(old.by_revision.len(), 3);
    assert_eq!(old.by_revision["08"], grade("invalid", &["AER1-RC-ID-NIL"]));
    assert_eq!(old.sha256, sha_hex(old_format_vector().as_bytes()));
    let newer = &snap.vectors["aer1/timeline/revision06/example"];
    assert_eq!(newer.by_revision["06"], valid());
    assert_eq!(newer.by_revision["09"], grade("invalid", &["A", "B"]));
    assert!(newer.rules.is_empty(), "missing rules read as none");
}

#[test]
fn load_dir_refuses_bad_input_naming_the_file() {
    // (label, how the corpus is broken, what the error must say)
    type Setup = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Setup, &str)> = vec![
        (
            "not-json",
            Box::new(|d: &Path| {
                write_corpus(d, &[("a/b/c/v", "a-b/c/v.json", "{not json".to_string())])
            }),
            "v.json",
        ),
        (
            "no-expectation",
            Box::new(|d: &Path| {
                let v =
                    json!({"id": "a/b/c/v", "suite": "a-b", "family": "c", "revisions": ["09"]});
                write_corpus(d, &[("a/b/c/v", "a-b/c/v.json", v.to_string())])
            }),
            "v.json: expectation is missing",
        ),
        (
            "wrong-type",
            Box::new(|d: &Path| {
                let v = json!({"id": "a/b/c/v", "suite": "a-b", "family": "c",
                    "revisions": ["09"], "expectation": "invalid", "expected_rules": "R"});
                write_corpus(d, &[("a/b/c/v", "a-b/c/v.json", v.to_string())])
            }),
            "v.json: expected_rules is not a list of strings",
        ),
        (
            "graded-twice",
            Box::new(|d: &Path| {
                let v = json!({"id": "a/b/c/v", "suite": "a-b", "family": "c",
                    "revisions": ["09"], "expectation": "valid",
                    "other_revisions": [{"revisions": ["09"], "expectation": "invalid"}]});
                write_corpus(d, &[("a/b/c/v", "a-b/c/v.json", v.to_string())])
            }),
            "v.json: revision \"09\" is graded twice",
        ),
        (
            "duplicate-member",
            Box::new(|d: &Path| {
                let text = r#"{"id": "a/b/c/v", "id": "a/b/c/w"}"#.to_string();
                write_corpus(d, &[("a/b/c/v", "a-b/c/v.json", text)])
            }),
            "v.json",
        ),
        (
            "escaping-path",
            Box::new(|d: &Path| write_corpus(d, &[("a/b/c/v", "../v.json", old_format_vector())])),
            "manifest.json: \"../v.json\" is not a path inside",
        ),
        (
            "sha-mismatch",
            Box::new(|d: &Path| {
                write_corpus(d, &[("aer1/receipt/id/nil", "v.json", old_format_vector())]);
                let _ = std::fs::write(d.join("v.json"), "{}");
            }),
            "v.json: its SHA-256 is",
        ),
        (
            "digest-mismatch",
            Box::new(|d: &Path| {
                write_corpus(d, &[("aer1/receipt/id/nil", "v.json", old_format_vector())]);
                let path = d.join("manifest.json");
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let mut m: Value = serde_json::from_str(&text).unwrap_or_default();
                m["corpus_digest"] = json!("0".repeat(64));
                let _ = std::fs::write(&path, m.to_string());
            }),
            "manifest.json: its vector files digest to",
        ),
        (
            "id-mismatch",
            Box::new(|d: &Path| write_corpus(d, &[("other/id", "v.json", old_format_vector())])),
            "v.json: it holds \"aer1/receipt/id/nil\"",
        ),
        (
            "no-manifest",
            Box::new(|_: &Path| {}),
            "manifest.json: cannot open",
        ),
    ];
    for (label, setup, expected) in cases {
        let tmp = TempDir::new(label);
        setup(&tmp.0);
        match load_dir(&tmp.0) {
            Ok(_) => panic!("{label}: accepted"),
            Err(e) => assert!(e.contains(expected), "{label}: {e}"),
        }
    }
}

#[test]
fn embedded_corpus_snapshot_equals_the_directory_written_from_it() {
    let corpus = crate::corpus();
    let embedded = from_vectors(&corpus);
    assert_eq!(
        embedded.digest,
        crate::writer::manifest(&corpus).corpus_digest
    );
    let tmp = TempDir::new("written");
    for (rel, text) in crate::writer::files(&corpus) {
        let path = tmp.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(&tmp.0)).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let read = load_dir(&tmp.0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read, embedded);
    assert!(diff(&read, &embedded).is_empty());
    // Per-revision grades made it into the snapshot.
    assert!(embedded.vectors.values().any(|v| {
        let expectations: BTreeSet<&str> = v
            .by_revision
            .values()
            .map(|g| g.expectation.as_str())
            .collect();
        expectations.len() > 1
    }));
}

/// Untrusted vector files never panic the lenient reader: every member of real vector files
/// (top level and `other_revisions`) removed, or replaced by a value of each other JSON type,
/// gives a summary or an error, never a panic; and a required member gone is an error.
#[test]
fn every_member_removed_or_retyped_gives_a_result_not_a_panic() {
    let corpus = crate::corpus();
    let samples = corpus
        .iter()
        .filter(|v| !v.other_revisions.is_empty())
        .take(3)
        .chain(
            corpus
                .iter()
                .filter(|v| v.other_revisions.is_empty())
                .take(3),
        );
    let replacements = [
        Value::Null,
        json!(true),
        json!(-1.5),
        json!("x"),
        json!([]),
        json!([1, "09", null]),
        json!({}),
    ];
    let mut tried = 0;
    for v in samples {
        let original: Value =
            serde_json::from_str(&crate::writer::vector_file(v)).expect("a vector file is JSON");
        let mut paths: Vec<Vec<String>> = Vec::new();
        if let Value::Object(top) = &original {
            for (k, value) in top {
                paths.push(vec![k.clone()]);
                if let Some(others) = value.as_array().filter(|_| k == "other_revisions") {
                    for (i, other) in others.iter().enumerate() {
                        for member in other.as_object().into_iter().flat_map(|o| o.keys()) {
                            paths.push(vec![k.clone(), i.to_string(), member.clone()]);
                        }
                    }
                }
            }
        }
        for path in paths {
            let (last, parents) = path.split_last().expect("a path has a member");
            let mut removed = original.clone();
            if let Some(object) = parent_object(&mut removed, parents) {
                object.remove(last);
            }
            let result = super::load::summarise(&removed, "0".repeat(64));
            if path.len() == 1
                && ["id", "suite", "family", "revisions", "expectation"].contains(&last.as_str())
            {
                assert!(result.is_err(), "{} without {last} was read", v.id);
            }
            tried += 1;
            for r in &replacements {
                let mut retyped = original.clone();
                if let Some(object) = parent_object(&mut retyped, parents) {
                    object.insert(last.clone(), r.clone());
                }
                let _ = super::load::summarise(&retyped, "0".repeat(64));
                tried += 1;
            }
        }
    }
    assert!(tried > 100, "only {tried} variants tried");
}

/// The object a path of member names and array indexes leads to.
fn parent_object<'a>(
    doc: &'a mut Value,
    path: &[String],
) -> Option<&'a mut serde_json::Map<String, Value>> {
    let mut at = doc;
    for step in path {
        at = match step.parse::<usize>() {
            Ok(i) => at.get_mut(i)?,
            Err(_) => at.get_mut(step.as_str())?,
        };
    }
    at.as_object_mut()
}
