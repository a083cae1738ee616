//! Strict reading of untrusted JSON documents, shared by the AER-1 and GRP references.
//!
//! serde_json does the parsing; this module adds what the drafts' inputs need on top of it:
//! duplicate member names are detected at every depth (serde_json silently keeps the last), the
//! exact text of chosen numbers is kept (`seq`, `entry_count`: `1.0` and `1` must be told apart and
//! integers past 64 bits must not be rounded), and every failure is a typed [`JsonError`] that maps
//! to a rule. Nothing here panics on any input.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

pub mod file;
pub mod flat;
pub mod hex;
pub mod split;
mod swar;
pub mod text;

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The deepest nesting accepted (serde_json's recursion limit of 128 allows 127 levels).
pub const MAX_DEPTH: usize = 127;

/// Limits on one document held in memory, beyond its size in bytes (which the caller bounds
/// before parsing). They bound the memory a parsed tree takes: a 64 MiB document of one-byte
/// values would otherwise become a tree of tens of millions of nodes, about 17 times its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Values (of any type, containers included) in one document.
    pub max_values: usize,
    /// Bytes of one string (a value or a member name), after unescaping.
    pub max_string_bytes: usize,
}

impl Limits {
    /// The defaults: one million values, 16 MiB per string.
    pub const DEFAULT: Limits = Limits {
        max_values: DEFAULT_MAX_VALUES,
        max_string_bytes: DEFAULT_MAX_STRING_BYTES,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Default [`Limits::max_values`].
pub const DEFAULT_MAX_VALUES: usize = 1_000_000;
/// Default [`Limits::max_string_bytes`].
pub const DEFAULT_MAX_STRING_BYTES: usize = 16 * 1024 * 1024;

/// Why a document is not acceptable JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonError {
    /// Nothing but whitespace.
    Empty,
    /// Starts with a UTF-8 byte order mark (RFC 8259 section 8.1 forbids adding one).
    ByteOrderMark,
    /// Malformed JSON, trailing data, or input ending early.
    Syntax { detail: String },
    /// The bytes are not UTF-8; `offset` is the first bad byte.
    NotUtf8 { offset: u64 },
    /// A `\uD800`-`\uDFFF` escape that is not part of a surrogate pair.
    LoneSurrogate { escape: String },
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A number outside the range of an IEEE 754 double, such as `1e400`.
    NumberOutOfRange { detail: String },
    /// Two members of one object share a name; `path` names the object member.
    DuplicateMember { path: String },
    /// The document is larger than a limit that applies to it.
    TooLarge { limit: u64 },
    /// The document holds more values than [`Limits::max_values`].
    TooManyValues { limit: usize },
    /// A string (value or member name) is longer than [`Limits::max_string_bytes`]; `path` is
    /// where it sits (empty for the top level).
    StringTooLong { limit: usize, path: String },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Empty => f.write_str("input is empty"),
            JsonError::ByteOrderMark => f.write_str("input starts with a UTF-8 byte order mark"),
            JsonError::Syntax { detail } => write!(f, "malformed JSON: {detail}"),
            JsonError::NotUtf8 { offset } => {
                write!(f, "input is not UTF-8 (first bad byte at offset {offset})")
            }
            JsonError::LoneSurrogate { escape } => {
                write!(f, "string contains the unpaired surrogate escape {escape}")
            }
            JsonError::TooDeep => write!(f, "nesting is deeper than {MAX_DEPTH} levels"),
            JsonError::NumberOutOfRange { detail } => {
                write!(
                    f,
                    "number is outside the range of an IEEE 754 double ({detail})"
                )
            }
            JsonError::DuplicateMember { path } => {
                write!(
                    f,
                    "member name {path:?} appears more than once in one object"
                )
            }
            JsonError::TooLarge { limit } => {
                write!(f, "input is larger than the {limit}-byte limit")
            }
            JsonError::TooManyValues { limit } => {
                write!(
                    f,
                    "input holds more than {limit} JSON values (resource limit)"
                )
            }
            JsonError::StringTooLong { limit, path } if path.is_empty() => {
                write!(f, "a string is longer than the {limit}-byte limit")
            }
            JsonError::StringTooLong { limit, path } => {
                write!(
                    f,
                    "a string at {path} is longer than the {limit}-byte limit"
                )
            }
        }
    }
}

impl JsonError {
    /// The member a duplicate-name error is about.
    pub fn member(&self) -> Option<String> {
        match self {
            JsonError::DuplicateMember { path } => Some(path.clone()),
            JsonError::StringTooLong { path, .. } if !path.is_empty() => Some(path.clone()),
            _ => None,
        }
    }
}

/// A JSON number as the reader saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num<'a> {
    /// Exact source text, kept for members named in `raw_keys`.
    Text(&'a str),
    U64(u64),
    I64(i64),
    /// A literal with a fraction or exponent, or an integer too large for 64 bits.
    F64(f64),
}

/// A parsed JSON value that borrows unescaped strings from the input.
#[derive(Clone, Debug, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Number(Num<'a>),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Object<'a>),
}

/// An object's members in document order, duplicates included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object<'a> {
    pub members: Vec<(Cow<'a, str>, Node<'a>)>,
}

impl<'a> Object<'a> {
    /// The member's value. With duplicate names, the last one wins, as in the kit's parser; the
    /// duplicate itself is reported separately.
    pub fn get(&self, name: &str) -> Option<&Node<'a>> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

impl<'a> Node<'a> {
    /// A short name of the value's JSON type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Number(_) => "a number",
            Node::String(_) => "a string",
            Node::Array(_) => "an array",
            Node::Object(_) => "an object",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Node::Object(o) => Some(o),
            _ => None,
        }
    }
}

/// A parsed document and the duplicate member names found in it.
#[derive(Debug)]
pub struct Parsed<'a> {
    pub root: Node<'a>,
    /// One [`JsonError::DuplicateMember`] per duplicated name, in document order.
    pub duplicates: Vec<JsonError>,
}

/// Reads a whole document of at most `limit` bytes. The outer `Err` is an I/O failure (the input
/// could not be read); the inner one says the document is over the limit, a property of the input.
pub fn read_limited<R: std::io::Read>(
    reader: R,
    limit: u64,
) -> std::io::Result<Result<Vec<u8>, JsonError>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut reader.take(limit.saturating_add(1)), &mut bytes)?;
    if bytes.len() as u64 > limit {
        return Ok(Err(JsonError::TooLarge { limit }));
    }
    Ok(Ok(bytes))
}

/// Checks the byte-level envelope (UTF-8, no byte order mark) and returns the text.
pub fn as_text(bytes: &[u8]) -> Result<&str, JsonError> {
    if bytes.starts_with(b"\xef\xbb\xbf") {
        return Err(JsonError::ByteOrderMark);
    }
    std::str::from_utf8(bytes).map_err(|e| JsonError::NotUtf8 {
        offset: e.valid_up_to() as u64,
    })
}

/// Parses one JSON text. The top-level object's members named in `raw_keys` keep the exact text
/// of their numbers ([`Num::Text`]).
pub fn parse<'a>(text: &'a str, raw_keys: &[&str]) -> Result<Parsed<'a>, JsonError> {
    parse_nested(text, raw_keys, 0)
}

/// As [`parse`], for a value that sits inside `enclosing` arrays or objects of a larger document
/// (a timeline entry sits inside one), so the nesting limit applies to the whole document.
pub fn parse_nested<'a>(
    text: &'a str,
    raw_keys: &[&str],
    enclosing: usize,
) -> Result<Parsed<'a>, JsonError> {
    parse_limited(text, raw_keys, enclosing, &Limits::DEFAULT)
}

/// As [`parse_nested`], under `limits` instead of the defaults.
pub fn parse_limited<'a>(
    text: &'a str,
    raw_keys: &[&str],
    enclosing: usize,
    limits: &Limits,
) -> Result<Parsed<'a>, JsonError> {
    if text.trim_matches(is_json_ws).is_empty() {
        return Err(JsonError::Empty);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let mut side = Side::default();
    let seed = NodeSeed {
        ctx: Ctx {
            side: &mut side,
            raw_keys,
            enclosing,
            limits,
        },
        path: &Path::Root,
    };
    let root = seed
        .deserialize(&mut de)
        .and_then(|root| de.end().map(|()| root));
    match root {
        Ok(root) => Ok(Parsed {
            root,
            duplicates: side.duplicates,
        }),
        Err(_) if side.too_deep => Err(JsonError::TooDeep),
        Err(e) => Err(side.over_limit.unwrap_or_else(|| classify(&e, text))),
    }
}

/// A bound on a document before it is parsed into a tree by a reader without limits of its own
/// (`serde_json::Value`): one pass over the bytes, allocating nothing, that refuses nesting deeper
/// than [`MAX_DEPTH`] and more than `max_values` values. Values are counted from above (every
/// `,` and every `[` or `{` outside strings, plus one), so a document it passes has at most that
/// many. A 16 MiB output of `[0,0,…]` is refused here instead of becoming a tree of eight million
/// values (about twenty times its size in memory). Syntax is left to the parser that follows.
pub fn check_bounds(text: &str, max_values: usize) -> Result<(), JsonError> {
    let mut values = 1usize;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text.as_bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                values += 1;
                if depth > MAX_DEPTH {
                    return Err(JsonError::TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' => values += 1,
            _ => continue,
        }
        if values > max_values {
            return Err(JsonError::TooManyValues { limit: max_values });
        }
    }
    Ok(())
}

fn is_json_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Turns a serde_json error into the rule-level cause. Unpaired surrogates are found by scanning
/// the text (independent of serde_json's wording); depth and range by serde_json's message, which
/// a test pins so that an upgrade changing it is noticed.
fn classify(e: &serde_json::Error, text: &str) -> JsonError {
    if let Some((at, escape)) = find_lone_surrogate(text) {
        // Only when the surrogate is where parsing stopped, not after an earlier error.
        if at <= byte_offset(text, e.line(), e.column()) {
            return JsonError::LoneSurrogate { escape };
        }
    }
    let message = e.to_string();
    if message.starts_with("recursion limit exceeded") {
        return JsonError::TooDeep;
    }
    if message.starts_with("number out of range") {
        return JsonError::NumberOutOfRange { detail: message };
    }
    if e.classify() == serde_json::error::Category::Eof {
        return JsonError::Syntax {
            detail: format!("input ends early ({message})"),
        };
    }
    JsonError::Syntax { detail: message }
}

/// The byte offset of serde_json's 1-based line and column.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    line_start + column.saturating_sub(1)
}

/// Finds the first `\uXXXX` escape in a string literal that encodes an unpaired surrogate, and
/// its byte offset. Only string contents are scanned; escaped backslashes are skipped correctly.
pub fn find_lone_surrogate(text: &str) -> Option<(usize, String)> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    let hex4 = |at: usize| -> Option<u16> {
        let s = b.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(s).ok()?, 16).ok()
    };
    while i < b.len() {
        match (in_string, b[i]) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') => {
                if b.get(i + 1) == Some(&b'u') {
                    if let Some(unit) = hex4(i + 2) {
                        let escape = &text[i..i + 6];
                        if (0xdc00..=0xdfff).contains(&unit) {
                            return Some((i, escape.to_string()));
                        }
                        if (0xd800..=0xdbff).contains(&unit) {
                            let paired = b.get(i + 6..i + 8) == Some(b"\\u")
                                && hex4(i + 8).is_some_and(|lo| (0xdc00..=0xdfff).contains(&lo));
                            if !paired {
                                return Some((i, escape.to_string()));
                            }
                            i += 12;
                            continue;
                        }
                    }
                    i += 6;
                    continue;
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

// ------------------------------------------------------------------------------------------------
// The strict visitor

/// Where a value sits, for naming duplicate members (`tool.name`, `steps[2].receipt_id`).
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => {
                let p = parent.render();
                let key = path_segment(key);
                if p.is_empty() {
                    key
                } else {
                    format!("{p}.{key}")
                }
            }
            Path::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }

    fn is_root(&self) -> bool {
        matches!(self, Path::Root)
    }
}

/// Longest member name a path quotes in full; longer names are cut (paths end up in messages).
const MAX_SEGMENT_CHARS: usize = 64;

/// A member name as a path shows it: control characters escaped, long names cut.
fn path_segment(key: &str) -> String {
    text::clip(key, MAX_SEGMENT_CHARS)
}

/// Objects with at least this many members check duplicate names with a hash set.
const SCAN_LIMIT: usize = 16;

/// What the visitors report besides the value.
#[derive(Default)]
struct Side {
    duplicates: Vec<JsonError>,
    /// Set when the nesting limit stopped the parse.
    too_deep: bool,
    /// Values seen so far, for [`Limits::max_values`].
    values: usize,
    /// Set when a [`Limits`] limit stopped the parse.
    over_limit: Option<JsonError>,
}

struct Ctx<'c, 'k> {
    side: &'c mut Side,
    raw_keys: &'k [&'k str],
    /// Arrays and objects around the value being visited.
    enclosing: usize,
    limits: &'k Limits,
}

impl Ctx<'_, '_> {
    /// The context for the members or elements of a container being visited.
    fn inside(&mut self) -> Ctx<'_, '_> {
        Ctx {
            side: self.side,
            raw_keys: self.raw_keys,
            enclosing: self.enclosing + 1,
            limits: self.limits,
        }
    }

    /// Counts one more value against [`Limits::max_values`].
    fn count<E: de::Error>(&mut self) -> Result<(), E> {
        self.side.values += 1;
        if self.side.values > self.limits.max_values {
            return self.stop(JsonError::TooManyValues {
                limit: self.limits.max_values,
            });
        }
        Ok(())
    }

    /// Checks one string against [`Limits::max_string_bytes`].
    fn string<E: de::Error>(&mut self, s: &str, path: &Path<'_>) -> Result<(), E> {
        if s.len() > self.limits.max_string_bytes {
            return self.stop(JsonError::StringTooLong {
                limit: self.limits.max_string_bytes,
                path: path.render(),
            });
        }
        Ok(())
    }

    fn stop<E: de::Error>(&mut self, e: JsonError) -> Result<(), E> {
        let message = e.to_string();
        self.side.over_limit = Some(e);
        Err(E::custom(message))
    }

    /// Opening a container at this point would exceed [`MAX_DEPTH`].
    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        if self.enclosing + 1 > MAX_DEPTH {
            self.side.too_deep = true;
            return Err(E::custom("nesting limit exceeded"));
        }
        Ok(())
    }
}

struct NodeSeed<'c, 'k, 'p> {
    ctx: Ctx<'c, 'k>,
    path: &'p Path<'p>,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_, '_, '_> {
    type Value = Node<'de>;

    fn deserialize<D: de::Deserializer<'de>>(mut self, d: D) -> Result<Node<'de>, D::Error> {
        self.ctx.count()?;
        d.deserialize_any(NodeVisitor {
            ctx: self.ctx,
            path: self.path,
        })
    }
}

/// Captures a member's exact text, then reads it as a node (numbers keep their text).
struct RawSeed<'c, 'k, 'p> {
    ctx: Ctx<'c, 'k>,
    path: &'p Path<'p>,
}

impl<'de> DeserializeSeed<'de> for RawSeed<'_, '_, '_> {
    type Value = Node<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        let raw: &'de RawValue = serde::Deserialize::deserialize(d)?;
        let text = raw.get();
        if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            let mut ctx = self.ctx;
            ctx.count()?;
            return Ok(Node::Number(Num::Text(text)));
        }
        // Not a number: read it again as an ordinary value so duplicates and escapes inside it are
        // still checked. The raw text borrows from the input, so the node can too.
        let mut inner = serde_json::Deserializer::from_str(text);
        NodeSeed {
            ctx: self.ctx,
            path: self.path,
        }
        .deserialize(&mut inner)
        .map_err(de::Error::custom)
    }
}

struct NodeVisitor<'c, 'k, 'p> {
    ctx: Ctx<'c, 'k>,
    path: &'p Path<'p>,
}

impl<'de> Visitor<'de> for NodeVisitor<'_, '_, '_> {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(Num::U64(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(Num::I64(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node<'de>, E> {
        Ok(Node::Number(Num::F64(v)))
    }
    fn visit_borrowed_str<E: de::Error>(mut self, v: &'de str) -> Result<Node<'de>, E> {
        self.ctx.string(v, self.path)?;
        Ok(Node::String(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<Node<'de>, E> {
        self.ctx.string(v, self.path)?;
        Ok(Node::String(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(mut self, v: String) -> Result<Node<'de>, E> {
        self.ctx.string(&v, self.path)?;
        Ok(Node::String(Cow::Owned(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Node<'de>, A::Error> {
        self.ctx.enter()?;
        let mut items = Vec::new();
        loop {
            let path = Path::Index(self.path, items.len());
            let seed = NodeSeed {
                ctx: self.ctx.inside(),
                path: &path,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => {
                    // Growth by doubling leaves up to half the slots empty; the value limit
                    // bounds nodes, so the tree must not keep the slack.
                    items.shrink_to_fit();
                    return Ok(Node::Array(items));
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Node<'de>, A::Error> {
        self.ctx.enter()?;
        // A timeline entry (a root object) has eight members: one allocation instead of growing
        // 4 -> 8. Nested objects start empty, so a million `{}` cost nothing beyond their nodes.
        let mut members: Vec<(Cow<'de, str>, Node<'de>)> = if self.path.is_root() {
            Vec::with_capacity(8)
        } else {
            Vec::new()
        };
        let mut index: Option<std::collections::HashSet<String>> = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let path = Path::Key(self.path, &key);
            self.ctx.string(&key, &path)?;
            // Small objects (every object the drafts define) are scanned; large ones get a set,
            // so a hostile object with many members cannot make the check quadratic.
            let seen = if members.len() < SCAN_LIMIT {
                members.iter().any(|(k, _)| *k == key)
            } else {
                let names = index
                    .get_or_insert_with(|| members.iter().map(|(k, _)| k.to_string()).collect());
                !names.insert(key.to_string())
            };
            if seen {
                self.ctx.side.duplicates.push(JsonError::DuplicateMember {
                    path: path.render(),
                });
            }
            let raw = self.path.is_root() && self.ctx.raw_keys.contains(&key.as_ref());
            let value = if raw {
                map.next_value_seed(RawSeed {
                    ctx: self.ctx.inside(),
                    path: &path,
                })?
            } else {
                map.next_value_seed(NodeSeed {
                    ctx: self.ctx.inside(),
                    path: &path,
                })?
            };
            members.push((key, value));
        }
        if !self.path.is_root() {
            members.shrink_to_fit();
        }
        Ok(Node::Object(Object { members }))
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn bounds_are_checked_before_any_tree_is_built() {
        let flood = format!("[{}0]", "0,".repeat(100_000));
        assert_eq!(
            check_bounds(&flood, 1000),
            Err(JsonError::TooManyValues { limit: 1000 })
        );
        assert_eq!(check_bounds(&flood, 200_000), Ok(()));
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert_eq!(check_bounds(&deep, usize::MAX), Err(JsonError::TooDeep));
        // Brackets and commas inside strings are text, escaped quotes included.
        let text = r#"{"a":"[[[,,,\"]]],,","b":[1,2]}"#;
        assert_eq!(check_bounds(text, 5), Ok(()));
        assert!(check_bounds(text, 3).is_err());
    }
    use super::*;

    #[test]
    fn duplicates_are_found_at_every_depth_and_last_wins() {
        let p = parse(r#"{"a":1,"b":{"c":1,"c":2},"a":[{"d":0,"d":0}]}"#, &[]).unwrap();
        let paths: Vec<_> = p.duplicates.iter().filter_map(JsonError::member).collect();
        assert_eq!(paths, ["b.c", "a", "a[0].d"]);
        let root = p.root.as_object().unwrap();
        assert!(matches!(root.get("a"), Some(Node::Array(_))));
    }

    #[test]
    fn raw_keys_keep_number_text() {
        let p = parse(
            r#"{"seq":1.0,"n":1.0,"big":18446744073709551616}"#,
            &["seq", "big"],
        )
        .unwrap();
        let o = p.root.as_object().unwrap();
        assert_eq!(o.get("seq"), Some(&Node::Number(Num::Text("1.0"))));
        assert_eq!(o.get("n"), Some(&Node::Number(Num::F64(1.0))));
        assert_eq!(
            o.get("big"),
            Some(&Node::Number(Num::Text("18446744073709551616")))
        );
        // A raw key holding something else is read as an ordinary value, still strictly.
        let p = parse(r#"{"seq":{"x":1,"x":2}}"#, &["seq"]).unwrap();
        assert_eq!(p.duplicates.len(), 1);
    }

    #[test]
    fn envelope_errors() {
        assert_eq!(as_text(b"\xef\xbb\xbf[]"), Err(JsonError::ByteOrderMark));
        assert_eq!(
            as_text(b"[\"\xff\"]"),
            Err(JsonError::NotUtf8 { offset: 2 })
        );
        assert_eq!(parse("", &[]).unwrap_err(), JsonError::Empty);
        assert_eq!(parse(" \n\t", &[]).unwrap_err(), JsonError::Empty);
    }

    #[test]
    fn value_count_limit_counts_every_value_and_stops_at_the_first_over() {
        let limits = Limits {
            max_values: 4,
            max_string_bytes: 100,
        };
        // Root array + three numbers = 4 values: at the limit.
        assert!(parse_limited("[1,2,3]", &[], 0, &limits).is_ok());
        assert_eq!(
            parse_limited("[1,2,3,4]", &[], 0, &limits).unwrap_err(),
            JsonError::TooManyValues { limit: 4 }
        );
        // Containers count; raw-key numbers count.
        assert_eq!(
            parse_limited(r#"{"a":[[]],"seq":1}"#, &["seq"], 0, &limits)
                .unwrap()
                .root,
            parse(r#"{"a":[[]],"seq":1}"#, &["seq"]).unwrap().root
        );
        assert!(matches!(
            parse_limited(r#"{"a":[[]],"seq":1,"b":0}"#, &["seq"], 0, &limits),
            Err(JsonError::TooManyValues { .. })
        ));
        // The default holds a million values and refuses one more.
        let at = format!("[{}]", vec!["0"; DEFAULT_MAX_VALUES - 1].join(","));
        assert!(parse(&at, &[]).is_ok());
        let over = format!("[{}]", vec!["0"; DEFAULT_MAX_VALUES].join(","));
        assert_eq!(
            parse(&over, &[]).unwrap_err(),
            JsonError::TooManyValues {
                limit: DEFAULT_MAX_VALUES
            }
        );
    }

    #[test]
    fn string_limit_applies_to_values_and_names_after_unescaping() {
        let limits = Limits {
            max_values: 100,
            max_string_bytes: 4,
        };
        assert!(parse_limited(r#"{"abcd":"wxyz"}"#, &[], 0, &limits).is_ok());
        // Six escape characters decode to one byte each.
        assert!(parse_limited(r#"["\u0041\u0042\u0043\u0044"]"#, &[], 0, &limits).is_ok());
        let e = parse_limited(r#"{"t":{"name":"abcde"}}"#, &[], 0, &limits).unwrap_err();
        assert_eq!(
            e,
            JsonError::StringTooLong {
                limit: 4,
                path: "t.name".into()
            }
        );
        assert_eq!(e.member().as_deref(), Some("t.name"));
        assert!(e.to_string().contains("t.name"), "{e}");
        assert!(matches!(
            parse_limited(r#"{"abcde":1}"#, &[], 0, &limits),
            Err(JsonError::StringTooLong { .. })
        ));
        assert!(matches!(
            parse_limited(r#""abcde""#, &[], 0, &limits),
            Err(JsonError::StringTooLong { ref path, .. }) if path.is_empty()
        ));
    }

    #[test]
    fn paths_cut_long_member_names_and_escape_controls() {
        let long = "k".repeat(10_000);
        let text = format!(r#"{{"{long}":1,"{long}":2,"a\u0007b":{{"c":1,"c":1}}}}"#);
        let p = parse(&text, &[]).unwrap();
        let paths: Vec<_> = p.duplicates.iter().filter_map(JsonError::member).collect();
        assert_eq!(
            paths[0],
            format!(
                "{}… (10000 characters in all)",
                "k".repeat(MAX_SEGMENT_CHARS)
            )
        );
        assert_eq!(paths[1], "a\\u{7}b.c");
        let limits = Limits {
            max_values: 10,
            max_string_bytes: 100,
        };
        let e = parse_limited(&format!(r#"{{"{long}":1}}"#), &[], 0, &limits).unwrap_err();
        assert!(e.to_string().len() < 200, "{e}");
    }

    /// Pins the serde_json behaviour the classification relies on.
    #[test]
    fn classification_of_hostile_text() {
        let surrogate = |s: &str| match parse(s, &[]) {
            Err(JsonError::LoneSurrogate { escape }) => escape,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(surrogate(r#"["\ud800"]"#), r"\ud800");
        assert_eq!(surrogate(r#"["\udc00"]"#), r"\udc00");
        assert_eq!(surrogate(r#"["\uD800\u0041"]"#), r"\uD800");
        assert_eq!(surrogate(r#"{"k\udfff":1}"#), r"\udfff");
        assert!(parse(r#"["\ud83d\ude00", "\\ud800"]"#, &[]).is_ok());
        assert_eq!(
            parse(&"[".repeat(200), &[]).unwrap_err(),
            JsonError::TooDeep
        );
        assert!(matches!(
            parse("[1e400]", &[]),
            Err(JsonError::NumberOutOfRange { .. })
        ));
        assert!(matches!(parse("[1] x", &[]), Err(JsonError::Syntax { .. })));
        assert!(matches!(parse("[1,", &[]), Err(JsonError::Syntax { .. })));
        assert!(matches!(
            parse("{\"a\":\"\u{1}\"}", &[]),
            Err(JsonError::Syntax { .. })
        ));
        let depth_ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&depth_ok, &[]).is_ok());
        let too_deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(parse(&too_deep, &[]).unwrap_err(), JsonError::TooDeep);
        // Inside one enclosing array, one level less is left.
        assert_eq!(
            parse_nested(&depth_ok, &[], 1).unwrap_err(),
            JsonError::TooDeep
        );
        // Raw keys re-read their value, still within the same budget.
        let deep_seq = format!(
            "{{\"seq\":{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        let seq_ok = format!(
            "{{\"seq\":{}{}}}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse(&seq_ok, &["seq"]).is_ok());
        assert_eq!(parse(&deep_seq, &["seq"]).unwrap_err(), JsonError::TooDeep);
        // A syntax error before a lone surrogate is reported as syntax.
        assert!(matches!(
            parse(r#"[1 2, "\ud800"]"#, &[]),
            Err(JsonError::Syntax { .. })
        ));
    }
}
