//! The reference must not grade itself: its digests are checked against two oracles that build
//! preimages differently.
//!
//! 1. A Rust oracle: serde_json serializes a sorted map (compact, RFC 8259 escapes with raw
//!    non-ASCII), then every character from U+007F up is rewritten as `\uXXXX` UTF-16 units.
//! 2. Python's `json.dumps`, which is the kit's behaviour itself (testdata/kit_digests.py).

#[path = "support/kit_oracle.rs"]
mod kit_oracle;

use std::io::Write;
use std::process::{Command, Stdio};

use agentconf_aer1::digest::Revision;
use agentconf_aer1::hex;
use agentconf_aer1::producer::{build_timeline, timeline_json, CloseStyle, EntrySpec};
use agentconf_aer1::timeline::{verify_timeline_observed, TimelineOptions};
use serde_json::json;

/// Strings that exercise every escaping path: quotes, backslash, short escapes, other controls,
/// U+007F (where kit and text disagree), Latin-1, BMP and non-BMP characters, and '/'.
const NASTY: [&str; 8] = [
    "plain-ascii",
    "quote\" back\\slash /slash",
    "ctl\u{0}\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f}",
    "del\u{7f}",
    "latin é ü ÿ",
    "bmp € ☃ \u{fffd} \u{ffff}",
    "astral 😀 𝄞 \u{10ffff}",
    "mixed\u{7f}\u{80}\u{7ff}\u{800}",
];

fn nasty_chain() -> String {
    let specs: Vec<EntrySpec> = NASTY
        .iter()
        .enumerate()
        .map(|(i, s)| EntrySpec {
            bytes: format!("{{\"i\":{i},\"s\":{}}}", json!(s)).into_bytes(),
            id: format!("id-{s}"),
            tool: format!("tool-{s}"),
            provenance_class: "EXECUTED BY ZAMBO".into(),
        })
        .collect();
    let job = "job-\u{7f}-é-😀-\"-\\-\n";
    let text = timeline_json(&build_timeline(
        job,
        &specs,
        Revision::R09,
        CloseStyle::Explicit,
    ));
    // Write seq 2 as 2.0: the kit accepts it and digests it as 2.
    text.replacen("\"seq\":2,", "\"seq\":2.0,", 1)
}

fn reference_digests(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let report = verify_timeline_observed(text.as_bytes(), &TimelineOptions::default(), &mut |d| {
        out.push(hex::lower(&d.digest.expect("every entry digests")));
    })
    .unwrap();
    assert_eq!(
        report.verdict,
        agentconf_aer1::Verdict::Valid,
        "{:?}",
        report.failures
    );
    out
}

#[test]
fn serde_json_escapes_controls_like_the_kit() {
    // The Rust oracle relies on this: serde_json's short escapes and lowercase \u00XX.
    assert_eq!(
        serde_json::to_string("\u{8}\u{c}\n\r\t\u{1}\u{1f}").unwrap(),
        r#""\b\f\n\r\t\u0001\u001f""#
    );
}

#[test]
fn reference_agrees_with_the_rust_oracle() {
    let text = nasty_chain();
    let oracle: Vec<String> = kit_oracle::digests_09(&text)
        .into_iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(reference_digests(&text), oracle);
}

#[test]
fn reference_agrees_with_python_json_dumps() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/kit_digests.py");
    for text in [
        nasty_chain(),
        include_str!("../testdata/v07-valid-5.json").to_string(),
    ] {
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 is required for the kit oracle (install python3)");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "oracle failed: {out:?}");
        let python: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(reference_digests(&text), python);
    }
}
