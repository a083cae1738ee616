//! Exact integer text: the canonical digits of a JSON integer literal, shared by the timeline's
//! `seq` and the commitment's `entry_count`. It sits below both so neither module has to import
//! the other for it.

use std::borrow::Cow;

/// The canonical digits of a JSON integer literal. Literals have no leading zeros; only `-0`
/// needs rewriting (Python's `int` reads it as 0).
pub fn normalise_integer(text: &str) -> Cow<'_, str> {
    if text == "-0" {
        Cow::Borrowed("0")
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_minus_zero_is_rewritten() {
        assert_eq!(normalise_integer("-0"), "0");
        for text in ["0", "7", "-3", "18446744073709551616"] {
            assert_eq!(normalise_integer(text), text);
        }
    }
}
