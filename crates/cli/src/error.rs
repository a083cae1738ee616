//! The CLI's errors: every way a command can fail before it has a verdict to show, each ending in
//! one line at the edge (`main`), exit 2. Typed where the failure has a shape a caller may act on
//! (a file that cannot be read or written, a results file refused, a run that could not finish);
//! a usage mistake is its sentence.

use std::fmt;
use std::io::{self, Write};

use agentconf_harness::results::{Incomplete, ReadError, WriteError};
use agentconf_harness::RunError;
use agentconf_harness::WriteFailure;

use crate::input::InputError;

/// Every failure of a command.
#[derive(Debug)]
pub enum Error {
    /// Standard output was closed by its reader (`… | head`): no message, as for any Unix tool
    /// stopped by SIGPIPE; the exit code still says the output was cut.
    OutputClosed,
    /// Standard output could not be written (a full disk, say).
    Output(io::Error),
    /// A file argument could not be read.
    Input(InputError),
    /// A file could not be written.
    Write(WriteError),
    /// A file given as a results file is not one.
    NotResults { name: String, error: ReadError },
    /// A results file that is not whole: no report is drawn from it.
    Incomplete { name: String, error: Incomplete },
    /// The run could not finish.
    Run(RunError),
    /// The run's results file could not be written as it went (a full disk, say): the run
    /// stopped there; the table of what was graded was printed, and the lines written are kept.
    ResultsNotWritten {
        target: std::path::PathBuf,
        failure: WriteFailure,
    },
    /// A signing key, a signature or a list of signers that cannot be used.
    Signature(agentconf_harness::signing::SignatureError),
    /// Arguments that do not go together, or a value a flag refuses, in one sentence.
    Usage(String),
    /// An input that was read and refused (not the document, the key or the file it must be),
    /// in one sentence naming it.
    Refused(String),
    /// A file or directory that could not be created or written (a report, an export), in one
    /// sentence naming it.
    Unwritable(String),
    /// A GRP admission store that could not be opened or used.
    Store(String),
    /// The implementation's program cannot be run (not a regular file; agentconf itself not
    /// found for the reference), in one sentence naming it.
    Unrunnable(String),
}

/// Sorting a failure described in a sentence into its kind, where it is first described: a
/// `Result` whose error is a sentence becomes the CLI's, of the kind named. There is no
/// conversion from a bare sentence, so none can silently become a usage error.
pub trait Sort<T> {
    fn usage(self) -> Result<T>;
    fn refused(self) -> Result<T>;
    fn unwritable(self) -> Result<T>;
    fn store(self) -> Result<T>;
    fn unrunnable(self) -> Result<T>;
}

impl<T, E: Into<String>> Sort<T> for std::result::Result<T, E> {
    fn usage(self) -> Result<T> {
        self.map_err(|e| Error::Usage(e.into()))
    }
    fn refused(self) -> Result<T> {
        self.map_err(|e| Error::Refused(e.into()))
    }
    fn unwritable(self) -> Result<T> {
        self.map_err(|e| Error::Unwritable(e.into()))
    }
    fn store(self) -> Result<T> {
        self.map_err(|e| Error::Store(e.into()))
    }
    fn unrunnable(self) -> Result<T> {
        self.map_err(|e| Error::Unrunnable(e.into()))
    }
}

/// Whose failure an error is: what a caller (a script, CI) may act on. Each kind has its exit
/// code; today every one is the contract's 2 (usage errors, unreadable input, unwritable
/// output), so that a verdict's 0 and 1 never mean a failure to reach one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The command line: flags that do not go together, a value a flag refuses.
    Usage,
    /// A file or stream given to read: missing, unreadable, or not what it must be.
    Input,
    /// A file or standard output that could not be written.
    Output,
    /// The GRP admission store.
    Store,
    /// The implementation under test, which the run could not start or finish with.
    Implementation,
}

impl Kind {
    /// The exit code of an error of this kind.
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Usage | Kind::Input | Kind::Output | Kind::Store | Kind::Implementation => {
                agentconf_contract::exit::EXIT_USAGE
            }
        }
    }
}

impl Error {
    /// Whose failure this is: one match over every error, so a new one cannot go unsorted.
    pub fn kind(&self) -> Kind {
        match self {
            Error::Usage(_) => Kind::Usage,
            Error::Input(_) | Error::NotResults { .. } | Error::Incomplete { .. } => Kind::Input,
            Error::Refused(_) | Error::Signature(_) => Kind::Input,
            Error::OutputClosed | Error::Output(_) | Error::Write(_) => Kind::Output,
            Error::ResultsNotWritten { .. } | Error::Unwritable(_) => Kind::Output,
            Error::Store(_) => Kind::Store,
            Error::Run(_) | Error::Unrunnable(_) => Kind::Implementation,
        }
    }

    /// Whether the error is the closed-output case, which prints nothing.
    pub fn is_output_closed(&self) -> bool {
        matches!(self, Error::OutputClosed)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutputClosed => f.write_str("standard output was closed by its reader"),
            Error::Output(e) => write!(f, "cannot write output: {e}"),
            Error::Input(e) => write!(f, "{e}"),
            Error::Write(e) => write!(f, "{e}"),
            Error::NotResults { name, error } => write!(f, "{name}: {error}"),
            Error::Incomplete { name, error } => write!(f, "{name}: refused: {error}"),
            Error::Run(e) => write!(f, "{e}"),
            Error::ResultsNotWritten { target, failure } => {
                write!(
                    f,
                    "{}: the run stopped there, after {} result lines were written, and the \
                     table above is what was graded; {} is not written",
                    failure.error,
                    failure.lines_written,
                    target.display()
                )?;
                match &failure.partial {
                    Some(p) => write!(f, " (the lines written are kept in {})", p.display()),
                    None => Ok(()),
                }
            }
            Error::Signature(e) => write!(f, "{e}"),
            Error::Usage(message)
            | Error::Refused(message)
            | Error::Unwritable(message)
            | Error::Store(message)
            | Error::Unrunnable(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<InputError> for Error {
    fn from(e: InputError) -> Error {
        Error::Input(e)
    }
}

impl From<WriteError> for Error {
    fn from(e: WriteError) -> Error {
        Error::Write(e)
    }
}

impl From<agentconf_harness::signing::SignatureError> for Error {
    fn from(e: agentconf_harness::signing::SignatureError) -> Error {
        Error::Signature(e)
    }
}

impl From<agentconf_harness::RunFailure> for Error {
    fn from(e: agentconf_harness::RunFailure) -> Error {
        use agentconf_harness::{FilesError, RunFailure};
        match e {
            RunFailure::Files(FilesError::Write(e)) | RunFailure::SideOutput(e) => Error::Write(e),
            RunFailure::Files(shared @ FilesError::Shared { .. }) => {
                Error::Usage(shared.to_string())
            }
            RunFailure::Run(e) => Error::Run(e),
        }
    }
}

/// What a command returns.
pub type Result<T> = std::result::Result<T, Error>;

/// Writes a message to standard error. A closed or full standard error is ignored: the exit code
/// still says what happened, and `eprintln!` would panic instead.
pub fn to_stderr(text: &str) {
    // Messages carry paths, names and output that came from outside (a claim, an
    // implementation, an adapter): nothing in them may act on the terminal.
    let text = agentconf_json::text::terminal_text(text);
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_is_sorted_where_it_is_said_and_keeps_the_contract_exit_code() {
        let said: std::result::Result<(), &str> = Err("--store: no such database");
        let store = said.store().expect_err("an error");
        assert_eq!(store.kind(), Kind::Store);
        assert_eq!(store.to_string(), "--store: no such database");
        let written: std::result::Result<(), String> = Err("cannot write out.json".into());
        assert_eq!(
            written.unwritable().expect_err("an error").kind(),
            Kind::Output
        );
        assert_eq!(Error::OutputClosed.kind(), Kind::Output);
        assert_eq!(Error::Usage("x".into()).kind(), Kind::Usage);
        // CONTRACT: 0 and 1 are verdicts; every failure to reach one is 2, whatever its kind.
        for kind in [
            Kind::Usage,
            Kind::Input,
            Kind::Output,
            Kind::Store,
            Kind::Implementation,
        ] {
            assert_eq!(kind.exit_code(), agentconf_contract::exit::EXIT_USAGE);
        }
    }
}
