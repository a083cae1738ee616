//! JSON string escaping exactly as the reference kit does it for entry preimages.
//!
//! The kit behaves like Python's `json.dumps(..., ensure_ascii=True)`: `\"`, `\\`, the short
//! escapes `\b \t \n \f \r`, and every other code point outside U+0020..U+007E as `\u` plus four
//! lowercase hex digits, characters above the BMP as a surrogate pair. U+007F is escaped too; the
//! draft text would leave it raw, and the suite follows the kit (see spec-notes/aer1-timeline.md).
//! This is not RFC 8785: JCS writes non-ASCII characters raw.

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a quoted, escaped JSON string to `out`.
pub fn push_json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    // Most values (digests, ids, class names) need no escaping: one check, one copy.
    // (A fold rather than `all`: no early exit, so the check vectorizes.)
    if bytes.iter().fold(true, |plain, &b| plain & is_plain(b)) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut run_start = 0;
    // Copy runs of printable ASCII in one go; everything else goes through `push_escaped`.
    for (i, &b) in bytes.iter().enumerate() {
        if is_plain(b) {
            continue;
        }
        if b >= 0x80 && !is_char_start(b) {
            // Continuation byte of a character already escaped at its first byte.
            continue;
        }
        out.extend_from_slice(&bytes[run_start..i]);
        let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
        push_escaped(out, ch);
        run_start = i + ch.len_utf8();
    }
    out.extend_from_slice(&bytes[run_start..]);
    out.push(b'"');
}

/// Printable ASCII other than the quote and the backslash: written as itself.
fn is_plain(b: u8) -> bool {
    (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'
}

fn is_char_start(b: u8) -> bool {
    b & 0xc0 != 0x80
}

fn push_escaped(out: &mut Vec<u8>, ch: char) {
    match ch {
        '"' => out.extend_from_slice(b"\\\""),
        '\\' => out.extend_from_slice(b"\\\\"),
        '\u{08}' => out.extend_from_slice(b"\\b"),
        '\t' => out.extend_from_slice(b"\\t"),
        '\n' => out.extend_from_slice(b"\\n"),
        '\u{0c}' => out.extend_from_slice(b"\\f"),
        '\r' => out.extend_from_slice(b"\\r"),
        _ => {
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                push_u_escape(out, *unit);
            }
        }
    }
}

fn push_u_escape(out: &mut Vec<u8>, unit: u16) {
    out.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xf)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        let mut v = Vec::new();
        push_json_string(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn escapes_like_the_kit() {
        assert_eq!(esc("plain"), r#""plain""#);
        assert_eq!(esc("a\"b\\c/d"), r#""a\"b\\c/d""#);
        assert_eq!(esc("\u{8}\t\n\u{c}\r"), r#""\b\t\n\f\r""#);
        assert_eq!(esc("\u{0}\u{1f}"), r#""\u0000\u001f""#);
        assert_eq!(esc("\u{7f}"), r#""\u007f""#);
        assert_eq!(esc("é€"), r#""\u00e9\u20ac""#);
        assert_eq!(esc("😀"), r#""\ud83d\ude00""#);
        assert_eq!(esc("a😀b\u{7f}c"), r#""a\ud83d\ude00b\u007fc""#);
        assert_eq!(esc(""), r#""""#);
    }
}
