//! Adapter files (crates/contract/CONTRACT.md section 12) end to end: `agentconf run --adapter`
//! with small shell scripts as the tools. Every mistake in an adapter is a usage error that names
//! its line; every feature changes what runs as the contract says, in one-shot and persistent
//! mode.

use std::path::PathBuf;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentconf_harness::results::{parse, ResultLine, ResultsFile};
use agentconf_harness::Status;

/// A directory per test, removed on drop.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("agentconf-adapters-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }

    fn write(&self, name: &str, text: &str) -> String {
        std::fs::write(self.path(name), text).unwrap();
        self.path(name)
    }

    /// A shell script (`sh FILE` runs it), its path.
    fn script(&self, name: &str, body: &str) -> String {
        self.write(name, &format!("#!/bin/sh\n{body}\n"))
    }

    /// `agentconf run --adapter` with `text` as the adapter, the results file (if one was
    /// written) and the process output. `rest` is appended (selection, `-- COMMAND`).
    fn run(&self, text: &str, rest: &[&str]) -> (Output, Option<ResultsFile>) {
        let (output, file, _) = self.run_at(text, rest);
        (output, file)
    }

    /// As [`Scratch::run`], with the results file's path.
    fn run_at(&self, text: &str, rest: &[&str]) -> (Output, Option<ResultsFile>, String) {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let adapter = self.write(&format!("adapter-{n}.toml"), text);
        let out = self.path(&format!("results-{n}.jsonl"));
        let mut args = vec!["run", "--adapter", &adapter, "--out", &out];
        args.extend_from_slice(rest);
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(&args)
            .output()
            .unwrap();
        let file = std::fs::read_to_string(&out)
            .ok()
            .map(|text| parse(&text).unwrap());
        (output, file, out)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn line<'a>(file: &'a ResultsFile, id: &str) -> &'a ResultLine {
    file.results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} did not run"))
}

/// The rest of a run whose adapter is refused before anything runs: a small selection and a
/// command that would pass it.
const REFUSED_BEFORE_RUNNING: &[&str] = &[
    "--include",
    "aer1/workflow/valid",
    "--",
    "sh",
    "-c",
    "exit 0",
];

/// Each mistake is refused before anything runs (exit 2, no results file), with a one-line
/// message naming the line of the adapter file and what is wrong there.
#[test]
fn adapter_mistakes_are_errors_naming_their_line() {
    let scratch = Scratch::new("mistakes");
    let cases: &[(&str, &str, usize, &[&str])] = &[
        (
            "an unknown placeholder",
            "[operations.aer1-workflow]\nargv = [\"check\",\n  \"{file}\"]\n",
            3,
            &["{file}", "aer1-workflow", "{workflow}"],
        ),
        (
            "a misspelt operation table",
            "name = \"x\"\n\n[operations.aer1-timelines]\nargv = [\"{revision}\", \"{timeline}\"]\n",
            3,
            &[
                "aer1-timelines",
                "aer1-receipt, aer1-timeline, aer1-workflow, grp-admit",
            ],
        ),
        (
            "a receipt template without {tier}",
            "[operations.aer1-receipt]\nargv = [\"check\", \"{receipt}\"]\n",
            2,
            &["{tier}", "tiers = [\"core\"]"],
        ),
        (
            "a timeline template without {revision}",
            "[operations.aer1-timeline]\nargv = [\"check\", \"{timeline}\"]\n",
            2,
            &["{revision}", "revisions = [\"09\"]"],
        ),
        (
            "a template without its input file",
            "[operations.aer1-workflow]\nargv = [\"check\"]\n",
            2,
            &["{workflow}"],
        ),
        (
            "tiers without {tier} that the tool could not tell apart",
            "[operations.aer1-receipt]\nargv = [\"check\", \"{receipt}\"]\ntiers = [\"core\", \"strict\"]\n",
            2,
            &["{tier}", "core, strict"],
        ),
        (
            "an unknown tier",
            "[operations.aer1-receipt]\ntiers = [\"core\",\n  \"loose\"]\n",
            3,
            &["loose", "core, strict, anchored, profile"],
        ),
        (
            "a key another operation takes",
            "[operations.aer1-workflow]\nrevisions = [\"09\"]\n",
            2,
            &["revisions", "aer1-workflow"],
        ),
        (
            "a template for grp-admit",
            "[operations.grp-admit]\nargv = [\"{revision}\"]\n",
            2,
            &["grp-admit", "argv"],
        ),
        (
            "an unsupported operation with a template",
            "[operations.aer1-workflow]\nunsupported = true\nargv = [\"{workflow}\"]\n",
            2,
            &["unsupported", "argv"],
        ),
        (
            "a skip glob that matches nothing",
            "[[skip]]\nglob = \"aer1/timeline/hostlie/*\"\nreason = \"typo\"\n",
            2,
            &["aer1/timeline/hostlie/*", "matches no case"],
        ),
        (
            "a skip id that names no case",
            "\n[[skip]]\nid = \"aer1/timeline/hostile/no-such\"\nreason = \"x\"\n",
            3,
            &["aer1/timeline/hostile/no-such"],
        ),
        (
            "a glob as an expected failure",
            "[[xfail]]\nid = \"aer1/timeline/hostile/*\"\nreason = \"x\"\n",
            2,
            &["aer1/timeline/hostile/*", "exact"],
        ),
        (
            "an expected failure that a glob skips",
            "[[skip]]\nglob = \"aer1/timeline/hostile/*\"\nreason = \"x\"\n\
             [[xfail]]\nid = \"aer1/timeline/hostile/empty-file\"\nreason = \"y\"\n",
            5,
            &["aer1/timeline/hostile/empty-file", "line 2"],
        ),
        (
            "an error map scoped to an unknown operation",
            "[[error_map]]\npattern = \"x\"\nrule = \"AER1-TL-B64\"\noperation = \"aer1-timelines\"\n",
            4,
            &["aer1-timelines", "aer1-receipt, aer1-timeline, aer1-workflow"],
        ),
        (
            "an empty crash_on_stderr pattern",
            "name = \"x\"\ncrash_on_stderr = [\"Traceback\", \"\"]\n",
            2,
            &["crash_on_stderr", "empty"],
        ),
        (
            "an unknown key",
            "name = \"x\"\ncrash_on_stdout = [\"x\"]\n",
            2,
            &["crash_on_stdout"],
        ),
        (
            "a retired rule id, named with the rules that took its place",
            "[[error_map]]\npattern = \"nil id\"\nrule = \"AER1-RC-ID-NIL\"\n",
            3,
            &["AER1-RC-ID-NIL", "retired", "AER1-RC-ID, AER1-RC-ID-STRICT"],
        ),
        (
            "a receipt rule on workflow output",
            "[[error_map]]\npattern = \"x\"\nrule = \"AER1-RC-B64\"\noperation = \"aer1-workflow\"\n",
            3,
            &["AER1-RC-B64", "aer1-workflow", "aer1-receipt"],
        ),
    ];
    // Every case is tried, and every one that is not refused as it should be is listed.
    let mut wrong = Vec::new();
    for (what, text, at, words) in cases {
        let (out, file) = scratch.run(text, REFUSED_BEFORE_RUNNING);
        let err = stderr(&out);
        let refused = out.status.code() == Some(2) && file.is_none();
        let named = err.contains(&format!("line {at}: ")) && words.iter().all(|w| err.contains(w));
        // One line, no Rust debug formatting.
        let plain =
            err.trim_end().lines().count() == 1 && !err.contains("Some(") && !err.contains("\\\"");
        if !(refused && named && plain) {
            wrong.push(format!("{what}: exit {:?}: {err}", out.status.code()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A receiver for every line of standard input answers "rejected" (a reason the draft does not
/// name), after writing its arguments to `log`.
fn rejecting_receiver(scratch: &Scratch, log: &str) -> String {
    scratch.script(
        "receiver.sh",
        &format!(
            r#"echo "$@" >> {log}
while IFS= read -r line; do
  echo '{{"event_id":null,"publisher_id":null,"outcome":"rejected","ale":"ALE-064","rejection_reason":"malformed_event","rule":null}}'
done"#
        ),
    )
}

/// The adapter's command starts GRP receivers too (in the contract's argument order), and a
/// `revisions` declaration on grp-admit makes the other revision's scenarios unsupported.
#[test]
fn the_adapter_command_runs_grp_receivers() {
    let scratch = Scratch::new("grp");
    let log = scratch.path("calls.log");
    let receiver = rejecting_receiver(&scratch, &log);
    let adapter =
        format!("command = [\"sh\", \"{receiver}\"]\nprofiles = [\"durable\", \"atomic\"]\n");
    let select = ["--include", "grp/admission/duplicate-event"];
    // A receiver that ran and answered: graded on its decisions (most scenarios expect an
    // admission; its null event_id is a protocol error where the line has one), never a crash.
    let answered = |r: &ResultLine| {
        matches!(r.status, Status::FalseReject | Status::WrongReason)
            || (r.status == Status::ProtocolError && r.detail.contains("event_id null"))
    };
    let (out, file) = scratch.run(&adapter, &select);
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    for r in &file.results {
        assert!(answered(r), "{}: {:?} {}", r.id, r.status, r.detail);
    }
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(calls.lines().count() >= file.results.len(), "{calls}");
    for call in calls.lines() {
        let words: Vec<&str> = call.split(' ').collect();
        assert!(
            words[0] == "grp-admit" && ["00", "01"].contains(&words[1]),
            "{call}"
        );
        assert!(
            words[2].ends_with(".json") && words[3].contains("agentconf-grp-state-"),
            "{call}"
        );
    }

    std::fs::remove_file(&log).unwrap();
    let (out, file) = scratch.run(
        &format!("{adapter}[operations.grp-admit]\nrevisions = [\"01\"]\n"),
        &select,
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    let mut ran = 0;
    for r in &file.results {
        if r.revision.as_deref() == Some("01") {
            assert!(answered(r), "{}: {:?} {}", r.id, r.status, r.detail);
            ran += 1;
        } else {
            assert_eq!(r.status, Status::OutOfScope, "{}: {}", r.id, r.detail);
            assert!(r.detail.contains("revisions 01"), "{}", r.detail);
        }
    }
    assert!(ran > 0 && ran < file.results.len());
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        calls.lines().all(|c| c.starts_with("grp-admit 01 ")),
        "{calls}"
    );
}

/// A tool that logs its arguments and accepts everything.
fn logging_tool(scratch: &Scratch, log: &str) -> String {
    scratch.script("tool.sh", &format!("echo \"$@\" >> {log}\nexit 0"))
}

/// `unsupported = true` reports an operation's cases unsupported without running the tool.
#[test]
fn operations_declared_unsupported_are_not_run() {
    let scratch = Scratch::new("unsupported");
    let log = scratch.path("calls.log");
    let tool = logging_tool(&scratch, &log);
    let (out, file) = scratch.run(
        &format!("command = [\"sh\", \"{tool}\"]\n[operations.aer1-receipt]\nunsupported = true\n"),
        &[
            "--include",
            "aer1/receipt/valid",
            "--include",
            "aer1/workflow/valid",
        ],
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    for r in &file.results {
        if r.id.starts_with("aer1/receipt/") {
            assert_eq!(r.status, Status::OutOfScope, "{}", r.id);
            assert!(r.detail.contains("aer1-receipt"), "{}", r.detail);
        } else {
            assert_eq!(r.status, Status::Pass, "{}: {}", r.id, r.detail);
        }
    }
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(!calls.contains("aer1-receipt"), "{calls}");
    assert!(calls.contains("aer1-workflow"), "{calls}");
}

/// A template that leaves out `{tier}` or `{revision}` declares the one value the tool takes;
/// cases needing another (and commitments, with no `argv_with_commitment`) are unsupported and
/// never run as something else.
#[test]
fn a_template_runs_only_the_tiers_and_revisions_it_declares() {
    let scratch = Scratch::new("declared");
    let log = scratch.path("calls.log");
    let tool = logging_tool(&scratch, &log);
    let (out, file) = scratch.run(
        &format!(
            "command = [\"sh\", \"{tool}\"]\n\
             [operations.aer1-receipt]\nargv = [\"rc\", \"{{receipt}}\"]\ntiers = [\"core\"]\n\
             [operations.aer1-timeline]\nargv = [\"tl\", \"{{timeline}}\"]\nrevisions = [\"09\"]\n"
        ),
        &[
            "--include",
            "aer1/receipt/anchored",
            "--include",
            "aer1/timeline/revision06",
            "--include",
            "aer1/timeline/reclosed",
        ],
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    let corpus = agentconf_corpus::corpus();
    let mut ran = 0;
    for r in &file.results {
        let v = corpus
            .iter()
            .find(|v| r.id.split('@').next() == Some(v.id.as_str()))
            .unwrap();
        let tier = v.options.tier().as_str();
        let commitment = v.inputs.iter().any(|i| i.role == "commitment");
        let runs = tier == "core" && r.revision.as_deref() != Some("06") && !commitment;
        if runs {
            assert_ne!(r.status, Status::OutOfScope, "{}: {}", r.id, r.detail);
            ran += 1;
        } else {
            assert_eq!(r.status, Status::OutOfScope, "{}: {}", r.id, r.detail);
        }
    }
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(calls.lines().count(), ran, "{calls}");
    assert!(ran > 0 && ran < file.results.len());
    // The declared value is named where a case is turned away.
    assert!(file
        .results
        .iter()
        .any(|r| r.detail.contains("tiers") && r.detail.contains("anchored")));
}

/// An adapter written for the tiers before agentconf 0.2.0 (`{id_tier}`) is never sent
/// `anchored` or `profile`: those cases are unsupported, the others run with their tier.
#[test]
fn an_id_tier_template_is_never_sent_anchored_or_profile() {
    let scratch = Scratch::new("id-tier");
    let log = scratch.path("tiers.log");
    // The tier is the fourth argument of the template.
    let tool = scratch.script("tool.sh", &format!("echo \"$4\" >> {log}\nexit 0"));
    let (out, file) = scratch.run(
        &format!(
            "command = [\"sh\", \"{tool}\"]\n\
             [operations.aer1-receipt]\nargv = [\"rc\", \"{{receipt}}\", \"--tier\", \"{{id_tier}}\"]\n"
        ),
        &[
            "--include",
            "aer1/receipt/anchored",
            "--include",
            "aer1/receipt/profile",
        ],
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    let corpus = agentconf_corpus::corpus();
    let mut sent = Vec::new();
    for r in &file.results {
        let v = corpus.iter().find(|v| v.id == r.id).unwrap();
        let tier = v.options.tier().as_str();
        if matches!(tier, "core" | "strict") {
            assert_ne!(r.status, Status::OutOfScope, "{}: {}", r.id, r.detail);
            sent.push(tier);
        } else {
            assert_eq!(r.status, Status::OutOfScope, "{}: {}", r.id, r.detail);
            assert!(r.detail.contains("{id_tier}"), "{}", r.detail);
        }
    }
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let mut received: Vec<&str> = calls.lines().collect();
    received.sort_unstable();
    sent.sort_unstable();
    // Both kinds are in the selection: some cases ran, and some were turned away.
    assert!(!sent.is_empty() && sent.len() < file.results.len());
    assert_eq!(received, sent, "{calls}");
}

/// Every mistake of an adapter file is named in one run, each on a line of its own with its
/// line number, in the order of the file.
#[test]
fn every_mistake_of_an_adapter_is_named_at_once() {
    let scratch = Scratch::new("all-mistakes");
    let (out, file) = scratch.run(
        "profiles = [\"fast\"]\n\
         [operations.aer1-workflow]\nargv = [\"check\", \"{file}\"]\n\
         [[error_map]]\npattern = \"x\"\nrule = \"AER1-WF-FORMAT\"\n\
         [[skip]]\nglob = \"aer1/timeline/hostlie/*\"\nreason = \"typo\"\n",
        REFUSED_BEFORE_RUNNING,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(file.is_none());
    let lines: Vec<&str> = err.lines().collect();
    let expected = [
        ("line 1: ", "fast"),
        ("line 3: ", "{file}"),
        ("line 6: ", "AER1-WF-MEMBERS"),
        ("line 8: ", "hostlie"),
    ];
    assert_eq!(lines.len(), expected.len(), "{err}");
    for (line, (at, word)) in lines.iter().zip(expected) {
        assert!(
            line.starts_with("agentconf: ") && line.contains(at) && line.contains(word),
            "{line}"
        );
    }
    assert!(lines[3].contains("4 mistakes"), "{err}");
}

/// A verifier that dies with a Python traceback and exit 1 has not rejected anything: with a
/// `crash_on_stderr` pattern that case is a crash, with the pattern named.
#[test]
fn crash_on_stderr_patterns_grade_a_crash() {
    let scratch = Scratch::new("crash");
    let dying = scratch.script(
        "dying.sh",
        "echo 'Traceback (most recent call last):' >&2\n\
         echo '  File \"verify.py\", line 3, in <module>' >&2\n\
         echo 'KeyError: steps' >&2\nexit 1",
    );
    let select = ["--include", "aer1/workflow/structure", "--", "sh", &dying];
    // Without the pattern, every invalid vector is a correct rejection.
    let (_, file) = scratch.run("name = \"without\"\n", &select);
    let file = file.unwrap();
    assert!(file.results.iter().any(|r| r.status == Status::Pass));
    let (out, file) = scratch.run(
        "crash_on_stderr = [\"Traceback (most recent call last)\"]\n",
        &select,
    );
    assert_eq!(out.status.code(), Some(1));
    let file = file.unwrap();
    for r in &file.results {
        assert_eq!(r.status, Status::Crash, "{}", r.id);
        assert!(
            r.detail.contains("Traceback (most recent call last)")
                && r.detail.contains("crash_on_stderr"),
            "{}",
            r.detail
        );
    }
}

/// One message, two rules: scoped by operation, each suite gets its own.
#[test]
fn error_maps_can_be_scoped_to_an_operation() {
    let scratch = Scratch::new("error-map");
    let tool = scratch.script(
        "b64.sh",
        "echo 'canonical_bytes is not valid base64' >&2\nexit 1",
    );
    let (out, file) = scratch.run(
        &format!(
            "command = [\"sh\", \"{tool}\"]\n\
             [[error_map]]\npattern = \"not valid base64\"\nrule = \"AER1-RC-B64\"\noperation = \"aer1-receipt\"\n\
             [[error_map]]\npattern = \"not valid base64\"\nrule = \"AER1-TL-B64\"\noperation = \"aer1-timeline\"\n"
        ),
        &[
            "--include",
            "aer1/receipt/structure/canonical-bytes-unpadded",
            "--include",
            "aer1/timeline/structure/b64-leading-space-on-last-entry",
        ],
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    let receipt = line(&file, "aer1/receipt/structure/canonical-bytes-unpadded");
    assert_eq!(receipt.status, Status::Pass);
    assert!(
        receipt.detail.contains("AER1-RC-B64") && !receipt.detail.contains("AER1-TL-B64"),
        "{}",
        receipt.detail
    );
    let timeline = line(
        &file,
        "aer1/timeline/structure/b64-leading-space-on-last-entry",
    );
    assert_eq!(timeline.status, Status::Pass);
    assert!(
        timeline.detail.contains("AER1-TL-B64") && !timeline.detail.contains("AER1-RC-B64"),
        "{}",
        timeline.detail
    );
}

/// A glob skips every case it matches, with its reason; the rest run.
#[test]
fn skips_by_glob() {
    let scratch = Scratch::new("glob");
    let (out, file) = scratch.run(
        "[[skip]]\nglob = \"aer1/timeline/hostile/*\"\nreason = \"the tool's JSON parser is out of scope\"\n",
        &[
            "--include",
            "aer1/timeline/hostile",
            "--include",
            "aer1/timeline/valid",
            "--",
            "sh",
            "-c",
            "exit 1",
        ],
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    let mut skipped = 0;
    for r in &file.results {
        if r.id.starts_with("aer1/timeline/hostile/") {
            assert_eq!(r.status, Status::Skip, "{}", r.id);
            assert!(r.detail.contains("out of scope"), "{}", r.detail);
            skipped += 1;
        } else {
            assert_ne!(r.status, Status::Skip, "{}", r.id);
        }
    }
    assert!(skipped > 10);
}

/// In persistent mode the adapter names the server's command and what applies to any
/// implementation (profiles, skips, declared support, expected failures, crash patterns); parts
/// that shape a one-shot call are refused with their line.
#[test]
fn persistent_mode_takes_the_adapter_parts_that_apply() {
    let scratch = Scratch::new("persistent");
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let adapter = format!(
        "name = \"the reference server\"\ncommand = [\"{bin}\", \"impl\"]\n\
         profiles = [\"durable\", \"atomic\"]\n\
         crash_on_stderr = [\"Traceback (most recent call last)\"]\n\
         [operations.aer1-workflow]\nunsupported = true\n\
         [operations.grp-admit]\nrevisions = [\"01\"]\n\
         [[skip]]\nglob = \"aer1/timeline/hostile/*\"\nreason = \"demonstrates a skip\"\n"
    );
    let (out, file) = scratch.run(
        &adapter,
        &[
            "--persistent",
            "--include",
            "aer1/workflow/valid",
            "--include",
            "aer1/timeline/hostile",
            "--include",
            "aer1/timeline/valid",
            "--include",
            "grp/admission/duplicate-event",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let file = file.unwrap();
    assert_eq!(
        file.header
            .implementation
            .declared
            .as_ref()
            .map(|d| d.name.as_str()),
        Some("agentconf-reference")
    );
    for r in &file.results {
        let want = if r.id.starts_with("aer1/workflow/") {
            Status::OutOfScope
        } else if r.id.starts_with("aer1/timeline/hostile/") {
            Status::Skip
        } else if r.id.starts_with("grp/") && r.revision.as_deref() != Some("01") {
            Status::OutOfScope
        } else {
            Status::Pass
        };
        assert_eq!(r.status, want, "{}: {}", r.id, r.detail);
    }
    assert!(file
        .results
        .iter()
        .any(|r| r.id.starts_with("grp/") && r.status == Status::Pass));

    // What shapes a one-shot call does not reach a server: refused, with its line.
    for (part, at) in [
        (
            "[operations.aer1-timeline]\nargv = [\"{revision}\", \"{timeline}\"]\n",
            10,
        ),
        ("[exit_codes]\n0 = \"accept\"\n", 9),
        (
            "[[error_map]]\npattern = \"x\"\nrule = \"AER1-TL-B64\"\n",
            9,
        ),
    ] {
        let text = adapter.replace("[[skip]]", &format!("{part}[[skip]]"));
        let (out, file) = scratch.run(&text, &["--persistent", "--include", "aer1/workflow"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(file.is_none());
        assert!(
            err.contains("--persistent") && err.contains(&format!("line {at}: ")),
            "{part}: {err}"
        );
    }

    // A server that logs a traceback before it answers: a crash, unless listed as expected.
    let server = scratch.script(
        "server.sh",
        r#"while IFS= read -r line; do
  case "$line" in
    *'"cmd":"start"'*) echo '{"protocol":1,"implementation":{"name":"py","version":"0"},"capabilities":{"operations":["aer1-receipt","aer1-timeline","aer1-workflow"]}}' ;;
    *'"cmd":"stop"'*) echo '{"stopped":true}'; exit 0 ;;
    *) seq=$(printf '%s\n' "$line" | sed 's/.*"seq":\([0-9]*\).*/\1/')
       echo 'Traceback (most recent call last):' >&2
       # Give the harness's standard-error reader time to take the line before the answer.
       sleep 0.3
       echo "{\"seq\":$seq,\"exit\":1}" ;;
  esac
done"#,
    );
    let (out, file) = scratch.run(
        &format!(
            "command = [\"sh\", \"{server}\"]\n\
             crash_on_stderr = [\"Traceback (most recent call last)\"]\n\
             [[xfail]]\nid = \"aer1/workflow/valid/three-steps\"\nreason = \"known crash\"\n"
        ),
        &["--persistent", "--include", "aer1/workflow/valid"],
    );
    let file = file.unwrap_or_else(|| panic!("{}", stderr(&out)));
    for r in &file.results {
        let want = if r.id == "aer1/workflow/valid/three-steps" {
            Status::Xfail
        } else {
            Status::Crash
        };
        assert_eq!(r.status, want, "{}: {}", r.id, r.detail);
        assert!(r.detail.contains("crash_on_stderr"), "{}", r.detail);
    }
}

/// `agentconf` with `args`, its output.
fn agentconf(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .output()
        .unwrap()
}

/// The per-rule status `report` prints for `rule` (the text table's first column).
fn rule_status<'a>(report: &'a str, rule: &str) -> Option<&'a str> {
    report
        .lines()
        .find(|l| l.split_whitespace().nth(3) == Some(rule))
        .and_then(|l| l.split_whitespace().next())
}

/// A revision-09 timeline verifier (the reference behind a wrapper that answers 89 to everything
/// else: revision 06, commitments, other operations). Undeclared, its 89s are unsupported cases
/// of its rules, which stay `partial`; with an adapter that declares its scope (`implements`,
/// `revisions`, `commitments = false`) they are out of scope, its chain rules are `pass`, and
/// `report --require in-scope` guards its level (exit 0), while `known-failures` and `conforms`
/// do not hold (exit 1). A case it gets wrong inside the scope fails the level.
#[test]
fn a_timeline_only_verifier_passes_its_rules_in_its_declared_scope() {
    let s = Scratch::new("in-scope");
    let wrapper = s.script(
        "verifier.sh",
        &format!(
            "[ \"$1\" = aer1-timeline ] || exit 89\n[ \"$2\" = 06 ] && exit 89\n\
             [ -n \"$4\" ] && exit 89\nexec {} impl \"$@\"",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let chain_rules = [
        "AER1-TL-LINK",
        "AER1-TL-GENESIS",
        "AER1-TL-SEQ",
        "AER1-TL-JOB",
        "AER1-TL-CLOSE-LAST",
    ];
    let report = |results: &str, level: &str| {
        let o = agentconf(&["report", results, "--require", level]);
        (o.status.code(), stdout(&o))
    };

    // Undeclared: exit 89 is the implementation's answer inside the scope.
    let undeclared = s.path("undeclared.jsonl");
    let o = agentconf(&["run", "--out", &undeclared, "--", "sh", &wrapper]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (code, text) = report(&undeclared, "in-scope");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("scope: every case of the corpus"), "{text}");
    assert_eq!(
        rule_status(&text, "AER1-TL-LINK"),
        Some("partial"),
        "{text}"
    );

    // Declared: the same answers, the other cases out of scope.
    let adapter = format!(
        "command = [\"sh\", \"{wrapper}\"]\nimplements = [\"aer1-timeline\"]\nrevisions = [\"09\"]\n\
         [operations.aer1-timeline]\ncommitments = false\n"
    );
    let (o, file, results) = s.run_at(&adapter, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let file = file.unwrap();
    assert!(file.results.iter().any(|r| r.status == Status::OutOfScope));
    assert!(!file.results.iter().any(|r| r.status == Status::Unsupported));
    let (code, text) = report(&results, "in-scope");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.starts_with("agentconf conformance report: PARTIAL\n"),
        "{text}"
    );
    assert!(
        text.contains("  scope: as the adapter declares it, aer1-timeline (revision 09); "),
        "{text}"
    );
    for rule in chain_rules {
        assert_eq!(rule_status(&text, rule), Some("pass"), "{rule}: {text}");
    }
    assert_eq!(report(&results, "known-failures").0, Some(1));
    assert_eq!(report(&results, "conforms").0, Some(1));
    assert_eq!(report(&results, "partial").0, Some(0));

    // Wrong on one case inside the scope: FAIL, and the level does not hold.
    let wrong = s.script(
        "wrong.sh",
        &format!(
            "[ \"$1\" = aer1-timeline ] || exit 89\n[ \"$2\" = 06 ] && exit 89\n\
             [ -n \"$4\" ] && exit 89\ncase \"$3\" in *seq-gap*) exit 0 ;; esac\n\
             exec {} impl \"$@\"",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let (_, file) = s.run(
        &adapter.replace(&wrapper, &wrong),
        &["--include", "aer1/timeline/"],
    );
    let file = file.unwrap();
    assert!(
        file.results
            .iter()
            .any(|r| r.status.name() == "false-accept"),
        "the wrapper accepts a chain with seq 7: {:?}",
        file.results.iter().map(|r| r.status).collect::<Vec<_>>()
    );
}

/// `run --emit-xfail F` then `run --xfail F`: the run's failures become known failures, the
/// verdict CONFORMS WITH N KNOWN FAILURES (here, with a filter, PARTIAL with every failure
/// known), and an entry that starts to pass fails the run (xpass), as in an adapter.
#[test]
fn emit_xfail_then_xfail_reads_the_same_list() {
    let s = Scratch::new("xfail-file");
    // Rejects every timeline: the valid ones fail (false reject).
    let rejects = s.script("rejects.sh", "exit 1");
    let list = s.path("xfail.toml");
    let first = s.path("first.jsonl");
    let args = |out: &str, flag: &str| {
        vec![
            "run".to_string(),
            "--include".into(),
            "aer1/timeline/valid/".into(),
            "--out".into(),
            out.to_string(),
            flag.to_string(),
            list.clone(),
            "--".into(),
            "sh".into(),
            rejects.clone(),
        ]
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        agentconf(&a)
    };
    let o = run(args(&first, "--emit-xfail"));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let written = std::fs::read_to_string(&list).unwrap();
    let entries = written.matches("[[xfail]]").count();
    assert!(entries > 0, "{written}");
    let second = s.path("second.jsonl");
    let o = run(args(&second, "--xfail"));
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let file = parse(&std::fs::read_to_string(&second).unwrap()).unwrap();
    let known = file
        .results
        .iter()
        .filter(|r| r.status == Status::Xfail)
        .count();
    assert_eq!(known, entries);
    assert!(file.header.xfail_digest.is_some());
    // The same entries pasted into an adapter: the same statuses.
    let adapter = format!("command = [\"sh\", \"{rejects}\"]\n{written}");
    let (_, pasted) = s.run(&adapter, &["--include", "aer1/timeline/valid/"]);
    let statuses = |f: &ResultsFile| f.results.iter().map(|r| r.status).collect::<Vec<_>>();
    assert_eq!(statuses(&pasted.unwrap()), statuses(&file));
    // Strict: an implementation that now passes them fails the run with xpass.
    let third = s.path("third.jsonl");
    let o = agentconf(&[
        "run",
        "--include",
        "aer1/timeline/valid/",
        "--out",
        &third,
        "--xfail",
        &list,
        "--implementation",
        "reference-process",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("xpass"), "{}", stdout(&o));
    // The reference in process takes the list too.
    let fourth = s.path("fourth.jsonl");
    let o = agentconf(&[
        "run",
        "--include",
        "aer1/timeline/valid/",
        "--out",
        &fourth,
        "--xfail",
        &list,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // A file that is not an expected-failures list is refused, naming its line.
    let bad = s.write(
        "bad.toml",
        "[[xfail]]\nid = \"aer1/timeline/valid/nope\"\nreason = \"r\"\n",
    );
    let o = agentconf(&[
        "run",
        "--out",
        &s.path("bad.jsonl"),
        "--xfail",
        &bad,
        "--",
        "sh",
        &rejects,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 2") && stderr(&o).contains("names no case"),
        "{}",
        stderr(&o)
    );
}

/// `smoke --adapter FILE` runs the adapter's command and needs none after `--`; both at once
/// are refused, as `run` refuses them.
#[test]
fn smoke_runs_the_adapters_command() {
    let s = Scratch::new("smoke-adapter");
    let adapter = s.write(
        "a.toml",
        &format!(
            "command = [\"{}\", \"impl\"]\nimplements = [\"aer1-timeline\"]\n",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let o = agentconf(&["smoke", "--adapter", &adapter]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("the wrapper works"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("out of the adapter's declared scope"),
        "{}",
        stdout(&o)
    );
    let o = agentconf(&["smoke", "--adapter", &adapter, "--", "sh", "-c", "exit 0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give one"), "{}", stderr(&o));
    let o = agentconf(&["smoke"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--adapter FILE"), "{}", stderr(&o));
}

/// A wrapper that cannot start its implementation: the diagnosis shows the first lines of the
/// implementation's own standard error, made safe for a terminal, in lines of at most 80
/// columns off a terminal.
#[test]
fn a_broken_wrapper_shows_its_stderr() {
    let s = Scratch::new("broken-stderr");
    let missing = s.path("nonexistent.py");
    let o = agentconf(&["smoke", "--", "python3", &missing]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("Its standard error began:"), "{out}");
    assert!(out.contains("can't open file"), "{out}");
    for line in out.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    // A hostile one reaches no terminal as it is.
    let hostile = s.script(
        "hostile.sh",
        "printf 'boom \\033]52;c;aGk=\\007 \\342\\200\\256rev\\n' >&2\nexit 7",
    );
    let o = agentconf(&["smoke", "--", "sh", &hostile]);
    let out = stdout(&o);
    assert!(out.contains("boom \\u{1b}]52;c;aGk=\\u{7}"), "{out}");
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202e}'),
        "{out}"
    );
}

/// A mistyped subcommand gets a suggestion.
#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    let o = agentconf(&["rnu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("similar subcommand exists: 'run'"),
        "{}",
        stderr(&o)
    );
}

/// What independent verifiers report for four vectors, graded as the corpus says: a non-boolean
/// close on an inner entry with the link after it (the kit digests close as written), and the
/// seq swaps with the root (the order the root is taken in is open once seq is broken), pass;
/// a rule no reading allows is still a wrong reason.
#[test]
fn the_readings_independent_verifiers_share_pass() {
    let s = Scratch::new("readings");
    let answer = |rules: &str| {
        format!("echo '{{\"verdict\":\"invalid\",\"rules\":[{rules}],\"messages\":[]}}'; exit 1")
    };
    let verifier = s.script(
        "verifier.sh",
        &format!(
            "case \"$3\" in *close-null-middle*|*close-string-true-middle*) {};; esac\n\
             case \"$2\" in *seq-swapped*|*seq-values-exchanged*) {};; esac\n\
             case \"$3\" in *close-false-on-last*) {};; esac\n\
             exec {} impl \"$@\"",
            answer("\"AER1-TL-CLOSE-TYPE\",\"AER1-TL-LINK\""),
            answer("\"AER1-WF-SEQ\",\"AER1-WF-ROOT\""),
            answer("\"AER1-TL-CLOSE-LAST\",\"AER1-TL-LINK\""),
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let out = s.path("r.jsonl");
    let o = agentconf(&[
        "run",
        "--include",
        "aer1/timeline/structure/close-",
        "--include",
        "aer1/workflow/structure/seq-",
        "--out",
        &out,
        "--",
        "sh",
        &verifier,
    ]);
    let file = parse(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for id in [
        "aer1/timeline/structure/close-null-middle-entry",
        "aer1/timeline/structure/close-string-true-middle-entry",
        "aer1/workflow/structure/seq-swapped",
        "aer1/workflow/structure/seq-values-exchanged",
    ] {
        let l = line(&file, id);
        assert_eq!(l.status, Status::Pass, "{id}: {}", l.detail);
    }
    // The link beside close-last is no reading of that vector: a wrong reason.
    assert_eq!(
        line(&file, "aer1/timeline/structure/close-false-on-last-entry").status,
        Status::WrongReason
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}
