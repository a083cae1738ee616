//! The `agentconf` command line as a contract: exit codes, the JSON a harness reads, the text a
//! person reads, standard input, determinism, and robustness against closed pipes.
//!
//! Exit codes: 0 valid, 1 invalid (including malformed input content), 2 usage error or
//! unreadable input. Every run made here also asserts that the process did not panic.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use agentconf_aer1::digest::sha256;
use agentconf_aer1::formats::{decode_base64_into, encode_base64};
use agentconf_aer1::hex;
use agentconf_aer1::producer::{example_chain, timeline_json};
use agentconf_aer1::Revision;
use agentconf_rules::Rule;
use serde_json::{json, Value};

#[path = "../../aer1/tests/support/worked_workflow.rs"]
mod worked_workflow;

// ---------------------------------------------------------------------------------------------
// Published values (draft-zambo-aer1 revision 09, example v07-valid-5; workflow example of §8).
// ---------------------------------------------------------------------------------------------

const V07_DIGESTS: [&str; 5] = [
    "380d45c6575bdb648e5723adee5a049ff212574d4c6d5dd8ad4cabcc54b6aa56",
    "c225aa2256e7984575f5a664b690f2b06c86abddc528def6164fb1bbb0aa4cba",
    "4c56c96378cea5939ad61d082fff24d075649ca888b0c61308307d14034a204a",
    "5dd618b1b3b904a92261bb747f8c4511b0882e1454fc41f20a59fa5bd0ded778",
    "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0",
];
const V07_FINAL: &str = "79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0";
const V07_PREIMAGE_0: &str = r#"{"close":false,"id":"r-job-7a1f-0","job_id":"job-7a1f","output_hash":"0b6bce531a75c95378d96b13e36ee5c2ba0e98c696506d2f3c9a75b565d7f705","prev_digest":"0000000000000000000000000000000000000000000000000000000000000000","provenance_class":"LOGGED BY AGENT","seq":1,"tool":"price_lookup"}"#;
const V07_COMMITMENT: &str = r#"{"job_id":"job-7a1f","final_entry_digest":"79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0","entry_count":5,"published_at":"2026-10-01T18:30:00Z"}"#;
const PUBLISHED_AT: &str = "2026-10-01T18:30:00Z";

// The worked workflow example of §8 (its step ids also serve as receipt ids here).
use worked_workflow::{ROOT_5 as WORKFLOW_ROOT, STEP_IDS as WORKFLOW_IDS};

/// The worked receipt value of §1: base64 of `{"inputs":{},"outputs":{"x":123},"tool":"t"}`.
const RECEIPT_B64: &str = "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=";
const RECEIPT_HASH: &str =
    "sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50";

const EXIT_VALID: i32 = 0;
const EXIT_INVALID: i32 = 1;
const EXIT_USAGE: i32 = 2;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../aer1/testdata")
        .join(name)
}

fn v07_path() -> PathBuf {
    testdata("v07-valid-5.json")
}

fn v07_commitment_path() -> PathBuf {
    testdata("v07-valid-5.commitment.json")
}

fn v07_text() -> String {
    std::fs::read_to_string(v07_path()).expect("testdata v07-valid-5.json")
}

fn v07_entries() -> Vec<Value> {
    match serde_json::from_str(&v07_text()).expect("v07-valid-5.json is JSON") {
        Value::Array(entries) => entries,
        other => panic!("v07-valid-5.json is not an array: {other}"),
    }
}

/// A fresh directory per test, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "agentconf-cli-test-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).expect("write temp file");
        path
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    what: String,
}

impl Run {
    fn out(&self) -> String {
        String::from_utf8(self.stdout.clone())
            .unwrap_or_else(|e| panic!("{}: stdout is not UTF-8: {e}", self.what))
    }

    fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            code,
            "{}: exit code\nstdout:\n{}\nstderr:\n{}",
            self.what,
            String::from_utf8_lossy(&self.stdout),
            self.stderr
        );
        self
    }

    /// Exactly one line of JSON on standard output, parsed.
    fn json(&self) -> Value {
        let out = self.out();
        assert!(
            out.ends_with('\n') && out.matches('\n').count() == 1,
            "{}: expected exactly one line of JSON on stdout, got {out:?}",
            self.what
        );
        serde_json::from_str(out.trim_end())
            .unwrap_or_else(|e| panic!("{}: stdout is not JSON ({e}): {out}", self.what))
    }
}

fn describe<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    format!("agentconf {}", parts.join(" "))
}

/// Runs the binary, feeding `stdin` (or nothing), and asserts it did not panic.
fn run_with<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: Option<&[u8]>) -> Run {
    let what = describe(args);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: spawn: {e}"));
    let feeder = stdin.map(|bytes| {
        let bytes = bytes.to_vec();
        let mut pipe = child.stdin.take().expect("stdin pipe");
        // Written from a thread so a large input and a large output cannot deadlock; the child
        // may stop reading early, so a write error here is not a test failure.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{what}: wait: {e}"));
    if let Some(f) = feeder {
        f.join().expect("stdin feeder thread");
    }
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let code = output
        .status
        .code()
        .unwrap_or_else(|| panic!("{what}: killed by a signal ({:?})", output.status));
    assert_ne!(
        code, 101,
        "{what}: exit code 101 (a panic); stderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "{what}: stderr mentions a panic:\n{stderr}"
    );
    Run {
        code,
        stdout: output.stdout,
        stderr,
        what,
    }
}

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    run_with(args, None)
}

fn p(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}

/// The fields every `verify timeline --format json` report carries, checked for type.
fn check_timeline_envelope(v: &Value) {
    assert_eq!(v["tool"], "agentconf", "{v}");
    assert_eq!(v["draft"], "draft-zambo-aer1", "{v}");
    assert_eq!(v["kind"], "aer1-timeline", "{v}");
    assert!(
        v["verdict"] == "valid" || v["verdict"] == "invalid",
        "verdict: {v}"
    );
    let aer1 = agentconf_rules::draft_revisions::AER1;
    let construction = v["revision"]
        .as_str()
        .and_then(|r| agentconf_rules::Revisions::embedded().construction(aer1, r));
    assert!(construction.is_some(), "revision: {v}");
    assert!(v["historical"].is_boolean(), "historical: {v}");
    assert_eq!(v["historical"], json!(construction == Some("bytes")), "{v}");
    assert!(v["failures_omitted"].is_u64(), "failures_omitted: {v}");
    assert!(v["entry_count"].is_u64(), "entry_count: {v}");
    assert!(
        v.get("final_entry_digest").is_some(),
        "final_entry_digest missing: {v}"
    );
    assert!(
        v["final_entry_digest"].is_null() || v["final_entry_digest"].is_string(),
        "{v}"
    );
    assert!(
        v["truncation_evidence"] == "none" || v["truncation_evidence"] == "commitment-verified",
        "truncation_evidence: {v}"
    );
    check_failures(v);
    let valid = v["verdict"] == "valid";
    let total = v["failures"].as_array().map_or(0, Vec::len) as u64
        + v["failures_omitted"].as_u64().unwrap_or(0);
    assert_eq!(valid, total == 0, "verdict and failures disagree: {v}");
}

/// `failures` is an array of {rule, entry, member, message} with known rule ids.
fn check_failures(v: &Value) {
    let failures = v["failures"]
        .as_array()
        .unwrap_or_else(|| panic!("failures is not an array: {v}"));
    for f in failures {
        let rule = f["rule"]
            .as_str()
            .unwrap_or_else(|| panic!("failure without a rule: {f}"));
        assert!(Rule::from_id(rule).is_some(), "unknown rule id {rule}: {f}");
        assert!(f.get("entry").is_some(), "failure without entry: {f}");
        assert!(
            f["entry"].is_null() || f["entry"].is_u64(),
            "entry is not an index: {f}"
        );
        assert!(f.get("member").is_some(), "failure without member: {f}");
        assert!(f["member"].is_null() || f["member"].is_string(), "{f}");
        assert!(
            f["message"].as_str().is_some_and(|m| !m.is_empty()),
            "failure without a message: {f}"
        );
    }
}

fn rules_of(v: &Value) -> Vec<String> {
    v["failures"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .map(|f| f["rule"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn has_failure(v: &Value, rule: &str, entry: Option<u64>, member: Option<&str>) -> bool {
    v["failures"].as_array().is_some_and(|fs| {
        fs.iter().any(|f| {
            f["rule"] == rule && f["entry"] == json!(entry) && f["member"] == json!(member)
        })
    })
}

fn verify_timeline_json(path: &Path, extra: &[&str]) -> (Run, Value) {
    let mut args = vec!["verify", "timeline", p(path), "--format", "json"];
    args.extend_from_slice(extra);
    let r = run(&args);
    let v = r.json();
    check_timeline_envelope(&v);
    (r, v)
}

fn entries_json(entries: &[Value]) -> String {
    serde_json::to_string(&Value::Array(entries.to_vec())).expect("serialize entries")
}

/// A revision-06 chain built by the reference producer, checked against the revision-06
/// definition independently: each prev_digest is the SHA-256 of the previous entry's bytes.
fn rev06_chain(n: usize) -> String {
    let entries = example_chain("job-06", n, Revision::R06);
    assert_eq!(
        entries[0].prev_digest,
        "0".repeat(64),
        "genesis of the rev-06 chain"
    );
    for i in 1..entries.len() {
        let mut bytes = Vec::new();
        decode_base64_into(&entries[i - 1].canonical_bytes, &mut bytes).expect("producer base64");
        assert_eq!(
            entries[i].prev_digest,
            hex::lower(&sha256(&bytes)),
            "rev-06 link of entry {i}"
        );
    }
    timeline_json(&entries)
}

fn rev09_chain(job: &str, n: usize) -> String {
    let entries = example_chain(job, n, Revision::R09);
    timeline_json(&entries)
}

fn receipt(id: &str) -> Value {
    json!({
        "id": id,
        "receipt_schema_version": "0.3",
        "created_at": "2026-10-01T18:30:00Z",
        "tool": {"name": "t", "version": "1.0", "scope": "read"},
        "provenance_class": "LOGGED BY AGENT",
        "canonical_bytes": RECEIPT_B64,
        "output_hash": RECEIPT_HASH,
        "verification_status": "verified",
    })
}

/// The draft's worked workflow receipt (Section 8).
fn workflow() -> Value {
    serde_json::from_str(worked_workflow::WORKED_WORKFLOW).unwrap()
}

// ---------------------------------------------------------------------------------------------
// verify timeline: JSON
// ---------------------------------------------------------------------------------------------

#[test]
fn timeline_valid_json_without_commitment() {
    let (r, v) = verify_timeline_json(&v07_path(), &[]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["revision"], "09");
    assert_eq!(v["historical"], false);
    assert_eq!(v["entry_count"], 5);
    assert_eq!(v["final_entry_digest"], V07_FINAL);
    assert_eq!(v["truncation_evidence"], "none");
    assert_eq!(v["failures"], json!([]));
    assert_eq!(v["failures_omitted"], 0);
}

#[test]
fn timeline_valid_json_with_matching_commitment() {
    let commitment = v07_commitment_path();
    let (r, v) = verify_timeline_json(&v07_path(), &["--commitment", p(&commitment)]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["final_entry_digest"], V07_FINAL);
    assert_eq!(v["truncation_evidence"], "commitment-verified");
}

#[test]
fn timeline_commitment_that_does_not_match() {
    let dir = TempDir::new("cm-mismatch");
    let cases: [(&str, Value, &str); 3] = [
        (
            "count",
            json!({"job_id":"job-7a1f","final_entry_digest":V07_FINAL,"entry_count":6,"published_at":PUBLISHED_AT}),
            "AER1-CM-COUNT",
        ),
        (
            "job",
            json!({"job_id":"job-other","final_entry_digest":V07_FINAL,"entry_count":5,"published_at":PUBLISHED_AT}),
            "AER1-CM-JOB",
        ),
        (
            "final",
            json!({"job_id":"job-7a1f","final_entry_digest":V07_DIGESTS[3],"entry_count":5,"published_at":PUBLISHED_AT}),
            "AER1-CM-FINAL",
        ),
    ];
    for (name, commitment, rule) in cases {
        let path = dir.write(&format!("{name}.json"), commitment.to_string());
        let (r, v) = verify_timeline_json(&v07_path(), &["--commitment", p(&path)]);
        r.expect_code(EXIT_INVALID);
        assert_eq!(v["verdict"], "invalid", "{name}: {v}");
        assert_eq!(v["truncation_evidence"], "none", "{name}: {v}");
        assert!(
            rules_of(&v).iter().any(|r| r == rule),
            "{name}: expected {rule}: {v}"
        );
    }
}

#[test]
fn timeline_malformed_commitment_is_invalid_not_unreadable() {
    let dir = TempDir::new("cm-malformed");
    // entry_count must be a JSON integer: 5.0 is rejected (unlike seq).
    let path = dir.write(
        "c.json",
        format!(
            r#"{{"job_id":"job-7a1f","final_entry_digest":"{V07_FINAL}","entry_count":5.0,"published_at":"{PUBLISHED_AT}"}}"#
        ),
    );
    let (r, v) = verify_timeline_json(&v07_path(), &["--commitment", p(&path)]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["truncation_evidence"], "none");
    assert!(
        rules_of(&v).iter().any(|r| r == "AER1-CM-COUNT-FORMAT"),
        "{v}"
    );

    let empty = dir.write("empty.json", "");
    let (r, v) = verify_timeline_json(&v07_path(), &["--commitment", p(&empty)]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["truncation_evidence"], "none");
}

#[test]
fn truncated_and_substituted_chains_pass_alone_but_fail_the_commitment() {
    let dir = TempDir::new("truncation");
    let commitment = v07_commitment_path();

    // Truncated: drop the last entry and re-close entry 3. The links of entries 1..3 still hold.
    let mut entries = v07_entries();
    entries.pop();
    entries[3]["close"] = json!(true);
    let truncated = dir.write("truncated.json", entries_json(&entries));
    let (r, v) = verify_timeline_json(&truncated, &[]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["entry_count"], 4);
    assert_eq!(
        v["truncation_evidence"], "none",
        "a chain alone never claims completeness"
    );
    let (r, v) = verify_timeline_json(&truncated, &["--commitment", p(&commitment)]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["truncation_evidence"], "none");
    assert!(rules_of(&v).iter().any(|r| r == "AER1-CM-COUNT"), "{v}");

    // Substituted: replace the final entry's bytes. Nothing in the chain binds the final entry.
    let mut entries = v07_entries();
    entries[4]["canonical_bytes"] = json!(encode_base64(b"{\"substituted\":true}"));
    let substituted = dir.write("substituted.json", entries_json(&entries));
    let (r, v) = verify_timeline_json(&substituted, &[]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["entry_count"], 5);
    assert_ne!(v["final_entry_digest"], V07_FINAL);
    let (r, v) = verify_timeline_json(&substituted, &["--commitment", p(&commitment)]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["truncation_evidence"], "none");
    assert!(rules_of(&v).iter().any(|r| r == "AER1-CM-FINAL"), "{v}");
}

#[test]
fn seq_failure_names_rule_entry_and_member() {
    let dir = TempDir::new("seq");
    let mut entries = v07_entries();
    entries[2]["seq"] = json!(7);
    let path = dir.write("seq.json", entries_json(&entries));
    let (r, v) = verify_timeline_json(&path, &[]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["verdict"], "invalid");
    assert!(
        has_failure(&v, "AER1-TL-SEQ", Some(2), Some("seq")),
        "expected {{rule: AER1-TL-SEQ, entry: 2, member: seq}}: {v}"
    );

    let r = run(&["verify", "timeline", p(&path)]);
    r.expect_code(EXIT_INVALID);
    let out = r.out();
    assert!(out.contains("verdict: INVALID"), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("AER1-TL-SEQ"))
        .unwrap_or_else(|| panic!("no AER1-TL-SEQ line: {out}"));
    assert!(line.contains("entry 2") && line.contains("seq"), "{line}");
}

#[test]
fn other_chain_failures_are_located() {
    let dir = TempDir::new("chain-failures");
    type Edit = fn(&mut Vec<Value>);
    let cases: [(&str, Edit, &str, Option<u64>); 5] = [
        (
            "genesis",
            |e| e[0]["prev_digest"] = json!("1".repeat(64)),
            "AER1-TL-GENESIS",
            Some(0),
        ),
        (
            "job",
            |e| e[1]["job_id"] = json!("job-other"),
            "AER1-TL-JOB",
            Some(1),
        ),
        (
            "link",
            |e| e[3]["prev_digest"] = json!(V07_DIGESTS[0]),
            "AER1-TL-LINK",
            Some(3),
        ),
        (
            "close-last",
            |e| {
                e[4].as_object_mut().expect("entry object").remove("close");
            },
            "AER1-TL-CLOSE-LAST",
            None,
        ),
        (
            "b64",
            |e| {
                e[1]["canonical_bytes"] =
                    json!("eyJqb2IiOiJqb2ItN2ExZiIsImVudHJ5IjoxLCJ0YWciOiJyIn0")
            },
            "AER1-TL-B64",
            Some(1),
        ),
    ];
    for (name, edit, rule, entry) in cases {
        let mut entries = v07_entries();
        edit(&mut entries);
        let path = dir.write(&format!("{name}.json"), entries_json(&entries));
        let (r, v) = verify_timeline_json(&path, &[]);
        r.expect_code(EXIT_INVALID);
        let found = v["failures"].as_array().is_some_and(|fs| {
            fs.iter()
                .any(|f| f["rule"] == rule && (entry.is_none() || f["entry"] == json!(entry)))
        });
        assert!(found, "{name}: expected {rule} at entry {entry:?}: {v}");
    }
}

#[test]
fn max_failures_caps_the_list_and_counts_the_rest() {
    // A revision-09 chain checked under 06 breaks four links.
    let (r, v) = verify_timeline_json(&v07_path(), &["--revision", "06", "--max-failures", "2"]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["failures"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(v["failures_omitted"], 2, "{v}");

    let r = run(&[
        "verify",
        "timeline",
        p(&v07_path()),
        "--revision",
        "06",
        "--max-failures",
        "2",
    ]);
    r.expect_code(EXIT_INVALID);
    let out = r.out();
    assert!(out.contains("INVALID (4 failures)"), "{out}");
    assert!(out.contains("2 more"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// verify timeline: text
// ---------------------------------------------------------------------------------------------

#[test]
fn timeline_text_states_the_truncation_limit_and_the_draft_status() {
    let r = run(&["verify", "timeline", p(&v07_path())]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    assert!(out.contains("verdict: VALID"), "{out}");
    assert!(out.contains(V07_FINAL), "{out}");
    assert!(out.contains("truncation evidence: none"), "{out}");
    assert!(out.contains("--commitment"), "{out}");
    assert!(out.contains("individual Internet-Draft"), "{out}");
    assert!(out.contains("not an RFC"), "{out}");
    assert!(!out.contains("HISTORICAL"), "{out}");
}

#[test]
fn timeline_text_with_commitment() {
    let commitment = v07_commitment_path();
    let r = run(&[
        "verify",
        "timeline",
        p(&v07_path()),
        "--commitment",
        p(&commitment),
    ]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    assert!(
        out.contains("truncation evidence: commitment-verified"),
        "{out}"
    );
    assert!(!out.contains("truncation evidence: none"), "{out}");
    assert!(out.contains("not an RFC"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Revisions 06 and 09
// ---------------------------------------------------------------------------------------------

#[test]
fn rev09_chain_under_revision_06_is_invalid_and_historical() {
    let (r, v) = verify_timeline_json(&v07_path(), &["--revision", "06"]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["verdict"], "invalid");
    assert_eq!(v["revision"], "06");
    assert_eq!(v["historical"], true);

    let r = run(&["verify", "timeline", p(&v07_path()), "--revision", "06"]);
    r.expect_code(EXIT_INVALID);
    let out = r.out();
    assert!(out.contains("HISTORICAL"), "{out}");
    assert!(out.contains("verdict: INVALID"), "{out}");
}

#[test]
fn rev06_chain_is_valid_only_under_revision_06() {
    let dir = TempDir::new("rev06");
    let path = dir.write("rev06.json", rev06_chain(4));

    // Under 06: valid, and labelled historical in both formats.
    let (r, v) = verify_timeline_json(&path, &["--revision", "06"]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["revision"], "06");
    assert_eq!(v["historical"], true);
    assert_eq!(v["entry_count"], 4);
    assert_eq!(v["truncation_evidence"], "none");
    let r = run(&["verify", "timeline", p(&path), "--revision", "06"]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    assert!(out.contains("HISTORICAL"), "{out}");
    assert!(out.contains("verdict: VALID"), "{out}");

    // Under 09 (the default): invalid, only link failures, and a note pointing at revision 06.
    let (r, v) = verify_timeline_json(&path, &[]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["revision"], "09");
    assert_eq!(v["historical"], false);
    let rules = rules_of(&v);
    assert!(!rules.is_empty(), "{v}");
    assert!(
        rules.iter().all(|r| r == "AER1-TL-LINK"),
        "only AER1-TL-LINK failures expected: {v}"
    );
    for i in 1..4u64 {
        assert!(
            has_failure(&v, "AER1-TL-LINK", Some(i), Some("prev_digest")),
            "entry {i}: {v}"
        );
    }
    let notes = v["notes"].as_array().expect("notes array");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("revision-06"))),
        "a note mentioning revision-06 expected: {v}"
    );
    let r = run(&["verify", "timeline", p(&path), "--revision", "09"]);
    r.expect_code(EXIT_INVALID);
    let out = r.out();
    assert!(
        out.lines()
            .any(|l| l.starts_with("note:") && l.contains("revision-06")),
        "{out}"
    );
    assert!(!out.contains("HISTORICAL"), "{out}");
}

/// A chain in the shape real revision-06 chains have: `{id, canonical_bytes, prev_digest, close}`
/// entries only. Built here from the definition (SHA-256 of the previous entry's bytes).
fn real_06_entries(n: usize) -> Vec<Value> {
    let mut prev = "0".repeat(64);
    (0..n)
        .map(|i| {
            let bytes = format!("{{\"step\":{i}}}");
            let mut e = json!({
                "id": format!("r-{i}"),
                "canonical_bytes": encode_base64(bytes.as_bytes()),
                "prev_digest": prev,
            });
            if i + 1 == n {
                e["close"] = json!(true);
            }
            prev = hex::lower(&sha256(bytes.as_bytes()));
            e
        })
        .collect()
}

#[test]
fn revision_06_accepts_real_06_chains_and_rejects_each_06_defect_on_its_rule() {
    let dir = TempDir::new("real06");
    let check = |name: &str, entries: &[Value]| {
        let path = dir.write(name, entries_json(entries));
        verify_timeline_json(&path, &["--revision", "06"])
    };
    let good = real_06_entries(3);
    let (r, v) = check("good.json", &good);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["historical"], true);
    assert!(
        v["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.contains("binds only canonical_bytes"))),
        "{v}"
    );

    type Edit = fn(&mut Vec<Value>);
    type Located = &'static [(&'static str, Option<u64>)];
    let defects: [(&str, Located, Edit); 5] = [
        ("tampered bytes", &[("AER1-TL-LINK", Some(2))], |c| {
            c[1]["canonical_bytes"] = json!(encode_base64(b"{\"step\":9}"))
        }),
        (
            "reordered",
            &[
                ("AER1-TL-GENESIS", Some(0)),
                ("AER1-TL-LINK", Some(1)),
                ("AER1-TL-LINK", Some(2)),
            ],
            |c| c.swap(0, 1),
        ),
        ("bad genesis", &[("AER1-TL-GENESIS", Some(0))], |c| {
            c[0]["prev_digest"] = json!("f".repeat(64))
        }),
        ("no final close", &[("AER1-TL-CLOSE-LAST", Some(2))], |c| {
            c[2].as_object_mut().unwrap().remove("close");
        }),
        (
            // The kit's check, not 06 text: its own rule.
            "close not a boolean",
            &[("AER1-TL-06-CLOSE-TYPE", Some(1))],
            |c| c[1]["close"] = json!(0),
        ),
    ];
    for (what, expected, edit) in defects {
        let mut c = good.clone();
        edit(&mut c);
        let (r, v) = check("bad.json", &c);
        r.expect_code(EXIT_INVALID);
        let found: Vec<(String, Option<u64>)> = v["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["rule"].as_str().unwrap().to_string(), f["entry"].as_u64()))
            .collect();
        let expected: Vec<(String, Option<u64>)> =
            expected.iter().map(|(r, e)| (r.to_string(), *e)).collect();
        assert_eq!(found, expected, "{what}: {v}");
    }

    // Under 09 the same good chain is rejected for the members 07 requires, with the note.
    let path = dir.write("good09.json", entries_json(&good));
    let (r, v) = verify_timeline_json(&path, &[]);
    r.expect_code(EXIT_INVALID);
    let rules = rules_of(&v);
    assert!(rules.contains(&"AER1-TL-MEMBERS".to_string()), "{v}");
    assert!(
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("revision-06 check"))),
        "{v}"
    );
}

#[test]
fn digest_under_revision_06_is_historical() {
    let dir = TempDir::new("digest06");
    let path = dir.write("rev06.json", rev06_chain(3));
    let r = run(&["digest", p(&path), "--revision", "06", "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert_eq!(v["revision"], "06");
    assert_eq!(v["historical"], true);
    assert_eq!(v["entries"].as_array().map(Vec::len), Some(3));
}

// ---------------------------------------------------------------------------------------------
// Exit codes: usage errors and unreadable input (2) versus malformed content (1)
// ---------------------------------------------------------------------------------------------

/// Every AER-1 revision the revisions table lists is accepted, checked under its construction, and
/// named in the report as asked: a script naming an older revision keeps working when a newer one
/// is added, and a result is never labelled with a revision it was not asked for.
#[test]
fn every_listed_revision_is_accepted_and_named_as_asked() {
    let table = agentconf_rules::Revisions::embedded();
    let numbers = table.numbers(agentconf_rules::draft_revisions::AER1);
    assert!(
        numbers.len() > 2,
        "the test needs revisions sharing a construction"
    );
    for rev in numbers {
        let (r, v) = verify_timeline_json(&v07_path(), &["--revision", rev]);
        let historical =
            table.construction(agentconf_rules::draft_revisions::AER1, rev) == Some("bytes");
        assert_eq!(v["revision"], rev, "{}", r.what);
        assert_eq!(v["historical"], historical, "{}", r.what);
        // The fixture is a revision-07 chain: it verifies under every preimage revision.
        r.expect_code(if historical { 1 } else { 0 });
        let d = run(&[
            "digest",
            p(&v07_path()),
            "--revision",
            rev,
            "--format",
            "json",
        ]);
        let head: Value = serde_json::from_str(&d.out()).expect("digest JSON");
        assert_eq!(head["revision"], rev, "{}", d.what);
    }
}

/// A revision the table does not list for the command's draft is refused by the argument parser
/// itself, before any input is read: not by a later failure that also exits 2.
#[test]
fn a_revision_the_table_does_not_list_is_an_invalid_value() {
    let v07 = v07_path();
    for args in [
        vec!["verify", "timeline", p(&v07), "--revision", "9"],
        vec!["verify", "timeline", p(&v07), "--revision", "99"],
        vec!["verify", "timeline", p(&v07), "--revision", "01"],
        vec!["digest", p(&v07), "--revision", "00"],
        vec!["grp", "admit", p(&v07), "--revision", "09"],
    ] {
        let r = run(&args);
        r.expect_code(EXIT_USAGE);
        assert!(
            r.stderr.contains("invalid value"),
            "{}: {}",
            r.what,
            r.stderr
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let v07 = v07_path();
    let commitment = v07_commitment_path();
    let cases: Vec<Vec<&str>> = vec![
        vec![],
        vec!["frobnicate"],
        vec!["verify"],
        vec!["verify", "nothing", p(&v07)],
        vec!["verify", "timeline"],
        vec!["verify", "timeline", p(&v07), "--no-such-flag"],
        vec!["verify", "timeline", p(&v07), "--format", "yaml"],
        vec!["verify", "timeline", p(&v07), "--revision", "9"],
        vec!["verify", "timeline", p(&v07), "--revision", "99"],
        vec!["verify", "timeline", p(&v07), "--revision", "01"],
        vec![
            "verify",
            "timeline",
            p(&v07),
            "--revision",
            "07",
            "--commitment",
            p(&commitment),
        ],
        vec![
            "verify",
            "timeline",
            p(&v07),
            "--revision",
            "06",
            "--commitment",
            p(&commitment),
        ],
        vec!["verify", "timeline", p(&v07), "--max-failures", "-1"],
        vec!["verify", "receipt", p(&v07), "--id-tier", "loose"],
        vec!["verify", "receipt", p(&v07), "--tier", "loose"],
        vec!["verify", "receipt", p(&v07), "--tier", "Anchored"],
        vec!["digest", p(&v07), "--revision", "06", "--preimage"],
        vec!["grp", "admit", p(&v07), "--revision", "09"],
        vec!["commit", p(&v07)],
        vec!["commit", p(&v07), "--published-at", "2026-02-30T00:00:00Z"],
        vec!["commit", p(&v07), "--published-at", "2026-10-01 18:30:00Z"],
        vec!["commit", p(&v07), "--published-at", "2026-10-01T18:30:60Z"],
        vec!["commit", p(&v07), "--published-at", ""],
        vec!["rules", "--format", "xml"],
    ];
    for args in cases {
        let r = run(&args);
        r.expect_code(EXIT_USAGE);
        assert!(
            r.stdout.is_empty(),
            "{}: stdout not empty: {:?}",
            r.what,
            r.out()
        );
        assert!(
            !r.stderr.trim().is_empty(),
            "{}: no message on stderr",
            r.what
        );
    }
}

#[test]
fn unreadable_input_exits_2() {
    let dir = TempDir::new("unreadable");
    let missing = dir.path().join("does-not-exist.json");
    let a_dir = dir.path().to_path_buf();
    let v07 = v07_path();
    for target in [&missing, &a_dir] {
        let t = p(target);
        let cases: Vec<Vec<&str>> = vec![
            vec!["verify", "timeline", t],
            vec!["verify", "timeline", t, "--format", "json"],
            vec!["verify", "receipt", t],
            vec!["verify", "workflow", t],
            vec!["digest", t],
            vec!["digest", t, "--format", "json"],
            vec!["commit", t, "--published-at", PUBLISHED_AT],
            // An unreadable commitment is unreadable input too.
            vec!["verify", "timeline", p(&v07), "--commitment", t],
        ];
        for args in cases {
            let r = run(&args);
            r.expect_code(EXIT_USAGE);
            assert!(r.stdout.is_empty(), "{}: stdout: {:?}", r.what, r.out());
            assert!(r.stderr.contains("cannot read"), "{}: {}", r.what, r.stderr);
        }
    }
}

#[test]
fn malformed_content_is_invalid_not_unreadable() {
    let dir = TempDir::new("malformed");
    let inputs: [(&str, &[u8], &str); 5] = [
        ("empty", b"", "AER1-JSON-SYNTAX"),
        ("whitespace", b"  \n", "AER1-JSON-SYNTAX"),
        ("not-json", b"this is not json", "AER1-JSON-SYNTAX"),
        ("truncated", b"[{\"seq\":1", "AER1-JSON-SYNTAX"),
        ("not-utf8", b"\xff\xfe[\x80]", "AER1-JSON-UTF8"),
    ];
    for (name, bytes, rule) in inputs {
        let path = dir.write(&format!("{name}.json"), bytes);
        let path = p(&path);
        for (kind, args) in [
            (
                "aer1-timeline",
                vec!["verify", "timeline", path, "--format", "json"],
            ),
            (
                "aer1-receipt",
                vec!["verify", "receipt", path, "--format", "json"],
            ),
            (
                "aer1-workflow",
                vec!["verify", "workflow", path, "--format", "json"],
            ),
        ] {
            let r = run(&args);
            r.expect_code(EXIT_INVALID);
            let v = r.json();
            assert_eq!(v["kind"], kind, "{}", r.what);
            assert_eq!(v["verdict"], "invalid", "{}", r.what);
            check_failures(&v);
            if kind == "aer1-timeline" {
                check_timeline_envelope(&v);
            }
            assert!(
                rules_of(&v).iter().any(|r| r == rule),
                "{name} {kind}: expected {rule}: {v}"
            );
        }
        // Text output of the same: still exit 1.
        for args in [
            vec!["verify", "timeline", path],
            vec!["verify", "receipt", path],
            vec!["verify", "workflow", path],
            vec!["digest", path],
        ] {
            run(&args).expect_code(EXIT_INVALID);
        }
        let r = run(&["digest", path, "--format", "json"]);
        r.expect_code(EXIT_INVALID);
        assert_eq!(r.json()["verdict"], "invalid", "{}", r.what);
        let r = run(&["commit", path, "--published-at", PUBLISHED_AT]);
        r.expect_code(EXIT_INVALID);
        assert!(r.stdout.is_empty(), "{}: {:?}", r.what, r.out());
    }
}

#[test]
fn wrong_document_shapes_are_invalid() {
    let dir = TempDir::new("shapes");
    let cases: [(&str, &str, &str); 7] = [
        ("timeline", "{}", "AER1-TL-ARRAY"),
        ("timeline", "[]", "AER1-TL-ARRAY"),
        ("timeline", "[1]", "AER1-TL-ENTRY-OBJECT"),
        ("receipt", "[]", "AER1-RC-MEMBERS"),
        ("receipt", "{}", "AER1-RC-MEMBERS"),
        ("workflow", "[]", "AER1-WF-MEMBERS"),
        ("workflow", "{\"steps\":[]}", "AER1-WF-MEMBERS"),
    ];
    for (i, (kind, doc, rule)) in cases.into_iter().enumerate() {
        let path = dir.write(&format!("{i}.json"), doc);
        let r = run(&["verify", kind, p(&path), "--format", "json"]);
        r.expect_code(EXIT_INVALID);
        let v = r.json();
        assert_eq!(v["kind"], format!("aer1-{kind}"));
        assert!(
            rules_of(&v).iter().any(|r| r == rule),
            "{kind} {doc}: expected {rule}: {v}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Standard input
// ---------------------------------------------------------------------------------------------

#[test]
fn dash_reads_standard_input() {
    let chain = v07_text();
    let r = run_with(
        &["verify", "timeline", "-", "--format", "json"],
        Some(chain.as_bytes()),
    );
    r.expect_code(EXIT_VALID);
    let v = r.json();
    check_timeline_envelope(&v);
    assert_eq!(v["final_entry_digest"], V07_FINAL);

    let r = run_with(&["verify", "timeline", "-"], Some(chain.as_bytes()));
    r.expect_code(EXIT_VALID);
    assert!(r.out().contains("standard input"), "{}", r.out());

    // The chain on stdin, the commitment from a file.
    let commitment = v07_commitment_path();
    let r = run_with(
        &[
            "verify",
            "timeline",
            "-",
            "--commitment",
            p(&commitment),
            "--format",
            "json",
        ],
        Some(chain.as_bytes()),
    );
    r.expect_code(EXIT_VALID);
    assert_eq!(r.json()["truncation_evidence"], "commitment-verified");

    let r = run_with(&["digest", "-"], Some(chain.as_bytes()));
    r.expect_code(EXIT_VALID);
    let lines: Vec<String> = r.out().lines().map(str::to_string).collect();
    let expected: Vec<String> = V07_DIGESTS
        .iter()
        .enumerate()
        .map(|(i, d)| format!("{i} {d}"))
        .collect();
    assert_eq!(lines, expected);

    let r = run_with(
        &["commit", "-", "--published-at", PUBLISHED_AT],
        Some(chain.as_bytes()),
    );
    r.expect_code(EXIT_VALID);
    assert_eq!(r.out(), format!("{V07_COMMITMENT}\n"));

    let receipt = receipt(WORKFLOW_IDS[0]).to_string();
    let r = run_with(
        &["verify", "receipt", "-", "--format", "json"],
        Some(receipt.as_bytes()),
    );
    r.expect_code(EXIT_VALID);
    assert_eq!(r.json()["kind"], "aer1-receipt");

    let wf = workflow().to_string();
    let r = run_with(
        &["verify", "workflow", "-", "--format", "json"],
        Some(wf.as_bytes()),
    );
    r.expect_code(EXIT_VALID);
    assert_eq!(r.json()["kind"], "aer1-workflow");

    // Empty standard input is malformed content, not unreadable input.
    for args in [
        vec!["verify", "timeline", "-"],
        vec!["verify", "receipt", "-"],
        vec!["verify", "workflow", "-"],
        vec!["digest", "-"],
    ] {
        run_with(&args, Some(b"")).expect_code(EXIT_INVALID);
    }
}

// ---------------------------------------------------------------------------------------------
// digest
// ---------------------------------------------------------------------------------------------

#[test]
fn digest_text_prints_the_published_digests() {
    let r = run(&["digest", p(&v07_path())]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(*line, format!("{i} {}", V07_DIGESTS[i]));
    }
}

#[test]
fn digest_preimage_prints_the_published_preimage() {
    let r = run(&["digest", p(&v07_path()), "--preimage"]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("0 {}", V07_DIGESTS[0]));
    assert_eq!(lines[1].trim_start(), format!("preimage: {V07_PREIMAGE_0}"));
    // The preimage hashes to the published digest.
    assert_eq!(
        hex::lower(&sha256(V07_PREIMAGE_0.as_bytes())),
        V07_DIGESTS[0]
    );
    for (i, d) in V07_DIGESTS.iter().enumerate() {
        assert!(lines.contains(&format!("{i} {d}").as_str()), "{out}");
    }

    let r = run(&["digest", p(&v07_path()), "--preimage", "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert_eq!(v["entries"][0]["preimage"], V07_PREIMAGE_0);
    for entry in v["entries"].as_array().expect("entries") {
        let pre = entry["preimage"].as_str().expect("preimage string");
        assert_eq!(
            entry["digest"],
            hex::lower(&sha256(pre.as_bytes())),
            "digest is the SHA-256 of the preimage: {entry}"
        );
    }
}

#[test]
fn digest_json_is_one_object_with_entries() {
    let r = run(&["digest", p(&v07_path()), "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert!(v.is_object());
    assert_eq!(v["tool"], "agentconf");
    assert_eq!(v["draft"], "draft-zambo-aer1");
    assert_eq!(v["revision"], "09");
    assert_eq!(v["historical"], false);
    assert_eq!(v["verdict"], "valid");
    let entries = v["entries"].as_array().expect("entries array");
    assert_eq!(entries.len(), 5);
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e["index"], i);
        assert_eq!(e["digest"], V07_DIGESTS[i]);
    }
}

#[test]
fn digest_of_an_invalid_chain() {
    let dir = TempDir::new("digest-invalid");
    let mut entries = v07_entries();
    entries[2]["seq"] = json!(7);
    // An entry that is not an object between objects: JSON output must stay one valid object.
    entries.insert(1, json!(1));
    let path = dir.write("bad.json", entries_json(&entries));

    let r = run(&["digest", p(&path)]);
    r.expect_code(EXIT_INVALID);
    assert!(
        r.stderr.contains("AER1-"),
        "failures go to stderr: {}",
        r.stderr
    );
    for line in r.out().lines() {
        let (index, digest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("line {line:?}"));
        assert!(index.parse::<u64>().is_ok(), "{line}");
        assert!(
            digest == "unavailable" || hex_64(digest),
            "digest column: {line}"
        );
    }

    let r = run(&["digest", p(&path), "--format", "json"]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert_eq!(v["verdict"], "invalid");
    assert_eq!(v["entries"].as_array().map(Vec::len), Some(6));
    check_failures(&v);
    assert!(
        rules_of(&v).iter().any(|r| r == "AER1-TL-ENTRY-OBJECT"),
        "{v}"
    );
}

fn hex_64(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

// ---------------------------------------------------------------------------------------------
// commit
// ---------------------------------------------------------------------------------------------

#[test]
fn commit_prints_the_published_commitment() {
    let r = run(&["commit", p(&v07_path()), "--published-at", PUBLISHED_AT]);
    r.expect_code(EXIT_VALID);
    assert_eq!(r.out(), format!("{V07_COMMITMENT}\n"));
    let published = std::fs::read(v07_commitment_path()).expect("testdata commitment");
    let trimmed: &[u8] = published.strip_suffix(b"\n").unwrap_or(&published);
    assert_eq!(
        r.stdout.strip_suffix(b"\n").unwrap_or(&r.stdout),
        trimmed,
        "byte-identical to testdata/v07-valid-5.commitment.json"
    );
}

#[test]
fn commit_on_an_invalid_chain_prints_nothing() {
    let dir = TempDir::new("commit-invalid");
    let mut entries = v07_entries();
    entries[2]["seq"] = json!(7);
    let bad = dir.write("bad.json", entries_json(&entries));
    let r = run(&["commit", p(&bad), "--published-at", PUBLISHED_AT]);
    r.expect_code(EXIT_INVALID);
    assert!(r.stdout.is_empty(), "stdout must be empty: {:?}", r.out());
    assert!(r.stderr.contains("AER1-TL-SEQ"), "{}", r.stderr);

    // A revision-06 chain never gets a (revision-09) commitment.
    let rev06 = dir.write("rev06.json", rev06_chain(3));
    let r = run(&["commit", p(&rev06), "--published-at", PUBLISHED_AT]);
    r.expect_code(EXIT_INVALID);
    assert!(r.stdout.is_empty(), "stdout must be empty: {:?}", r.out());
}

#[test]
fn commit_round_trips_through_verify() {
    let dir = TempDir::new("commit-roundtrip");
    let chain = dir.write("chain.json", rev09_chain("job-roundtrip", 7));
    let r = run(&[
        "commit",
        p(&chain),
        "--published-at",
        "2027-03-31T23:59:59.123+02:00",
    ]);
    r.expect_code(EXIT_VALID);
    let commitment_text = r.out();
    let c: Value = serde_json::from_str(commitment_text.trim_end()).expect("commitment JSON");
    assert_eq!(c["job_id"], "job-roundtrip");
    assert_eq!(c["entry_count"], 7);
    assert_eq!(c["published_at"], "2027-03-31T23:59:59.123+02:00");
    let commitment = dir.write("commitment.json", &commitment_text);

    let (r, v) = verify_timeline_json(&chain, &["--commitment", p(&commitment)]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["truncation_evidence"], "commitment-verified");
    assert_eq!(v["final_entry_digest"], c["final_entry_digest"]);
    assert_eq!(
        v["commitment"], c,
        "the report echoes the commitment checked"
    );

    // The same commitment against the published chain: another job, another head.
    let (r, v) = verify_timeline_json(&v07_path(), &["--commitment", p(&commitment)]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["truncation_evidence"], "none");
}

// ---------------------------------------------------------------------------------------------
// verify receipt
// ---------------------------------------------------------------------------------------------

#[test]
fn receipt_valid_and_invalid() {
    let dir = TempDir::new("receipt");
    let valid = dir.write("valid.json", receipt(WORKFLOW_IDS[0]).to_string());
    let r = run(&["verify", "receipt", p(&valid), "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert_eq!(v["tool"], "agentconf");
    assert_eq!(v["draft"], "draft-zambo-aer1");
    assert_eq!(v["kind"], "aer1-receipt");
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["tier"], "core");
    assert_eq!(v["id_tier"], "core");
    assert_eq!(v["notes"], json!([]));
    assert_eq!(v["computed_output_hash"], RECEIPT_HASH);
    assert_eq!(v["failures"], json!([]));
    let r = run(&["verify", "receipt", p(&valid), "--tier", "strict"]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    assert!(out.contains("verdict: VALID"), "{out}");
    assert!(out.contains("not an RFC"), "{out}");

    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &str, Option<&str>); 9] = [
        (
            "b64-unpadded",
            |r| r["canonical_bytes"] = json!(RECEIPT_B64.trim_end_matches('=')),
            "AER1-RC-B64",
            Some("canonical_bytes"),
        ),
        (
            "hash-mismatch",
            |r| r["output_hash"] = json!(format!("sha256:{}", "0".repeat(64))),
            "AER1-RC-HASH-MATCH",
            Some("output_hash"),
        ),
        (
            "hash-uppercase",
            |r| r["output_hash"] = json!(RECEIPT_HASH.to_uppercase().replace("SHA256", "sha256")),
            "AER1-RC-HASH-FORMAT",
            Some("output_hash"),
        ),
        (
            "id-uppercase",
            |r| r["id"] = json!(WORKFLOW_IDS[0].to_uppercase()),
            "AER1-RC-ID",
            Some("id"),
        ),
        (
            "created-feb-30",
            |r| r["created_at"] = json!("2026-02-30T00:00:00Z"),
            "AER1-RC-CREATED-AT",
            Some("created_at"),
        ),
        (
            "provenance-newline",
            |r| r["provenance_class"] = json!("LOGGED BY AGENT\n"),
            "AER1-RC-PROVENANCE",
            Some("provenance_class"),
        ),
        (
            "status",
            |r| r["verification_status"] = json!("unverified"),
            "AER1-RC-STATUS",
            Some("verification_status"),
        ),
        (
            "tool-scope-empty",
            |r| r["tool"]["scope"] = json!(""),
            "AER1-RC-TOOL",
            Some("tool.scope"),
        ),
        (
            "missing-id",
            |r| {
                r.as_object_mut().expect("receipt object").remove("id");
            },
            "AER1-RC-MEMBERS",
            Some("id"),
        ),
    ];
    for (name, edit, rule, member) in cases {
        let mut doc = receipt(WORKFLOW_IDS[0]);
        edit(&mut doc);
        let path = dir.write(&format!("{name}.json"), doc.to_string());
        let r = run(&["verify", "receipt", p(&path), "--format", "json"]);
        r.expect_code(EXIT_INVALID);
        let v = r.json();
        assert_eq!(v["kind"], "aer1-receipt");
        assert_eq!(v["verdict"], "invalid");
        check_failures(&v);
        assert!(
            has_failure(&v, rule, None, member),
            "{name}: expected {{rule: {rule}, member: {member:?}}}: {v}"
        );
        let r = run(&["verify", "receipt", p(&path)]);
        r.expect_code(EXIT_INVALID);
        assert!(r.out().contains(rule), "{name}: {}", r.out());
    }

    // Decoded bytes that are not UTF-8 are rejected even when the hash matches.
    let mut doc = receipt(WORKFLOW_IDS[0]);
    let bytes = b"\xff\xfe not utf-8";
    doc["canonical_bytes"] = json!(encode_base64(bytes));
    doc["output_hash"] = json!(format!("sha256:{}", hex::lower(&sha256(bytes))));
    let path = dir.write("bytes-not-utf8.json", doc.to_string());
    let r = run(&["verify", "receipt", p(&path), "--format", "json"]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert!(rules_of(&v) == ["AER1-RC-UTF8"], "{v}");
}

#[test]
fn receipt_strict_id_tier_rejects_a_non_v4_id_that_core_accepts() {
    let dir = TempDir::new("receipt-tier");
    // Version nibble 1, not 4: the UUID shape is fine, the strict tier is not.
    let id = "e80168eb-a6a1-1ec9-8478-ac108f9397ff";
    let path = dir.write("v1.json", receipt(id).to_string());

    let r = run(&["verify", "receipt", p(&path), "--format", "json"]);
    r.expect_code(EXIT_VALID);
    assert_eq!(r.json()["tier"], "core");
    let r = run(&[
        "verify",
        "receipt",
        p(&path),
        "--tier",
        "core",
        "--format",
        "json",
    ]);
    r.expect_code(EXIT_VALID);

    // `--id-tier` is the old spelling of `--tier`, still accepted.
    for flag in ["--tier", "--id-tier"] {
        let r = run(&[
            "verify",
            "receipt",
            p(&path),
            flag,
            "strict",
            "--format",
            "json",
        ]);
        r.expect_code(EXIT_INVALID);
        let v = r.json();
        assert_eq!(
            (&v["tier"], &v["id_tier"]),
            (&json!("strict"), &json!("strict"))
        );
        assert!(
            has_failure(&v, "AER1-RC-ID-STRICT", None, Some("id")),
            "{v}"
        );
    }

    // A v4 id with the wrong variant (c: RFC 4122 variant needs 8, 9, a or b).
    let path = dir.write(
        "variant.json",
        receipt("e80168eb-a6a1-4ec9-c478-ac108f9397ff").to_string(),
    );
    run(&["verify", "receipt", p(&path)]).expect_code(EXIT_VALID);
    run(&["verify", "receipt", p(&path), "--tier", "strict"]).expect_code(EXIT_INVALID);

    // The nil UUID: the core tier accepts it at revision 09 (as the kit does); the strict tier
    // rejects it, its version digit being 0.
    let path = dir.write(
        "nil.json",
        receipt("00000000-0000-0000-0000-000000000000").to_string(),
    );
    let r = run(&["verify", "receipt", p(&path), "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let r = run(&[
        "verify",
        "receipt",
        p(&path),
        "--tier",
        "strict",
        "--format",
        "json",
    ]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert!(rules_of(&v) == ["AER1-RC-ID-STRICT"], "{v}");
}

#[test]
fn receipt_anchored_tier_checks_the_anchor_and_the_others_do_not_claim_it() {
    let dir = TempDir::new("receipt-anchored");
    let mut doc = receipt(WORKFLOW_IDS[0]);
    doc["anchor"] = json!({
        "log": "https://log.example/aer1",
        "leaf_hash": RECEIPT_HASH,
        "anchored_at": "2026-10-01T18:31:00Z",
        "proof": {"hashes": []},
    });
    let good = dir.write("anchored.json", doc.to_string());
    let r = run(&[
        "verify",
        "receipt",
        p(&good),
        "--tier",
        "anchored",
        "--format",
        "json",
    ]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert_eq!(
        (&v["tier"], &v["id_tier"]),
        (&json!("anchored"), &json!("strict"))
    );
    let notes = v["notes"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("not verified"))),
        "{v}"
    );

    // A broken leaf: rejected under anchored, on that rule ...
    doc["anchor"]["leaf_hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    let bad = dir.write("bad-leaf.json", doc.to_string());
    let r = run(&[
        "verify",
        "receipt",
        p(&bad),
        "--tier",
        "anchored",
        "--format",
        "json",
    ]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert!(rules_of(&v) == ["AER1-RC-ANCHOR-LEAF-MATCH"], "{v}");
    assert!(has_failure(
        &v,
        "AER1-RC-ANCHOR-LEAF-MATCH",
        None,
        Some("anchor.leaf_hash")
    ));
    // ... and valid under core, whose report names core and says the anchor was not checked.
    let r = run(&["verify", "receipt", p(&bad), "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert_eq!(v["tier"], "core");
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap_or("")
            .contains("anchored tier"),
        "{v}"
    );
    let r = run(&["verify", "receipt", p(&bad)]);
    r.expect_code(EXIT_VALID);
    assert!(r.out().contains("tier: core"), "{}", r.out());
    assert!(r.out().contains("note: "), "{}", r.out());

    // No anchor under the anchored tier.
    let plain = dir.write("plain.json", receipt(WORKFLOW_IDS[0]).to_string());
    let r = run(&[
        "verify",
        "receipt",
        p(&plain),
        "--tier",
        "anchored",
        "--format",
        "json",
    ]);
    r.expect_code(EXIT_INVALID);
    assert!(has_failure(
        &r.json(),
        "AER1-RC-ANCHOR-MEMBERS",
        None,
        Some("anchor")
    ));
}

/// `agentconf impl aer1-receipt RECEIPT [TIER]`: every tier it knows is checked, any other is
/// unsupported (89) with no result object, never checked as another tier.
#[test]
fn impl_receipt_checks_each_tier_and_refuses_unknown_ones() {
    let dir = TempDir::new("impl-receipt");
    let plain = dir.write("plain.json", receipt(WORKFLOW_IDS[0]).to_string());
    for (args, code, rules) in [
        (vec![], EXIT_VALID, vec![]),
        (vec!["core"], EXIT_VALID, vec![]),
        (vec!["strict"], EXIT_VALID, vec![]),
        (vec!["profile"], EXIT_VALID, vec![]),
        (
            vec!["anchored"],
            EXIT_INVALID,
            vec!["AER1-RC-ANCHOR-MEMBERS"],
        ),
    ] {
        let mut argv = vec!["impl", "aer1-receipt", p(&plain)];
        argv.extend(args.iter().copied());
        let r = run(&argv);
        r.expect_code(code);
        let v = r.json();
        assert_eq!(v["rules"], json!(rules), "{args:?}: {v}");
    }
    for tier in ["loose", "Anchored", "id", ""] {
        let r = run(&["impl", "aer1-receipt", p(&plain), tier]);
        r.expect_code(89);
        assert!(r.out().is_empty(), "{tier:?}: {}", r.out());
    }
}

#[test]
fn receipt_profile_tier_needs_inputs_in_the_payload() {
    let dir = TempDir::new("receipt-profile");
    // The shared receipt's payload carries inputs.
    let good = dir.write("good.json", receipt(WORKFLOW_IDS[0]).to_string());
    run(&["verify", "receipt", p(&good), "--tier", "profile"]).expect_code(EXIT_VALID);
    let bytes = br#"{"outputs":{"x":123}}"#;
    let mut doc = receipt(WORKFLOW_IDS[0]);
    doc["canonical_bytes"] = json!(encode_base64(bytes));
    doc["output_hash"] = json!(format!("sha256:{}", hex::lower(&sha256(bytes))));
    let path = dir.write("no-inputs.json", doc.to_string());
    run(&["verify", "receipt", p(&path)]).expect_code(EXIT_VALID);
    let r = run(&[
        "verify",
        "receipt",
        p(&path),
        "--tier",
        "profile",
        "--format",
        "json",
    ]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert_eq!(v["tier"], "profile");
    assert!(rules_of(&v) == ["AER1-RC-PROFILE-INPUTS"], "{v}");
}

// ---------------------------------------------------------------------------------------------
// verify workflow
// ---------------------------------------------------------------------------------------------

#[test]
fn workflow_valid_and_invalid() {
    let dir = TempDir::new("workflow");
    let valid = dir.write("valid.json", workflow().to_string());
    let r = run(&["verify", "workflow", p(&valid), "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    assert_eq!(v["tool"], "agentconf");
    assert_eq!(v["draft"], "draft-zambo-aer1");
    assert_eq!(v["kind"], "aer1-workflow");
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["step_count"], 5);
    assert_eq!(v["computed_merkle_root"], WORKFLOW_ROOT);
    assert_eq!(v["failures"], json!([]));
    let r = run(&["verify", "workflow", p(&valid)]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    assert!(
        out.contains("verdict: VALID") && out.contains(WORKFLOW_ROOT),
        "{out}"
    );
    assert!(out.contains("not an RFC"), "{out}");

    // Wrong root.
    let mut doc = workflow();
    doc["merkle_root"] = json!("0".repeat(64));
    let wrong = dir.write("wrong.json", doc.to_string());
    let r = run(&["verify", "workflow", p(&wrong), "--format", "json"]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert!(
        has_failure(&v, "AER1-WF-ROOT", None, Some("merkle_root")),
        "{v}"
    );
    assert_eq!(v["computed_merkle_root"], WORKFLOW_ROOT);

    // A duplicated last id gives the same root (odd level repeats its last digest), and is
    // still rejected.
    let mut doc = workflow();
    let mut again = doc["steps"][4].clone();
    again["seq"] = json!(6);
    doc["steps"].as_array_mut().unwrap().push(again);
    let dup_path = dir.write("dup.json", doc.to_string());
    let r = run(&["verify", "workflow", p(&dup_path), "--format", "json"]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    assert!(
        has_failure(
            &v,
            "AER1-WF-DUPLICATE",
            Some(5),
            Some("steps[5].receipt_id")
        ),
        "{v}"
    );
    assert!(!rules_of(&v).iter().any(|r| r == "AER1-WF-ROOT"), "{v}");

    // Steps swapped with their seq: [1,3,2,4,5] in document order fails on seq alone (the root,
    // over the ids in seq order, still matches). The text output names step, member and rule.
    let mut doc = workflow();
    doc["steps"].as_array_mut().unwrap().swap(1, 2);
    let swapped = dir.write("swapped.json", doc.to_string());
    let r = run(&["verify", "workflow", p(&swapped), "--format", "json"]);
    r.expect_code(EXIT_INVALID);
    let v = r.json();
    check_failures(&v);
    assert_eq!(rules_of(&v), ["AER1-WF-SEQ", "AER1-WF-SEQ"], "{v}");
    assert!(has_failure(
        &v,
        "AER1-WF-SEQ",
        Some(1),
        Some("steps[1].seq")
    ));
    assert!(has_failure(
        &v,
        "AER1-WF-SEQ",
        Some(2),
        Some("steps[2].seq")
    ));
    let r = run(&["verify", "workflow", p(&swapped)]);
    r.expect_code(EXIT_INVALID);
    assert!(
        r.out()
            .contains("step seq values are not 1..n in order (index 1 carries seq 3)"),
        "{}",
        r.out()
    );

    // Malformed members, each on its own rule.
    for (name, change, rule) in [
        (
            "no-root",
            Box::new(|d: &mut Value| {
                d.as_object_mut().unwrap().remove("merkle_root");
            }) as Box<dyn Fn(&mut Value)>,
            "AER1-WF-MEMBERS",
        ),
        (
            "upper-root",
            Box::new(|d: &mut Value| d["merkle_root"] = json!(WORKFLOW_ROOT.to_uppercase())),
            "AER1-WF-HEX",
        ),
        (
            "step-not-object",
            Box::new(|d: &mut Value| d["steps"][0] = json!(1)),
            "AER1-WF-STEP-MEMBERS",
        ),
        (
            "id-not-string",
            Box::new(|d: &mut Value| d["steps"][0]["receipt_id"] = json!(5)),
            "AER1-WF-STEP-ID",
        ),
        (
            "ftp-url",
            Box::new(|d: &mut Value| d["verify_url"] = json!("ftp://zambo.dev/w")),
            "AER1-WF-VERIFY-URL",
        ),
    ] {
        let mut doc = workflow();
        change(&mut doc);
        let path = dir.write(&format!("{name}.json"), doc.to_string());
        let r = run(&["verify", "workflow", p(&path), "--format", "json"]);
        r.expect_code(EXIT_INVALID);
        let v = r.json();
        check_failures(&v);
        assert_eq!(rules_of(&v), [rule], "{name}: {v}");
    }
}

// ---------------------------------------------------------------------------------------------
// rules
// ---------------------------------------------------------------------------------------------

#[test]
fn rules_lists_every_rule() {
    let r = run(&["rules", "--format", "json"]);
    r.expect_code(EXIT_VALID);
    let v = r.json();
    let records = v
        .as_array()
        .expect("rules --format json is an array of records");
    let mut listed: Vec<String> = records
        .iter()
        .map(|rec| rec["id"].as_str().expect("record id").to_string())
        .collect();
    for rec in records {
        assert!(
            rec["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{rec}"
        );
        assert!(rec["level"] == "MUST" || rec["level"] == "SHOULD", "{rec}");
    }
    listed.sort();
    let mut expected: Vec<String> = Rule::ALL.iter().map(|r| r.id().to_string()).collect();
    expected.sort();
    assert_eq!(
        listed, expected,
        "rules --format json lists exactly Rule::ALL"
    );

    let r = run(&["rules"]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    let first_words: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for rule in Rule::ALL {
        assert!(
            first_words.contains(&rule.id()),
            "text rules list lacks {}: {out}",
            rule.id()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------------

#[test]
fn same_command_same_bytes() {
    let dir = TempDir::new("determinism");
    let mut entries = v07_entries();
    entries[2]["seq"] = json!(7);
    entries[0]["prev_digest"] = json!("x");
    let bad = dir.write("bad.json", entries_json(&entries));
    let v07 = v07_path();
    let commitment = v07_commitment_path();
    let cases: Vec<Vec<&str>> = vec![
        vec!["verify", "timeline", p(&v07)],
        vec!["verify", "timeline", p(&v07), "--format", "json"],
        vec![
            "verify",
            "timeline",
            p(&v07),
            "--commitment",
            p(&commitment),
            "--format",
            "json",
        ],
        vec!["verify", "timeline", p(&bad)],
        vec!["verify", "timeline", p(&bad), "--format", "json"],
        vec![
            "verify",
            "timeline",
            p(&bad),
            "--revision",
            "06",
            "--format",
            "json",
        ],
        vec!["digest", p(&v07), "--preimage"],
        vec!["digest", p(&v07), "--format", "json", "--preimage"],
        vec!["digest", p(&bad), "--format", "json"],
        vec!["commit", p(&v07), "--published-at", PUBLISHED_AT],
        vec!["rules"],
        vec!["rules", "--format", "json"],
    ];
    for args in cases {
        let a = run(&args);
        let b = run(&args);
        assert_eq!(a.code, b.code, "{}", a.what);
        assert_eq!(
            a.stdout, b.stdout,
            "{}: stdout differs between runs",
            a.what
        );
        assert_eq!(
            a.stderr, b.stderr,
            "{}: stderr differs between runs",
            a.what
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Robustness: closed pipes, large inputs
// ---------------------------------------------------------------------------------------------

/// Spawns the binary with its stdout read end already closed and returns (exit code, stderr).
fn run_with_closed_stdout(args: &[&str]) -> (i32, String) {
    let what = describe(args);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: spawn: {e}"));
    // Close the read end before the child writes anything.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr pipe")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait");
    let code = status
        .code()
        .unwrap_or_else(|| panic!("{what}: killed by a signal ({status:?}); stderr:\n{stderr}"));
    assert_ne!(code, 101, "{what}: panicked on a closed stdout:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    (code, stderr)
}

#[test]
fn closed_stdout_does_not_panic() {
    let dir = TempDir::new("closed-stdout");
    let big = dir.write("big.json", rev09_chain("job-big", 20_000));
    let big = p(&big);

    // The large output first: 20,000 digest lines, and the same as JSON with preimages.
    for args in [
        vec!["digest", big],
        vec!["digest", big, "--preimage"],
        vec!["digest", big, "--format", "json", "--preimage"],
        vec!["digest", big, "--revision", "06"],
    ] {
        let (code, stderr) = run_with_closed_stdout(&args);
        assert_ne!(
            code, EXIT_VALID,
            "{args:?}: a lost output is not success: {stderr}"
        );
    }
    let v07 = v07_path();
    for args in [
        vec!["verify", "timeline", big],
        vec!["verify", "timeline", big, "--format", "json"],
        vec![
            "verify",
            "timeline",
            big,
            "--revision",
            "06",
            "--format",
            "json",
        ],
        vec!["verify", "timeline", p(&v07)],
        vec!["commit", p(&v07), "--published-at", PUBLISHED_AT],
        vec!["rules"],
        vec!["rules", "--format", "json"],
    ] {
        run_with_closed_stdout(&args);
    }
}

#[test]
fn large_chain_verifies_and_digests_consistently() {
    let dir = TempDir::new("large");
    let big = dir.write("big.json", rev09_chain("job-big", 20_000));
    let (r, v) = verify_timeline_json(&big, &[]);
    r.expect_code(EXIT_VALID);
    assert_eq!(v["entry_count"], 20_000);
    let final_digest = v["final_entry_digest"]
        .as_str()
        .expect("final digest")
        .to_string();

    let r = run(&["digest", p(&big)]);
    r.expect_code(EXIT_VALID);
    let out = r.out();
    assert_eq!(out.lines().count(), 20_000);
    assert_eq!(
        out.lines().last(),
        Some(format!("19999 {final_digest}").as_str())
    );

    // Checked under 06, every link but genesis breaks: the failure list is capped, the rest counted.
    let (r, v) = verify_timeline_json(&big, &["--revision", "06", "--max-failures", "10"]);
    r.expect_code(EXIT_INVALID);
    assert_eq!(v["failures"].as_array().map(Vec::len), Some(10));
    assert_eq!(v["failures_omitted"], 19_999 - 10);
}

/// Regression: with standard error a closed pipe, paths that write a message (usage errors,
/// unreadable input, `commit` on an invalid chain) once panicked through `eprintln!` with exit
/// code 101 instead of exiting 2 or 1.
#[test]
fn closed_stderr_does_not_panic() {
    let dir = TempDir::new("closed-stderr");
    let bad = dir.write("bad.json", "not json");
    let missing = dir.path().join("missing.json");
    for args in [
        vec!["verify", "timeline", p(&missing)],
        vec!["commit", p(&bad), "--published-at", PUBLISHED_AT],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stderr.take());
        let output = child.wait_with_output().expect("wait");
        let code = output.status.code();
        assert!(
            matches!(code, Some(1) | Some(2)),
            "{args:?}: exit {code:?} with a closed stderr"
        );
    }
}

// ------------------------------------------------------------------------------------------------
// The embedded corpus: `agentconf vectors …`.

/// The committed manifest, read from the repository (the binary must agree with it).
fn committed_manifest() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/manifest.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("vectors/manifest.json")).unwrap()
}

#[test]
fn vectors_list_reports_the_committed_corpus_digest() {
    let manifest = committed_manifest();
    let digest = manifest["corpus_digest"].as_str().unwrap();
    let listing = run(&["vectors", "list"]).expect_code(0).out();
    assert!(listing.trim_end().ends_with(digest), "{listing}");
    let json = run(&["vectors", "list", "--format", "json"])
        .expect_code(0)
        .json();
    assert_eq!(json["corpus_digest"], digest);
    assert_eq!(json["selected"], manifest["vector_count"]);
    assert_eq!(json["vectors"], manifest["vectors"]);
}

#[test]
fn vectors_list_filters() {
    let json = |args: &[&str]| {
        let mut all = vec!["vectors", "list", "--format", "json"];
        all.extend_from_slice(args);
        run(&all).expect_code(0).json()
    };
    let reclosed = json(&["--family", "reclosed"]);
    assert!(reclosed["selected"].as_u64().unwrap() > 0);
    for v in reclosed["vectors"].as_array().unwrap() {
        assert_eq!(v["family"], "reclosed");
    }
    for v in json(&["--rule", "AER1-TL-GENESIS"])["vectors"]
        .as_array()
        .unwrap()
    {
        assert!(v["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "AER1-TL-GENESIS"));
    }
    for v in json(&["--revision", "06"])["vectors"].as_array().unwrap() {
        assert!(v["revisions"].as_array().unwrap().iter().any(|r| r == "06"));
    }
    // Under --revision, a vector graded differently per revision shows that revision's
    // expectation, in JSON as in text.
    let expectation_under = |revision: &str| {
        json(&["--revision", revision, "--family", "revision06"])["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == "aer1/timeline/revision06/example-06-5-inner-tool-changed")
            .map(|v| v["expectation"].clone())
    };
    assert_eq!(expectation_under("06"), Some(json!("valid")));
    assert_eq!(expectation_under("09"), Some(json!("invalid")));
    for v in json(&["--suite", "aer1-receipt"])["vectors"]
        .as_array()
        .unwrap()
    {
        assert_eq!(v["suite"], "aer1-receipt");
    }
    run(&["vectors", "list", "--revision", "10"]).expect_code(2);
}

#[test]
fn vectors_show_prints_the_committed_file_and_its_inputs() {
    let manifest = committed_manifest();
    let vectors_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    for entry in manifest["vectors"].as_array().unwrap().iter().step_by(7) {
        let id = entry["id"].as_str().unwrap();
        let shown = run(&["vectors", "show", id]).expect_code(0).stdout.clone();
        let on_disk = std::fs::read(vectors_dir.join(entry["path"].as_str().unwrap())).unwrap();
        assert!(
            shown == on_disk,
            "{id}: `vectors show` differs from the committed file (run `cargo xtask vectors`)"
        );
        let vector: Value = serde_json::from_slice(&on_disk).unwrap();
        for input in vector["inputs"].as_array().unwrap() {
            let role = input["file"].as_str().unwrap();
            let bytes = run(&["vectors", "show", id, "--input", role])
                .expect_code(0)
                .stdout
                .clone();
            let sha = agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(&bytes));
            assert_eq!(sha, input["sha256"].as_str().unwrap(), "{id} input {role}");
        }
    }
    run(&["vectors", "show", "aer1/timeline/valid/no-such-vector"]).expect_code(2);
    run(&[
        "vectors",
        "show",
        "aer1/timeline/valid/example-5",
        "--input",
        "receipt",
    ])
    .expect_code(2);
}

#[test]
fn a_shown_input_verifies_as_the_vector_expects() {
    let dir = TempDir::new("shown-input");
    let id = "aer1/timeline/valid/example-5-with-commitment";
    let timeline = dir.write(
        "t.json",
        run(&["vectors", "show", id, "--input", "timeline"]).stdout,
    );
    let commitment = dir.write(
        "c.json",
        run(&["vectors", "show", id, "--input", "commitment"]).stdout,
    );
    run(&[
        "verify",
        "timeline",
        p(&timeline),
        "--commitment",
        p(&commitment),
    ])
    .expect_code(0);
}

#[test]
fn vectors_export_writes_one_revision_and_never_overwrites() {
    let dir = TempDir::new("export");
    let out = dir.path().join("rev06");
    run(&["vectors", "export", "--revision", "06", p(&out)]).expect_code(0);
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let vectors = manifest["vectors"].as_array().unwrap();
    assert!(!vectors.is_empty());
    for v in vectors {
        assert!(
            v["revisions"].as_array().unwrap().iter().any(|r| r == "06"),
            "{v}"
        );
        assert!(out.join(v["path"].as_str().unwrap()).is_file());
    }
    assert!(out.join("schema/vector.schema.json").is_file());
    assert!(out.join("inputs").is_dir());
    // A second export into the same, now non-empty, directory is refused and changes nothing.
    let before = std::fs::read(out.join("manifest.json")).unwrap();
    run(&["vectors", "export", "--revision", "09", p(&out)]).expect_code(2);
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), before);
}

// ---------------------------------------------------------------------------------------------
// Hostile names and mistyped arguments
// ---------------------------------------------------------------------------------------------

/// A file name with an escape sequence and line breaks cannot forge a line of the text report
/// (a `verdict: VALID` of its own) nor reach the terminal raw, on standard output or in an error.
#[test]
fn hostile_file_names_are_printed_terminal_safe() {
    let dir = TempDir::new("hostile-name");
    let name = "x\rverdict: VALID\n\u{1b}[2K\u{202e}.json";
    // An invalid timeline, so that a forged VALID line would matter.
    let path = dir.write(name, "[]");
    let r = run(&["verify", "timeline", p(&path)]);
    r.expect_code(EXIT_INVALID);
    let out = r.out();
    let verdicts: Vec<&str> = out.lines().filter(|l| l.starts_with("verdict:")).collect();
    assert_eq!(verdicts, ["verdict: INVALID (1 failure)"], "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{202e}'));
    assert!(out.contains("\\u{1b}[2K") && out.contains("\\n"), "{out}");
    // The same name in an error message on standard error.
    let missing = dir.path().join("missing\n\u{1b}[31mverdict: VALID");
    let r = run(&["verify", "timeline", p(&missing)]);
    r.expect_code(EXIT_USAGE);
    assert!(!r.stderr.contains('\u{1b}'), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}

/// Mistyped arguments are usage errors, not empty answers.
#[test]
fn filters_that_can_match_nothing_and_zero_workers_are_refused() {
    for args in [
        vec!["vectors", "list", "--suite", "nope"],
        vec!["vectors", "list", "--family", "nope"],
        vec!["run", "--jobs", "0", "--include", "aer1/workflow/valid"],
        vec!["run", "--max-fail", "0", "--include", "aer1/workflow/valid"],
        vec!["run", "--timeout", "0", "--include", "aer1/workflow/valid"],
    ] {
        let r = run(&args);
        r.expect_code(EXIT_USAGE);
        assert!(r.stdout.is_empty(), "{args:?}");
    }
    run(&["vectors", "list", "--suite", "grp-admission"]).expect_code(EXIT_VALID);
}

/// `report diff` writes text only: another format is refused, not silently replaced; a reader
/// that closes the pipe early cuts the output without a message about it.
#[test]
fn report_diff_formats_and_closed_pipes() {
    let dir = TempDir::new("report-diff");
    let results = dir.path().join("r.jsonl");
    run(&[
        "run",
        "--include",
        "aer1/workflow/valid",
        "--out",
        p(&results),
    ])
    .expect_code(EXIT_VALID);
    let r = run(&["report", "diff", p(&results), p(&results)]);
    r.expect_code(EXIT_VALID);
    for format in ["markdown", "json"] {
        let r = run(&[
            "report",
            "diff",
            p(&results),
            p(&results),
            "--format",
            format,
        ]);
        r.expect_code(EXIT_VALID);
        assert!(!r.stdout.is_empty(), "{format}: nothing written");
    }
    for format in ["html", "junit", "badge"] {
        let r = run(&[
            "report",
            "diff",
            p(&results),
            p(&results),
            "--format",
            format,
        ]);
        r.expect_code(EXIT_USAGE);
        assert!(
            r.stderr.contains("[possible values: text, json, markdown]"),
            "{}",
            r.stderr
        );
    }
    for format in ["json", "html", "text"] {
        let (code, stderr) = run_with_closed_stdout(&["report", p(&results), "--format", format]);
        assert_eq!(code, EXIT_USAGE, "{format}: a lost output is not success");
        assert!(stderr.is_empty(), "{format}: {stderr}");
    }
}

/// A run names every file it wrote and ends with what its verdict claims: the last lines a
/// newcomer reads after the README's first command.
#[test]
fn a_run_names_its_files_and_says_what_its_verdict_claims() {
    let dir = std::env::temp_dir().join(format!("agentconf-cli-closing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (results, html) = (dir.join("r.jsonl"), dir.join("r.html"));
    let r = run(&[
        "run",
        "--include",
        "aer1/receipt/valid/",
        "--out",
        p(&results),
        "--html",
        p(&html),
    ]);
    let out = r.out();
    assert!(results.is_file() && html.is_file(), "{out}");
    assert!(
        out.contains(&format!("results file: {}\n", p(&results))),
        "{out}"
    );
    assert!(
        out.contains(&format!("HTML report:  {}\n", p(&html))),
        "{out}"
    );
    // A selection is not the corpus: PARTIAL, and the last line says it claims nothing.
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("PARTIAL: ") && last.contains("no claim of conformance"),
        "{last}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `report --exit-zero` publishes a FAIL report or a red badge without failing a CI step, and
/// still refuses a file that is not whole (exit 2).
#[test]
fn report_exit_zero_publishes_a_failing_verdict() {
    let dir = std::env::temp_dir().join(format!("agentconf-cli-exit-zero-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = dir.join("fail.jsonl");
    // Rejects everything: the valid receipts are false rejections.
    let ran = run(&[
        "run",
        "--keep-going",
        "--include",
        "aer1/receipt/valid/",
        "--out",
        p(&results),
        "--",
        "sh",
        "-c",
        "exit 1",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.out());
    let badge = |extra: &[&str]| {
        let mut args = vec!["report", "--format", "badge", p(&results)];
        args.extend_from_slice(extra);
        run(&args)
    };
    let failing = badge(&[]);
    assert_eq!(failing.code, 1);
    let published = badge(&["--exit-zero"]);
    assert_eq!(published.code, 0);
    assert_eq!(published.out(), failing.out());
    assert!(
        published.out().contains("\"color\":\"red\""),
        "{}",
        published.out()
    );
    let cut = dir.join("cut.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    assert_eq!(
        run(&["report", "--exit-zero", p(&cut)]).code,
        2,
        "a refused file is not published"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
