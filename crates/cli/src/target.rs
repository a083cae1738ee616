//! What a run's arguments name: the implementation (a command, an adapter's, or the reference),
//! the adapter and expected failures it runs through, the profiles it claims, and how its cases
//! are launched and spread over workers. `run`, `matrix`, `claim verify` and `smoke` share it, so
//! they agree on where a command comes from.

use crate::error::Sort as _;
use std::time::Duration;

use agentconf_harness::adapter::{Adapter, Mode};
use agentconf_harness::{Backend, Grading, Implementation, Launch, RunOptions};
use agentconf_reference::inprocess::InProcess;

use crate::args::{GradingArg, ImplementationArg, RunArgs};
use crate::commands::to_stderr;
use crate::error::Result;

/// The implementation a run's arguments name: how to start it, the adapter it runs through, and
/// what the results header says of it.
pub struct Target {
    pub implementation: Implementation,
    pub adapter: Option<Adapter>,
    pub adapter_digest: Option<String>,
    /// The SHA-256 of the `--xfail` file, whose entries are in `adapter`.
    pub xfail_digest: Option<String>,
    pub name: String,
}

/// Reads the adapter (if any) and resolves the command, name and profiles `args` describe.
/// `corpus_ids` are the case ids an adapter's skip and expected-failure lists may name.
pub fn target(args: &RunArgs, corpus_ids: &std::collections::BTreeSet<String>) -> Result<Target> {
    let (adapter, adapter_digest) = match &args.adapter {
        None => (None, None),
        Some(path) => {
            let (name, text, digest) = crate::adapter_file::read_adapter(path)?;
            let adapter = crate::adapter_file::checked_adapter(
                &name,
                &text,
                corpus_ids,
                mode(args.persistent),
            )?;
            (Some(adapter), Some(digest))
        }
    };
    let (argv, name) = match (&adapter, one_command(adapter.as_ref(), &args.command)?) {
        (Some(a), Some(argv)) => {
            check_program(&argv)?;
            let name = a.name.clone().unwrap_or_else(|| name_of(&argv));
            (argv, name)
        }
        _ => implementation(args)?,
    };
    // The reference claims the GRP capability profiles it has unless told otherwise.
    let profiles = if let Some(a) = adapter.as_ref().filter(|a| !a.profiles.is_empty()) {
        a.profiles.clone()
    } else if args.command.is_empty() && adapter.is_none() && args.profiles.is_empty() {
        agentconf_reference::profiles::claimed(argv.is_empty())
    } else {
        args.profiles
            .iter()
            .map(|p| p.as_str().to_string())
            .collect()
    };
    // `--xfail FILE`: its entries join the adapter's own list (an adapter that lists nothing
    // else when none was given).
    let (adapter, xfail_digest) = match &args.xfail {
        None => (adapter, None),
        Some(path) => {
            let (failures, digest) = crate::adapter_file::read_expected_failures(path, corpus_ids)?;
            let adapter = match adapter {
                Some(a) => a
                    .with_expected_failures(failures)
                    .map_err(|e| format!("{}: {e}", path.display()))
                    .refused()?,
                None => Adapter::expecting(failures),
            };
            (Some(adapter), Some(digest))
        }
    };
    Ok(Target {
        implementation: Implementation {
            argv,
            timeout: Duration::from_secs(args.timeout.max(1)),
            capture_limit: agentconf_harness::DEFAULT_CAPTURE_BYTES,
            profiles,
        },
        adapter,
        adapter_digest,
        xfail_digest,
        name,
    })
}

/// The one command source of `run`, `claim verify` and `smoke`: the adapter's `command`, or the
/// command after `--`, never both (they would be joined into one argv that runs neither as
/// meant). `None` when neither names one and there is no adapter (`run` then runs the
/// reference); an adapter with no command needs one after `--`.
pub fn one_command(
    adapter: Option<&Adapter>,
    after_dashes: &[String],
) -> Result<Option<Vec<String>>> {
    match adapter {
        Some(a) if !after_dashes.is_empty() && !a.command.is_empty() => Err(format!(
            "--adapter names a command ({}) and another was given after -- ({}): give one",
            a.command.join(" "),
            after_dashes.join(" ")
        ))
        .usage(),
        // The adapter's command runs every operation, GRP receivers and a persistent server
        // included; its templates only say what follows it.
        Some(a) if !a.command.is_empty() => Ok(Some(a.command.clone())),
        Some(a) if after_dashes.is_empty() => Err(format!(
            "the adapter{} names no command, and none was given after --: nothing to run",
            a.name
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ))
        .usage(),
        _ if after_dashes.is_empty() => Ok(None),
        _ => Ok(Some(after_dashes.to_vec())),
    }
}

/// How an adapter's templates are checked: for a persistent run or a process per case.
pub fn mode(persistent: bool) -> Mode {
    if persistent {
        Mode::Persistent
    } else {
        Mode::OneShot
    }
}

/// The grading a run's arguments ask for.
pub fn grading_of(arg: GradingArg) -> Grading {
    match arg {
        GradingArg::Loose => Grading::Loose,
        GradingArg::Strict => Grading::Strict,
    }
}

/// A name for a command: the file name of its last argument that names an existing file (the
/// script, not the interpreter running it), else its program.
fn name_of(argv: &[String]) -> String {
    argv.iter()
        .rev()
        .find(|a| std::path::Path::new(a).is_file())
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| argv.first().cloned())
        .unwrap_or_default()
}

/// The command to run and the name to report.
pub fn implementation(args: &RunArgs) -> Result<(Vec<String>, String)> {
    if !args.command.is_empty() {
        check_program(&args.command)?;
        return Ok((args.command.clone(), name_of(&args.command)));
    }
    if args.implementation == ImplementationArg::Reference && !args.persistent {
        // In process: no command at all.
        return Ok((Vec::new(), "reference (in process)".into()));
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate agentconf itself: {e}"))
        .unrunnable()?;
    Ok((
        vec![exe.display().to_string(), "impl".into()],
        "reference".into(),
    ))
}

/// Refuses a command whose program is a path to something other than a regular file (a FIFO, a
/// directory, a socket, a device), before anything opens it: hashing it for the results header
/// would wait forever on a FIFO's open, and none of them can be run. Looked at on an open that
/// cannot block (`O_NONBLOCK`). A program that is missing or unreadable is left to the run, which
/// says it cannot start it; a bare name is looked up in `PATH`, where only regular files count.
pub(crate) fn check_program(argv: &[String]) -> Result<()> {
    let Some(program) = argv.first().filter(|p| p.contains('/')) else {
        return Ok(());
    };
    match agentconf_json::file::open_regular(std::path::Path::new(program)) {
        Err(agentconf_json::file::OpenError::NotARegularFile(kind)) => Err(format!(
            "cannot run {program}: it is {kind}, not a regular file"
        ))
        .unrunnable(),
        _ => Ok(()),
    }
}

/// The reference in this process, one per worker.
fn in_process<'a>(grading: Grading) -> Box<dyn Backend + 'a> {
    Box::new(InProcess { grading })
}

/// What runs the cases, as a run's arguments say: a persistent server, the reference in process
/// (no command, no adapter), or the command once per case.
pub fn launch<'a>(
    imp: &'a Implementation,
    adapter: Option<&'a Adapter>,
    args: &RunArgs,
) -> Launch<'a> {
    if args.persistent {
        Launch::Persistent {
            implementation: imp,
            adapter,
            validate_protocol: args.validate_protocol,
        }
    } else if imp.argv.is_empty() {
        // The reference in process (an adapter names a command, so this one only lists
        // expected failures: `--xfail FILE`).
        Launch::InProcess(&in_process, adapter)
    } else {
        Launch::Command {
            implementation: imp,
            adapter,
        }
    }
}

/// How a run's arguments ask for the cases to be run.
pub fn options(args: &RunArgs, keep_outputs: bool) -> RunOptions {
    RunOptions {
        jobs: jobs(args.jobs),
        max_fail: if args.fail_fast {
            Some(1)
        } else {
            args.max_fail.map(|n| n.get())
        },
        keep_going: args.keep_going,
        keep_outputs,
    }
}

/// The workers `--jobs` asks for (the number of cores without it), at most
/// [`agentconf_harness::MAX_JOBS`]: asking for more says so (once per process: a matrix runs
/// several), and the run goes on with that many. The harness also starts no more workers than
/// there are cases.
fn jobs(asked: Option<std::num::NonZeroUsize>) -> usize {
    let Some(asked) = asked else {
        return std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(agentconf_harness::MAX_JOBS);
    };
    static SAID: std::sync::Once = std::sync::Once::new();
    if asked.get() > agentconf_harness::MAX_JOBS {
        SAID.call_once(|| {
            to_stderr(&format!(
                "agentconf: --jobs {asked}: a run starts at most {} workers (and no more than \
                 it has cases)\n",
                agentconf_harness::MAX_JOBS
            ))
        });
    }
    asked.get().min(agentconf_harness::MAX_JOBS)
}
