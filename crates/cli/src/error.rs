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
    /// Arguments that do not go together, or input a command refuses, in one sentence.
    Usage(String),
}

impl Error {
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
            Error::Usage(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::Usage(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::Usage(message.to_string())
    }
}

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

impl From<RunError> for Error {
    fn from(e: RunError) -> Error {
        Error::Run(e)
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
