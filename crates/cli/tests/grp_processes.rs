//! GRP admission with real receiver processes (`agentconf grp admit`), the operational proof
//! GRP.md §4 asks for beyond what the draft states:
//!
//! - `durable`: a receiver killed mid-session (SIGKILL, not a clean exit) and restarted on the
//!   same SQLite file still rejects copies of what it admitted before the crash; the in-memory
//!   store, by contrast, admits them again (that is why `durable` is a capability); a crash with
//!   a line in flight admits that event at most once, and `grp recover` resumes it at most once;
//! - `atomic`: many receiver processes sharing one SQLite file and handed the same signed event
//!   at the same moment admit it exactly once, also when they all start with `--create` on a
//!   file that does not exist yet, or as `impl grp-admit` on an empty `STATE_DIR`;
//! - a store is created explicitly (`grp init`, `--create`, an empty `STATE_DIR`): a deleted
//!   store, with or without the WAL it left, is refused (exit 2, no decision), never recreated;
//! - a store whose WAL and shared-memory index are removed while a receiver runs admits nothing
//!   twice: the receiver stops at its next admission, a receiver started meanwhile or after a
//!   crash refuses the store (its generation record counted admissions it no longer holds);
//! - revision 00 has no duplicate check, and `grp close` ends a session (its pairs are deleted);
//! - malformed lines (garbage, an empty line, a 2 MiB line) each get one rejected decision and the
//!   stream goes on.
//!
//! Every test works in its own temporary directory, removed at the end; every process started
//! here is killed and reaped if a test fails half-way. Decisions are read line by line while the
//! receiver runs (it flushes one decision per input line), through a reader thread so that a hung
//! receiver fails the test after a timeout instead of hanging it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use agentconf_corpus::grp::common::{session_json, Fixture, P1_ID, P3_ID, SESSION_ID};
use agentconf_grp::event::PublisherType;
use serde_json::Value;

/// How long a decision may take before the receiver is considered hung.
const DECISION_TIMEOUT: Duration = Duration::from_secs(60);

/// The vector id the fixture's test keys are derived from (public test keys).
const VECTOR_ID: &str = "grp-processes";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A fresh directory per test, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "agentconf-grp-processes-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
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

/// The session file, the SQLite store spec and the signed events of one scenario.
struct Scenario {
    dir: TempDir,
    fixture: Fixture,
    session: PathBuf,
}

impl Scenario {
    fn new(label: &str) -> Scenario {
        let dir = TempDir::new(label);
        let fixture = Fixture::new(VECTOR_ID);
        let session = dir.path().join("session.json");
        std::fs::write(&session, session_json(&fixture.session())).expect("write session");
        Scenario {
            dir,
            fixture,
            session,
        }
    }

    /// `--store sqlite:<dir>/<name>`.
    fn sqlite(&self, name: &str) -> String {
        format!("sqlite:{}", self.dir.path().join(name).display())
    }

    /// A signed event line (no newline) of the P-TYPE-3 example publisher.
    fn event(&self, event_id: &str) -> String {
        self.event_of(event_id, P3_ID, PublisherType::WellKnown)
    }

    fn event_of(&self, event_id: &str, publisher: &str, ptype: PublisherType) -> String {
        self.fixture
            .signed(&self.fixture.event(event_id, publisher, ptype))
    }

    /// `grp admit SESSION --store STORE --revision REVISION`, and `extra` arguments.
    fn admit_args(&self, store: &str, revision: &str, extra: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = ["grp", "admit"].map(String::from).to_vec();
        args.push(self.session.display().to_string());
        args.extend(["--store", store, "--revision", revision].map(String::from));
        args.extend(extra.iter().map(|a| a.to_string()));
        args
    }

    /// Starts `agentconf grp admit SESSION --store STORE --revision REVISION`.
    fn receiver(&self, store: &str, revision: &str) -> Proc {
        Proc::spawn(&self.admit_args(store, revision, &[]), self.dir.path())
    }

    /// `agentconf grp init STORE`, which must succeed.
    fn init(&self, store: &str) {
        let out = agentconf(&["grp", "init", store]);
        assert_eq!(out.status.code(), Some(0), "grp init {store}: {out:?}");
    }

    /// Starts `n` receivers at once, each `agentconf ARGS`: one thread each, released together
    /// by a barrier, so that their start-up (opening or creating the store) overlaps as much as
    /// the machine allows.
    fn together(&self, n: usize, args: &[String]) -> Vec<Proc> {
        let barrier = std::sync::Barrier::new(n);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        Proc::spawn(args, self.dir.path())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("spawning thread"))
                .collect()
        })
    }

    /// Runs `agentconf grp recover SESSION --store STORE` and returns its JSON lines.
    fn recover(&self, store: &str) -> Vec<Value> {
        let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(["grp", "recover"])
            .arg(&self.session)
            .args(["--store", store])
            .output()
            .expect("run agentconf grp recover");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "grp recover --store {store}: stdout {stdout:?}, stderr {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("grp recover line is not JSON ({e}): {l:?}"))
            })
            .collect()
    }

    /// Runs `agentconf grp close SESSION --store STORE` and returns the number of pairs it says
    /// it deleted.
    fn close(&self, store: &str) -> u64 {
        let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(["grp", "close"])
            .arg(&self.session)
            .args(["--store", store])
            .output()
            .expect("run agentconf grp close");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "grp close --store {store}: stdout {stdout:?}, stderr {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        let prefix = format!("closed session {SESSION_ID:?}: ");
        let rest = stdout
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(" admitted pairs deleted\n"))
            .unwrap_or_else(|| panic!("unexpected grp close output {stdout:?}"));
        rest.parse()
            .unwrap_or_else(|_| panic!("unexpected grp close output {stdout:?}"))
    }
}

/// A running receiver: its stdin, a channel of its stdout lines (filled by a reader thread), and
/// its stderr in a file of the test directory.
struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: PathBuf,
    what: String,
}

impl Proc {
    /// Starts `agentconf ARGS` (a receiver: `grp admit …` or `impl grp-admit …`).
    fn spawn(args: &[String], dir: &Path) -> Proc {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let stderr = dir.join(format!("receiver-{n}.stderr"));
        let what = format!("receiver #{n} (agentconf {})", args.join(" "));
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("create stderr file"))
            .spawn()
            .expect("spawn agentconf");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Proc {
            child,
            stdin,
            lines,
            stderr,
            what,
        }
    }

    fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Writes one line (a newline is appended) without waiting for the decision.
    fn write(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        if let Err(e) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
            panic!(
                "{}: cannot write: {e}; stderr {:?}",
                self.what,
                self.stderr_text()
            );
        }
    }

    /// Reads the next decision line.
    fn read(&mut self) -> Value {
        match self.lines.recv_timeout(DECISION_TIMEOUT) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("{}: decision is not JSON ({e}): {line:?}", self.what)),
            Err(e) => panic!(
                "{}: no decision ({e}); exit {:?}; stderr {:?}",
                self.what,
                self.child.try_wait().ok().flatten(),
                self.stderr_text()
            ),
        }
    }

    /// Delivers one line and returns its decision.
    fn send(&mut self, line: &str) -> Value {
        self.write(line.as_bytes());
        self.read()
    }

    /// Simulates a crash: SIGKILL, no chance to finish anything.
    fn kill(mut self) {
        self.child.kill().expect("kill receiver");
        let status = self.child.wait().expect("reap receiver");
        assert!(
            !status.success(),
            "{}: a killed receiver exits unsuccessfully",
            self.what
        );
    }

    /// Delivers one line on which the receiver must stop: exit 2 and no decision. Returns its
    /// standard error.
    fn stops_on(mut self, line: &str) -> String {
        self.write(line.as_bytes());
        drop(self.stdin.take());
        let status = self.child.wait().expect("wait for receiver");
        // Every line it wrote, up to the end of its output.
        let mut written = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(DECISION_TIMEOUT) {
            written.push(line);
        }
        let stderr = self.stderr_text();
        assert_eq!(status.code(), Some(2), "{}: {stderr}", self.what);
        assert!(
            written.is_empty(),
            "{}: decisions written {written:?}",
            self.what
        );
        stderr
    }

    /// Closes stdin and expects a clean exit 0 with no further decision lines.
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("wait for receiver");
        let extra: Vec<String> = self.lines.try_iter().collect();
        assert!(
            status.success(),
            "{}: exit {status}; stderr {:?}",
            self.what,
            self.stderr_text()
        );
        assert!(
            extra.is_empty(),
            "{}: unexpected output {extra:?}",
            self.what
        );
        assert!(
            !self.stderr_text().contains("panicked"),
            "{}: {}",
            self.what,
            self.stderr_text()
        );
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // Only when a test failed half-way: do not leave receivers running.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `agentconf ARGS` with nothing on standard input.
fn agentconf(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run agentconf")
}

fn outcome(d: &Value) -> &str {
    d["outcome"].as_str().unwrap_or("<none>")
}

fn assert_admitted(d: &Value, event_id: &str) {
    assert_eq!(outcome(d), "admitted", "{event_id}: {d}");
    assert_eq!(d["event_id"], event_id, "{d}");
    assert!(d["ale"].is_null() && d["rejection_reason"].is_null(), "{d}");
}

fn assert_rejected(d: &Value, reason: &str) {
    assert_eq!(outcome(d), "rejected", "expected {reason}: {d}");
    assert_eq!(d["ale"], "ALE-064", "{d}");
    assert_eq!(d["rejection_reason"], reason, "{d}");
}

fn assert_duplicate(d: &Value, event_id: &str) {
    assert_rejected(d, "duplicate_event_id");
    assert_eq!(d["event_id"], event_id, "{d}");
    assert_eq!(d["publisher_id"], P3_ID, "{d}");
}

// ---------------------------------------------------------------------------------------------
// a. Restart mid-scenario (durable) and the in-memory contrast
// ---------------------------------------------------------------------------------------------

#[test]
fn sqlite_store_survives_a_killed_receiver() {
    let s = Scenario::new("restart-sqlite");
    let store = s.sqlite("admitted.sqlite");
    s.init(&store);
    let (e1, e2, e3, e4) = (
        s.event("evt-1"),
        s.event("evt-2"),
        s.event("evt-3"),
        s.event("evt-4"),
    );

    let mut first = s.receiver(&store, "01");
    assert_admitted(&first.send(&e1), "evt-1");
    assert_admitted(&first.send(&e2), "evt-2");
    // Within the process the copy is already a duplicate.
    assert_duplicate(&first.send(&e1), "evt-1");
    first.kill();

    let mut second = s.receiver(&store, "01");
    assert_duplicate(&second.send(&e1), "evt-1");
    assert_admitted(&second.send(&e3), "evt-3");
    assert_duplicate(&second.send(&e2), "evt-2");
    assert_duplicate(&second.send(&e3), "evt-3");

    // A crash with a line in flight: the publisher never saw a decision for evt-4 and
    // re-delivers it to the next receiver. Whether or not the killed one got to admit it, the
    // pair is admitted at most once over both processes (checked with the row count below).
    let mut third = s.receiver(&store, "01");
    third.write(e4.as_bytes());
    third.kill();
    // If the killed receiver admitted evt-4 but died before marking its hand-off done, the pair
    // is pending: `grp recover` resumes it (and only it), once.
    let resumed = s.recover(&store);
    assert!(resumed.len() <= 1, "{resumed:?}");
    for r in &resumed {
        assert_eq!(r["event_id"], "evt-4", "{r}");
        assert_eq!(r["publisher_id"], P3_ID, "{r}");
        assert_eq!(r["action"], "resume-hand-off", "{r}");
    }
    assert!(
        s.recover(&store).is_empty(),
        "a resumed hand-off is resumed once"
    );
    let mut fourth = s.receiver(&store, "01");
    let d4 = fourth.send(&e4);
    match outcome(&d4) {
        "admitted" => assert_admitted(&d4, "evt-4"),
        _ => assert_duplicate(&d4, "evt-4"),
    }
    assert_duplicate(&fourth.send(&e4), "evt-4");
    for e in [&e1, &e2, &e3] {
        assert_eq!(outcome(&fourth.send(e)), "rejected");
    }
    fourth.finish();

    // Exactly one row per distinct pair: evt-1..evt-4.
    assert_eq!(s.close(&store), 4);
}

#[test]
fn memory_store_forgets_on_restart() {
    let s = Scenario::new("restart-memory");
    let (e1, e2, e3) = (s.event("evt-1"), s.event("evt-2"), s.event("evt-3"));

    let mut first = s.receiver("memory", "01");
    assert_admitted(&first.send(&e1), "evt-1");
    assert_admitted(&first.send(&e2), "evt-2");
    assert_duplicate(&first.send(&e1), "evt-1");
    first.kill();

    // The same scenario as on SQLite: the restarted in-memory receiver admits e1 and e2 a second
    // time (the replay window reopened), so the memory store must not claim `durable`.
    let mut second = s.receiver("memory", "01");
    assert_admitted(&second.send(&e1), "evt-1");
    assert_admitted(&second.send(&e3), "evt-3");
    assert_admitted(&second.send(&e2), "evt-2");
    // It still deduplicates within its own lifetime.
    assert_duplicate(&second.send(&e1), "evt-1");
    second.finish();
}

// ---------------------------------------------------------------------------------------------
// b. Concurrent receivers sharing one SQLite file (atomic)
// ---------------------------------------------------------------------------------------------

/// Hands `line` to every receiver (all writes first, then all reads) and returns the decisions.
fn deliver_to_all(procs: &mut [Proc], line: &str) -> Vec<Value> {
    for p in procs.iter_mut() {
        p.write(line.as_bytes());
    }
    procs.iter_mut().map(Proc::read).collect()
}

fn assert_exactly_one_admission(decisions: &[Value], event_id: &str, round: &str) {
    let admitted = decisions
        .iter()
        .filter(|d| outcome(d) == "admitted")
        .count();
    assert_eq!(
        admitted,
        1,
        "{round}: {event_id} admitted {admitted} times by {} receivers: {decisions:#?}",
        decisions.len()
    );
    for d in decisions {
        if outcome(d) == "admitted" {
            assert_admitted(d, event_id);
        } else {
            assert_duplicate(d, event_id);
        }
    }
}

const RECEIVERS: usize = 12;
const ROUNDS: usize = 20;

#[test]
fn concurrent_receivers_admit_exactly_once() {
    let s = Scenario::new("concurrent");
    let store = s.sqlite("shared.sqlite");
    // The store file exists before the receivers race on it: racing the creation of a fresh
    // file is `concurrent_cold_starts_on_fresh_files`.
    s.init(&store);

    // First round while the receivers are still starting: the event is written to each as
    // soon as it is spawned.
    let first = s.event("evt-start");
    let mut procs = s.together(RECEIVERS, &s.admit_args(&store, "01", &[]));
    let decisions = deliver_to_all(&mut procs, &first);
    assert_exactly_one_admission(&decisions, "evt-start", "start-up round");

    // Warm rounds: every receiver is up with the store open; a new event id per round.
    for round in 0..ROUNDS {
        let id = format!("evt-round-{round}");
        let decisions = deliver_to_all(&mut procs, &s.event(&id));
        assert_exactly_one_admission(&decisions, &id, &format!("round {round}"));
    }

    // The same event id from another publisher is a different pair: admitted once, too.
    let other = s.event_of("evt-round-0", P1_ID, PublisherType::Principal);
    let decisions = deliver_to_all(&mut procs, &other);
    let admitted: Vec<&Value> = decisions
        .iter()
        .filter(|d| outcome(d) == "admitted")
        .collect();
    assert_eq!(admitted.len(), 1, "{decisions:#?}");
    assert_eq!(admitted[0]["publisher_id"], P1_ID);
    assert!(decisions
        .iter()
        .filter(|d| outcome(d) != "admitted")
        .all(|d| d["rejection_reason"] == "duplicate_event_id" && d["publisher_id"] == P1_ID));

    for p in procs {
        p.finish();
    }
    // One row per distinct pair: the start-up event, the warm rounds and the P-TYPE-1 pair.
    assert_eq!(s.close(&store), (1 + ROUNDS + 1) as u64);
}

/// Fresh store files raced by [`RECEIVERS`] receivers each; enough of them that a failure which
/// hits one file in a handful shows on (almost) every run instead of now and then.
const FRESH_FILES: usize = 100;

#[test]
fn concurrent_cold_starts_on_fresh_files() {
    // Receivers started together with `--create` on a store file that does not exist yet: each
    // tries to create it while the others do the same. None may fail to start (`--store
    // sqlite:PATH` promises a file shareable between processes): one creates, the others open
    // what it made, and exactly one admits.
    let s = Scenario::new("cold-starts");
    for attempt in 0..FRESH_FILES {
        let store = s.sqlite(&format!("fresh-{attempt}.sqlite"));
        let id = format!("evt-fresh-{attempt}");
        let line = s.event(&id);
        let mut procs = s.together(RECEIVERS, &s.admit_args(&store, "01", &["--create"]));
        let decisions = deliver_to_all(&mut procs, &line);
        assert_exactly_one_admission(&decisions, &id, &format!("fresh file {attempt}"));
        for p in procs {
            p.finish();
        }
        assert_eq!(s.close(&store), 1);
    }
}

// ---------------------------------------------------------------------------------------------
// c. Revision 00, and closing a session
// ---------------------------------------------------------------------------------------------

#[test]
fn revision_00_admits_the_copy_again() {
    let s = Scenario::new("rev00");
    let e1 = s.event("evt-1");
    s.init(&s.sqlite("rev00.sqlite"));
    for store in ["memory".to_string(), s.sqlite("rev00.sqlite")] {
        let mut r = s.receiver(&store, "00");
        assert_admitted(&r.send(&e1), "evt-1");
        assert_admitted(&r.send(&e1), "evt-1");
        assert_admitted(&r.send(&e1), "evt-1");
        r.finish();
    }
    // A revision-00 receiver records nothing: there is nothing to close.
    assert_eq!(s.close(&s.sqlite("rev00.sqlite")), 0);

    // The same copies under revision 01 (the suite's point: vectors carry their revision).
    let mut r = s.receiver("memory", "01");
    assert_admitted(&r.send(&e1), "evt-1");
    assert_duplicate(&r.send(&e1), "evt-1");
    r.finish();
}

#[test]
fn closing_a_session_empties_it() {
    let s = Scenario::new("close");
    let store = s.sqlite("admitted.sqlite");
    let (e1, e2) = (s.event("evt-1"), s.event("evt-2"));
    s.init(&store);

    let mut r = s.receiver(&store, "01");
    assert_admitted(&r.send(&e1), "evt-1");
    assert_admitted(&r.send(&e2), "evt-2");
    r.finish();

    // Still in the session: a new process rejects the copy.
    let mut r = s.receiver(&store, "01");
    assert_duplicate(&r.send(&e1), "evt-1");
    r.finish();

    assert_eq!(s.close(&store), 2);
    assert_eq!(s.close(&store), 0, "closing twice deletes nothing more");

    // After the close the same event is admitted again, once, by a new process.
    let mut r = s.receiver(&store, "01");
    assert_admitted(&r.send(&e1), "evt-1");
    assert_duplicate(&r.send(&e1), "evt-1");
    r.finish();
    assert_eq!(s.close(&store), 1);

    // The memory store has nothing to close: a usage error, not a silent success.
    let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(["grp", "close"])
        .arg(&s.session)
        .args(["--store", "memory"])
        .output()
        .expect("run grp close");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

// ---------------------------------------------------------------------------------------------
// d. Malformed lines
// ---------------------------------------------------------------------------------------------

#[test]
fn malformed_lines_each_get_one_rejection_and_the_stream_continues() {
    let s = Scenario::new("malformed");
    let store = s.sqlite("admitted.sqlite");
    s.init(&store);
    let e1 = s.event("evt-1");
    let mut r = s.receiver(&store, "01");

    assert_admitted(&r.send(&e1), "evt-1");

    let two_mib = format!("{{\"event_id\":\"{}\"}}", "x".repeat(2 * 1024 * 1024));
    let lines: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"this is not JSON at all".to_vec()),
        ("empty line", Vec::new()),
        ("whitespace only", b"   \t ".to_vec()),
        ("carriage return only", b"\r".to_vec()),
        ("truncated event", e1.as_bytes()[..e1.len() / 2].to_vec()),
        ("JSON array", b"[1,2,3]".to_vec()),
        ("empty object", b"{}".to_vec()),
        ("invalid UTF-8", b"{\"event_id\":\"\xff\xfe\"}".to_vec()),
        ("NUL bytes", b"\0\0\0".to_vec()),
        ("2 MiB line", two_mib.into_bytes()),
        ("2 MiB of garbage", vec![b'#'; 2 * 1024 * 1024 + 17]),
    ];
    for (what, line) in &lines {
        r.write(line);
        let d = r.read();
        assert_eq!(outcome(&d), "rejected", "{what}: {d}");
        assert_eq!(d["ale"], "ALE-064", "{what}: {d}");
        assert_eq!(d["rejection_reason"], "malformed_event", "{what}: {d}");
        // The over-long line is never parsed, so no identity is read from it.
        if what.starts_with("2 MiB") {
            assert!(d["event_id"].is_null(), "{what}: {d}");
        }
        // The stream goes on: a valid copy is still judged (a duplicate), and the next new
        // event is admitted.
        assert_duplicate(&r.send(&e1), "evt-1");
    }
    let e2 = s.event("evt-2");
    assert_admitted(&r.send(&e2), "evt-2");

    // Many malformed lines in one write: one decision each, in order.
    let mut batch = Vec::new();
    for (_, line) in &lines {
        batch.extend_from_slice(line);
        batch.push(b'\n');
    }
    batch.extend_from_slice(s.event("evt-3").as_bytes());
    r.write(&batch);
    for (what, _) in &lines {
        let d = r.read();
        assert_eq!(d["rejection_reason"], "malformed_event", "{what}: {d}");
    }
    assert_admitted(&r.read(), "evt-3");
    r.finish();

    // Rejected lines record nothing: only evt-1, evt-2 and evt-3 are in the store.
    assert_eq!(s.close(&store), 3);
}

#[test]
fn a_final_line_without_newline_gets_its_decision() {
    let s = Scenario::new("no-final-newline");
    let mut r = s.receiver("memory", "01");
    let e1 = s.event("evt-1");
    {
        let stdin = r.stdin.as_mut().expect("stdin");
        stdin.write_all(e1.as_bytes()).expect("write");
    }
    drop(r.stdin.take());
    assert_admitted(&r.read(), "evt-1");
    r.finish();
}

/// A damaged store fails closed at the process level: `grp admit` on a store file cut to 0 or 1
/// byte, or with a changed byte inside a stored event id, exits 2 with a message naming the
/// store, and writes no decision, so no replay is admitted again.
#[test]
fn a_damaged_store_is_refused_and_admits_nothing() {
    let s = Scenario::new("damaged-store");
    let store = s.sqlite("admitted.sqlite");
    let path = s.dir.path().join("admitted.sqlite");
    let events: Vec<String> = (0..20).map(|i| s.event(&format!("evt-{i:02}"))).collect();
    s.init(&store);
    let mut first = s.receiver(&store, "01");
    for (i, e) in events.iter().enumerate() {
        assert_admitted(&first.send(e), &format!("evt-{i:02}"));
    }
    first.finish();
    let whole = std::fs::read(&path).unwrap();
    // The bytes of one stored event id, changed in place (same length, so the file stays well
    // formed and only the row's check value can tell).
    let at = whole
        .windows(6)
        .position(|w| w == b"evt-07")
        .expect("the event id is in the file");
    let mut changed = whole.clone();
    changed[at + 5] = b'9';
    for (what, bytes) in [
        ("cut to 0 bytes", Vec::new()),
        ("cut to 1 byte", whole[..1].to_vec()),
        ("an event id changed in place", changed),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        let args = s.admit_args(&store, "01", &[]);
        assert_refused(what, &args, &events, &["admitted.sqlite"]);
    }
}

/// Runs `agentconf ARGS` with `events` on its standard input and expects a refusal: exit 2, no
/// decision at all (so nothing admitted), and a message on standard error naming each of
/// `mentions`.
fn assert_refused(what: &str, args: &[String], events: &[String], mentions: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                // The receiver may refuse before reading: a closed pipe is expected.
                let _ = stdin.write_all(events.join("\n").as_bytes());
            }
            child.wait_with_output()
        })
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{what}: decisions written: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    for m in mentions {
        assert!(stderr.contains(m), "{what}: {m:?} not in {stderr}");
    }
}

// ---------------------------------------------------------------------------------------------
// e. Creating a store is an explicit act
// ---------------------------------------------------------------------------------------------

/// `grp init` creates a store (and refuses to create over one); `grp admit` opens only an
/// existing store, or creates one with `--create`; `close` and `recover` never create.
#[test]
fn a_store_is_created_by_init_or_create_and_never_by_opening() {
    let s = Scenario::new("init");
    let store = s.sqlite("admitted.sqlite");
    let path = s.dir.path().join("admitted.sqlite");
    let e1 = s.event("evt-1");
    let lines = [e1.clone()];

    // Nothing there: every command that only opens refuses, and creates nothing.
    let args = s.admit_args(&store, "01", &[]);
    assert_refused(
        "admit, no store",
        &args,
        &lines,
        &["admitted.sqlite", "grp init"],
    );
    let session = s.session.display().to_string();
    for op in ["close", "recover"] {
        let args: Vec<String> = ["grp", op, &session, "--store", &store]
            .map(String::from)
            .to_vec();
        assert_refused(op, &args, &[], &["admitted.sqlite"]);
    }
    assert!(!path.exists(), "a command that opens created the store");

    // `grp init` creates it, once.
    s.init(&store);
    assert!(path.exists());
    let again = agentconf(&["grp", "init", &store]);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already exists"),
        "{again:?}"
    );
    let mut r = s.receiver(&store, "01");
    assert_admitted(&r.send(&e1), "evt-1");
    r.finish();
    // Refusing to create over it touched nothing: the pair is still recorded.
    let mut r = s.receiver(&store, "01");
    assert_duplicate(&r.send(&e1), "evt-1");
    r.finish();

    // `--create` creates a store where there is none, and opens one that is there.
    let other = s.sqlite("other.sqlite");
    for expect_admitted in [true, false] {
        let mut r = Proc::spawn(&s.admit_args(&other, "01", &["--create"]), s.dir.path());
        let d = r.send(&e1);
        if expect_admitted {
            assert_admitted(&d, "evt-1");
        } else {
            assert_duplicate(&d, "evt-1");
        }
        r.finish();
    }
    // `--create` is for SQLite stores only.
    let args = s.admit_args("memory", "01", &["--create"]);
    assert_refused("--create with memory", &args, &lines, &["--create"]);
}

/// A store deleted after a clean stop, or deleted with the WAL a crashed receiver left: `grp
/// admit` refuses it with exit 2 and no decision, even with `--create` where the WAL is left,
/// and no store is made.
#[test]
fn a_deleted_store_is_refused_and_admits_nothing() {
    let s = Scenario::new("deleted-store");
    let store = s.sqlite("admitted.sqlite");
    let path = s.dir.path().join("admitted.sqlite");
    let wal = s.dir.path().join("admitted.sqlite-wal");
    let events: Vec<String> = (0..5).map(|i| s.event(&format!("evt-{i}"))).collect();
    s.init(&store);
    let mut r = s.receiver(&store, "01");
    for (i, e) in events.iter().enumerate() {
        assert_admitted(&r.send(e), &format!("evt-{i}"));
    }
    r.finish();

    // Deleted after a clean stop (its WAL was checkpointed away): its generation record is left,
    // and tells.
    std::fs::remove_file(&path).unwrap();
    let args = s.admit_args(&store, "01", &[]);
    assert_refused("deleted", &args, &events, &["admitted.sqlite-generation"]);
    // Deleted with its record: nothing is left, and it is refused all the same.
    std::fs::remove_file(s.dir.path().join("admitted.sqlite-generation")).unwrap();
    assert_refused(
        "deleted with its record",
        &args,
        &events,
        &["admitted.sqlite", "grp init"],
    );
    assert!(!path.exists());

    // Deleted after a crash: the killed receiver's WAL still holds what it admitted.
    s.init(&store);
    let mut r = s.receiver(&store, "01");
    for (i, e) in events.iter().enumerate() {
        assert_admitted(&r.send(e), &format!("evt-{i}"));
    }
    r.kill();
    assert!(wal.exists(), "a killed receiver leaves its WAL");
    std::fs::remove_file(&path).unwrap();
    for extra in [&[][..], &["--create"][..]] {
        let args = s.admit_args(&store, "01", extra);
        let what = format!("deleted, WAL left, {extra:?}");
        assert_refused(&what, &args, &events, &["admitted.sqlite-wal"]);
        assert!(!path.exists(), "{what}: a store was made");
    }
    let init = agentconf(&["grp", "init", &store]);
    assert_eq!(
        init.status.code(),
        Some(2),
        "init over a WAL left: {init:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// f. The contract's receiver (`impl grp-admit`) and its STATE_DIR
// ---------------------------------------------------------------------------------------------

/// `impl grp-admit 01 SESSION STATE_DIR`.
fn impl_args(s: &Scenario, state: &Path) -> Vec<String> {
    let session = s.session.display().to_string();
    [
        "impl",
        "grp-admit",
        "01",
        &session,
        &state.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// Copies of the contract's receiver started together on an empty `STATE_DIR` (as a
/// `concurrent` first step does): one creates the store, none refuses for seeing another copy's
/// creation in progress, and the event they are all handed is admitted exactly once.
#[test]
fn impl_receivers_starting_together_on_an_empty_state_dir() {
    const COPIES: usize = 8;
    const STARTS: usize = 15;
    let s = Scenario::new("impl-cold");
    for attempt in 0..STARTS {
        let state = s.dir.path().join(format!("state-{attempt}"));
        std::fs::create_dir(&state).unwrap();
        let id = format!("evt-cold-{attempt}");
        let mut procs = s.together(COPIES, &impl_args(&s, &state));
        let decisions = deliver_to_all(&mut procs, &s.event(&id));
        assert_exactly_one_admission(&decisions, &id, &format!("empty STATE_DIR {attempt}"));
        for p in procs {
            p.finish();
        }
    }
}

/// The contract's receiver creates its store only in an empty `STATE_DIR`: one that holds
/// something but no store (the store deleted, its WAL left or not) is refused with exit 2.
#[test]
fn impl_receiver_refuses_a_state_dir_whose_store_was_deleted() {
    let s = Scenario::new("impl-deleted");
    let state = s.dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let e1 = s.event("evt-1");
    let args = impl_args(&s, &state);
    let mut r = Proc::spawn(&args, s.dir.path());
    assert_admitted(&r.send(&e1), "evt-1");
    r.kill();
    let store = state.join("admitted.sqlite");
    std::fs::remove_file(&store).unwrap();
    let lines = [e1.clone()];
    assert_refused("WAL left", &args, &lines, &["admitted.sqlite-wal"]);
    for leftover in [
        "admitted.sqlite-wal",
        "admitted.sqlite-shm",
        "admitted.sqlite-generation",
    ] {
        let _ = std::fs::remove_file(state.join(leftover));
    }
    std::fs::write(state.join("unrelated"), "x").unwrap();
    assert_refused("not empty", &args, &lines, &["not empty", "unrelated"]);
    assert!(
        !store.exists(),
        "a store was made in a STATE_DIR that is not empty"
    );
}

// ---------------------------------------------------------------------------------------------
// g. The store's write-ahead log removed while a receiver runs
// ---------------------------------------------------------------------------------------------

/// Removes the store's write-ahead log and shared-memory index, as someone cleaning up files
/// they take for SQLite's temporary ones would.
fn remove_journal(store: &Path) {
    for suffix in ["-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", store.display()));
        std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

/// The log and index of a store removed while `grp admit` runs (their commits then live only in
/// files no other process can open, and die with the receiver). Kept delivering, the receiver
/// stops at its next admission (exit 2, no decision); restarted, it admits none of the earlier
/// events again. Killed before it noticed, the restarted receiver refuses the store, whose
/// generation record counted admissions it no longer holds. No event is ever admitted twice.
#[test]
fn a_journal_removed_while_a_receiver_runs_admits_nothing_twice() {
    let s = Scenario::new("journal-removed");
    let store = s.sqlite("admitted.sqlite");
    let path = s.dir.path().join("admitted.sqlite");
    let events: Vec<String> = (0..120).map(|i| s.event(&format!("evt-{i:03}"))).collect();
    s.init(&store);

    let mut first = s.receiver(&store, "01");
    for (i, e) in events[..100].iter().enumerate() {
        assert_admitted(&first.send(e), &format!("evt-{i:03}"));
    }
    remove_journal(&path);
    let stderr = first.stops_on(&events[100]);
    assert!(
        stderr.contains("admitted.sqlite-wal") && stderr.contains("while the store was open"),
        "{stderr}"
    );

    // The receiver's log was written into the store when it closed: all 100 are duplicates, the
    // one it stopped on is admitted now, once.
    let mut second = s.receiver(&store, "01");
    for (i, e) in events[..100].iter().enumerate() {
        assert_duplicate(&second.send(e), &format!("evt-{i:03}"));
    }
    assert_admitted(&second.send(&events[100]), "evt-100");
    second.finish();

    // Killed before its next admission: what its log held is gone with it.
    let mut third = s.receiver(&store, "01");
    for (i, e) in events.iter().enumerate().skip(101) {
        assert_admitted(&third.send(e), &format!("evt-{i:03}"));
    }
    remove_journal(&path);
    third.kill();
    let args = s.admit_args(&store, "01", &[]);
    assert_refused(
        "restarted after its log was lost",
        &args,
        &events,
        &["admitted.sqlite", "admissions were lost"],
    );
}

/// The log and index removed while the contract's receiver runs, and a second receiver started
/// on the same `STATE_DIR`: it refuses the store (exit 2, no decision), so it admits none of
/// what the first admitted. The first stops at its next admission; once both are gone, a third
/// finds every admission of the first in the store.
#[test]
fn a_receiver_started_after_the_journal_was_removed_admits_nothing_twice() {
    let s = Scenario::new("journal-removed-second");
    let state = s.dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let args = impl_args(&s, &state);
    let events: Vec<String> = (0..101).map(|i| s.event(&format!("evt-{i:03}"))).collect();

    let mut first = Proc::spawn(&args, s.dir.path());
    for (i, e) in events[..100].iter().enumerate() {
        assert_admitted(&first.send(e), &format!("evt-{i:03}"));
    }
    remove_journal(&state.join("admitted.sqlite"));
    assert_refused(
        "a second receiver",
        &args,
        &events[..100],
        &["admitted.sqlite", "admissions were lost"],
    );
    let stderr = first.stops_on(&events[100]);
    assert!(
        stderr.contains("admitted.sqlite-wal") && stderr.contains("while the store was open"),
        "{stderr}"
    );

    let mut third = Proc::spawn(&args, s.dir.path());
    for (i, e) in events[..100].iter().enumerate() {
        assert_duplicate(&third.send(e), &format!("evt-{i:03}"));
    }
    assert_admitted(&third.send(&events[100]), "evt-100");
    third.finish();
}
