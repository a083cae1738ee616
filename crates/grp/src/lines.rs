//! Reading change events as JSON lines from a stream, with a bound on each line: shared by the
//! reference receiver (`agentconf grp admit`, `agentconf impl grp-admit`) and the test mutants,
//! so every receiver applies the limit the same way.

use std::io::{self, BufRead, Read};

use crate::admission::MAX_EVENT_BYTES;

/// What [`read_event_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventLine {
    /// One event's bytes are in the buffer, line ending (`\n` or `\r\n`) removed.
    Line,
    /// The event is longer than [`MAX_EVENT_BYTES`]; the rest of its line was consumed unkept.
    TooLong,
    /// The stream ended.
    End,
}

/// Reads the next line into `buf` (cleared first). The limit applies to the event, not its line
/// ending, and an over-long line is skipped without being held in memory.
pub fn read_event_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<EventLine> {
    buf.clear();
    // Room for the limit plus "\r\n".
    let room = MAX_EVENT_BYTES as u64 + 2;
    let n = input.by_ref().take(room).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(EventLine::End);
    }
    if buf.last() != Some(&b'\n') && n as u64 == room {
        let mut sink = Vec::new();
        loop {
            sink.clear();
            let k = input
                .by_ref()
                .take(64 * 1024)
                .read_until(b'\n', &mut sink)?;
            if k == 0 || sink.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(EventLine::TooLong);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    if buf.len() > MAX_EVENT_BYTES {
        return Ok(EventLine::TooLong);
    }
    Ok(EventLine::Line)
}

/// The most lines a receiver admits together ([`read_waiting_lines`]): enough that a burst
/// pays one commit per 64 lines, few enough that the first line's answer waits for at most 63
/// other lines' checks (a few milliseconds).
pub const BATCH_LIMIT: usize = 64;

/// What [`read_waiting_lines`] read: the batch's lines, each an event or a line too long.
#[derive(Debug, Default)]
pub struct WaitingLines {
    bytes: Vec<u8>,
    /// Each line's place in `bytes`, `None` for a line over the limit.
    lines: Vec<Option<std::ops::Range<usize>>>,
}

impl WaitingLines {
    /// The lines, in order, as the receiver takes them.
    pub fn deliveries(&self) -> Vec<crate::admission::Delivery<'_>> {
        use crate::admission::Delivery;
        self.lines
            .iter()
            .map(|line| match line {
                Some(range) => Delivery::Line(&self.bytes[range.clone()]),
                None => Delivery::Oversized,
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// Reads the next line, waiting for it as [`read_event_line`] does, then every further line that
/// has already arrived whole in `input`'s buffer, up to `limit` lines in all (at least one). It
/// never waits for a line that has not arrived: a lone line is a batch of one, answered as soon
/// as it would be alone. Empty at the end of the stream.
pub fn read_waiting_lines<R: Read>(
    input: &mut io::BufReader<R>,
    batch: &mut WaitingLines,
    limit: usize,
) -> io::Result<()> {
    batch.bytes.clear();
    batch.lines.clear();
    let mut line = Vec::new();
    loop {
        match read_event_line(input, &mut line)? {
            EventLine::End => return Ok(()),
            EventLine::TooLong => batch.lines.push(None),
            EventLine::Line => {
                let start = batch.bytes.len();
                batch.bytes.extend_from_slice(&line);
                batch.lines.push(Some(start..batch.bytes.len()));
            }
        }
        // Only a line whose end is already buffered: reading it cannot wait on the input.
        if batch.lines.len() >= limit.max(1) || !input.buffer().contains(&b'\n') {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(EventLine, Vec<u8>)> {
        let mut reader = io::BufReader::new(input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let r = read_event_line(&mut reader, &mut buf).unwrap();
            if r == EventLine::End {
                return out;
            }
            out.push((r, buf.clone()));
        }
    }

    #[test]
    fn a_batch_is_what_is_buffered_up_to_the_limit() {
        let input: &[u8] = b"a\nb\nc\nd\ne";
        let mut reader = io::BufReader::new(input);
        let mut batch = WaitingLines::default();
        let mut got = Vec::new();
        loop {
            read_waiting_lines(&mut reader, &mut batch, 3).unwrap();
            if batch.is_empty() {
                break;
            }
            got.push(batch.deliveries().len());
        }
        // Three, then "d" (the unended "e" may be more to come: not taken), then "e".
        assert_eq!(got, [3, 1, 1]);
        // A reader whose buffer holds one line at a time gives batches of one.
        let mut small = io::BufReader::with_capacity(2, input);
        read_waiting_lines(&mut small, &mut batch, 64).unwrap();
        assert_eq!(batch.len(), 1);
    }

    #[test]
    fn endings_and_limits() {
        assert_eq!(
            lines(b"a\nb\r\nc"),
            [
                (EventLine::Line, b"a".to_vec()),
                (EventLine::Line, b"b".to_vec()),
                (EventLine::Line, b"c".to_vec())
            ]
        );
        // Exactly the limit is an event whatever its line ending (or none, at the end).
        let exact = vec![b'x'; MAX_EVENT_BYTES];
        for (ending, next) in [(&b"\n"[..], true), (b"\r\n", true), (b"", false)] {
            let mut input = exact.clone();
            input.extend_from_slice(ending);
            if next {
                input.extend_from_slice(b"next\n");
            }
            let got = lines(&input);
            assert_eq!(
                got[0],
                (EventLine::Line, exact.clone()),
                "ending {ending:?}"
            );
            assert_eq!(got.len(), if next { 2 } else { 1 });
        }
        // One byte over is too long, with either ending.
        for ending in [&b"\n"[..], b"\r\n"] {
            let mut input = vec![b'x'; MAX_EVENT_BYTES + 1];
            input.extend_from_slice(ending);
            input.extend_from_slice(b"next\n");
            let got = lines(&input);
            assert_eq!(got[0].0, EventLine::TooLong, "ending {ending:?}");
            assert_eq!(got[1], (EventLine::Line, b"next".to_vec()));
        }
        let mut huge = vec![b'x'; 3 * MAX_EVENT_BYTES];
        huge.extend_from_slice(b"\nnext\n");
        let got = lines(&huge);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, EventLine::TooLong);
        assert_eq!(got[1], (EventLine::Line, b"next".to_vec()));
    }
}
