//! What ran: the implementation's identity as the results header records it — the command, the
//! SHA-256 of its program and of every file its arguments name (the script, not only the
//! interpreter), the interpreter's version, and what a persistent server declares itself to be.
//!
//! Every digest here is taken from the file itself, on every run: no cache stands in for one, so
//! nothing written beside an executable or in a cache directory can put a false digest in a
//! results header.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::process::{run, Ending, RunSpec};
use agentconf_json::hex::lower as hex;

/// What was run.
// Closed in the schema: the results reader refuses a member it does not know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ImplementationInfo {
    /// A name for the implementation (`reference` for agentconf's own).
    pub name: String,
    /// The command prefix (argv) used, empty when run in process.
    pub argv: Vec<String>,
    /// SHA-256 of the executable, where it could be resolved and read.
    // Written as null when unknown, never left out: required.
    #[schemars(schema_with = "crate::results::sha256_or_null", required)]
    pub executable_sha256: Option<String>,
    /// Every other argument of the command that names an existing file (a script after its
    /// interpreter, a configuration), with its SHA-256: what ran, not only what ran it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileDigest>,
    /// What a persistent server said it is in its start response (CONTRACT.md section 8.3):
    /// its own words, recorded, not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "agentconf_contract::protocol::Named")]
    pub declared: Option<agentconf_contract::protocol::Named>,
    /// The first line `PROGRAM --version` printed, when the program is an interpreter running a
    /// script (`python3 impl.py`): the script's digest says what ran, this what ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub interpreter_version: Option<String>,
}

/// An implementation's identity, known or being worked out on a thread of its own: hashing the
/// executable (agentconf's own is about 14 MB) and the files its command names, and perhaps
/// asking an interpreter its version, does not depend on the corpus, so a run starts it before
/// building the corpus and takes it when the header is written.
pub struct PendingIdentity(Pending);

enum Pending {
    Known(ImplementationInfo),
    Working(std::thread::JoinHandle<ImplementationInfo>),
}

impl PendingIdentity {
    /// Starts working out what `argv` runs ([`ImplementationInfo::of`]), named `name`.
    pub fn start(name: String, argv: Vec<String>) -> PendingIdentity {
        PendingIdentity(Pending::Working(std::thread::spawn(move || {
            ImplementationInfo::of(name, &argv)
        })))
    }

    /// An identity already known.
    pub fn known(info: ImplementationInfo) -> PendingIdentity {
        PendingIdentity(Pending::Known(info))
    }

    /// The identity, once worked out.
    pub fn wait(self) -> ImplementationInfo {
        match self.0 {
            Pending::Known(info) => info,
            Pending::Working(thread) => match thread.join() {
                Ok(info) => info,
                // The thread only hashes files and runs `--version`; a panic there is a bug
                // here, carried on as one.
                Err(panic) => std::panic::resume_unwind(panic),
            },
        }
    }
}

/// A file named on the command line, and its SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FileDigest {
    pub path: String,
    #[schemars(with = "agentconf_contract::schema::Sha256")]
    pub sha256: String,
}

/// The files named by `argv` after its program (the program is `executable_sha256`).
pub(crate) fn argv_files(argv: &[String]) -> Vec<FileDigest> {
    argv.iter()
        .skip(1)
        .filter(|a| std::path::Path::new(a).is_file())
        .filter_map(|a| {
            Some(FileDigest {
                path: a.clone(),
                sha256: file_sha256(std::path::Path::new(a))?,
            })
        })
        .collect()
}

/// SHA-256 (lowercase hex) of a program file, resolved through PATH when it has no slash: the
/// header's record of what was run, read from the file itself (agentconf's own executable
/// included: about 14 MB, some 40 ms, which `run` spends on a thread beside the corpus build).
pub(crate) fn executable_sha256(program: &str) -> Option<String> {
    let path = if program.contains('/') {
        std::path::PathBuf::from(program)
    } else {
        std::env::var_os("PATH")?
            .to_string_lossy()
            .split(':')
            .map(|d| std::path::Path::new(d).join(program))
            .find(|p| p.is_file())?
    };
    file_sha256(&path)
}

/// SHA-256 (lowercase hex) of a regular file's bytes, read in pieces; `None` for anything else (a
/// FIFO, whose open would wait for a writer, is looked at without blocking and never read).
fn file_sha256(path: &std::path::Path) -> Option<String> {
    use sha2::Digest as _;
    use std::io::Read as _;
    let mut file = agentconf_json::file::open_regular(path).ok()?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(_) => return None,
        }
    }
    Some(hex(&hasher.finalize()))
}

impl ImplementationInfo {
    /// What runs for `argv`: the reference in this very process when it is empty, else the
    /// command.
    pub fn of(name: String, argv: &[String]) -> ImplementationInfo {
        match argv {
            [] => ImplementationInfo::in_process(name),
            command => ImplementationInfo::of_command(name, command),
        }
    }

    /// The program, as a message names it: the command's first word, or `agentconf` for the
    /// reference in process (its executable is agentconf itself).
    pub fn program(&self) -> &str {
        self.argv.first().map_or("agentconf", String::as_str)
    }

    /// An implementation run as `argv` (a program and its arguments, or an adapter's command).
    pub(crate) fn of_command(name: String, argv: &[String]) -> ImplementationInfo {
        ImplementationInfo {
            name,
            argv: argv.to_vec(),
            executable_sha256: argv.first().and_then(|p| executable_sha256(p)),
            files: argv_files(argv),
            declared: None,
            interpreter_version: interpreter_version(argv),
        }
    }

    /// The reference run inside this very executable: its digest is this executable's.
    pub(crate) fn in_process(name: String) -> ImplementationInfo {
        ImplementationInfo {
            name,
            argv: Vec::new(),
            executable_sha256: std::env::current_exe()
                .ok()
                .and_then(|p| executable_sha256(&p.display().to_string())),
            files: Vec::new(),
            declared: None,
            interpreter_version: None,
        }
    }
}

/// One way in which what runs now is not the implementation a results file records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// Another program, or the same path with other bytes (`None`: not resolved or unreadable).
    Executable {
        recorded: String,
        recorded_sha256: Option<String>,
        now: String,
        now_sha256: Option<String>,
    },
    /// A file the command names (a script, a configuration) with other bytes.
    File {
        recorded: FileDigest,
        now: FileDigest,
    },
    /// A file the recorded command names and the command now does not.
    FileGone(FileDigest),
    /// A file the command now names and the recorded one did not.
    FileAdded(FileDigest),
}

/// Where `now` is not the implementation `recorded` describes: its executable's SHA-256, then
/// each file its command names. Files are paired in the order the commands name them, so a
/// script copied to another path is the same script when its bytes are; paths alone never
/// differ.
pub fn differences(recorded: &ImplementationInfo, now: &ImplementationInfo) -> Vec<Difference> {
    let mut out = Vec::new();
    if recorded.executable_sha256 != now.executable_sha256 {
        out.push(Difference::Executable {
            recorded: recorded.program().to_string(),
            recorded_sha256: recorded.executable_sha256.clone(),
            now: now.program().to_string(),
            now_sha256: now.executable_sha256.clone(),
        });
    }
    let count = recorded.files.len().max(now.files.len());
    for n in 0..count {
        match (recorded.files.get(n), now.files.get(n)) {
            (Some(r), Some(w)) if r.sha256 == w.sha256 => {}
            (Some(r), Some(w)) => out.push(Difference::File {
                recorded: r.clone(),
                now: w.clone(),
            }),
            (Some(r), None) => out.push(Difference::FileGone(r.clone())),
            (None, Some(w)) => out.push(Difference::FileAdded(w.clone())),
            (None, None) => {}
        }
    }
    out
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digest = |d: &Option<String>| d.clone().unwrap_or_else(|| "unknown".into());
        match self {
            Difference::Executable {
                recorded,
                recorded_sha256,
                now,
                now_sha256,
            } => write!(
                f,
                "executable: recorded {recorded} sha256 {}, now {now} sha256 {}",
                digest(recorded_sha256),
                digest(now_sha256)
            ),
            Difference::File { recorded, now } if recorded.path == now.path => write!(
                f,
                "file {}: recorded sha256 {}, now {}",
                now.path, recorded.sha256, now.sha256
            ),
            Difference::File { recorded, now } => write!(
                f,
                "file: recorded {} sha256 {}, now {} sha256 {}",
                recorded.path, recorded.sha256, now.path, now.sha256
            ),
            Difference::FileGone(r) => write!(
                f,
                "file {} (sha256 {}): named by the recorded command, by no argument now",
                r.path, r.sha256
            ),
            Difference::FileAdded(n) => write!(
                f,
                "file {} (sha256 {}): named now, not by the recorded command",
                n.path, n.sha256
            ),
        }
    }
}

/// Interpreters whose `--version` prints their version and does nothing else. A program not
/// listed is never run for its version: an unknown program may take `--version` as work.
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby",
    "perl", "php", "java", "bash", "zsh", "Rscript", "julia", "elixir", "dotnet",
];

/// How long `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// The first line `PROGRAM --version` prints (stdout, else stderr, where some print it), when
/// `argv` is a listed interpreter running a script file; at most 200 characters, control
/// characters dropped.
pub(crate) fn interpreter_version(argv: &[String]) -> Option<String> {
    let program = argv.first()?;
    let base = std::path::Path::new(program).file_name()?.to_str()?;
    // `python3.12` is python3; a version suffix does not make another program.
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let listed = INTERPRETERS.contains(&base) || INTERPRETERS.contains(&stem);
    // A script among the arguments (only asked whether one is a file: `argv_files` hashes them).
    let runs_a_script = argv
        .iter()
        .skip(1)
        .any(|a| std::path::Path::new(a).is_file());
    if !listed || !runs_a_script {
        return None;
    }
    let out = run(&RunSpec {
        argv: vec![program.clone(), "--version".into()],
        stdin: Vec::new(),
        timeout: VERSION_TIMEOUT,
        capture_limit: 4096,
    })
    .ok()?;
    if !matches!(out.ending, Ending::Exited(0)) {
        return None;
    }
    let first_line = |bytes: &[u8]| -> Option<String> {
        String::from_utf8_lossy(bytes)
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.chars().filter(|c| !c.is_control()).take(200).collect())
    };
    first_line(&out.stdout.bytes).or_else(|| first_line(&out.stderr.bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(argv: &[&str], exe: Option<&str>, files: &[(&str, &str)]) -> ImplementationInfo {
        ImplementationInfo {
            name: "x".into(),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            executable_sha256: exe.map(String::from),
            files: files
                .iter()
                .map(|(path, sha256)| FileDigest {
                    path: path.to_string(),
                    sha256: sha256.to_string(),
                })
                .collect(),
            declared: None,
            interpreter_version: None,
        }
    }

    /// The same bytes are the same implementation wherever they are; other bytes, another
    /// program, or a file more or less are not.
    #[test]
    fn identities_differ_by_bytes_not_paths() {
        let recorded = info(
            &["python3", "/a/impl.py"],
            Some("p"),
            &[("/a/impl.py", "1")],
        );
        let moved = info(&["python3", "./impl.py"], Some("p"), &[("./impl.py", "1")]);
        assert!(differences(&recorded, &moved).is_empty());
        let edited = info(
            &["python3", "/a/impl.py"],
            Some("p"),
            &[("/a/impl.py", "2")],
        );
        let d = differences(&recorded, &edited);
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].to_string(),
            "file /a/impl.py: recorded sha256 1, now 2"
        );
        let other_program = info(&["pypy3", "/a/impl.py"], Some("q"), &[("/a/impl.py", "1")]);
        assert!(matches!(
            differences(&recorded, &other_program).as_slice(),
            [Difference::Executable { recorded, now, .. }] if recorded == "python3" && now == "pypy3"
        ));
        let more = info(
            &["python3", "/a/impl.py", "c.toml"],
            Some("p"),
            &[("/a/impl.py", "1"), ("c.toml", "3")],
        );
        assert!(matches!(
            differences(&recorded, &more).as_slice(),
            [Difference::FileAdded(f)] if f.path == "c.toml"
        ));
        assert!(matches!(
            differences(&more, &recorded).as_slice(),
            [Difference::FileGone(f)] if f.path == "c.toml"
        ));
        // The reference in process against a command: another program.
        let in_process = info(&[], Some("agentconf"), &[]);
        assert_eq!(differences(&in_process, &recorded).len(), 2);
    }
}
