//! Persistent mode (crates/contract/CONTRACT.md section 8) end to end: the reference server
//! (`agentconf impl serve`) passes the whole AER-1 corpus with strict grading and schema
//! validation, and misbehaving servers are classified (crash with a restart, wrong seq, a
//! malformed response, a timeout).

use std::path::PathBuf;
use std::time::Duration;

use agentconf_contract::vector::{Expectation, Suite, Vector};
use agentconf_harness::Grading;
use agentconf_harness::Implementation;
use agentconf_harness::Status;
use agentconf_harness::{PersistentConfig, PersistentError, PersistentSession, StartProblem};

fn reference() -> Implementation {
    Implementation {
        argv: vec![
            env!("CARGO_BIN_EXE_agentconf").to_string(),
            "impl".to_string(),
        ],
        timeout: Duration::from_secs(60),
        capture_limit: 1 << 20,
        profiles: vec!["durable".into(), "atomic".into()],
    }
}

/// A server written in sh: `script` runs as `sh -c script fake serve`.
fn fake(script: &str, timeout: Duration) -> PersistentConfig {
    let mut config = PersistentConfig::new(Implementation {
        argv: vec!["sh".into(), "-c".into(), script.into(), "fake".into()],
        timeout,
        capture_limit: 4096,
        profiles: vec![],
    });
    config.validate_protocol = true;
    config
}

fn work(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "agentconf-persistent-{name}-{}",
        std::process::id()
    ))
}

const START: &str = r#"{"protocol":1,"implementation":{"name":"fake","version":"0"},"capabilities":{"operations":["aer1-receipt","aer1-timeline","aer1-workflow"]}}"#;

/// The loop of a fake server: answers start and stop, and runs `on_run` (with `$seq` set to the
/// request's seq) for every run request.
fn server(on_run: &str) -> String {
    format!(
        r#"while IFS= read -r line; do
  case "$line" in
    *'"cmd":"start"'*) echo '{START}' ;;
    *'"cmd":"stop"'*) echo '{{"stopped":true}}'; exit 0 ;;
    *) seq=$(printf '%s\n' "$line" | sed 's/.*"seq":\([0-9]*\).*/\1/')
       {on_run} ;;
  esac
done"#
    )
}

fn valid_timelines(n: usize) -> Vec<Vector> {
    agentconf_corpus::corpus()
        .into_iter()
        .filter(|v| {
            v.suite == Suite::Aer1Timeline
                && v.expectation == Expectation::Valid
                && v.revisions.iter().any(|r| r == "09")
                && !v.inputs.iter().any(|i| i.role == "commitment")
        })
        .take(n)
        .collect()
}

#[test]
fn the_reference_passes_the_aer1_corpus_in_persistent_mode() {
    let mut config = PersistentConfig::new(reference());
    config.validate_protocol = true;
    let mut session = PersistentSession::start(config).expect("the reference server starts");
    assert_eq!(session.info().name, "agentconf-reference");
    assert_eq!(
        session.info().capabilities.operations,
        ["aer1-receipt", "aer1-timeline", "aer1-workflow"]
    );
    assert_eq!(
        session.info().capabilities.receipt_tiers(),
        Some(&["core", "strict", "anchored", "profile"].map(String::from)[..])
    );
    let work = work("reference");
    let corpus = agentconf_corpus::corpus();
    let aer1: Vec<&Vector> = corpus
        .iter()
        .filter(|v| v.suite != Suite::GrpAdmission)
        .collect();
    assert!(aer1.len() > 300, "{}", aer1.len());
    // One GRP scenario too: it runs one-shot, with real processes.
    let grp = corpus
        .iter()
        .find(|v| v.suite == Suite::GrpAdmission)
        .expect("a GRP vector");
    let mut failures = Vec::new();
    for v in aer1.iter().copied().chain([grp]) {
        let r = session.run(&v.main_case(), &work, Grading::Strict);
        if r.status != Status::Pass {
            failures.push(format!(
                "{}: {:?}: {} {}",
                r.id, r.status, r.detail, r.stderr
            ));
        }
    }
    assert_eq!(session.restarts(), 0);
    session.stop().expect("a clean stop");
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        failures.is_empty(),
        "{} vectors did not pass:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_crash_fails_one_vector_and_the_session_restarts() {
    // Answers every run (verdict-only), except that it dies on a workflow.
    let script = server(
        r#"case "$line" in
         *aer1-workflow*) echo "dying on purpose" >&2; exit 3 ;;
         *) echo "{\"seq\":$seq,\"exit\":0,\"verdict\":null}" ;;
       esac"#,
    );
    let mut session =
        PersistentSession::start(fake(&script, Duration::from_secs(10))).expect("starts");
    let work = work("crash");
    let workflow = agentconf_corpus::corpus()
        .into_iter()
        .find(|v| v.suite == Suite::Aer1Workflow)
        .expect("a workflow vector");
    let timelines = valid_timelines(4);
    let mut statuses = Vec::new();
    for v in &timelines[..2] {
        statuses.push(session.run(&v.main_case(), &work, Grading::Strict));
    }
    let crashed = session.run(&workflow.main_case(), &work, Grading::Strict);
    for v in &timelines[2..] {
        statuses.push(session.run(&v.main_case(), &work, Grading::Strict));
    }
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(crashed.status, Status::Crash, "{crashed:?}");
    assert!(
        crashed.detail.contains("exit status 3"),
        "{}",
        crashed.detail
    );
    assert!(crashed.stderr.contains("dying on purpose"), "{crashed:?}");
    assert!(
        statuses.iter().all(|r| r.status == Status::Pass),
        "{statuses:?}"
    );
    assert_eq!(session.restarts(), 1);
    session.stop().expect("a clean stop");
}

#[test]
fn a_server_that_dies_after_start_crashes_every_vector_but_the_run_goes_on() {
    let script = format!(r#"read -r line; echo '{START}'; read -r line; exit 0"#);
    let mut session =
        PersistentSession::start(fake(&script, Duration::from_secs(10))).expect("starts");
    let work = work("dies");
    let results: Vec<_> = valid_timelines(3)
        .iter()
        .map(|v| session.run(&v.main_case(), &work, Grading::Strict))
        .collect();
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        results.iter().all(|r| r.status == Status::Crash),
        "{results:?}"
    );
    assert_eq!(session.restarts(), 2);
}

#[test]
fn a_wrong_seq_echo_is_a_protocol_error_and_the_session_restarts() {
    let script = server(r#"echo "{\"seq\":$((seq + 1000)),\"exit\":0,\"verdict\":\"valid\"}""#);
    let mut session =
        PersistentSession::start(fake(&script, Duration::from_secs(10))).expect("starts");
    let work = work("seq");
    let vectors = valid_timelines(2);
    let first = session.run(&vectors[0].main_case(), &work, Grading::Strict);
    let second = session.run(&vectors[1].main_case(), &work, Grading::Strict);
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(first.status, Status::ProtocolError, "{first:?}");
    assert!(
        first.detail.contains("does not echo the request's seq"),
        "{}",
        first.detail
    );
    assert_eq!(second.status, Status::ProtocolError);
    assert_eq!(session.restarts(), 1);
}

#[test]
fn the_schema_catches_a_malformed_response() {
    let script = server(r#"echo "{\"seq\":$seq,\"exit\":\"zero\",\"verdict\":\"valid\"}""#);
    let work = work("schema");
    let v = &valid_timelines(1)[0];
    let mut session =
        PersistentSession::start(fake(&script, Duration::from_secs(10))).expect("starts");
    let r = session.run(&v.main_case(), &work, Grading::Strict);
    assert_eq!(r.status, Status::ProtocolError, "{r:?}");
    assert!(
        r.detail.contains("protocol.schema.json") && r.detail.contains("/exit"),
        "{}",
        r.detail
    );
    assert!(
        r.detail.contains(r#""zero" is not of type "integer""#),
        "{}",
        r.detail
    );
    // In step, so no restart.
    assert_eq!(session.restarts(), 0);
    session.stop().expect("a clean stop");

    // Without validation it is still a protocol error, with serde's wording.
    let mut config = fake(&script, Duration::from_secs(10));
    config.validate_protocol = false;
    let mut session = PersistentSession::start(config).expect("starts");
    let r = session.run(&v.main_case(), &work, Grading::Strict);
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(r.status, Status::ProtocolError, "{r:?}");
    assert!(!r.detail.contains("protocol.schema.json"), "{}", r.detail);
}

#[test]
fn a_malformed_start_response_is_refused_with_the_schema_error() {
    let script = r#"read -r line; echo '{"protocol":1,"implementation":{"name":"x"},"capabilities":{"operations":["aer1-timeline"]}}'; sleep 5"#;
    let err = PersistentSession::start(fake(script, Duration::from_secs(10)))
        .err()
        .expect("refused");
    assert!(
        matches!(
            &err,
            PersistentError::StartResponse {
                problem: StartProblem::Schema(_),
                ..
            }
        ),
        "{err:?}"
    );
    let err = err.to_string();
    assert!(
        err.contains("start response breaks protocol.schema.json") && err.contains("version"),
        "{err}"
    );
}

#[test]
fn a_hang_is_a_timeout_and_the_session_restarts() {
    // Hangs on its first run request only (a marker file tells the restarted copy).
    let marker = work("hang-marker");
    let _ = std::fs::remove_file(&marker);
    let script = server(&format!(
        r#"if [ ! -e '{m}' ]; then : > '{m}'; sleep 30; fi
       echo "{{\"seq\":$seq,\"exit\":0,\"verdict\":\"valid\",\"rules\":[]}}""#,
        m = marker.display()
    ));
    let mut session =
        PersistentSession::start(fake(&script, Duration::from_millis(500))).expect("starts");
    let work = work("hang");
    let vectors = valid_timelines(2);
    let started = std::time::Instant::now();
    let first = session.run(&vectors[0].main_case(), &work, Grading::Strict);
    let second = session.run(&vectors[1].main_case(), &work, Grading::Strict);
    let _ = std::fs::remove_dir_all(&work);
    let _ = std::fs::remove_file(&marker);
    assert_eq!(first.status, Status::Timeout, "{first:?}");
    assert_eq!(second.status, Status::Pass, "{second:?}");
    assert_eq!(session.restarts(), 1);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the sleeper was not killed"
    );
    session.stop().expect("a clean stop");
}

#[test]
fn unclaimed_capabilities_are_unsupported_and_not_sent() {
    // Claims timelines only, and would crash on anything it is sent but a timeline.
    let script = r#"while IFS= read -r line; do
  case "$line" in
    *'"cmd":"start"'*) echo '{"protocol":1,"implementation":{"name":"t","version":"1"},"capabilities":{"operations":["aer1-timeline"],"timeline_revisions":["09"]}}' ;;
    *aer1-timeline*) seq=$(printf '%s\n' "$line" | sed 's/.*"seq":\([0-9]*\).*/\1/'); echo "{\"seq\":$seq,\"exit\":0}" ;;
    *) exit 3 ;;
  esac
done"#;
    let mut session =
        PersistentSession::start(fake(script, Duration::from_secs(10))).expect("starts");
    let work = work("caps");
    let corpus = agentconf_corpus::corpus();
    let receipt = corpus
        .iter()
        .find(|v| v.suite == Suite::Aer1Receipt)
        .unwrap();
    let r06 = corpus
        .iter()
        .find(|v| v.suite == Suite::Aer1Timeline && v.revisions == ["06"])
        .expect("a 06-only timeline vector");
    for v in [receipt, r06] {
        let r = session.run(&v.main_case(), &work, Grading::Strict);
        assert_eq!(r.status, Status::Unsupported, "{r:?}");
    }
    let r = session.run(&valid_timelines(1)[0].main_case(), &work, Grading::Strict);
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(r.status, Status::Pass, "{r:?}");
    assert_eq!(session.restarts(), 0);
}

#[test]
fn receipt_tiers_outside_the_claim_are_unsupported_and_not_sent() {
    // Claims receipts under the pre-0.2.0 name `id_tiers` (core and strict); it would crash on
    // anything it is sent but a core or strict receipt, and accepts those.
    let script = r#"while IFS= read -r line; do
  case "$line" in
    *'"cmd":"start"'*) echo '{"protocol":1,"implementation":{"name":"t","version":"1"},"capabilities":{"operations":["aer1-receipt"],"id_tiers":["core","strict"]}}' ;;
    *anchored*|*profile*) exit 3 ;;
    *aer1-receipt*) seq=$(printf '%s\n' "$line" | sed 's/.*"seq":\([0-9]*\).*/\1/'); echo "{\"seq\":$seq,\"exit\":0}" ;;
    *) exit 3 ;;
  esac
done"#;
    let mut session =
        PersistentSession::start(fake(script, Duration::from_secs(10))).expect("starts");
    let work = work("tiers");
    let corpus = agentconf_corpus::corpus();
    let find = |id: &str| corpus.iter().find(|v| v.id == id).expect(id);
    for id in [
        "aer1/receipt/anchored/valid",
        "aer1/receipt/profile/payload-with-inputs",
    ] {
        let r = session.run(&find(id).main_case(), &work, Grading::Strict);
        assert_eq!(r.status, Status::Unsupported, "{r:?}");
    }
    for id in [
        "aer1/receipt/valid/worked-value",
        "aer1/receipt/id-tier/strict-v4-id",
    ] {
        let r = session.run(&find(id).main_case(), &work, Grading::Strict);
        assert_eq!(r.status, Status::Pass, "{r:?}");
    }
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(session.restarts(), 0);
}

#[test]
fn a_server_that_exits_after_each_response_costs_no_vector() {
    // CONTRACT 8.7: a process that exited between two requests is restarted before the next one
    // and the restart is charged to no vector. These exit 0 after every response, in three ways
    // the next request can meet: gone already (found exited before the request is sent), still
    // there for a moment without reading (the request goes into a pipe nobody reads), or with
    // its input closed first (the write breaks). Before the fix the last two were crashes of the
    // next vector; every round must now pass every vector, with one restart per vector after
    // the first.
    let answer = r#"echo "{\"seq\":$seq,\"exit\":0,\"verdict\":null}""#;
    let ways = [
        format!("{answer}; exit 0"),
        format!("{answer}; sleep 0.2; exit 0"),
        format!("{answer}; exec 0<&-; sleep 0.2; exit 0"),
    ];
    let vectors = valid_timelines(6);
    let work = work("exits");
    for round in 0..9 {
        let script = server(&ways[round % ways.len()]);
        let mut session =
            PersistentSession::start(fake(&script, Duration::from_secs(10))).expect("starts");
        let results: Vec<_> = vectors
            .iter()
            .map(|v| session.run(&v.main_case(), &work, Grading::Strict))
            .collect();
        assert!(
            results.iter().all(|r| r.status == Status::Pass),
            "round {round}: {results:?}"
        );
        assert!(
            results[1..]
                .iter()
                .all(|r| r.detail.contains("exited between requests")),
            "round {round}: {results:?}"
        );
        assert_eq!(session.restarts(), vectors.len() - 1, "round {round}");
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn a_server_that_exits_before_reading_even_after_a_restart_is_charged() {
    // Answers start, then exits without reading a request: the request is sent again once to a
    // fresh process, and when that one does the same the vector is a crash (not an endless
    // series of restarts).
    let script = format!(r#"read -r line; echo '{START}'; exit 0"#);
    let mut session =
        PersistentSession::start(fake(&script, Duration::from_secs(10))).expect("starts");
    let work = work("never-reads");
    let r = session.run(&valid_timelines(1)[0].main_case(), &work, Grading::Strict);
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(r.status, Status::Crash, "{r:?}");
    assert!(
        r.detail.contains("also right after a restart"),
        "{}",
        r.detail
    );
}

#[test]
fn a_wrapper_that_exits_after_each_response_is_restarted_and_the_restarts_recorded() {
    // The reference server behind a wrapper that passes on `start` and one request, then exits
    // 0: ten runs of `agentconf run --persistent`, no crash ever, and the footer of the results
    // file counts the restarts (one per case after the first).
    let dir = work("wrapper");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let wrapper = dir.join("once.sh");
    std::fs::write(
        &wrapper,
        format!(
            r#"#!/bin/bash
# Serves start and one request through the reference server, then exits 0.
coproc S {{ exec '{}' impl "$@"; }}
for _ in 1 2; do
  IFS= read -r line || exit 0
  printf '%s\n' "$line" >&"${{S[1]}}"
  IFS= read -r resp <&"${{S[0]}}"
  printf '%s\n' "$resp"
done
exit 0
"#,
            env!("CARGO_BIN_EXE_agentconf")
        ),
    )
    .expect("write wrapper");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../harness/schema/results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let out = dir.join("results.jsonl");
    for round in 0..10 {
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(["run", "--persistent", "--jobs", "1", "--timeout", "30"])
            .args(["--include", "aer1/timeline/valid/example-", "--out"])
            .arg(&out)
            .arg("--")
            .arg(&wrapper)
            .output()
            .expect("run agentconf");
        assert!(
            run.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&out)
            .expect("results file")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect();
        for line in &lines {
            assert!(validator.is_valid(line), "round {round}: {line}");
        }
        let results: Vec<_> = lines.iter().filter(|l| l["type"] == "result").collect();
        assert!(results.len() > 2, "{}", results.len());
        for r in &results {
            assert_eq!(r["status"], "pass", "round {round}: {r}");
        }
        let footer = lines.last().expect("a footer");
        assert_eq!(footer["type"], "footer");
        assert_eq!(
            footer["restarts"].as_u64(),
            Some(results.len() as u64 - 1),
            "round {round}: {footer}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
