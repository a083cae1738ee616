//! `agentconf run`: the main job. Runs an implementation (the reference by default) against the
//! embedded corpus through the contract, writes the results file and prints the summary.
//! Exit 0 when nothing unexpected happened, 1 otherwise, 2 for usage errors.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentconf_corpus::model::Case;
use agentconf_harness::adapter::Adapter;
use agentconf_harness::persistent::{PersistentConfig, PersistentSession};
use agentconf_harness::results::{
    self, footer, is_unexpected, Header, ImplementationInfo, Line, ResultLine, ResultsFile, FORMAT,
};
use agentconf_harness::runner::{run_case_with, Grading, Implementation, Status};

use super::{emit, to_stderr, Outcome};
use crate::args::RunArgs;

pub fn run(args: &RunArgs) -> Result<Outcome, String> {
    let corpus = agentconf_corpus::corpus();
    // Skip and expected-failure lists name cases: a vector's id names its first case,
    // `<id>@<revision>` its others.
    let corpus_ids: std::collections::BTreeSet<String> = corpus
        .iter()
        .flat_map(|v| v.cases().into_iter().map(|c| c.id))
        .collect();
    let (adapter, adapter_digest) = match &args.adapter {
        None => (None, None),
        Some(path) => {
            let input = crate::input::open(path)?;
            let bytes = agentconf_json::read_limited(
                input.reader,
                agentconf_harness::adapter::MAX_ADAPTER_BYTES,
            )
            .map_err(|e| crate::input::read_error(&input.name, &e))?
            .map_err(|e| format!("{}: {e}", input.name))?;
            let text = String::from_utf8(bytes.clone())
                .map_err(|_| format!("{}: not UTF-8", input.name))?;
            let adapter =
                Adapter::parse(&text, &corpus_ids).map_err(|e| format!("{}: {e}", input.name))?;
            let digest = agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(&bytes));
            (Some(adapter), Some(digest))
        }
    };
    let (argv, name) = match &adapter {
        Some(a) if args.command.is_empty() && !a.command.is_empty() => {
            // The adapter's templates carry the arguments; the prefix is empty.
            (
                Vec::new(),
                a.name.clone().unwrap_or_else(|| a.command[0].clone()),
            )
        }
        _ => implementation(args)?,
    };
    let grading = match args.grading.as_str() {
        "loose" | "verdict-only" => Grading::Loose,
        _ => Grading::Strict,
    };
    let manifest = agentconf_corpus::writer::manifest(&corpus);
    // Prefixes select cases; a vector id is a prefix of all its cases' ids.
    let selected: Vec<Case<'_>> = corpus
        .iter()
        .flat_map(|v| v.cases())
        .filter(|c| {
            args.include.is_empty() || args.include.iter().any(|p| c.id.starts_with(p.as_str()))
        })
        .filter(|c| !args.exclude.iter().any(|p| c.id.starts_with(p.as_str())))
        .collect();
    if selected.is_empty() {
        return Err("no vector matches the --include/--exclude prefixes".into());
    }
    let selected_vectors = {
        let mut ids: Vec<&str> = selected.iter().map(|c| c.vector.id.as_str()).collect();
        ids.dedup();
        ids.len()
    };
    // The reference claims both GRP capability profiles unless told otherwise.
    let profiles = if let Some(a) = adapter.as_ref().filter(|a| !a.profiles.is_empty()) {
        a.profiles.clone()
    } else if args.command.is_empty() && adapter.is_none() && args.profiles.is_empty() {
        vec!["durable".to_string(), "atomic".to_string()]
    } else {
        args.profiles.clone()
    };
    let imp = Implementation {
        argv: argv.clone(),
        timeout: Duration::from_secs(args.timeout.max(1)),
        capture_limit: agentconf_harness::process::DEFAULT_CAPTURE_BYTES,
        profiles: profiles.clone(),
    };
    let header = Header {
        format: FORMAT.into(),
        suite_version: env!("CARGO_PKG_VERSION").into(),
        corpus_digest: manifest.corpus_digest.clone(),
        vector_count: selected_vectors,
        case_count: Some(selected.len()),
        implementation: ImplementationInfo {
            name,
            argv: if argv.is_empty() {
                adapter
                    .as_ref()
                    .map(|a| a.command.clone())
                    .unwrap_or_default()
            } else {
                argv.clone()
            },
            // In process, the implementation is this very executable.
            executable_sha256: match argv
                .first()
                .or(adapter.as_ref().and_then(|a| a.command.first()))
            {
                Some(program) => executable_sha256(program),
                None => std::env::current_exe()
                    .ok()
                    .and_then(|p| executable_sha256(&p.display().to_string())),
            },
        },
        adapter_digest,
        grading,
        profiles,
        started_at: results::now_rfc3339(),
    };
    let started = Instant::now();
    let lines = run_all(&imp, adapter.as_ref(), &selected, grading, args)?;
    let footer = footer(&lines, started.elapsed().as_millis() as u64);
    let file = ResultsFile {
        header,
        results: lines,
        footer: Some(footer),
    };
    write_results(&args.out, &file)?;
    if let Some(path) = &args.emit_xfail {
        let failing: Vec<(String, String)> = file
            .results
            .iter()
            .filter(|r| is_unexpected(r.status) && r.status != Status::Xpass)
            .map(|r| (r.id.clone(), results::status_name(r.status).to_string()))
            .collect();
        write_atomically(
            path,
            agentconf_harness::adapter::xfail_toml(&failing).as_bytes(),
        )?;
    }
    if let Some(html) = &args.html {
        write_atomically(html, agentconf_harness::report::html(&file).as_bytes())?;
    }
    let unexpected = file.footer.as_ref().map_or(0, |f| f.unexpected);
    let mut summary = agentconf_harness::report::text(&file);
    if file.results.iter().all(|r| {
        matches!(
            r.status,
            Status::Crash | Status::ProtocolError | Status::Timeout
        )
    }) {
        summary.push_str(
            "\nEvery vector crashed, timed out or broke the protocol: the implementation's wrapper is \
             probably broken (check the command, the argument order and the exit codes in \
             crates/harness/CONTRACT.md), not the implementation.\n",
        );
    }
    summary.push_str(&format!("\nresults: {}\n", args.out.display()));
    emit(&summary)?;
    Ok(if unexpected == 0 {
        Outcome::Valid
    } else {
        Outcome::Invalid
    })
}

/// The command to run and the name to report.
fn implementation(args: &RunArgs) -> Result<(Vec<String>, String), String> {
    if !args.command.is_empty() {
        return Ok((args.command.clone(), args.command[0].clone()));
    }
    if args.implementation == "reference" && !args.persistent {
        // In process: no command at all.
        return Ok((Vec::new(), "reference (in process)".into()));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot locate agentconf itself: {e}"))?;
    Ok((
        vec![exe.display().to_string(), "impl".into()],
        "reference".into(),
    ))
}

/// Runs the cases on `--jobs` workers; results come back in corpus order.
fn run_all(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    vectors: &[Case<'_>],
    grading: Grading,
    args: &RunArgs,
) -> Result<Vec<ResultLine>, String> {
    let work = work_root().join(format!("agentconf-run-{}", std::process::id()));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    let max_fail = if args.fail_fast {
        Some(1)
    } else {
        args.max_fail
    };
    let next = AtomicUsize::new(0);
    let failures = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<ResultLine>>> = Mutex::new(vec![None; vectors.len()]);
    // Drawn only when standard error is a terminal (indicatif hides it otherwise), so logs and
    // CI output stay clean.
    let progress = indicatif::ProgressBar::new(vectors.len() as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} vectors {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    if args.persistent && adapter.is_some() {
        return Err("--persistent cannot be combined with --adapter yet".into());
    }
    let restarts = AtomicUsize::new(0);
    let start_error: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                // One long-lived implementation process per worker in persistent mode.
                let mut session = if args.persistent {
                    let mut config = PersistentConfig::new(imp.clone());
                    config.validate_protocol = args.validate_protocol;
                    match PersistentSession::start(config) {
                        Ok(s) => Some(s),
                        Err(e) => {
                            if let Ok(mut slot) = start_error.lock() {
                                *slot = Some(e);
                            }
                            stop.store(true, Ordering::Relaxed);
                            return;
                        }
                    }
                } else {
                    None
                };
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(v) = vectors.get(i) else { break };
                    let r = match session.as_mut() {
                        Some(s) => s.run(v, &work, grading),
                        // The reference in process: no command, no adapter.
                        None if imp.argv.is_empty() && adapter.is_none() => {
                            agentconf_harness::inprocess::run_reference(v, &work, grading)
                        }
                        None => run_case_with(imp, adapter, v, &work, grading),
                    };
                    progress.inc(1);
                    if is_unexpected(r.status) {
                        let n = failures.fetch_add(1, Ordering::Relaxed) + 1;
                        progress.set_message(format!("({n} unexpected)"));
                        if max_fail.is_some_and(|m| n >= m) {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    if let Ok(mut slots) = slots.lock() {
                        slots[i] = Some(ResultLine::new(v, r));
                    }
                }
                if let Some(session) = session {
                    restarts.fetch_add(session.restarts(), Ordering::Relaxed);
                    let _ = session.stop();
                }
            });
        }
    });
    if let Ok(Some(e)) = start_error.into_inner() {
        return Err(format!("the persistent implementation did not start: {e}"));
    }
    let restarts = restarts.into_inner();
    if restarts > 0 {
        to_stderr(&format!("agentconf: the persistent implementation was restarted {restarts} times after crashes\n"));
    }
    progress.finish_and_clear();
    let _ = std::fs::remove_dir_all(&work);
    if stop.load(Ordering::Relaxed) {
        to_stderr("agentconf: stopped early (--fail-fast / --max-fail); the results file lists the vectors that ran\n");
    }
    let slots = slots
        .into_inner()
        .map_err(|_| "a worker panicked".to_string())?;
    Ok(slots.into_iter().flatten().collect())
}

fn write_results(path: &Path, file: &ResultsFile) -> Result<(), String> {
    let mut text = String::new();
    let mut push = |line: &Line| -> Result<(), String> {
        text.push_str(&serde_json::to_string(line).map_err(|e| e.to_string())?);
        text.push('\n');
        Ok(())
    };
    push(&Line::Header(file.header.clone()))?;
    for r in &file.results {
        push(&Line::Result(r.clone()))?;
    }
    if let Some(f) = &file.footer {
        push(&Line::Footer(f.clone()))?;
    }
    write_atomically(path, text.as_bytes())
}

/// Writes through a temporary file and a rename, so a reader never sees half a report.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp: PathBuf = {
        let mut name = path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(".tmp");
        path.with_file_name(name)
    };
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// SHA-256 of the program file, resolved through PATH when it has no slash.
fn executable_sha256(program: &str) -> Option<String> {
    let path = if program.contains('/') {
        PathBuf::from(program)
    } else {
        std::env::var_os("PATH")?
            .to_string_lossy()
            .split(':')
            .map(|d| Path::new(d).join(program))
            .find(|p| p.is_file())?
    };
    let bytes = std::fs::read(path).ok()?;
    Some(agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(
        &bytes,
    )))
}

/// Where per-vector input directories go: a memory-backed directory when there is one (writing
/// and removing inputs on a disk costs more than the implementation's own spawn), else the
/// system's temporary directory.
fn work_root() -> PathBuf {
    let candidates = [
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        Some(PathBuf::from("/dev/shm")),
    ];
    for dir in candidates.into_iter().flatten() {
        let probe = dir.join(format!(".agentconf-probe-{}", std::process::id()));
        if std::fs::create_dir(&probe).is_ok() {
            let _ = std::fs::remove_dir(&probe);
            return dir;
        }
    }
    std::env::temp_dir()
}
