//! The back-off for a database that does not answer: a circuit breaker that timeouts alone
//! open.
//!
//! A server that accepts a connection and never answers costs a whole [`ROUND_TRIP_LIMIT`]
//! per round trip; paid per line, 2,000 lines wait 100 minutes. After a round trip (or a
//! connection) that timed out, the breaker is open: calls are deferred at once, without touching
//! the network, for an interval that starts at [`FIRST_OPEN`] and doubles with each further
//! consecutive timeout up to [`LONGEST_OPEN`]; the first call after it tries the database again
//! with the full limit. A round trip that is answered closes it. Once the interval is at its
//! longest, a dead server costs one limit per `LONGEST_OPEN + ROUND_TRIP_LIMIT` (about 3 s in
//! 33 s); the first minute, while the interval grows, costs about seven limits.
//!
//! A refused or closed link is not a timeout and does not open it: it costs nothing to try, so
//! every call tries, and a link that heals is used again at once. [`FIRST_OPEN`] is short for
//! the same reason: a harness hands deferred lines again from about 1.5 s after a fault heals,
//! and a store must be trying again by then.
//!
//! [`ROUND_TRIP_LIMIT`]: super::ROUND_TRIP_LIMIT

use std::time::{Duration, Instant};

/// The first open interval, after one timeout.
pub const FIRST_OPEN: Duration = Duration::from_millis(500);

/// The longest open interval, however many timeouts came in a row.
pub const LONGEST_OPEN: Duration = Duration::from_secs(30);

/// Consecutive timeouts and, while open, when the database may be tried again.
#[derive(Debug, Default)]
pub(super) struct Breaker {
    timeouts: u32,
    open_until: Option<Instant>,
}

impl Breaker {
    /// How much longer calls are deferred without trying the database (`None`: closed, or its
    /// interval has passed and the next call tries).
    pub(super) fn open_for(&self, now: Instant) -> Option<Duration> {
        self.open_until
            .map(|until| until.saturating_duration_since(now))
            .filter(|left| !left.is_zero())
    }

    /// Consecutive timeouts so far.
    pub(super) fn timeouts(&self) -> u32 {
        self.timeouts
    }

    /// A round trip ended at its limit at `now`: open for the next interval, which it returns.
    pub(super) fn timed_out(&mut self, now: Instant) -> Duration {
        self.timeouts = self.timeouts.saturating_add(1);
        let open = interval(self.timeouts);
        self.open_until = Some(now + open);
        open
    }

    /// A round trip was answered: closed, and the next timeout starts from [`FIRST_OPEN`].
    pub(super) fn answered(&mut self) {
        *self = Breaker::default();
    }
}

/// The open interval after `timeouts` consecutive timeouts (at least one).
fn interval(timeouts: u32) -> Duration {
    // 2^6 × 0.5 s is past the cap already; the exponent is bounded so it cannot overflow.
    let doublings = timeouts.saturating_sub(1).min(16);
    FIRST_OPEN.saturating_mul(1 << doublings).min(LONGEST_OPEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_doubles_from_half_a_second_to_its_cap() {
        let now = Instant::now();
        let mut breaker = Breaker::default();
        assert_eq!(breaker.open_for(now), None);
        let intervals: Vec<f64> = (0..9)
            .map(|_| breaker.timed_out(now).as_secs_f64())
            .collect();
        assert_eq!(intervals, [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]);
        for _ in 0..100 {
            breaker.timed_out(now);
        }
        assert_eq!(breaker.timed_out(now), LONGEST_OPEN);
    }

    #[test]
    fn open_until_its_interval_passes_and_closed_by_an_answer() {
        let now = Instant::now();
        let mut breaker = Breaker::default();
        breaker.timed_out(now);
        assert_eq!(breaker.open_for(now), Some(FIRST_OPEN));
        assert_eq!(
            breaker.open_for(now + Duration::from_millis(200)),
            Some(Duration::from_millis(300))
        );
        assert_eq!(breaker.open_for(now + FIRST_OPEN), None);
        // Tried again after the interval and timed out again: twice as long.
        breaker.timed_out(now + FIRST_OPEN);
        assert_eq!(
            breaker.open_for(now + FIRST_OPEN),
            Some(Duration::from_secs(1))
        );
        assert_eq!(breaker.timeouts(), 2);
        breaker.answered();
        assert_eq!(breaker.open_for(now + FIRST_OPEN), None);
        assert_eq!(breaker.timed_out(now), FIRST_OPEN);
    }
}
