//! A long-lived implementation process — a persistent server or a GRP receiver — that the harness
//! talks to in lines: its own process group (a kill reaches every helper it started), requests
//! written to its standard input, response lines read from its standard output with a deadline
//! and a length bound, its standard error captured in the background (bounded), and the whole
//! group killed when the handle is dropped.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::process::{kill_group, spawn_in_group};

/// How long to poll without sleeping before waiting for a line: a response usually comes within
/// microseconds, and looking again for a moment saves a wake-up per request (see the bench).
const SPIN: Duration = Duration::from_micros(50);

/// Why no line came.
#[derive(Debug)]
pub enum LineFailure {
    /// Standard output ended: the process exited or closed it.
    Eof,
    Timeout,
    /// The line grew past the bound without a newline.
    TooLong,
    /// Writing the request or reading the response failed (a broken pipe: it exited).
    Io(io::Error),
}

/// One long-lived process.
pub struct LongLived {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: LineReader,
    /// Standard error not yet taken (bounded).
    stderr: BackgroundCapture,
}

impl LongLived {
    /// Starts `argv` (program first). `Err` when it cannot be started (an empty or wrong
    /// command).
    pub fn spawn(
        argv: &[String],
        max_line_bytes: usize,
        stderr_limit: usize,
    ) -> io::Result<LongLived> {
        let mut child = spawn_in_group(argv)?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let err = child
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no stderr pipe"))?;
        Ok(LongLived {
            child,
            stdin,
            stdout: LineReader {
                stdout,
                buf: Vec::new(),
                start: 0,
                max: max_line_bytes,
            },
            stderr: BackgroundCapture::start(err, stderr_limit),
        })
    }

    /// Writes `bytes` to its standard input and flushes.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin closed"))?;
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// The next line of its standard output (without the newline), waiting until `deadline`.
    pub fn read_line(&mut self, deadline: Instant) -> Result<Vec<u8>, LineFailure> {
        self.stdout.read_line(deadline)
    }

    /// Writes one request and reads one response line within `timeout`.
    pub fn request(&mut self, line: &[u8], timeout: Duration) -> Result<Vec<u8>, LineFailure> {
        let deadline = Instant::now() + timeout;
        self.send(line).map_err(LineFailure::Io)?;
        self.read_line(deadline)
    }

    /// Closes its standard input: the end of its requests.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Whether it is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits up to `timeout` for it to exit by itself.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
                _ => return None,
            }
        }
    }

    /// The standard error collected since the last call.
    pub fn take_stderr(&self) -> Vec<u8> {
        self.stderr.take()
    }

    /// Waits up to `grace` for it to exit on its own, then kills its process group. Returns how
    /// it ended and the standard error not yet taken.
    pub fn end(mut self, grace: Duration) -> (String, Vec<u8>) {
        let status = self.wait_exit(grace);
        // Helpers it started may hold the pipes open: the whole group goes.
        self.kill();
        let how = match status {
            Some(s) => describe_status(s),
            None => "killed by the harness".to_string(),
        };
        self.stderr.wait_end(Duration::from_millis(200));
        (how, self.take_stderr())
    }

    /// Kills its whole process group and reaps it.
    pub fn kill(&mut self) {
        kill_group(&mut self.child);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LongLived {
    fn drop(&mut self) {
        // Always the whole group: it may have exited and left children behind.
        self.kill();
    }
}

/// How a process ended, in words.
pub fn describe_status(s: ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => format!("{s}"),
    }
}

/// Reads lines from a process's standard output with a deadline (poll(2), no extra thread).
struct LineReader {
    stdout: ChildStdout,
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    start: usize,
    /// The longest line accepted.
    max: usize,
}

impl LineReader {
    fn read_line(&mut self, deadline: Instant) -> Result<Vec<u8>, LineFailure> {
        let mut scanned = self.start;
        loop {
            if let Some(i) = self.buf[scanned..].iter().position(|b| *b == b'\n') {
                let end = scanned + i;
                if end - self.start > self.max {
                    return Err(LineFailure::TooLong);
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
                return Err(LineFailure::TooLong);
            }
            if self.start > 0 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            scanned = self.buf.len();
            let now = Instant::now();
            if now >= deadline {
                return Err(LineFailure::Timeout);
            }
            let mut fds = libc::pollfd {
                fd: self.stdout.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let spin_until = now + SPIN;
            let mut ready = 0;
            while ready == 0 && Instant::now() < spin_until {
                // SAFETY: one valid pollfd, for a descriptor we own, for the duration of the call.
                ready = unsafe { libc::poll(&mut fds, 1, 0) };
                if ready == 0 {
                    // Let the implementation have this CPU if it is waiting for one.
                    thread::yield_now();
                }
            }
            if ready == 0 {
                let wait = (deadline - now).as_millis().saturating_add(1);
                // SAFETY: as above.
                ready = unsafe { libc::poll(&mut fds, 1, wait.min(i32::MAX as u128) as i32) };
            }
            if ready < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(LineFailure::Io(e));
            }
            if ready == 0 {
                continue;
            }
            let mut chunk = [0u8; 16 * 1024];
            match self.stdout.read(&mut chunk) {
                Ok(0) => return Err(LineFailure::Eof),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(LineFailure::Io(e)),
            }
        }
    }
}

/// A stream (a long-lived process's standard error) read by a background thread: the first
/// `limit` bytes since the last [`BackgroundCapture::take`] are kept, the rest is read and
/// dropped, so the writer never blocks on it and memory stays bounded.
struct BackgroundCapture {
    kept: Arc<Mutex<Vec<u8>>>,
    /// Signalled when the stream reaches its end.
    done: mpsc::Receiver<()>,
}

impl BackgroundCapture {
    fn start(mut stream: impl Read + Send + 'static, limit: usize) -> Self {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let (tx, done) = mpsc::channel();
        let sink = Arc::clone(&kept);
        thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut k) = sink.lock() {
                            let room = limit.saturating_sub(k.len());
                            k.extend_from_slice(&chunk[..n.min(room)]);
                        }
                    }
                }
            }
            let _ = tx.send(());
        });
        BackgroundCapture { kept, done }
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
pub fn excerpt(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> LongLived {
        LongLived::spawn(&["sh".into(), "-c".into(), script.into()], 16, 1000).unwrap()
    }

    #[test]
    fn lines_come_back_in_order_and_are_bounded() {
        let mut p = sh("while read l; do echo \"got $l\"; done");
        let soon = || Instant::now() + Duration::from_secs(10);
        assert_eq!(
            p.request(b"a\n", Duration::from_secs(10)).unwrap(),
            b"got a"
        );
        p.send(b"b\nc\n").unwrap();
        assert_eq!(p.read_line(soon()).unwrap(), b"got b");
        assert_eq!(p.read_line(soon()).unwrap(), b"got c");
        p.send(b"0123456789abcdefghij\n").unwrap();
        assert!(matches!(p.read_line(soon()), Err(LineFailure::TooLong)));
        p.close_stdin();
        assert!(p.wait_exit(Duration::from_secs(10)).is_some());
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
        assert!(matches!(
            q.read_line(Instant::now() + Duration::from_secs(10)),
            Err(LineFailure::Eof)
        ));
        assert_eq!(q.end(Duration::from_secs(10)).0, "exit status 3");
    }
}
