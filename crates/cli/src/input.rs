//! Opening FILE arguments: a path, or '-' for standard input. A path must name a regular file: a
//! FIFO, socket or device is refused, without blocking, before anything is read from it.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use agentconf_json::file::{open_regular, OpenError};

/// A readable input and the name to use for it in messages.
pub struct Input {
    pub name: String,
    pub reader: Box<dyn Read>,
}

/// An input that could not be opened or read.
#[derive(Debug)]
pub struct InputError {
    /// The name the user gave (a path, or `standard input`).
    pub name: String,
    pub problem: InputProblem,
}

/// Why an input could not be read.
#[derive(Debug)]
pub enum InputProblem {
    /// Not a regular file: a directory, FIFO, socket or device (named).
    NotARegularFile(&'static str),
    Io(io::Error),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            InputProblem::NotARegularFile(kind) => write!(
                f,
                "cannot read {}: it is {kind}, not a regular file",
                self.name
            ),
            InputProblem::Io(e) => write!(f, "cannot read {}: {e}", self.name),
        }
    }
}

impl std::error::Error for InputError {}

/// Opens `path` (a regular file: see `agentconf_json::file`), or standard input for `-`.
pub fn open(path: &Path) -> Result<Input, InputError> {
    if path.as_os_str() == "-" {
        return Ok(Input {
            name: "standard input".into(),
            reader: Box::new(io::stdin().lock()),
        });
    }
    let name = path.display().to_string();
    let file = open_regular(path).map_err(|e| InputError {
        name: name.clone(),
        problem: match e {
            OpenError::NotARegularFile(kind) => InputProblem::NotARegularFile(kind),
            OpenError::Io(e) => InputProblem::Io(e),
        },
    })?;
    Ok(Input {
        name,
        reader: Box::new(file),
    })
}

/// Describes a read failure of an input that was opened.
pub fn read_error(name: &str, e: &io::Error) -> InputError {
    InputError {
        name: name.to_string(),
        problem: InputProblem::Io(io::Error::new(e.kind(), e.to_string())),
    }
}
