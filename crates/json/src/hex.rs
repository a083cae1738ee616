//! Lowercase hexadecimal, the only spelling the drafts use for digests.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes`.
pub fn lower(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    out
}

/// The two lowercase hex digits of every byte value.
const PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [DIGITS[b >> 4], DIGITS[b & 0x0f]];
        b += 1;
    }
    pairs
};

/// Appends the lowercase hex of `bytes` to `out` without allocating: one table look-up per byte
/// (every entry preimage of a timeline holds a 32-byte digest written so).
pub fn push_lower(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.resize(start + bytes.len() * 2, 0);
    for (pair, &b) in out[start..].chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&PAIRS[usize::from(b)]);
    }
}

/// True when `s` is exactly `len` lowercase hex digits.
pub fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// True when `s` equals the lowercase hex of `bytes`, compared without allocating.
pub fn eq_lower(s: &str, bytes: &[u8]) -> bool {
    let s = s.as_bytes();
    s.len() == bytes.len() * 2
        && bytes.iter().enumerate().all(|(i, b)| {
            s[2 * i] == DIGITS[usize::from(b >> 4)] && s[2 * i + 1] == DIGITS[usize::from(b & 0x0f)]
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_compares() {
        assert_eq!(lower(&[0x00, 0xab, 0xff]), "00abff");
        assert!(eq_lower("00abff", &[0x00, 0xab, 0xff]));
        assert!(!eq_lower("00ABFF", &[0x00, 0xab, 0xff]));
        assert!(!eq_lower("00abf", &[0x00, 0xab, 0xff]));
        assert!(is_lower_hex("0a", 2));
        assert!(!is_lower_hex("0A", 2));
        let mut v = Vec::new();
        push_lower(&mut v, &[0x7f]);
        assert_eq!(v, b"7f");
        let all: Vec<u8> = (0..=255).collect();
        let mut v = b"x".to_vec();
        push_lower(&mut v, &all);
        assert_eq!(&v[1..], lower(&all).as_bytes());
    }
}
