//! Whole-command speed of `agentconf run`, the way a user waits for it: the built binary
//! (`CARGO_BIN_EXE_agentconf`) timed from outside, against the same work done without the
//! harness. Prints numbers; asserts nothing about time.
//!
//! 1. `run --jobs 1 --implementation reference-process --include aer1/ --keep-going` against a
//!    sequential loop (`xargs -P1`) spawning `agentconf impl OPERATION ARGS` once per one-shot
//!    case, on inputs written beforehand: what the harness adds per case. Target <= 1.3.
//! 2. The same with `--jobs 2` against `xargs -P2`. Target <= 1.3.
//! 3. Start-up: `run` of three AER-1 timeline cases (the reference in process) against
//!    `agentconf --version`: the CPU the run pays before and around its cases. Target: <= 30 ms
//!    more.
//!
//! Each comparison is made of interleaved pairs (A then B, repeated; one untimed warm-up of each),
//! so a machine whose speed drifts moves both sides alike; the ratio (or the difference) is taken
//! pair by pair, and its median and minimum are printed with the wall and CPU times. CPU time is
//! user + system of the command and every descendant it waited for (getrusage of the children).
//!
//! Run: `cargo bench -p agentconf-cli --bench harness_speed` (`-- --pairs N`, default 7;
//! `-- --agentconf PATH` times another build of agentconf).
//! `-- --prepare DIR` only writes the inputs and the command list (`DIR/commands`, one
//! `OPERATION ARGS` line per case) for timing the same commands with other tools, and exits.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentconf_contract::call::Call;
use agentconf_contract::case::Case;
use agentconf_harness::write_inputs;

/// The binary under test by default: the one Cargo built for this bench.
const BUILT: &str = env!("CARGO_BIN_EXE_agentconf");

/// The selection of the one-shot comparisons.
const ONE_SHOT_PREFIX: &str = "aer1/";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let pairs = value_of("--pairs")
        .and_then(|n| n.parse().ok())
        .unwrap_or(7usize)
        .max(1);
    // `--agentconf PATH` times another build (an earlier one, for a before-and-after).
    let agentconf = value_of("--agentconf").map_or(BUILT, String::as_str);
    if let Some(dir) = value_of("--prepare") {
        let (commands, count) = prepare(Path::new(dir));
        println!("{count} commands in {}", commands.display());
        return;
    }
    let work = std::env::temp_dir().join(format!("agentconf-bench-speed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let (commands, count) = prepare(&work);
    let out = work.join("results.jsonl");
    let run_one_shot = |jobs: &str| {
        let mut argv = vec![agentconf, "run", "--jobs", jobs];
        argv.extend(["--implementation", "reference-process", "--keep-going"]);
        argv.extend(["--include", ONE_SHOT_PREFIX]);
        owned(&argv)
            .into_iter()
            .chain(out_args(&out))
            .collect::<Vec<_>>()
    };
    let bare = |parallel: &str| {
        let list = commands.display().to_string();
        owned(&[
            "xargs", "-a", &list, "-L", "1", "-P", parallel, agentconf, "impl",
        ])
    };
    println!(
        "agentconf run against bare spawns of the same {count} one-shot cases ({ONE_SHOT_PREFIX}), \
         {pairs} interleaved pairs; ratio = run / bare, pair by pair"
    );
    for (jobs, label) in [("1", "jobs 1 vs xargs -P1"), ("2", "jobs 2 vs xargs -P2")] {
        let timed = pairs_of(&run_one_shot(jobs), &bare(jobs), pairs);
        print_ratios(label, &timed, 1.3);
    }
    let startup = startup_selection();
    let mut run_three = owned(&[agentconf, "run", "--jobs", "1"]);
    for id in &startup {
        run_three.extend(owned(&["--include", id]));
    }
    run_three.extend(out_args(&out));
    let timed = pairs_of(&run_three, &owned(&[agentconf, "--version"]), pairs);
    println!(
        "start-up: run of {} cases ({}) against --version, {pairs} interleaved pairs",
        startup.len(),
        startup.join(", ")
    );
    print_differences(&timed);
    let _ = std::fs::remove_dir_all(&work);
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn out_args(out: &Path) -> Vec<String> {
    vec!["--out".into(), out.display().to_string()]
}

/// Writes every one-shot case's inputs under `dir` and the list of their calls (`OPERATION ARGS`
/// per line, what `agentconf impl` takes); returns the list's path and its length.
fn prepare(dir: &Path) -> (PathBuf, usize) {
    let corpus = agentconf_corpus::corpus();
    let cases: Vec<Case<'_>> = corpus
        .iter()
        .flat_map(|v| v.cases())
        .filter(|c| c.id.starts_with(ONE_SHOT_PREFIX))
        .collect();
    let mut lines = String::new();
    for (i, c) in cases.iter().enumerate() {
        let files = write_inputs(c.vector, &dir.join(format!("c{i}"))).expect("inputs written");
        let path_of = |role: &str| {
            files
                .iter()
                .find(|(r, _)| r == role)
                .map(|(_, p)| p.display().to_string())
        };
        let call = Call::for_case(c, path_of).expect("every AER-1 case has a one-shot call");
        let argv = call.argv();
        assert!(
            argv.iter()
                .all(|a| !a.is_empty() && !a.contains(char::is_whitespace)),
            "{}: an argument xargs would split",
            c.id
        );
        lines.push_str(&argv.join(" "));
        lines.push('\n');
    }
    let path = dir.join("commands");
    std::fs::write(&path, lines).expect("command list written");
    (path, cases.len())
}

/// Three AER-1 timeline case ids, each an `--include` prefix that selects that case alone.
fn startup_selection() -> Vec<String> {
    let corpus = agentconf_corpus::corpus();
    let ids: Vec<String> = corpus
        .iter()
        .flat_map(|v| v.cases())
        .map(|c| c.id)
        .collect();
    ids.iter()
        .filter(|id| id.starts_with("aer1/timeline/"))
        .filter(|id| {
            ids.iter()
                .filter(|other| other.starts_with(id.as_str()))
                .count()
                == 1
        })
        .take(3)
        .cloned()
        .collect()
}

/// One timed command: wall time, and CPU time (user + system) of it and its waited descendants.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

/// Runs `a` then `b`, `pairs` times, after one untimed run of each.
fn pairs_of(a: &[String], b: &[String], pairs: usize) -> Vec<(Timing, Timing)> {
    time(a);
    time(b);
    (0..pairs).map(|_| (time(a), time(b))).collect()
}

fn time(argv: &[String]) -> Timing {
    let before = children_cpu();
    let started = Instant::now();
    let status = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{}: {e}", argv[0]));
    let wall = started.elapsed();
    // `run` exits 1 when an implementation fails a case, and xargs 123 when a command exits
    // non-zero (an implementation rejecting an invalid vector): only a usage or start-up error,
    // or a command xargs could not run, matters.
    assert!(
        status.code().is_some_and(|c| c <= 1 || c == 123),
        "{argv:?} ended with {status}"
    );
    Timing {
        wall,
        cpu: children_cpu().saturating_sub(before),
    }
}

/// User + system time of every child this process has waited for so far.
fn children_cpu() -> Duration {
    // SAFETY: a zeroed rusage is a valid out-parameter for getrusage(2).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into `usage`, which we own.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let of = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    of(usage.ru_utime) + of(usage.ru_stime)
}

/// The median and the minimum of `values` (not empty).
fn median_min(mut values: Vec<f64>) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    (values[values.len() / 2], values[0])
}

fn print_ratios(label: &str, timed: &[(Timing, Timing)], target: f64) {
    let medians = |pick: fn(&Timing) -> Duration| {
        let (a, _) = median_min(timed.iter().map(|(a, _)| secs(pick(a))).collect());
        let (b, _) = median_min(timed.iter().map(|(_, b)| secs(pick(b))).collect());
        (a, b)
    };
    let ratio = |pick: fn(&Timing) -> Duration| {
        median_min(
            timed
                .iter()
                .map(|(a, b)| secs(pick(a)) / secs(pick(b)))
                .collect(),
        )
    };
    let ((wall_a, wall_b), (cpu_a, cpu_b)) = (medians(|t| t.wall), medians(|t| t.cpu));
    let ((wall_median, wall_min), (cpu_median, cpu_min)) = (ratio(|t| t.wall), ratio(|t| t.cpu));
    println!(
        "  {label}: wall {wall_a:.3} s vs {wall_b:.3} s, ratio median {wall_median:.2} min \
         {wall_min:.2}; cpu {cpu_a:.3} s vs {cpu_b:.3} s, ratio median {cpu_median:.2} min \
         {cpu_min:.2} (target <= {target})"
    );
}

fn print_differences(timed: &[(Timing, Timing)]) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let of = |pick: fn(&Timing) -> Duration| {
        let (a, _) = median_min(timed.iter().map(|(a, _)| ms(pick(a))).collect());
        let (b, _) = median_min(timed.iter().map(|(_, b)| ms(pick(b))).collect());
        let (median, min) = median_min(
            timed
                .iter()
                .map(|(a, b)| ms(pick(a)) - ms(pick(b)))
                .collect(),
        );
        (a, b, median, min)
    };
    let (cpu_a, cpu_b, cpu_median, cpu_min) = of(|t| t.cpu);
    let (wall_a, wall_b, wall_median, wall_min) = of(|t| t.wall);
    println!(
        "  cpu {cpu_a:.1} ms vs {cpu_b:.1} ms, run - version median {cpu_median:.1} ms min \
         {cpu_min:.1} ms (target <= 30 ms); wall {wall_a:.1} ms vs {wall_b:.1} ms, difference \
         median {wall_median:.1} ms min {wall_min:.1} ms"
    );
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}
