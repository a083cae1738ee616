//! Streams the elements of a top-level JSON array without holding the array.
//!
//! The splitter only finds where each element starts and ends (tracking strings, escapes and
//! bracket depth); every element's bytes are then parsed by serde_json in full. This keeps memory
//! bounded by the largest element, not the number of elements, and lets a malformed element be
//! reported while the ones after it are still checked. serde_json's own reader parses an `io::Read`
//! a byte at a time, which measured several times slower than splitting and parsing slices.

use std::io::{self, Read};

/// What the splitter found next.
#[derive(Debug)]
pub enum Piece<'b> {
    /// One element's exact bytes and its byte offset in the input.
    Element { bytes: &'b [u8], offset: u64 },
    /// The closing `]` and nothing but whitespace after it.
    End,
}

/// Why the input is not a JSON array the splitter can walk.
#[derive(Debug)]
pub enum SplitError {
    /// Reading failed: not a property of the input's content.
    Io(io::Error),
    /// Nothing but whitespace.
    Empty,
    /// The first value is not an array; `first` is its first byte.
    NotArray { first: u8 },
    /// Bytes that cannot appear between array elements, or input ending inside the array;
    /// `in_element` when the input ended inside an element (the next one).
    Syntax {
        offset: u64,
        detail: String,
        in_element: bool,
    },
    /// One element is larger than the limit.
    ElementTooLarge { offset: u64, limit: usize },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    AfterOpen,
    AfterComma,
    AfterElement,
    Done,
    Finished,
}

/// Splits a reader's top-level array into elements.
pub struct ArraySplitter<R> {
    reader: R,
    /// Read buffer; `buf[..filled]` holds data. Its length only grows (zeroed once), so a reader
    /// that returns a few bytes per call does not cost a buffer clear per call.
    buf: Vec<u8>,
    filled: usize,
    /// Start of unconsumed bytes in `buf`.
    pos: usize,
    /// Input offset of `buf[0]`.
    base: u64,
    eof: bool,
    state: State,
    max_element: usize,
}

const CHUNK: usize = 64 * 1024;

impl<R: Read> ArraySplitter<R> {
    pub fn new(reader: R, max_element: usize) -> Self {
        ArraySplitter {
            reader,
            buf: vec![0; CHUNK],
            filled: 0,
            pos: 0,
            base: 0,
            eof: false,
            state: State::Start,
            max_element,
        }
    }

    /// The bytes read but not consumed, and the rest of the reader: used to read a non-array
    /// document whole after [`SplitError::NotArray`].
    pub fn into_rest(self) -> (Vec<u8>, R) {
        (self.buf[self.pos..self.filled].to_vec(), self.reader)
    }

    /// Number of input bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads more input, keeping `buf[keep_from..filled]`. Returns false at end of input.
    fn fill(&mut self, keep_from: usize) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if keep_from > 0 {
            self.buf.copy_within(keep_from..self.filled, 0);
            self.filled -= keep_from;
            self.base += keep_from as u64;
            self.pos -= keep_from;
        }
        if self.filled == self.buf.len() {
            // An element larger than the buffer: grow, but never past what the limit needs
            // (`element` rejects anything longer), so an oversized element cannot double memory.
            let cap = self.max_element.saturating_add(CHUNK).max(CHUNK);
            let new_len = (self.buf.len() * 2).min(cap).max(self.filled + 1);
            self.buf.resize(new_len, 0);
        }
        let n = loop {
            match self.reader.read(&mut self.buf[self.filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.filled += n;
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// Skips JSON whitespace; returns the next byte without consuming it, or `None` at the end.
    fn peek_non_ws(&mut self) -> Result<Option<u8>, SplitError> {
        loop {
            while let Some(&b) = self.buf[..self.filled].get(self.pos) {
                if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                    self.pos += 1;
                } else {
                    return Ok(Some(b));
                }
            }
            if !self.fill(self.pos).map_err(SplitError::Io)? {
                return Ok(None);
            }
        }
    }

    fn syntax(&self, detail: impl Into<String>) -> SplitError {
        SplitError::Syntax {
            offset: self.offset(),
            detail: detail.into(),
            in_element: false,
        }
    }

    /// The next element, or the end of the array.
    pub fn next_piece(&mut self) -> Result<Piece<'_>, SplitError> {
        loop {
            let next = self.peek_non_ws()?;
            match (self.state, next) {
                (State::Finished, _) => return Ok(Piece::End),
                (State::Start, None) => return Err(SplitError::Empty),
                (State::Start, Some(b'[')) => {
                    self.pos += 1;
                    self.state = State::AfterOpen;
                }
                (State::Start, Some(first)) => return Err(SplitError::NotArray { first }),
                (State::AfterOpen, Some(b']')) | (State::AfterElement, Some(b']')) => {
                    self.pos += 1;
                    self.state = State::Done;
                }
                (State::AfterElement, Some(b',')) => {
                    self.pos += 1;
                    self.state = State::AfterComma;
                }
                (State::AfterElement, Some(b)) => {
                    return Err(self.syntax(format!(
                        "expected ',' or ']' after an array element, found {}",
                        describe(b)
                    )))
                }
                (State::AfterComma, Some(b']')) => {
                    return Err(self.syntax("trailing comma before ']'"))
                }
                (State::AfterOpen | State::AfterComma, Some(_)) => {
                    self.state = State::AfterElement;
                    return self.element();
                }
                (State::AfterOpen | State::AfterComma | State::AfterElement, None) => {
                    return Err(self.syntax("input ends inside the array"))
                }
                (State::Done, None) => {
                    self.state = State::Finished;
                    return Ok(Piece::End);
                }
                (State::Done, Some(b)) => {
                    return Err(
                        self.syntax(format!("trailing data after the array: {}", describe(b)))
                    )
                }
            }
        }
    }

    /// Finds the end of the element starting at `pos` and returns its bytes.
    fn element(&mut self) -> Result<Piece<'_>, SplitError> {
        let mut start = self.pos;
        let mut scan = start;
        let mut scanner = Scanner::new(self.buf[start]);
        let end = loop {
            match scanner.scan(&self.buf[..self.filled], scan) {
                Ok(end) => break end,
                Err(scanned_to) => scan = scanned_to,
            }
            if scan - start > self.max_element {
                return Err(SplitError::ElementTooLarge {
                    offset: self.base + start as u64,
                    limit: self.max_element,
                });
            }
            // `fill` drops the bytes before `start`, so positions move down by `start`.
            let more = self.fill(start).map_err(SplitError::Io)?;
            scan -= start;
            start = 0;
            if !more {
                if scanner.is_scalar() {
                    break scan; // a number or literal running to the end of input
                }
                return Err(SplitError::Syntax {
                    offset: self.base,
                    detail: "input ends inside an array element".into(),
                    in_element: true,
                });
            }
        };
        if end == start {
            return Err(self.syntax(format!(
                "expected an array element, found {}",
                describe(self.buf[start])
            )));
        }
        if end - start > self.max_element {
            return Err(SplitError::ElementTooLarge {
                offset: self.base + start as u64,
                limit: self.max_element,
            });
        }
        self.pos = end;
        Ok(Piece::Element {
            bytes: &self.buf[start..end],
            offset: self.base + start as u64,
        })
    }
}

/// Tracks strings, escapes and bracket depth across one element.
struct Scanner {
    first: u8,
    depth: u64,
    in_string: bool,
    escaped: bool,
}

impl Scanner {
    fn new(first: u8) -> Self {
        Scanner {
            first,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    fn is_scalar(&self) -> bool {
        !matches!(self.first, b'{' | b'[' | b'"')
    }

    /// Scans `buf` from `from`. `Ok(end)` is the element's end (exclusive); `Err(len)` means the
    /// element goes on past the data, with the scanning state kept for the next call.
    /// Inside strings it jumps to the next quote or backslash: entries are mostly string bytes.
    fn scan(&mut self, buf: &[u8], from: usize) -> Result<usize, usize> {
        let mut i = from;
        while i < buf.len() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                let Some(k) = find_quote_or_backslash(&buf[i..]) else {
                    return Err(buf.len());
                };
                i += k;
                if buf[i] == b'\\' {
                    self.escaped = true;
                } else {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Ok(i + 1); // a top-level string element ends at its closing quote
                    }
                }
                i += 1;
                continue;
            }
            let b = buf[i];
            if self.is_scalar() {
                // Whatever lies before the delimiter goes to serde_json, which rejects anything
                // that is not a JSON value.
                if matches!(
                    b,
                    b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'[' | b'{' | b'}' | b'"'
                ) {
                    return Ok(i);
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        Err(i)
    }
}

/// Bytes [`find_quote_or_backslash`] looks at a word at a time before handing over to `memchr2`:
/// a little more than a 64-digit digest and its closing quote.
const WORDWISE: usize = 80;

/// The first `"` or `\` in `bytes`. Most strings in entries are short (ids, names, digests), and
/// for them the set-up cost of the vectorised search dominated (it was the splitter's largest
/// cost): the first [`WORDWISE`] bytes are looked at a word at a time, and only longer strings go
/// to `memchr2`.
fn find_quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let head = &bytes[..bytes.len().min(WORDWISE)];
    let mut done = 0;
    for w in crate::swar::words(head) {
        let hits = crate::swar::equal_to(w, b'"') | crate::swar::equal_to(w, b'\\');
        if let Some(k) = crate::swar::first(hits) {
            return Some(done + k);
        }
        done += 8;
    }
    let rest = bytes.get(done..)?;
    memchr::memchr2(b'"', b'\\', rest).map(|k| done + k)
}

fn describe(b: u8) -> String {
    if (0x21..0x7f).contains(&b) {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::find_quote_or_backslash;

    #[test]
    fn finds_the_first_quote_or_backslash_at_every_position() {
        for len in 0..200 {
            for special in [b'"', b'\\'] {
                let mut bytes = vec![b'a'; len];
                bytes.push(special);
                bytes.extend_from_slice(b"\"\\x");
                assert_eq!(find_quote_or_backslash(&bytes), Some(len), "{len}");
            }
            // Neighbouring bytes ('!', '#', '[', ']', 0x22 + 0x80, 0x5c + 0x80) are not hits.
            let plain: Vec<u8> = [b'!', b'#', b'[', b']', 0xa2, 0xdc]
                .iter()
                .cycle()
                .take(len)
                .copied()
                .collect();
            assert_eq!(find_quote_or_backslash(&plain), None, "{len}");
        }
    }
}
