//! The files a run writes, checked before anything runs: each named for one output only, each
//! writable, and the results file this run's alone (its lock taken, its disk's room checked). A
//! run that could not write its results, its report or its signature costs nothing.

use std::path::{Path, PathBuf};

use crate::results::{check_writable, ResultsWriter, WriteError};

/// One output a run writes, by the name its user gave it (`--html`) and its path.
#[derive(Clone, Debug)]
pub struct NamedFile {
    /// How the user named it (a flag, or a phrase such as "the signature").
    pub name: String,
    pub path: PathBuf,
}

impl NamedFile {
    pub fn new(name: impl Into<String>, path: impl Into<PathBuf>) -> NamedFile {
        NamedFile {
            name: name.into(),
            path: path.into(),
        }
    }
}

/// Why a run did not start: one of its files cannot be written as asked.
#[derive(Debug)]
pub enum FilesError {
    /// One file named for two outputs (`--out X --html X`): the second written would replace
    /// the first, and the results would be lost behind a success.
    Shared {
        first: String,
        second: String,
        path: PathBuf,
    },
    /// A file cannot be created there (its directory, its permissions, a link in the way), or
    /// the results file is another run's.
    Write(WriteError),
}

impl std::fmt::Display for FilesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilesError::Shared {
                first,
                second,
                path,
            } => write!(
                f,
                "{first} and {second} both name {}: each output needs a file of its own \
                 (nothing was run)",
                path.display()
            ),
            FilesError::Write(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FilesError {}

impl From<WriteError> for FilesError {
    fn from(e: WriteError) -> FilesError {
        FilesError::Write(e)
    }
}

/// Refuses one file named for two outputs.
pub(super) fn check_distinct(files: &[&NamedFile]) -> Result<(), FilesError> {
    for (i, a) in files.iter().enumerate() {
        for b in &files[i + 1..] {
            if same_target(&a.path, &b.path) {
                return Err(FilesError::Shared {
                    first: a.name.clone(),
                    second: b.name.clone(),
                    path: a.path.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Every check before a run: distinct files, the results file created (locked, its room
/// checked) for `cases` lines when one is asked for, the others found writable.
pub(super) fn prepare(
    results: Option<&NamedFile>,
    others: &[&NamedFile],
    cases: usize,
) -> Result<Option<ResultsWriter>, FilesError> {
    let all: Vec<&NamedFile> = results.into_iter().chain(others.iter().copied()).collect();
    check_distinct(&all)?;
    let writer = match results {
        Some(r) => Some(ResultsWriter::create(&r.path, cases)?),
        None => None,
    };
    for other in others {
        check_writable(&other.path)?;
    }
    Ok(writer)
}

/// Whether two output paths name one file: the same file where both exist (any links or `..`
/// in between), else the same name in the same (resolved) directory.
fn same_target(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return (ma.dev(), ma.ino()) == (mb.dev(), mb.ino());
    }
    let resolved = |p: &Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::canonicalize(dir)
            .ok()
            .map(|d| d.join(p.file_name().unwrap_or_default()))
    };
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_for_two_outputs_is_refused_through_a_dot_dot() {
        let dir = std::env::temp_dir().join(format!("agentconf-files-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).expect("temporary directory");
        let out = NamedFile::new("--out", dir.join("r.jsonl"));
        let html = NamedFile::new("--html", dir.join("sub/../r.jsonl"));
        let other = NamedFile::new("--emit-xfail", dir.join("x.toml"));
        let refused = check_distinct(&[&out, &other, &html]);
        assert!(
            matches!(&refused, Err(FilesError::Shared { first, second, .. })
                if first == "--out" && second == "--html"),
            "{refused:?}"
        );
        assert!(check_distinct(&[&out, &other]).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
