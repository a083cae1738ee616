//! Files and disks that fight back: a FIFO handed to any command that reads a file is refused at
//! once (it would otherwise block forever waiting for a writer), two runs writing one results
//! file cannot both believe they succeeded, and a disk that fills up mid-run stops the run with
//! what was graded printed and kept.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_agentconf");

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("agentconf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn mkfifo(path: &str) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// Runs `agentconf ARGS` with a deadline: a command blocked on a FIFO is killed and reported.
fn run_within(args: &[&str], deadline: Duration) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agentconf starts");
    let until = Instant::now() + deadline;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > until {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "agentconf {args:?} still ran after {deadline:?} (blocked?): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every command that reads a file refuses a FIFO in its place, in one line, exit 2, at once.
#[test]
fn a_fifo_is_refused_by_every_command_that_reads_a_file() {
    let s = Scratch::new("fifo");
    let fifo = s.path("fifo");
    mkfifo(&fifo);
    let timeline = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../aer1/testdata/v07-valid-5.json"
    );
    // A corpus directory whose manifest is a FIFO.
    let corpus = s.path("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    mkfifo(&format!("{corpus}/manifest.json"));
    let results = s.path("r.jsonl");
    let made = run_within(
        &["run", "--include", "aer1/workflow/valid", "--out", &results],
        Duration::from_secs(120),
    );
    assert_eq!(made.status.code(), Some(0));
    let cases: Vec<Vec<&str>> = vec![
        vec!["verify", "receipt", &fifo],
        vec!["verify", "timeline", &fifo],
        vec!["verify", "timeline", timeline, "--commitment", &fifo],
        vec!["verify", "workflow", &fifo],
        vec!["digest", &fifo],
        vec!["report", &fifo],
        vec!["report", "diff", &fifo, &results],
        vec!["claim", "verify", &fifo],
        vec!["run", "--adapter", &fifo, "--out", &results],
        vec!["grp", "admit", &fifo],
        vec!["vectors", "diff", &corpus],
        vec!["report", &results, "--corpus", &corpus],
    ];
    for args in cases {
        let out = run_within(&args, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("FIFO"), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    }
}

/// A FIFO (or a directory) given as the program to run is refused at once, in one line, exit 2:
/// before, hashing the program for the results header opened it and waited forever for a
/// writer (`run -- FIFO`, `claim verify R -- FIFO`, `matrix x=FIFO`). The reference's own
/// operations refuse a FIFO as their input the same way (`impl aer1-… FIFO` hung on its open).
#[test]
fn a_fifo_as_the_program_or_as_the_reference_s_input_is_refused_at_once() {
    let s = Scratch::new("fifo-program");
    let fifo = s.path("fifo");
    mkfifo(&fifo);
    let results = s.path("r.jsonl");
    let made = run_within(
        &["run", "--include", "aer1/workflow/valid", "--out", &results],
        Duration::from_secs(120),
    );
    assert_eq!(made.status.code(), Some(0));
    let member = format!("x={fifo}");
    let dir = s.0.display().to_string();
    let out = s.path("out");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "--out", &out, "--", &fifo], "FIFO"),
        (vec!["run", "--out", &out, "--", &fifo, "impl"], "FIFO"),
        (vec!["claim", "verify", &results, "--", &fifo], "FIFO"),
        (vec!["matrix", "--out", &out, &member], "FIFO"),
        (vec!["run", "--out", &out, "--", &dir], "a directory"),
        (vec!["impl", "aer1-receipt", &fifo], "FIFO"),
        (vec!["impl", "aer1-timeline", "09", &fifo], "FIFO"),
        (vec!["impl", "aer1-workflow", &fifo], "FIFO"),
    ];
    for (args, kind) in cases {
        let out = run_within(&args, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(kind), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    }
}

/// `matrix NAME=FILE.toml` names an adapter file: a missing one (or a directory) is an error, not
/// a command. Before, `x=missing.toml` ran `missing.toml` as the implementation's command.
#[test]
fn a_matrix_member_s_missing_adapter_file_is_an_error_not_a_command() {
    let s = Scratch::new("matrix-toml");
    let out = s.path("out");
    let missing = s.path("missing.toml");
    let dir = s.path("dir.toml");
    std::fs::create_dir_all(&dir).unwrap();
    for (member, says) in [
        (format!("x={missing}"), "no such adapter file"),
        (format!("x={dir}"), "is a directory, not an adapter file"),
    ] {
        let run = run_within(
            &[
                "matrix",
                "--out",
                &out,
                "--include",
                "aer1/workflow/valid",
                &member,
            ],
            Duration::from_secs(120),
        );
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{member}: {stderr}");
        assert!(stderr.contains(says), "{member}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{member}: {stderr}");
    }
    // A command that merely mentions a .toml file is still a command.
    let cmd = format!("x={BIN} impl --config missing.toml");
    let run = run_within(
        &[
            "matrix",
            "--out",
            &out,
            "--include",
            "aer1/workflow/valid/",
            "--timeout",
            "5",
            &cmd,
        ],
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!stderr.contains("adapter file"), "{stderr}");
}

/// Two runs writing one results file: the second is refused at once, before it runs anything,
/// and the first's file is whole.
#[test]
fn a_second_run_on_the_same_results_file_is_refused_before_running() {
    let s = Scratch::new("lock");
    let out = s.path("results.jsonl");
    let marker = s.path("second-ran");
    // A slow implementation holds the first run (and its lock) long enough.
    let slow = s.path("slow.sh");
    std::fs::write(&slow, format!("sleep 1\nexec {BIN} impl \"$@\"\n")).unwrap();
    let first = Command::new(BIN)
        .args([
            "run",
            "--jobs",
            "1",
            "--include",
            "aer1/workflow/valid/one-step",
        ])
        .args(["--out", &out, "--", "sh", &slow])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first run holds the file (its lock beside it).
    let lock = Path::new(&s.0).join(".results.jsonl.lock");
    let until = Instant::now() + Duration::from_secs(60);
    while !lock.exists() {
        assert!(Instant::now() < until, "the first run never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    let second_impl = s.path("second.sh");
    std::fs::write(
        &second_impl,
        format!("touch {marker}\nexec {BIN} impl \"$@\"\n"),
    )
    .unwrap();
    let second = run_within(
        &["run", "--out", &out, "--", "sh", &second_impl],
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("another agentconf run is writing it"),
        "{stderr}"
    );
    assert!(
        !Path::new(&marker).exists(),
        "the second run started its implementation"
    );
    let first = first.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0));
    let report = run_within(&["report", &out], Duration::from_secs(60));
    assert_eq!(
        report.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    assert!(!lock.exists(), "the lock file is left behind");
}

/// A disk that fills up during the run (here, a file size limit the writes meet): the run stops
/// there, prints the table of what was graded, keeps the lines written, and exits 2 saying so.
#[test]
fn a_full_disk_stops_the_run_and_keeps_what_was_graded() {
    let s = Scratch::new("full");
    let out = s.path("results.jsonl");
    // SIGXFSZ ignored (inherited through exec), so an over-limit write fails with EFBIG, as a
    // full disk fails with ENOSPC. `ulimit -f` counts 512-byte blocks here: 10 KiB.
    let script = format!(
        "trap '' XFSZ; ulimit -f 20; exec {BIN} run --jobs 1 --include aer1/workflow/ --out {out}"
    );
    let run = Command::new("sh").args(["-c", &script]).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stdout.contains("Rules"),
        "the table of what was graded: {stdout}"
    );
    assert!(stderr.contains("the run stopped there"), "{stderr}");
    assert!(
        !Path::new(&out).exists(),
        "a partial file took the results file's name"
    );
    let text = std::fs::read_to_string(kept_file(&stderr)).unwrap();
    assert!(
        text.lines().count() > 10,
        "{} lines kept",
        text.lines().count()
    );
    assert!(text.starts_with("{\"type\":\"header\""));
}

/// One file named for two outputs (`--out X --html X`, `--out X --emit-xfail X`, the same file
/// through another path) is refused before anything runs, and nothing is written there: before,
/// the run exited 0 and X held the HTML page, the results gone.
#[test]
fn one_file_for_two_outputs_is_refused_before_running() {
    let scratch = Scratch::new("two-outputs");
    let x = scratch.path("x.jsonl");
    let same_via_dot = format!("{}/./x.jsonl", scratch.0.display());
    for (flag, other) in [
        ("--html", x.as_str()),
        ("--emit-xfail", x.as_str()),
        ("--html", same_via_dot.as_str()),
    ] {
        let out = Command::new(BIN)
            .args([
                "run",
                "--include",
                "aer1/workflow/valid",
                "--out",
                &x,
                flag,
                other,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {other}: {err}");
        assert!(
            err.contains("--out and") && err.contains("nothing was run"),
            "{err}"
        );
        assert!(!Path::new(&x).exists(), "nothing written at {x}");
    }
}

/// Under a file size limit with the shell's default SIGXFSZ (no `trap`), the run is not killed
/// by the signal (exit 153, nothing said): agentconf ignores it, so the write that crosses the
/// limit fails and is reported as what it is (a size limit, not `--fail-fast`), the lock is
/// released, and the kept file ends at its last whole line.
#[test]
fn a_file_size_limit_is_a_write_error_with_whole_lines_kept() {
    let s = Scratch::new("fsize");
    let out = s.path("results.jsonl");
    let script =
        format!("ulimit -f 20; exec {BIN} run --jobs 1 --include aer1/workflow/ --out {out}");
    let run = Command::new("sh").args(["-c", &script]).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("file size limit"), "{stderr}");
    assert!(!stderr.contains("--fail-fast"), "{stderr}");
    let text = std::fs::read_to_string(kept_file(&stderr)).unwrap();
    assert!(
        text.ends_with('\n'),
        "a torn last line: {:?}",
        &text[text.len().saturating_sub(80)..]
    );
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every kept line is whole");
    }
    assert!(
        !Path::new(&s.path(".results.jsonl.lock")).exists(),
        "the lock was released"
    );
}

/// The file a run stopped by a write failure says it kept its lines in.
fn kept_file(stderr: &str) -> &str {
    stderr
        .split("the lines written are kept in ")
        .nth(1)
        .and_then(|r| r.trim_end().strip_suffix(')'))
        .expect("the kept file is named")
}
