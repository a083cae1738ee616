//! agentconf in a vendor's CI: `agentconf report --require LEVEL` on real results files, the one
//! CI step (integrations/agentconf-ci.sh) run as CI runs it, the GitHub Action (action.yml) and
//! the GitLab template (integrations/gitlab/agentconf.gitlab-ci.yml) held to that script, and the
//! Dockerfile held to rules that need neither Docker nor a network.
//!
//! Runs are kept small (a filtered run of the reference through `agentconf impl`, an
//! accept-everything `sh -c 'exit 0'`), so the file takes seconds in a debug build.
#![cfg(unix)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_norway::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agentconf");

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fresh temporary directory for one test, under the target directory (the fixtures' is
/// never removed: it lives as long as the test binary's statics).
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("agentconf-ci-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Removes the directories of test binaries that have ended (where /proc tells).
fn remove_stale_dirs() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix("agentconf-ci-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn of(out: Output) -> Ran {
        Ran {
            code: out.status.code().expect("ended by a signal"),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn both(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn agentconf(args: &[&str]) -> Ran {
    let ran = Ran::of(Command::new(BIN).args(args).output().unwrap());
    assert!(!ran.stderr.contains("panicked"), "{}", ran.both());
    ran
}

// ---------------------------------------------------------------------------------------------
// Real results files, made once per test binary.
// ---------------------------------------------------------------------------------------------

struct Fixtures {
    dir: PathBuf,
}

impl Fixtures {
    fn file(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

/// `conforms.jsonl`: the reference in process over the whole corpus (CONFORMS);
/// `partial.jsonl`: the same filtered to `aer1/timeline/` (PARTIAL); `fail.jsonl`: an
/// implementation that accepts every timeline (FAIL).
fn fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        remove_stale_dirs();
        let dir = temp_dir("fixtures");
        let out = |name: &str| dir.join(name).display().to_string();
        let runs: [(&str, Vec<&str>, i32); 3] = [
            ("conforms.jsonl", vec![], 0),
            ("partial.jsonl", vec!["--include", "aer1/timeline/"], 0),
            (
                "fail.jsonl",
                vec!["--include", "aer1/timeline/", "--", "sh", "-c", "exit 0"],
                1,
            ),
        ];
        for (name, extra, code) in runs {
            let file = out(name);
            let mut args = vec!["run", "--out", file.as_str()];
            args.extend(extra);
            let ran = agentconf(&args);
            assert_eq!(ran.code, code, "{name}: {}", ran.both());
        }
        Fixtures { dir }
    })
}

// ---------------------------------------------------------------------------------------------
// agentconf report --require LEVEL
// ---------------------------------------------------------------------------------------------

/// `--require` exits 1 unless the verdict is at least the level asked for, in every format; the
/// verdict itself is what every report shows. Without it, the exit code is today's (`partial`).
#[test]
fn report_require_exits_by_the_verdict_level() {
    let f = fixtures();
    // (file, its verdict, the exit with no --require, (level, exit) at the edges of the order:
    // the rest follows from `RunVerdict::at_least`, unit-tested in the harness).
    type Row = (
        &'static str,
        &'static str,
        i32,
        &'static [(&'static str, i32)],
    );
    let table: [Row; 3] = [
        ("conforms.jsonl", "CONFORMS", 0, &[("conforms", 0)]),
        (
            "partial.jsonl",
            "PARTIAL",
            0,
            &[("conforms", 1), ("known-failures", 1), ("partial", 0)],
        ),
        ("fail.jsonl", "FAIL", 1, &[("partial", 1)]),
    ];
    for (file, verdict, plain_code, levels) in table {
        let path = f.file(file);
        let plain = agentconf(&["report", &path]);
        assert_eq!(plain.code, plain_code, "{file}: {}", plain.both());
        assert_eq!(
            plain.stdout.lines().next(),
            Some(format!("agentconf conformance report: {verdict}").as_str()),
            "{file}"
        );
        for &(level, code) in levels {
            let ran = agentconf(&["report", &path, "--require", level]);
            assert_eq!(ran.code, code, "{file} --require {level}: {}", ran.both());
            // The report itself is the same whatever is required.
            assert_eq!(ran.stdout, plain.stdout, "{file} {level}");
            if code == 1 {
                assert!(
                    ran.stderr.contains(&format!("--require {level} asks for")),
                    "{}",
                    ran.both()
                );
            } else {
                assert_eq!(ran.stderr, "", "{file} {level}");
            }
        }
    }
    // Every format exits the same way.
    let partial = f.file("partial.jsonl");
    for format in ["badge", "markdown", "junit"] {
        let ran = agentconf(&[
            "report",
            &partial,
            "--format",
            format,
            "--require",
            "conforms",
        ]);
        assert_eq!(ran.code, 1, "--format {format}: {}", ran.both());
        assert!(!ran.stdout.is_empty(), "--format {format} wrote nothing");
    }
}

/// `--require` conflicts with `--exit-zero`, is for one file (not `report diff`), and a refused
/// file exits 2 whatever is required.
#[test]
fn report_require_is_refused_where_it_means_nothing() {
    let f = fixtures();
    let fail = f.file("fail.jsonl");
    let both = agentconf(&["report", &fail, "--require", "partial", "--exit-zero"]);
    assert_eq!(both.code, 2, "{}", both.both());
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.both()
    );

    let bad = agentconf(&["report", &fail, "--require", "everything"]);
    assert_eq!(bad.code, 2, "{}", bad.both());

    let partial = f.file("partial.jsonl");
    let diff = agentconf(&["report", "diff", &partial, &fail, "--require", "partial"]);
    assert_eq!(diff.code, 2, "{}", diff.both());
    // `report diff` is a command of its own, which exits by its regressions: no --require.
    assert!(
        diff.stderr.contains("unexpected argument '--require'"),
        "{}",
        diff.both()
    );

    let dir = temp_dir("refused");
    let cut = dir.join("cut.jsonl");
    let text = read(&f.dir.join("conforms.jsonl"));
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    for level in ["conforms", "known-failures", "partial"] {
        let ran = agentconf(&["report", cut.to_str().unwrap(), "--require", level]);
        assert_eq!(ran.code, 2, "a cut file, --require {level}: {}", ran.both());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// integrations/agentconf-ci.sh, run as CI runs it
// ---------------------------------------------------------------------------------------------

const SCRIPT: &str = "integrations/agentconf-ci.sh";

/// What the script writes into its output directory.
const OUTPUTS: [&str; 6] = [
    "agentconf-results.jsonl",
    "agentconf-report.html",
    "agentconf-report.txt",
    "agentconf-summary.md",
    "agentconf-junit.xml",
    "agentconf-badge.json",
];

/// The reference through the contract, kept small: PARTIAL.
fn reference_command() -> String {
    format!("{BIN} impl")
}
const SMALL: &str = "--include aer1/timeline/";

/// Runs `program args` in `dir` with only `env` (and PATH, TMPDIR) in its environment: a
/// GITHUB_STEP_SUMMARY or AGENTCONF_* of the machine running the tests never leaks in.
fn hermetic(program: &str, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Ran {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir).env_clear();
    for key in ["PATH", "TMPDIR"] {
        if let Some(value) = std::env::var_os(key) {
            cmd.env(key, value);
        }
    }
    cmd.envs(env.iter().copied());
    let ran = Ran::of(cmd.output().unwrap());
    assert!(!ran.stderr.contains("panicked"), "{}", ran.both());
    ran
}

/// Runs the CI script in `dir` with AGENTCONF set to the binary under test, `env` and a
/// GITHUB_STEP_SUMMARY and GITHUB_OUTPUT in `dir`.
fn ci_step(dir: &Path, env: &[(&str, &str)]) -> Ran {
    let script = root().join(SCRIPT);
    let summary = dir.join("step-summary.md");
    let output = dir.join("github-output");
    let mut all = vec![
        ("AGENTCONF", BIN),
        ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ("GITHUB_OUTPUT", output.to_str().unwrap()),
    ];
    all.extend_from_slice(env);
    hermetic("bash", &[script.to_str().unwrap()], dir, &all)
}

fn assert_every_output(out: &Path, context: &str) {
    for name in OUTPUTS {
        let file = out.join(name);
        let len = std::fs::metadata(&file)
            .unwrap_or_else(|_| panic!("{context}: {name} was not written"))
            .len();
        assert!(len > 0, "{context}: {name} is empty");
    }
}

/// The reference, filtered: PARTIAL fails `require: conforms` (the default, `partial`, passes
/// it: the GitLab test runs that); every output is written all the same, the Markdown is the
/// step summary, and the GitHub outputs name the verdict and the results file.
#[test]
fn ci_step_on_the_reference_exits_per_the_required_level() {
    let dir = temp_dir("step-reference");
    let command = reference_command();
    let ran = ci_step(
        &dir,
        &[
            ("AGENTCONF_COMMAND", command.as_str()),
            ("AGENTCONF_ARGS", SMALL),
            ("AGENTCONF_REQUIRE", "conforms"),
        ],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stdout.contains("agentconf-ci: verdict PARTIAL"),
        "{}",
        ran.both()
    );
    assert!(
        ran.stderr
            .contains("failing: PARTIAL is below what AGENTCONF_REQUIRE=conforms asks for"),
        "{}",
        ran.both()
    );
    // The default output directory, relative to where the step runs.
    let out = dir.join("agentconf-out");
    assert_every_output(&out, "the reference");
    let markdown = read(&out.join("agentconf-summary.md"));
    assert!(markdown.contains("PARTIAL"), "{markdown}");
    assert_eq!(read(&dir.join("step-summary.md")), markdown);
    let results = out.join("agentconf-results.jsonl").canonicalize().unwrap();
    assert_eq!(
        read(&dir.join("github-output")),
        format!("verdict=PARTIAL\nresults-file={}\n", results.display())
    );
    let badge = read(&out.join("agentconf-badge.json"));
    assert!(badge.contains("\"color\":\"blue\""), "{badge}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An implementation that accepts everything: FAIL fails the step, a red badge
/// and JUnit failures are still written, the summary still appended; `exit-zero` publishes it
/// and passes.
#[test]
fn ci_step_on_a_failing_implementation_writes_everything_and_fails() {
    let dir = temp_dir("step-failing");
    for (require, exit_zero, code) in [("known-failures", "false", 1), ("conforms", "true", 0)] {
        let case = dir.join(format!("{require}-{exit_zero}"));
        std::fs::create_dir_all(&case).unwrap();
        let ran = ci_step(
            &case,
            &[
                ("AGENTCONF_COMMAND", "sh -c 'exit 0'"),
                ("AGENTCONF_ARGS", SMALL),
                ("AGENTCONF_OUT_DIR", "out/nested"),
                ("AGENTCONF_REQUIRE", require),
                ("AGENTCONF_EXIT_ZERO", exit_zero),
            ],
        );
        let context = format!("require {require} exit-zero {exit_zero}");
        assert_eq!(ran.code, code, "{context}: {}", ran.both());
        let out = case.join("out/nested");
        assert_every_output(&out, &context);
        // The quoted command reached the implementation as three words.
        let results = read(&out.join("agentconf-results.jsonl"));
        assert!(
            results.contains(r#""argv":["sh","-c","exit 0"]"#),
            "{}",
            results.lines().next().unwrap()
        );
        let badge = read(&out.join("agentconf-badge.json"));
        assert!(badge.contains("\"color\":\"red\""), "{badge}");
        assert!(badge.contains("FAIL"), "{badge}");
        let junit = read(&out.join("agentconf-junit.xml"));
        assert!(junit.contains("<failure"), "JUnit without failures");
        let markdown = read(&out.join("agentconf-summary.md"));
        assert!(markdown.contains("FAIL"), "{markdown}");
        assert_eq!(read(&case.join("step-summary.md")), markdown);
        assert!(
            read(&case.join("github-output")).starts_with("verdict=FAIL\n"),
            "{context}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run interrupted midway (here by the implementation itself, which sends SIGINT to agentconf,
/// its parent, at its fifth call: as Ctrl-C or a CI timeout would) is published, but the step
/// exits 130, with or without exit-zero: its PARTIAL would otherwise pass the default
/// `require: partial` with most of the corpus never run. (In a PID namespace of its own an
/// implementation cannot see agentconf, so this one runs in a process group only.)
#[test]
fn ci_step_fails_an_interrupted_run_and_publishes_it() {
    let dir = temp_dir("step-interrupted");
    for exit_zero in ["false", "true"] {
        let case = dir.join(format!("exit-zero-{exit_zero}"));
        std::fs::create_dir_all(&case).unwrap();
        let count = case.join("calls");
        let wrapper = case.join("interrupting.sh");
        std::fs::write(
            &wrapper,
            format!(
                "n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n + 1)); echo \"$n\" > '{count}'\n\
                 if [ \"$n\" -eq 5 ]; then kill -INT \"$PPID\"; sleep 5; fi\nexit 0\n",
                count = count.display()
            ),
        )
        .unwrap();
        let command = format!("sh {}", wrapper.display());
        let ran = ci_step(
            &case,
            &[
                ("AGENTCONF_COMMAND", command.as_str()),
                ("AGENTCONF_ARGS", "--include aer1/timeline/ --jobs 1"),
                ("AGENTCONF_EXIT_ZERO", exit_zero),
                ("AGENTCONF_CONTAINMENT", "process-group"),
            ],
        );
        let context = format!("exit-zero {exit_zero}");
        assert_eq!(ran.code, 130, "{context}: {}", ran.both());
        assert!(
            ran.stderr.contains("interrupted"),
            "{context}: {}",
            ran.both()
        );
        let out = case.join("agentconf-out");
        assert_every_output(&out, &context);
        let results = read(&out.join("agentconf-results.jsonl"));
        let footer = results.lines().last().unwrap_or_default();
        assert!(
            footer.contains("\"interrupted\":true"),
            "{context}: {footer}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run that writes no results file fails the step (exit 2) with a message that says so, even
/// with exit-zero, and leaves nothing from an earlier run behind to be published.
#[test]
fn ci_step_fails_clearly_without_a_results_file() {
    let dir = temp_dir("step-no-results");
    let out = dir.join("agentconf-out");
    std::fs::create_dir_all(&out).unwrap();
    for name in OUTPUTS {
        std::fs::write(out.join(name), "from an earlier run").unwrap();
    }
    let ran = ci_step(
        &dir,
        &[
            ("AGENTCONF_COMMAND", "sh -c 'exit 0'"),
            ("AGENTCONF_ARGS", "--include no-such-prefix/"),
            ("AGENTCONF_EXIT_ZERO", "true"),
        ],
    );
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr.contains("agentconf run wrote no results file")
            && ran.stderr.contains("it exited 2"),
        "{}",
        ran.both()
    );
    for name in OUTPUTS {
        assert!(
            !out.join(name).exists(),
            "{name} of an earlier run was left to be published"
        );
    }
    assert!(!dir.join("step-summary.md").exists());

    // Configuration errors stop before anything runs, naming the variable.
    let errors: [(&[(&str, &str)], &str); 5] = [
        (&[], "set AGENTCONF_COMMAND"),
        (
            &[("AGENTCONF_COMMAND", "sh"), ("AGENTCONF_REQUIRE", "all")],
            "AGENTCONF_REQUIRE must be",
        ),
        (
            &[("AGENTCONF_COMMAND", "sh"), ("AGENTCONF_EXIT_ZERO", "yes")],
            "AGENTCONF_EXIT_ZERO must be",
        ),
        (
            &[("AGENTCONF_COMMAND", "sh -c 'exit 0")],
            "cannot split into words",
        ),
        (
            &[("AGENTCONF_COMMAND", "sh"), ("AGENTCONF_ARGS", "--out x")],
            "AGENTCONF_ARGS: leave out '--out'",
        ),
    ];
    for (env, message) in errors {
        let ran = ci_step(&dir, env);
        assert_eq!(ran.code, 2, "{env:?}: {}", ran.both());
        assert!(ran.stderr.contains(message), "{env:?}: {}", ran.both());
    }
    let missing = hermetic(
        "bash",
        &[root().join(SCRIPT).to_str().unwrap()],
        &dir,
        &[
            ("AGENTCONF", "/nonexistent/agentconf"),
            ("AGENTCONF_COMMAND", "sh"),
        ],
    );
    assert_eq!(missing.code, 2, "{}", missing.both());
    assert!(
        missing.stderr.contains("cannot find the agentconf binary"),
        "{}",
        missing.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The AGENTCONF* variables the script reads, from its text.
fn script_variables() -> BTreeSet<String> {
    let text = read(&root().join(SCRIPT));
    let mut vars = BTreeSet::new();
    for (i, _) in text.match_indices("${AGENTCONF") {
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || *c == '_')
            .collect();
        vars.insert(name);
    }
    vars
}

/// The output file names the script writes (`…=$out_dir/NAME`).
fn script_outputs() -> BTreeSet<String> {
    read(&root().join(SCRIPT))
        .lines()
        .filter_map(|l| l.split_once("=$out_dir/").map(|(_, name)| name.to_string()))
        .collect()
}

#[test]
fn the_script_reads_and_writes_what_the_tests_assume() {
    let vars: Vec<String> = script_variables().into_iter().collect();
    assert_eq!(
        vars,
        [
            "AGENTCONF",
            "AGENTCONF_ADAPTER",
            "AGENTCONF_ARGS",
            "AGENTCONF_COMMAND",
            "AGENTCONF_EXIT_ZERO",
            "AGENTCONF_OUT_DIR",
            "AGENTCONF_REQUIRE",
        ]
    );
    let outputs: BTreeSet<String> = OUTPUTS.iter().map(|s| s.to_string()).collect();
    assert_eq!(script_outputs(), outputs);
    let text = read(&root().join(SCRIPT));
    assert!(text.starts_with("#!/usr/bin/env bash\n"));
    assert!(text.contains("\nset -euo pipefail\n"));
}

/// shellcheck, where it is installed (it is not a dependency of the build).
/// A linter that is not installed: the test says so and passes on a developer's machine, but fails
/// where `AGENTCONF_REQUIRE_LINTERS` is set (`.ci/run` sets it after installing both), so CI
/// never reports a lint as passed that did not run.
fn linter_missing(name: &str) {
    assert!(
        std::env::var_os("AGENTCONF_REQUIRE_LINTERS").is_none(),
        "{name} is not installed, and AGENTCONF_REQUIRE_LINTERS says it must run here"
    );
    eprintln!("skipped: {name} is not installed");
}

#[test]
fn the_script_is_shellcheck_clean() {
    let Ok(out) = Command::new("shellcheck")
        .args(["--shell=bash", "--severity=style"])
        .arg(root().join(SCRIPT))
        .output()
    else {
        return linter_missing("shellcheck");
    };
    let ran = Ran::of(out);
    assert_eq!(ran.code, 0, "{}", ran.both());
}

// ---------------------------------------------------------------------------------------------
// action.yml
// ---------------------------------------------------------------------------------------------

fn yaml(path: &Path) -> Value {
    serde_norway::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn keys(map: &Value) -> BTreeSet<String> {
    map.as_mapping()
        .expect("a mapping")
        .keys()
        .map(|k| k.as_str().expect("a string key").to_string())
        .collect()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string {key} in {v:?}"))
}

/// The Action's inputs are the script's variables (each passed as one, from its own input) plus
/// `upload` and `artifact-name`; it calls the script that exists; third-party actions are pinned
/// by major tag; the upload runs whatever the verdict and takes every output.
#[test]
fn action_yml_is_the_script_with_inputs() {
    let action = yaml(&root().join("action.yml"));
    let inputs = keys(&action["inputs"]);
    let expected: BTreeSet<String> = [
        "command",
        "adapter",
        "args",
        "require",
        "exit-zero",
        "out-dir",
        "agentconf-path",
        "upload",
        "artifact-name",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(inputs, expected);
    assert_eq!(str_of(&action["inputs"]["require"], "default"), "partial");
    assert_eq!(str_of(&action["inputs"]["exit-zero"], "default"), "false");
    assert_eq!(str_of(&action["inputs"]["upload"], "default"), "true");
    assert_eq!(
        str_of(&action["inputs"]["out-dir"], "default"),
        "agentconf-out"
    );
    assert_eq!(
        keys(&action["outputs"]),
        ["results-file", "verdict"].map(String::from).into()
    );
    assert_eq!(str_of(&action["runs"], "using"), "composite");

    let steps = action["runs"]["steps"].as_sequence().expect("steps");
    let step = |id: &str| {
        steps
            .iter()
            .find(|s| s.get("id").and_then(Value::as_str) == Some(id))
            .unwrap_or_else(|| panic!("no step {id}"))
    };
    // The run step: exactly the script's variables, each from its input (the binary from the
    // install step, which takes `agentconf-path`).
    let run = step("run");
    let env = &run["env"];
    let env_keys = keys(env);
    assert_eq!(env_keys, script_variables());
    for key in &env_keys {
        let value = str_of(env, key);
        let input = match key.as_str() {
            "AGENTCONF" => {
                assert_eq!(value, "${{ steps.install.outputs.bin }}");
                continue;
            }
            k => k
                .strip_prefix("AGENTCONF_")
                .unwrap()
                .to_lowercase()
                .replace('_', "-"),
        };
        assert!(inputs.contains(&input), "{key} from no input");
        assert_eq!(value, format!("${{{{ inputs.{input} }}}}"), "{key}");
    }
    assert_eq!(
        str_of(&step("install")["env"], "AGENTCONF_PATH"),
        "${{ inputs.agentconf-path }}"
    );
    let script = str_of(run, "run");
    assert_eq!(script, format!("bash \"$GITHUB_ACTION_PATH/{SCRIPT}\""));
    assert!(root().join(SCRIPT).is_file());
    // Outputs come from the run step, which writes them to GITHUB_OUTPUT.
    for output in ["verdict", "results-file"] {
        assert_eq!(
            str_of(&action["outputs"][output], "value"),
            format!("${{{{ steps.run.outputs.{output} }}}}")
        );
    }
    // The default install builds from the action's own checkout, locked.
    let install = str_of(step("install"), "run");
    assert!(
        install.contains("cargo install --locked --path \"$GITHUB_ACTION_PATH/crates/cli\""),
        "{install}"
    );
    assert!(root().join("crates/cli/Cargo.toml").is_file());
    // Third-party actions by major tag; the upload whatever the verdict, every output.
    let mut uses = Vec::new();
    for s in steps {
        if let Some(u) = s.get("uses").and_then(Value::as_str) {
            let (_, tag) = u.split_once('@').expect("pinned");
            assert!(
                tag.strip_prefix('v')
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())),
                "{u}: pin by major tag"
            );
            uses.push(u.to_string());
        }
    }
    assert_eq!(
        uses,
        [
            "actions/cache/restore@v4",
            "actions/cache/save@v4",
            "actions/upload-artifact@v4"
        ]
    );
    let upload = steps
        .iter()
        .find(|s| s.get("uses").and_then(Value::as_str) == Some("actions/upload-artifact@v4"))
        .unwrap();
    assert!(str_of(upload, "if").starts_with("always()"));
    let paths: BTreeSet<String> = str_of(&upload["with"], "path")
        .lines()
        .map(|l| {
            l.trim()
                .strip_prefix("${{ inputs.out-dir }}/")
                .expect("in out-dir")
                .to_string()
        })
        .collect();
    assert_eq!(paths, script_outputs());
}

// ---------------------------------------------------------------------------------------------
// The GitLab template
// ---------------------------------------------------------------------------------------------

const GITLAB: &str = "integrations/gitlab/agentconf.gitlab-ci.yml";

/// The template is one hidden job whose variables are the script's, whose artifacts are kept
/// whatever the verdict with the JUnit file as a report; its script block, run here with
/// AGENTCONF and AGENTCONF_SRC given, finds the script, and the reference's PARTIAL passes the
/// default `partial`.
#[test]
fn gitlab_template_is_the_script_with_variables() {
    let template = yaml(&root().join(GITLAB));
    assert_eq!(keys(&template), [".agentconf".to_string()].into());
    let job = &template[".agentconf"];
    let variables = keys(&job["variables"]);
    assert!(
        variables.is_superset(&script_variables()),
        "{variables:?} lacks some of {:?}",
        script_variables()
    );
    assert_eq!(str_of(&job["variables"], "AGENTCONF_REQUIRE"), "partial");
    assert_eq!(str_of(&job["variables"], "AGENTCONF_EXIT_ZERO"), "false");
    assert_eq!(str_of(&job["artifacts"], "when"), "always");
    assert_eq!(
        str_of(&job["artifacts"]["reports"], "junit"),
        "$AGENTCONF_OUT_DIR/agentconf-junit.xml"
    );
    let paths = job["artifacts"]["paths"].as_sequence().unwrap();
    assert_eq!(paths[0].as_str(), Some("$AGENTCONF_OUT_DIR/"));
    let script = job["script"].as_sequence().expect("script");
    assert_eq!(script.len(), 1);
    let block = script[0].as_str().unwrap();
    assert!(block.contains("$AGENTCONF_SRC/integrations/agentconf-ci.sh"));
    assert!(block.contains("cargo install --locked --force --path \"$AGENTCONF_SRC/crates/cli\""));
    // A cached build is reused only when it came from the commit checked out now.
    assert!(block.contains("git -C \"$AGENTCONF_SRC\" rev-parse HEAD"));
    assert!(block.contains("[ \"$built\" != \"$commit\" ]"));
    assert_eq!(str_of(&job["cache"], "when"), "always");
    // The image built from the Dockerfile holds the script where the template looks.
    let image_script = "/usr/local/share/agentconf/agentconf-ci.sh";
    assert!(block.contains(image_script));
    assert!(
        read(&root().join("Dockerfile")).contains(&format!("COPY {SCRIPT} {image_script}")),
        "the Dockerfile does not install the script where the GitLab template looks"
    );

    // Run the block as GitLab would (POSIX sh), with the template's variables, a binary given
    // and the source tree as AGENTCONF_SRC (no clone, no build).
    let dir = temp_dir("gitlab");
    let mut env: Vec<(String, String)> = job["variables"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().into(), v.as_str().unwrap().into()))
        .collect();
    let src = root().canonicalize().unwrap().display().to_string();
    for (k, v) in [
        ("AGENTCONF", BIN.to_string()),
        ("AGENTCONF_SRC", src),
        ("AGENTCONF_COMMAND", reference_command()),
        ("AGENTCONF_ARGS", SMALL.to_string()),
    ] {
        env.retain(|(key, _)| key != k);
        env.push((k.into(), v));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let ran = hermetic("sh", &["-c", block], &dir, &env);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stdout
            .contains("PARTIAL is at least what AGENTCONF_REQUIRE=partial asks for"),
        "{}",
        ran.both()
    );
    assert_every_output(&dir.join("agentconf-out"), "GitLab");
    assert!(
        !dir.join(".agentconf-src").exists(),
        "cloned although AGENTCONF_SRC was given"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Dockerfile
// ---------------------------------------------------------------------------------------------

/// One Dockerfile instruction: its keyword and its text, continuation lines joined.
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if let Some(part) = trimmed.strip_suffix('\\') {
            current.push_str(part);
            current.push(' ');
            continue;
        }
        current.push_str(trimmed);
        let (keyword, rest) = current
            .split_once(char::is_whitespace)
            .unwrap_or((&current, ""));
        out.push((keyword.to_uppercase(), rest.trim().to_string()));
        current.clear();
    }
    out
}

/// The Dockerfile by rules that hold without Docker or a network: pinned, multi-stage, locked,
/// non-root, exec-form entrypoint, the binary the build makes, and a .dockerignore that keeps
/// build output out of the context.
#[test]
fn dockerfile_holds_to_its_rules() {
    let text = read(&root().join("Dockerfile"));
    let all = instructions(&text);
    // Stages: every FROM pinned to a tag that is not `latest`; at least two; the last is not the
    // builder.
    let froms: Vec<Vec<&str>> = all
        .iter()
        .filter(|(k, _)| k == "FROM")
        .map(|(_, rest)| rest.split_whitespace().collect())
        .collect();
    assert!(froms.len() >= 2, "not multi-stage: {froms:?}");
    for from in &froms {
        let image = from.iter().find(|w| !w.starts_with("--")).unwrap();
        let tag = image
            .rsplit_once(':')
            .map(|(_, t)| t)
            .filter(|t| !t.contains('/'));
        assert!(
            tag.is_some_and(|t| t != "latest") || image.contains("@sha256:"),
            "{image}: pin a tag other than latest"
        );
    }
    let builder = froms[0]
        .iter()
        .position(|w| w.eq_ignore_ascii_case("AS"))
        .map(|i| froms[0][i + 1])
        .expect("the first stage is named");
    let last = froms.last().unwrap();
    assert!(
        !last.iter().any(|w| w.eq_ignore_ascii_case("AS")),
        "{last:?}"
    );
    assert!(
        !last.contains(&builder),
        "the final stage is built FROM the builder"
    );
    let last_from = all.iter().rposition(|(k, _)| k == "FROM").unwrap();
    let (build, final_stage) = all.split_at(last_from);

    // The build: locked, release, the CLI package, in the builder's WORKDIR.
    let cargo = build
        .iter()
        .find(|(k, rest)| k == "RUN" && rest.contains("cargo build"))
        .map(|(_, rest)| rest.as_str())
        .expect("a cargo build");
    for flag in ["--locked", "--release", "-p agentconf-cli"] {
        assert!(cargo.contains(flag), "cargo build without {flag}: {cargo}");
    }
    let workdir = build
        .iter()
        .rev()
        .find(|(k, _)| k == "WORKDIR")
        .map(|(_, w)| w.as_str())
        .expect("the builder's WORKDIR");
    // The CLI package is agentconf-cli and its binary is `agentconf`.
    let manifest = read(&root().join("crates/cli/Cargo.toml"));
    assert!(manifest.contains("name = \"agentconf-cli\""));
    assert!(manifest.contains("[[bin]]\nname = \"agentconf\""));
    let binary = format!("{workdir}/target/release/agentconf");

    // The final stage: the binary from the builder, a non-root user, an exec-form entrypoint.
    let copy_from = final_stage
        .iter()
        .find(|(k, rest)| k == "COPY" && rest.starts_with(&format!("--from={builder} ")))
        .map(|(_, rest)| rest.split_whitespace().collect::<Vec<_>>())
        .expect("COPY --from the builder");
    assert_eq!(copy_from[1], binary, "the binary the build makes");
    let user = final_stage
        .iter()
        .rev()
        .find(|(k, _)| k == "USER")
        .map(|(_, u)| u.as_str())
        .expect("a USER in the final stage");
    let name = user.split(':').next().unwrap();
    assert!(name != "root" && name != "0", "USER {user} is root");
    let entrypoint = final_stage
        .iter()
        .find(|(k, _)| k == "ENTRYPOINT")
        .map(|(_, e)| e.as_str())
        .expect("an ENTRYPOINT");
    let parsed: Vec<String> = serde_json::from_str(entrypoint).expect("exec form (a JSON array)");
    assert_eq!(parsed, ["agentconf"]);
    let entry_path = copy_from.last().unwrap();
    assert!(
        entry_path.starts_with("/usr/local/bin/") || entry_path.starts_with("/usr/bin/"),
        "{entry_path} is not on PATH"
    );
    // Every COPY from the context names a file that exists.
    for (_, rest) in all.iter().filter(|(k, _)| k == "COPY") {
        let words: Vec<&str> = rest.split_whitespace().collect();
        if words[0].starts_with("--from") || words[0] == "." {
            continue;
        }
        assert!(
            root().join(words[0]).exists(),
            "COPY {}: no such file",
            words[0]
        );
    }
    // OCI labels, the version the workspace's.
    let labels: String = final_stage
        .iter()
        .filter(|(k, _)| k == "LABEL")
        .map(|(_, l)| l.clone())
        .collect();
    for label in ["title", "description", "version", "licenses", "source"] {
        assert!(
            labels.contains(&format!("org.opencontainers.image.{label}=")),
            "no OCI label {label}"
        );
    }
    assert!(
        text.contains(&format!("ARG VERSION={}", env!("CARGO_PKG_VERSION"))),
        "the image's version label is not the workspace's version"
    );

    // The build context leaves out build output; it keeps what the build needs.
    let ignore = read(&root().join(".dockerignore"));
    let patterns: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(
        patterns
            .iter()
            .any(|p| ["target", "target/", "/target", "/target/"].contains(p)),
        ".dockerignore does not exclude target/: {patterns:?}"
    );
    for needed in [
        "Cargo.lock",
        "Cargo.toml",
        "crates",
        "crates/",
        "integrations",
        "xtask",
    ] {
        assert!(
            !patterns.contains(&needed),
            ".dockerignore excludes {needed}"
        );
    }
}

/// hadolint, where it is installed (it is not a dependency of the build).
#[test]
fn dockerfile_passes_hadolint_where_installed() {
    let Ok(out) = Command::new("hadolint")
        .arg("--no-color")
        .arg(root().join("Dockerfile"))
        .output()
    else {
        return linter_missing("hadolint");
    };
    let ran = Ran::of(out);
    assert_eq!(ran.code, 0, "{}", ran.both());
}

// ---------------------------------------------------------------------------------------------
// README
// ---------------------------------------------------------------------------------------------

/// The README's "Use it in CI" section names files that exist and the script's levels.
#[test]
fn readme_ci_section_names_what_exists() {
    let readme = read(&root().join("README.md"));
    let start = readme
        .find("\n## Use it in CI\n")
        .expect("a Use it in CI section")
        + 1;
    let rest = &readme[start..];
    let end = rest.find("\n## ").expect("a section after it") + 1;
    let section = &rest[..end];
    assert!(
        rest[end..].starts_with("## The `agentconf` tool\n"),
        "the section is right before `## The agentconf tool`"
    );
    for path in [GITLAB, SCRIPT, "action.yml", "Dockerfile"] {
        assert!(section.contains(path), "the section does not name {path}");
        assert!(root().join(path).is_file());
    }
    for level in [
        "conforms",
        "known-failures",
        "in-scope",
        "partial",
        "--require conforms",
    ] {
        assert!(section.contains(level), "the section does not name {level}");
    }
}
