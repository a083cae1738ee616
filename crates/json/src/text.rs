//! Putting untrusted text into messages (shared by the JSON reader's member paths and every
//! finding message of the references).

/// At most `max` characters of `s`, marked when cut, with control characters escaped, so that a
/// multi-megabyte or terminal-hostile value cannot flood or garble a report.
pub fn clip(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push_str(&format!("… ({} characters in all)", s.chars().count()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn clips_and_escapes() {
        assert_eq!(super::clip("abc", 5), "abc");
        assert_eq!(super::clip("abcdef", 3), "abc… (6 characters in all)");
        assert_eq!(super::clip("a\nb\u{1b}", 10), "a\\nb\\u{1b}");
    }
}
