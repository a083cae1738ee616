//! Harness speed (issue 5, "Must show"). Prints numbers; asserts nothing about time.
//!
//! 1. Persistent mode: AER-1 vectors per second through `agentconf impl serve` (the built
//!    binary, `CARGO_BIN_EXE_agentconf`, which Cargo sets for benchmarks too), the AER-1 corpus
//!    repeated several times, strict grading. Every vector's inputs are written once before the
//!    clock starts ([`PersistentSession::run_with_files`]), so the number measures the protocol
//!    round trip plus the reference's verification, not file writes. One session, then one
//!    session per core.
//! 2. One-shot overhead: the AER-1 corpus through `run_case` (inputs written per vector,
//!    process group, pipes, capture, timeout) with `/bin/true` as the implementation, against the
//!    same number of bare `std::process::Command` spawns of `/bin/true`, interleaved in rounds in
//!    the same run. The ratio is harness time / bare time. It is measured twice: with the
//!    per-vector directories in the system temporary directory (where `agentconf run` puts them)
//!    and on tmpfs (`/dev/shm`), because writing and removing the input files on a disk-backed
//!    `/tmp` is a large part of the overhead.
//!
//! 3. One-shot against the same program: the AER-1 corpus through `run_case` with the reference
//!    as a process (`agentconf impl`), against bare spawns of `agentconf impl` with the same
//!    arguments on inputs written beforehand. Target: harness/bare <= 1.5.
//!
//! Run: `cargo bench -p agentconf-cli --bench persistent` (`-- --quick` for fewer repeats).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentconf_contract::call::Call;
use agentconf_contract::case::Case;
use agentconf_contract::vector::{Suite, Vector};
use agentconf_harness::write_inputs;
use agentconf_harness::Grading;
use agentconf_harness::Status;
use agentconf_harness::{run_case, Implementation};
use agentconf_harness::{PersistentConfig, PersistentSession};

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let corpus = agentconf_corpus::corpus();
    // Each AER-1 vector's main case, built once, outside every timed loop.
    let aer1: Vec<Case<'_>> = corpus
        .iter()
        .filter(|v| v.suite != Suite::GrpAdmission)
        .map(Vector::main_case)
        .collect();
    let work =
        std::env::temp_dir().join(format!("agentconf-bench-persistent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);

    // Inputs written once, before any timing.
    let prepared: Vec<(&Case<'_>, Vec<(String, PathBuf)>)> = aer1
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let files = write_inputs(c.vector, &work.join(format!("v{i}"))).expect("inputs");
            (c, files)
        })
        .collect();
    let repeats = if quick { 3 } else { 20 };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "persistent mode: {} AER-1 vectors x {repeats} repeats, agentconf impl serve ({}), inputs pre-written",
        aer1.len(),
        env!("CARGO_BIN_EXE_agentconf")
    );
    for validate in [false, true] {
        for sessions in [1, cores] {
            let (count, elapsed, not_passed) = persistent(&prepared, repeats, sessions, validate);
            println!(
                "  {sessions} session(s){}: {count} vectors in {:.3} s = {:.0} vectors/s ({not_passed} not passed)",
                if validate { ", --validate-protocol" } else { "" },
                elapsed.as_secs_f64(),
                count as f64 / elapsed.as_secs_f64()
            );
            if cores == 1 {
                break;
            }
        }
    }

    // One-shot overhead, with the per-vector directories where `agentconf run` puts them (the
    // system temporary directory) and, when there is one, on tmpfs (/dev/shm).
    let rounds = if quick { 2 } else { 5 };
    let trivial = Implementation {
        argv: vec!["/bin/true".into()],
        timeout: Duration::from_secs(30),
        capture_limit: 64 * 1024,
        profiles: vec![],
    };
    println!(
        "one-shot overhead: {} AER-1 vectors x {rounds} rounds through run_case with argv [/bin/true], one \
         worker, inputs written and removed per vector as in a real run; bare = Command::new(\"/bin/true\").status()",
        aer1.len()
    );
    let mut dirs = vec![("temp dir", work.join("one-shot"))];
    if Path::new("/dev/shm").is_dir() {
        dirs.push((
            "/dev/shm",
            PathBuf::from(format!("/dev/shm/agentconf-bench-{}", std::process::id())),
        ));
    }
    for (label, dir) in dirs {
        let (harness, bare, not_accepted) = overhead(&trivial, &aer1, &dir, rounds);
        let _ = std::fs::remove_dir_all(&dir);
        println!(
            "  work in {label} ({}): harness {harness:.1} us/vector ({not_accepted} not accepted), bare {bare:.1} us/spawn, \
             ratio harness/bare = {:.2} (target <= 1.3)",
            dir.display(),
            harness / bare
        );
    }

    // The same, with a real program: the reference through the contract (`agentconf impl`, what
    // `--implementation reference-process` runs), against bare spawns of that same program with
    // the same arguments on inputs written beforehand, its output captured as the harness captures
    // it. What is left is what the harness adds per vector: writing and removing the inputs, the
    // process group, the deadline, reading and grading the result.
    let reference = Implementation {
        argv: vec![env!("CARGO_BIN_EXE_agentconf").into(), "impl".into()],
        timeout: Duration::from_secs(30),
        capture_limit: agentconf_harness::DEFAULT_CAPTURE_BYTES,
        profiles: vec![],
    };
    let calls: Vec<Vec<String>> = prepared
        .iter()
        .filter_map(|(c, files)| {
            let path_of = |role: &str| {
                files
                    .iter()
                    .find(|(r, _)| r == role)
                    .map(|(_, p)| p.display().to_string())
            };
            Call::for_case(c, path_of).map(|call| call.argv())
        })
        .collect();
    // Every AER-1 case has a one-shot call, so both sides time the same vectors.
    assert_eq!(calls.len(), aer1.len(), "an AER-1 case without a call");
    let dir = work.join("one-shot-reference");
    let (harness, bare, not_passed) = overhead_of_program(&reference, &aer1, &calls, &dir, rounds);
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "one-shot against the same program: {} AER-1 vectors x {rounds} rounds through run_case with argv \
         [agentconf impl], strict grading ({not_passed} not passed); bare = {} spawns of `agentconf impl \
         OPERATION ARGS` on pre-written inputs, output captured",
        aer1.len(),
        calls.len()
    );
    println!(
        "  harness {harness:.1} us/vector, bare {bare:.1} us/spawn, ratio harness/bare = {:.2} (target <= 1.5)",
        harness / bare
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// As [`overhead`], for a real program: microseconds per vector through `run_case` (strict) and
/// per bare spawn of `imp.argv` followed by each of `calls`, interleaved in `rounds` after one
/// untimed warm-up, and how many vectors did not pass.
fn overhead_of_program(
    imp: &Implementation,
    vectors: &[Case<'_>],
    calls: &[Vec<String>],
    work: &Path,
    rounds: usize,
) -> (f64, f64, usize) {
    let spawn_all = || {
        for call in calls {
            let output = Command::new(&imp.argv[0])
                .args(&imp.argv[1..])
                .args(call)
                .stdin(Stdio::null())
                .output()
                .expect("agentconf impl runs");
            std::hint::black_box(output);
        }
    };
    let run_all = || {
        vectors
            .iter()
            .map(|c| run_case(imp, c, work, Grading::Strict))
            .filter(|r| r.status != Status::Pass)
            .count()
    };
    let (mut harness, mut bare) = (Duration::ZERO, Duration::ZERO);
    let mut not_passed = 0;
    spawn_all();
    run_all();
    for _ in 0..rounds {
        let t = Instant::now();
        spawn_all();
        bare += t.elapsed();
        let t = Instant::now();
        not_passed += run_all();
        harness += t.elapsed();
    }
    (
        harness.as_secs_f64() * 1e6 / (vectors.len() * rounds) as f64,
        bare.as_secs_f64() * 1e6 / (calls.len() * rounds) as f64,
        not_passed,
    )
}

/// Runs the prepared vectors `repeats` times on `sessions` sessions (vectors dealt round-robin).
/// Returns (vectors run, time, vectors that did not pass).
fn persistent(
    prepared: &[(&Case<'_>, Vec<(String, PathBuf)>)],
    repeats: usize,
    sessions: usize,
    validate: bool,
) -> (usize, Duration, usize) {
    let start = |_| {
        let mut config = PersistentConfig::new(Implementation {
            argv: vec![env!("CARGO_BIN_EXE_agentconf").into(), "impl".into()],
            timeout: Duration::from_secs(60),
            capture_limit: 64 * 1024,
            profiles: vec![],
        });
        config.validate_protocol = validate;
        let mut s = PersistentSession::start(config).expect("agentconf impl serve starts");
        // Warm-up: the first pass pays for page faults and lazy statics.
        for (v, files) in prepared {
            s.run_with_files(v, files, Grading::Strict);
        }
        s
    };
    let mut all: Vec<PersistentSession> = (0..sessions).map(start).collect();
    let started = Instant::now();
    let not_passed: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = all
            .iter_mut()
            .enumerate()
            .map(|(k, s)| {
                scope.spawn(move || {
                    let mut bad = 0;
                    for _ in 0..repeats {
                        for (v, files) in prepared.iter().skip(k).step_by(sessions) {
                            if s.run_with_files(v, files, Grading::Strict).status != Status::Pass {
                                bad += 1;
                            }
                        }
                    }
                    bad
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    });
    let elapsed = started.elapsed();
    for s in all {
        s.stop().expect("clean stop");
    }
    (prepared.len() * repeats, elapsed, not_passed)
}

/// Microseconds per vector through `run_case` and per bare spawn, interleaved in `rounds`
/// (after one untimed warm-up of each), and how many vectors were not accepted.
fn overhead(
    imp: &Implementation,
    vectors: &[Case<'_>],
    work: &Path,
    rounds: usize,
) -> (f64, f64, usize) {
    let (mut harness, mut bare) = (Duration::ZERO, Duration::ZERO);
    let mut not_accepted = 0;
    one_shot(imp, vectors, work);
    spawn_bare(vectors.len());
    for _ in 0..rounds {
        let t = Instant::now();
        spawn_bare(vectors.len());
        bare += t.elapsed();
        let t = Instant::now();
        not_accepted += one_shot(imp, vectors, work);
        harness += t.elapsed();
    }
    let total = (vectors.len() * rounds) as f64;
    (
        harness.as_secs_f64() * 1e6 / total,
        bare.as_secs_f64() * 1e6 / total,
        not_accepted,
    )
}

/// The vectors through the one-shot path; returns how many were not accepted (should be 0).
fn one_shot(imp: &Implementation, vectors: &[Case<'_>], work: &Path) -> usize {
    vectors
        .iter()
        .map(|c| run_case(imp, c, work, Grading::Loose))
        .filter(|r| !matches!(r.status, Status::Pass | Status::FalseAccept))
        .count()
}

fn spawn_bare(n: usize) {
    for _ in 0..n {
        let status = Command::new("/bin/true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("/bin/true runs");
        assert!(status.success());
    }
}
