//! Putting untrusted text into messages and onto terminals: the one `clip` and the one
//! `terminal_safe` of the workspace (the JSON reader's member paths, every finding message of the
//! references, and the harness's and CLI's messages and reports).

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

/// `s` made safe for a terminal: control characters (escape sequences, carriage returns, NUL)
/// and bidirectional overrides are shown as `\u{…}` escapes, line breaks as `\n`, so a hostile
/// message can neither move the cursor nor reorder what is printed.
pub fn terminal_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push(' '),
            c if c.is_control() || is_bidi_control(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Bidirectional formatting characters (the "Trojan Source" set): shown escaped wherever
/// untrusted text is displayed, so it cannot reorder what a reader sees.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    #[test]
    fn clips_and_escapes() {
        assert_eq!(super::clip("abc", 5), "abc");
        assert_eq!(super::clip("abcdef", 3), "abc… (6 characters in all)");
        assert_eq!(super::clip("a\nb\u{1b}", 10), "a\\nb\\u{1b}");
    }

    #[test]
    fn terminal_safe_escapes_controls_and_bidi() {
        assert_eq!(
            super::terminal_safe("a\x1b[2Jb\n\u{202e}"),
            "a\\u{1b}[2Jb\\n\\u{202e}"
        );
    }
}
