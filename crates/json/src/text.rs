//! Putting untrusted text into messages, onto terminals and into documents: one escaping rule per
//! destination, for the whole workspace. Whatever came from an implementation, a claim, an
//! adapter or a corpus goes through the function of the place it is written to:
//!
//! | destination | function |
//! |---|---|
//! | a terminal, one line (a field of a message) | [`terminal_safe`] |
//! | a terminal, text of several lines (every human-readable output and message) | [`terminal_text`] |
//! | Markdown inline text | [`markdown_text`] |
//! | a Markdown code span | [`markdown_code`] |
//! | HTML text and attribute values | [`html_text`] |
//! | XML text (before the XML writer's own escaping of `& < >`) | [`terminal_text`] |
//!
//! and [`clip`] bounds a value's length before any of them.

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
            c if needs_escape(c) => push_visible(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// `s` made safe for a terminal as text of several lines: as [`terminal_safe`], but line breaks
/// and tabs are kept. Control characters (ESC and every escape sequence it starts: cursor moves,
/// OSC 52 clipboard writes, title changes; BEL, CR, backspace, NUL, C1 controls) and
/// bidirectional overrides are shown as `\u{…}`, so nothing printed can act on the terminal or
/// reorder what a reader sees. Also the pre-pass for XML, whose writers escape markup but cannot
/// carry most control characters.
pub fn terminal_text(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_escape(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// A control character other than a line break or a tab, or a bidirectional control.
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// `c` shown as the text `\u{…}` (its code point in hex): how every destination shows a
/// character that must not act.
fn push_visible(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// `s` as inline Markdown text on one line: HTML-significant characters as entities (so no raw
/// HTML reaches a renderer), Markdown punctuation backslash-escaped, control and bidirectional
/// characters and line breaks as spaces.
pub fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '|' | '~' | '!' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || is_bidi_control(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `s` as a Markdown code span (shown as written, never rendered as markup or HTML): control and
/// bidirectional characters as `\u{…}`, line breaks too (a code span is one line), delimited by
/// one more backtick than its longest run and padded when it starts or ends with one. (In a
/// table cell, the caller escapes `|` as for any cell.)
pub fn markdown_code(s: &str) -> String {
    let s = terminal_safe(s);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// `s` for HTML text and attribute values: `& < > " '` as entities; control characters other
/// than line breaks and tabs, and bidirectional formatting characters, as visible `\u{…}`.
pub fn html_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if needs_escape(c) => push_visible(&mut out, c),
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

    /// Every hostile class, in each destination: nothing that acts on a terminal or a renderer
    /// survives.
    #[test]
    fn every_destination_neutralises_every_hostile_class() {
        let hostile = "a\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}b\rc\u{8}\u{0}\u{9b}31m\u{202e}d\u{2066}\n<script>x</script>&`|";
        let acts = |s: &str| {
            s.chars()
                .any(|c| (c.is_control() && c != '\n' && c != '\t') || super::is_bidi_control(c))
        };
        let one_line = super::terminal_safe(hostile);
        let text = super::terminal_text(hostile);
        let md = super::markdown_text(hostile);
        let code = super::markdown_code(hostile);
        let html = super::html_text(hostile);
        for (name, out) in [
            ("terminal_safe", &one_line),
            ("terminal_text", &text),
            ("markdown_text", &md),
            ("markdown_code", &code),
            ("html_text", &html),
        ] {
            assert!(!acts(out), "{name}: {out:?}");
        }
        assert!(!one_line.contains('\n') && !md.contains('\n') && !code.contains('\n'));
        assert!(
            text.contains('\n'),
            "line breaks are kept as text: {text:?}"
        );
        for out in [&md, &html] {
            assert!(!out.contains('<') && !out.contains('>'), "{out:?}");
        }
        assert!(text.contains("\\u{1b}]52") && text.contains("\\u{202e}"));
        assert!(code.starts_with("``") && code.ends_with("``"), "{code}");
        assert_eq!(super::terminal_text("plain\ttext\n"), "plain\ttext\n");
    }

    #[test]
    fn terminal_safe_escapes_controls_and_bidi() {
        assert_eq!(
            super::terminal_safe("a\x1b[2Jb\n\u{202e}"),
            "a\\u{1b}[2Jb\\n\\u{202e}"
        );
    }
}
