//! Opening FILE arguments: a path, or '-' for standard input.
//!
//! A path must name a regular file. A FIFO, socket or device is refused before anything is read
//! from it: opening a FIFO for reading blocks until a writer appears, so a command handed one
//! would hang forever. The check is made on the open file itself (opened without blocking), so a
//! path swapped for a FIFO between a look and the open cannot slip through.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

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

// Commands that still speak of their errors as sentences take an input error as its sentence.
impl From<InputError> for String {
    fn from(e: InputError) -> String {
        e.to_string()
    }
}

/// What a file type is called in a message, when it is not a regular file.
pub fn kind_of(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_block_device() || t.is_char_device() {
        Some("a device")
    } else {
        Some("not a regular file")
    }
}

/// Opens `path`, or standard input for `-`, as [`open_regular`] does.
pub fn open(path: &Path) -> Result<Input, InputError> {
    if path.as_os_str() == "-" {
        return Ok(Input {
            name: "standard input".into(),
            reader: Box::new(io::stdin().lock()),
        });
    }
    let name = path.display().to_string();
    let file = open_regular(path).map_err(|problem| InputError {
        name: name.clone(),
        problem,
    })?;
    Ok(Input {
        name,
        reader: Box::new(file),
    })
}

/// Opens a path that must be a regular file, without ever blocking on it: opened with
/// `O_NONBLOCK` (which a FIFO honours and a regular file ignores), then its type checked on the
/// open descriptor.
pub fn open_regular(path: &Path) -> Result<File, InputProblem> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(InputProblem::Io)?;
    let meta = file.metadata().map_err(InputProblem::Io)?;
    match kind_of(&meta.file_type()) {
        Some(kind) => Err(InputProblem::NotARegularFile(kind)),
        None => Ok(file),
    }
}

/// Describes a read failure of an input that was opened.
pub fn read_error(name: &str, e: &io::Error) -> InputError {
    InputError {
        name: name.to_string(),
        problem: InputProblem::Io(io::Error::new(e.kind(), e.to_string())),
    }
}
