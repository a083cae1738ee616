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

/// Whether `a` and `b` hold the same bytes. Up to 32 bytes, two overlapping loads from each (the
/// start and the end) cover them all: for the short runs of bytes compared per entry (a member
/// name and its punctuation), a call to the C library's comparison cost more than the comparison
/// itself.
#[inline]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    match n {
        0 => true,
        1..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => ends::<4>(a, n).is_some_and(|x| Some(x) == ends::<4>(b, n)),
        8..=16 => ends::<8>(a, n).is_some_and(|x| Some(x) == ends::<8>(b, n)),
        17..=32 => ends::<16>(a, n).is_some_and(|x| Some(x) == ends::<16>(b, n)),
        _ => a == b,
    }
}

/// The first and the last `N` bytes of `bytes` (which holds `n` of them, `N <= n <= 2 * N`).
#[inline]
fn ends<const N: usize>(bytes: &[u8], n: usize) -> Option<([u8; N], [u8; N])> {
    let head = bytes.get(..N)?.try_into().ok()?;
    let tail = bytes.get(n.checked_sub(N)?..)?.try_into().ok()?;
    Some((head, tail))
}

fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn same_compares_every_byte() {
        let a: Vec<u8> = (0..80).collect();
        for len in 0..79 {
            assert!(same(&a[..len], &a[..len]));
            assert!(!same(&a[..len], &a[..len + 1]));
            for at in 0..len {
                let mut b = a[..len].to_vec();
                b[at] ^= 0x80;
                assert!(!same(&a[..len], &b), "{len} {at}");
            }
        }
    }
}
