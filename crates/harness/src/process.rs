//! Running one implementation process: contained so that nothing it starts outlives it (a PID
//! namespace of its own where the system allows it, else its own process group: [`spawn`]),
//! standard input fed from memory, standard output and error captured up to a bound (the rest is
//! counted and discarded, so 100 MB of output cannot exhaust memory), and one deadline that holds
//! whatever the process and its descendants do. Also the low-level pieces that `child` shares:
//! noticing an exit without reaping, the kill.

mod spawn;

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::thread;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::process::WaitIdOptions;

#[cfg(test)]
pub(crate) use spawn::tests as spawn_tests;
pub use spawn::{containment, Containment, CONTAINMENT_VAR};
pub(crate) use spawn::{spawn, spawn_by, Spawned, Starter};

/// Bytes of each of an implementation's stdout and stderr kept per vector by `agentconf run`
/// (a result object is a few hundred bytes; the rest is counted and dropped).
pub const DEFAULT_CAPTURE_BYTES: usize = 64 * 1024;

/// Seconds an implementation gets per vector by default before its process group is killed.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// How to run one process.
#[derive(Clone, Debug)]
pub(crate) struct RunSpec {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Bytes written to standard input (then it is closed).
    pub stdin: Vec<u8>,
    pub timeout: Duration,
    /// At most this many bytes of each of stdout and stderr are kept.
    pub capture_limit: usize,
}

/// A captured stream: the first `capture_limit` bytes and the total length seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Captured {
    pub bytes: Vec<u8>,
    pub total: u64,
}

impl Captured {
    pub(crate) fn truncated(&self) -> bool {
        self.total > self.bytes.len() as u64
    }
}

/// How a process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by us).
    Signaled(i32),
    /// Ran past the timeout; its process group was killed.
    TimedOut,
}

impl Ending {
    /// The exit code, when it exited normally.
    pub(crate) fn code(&self) -> Option<i32> {
        match self {
            Ending::Exited(c) => Some(*c),
            _ => None,
        }
    }
}

/// Processes an implementation left behind when it exited in time. Its verdict stands either way
/// (it is the main process's exit that the contract grades); the result's detail says what the
/// harness found, because the contract asks that nothing outlive the implementation. In a PID
/// namespace nothing can escape: what it left is killed with the namespace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Strays {
    /// Nothing held its output when it exited. Anything else it left running was killed with its
    /// namespace or process group, unremarked.
    #[default]
    None,
    /// Descendants still held its standard output or error when it exited; they were killed with
    /// its namespace or process group, and reading stopped when the pipes closed.
    Killed,
    /// Something outside its process group (started with `setsid`, or daemonised) still held its
    /// output at the deadline: only without a PID namespace, where a group kill cannot reach it;
    /// the harness stopped reading and left it running.
    Escaped,
}

impl Strays {
    /// A clause for a result's detail, when there is something to say.
    pub(crate) fn note(self) -> Option<&'static str> {
        match self {
            Strays::None => None,
            Strays::Killed => Some(
                "it exited while descendants held its output: descendants still running were \
                 killed (with its PID namespace, or its process group)",
            ),
            Strays::Escaped => Some(
                "it exited while processes outside its process group (setsid, a daemon) held its \
                 output: they were not killed, and their output was no longer read after the \
                 deadline",
            ),
        }
    }
}

/// What one run produced.
#[derive(Clone, Debug)]
pub(crate) struct RunOutput {
    pub ending: Ending,
    pub stdout: Captured,
    pub stderr: Captured,
    /// What it left behind when it exited (always [`Strays::None`] on a timeout, where the whole
    /// group is killed anyway).
    pub strays: Strays,
}

/// Runs `spec` under one deadline (`spec.timeout` from the start) that holds whatever the
/// process does: past it, everything it runs as is killed if the main process still runs, and the
/// pipes are no longer read even when something that escaped still holds them. When the main
/// process exits in time its exit is the outcome, and what it left is killed then (in a PID
/// namespace by the kernel; otherwise its process group, before it is reaped, so the group id
/// cannot have been reused). `Err` only when the process cannot be started (the command is
/// wrong), which the caller reports as a broken wrapper, not as a property of a vector.
pub fn run(spec: &RunSpec) -> io::Result<RunOutput> {
    let started = Instant::now();
    let deadline = started + spec.timeout;
    // Reaped before this returns (a process that ignores its kill is reaped by a thread of its
    // own, after the kill): the calling thread outlives it, and may start it.
    let mut child = spawn_by(&spec.argv, Starter::Caller)?;
    // Most runs have no input: close stdin at once. Otherwise it is written without blocking, so
    // an implementation that never reads it cannot stall the harness past the deadline (a pipe
    // that cannot be made non-blocking, which does not happen, is closed rather than risked).
    let mut stdin = child
        .stdin
        .take()
        .filter(|s| !spec.stdin.is_empty() && set_nonblocking(s).is_ok());
    let mut written = 0;
    let mut out = Stream::new(child.stdout.take(), spec.capture_limit);
    let mut err = Stream::new(child.stderr.take(), spec.capture_limit);
    let mut exit_watch = child.take_exit_watch();
    let mut status = None;
    let mut held = false;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if status.is_some() && out.pipe.is_none() && err.pipe.is_none() {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        // Which descriptors to wait on: 0 stdout, 1 stderr, 2 stdin, 3 the exit watch.
        let mut fds = Vec::with_capacity(4);
        let mut which = Vec::with_capacity(4);
        if let Some(p) = &out.pipe {
            fds.push(PollFd::new(p, PollFlags::IN));
            which.push(0);
        }
        if let Some(p) = &err.pipe {
            fds.push(PollFd::new(p, PollFlags::IN));
            which.push(1);
        }
        if let Some(s) = &stdin {
            fds.push(PollFd::new(s, PollFlags::OUT));
            which.push(2);
        }
        if let Some(w) = &exit_watch {
            fds.push(PollFd::new(w, PollFlags::IN));
            which.push(3);
        }
        if let Err(e) = rustix::event::poll(&mut fds, Some(&timeout_until(deadline, now))) {
            // EINTR; anything else (ENOMEM) is retried too, and the deadline still bounds it.
            if e != rustix::io::Errno::INTR {
                thread::sleep(Duration::from_millis(10));
            }
            continue;
        }
        // What woke, before the streams are read (the pollfds borrow them).
        let woke: Vec<usize> = fds
            .iter()
            .zip(which)
            .filter(|(fd, _)| !fd.revents().is_empty())
            .map(|(_, which)| which)
            .collect();
        drop(fds);
        for which in woke {
            match which {
                0 => out.read_some(&mut buf),
                1 => err.read_some(&mut buf),
                2 => {
                    if let Some(s) = stdin.as_mut() {
                        match s.write(&spec.stdin[written..]) {
                            Ok(n) => written += n,
                            Err(e)
                                if matches!(
                                    e.kind(),
                                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                                ) => {}
                            // It exited or closed its input without reading it all: not our
                            // failure.
                            Err(_) => written = spec.stdin.len(),
                        }
                    }
                    if written >= spec.stdin.len() {
                        stdin = None;
                    }
                }
                _ => {
                    // The main process exited (it is a zombie until reaped). Whatever still holds
                    // its output is a descendant — or an escapee, if it outlives the group kill.
                    held = child.left_descendants(|| out.held() || err.held());
                    child.kill();
                    status = child.reap().ok();
                    exit_watch = None;
                    stdin = None;
                }
            }
        }
    }
    let (ending, strays) = match status {
        Some(s) => {
            let strays = if out.pipe.is_some() || err.pipe.is_some() {
                Strays::Escaped
            } else if held {
                Strays::Killed
            } else {
                Strays::None
            };
            (ending_of(s), strays)
        }
        None => {
            child.kill();
            // It dies of SIGKILL at once unless it is stuck in the kernel; then a thread reaps it
            // whenever it goes, and the run does not wait.
            let died = exit_watch
                .as_ref()
                .is_some_and(|w| wait_readable(w, Duration::from_secs(5)));
            if died {
                let _ = child.reap();
            } else {
                let _ = thread::Builder::new().spawn(move || {
                    let _ = child.reap();
                });
            }
            (Ending::TimedOut, Strays::None)
        }
    };
    Ok(RunOutput {
        ending,
        stdout: out.captured,
        stderr: err.captured,
        strays,
    })
}

/// One output pipe being captured: the first `limit` bytes kept, the rest counted.
struct Stream<R> {
    /// `None` once it reached its end (or failed).
    pipe: Option<R>,
    captured: Captured,
    limit: usize,
}

impl<R: Read + AsFd> Stream<R> {
    fn new(pipe: Option<R>, limit: usize) -> Self {
        Stream {
            pipe,
            captured: Captured::default(),
            limit,
        }
    }

    /// One read (the descriptor was reported ready, so it does not block).
    fn read_some(&mut self, buf: &mut [u8]) {
        let Some(pipe) = self.pipe.as_mut() else {
            return;
        };
        match pipe.read(buf) {
            Ok(0) => self.pipe = None,
            Ok(n) => {
                self.captured.total += n as u64;
                let room = self.limit.saturating_sub(self.captured.bytes.len());
                self.captured.bytes.extend_from_slice(&buf[..n.min(room)]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.pipe = None,
        }
    }

    /// Whether another process still holds the pipe's write end.
    fn held(&self) -> bool {
        self.pipe.as_ref().is_some_and(|p| !hung_up(p))
    }
}

fn ending_of(s: ExitStatus) -> Ending {
    match (s.code(), s.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(sig)) => Ending::Signaled(sig),
        _ => Ending::Signaled(0),
    }
}

/// Whether our child `pid` has exited, asked without reaping it (`WNOWAIT`): it stays a zombie,
/// holding its pid and group id, until the caller has killed its group and reaps it.
pub(crate) fn exited_unreaped(pid: u32) -> io::Result<bool> {
    // With WNOHANG and nothing to report the structure stays zeroed (Linux writes a zero
    // si_signo); a child that exited is reported with SIGCHLD.
    waitid_unreaped(pid, WaitIdOptions::NOHANG).map(|exited| exited.is_some())
}

/// waitid(2) on our child `pid` for its exit, without reaping it (`WNOWAIT`), retried when a
/// signal interrupts it; `flags` adds `WNOHANG` to ask without waiting.
/// `Ok(None)`: with `WNOHANG`, it has not exited yet.
pub(crate) fn waitid_unreaped(
    pid: u32,
    flags: WaitIdOptions,
) -> io::Result<Option<rustix::process::WaitIdStatus>> {
    // An id that names no single process is no child of ours (waitid would say ECHILD).
    let Some(pid) = crate::kill::pid(pid) else {
        return Err(io::Error::from_raw_os_error(libc::ECHILD));
    };
    loop {
        match rustix::process::waitid(
            rustix::process::WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | flags,
        ) {
            Err(rustix::io::Errno::INTR) => {}
            r => return r.map_err(io::Error::from),
        }
    }
}

/// Whether a live process other than `pid` is in the process group `pid` leads (Linux: read from
/// /proc); `None` where that cannot be read.
pub(crate) fn others_in_group(pid: u32) -> Option<bool> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let group = pid.to_string();
    let mut any = false;
    let mut seen = false;
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(other) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if other == group {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; the command may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        seen = true;
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1);
        if pgrp == Some(group.as_str()) && !matches!(state, Some("Z" | "X")) {
            any = true;
            break;
        }
    }
    // No process at all could be read (not Linux's /proc): nothing can be told.
    (any || seen).then_some(any)
}

/// Whether no process holds the write end of the pipe `fd` reads any more.
pub(crate) fn hung_up(fd: impl AsFd) -> bool {
    let mut p = [PollFd::new(&fd, PollFlags::IN)];
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    rustix::event::poll(&mut p, Some(&zero)).is_ok_and(|n| n > 0)
        && p[0]
            .revents()
            .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
}

/// Waits up to `timeout` for `fd` to become readable (or reach its end).
pub(crate) fn wait_readable(fd: impl AsFd, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let now = Instant::now();
        let mut p = [PollFd::new(&fd, PollFlags::IN)];
        let r = rustix::event::poll(&mut p, Some(&timeout_until(deadline, now)));
        if r.is_ok_and(|n| n > 0) {
            return true;
        }
        if r != Err(rustix::io::Errno::INTR) && Instant::now() >= deadline {
            return false;
        }
    }
}

/// Puts `fd` (a pipe end we own) in non-blocking mode.
pub(crate) fn set_nonblocking(fd: impl std::os::fd::AsFd) -> io::Result<()> {
    let fd = fd.as_fd();
    let flags = rustix::fs::fcntl_getfl(fd)?;
    rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)?;
    Ok(())
}

/// poll's timeout from `now` to `deadline`: [`millis_until`]'s milliseconds, rounded up and
/// bounded as there (where the system has no ppoll, rustix passes milliseconds to poll).
pub(crate) fn timeout_until(deadline: Instant, now: Instant) -> Timespec {
    let ms = i64::from(millis_until(deadline, now));
    Timespec {
        tv_sec: ms / 1000,
        tv_nsec: ((ms % 1000) * 1_000_000) as _,
    }
}

/// The milliseconds from `now` to `deadline` for poll(2), rounded up so that a wait never ends
/// just short of the deadline.
pub(crate) fn millis_until(deadline: Instant, now: Instant) -> libc::c_int {
    let ms = deadline
        .saturating_duration_since(now)
        .as_nanos()
        .div_ceil(1_000_000);
    ms.min(libc::c_int::MAX as u128) as libc::c_int
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn sh(script: &str, timeout_ms: u64) -> RunOutput {
        run(&RunSpec {
            argv: vec!["sh".into(), "-c".into(), script.into()],
            stdin: b"hello\n".to_vec(),
            timeout: Duration::from_millis(timeout_ms),
            capture_limit: 1024,
        })
        .unwrap()
    }

    #[test]
    fn exit_codes_signals_and_output() {
        let r = sh("cat; echo err >&2; exit 3", 5000);
        assert_eq!(r.ending, Ending::Exited(3));
        assert_eq!(r.stdout.bytes, b"hello\n");
        assert_eq!(r.stderr.bytes, b"err\n");
        assert_eq!(
            sh("kill -SEGV $$", 5000).ending,
            Ending::Signaled(libc::SIGSEGV)
        );
    }

    #[test]
    fn timeouts_kill_the_whole_group() {
        // The child starts a grandchild that would keep the pipes open for a minute.
        let started = Instant::now();
        let r = sh("sleep 60 & sleep 60", 300);
        assert_eq!(r.ending, Ending::TimedOut);
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the group was not killed"
        );
    }

    /// The pids of running processes whose command line is exactly `sleep MARKER` (a zombie
    /// has an empty command line and does not count).
    pub(crate) fn sleepers(marker: &str) -> Vec<i32> {
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

    /// Whether every `sleep MARKER` is gone within `bound` (a killed process takes a moment to
    /// leave the process table; the bound is generous, not a timing assertion).
    pub(crate) fn gone_within(marker: &str, bound: Duration) -> bool {
        let until = Instant::now() + bound;
        while !sleepers(marker).is_empty() {
            if Instant::now() >= until {
                return false;
            }
            thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// A shell command that starts `sleep MARKER` in the background after `setup` (a prefix such
    /// as `setsid` or redirections), and waits until the sleeper's shell has run `setup`: the
    /// main process must not exit (and have its group killed) before the escape or the
    /// redirection happened. The flag file lives in the temporary directory.
    pub(crate) fn background(setup: &str, marker: &str, redirect: &str) -> String {
        let flag =
            std::env::temp_dir().join(format!("agentconf-flag-{}-{marker}", std::process::id()));
        let flag = flag.display();
        format!(
            "rm -f '{flag}'; {setup} sh -c ': > \"$0\"; exec sleep {marker}' '{flag}' {redirect} & \
             while [ ! -e '{flag}' ]; do sleep 0.01; done; rm -f '{flag}'"
        )
    }

    /// A shell command that starts `sleep MARKER` as a daemon does (a double fork: its parent
    /// exits at once; a new session; its output let go), and waits until it runs.
    pub(crate) fn daemon(marker: &str) -> String {
        let flag =
            std::env::temp_dir().join(format!("agentconf-flag-{}-{marker}", std::process::id()));
        let flag = flag.display();
        format!(
            "rm -f '{flag}'; (setsid sh -c ': > \"$0\"; exec sleep {marker}' '{flag}' \
             </dev/null >/dev/null 2>&1 &); \
             while [ ! -e '{flag}' ]; do sleep 0.01; done; rm -f '{flag}'"
        )
    }

    /// Kills every `sleep MARKER` (a test's clean-up of what escaped the group).
    pub(crate) fn kill_sleepers(marker: &str) {
        for pid in sleepers(marker) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid.max(0)) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }

    #[test]
    fn a_descendant_holding_the_output_does_not_outlast_the_exit() {
        // Before the deadline held past the main's exit, this took the sleeper's full minute and
        // passed as a clean exit.
        let started = Instant::now();
        let r = sh("sleep 61.01 & echo done; exit 0", 2000);
        assert_eq!(r.ending, Ending::Exited(0));
        assert_eq!(r.stdout.bytes, b"done\n");
        assert_eq!(r.strays, Strays::Killed);
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "took {:?}",
            started.elapsed()
        );
        assert!(gone_within("61.01", Duration::from_secs(10)));
    }

    #[test]
    fn a_descendant_that_let_go_of_the_output_is_killed_quietly() {
        let script = background("", "61.02", "</dev/null >/dev/null 2>&1");
        let r = sh(&format!("{script}; exit 0"), 20000);
        assert_eq!(r.ending, Ending::Exited(0));
        assert_eq!(r.strays, Strays::None);
        assert!(gone_within("61.02", Duration::from_secs(10)));
    }

    #[test]
    fn an_escaped_process_is_no_longer_read_after_the_deadline() {
        // Without a PID namespace, setsid puts the sleeper outside the group: it cannot be killed
        // by group, and holds stdin (never read: 4 MB of input), stdout and stderr. The run
        // still ends at the deadline with the main process's exit.
        let started = Instant::now();
        let r = spawn::tests::forcing(Containment::ProcessGroup, || {
            run(&RunSpec {
                argv: vec![
                    "sh".into(),
                    "-c".into(),
                    format!("{}; echo done; exit 0", background("setsid", "61.03", "")),
                ],
                stdin: vec![b'x'; 4 << 20],
                timeout: Duration::from_secs(2),
                capture_limit: 1024,
            })
        })
        .unwrap();
        let elapsed = started.elapsed();
        let escaped = sleepers("61.03");
        kill_sleepers("61.03");
        assert_eq!(r.ending, Ending::Exited(0));
        assert_eq!(r.stdout.bytes, b"done\n");
        assert_eq!(r.strays, Strays::Escaped);
        assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
        assert!(!escaped.is_empty(), "the setsid sleeper was not running");
    }

    /// Whether the implementations of this test process run in a PID namespace; if not, says
    /// that `test` is skipped and why.
    pub(crate) fn namespaces_or_skip(test: &str) -> bool {
        let c = containment();
        if !c.is_namespace() {
            eprintln!(
                "skipped: {test}: implementations run with containment {} here (this system \
                 refuses PID namespaces, or {CONTAINMENT_VAR} asks for process groups)",
                c.as_str()
            );
        }
        c.is_namespace()
    }

    #[test]
    fn in_a_namespace_nothing_it_starts_outlives_it() {
        if !namespaces_or_skip("in_a_namespace_nothing_it_starts_outlives_it") {
            return;
        }
        // A setsid sleeper holding its output, and a daemon (double fork, new session, output
        // let go): both escape a process group, and both are gone by the time the run returns,
        // killed with the namespace before the harness saw the exit.
        let script = format!(
            "{}; {}; echo done; exit 0",
            background("setsid", "61.07", ""),
            daemon("61.06")
        );
        let r = sh(&script, 20000);
        let left = [sleepers("61.06"), sleepers("61.07")].concat();
        kill_sleepers("61.06");
        kill_sleepers("61.07");
        assert_eq!(r.ending, Ending::Exited(0));
        assert_eq!(r.stdout.bytes, b"done\n");
        assert_eq!(r.strays, Strays::Killed);
        assert!(left.is_empty(), "still running after the run: {left:?}");
    }

    #[test]
    fn a_hang_with_helpers_is_a_timeout_and_nothing_survives() {
        let started = Instant::now();
        let r = sh("sleep 61.04 & sleep 61.05", 1000);
        assert_eq!(r.ending, Ending::TimedOut);
        assert_eq!(r.strays, Strays::None);
        assert!(started.elapsed() < Duration::from_secs(15));
        assert!(gone_within("61.04", Duration::from_secs(10)));
        assert!(gone_within("61.05", Duration::from_secs(10)));
    }

    #[test]
    fn output_is_bounded() {
        let r = sh("head -c 5000000 /dev/zero", 20000);
        assert_eq!(r.ending, Ending::Exited(0));
        assert_eq!(r.stdout.bytes.len(), 1024);
        assert_eq!(r.stdout.total, 5_000_000);
        assert!(r.stdout.truncated());
    }

    #[test]
    fn a_missing_program_is_an_error_not_an_outcome() {
        assert!(run(&RunSpec {
            argv: vec!["/nonexistent/agentconf-impl".into()],
            stdin: vec![],
            timeout: Duration::from_secs(1),
            capture_limit: 10,
        })
        .is_err());
    }
}
