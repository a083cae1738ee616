//! Writing a vector's inputs into a fresh directory, so an implementation never sees (or writes
//! to) the corpus itself.

use std::io;
use std::path::{Path, PathBuf};

use agentconf_contract::vector::Vector;

/// Writes every input file of `vector` into `dir` (created; must not contain them already) and
/// returns `(role, path)` for each, in input order.
pub fn write_inputs(vector: &Vector, dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::with_capacity(vector.inputs.len());
    for input in &vector.inputs {
        // File names come from our own generators; refuse anything that could leave `dir`.
        if input.file.contains(['/', '\\']) || input.file.starts_with('.') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: input file name {:?} is not a plain name",
                    vector.id, input.file
                ),
            ));
        }
        let bytes = input.bytes().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: input {} does not decode", vector.id, input.file),
            )
        })?;
        let path = dir.join(&input.file);
        std::fs::write(&path, bytes)?;
        out.push((input.role.clone(), path));
    }
    Ok(out)
}
