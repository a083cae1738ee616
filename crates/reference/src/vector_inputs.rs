//! A vector's inputs read from memory, named by their file names: the reference judges a vector
//! without writing it to disk.

use std::io::Read;

use agentconf_contract::call::Call;
use agentconf_contract::case::Case;
use agentconf_contract::vector::Vector;

use crate::dispatch::Inputs;

/// The inputs of one vector, opened by file name.
pub struct VectorInputs<'v>(pub &'v Vector);

impl Inputs for VectorInputs<'_> {
    fn open(&self, name: &str) -> Result<Box<dyn Read + '_>, String> {
        let bytes = self
            .0
            .input_file_bytes(name)
            .ok_or_else(|| format!("no readable input file {name}"))?;
        Ok(Box::new(std::io::Cursor::new(bytes)))
    }
}

/// The call of an AER-1 case, its inputs named by the vector's file names.
pub fn call_of(c: &Case<'_>) -> Option<Call> {
    let v = c.vector;
    Call::for_case(c, |role| {
        v.inputs
            .iter()
            .find(|i| i.role == role)
            .map(|i| i.file.clone())
    })
}
