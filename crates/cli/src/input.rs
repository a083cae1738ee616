//! Opening FILE arguments: a path, or '-' for standard input.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// A readable input and the name to use for it in messages.
pub struct Input {
    pub name: String,
    pub reader: Box<dyn Read>,
}

/// Opens `path`, or standard input for `-`. Directories are refused here, with a clear message,
/// rather than failing on the first read.
pub fn open(path: &Path) -> Result<Input, String> {
    if path.as_os_str() == "-" {
        return Ok(Input {
            name: "standard input".into(),
            reader: Box::new(io::stdin().lock()),
        });
    }
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    match file.metadata() {
        Ok(m) if m.is_dir() => return Err(format!("cannot read {name}: it is a directory")),
        Ok(_) => {}
        Err(e) => return Err(format!("cannot read {name}: {e}")),
    }
    Ok(Input {
        name,
        reader: Box::new(file),
    })
}

/// Describes a read failure of an input that was opened.
pub fn read_error(name: &str, e: &io::Error) -> String {
    format!("cannot read {name}: {e}")
}
