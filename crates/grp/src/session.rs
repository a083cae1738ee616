//! The session context a receiver starts with: session id, the nonce it issued, the clock the
//! vector supplies (never the wall clock, so scenarios stay deterministic), and the publishers
//! registered for the session with their keys (the draft fixes the expected sources at session
//! start; none can be added mid-session).

use serde::{Deserialize, Serialize};

use crate::event::PublisherType;
use crate::jws::Jwk;

/// One registered publisher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Publisher {
    pub publisher_id: String,
    pub publisher_type: PublisherType,
    /// The publisher's keys (P-TYPE-1: its KIA key; P-TYPE-2: the EPR signing key; P-TYPE-3: the
    /// keys of its well-known document).
    pub keys: Vec<Jwk>,
    /// P-TYPE-1: the credential has been revoked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub revoked: bool,
    /// P-TYPE-2: start of the registration window (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,
    /// P-TYPE-2: end of the registration window; P-TYPE-3: end of the document's validity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_after: Option<String>,
    /// P-TYPE-2 `event_types_permitted`, P-TYPE-3 `event_types`: the change classes it may send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_types: Option<Vec<String>>,
    /// P-TYPE-3 `publisher_name` (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher_name: Option<String>,
}

/// The session a receiver admits events into.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionContext {
    pub session_id: String,
    /// The nonce the receiver issued at session start; constant for the session.
    pub session_nonce: String,
    /// The session clock (RFC 3339) validity windows are judged against.
    pub clock: String,
    pub publishers: Vec<Publisher>,
}

impl SessionContext {
    /// Reads and checks a session file. Errors are about the harness's configuration, not about
    /// events, so they are plain messages.
    pub fn from_json(bytes: &[u8]) -> Result<SessionContext, String> {
        let s: SessionContext =
            serde_json::from_slice(bytes).map_err(|e| format!("session context: {e}"))?;
        instant(&s.clock).ok_or_else(|| format!("session clock {:?} is not RFC 3339", s.clock))?;
        for p in &s.publishers {
            for t in [&p.not_before, &p.not_after].into_iter().flatten() {
                instant(t).ok_or_else(|| {
                    format!("publisher {:?}: {t:?} is not RFC 3339", p.publisher_id)
                })?;
            }
        }
        let mut ids: Vec<&str> = s
            .publishers
            .iter()
            .map(|p| p.publisher_id.as_str())
            .collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Err("session context: a publisher_id is registered twice".into());
        }
        Ok(s)
    }

    pub fn publisher(&self, id: &str) -> Option<&Publisher> {
        self.publishers.iter().find(|p| p.publisher_id == id)
    }
}

/// An RFC 3339 date-time as nanoseconds since 1970-01-01T00:00:00Z, for comparing instants
/// written with different offsets. `None` when the text is not a valid RFC 3339 date-time.
pub fn instant(s: &str) -> Option<i128> {
    agentconf_aer1::formats::check_rfc3339(s).ok()?;
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> i128 {
        b[r].iter()
            .fold(0, |acc, d| acc * 10 + i128::from(d - b'0'))
    };
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    let seconds_of_day = num(11..13) * 3600 + num(14..16) * 60 + num(17..19);
    let mut rest = &s[19..];
    let mut nanos: i128 = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits: String = frac.chars().take_while(char::is_ascii_digit).collect();
        let first9: String = digits
            .chars()
            .chain(std::iter::repeat('0'))
            .take(9)
            .collect();
        nanos = first9.parse().ok()?;
        rest = &frac[digits.len()..];
    }
    let offset_seconds = match rest.as_bytes() {
        [b'Z'] => 0,
        [sign, ..] => {
            let o = &rest[1..];
            let v = o[0..2].parse::<i128>().ok()? * 3600 + o[3..5].parse::<i128>().ok()? * 60;
            if *sign == b'-' {
                -v
            } else {
                v
            }
        }
        [] => return None,
    };
    let days = days_from_civil(year, month, day);
    Some(((days * 86_400 + seconds_of_day - offset_seconds) * 1_000_000_000) + nanos)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i128, m: i128, d: i128) -> i128 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::instant;

    #[test]
    fn instants_compare_across_offsets() {
        assert_eq!(instant("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(instant("1970-01-02T00:00:00Z"), Some(86_400_000_000_000));
        assert_eq!(
            instant("2026-07-14T10:23:00Z"),
            instant("2026-07-14T19:23:00+09:00")
        );
        assert_eq!(
            instant("2026-07-14T10:23:00.5Z").unwrap() - instant("2026-07-14T10:23:00Z").unwrap(),
            500_000_000
        );
        assert!(
            instant("2024-02-29T00:00:00Z").unwrap() < instant("2024-03-01T00:00:00Z").unwrap()
        );
        assert_eq!(instant("2026-02-30T00:00:00Z"), None);
        // 2000-03-01 is day 11017.
        assert_eq!(
            instant("2000-03-01T00:00:00Z"),
            Some(11_017 * 86_400 * 1_000_000_000)
        );
    }
}
