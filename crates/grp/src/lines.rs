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
