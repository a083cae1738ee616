//! Where a run keeps its files: per-case inputs in a memory-backed work root, GRP receivers'
//! state on a disk, and the clean-up of what a killed run left there. The lowest floor: every
//! part of the harness that writes files sits above it.

use std::path::PathBuf;

/// Where GRP receivers' `STATE_DIR`s go: the system's temporary directory, a disk file system on
/// most systems, and never the memory-backed [`work_root`], so that a `durable` claim is
/// exercised on the kind of file system its state would live on. One directory per harness
/// process, holding one directory per running scenario, each removed when its scenario ends (and
/// the root with the last of them).
pub(crate) fn state_root() -> PathBuf {
    std::env::temp_dir().join(format!("agentconf-grp-state-{}", std::process::id()))
}

/// Where per-case input directories go: a memory-backed directory when there is one (writing
/// and removing inputs on a disk costs more than the implementation's own spawn), else the
/// system's temporary directory.
pub(crate) fn work_root() -> PathBuf {
    for dir in memory_backed() {
        let probe = dir.join(format!(".agentconf-probe-{}", std::process::id()));
        if std::fs::create_dir(&probe).is_ok() {
            let _ = std::fs::remove_dir(&probe);
            return dir;
        }
    }
    std::env::temp_dir()
}

/// Where a memory-backed directory may be, in the order [`work_root`] tries them.
fn memory_backed() -> impl Iterator<Item = PathBuf> {
    [
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        Some(PathBuf::from("/dev/shm")),
    ]
    .into_iter()
    .flatten()
}

/// The names of the directories a harness process makes in [`work_root`] and beside
/// [`state_root`]: each prefix followed by the process's id, so that the id can be read back.
const PER_PROCESS_PREFIXES: [&str; 3] =
    ["agentconf-run-", "agentconf-smoke-", "agentconf-grp-state-"];

/// Removes the directories left by harness processes that are no longer alive: a run killed with
/// SIGKILL could not remove its own work and state directories. A directory is removed only when
/// its name ends in a process id, the process is gone, and it belongs to this user; one whose
/// process still runs (or whose id a live process has taken since) is left alone. Returns what
/// was removed.
pub(crate) fn remove_stale() -> Vec<PathBuf> {
    // Every root a run may have used (the memory-backed one may differ from run to run).
    let mut roots: Vec<PathBuf> = memory_backed().chain([std::env::temp_dir()]).collect();
    roots.dedup();
    let mut removed = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(pid) = entry.file_name().to_str().and_then(owner_pid) else {
                continue;
            };
            let stale = pid != std::process::id() && !alive(pid) && is_own_directory(&path);
            if stale && std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed
}

/// The process id a per-process directory's name ends in (`agentconf-run-4242`: 4242).
fn owner_pid(name: &str) -> Option<u32> {
    PER_PROCESS_PREFIXES.iter().find_map(|prefix| {
        let digits = name.strip_prefix(prefix)?;
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    })
}

/// Whether a process `pid` is alive (or cannot be told to be gone): kill(2) with no signal, and
/// on Linux /proc, which shows processes of other PID namespaces that kill(2) cannot reach.
fn alive(pid: u32) -> bool {
    // 0 or an id past pid_t names no single process: it cannot be told to be gone.
    let Some(id) = crate::kill::pid(pid) else {
        return true;
    };
    // kill(2) with no signal sends nothing; it only says whether the process exists.
    let reachable = !matches!(
        rustix::process::test_kill_process(id),
        Err(rustix::io::Errno::SRCH)
    );
    reachable
        || (cfg!(target_os = "linux") && std::path::Path::new(&format!("/proc/{pid}")).exists())
}

/// Whether `path` is a directory (not a link to one) owned by this process's user.
fn is_own_directory(path: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() && m.uid() == me)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_process_s_directories_go_and_a_live_one_s_stay() {
        // An id above every system's largest process id (Linux allows 2^22): nothing has it.
        let dead = i32::MAX as u32;
        let live = std::process::id();
        let mut sleeper = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .expect("spawn sleep");
        let other = sleeper.id();
        let made: Vec<PathBuf> = [
            (work_root(), format!("agentconf-run-{dead}")),
            (std::env::temp_dir(), format!("agentconf-grp-state-{dead}")),
            (work_root(), format!("agentconf-run-{other}")),
            (std::env::temp_dir(), format!("agentconf-grp-state-{live}")),
            (std::env::temp_dir(), format!("agentconf-run-e2e-{dead}")),
        ]
        .into_iter()
        .map(|(root, name)| {
            let dir = root.join(name);
            std::fs::create_dir_all(dir.join("inside")).expect("create");
            dir
        })
        .collect();
        let removed = remove_stale();
        let exists: Vec<bool> = made.iter().map(|d| d.exists()).collect();
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        for d in &made {
            let _ = std::fs::remove_dir_all(d);
        }
        assert_eq!(exists, [false, false, true, true, true], "{made:?}");
        assert!(
            removed.contains(&made[0]) && removed.contains(&made[1]),
            "{removed:?}"
        );
    }

    #[test]
    fn only_a_prefix_and_a_process_id_name_a_per_process_directory() {
        assert_eq!(owner_pid("agentconf-run-4242"), Some(4242));
        assert_eq!(owner_pid("agentconf-grp-state-7"), Some(7));
        assert_eq!(owner_pid("agentconf-smoke-12"), Some(12));
        assert_eq!(owner_pid("agentconf-run-"), None);
        assert_eq!(owner_pid("agentconf-run-12-x"), None);
        assert_eq!(owner_pid("agentconf-run-e2e-12"), None);
        assert_eq!(owner_pid("agentconf-runs-12"), None);
    }
}
