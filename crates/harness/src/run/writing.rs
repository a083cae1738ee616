//! The results file as a run writes it: the header with the first settled case, each line as
//! soon as every case before it is settled, the footer at the end; or, when a write fails, what
//! was written kept in its temporary file.

use std::collections::BTreeMap;

use agentconf_contract::protocol::Named;

use super::WriteFailure;
use crate::results::{Footer, Header, Line, ResultLine, ResultsWriter, WriteError};

/// The results file as the run writes it.
pub(super) struct Writing {
    out: Option<ResultsWriter>,
    /// The header until it is written.
    header: Option<Header>,
    /// The header once written, with what the implementation declared.
    written_header: Option<Header>,
    /// The first case not yet written (or left out).
    next: usize,
    /// Settled cases waiting for those before them: `None` for one left out.
    pending: BTreeMap<usize, Option<ResultLine>>,
    lines_written: usize,
    failure: Option<WriteError>,
}

impl Writing {
    /// Writing to `out` (nothing is written without one), `header` first.
    pub(super) fn new(out: Option<ResultsWriter>, header: Header) -> Writing {
        Writing {
            out,
            header: Some(header),
            written_header: None,
            next: 0,
            pending: BTreeMap::new(),
            lines_written: 0,
            failure: None,
        }
    }

    /// The header as it was written (with what the implementation declared), if it was.
    pub(super) fn written_header(&self) -> Option<&Header> {
        self.written_header.as_ref()
    }

    /// The header not yet written, taken for the run's end.
    pub(super) fn take_header(&mut self) -> Option<Header> {
        self.header.take()
    }

    /// Case `i` settled: writes every line now in order. `false` once the file cannot be
    /// written, which stops the run.
    pub(super) fn settle(
        &mut self,
        i: usize,
        line: Option<&ResultLine>,
        declared: Option<Named>,
    ) -> bool {
        if self.failure.is_some() {
            return false;
        }
        if self.out.is_none() {
            return true;
        }
        if let Some(mut h) = self.header.take() {
            h.implementation.declared = declared;
            if let Err(e) = self.write(&Line::Header(h.clone())) {
                self.failure = Some(e);
                return false;
            }
            self.written_header = Some(h);
        }
        self.pending.insert(i, line.cloned());
        while let Some(settled) = self.pending.remove(&self.next) {
            self.next += 1;
            if let Some(line) = settled {
                if let Err(e) = self.write(&Line::Result(line)) {
                    self.failure = Some(e);
                    return false;
                }
                self.lines_written += 1;
            }
        }
        true
    }

    fn write(&mut self, line: &Line) -> Result<(), WriteError> {
        match &mut self.out {
            Some(out) => out.line(line),
            None => Ok(()),
        }
    }

    /// The end of the run: the header if no case wrote it, the lines still waiting (cases after
    /// one that never ran), the footer, and the rename; or, after a failure, the partial file
    /// kept.
    pub(super) fn finish(mut self, header: &Header, footer: &Footer) -> Option<WriteFailure> {
        let mut out = self.out.take()?;
        let mut result = Ok(());
        if self.failure.is_none() {
            if self.written_header.is_none() {
                result = out.line(&Line::Header(header.clone()));
            }
            for line in std::mem::take(&mut self.pending).into_values().flatten() {
                if result.is_err() {
                    break;
                }
                result = out.line(&Line::Result(line));
                self.lines_written += usize::from(result.is_ok());
            }
            if result.is_ok() {
                result = out.line(&Line::Footer(footer.clone()));
            }
            if result.is_ok() {
                return out.finish().err().map(|error| WriteFailure {
                    error,
                    partial: None,
                    lines_written: self.lines_written,
                });
            }
        }
        let error = match (self.failure.take(), result) {
            (Some(e), _) | (None, Err(e)) => e,
            (None, Ok(())) => return None,
        };
        Some(WriteFailure {
            error,
            partial: Some(out.keep_partial()),
            lines_written: self.lines_written,
        })
    }
}
