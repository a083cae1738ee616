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

use std::borrow::Cow;

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
    fn new() -> Self {
        FlatObject {
            members: [("", FlatValue::Null); MAX_FLAT_MEMBERS],
            len: 0,
        }
    }

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

    /// Adds a member; false when the name is already present or there is no room.
    fn push(&mut self, name: &'a str, value: FlatValue<'a>) -> bool {
        // Comparing lengths first makes the pairwise check nearly free for distinct names.
        let duplicate = self
            .members()
            .iter()
            .any(|(k, _)| k.len() == name.len() && *k == name);
        match self.members.get_mut(self.len) {
            Some(slot) if !duplicate => {
                *slot = (name, value);
                self.len += 1;
                true
            }
            _ => false,
        }
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

/// Reads `bytes` as one flat object sitting inside `enclosing` containers of a larger document,
/// under `limits`; `None` when it is anything else, including anything malformed. `None` says
/// nothing about validity: the caller must then use the strict reader.
pub fn scan_flat_object<'a>(
    bytes: &'a [u8],
    enclosing: usize,
    limits: &Limits,
) -> Option<FlatObject<'a>> {
    // The object itself is one level deeper than its surroundings.
    if enclosing.checked_add(1)? > MAX_DEPTH {
        return None;
    }
    // Validating the whole text first (as the strict reader does) lets every string below be cut
    // out at its quotes as a `&str` without checking each one again.
    let text = as_text(bytes).ok()?;
    let mut cursor = Cursor { text, at: 0 };
    let object = cursor.object(limits)?;
    cursor.skip_ws();
    if cursor.at != text.len() {
        return None;
    }
    // The object and each member value count as one value each (names do not count).
    if object.len.checked_add(1)? > limits.max_values {
        return None;
    }
    Some(object)
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
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

    fn object(&mut self, limits: &Limits) -> Option<FlatObject<'a>> {
        self.expect(b'{')?;
        let mut object = FlatObject::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Some(object);
        }
        loop {
            self.skip_ws();
            let name = self.string(limits)?;
            self.expect(b':')?;
            self.skip_ws();
            let value = self.value(limits)?;
            if !object.push(name, value) {
                return None;
            }
            self.skip_ws();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(object);
                }
                _ => return None,
            }
        }
    }

    fn value(&mut self, limits: &Limits) -> Option<FlatValue<'a>> {
        match self.peek()? {
            b'"' => self.string(limits).map(FlatValue::Str),
            b't' => self.literal("true", FlatValue::Bool(true)),
            b'f' => self.literal("false", FlatValue::Bool(false)),
            b'n' => self.literal("null", FlatValue::Null),
            b'-' | b'0'..=b'9' => self.integer().map(FlatValue::Int),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str, value: FlatValue<'a>) -> Option<FlatValue<'a>> {
        let end = self.at.checked_add(word.len())?;
        if self.text.as_bytes().get(self.at..end)? != word.as_bytes() {
            return None;
        }
        self.at = end;
        Some(value)
    }

    /// An integer literal; `None` for fractions, exponents, leading zeros, `-0` and long ones.
    fn integer(&mut self) -> Option<&'a str> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let digits_start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        let digits = self.text.get(digits_start..self.at)?;
        let well_formed = match digits.as_bytes() {
            [] => false,
            [b'0'] => !negative,
            [b'0', ..] => false,
            _ => digits.len() <= MAX_INTEGER_DIGITS,
        };
        // A fraction or exponent would make it a different kind of number: not read here.
        if !well_formed || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.text.get(start..self.at)
    }

    /// A string without escapes or control characters, at the opening quote.
    fn string(&mut self, limits: &Limits) -> Option<&'a str> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at.checked_add(1)?;
        let rest = self.text.as_bytes().get(start..)?;
        let len = plain_run(rest);
        // The run must end at the closing quote: a backslash or control character ends it early.
        if rest.get(len) != Some(&b'"') || len > limits.max_string_bytes {
            return None;
        }
        let end = start.checked_add(len)?;
        let s = self.text.get(start..end)?;
        self.at = end + 1;
        Some(s)
    }
}

/// The length of the leading run of bytes that are neither `"`, `\` nor a control character
/// (below 0x20). Eight bytes at a time: entries are mostly string bytes.
fn plain_run(bytes: &[u8]) -> usize {
    let mut done = 0;
    for w in swar::words(bytes) {
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

    fn scan(text: &str) -> Option<FlatObject<'_>> {
        scan_flat_object(text.as_bytes(), 1, &Limits::DEFAULT)
    }

    #[test]
    fn plain_run_stops_at_the_first_special_byte_wherever_it_sits() {
        for len in 0..40 {
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
