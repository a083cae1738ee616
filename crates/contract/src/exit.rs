//! The exit codes of a one-shot call, and what each means to the harness.
//!
//! `0` accept, `1` reject, `89` unsupported (the operation, revision, tier or option is not
//! implemented). Anything else — `2` for a usage error included, and death by a signal — is a
//! crash, never a rejection: a verifier that dies on an input has not judged it.

use serde::Serialize;

/// The implementation accepted the input.
pub const EXIT_ACCEPT: u8 = 0;
/// The implementation rejected the input.
pub const EXIT_REJECT: u8 = 1;
/// A usage error or an unreadable input: the wrapper is broken (graded as a crash).
pub const EXIT_USAGE: u8 = 2;
/// The implementation does not support the operation, revision or option.
pub const EXIT_UNSUPPORTED: u8 = 89;

/// The contract's exit codes in words, for messages that say what an implementation was held to.
pub const EXIT_CODES_IN_WORDS: &str = "the contract's 0 (accept), 1 (reject) and 89 (unsupported)";

/// What an exit status means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExitMeaning {
    Accept,
    Reject,
    Unsupported,
    Crash,
}

impl ExitMeaning {
    /// `code` is `None` when the process died by a signal.
    pub fn of(code: Option<i32>) -> ExitMeaning {
        match code.and_then(|c| u8::try_from(c).ok()) {
            Some(EXIT_ACCEPT) => ExitMeaning::Accept,
            Some(EXIT_REJECT) => ExitMeaning::Reject,
            Some(EXIT_UNSUPPORTED) => ExitMeaning::Unsupported,
            _ => ExitMeaning::Crash,
        }
    }

    /// The exit code an implementation uses for this meaning (a crash: the usage-error code).
    pub fn code(self) -> u8 {
        match self {
            ExitMeaning::Accept => EXIT_ACCEPT,
            ExitMeaning::Reject => EXIT_REJECT,
            ExitMeaning::Unsupported => EXIT_UNSUPPORTED,
            ExitMeaning::Crash => EXIT_USAGE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        assert_eq!(ExitMeaning::of(Some(0)), ExitMeaning::Accept);
        assert_eq!(ExitMeaning::of(Some(1)), ExitMeaning::Reject);
        assert_eq!(ExitMeaning::of(Some(89)), ExitMeaning::Unsupported);
        for crash in [Some(2), Some(101), Some(-1), Some(139), Some(256 + 1), None] {
            assert_eq!(ExitMeaning::of(crash), ExitMeaning::Crash, "{crash:?}");
        }
        for m in [
            ExitMeaning::Accept,
            ExitMeaning::Reject,
            ExitMeaning::Unsupported,
        ] {
            assert_eq!(ExitMeaning::of(Some(i32::from(m.code()))), m);
        }
    }
}
