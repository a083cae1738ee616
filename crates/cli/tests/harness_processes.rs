//! How the harness contains an implementation's processes (crates/contract/CONTRACT.md 3.3):
//! one deadline per case that holds after the main process exits, the process group killed when
//! it exits, escaped (`setsid`) processes no longer read, one deadline for a whole GRP scenario,
//! and a receiver that exits 89 at once graded unsupported every time.
//!
//! The implementations are small shell scripts written to a temporary directory. Every sleeper
//! they start carries a marker argument (`sleep 61.3x`), so the test can look in /proc for any
//! that outlived the run; the ones that escape the process group on purpose are killed by pid in
//! the test's clean-up. Time bounds are generous (a run that took a minute before the fix must
//! end within 15 s), never close to what the run needs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentconf_contract::case::Case;
use agentconf_contract::vector::{Suite, Vector};
use agentconf_harness::Grading;
use agentconf_harness::Status;
use agentconf_harness::{run_case, Implementation, VectorResult};

/// Generous: each case below needs well under a second once the deadline holds.
const BOUND: Duration = Duration::from_secs(15);

/// A fresh directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "agentconf-harness-processes-{}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// Writes an executable shell script and returns its path.
    fn script(&self, name: &str, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = self.0.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path.display().to_string()
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

/// The pids of live processes whose command line is exactly `sleep MARKER` (a zombie has an
/// empty command line and does not count).
fn sleepers(marker: &str) -> Vec<i32> {
    let want = format!("sleep\0{marker}\0");
    std::fs::read_dir("/proc")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| c == want.as_bytes())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether every `sleep MARKER` is gone within 10 s (a killed process takes a moment to leave
/// the process table).
fn all_gone(marker: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while !sleepers(marker).is_empty() {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Kills every `sleep MARKER`, by pid: the clean-up of what escaped the group on purpose.
fn kill_sleepers(marker: &str) {
    for pid in sleepers(marker) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

/// Script lines that start `sleep MARKER` in a new session (`setsid`), holding the script's
/// standard streams, and wait until it is in that session: exiting before would let the group
/// kill catch it before it escaped.
fn escape(dir: &TempDir, marker: &str) -> String {
    let flag = dir.path().join(format!("escaped-{marker}"));
    format!(
        "setsid sh -c ': > \"$0\"; exec sleep {marker}' '{f}' &\n\
         while [ ! -e '{f}' ]; do sleep 0.01; done",
        f = flag.display()
    )
}

fn implementation(argv: Vec<String>, timeout: Duration, profiles: &[&str]) -> Implementation {
    Implementation {
        argv,
        timeout,
        capture_limit: 4096,
        profiles: profiles.iter().map(|p| p.to_string()).collect(),
    }
}

fn vector<'a>(corpus: &'a [Vector], id: &str) -> &'a Vector {
    corpus.iter().find(|v| v.id == id).expect(id)
}

/// Runs one case and returns its result and how long it took.
fn timed(imp: &Implementation, c: &Case<'_>, work: &Path) -> (VectorResult, Duration) {
    let started = Instant::now();
    let r = run_case(imp, c, work, Grading::Strict);
    (r, started.elapsed())
}

#[test]
fn a_child_holding_stdout_does_not_hold_the_run() {
    // The reproduction through `agentconf run`: a background sleeper inherits stdout and
    // the script exits 0. Before the fix each case took the sleeper's whole time and passed
    // without a word; now the exit is the answer, the sleeper is killed with the group, and the
    // detail says so.
    let dir = TempDir::new("hold");
    let script = dir.script("d.sh", "sleep 61.31 & exit 0");
    let out = dir.path().join("r.jsonl");
    let started = Instant::now();
    let run = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(["run", "--timeout", "2", "--jobs", "1"])
        .args(["--include", "aer1/timeline/valid/example-1", "--out"])
        .arg(&out)
        .arg("--")
        .arg(&script)
        .output()
        .expect("run agentconf");
    let elapsed = started.elapsed();
    let gone = all_gone("61.31");
    kill_sleepers("61.31");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(elapsed < BOUND, "the run took {elapsed:?}");
    assert!(gone, "a sleeper outlived the run");
    let text = std::fs::read_to_string(&out).expect("results file");
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|l| l["type"] == "result")
        .collect();
    assert!(!results.is_empty());
    for r in &results {
        assert_eq!(r["status"], "pass", "{r}");
        let detail = r["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("descendants still running were killed"),
            "{detail}"
        );
    }
}

#[test]
fn an_escaped_child_is_not_read_past_the_deadline() {
    // A `setsid` child cannot be killed by group. It holds stdout, so before the fix the case
    // lasted as long as it did; now reading stops at the deadline and the exit stands.
    let dir = TempDir::new("setsid");
    let corpus = agentconf_corpus::corpus();
    let c = vector(&corpus, "aer1/timeline/valid/example-1").main_case();
    let script = dir.script("s.sh", &format!("{}\nexit 0", escape(&dir, "61.32")));
    let imp = implementation(vec![script], Duration::from_secs(2), &[]);
    let (r, elapsed) = timed(&imp, &c, &dir.path().join("work"));
    let escaped = sleepers("61.32");
    kill_sleepers("61.32");
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
    assert!(
        r.detail.contains("outside its process group") && r.detail.contains("deadline"),
        "{}",
        r.detail
    );
    assert!(elapsed < BOUND, "took {elapsed:?}");
    assert!(!escaped.is_empty(), "the setsid sleeper was not running");

    // The issue's own script races the group kill (the main may exit before `setsid` ran): it
    // escapes or is killed, and either way the case ends in time with the main's verdict.
    let script = dir.script("s2.sh", "setsid sleep 61.33 & exit 0");
    let imp = implementation(vec![script], Duration::from_secs(2), &[]);
    let (r, elapsed) = timed(&imp, &c, &dir.path().join("work"));
    kill_sleepers("61.33");
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
    assert!(elapsed < BOUND, "took {elapsed:?}");
}

#[test]
fn a_plain_hang_is_still_a_timeout_and_nothing_survives_it() {
    let dir = TempDir::new("hang");
    let corpus = agentconf_corpus::corpus();
    let c = vector(&corpus, "aer1/timeline/valid/example-1").main_case();
    let script = dir.script("h.sh", "sleep 61.34 & sleep 61.35");
    let imp = implementation(vec![script], Duration::from_secs(1), &[]);
    let (r, elapsed) = timed(&imp, &c, &dir.path().join("work"));
    assert_eq!(r.status, Status::Timeout, "{}", r.detail);
    assert!(elapsed < BOUND, "took {elapsed:?}");
    assert!(all_gone("61.34") && all_gone("61.35"));
}

#[test]
fn a_grp_scenario_has_one_deadline_not_one_per_decision() {
    // Each event line reaches the reference receiver half a second late: ten deliveries take
    // five seconds, each well within the two-second timeout. Before the fix every decision had
    // its own timeout and the scenario passed after five seconds; the timeout is the scenario's.
    let dir = TempDir::new("grp-slow");
    let corpus = agentconf_corpus::corpus();
    let c = vector(
        &corpus,
        "grp/admission/duplicate-event/interleaved-publishers",
    )
    .main_case();
    let script = dir.script(
        "slow.sh",
        &format!(
            "shift\nwhile IFS= read -r line; do sleep 0.5; printf '%s\\n' \"$line\"; done | \
             exec '{}' impl grp-admit \"$@\"",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let imp = implementation(vec![script.clone()], Duration::from_secs(2), &[]);
    let (r, elapsed) = timed(&imp, &c, &dir.path().join("work"));
    assert_eq!(r.status, Status::Timeout, "{}", r.detail);
    assert!(r.detail.contains("the whole scenario"), "{}", r.detail);
    assert!(elapsed < BOUND, "took {elapsed:?}");
    // Given the time, the same receiver passes: the deadline, not the wrapper, failed it.
    let imp = implementation(vec![script], Duration::from_secs(60), &[]);
    let (r, _) = timed(&imp, &c, &dir.path().join("work"));
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
}

#[test]
fn grp_receivers_leave_nothing_running() {
    // A receiver that leaves a sleeper holding its output: each receiver's group is killed when
    // it exits, the scenario passes on its decisions, and the detail says what was killed.
    let dir = TempDir::new("grp-strays");
    let corpus = agentconf_corpus::corpus();
    let c = vector(
        &corpus,
        "grp/admission/duplicate-event/redelivery-after-two-restarts",
    )
    .main_case();
    let script = dir.script(
        "r.sh",
        &format!(
            "sleep 61.36 &\nexec '{}' impl \"$@\"",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let imp = implementation(vec![script], Duration::from_secs(30), &["durable"]);
    let (r, elapsed) = timed(&imp, &c, &dir.path().join("work"));
    assert_eq!(r.status, Status::Pass, "{}", r.detail);
    assert!(
        r.detail.contains("descendants still running were killed"),
        "{}",
        r.detail
    );
    assert!(elapsed < BOUND, "took {elapsed:?}");
    assert!(
        all_gone("61.36"),
        "a receiver's sleeper outlived the scenario"
    );
}

#[test]
fn receivers_that_exit_89_at_once_are_unsupported_every_time() {
    // CONTRACT 3.2: a receiver without GRP exits 89 at once, before the first event line. Before
    // the fix, writing that line raced the exit and some cases of every run were crashes
    // ("Broken pipe"). Every GRP case, twenty times, both profiles claimed so that every
    // scenario runs (the concurrent ones start several receivers).
    let dir = TempDir::new("grp-89");
    let corpus = agentconf_corpus::corpus();
    let cases: Vec<Case<'_>> = corpus
        .iter()
        .filter(|v| v.suite == Suite::GrpAdmission)
        .flat_map(|v| v.cases())
        .collect();
    assert!(cases.len() > 50, "{}", cases.len());
    let script = dir.script("unsupported.sh", "exit 89");
    let imp = implementation(
        vec![script],
        Duration::from_secs(30),
        &["durable", "atomic"],
    );
    let work = dir.path().join("work");
    let mut wrong = Vec::new();
    for round in 0..20 {
        for c in &cases {
            let r = run_case(&imp, c, &work, Grading::Strict);
            if r.status != Status::Unsupported {
                wrong.push(format!(
                    "round {round}: {}: {}: {}",
                    r.id,
                    r.status.name(),
                    r.detail
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} runs were not unsupported:\n{}",
        wrong.len(),
        20 * cases.len(),
        wrong.join("\n")
    );
}

/// The work directories a run of `agentconf` with process id `pid` may have used.
fn work_dirs(pid: u32) -> Vec<PathBuf> {
    let name = format!("agentconf-run-{pid}");
    [
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        Some(PathBuf::from("/dev/shm")),
        Some(std::env::temp_dir()),
    ]
    .into_iter()
    .flatten()
    .map(|d| d.join(&name))
    .collect()
}

/// Starts `agentconf run` on a slow implementation (each call sleeps with `marker`), waits until
/// some cases have finished, then sends it `signals` SIGINTs. Returns its exit code, how long it
/// took to end after the first signal, and its pid.
fn interrupt_run(
    dir: &TempDir,
    marker: &str,
    signals: usize,
    out: &str,
) -> (Option<i32>, Duration, u32) {
    let slow = dir.script("slow.sh", &format!("sleep {marker}\nexit 1"));
    let fast_then_slow = dir.script(
        "impl.sh",
        // The first calls answer at once (so there are results to keep), the later ones hang.
        &format!(
            "n=$(ls {d} | grep -c '^call-')\ntouch {d}/call-$$\n[ \"$n\" -lt 6 ] && exit 1\nexec {slow}",
            d = dir.path().display()
        ),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args([
            "run",
            "--keep-going",
            "--jobs",
            "2",
            "--timeout",
            "120",
            "--include",
            "aer1/receipt/",
            "--out",
            out,
            "--",
            &fast_then_slow,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start agentconf");
    // Wait until the slow calls are running.
    let until = Instant::now() + BOUND;
    while sleepers(marker).len() < 2 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!sleepers(marker).is_empty(), "the slow calls never started");
    let signalled = Instant::now();
    for _ in 0..signals {
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
        std::thread::sleep(Duration::from_millis(100));
    }
    let until = Instant::now() + BOUND;
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("agentconf did not end within {BOUND:?} of the interruption");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (code, signalled.elapsed(), child.id())
}

/// SIGINT mid-run: the implementation's processes are ended, the cases that finished are written
/// as a results file marked interrupted (never a conformance claim), the run exits 130, and no
/// process or work directory outlives it.
#[test]
fn an_interrupted_run_keeps_what_finished_and_leaves_nothing_behind() {
    let dir = TempDir::new("interrupt");
    let marker = "61.71";
    let out = dir.path().join("r.jsonl").display().to_string();
    let (code, took, pid) = interrupt_run(&dir, marker, 1, &out);
    assert_eq!(code, Some(130));
    assert!(took < BOUND, "{took:?}");
    assert!(
        all_gone(marker),
        "implementation processes outlived the run"
    );
    for d in work_dirs(pid) {
        assert!(!d.exists(), "{} outlived the run", d.display());
    }
    let text = std::fs::read_to_string(&out).expect("a results file");
    let footer: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(footer["type"], "footer");
    assert_eq!(footer["interrupted"], true);
    let results = text
        .lines()
        .filter(|l| l.contains("\"type\":\"result\""))
        .count();
    assert!(results >= 1, "the finished cases are kept");
    assert!(
        !text.contains("killed by signal"),
        "a case cut by the interruption was kept"
    );
    // The file is whole and its verdict says it is partial.
    let report = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(["report", &out])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&report.stdout);
    assert!(
        !shown.starts_with("agentconf conformance report: CONFORMS"),
        "{shown}"
    );
    assert!(shown.contains("the run was interrupted"), "{shown}");
}

/// A second SIGINT ends the harness at once, still ending the implementation's processes and
/// removing its work directory.
#[test]
fn a_second_interruption_stops_at_once() {
    let dir = TempDir::new("interrupt-twice");
    let marker = "61.72";
    let out = dir.path().join("r.jsonl").display().to_string();
    let (code, took, pid) = interrupt_run(&dir, marker, 2, &out);
    assert_eq!(code, Some(130));
    assert!(took < BOUND, "{took:?}");
    assert!(
        all_gone(marker),
        "implementation processes outlived the run"
    );
    for d in work_dirs(pid) {
        assert!(!d.exists(), "{} outlived the run", d.display());
    }
}

/// However a run ends — finished, stopped by the smoke check, or refused — its work directory
/// does not outlive it.
#[test]
fn no_work_directory_outlives_a_run() {
    let dir = TempDir::new("work-dirs");
    let accept = dir.script("accept.sh", "exit 0");
    let three = dir.script("three.sh", "exit 3");
    let out = dir.path().join("r.jsonl").display().to_string();
    for command in [&accept, &three] {
        let child = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(["run", "--include", "aer1/", "--out", &out, "--", command])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start agentconf");
        let pid = child.id();
        let status = child.wait_with_output().expect("wait").status;
        assert_eq!(status.code(), Some(1), "{command}");
        for d in work_dirs(pid) {
            assert!(!d.exists(), "{} outlived the run", d.display());
        }
    }
}
