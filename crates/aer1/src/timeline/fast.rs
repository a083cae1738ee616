//! The fast path for one entry: everything about an entry that does not depend on the entries
//! before it, done without building a general JSON tree, and only for entries that pass it all.
//!
//! The entry has already been read by the flat reader while the splitter found its end
//! ([`crate::json::split::ArraySplitter::next_piece_flat`]: one flat object of plain members,
//! strictness checked in the same pass), which says where each member lies ([`FlatShape`]).
//! [`Picked`] keeps the places of the members the checks read, small enough to travel with the
//! entry's bytes to a worker thread. There [`prepare`] checks the text is UTF-8 (the one check
//! of the flat reader left for later, so that it runs on the worker) and runs, on the values, the
//! very functions the strict check runs (`decode_and_hash`, `provenance_class`, `seq_digits`,
//! `hex::eq_lower`, `write_preimage`, `sha256`). It answers `Some` only when none of them would
//! report anything: then the only findings the strict check could still make on this entry are the
//! order-dependent ones (job consistency, genesis, link), which [`super::Chain`] makes from the
//! [`Prepared`] result with the same functions and in the same order. On any doubt it answers
//! `None` and the strict path reads the entry and produces every finding, so findings always come
//! from one place and the fast path can only ever skip work, never change a report.
//!
//! `Picked` and `Prepared` own no borrowed data (the strings the chain still needs are spans of
//! the entry's bytes), so they travel between threads with the entry's bytes.

use crate::digest::{sha256_in_place, write_preimage, Hash32, PreimageFields, Revision};
use crate::formats::{decode_and_hash, provenance_class};
use crate::hex;
use crate::json::flat::{
    scan_flat_shape, FlatKind, FlatMember, FlatShape, FlatValue, Span, MAX_FLAT_MEMBERS,
};
use crate::json::{Limits, Node, Num};

use super::seq::seq_digits;

/// Buffers reused from one entry to the next (one set per thread).
#[derive(Default)]
pub(super) struct Scratch {
    /// Decoded `canonical_bytes`.
    pub bytes: Vec<u8>,
    /// The revision-09 preimage of the last entry digested.
    pub preimage: Vec<u8>,
}

/// What the chain needs of an entry that passed every check that does not depend on other
/// entries.
#[derive(Clone, Debug)]
pub(super) struct Prepared {
    /// The entry's index this was computed for (seq was checked against it).
    pub index: u64,
    /// Digest under the revision checked.
    pub digest: Hash32,
    /// Revision-06 digest (the output hash).
    pub digest_06: Hash32,
    /// The `close` member (absent is false).
    pub close: bool,
    /// Where `prev_digest`'s text lies in the entry's bytes.
    pub prev_digest: Span,
    /// The digest `prev_digest` spells, when it is 64 lowercase hex digits: the link is then
    /// compared as 32 bytes (`hex::eq_lower(text, d)` holds exactly when this is `Some(d)`).
    pub prev_digest_value: Option<Hash32>,
    /// Where `job_id`'s text lies (revision 09 only: 06 does not judge it).
    pub job_id: Option<Span>,
    /// A copy of `job_id`'s text when it is short (as job ids are): the chain compares it with
    /// the first job without reading the entry's bytes again, which on the caller's thread, long
    /// after it copied them, missed the cache for every entry.
    pub job_id_copy: ShortCopy,
}

/// A copy of a short text (up to [`ShortCopy::ROOM`] bytes).
#[derive(Clone, Copy, Debug)]
pub(super) struct ShortCopy {
    bytes: [u8; ShortCopy::ROOM],
    /// The text's length; `None` when it did not fit (or there is none).
    len: Option<u8>,
}

impl Default for ShortCopy {
    fn default() -> Self {
        ShortCopy {
            bytes: [0; ShortCopy::ROOM],
            len: None,
        }
    }
}

impl ShortCopy {
    /// Room for a UUID and more.
    const ROOM: usize = 48;

    fn of(text: &str) -> Self {
        let mut copy = ShortCopy::default();
        if let Some(room) = copy.bytes.get_mut(..text.len()) {
            room.copy_from_slice(text.as_bytes());
            copy.len = u8::try_from(text.len()).ok();
        }
        copy
    }

    /// The text copied, if it fitted.
    pub fn get(&self) -> Option<&[u8]> {
        self.bytes.get(..usize::from(self.len?))
    }
}

/// Entries sit inside the timeline array: one level of the nesting budget is used, as for the
/// strict read.
const ENCLOSING: usize = 1;

/// The fast path for entry `index`, read whole here (a testing aid's way in: the splitter
/// normally reads the shape while it finds the entry's end).
pub(super) fn prepare_bytes(
    bytes: &[u8],
    index: u64,
    revision: Revision,
    limits: &Limits,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    let mut shape = FlatShape::default();
    if scan_flat_shape(bytes, ENCLOSING, limits, &mut shape)? != bytes.len() {
        return None;
    }
    let picked = Picker::default().pick(&shape, bytes);
    prepare(bytes, &picked, index, revision, scratch)
}

/// The fast path for entry `index` under `revision`, from the places `picked` found in `bytes`;
/// `None` means "use the strict path".
pub(super) fn prepare(
    bytes: &[u8],
    picked: &Picked,
    index: u64,
    revision: Revision,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    // The flat reader's UTF-8 check, as the strict reader's: the whole entry's text.
    let text = std::str::from_utf8(bytes).ok()?;
    let entry = Members::read(picked, text)?;
    match revision {
        Revision::R09 => prepare_09(&entry, picked, index, scratch),
        Revision::R06 => prepare_06(&entry, picked, index, scratch),
    }
}

/// One member's value: its kind and where its text lies.
type Place = Option<(FlatKind, Span)>;

/// The names of the members the checks read; a member's place in [`Picked`] is its name's index.
const NAMES: [&[u8]; 9] = [
    b"canonical_bytes",
    b"prev_digest",
    b"job_id",
    b"id",
    b"tool",
    b"provenance_class",
    b"output_hash",
    b"seq",
    b"close",
];

/// Where each member the checks read lies in an entry's bytes, in the order of [`NAMES`] (member
/// names in a flat object are unique, so each place holds what `Object::get` would find).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Picked([Place; NAMES.len()]);

/// Picks the members the checks read from the flat reader's shapes, by name. Which name sits at
/// which position is worked out once for each set of names the shapes remember
/// ([`FlatShape::names_id`]): the entries of a timeline nearly always repeat their names.
#[derive(Default)]
pub(super) struct Picker {
    /// A names identifier and, for each member position, the index in [`NAMES`] of its name
    /// ([`NOT_READ`] for other names).
    known: Option<(u64, [u8; MAX_FLAT_MEMBERS])>,
}

/// A member position whose name the checks do not read.
const NOT_READ: u8 = u8::MAX;

impl Picker {
    /// The members of `shape` (found in `bytes`) the checks read.
    pub fn pick(&mut self, shape: &FlatShape, bytes: &[u8]) -> Picked {
        let positions = match (shape.names_id(), self.known) {
            (Some(id), Some((known, positions))) if id == known => positions,
            (id, _) => {
                let mut positions = [NOT_READ; MAX_FLAT_MEMBERS];
                for (position, member) in positions.iter_mut().zip(shape.members()) {
                    let name = bytes.get(member.name.range()).unwrap_or_default();
                    if let Some(index) = NAMES.iter().position(|&n| n == name) {
                        *position = index as u8;
                    }
                }
                self.known = id.map(|id| (id, positions));
                positions
            }
        };
        let mut picked = Picked::default();
        for (member, &index) in shape.members().iter().zip(&positions) {
            if let Some(place) = picked.0.get_mut(usize::from(index)) {
                *place = Some((member.kind, member.value));
            }
        }
        picked
    }
}

/// The members the checks read, as text.
struct Members<'a> {
    canonical_bytes: Option<FlatValue<'a>>,
    prev_digest: Option<FlatValue<'a>>,
    job_id: Option<FlatValue<'a>>,
    id: Option<FlatValue<'a>>,
    tool: Option<FlatValue<'a>>,
    provenance_class: Option<FlatValue<'a>>,
    output_hash: Option<FlatValue<'a>>,
    seq: Option<FlatValue<'a>>,
    close: Option<FlatValue<'a>>,
}

impl<'a> Members<'a> {
    /// `None` if a place does not fit `text` (only other bytes than the picked ones cause it).
    fn read(picked: &Picked, text: &'a str) -> Option<Self> {
        let mut values = [None; NAMES.len()];
        for (value, place) in values.iter_mut().zip(&picked.0) {
            if let Some((kind, span)) = *place {
                let member = FlatMember {
                    name: Span::default(),
                    kind,
                    value: span,
                };
                *value = Some(member.value_in(text)?);
            }
        }
        let [canonical_bytes, prev_digest, job_id, id, tool, provenance_class, output_hash, seq, close] =
            values;
        Some(Members {
            canonical_bytes,
            prev_digest,
            job_id,
            id,
            tool,
            provenance_class,
            output_hash,
            seq,
            close,
        })
    }
}

/// A string member as `string_member` accepts it without a finding: present, a string, and
/// non-empty unless `may_be_empty`.
fn string(member: Option<FlatValue<'_>>, may_be_empty: bool) -> Option<&str> {
    match member? {
        FlatValue::Str(s) if may_be_empty || !s.is_empty() => Some(s),
        _ => None,
    }
}

/// `close` as `check_close` accepts it without a finding: absent (false) or a boolean.
fn close(member: Option<FlatValue<'_>>) -> Option<bool> {
    match member {
        None => Some(false),
        Some(FlatValue::Bool(b)) => Some(b),
        Some(_) => None,
    }
}

/// The span of member `name`'s value text.
fn span_of(picked: &Picked, name: &[u8]) -> Option<Span> {
    let index = NAMES.iter().position(|&n| n == name)?;
    picked.0.get(index).copied().flatten().map(|(_, span)| span)
}

/// Mirrors `check_object_09`: declines wherever that would report a finding other than the
/// order-dependent job and link ones.
fn prepare_09(
    entry: &Members<'_>,
    places: &Picked,
    index: u64,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    let canonical_bytes = string(entry.canonical_bytes, true)?;
    let prev_digest = string(entry.prev_digest, true)?;
    let job_id = string(entry.job_id, false)?;
    let id = string(entry.id, false)?;
    let tool = string(entry.tool, false)?;
    let class = string(entry.provenance_class, false)?;

    let decoded = decode_and_hash(canonical_bytes, &mut scratch.bytes).ok()?;
    if decoded.not_utf8_at.is_some() {
        return None;
    }
    let output_hash = decoded.sha256;
    match entry.output_hash {
        None => {}
        Some(FlatValue::Str(stored))
            if stored
                .strip_prefix("sha256:")
                .is_some_and(|h| hex::eq_lower(h, &output_hash)) => {}
        Some(_) => return None,
    }
    provenance_class(class)?;

    let FlatValue::Int(seq_text) = entry.seq? else {
        return None;
    };
    let seq = seq_digits(&Node::Number(Num::Text(seq_text))).ok()?;
    if seq.parse::<u64>() != Ok(index.checked_add(1)?) {
        return None;
    }
    let close = close(entry.close)?;

    write_preimage(
        &mut scratch.preimage,
        &PreimageFields {
            close,
            id,
            job_id,
            output_hash: &output_hash,
            prev_digest,
            provenance_class: class,
            seq: &seq,
            tool,
        },
    );
    Some(Prepared {
        index,
        digest: sha256_in_place(&mut scratch.preimage),
        digest_06: output_hash,
        close,
        prev_digest: span_of(places, b"prev_digest")?,
        prev_digest_value: lower_hex_digest(prev_digest),
        job_id: Some(span_of(places, b"job_id")?),
        job_id_copy: ShortCopy::of(job_id),
    })
}

/// Mirrors `check_object_06`: the bytes strict base64, close absent or boolean, prev_digest a
/// string (whether a missing one is a finding depends on the entries before: declined).
fn prepare_06(
    entry: &Members<'_>,
    places: &Picked,
    index: u64,
    scratch: &mut Scratch,
) -> Option<Prepared> {
    let FlatValue::Str(canonical_bytes) = entry.canonical_bytes? else {
        return None;
    };
    let decoded = decode_and_hash(canonical_bytes, &mut scratch.bytes).ok()?;
    let close = close(entry.close)?;
    let FlatValue::Str(prev_digest) = entry.prev_digest? else {
        return None;
    };
    Some(Prepared {
        index,
        digest: decoded.sha256,
        digest_06: decoded.sha256,
        close,
        prev_digest: span_of(places, b"prev_digest")?,
        prev_digest_value: lower_hex_digest(prev_digest),
        job_id: None,
        job_id_copy: ShortCopy::default(),
    })
}

/// The 32 bytes `text` spells when it is exactly 64 lowercase hex digits, `None` otherwise: so
/// `lower_hex_digest(t) == Some(d)` exactly when `hex::eq_lower(t, &d)`. Eight digits at a time
/// (digests are random, so a branch per digit on digit-or-letter would mispredict half the time).
fn lower_hex_digest(text: &str) -> Option<Hash32> {
    let text: &[u8; 64] = text.as_bytes().try_into().ok()?;
    let mut out = [0u8; 32];
    for (four, eight) in out.chunks_exact_mut(4).zip(text.chunks_exact(8)) {
        let w = u64::from_le_bytes(eight.try_into().ok()?);
        four.copy_from_slice(&hex_word(w)?);
    }
    Some(out)
}

/// Eight lowercase hex digits (the first in the lowest byte) as the four bytes they spell.
fn hex_word(w: u64) -> Option<[u8; 4]> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if w & HIGH != 0 {
        return None;
    }
    // With every byte below 0x80, adding 0x80 - c sets a byte's high bit exactly when the byte is
    // at least c, and no carry crosses into the next byte.
    let at_least = |c: u64| w.wrapping_add(ONES * (0x80 - c));
    let digit = at_least(0x30) & !at_least(0x3a);
    let letter = at_least(0x61) & !at_least(0x67);
    if (digit | letter) & HIGH != HIGH {
        return None;
    }
    // '0'..'9' are 0x30..0x39 and 'a'..'f' 0x61..0x66: the low four bits, plus 9 for letters.
    let nibbles = (w & (ONES * 0x0f)) + 9 * ((w >> 6) & ONES);
    // Each pair of digits (high nibble first) into the low byte of its 16 bits.
    let pairs = ((nibbles & 0x00ff_00ff_00ff_00ff) << 4) | ((nibbles >> 8) & 0x00ff_00ff_00ff_00ff);
    Some([0, 16, 32, 48].map(|shift| (pairs >> shift) as u8))
}

/// The text at `span` of an entry's bytes (a span [`prepare`] produced for these bytes).
pub(super) fn text_at(bytes: &[u8], span: Span) -> Option<&str> {
    std::str::from_utf8(bytes.get(span.range())?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_a_digit_exactly_when_hex_says_so() {
        // Each byte value at each of the 64 places, among valid digits: read exactly when it is a
        // lowercase hex digit, and then to the value eq_lower compares with.
        let base: Vec<u8> = b"0123456789abcdef"
            .iter()
            .cycle()
            .take(64)
            .copied()
            .collect();
        for place in 0..64 {
            for byte in 0..=255u8 {
                let mut text = base.clone();
                text[place] = byte;
                let Ok(text) = String::from_utf8(text) else {
                    continue;
                };
                let lower_hex = byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte);
                match lower_hex_digest(&text) {
                    Some(d) => assert!(lower_hex && hex::eq_lower(&text, &d), "{text}"),
                    None => assert!(!lower_hex, "{text}"),
                }
            }
        }
    }

    #[test]
    fn a_digest_is_read_exactly_when_eq_lower_would_match_it() {
        let digest: Hash32 = std::array::from_fn(|i| (i * 37 + 5) as u8);
        let text = hex::lower(&digest);
        assert_eq!(lower_hex_digest(&text), Some(digest));
        assert!(hex::eq_lower(&text, &digest));
        let zeros = "0".repeat(64);
        assert_eq!(lower_hex_digest(&zeros), Some([0; 32]));
        // Whatever eq_lower refuses, this does not read: upper case, other letters, lengths.
        let not_read = [
            text.to_uppercase(),
            text.replacen(|c: char| c.is_ascii_alphabetic(), "g", 1),
            text[..63].to_string(),
            format!("{text}0"),
            String::new(),
            format!("{}é", &text[..62]),
        ];
        for other in not_read {
            assert_eq!(lower_hex_digest(&other), None, "{other}");
            assert!(!hex::eq_lower(&other, &digest), "{other}");
        }
    }

    #[test]
    fn short_texts_are_copied_and_long_ones_are_not() {
        let short = "j".repeat(ShortCopy::ROOM);
        assert_eq!(ShortCopy::of(&short).get(), Some(short.as_bytes()));
        assert_eq!(ShortCopy::of("").get(), Some(&b""[..]));
        assert_eq!(ShortCopy::of(&format!("{short}j")).get(), None);
        assert_eq!(ShortCopy::default().get(), None);
    }

    #[test]
    fn text_at_refuses_spans_outside_the_bytes() {
        let whole = br#"{"a":"xyz"}"#;
        assert_eq!(text_at(whole, Span { start: 6, end: 9 }), Some("xyz"));
        assert_eq!(text_at(whole, Span { start: 6, end: 99 }), None);
    }
}
