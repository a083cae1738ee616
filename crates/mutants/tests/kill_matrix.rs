//! The mutation kill matrix (issue 5, item 6): proof that the suite discriminates.
//!
//! `agentconf-mutant MUTANT …` is the reference with one deliberate defect (see its `--list`).
//! Every mutant is run over the corpus through the process contract, strictly graded and claiming
//! both GRP profiles (so the durability and atomicity claims are tested, not trusted). The test
//! asserts that the control (`none`) passes every vector, and that every other mutant is caught —
//! at least one vector not passed — on the rule it breaks: the vectors listed for it are caught,
//! and every vector that catches it exercises one of its rules. AER-1 mutants run on the AER-1
//! vectors, GRP mutants on the GRP scenarios.
//!
//! A few mutants are listed as surviving these runs, each with its reason: *by design* (the
//! suite's reading allows what the mutant does, e.g. a SHOULD rule whose vectors are all
//! `acceptable`), asserted to survive, so a corpus change that starts catching one fails here
//! until the matrix is updated; or *caught elsewhere* (the cluster mutants need nodes on a shared
//! PostgreSQL store, which `tests/cluster_kill.rs` gives them). No mutant survives as a hole in
//! the corpus: a new one that does is listed here with that reason before it is merged.
//!
//! The matrix (mutant × vectors caught, with the first catching vectors and their rules) is
//! printed as Markdown: `cargo test -p agentconf-mutants --test kill_matrix -- --nocapture`.
//! Its numbers are not asserted beyond the above, so the corpus can grow without editing this.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentconf_contract::case::Case as VectorCase;
use agentconf_contract::vector::{Expectation, Suite};
use agentconf_harness::Grading;
use agentconf_harness::Status;
use agentconf_harness::{run_case, Implementation, VectorResult};

const AER1: &[Suite] = &[Suite::Aer1Receipt, Suite::Aer1Timeline, Suite::Aer1Workflow];
const TIMELINE: &[Suite] = &[Suite::Aer1Timeline];
const RECEIPT: &[Suite] = &[Suite::Aer1Receipt];
const WORKFLOW: &[Suite] = &[Suite::Aer1Workflow];
const GRP: &[Suite] = &[Suite::GrpAdmission];
const EMIT_TIMELINE: &[Suite] = &[Suite::Aer1EmitTimeline];
const EMIT_COMMITMENT: &[Suite] = &[Suite::Aer1EmitCommitment];
const EMIT_RECEIPT: &[Suite] = &[Suite::Aer1EmitReceipt];
const ALL: &[Suite] = &Suite::ALL;

const FALSE_ACCEPT: &[Status] = &[Status::FalseAccept];
const FALSE_REJECT: &[Status] = &[Status::FalseReject];
const WRONG_REASON: &[Status] = &[Status::WrongReason];
const WRONG_OUTPUT: &[Status] = &[Status::WrongOutput];

/// One mutant and how it must be caught.
struct Case {
    name: &'static str,
    /// The suites whose vectors it is run on.
    suites: &'static [Suite],
    /// The rules its defect breaks: every vector that catches it must exercise one of them (in
    /// its `rules` or `expected_rules`). Empty for the control.
    rules: &'static [&'static str],
    /// Every `invalid` vector run whose expected rules include one of these must be caught
    /// (under `only_revision` alone, when it is set).
    every_invalid_expecting: &'static [&'static str],
    /// The one revision the defect shows under (the `-under-01` mutants check the other).
    only_revision: Option<&'static str>,
    /// These vectors must be caught, with one of the statuses given.
    must_catch: &'static [(&'static str, &'static [Status])],
    /// A mutant known to survive, and why. It must not be caught (when the corpus starts catching
    /// it, move it to the caught ones).
    survives: Option<Survives>,
}

/// Why a mutant survives.
#[derive(Clone, Copy, Debug)]
enum Survives {
    /// The suite's reading allows what it does: no vector exercising its rules may be `invalid`.
    ByDesign(&'static str),
    /// Caught by another test of this crate, which gives it what this matrix's runs do not (the
    /// cluster mutants: nodes on a shared PostgreSQL store, `tests/cluster_kill.rs`).
    Elsewhere(&'static str),
}

const fn case(
    name: &'static str,
    suites: &'static [Suite],
    rules: &'static [&'static str],
) -> Case {
    Case {
        name,
        suites,
        rules,
        every_invalid_expecting: &[],
        only_revision: None,
        must_catch: &[],
        survives: None,
    }
}

const CLOSE_RULES: &[&str] = &[
    "AER1-TL-CLOSE-TYPE",
    "AER1-TL-CLOSE-EARLY",
    "AER1-TL-CLOSE-LAST",
];
const ANCHOR_RULES: &[&str] = &[
    "AER1-RC-ANCHOR-MEMBERS",
    "AER1-RC-ANCHOR-LOG",
    "AER1-RC-ANCHOR-LEAF-FORMAT",
    "AER1-RC-ANCHOR-LEAF-MATCH",
    "AER1-RC-ANCHOR-TIME",
    "AER1-RC-ANCHOR-PROOF",
];
const WF_SEQ_RULES: &[&str] = &["AER1-WF-SEQ", "AER1-WF-SEQ-TYPE"];
const GRP_SIG_RULES: &[&str] = &[
    "GRP-SIG-FORMAT",
    "GRP-SIG-ALG",
    "GRP-SIG-KEY",
    "GRP-SIG-VERIFY",
    "GRP-SIG-PAYLOAD",
];

/// A duplicate check placed before the signature and nonce checks answers `duplicate_event_id`
/// where one of those was expected.
const DUP_ORDER_RULES: &[&str] = &[
    "GRP-DUP-ORDER",
    "GRP-NONCE",
    "GRP-SIG-FORMAT",
    "GRP-SIG-ALG",
    "GRP-SIG-KEY",
    "GRP-SIG-VERIFY",
    "GRP-SIG-PAYLOAD",
];
const RECORDS_REJECTED_RULES: &[&str] = &[
    "GRP-DUP-ADMITTED-ONLY",
    "GRP-DUP-ORDER",
    "GRP-NONCE",
    "GRP-SIG-FORMAT",
    "GRP-SIG-ALG",
    "GRP-SIG-KEY",
    "GRP-SIG-VERIFY",
    "GRP-SIG-PAYLOAD",
];

fn cases() -> Vec<Case> {
    vec![
        case("none", ALL, &[]),
        Case {
            every_invalid_expecting: &["AER1-TL-LINK"],
            must_catch: &[("aer1/timeline/tamper/bytes-at-4-of-8", FALSE_ACCEPT)],
            ..case("trusts-stored-links", TIMELINE, &["AER1-TL-LINK"])
        },
        Case {
            every_invalid_expecting: CLOSE_RULES,
            ..case("ignores-close", TIMELINE, CLOSE_RULES)
        },
        Case {
            must_catch: &[
                ("aer1/timeline/valid/non-ascii-job-id", FALSE_REJECT),
                ("aer1/timeline/valid/mixed-unicode-everywhere", FALSE_REJECT),
                ("aer1/timeline/valid/non-bmp-in-tool", FALSE_REJECT),
                ("aer1/timeline/valid/u007f-in-tool", FALSE_REJECT),
            ],
            ..case(
                "raw-utf8-preimage",
                TIMELINE,
                &["AER1-TL-LINK", "AER1-CM-FINAL"],
            )
        },
        Case {
            must_catch: &[("aer1/timeline/valid/u007f-in-tool", FALSE_REJECT)],
            ..case("raw-u007f", TIMELINE, &["AER1-TL-LINK", "AER1-CM-FINAL"])
        },
        Case {
            must_catch: &[("aer1/timeline/valid/non-ascii-job-id", FALSE_REJECT)],
            ..case(
                "uppercase-escapes",
                TIMELINE,
                &["AER1-TL-LINK", "AER1-CM-FINAL"],
            )
        },
        Case {
            must_catch: &[
                (
                    "aer1/timeline/revision06/example-06-5@09",
                    FALSE_ACCEPT,
                ),
                (
                    "aer1/timeline/revision06/example-06-8@09",
                    FALSE_ACCEPT,
                ),
            ],
            ..case(
                "accepts-06-as-current",
                TIMELINE,
                &["AER1-TL-LINK", "AER1-TL-VERSIONING"],
            )
        },
        Case {
            must_catch: &[
                ("aer1/timeline/revision06/shape-06-3", FALSE_REJECT),
                (
                    "aer1/timeline/revision06/example-06-5-inner-job-changed",
                    FALSE_REJECT,
                ),
                (
                    "aer1/timeline/revision06/shape-06-3-inner-close-true",
                    FALSE_REJECT,
                ),
            ],
            ..case(
                "applies-07-rules-under-06",
                TIMELINE,
                &[
                    "AER1-TL-MEMBERS",
                    "AER1-TL-SEQ-TYPE",
                    "AER1-TL-SEQ",
                    "AER1-TL-JOB",
                    "AER1-TL-CLOSE-EARLY",
                    "AER1-TL-PROVENANCE",
                    "AER1-TL-UTF8",
                    "AER1-TL-VERSIONING",
                ],
            )
        },
        // Once a corpus hole: caught since structure/links-over-raw-utf8-preimages.
        case("accepts-raw-utf8-too", TIMELINE, &["AER1-TL-LINK"]),
        Case {
            every_invalid_expecting: &["AER1-CM-FINAL"],
            must_catch: &[
                (
                    "aer1/timeline/substituted/replace-final-bytes-of-5-against-commitment",
                    FALSE_ACCEPT,
                ),
                (
                    "aer1/timeline/substituted/replace-final-all-of-8-against-commitment",
                    FALSE_ACCEPT,
                ),
            ],
            ..case("commitment-count-only", TIMELINE, &["AER1-CM-FINAL"])
        },
        Case {
            every_invalid_expecting: &["AER1-CM-JOB"],
            ..case("ignores-commitment-job", TIMELINE, &["AER1-CM-JOB"])
        },
        Case {
            must_catch: &[("aer1/timeline/valid/seq-written-as-float", FALSE_REJECT)],
            ..case("rejects-seq-float", TIMELINE, &["AER1-TL-SEQ-TYPE"])
        },
        Case {
            every_invalid_expecting: &["AER1-TL-SEQ"],
            ..case("ignores-seq-contiguity", TIMELINE, &["AER1-TL-SEQ"])
        },
        Case {
            every_invalid_expecting: &["AER1-TL-GENESIS"],
            ..case("ignores-genesis", TIMELINE, &["AER1-TL-GENESIS"])
        },
        Case {
            every_invalid_expecting: &["AER1-TL-JOB"],
            ..case("ignores-mixed-job", TIMELINE, &["AER1-TL-JOB"])
        },
        Case {
            survives: Some(Survives::ByDesign(
                "AER1-JSON-DUPLICATE is a SHOULD: its vectors are `acceptable`, so a verifier that \
                 takes the last of duplicated members conforms",
            )),
            ..case("accepts-duplicate-members", AER1, &["AER1-JSON-DUPLICATE"])
        },
        // Every rule: a rejection that names only its first finding misses the others.
        case("first-finding-only", AER1, &["*"]),
        Case {
            every_invalid_expecting: &["AER1-RC-ID-STRICT"],
            must_catch: &[
                ("aer1/receipt/id-tier/strict-nil-id", FALSE_ACCEPT),
                ("aer1/receipt/anchored/non-v4-id", FALSE_ACCEPT),
            ],
            ..case("strict-tier-as-core", RECEIPT, &["AER1-RC-ID-STRICT"])
        },
        Case {
            every_invalid_expecting: ANCHOR_RULES,
            must_catch: &[
                ("aer1/receipt/anchored/bad-leaf-hash", FALSE_ACCEPT),
                ("aer1/receipt/anchored/anchor-missing", FALSE_ACCEPT),
            ],
            ..case("skips-anchors", RECEIPT, ANCHOR_RULES)
        },
        Case {
            every_invalid_expecting: &["AER1-RC-HASH-MATCH"],
            ..case("trusts-receipt-hash", RECEIPT, &["AER1-RC-HASH-MATCH"])
        },
        Case {
            every_invalid_expecting: &["AER1-WF-DUPLICATE"],
            ..case(
                "workflow-ignores-duplicates",
                WORKFLOW,
                &["AER1-WF-DUPLICATE"],
            )
        },
        Case {
            every_invalid_expecting: WF_SEQ_RULES,
            must_catch: &[
                ("aer1/workflow/structure/seq-swapped", FALSE_ACCEPT),
                ("aer1/workflow/structure/seq-gap", FALSE_ACCEPT),
                ("aer1/workflow/structure/seq-repeated", FALSE_ACCEPT),
            ],
            ..case("workflow-ignores-seq", WORKFLOW, WF_SEQ_RULES)
        },
        // Sorting first hides only a swap: gaps and repeats survive the sort.
        Case {
            must_catch: &[
                ("aer1/workflow/structure/seq-swapped", FALSE_ACCEPT),
                ("aer1/workflow/structure/seq-values-exchanged", WRONG_REASON),
            ],
            ..case("workflow-sorts-steps", WORKFLOW, &["AER1-WF-SEQ"])
        },
        // Producers: each caught on what it writes (or refuses to write).
        Case {
            must_catch: &[
                ("aer1/emit-timeline/escaping/non-ascii-job-id", WRONG_OUTPUT),
                ("aer1/emit-timeline/escaping/u2028-in-tool", WRONG_OUTPUT),
            ],
            ..case("emits-raw-utf8", EMIT_TIMELINE, &["AER1-TL-LINK"])
        },
        Case {
            must_catch: &[
                ("aer1/emit-commitment/refuse/tampered-entry", FALSE_ACCEPT),
                ("aer1/emit-commitment/refuse/unclosed", FALSE_ACCEPT),
            ],
            ..case(
                "commits-unverified",
                EMIT_COMMITMENT,
                &["AER1-TL-LINK", "AER1-TL-CLOSE-LAST", "AER1-CM-FINAL"],
            )
        },
        Case {
            must_catch: &[
                ("aer1/emit-commitment/valid/published-example", WRONG_OUTPUT),
                ("aer1/emit-commitment/valid/one-entry", WRONG_OUTPUT),
            ],
            ..case("count-off-by-one", EMIT_COMMITMENT, &["AER1-CM-COUNT"])
        },
        Case {
            must_catch: &[
                ("aer1/emit-receipt/bytes/key-order", WRONG_OUTPUT),
                ("aer1/emit-receipt/bytes/number-forms", WRONG_OUTPUT),
                ("aer1/emit-receipt/bytes/not-json", FALSE_REJECT),
            ],
            ..case(
                "reserialises-payload",
                EMIT_RECEIPT,
                &["AER1-RC-BYTES-KEPT"],
            )
        },
        Case {
            must_catch: &[("aer1/emit-receipt/bytes/published-example", WRONG_OUTPUT)],
            ..case(
                "uppercase-output-hash",
                EMIT_RECEIPT,
                &["AER1-RC-HASH-FORMAT"],
            )
        },
        Case {
            every_invalid_expecting: &["GRP-DUP-EVENT"],
            ..case("grp-no-dedup", GRP, &["GRP-DUP-EVENT"])
        },
        Case {
            must_catch: &[
                (
                    "grp/admission/duplicate-event/same-event-id-other-publisher",
                    FALSE_REJECT,
                ),
                (
                    "grp/admission/duplicate-event/interleaved-publishers",
                    FALSE_REJECT,
                ),
            ],
            ..case("grp-dedup-event-id-only", GRP, &["GRP-DUP-PAIR"])
        },
        Case {
            must_catch: &[("grp/admission/duplicate-event/new-session", FALSE_REJECT)],
            ..case("grp-dedup-across-sessions", GRP, &["GRP-DUP-SESSION"])
        },
        Case {
            must_catch: &[
                (
                    "grp/admission/duplicate-event/forged-copy-after-admission",
                    WRONG_REASON,
                ),
                (
                    "grp/admission/duplicate-event/wrong-session-copy-after-admission",
                    WRONG_REASON,
                ),
            ],
            ..case("grp-dedup-before-signature", GRP, DUP_ORDER_RULES)
        },
        Case {
            must_catch: &[
                (
                    "grp/admission/duplicate-event/rejected-then-genuine",
                    FALSE_REJECT,
                ),
                (
                    "grp/admission/duplicate-event/wrong-nonce-then-genuine",
                    FALSE_REJECT,
                ),
            ],
            ..case("grp-records-rejected", GRP, RECORDS_REJECTED_RULES)
        },
        Case {
            must_catch: &[
                (
                    "grp/admission/duplicate-event/redelivery-after-restart",
                    FALSE_ACCEPT,
                ),
                (
                    "grp/admission/duplicate-event/redelivery-after-two-restarts",
                    FALSE_ACCEPT,
                ),
            ],
            ..case(
                "grp-memory-claims-durable",
                GRP,
                &["GRP-PROFILE-DURABLE", "GRP-PROFILE-ATOMIC"],
            )
        },
        Case {
            must_catch: &[(
                "grp/admission/duplicate-event/concurrent-8-copies",
                FALSE_ACCEPT,
            )],
            ..case("grp-non-atomic-claims-atomic", GRP, &["GRP-PROFILE-ATOMIC"])
        },
        Case {
            every_invalid_expecting: GRP_SIG_RULES,
            ..case("grp-ignores-signature", GRP, GRP_SIG_RULES)
        },
        Case {
            every_invalid_expecting: &["GRP-NONCE"],
            ..case("grp-ignores-nonce", GRP, &["GRP-NONCE"])
        },
        Case {
            every_invalid_expecting: &["GRP-PUB-WINDOW"],
            ..case("grp-ignores-window", GRP, &["GRP-PUB-WINDOW"])
        },
        Case {
            every_invalid_expecting: &["GRP-PUB-REVOKED"],
            ..case("grp-ignores-revocation", GRP, &["GRP-PUB-REVOKED"])
        },
        Case {
            survives: Some(Survives::ByDesign(
                "the draft gives the publishers' event-type lists but states no consequence: the \
                 GRP-PUB-EVENT-TYPE vectors are `acceptable`, so a receiver that ignores the \
                 lists conforms (spec-notes/grp-publisher.md, readings the draft does not settle)",
            )),
            ..case("grp-ignores-event-types", GRP, &["GRP-PUB-EVENT-TYPE"])
        },
        Case {
            must_catch: &[(RACE, FALSE_ACCEPT)],
            ..case("grp-check-then-insert", GRP, &["GRP-PROFILE-ATOMIC"])
        },
        Case {
            must_catch: &[(RACE, FALSE_ACCEPT)],
            ..case(
                "grp-admit-before-insert",
                GRP,
                &["GRP-PROFILE-ATOMIC", "GRP-PROFILE-DURABLE"],
            )
        },
        Case {
            must_catch: &[
                (
                    "grp/admission/duplicate-event/crash-after-admission",
                    FALSE_ACCEPT,
                ),
                (
                    "grp/admission/duplicate-event/crash-after-three-admissions",
                    FALSE_ACCEPT,
                ),
            ],
            ..case(
                "grp-flush-at-exit",
                GRP,
                &["GRP-PROFILE-DURABLE", "GRP-PROFILE-ATOMIC"],
            )
        },
        // The same checks skipped under revision 01 only: caught because every vector listed
        // for both revisions runs under each (its 01 case keeps the vector's id). The event-type
        // check has no such mutant: its vectors are all `acceptable` (see above).
        Case {
            every_invalid_expecting: GRP_SIG_RULES,
            only_revision: Some("01"),
            ..case("grp-ignores-signature-under-01", GRP, GRP_SIG_RULES)
        },
        Case {
            every_invalid_expecting: &["GRP-NONCE"],
            only_revision: Some("01"),
            ..case("grp-ignores-nonce-under-01", GRP, &["GRP-NONCE"])
        },
        Case {
            every_invalid_expecting: &["GRP-PUB-WINDOW"],
            only_revision: Some("01"),
            ..case("grp-ignores-window-under-01", GRP, &["GRP-PUB-WINDOW"])
        },
        Case {
            every_invalid_expecting: &["GRP-PUB-REVOKED"],
            only_revision: Some("01"),
            ..case("grp-ignores-revocation-under-01", GRP, &["GRP-PUB-REVOKED"])
        },
        Case {
            must_catch: &[("grp/admission/admission/alg-none", FALSE_ACCEPT)],
            ..case("grp-alg-none-under-01", GRP, GRP_SIG_RULES)
        },
        // The cluster mutants misuse a store shared by receiver nodes: the cluster vectors catch
        // them where the nodes are given one (`tests/cluster_kill.rs`), not in these runs.
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-node-local", &[], &["GRP-DUP-EVENT"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-lookup-then-insert", &[], &["GRP-PROFILE-ATOMIC"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-local-fallback", &[], &["GRP-DUP-EVENT"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-admit-then-write", &[], &["GRP-PROFILE-ATOMIC"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-fallback-on-timeout", &[], &["GRP-PROFILE-CLUSTER"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-cluster-no-session-key", &[], &["GRP-PROFILE-CLUSTER"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-cluster-no-publisher-key", &[], &["GRP-PROFILE-CLUSTER"])
        },
        Case {
            survives: Some(Survives::Elsewhere(CLUSTER_ELSEWHERE)),
            ..case("grp-commit-then-defer", &[], &["GRP-PROFILE-CLUSTER"])
        },
    ]
}

/// Where the cluster mutants are caught.
const CLUSTER_ELSEWHERE: &str = "tests/cluster_kill.rs, on the cluster vectors with nodes \
                                 sharing a PostgreSQL store";

/// The barrier vector: copies of a receiver raced round after round.
const RACE: &str = "grp/admission/duplicate-event/race-8-copies-200-rounds";

fn exercises(v: &VectorCase<'_>, rules: &[&str]) -> bool {
    rules.contains(&"*")
        || v.vector
            .rules
            .iter()
            .chain(v.expected_rules)
            .any(|r| rules.contains(&r.id()))
}

/// `agentconf-mutant NAME` as the implementation under test, claiming both GRP profiles (so the
/// durability and atomicity claims are tested, not trusted).
fn mutant_implementation(name: &str) -> Implementation {
    Implementation {
        argv: vec![
            env!("CARGO_BIN_EXE_agentconf-mutant").to_string(),
            name.to_string(),
        ],
        timeout: Duration::from_secs(60),
        capture_limit: 1 << 20,
        profiles: vec!["durable".into(), "atomic".into()],
    }
}

/// Rule ids, comma-separated.
fn ids(rules: &[agentconf_rules::Rule]) -> String {
    rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
}

#[test]
fn every_mutant_is_caught_on_the_rule_it_breaks() {
    let started = Instant::now();
    let corpus = agentconf_corpus::corpus();
    let cases = cases();
    // The binary must know every mutant the matrix lists (and the matrix every mutant it has).
    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_agentconf-mutant"))
        .arg("--list")
        .output()
        .expect("agentconf-mutant --list");
    let listed: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| l.split('\t').next().map(str::to_string))
        .collect();
    let names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    assert_eq!(
        listed, names,
        "agentconf-mutant --list and the matrix differ"
    );

    // Every (mutant, vector) pair, the slow GRP scenarios first so two workers finish together.
    // Every case of every vector: a vector graded differently under revision 06 runs twice.
    // The `cluster` vectors need nodes sharing a store, which the mutants' processes have only
    // when given one (`AGENTCONF_GRP_STORE`): they are left to the runs that give one.
    let vector_cases: Vec<VectorCase<'_>> = corpus
        .iter()
        .filter(|v| !v.requires.iter().any(|p| p == "cluster"))
        .flat_map(|v| v.cases())
        .collect();
    let mut jobs: Vec<(usize, &VectorCase<'_>)> = Vec::new();
    for grp_first in [true, false] {
        for (i, c) in cases.iter().enumerate() {
            for v in vector_cases
                .iter()
                .filter(|v| c.suites.contains(&v.vector.suite))
            {
                if (v.vector.suite == Suite::GrpAdmission) == grp_first {
                    jobs.push((i, v));
                }
            }
        }
    }
    let imps: Vec<Implementation> = cases
        .iter()
        .map(|c| mutant_implementation(c.name))
        .collect();
    let work = std::env::temp_dir().join(format!("agentconf-kill-matrix-{}", std::process::id()));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Vec<VectorResult>>> =
        Mutex::new(cases.iter().map(|_| Vec::new()).collect());
    let elapsed: Mutex<Vec<Duration>> = Mutex::new(vec![Duration::ZERO; cases.len()]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, v)) = jobs.get(n) else { break };
                // A directory per mutant: two workers may run the same vector for two mutants.
                let t = Instant::now();
                let r = run_case(&imps[i], v, &work.join(cases[i].name), Grading::Strict);
                elapsed.lock().unwrap()[i] += t.elapsed();
                results.lock().unwrap()[i].push(r);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&work);
    let results = results.into_inner().unwrap();
    let elapsed = elapsed.into_inner().unwrap();
    let by_id: BTreeMap<&str, &VectorCase<'_>> =
        vector_cases.iter().map(|v| (v.id.as_str(), v)).collect();

    // The matrix.
    let mut table = String::from(
        "| mutant | vectors run | caught | false-accept | false-reject | wrong-reason | other | \
         first catching vectors (expected rules) |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut problems: Vec<String> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let mut rs: Vec<&VectorResult> = results[i].iter().collect();
        rs.sort_by(|a, b| a.id.cmp(&b.id));
        let count = |s: Status| rs.iter().filter(|r| r.status == s).count();
        let caught: Vec<&&VectorResult> = rs.iter().filter(|r| r.status != Status::Pass).collect();
        let other = caught.len()
            - count(Status::FalseAccept)
            - count(Status::FalseReject)
            - count(Status::WrongReason);
        let first: Vec<String> = caught
            .iter()
            .take(3)
            .map(|r| {
                let v = by_id[r.id.as_str()];
                let rules = if v.expected_rules.is_empty() {
                    format!("valid; exercises {}", ids(&v.vector.rules))
                } else {
                    ids(v.expected_rules)
                };
                format!("`{}` {} ({rules})", r.id, r.status.name())
            })
            .collect();
        table.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            c.name,
            rs.len(),
            caught.len(),
            count(Status::FalseAccept),
            count(Status::FalseReject),
            count(Status::WrongReason),
            other,
            if let Some(Survives::ByDesign(why)) = c.survives {
                format!("survives by design: {why}")
            } else if let Some(Survives::Elsewhere(place)) = c.survives {
                format!("caught in {place}")
            } else if first.is_empty() {
                "—".to_string()
            } else {
                first.join("<br>")
            }
        ));

        // The assertions.
        if c.name == "none" {
            for r in &caught {
                problems.push(format!(
                    "none (the reference) did not pass {}: {} {} {}",
                    r.id,
                    r.status.name(),
                    r.detail,
                    r.stderr
                ));
            }
            continue;
        }
        if let Some(survives) = c.survives {
            let (Survives::ByDesign(why) | Survives::Elsewhere(why)) = survives;
            for r in &caught {
                problems.push(format!(
                    "{} is listed as surviving ({why}) but {} caught it: {} {}",
                    c.name,
                    r.id,
                    r.status.name(),
                    r.detail
                ));
            }
            for r in rs
                .iter()
                .filter(|_| matches!(survives, Survives::ByDesign(_)))
            {
                let v = by_id[r.id.as_str()];
                if v.expectation == Expectation::Invalid && exercises(v, c.rules) {
                    problems.push(format!(
                        "{} is listed as surviving ({why}), but {} is invalid and exercises {:?}",
                        c.name, r.id, c.rules
                    ));
                }
            }
            continue;
        }
        if caught.is_empty() {
            problems.push(format!("{} survived: no vector caught it", c.name));
        }
        for r in &caught {
            let v = by_id[r.id.as_str()];
            // A producer's wrong artifact is graded too (`wrong-output`).
            if !matches!(
                r.status,
                Status::FalseAccept
                    | Status::FalseReject
                    | Status::WrongReason
                    | Status::WrongOutput
            ) {
                problems.push(format!(
                    "{}: {} is {} ({}), not a graded failure",
                    c.name,
                    r.id,
                    r.status.name(),
                    r.detail
                ));
            }
            // Strict grading is exact: a rejection that names a rule the input does not break
            // is caught on that rule, whatever the vector exercises.
            let named_wrongly = r.status == Status::WrongReason
                && r.detail
                    .split_once("the input does not break ")
                    .is_some_and(|(_, extra)| c.rules.iter().any(|rule| extra.contains(rule)));
            if !exercises(v, c.rules) && !named_wrongly {
                problems.push(format!(
                    "{}: caught by {}, which exercises none of {:?} (rules {:?}, expected {:?}): {}",
                    c.name, r.id, c.rules, v.vector.rules, v.expected_rules, r.detail
                ));
            }
        }
        let mut expecting = 0;
        for r in &rs {
            let v = by_id[r.id.as_str()];
            if v.expectation == Expectation::Invalid
                && c.only_revision.is_none_or(|rev| v.revision == rev)
                && v.expected_rules
                    .iter()
                    .any(|e| c.every_invalid_expecting.contains(&e.id()))
            {
                expecting += 1;
                if r.status == Status::Pass {
                    problems.push(format!(
                        "{}: passed {}, which expects {:?}",
                        c.name, r.id, v.expected_rules
                    ));
                }
            }
        }
        if !c.every_invalid_expecting.is_empty() && expecting == 0 {
            problems.push(format!(
                "{}: no invalid vector expects {:?}",
                c.name, c.every_invalid_expecting
            ));
        }
        for (id, statuses) in c.must_catch {
            match rs.iter().find(|r| r.id == *id) {
                None => problems.push(format!("{}: vector {id} was not run", c.name)),
                Some(r) if !statuses.contains(&r.status) => problems.push(format!(
                    "{}: {id} is {}, expected one of {:?}: {}",
                    c.name,
                    r.status.name(),
                    statuses.iter().map(|s| s.name()).collect::<Vec<_>>(),
                    r.detail
                )),
                Some(_) => {}
            }
        }
    }
    let mut timing = String::from("\n| mutant | seconds (summed over workers) |\n|---|---|\n");
    for (c, t) in cases.iter().zip(&elapsed) {
        timing.push_str(&format!("| `{}` | {:.1} |\n", c.name, t.as_secs_f64()));
    }
    println!(
        "\n## Mutation kill matrix\n\n{} vectors ({} cases) in the corpus; {} runs in {:.1} s (2 \
         workers). Strict grading, profiles `durable` and `atomic` claimed.\n\n{table}{timing}",
        corpus.len(),
        vector_cases.len(),
        jobs.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The racy mutants are caught on every run, not now and then: the barrier vector (and the
/// crash vectors) against each, 20 times over. A run that misses fails here, so a change that
/// makes the race rarer (fewer rounds, a harness that serialises the copies) shows.
#[test]
fn racy_mutants_are_caught_on_every_run() {
    let corpus = agentconf_corpus::corpus();
    let race = corpus
        .iter()
        .find(|v| v.id == RACE)
        .expect("the barrier vector");
    let case = race.cases().into_iter().next().expect("its case");
    let work = std::env::temp_dir().join(format!("agentconf-racy-{}", std::process::id()));
    for mutant in ["grp-check-then-insert", "grp-admit-before-insert"] {
        let imp = mutant_implementation(mutant);
        let mut rounds = Vec::new();
        for run in 0..20 {
            let r = run_case(
                &imp,
                &case,
                &work.join(format!("{mutant}-{run}")),
                Grading::Strict,
            );
            assert_eq!(
                r.status,
                Status::FalseAccept,
                "{mutant}, run {run}: not caught: {}",
                r.detail
            );
            rounds.push(r.detail.split(',').nth(1).unwrap_or("").trim().to_string());
        }
        println!(
            "{mutant}: caught in 20 of 20 runs, at {}",
            rounds.join("; ")
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// Producers are blamed only for the rules they break. Each single-fault producer mutant runs
/// over its emitter suite; its result lines, as a run writes them, go through the per-rule table,
/// and the rules failing there are exactly the ones its defect breaks: a wrong output is charged
/// to the rules of its faults, not to every rule its vector lists. A refusal is a verdict on the
/// vector and charged to the vector's rules; an artifact written where none may be is charged to
/// the rules that make its input unfit (the vector's expected rules) and to those its output
/// breaks besides: a commitment whose final digest is the chain's is no failure of AER1-CM-FINAL.
#[test]
fn single_fault_producers_fail_only_the_rules_they_break() {
    use agentconf_harness::report::{per_rule, RuleStatus};
    use agentconf_harness::results::{ResultLine, ResultsFile};
    let corpus = agentconf_corpus::corpus();
    let rules_of = |id: &str| -> Vec<String> {
        let v = corpus.iter().find(|v| v.id == id).expect("the vector");
        v.rules.iter().map(|r| r.id().to_string()).collect()
    };
    // The payload that is not JSON: the re-serialising producer refuses it, a false rejection.
    let mut reserialised = rules_of("aer1/emit-receipt/bytes/not-json");
    reserialised.push("AER1-RC-BYTES-KEPT".into());
    let expected_of = |id: &str| -> Vec<String> {
        let v = corpus.iter().find(|v| v.id == id).expect("the vector");
        v.expected_rules
            .iter()
            .map(|r| r.id().to_string())
            .collect()
    };
    // It commits to chains that do not verify, correctly: charged with what it did not check
    // (the link, the close), not with the final digest it got right.
    let mut unverified = expected_of("aer1/emit-commitment/refuse/tampered-entry");
    unverified.extend(expected_of("aer1/emit-commitment/refuse/unclosed"));
    assert!(!unverified.iter().any(|r| r == "AER1-CM-FINAL"));
    let producers: [(&str, Suite, Vec<String>); 5] = [
        (
            "count-off-by-one",
            Suite::Aer1EmitCommitment,
            vec!["AER1-CM-COUNT".into()],
        ),
        (
            "emits-raw-utf8",
            Suite::Aer1EmitTimeline,
            vec!["AER1-TL-LINK".into()],
        ),
        (
            "uppercase-output-hash",
            Suite::Aer1EmitReceipt,
            vec!["AER1-RC-HASH-FORMAT".into()],
        ),
        ("reserialises-payload", Suite::Aer1EmitReceipt, reserialised),
        ("commits-unverified", Suite::Aer1EmitCommitment, unverified),
    ];
    let work = std::env::temp_dir().join(format!("agentconf-producers-{}", std::process::id()));
    for (mutant, suite, breaks) in producers {
        let imp = mutant_implementation(mutant);
        let results: Vec<ResultLine> = corpus
            .iter()
            .filter(|v| v.suite == suite)
            .flat_map(|v| v.cases())
            .map(|c| ResultLine::new(&c, run_case(&imp, &c, &work.join(mutant), Grading::Strict)))
            .collect();
        let mut file = ResultsFile {
            header: serde_json::from_value(serde_json::json!({
                "format": agentconf_harness::results::FORMAT,
                "suite_version": "test",
                "corpus_digest": "0".repeat(64),
                "vector_count": results.len(),
                "implementation": {"name": mutant, "argv": [], "executable_sha256": null},
                "adapter_digest": null,
                "grading": "strict",
                "profiles": [],
                "started_at": "2026-01-01T00:00:00Z",
            }))
            .expect("a header"),
            results,
            footer: None,
        };
        let failing = |file: &ResultsFile, status: RuleStatus| -> Vec<String> {
            let mut rules: Vec<String> = per_rule(file)
                .into_iter()
                .filter(|r| r.status == status)
                .map(|r| r.rule)
                .collect();
            rules.sort();
            rules
        };
        let mut want = breaks.clone();
        want.sort();
        want.dedup();
        assert_eq!(failing(&file, RuleStatus::Fail), want, "{mutant}");

        let Some(wrong) = file
            .results
            .iter()
            .position(|l| l.status == Status::WrongOutput)
        else {
            continue;
        };
        // A rule the wrong outputs kept earns no credit from them: the rows count only the
        // lines charged to them, and a line's kept rules still have their row.
        for row in per_rule(&file) {
            let charged = file.results.iter().filter(|l| {
                let names = if l.broken_rules.is_empty() {
                    &l.rules
                } else {
                    &l.broken_rules
                };
                names.iter().any(|n| n.id() == row.rule)
                    && !matches!(l.status, Status::Unsupported | Status::OutOfScope)
            });
            assert_eq!(row.total, charged.count(), "{mutant}: {}", row.rule);
        }
        // An expected failure that failed with a wrong output is a known failure of the same
        // rules, and only of them.
        let line = &mut file.results[wrong];
        let broken: Vec<String> = line
            .broken_rules
            .iter()
            .map(|r| r.id().to_string())
            .collect();
        line.failed_as = Some(Status::WrongOutput);
        line.status = Status::Xfail;
        let single = ResultsFile {
            results: vec![file.results[wrong].clone()],
            ..file.clone()
        };
        assert_eq!(failing(&single, RuleStatus::KnownFailure), {
            let mut b = broken.clone();
            b.sort();
            b
        });
        // A line written before broken rules were recorded is charged to all its vector's
        // rules, as it was then.
        let mut old = single.clone();
        old.results[0].status = Status::WrongOutput;
        old.results[0].failed_as = None;
        old.results[0].broken_rules.clear();
        let mut all: Vec<String> = old.results[0]
            .rules
            .iter()
            .map(|r| r.id().to_string())
            .collect();
        all.sort();
        assert_eq!(failing(&old, RuleStatus::Fail), all, "{mutant}");
        assert!(
            broken.iter().all(|b| all.contains(b)),
            "{mutant}: {broken:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}
