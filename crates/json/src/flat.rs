//! A single-pass reader for the common case: one flat object of plain scalar members.
//!
//! The strict reader ([`crate::parse_limited`]) builds a general tree through serde_json, which is
//! most of the cost of verifying a large timeline whose entries are all alike. This reader handles
//! only a deliberately small subset of JSON and answers `None` ("not handled") for everything
//! else, so that the caller falls back to the strict reader, which then decides and diagnoses:
//!
//! - one object, at most [`MAX_FLAT_MEMBERS`] members, no nested arrays or objects;
//! - member names and string values without any backslash or control character (so the text
//!   between the quotes *is* the value, and no escape or surrogate question arises);
//! - numbers only as integer literals `0` or `[1-9][0-9]*`, optionally negative but not `-0`, of
//!   at most [`MAX_INTEGER_DIGITS`] digits (so every one fits a 64-bit integer exactly and none can
//!   be out of range, a fraction, or serde_json's `-0.0` special case);
//! - `true`, `false`, `null`;
//! - no member name given twice, within the [`Limits`] and the nesting budget.
//!
//! Anything accepted here is accepted by the strict reader with no duplicates and the same
//! members and values ([`FlatObject::to_node`] gives the tree it would build; a property test
//! holds the two equal on arbitrary input). It lives here, next to the strict reader, because that
//! equivalence is a property of JSON reading, not of any one draft's rules.
//!
//! The reading comes in two steps so that a stream splitter can do the first while it looks for
//! the end of an element, and the text check can run elsewhere: [`scan_flat_shape`] walks the
//! bytes once and records where every member's name and value lie ([`FlatShape`]), checking
//! everything above except UTF-8, and stops at the object's closing brace (so it also finds where
//! the object ends, without a separate scan); [`FlatShape::read`] then takes the object's text,
//! once it has been checked to be UTF-8, and gives the members as text ([`FlatObject`]).
//! [`scan_flat_object`] is the two together.

use std::borrow::Cow;
use std::ops::Range;

use crate::{as_text, swar, Limits, Node, Num, Object, MAX_DEPTH};

/// The most members an object may have to be read here (every object the drafts define has
/// fewer; the duplicate check compares names pairwise, which stays cheap at this size).
pub const MAX_FLAT_MEMBERS: usize = 16;

/// The longest integer literal read here: 18 digits always fit an `i64` and a `u64`.
pub const MAX_INTEGER_DIGITS: usize = 18;

/// A member value of a flat object. Strings and numbers borrow their exact text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatValue<'a> {
    /// A string value (the text between the quotes: it held no escape).
    Str(&'a str),
    /// An integer literal's exact text.
    Int(&'a str),
    Bool(bool),
    Null,
}

/// A flat object's members in document order (names are unique).
#[derive(Clone, Copy, Debug)]
pub struct FlatObject<'a> {
    members: [(&'a str, FlatValue<'a>); MAX_FLAT_MEMBERS],
    len: usize,
}

impl<'a> FlatObject<'a> {
    /// The members in document order.
    pub fn members(&self) -> &[(&'a str, FlatValue<'a>)] {
        self.members.get(..self.len).unwrap_or(&[])
    }

    /// The value of the member `name`.
    pub fn get(&self, name: &str) -> Option<FlatValue<'a>> {
        self.members()
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| *v)
    }

    /// The tree the strict reader builds for the same text with the same `raw_keys` (numbers of
    /// those members keep their text; other integers become `U64` or `I64`, as serde_json gives
    /// them).
    pub fn to_node(&self, raw_keys: &[&str]) -> Node<'a> {
        let members = self
            .members()
            .iter()
            .map(|&(name, value)| {
                let node = match value {
                    FlatValue::Str(s) => Node::String(Cow::Borrowed(s)),
                    FlatValue::Bool(b) => Node::Bool(b),
                    FlatValue::Null => Node::Null,
                    FlatValue::Int(text) if raw_keys.contains(&name) => {
                        Node::Number(Num::Text(text))
                    }
                    FlatValue::Int(text) => Node::Number(integer(text)),
                };
                (Cow::Borrowed(name), node)
            })
            .collect();
        Node::Object(Object { members })
    }
}

/// An integer literal of at most [`MAX_INTEGER_DIGITS`] digits as serde_json reports it.
fn integer(text: &str) -> Num<'_> {
    match (text.parse::<u64>(), text.parse::<i64>()) {
        (Ok(u), _) => Num::U64(u),
        (_, Ok(i)) => Num::I64(i),
        // Not reachable for what the scanner accepts; kept total rather than panicking.
        _ => Num::Text(text),
    }
}

/// Where a piece of an object lies in the bytes it was scanned from. Offsets are `u32`, so a
/// shape stays small enough to hand between threads per entry; an object longer than 4 GiB is
/// simply not read here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    fn new(range: Range<usize>) -> Option<Span> {
        Some(Span {
            start: u32::try_from(range.start).ok()?,
            end: u32::try_from(range.end).ok()?,
        })
    }

    /// The span as a range of indexes.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The text at this span of `text` (the text the shape was scanned from).
    pub fn text(self, text: &str) -> Option<&str> {
        text.get(self.range())
    }
}

/// What a member's value is; its span says which exact text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlatKind {
    /// A string: the span is the text between the quotes.
    Str,
    /// An integer literal: the span is its text.
    Int,
    Bool(bool),
    #[default]
    Null,
}

/// One member of a [`FlatShape`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlatMember {
    /// The name's text, between the quotes.
    pub name: Span,
    pub kind: FlatKind,
    /// The value's text (strings: between the quotes).
    pub value: Span,
}

impl FlatMember {
    /// The value as text, from the text the shape was scanned from.
    pub fn value_in<'a>(&self, text: &'a str) -> Option<FlatValue<'a>> {
        Some(match self.kind {
            FlatKind::Str => FlatValue::Str(self.value.text(text)?),
            FlatKind::Int => FlatValue::Int(self.value.text(text)?),
            FlatKind::Bool(b) => FlatValue::Bool(b),
            FlatKind::Null => FlatValue::Null,
        })
    }
}

/// Where each member of a flat object lies in its bytes, in document order (names unique): what
/// [`scan_flat_shape`] found, before the text is checked to be UTF-8.
///
/// A shape reused for the objects of one stream also remembers the last object's skeleton: the
/// bytes between its values (braces, names, colons, commas, whitespace). Objects of one stream
/// usually have the same members in the same order, written the same way, so the bytes between
/// two values are recognised by one comparison, without a scan or a duplicate check, and only
/// the values are read. What is found is the same either way. [`FlatShape::names_id`] lets a
/// caller reuse what it worked out from the names last time.
#[derive(Clone, Debug, Default)]
pub struct FlatShape {
    members: [FlatMember; MAX_FLAT_MEMBERS],
    len: usize,
    /// The skeleton remembered, for the next object.
    skeleton: Skeleton,
    /// See [`FlatShape::names_id`].
    names_id: Option<u64>,
}

impl FlatShape {
    /// The members in document order.
    pub fn members(&self) -> &[FlatMember] {
        self.members.get(..self.len).unwrap_or(&[])
    }

    /// An identifier of the object's member names (in order): two objects read with this shape
    /// that get the same identifier have the same names in the same order. `None` when the
    /// object's skeleton was not remembered (it takes more than a few hundred bytes) or nothing
    /// was read.
    pub fn names_id(&self) -> Option<u64> {
        self.names_id
    }

    /// The object as text: `text` must be the bytes the shape was scanned from, checked to be
    /// UTF-8 ([`as_text`]). `None` if a span does not fit it (which only a different text
    /// causes).
    pub fn read<'a>(&self, text: &'a str) -> Option<FlatObject<'a>> {
        let mut object = FlatObject {
            members: [("", FlatValue::Null); MAX_FLAT_MEMBERS],
            len: 0,
        };
        for (slot, member) in object.members.iter_mut().zip(self.members()) {
            *slot = (member.name.text(text)?, member.value_in(text)?);
            object.len += 1;
        }
        Some(object)
    }

    /// Adds a member; false when its name is already present or there is no room.
    fn push(&mut self, bytes: &[u8], member: FlatMember) -> bool {
        let name = bytes.get(member.name.range()).unwrap_or(&[]);
        // Comparing lengths first makes the pairwise check nearly free for distinct names.
        let duplicate = self.members().iter().any(|m| {
            m.name.end - m.name.start == member.name.end - member.name.start
                && bytes.get(m.name.range()) == Some(name)
        });
        match self.members.get_mut(self.len) {
            Some(slot) if !duplicate => {
                *slot = member;
                self.len += 1;
                true
            }
            _ => false,
        }
    }
}

/// Room for the skeleton a [`FlatShape`] remembers (a timeline entry's takes about 130 bytes).
const SKELETON_BYTES: usize = 512;

/// What lies between the values of an object: for each member, the bytes from the end of the
/// value before it (or from the opening brace) to the start of its value, which hold its name;
/// then the bytes from the last value to the closing brace.
#[derive(Clone, Debug)]
struct Skeleton {
    text: [u8; SKELETON_BYTES],
    /// Each gap's end in `text` (it starts where the one before ends); the last is the closing
    /// one.
    ends: [usize; MAX_FLAT_MEMBERS + 1],
    /// Where the name lies in each member's gap.
    names: [Span; MAX_FLAT_MEMBERS],
    /// Members (gaps but the closing one).
    len: usize,
    /// Whether a skeleton is remembered at all (it may not have fitted).
    known: bool,
    /// Counts the skeletons remembered: the identifier of the current one.
    generation: u64,
}

impl Default for Skeleton {
    fn default() -> Self {
        Skeleton {
            text: [0; SKELETON_BYTES],
            ends: [0; MAX_FLAT_MEMBERS + 1],
            names: [Span::default(); MAX_FLAT_MEMBERS],
            len: 0,
            known: false,
            generation: 0,
        }
    }
}

impl Skeleton {
    /// Gap `k` (`len` is the closing one).
    fn gap(&self, k: usize) -> Option<&[u8]> {
        if !self.known || k > self.len {
            return None;
        }
        let start = match k {
            0 => 0,
            _ => *self.ends.get(k - 1)?,
        };
        self.text.get(start..*self.ends.get(k)?)
    }

    /// Remembers the skeleton of the object read from `bytes[open..close]` with `members`, as
    /// a new one; none when it does not fit.
    fn remember(&mut self, bytes: &[u8], open: usize, close: usize, members: &[FlatMember]) {
        self.generation = self.generation.wrapping_add(1);
        self.known = false;
        self.len = 0;
        let mut from = open;
        let mut end = 0;
        let gaps = members
            .iter()
            .map(|m| (from_value_start(m), Some(m)))
            .chain(std::iter::once((close, None)));
        for (k, (to, member)) in gaps.enumerate() {
            let gap = bytes.get(from..to);
            let room = gap.and_then(|gap| self.text.get_mut(end..end + gap.len()));
            let (Some(gap), Some(room), Some(slot)) = (gap, room, self.ends.get_mut(k)) else {
                return;
            };
            room.copy_from_slice(gap);
            end += gap.len();
            *slot = end;
            if let Some(member) = member {
                let name = member.name.range();
                let (Some(start), Some(name_slot)) =
                    (name.start.checked_sub(from), self.names.get_mut(k))
                else {
                    return;
                };
                *name_slot = Span {
                    start: start as u32,
                    end: (start + name.len()) as u32,
                };
                from = value_end(member);
            }
        }
        self.len = members.len();
        self.known = true;
    }
}

/// Where a member's value starts (a string's at its opening quote).
fn from_value_start(member: &FlatMember) -> usize {
    let start = member.value.start as usize;
    match member.kind {
        FlatKind::Str => start.saturating_sub(1),
        _ => start,
    }
}

/// Where a member's value ends (a string's after its closing quote).
fn value_end(member: &FlatMember) -> usize {
    let end = member.value.end as usize;
    match member.kind {
        FlatKind::Str => end + 1,
        _ => end,
    }
}

/// Reads `bytes` as one flat object sitting inside `enclosing` containers of a larger document,
/// under `limits`; `None` when it is anything else, including anything malformed. `None` says
/// nothing about validity: the caller must then use the strict reader.
pub fn scan_flat_object<'a>(
    bytes: &'a [u8],
    enclosing: usize,
    limits: &Limits,
) -> Option<FlatObject<'a>> {
    let mut shape = FlatShape::default();
    let end = scan_flat_shape(bytes, enclosing, limits, &mut shape)?;
    if !bytes.get(end..)?.iter().all(|&b| is_ws(b)) {
        return None;
    }
    // The strict reader checks the whole text (and refuses a byte order mark) first.
    shape.read(as_text(bytes).ok()?)
}

/// Reads the flat object at the start of `bytes` (after optional whitespace), sitting inside
/// `enclosing` containers, under `limits`, into `shape`: everything [`scan_flat_object`] checks
/// but UTF-8. Returns the offset just past the object's closing brace; the bytes after it are
/// never looked at, so the answer depends on the object's bytes alone. `None` when the object is
/// outside the subset, malformed, or not complete in `bytes`; `shape` then holds nothing useful.
pub fn scan_flat_shape(
    bytes: &[u8],
    enclosing: usize,
    limits: &Limits,
    shape: &mut FlatShape,
) -> Option<usize> {
    // The object itself is one level deeper than its surroundings.
    if enclosing.checked_add(1)? > MAX_DEPTH {
        return None;
    }
    shape.len = 0;
    let mut cursor = Cursor {
        bytes,
        at: 0,
        limits,
    };
    cursor.object(shape)?;
    // The object and each member value count as one value each (names do not count).
    if shape.len.checked_add(1)? > limits.max_values {
        return None;
    }
    Some(cursor.at)
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

struct Cursor<'b, 'l> {
    bytes: &'b [u8],
    at: usize,
    limits: &'l Limits,
}

impl Cursor<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.at += 1;
        }
    }

    /// Consumes `byte` after optional whitespace.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.at += 1;
            Some(())
        } else {
            None
        }
    }

    /// Reads the object into `shape`: along the skeleton `shape` remembers while the bytes
    /// between values are the remembered ones (names there are distinct, so need no duplicate
    /// check), then member by member; remembers the skeleton when it differs.
    fn object(&mut self, shape: &mut FlatShape) -> Option<()> {
        shape.names_id = None;
        self.skip_ws();
        let open = self.at;
        let whole = self.follow_skeleton(shape)?;
        if !whole {
            self.rest_of_object(shape)?;
        }
        let skeleton = &mut shape.skeleton;
        if !whole {
            let members = shape.members.get(..shape.len).unwrap_or(&[]);
            skeleton.remember(self.bytes, open, self.at, members);
        }
        shape.names_id = skeleton.known.then_some(skeleton.generation);
        Some(())
    }

    /// Reads members along the remembered skeleton while it matches: true when the whole object
    /// was read so, false when it stopped (at the start of the object, or after a value) with
    /// the members before in `shape`. `None` when a value is outside the subset.
    fn follow_skeleton(&mut self, shape: &mut FlatShape) -> Option<bool> {
        let FlatShape {
            members,
            len,
            skeleton,
            ..
        } = shape;
        *len = 0;
        let mut k = 0;
        while let Some(gap) = skeleton.gap(k) {
            let gap_start = self.at;
            let end = self.at.checked_add(gap.len())?;
            let matches = self
                .bytes
                .get(self.at..end)
                .is_some_and(|b| swar::same(b, gap));
            if !matches {
                return Some(false);
            }
            let Some(name) = skeleton.names.get(k).filter(|_| k < skeleton.len) else {
                self.at = end; // the closing gap: the object is complete
                return Some(true);
            };
            if name.range().len() > self.limits.max_string_bytes {
                return Some(false);
            }
            let name = Span::new(self.at + name.start as usize..self.at + name.end as usize)?;
            self.at = end;
            // A value the skeleton's bytes do not lead straight to (whitespace after the colon,
            // here but not in the remembered object) is read member by member from its gap,
            // as a fresh shape reads it; a value outside the subset is refused there too.
            let Some((kind, value)) = self.value() else {
                self.at = gap_start;
                return Some(false);
            };
            // Remembered names are distinct, and these are the first members: no duplicate.
            *members.get_mut(k)? = FlatMember { name, kind, value };
            *len = k + 1;
            k += 1;
        }
        Some(false)
    }

    /// Reads the members after those in `shape`: from the start of the object when there are
    /// none, else from right after the last one's value.
    fn rest_of_object(&mut self, shape: &mut FlatShape) -> Option<()> {
        if shape.len == 0 {
            self.expect(b'{')?;
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.at += 1;
                return Some(());
            }
        } else if self.after_member()? {
            return Some(());
        }
        loop {
            self.skip_ws();
            let name = self.string()?;
            self.expect(b':')?;
            self.skip_ws();
            let (kind, value) = self.value()?;
            if !shape.push(self.bytes, FlatMember { name, kind, value }) {
                return None;
            }
            if self.after_member()? {
                return Some(());
            }
        }
    }

    /// Reads what follows a member: true at the closing brace, false at a comma.
    fn after_member(&mut self) -> Option<bool> {
        self.skip_ws();
        match self.peek()? {
            b',' => {
                self.at += 1;
                Some(false)
            }
            b'}' => {
                self.at += 1;
                Some(true)
            }
            _ => None,
        }
    }

    fn value(&mut self) -> Option<(FlatKind, Span)> {
        let start = self.at;
        let kind = match self.peek()? {
            b'"' => return Some((FlatKind::Str, self.string()?)),
            b't' => self.literal(b"true", FlatKind::Bool(true))?,
            b'f' => self.literal(b"false", FlatKind::Bool(false))?,
            b'n' => self.literal(b"null", FlatKind::Null)?,
            b'-' | b'0'..=b'9' => self.integer()?,
            _ => return None,
        };
        Some((kind, Span::new(start..self.at)?))
    }

    fn literal(&mut self, word: &[u8], kind: FlatKind) -> Option<FlatKind> {
        let end = self.at.checked_add(word.len())?;
        if !swar::same(self.bytes.get(self.at..end)?, word) {
            return None;
        }
        self.at = end;
        Some(kind)
    }

    /// An integer literal; `None` for fractions, exponents, leading zeros, `-0` and long ones.
    fn integer(&mut self) -> Option<FlatKind> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let digits_start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        let digits = self.bytes.get(digits_start..self.at)?;
        let well_formed = match digits {
            [] => false,
            [b'0'] => !negative,
            [b'0', ..] => false,
            _ => digits.len() <= MAX_INTEGER_DIGITS,
        };
        // A fraction or exponent would make it a different kind of number: not read here. (So
        // would the bytes ending here: then the literal may go on, and the object is incomplete.)
        if !well_formed || matches!(self.peek(), None | Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(FlatKind::Int)
    }

    /// A string without escapes or control characters, at the opening quote: the span of its
    /// text between the quotes.
    fn string(&mut self) -> Option<Span> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at.checked_add(1)?;
        let rest = self.bytes.get(start..)?;
        let len = plain_run(rest);
        // The run must end at the closing quote: a backslash or control character ends it early.
        if rest.get(len) != Some(&b'"') || len > self.limits.max_string_bytes {
            return None;
        }
        let end = start.checked_add(len)?;
        self.at = end + 1;
        Span::new(start..end)
    }
}
/// The length of the leading run of bytes that are neither `"`, `\\`, nor a control character
/// (below 0x20): entries are mostly string bytes. Sixteen bytes at a time while none is special
/// (a test written without early exit, which compiles to a few vector instructions), then eight
/// at a time to find which one is.
fn plain_run(bytes: &[u8]) -> usize {
    let mut done = 0;
    for chunk in bytes.chunks_exact(16) {
        let special = chunk.iter().fold(false, |any, &b| {
            any | (b == b'"') | (b == b'\\') | (b < 0x20)
        });
        if special {
            break;
        }
        done += 16;
    }
    let rest = bytes.get(done..).unwrap_or(&[]);
    for w in swar::words(rest) {
        let hits = swar::equal_to(w, b'"') | swar::equal_to(w, b'\\') | swar::below(w, 0x20);
        if let Some(k) = swar::first(hits) {
            return done + k;
        }
        done += 8;
    }
    let tail = bytes.get(done..).unwrap_or(&[]);
    done + tail
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(tail.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_limited;
    use proptest::prelude::*;

    fn scan(text: &str) -> Option<FlatObject<'_>> {
        scan_flat_object(text.as_bytes(), 1, &Limits::DEFAULT)
    }

    #[test]
    fn plain_run_stops_at_the_first_special_byte_wherever_it_sits() {
        for len in 0..80 {
            for special in [b'"', b'\\', 0x00, 0x1f] {
                let mut bytes = vec![b'a'; len];
                bytes.push(special);
                bytes.extend_from_slice(b"\"\\\x01zz");
                assert_eq!(plain_run(&bytes), len, "{len} {special:#x}");
            }
            // Bytes just around the classes are plain: space, '!', '#', '[', ']', 0x7f, UTF-8.
            let plain: Vec<u8> = [b' ', b'!', b'#', b'[', b']', 0x7f, 0xc3, 0xa9]
                .iter()
                .cycle()
                .take(len)
                .copied()
                .collect();
            assert_eq!(plain_run(&plain), len);
        }
    }

    #[test]
    fn accepts_a_plain_entry_and_agrees_with_the_strict_reader() {
        let text = r#" {"seq":12,"a":"x y","b":true,"c":false,"d":null,"e":-7,"f":0,"g":"é"} "#;
        let flat = scan(text).expect("handled");
        assert_eq!(flat.get("seq"), Some(FlatValue::Int("12")));
        assert_eq!(flat.get("g"), Some(FlatValue::Str("é")));
        assert_eq!(flat.get("zz"), None);
        let strict = parse_limited(text, &["seq"], 1, &Limits::DEFAULT).expect("valid");
        assert!(strict.duplicates.is_empty());
        assert_eq!(flat.to_node(&["seq"]), strict.root);
        assert_eq!(scan("{}").map(|o| o.members().len()), Some(0));
    }

    #[test]
    fn declines_everything_outside_the_subset() {
        let declined = [
            r#"{"a":"\n"}"#,
            r#"{"a\u0041":1}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":1.0}"#,
            r#"{"a":1e0}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":-}"#,
            r#"{"a":1234567890123456789}"#,
            r#"{"a":[]}"#,
            r#"{"a":{}}"#,
            r#"{"a":1,"a":1}"#,
            r#"{"a":1,}"#,
            r#"{"a":1"#,
            r#"{"a" 1}"#,
            r#"{"a":tru}"#,
            r#"{"a":truex}"#,
            r#"{"a":1}x"#,
            r#"{"a":1}]"#,
            r#"[1]"#,
            "\u{feff}{}",
            "",
        ];
        for text in declined {
            assert!(scan(text).is_none(), "{text}");
        }
        assert!(scan_flat_object(b"{\"a\":\"\xff\"}", 1, &Limits::DEFAULT).is_none());
        let many: Vec<String> = (0..=MAX_FLAT_MEMBERS)
            .map(|i| format!("\"m{i}\":1"))
            .collect();
        assert!(scan(&format!("{{{}}}", many.join(","))).is_none());
    }

    /// Objects of one stream: a few orders of a few names (so that names repeat from one object
    /// to the next, and sometimes change), now and then a duplicate, an escape, a long name or a
    /// cut-off end.
    fn stream_object() -> impl Strategy<Value = Vec<u8>> {
        let layouts: &[&[&str]] = &[
            &["canonical_bytes", "prev_digest", "seq", "id"],
            &["canonical_bytes", "prev_digest", "seq", "id"],
            &["canonical_bytes", "prev_digest", "seq"],
            &["prev_digest", "canonical_bytes", "seq", "id"],
            &["canonical_bytes", "prev_digest", "seq", "id", "close"],
            &["canonical_bytes", "canonical_bytes", "seq"],
            &["canonical_bytes", "prev_digest", "prev_digest"],
            &["a\\u0041", "b"],
            &["é", "ü", "é"],
            &[],
        ];
        let damage = prop_oneof![
            3 => Just(None),
            1 => (any::<prop::sample::Index>(), prop::sample::select(&b"\0\"\\:} ,x"[..]))
                .prop_map(Some),
        ];
        (
            prop::sample::select(layouts),
            0usize..3,
            any::<bool>(),
            0usize..40,
            damage,
            prop::sample::select(&[(":", ","), (":", ","), (" : ", ", "), (":", ",\n")][..]),
        )
            .prop_map(|(names, value, long, cut, damage, (colon, comma))| {
                let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                if long {
                    names.push("n".repeat(600));
                }
                let value = ["\"v\"", "12", "true"][value];
                let members: Vec<String> = names
                    .iter()
                    .map(|n| format!("\"{n}\"{colon}{value}"))
                    .collect();
                let mut text = format!("{{{}}}", members.join(comma)).into_bytes();
                if let Some((at, byte)) = damage {
                    let at = at.index(text.len());
                    text[at] = byte;
                }
                if cut < text.len() && cut % 5 == 0 {
                    text.truncate(text.len() - cut);
                }
                text
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// A shape reused from one object to the next reads what a fresh shape reads, and
        /// objects given the same names identifier have the same names in the same order.
        #[test]
        fn a_reused_shape_reads_what_a_fresh_one_does(
            objects in prop::collection::vec((stream_object(), any::<bool>()), 1..12),
        ) {
            let mut reused = FlatShape::default();
            let mut seen: Vec<(u64, Vec<Vec<u8>>)> = Vec::new();
            for (text, tight) in &objects {
                // Now and then names longer than the string limit (the skeleton was remembered
                // under another).
                let limits = match tight {
                    true => Limits { max_string_bytes: 8, ..Limits::DEFAULT },
                    false => Limits::DEFAULT,
                };
                let mut fresh = FlatShape::default();
                let expected = scan_flat_shape(text, 1, &limits, &mut fresh);
                let got = scan_flat_shape(text, 1, &limits, &mut reused);
                prop_assert_eq!(got, expected);
                if got.is_none() {
                    prop_assert_eq!(reused.names_id(), None);
                    continue;
                }
                prop_assert_eq!(reused.members(), fresh.members());
                let names: Vec<Vec<u8>> = reused
                    .members()
                    .iter()
                    .map(|m| text[m.name.range()].to_vec())
                    .collect();
                if let Some(id) = reused.names_id() {
                    for (other, other_names) in &seen {
                        if *other == id {
                            prop_assert_eq!(other_names, &names);
                        }
                    }
                    seen.push((id, names));
                }
            }
        }
    }

    #[test]
    fn repeated_names_get_one_identifier_and_new_ones_another() {
        let mut shape = FlatShape::default();
        let mut read = |text: &str| {
            scan_flat_shape(text.as_bytes(), 1, &Limits::DEFAULT, &mut shape)?;
            shape.names_id()
        };
        let first = read(r#"{"a":1,"b":"x"}"#);
        assert!(first.is_some());
        assert_eq!(read(r#"{"a":2,"b":"y"}"#), first);
        let other = read(r#"{"b":2,"a":"y"}"#);
        assert!(other.is_some() && other != first);
        assert_eq!(read(r#"{"a":1,"a":2}"#), None);
        assert_eq!(read(r#"{"b":3,"a":"z"}"#), other);
        // Names too long to remember are read all the same, without an identifier.
        let long = format!(r#"{{"{}":1}}"#, "n".repeat(SKELETON_BYTES + 1));
        assert_eq!(read(&long), None);
        assert!(scan_flat_shape(long.as_bytes(), 1, &Limits::DEFAULT, &mut shape).is_some());
    }

    #[test]
    fn a_shape_ends_at_the_closing_brace_and_needs_all_of_the_object() {
        let text = br#" {"a":1,"b":"}"} ,garbage"#;
        let mut shape = FlatShape::default();
        assert_eq!(
            scan_flat_shape(text, 1, &Limits::DEFAULT, &mut shape),
            Some(16)
        );
        let object = shape
            .read(as_text(&text[..16]).expect("text"))
            .expect("fits");
        assert_eq!(object.get("b"), Some(FlatValue::Str("}")));
        for cut in 0..16 {
            assert_eq!(
                scan_flat_shape(&text[..cut], 1, &Limits::DEFAULT, &mut shape),
                None,
                "{cut}"
            );
        }
    }

    #[test]
    fn declines_near_the_limits() {
        let tight = Limits {
            max_values: 2,
            max_string_bytes: 3,
        };
        let at = |t: &str, l: &Limits, e: usize| scan_flat_object(t.as_bytes(), e, l).is_some();
        assert!(at(r#"{"abc":"xyz"}"#, &tight, 1));
        assert!(!at(r#"{"abcd":"x"}"#, &tight, 1));
        assert!(!at(r#"{"a":"wxyz"}"#, &tight, 1));
        assert!(!at(r#"{"a":1,"b":2}"#, &tight, 1));
        assert!(at("{}", &Limits::DEFAULT, MAX_DEPTH - 1));
        assert!(!at("{}", &Limits::DEFAULT, MAX_DEPTH));
        assert!(!at("{}", &Limits::DEFAULT, usize::MAX));
    }
}
#[cfg(test)]
mod shape_regression {
    use super::*;
    use crate::Limits;

    /// The case proptest shrank to: a shape remembered from an object without whitespace, reused
    /// over one whose first member has a space after its colon (the reused shape declined what a
    /// fresh one reads).
    #[test]
    fn reused_shape_regression() {
        let a = br#"{"canonical_bytes":"v","prev_digest":"v","seq":"v","id":"v"}"#;
        let b = br#"{"canonical_bytes": 2,"prev_digest":12,"seq":12,"id":12}"#;
        let mut reused = FlatShape::default();
        for text in [&a[..], &b[..]] {
            let mut fresh = FlatShape::default();
            let expected = scan_flat_shape(text, 1, &Limits::DEFAULT, &mut fresh);
            let got = scan_flat_shape(text, 1, &Limits::DEFAULT, &mut reused);
            assert_eq!(got, expected, "{}", String::from_utf8_lossy(text));
            if got.is_some() {
                assert_eq!(reused.members(), fresh.members());
            }
        }
    }
}
