//! A long-lived implementation process — a persistent server or a GRP receiver — that the harness
//! talks to in lines: contained as every implementation process is (a PID namespace of its own,
//! or its process group: a kill reaches every helper it started), requests written to its
//! standard input and response lines read from its standard output, both with a deadline (and
//! lines with a length bound), its standard error captured in the background (bounded), its exit
//! noticed while a read waits, and everything it started killed when it exits or the handle is
//! dropped.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};

use crate::process::{exited_unreaped, hung_up, set_nonblocking, spawn, timeout_until, Spawned};

/// How long to poll without sleeping before waiting for a line: a response usually comes within
/// microseconds, and looking again for a moment saves a wake-up per request (see the bench).
const SPIN: Duration = Duration::from_micros(50);

/// Why no line came.
#[derive(Debug)]
pub(crate) enum LineFailure {
    /// Standard output ended, or the process exited (whatever still holds its output — an
    /// escaped process — is not read any further).
    Eof,
    Timeout,
    /// The line grew past the bound without a newline.
    TooLong,
    /// Writing the request or reading the response failed (a broken pipe: it exited).
    Io(io::Error),
}

/// One long-lived process.
pub(crate) struct LongLived {
    child: Spawned,
    /// Non-blocking, so that a process that stops reading cannot stall a write past its deadline.
    stdin: Option<io::PipeWriter>,
    stdout: LineReader,
    /// Standard error not yet taken (bounded).
    stderr: BackgroundCapture,
    /// A second descriptor of the standard error pipe's read end: polled at the exit to see
    /// whether something else still holds the pipe.
    stderr_probe: OwnedFd,
    /// Reaches its end when the process exits; `None` once the exit was handled.
    exit_watch: Option<OwnedFd>,
    /// How it ended, once it was reaped.
    status: Option<ExitStatus>,
    /// It exited while descendants held its output (they were killed with its group).
    left_descendants: bool,
}

impl LongLived {
    /// Waits for its lines without polling first: for processes that race each other, whose
    /// lines were all handed over before any answer is read. A harness polling on one of two
    /// cores keeps that core from the second racer and so serialises the race it means to
    /// provoke (measured: a look-up-then-insert receiver was never caught in 2,000 two-copy
    /// rounds with polling).
    pub(crate) fn without_spin(&mut self) {
        self.stdout.spin = Duration::ZERO;
    }

    /// As [`LongLived::spawn`], with `env` added to the process's environment. It goes through
    /// `env(1)`, which replaces itself with the program (same process, same group), so every
    /// receiver is still started by the one spawning path.
    pub(crate) fn spawn_with_env(
        argv: &[String],
        env: &[(String, String)],
        max_line_bytes: usize,
        stderr_limit: usize,
    ) -> io::Result<LongLived> {
        if env.is_empty() {
            return LongLived::spawn(argv, max_line_bytes, stderr_limit);
        }
        let mut with = vec!["env".to_string()];
        with.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        with.extend(argv.iter().cloned());
        LongLived::spawn(&with, max_line_bytes, stderr_limit)
    }

    /// Sends `signal` to its process group (SIGSTOP, SIGCONT), unless it was already reaped
    /// (its pid may be reused then).
    pub(crate) fn signal_group(&mut self, signal: rustix::process::Signal) {
        if self.status.is_none() {
            // The group is ours until the child is reaped; a group already gone is no error.
            if let Some(pid) = crate::kill::pid(self.child.id()) {
                let _ = rustix::process::kill_process_group(pid, signal);
            }
        }
    }

    /// Starts `argv` (program first). `Err` when it cannot be started (an empty or wrong
    /// command).
    pub(crate) fn spawn(
        argv: &[String],
        max_line_bytes: usize,
        stderr_limit: usize,
    ) -> io::Result<LongLived> {
        let mut child = spawn(argv)?;
        let parts = (|| {
            let stdin = child.stdin.take();
            if let Some(s) = &stdin {
                set_nonblocking(s)?;
            }
            let stdout = child
                .stdout
                .take()
                .ok_or_else(|| io::Error::other("no stdout pipe"))?;
            let err: OwnedFd = child
                .stderr
                .take()
                .ok_or_else(|| io::Error::other("no stderr pipe"))?
                .into();
            let stderr_probe = err.try_clone()?;
            let stderr = BackgroundCapture::start(err, stderr_limit)?;
            let exit_watch = child
                .take_exit_watch()
                .ok_or_else(|| io::Error::other("no exit watch"))?;
            Ok((stdin, stdout, stderr, stderr_probe, exit_watch))
        })();
        let (stdin, stdout, stderr, stderr_probe, exit_watch) = match parts {
            Ok(parts) => parts,
            Err(e) => {
                child.kill();
                let _ = child.reap();
                return Err(e);
            }
        };
        Ok(LongLived {
            child,
            stdin,
            stdout: LineReader {
                stdout,
                buf: Vec::new(),
                start: 0,
                max: max_line_bytes,
                spin: SPIN,
            },
            stderr,
            stderr_probe,
            exit_watch: Some(exit_watch),
            status: None,
            left_descendants: false,
        })
    }

    /// Writes `bytes` to its standard input, waiting for room until `deadline`. A process that
    /// no longer reads its input gives `BrokenPipe`; one that does not read it in time,
    /// `TimedOut`.
    pub(crate) fn send(&mut self, bytes: &[u8], deadline: Instant) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("its standard input was closed"))?;
        let mut rest = bytes;
        while !rest.is_empty() {
            match stdin.write(rest) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "it did not read its standard input before the deadline",
                        ));
                    }
                    let mut p = [PollFd::new(stdin, PollFlags::OUT)];
                    // An error (EINTR) only means another round; the deadline bounds them.
                    let _ = poll(&mut p, Some(&timeout_until(deadline, now)));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next line of its standard output (without the newline), waiting until `deadline`.
    /// When the process exits, its group is killed and what it wrote is still read; a pipe that
    /// stays open after that (held by an escaped process) ends the reading at the deadline as
    /// [`LineFailure::Eof`], since the process itself ended in time.
    pub(crate) fn read_line(&mut self, deadline: Instant) -> Result<Vec<u8>, LineFailure> {
        loop {
            let watch = self.exit_watch.as_ref().map(|w| w.as_fd());
            match self.stdout.read_line(deadline, watch) {
                Err(Wake::Exited) => {
                    self.exited();
                    // Watched once: even if the exit could not be confirmed, the watch would only
                    // fire again at once.
                    self.exit_watch = None;
                }
                Err(Wake::Failed(LineFailure::Timeout)) if self.exited().is_some() => {
                    return Err(LineFailure::Eof)
                }
                Err(Wake::Failed(f)) => return Err(f),
                Ok(line) => return Ok(line),
            }
        }
    }

    /// A line it has written already, without waiting: one read with the last and still
    /// unread, or one waiting in the pipe now. A line being written (no newline yet) is not one.
    pub(crate) fn ready_line(&mut self) -> Option<Vec<u8>> {
        self.stdout.ready_line()
    }

    /// Writes one request and reads one response line within `timeout`.
    pub(crate) fn request(
        &mut self,
        line: &[u8],
        timeout: Duration,
    ) -> Result<Vec<u8>, LineFailure> {
        let deadline = Instant::now() + timeout;
        self.send(line, deadline).map_err(LineFailure::Io)?;
        self.read_line(deadline)
    }

    /// Closes its standard input: the end of its requests.
    pub(crate) fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// How it ended, if it has exited (without waiting). The exit is noticed before the process
    /// is reaped, so its process group is killed while the group id is still its own: anything
    /// it left behind goes with it (in a PID namespace the kernel has killed it already).
    pub(crate) fn exited(&mut self) -> Option<ExitStatus> {
        if self.status.is_some() {
            return self.status;
        }
        match exited_unreaped(self.child.id()) {
            Ok(true) => {}
            Ok(false) => return None,
            // Cannot look without reaping (not expected): a plain wait, without the group kill.
            Err(_) => {
                self.status = self.child.try_reap().ok().flatten();
                return self.status;
            }
        }
        let (stdout, stderr) = (self.stdout.stdout.as_fd(), self.stderr_probe.as_fd());
        self.left_descendants = self
            .child
            .left_descendants(|| !hung_up(stdout) || !hung_up(stderr));
        self.child.kill();
        // A zombie by now: reaping it does not wait.
        self.status = self.child.reap().ok();
        self.exit_watch = None;
        self.status
    }

    /// Waits until `deadline` for it to exit by itself.
    pub(crate) fn wait_exit(&mut self, deadline: Instant) -> Option<ExitStatus> {
        loop {
            if let Some(s) = self.exited() {
                return Some(s);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            let Some(watch) = &self.exit_watch else {
                return None;
            };
            let mut p = [PollFd::new(watch, PollFlags::IN)];
            // EINTR means another round.
            let _ = poll(&mut p, Some(&timeout_until(deadline, now)));
        }
    }

    /// Whether it exited while descendants still held its output (they were killed with its
    /// process group then).
    pub(crate) fn left_descendants(&self) -> bool {
        self.left_descendants
    }

    /// How many bytes written to its standard input are still unread, where the system can tell
    /// (Linux counts a pipe's contents with FIONREAD). After the process is gone this says
    /// whether it read the last request before it went.
    pub(crate) fn unread_input(&self) -> Option<usize> {
        let stdin = self.stdin.as_ref()?;
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            if let Ok(n) = rustix::io::ioctl_fionread(stdin) {
                return usize::try_from(n).ok();
            }
        }
        let _ = stdin;
        None
    }

    /// The standard error collected since the last call.
    pub(crate) fn take_stderr(&self) -> Vec<u8> {
        self.stderr.take()
    }

    /// After the process is gone: its remaining standard error, waiting up to `wait` for the
    /// capture to reach the stream's end.
    pub(crate) fn finish_stderr(&self, wait: Duration) -> Vec<u8> {
        self.stderr.wait_end(wait);
        self.take_stderr()
    }

    /// Waits up to `grace` for it to exit on its own, then kills its process group. Returns how
    /// it ended and the standard error not yet taken.
    pub(crate) fn end(mut self, grace: Duration) -> (String, Vec<u8>) {
        let status = self.wait_exit(Instant::now() + grace);
        self.kill();
        let how = match status {
            Some(s) => describe_status(s),
            None => "killed by the harness".to_string(),
        };
        self.stderr.wait_end(Duration::from_millis(200));
        (how, self.take_stderr())
    }

    /// Kills everything it runs as (its namespace, or its process group) and reaps it (a
    /// process that already exited had that done then).
    pub(crate) fn kill(&mut self) {
        if self.exited().is_none() {
            self.child.kill();
            self.status = self.child.reap().ok();
            self.exit_watch = None;
        }
    }
}

impl Drop for LongLived {
    fn drop(&mut self) {
        // Always the whole group, before it is reaped.
        self.kill();
    }
}

/// How a process ended, in words.
pub(crate) fn describe_status(s: ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => format!("{s}"),
    }
}

/// Why [`LineReader::read_line`] returned without a line.
enum Wake {
    /// The exit watch fired: the caller handles the exit and reads on.
    Exited,
    Failed(LineFailure),
}

/// Reads lines from a process's standard output with a deadline (poll(2), no extra thread).
struct LineReader {
    stdout: io::PipeReader,
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    start: usize,
    /// The longest line accepted.
    max: usize,
    /// How long to poll before blocking ([`SPIN`], or zero).
    spin: Duration,
}

impl LineReader {
    /// The next line, waiting until `deadline`; wakes with [`Wake::Exited`] when `exit_watch`
    /// (if any) becomes readable.
    fn read_line(
        &mut self,
        deadline: Instant,
        exit_watch: Option<BorrowedFd<'_>>,
    ) -> Result<Vec<u8>, Wake> {
        let fail = |f| Err(Wake::Failed(f));
        let mut scanned = self.start;
        loop {
            if let Some(i) = self.buf[scanned..].iter().position(|b| *b == b'\n') {
                let end = scanned + i;
                if end - self.start > self.max {
                    return fail(LineFailure::TooLong);
                }
                let line = self.buf[self.start..end].to_vec();
                self.start = end + 1;
                if self.start == self.buf.len() {
                    self.buf.clear();
                    self.start = 0;
                }
                return Ok(line);
            }
            if self.buf.len() - self.start > self.max {
                return fail(LineFailure::TooLong);
            }
            if self.start > 0 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            scanned = self.buf.len();
            let now = Instant::now();
            if now >= deadline {
                return fail(LineFailure::Timeout);
            }
            // Its output, and the exit watch when there is one (poll only what exists).
            let stdout = self.stdout.as_fd();
            let mut fds = [PollFd::new(&stdout, PollFlags::IN)];
            let mut both = exit_watch.map(|w| {
                [
                    PollFd::new(&stdout, PollFlags::IN),
                    PollFd::from_borrowed_fd(w, PollFlags::IN),
                ]
            });
            let fds: &mut [PollFd<'_>] = match both.as_mut() {
                Some(both) => both,
                None => &mut fds,
            };
            let spin_until = now + self.spin;
            let zero = Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            let mut ready = Ok(0);
            while ready == Ok(0) && Instant::now() < spin_until {
                ready = poll(fds, Some(&zero));
                if ready == Ok(0) {
                    // Let the implementation have this CPU if it is waiting for one.
                    thread::yield_now();
                }
            }
            if ready == Ok(0) {
                ready = poll(fds, Some(&timeout_until(deadline, now)));
            }
            match ready {
                Err(rustix::io::Errno::INTR) | Ok(0) => continue,
                Err(e) => return fail(LineFailure::Io(e.into())),
                Ok(_) => {}
            }
            let output = !fds[0].revents().is_empty();
            let exited = fds.get(1).is_some_and(|w| !w.revents().is_empty());
            if output {
                let mut chunk = [0u8; 16 * 1024];
                match self.stdout.read(&mut chunk) {
                    Ok(0) => return fail(LineFailure::Eof),
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return fail(LineFailure::Io(e)),
                }
            } else if exited {
                // Its output first, the exit second: what it wrote before it exited is read.
                return Err(Wake::Exited);
            }
        }
    }
}

impl LineReader {
    /// A whole line already read or readable at once (see [`LongLived::ready_line`]); a line
    /// longer than the bound is returned as far as it goes.
    fn ready_line(&mut self) -> Option<Vec<u8>> {
        loop {
            let unread = &self.buf[self.start..];
            if let Some(i) = unread.iter().position(|b| *b == b'\n') {
                let line = unread[..i].to_vec();
                self.start += i + 1;
                return Some(line);
            }
            if unread.len() > self.max {
                return Some(unread[..self.max].to_vec());
            }
            let mut p = [PollFd::new(&self.stdout, PollFlags::IN)];
            let zero = Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            if !poll(&mut p, Some(&zero)).is_ok_and(|n| n > 0)
                || !p[0].revents().contains(PollFlags::IN)
            {
                return None;
            }
            let mut chunk = [0u8; 16 * 1024];
            match self.stdout.read(&mut chunk) {
                Ok(n) if n > 0 => self.buf.extend_from_slice(&chunk[..n]),
                _ => return None,
            }
        }
    }
}

/// A stream (a long-lived process's standard error) read by a background thread: the first
/// `limit` bytes since the last [`BackgroundCapture::take`] are kept, the rest is read and
/// dropped, so the writer never blocks on it and memory stays bounded. The thread stops when the
/// stream ends or the handle is dropped, whichever comes first: an escaped process that holds the
/// pipe for ever keeps neither a thread nor a descriptor of the harness.
struct BackgroundCapture {
    kept: Arc<Mutex<Vec<u8>>>,
    /// Signalled when the stream reaches its end.
    done: mpsc::Receiver<()>,
    /// Dropped with the handle: the thread sees the pipe's end and stops.
    _stop: io::PipeWriter,
}

impl BackgroundCapture {
    fn start(stream: OwnedFd, limit: usize) -> io::Result<Self> {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let (tx, done) = mpsc::channel();
        let (stop_reader, stop) = io::pipe()?;
        let sink = Arc::clone(&kept);
        let mut stream = std::fs::File::from(stream);
        thread::Builder::new()
            .name("agentconf-stderr".into())
            .spawn(move || {
                let mut chunk = [0u8; 8192];
                loop {
                    let mut fds = [
                        PollFd::new(&stream, PollFlags::IN),
                        PollFd::new(&stop_reader, PollFlags::IN),
                    ];
                    match poll(&mut fds, None) {
                        Err(rustix::io::Errno::INTR) => continue,
                        Err(_) => break,
                        Ok(_) => {}
                    }
                    if !fds[1].revents().is_empty() {
                        break;
                    }
                    if fds[0].revents().is_empty() {
                        continue;
                    }
                    match stream.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => {
                            if let Ok(mut k) = sink.lock() {
                                let room = limit.saturating_sub(k.len());
                                k.extend_from_slice(&chunk[..n.min(room)]);
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = tx.send(());
            })?;
        Ok(BackgroundCapture {
            kept,
            done,
            _stop: stop,
        })
    }

    /// The bytes kept since the last call (the limit applies afresh after each).
    fn take(&self) -> Vec<u8> {
        self.kept
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default()
    }

    /// Waits up to `timeout` for the stream to end.
    fn wait_end(&self, timeout: Duration) {
        let _ = self.done.recv_timeout(timeout);
    }
}

/// The first bytes of captured output as text, for reports.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::tests::{
        background, daemon, gone_within, kill_sleepers, namespaces_or_skip, sleepers,
    };

    fn sh(script: &str) -> LongLived {
        LongLived::spawn(&["sh".into(), "-c".into(), script.into()], 16, 1000).unwrap()
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    #[test]
    fn lines_come_back_in_order_and_are_bounded() {
        let mut p = sh("while read l; do echo \"got $l\"; done");
        assert_eq!(
            p.request(b"a\n", Duration::from_secs(10)).unwrap(),
            b"got a"
        );
        p.send(b"b\nc\n", soon()).unwrap();
        assert_eq!(p.read_line(soon()).unwrap(), b"got b");
        assert_eq!(p.read_line(soon()).unwrap(), b"got c");
        p.send(b"0123456789abcdefghij\n", soon()).unwrap();
        assert!(matches!(p.read_line(soon()), Err(LineFailure::TooLong)));
        p.close_stdin();
        assert!(p.wait_exit(soon()).is_some());
        assert!(!p.left_descendants());
    }

    #[test]
    fn deadlines_end_and_stderr() {
        let mut p = sh("echo oops >&2; sleep 30");
        let started = Instant::now();
        assert!(matches!(
            p.read_line(Instant::now() + Duration::from_millis(200)),
            Err(LineFailure::Timeout)
        ));
        assert!(started.elapsed() < Duration::from_secs(20));
        let (how, stderr) = p.end(Duration::ZERO);
        assert_eq!(how, "killed by the harness");
        assert_eq!(stderr, b"oops\n");
        let mut q = sh("exit 3");
        assert!(matches!(q.read_line(soon()), Err(LineFailure::Eof)));
        assert_eq!(q.end(Duration::from_secs(10)).0, "exit status 3");
    }

    #[test]
    fn an_exit_ends_the_reading_although_a_descendant_holds_the_output() {
        // The line it wrote before exiting is read; then the exit, not the sleeper's minute, ends
        // the reading, and the sleeper goes with the group.
        let mut p = sh("sleep 61.11 & echo last; exit 4");
        let started = Instant::now();
        assert_eq!(p.read_line(soon()).unwrap(), b"last");
        assert!(matches!(p.read_line(soon()), Err(LineFailure::Eof)));
        assert!(started.elapsed() < Duration::from_secs(9));
        assert_eq!(p.wait_exit(soon()).and_then(|s| s.code()), Some(4));
        assert!(p.left_descendants());
        assert!(gone_within("61.11", Duration::from_secs(10)));
    }

    #[test]
    fn an_escaped_process_is_not_read_past_the_deadline() {
        // Without a PID namespace a setsid sleeper escapes the group kill.
        let mut p =
            crate::process::spawn_tests::forcing(crate::process::Containment::ProcessGroup, || {
                sh(&format!("{}; exit 0", background("setsid", "61.12", "")))
            });
        let started = Instant::now();
        let r = p.read_line(Instant::now() + Duration::from_secs(1));
        let elapsed = started.elapsed();
        let escaped = sleepers("61.12");
        drop(p);
        kill_sleepers("61.12");
        assert!(matches!(r, Err(LineFailure::Eof)), "{r:?}");
        assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
        assert!(!escaped.is_empty(), "the setsid sleeper was not running");
    }

    #[test]
    fn in_a_namespace_what_escapes_the_group_goes_with_the_process() {
        if !namespaces_or_skip("in_a_namespace_what_escapes_the_group_goes_with_the_process") {
            return;
        }
        let mut p = sh(&format!(
            "{}; {}; exit 0",
            background("setsid", "61.14", ""),
            daemon("61.15")
        ));
        // The exit, not the deadline, ends the reading: the setsid sleeper held the output, and
        // goes with the namespace; by the time the exit is seen, so has everything else.
        let r = p.read_line(Instant::now() + Duration::from_secs(60));
        let code = p.wait_exit(soon()).and_then(|s| s.code());
        let left = [sleepers("61.14"), sleepers("61.15")].concat();
        kill_sleepers("61.14");
        kill_sleepers("61.15");
        assert!(matches!(r, Err(LineFailure::Eof)), "{r:?}");
        assert_eq!(code, Some(0));
        assert!(left.is_empty(), "still running after the exit: {left:?}");
        assert!(p.left_descendants());
    }

    #[test]
    fn a_write_nobody_reads_ends_at_its_deadline() {
        let mut p = sh("exec sleep 61.13");
        let started = Instant::now();
        let e = p
            .send(
                &vec![b'x'; 4 << 20],
                Instant::now() + Duration::from_millis(300),
            )
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(15));
        drop(p);
        assert!(gone_within("61.13", Duration::from_secs(10)));
    }

    #[test]
    fn unread_input_tells_whether_the_last_request_was_read() {
        // Reads one line, then exits without reading the second.
        let mut p = sh("read l; echo \"got $l\"; sleep 0.2; exit 0");
        assert_eq!(
            p.request(b"a\n", Duration::from_secs(10)).unwrap(),
            b"got a"
        );
        p.send(b"second\n", soon()).ok();
        assert!(matches!(p.read_line(soon()), Err(LineFailure::Eof)));
        p.kill();
        if cfg!(target_os = "linux") {
            assert_eq!(p.unread_input(), Some(7));
        }
    }
}
