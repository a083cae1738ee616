//! Eight bytes at a time ("SIMD within a register"): the byte tests the splitter's string scan and
//! the flat reader's string scan share. Each test flags, in the high bit of each byte, the bytes
//! that match; borrows can flag bytes above the first true match but never below it, so the
//! lowest flag ([`first`]) is exact, which is all either caller asks.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The whole eight-byte words at the start of `bytes`, the first byte of each lowest (the
/// `bytes.len() % 8` bytes after them are the caller's to look at one by one).
pub(crate) fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes.chunks_exact(8).map(|chunk| {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk); // chunks_exact: always eight bytes
        u64::from_le_bytes(word)
    })
}

/// Flags the bytes of `w` equal to `byte`.
pub(crate) fn equal_to(w: u64, byte: u8) -> u64 {
    zero_bytes(w ^ (ONES * u64::from(byte)))
}

/// Flags the bytes of `w` below `bound` (which must be at most 0x80).
pub(crate) fn below(w: u64, bound: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(bound)) & !w & HIGH
}

/// The position of the first flagged byte, if any.
pub(crate) fn first(hits: u64) -> Option<usize> {
    (hits != 0).then(|| (hits.trailing_zeros() / 8) as usize)
}

fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}
