//! The back-off for a database that does not answer: a circuit breaker that timeouts alone
//! open.
//!
//! A server that accepts a connection and never answers costs a whole [`ROUND_TRIP_LIMIT`]
//! per round trip; paid per line, 2,000 lines wait 100 minutes. After a round trip (or a
//! connection) that timed out, the breaker is open: calls are deferred at once, without touching
//! the network, for an interval that starts at [`FIRST_OPEN`] and grows fourfold with each
//! further consecutive timeout up to [`LONGEST_OPEN`]; the first call after it probes the
//! database with the shorter [`PROBE_LIMIT`] (a server that answered nothing for a whole limit
//! is not waited on as long again). A round trip that is answered closes it. A dead server so
//! costs at most 7 s of waiting in the first minute (3 s, then probes of 1 s after 1, 4, 16 and
//! 30 s) and about 2 s a minute after that (one probe per 31 s).
//!
//! A refused or closed link is not a timeout and does not open it: it costs nothing to try, so
//! every call tries, and a link that heals is used again at once. [`FIRST_OPEN`] is short for
//! the same reason: a harness hands deferred lines again from about 1.5 s after a fault heals,
//! and a store must be trying again by then.
//!
//! [`ROUND_TRIP_LIMIT`]: super::ROUND_TRIP_LIMIT

use std::time::{Duration, Instant};

/// The first open interval, after one timeout.
pub const FIRST_OPEN: Duration = Duration::from_secs(1);

/// How long a probe (a round trip while timeouts are counted) waits for an answer.
pub const PROBE_LIMIT: Duration = Duration::from_secs(1);

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

    /// How long the next round trip may wait: the full limit while closed, [`PROBE_LIMIT`] once
    /// a timeout was counted.
    pub(super) fn limit(&self) -> Duration {
        if self.timeouts == 0 {
            super::ROUND_TRIP_LIMIT
        } else {
            PROBE_LIMIT
        }
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
    // 4^3 × 1 s is past the cap already; the exponent is bounded so it cannot overflow.
    let steps = timeouts.saturating_sub(1).min(8);
    FIRST_OPEN
        .saturating_mul(1 << (2 * steps))
        .min(LONGEST_OPEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_grows_fourfold_from_one_second_to_its_cap() {
        let now = Instant::now();
        let mut breaker = Breaker::default();
        assert_eq!(breaker.open_for(now), None);
        let intervals: Vec<f64> = (0..9)
            .map(|_| breaker.timed_out(now).as_secs_f64())
            .collect();
        assert_eq!(
            intervals,
            [1.0, 4.0, 16.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0]
        );
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
            Some(Duration::from_millis(800))
        );
        assert_eq!(breaker.open_for(now + FIRST_OPEN), None);
        assert_eq!(breaker.limit(), PROBE_LIMIT);
        // Probed after the interval and timed out again: four times as long.
        breaker.timed_out(now + FIRST_OPEN);
        assert_eq!(
            breaker.open_for(now + FIRST_OPEN),
            Some(Duration::from_secs(4))
        );
        assert_eq!(breaker.timeouts(), 2);
        breaker.answered();
        assert_eq!(breaker.limit(), crate::store::postgres::ROUND_TRIP_LIMIT);
        assert_eq!(breaker.open_for(now + FIRST_OPEN), None);
        assert_eq!(breaker.timed_out(now), FIRST_OPEN);
    }
}
