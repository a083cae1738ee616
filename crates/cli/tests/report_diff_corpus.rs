//! `agentconf report diff` across two corpora: each difference names its cause, so that an
//! implementer sees which differences the corpus made and which the implementation made.
//!
//! `agentconf run` runs only the embedded corpus, so the run "on the changed corpus" is the real
//! run's file rewritten the way a run on that corpus writes it (its digest, the changed case's
//! expectation and outcome), with its footer digests recomputed; `agentconf report --corpus`
//! then checks it against that corpus like any other file, so the stand-in is faithful.

use std::path::{Path, PathBuf};

use agentconf_contract::vector::Expectation;
use agentconf_harness::results::{self, ResultsFile, RuleRef};
use agentconf_harness::Status;
use agentconf_rules::Rule;
use serde_json::Value;

mod support;
use support::{run, TempDir};

const EXIT_VALID: i32 = 0;
const EXIT_INVALID: i32 = 1;
const EXIT_USAGE: i32 = 2;

/// The cases every run here is limited to: a few, so that the runs are fast.
const INCLUDE: &str = "aer1/workflow/valid";
/// The case whose expectation the changed corpus turns from valid to invalid.
const MOVED: &str = "aer1/workflow/valid/one-step";
/// The case whose outcome the "new" implementation changes, in a vector both corpora share.
const BROKEN: &str = "aer1/workflow/valid/two-steps";

fn p(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}

/// `agentconf run` of the reference on the embedded corpus, limited to [`INCLUDE`].
fn reference_run(out: &Path) {
    let r = run(&["run", "--include", INCLUDE, "--out", p(out)]);
    assert_eq!(r.code, EXIT_VALID, "{}", r.both());
}

/// The embedded corpus with [`MOVED`] invalid (citing AER1-WF-ROOT) instead of valid, written
/// to `dir` as `cargo xtask vectors` writes a corpus. Returns its digest.
fn changed_corpus(dir: &Path) -> String {
    let mut vectors = agentconf_corpus::corpus();
    let v = vectors
        .iter_mut()
        .find(|v| v.id == MOVED)
        .expect("the moved vector is in the corpus");
    assert_eq!(v.expectation, Expectation::Valid);
    v.expectation = Expectation::Invalid;
    v.expected_rules = vec![Rule::from_id("AER1-WF-ROOT").expect("a rule")];
    for (path, text) in agentconf_corpus::writer::files(&vectors) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    agentconf_corpus::writer::manifest(&vectors).corpus_digest
}

/// `file` as the reference's run on the changed corpus writes it — [`MOVED`] expected invalid
/// and, accepted as before, a false accept — and with [`BROKEN`] falsely rejected, as by an
/// implementation that broke between the runs. Footer digests are recomputed, as a run does.
fn rerun_on(mut file: ResultsFile, digest: &str) -> ResultsFile {
    file.header.corpus_digest = digest.to_string();
    for line in &mut file.results {
        if line.id == MOVED {
            line.expectation = Expectation::Invalid;
            line.expected_rules = vec![RuleRef::parse("AER1-WF-ROOT")];
            line.status = Status::FalseAccept;
            line.detail = "accepted".into();
        } else if line.id == BROKEN {
            line.status = Status::FalseReject;
            line.detail = "rejected: []".into();
        }
    }
    let duration = file.footer.as_ref().map_or(0, |f| f.duration_ms);
    file.seal(duration);
    file
}

/// OLD (the reference on the embedded corpus), NEW (on the changed corpus) and that corpus.
struct CrossCorpus {
    _dir: TempDir,
    old: PathBuf,
    new: PathBuf,
    corpus: PathBuf,
    digest: String,
}

fn cross_corpus(label: &str) -> CrossCorpus {
    let dir = TempDir::new(label);
    let (old, new, corpus) = (
        dir.path().join("old.jsonl"),
        dir.path().join("new.jsonl"),
        dir.path().join("vectors"),
    );
    reference_run(&old);
    let digest = changed_corpus(&corpus);
    let text = std::fs::read_to_string(&old).expect("old results");
    let parsed = results::parse(&text).expect("old results parse");
    results::write_file(&new, &rerun_on(parsed, &digest)).expect("new results");
    CrossCorpus {
        _dir: dir,
        old,
        new,
        corpus,
        digest,
    }
}

/// The cause of every difference in a `--format json` diff: case id → cause.
fn causes(json: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(json).expect("the diff is JSON");
    let mut out: Vec<(String, String)> = ["regressions", "fixes", "changed"]
        .iter()
        .chain(&["new_vectors", "removed_vectors"])
        .flat_map(|k| v[k].as_array().cloned().unwrap_or_default())
        .map(|c| {
            (
                c["id"].as_str().unwrap_or_default().to_string(),
                c["cause"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_changed_expectation_is_the_corpus_and_a_broken_case_the_implementation() {
    let c = cross_corpus("cross");
    // The stand-in is what a run on the changed corpus writes: it passes the corpus check
    // (exit 1 for its FAIL verdict, not 2 for a refused file).
    let check = run(&["report", p(&c.new), "--corpus", p(&c.corpus)]);
    assert_eq!(check.code, EXIT_INVALID, "{}", check.both());

    // OLD's corpus is the embedded one (found by its digest); NEW's is given.
    let args = |format: &'static str| {
        let mut a = vec!["report", "diff", p(&c.old), p(&c.new)];
        a.extend(["--new-corpus", p(&c.corpus), "--format", format]);
        a
    };
    let json = run(&args("json"));
    // Both are regressions, and regressions fail the diff whatever their cause.
    assert_eq!(json.code, EXIT_INVALID, "{}", json.both());
    assert_eq!(
        causes(&json.stdout),
        [
            (MOVED.to_string(), "expectation".to_string()),
            (BROKEN.to_string(), "implementation".to_string()),
        ]
    );
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["format"], "agentconf-diff/2");
    assert_eq!(v["corpora_known"], true);
    assert_eq!(v["by_cause"]["expectation"], 1);
    assert_eq!(v["by_cause"]["implementation"], 1);

    let text = run(&args("text"));
    assert_eq!(text.code, EXIT_INVALID, "{}", text.both());
    assert!(
        text.stdout
            .contains("1 difference from the corpus (1 expectation), 1 from the implementation"),
        "{}",
        text.both()
    );
    assert!(text.stdout.contains(&c.digest), "{}", text.both());
    let moved = text
        .stdout
        .lines()
        .find(|l| l.ends_with(MOVED))
        .unwrap_or_else(|| panic!("{MOVED} is listed: {}", text.both()));
    assert!(moved.contains("expectation"), "{moved}");
    assert!(
        text.stdout
            .contains("expected: valid -> invalid [AER1-WF-ROOT]"),
        "{}",
        text.both()
    );

    let md = run(&args("markdown"));
    assert_eq!(md.code, EXIT_INVALID, "{}", md.both());
    assert!(
        md.stdout.contains("`expectation` (from the corpus)"),
        "{}",
        md.both()
    );
    assert!(md.stdout.contains("### Regressions (2)"), "{}", md.both());

    // --exit-zero publishes without failing, as for one file.
    let mut quiet = args("text");
    quiet.push("--exit-zero");
    assert_eq!(run(&quiet).code, EXIT_VALID);
}

#[test]
fn without_the_new_corpus_only_the_expectation_is_known() {
    let c = cross_corpus("unknown");
    let r = run(&["report", "diff", p(&c.old), p(&c.new), "--format", "json"]);
    assert_eq!(r.code, EXIT_INVALID, "{}", r.both());
    assert_eq!(
        causes(&r.stdout),
        [
            (MOVED.to_string(), "expectation".to_string()),
            (BROKEN.to_string(), "corpus-unknown".to_string()),
        ]
    );
    // Standard error says how to know; standard output stays one JSON document.
    assert!(r.stderr.contains("--new-corpus DIR"), "{}", r.both());
    assert!(!r.stderr.contains("--old-corpus"), "{}", r.both());
}

#[test]
fn a_corpus_that_is_not_the_files_is_refused_naming_both_digests() {
    let c = cross_corpus("wrong");
    let embedded = agentconf_corpus::writer::manifest(&agentconf_corpus::corpus()).corpus_digest;
    // OLD was made against the embedded corpus, not the changed one.
    let r = run(&[
        "report",
        "diff",
        p(&c.old),
        p(&c.new),
        "--old-corpus",
        p(&c.corpus),
    ]);
    assert_eq!(r.code, EXIT_USAGE, "{}", r.both());
    assert!(r.stdout.is_empty(), "{}", r.both());
    assert!(
        r.stderr.contains(&c.digest) && r.stderr.contains(&embedded),
        "{}",
        r.both()
    );
    // A directory that is no corpus at all is refused too.
    let r = run(&[
        "report",
        "diff",
        p(&c.old),
        p(&c.new),
        "--new-corpus",
        p(c._dir.path()),
    ]);
    assert_eq!(r.code, EXIT_USAGE, "{}", r.both());
    assert!(r.stderr.contains("manifest.json"), "{}", r.both());
}

#[test]
fn one_corpus_every_change_is_the_implementations() {
    let dir = TempDir::new("same");
    let (good, bad) = (dir.path().join("good.jsonl"), dir.path().join("bad.jsonl"));
    reference_run(&good);
    // An implementation that rejects everything: every valid case becomes a false reject.
    let r = run(&[
        "run",
        "--include",
        INCLUDE,
        "--out",
        p(&bad),
        "--",
        "sh",
        "-c",
        "exit 1",
        "x",
    ]);
    assert_eq!(r.code, EXIT_INVALID, "{}", r.both());
    let json = run(&["report", "diff", p(&good), p(&bad), "--format", "json"]);
    assert_eq!(json.code, EXIT_INVALID, "{}", json.both());
    let causes = causes(&json.stdout);
    assert!(!causes.is_empty());
    assert!(
        causes.iter().all(|(_, c)| c == "implementation"),
        "{causes:?}"
    );
    let text = run(&["report", "diff", p(&good), p(&bad)]);
    assert!(
        text.stdout.contains(&format!(
            "same corpus: {} differences from the implementation",
            causes.len()
        )),
        "{}",
        text.both()
    );
    assert!(text.stderr.is_empty(), "{}", text.both());
}

#[test]
fn diff_formats_and_options_are_checked() {
    let dir = TempDir::new("formats");
    let results = dir.path().join("r.jsonl");
    reference_run(&results);
    for format in ["html", "junit", "badge"] {
        let r = run(&[
            "report",
            "diff",
            p(&results),
            p(&results),
            "--format",
            format,
        ]);
        assert_eq!(r.code, EXIT_USAGE, "{format}: {}", r.both());
        assert!(
            r.stderr.contains("[possible values: text, json, markdown]")
                && r.stderr.contains(format),
            "{}",
            r.both()
        );
    }
    // The diff's corpus options are not for one file: `report diff` is a command of its own.
    let r = run(&["report", p(&results), "--old-corpus", p(dir.path())]);
    assert_eq!(r.code, EXIT_USAGE, "{}", r.both());
    assert!(
        r.stderr.contains("unexpected argument '--old-corpus'"),
        "{}",
        r.both()
    );
}
