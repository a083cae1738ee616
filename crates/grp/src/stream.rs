//! A receiver on a stream: event lines in, exactly one decision line out per line, in order,
//! each flushed. Lines that have already arrived together are admitted together (one commit,
//! [`Receiver::deliver_batch`]), and their answers are written after that commit; a lone line
//! is never held back waiting for more ([`read_waiting_lines`]).

use std::fmt;
use std::io::{self, BufReader, Read, Write};

use crate::admission::{Decision, Receiver};
use crate::lines::{read_waiting_lines, WaitingLines};
use crate::store::{AdmissionStore, StoreError};

/// How much of the input is read at once: a pipe's whole default capacity, so that a burst
/// already written is seen as waiting.
const READ_BUFFER: usize = 64 * 1024;

/// Why a stream stopped before its end.
#[derive(Debug)]
pub enum StreamError {
    Read(io::Error),
    Write(io::Error),
    /// The store failed (not merely out of reach): nothing more is admitted.
    Store(StoreError),
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Read(e) => write!(f, "cannot read standard input: {e}"),
            StreamError::Write(e) => write!(f, "cannot write output: {e}"),
            StreamError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StreamError {}

/// Delivers every line of `input` to `receiver` and writes its decisions to `out`, admitting up
/// to `limit` lines that are waiting together in one commit (1: one line at a time).
pub fn admit_stream<S: AdmissionStore>(
    receiver: &Receiver<S>,
    input: impl Read,
    out: &mut impl Write,
    limit: usize,
) -> Result<(), StreamError> {
    let mut input = BufReader::with_capacity(READ_BUFFER, input);
    let mut batch = WaitingLines::default();
    loop {
        read_waiting_lines(&mut input, &mut batch, limit).map_err(StreamError::Read)?;
        if batch.is_empty() {
            return Ok(());
        }
        // Each answer is the hand-off of its line: written after the batch's admissions
        // committed and before the store marks the hand-offs done, so a crash in between leaves
        // the pairs pending (recoverable with `agentconf grp recover`), never lost. The first
        // write that fails stops the answers.
        let mut written: io::Result<()> = Ok(());
        let delivered = receiver.deliver_batch(&batch.deliveries(), |d| {
            if written.is_ok() {
                written = write_decision(out, d);
            }
        });
        written.map_err(StreamError::Write)?;
        delivered.map_err(StreamError::Store)?;
    }
}

/// One decision line, flushed.
pub fn write_decision(out: &mut impl Write, d: &Decision) -> io::Result<()> {
    let mut text = serde_json::to_string(d).map_err(io::Error::other)?;
    text.push('\n');
    out.write_all(text.as_bytes())?;
    out.flush()
}
