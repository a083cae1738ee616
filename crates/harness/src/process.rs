//! Running one implementation process: its own process group (so a timeout kills everything it
//! started), standard input fed from memory, standard output and error captured up to a bound
//! (the rest is counted and discarded, so 100 MB of output cannot exhaust memory), and a timeout.

use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Bytes of each of an implementation's stdout and stderr kept per vector by `agentconf run`
/// (a result object is a few hundred bytes; the rest is counted and dropped).
pub const DEFAULT_CAPTURE_BYTES: usize = 64 * 1024;

/// Seconds an implementation gets per vector by default before its process group is killed.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// How to run one process.
#[derive(Clone, Debug)]
pub struct RunSpec {
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
pub struct Captured {
    pub bytes: Vec<u8>,
    pub total: u64,
}

impl Captured {
    pub fn truncated(&self) -> bool {
        self.total > self.bytes.len() as u64
    }
}

/// How a process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by us).
    Signaled(i32),
    /// Ran past the timeout; its process group was killed.
    TimedOut,
}

impl Ending {
    /// The exit code, when it exited normally.
    pub fn code(&self) -> Option<i32> {
        match self {
            Ending::Exited(c) => Some(*c),
            _ => None,
        }
    }
}

/// What one run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub ending: Ending,
    pub stdout: Captured,
    pub stderr: Captured,
    pub duration: Duration,
}

/// Runs `spec`. `Err` only when the process cannot be started (the command is wrong), which the
/// caller reports as a broken wrapper, not as a property of a vector.
pub fn run(spec: &RunSpec) -> io::Result<RunOutput> {
    let started = Instant::now();
    let mut child = spawn_in_group(&spec.argv)?;
    let stdin = child.stdin.take();
    // Most runs have no input: close stdin at once instead of starting a thread for it.
    let feeder = if spec.stdin.is_empty() {
        drop(stdin);
        None
    } else {
        let input = spec.stdin.clone();
        Some(thread::spawn(move || {
            if let Some(mut pipe) = stdin {
                // The implementation may exit without reading: a broken pipe is not our failure.
                let _ = pipe.write_all(&input);
            }
        }))
    };
    let limit = spec.capture_limit;
    let out_reader = child
        .stdout
        .take()
        .map(|s| thread::spawn(move || capture(s, limit)));
    let err_reader = child
        .stderr
        .take()
        .map(|s| thread::spawn(move || capture(s, limit)));
    let ending = wait_with_timeout(&mut child, spec.timeout)?;
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let stdout = out_reader.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err_reader.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(RunOutput {
        ending,
        stdout,
        stderr,
        duration: started.elapsed(),
    })
}

/// Starts `argv` (program first) with piped standard streams, as the leader of its own process
/// group, so one kill reaches everything it starts. `Err` for an empty or wrong command.
pub(crate) fn spawn_in_group(argv: &[String]) -> io::Result<Child> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
    Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
}

fn capture(mut stream: impl Read, limit: usize) -> Captured {
    let mut kept = Vec::new();
    let mut total: u64 = 0;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                total += n as u64;
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    Captured { bytes: kept, total }
}

fn wait_with_timeout(child: &mut Child, timeout: Duration) -> io::Result<Ending> {
    // A waiter thread blocks in wait(2) on the pid, so the exit is noticed at once instead of at
    // the next poll; the caller waits on a channel with the timeout.
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let mut status: libc::c_int = 0;
        // SAFETY: waitpid on our own child's pid with a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        let _ = tx.send((r, status));
    });
    let ending = match rx.recv_timeout(timeout) {
        Ok((r, status)) if r == pid => {
            if libc::WIFEXITED(status) {
                Ending::Exited(libc::WEXITSTATUS(status))
            } else if libc::WIFSIGNALED(status) {
                Ending::Signaled(libc::WTERMSIG(status))
            } else {
                Ending::Signaled(0)
            }
        }
        Ok(_) => return Err(io::Error::last_os_error()),
        Err(_) => {
            kill_group(child);
            // The waiter thread reaps the child once the signal lands.
            let _ = rx.recv_timeout(Duration::from_secs(5));
            Ending::TimedOut
        }
    };
    Ok(ending)
}

/// Kills the child's whole process group (it was started as the group's leader), so helpers it
/// started cannot outlive the timeout and hold the output pipes open.
pub(crate) fn kill_group(child: &mut Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
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
