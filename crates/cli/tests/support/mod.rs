//! Helpers shared by the CLI integration tests that declare `mod support;`: a temporary
//! directory per test and a run of the `agentconf` binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory per test, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory, named after the test binary, the process, a counter and `label`.
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "agentconf-{}-{}-{n}-{label}",
            env!("CARGO_CRATE_NAME"),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one run of the binary did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Both streams, for an assertion's message.
    pub fn both(&self) -> String {
        format!("stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr)
    }
}

/// Runs `agentconf` with `args` and no standard input, and asserts that it did not panic and
/// that its standard output is UTF-8.
pub fn run(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .args(args)
        .output()
        .expect("run agentconf");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not UTF-8: {e}")),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "{args:?} panicked:\n{}",
        run.both()
    );
    run
}
