//! What the two self-contained HTML pages share, the report's and the matrix's: the document's
//! head, the banner, the base style sheet, the verdict's colour class, and the one escaping
//! function for everything a file says.

use std::fmt::Write as _;

use super::Level;

/// The style both pages start with, after their palette: the page, the banner and its verdict
/// pill, cards' headings. A macro, so that each page's style sheet is one literal (`concat!`).
macro_rules! base_css {
    () => {
        r#"
[hidden]{display:none!important}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
code,pre,.id,.chip,dd code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
.wrap{max-width:1200px;margin:0 auto;padding:0 24px}
header.top{color:#fff;background:#24292f;padding:20px 0 18px;border-bottom:6px solid var(--un)}
header.top.fail{border-bottom-color:var(--fa)}header.top.ok{border-bottom-color:var(--ok)}
.brand{font-size:12px;letter-spacing:.08em;text-transform:uppercase;opacity:.7}
h1{margin:4px 0 2px;font-size:26px;font-weight:650;word-break:break-all}
.sub{margin:0;opacity:.85}
.verdict{display:inline-block;vertical-align:middle;margin-left:8px;padding:2px 12px;border-radius:999px;font-size:14px;font-weight:700;letter-spacing:.05em;background:var(--un)}
.verdict.fail{background:var(--fa)}.verdict.ok{background:var(--ok)}
header.top.known{border-bottom-color:var(--kn)}.verdict.known{background:var(--kn);color:#1f2328}
header.top.partial{border-bottom-color:var(--pa)}.verdict.partial{background:var(--pa)}
ul.partial{margin:6px 0 0;padding-left:18px;opacity:.85}
main.wrap{padding-top:24px;padding-bottom:40px}
h2{font-size:18px;margin:0 0 12px}h2 small,h1 small{font-weight:400;color:var(--mut);font-size:13px;margin-left:6px}
"#
    };
}
pub(crate) use base_css;

/// The colours every style sheet names through variables. Green (`--ok`, and the pale greens
/// `--ok-line` and `--ok-bg`) says "passed".
const PALETTE: &str = "\n:root{--fa:#c92a2a;--fr:#e8590c;--wr:#d97706;--cr:#862e9c;--to:#5f3dc4;\
    --pe:#a61e4d;--un:#868e96;--ok:#2b8a3e;--ok-line:#b2f2bb;--ok-bg:#f0faf2;--kn:#f0b400;\
    --pa:#1c7ed6;--bg:#f4f5f7;--fg:#1f2328;--mut:#656d76;--line:#d8dee4;--card:#fff}";

/// The palette of a FAIL page: its passes in greys, so that no green sits on a failing verdict.
const PALETTE_NO_GREEN: &str = "\n:root{--fa:#c92a2a;--fr:#e8590c;--wr:#d97706;--cr:#862e9c;\
    --to:#5f3dc4;--pe:#a61e4d;--un:#868e96;--ok:#495057;--ok-line:#dee2e6;--ok-bg:#f6f8fa;\
    --kn:#f0b400;--pa:#1c7ed6;--bg:#f4f5f7;--fg:#1f2328;--mut:#656d76;--line:#d8dee4;--card:#fff}";

/// The palette of a page whose verdict is `level`: no green on a FAIL page.
pub(crate) fn palette(level: Level) -> &'static str {
    match level {
        Level::Fail => PALETTE_NO_GREEN,
        _ => PALETTE,
    }
}

/// The palette of a page without a verdict (the matrix's).
pub(crate) const NEUTRAL_PALETTE: &str = PALETTE;

/// Writes everything up to and including `<body>`: the document's head with its title (already
/// escaped) and its style sheet, `palette` first. No external resource is referenced.
pub(crate) fn open(o: &mut String, title: &str, palette: &str, css: &str) {
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{palette}{css}</style>\n</head>\n<body>\n"
    );
}

/// Opens the banner: its coloured edge (`class`, see [`level_class`]), the brand line and the
/// heading (already escaped). The caller writes what follows the heading, then [`BANNER_END`].
pub(crate) fn banner(o: &mut String, class: &str, brand: &str, heading: &str) {
    let _ = write!(
        o,
        "<header class=\"top {class}\"><div class=\"wrap\"><div class=\"brand\">{brand}</div>\
         <h1>{heading}</h1>"
    );
}

/// Closes what [`banner`] opened.
pub(crate) const BANNER_END: &str = "</div></header>\n";

/// The class that colours a verdict (the banner's edge, the pill): green only for CONFORMS,
/// yellow for known failures, blue for partial, red for FAIL, grey for nothing tested.
pub(crate) fn level_class(level: Level) -> &'static str {
    match level {
        Level::Conforms => "ok",
        Level::Fail => "fail",
        Level::ConformsWithKnownFailures => "known",
        Level::Partial => "partial",
        Level::NothingTested => "none",
    }
}

/// Escapes `s` for HTML text and attribute values: the workspace's one HTML rule
/// ([`agentconf_json::text::html_text`]).
pub(crate) fn esc(s: &str) -> String {
    agentconf_json::text::html_text(s)
}
