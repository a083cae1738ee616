//! Which admission wrote a pair, and this store's admissions whose outcome it does not know.
//!
//! When the link fails while an admission is in flight, the statement may have committed and
//! only its answer been lost: the receiver answers `deferred`, and if the re-delivery then found
//! the pair and answered `duplicate_event_id`, the pair would never get its `admitted` answer
//! (CONTRACT.md §5.1). So each admission writes an attempt token with the pair: this store's
//! incarnation (128 random bits, made when the store is opened) and a serial. An admission whose
//! outcome is unknown is kept here as unresolved, with its token; when the pair comes again and
//! is found recorded, the stored token says whether it was that unanswered admission (it stands:
//! `admitted`, once) or anyone else's, an earlier answered one of this store's included (a
//! duplicate).
//!
//! The set is in memory on purpose: only the process that answered `deferred` knows that it
//! never answered `admitted` for that attempt. A token in the database cannot say whether the
//! answer was given; a record of "answered" would need a second write after the answer, which a
//! crash can separate from it. After this process dies, the crash rules apply instead: a copy
//! re-delivered after a kill before the answer may be admitted or a duplicate (CONTRACT.md §5.3,
//! `crash` and `failover` before the decision), and the pair, recorded and never handed off, is
//! pending for `grp recover`.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest as _, Sha256};

use crate::store::StoreError;

/// One admission statement's token: the store's incarnation, then a serial (big-endian).
pub(super) type Attempt = [u8; 24];

/// A pair's key (see `PostgresStore::pair_key`).
pub(super) type PairKey = [u8; 32];

/// This store's incarnation, the serial of its next attempt, and its unresolved admissions.
pub(super) struct Attempts {
    incarnation: [u8; 16],
    serial: AtomicU64,
    unresolved: Mutex<HashMap<PairKey, Vec<Attempt>>>,
}

impl Attempts {
    /// A new incarnation, with nothing unresolved.
    pub(super) fn new() -> Attempts {
        Attempts {
            incarnation: incarnation(),
            serial: AtomicU64::new(0),
            unresolved: Mutex::new(HashMap::new()),
        }
    }

    /// A token no other attempt of any store has.
    pub(super) fn next(&self) -> Attempt {
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let mut attempt = [0u8; 24];
        attempt[..16].copy_from_slice(&self.incarnation);
        attempt[16..].copy_from_slice(&serial.to_be_bytes());
        attempt
    }

    /// Takes the pair's unresolved attempts out (none: the pair has none). Taken, not read, so
    /// that of two copies of the pair delivered at once only one can resolve the admission as
    /// its own; the other finds the pair recorded and is a duplicate.
    pub(super) fn take(&self, pair: &PairKey) -> Result<Vec<Attempt>, StoreError> {
        Ok(self.lock()?.remove(pair).unwrap_or_default())
    }

    /// Keeps `attempts` as the pair's unresolved ones (with any another call kept meanwhile).
    pub(super) fn keep(&self, pair: PairKey, attempts: Vec<Attempt>) -> Result<(), StoreError> {
        if attempts.is_empty() {
            return Ok(());
        }
        let mut unresolved = self.lock()?;
        let kept = unresolved.entry(pair).or_default();
        for attempt in attempts {
            if !kept.contains(&attempt) {
                kept.push(attempt);
            }
        }
        Ok(())
    }

    fn lock(&self) -> Result<MutexGuard<'_, HashMap<PairKey, Vec<Attempt>>>, StoreError> {
        self.unresolved
            .lock()
            .map_err(|_| StoreError::new("unresolved admissions poisoned by a panic"))
    }
}

/// 128 bits no other store's incarnation shares: the standard library's per-process random hash
/// keys (seeded from the operating system), with the time and process id, through SHA-256 (no
/// dependency for randomness; the bits need to be unique, not secret).
fn incarnation() -> [u8; 16] {
    let mut hash = Sha256::new();
    for round in 0u8..4 {
        let mut keyed = RandomState::new().build_hasher();
        keyed.write_u8(round);
        hash.update(keyed.finish().to_be_bytes());
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    hash.update(now.to_be_bytes());
    hash.update(std::process::id().to_be_bytes());
    let digest = hash.finalize();
    let mut bits = [0u8; 16];
    bits.copy_from_slice(&digest[..16]);
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_distinct_within_and_across_incarnations() {
        let (a, b) = (Attempts::new(), Attempts::new());
        assert_ne!(a.incarnation, b.incarnation);
        let (a1, a2) = (a.next(), a.next());
        assert_ne!(a1, a2);
        assert_eq!(a1[..16], a2[..16]);
        assert_ne!(a1[..16], b.next()[..16]);
    }

    #[test]
    fn an_unresolved_pair_is_taken_once() {
        let attempts = Attempts::new();
        let (pair, other) = ([1u8; 32], [2u8; 32]);
        let first = attempts.next();
        attempts.keep(pair, vec![first]).unwrap();
        attempts.keep(pair, vec![first, attempts.next()]).unwrap();
        assert!(attempts.take(&other).unwrap().is_empty());
        let taken = attempts.take(&pair).unwrap();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[0], first);
        assert!(attempts.take(&pair).unwrap().is_empty());
    }
}
