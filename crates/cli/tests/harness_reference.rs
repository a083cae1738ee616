//! The whole corpus through the process contract: `agentconf impl` (the reference speaking
//! crates/contract/CONTRACT.md) run by the harness's runner, graded strictly, claiming both GRP
//! profiles. Every vector must pass. This checks the contract plumbing end to end (argument
//! order, exit codes, result objects, scenario orchestration with real processes); the reference's
//! agreement with the vectors is checked in-process by crates/corpus/tests/self_test.rs.

use std::time::Duration;

use agentconf_harness::Grading;
use agentconf_harness::Status;
use agentconf_harness::{run_case, Implementation};

#[test]
fn the_reference_passes_every_vector_through_the_contract() {
    let imp = Implementation {
        argv: vec![
            env!("CARGO_BIN_EXE_agentconf").to_string(),
            "impl".to_string(),
        ],
        timeout: Duration::from_secs(60),
        capture_limit: 1 << 20,
        profiles: vec!["durable".into(), "atomic".into()],
    };
    let work = std::env::temp_dir().join(format!("agentconf-harness-ref-{}", std::process::id()));
    let corpus = agentconf_corpus::corpus();
    // Every case: a vector graded differently under revision 06 runs once per revision. The
    // `cluster` vectors need nodes that share a store, which the reference's processes have only
    // when given one (`AGENTCONF_GRP_STORE`): tests/cluster.rs runs them.
    let cases: Vec<agentconf_contract::case::Case<'_>> = corpus
        .iter()
        .filter(|v| !v.requires.iter().any(|p| p == "cluster"))
        .flat_map(|v| v.cases())
        .collect();
    let halves: Vec<&[agentconf_contract::case::Case<'_>]> = {
        let (a, b) = cases.split_at(cases.len() / 2);
        vec![a, b]
    };
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = halves
            .into_iter()
            .map(|part| {
                let (imp, work, ran) = (&imp, &work, &ran);
                s.spawn(move || {
                    part.iter()
                        .map(|c| run_case(imp, c, work, Grading::Strict))
                        .inspect(|_| {
                            ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        })
                        .filter(|r| r.status != Status::Pass)
                        .map(|r| format!("{}: {:?}: {} {}", r.id, r.status, r.detail, r.stderr))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(ran.into_inner(), cases.len());
    assert!(corpus
        .iter()
        .any(|v| v.suite == agentconf_contract::vector::Suite::GrpAdmission));
    assert!(
        failures.is_empty(),
        "{} vectors did not pass:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A broken implementation is graded as broken: one that accepts everything is caught with
/// false accepts, one that crashes is a crash, and one that says "unsupported" is unsupported.
#[test]
fn misbehaving_implementations_are_classified() {
    let corpus = agentconf_corpus::corpus();
    let invalid = corpus
        .iter()
        .find(|v| v.id == "aer1/timeline/reclosed/drop-2-of-8-against-commitment")
        .expect("vector");
    let work = std::env::temp_dir().join(format!("agentconf-harness-bad-{}", std::process::id()));
    let with = |script: &str| Implementation {
        argv: vec!["sh".into(), "-c".into(), script.into(), "impl".into()],
        timeout: Duration::from_secs(5),
        capture_limit: 4096,
        profiles: vec![],
    };
    let status =
        |script: &str| run_case(&with(script), &invalid.main_case(), &work, Grading::Strict).status;
    assert_eq!(status("exit 0"), Status::FalseAccept);
    assert_eq!(status("exit 89"), Status::Unsupported);
    assert_eq!(status("exit 2"), Status::Crash);
    assert_eq!(status("kill -SEGV $$"), Status::Crash);
    assert_eq!(status("echo garbage; exit 1"), Status::ProtocolError);
    assert_eq!(
        status(r#"echo '{"verdict":"invalid","rules":["AER1-TL-SEQ"]}'; exit 1"#),
        Status::WrongReason
    );
    assert_eq!(status("echo noise >&2; exit 1"), Status::Pass);
    // 100 MB on standard output: captured up to the limit, the rest counted and dropped; not a
    // result object, so a protocol error, and no memory blow-up.
    assert_eq!(
        status("head -c 100000000 /dev/zero; exit 1"),
        Status::ProtocolError
    );
    assert_eq!(
        status("head -c 100000000 /dev/zero >&2; exit 1"),
        Status::Pass
    );
    // A result object longer than the capture limit is refused with the limit named, not as
    // malformed JSON.
    let long = r#"printf '{"verdict":"invalid","rules":["AER1-CM-COUNT"],"messages":["%s"]}' "$(head -c 5000 /dev/zero | tr '\0' x)"; exit 1"#;
    let r = run_case(&with(long), &invalid.main_case(), &work, Grading::Strict);
    assert_eq!(r.status, Status::ProtocolError);
    assert!(r.detail.contains("4096-byte capture limit"), "{}", r.detail);
    let slow = Implementation {
        timeout: Duration::from_millis(300),
        ..with("sleep 30")
    };
    assert_eq!(
        run_case(&slow, &invalid.main_case(), &work, Grading::Strict).status,
        Status::Timeout
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// GRP scenarios are really run: a receiver without the duplicate check (the reference forced to
/// revision 00) is caught admitting a re-delivered copy, and a scenario that needs an unclaimed
/// profile is unsupported.
#[test]
fn grp_scenarios_catch_a_receiver_without_dedup() {
    let corpus = agentconf_corpus::corpus();
    let find = |id: &str| corpus.iter().find(|v| v.id == id).expect("vector");
    let redelivery = find("grp/admission/duplicate-event/exact-redelivery-p-type-3");
    let restart = find("grp/admission/duplicate-event/redelivery-after-restart");
    let work = std::env::temp_dir().join(format!("agentconf-harness-grp-{}", std::process::id()));
    let no_dedup = Implementation {
        argv: vec![
            "sh".into(),
            "-c".into(),
            format!(
                "exec {} impl grp-admit 00 \"$3\" \"$4\"",
                env!("CARGO_BIN_EXE_agentconf")
            ),
            "impl".into(),
        ],
        timeout: Duration::from_secs(30),
        capture_limit: 4096,
        profiles: vec!["durable".into(), "atomic".into()],
    };
    assert_eq!(
        run_case(&no_dedup, &redelivery.main_case(), &work, Grading::Strict).status,
        Status::FalseAccept
    );
    let reference = Implementation {
        argv: vec![
            env!("CARGO_BIN_EXE_agentconf").to_string(),
            "impl".to_string(),
        ],
        timeout: Duration::from_secs(30),
        capture_limit: 4096,
        profiles: vec![],
    };
    assert_eq!(
        run_case(&reference, &restart.main_case(), &work, Grading::Strict).status,
        Status::Unsupported
    );
    assert_eq!(
        run_case(&reference, &redelivery.main_case(), &work, Grading::Strict).status,
        Status::Pass
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// A GRP receiver that misbehaves on its output streams is graded without exhausting the
/// harness: an endless decision line, a non-UTF-8 line, and 50 MB on standard error (kept up to
/// the capture limit, the rest drained) around an otherwise correct receiver.
#[test]
fn grp_receivers_with_hostile_output() {
    let corpus = agentconf_corpus::corpus();
    let v = corpus
        .iter()
        .find(|v| v.id == "grp/admission/duplicate-event/exact-redelivery-p-type-3")
        .expect("vector");
    let work = std::env::temp_dir().join(format!(
        "agentconf-harness-grp-hostile-{}",
        std::process::id()
    ));
    let with = |script: String| Implementation {
        argv: vec!["sh".into(), "-c".into(), script, "impl".into()],
        timeout: Duration::from_secs(30),
        capture_limit: 4096,
        profiles: vec![],
    };
    let r = run_case(
        &with("head -c 3000000 /dev/zero | tr '\\0' x; sleep 30".into()),
        &v.main_case(),
        &work,
        Grading::Strict,
    );
    assert_eq!(r.status, Status::ProtocolError, "{}", r.detail);
    assert!(r.detail.contains("longer than"), "{}", r.detail);
    let r = run_case(
        &with("printf '\\377\\n'; sleep 30".into()),
        &v.main_case(),
        &work,
        Grading::Strict,
    );
    assert_eq!(r.status, Status::ProtocolError, "{}", r.detail);
    assert!(r.detail.contains("UTF-8"), "{}", r.detail);
    let noisy = format!(
        "head -c 50000000 /dev/zero >&2; exec {} impl grp-admit \"$2\" \"$3\" \"$4\"",
        env!("CARGO_BIN_EXE_agentconf")
    );
    let r = run_case(&with(noisy), &v.main_case(), &work, Grading::Strict);
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
    let _ = std::fs::remove_dir_all(&work);
}

/// The stream's protocol errors (CONTRACT 5.1, 5.2) are caught around an otherwise correct
/// receiver, whatever the grading: a line after the last decision, a wrong `event_id`; a clean
/// exit before the input ended (a missing decision) is a crash (CONTRACT 3.2); and receivers'
/// standard error reaches the result, each under its receiver's number.
#[test]
fn grp_stream_protocol_errors_are_caught() {
    let corpus = agentconf_corpus::corpus();
    let find = |id: &str| corpus.iter().find(|v| v.id == id).expect("vector");
    let one = find("grp/admission/admission/valid-p-type-3");
    let two = find("grp/admission/duplicate-event/exact-redelivery-p-type-3");
    let restart = find("grp/admission/duplicate-event/redelivery-after-restart");
    let work = std::env::temp_dir().join(format!(
        "agentconf-harness-grp-protocol-{}",
        std::process::id()
    ));
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let with = |script: String| Implementation {
        argv: vec!["sh".into(), "-c".into(), script, "impl".into()],
        timeout: Duration::from_secs(30),
        capture_limit: 1 << 16,
        profiles: vec!["durable".into()],
    };
    let reference = format!("{bin} impl grp-admit \"$2\" \"$3\" \"$4\"");
    // The control: the same wrapper, nothing added.
    let r = run_case(
        &with(reference.clone()),
        &one.main_case(),
        &work,
        Grading::Loose,
    );
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
    let cases = [
        (
            one,
            format!("{reference}; echo '{{\"outcome\":\"admitted\"}}'"),
            "no event asked for",
        ),
        (
            one,
            format!("{reference} | sed -u 's/\"event_id\":\"[^\"]*\"/\"event_id\":\"other\"/'"),
            "event_id \"other\"",
        ),
    ];
    for (v, script, says) in cases {
        for grading in [Grading::Strict, Grading::Loose] {
            let r = run_case(&with(script.clone()), &v.main_case(), &work, grading);
            assert_eq!(r.status, Status::ProtocolError, "{script}: {}", r.detail);
            assert!(r.detail.contains(says), "{script}: {}", r.detail);
        }
    }
    let early = format!("IFS= read -r line; printf '%s\\n' \"$line\" | {reference}; exit 0");
    for grading in [Grading::Strict, Grading::Loose] {
        let r = run_case(&with(early.clone()), &two.main_case(), &work, grading);
        assert_eq!(r.status, Status::Crash, "{early}: {}", r.detail);
        assert!(r.detail.contains("exit status 0"), "{early}: {}", r.detail);
    }
    let noisy = format!("echo diagnostic-from-$$ >&2; {reference}");
    let r = run_case(&with(noisy), &restart.main_case(), &work, Grading::Strict);
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
    assert!(
        r.stderr.contains("[receiver 1]") && r.stderr.contains("[receiver 2]"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stderr.matches("diagnostic-from-").count(),
        2,
        "{}",
        r.stderr
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// The contract's Python example stays correct: on every timeline case it passes or says
/// unsupported (it implements only the current construction without commitments). Strict
/// grading is exact, so this is also a second reading of the corpus, independent of the
/// reference: on every timeline case it runs, its rules are the vector's, no more and no fewer
/// (a case where they differ fails here, naming both). And as an implementation of a subset it
/// earns every rule it gets right: a case whose counterpart it declared unsupported is paired
/// within the suite, so no rule of its is left uncredited.
#[test]
fn the_python_example_implementation_follows_the_contract() {
    let script = EXAMPLE;
    let scratch = Scratch::new("python-example");
    let out = scratch.path("example.jsonl");
    scratch.agentconf(&[
        "run",
        "--keep-going",
        "--include",
        "aer1/timeline/",
        "--out",
        &out,
        "--",
        "python3",
        script,
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    let lines = results_of(&text);
    for (id, status, detail) in &lines {
        assert!(
            status == "pass" || status == "unsupported",
            "{id}: {status}: {detail}"
        );
    }
    let passed = lines.iter().filter(|(_, s, _)| s == "pass").count();
    assert!(passed > 100, "only {passed} timeline cases passed");
    let report = scratch.agentconf(&["report", &out, "--format", "json"]);
    let summary: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(summary["uncredited"], serde_json::json!([]), "{summary}");
    for row in summary["rules"].as_array().unwrap() {
        assert_ne!(row["status"], "uncredited", "{row}");
        if row["total"].as_u64() > Some(0) {
            assert_eq!(row["passed"], row["total"], "{row}");
        }
    }
    // The core timeline rules it implements, earned outright or partly (where some of their
    // cases need revision 06 or a commitment, which it declares unsupported).
    for rule in [
        "AER1-TL-LINK",
        "AER1-TL-GENESIS",
        "AER1-TL-CLOSE-LAST",
        "AER1-TL-SEQ",
        "AER1-TL-JOB",
        "AER1-TL-MEMBERS",
    ] {
        let row = summary["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rule"] == rule)
            .unwrap();
        assert!(
            row["status"] == "pass" || row["status"] == "partial",
            "{row}"
        );
    }
}

/// Strict grading is exact (CONTRACT.md section 4): an implementation with the reference's
/// verdicts that names every AER-1 rule on each rejection earns a wrong reason on every case it
/// rejects, and passes them all under loose grading. A sloppy error map earns no strict credit.
#[test]
fn naming_every_rule_on_a_rejection_is_a_wrong_reason() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let scratch = Scratch::new("spray");
    let every: Vec<String> = agentconf_rules::Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| id.starts_with("AER1-"))
        .map(|id| format!("\"{id}\""))
        .collect();
    let spray = scratch.path("spray.sh");
    std::fs::write(
        &spray,
        format!(
            "out=$({bin} impl \"$@\"); code=$?\n\
             if [ $code -eq 1 ]; then\n\
             printf '%s\\n' '{{\"verdict\":\"invalid\",\"rules\":[{}],\"messages\":[]}}'\n\
             else printf '%s\\n' \"$out\"; fi\nexit $code\n",
            every.join(",")
        ),
    )
    .unwrap();
    let lines = |grading: &str| -> Vec<serde_json::Value> {
        let out = scratch.path(&format!("{grading}.jsonl"));
        scratch.agentconf(&[
            "run",
            "--keep-going",
            "--grading",
            grading,
            "--include",
            "aer1/timeline/structure/",
            "--include",
            "aer1/receipt/structure/",
            "--out",
            &out,
            "--",
            "sh",
            &spray,
        ]);
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["type"] == "result")
            .collect()
    };
    let strict = lines("strict");
    // Every case the reference rejects (the invalid ones, and the acceptable ones it rejects).
    let rejected: Vec<&serde_json::Value> = strict
        .iter()
        .filter(|l| l["expectation"] != "valid" && l["status"] != "pass")
        .collect();
    let invalid = strict
        .iter()
        .filter(|l| l["expectation"] == "invalid")
        .count();
    assert!(rejected.len() >= invalid, "{strict:?}");
    assert!(rejected.len() > 100, "{} cases", rejected.len());
    for l in &rejected {
        assert_eq!(l["status"], "wrong-reason", "{l}");
        assert!(
            l["detail"].as_str().unwrap().contains("does not break"),
            "{l}"
        );
    }
    let loose = lines("loose");
    assert_eq!(loose.len(), strict.len());
    assert!(loose.iter().all(|l| l["status"] == "pass"), "{loose:?}");
}

/// Emitters are graded byte for byte: the Python example's emitter (a second speaker of the
/// contract besides the reference) passes every emitter vector; the same program with its
/// preimage written in raw UTF-8 (`ensure_ascii=False`, what RFC 8785 and most writers do) fails
/// exactly the escaping vectors whose members hold non-ASCII characters or U+007F, each with the
/// construction named and the first departing preimage byte.
#[test]
fn emitters_are_graded_byte_for_byte() {
    let scratch = Scratch::new("emitters");
    let example = EXAMPLE;
    let raw = raw_utf8(&scratch, "raw_utf8.py", false);
    let statuses = |program: &str, out: &str| -> Vec<(String, String, String)> {
        let path = scratch.path(out);
        scratch.agentconf(&[
            "run",
            "--keep-going",
            "--include",
            "aer1/emit-timeline/",
            "--out",
            &path,
            "--",
            "python3",
            program,
        ]);
        let text = std::fs::read_to_string(&path).unwrap();
        results_of(&text)
    };
    let good = statuses(example, "good.jsonl");
    assert!(good.len() >= 14, "{good:?}");
    assert!(good.iter().all(|(_, s, _)| s == "pass"), "{good:?}");
    // The emitter CONTRACT.md 2.7 shows, run as written.
    let contract = include_str!("../../contract/CONTRACT.md");
    let section = contract.split("### 2.7").nth(1).expect("section 2.7");
    let shown = section
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("its Python example");
    let documented = scratch.path("contract_example.py");
    std::fs::write(&documented, shown).unwrap();
    let as_written = statuses(&documented, "documented.jsonl");
    assert!(
        as_written.len() >= 14 && as_written.iter().all(|(_, s, _)| s == "pass"),
        "{as_written:?}"
    );
    // Its commitments too.
    let path = scratch.path("commitments.jsonl");
    scratch.agentconf(&[
        "run",
        "--include",
        "aer1/emit-commitment/",
        "--out",
        &path,
        "--",
        "python3",
        example,
    ]);
    let commitments = results_of(&std::fs::read_to_string(&path).unwrap());
    assert!(commitments.len() >= 6, "{commitments:?}");
    assert!(
        commitments.iter().all(|(_, s, _)| s == "pass"),
        "{commitments:?}"
    );
    // A producer that refuses everything passes only the refusals, and earns no rule by them:
    // their credit needs the valid commitment they derive from.
    let refuser = scratch.path("refuse.sh");
    std::fs::write(&refuser, "exit 1\n").unwrap();
    let path = scratch.path("refuser.jsonl");
    let run = scratch.agentconf(&[
        "run",
        "--keep-going",
        "--include",
        "aer1/emit-commitment/",
        "--out",
        &path,
        "--",
        "sh",
        &refuser,
    ]);
    assert_eq!(run.status.code(), Some(1));
    for (id, status, _) in results_of(&std::fs::read_to_string(&path).unwrap()) {
        let want = if id.contains("/refuse/") {
            "pass"
        } else {
            "false-reject"
        };
        assert_eq!(status, want, "{id}");
    }
    let text = String::from_utf8_lossy(&run.stdout);
    // A rule row reads `pass  N/M LEVEL RULE`; the totals' `pass  2` has no slash.
    let rule_passed = |l: &&str| {
        let mut words = l.split_whitespace();
        words.next() == Some("pass") && words.next().is_some_and(|w| w.contains('/'))
    };
    assert!(
        !text.lines().any(|l| rule_passed(&l)),
        "a refuser earned a rule:\n{text}"
    );
    assert!(text.contains("uncredited"), "{text}");
    let bad = statuses(&raw, "raw.jsonl");
    let failed: Vec<&str> = bad
        .iter()
        .filter(|(_, s, _)| s != "pass")
        .map(|(id, _, _)| id.as_str())
        .collect();
    assert_eq!(failed, RAW_UTF8_BREAKS);
    for (id, status, detail) in bad.iter().filter(|(_, s, _)| s != "pass") {
        assert_eq!(status, "wrong-output", "{id}");
        assert!(
            detail.contains("AER1-TL-LINK")
                && detail.contains("first departs")
                && detail.contains("byte"),
            "{id}: {detail}"
        );
    }
}

/// Receipt producers are graded on the exact bytes: the example implementation and the producer
/// CONTRACT.md 2.9 shows (run as written) pass every receipt emitter vector; a producer that
/// parses the payload and writes it again passes no `bytes` vector, each failure on
/// AER1-RC-BYTES-KEPT with the first differing byte, and its refusal of text that is not JSON is
/// a false rejection.
#[test]
fn receipt_producers_keep_the_bytes() {
    let scratch = Scratch::new("receipts");
    let example = EXAMPLE;
    let contract = include_str!("../../contract/CONTRACT.md");
    let shown = contract
        .split("### 2.9")
        .nth(1)
        .and_then(|section| section.split("```python\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("section 2.9's Python example");
    let documented = scratch.path("contract_receipt.py");
    std::fs::write(&documented, shown).unwrap();
    let reserialising = scratch.path("reserialising.py");
    std::fs::write(
        &reserialising,
        shown.replace(
            "payload = open(sys.argv[2], \"rb\").read()",
            "payload = json.dumps(json.load(open(sys.argv[2], \"rb\"))).encode()",
        ),
    )
    .unwrap();
    let statuses = |program: &str, out: &str| {
        let path = scratch.path(out);
        scratch.agentconf(&[
            "run",
            "--keep-going",
            "--include",
            "aer1/emit-receipt/",
            "--out",
            &path,
            "--",
            "python3",
            program,
        ]);
        results_of(&std::fs::read_to_string(&path).unwrap())
    };
    for program in [example, documented.as_str()] {
        let r = statuses(program, "good.jsonl");
        assert!(r.len() >= 13, "{r:?}");
        assert!(r.iter().all(|(_, s, _)| s == "pass"), "{program}: {r:?}");
    }
    let r = statuses(&reserialising, "bad.jsonl");
    for (id, status, detail) in &r {
        if id.starts_with("aer1/emit-receipt/bytes/not-json") {
            // json.load fails: Python exits 1, a refusal of a payload it must record.
            assert_eq!(status, "false-reject", "{id}: {detail}");
        } else if id.starts_with("aer1/emit-receipt/bytes/") {
            assert_eq!(status, "wrong-output", "{id}: {detail}");
            assert!(
                detail.contains("AER1-RC-BYTES-KEPT") && detail.contains("first differing byte"),
                "{id}: {detail}"
            );
        }
    }
    assert!(r.iter().any(|(id, _, _)| id.contains("/bytes/")));
}

/// The interoperability matrix over the reference, the example, the example with a wrong
/// emitter (raw UTF-8 preimages when emitting, its verifier untouched) and a program that exits 0
/// for everything: exactly the expected disagreements, each with the side at fault, in the
/// timeline grid and the receipt grid; an accept-everything verifier agrees with no broken
/// emitter; a verifier that does not take receipts is left out of the receipt grid, not blamed;
/// the files are re-rendered from the matrix file alone and come out the same on a second run.
#[test]
fn the_matrix_shows_exactly_the_expected_disagreements() {
    use agentconf_harness::matrix::{Kind, Matrix};
    let scratch = Scratch::new("matrix");
    let example = EXAMPLE;
    let wrong = raw_utf8(&scratch, "wrong_emitter.py", true);
    let yes = scratch.script("yes.sh", "exit 0");
    let run = |out: &str| {
        let dir = scratch.path(out);
        let run = scratch.agentconf(&[
            "matrix",
            "--out",
            &dir,
            "--include",
            "aer1/emit-timeline/",
            "--include",
            "aer1/emit-receipt/",
            "--include",
            "aer1/timeline/valid/",
            &format!("example=python3 {example}"),
            &format!("wrong-emitter=python3 {wrong}"),
            &format!("yes={yes}"),
        ]);
        (run, dir)
    };
    let (first, dir) = run("one");
    assert_eq!(first.status.code(), Some(1), "{first:?}");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
    let m: Matrix = serde_json::from_str(&read("matrix.json")).unwrap();
    let names: Vec<&str> = m.implementations.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["reference", "example", "wrong-emitter", "yes"]);
    // How many valid emitter vectors of each kind there are, from the reference's own results.
    let reference = results_of(&read("reference.results.jsonl"));
    let count = |prefix: &str, refusals: &str| {
        reference
            .iter()
            .filter(|(id, _, _)| id.starts_with(prefix) && !id.starts_with(refusals))
            .count()
    };
    let timelines = count("aer1/emit-timeline/", "-");
    let receipts = count("aer1/emit-receipt/", "aer1/emit-receipt/refuse/");
    assert!(timelines >= 14 && receipts >= 11, "{timelines} {receipts}");
    assert_eq!(m.cells.len(), Kind::ALL.len() * 16);
    for c in &m.cells {
        let at = format!("{:?}: {} -> {}", c.kind, c.emitter, c.verifier);
        let disagreeing: Vec<(&str, &str, &str)> = c
            .disagree
            .iter()
            .map(|p| (p.vector.as_str(), p.verdict.as_str(), p.fault.as_str()))
            .collect();
        let faults = |fault: &str| disagreeing.iter().all(|d| d.2 == fault);
        match (c.kind, c.emitter.as_str(), c.verifier.as_str()) {
            // Right emitters and right verifiers agree on every timeline; an accept-everything
            // verifier accepts them too.
            (Kind::Timeline, "reference" | "example", _) => {
                assert_eq!((c.agree, disagreeing.len()), (timelines, 0), "{at}")
            }
            // The wrong emitter breaks the links of exactly the escaping vectors: right
            // verifiers reject them (its fault), the accept-everything one accepts them (both).
            (Kind::Timeline, "wrong-emitter", v) => {
                assert_eq!(c.agree, timelines - RAW_UTF8_BREAKS.len(), "{at}");
                let vectors: Vec<&str> = disagreeing.iter().map(|d| d.0).collect();
                assert_eq!(vectors, RAW_UTF8_BREAKS, "{at}");
                let expected = if v == "yes" {
                    ("accepted", "both")
                } else {
                    ("rejected", "emitter")
                };
                assert!(
                    disagreeing.iter().all(|d| (d.1, d.2) == expected),
                    "{at}: {disagreeing:?}"
                );
            }
            // No commitment emitter vector ran: that grid is empty.
            (Kind::Commitment, _, _) => {
                assert_eq!(c.state(), "none", "{at}: {disagreeing:?}")
            }
            // Only the reference and the accept-everything program answer receipts: the Python
            // example declines them (89), so its column and the wrong emitter's are empty.
            (Kind::Receipt, _, "example" | "wrong-emitter") => {
                assert_eq!(c.state(), "none", "{at}: {disagreeing:?}")
            }
            // Raw UTF-8 in a receipt's JSON text is only layout: every receipt is right.
            (Kind::Receipt, "reference" | "example" | "wrong-emitter", _) => {
                assert_eq!((c.agree, disagreeing.len()), (receipts, 0), "{at}")
            }
            // A program that writes nothing wrote no artifact: every one is the emitter's fault,
            // and an accept-everything verifier earns no agreement with it.
            (kind, "yes", v) => {
                let n = if kind == Kind::Timeline {
                    timelines
                } else {
                    receipts
                };
                assert_eq!((c.agree, disagreeing.len()), (0, n), "{at}");
                assert!(
                    faults(if v == "yes" { "both" } else { "emitter" }),
                    "{at}: {disagreeing:?}"
                );
            }
            _ => unreachable!("{at}"),
        }
    }
    let wrong_row = &m.implementations[2];
    assert_eq!(
        (wrong_row.emitted_expected, wrong_row.emitted_other),
        (
            timelines + receipts - RAW_UTF8_BREAKS.len(),
            RAW_UTF8_BREAKS.len()
        )
    );
    assert!(wrong_row
        .emitted_wrong
        .iter()
        .all(|w| w.detail.contains("first departs")));
    assert_eq!(m.implementations[1].verifies, [Kind::Timeline]);
    assert_eq!(
        m.implementations[0].verifies,
        [Kind::Timeline, Kind::Receipt]
    );
    // Markdown and HTML come from the matrix file alone, and the HTML is self-contained.
    assert_eq!(read("matrix.md"), agentconf_harness::matrix::markdown(&m));
    let html = read("matrix.html");
    assert_eq!(html, agentconf_harness::matrix::html(&m));
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"));
    for (k, c) in m.cells.iter().enumerate() {
        let linked = html.contains(&format!("href=\"#cell-{k}\""));
        let target = html.contains(&format!("id=\"cell-{k}\""));
        assert_eq!(
            (linked, target),
            (c.state() == "disagree", c.state() == "disagree"),
            "cell {k}"
        );
    }
    for name in &names {
        assert!(std::path::Path::new(&format!("{dir}/{name}.results.jsonl")).is_file());
        assert!(std::path::Path::new(&format!("{dir}/{name}.results.html")).is_file());
    }
    // Deterministic: a second run writes the same matrix file.
    let (second, again) = run("two");
    assert_eq!(second.status.code(), Some(1));
    assert_eq!(
        std::fs::read(format!("{again}/matrix.json")).unwrap(),
        read("matrix.json").into_bytes()
    );
}

/// The commitment grid: every commitment an emitter wrote goes to every verifier beside the
/// timeline it was made for. An emitter whose `entry_count` is one off disagrees with every
/// verifier on every valid vector, at fault alone with a right verifier and with an
/// accept-everything one beside it; one that commits to timelines that do not verify is at fault
/// for exactly the refusal vectors; the reference agrees with itself. The count-off emitter's own
/// results file records the one rule it broke, and its per-rule table fails that rule alone.
#[test]
fn the_matrix_has_a_commitment_grid() {
    use agentconf_harness::matrix::{Kind, Matrix};
    let scratch = Scratch::new("matrix-commitments");
    let example = EXAMPLE;
    // The example with entry_count one more than the entries, in every commitment it writes.
    let count_off = scratch.path("count_off.py");
    std::fs::write(
        &count_off,
        format!(
            "import json, runpy, sys\n\
             dumps = json.dumps\n\
             def off(obj, *a, **k):\n\
             \x20   if isinstance(obj, dict) and 'entry_count' in obj:\n\
             \x20       obj = dict(obj, entry_count=obj['entry_count'] + 1)\n\
             \x20   return dumps(obj, *a, **k)\n\
             json.dumps = off\n\
             sys.argv[0] = {example:?}\n\
             runpy.run_path({example:?}, run_name='__main__')\n"
        ),
    )
    .unwrap();
    // The example making commitments without verifying the timeline first.
    let unverified = scratch.path("unverified.py");
    std::fs::write(
        &unverified,
        format!(
            "import runpy, sys\n\
             sys.argv[0] = {example:?}\n\
             main = runpy.run_path({example:?}, run_name='example')['main']\n\
             check = main.__globals__['check_timeline']\n\
             if sys.argv[1:2] == ['aer1-emit-commitment']:\n\
             \x20   main.__globals__['check_timeline'] = lambda raw: ([], check(raw)[1])\n\
             sys.exit(main(sys.argv[1:]))\n"
        ),
    )
    .unwrap();
    let yes = scratch.script("yes.sh", "exit 0");
    let dir = scratch.path("out");
    let run = scratch.agentconf(&[
        "matrix",
        "--out",
        &dir,
        "--include",
        "aer1/emit-commitment/",
        &format!("count-off=python3 {count_off}"),
        &format!("unverified=python3 {unverified}"),
        &format!("yes={yes}"),
    ]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
    let m: Matrix = serde_json::from_str(&read("matrix.json")).unwrap();
    assert_eq!(m.format, "agentconf-matrix/2");
    let reference = results_of(&read("reference.results.jsonl"));
    let ids = |family: &str| -> Vec<String> {
        reference
            .iter()
            .map(|(id, _, _)| id.clone())
            .filter(|id| id.starts_with(&format!("aer1/emit-commitment/{family}/")))
            .collect()
    };
    let (valid, refused) = (ids("valid"), ids("refuse"));
    assert!(valid.len() >= 4 && refused.len() >= 2, "{reference:?}");
    assert_eq!(m.cells.len(), Kind::ALL.len() * 16);
    for c in &m.cells {
        let at = format!("{:?}: {} -> {}", c.kind, c.emitter, c.verifier);
        let pairs: Vec<(&str, Option<&str>, &str, &str)> = c
            .disagree
            .iter()
            .map(|p| {
                let rule = match &p.judged {
                    agentconf_harness::matrix::Judged::Invalid { rule, .. } => Some(rule.as_str()),
                    _ => None,
                };
                (
                    p.vector.as_str(),
                    rule,
                    p.verdict.as_str(),
                    p.fault.as_str(),
                )
            })
            .collect();
        // Who is at fault for a wrong commitment: the emitter alone when the verifier rejects
        // it, both when an accept-everything verifier takes it.
        let (verdict, fault) = if c.verifier == "yes" {
            ("accepted", "both")
        } else {
            ("rejected", "emitter")
        };
        let each = |vectors: &[String], rule: &dyn Fn(&str) -> Option<&'static str>| {
            let want: Vec<(&str, Option<&str>, &str, &str)> = vectors
                .iter()
                .map(|v| (v.as_str(), rule(v), verdict, fault))
                .collect();
            assert_eq!(pairs, want, "{at}");
        };
        match (c.kind, c.emitter.as_str(), c.verifier.as_str()) {
            // Only commitment emitter vectors ran; the two Python programs decline to verify
            // commitments (89), so their columns are left out, not blamed.
            (Kind::Timeline | Kind::Receipt, _, _) | (_, _, "count-off" | "unverified") => {
                assert_eq!(c.state(), "none", "{at}: {pairs:?}")
            }
            (_, "reference", _) => assert_eq!((c.agree, pairs.len()), (valid.len(), 0), "{at}"),
            (_, "count-off", _) => {
                assert_eq!(c.agree, 0, "{at}");
                each(&valid, &|_| Some("AER1-CM-COUNT"));
            }
            (_, "unverified", _) => {
                assert_eq!(c.agree, valid.len(), "{at}");
                each(&refused, &|v| {
                    Some(if v.ends_with("unclosed") {
                        "AER1-TL-CLOSE-LAST"
                    } else {
                        "AER1-TL-LINK"
                    })
                });
            }
            // A program that writes nothing: an empty commitment for every vector, each one
            // every verifier must reject.
            (_, "yes", _) => {
                assert_eq!(
                    (c.agree, pairs.len()),
                    (0, valid.len() + refused.len()),
                    "{at}"
                );
                assert!(
                    pairs.iter().all(|p| (p.2, p.3) == (verdict, fault)),
                    "{at}: {pairs:?}"
                );
            }
            _ => unreachable!("{at}"),
        }
    }
    let verifies: Vec<&[Kind]> = m
        .implementations
        .iter()
        .map(|i| i.verifies.as_slice())
        .collect();
    assert_eq!(
        verifies,
        [&[Kind::Commitment][..], &[], &[], &[Kind::Commitment]]
    );
    // The third grid is in the Markdown and the HTML, rendered from the file alone.
    let md = read("matrix.md");
    assert_eq!(md, agentconf_harness::matrix::markdown(&m));
    assert!(md.contains("## Emitters × verifiers: commitments"), "{md}");
    let html = read("matrix.html");
    assert_eq!(html, agentconf_harness::matrix::html(&m));
    assert!(html.contains("<h2>Emitters × verifiers: commitments</h2>"));

    // The count-off emitter's results: each wrong output records the one rule it broke, every
    // line is valid against the published schema, and the per-rule table fails that rule alone.
    let text = read("count-off.results.jsonl");
    let wrong: Vec<serde_json::Value> = valid_results_lines(&text)
        .into_iter()
        .filter(|v| v["status"] == "wrong-output")
        .collect();
    assert_eq!(wrong.len(), valid.len());
    for value in wrong {
        let broken = &value["broken_rules"];
        assert_eq!(broken, &serde_json::json!(["AER1-CM-COUNT"]), "{value}");
    }
    let file = agentconf_harness::results::parse(&text).unwrap();
    let failing: Vec<String> = agentconf_harness::report::per_rule(&file)
        .into_iter()
        .filter(|r| r.status == agentconf_harness::report::RuleStatus::Fail)
        .map(|r| r.rule)
        .collect();
    assert_eq!(failing, ["AER1-CM-COUNT"]);
}

/// The Python example implementation of the contract.
const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../contract/examples-impl/minimal_impl.py"
);

/// The example implementation with its preimages written in raw UTF-8 (`ensure_ascii=False`):
/// when emitting only (`emit_only`: a wrong emitter beside a right verifier), or throughout.
fn raw_utf8(scratch: &Scratch, name: &str, emit_only: bool) -> String {
    let example = EXAMPLE;
    let path = scratch.path(name);
    let condition = if emit_only {
        "len(sys.argv) > 1 and sys.argv[1].startswith('aer1-emit')"
    } else {
        "True"
    };
    std::fs::write(
        &path,
        format!(
            "import json, runpy, sys\n\
             if {condition}:\n\
             \x20   dumps = json.dumps\n\
             \x20   json.dumps = lambda *a, **k: dumps(*a, **dict(k, ensure_ascii=False))\n\
             sys.argv[0] = {example:?}\n\
             runpy.run_path({example:?}, run_name='__main__')\n"
        ),
    )
    .unwrap();
    path
}

/// The escaping vectors whose members hold non-ASCII characters or U+007F: the ones a preimage
/// written in raw UTF-8 gets wrong (the others are ASCII, where both writings agree).
const RAW_UTF8_BREAKS: [&str; 4] = [
    "aer1/emit-timeline/escaping/non-ascii-job-id",
    "aer1/emit-timeline/escaping/non-bmp-in-id-and-tool",
    "aer1/emit-timeline/escaping/u007f-in-tool",
    "aer1/emit-timeline/escaping/u2028-in-tool",
];

/// Every line of a results file, each held valid against the published schema.
fn valid_results_lines(text: &str) -> Vec<serde_json::Value> {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../harness/schema/results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    text.lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{line}: {errors:?}");
            value
        })
        .collect()
}

/// `(id, status, detail)` of every result line of a results file.
fn results_of(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "result")
        .map(|v| {
            let s = |m: &str| v[m].as_str().unwrap_or_default().to_string();
            (s("id"), s("status"), s("detail"))
        })
        .collect()
}

/// The main job end to end: `agentconf run` writes a results file whose header cites the corpus
/// digest, `agentconf report` renders it, and a false-accepting implementation makes both the run
/// and `report diff` fail.
#[test]
fn run_and_report_end_to_end() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let dir = std::env::temp_dir().join(format!("agentconf-run-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.jsonl");
    let bad = dir.join("bad.jsonl");
    let html = dir.join("report.html");
    let status = |args: &[&str]| Command::new(bin).args(args).output().unwrap();

    let out = status(&[
        "run",
        "--include",
        "aer1/timeline/truncated",
        "--out",
        good.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = agentconf_harness::results::parse(&std::fs::read_to_string(&good).unwrap()).unwrap();
    let manifest = agentconf_corpus::writer::manifest(&agentconf_corpus::corpus());
    assert_eq!(file.header.corpus_digest, manifest.corpus_digest);
    assert!(file.results.iter().all(|r| r.status == Status::Pass));
    // Every line of the results file is valid against the published schema.
    valid_results_lines(&std::fs::read_to_string(&good).unwrap());
    assert!(std::fs::read_to_string(&html).unwrap().contains("<html"));
    let badge = status(&["report", good.to_str().unwrap(), "--format", "badge"]);
    assert_eq!(badge.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&badge.stdout).contains("\"schemaVersion\""));

    // An implementation that accepts everything.
    let out = status(&[
        "run",
        "--include",
        "aer1/timeline/truncated",
        "--out",
        bad.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "exit 0",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("false-accept"), "{text}");
    let diff = status(&[
        "report",
        "diff",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(
        diff.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An adapter runs a tool that was not written for the contract — here `agentconf verify`
/// itself, through argv templates and an error map — and strict expected failures work: a listed
/// vector that passes is an xpass and fails the run; `--emit-xfail` writes a file that makes a
/// failing implementation's run pass.
#[test]
fn adapters_skips_and_expected_failures() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let dir = std::env::temp_dir().join(format!("agentconf-adapter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let adapter = format!(
        r#"
name = "agentconf verify (not written for the contract)"
command = ["{bin}"]
[operations.aer1-timeline]
argv = ["verify", "timeline", "{{timeline}}", "--revision", "{{revision}}"]
argv_with_commitment = ["verify", "timeline", "{{timeline}}", "--revision", "{{revision}}", "--commitment", "{{commitment}}"]
[exit_codes]
0 = "accept"
1 = "reject"
[[error_map]]
pattern = "AER1-CM-COUNT"
rule = "AER1-CM-COUNT"
[[error_map]]
pattern = "AER1-CM-FINAL"
rule = "AER1-CM-FINAL"
[[skip]]
id = "aer1/timeline/reclosed/drop-1-of-2"
reason = "demonstrates a skip"
"#
    );
    let adapter_path = write("adapter.toml", &adapter);
    let out_path = dir.join("r.jsonl");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--include",
            "aer1/timeline/reclosed",
            "--out",
            out_path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        Command::new(bin).args(&args).output().unwrap()
    };
    let out = run(&["--adapter", &adapter_path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let file =
        agentconf_harness::results::parse(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    assert!(file.header.adapter_digest.is_some());
    let status_of = |id: &str| file.results.iter().find(|r| r.id == id).map(|r| r.status);
    assert_eq!(
        status_of("aer1/timeline/reclosed/drop-1-of-2"),
        Some(Status::Skip)
    );
    assert_eq!(
        status_of("aer1/timeline/reclosed/drop-2-of-8-against-commitment"),
        Some(Status::Pass)
    );

    // An expected failure that passes is an error (the list is stale).
    let stale = format!(
        "{adapter}\n[[xfail]]\nid = \"aer1/timeline/reclosed/drop-2-of-8\"\nreason = \"stale\"\n"
    );
    let out = run(&["--adapter", &write("stale.toml", &stale)]);
    assert_eq!(out.status.code(), Some(1));
    // An unknown id is a usage error.
    let unknown =
        format!("{adapter}\n[[xfail]]\nid = \"aer1/timeline/reclosed/no-such\"\nreason = \"x\"\n");
    assert_eq!(
        run(&["--adapter", &write("unknown.toml", &unknown)])
            .status
            .code(),
        Some(2)
    );

    // An implementation that accepts everything fails; its emitted xfail list makes it pass.
    let xfail = dir.join("xfail.toml");
    let out = run(&[
        "--emit-xfail",
        xfail.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "exit 0",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let emitted = std::fs::read_to_string(&xfail).unwrap();
    assert!(emitted.contains("[[xfail]]"));
    let out = run(&[
        "--adapter",
        xfail.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "exit 0",
        "x",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `agentconf run --persistent --validate-protocol` runs the corpus through `agentconf impl serve`
/// (GRP scenarios one-shot) and everything passes.
#[test]
fn run_in_persistent_mode() {
    let dir = std::env::temp_dir().join(format!("agentconf-run-persistent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("r.jsonl");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args([
            "run",
            "--persistent",
            "--validate-protocol",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let file = agentconf_harness::results::parse(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let cases: usize = agentconf_corpus::corpus()
        .iter()
        .map(|v| v.cases().len())
        .sum();
    assert_eq!(file.results.len(), cases);
    assert_eq!(file.header.case_count, Some(cases));
    // Without a store they share (`AGENTCONF_GRP_STORE`) the reference's processes do not claim
    // `cluster`: those cases are unsupported, and every other case passes.
    let claims_cluster = std::env::var_os("AGENTCONF_GRP_STORE").is_some();
    assert!(file.results.iter().all(|r| r.status == Status::Pass
        || (!claims_cluster
            && r.status == Status::Unsupported
            && r.id.starts_with("grp/admission/cluster/"))));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three of the ways an accept-all script used to earn a green PASS, and what they say now: its
/// own failures turned into an expected-failure list (CONFORMS WITH N KNOWN FAILURES, never
/// green), a filter (PARTIAL), a cut results file (PARTIAL); and a run where everything is
/// unsupported (NOTHING TESTED, exit 1).
#[test]
fn manufactured_passes_are_not_green() {
    let scratch = Scratch::new("claims");
    let script = |name: &str, code: u8| {
        let p = scratch.dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\nexit {code}\n")).unwrap();
        let mut perm = std::fs::metadata(&p).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&p, perm).unwrap();
        p.to_str().unwrap().to_string()
    };
    let accept_all = script("accept-all.sh", 0);
    let unsupported = script("unsupported.sh", 89);
    let path = |name: &str| scratch.path(name);
    let run = |args: &[&str]| scratch.agentconf(args);
    let badge = |file: &str| -> (String, String) {
        let out = run(&["report", file, "--format", "badge"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v["message"].as_str().unwrap().to_string(),
            v["color"].as_str().unwrap().to_string(),
        )
    };
    let first_line = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };

    // 1. Its failures as expected failures, then a run with them listed.
    let xfail = path("xfail.toml");
    let first = run(&[
        "run",
        "--include",
        "aer1/timeline",
        "--out",
        &path("first.jsonl"),
        "--emit-xfail",
        &xfail,
        "--",
        &accept_all,
    ]);
    assert_eq!(first.status.code(), Some(1), "accept-all fails");
    let listed = run(&[
        "run",
        "--adapter",
        &xfail,
        "--out",
        &path("listed.jsonl"),
        "--",
        &accept_all,
    ]);
    let text = first_line(&listed);
    // The list covers only the timeline cases: the rest still fails; on its own, the listed part
    // would read as known failures, never as CONFORMS.
    assert!(!text.contains("CONFORMS\n") && text != "agentconf conformance report: CONFORMS");
    let (message, color) = badge(&path("listed.jsonl"));
    assert_ne!(color, "brightgreen", "{message}");
    let only_timelines = run(&[
        "run",
        "--include",
        "aer1/timeline",
        "--adapter",
        &xfail,
        "--out",
        &path("listed-timelines.jsonl"),
        "--",
        &accept_all,
    ]);
    let text = String::from_utf8_lossy(&only_timelines.stdout).to_string();
    assert!(
        text.starts_with("agentconf conformance report: PARTIAL"),
        "{text}"
    );
    let (message, color) = badge(&path("listed-timelines.jsonl"));
    assert!(message.starts_with("PARTIAL"), "{message}");
    assert_eq!(color, "blue");

    // 2. A filter that keeps only vectors it passes.
    let filtered = run(&[
        "run",
        "--include",
        "aer1/workflow/valid",
        "--out",
        &path("filtered.jsonl"),
        "--",
        &accept_all,
    ]);
    assert_eq!(filtered.status.code(), Some(0));
    let text = String::from_utf8_lossy(&filtered.stdout).to_string();
    assert!(
        text.starts_with("agentconf conformance report: PARTIAL"),
        "{text}"
    );
    assert!(text.contains("--include aer1/workflow/valid"), "{text}");
    assert_eq!(badge(&path("filtered.jsonl")).1, "blue");

    // 3. A cut file: the reference's own results, first 100 lines.
    let whole = path("whole.jsonl");
    assert_eq!(run(&["run", "--out", &whole]).status.code(), Some(0));
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    let cut: String = whole_text
        .lines()
        .take(100)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(path("cut.jsonl"), cut).unwrap();
    let report = run(&["report", &path("cut.jsonl")]);
    assert_eq!(report.status.code(), Some(2));
    let err = String::from_utf8_lossy(&report.stderr).to_string();
    assert!(
        err.contains("refused") && err.contains("no footer"),
        "{err}"
    );
    assert!(report.stdout.is_empty());

    // 4. Its false accepts edited into passes; and two result lines swapped.
    let edited = std::fs::read_to_string(path("first.jsonl"))
        .unwrap()
        .replace("\"status\":\"false-accept\"", "\"status\":\"pass\"");
    std::fs::write(path("edited.jsonl"), edited).unwrap();
    let report = run(&["report", &path("edited.jsonl"), "--format", "badge"]);
    assert_eq!(report.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&report.stderr).contains("refused"));
    let mut lines: Vec<&str> = whole_text.lines().collect();
    lines.swap(1, 2);
    std::fs::write(path("swapped.jsonl"), lines.join("\n") + "\n").unwrap();
    let report = run(&["report", &path("swapped.jsonl")]);
    assert_eq!(report.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&report.stderr).contains("refused"));
    // The whole file is the one that conforms.
    assert_eq!(badge(&whole).1, "brightgreen");

    // Everything unsupported: nothing tested, and the run fails. (AER-1 only: a GRP receiver
    // that exits 89 at once races the harness's first write, issue 13.)
    let none = run(&[
        "run",
        "--include",
        "aer1/",
        "--out",
        &path("none.jsonl"),
        "--",
        &unsupported,
    ]);
    assert_eq!(none.status.code(), Some(1));
    assert!(first_line(&none).ends_with("NOTHING TESTED"));
}

/// What ran is written down: the script after its interpreter is named and hashed, a persistent
/// server's own name and version are recorded, and an adapter with a command of its own cannot be
/// combined with another command (nor an adapter without one run as if it were the reference).
#[test]
fn the_results_header_identifies_what_ran() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let scratch = Scratch::new("identity");
    let path = |name: &str| scratch.path(name);
    let run = |args: &[&str]| scratch.agentconf(args);
    let header = |file: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(file).unwrap();
        serde_json::from_str(text.lines().next().unwrap()).unwrap()
    };
    std::fs::write(path("impl.sh"), "exit 0\n").unwrap();
    let out = run(&[
        "run",
        "--include",
        "aer1/workflow/valid",
        "--out",
        &path("script.jsonl"),
        "--",
        "sh",
        &path("impl.sh"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let h = header(&path("script.jsonl"));
    assert_eq!(h["implementation"]["name"], "impl.sh");
    assert_eq!(h["implementation"]["files"][0]["path"], path("impl.sh"));
    assert_eq!(
        h["implementation"]["files"][0]["sha256"],
        // SHA-256 of "exit 0\n", as `printf 'exit 0\n' | sha256sum` gives it.
        "28d3b9e880a77975493dc7e359144c0295a4f694cfe0af4f928c22307bc5c320"
    );

    // `sh` is not a listed interpreter: it is never run with --version.
    assert!(h["implementation"].get("interpreter_version").is_none());
    // A listed interpreter running a script: its version is recorded (CI installs python3).
    std::fs::write(path("impl.py"), "import sys\nsys.exit(0)\n").unwrap();
    let out = run(&[
        "run",
        "--include",
        "aer1/workflow/valid",
        "--out",
        &path("python.jsonl"),
        "--",
        "python3",
        &path("impl.py"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let h = header(&path("python.jsonl"));
    let version = h["implementation"]["interpreter_version"].as_str().unwrap();
    assert!(version.starts_with("Python 3."), "{version}");
    assert!(
        String::from_utf8_lossy(&run(&["report", &path("python.jsonl")]).stdout)
            .contains(&format!("interpreter     {version}"))
    );

    let out = run(&[
        "run",
        "--persistent",
        "--include",
        "aer1/timeline/valid",
        "--out",
        &path("persistent.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let declared = &header(&path("persistent.jsonl"))["implementation"]["declared"];
    assert_eq!(declared["name"], "agentconf-reference");
    assert_eq!(declared["version"], env!("CARGO_PKG_VERSION"));

    std::fs::write(
        path("with-command.toml"),
        format!("command = [\"{bin}\", \"impl\"]\n"),
    )
    .unwrap();
    let out = run(&[
        "run",
        "--adapter",
        &path("with-command.toml"),
        "--out",
        &path("x.jsonl"),
        "--",
        "sh",
        &path("impl.sh"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give one"));
    std::fs::write(path("no-command.toml"), "name = \"nothing\"\n").unwrap();
    let out = run(&[
        "run",
        "--adapter",
        &path("no-command.toml"),
        "--out",
        &path("y.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("names no command"));
    assert!(!std::path::Path::new(&path("y.jsonl")).exists());
}

/// A results file is held to the corpus it names. Lines forged with every digest recomputed are
/// refused when they say of a case what the corpus does not; a file made against another corpus
/// is refused unless that corpus's directory is given with --corpus, and then held to it.
#[test]
fn report_holds_a_results_file_to_its_corpus() {
    use agentconf_harness::results::{parse, write_file, ResultsFile};
    let scratch = Scratch::new("corpus-check");
    let path = |name: &str| scratch.path(name);
    let run = |args: &[&str]| scratch.agentconf(args);
    let refused = |args: &[&str], words: &[&str]| {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        for w in words {
            assert!(err.contains(w), "{args:?}: {err:?} lacks {w:?}");
        }
    };
    let whole = path("whole.jsonl");
    assert_eq!(run(&["run", "--out", &whole]).status.code(), Some(0));
    let read = |p: &str| parse(&std::fs::read_to_string(p).unwrap()).unwrap();
    // What a careful forger does: recompute every digest after the edit.
    let reseal = |f: &mut ResultsFile| f.seal(1);
    let write = |name: &str, f: &ResultsFile| {
        write_file(std::path::Path::new(&path(name)), f).unwrap();
        path(name)
    };
    // The untouched file, against the embedded corpus and against the committed directory.
    assert_eq!(run(&["report", &whole]).status.code(), Some(0));
    let vectors = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors");
    assert_eq!(
        run(&["report", &whole, "--corpus", vectors]).status.code(),
        Some(0)
    );

    // A false accept hidden by calling its vector valid.
    let mut f = read(&whole);
    let i = f
        .results
        .iter()
        .position(|r| r.expectation == agentconf_contract::vector::Expectation::Invalid)
        .unwrap();
    f.results[i].expectation = agentconf_contract::vector::Expectation::Valid;
    reseal(&mut f);
    refused(
        &["report", &write("expectation.jsonl", &f)],
        &["refused", &format!("line {}", i + 2), "expectation"],
    );
    // A rule claimed that the vector does not test; a derivation dropped (no pairing).
    let mut f = read(&whole);
    f.results[0]
        .rules
        .push(agentconf_harness::results::RuleRef::parse("AER1-TL-LINK"));
    reseal(&mut f);
    refused(&["report", &write("rules.jsonl", &f)], &["line 2", "rules"]);
    let mut f = read(&whole);
    let i = f
        .results
        .iter()
        .position(|r| r.derived_from.is_some())
        .unwrap();
    f.results[i].derived_from = None;
    reseal(&mut f);
    refused(&["report", &write("derived.jsonl", &f)], &["derived_from"]);
    // Failing cases removed, the header made to select only what is left.
    let mut f = read(&whole);
    f.results.retain(|r| !r.id.starts_with("aer1/timeline/"));
    reseal(&mut f);
    refused(
        &["report", &write("fewer.jsonl", &f)],
        &["cases were selected", "its selection selects"],
    );
    // A case the corpus does not have, and two cases swapped.
    let mut f = read(&whole);
    f.results[3].id = "aer1/receipt/invented/case".into();
    reseal(&mut f);
    refused(
        &["report", &write("invented.jsonl", &f)],
        &["not in the corpus"],
    );
    let mut f = read(&whole);
    f.results.swap(3, 4);
    reseal(&mut f);
    refused(
        &["report", &write("swapped.jsonl", &f)],
        &["out of the corpus's order"],
    );

    // Another corpus: the committed vectors with one description changed, written by the
    // corpus's own writer (so its manifest and digest are right).
    let mut other = agentconf_corpus::corpus();
    other[0].description.push_str(" (changed)");
    let other_dir = std::path::PathBuf::from(path("other-vectors"));
    agentconf_corpus::writer::write(&other_dir, &other).unwrap();
    let other_digest = agentconf_corpus::writer::manifest(&other).corpus_digest;
    let mut f = read(&whole);
    f.header.corpus_digest = other_digest.clone();
    reseal(&mut f);
    let made_elsewhere = write("elsewhere.jsonl", &f);
    refused(
        &["report", &made_elsewhere],
        &[&other_digest, "--corpus DIR"],
    );
    let dir = other_dir.to_str().unwrap();
    assert_eq!(
        run(&["report", &made_elsewhere, "--corpus", dir])
            .status
            .code(),
        Some(0)
    );
    // ...and the embedded corpus's file is not that corpus's.
    refused(
        &["report", &whole, "--corpus", dir],
        &["made against corpus"],
    );
    // A corpus directory that is not what its manifest says.
    let first = other_dir.join(other[0].path());
    let mut text = std::fs::read_to_string(&first).unwrap();
    text = text.replace("(changed)", "(changed again)");
    std::fs::write(&first, text).unwrap();
    refused(
        &["report", &made_elsewhere, "--corpus", dir],
        &["SHA-256", "the manifest says"],
    );
    // claim verify re-runs the embedded corpus only.
    refused(
        &["claim", "verify", &made_elsewhere],
        &["made against corpus", "re-check it"],
    );
}

/// Paired credit: an implementation that accepts everything, or rejects everything, earns no
/// rule `pass` — its passes on one side are uncredited because the other side went wrong. The
/// reference, which gets both sides right, earns every rule it exercises.
#[test]
fn accept_all_and_reject_all_earn_no_rule() {
    let scratch = Scratch::new("credit");
    let path = |name: &str| scratch.path(name);
    let rule_statuses = |results: &str| -> Vec<(String, String)> {
        let out = scratch.agentconf(&["report", results, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["rule"].as_str().unwrap().to_string(),
                    r["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    for (name, code) in [("accept-all", 0), ("reject-all", 1)] {
        let script = path(&format!("{name}.sh"));
        std::fs::write(&script, format!("exit {code}\n")).unwrap();
        let out = path(&format!("{name}.jsonl"));
        scratch.agentconf(&["run", "--out", &out, "--", "sh", &script]);
        let earned: Vec<String> = rule_statuses(&out)
            .into_iter()
            .filter(|(_, s)| s == "pass")
            .map(|(r, _)| r)
            .collect();
        assert!(earned.is_empty(), "{name} earned {earned:?}");
    }
    let reference = path("reference.jsonl");
    scratch.agentconf(&["run", "--out", &reference]);
    let statuses = rule_statuses(&reference);
    assert!(!statuses.is_empty());
    let not_earned: Vec<&(String, String)> = statuses.iter().filter(|(_, s)| s != "pass").collect();
    assert!(not_earned.is_empty(), "{not_earned:?}");
}

/// An unwritable or planted `--out`/`--html` is refused before any vector runs: the
/// implementation is never started, and what a planted link points to is untouched.
#[test]
fn unwritable_outputs_are_refused_before_anything_runs() {
    let scratch = Scratch::new("outputs");
    let path = |name: &str| scratch.path(name);
    let marker = path("ran");
    std::fs::write(path("impl.sh"), format!("touch {marker}\nexit 0\n")).unwrap();
    std::fs::write(path("victim"), "keep").unwrap();
    std::os::unix::fs::symlink(path("victim"), path("link.jsonl")).unwrap();
    for (flag, target) in [
        ("--out", path("link.jsonl")),
        ("--out", path("missing/results.jsonl")),
        ("--html", path("link.jsonl")),
        ("--out", scratch.dir.to_str().unwrap().to_string()),
    ] {
        let mut args = vec!["run", "--include", "aer1/workflow/valid"];
        let out_default = path("r.jsonl");
        if flag == "--html" {
            args.extend(["--out", &out_default]);
        }
        args.extend([flag, &target, "--", "sh"]);
        let script = path("impl.sh");
        args.push(&script);
        let out = scratch.agentconf(&args);
        assert_eq!(out.status.code(), Some(2), "{flag} {target}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot write"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !std::path::Path::new(&marker).exists(),
            "the implementation ran"
        );
    }
    assert_eq!(std::fs::read_to_string(path("victim")).unwrap(), "keep");
}

/// A claim of the valid timelines made through `command` and re-checked by `claim verify`.
struct Claims {
    scratch: Scratch,
}

impl Claims {
    fn new(name: &str) -> Claims {
        Claims {
            scratch: Scratch::new(name),
        }
    }

    fn path(&self, name: &str) -> String {
        self.scratch.path(name)
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.scratch.agentconf(args)
    }

    /// `agentconf claim verify CLAIM --out OUT REST…`.
    fn verify(&self, claim: &str, out: &str, rest: &[&str]) -> std::process::Output {
        let mut args = vec!["claim", "verify", claim, "--out", out];
        args.extend_from_slice(rest);
        self.run(&args)
    }

    /// `agentconf run` of the valid timelines through `command`, written to `out`.
    fn make(&self, out: &str, command: &[&str]) {
        let mut args = vec![
            "run",
            "--include",
            "aer1/timeline/valid",
            "--out",
            out,
            "--",
        ];
        args.extend_from_slice(command);
        self.run(&args);
        assert!(std::path::Path::new(out).exists(), "{out} was not written");
    }
}

fn stdout_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// The verdict every report of a results file shows.
fn verdict_of(file: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    agentconf_harness::report::verdict(&agentconf_harness::results::parse(&text).unwrap())
        .headline()
}

/// The line of `claim verify` that says what came of it.
fn result_line(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("REPRODUCED") || l.starts_with("NOT THE SAME"))
        .unwrap_or_else(|| panic!("no result line:\n{text}"))
        .to_string()
}

/// `claim verify` re-runs a vendor's claim through the implementation it records: it
/// reproduces with its verdict named; without a command it is refused in one line naming the
/// recorded command (the reference never stands in); once the vendor's script changed it is not
/// the same implementation, named with both digests, and runs only when allowed, saying so.
#[test]
fn claims_are_reproduced_by_the_implementation_they_record() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let claims = Claims::new("claim-vendor");
    let path = |name: &str| claims.path(name);
    // A vendor's claim, made through a script.
    let script = path("impl.sh");
    std::fs::write(&script, format!("exec {bin} impl \"$@\"\n")).unwrap();
    let vendor = path("vendor.jsonl");
    claims.make(&vendor, &["sh", &script]);
    let same = claims.verify(&vendor, &path("again.jsonl"), &["--", "sh", &script]);
    let text = stdout_of(&same);
    assert_eq!(same.status.code(), Some(0), "{text}");
    // The recorded command and identity first, then the verdict the claim reproduces.
    assert!(text.contains(&format!("recorded:   sh {script}")), "{text}");
    assert!(
        text.contains("re-running: ") && text.contains("the same executable and files"),
        "{text}"
    );
    assert!(
        result_line(&text).starts_with("REPRODUCED: ")
            && result_line(&text)
                .contains(&format!("the claim's verdict: {}", verdict_of(&vendor))),
        "{text}"
    );

    // Without a command, someone else's claim is refused in one line naming its command, and
    // the reference never runs in its place.
    let refused_out = path("refused.jsonl");
    let refused = claims.verify(&vendor, &refused_out, &[]);
    let err = String::from_utf8_lossy(&refused.stderr).to_string();
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("-- sh {script})")) && stdout_of(&refused).is_empty(),
        "{err}"
    );
    assert!(!std::path::Path::new(&refused_out).exists());

    // The script changed: not the same implementation, named with both digests; nothing runs.
    // The digests are worked out here, not by the harness whose message is checked.
    let file_sha256 = |path: &str| {
        agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(
            &std::fs::read(path).unwrap(),
        ))
    };
    let recorded_digest = file_sha256(&script);
    std::fs::write(&script, format!("exec {bin} impl \"$@\" # edited\n")).unwrap();
    let edited_digest = file_sha256(&script);
    let changed_out = path("changed.jsonl");
    let changed = claims.verify(&vendor, &changed_out, &["--", "sh", &script]);
    let text = stdout_of(&changed);
    assert_eq!(changed.status.code(), Some(1), "{text}");
    assert!(
        result_line(&text).starts_with("NOT THE SAME IMPLEMENTATION")
            && text.contains(&format!(
                "file {script}: recorded sha256 {recorded_digest}, now {edited_digest}"
            )),
        "{text}"
    );
    assert!(!std::path::Path::new(&changed_out).exists());
    // Allowed, it runs, and the result line says by what.
    let allowed = claims.verify(
        &vendor,
        &changed_out,
        &["--allow-different-implementation", "--", "sh", &script],
    );
    let text = stdout_of(&allowed);
    assert_eq!(allowed.status.code(), Some(0), "{text}");
    assert!(
        result_line(&text).starts_with("REPRODUCED BY A DIFFERENT IMPLEMENTATION"),
        "{text}"
    );
}

/// `claim verify` of the reference's own claim needs no command; an implementation that changed
/// one verdict is caught on exactly that case; a FAIL claim reproduces as FAIL.
#[test]
fn claims_are_reproduced_or_the_differences_listed() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let claims = Claims::new("claim");
    let path = |name: &str| claims.path(name);
    let run = |args: &[&str]| claims.run(args);
    // The reference's own claims re-run without a command: recorded in process, or as
    // `agentconf impl` of this build.
    let in_process = path("in-process.jsonl");
    run(&[
        "run",
        "--include",
        "aer1/timeline/valid",
        "--out",
        &in_process,
    ]);
    let own = path("own.jsonl");
    claims.make(&own, &[bin, "impl"]);
    for (claim, rerun) in [(&in_process, "the reference, in process"), (&own, bin)] {
        let again = claims.verify(claim, &path("again2.jsonl"), &[]);
        let text = stdout_of(&again);
        assert_eq!(again.status.code(), Some(0), "{text}");
        assert!(
            text.contains(&format!("re-running: {rerun}"))
                && result_line(&text).starts_with("REPRODUCED: "),
            "{text}"
        );
    }

    // One verdict changed: the valid example-5 chain is rejected. Another script, so it runs
    // only when allowed, and the one case is named.
    let flip = path("flip.sh");
    std::fs::write(
        &flip, format!(
            "case \"$*\" in *aer1_timeline_valid_example-5/*) exit 1 ;; esac\nexec {bin} impl \"$@\"\n"
        ), )
    .unwrap();
    let flipped = claims.verify(
        &own,
        &path("flipped.jsonl"),
        &["--allow-different-implementation", "--", "sh", &flip],
    );
    let text = stdout_of(&flipped);
    assert_eq!(flipped.status.code(), Some(1), "{text}");
    assert!(
        result_line(&text).starts_with("NOT REPRODUCED BY A DIFFERENT IMPLEMENTATION"),
        "{text}"
    );
    assert!(
        text.contains("aer1/timeline/valid/example-5: recorded pass, now false-reject"),
        "{text}"
    );
    // A FAIL claim reproduces as what it is: its verdict is on the result line.
    let failing = path("failing.jsonl");
    claims.make(&failing, &["sh", &flip]);
    assert_eq!(verdict_of(&failing), "FAIL");
    let again = claims.verify(&failing, &path("again3.jsonl"), &["--", "sh", &flip]);
    let text = stdout_of(&again);
    assert_eq!(again.status.code(), Some(0), "{text}");
    assert!(
        result_line(&text).starts_with("REPRODUCED: ")
            && result_line(&text).contains("the claim's verdict: FAIL"),
        "{text}"
    );

    // A claim made without an adapter is not re-checked through one.
    std::fs::write(path("a.toml"), format!("command = [\"{bin}\", \"impl\"]\n")).unwrap();
    let with_adapter = run(&["claim", "verify", &own, "--adapter", &path("a.toml")]);
    assert_eq!(with_adapter.status.code(), Some(2));
}

/// A fresh directory for one test, with the `agentconf` binary at hand; removed when dropped.
struct Scratch {
    dir: std::path::PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("agentconf-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }

    /// Writes an executable shell script with `body` and returns its path.
    fn script(&self, name: &str, body: &str) -> String {
        let p = self.path(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        let mut perm = std::fs::metadata(&p).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&p, perm).unwrap();
        p
    }

    fn agentconf(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(args)
            .output()
            .unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `agentconf smoke` tells a working wrapper from a broken one in one screen, and a run whose
/// first cases all crash the same way stops there and shows it, instead of hundreds of lines.
#[test]
fn smoke_check_and_broken_wrappers() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let scratch = Scratch::new("smoke");
    let path = |name: &str| scratch.path(name);
    let script = |name: &str, body: &str| scratch.script(name, body);
    let smoke = |command: &[&str]| {
        let mut args = vec!["smoke", "--"];
        args.extend_from_slice(command);
        let out = scratch.agentconf(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    // The diagnosis is wrapped to the terminal's width: its words, in order.
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    // The reference through the contract works, with a valid and an invalid probe per suite (a
    // probe's line names its case, whose id starts with the suite's).
    let (code, text) = smoke(&[bin, "impl"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(flat(&text).contains("the wrapper works"), "{text}");
    for suite in [
        "aer1/receipt/",
        "aer1/timeline/",
        "aer1/workflow/",
        "grp/admission/",
    ] {
        for expectation in ["valid", "invalid"] {
            assert!(
                text.lines().any(|l| l.contains(suite)
                    && l.contains(&format!(" {expectation} "))
                    && l.contains(" pass ")),
                "{suite} {expectation}: {text}"
            );
        }
    }
    // A command that does not exist, and one that exits 3 whatever it is asked.
    let (code, text) = smoke(&[&path("missing-command")]);
    assert_eq!(code, Some(1));
    assert!(
        flat(&text).contains("the wrapper is broken") && flat(&text).contains("cannot start"),
        "{text}"
    );
    let three = script("three.sh", "exit 3");
    let (code, text) = smoke(&[&three]);
    assert_eq!(code, Some(1));
    assert!(flat(&text).contains("the wrapper is broken"), "{text}");
    // The crash's detail names the codes that were expected, in words, not Rust's debug text.
    assert!(
        flat(&text).contains(
            "exit code 3 is not one of the contract's 0 (accept), 1 (reject) and 89 (unsupported)"
        ),
        "{text}"
    );
    std::fs::write(
        path("codes.toml"),
        "[exit_codes]\n0 = \"accept\"\n2 = \"reject\"\n",
    )
    .unwrap();
    let out = scratch.agentconf(&["smoke", "--adapter", &path("codes.toml"), "--", &three]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        flat(&text).contains("exit code 3 is not one of the adapter's exit_codes (0, 2)"),
        "{text}"
    );
    // Exit codes swapped.
    let swapped = script(
        "swapped.sh",
        // GRP passed through unchanged: a receiver is not a verdict to swap.
        &format!(
            "[ \"$1\" = grp-admit ] && exec {bin} impl \"$@\"\n\
             {bin} impl \"$@\" >/dev/null; case $? in 0) exit 1;; 1) exit 0;; *) exit $?;; esac"
        ),
    );
    let (code, text) = smoke(&[&swapped]);
    assert_eq!(code, Some(1));
    assert!(text.contains("swapped"), "{text}");

    // A run against the exit-3 wrapper stops after the first cases and shows the smoke check.
    let out = scratch.agentconf(&[
        "run",
        "--jobs",
        "1",
        "--out",
        &path("three.jsonl"),
        "--",
        &three,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        flat(&err).contains("all ended the same way")
            && flat(&err).contains("the wrapper is broken"),
        "{err}"
    );
    let lines = std::fs::read_to_string(path("three.jsonl"))
        .unwrap()
        .lines()
        .count();
    // Header, the first cases, footer: not the whole corpus.
    assert_eq!(
        lines,
        2 + agentconf_harness::smoke::IDENTICAL_CRASHES,
        "{lines}"
    );
    // --keep-going runs every AER-1 case nonetheless.
    let out = scratch.agentconf(&[
        "run",
        "--keep-going",
        "--include",
        "aer1/workflow/",
        "--out",
        &path("all.jsonl"),
        "--",
        &three,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("all ended the same way"));
    let lines = std::fs::read_to_string(path("all.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines > 2 + agentconf_harness::smoke::IDENTICAL_CRASHES,
        "{lines}"
    );
}

/// `--max-fail N` keeps exactly N unexpected results, however many workers had a case in flight
/// when the limit was reached.
#[test]
fn max_fail_keeps_exactly_the_limit_with_several_workers() {
    let scratch = Scratch::new("max-fail");
    let accept_all = scratch.path("accept-all.sh");
    std::fs::write(&accept_all, "exit 0\n").unwrap();
    for (jobs, limit) in [("1", 3usize), ("4", 3), ("4", 1)] {
        let out = scratch.path(&format!("r-{jobs}-{limit}.jsonl"));
        let run = scratch.agentconf(&[
            "run",
            "--keep-going",
            "--jobs",
            jobs,
            "--max-fail",
            &limit.to_string(),
            "--include",
            "aer1/timeline/",
            "--out",
            &out,
            "--",
            "sh",
            &accept_all,
        ]);
        assert_eq!(run.status.code(), Some(1));
        let text = std::fs::read_to_string(&out).unwrap();
        let unexpected = text
            .lines()
            .filter(|l| l.contains("\"type\":\"result\""))
            .filter(|l| l.contains("\"status\":\"false-accept\""))
            .count();
        assert_eq!(unexpected, limit, "--jobs {jobs} --max-fail {limit}");
    }
}

/// A GRP vector listed for both revisions runs under each: a receiver that supports only
/// revision 01 answers the 00 cases as unsupported, and the run is PARTIAL, never CONFORMS; one
/// that skips a check only under 01 is caught there.
#[test]
fn grp_vectors_run_under_every_revision_they_list() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let scratch = Scratch::new("grp-revisions");
    let path = |name: &str| scratch.path(name);
    let script = |name: &str, body: &str| scratch.script(name, body);
    // Revision 01 only: the reference for 01, "unsupported" for 00.
    let only_01 = script(
        "only-01.sh",
        &format!("[ \"$1 $2\" = \"grp-admit 00\" ] && exit 89\nexec {bin} impl \"$@\""),
    );
    let out = scratch.agentconf(&[
        "run",
        "--include",
        "grp/admission/admission/",
        "--out",
        &path("only-01.jsonl"),
        "--",
        &only_01,
    ]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("agentconf conformance report: PARTIAL"),
        "{text}"
    );
    let lines = std::fs::read_to_string(path("only-01.jsonl")).unwrap();
    let unsupported_00 = lines
        .lines()
        .filter(|l| l.contains("@00\"") && l.contains("\"status\":\"unsupported\""))
        .count();
    assert!(
        unsupported_00 >= 60,
        "{unsupported_00} revision-00 cases unsupported"
    );
    // Under 01 it skips the signature check (admits alg: none): caught in the 01 case.
    let lax_01 = script(
        "lax-01.sh",
        &format!(
            "if [ \"$1 $2\" = \"grp-admit 01\" ]; then\n\
             while IFS= read -r line; do\n\
             case \"$line\" in *eyJhbGciOiJub25lIi*) echo '{{\"event_id\":\"grp-evt-20260714-001\",\"publisher_id\":\"ponyhouse.myauberge.jp\",\"outcome\":\"admitted\",\"ale\":null,\"rejection_reason\":null,\"rule\":null}}';;\n\
             *) echo \"$line\" | {bin} impl grp-admit 00 \"$3\" \"$4\".lax;; esac\n\
             done\nexit 0\nfi\nexec {bin} impl \"$@\""
        ),
    );
    let out = scratch.agentconf(&[
        "run",
        "--keep-going",
        "--include",
        "grp/admission/admission/alg-none",
        "--out",
        &path("lax.jsonl"),
        "--",
        &lax_01,
    ]);
    let lines = std::fs::read_to_string(path("lax.jsonl")).unwrap();
    let status_of = |id: &str| {
        lines
            .lines()
            .find(|l| l.contains(&format!("\"id\":\"{id}\"")))
            .and_then(|l| l.split("\"status\":\"").nth(1))
            .and_then(|rest| rest.split('"').next())
            .map(str::to_string)
    };
    assert_eq!(
        status_of("grp/admission/admission/alg-none").as_deref(),
        Some("false-accept"),
        "{lines}"
    );
    assert_eq!(
        status_of("grp/admission/admission/alg-none@00").as_deref(),
        Some("pass"),
        "{lines}"
    );
    assert_eq!(out.status.code(), Some(1));
}
