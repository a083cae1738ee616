//! What a newcomer meets first: the README's quickstart runs as written, a broken wrapper gets
//! its diagnosis on one screen (not a table of rules nobody could earn), a run whose output is
//! not a terminal still says how far it is, `report diff` is a command with its own help, and an
//! expected-failures list comes from an existing results file without a second run.

mod support;

use std::path::Path;
use std::process::Command;

use support::{run, Run, TempDir};

/// The repository's root.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs `agentconf ARGS` in `dir`, with `env` set and no standard input.
fn agentconf_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run agentconf");
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.both());
    r
}

/// Writes an executable shell script.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path.display().to_string()
}

/// `agentconf run -- ./missing`: the run stops after its first cases, and what it prints is the
/// smoke check's diagnosis and where the results file is, on one screen; no per-rule table.
#[test]
fn a_missing_command_gets_its_diagnosis_on_one_screen() {
    let dir = TempDir::new("missing");
    let r = agentconf_in(dir.path(), &["run", "--", "./missing"], &[]);
    assert_eq!(r.code, 1, "{}", r.both());
    let lines = r.stdout.lines().count() + r.stderr.lines().count();
    assert!(lines <= 25, "{lines} lines:\n{}", r.both());
    // The diagnosis is wrapped to the terminal's width (80 columns here): its words, in order.
    let words = r.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("the wrapper is broken"), "{}", r.both());
    assert!(words.contains("cannot start"), "{}", r.both());
    assert!(
        r.stderr
            .lines()
            .all(|l| l.chars().count() <= 80 || l.starts_with("agentconf: ")),
        "{}",
        r.both()
    );
    assert!(r.stdout.contains("cases, none answered)"), "{}", r.both());
    assert!(
        r.stdout.contains("FAIL: the wrapper is broken"),
        "{}",
        r.both()
    );
    // No report of rules: not one catalogue id is printed.
    for rule in ["AER1-", "GRP-"] {
        assert!(!r.stdout.contains(rule), "{}", r.both());
    }
    assert!(dir.path().join("agentconf-results.jsonl").is_file());
}

/// When standard error is not a terminal (a CI log, `| cat`), a line says every interval how
/// many cases are done, how many were unexpected and the time elapsed, even while one slow case
/// keeps the counts still; no terminal control characters.
#[test]
fn a_run_whose_output_is_not_a_terminal_says_how_far_it_is() {
    let dir = TempDir::new("progress");
    let slow = script(
        dir.path(),
        "slow.sh",
        &format!(
            "sleep 1\nexec {} impl \"$@\"",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    );
    let r = agentconf_in(
        dir.path(),
        &[
            "run",
            "--jobs",
            "1",
            "--include",
            "aer1/workflow/valid/t",
            "--include",
            "aer1/workflow/valid/s",
            "--",
            &slow,
        ],
        &[("AGENTCONF_PROGRESS_INTERVAL", "1")],
    );
    assert_eq!(r.code, 0, "{}", r.both());
    let progress: Vec<(usize, usize, usize)> = r
        .stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("agentconf: ")?;
            let (done, rest) = rest.split_once(" of ")?;
            let (total, rest) = rest.split_once(" cases done, ")?;
            let (unexpected, _) = rest.split_once(" unexpected so far, ")?;
            Some((
                done.parse().ok()?,
                total.parse().ok()?,
                unexpected.parse().ok()?,
            ))
        })
        .collect();
    // Five cases of at least a second each, a line a second.
    assert!(progress.len() >= 2, "{}", r.both());
    assert!(progress.iter().all(|&(_, total, u)| total == 5 && u == 0));
    assert!(
        progress.windows(2).all(|w| w[0].0 <= w[1].0),
        "{progress:?}"
    );
    assert!(
        !r.stderr.contains('\r') && !r.stderr.contains('\u{1b}'),
        "{:?}",
        r.stderr
    );
}

/// `report diff` has its own help and options; `report`'s help lists `diff` as its command.
#[test]
fn report_diff_is_a_command_of_its_own() {
    let diff = run(&["report", "diff", "--help"]);
    assert_eq!(diff.code, 0, "{}", diff.both());
    assert!(
        diff.stdout.contains("agentconf report diff") && diff.stdout.contains("--old-corpus"),
        "{}",
        diff.stdout
    );
    assert!(diff.stdout.contains("Exit codes: 0 no regression"));
    let report = run(&["report", "--help"]);
    assert!(report.stdout.contains("diff"), "{}", report.stdout);
    assert!(!report.stdout.contains("--old-corpus"), "{}", report.stdout);
    // The diff's formats are the three that render a diff.
    let junit = run(&["report", "diff", "a", "b", "--format", "junit"]);
    assert_eq!(junit.code, 2, "{}", junit.both());
    assert!(junit
        .stderr
        .contains("[possible values: text, json, markdown]"));
}

/// `report FILE --emit-xfail XFAIL` writes the list `run --emit-xfail` would have written from
/// the same run, byte for byte: an existing results file is enough.
#[test]
fn an_expected_failures_list_comes_from_an_existing_results_file() {
    let dir = TempDir::new("xfail");
    let accept_all = script(dir.path(), "accept-all.sh", "exit 0");
    let r = agentconf_in(
        dir.path(),
        &[
            "run",
            "--include",
            "aer1/workflow/structure/d",
            "--include",
            "aer1/workflow/valid/t",
            "--emit-xfail",
            "during.toml",
            "--",
            &accept_all,
        ],
        &[],
    );
    assert_eq!(r.code, 1, "{}", r.both());
    let during = std::fs::read_to_string(dir.path().join("during.toml")).unwrap();
    assert!(during.contains("[[xfail]]"), "{during}");
    assert!(during.contains("false-accept"), "{during}");
    assert!(!during.contains("aer1/workflow/valid/"), "{during}");
    let after = agentconf_in(
        dir.path(),
        &[
            "report",
            "agentconf-results.jsonl",
            "--emit-xfail",
            "after.toml",
            "--format",
            "badge",
        ],
        &[],
    );
    assert_eq!(after.code, 1, "{}", after.both());
    // Standard output is still the report; where the list went is on standard error.
    assert!(after.stdout.contains("\"label\""), "{}", after.both());
    assert!(after.stderr.contains("after.toml"), "{}", after.both());
    let after = std::fs::read_to_string(dir.path().join("after.toml")).unwrap();
    assert_eq!(during, after);
    // The results file itself is never overwritten by the list.
    let same = agentconf_in(
        dir.path(),
        &[
            "report",
            "agentconf-results.jsonl",
            "--emit-xfail",
            "./agentconf-results.jsonl",
        ],
        &[],
    );
    assert_eq!(same.code, 2, "{}", same.both());
}

/// The README's quickstart, line by line as written, with `agentconf` on PATH (the binary under
/// test): every line but those that run cargo or pip, which build or install the binary, or
/// run this very test suite (`cargo run … -- ARGS` runs as `agentconf ARGS`). The lines run in a scratch directory beside a link to the
/// repository's `crates/`, so the paths they name resolve and the files they write go there.
#[test]
fn the_readme_quickstart_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    // The two commands, then the examples with `agentconf` on PATH: the first two sh blocks.
    let blocks: Vec<&str> = readme
        .split("```sh\n")
        .skip(1)
        .take(2)
        .filter_map(|b| b.split("\n```").next())
        .collect();
    assert_eq!(blocks.len(), 2, "README.md opens with two sh blocks");
    let block = blocks.join("\n");
    let dir = TempDir::new("quickstart");
    std::os::unix::fs::symlink(root().join("crates"), dir.path().join("crates")).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_agentconf")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for line in block.lines() {
        let command = line.split(" #").next().unwrap_or("").trim();
        // `cargo run … -p agentconf-cli -- ARGS` is the tool built and run: ARGS run here.
        let command = match command.split_once("-p agentconf-cli -- ") {
            Some((cargo, args)) if cargo.starts_with("cargo run") => format!("agentconf {args}"),
            _ => command.to_string(),
        };
        if command.is_empty() || command.starts_with("cargo ") || command.starts_with("pip ") {
            continue;
        }
        assert!(
            command.starts_with("agentconf "),
            "a quickstart line this test does not know how to run: {line}"
        );
        let out = Command::new("sh")
            .args(["-c", &command])
            .current_dir(dir.path())
            .env("PATH", &path)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{command}` exited {:?}:\n{}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 3, "{ran} quickstart lines ran");
}
