//! Streams the elements of a top-level JSON array without holding the array.
//!
//! The splitter only finds where each element starts and ends (tracking strings, escapes and
//! bracket depth); every element's bytes are then parsed by serde_json in full. This keeps memory
//! bounded by the largest element, not the number of elements, and lets a malformed element be
//! reported while the ones after it are still checked. serde_json's own reader parses an `io::Read`
//! a byte at a time, which measured several times slower than splitting and parsing slices.
//!
//! [`ArraySplitter::next_piece_flat`] finds the end of an element that is a flat object with the
//! flat reader itself ([`crate::flat::scan_flat_shape`]), so such an element is scanned once, and
//! its members' places come with it; anything else is found by the general scan as before.

use std::io::{self, Read};

use crate::flat::{scan_flat_shape, FlatShape};
use crate::Limits;

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
        if self.advance_to_element()? {
            self.element()
        } else {
            Ok(Piece::End)
        }
    }

    /// As [`Self::next_piece`], and when the element is a flat object the flat reader reads (an
    /// element of the array: `enclosing` is one), its members' places in `shape` (offsets from the
    /// element's first byte), found in the same pass that finds the element's end. The flag says
    /// whether `shape` describes the element. Which elements are read, and what is found, depends
    /// on the element's bytes alone, never on how the reader handed them over.
    pub fn next_piece_flat(
        &mut self,
        limits: &Limits,
        shape: &mut FlatShape,
    ) -> Result<(Piece<'_>, bool), SplitError> {
        const ENCLOSING: usize = 1;
        if !self.advance_to_element()? {
            return Ok((Piece::End, false));
        }
        let (start, data) = (self.pos, &self.buf[self.pos..self.filled]);
        if data.first() == Some(&b'{') {
            // The whole object is usually in the buffer already: then this is its only scan.
            if let Some(len) = scan_flat_shape(data, ENCLOSING, limits, shape)
                .filter(|&len| len <= self.max_element)
            {
                self.pos = start + len;
                let piece = Piece::Element {
                    bytes: &self.buf[start..start + len],
                    offset: self.base + start as u64,
                };
                return Ok((piece, true));
            }
        }
        // Not read (or not complete in the buffer): the general scan finds the end, and the flat
        // reader looks at the element's bytes once they are all there.
        let piece = self.element()?;
        let flat = match &piece {
            Piece::Element { bytes, .. } => {
                bytes.first() == Some(&b'{')
                    && scan_flat_shape(bytes, ENCLOSING, limits, shape) == Some(bytes.len())
            }
            Piece::End => false,
        };
        Ok((piece, flat))
    }

    /// Moves past the array's punctuation to the start of the next element (true), or to the end
    /// of the array (false).
    fn advance_to_element(&mut self) -> Result<bool, SplitError> {
        loop {
            let next = self.peek_non_ws()?;
            match (self.state, next) {
                (State::Finished, _) => return Ok(false),
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
                    return Ok(true);
                }
                (State::AfterOpen | State::AfterComma | State::AfterElement, None) => {
                    return Err(self.syntax("input ends inside the array"))
                }
                (State::Done, None) => {
                    self.state = State::Finished;
                    return Ok(false);
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
    use super::*;
    use crate::flat::FlatMember;
    use proptest::prelude::*;

    /// Hands out `step` bytes per read.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// What one call gave: the element, its offset and (when read flat) its members.
    type Seen = Result<Option<(Vec<u8>, u64, Option<Vec<FlatMember>>)>, String>;

    /// Every piece of `text` read `step` bytes at a time, with `next_piece_flat` or
    /// `next_piece`, up to the end or the first error.
    fn pieces(text: &[u8], step: usize, flat: bool, max: usize) -> Vec<Seen> {
        let mut splitter = ArraySplitter::new(Trickle { data: text, step }, max);
        let mut shape = FlatShape::default();
        let mut seen = Vec::new();
        loop {
            let piece = if flat {
                splitter.next_piece_flat(&Limits::DEFAULT, &mut shape)
            } else {
                splitter.next_piece().map(|p| (p, false))
            };
            match piece {
                Ok((Piece::Element { bytes, offset }, read)) => {
                    let members = read.then(|| shape.members().to_vec());
                    seen.push(Ok(Some((bytes.to_vec(), offset, members))));
                }
                Ok((Piece::End, _)) => {
                    seen.push(Ok(None));
                    return seen;
                }
                Err(e) => {
                    seen.push(Err(format!("{e:?}")));
                    return seen;
                }
            }
        }
    }

    /// Elements on both sides of the flat reader's subset, and broken ones.
    fn element() -> impl Strategy<Value = String> {
        prop::sample::select(
            &[
                r#"{"a":"x","b":1,"c":true,"d":null}"#,
                r#"{"a":"x","b":1,"c":true,"d":null}"#,
                r#"{"b":2,"a":"y"}"#,
                r#"{ "a" : "x y" , "b" : -7 }"#,
                r#"{}"#,
                r#"{"a":"\n"}"#,
                r#"{"a":{"b":1}}"#,
                r#"{"a":[1,2]}"#,
                r#"{"a":1,"a":2}"#,
                r#"{"a":1.5}"#,
                r#"{"a":"}"}"#,
                r#"{"a":"\"}"}"#,
                r#"{"a":1"#,
                r#"{"a"}"#,
                r#"[{"a":1}]"#,
                r#""{\"a\":1}""#,
                "17",
                "true",
                "{\"a\":\"\u{1}\"}",
                "{\"\u{e9}\":\"\u{1F600}\"}",
            ][..],
        )
        .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// `next_piece_flat` splits exactly as `next_piece` does, and reads the same elements
        /// with the same members (those a fresh shape finds in the element alone), whatever the
        /// read sizes and element limit.
        #[test]
        fn flat_splitting_depends_on_the_bytes_alone(
            elements in prop::collection::vec(element(), 0..8),
            separator in prop::sample::select(&[",", ", ", ",\n", ",,", " "][..]),
            end in prop::sample::select(&["]", "] ", "", "]x"][..]),
            step in 1usize..40,
            max in prop::sample::select(&[1usize << 20, 8, 20][..]),
        ) {
            let text = format!("[{}{end}", elements.join(separator)).into_bytes();
            let whole = pieces(&text, text.len().max(1), true, max);
            let trickled = pieces(&text, step, true, max);
            prop_assert_eq!(&whole, &trickled);
            let plain = pieces(&text, step, false, max);
            prop_assert_eq!(whole.len(), plain.len());
            for (flat, plain) in whole.iter().zip(&plain) {
                match (flat, plain) {
                    (Ok(Some((bytes, offset, members))), Ok(Some((b, o, None)))) => {
                        prop_assert_eq!((bytes, offset), (b, o));
                        let mut fresh = FlatShape::default();
                        let read = bytes.first() == Some(&b'{')
                            && scan_flat_shape(bytes, 1, &Limits::DEFAULT, &mut fresh)
                                == Some(bytes.len());
                        let expected = read.then(|| fresh.members().to_vec());
                        prop_assert_eq!(members, &expected);
                    }
                    (a, b) => prop_assert_eq!(a, b),
                }
            }
        }
    }

    #[test]
    fn plain_objects_are_read_as_they_are_split() {
        let text = br#"[{"a":"x","b":1}, {"a":"y","b":2},{"c":null}]"#;
        let seen = pieces(text, text.len(), true, 1 << 20);
        let read: Vec<bool> = seen
            .iter()
            .map(|s| matches!(s, Ok(Some((_, _, Some(_))))))
            .collect();
        assert_eq!(read, [true, true, true, false]);
    }

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
