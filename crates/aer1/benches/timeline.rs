//! Timeline verification: throughput against SHA-256, and peak memory of streaming verification.
//!
//! What is measured:
//!
//! 1. Throughput. Timelines are built in memory with the reference producer and serialized once;
//!    then, on those same file bytes, one SHA-256 pass and one streaming verification
//!    ([`verify_timeline`] reading through `io::Read`) are timed, interleaved, several times. The
//!    result is the ratio of the median times, verify / sha256: hashing the file once is the floor
//!    any verifier pays (it must at least read every byte), so the ratio says how much the
//!    verifier adds on top. Target: at most 3x, stretch 2x. Two shapes are measured, many small
//!    entries like the draft's example and fewer 4 KiB entries, plus revision 06 for comparison.
//! 2. Against the standard tools, on files. Timelines of 200,000 and 1,000,000 small entries are
//!    streamed to files; then, interleaved, at least seven times each: verifying the file in this
//!    process (what `agentconf verify timeline FILE` does, minus process start-up), the same on
//!    the caller's thread only (`threads: 1`, what one core costs), and the external commands
//!    `sha256sum FILE` and `openssl dgst -sha256 FILE` run as processes (so they pay their
//!    start-up, about a millisecond). Minimum and median times and their ratios are printed, with
//!    the verifier's CPU time over its wall time (how much of the cores it kept busy). Targets, at
//!    both sizes: verify <= 0.5x `sha256sum` and <= 1.5x `openssl dgst`. A tool that is not
//!    installed is skipped, and the output says so. Why 1.5x is within reach on two cores: entry
//!    digests are independent of each other, so they are computed on worker threads, and the
//!    floor is about half of one `openssl dgst` (which hashes on one core) times the hashing the
//!    verifier must do (the preimage and the decoded bytes of every entry, about 1.4 times the
//!    file's size for small entries); the rest is reading the entries. The target assumes the two
//!    cores are free: with other work on the machine the verifier gets less than two cores while
//!    `openssl dgst` still gets the one it uses, and the printed CPU / wall says how much it got.
//! 3. Peak memory. A 1,000,000-entry timeline is streamed to a file (never held whole), then a
//!    child process (this program re-executed with `AGENTCONF_BENCH_CHILD` set, so the parent's
//!    own allocations do not count) verifies it from disk and reports its peak RSS (`VmHWM`),
//!    next to a baseline child that does nothing. The same is done with 100,000 entries: the two
//!    peaks should match, showing memory does not grow with entry count. Target: peak RSS at
//!    1,000,000 entries <= 8 MiB.
//!
//! SHA-256 instructions: sha2 0.10 (0.10.9 in Cargo.lock) picks its backend at run time through
//! the `cpufeatures` crate; on x86-64 it uses the SHA-NI backend (`sha2::sha256::x86`) when the CPU
//! has the SHA extensions plus SSE2/SSSE3/SSE4.1, otherwise portable code. The development machine
//! has them (`grep -o -w sha_ni /proc/cpuinfo` prints `sha_ni`), and profiles of the verifier show
//! `sha2::sha256::x86::digest_blocks`: SHA-NI is used. The `asm` feature is not enabled: it only
//! replaces the portable fallback, which is not what runs here.
//!
//! Why ratios: absolute MB/s depend on the machine and its load; a ratio of two measurements taken
//! in the same run, interleaved, mostly cancels that noise. One machine property does not cancel:
//! CPU SHA-256 instructions make the hash (the denominator) several times faster, so the header
//! line says whether they are present; compare ratios only between machines that agree on it.
//! Nothing here asserts a timing; the only assertions are that every verification returns Valid,
//! so a broken verifier cannot be measured as a fast one. Targets are printed next to the
//! measured values, never asserted.
//!
//! Run: `cargo bench -p agentconf-aer1 --bench timeline` (about one to two minutes on two cores,
//! Linux only for the memory part). Without `--bench` (e.g. `cargo test --benches`) the same code runs once
//! on tiny inputs as a smoke test. `AGENTCONF_BENCH_RUNS=N` sets the interleaved runs of part 2
//! (at least seven by default).
//!
//! Profiling: the same binary writes the benchmark's file and verifies one file, nothing else, so a
//! profiler sees only the verifier (the binary is `target/release/deps/timeline-*`, built by
//! `cargo bench -p agentconf-aer1 --bench timeline --no-run`):
//!
//! ```text
//! AGENTCONF_BENCH_CHILD=write:200000:/tmp/t.json  target/release/deps/timeline-HASH
//! AGENTCONF_BENCH_CHILD=verify:200000:/tmp/t.json target/release/deps/timeline-HASH  # all cores
//! AGENTCONF_BENCH_CHILD=verify1:200000:/tmp/t.json target/release/deps/timeline-HASH # one thread
//! ```
//!
//! (`perf record -e cpu-clock` where hardware counters are unavailable, or
//! `valgrind --tool=callgrind` on `verify1` for exact instruction counts.)

use std::env;
use std::fs::{self, File};
use std::hint::black_box;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentconf_aer1::digest::{Revision, GENESIS_PREV_DIGEST};
use agentconf_aer1::formats::encode_base64;
use agentconf_aer1::hex;
use agentconf_aer1::producer::{
    build_timeline, digest_entry, example_chain, timeline_json, v07_example_specs, CloseStyle,
    Entry, EntrySpec,
};
use agentconf_aer1::report::TimelineReport;
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions};
use agentconf_aer1::Verdict;
use sha2::{Digest as _, Sha256};

/// Set in a child process to the job it runs: `baseline`, `verify:<entries>:<path>` (default
/// options), `verify1:<entries>:<path>` (one thread) or `write:<entries>:<path>` (see the module
/// documentation, "Profiling").
const CHILD_VAR: &str = "AGENTCONF_BENCH_CHILD";
/// The draft example's job id.
const JOB: &str = "job-7a1f";

/// Sizes for one run.
struct Config {
    small_entries: usize,
    large_entries: usize,
    large_entry_bytes: usize,
    repetitions: usize,
    /// Entry counts of the on-disk timelines timed against `sha256sum` and `openssl dgst`.
    file_entries: [usize; 2],
    /// Interleaved runs of each command on those files (`AGENTCONF_BENCH_RUNS` overrides it).
    file_repetitions: usize,
    /// Entry counts of the on-disk timelines whose verification peak RSS is measured.
    memory_entries: [usize; 2],
}

/// `cargo bench`: sizes large enough for stable medians, small enough for ~60 s on two cores.
const FULL: Config = Config {
    small_entries: 200_000,
    large_entries: 5_000,
    large_entry_bytes: 4096,
    repetitions: 7,
    file_entries: [200_000, 1_000_000],
    file_repetitions: 7,
    memory_entries: [100_000, 1_000_000],
};

/// Anything else (`cargo test --benches`): exercise every path once, quickly.
const SMOKE: Config = Config {
    small_entries: 2_000,
    large_entries: 50,
    large_entry_bytes: 4096,
    repetitions: 1,
    file_entries: [1_000, 10_000],
    file_repetitions: 1,
    memory_entries: [1_000, 10_000],
};

fn main() {
    if let Ok(job) = env::var(CHILD_VAR) {
        run_child(&job);
        return;
    }
    // cargo passes `--bench` only under `cargo bench`.
    let config = if env::args().any(|a| a == "--bench") {
        FULL
    } else {
        SMOKE
    };
    if config.repetitions == 1 {
        println!("smoke run (no --bench flag): tiny inputs, numbers are meaningless");
    }
    throughput(&config);
    let mut files = Files::default();
    against_tools(&config, &mut files);
    memory(&config, &mut files);
}

// ------------------------------------------------------------------------------------------------
// Throughput

/// One serialized timeline to measure.
struct Case {
    label: String,
    entries: usize,
    revision: Revision,
    bytes: Vec<u8>,
}

/// Median times of one case.
struct Timing {
    sha: Duration,
    verify: Duration,
}

fn throughput(config: &Config) {
    let small = v07_example_specs(JOB, config.small_entries);
    let large = large_specs(config.large_entries, config.large_entry_bytes);
    let cases = [
        case("small-entries", &small, Revision::R09),
        case("large-entries", &large, Revision::R09),
        case("small-entries revision-06", &small, Revision::R06),
    ];
    drop((small, large));

    let timings = time_cases(&cases, config.repetitions);
    println!(
        "medians of {} interleaved runs, CPU SHA-256 instructions: {}; compare ratios, not MB/s",
        config.repetitions,
        sha_instructions()
    );
    for (case, timing) in cases.iter().zip(&timings) {
        print_throughput(case, timing);
    }
}

fn case(shape: &str, specs: &[EntrySpec], revision: Revision) -> Case {
    let entries = build_timeline(JOB, specs, revision, CloseStyle::LastOnly);
    Case {
        label: shape.to_string(),
        entries: entries.len(),
        revision,
        bytes: timeline_json(&entries).into_bytes(),
    }
}

/// Specs of entries whose canonical bytes are `size`-byte JSON texts with a pseudo-random string
/// member: deterministic, valid UTF-8, and not so repetitive that any stage could shortcut it.
fn large_specs(n: usize, size: usize) -> Vec<EntrySpec> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..n)
        .map(|i| {
            let head = format!("{{\"job\":\"{JOB}\",\"entry\":{i},\"blob\":\"");
            let tail = "\"}";
            let fill = size.saturating_sub(head.len() + tail.len());
            let mut text = head.into_bytes();
            text.extend((0..fill).map(|_| ALPHABET[(xorshift(&mut state) >> 58) as usize]));
            text.extend_from_slice(tail.as_bytes());
            EntrySpec {
                bytes: text,
                id: format!("r-{JOB}-{i}"),
                tool: "fetch_document".to_string(),
                provenance_class: "LOGGED BY AGENT".to_string(),
            }
        })
        .collect()
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Runs every measurement `repetitions` times, interleaving cases and the two operations so that
/// a slow phase of the machine (frequency scaling, a neighbour's burst) hits all of them alike.
fn time_cases(cases: &[Case], repetitions: usize) -> Vec<Timing> {
    let mut sha = vec![Vec::new(); cases.len()];
    let mut verify = vec![Vec::new(); cases.len()];
    for _ in 0..repetitions {
        for (i, case) in cases.iter().enumerate() {
            sha[i].push(time_sha(&case.bytes));
            verify[i].push(time_verify(case));
        }
    }
    sha.into_iter()
        .zip(verify)
        .map(|(s, v)| Timing {
            sha: median(s),
            verify: median(v),
        })
        .collect()
}

fn time_sha(bytes: &[u8]) -> Duration {
    let start = Instant::now();
    black_box(Sha256::digest(black_box(bytes)));
    start.elapsed()
}

fn time_verify(case: &Case) -> Duration {
    let options = TimelineOptions {
        revision: case.revision,
        ..Default::default()
    };
    let start = Instant::now();
    let report = verify_timeline(black_box(case.bytes.as_slice()), &options);
    let elapsed = start.elapsed();
    let report = report.expect("reading from a slice cannot fail");
    check_valid(&report, case.entries, &case.label);
    elapsed
}

/// Not a timing assertion: a verifier that rejects the chain is not measuring the valid path.
fn check_valid(report: &TimelineReport, entries: usize, what: &str) {
    assert!(
        report.verdict == Verdict::Valid && report.entry_count == entries as u64,
        "{what}: expected a valid chain of {entries} entries, got {:?} with {} entries: {:?}",
        report.verdict,
        report.entry_count,
        report.failures.first()
    );
}

/// Whether sha2 can use SHA-256 CPU instructions here (it detects them at run time).
fn sha_instructions() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    let present = Some(std::arch::is_x86_feature_detected!("sha"));
    #[cfg(target_arch = "aarch64")]
    let present = Some(std::arch::is_aarch64_feature_detected!("sha2"));
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let present = None;
    match present {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn print_throughput(case: &Case, timing: &Timing) {
    let mb = case.bytes.len() as f64 / 1e6;
    let sha = mb / timing.sha.as_secs_f64();
    let verify = mb / timing.verify.as_secs_f64();
    let ratio = timing.verify.as_secs_f64() / timing.sha.as_secs_f64();
    let target = match case.revision {
        Revision::R09 => "target <= 3x, stretch 2x",
        Revision::R06 => "historical construction, for comparison",
    };
    println!(
        "timeline {} ({} entries, {mb:.1} MB): sha256 {sha:.0} MB/s, verify {verify:.0} MB/s, ratio {ratio:.2}x ({target})",
        case.label, case.entries
    );
}

// ------------------------------------------------------------------------------------------------
// Peak memory

/// Peak RSS of one child process, in KiB.
type Kib = u64;

fn memory(config: &Config, files: &mut Files) {
    let baseline = run_measuring_child("baseline");
    let mut peaks = Vec::new();
    for &entries in &config.memory_entries {
        let path = files.get(entries).to_path_buf();
        let size = fs::metadata(&path).expect("stat temp file").len();
        let peak = run_measuring_child(&format!("verify:{entries}:{}", path.display()));
        println!(
            "peak RSS verifying {entries} entries ({:.0} MB file): {} (baseline {}, difference {}; target at 1,000,000 entries <= 8 MiB)",
            size as f64 / 1e6,
            mib(peak),
            mib(baseline),
            mib(peak.saturating_sub(baseline)),
        );
        peaks.push((entries, peak));
    }
    if let [(few, low), (many, high)] = peaks[..] {
        let growth = high as i64 - low as i64;
        println!("peak RSS change from {few} to {many} entries: {growth:+} KiB");
    }
}

fn mib(kib: Kib) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

// ------------------------------------------------------------------------------------------------
// Against sha256sum and openssl, on files

/// The on-disk timelines of this run, written once each and shared by the measurements.
#[derive(Default)]
struct Files {
    written: Vec<(usize, TempFile)>,
}

impl Files {
    /// The file of the `entries`-entry example chain, written on first use.
    fn get(&mut self, entries: usize) -> &Path {
        if !self.written.iter().any(|(n, _)| *n == entries) {
            if self.written.is_empty() {
                check_streamed_matches_producer();
            }
            let file = TempFile::new(entries);
            write_timeline(
                BufWriter::new(File::create(&file.0).expect("create temp file")),
                entries,
            )
            .expect("write temp timeline");
            self.written.push((entries, file));
        }
        let (_, file) = self
            .written
            .iter()
            .find(|(n, _)| *n == entries)
            .expect("written above");
        &file.0
    }
}

/// An external command that reads FILE, named as the output shows it.
struct Tool {
    label: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

const TOOLS: [Tool; 2] = [
    Tool {
        label: "sha256sum",
        program: "sha256sum",
        args: &[],
    },
    Tool {
        label: "openssl dgst -sha256",
        program: "openssl",
        args: &["dgst", "-sha256"],
    },
];

/// The targets: verify time at most this multiple of the tool's.
fn target_ratio(tool: &Tool) -> f64 {
    match tool.program {
        "sha256sum" => 0.5,
        _ => 1.5,
    }
}

/// Whether `tool` runs here (on an empty file, so the check costs nothing).
fn installed(tool: &Tool, probe: &Path) -> bool {
    Command::new(tool.program)
        .args(tool.args)
        .arg(probe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn against_tools(config: &Config, files: &mut Files) {
    let probe = TempFile::named("probe");
    File::create(&probe.0).expect("create probe file");
    let tools: Vec<&Tool> = TOOLS
        .iter()
        .filter(|tool| {
            let ok = installed(tool, &probe.0);
            if !ok {
                println!("{}: not installed (or not working), skipped", tool.label);
            }
            ok
        })
        .collect();
    let runs = file_runs(config);
    for &entries in &config.file_entries {
        let path = files.get(entries).to_path_buf();
        let size = fs::metadata(&path).expect("stat temp file").len();
        let mut verify = Timed::default();
        let mut one_thread = Timed::default();
        let mut external = vec![Vec::new(); tools.len()];
        for _ in 0..runs {
            verify.push(|| time_verify_file(&path, entries, 0));
            one_thread.push(|| time_verify_file(&path, entries, 1));
            for (tool, samples) in tools.iter().zip(&mut external) {
                samples.push(time_tool(tool, &path));
            }
        }
        println!(
            "file of {entries} small entries ({:.1} MB), {runs} interleaved runs, min / median:",
            size as f64 / 1e6,
        );
        let verify = verify.report("verify");
        one_thread.report("verify, one thread");
        for (tool, samples) in tools.iter().zip(external) {
            let tool_time = Summary::of(samples);
            println!(
                "  {:<21} {} / {}; verify / {} = {:.2}x (min) / {:.2}x (median) (target <= {}x)",
                tool.label,
                secs(tool_time.min),
                secs(tool_time.median),
                tool.label,
                verify.min.as_secs_f64() / tool_time.min.as_secs_f64(),
                verify.median.as_secs_f64() / tool_time.median.as_secs_f64(),
                target_ratio(tool),
            );
        }
    }
}

/// Interleaved runs of the file comparison: `AGENTCONF_BENCH_RUNS`, else the configured number.
fn file_runs(config: &Config) -> usize {
    env::var("AGENTCONF_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(config.file_repetitions)
}

/// Wall times of one verification repeated, and the CPU time all its threads used.
#[derive(Default)]
struct Timed {
    wall: Vec<Duration>,
    cpu: Duration,
}

impl Timed {
    /// Runs `timed` (which returns its wall time) and adds the process CPU time it used.
    fn push(&mut self, timed: impl FnOnce() -> Duration) {
        let before = process_cpu_time();
        self.wall.push(timed());
        self.cpu += process_cpu_time().saturating_sub(before);
    }

    /// Prints min / median and CPU / wall; returns the summary.
    fn report(self, label: &str) -> Summary {
        let total: Duration = self.wall.iter().sum();
        let summary = Summary::of(self.wall);
        println!(
            "  {label:<21} {} / {}; CPU / wall {:.2}",
            secs(summary.min),
            secs(summary.median),
            self.cpu.as_secs_f64() / total.as_secs_f64().max(1e-9),
        );
        summary
    }
}

/// User and system CPU time of this process, all threads, from Linux's `/proc/self/stat` (in
/// ticks of 1/100 s, the unit Linux reports them in); zero elsewhere.
fn process_cpu_time() -> Duration {
    let Ok(stat) = fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which is in parentheses and may hold spaces): utime and
    // stime are the 12th and 13th.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

/// Minimum and median of some timings.
struct Summary {
    min: Duration,
    median: Duration,
}

impl Summary {
    fn of(samples: Vec<Duration>) -> Summary {
        let min = samples.iter().copied().min().unwrap_or_default();
        Summary {
            min,
            median: median(samples),
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// Verifying a file as `agentconf verify timeline FILE` does: open, stream, default options but
/// `threads` (0: one per core).
fn time_verify_file(path: &Path, entries: usize, threads: usize) -> Duration {
    let options = TimelineOptions {
        threads,
        ..TimelineOptions::default()
    };
    let start = Instant::now();
    let file = File::open(path).expect("open timeline");
    let report = verify_timeline(file, &options);
    let elapsed = start.elapsed();
    let report = report.expect("read timeline");
    check_valid(&report, entries, &path.display().to_string());
    elapsed
}

fn time_tool(tool: &Tool, path: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(tool.program)
        .args(tool.args)
        .arg(path)
        .stdout(Stdio::null())
        .status();
    let elapsed = start.elapsed();
    assert!(
        status.as_ref().is_ok_and(|s| s.success()),
        "{} failed: {status:?}",
        tool.label
    );
    elapsed
}

/// A file under cargo's scratch directory for benches, removed when dropped (also on panic).
struct TempFile(PathBuf);

impl TempFile {
    fn new(entries: usize) -> Self {
        TempFile::named(&format!("{entries}.json"))
    }

    fn named(name: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        TempFile(dir.join(format!("timeline-bench-{}-{name}", std::process::id())))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Writes the chain `build_timeline(JOB, &v07_example_specs(JOB, n), R09, LastOnly)` would give,
/// serialized as `timeline_json` does, one entry at a time: the point is a file larger than the
/// parent should hold in memory.
fn write_timeline<W: Write>(mut out: W, n: usize) -> io::Result<()> {
    out.write_all(b"[\n")?;
    let mut prev = GENESIS_PREV_DIGEST.to_string();
    let mut scratch = Vec::new();
    for i in 0..n {
        let last = i + 1 == n;
        let entry = example_entry(i, prev, last);
        serde_json::to_writer(&mut out, &entry)?;
        out.write_all(if last { b"\n" } else { b",\n" })?;
        prev = hex::lower(&digest_entry(&entry, Revision::R09, &mut scratch));
    }
    out.write_all(b"]\n")?;
    out.flush()
}

/// Entry `i` of the example chain, as `v07_example_specs` and `build_timeline` make it.
fn example_entry(i: usize, prev_digest: String, last: bool) -> Entry {
    let bytes = format!("{{\"job\":\"{JOB}\",\"entry\":{i},\"tag\":\"r\"}}");
    Entry {
        canonical_bytes: encode_base64(bytes.as_bytes()),
        prev_digest,
        seq: i as u64 + 1,
        job_id: JOB.to_string(),
        id: format!("r-{JOB}-{i}"),
        tool: "price_lookup".to_string(),
        provenance_class: "LOGGED BY AGENT".to_string(),
        close: last.then_some(true),
    }
}

/// `example_entry` copies the producer's logic; fail loudly if the two ever drift apart.
fn check_streamed_matches_producer() {
    let n = 1000;
    let mut streamed = Vec::new();
    write_timeline(&mut streamed, n).expect("writing to a Vec cannot fail");
    let built = example_chain(JOB, n, Revision::R09);
    assert!(
        streamed == timeline_json(&built).into_bytes(),
        "the streamed timeline differs from the reference producer's"
    );
}

/// Re-executes this program with `job` in [`CHILD_VAR`] and returns the peak RSS it reports.
fn run_measuring_child(job: &str) -> Kib {
    let exe = env::current_exe().expect("path of the running bench");
    let output = Command::new(exe)
        .env(CHILD_VAR, job)
        .output()
        .expect("start child process");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child {job:?} failed ({}): {stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM ")?.parse().ok())
        .unwrap_or_else(|| panic!("child {job:?} printed no peak RSS: {stdout}"))
}

/// The child side: do the job, then print `VmHWM <KiB>`.
fn run_child(job: &str) {
    if job != "baseline" {
        let (kind, rest) = job
            .split_once(':')
            .unwrap_or_else(|| panic!("unknown {CHILD_VAR} job {job:?}"));
        let (entries, path) = rest
            .split_once(':')
            .unwrap_or_else(|| panic!("{CHILD_VAR} job {job:?}: expected KIND:ENTRIES:PATH"));
        let entries: usize = entries.parse().expect("entry count");
        let threads = match kind {
            "write" => {
                let out = BufWriter::new(File::create(path).expect("create timeline file"));
                write_timeline(out, entries).expect("write timeline");
                return;
            }
            "verify" => 0,
            "verify1" => 1,
            _ => panic!("unknown {CHILD_VAR} job {job:?}"),
        };
        let options = TimelineOptions {
            threads,
            ..TimelineOptions::default()
        };
        let file = BufReader::new(File::open(path).expect("open timeline"));
        let report = verify_timeline(file, &options).expect("read timeline");
        check_valid(&report, entries, path);
    }
    println!("VmHWM {}", peak_rss_kib());
}

/// Peak resident set size of this process, from Linux's `/proc/self/status`.
fn peak_rss_kib() -> Kib {
    let status =
        fs::read_to_string("/proc/self/status").expect("read /proc/self/status (Linux only)");
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix("VmHWM:")?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .expect("VmHWM in /proc/self/status")
}
