//! The small string formats the drafts rely on: strict base64, RFC 3339 date-times, UUIDs and
//! provenance classes.
//!
//! RFC 3339 is checked by hand on purpose: the common crates accept lowercase `t`/`z` and the leap
//! second `:60`, both of which the reference kit rejects, so a crate would need as much code around
//! it as the grammar itself.

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

// ------------------------------------------------------------------------------------------------
// Base64

/// Why a `canonical_bytes` value is not strict base64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// Length not a multiple of four (this is also how missing padding shows).
    Length { len: usize },
    /// A character outside `A-Za-z0-9+/=`: whitespace, URL-safe `-`/`_`, and so on.
    Character { offset: usize, byte: u8 },
    /// `=` somewhere other than at the end, or too much of it.
    Padding { offset: usize },
    /// The last symbol carries non-zero bits past the data (non-canonical encoding).
    TrailingBits { offset: usize },
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Base64Error::Length { len } => write!(
                f,
                "length {len} is not a multiple of 4 (standard base64 must be padded with '=')"
            ),
            Base64Error::Character { offset, byte } => write!(
                f,
                "character {} at offset {offset} is not in the standard base64 alphabet \
                 (no whitespace, no URL-safe '-' or '_')",
                describe_byte(*byte)
            ),
            Base64Error::Padding { offset } => {
                write!(f, "misplaced '=' padding at offset {offset}")
            }
            Base64Error::TrailingBits { offset } => write!(
                f,
                "the symbol at offset {offset} has non-zero trailing bits (non-canonical encoding)"
            ),
        }
    }
}

fn describe_byte(b: u8) -> String {
    match b {
        b' ' => "' ' (space)".into(),
        b'\n' => "'\\n'".into(),
        b'\r' => "'\\r'".into(),
        b'\t' => "'\\t'".into(),
        0x21..=0x7e => format!("'{}'", b as char),
        _ => format!("byte 0x{b:02x}"),
    }
}

/// Decodes padded standard base64 (RFC 4648 section 4) into `out`, which is cleared first.
/// Rejects missing padding, whitespace, URL-safe characters and non-zero trailing bits.
///
/// Valid text is decoded by [`decode_valid_base64`]; only text it refuses goes through the
/// `base64` crate, which then says why (the two accept exactly the same texts, and decode them
/// alike: the tests hold them equal).
pub fn decode_base64_into(text: &str, out: &mut Vec<u8>) -> Result<(), Base64Error> {
    if decode_valid_base64(text.as_bytes(), out) {
        return Ok(());
    }
    out.clear();
    if !text.len().is_multiple_of(4) {
        // The crate would report the length too, but naming the character first is more useful
        // when the cause is whitespace or a URL-safe symbol.
        if let Some((offset, byte)) = first_foreign_byte(text) {
            return Err(Base64Error::Character { offset, byte });
        }
        return Err(Base64Error::Length { len: text.len() });
    }
    STANDARD.decode_vec(text, out).map_err(|e| match e {
        base64::DecodeError::InvalidByte(offset, b'=') => Base64Error::Padding { offset },
        base64::DecodeError::InvalidByte(offset, byte) => Base64Error::Character { offset, byte },
        base64::DecodeError::InvalidLength(len) => Base64Error::Length { len },
        base64::DecodeError::InvalidLastSymbol(offset, _) => Base64Error::TrailingBits { offset },
        base64::DecodeError::InvalidPadding => Base64Error::Padding {
            offset: text.find('=').unwrap_or(text.len()),
        },
    })
}

/// Marks a byte outside the standard alphabet (`=` included) in [`BASE64_VALUES`].
const NOT_BASE64: u8 = 0x80;

/// Each byte's six-bit value in the standard base64 alphabet, [`NOT_BASE64`] for other bytes.
const BASE64_VALUES: [u8; 256] = {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut values = [NOT_BASE64; 256];
    let mut i = 0;
    while i < alphabet.len() {
        values[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    values
};

/// [`BASE64_VALUES`] shifted to each of the four places of a group (the first symbol's six bits
/// highest), with a foreign byte marked in the top byte, which no symbol's bits reach.
const PLACED: [[u32; 256]; 4] = {
    let mut placed = [[0u32; 256]; 4];
    let mut place = 0;
    while place < 4 {
        let mut byte = 0;
        while byte < 256 {
            let value = BASE64_VALUES[byte];
            placed[place][byte] = if value == NOT_BASE64 {
                1 << 24
            } else {
                (value as u32) << (18 - 6 * place)
            };
            byte += 1;
        }
        place += 1;
    }
    placed
};

/// Decodes `text` into `out` (cleared first) when it is padded standard base64 with zero
/// trailing bits, exactly the texts the `base64` crate's `STANDARD` engine accepts with the
/// length check of [`decode_base64_into`]; false for anything else (`out` then holds nothing
/// useful). The crate's decoder, general over engines and configurations, cost about as much as
/// hashing the decoded bytes for short values such as timeline entries'; this one looks each
/// symbol up once and writes three bytes per four symbols.
fn decode_valid_base64(text: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    if !text.len().is_multiple_of(4) {
        return false;
    }
    let Some((body, last)) = text.split_last_chunk::<4>() else {
        return true; // the empty text: no bytes
    };
    let value = |symbol: u8| u32::from(BASE64_VALUES[usize::from(symbol)]);
    let quads = body.len() / 4;
    out.resize(quads * 3, 0);
    for (three, quad) in out.chunks_exact_mut(3).zip(body.chunks_exact(4)) {
        let Ok(&[a, b, c, d]) = <&[u8; 4]>::try_from(quad) else {
            return false;
        };
        // Each symbol's bits already in place, and a foreign symbol's mark in the top byte.
        let n = PLACED[0][usize::from(a)]
            | PLACED[1][usize::from(b)]
            | PLACED[2][usize::from(c)]
            | PLACED[3][usize::from(d)];
        let [mark, bytes @ ..] = n.to_be_bytes();
        if mark != 0 {
            return false;
        }
        three.copy_from_slice(&bytes);
    }
    // The last four symbols: up to two of them padding, and the bits past the data zero.
    let [a, b, c, d] = *last;
    let (a, b) = (value(a), value(b));
    let (c, d, kept) = match (c, d) {
        (b'=', b'=') => (0, 0, 1),
        (c, b'=') => (value(c), 0, 2),
        (c, d) => (value(c), value(d), 3),
    };
    if (a | b | c | d) & u32::from(NOT_BASE64) != 0 {
        return false;
    }
    let n = (a << 18) | (b << 12) | (c << 6) | d;
    let [_, bytes @ ..] = n.to_be_bytes();
    // Canonical: the bits of the last symbol past the data are zero.
    let (data, dropped) = bytes.split_at(kept);
    if dropped.iter().any(|&byte| byte != 0) {
        return false;
    }
    out.extend_from_slice(data);
    true
}

fn first_foreign_byte(text: &str) -> Option<(usize, u8)> {
    text.bytes()
        .enumerate()
        .find(|(_, b)| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')))
}

/// What decoding `canonical_bytes` yields: the SHA-256 of the bytes, and where they stop being
/// UTF-8 (if they do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodedBytes {
    pub sha256: [u8; 32],
    /// Offset of the first byte that is not valid UTF-8, if any.
    pub not_utf8_at: Option<usize>,
}

/// Decodes `canonical_bytes` strictly (into `scratch`, reused between calls) and hashes the bytes:
/// the one place receipts and timeline entries turn base64 into an output hash.
pub fn decode_and_hash(text: &str, scratch: &mut Vec<u8>) -> Result<DecodedBytes, Base64Error> {
    decode_base64_into(text, scratch)?;
    Ok(DecodedBytes {
        not_utf8_at: std::str::from_utf8(scratch).err().map(|e| e.valid_up_to()),
        sha256: crate::digest::sha256_in_place(scratch),
    })
}

/// Encodes bytes as padded standard base64.
pub fn encode_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

// ------------------------------------------------------------------------------------------------
// RFC 3339

/// Why a string is not an RFC 3339 date-time naming a real instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// Does not have the `YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)` shape.
    Shape,
    Month(u32),
    Day {
        year: u32,
        month: u32,
        day: u32,
    },
    Hour(u32),
    Minute(u32),
    /// Second 60 (leap seconds are rejected) or higher.
    Second(u32),
    OffsetHour(u32),
    OffsetMinute(u32),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::Shape => f.write_str(
                "not an RFC 3339 date-time of the form YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM) \
                 with uppercase T and Z",
            ),
            TimeError::Month(m) => write!(f, "month {m:02} does not exist"),
            TimeError::Day { year, month, day } => {
                write!(f, "day {day:02} does not exist in {year:04}-{month:02}")
            }
            TimeError::Hour(h) => write!(f, "hour {h:02} is out of range 00-23"),
            TimeError::Minute(m) => write!(f, "minute {m:02} is out of range 00-59"),
            TimeError::Second(s) => write!(f, "second {s:02} is out of range 00-59 (leap seconds are rejected)"),
            TimeError::OffsetHour(h) => write!(f, "offset hour {h:02} is out of range 00-23"),
            TimeError::OffsetMinute(m) => write!(f, "offset minute {m:02} is out of range 00-59"),
        }
    }
}

/// Checks an RFC 3339 `date-time` strictly: uppercase `T` and `Z`, any number (at least one) of
/// fraction digits, a real calendar date (leap years with the century rule), no second 60.
pub fn check_rfc3339(s: &str) -> Result<(), TimeError> {
    let b = s.as_bytes();
    // Fixed part: YYYY-MM-DDTHH:MM:SS is 19 bytes.
    if b.len() < 20 {
        return Err(TimeError::Shape);
    }
    let digits = |range: std::ops::Range<usize>| -> Result<u32, TimeError> {
        let part = &b[range];
        if part.iter().all(u8::is_ascii_digit) {
            Ok(part.iter().fold(0, |acc, d| acc * 10 + u32::from(d - b'0')))
        } else {
            Err(TimeError::Shape)
        }
    };
    let separators_ok =
        b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':';
    if !separators_ok {
        return Err(TimeError::Shape);
    }
    let year = digits(0..4)?;
    let month = digits(5..7)?;
    let day = digits(8..10)?;
    let hour = digits(11..13)?;
    let minute = digits(14..16)?;
    let second = digits(17..19)?;

    let mut rest = &b[19..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return Err(TimeError::Shape);
        }
        rest = &frac[n..];
    }
    let offset = match rest {
        b"Z" => None,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let _ = sign;
            let two = |x: u8, y: u8| -> Result<u32, TimeError> {
                if x.is_ascii_digit() && y.is_ascii_digit() {
                    Ok(u32::from(x - b'0') * 10 + u32::from(y - b'0'))
                } else {
                    Err(TimeError::Shape)
                }
            };
            Some((two(*h1, *h2)?, two(*m1, *m2)?))
        }
        _ => return Err(TimeError::Shape),
    };

    if !(1..=12).contains(&month) {
        return Err(TimeError::Month(month));
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(TimeError::Day { year, month, day });
    }
    if hour > 23 {
        return Err(TimeError::Hour(hour));
    }
    if minute > 59 {
        return Err(TimeError::Minute(minute));
    }
    if second > 59 {
        return Err(TimeError::Second(second));
    }
    if let Some((oh, om)) = offset {
        if oh > 23 {
            return Err(TimeError::OffsetHour(oh));
        }
        if om > 59 {
            return Err(TimeError::OffsetMinute(om));
        }
    }
    Ok(())
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap_year(year) => 29,
        _ => 28,
    }
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

// ------------------------------------------------------------------------------------------------
// UUIDs

/// Why a receipt id fails an id tier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdError {
    /// Not the lowercase 8-4-4-4-12 hex shape (uppercase is rejected).
    Shape,
    /// Strict tier: version nibble is not 4.
    Version(char),
    /// Strict tier: variant is not the RFC 4122 one (8, 9, a or b).
    Variant(char),
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Shape => f.write_str("not a lowercase UUID (8-4-4-4-12 lowercase hex digits)"),
            IdError::Version(c) => write!(f, "UUID version is {c}, the strict tier requires 4"),
            IdError::Variant(c) => write!(
                f,
                "UUID variant digit is {c}, the strict tier requires the RFC 4122 variant (8, 9, a or b)"
            ),
        }
    }
}

/// Core tier: the lowercase UUID shape, matched against the whole string. The nil UUID has that
/// shape and passes: revision 09 and its kit accept it (only revisions 21 and later reject it).
/// Under the strict tier it fails the version check (its version digit is 0).
pub fn check_uuid_core(s: &str) -> Result<(), IdError> {
    if !is_uuid_any_case(s) || s.bytes().any(|c| c.is_ascii_uppercase()) {
        return Err(IdError::Shape);
    }
    Ok(())
}

/// The 8-4-4-4-12 hex shape of a UUID in either case, matched against the whole string: what
/// the draft's "UUID" says of a workflow step's receipt_id (RFC 9562 reads the hex digits
/// case-insensitively on input); the lower case the kit asks for is checked apart.
pub fn is_uuid_any_case(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Strict tier: the core tier plus version 4 and the RFC 4122 variant.
/// Returns the core-tier error first, so a caller can tell which tier failed.
pub fn check_uuid_strict(s: &str) -> Result<(), IdError> {
    check_uuid_core(s)?;
    let b = s.as_bytes();
    if b[14] != b'4' {
        return Err(IdError::Version(b[14] as char));
    }
    if !matches!(b[19], b'8' | b'9' | b'a' | b'b') {
        return Err(IdError::Variant(b[19] as char));
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Provenance classes

/// The three provenance classes, matched against the whole string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProvenanceClass {
    ExecutedBy,
    ObservedViaGateway,
    LoggedByAgent,
}

/// Classifies a provenance string, or `None` when it is none of the three classes. A trailing
/// newline or space after the two fixed classes is not accepted.
pub fn provenance_class(s: &str) -> Option<ProvenanceClass> {
    match s {
        "OBSERVED VIA GATEWAY" => Some(ProvenanceClass::ObservedViaGateway),
        "LOGGED BY AGENT" => Some(ProvenanceClass::LoggedByAgent),
        _ => {
            let system = s.strip_prefix("EXECUTED BY ")?.as_bytes();
            let (first, rest) = system.split_first()?;
            let first_ok = first.is_ascii_uppercase() || first.is_ascii_digit();
            let rest_ok = rest.iter().all(|c| {
                c.is_ascii_uppercase()
                    || c.is_ascii_digit()
                    || matches!(c, b' ' | b'.' | b'_' | b'-')
            });
            (first_ok && rest_ok).then_some(ProvenanceClass::ExecutedBy)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the `base64` crate decodes `text` to, with the length check of
    /// `decode_base64_into`: the reference the fast decoder is held to.
    fn crate_decode(text: &[u8]) -> Option<Vec<u8>> {
        if !text.len().is_multiple_of(4) {
            return None;
        }
        STANDARD.decode(text).ok()
    }

    fn fast_decode(text: &[u8]) -> Option<Vec<u8>> {
        let mut out = vec![0xAA; 5]; // stale bytes must not survive
        decode_valid_base64(text, &mut out).then_some(out)
    }

    /// Every symbol, padding and a few foreign bytes in each place of the last four symbols
    /// (where padding and trailing bits are judged), after no, one and two whole quads.
    #[test]
    fn the_fast_decoder_accepts_and_decodes_exactly_as_the_crate_in_the_last_quad() {
        let mut symbols: Vec<u8> =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".to_vec();
        symbols.extend_from_slice(b" -_\n\x00\x7f\x80\xff");
        for prefix in [&b""[..], b"QUJD", b"QUJDRA==", b"AAAA////"] {
            for &a in &symbols {
                for &b in &symbols {
                    for &c in &symbols {
                        let mut text = prefix.to_vec();
                        text.extend_from_slice(&[a, b, c, b'=']);
                        assert_eq!(fast_decode(&text), crate_decode(&text), "{text:?}");
                        text.truncate(prefix.len());
                        text.extend_from_slice(&[a, b, c, c]);
                        assert_eq!(fast_decode(&text), crate_decode(&text), "{text:?}");
                    }
                    let mut text = prefix.to_vec();
                    text.extend_from_slice(&[a, b, b'=', b'=']);
                    assert_eq!(fast_decode(&text), crate_decode(&text), "{text:?}");
                }
            }
        }
        assert_eq!(fast_decode(b""), Some(Vec::new()));
    }

    proptest! {
        /// Arbitrary texts over the alphabet, padding and foreign bytes, and the encodings of
        /// arbitrary bytes with one byte changed: both decoders agree on every one.
        #[test]
        fn the_fast_decoder_agrees_with_the_crate(
            text in proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".to_vec()
                    ),
                    1 => Just(b'='),
                    1 => any::<u8>(),
                ],
                0..40,
            ),
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
            at in any::<usize>(),
            to in any::<u8>(),
        ) {
            prop_assert_eq!(fast_decode(&text), crate_decode(&text));
            let mut encoded = STANDARD.encode(&bytes).into_bytes();
            prop_assert_eq!(fast_decode(&encoded), Some(bytes));
            if !encoded.is_empty() {
                let at = at % encoded.len();
                encoded[at] = to;
                prop_assert_eq!(fast_decode(&encoded), crate_decode(&encoded));
            }
        }
    }

    #[test]
    fn base64_worked_value_and_variants() {
        let mut out = Vec::new();
        decode_base64_into(
            "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=",
            &mut out,
        )
        .unwrap();
        assert_eq!(out, br#"{"inputs":{},"outputs":{"x":123},"tool":"t"}"#);
        assert!(matches!(
            decode_base64_into(
                "eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0",
                &mut out
            ),
            Err(Base64Error::Length { .. })
        ));
        assert!(matches!(
            decode_base64_into("Zm9v\nYmFy", &mut out),
            Err(Base64Error::Character { offset: 4, .. })
        ));
        assert!(matches!(
            decode_base64_into("Pz8_", &mut out),
            Err(Base64Error::Character { offset: 3, .. })
        ));
        assert!(matches!(
            decode_base64_into("Pz8-", &mut out),
            Err(Base64Error::Character { offset: 3, .. })
        ));
        assert!(matches!(
            decode_base64_into("Zm9=", &mut out),
            Err(Base64Error::TrailingBits { .. })
        ));
        assert!(matches!(
            decode_base64_into("Zg=a", &mut out),
            Err(Base64Error::Padding { .. }) | Err(Base64Error::Character { .. })
        ));
        assert!(matches!(
            decode_base64_into("=Zm9", &mut out),
            Err(Base64Error::Padding { .. })
        ));
        decode_base64_into("", &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(encode_base64(b"fo"), "Zm8=");
    }

    #[test]
    fn rfc3339_accepts_valid_instants() {
        for ok in [
            "2026-10-01T18:30:00Z",
            "2026-10-01T18:30:00.123456789Z",
            "2026-10-01T18:30:00.1+05:30",
            "2024-02-29T00:00:00Z",
            "2000-02-29T23:59:59-23:59",
            "0000-01-01T00:00:00Z",
        ] {
            assert_eq!(check_rfc3339(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rfc3339_rejects_the_edge_cases() {
        let cases: &[(&str, TimeError)] = &[
            (
                "2026-02-30T00:00:00Z",
                TimeError::Day {
                    year: 2026,
                    month: 2,
                    day: 30,
                },
            ),
            (
                "1900-02-29T00:00:00Z",
                TimeError::Day {
                    year: 1900,
                    month: 2,
                    day: 29,
                },
            ),
            (
                "2023-02-29T00:00:00Z",
                TimeError::Day {
                    year: 2023,
                    month: 2,
                    day: 29,
                },
            ),
            (
                "2026-04-31T00:00:00Z",
                TimeError::Day {
                    year: 2026,
                    month: 4,
                    day: 31,
                },
            ),
            ("2026-13-01T00:00:00Z", TimeError::Month(13)),
            ("2026-00-01T00:00:00Z", TimeError::Month(0)),
            (
                "2026-01-00T00:00:00Z",
                TimeError::Day {
                    year: 2026,
                    month: 1,
                    day: 0,
                },
            ),
            ("2026-01-01T24:00:00Z", TimeError::Hour(24)),
            ("2026-01-01T00:60:00Z", TimeError::Minute(60)),
            ("2026-12-31T23:59:60Z", TimeError::Second(60)),
            ("2026-01-01T00:00:00+24:00", TimeError::OffsetHour(24)),
            ("2026-01-01T00:00:00+00:60", TimeError::OffsetMinute(60)),
            ("2026-01-01t00:00:00Z", TimeError::Shape),
            ("2026-01-01T00:00:00z", TimeError::Shape),
            ("2026-01-01 00:00:00Z", TimeError::Shape),
            ("2026-01-01T00:00:00", TimeError::Shape),
            ("2026-01-01T00:00:00.Z", TimeError::Shape),
            ("2026-01-01T00:00:00Z\n", TimeError::Shape),
            ("2026-01-01T00:00:00+0000", TimeError::Shape),
            ("26-01-01T00:00:00Z", TimeError::Shape),
            ("２026-01-01T00:00:00Z", TimeError::Shape),
            ("", TimeError::Shape),
        ];
        for (text, want) in cases {
            assert_eq!(check_rfc3339(text).as_ref(), Err(want), "{text:?}");
        }
    }

    #[test]
    fn uuid_tiers() {
        assert_eq!(
            check_uuid_core("e80168eb-a6a1-4ec9-8478-ac108f9397ff"),
            Ok(())
        );
        assert_eq!(
            check_uuid_strict("e80168eb-a6a1-4ec9-8478-ac108f9397ff"),
            Ok(())
        );
        assert_eq!(
            check_uuid_core("E80168EB-A6A1-4EC9-8478-AC108F9397FF"),
            Err(IdError::Shape)
        );
        // The nil UUID: core shape (accepted at revision 09), not version 4.
        assert_eq!(
            check_uuid_core("00000000-0000-0000-0000-000000000000"),
            Ok(())
        );
        assert_eq!(
            check_uuid_strict("00000000-0000-0000-0000-000000000000"),
            Err(IdError::Version('0'))
        );
        assert_eq!(
            check_uuid_core("e80168eb-a6a1-4ec9-8478-ac108f9397ff\n"),
            Err(IdError::Shape)
        );
        assert_eq!(
            check_uuid_core("e80168eba6a14ec98478ac108f9397ff"),
            Err(IdError::Shape)
        );
        assert_eq!(
            check_uuid_core("e80168eb-a6a1-1ec9-c478-ac108f9397ff"),
            Ok(())
        );
        assert_eq!(
            check_uuid_strict("e80168eb-a6a1-1ec9-8478-ac108f9397ff"),
            Err(IdError::Version('1'))
        );
        assert_eq!(
            check_uuid_strict("e80168eb-a6a1-4ec9-c478-ac108f9397ff"),
            Err(IdError::Variant('c'))
        );
    }

    #[test]
    fn provenance_whole_string() {
        assert_eq!(
            provenance_class("EXECUTED BY ZAMBO"),
            Some(ProvenanceClass::ExecutedBy)
        );
        assert_eq!(
            provenance_class("EXECUTED BY 9 A._-"),
            Some(ProvenanceClass::ExecutedBy)
        );
        assert_eq!(
            provenance_class("OBSERVED VIA GATEWAY"),
            Some(ProvenanceClass::ObservedViaGateway)
        );
        assert_eq!(
            provenance_class("LOGGED BY AGENT"),
            Some(ProvenanceClass::LoggedByAgent)
        );
        for bad in [
            "LOGGED BY AGENT\n",
            "logged by agent",
            "EXECUTED BY ",
            "EXECUTED BY zambo",
            "EXECUTED BY  X",
            "EXECUTED BY _X",
            "OBSERVED VIA GATEWAY ",
        ] {
            assert_eq!(provenance_class(bad), None, "{bad:?}");
        }
    }
}
