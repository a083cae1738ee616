//! Helpers shared by the fuzz targets: carving one fuzz input into several, and the corpus
//! vectors the structured targets need (built once per process). (The targets themselves are
//! `#[no_mangle]` entry points, which the `unsafe_code` lint counts; this library has none.)
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use agentconf_contract::vector::Vector;

/// The whole generated corpus, sorted by id (the same vectors as `vectors/`).
pub fn corpus() -> &'static [Vector] {
    static CORPUS: OnceLock<Vec<Vector>> = OnceLock::new();
    CORPUS.get_or_init(agentconf_corpus::corpus)
}

/// Takes the first byte as a selector; the rest is the payload. Empty input gives selector 0.
pub fn selector(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((first, rest)) => (*first, rest),
        None => (0, data),
    }
}

/// Splits `data` at the first `\0`: the part before and the part after (the whole input and an
/// empty slice when there is none). Lets one input carry two documents.
pub fn two_parts(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// A reader that hands out at most `step` bytes per call, to drive streaming parsers through
/// every buffer boundary.
pub struct Trickle<'a> {
    pub data: &'a [u8],
    pub step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.max(1).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
