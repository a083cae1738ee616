//! `cargo xtask test [--slow] [ARGS…]`: `cargo test --workspace ARGS…` with its output as it
//! comes, then with `--slow` the tests too slow for every run ([`SLOW`]), closed by one line of
//! totals over every test binary. Cargo prints a summary per binary, the last
//! often a doc-test run with 0 tests, so without the totals a green run can be mistaken for one
//! that ran nothing. The exit status is cargo's (a failure if any run failed).
//!
//! A test that cannot run here (the PostgreSQL tests without a server) passes after printing one
//! line `SKIPPED NAME: REASON` on standard error: it is counted as skipped, not passed, and each
//! reason is said once at the end, before the totals.
//!
//! A test binary can be quiet for minutes while a long test runs (libtest says once that it
//! "has been running for over 60 seconds", then nothing), and a build step can be too; so
//! whenever cargo and the tests print nothing for [`HEARTBEAT`], a line says what is running
//! and for how long. A quiet run never looks like a hung one.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The longest stretch without a line: under a minute, so that no minute passes in silence.
pub const HEARTBEAT: Duration = Duration::from_secs(45);

/// Sums over cargo's `test result:` lines, and the tests that said they skipped.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub binaries: usize,
    /// Tests libtest counted as passed, the skipped ones included.
    pub passed: usize,
    pub failed: usize,
    pub ignored: usize,
    /// Tests that printed a `SKIPPED ` line (libtest counts them as passed).
    pub skipped: usize,
    /// Each skip reason, once, with how many tests gave it, in the order first seen.
    pub skip_reasons: Vec<(String, usize)>,
}

/// The start of the line a test prints when it cannot run here: `SKIPPED NAME: REASON`.
pub const SKIPPED: &str = "SKIPPED ";

impl Totals {
    /// Adds one line of cargo's output, if it is a `test result:` summary.
    pub fn add(&mut self, line: &str) {
        let Some(rest) = line.trim_start().strip_prefix("test result:") else {
            return;
        };
        self.binaries += 1;
        let words: Vec<&str> = rest.split_whitespace().collect();
        for pair in words.windows(2) {
            let Ok(n) = pair[0].parse::<usize>() else {
                continue;
            };
            match pair[1].trim_end_matches([';', ',']) {
                "passed" => self.passed += n,
                "failed" => self.failed += n,
                "ignored" => self.ignored += n,
                _ => {}
            }
        }
    }

    /// Takes in one line of the tests' standard error: `true` when it is a skip (counted, its
    /// reason kept, and said at the end rather than as it came).
    pub fn add_stderr(&mut self, line: &str) -> bool {
        let Some(rest) = line.strip_prefix(SKIPPED) else {
            return false;
        };
        self.skipped += 1;
        let reason = rest.split_once(": ").map_or(rest, |(_, why)| why).trim();
        match self.skip_reasons.iter_mut().find(|(r, _)| r == reason) {
            Some((_, n)) => *n += 1,
            None => self.skip_reasons.push((reason.to_string(), 1)),
        }
        true
    }

    /// The lines before the totals: each skip reason once, with its count, and what the
    /// totals line leaves out (binaries, ignored tests).
    pub fn notes(&self) -> Vec<String> {
        let mut out: Vec<String> = (self.skip_reasons.iter())
            .map(|(reason, n)| {
                let tests = if *n == 1 { "test" } else { "tests" };
                format!("skipped {n} {tests}: {reason}")
            })
            .collect();
        out.push(format!(
            "in {} test binaries; {} ignored",
            self.binaries, self.ignored
        ));
        out
    }

    /// The closing line, alone on its line: `N passed, N failed`, and `, N skipped` when a test
    /// skipped. A skipped test is not among the passed.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} passed, {} failed",
            self.passed.saturating_sub(self.skipped),
            self.failed
        );
        if self.skipped > 0 {
            line.push_str(&format!(", {} skipped", self.skipped));
        }
        line
    }
}

/// What cargo is doing, as its output and the tests' say: the step under way (a crate being
/// compiled, a test binary, the doc-tests of a crate), since when, and the tests of the current
/// binary that libtest has called slow and that have not finished yet.
#[derive(Debug)]
pub struct Activity {
    step: String,
    since: Instant,
    slow: Vec<String>,
}

impl Activity {
    pub fn new(now: Instant) -> Activity {
        Activity {
            step: "starting cargo test".into(),
            since: now,
            slow: Vec::new(),
        }
    }

    /// Takes in one line of cargo's or the tests' output, seen at `now`.
    pub fn saw(&mut self, line: &str, now: Instant) {
        let trimmed = line.trim();
        let step = if let Some(what) = trimmed.strip_prefix("Running ") {
            Some(format!("test binary {what}"))
        } else if let Some(krate) = trimmed.strip_prefix("Doc-tests ") {
            Some(format!("the doc-tests of {krate}"))
        } else {
            trimmed
                .strip_prefix("Compiling ")
                .map(|krate| format!("the build (compiling {krate})"))
        };
        if let Some(step) = step {
            self.step = step;
            self.since = now;
            self.slow.clear();
            return;
        }
        let Some(test) = trimmed.strip_prefix("test ") else {
            return;
        };
        if let Some(name) = test.strip_suffix(" has been running for over 60 seconds") {
            self.slow.push(name.to_string());
        } else if let Some((name, _)) = test.split_once(" ... ") {
            self.slow.retain(|s| s != name);
        }
    }

    /// The line printed after a silence: what is running, for how long, and which tests.
    pub fn still_running(&self, now: Instant) -> String {
        let mut line = format!(
            "xtask test: still running {}, {} so far",
            self.step,
            minutes(now.saturating_duration_since(self.since))
        );
        if !self.slow.is_empty() {
            line.push_str(&format!(
                "; running for over a minute: {}",
                self.slow.join(", ")
            ));
        }
        line
    }
}

/// `95 s` as `1 min 35 s`.
fn minutes(d: Duration) -> String {
    let s = d.as_secs();
    match s / 60 {
        0 => format!("{s} s"),
        m => format!("{m} min {} s", s % 60),
    }
}

/// A line of the child's output, and whether it came on its standard error.
struct Line {
    text: String,
    stderr: bool,
}

/// Sends every line of `from` to `to`, tagged with its stream, until it ends.
fn forward(from: impl Read + Send + 'static, stderr: bool, to: mpsc::Sender<Line>) {
    std::thread::spawn(move || {
        for text in BufReader::new(from).lines().map_while(Result::ok) {
            if to.send(Line { text, stderr }).is_err() {
                return;
            }
        }
    });
}

/// The tests `--slow` adds, ignored by a plain `cargo test` because they take minutes: the
/// arguments of the `cargo test` that runs them.
const SLOW: &[&[&str]] = &[&[
    "-p",
    "xtask",
    "--test",
    "synthetic_revision",
    "--",
    "--ignored",
]];

/// `cargo xtask test [--slow] [ARGS…]`: every test, then with `--slow` the slow ones too, and the
/// totals over all of them. Fails when any `cargo test` did.
pub fn run(args: &[&str]) -> ExitCode {
    let (slow, args) = match args {
        ["--slow", rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let mut totals = Totals::default();
    let mut runs: Vec<Vec<&str>> = vec![["--workspace"]
        .into_iter()
        .chain(args.iter().copied())
        .collect()];
    if slow {
        runs.extend(SLOW.iter().map(|r| r.to_vec()));
    }
    let mut ok = true;
    for run in runs {
        ok &= cargo_test(&run, &mut totals);
    }
    for note in totals.notes() {
        println!("xtask test: {note}");
    }
    println!("{}", totals.line());
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs `cargo test ARGS`, its output passed on as it comes (with a line after every silence of
/// [`HEARTBEAT`]) and its summaries added to `totals`; whether it succeeded.
fn cargo_test(args: &[&str], totals: &mut Totals) -> bool {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let child = Command::new(cargo)
        .arg("test")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("xtask: cannot start cargo test: {e}");
            return false;
        }
    };
    let (send, lines) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        forward(stdout, false, send.clone());
    }
    if let Some(stderr) = child.stderr.take() {
        forward(stderr, true, send);
    }
    let mut activity = Activity::new(Instant::now());
    loop {
        match lines.recv_timeout(HEARTBEAT) {
            Ok(line) => {
                activity.saw(&line.text, Instant::now());
                if line.stderr {
                    // A skip is said once per reason, at the end.
                    if !totals.add_stderr(&line.text) {
                        let _ = writeln!(std::io::stderr().lock(), "{}", line.text);
                    }
                } else {
                    totals.add(&line.text);
                    let _ = writeln!(std::io::stdout().lock(), "{}", line.text);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "{}",
                    activity.still_running(Instant::now())
                );
            }
            // Both streams ended: cargo is done or about to be.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    child.wait().is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::{Activity, Totals};
    use std::time::{Duration, Instant};

    #[test]
    fn sums_every_binary_and_skips_other_lines() {
        let mut t = Totals::default();
        for line in [
            "running 3 tests",
            "test result: ok. 15 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s",
            "test a ... ok",
            "test result: FAILED. 2 passed; 3 failed; 0 ignored; 0 measured; 4 filtered out; finished in 1.2s",
            "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        ] {
            t.add(line);
        }
        assert_eq!(
            t,
            Totals {
                binaries: 3,
                passed: 17,
                failed: 3,
                ignored: 1,
                skipped: 0,
                skip_reasons: Vec::new(),
            }
        );
        assert_eq!(t.line(), "17 passed, 3 failed");
        assert_eq!(t.notes(), ["in 3 test binaries; 1 ignored"]);
    }

    /// A test that printed `SKIPPED` passed for libtest: it is counted as skipped, not passed,
    /// and its reason is said once however many tests gave it.
    #[test]
    fn skips_are_counted_apart_and_each_reason_said_once() {
        let mut t = Totals::default();
        let why = "AGENTCONF_TEST_POSTGRES is not set (a postgres:// URL of a server to use)";
        assert!(t.add_stderr(&format!("SKIPPED admits_once: {why}")));
        assert!(t.add_stderr(&format!("SKIPPED survives_restart: {why}")));
        assert!(t.add_stderr("SKIPPED chromium_layout: no chromium on PATH"));
        assert!(!t.add_stderr("warning: unused variable"));
        assert!(!t.add_stderr("  SKIPPED not at the start of the line"));
        t.add("test result: ok. 10 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s");
        assert_eq!(t.line(), "7 passed, 0 failed, 3 skipped");
        assert_eq!(
            t.notes(),
            [
                format!("skipped 2 tests: {why}"),
                "skipped 1 test: no chromium on PATH".to_string(),
                "in 1 test binaries; 0 ignored".to_string(),
            ]
        );
    }

    /// After a silence the line names the step cargo is in, how long it has been in it, and the
    /// tests libtest called slow that are still running.
    #[test]
    fn a_silence_names_what_is_running() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut a = Activity::new(t0);
        a.saw("   Compiling agentconf-cli v0.1.0 (/w/crates/cli)", at(1));
        assert_eq!(
            a.still_running(at(61)),
            "xtask test: still running the build (compiling agentconf-cli v0.1.0 (/w/crates/cli)), \
             1 min 0 s so far"
        );
        a.saw(
            "     Running tests/synthetic_revision.rs (target/debug/deps/synthetic_revision-0a1b)",
            at(100),
        );
        a.saw("running 2 tests", at(100));
        a.saw(
            "test the_procedure_names_every_step_this_test_performs ... ok",
            at(101),
        );
        a.saw(
            "test a_new_vector_and_a_new_revision_regenerate_with_no_hand_edit has been running for over 60 seconds",
            at(160),
        );
        assert_eq!(
            a.still_running(at(205)),
            "xtask test: still running test binary tests/synthetic_revision.rs \
             (target/debug/deps/synthetic_revision-0a1b), 1 min 45 s so far; running for over a \
             minute: a_new_vector_and_a_new_revision_regenerate_with_no_hand_edit"
        );
        // A finished test is no longer named; a new binary starts its own clock.
        a.saw(
            "test a_new_vector_and_a_new_revision_regenerate_with_no_hand_edit ... ok",
            at(300),
        );
        assert!(!a.still_running(at(310)).contains("over a minute"));
        a.saw("   Doc-tests agentconf_aer1", at(320));
        assert_eq!(
            a.still_running(at(330)),
            "xtask test: still running the doc-tests of agentconf_aer1, 10 s so far"
        );
    }
}
