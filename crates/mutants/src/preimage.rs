//! The reference's entry preimage with its `\uXXXX` escapes written otherwise: the wrong
//! constructions the verifier mutants link a chain with, and the producer mutant writes.

/// How the preimage's string escapes are rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rewrite {
    /// Every escaped code point from U+007F up written as raw UTF-8 (JCS-like).
    RawNonAscii,
    /// Only U+007F written raw.
    RawDel,
    /// `\u00e9` written `\u00E9`.
    UppercaseHex,
}

/// Rewrites the `\uXXXX` escapes of a preimage the reference built. Other escapes (`\"`, `\n`,
/// control characters below U+0020) are kept as they are.
pub fn rewrite_preimage(preimage: &[u8], style: Rewrite) -> Vec<u8> {
    let mut out = Vec::with_capacity(preimage.len());
    let mut i = 0;
    let unit_at = |at: usize| -> Option<u16> {
        let digits = preimage.get(at + 2..at + 6)?;
        if preimage.get(at..at + 2) != Some(b"\\u") {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    while i < preimage.len() {
        if preimage[i] != b'\\' {
            out.push(preimage[i]);
            i += 1;
            continue;
        }
        let Some(unit) = unit_at(i) else {
            // A two-character escape: copy both.
            out.extend_from_slice(&preimage[i..(i + 2).min(preimage.len())]);
            i += 2;
            continue;
        };
        match style {
            Rewrite::UppercaseHex => {
                out.extend_from_slice(&preimage[i..i + 6].to_ascii_uppercase());
                // `\U` is not an escape: keep the `u` lowercase.
                let at = out.len() - 5;
                out[at] = b'u';
                i += 6;
            }
            Rewrite::RawDel if unit == 0x7f => {
                out.push(0x7f);
                i += 6;
            }
            Rewrite::RawNonAscii if (0xd800..0xdc00).contains(&unit) => {
                match unit_at(i + 6).filter(|low| (0xdc00..0xe000).contains(low)) {
                    Some(low) => {
                        let c = 0x10000
                            + ((u32::from(unit) - 0xd800) << 10)
                            + (u32::from(low) - 0xdc00);
                        push_char(&mut out, c);
                        i += 12;
                    }
                    None => {
                        out.extend_from_slice(&preimage[i..i + 6]);
                        i += 6;
                    }
                }
            }
            Rewrite::RawNonAscii if unit >= 0x7f && !(0xdc00..0xe000).contains(&unit) => {
                push_char(&mut out, u32::from(unit));
                i += 6;
            }
            _ => {
                out.extend_from_slice(&preimage[i..i + 6]);
                i += 6;
            }
        }
    }
    out
}

fn push_char(out: &mut Vec<u8>, code_point: u32) {
    let c = char::from_u32(code_point).unwrap_or('\u{fffd}');
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_escapes() {
        let p = br#"{"id":"a\u00e9\u007f\ud83d\ude00\u0001\"\\u00e9"}"#;
        assert_eq!(
            String::from_utf8(rewrite_preimage(p, Rewrite::RawNonAscii)).unwrap(),
            "{\"id\":\"a\u{e9}\u{7f}\u{1f600}\\u0001\\\"\\\\u00e9\"}"
        );
        assert_eq!(
            String::from_utf8(rewrite_preimage(p, Rewrite::RawDel)).unwrap(),
            "{\"id\":\"a\\u00e9\u{7f}\\ud83d\\ude00\\u0001\\\"\\\\u00e9\"}"
        );
        assert_eq!(
            String::from_utf8(rewrite_preimage(p, Rewrite::UppercaseHex)).unwrap(),
            r#"{"id":"a\u00E9\u007F\uD83D\uDE00\u0001\"\\u00e9"}"#
        );
    }
}
