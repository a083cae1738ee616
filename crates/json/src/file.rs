//! Opening a file named by untrusted input, for reading: it must be a regular file. A FIFO,
//! socket or device is refused before anything is read, and without blocking: opening a FIFO for
//! reading waits for a writer, so a command handed one would hang forever. The file is opened
//! with `O_NONBLOCK` (which a FIFO honours and a regular file ignores) and its type is checked on
//! the open descriptor, so a path swapped for a FIFO between a look and the open cannot slip
//! through.

use std::fmt;
use std::fs::{File, FileType};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a path could not be opened as a regular file.
#[derive(Debug)]
pub enum OpenError {
    /// It is something else: a directory, FIFO, socket or device (named for messages).
    NotARegularFile(&'static str),
    Io(io::Error),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NotARegularFile(kind) => write!(f, "it is {kind}, not a regular file"),
            OpenError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OpenError {}

/// What a file type is called in a message; `None` for a regular file.
pub fn kind_of(t: &FileType) -> Option<&'static str> {
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

/// Opens `path` for reading if, and only if, it is a regular file (following symbolic links),
/// never blocking on the open.
pub fn open_regular(path: &Path) -> Result<File, OpenError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(OpenError::Io)?;
    let meta = file.metadata().map_err(OpenError::Io)?;
    match kind_of(&meta.file_type()) {
        Some(kind) => Err(OpenError::NotARegularFile(kind)),
        None => Ok(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_and_a_directory_are_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("agentconf-open-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            open_regular(&fifo),
            Err(OpenError::NotARegularFile("a FIFO (named pipe)"))
        ));
        assert!(matches!(
            open_regular(&dir),
            Err(OpenError::NotARegularFile("a directory"))
        ));
        let file = dir.join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular(&file).is_ok());
        assert!(matches!(
            open_regular(&dir.join("missing")),
            Err(OpenError::Io(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
