//! Where a run keeps its files: per-case inputs in a memory-backed work root, GRP receivers'
//! state on a disk. The lowest floor: every part of the harness that writes files sits above it.

use std::path::PathBuf;

/// Where GRP receivers' `STATE_DIR`s go: the system's temporary directory, a disk file system on
/// most systems, and never the memory-backed [`work_root`], so that a `durable` claim is
/// exercised on the kind of file system its state would live on. One directory per harness
/// process, holding one directory per running scenario, each removed when its scenario ends (and
/// the root with the last of them).
pub fn state_root() -> PathBuf {
    std::env::temp_dir().join(format!("agentconf-grp-state-{}", std::process::id()))
}

/// Where per-case input directories go: a memory-backed directory when there is one (writing
/// and removing inputs on a disk costs more than the implementation's own spawn), else the
/// system's temporary directory.
pub fn work_root() -> PathBuf {
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
