//! Writing results files and reports: through a fresh temporary file beside the target and a
//! rename, so a reader never sees half a file and nothing planted at the target is followed.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Line, ResultsFile};

/// A file that could not be written, and why.
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    pub(crate) problem: WriteProblem,
}

/// Why a file could not be written.
#[derive(Debug)]
pub(crate) enum WriteProblem {
    /// The target is a symbolic link (refused: it may point anywhere).
    SymbolicLink,
    /// The target exists and is not a regular file.
    NotARegularFile,
    /// No temporary name beside the target was free.
    NoFreshName(Option<io::Error>),
    /// Another run is writing the same file now (it holds the lock beside it).
    InUse,
    /// Less free space where the file goes than the run needs.
    NoSpace {
        needed: u64,
        free: u64,
    },
    Io(io::Error),
}

impl WriteError {
    fn at(path: &Path, problem: WriteProblem) -> WriteError {
        WriteError {
            path: path.to_path_buf(),
            problem,
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: ", self.path.display())?;
        match &self.problem {
            WriteProblem::SymbolicLink => {
                f.write_str("it is a symbolic link (refused: write to the file itself)")
            }
            WriteProblem::NotARegularFile => f.write_str("it exists and is not a regular file"),
            WriteProblem::NoFreshName(e) => write!(
                f,
                "no fresh temporary name ({})",
                e.as_ref().map(|e| e.to_string()).unwrap_or_default()
            ),
            WriteProblem::InUse => f.write_str(
                "another agentconf run is writing it now (refused at once, before running: two \
                 runs writing one file would lose one run's results)",
            ),
            WriteProblem::NoSpace { needed, free } => write!(
                f,
                "{free} bytes free where it goes, and the run needs about {needed} (refused \
                 before running)"
            ),
            WriteProblem::Io(e) => match e.raw_os_error() {
                Some(libc::ENOSPC) => f.write_str(
                    "the disk is full (no space left on the device): free some space, or write \
                     the results elsewhere with --out",
                ),
                Some(libc::EDQUOT) => f.write_str(
                    "your disk quota is used up: free some space, or write the results \
                     elsewhere with --out",
                ),
                Some(libc::EFBIG) => f.write_str(
                    "the file is larger than this process may write (a file size limit: \
                     `ulimit -f`): raise the limit, or write the results elsewhere",
                ),
                _ => write!(f, "{e}"),
            },
        }
    }
}

/// The results file of a run being written: the target's lock held for the whole run, every
/// line appended to a temporary file beside it as soon as its case is settled (so a disk that
/// fills up stops the run with what was graded already on disk), and a rename at the end, so a
/// reader never sees half a file.
pub struct ResultsWriter {
    target: PathBuf,
    tmp: PathBuf,
    /// Unbuffered: each line is one write, so a failed one can be cut off at `whole`.
    out: std::fs::File,
    /// Bytes of whole lines written so far.
    whole: u64,
    /// Held until the writer is done with; a second run on the same target fails to take it.
    _lock: TargetLock,
    finished: bool,
}

/// About what one line of a results file takes on disk, generously: the free space a run asks
/// for is this per case.
const BYTES_PER_LINE: u64 = 2048;

impl ResultsWriter {
    /// Starts writing `target` for a run of `cases` cases: the target must be writable as
    /// [`write_atomically`] writes, no other run may be writing it, and the disk must have room
    /// for about `cases` lines. All of that is checked here, before anything runs.
    pub fn create(target: &Path, cases: usize) -> Result<ResultsWriter, WriteError> {
        check_target(target)?;
        let lock = TargetLock::take(target)?;
        // Holding the lock, no live run writes this target: a temporary file of it left by a run
        // that was killed (SIGKILL: its own clean-up never ran) is removed now.
        remove_stale_temporaries(target);
        check_space(target, BYTES_PER_LINE * (cases as u64 + 2))?;
        let (file, tmp) = create_temp(target)?;
        Ok(ResultsWriter {
            target: target.to_path_buf(),
            tmp,
            out: file,
            whole: 0,
            _lock: lock,
            finished: false,
        })
    }

    /// The temporary file the lines go to until [`ResultsWriter::finish`].
    pub(crate) fn temporary(&self) -> &Path {
        &self.tmp
    }

    /// Appends one line, handed to the file system when this returns. A line that could not be
    /// written whole (a full disk, a file size limit) is cut off again, so the file keeps whole
    /// lines only.
    pub(crate) fn line(&mut self, line: &Line) -> Result<(), WriteError> {
        use std::io::Write as _;
        // Strings, numbers, options and sequences: serialisation cannot fail.
        let mut text = serde_json::to_vec(line).unwrap_or_default();
        text.push(b'\n');
        match self.out.write_all(&text) {
            Ok(()) => {
                self.whole += text.len() as u64;
                Ok(())
            }
            Err(e) => {
                let _ = self.out.set_len(self.whole);
                Err(WriteError::at(&self.tmp, WriteProblem::Io(e)))
            }
        }
    }

    /// The file whole: synced, and renamed over the target.
    pub(crate) fn finish(mut self) -> Result<(), WriteError> {
        self.out
            .sync_all()
            .map_err(|e| WriteError::at(&self.tmp, WriteProblem::Io(e)))?;
        std::fs::rename(&self.tmp, &self.target)
            .map_err(|e| WriteError::at(&self.target, WriteProblem::Io(e)))?;
        self.finished = true;
        Ok(())
    }

    /// Gives up on the target and keeps what was written in the temporary file (a run stopped by
    /// a full disk): its path.
    pub(crate) fn keep_partial(mut self) -> PathBuf {
        let _ = self.out.set_len(self.whole);
        self.finished = true;
        self.tmp.clone()
    }
}

impl Drop for ResultsWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// An exclusive `flock` on a lock file beside the target (`.NAME.lock`), taken without waiting
/// and removed when released.
struct TargetLock {
    path: PathBuf,
    _file: std::fs::File,
}

impl TargetLock {
    fn take(target: &Path) -> Result<TargetLock, WriteError> {
        use std::os::unix::fs::OpenOptionsExt as _;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "results".into());
        let path = target.with_file_name(format!(".{name}.lock"));
        // Never through a link: a link planted at the lock's name (by whoever can write the
        // directory) would have the lock create or hold a file elsewhere. O_NOFOLLOW refuses it
        // (ELOOP), and what was opened must be a regular file.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => WriteError::at(&path, WriteProblem::SymbolicLink),
                _ => WriteError::at(target, WriteProblem::Io(e)),
            })?;
        match file.metadata() {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(WriteError::at(&path, WriteProblem::NotARegularFile)),
            Err(e) => return Err(WriteError::at(&path, WriteProblem::Io(e))),
        }
        if let Err(e) =
            rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive)
        {
            let e = io::Error::from(e);
            return Err(WriteError::at(
                target,
                if e.kind() == io::ErrorKind::WouldBlock {
                    WriteProblem::InUse
                } else {
                    WriteProblem::Io(e)
                },
            ));
        }
        Ok(TargetLock { path, _file: file })
    }
}

impl Drop for TargetLock {
    fn drop(&mut self) {
        // Removed while still held: a run that opened it meanwhile fails to lock it, and one
        // that opens it later creates a new one.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `Err` when the file system holding `target` has less than `needed` bytes free for this user.
fn check_space(target: &Path, needed: u64) -> Result<(), WriteError> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(st) = rustix::fs::statvfs(dir) else {
        // Unknown (a NUL in the path included): the writes themselves will say.
        return Ok(());
    };
    let free = st.f_bavail.saturating_mul(st.f_frsize);
    if free < needed {
        return Err(WriteError::at(
            target,
            WriteProblem::NoSpace { needed, free },
        ));
    }
    Ok(())
}

impl std::error::Error for WriteError {}

/// Writes `file` to `path` through a temporary file and a rename, so a reader never sees half a
/// results file.
pub fn write_file(path: &Path, file: &ResultsFile) -> Result<(), WriteError> {
    let mut text = String::new();
    let mut push = |line: &Line| {
        // Strings, numbers, options and sequences: serialisation cannot fail.
        text.push_str(&serde_json::to_string(line).unwrap_or_default());
        text.push('\n');
    };
    push(&Line::Header(file.header.clone()));
    for r in &file.results {
        push(&Line::Result(r.clone()));
    }
    if let Some(f) = &file.footer {
        push(&Line::Footer(f.clone()));
    }
    write_atomically(path, text.as_bytes())
}

/// Writes through a temporary file and a rename, so a reader never sees half a report. The
/// temporary file is created next to the target under a fresh name that must not exist yet
/// (`O_EXCL`), so nothing already there — a symbolic link planted by the implementation under
/// test, say — is followed or overwritten; a target that exists and is not a regular file is
/// refused.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    use std::io::Write as _;
    check_target(path)?;
    let (mut file, tmp) = create_temp(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| WriteError::at(&tmp, WriteProblem::Io(e)));
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        WriteError::at(path, WriteProblem::Io(e))
    })
}

/// Checks, before anything runs, that `path` can be written as [`write_atomically`] will: the
/// target is absent or a regular file, and its directory takes a new file. A run that could not
/// write its results costs nothing this way.
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    check_target(path)?;
    let (file, tmp) = create_temp(path)?;
    drop(file);
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

/// The target must be absent or a regular file: not a symbolic link, directory or device.
fn check_target(path: &Path) -> Result<(), WriteError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            Err(WriteError::at(path, WriteProblem::SymbolicLink))
        }
        Ok(m) if !m.is_file() => Err(WriteError::at(path, WriteProblem::NotARegularFile)),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(WriteError::at(path, WriteProblem::Io(e))),
    }
}

/// Removes the temporary files of `target` (`.NAME.PID.NONCE.N.tmp`, [`create_temp`]'s names)
/// whose process is gone, that this user owns. Best effort: what cannot be removed stays.
fn remove_stale_temporaries(target: &Path) {
    use std::os::unix::fs::MetadataExt as _;
    let (Some(name), dir) = (target.file_name(), target.parent()) else {
        return;
    };
    let dir = match dir {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let me = rustix::process::getuid().as_raw();
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let mut parts = rest.split('.');
        let (Some(pid), Some(_nonce), Some(_n), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some(pid) = pid.parse::<u32>().ok().and_then(crate::kill::pid) else {
            continue;
        };
        // A plain file of ours (never a link), whose process no longer exists.
        let ours = entry
            .metadata()
            .is_ok_and(|m| m.file_type().is_file() && m.uid() == me);
        if ours && !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a process `pid` exists (kill(2) with signal 0: ESRCH means it does not).
fn process_alive(pid: rustix::process::Pid) -> bool {
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// A new file next to `path`, under a name no one else has (created with `O_EXCL`).
fn create_temp(path: &Path) -> Result<(std::fs::File, PathBuf), WriteError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "results".into());
    let mut last = None;
    for _ in 0..16 {
        let nonce = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = path.with_file_name(format!(
            ".{name}.{}.{nonce:x}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        // O_EXCL: nothing already at the name (a link planted there included) is opened.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(WriteError::at(path, WriteProblem::Io(e))),
        }
    }
    Err(WriteError::at(path, WriteProblem::NoFreshName(last)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_refuse_links_and_non_files_and_leave_no_temporary() {
        let dir = std::env::temp_dir().join(format!("agentconf-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("results.jsonl");
        check_writable(&target).unwrap();
        write_atomically(&target, b"one\n").unwrap();
        write_atomically(&target, b"two\n").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two\n");
        // A link planted where the results go is refused, and what it points to is untouched.
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(check_writable(&link)
            .unwrap_err()
            .to_string()
            .contains("symbolic link"));
        assert!(write_atomically(&link, b"x").is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(check_writable(&dir)
            .unwrap_err()
            .to_string()
            .contains("not a regular file"));
        assert!(check_writable(&dir.join("missing/results.jsonl")).is_err());
        // Only the files written remain.
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["link.jsonl", "results.jsonl", "victim"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A link planted at the lock's name (`.NAME.lock`) is refused: nothing is created or opened
    /// through it, and the file it points to keeps its bytes (before, the lock was opened through
    /// the link, which created an empty file at its target or held a file elsewhere).
    #[test]
    fn the_lock_is_never_taken_through_a_link() {
        let dir = std::env::temp_dir().join(format!("agentconf-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("results.jsonl");
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join(".results.jsonl.lock")).unwrap();
        let absent = dir.join("created-through-link");
        std::os::unix::fs::symlink(&absent, dir.join(".other.jsonl.lock")).unwrap();
        let refused = ResultsWriter::create(&target, 1).err().expect("refused");
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
        assert!(ResultsWriter::create(&dir.join("other.jsonl"), 1).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(!absent.exists(), "nothing created through the link");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A temporary file a killed run left beside the target (its process gone) is removed by
    /// the next run on that target; one of a live process, or not of this naming, stays.
    #[test]
    fn a_dead_runs_temporary_is_removed_by_the_next_run() {
        let dir = std::env::temp_dir().join(format!("agentconf-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("results.jsonl");
        // A process id that is surely gone: a child that already exited and was reaped.
        let gone = std::process::Command::new("true")
            .spawn()
            .and_then(|mut c| c.wait().map(|_| c.id()))
            .unwrap();
        let stale = dir.join(format!(".results.jsonl.{gone}.1f.0.tmp"));
        let live = dir.join(format!(".results.jsonl.{}.2e.0.tmp", std::process::id()));
        let other = dir.join(".results.jsonl.notes.tmp");
        for f in [&stale, &live, &other] {
            std::fs::write(f, b"{}\n").unwrap();
        }
        let writer = ResultsWriter::create(&target, 1).unwrap();
        assert!(!stale.exists(), "the dead run's temporary is removed");
        assert!(live.exists() && other.exists());
        drop(writer);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
