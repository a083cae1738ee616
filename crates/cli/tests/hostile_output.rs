//! Every byte that came from outside (a claim's recorded name and command, a corpus id read from
//! a directory) is escaped for the place it is written to: nothing reaches the terminal of
//! whoever re-checks a claim or reads a report that could act on it (an escape sequence, an OSC 52
//! clipboard write, a bell, a carriage return, a bidirectional override), and no raw HTML reaches
//! a Markdown document. The escaping functions themselves are tested class by class in
//! `agentconf_json::text`; this is the end-to-end check, through the commands.

use std::process::{Command, Output};

use agentconf_harness::results::{parse, write_file, RuleRef};
use agentconf_harness::Status;

const BIN: &str = env!("CARGO_BIN_EXE_agentconf");

/// Every hostile class at once: a screen clear, an OSC 52 clipboard write ended by BEL, a
/// carriage return that would overwrite the line, a backspace, NUL, a C1 CSI, a right-to-left
/// override and an isolate, and HTML.
const HOSTILE: &str = "ACME\u{1b}[2J\u{1b}]52;c;cm0gLXJmIH4=\u{7}\rOK\u{8}\u{0}\u{9b}1m\u{202e}gnp.exe\u{2066}<img src=x onerror=alert(1)>";

// The shared helpers; this test uses the directory alone.
#[allow(dead_code)]
mod support;

use support::TempDir;

/// `name` in `dir`, as a string argument.
fn path_in(dir: &TempDir, name: &str) -> String {
    dir.path().join(name).to_str().unwrap().to_string()
}

fn agentconf(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run agentconf")
}

/// The characters that act on a terminal or reorder text, found in `text` (line breaks and tabs
/// are text).
fn acting(text: &str) -> Vec<String> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t') || agentconf_json::text::is_bidi_control(c)
        })
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

fn assert_inert(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        let found = acting(&text);
        assert!(
            found.is_empty(),
            "{what}: {stream} carries {found:?}:\n{text}"
        );
    }
}

/// A claim whose recorded name and command carry every hostile class: `claim verify` (which
/// prints what the claim records, or refuses naming it) and every human-readable report of it
/// print them escaped; the JUnit document carries them escaped too.
#[test]
fn a_hostile_claim_reaches_no_terminal_and_no_document() {
    let scratch = TempDir::new("hostile-claim");
    let whole = path_in(&scratch, "whole.jsonl");
    let made = agentconf(&[
        "run",
        "--implementation",
        "reference-process",
        "--include",
        "aer1/workflow/valid",
        "--out",
        &whole,
    ]);
    assert_eq!(made.status.code(), Some(0), "{made:?}");
    let mut file = parse(&std::fs::read_to_string(&whole).unwrap()).unwrap();
    file.header.implementation.name = HOSTILE.to_string();
    file.header.implementation.argv = vec![HOSTILE.to_string(), "impl".to_string()];
    file.seal(1);
    let forged = path_in(&scratch, "forged.jsonl");
    write_file(std::path::Path::new(&forged), &file).unwrap();

    // The claim's executable digest is this build's and its command runs `impl`, so it is
    // re-run as the reference's processes: its new results go to the scratch directory.
    let again = path_in(&scratch, "again.jsonl");
    let claim = agentconf(&["claim", "verify", &forged, "--out", &again]);
    assert_inert("claim verify", &claim);
    let said = String::from_utf8_lossy(&claim.stderr).to_string()
        + &String::from_utf8_lossy(&claim.stdout);
    assert!(
        said.contains("\\u{1b}[2J") && said.contains("\\u{202e}"),
        "the hostile bytes are shown, escaped: {said}"
    );
    for format in ["text", "markdown"] {
        let report = agentconf(&["report", &forged, "--format", format]);
        assert_inert(&format!("report --format {format}"), &report);
        assert_eq!(report.status.code(), Some(0), "{report:?}");
    }
    let markdown = agentconf(&["report", &forged, "--format", "markdown"]);
    assert!(!String::from_utf8_lossy(&markdown.stdout).contains("<img"));
    let junit = agentconf(&["report", &forged, "--format", "junit"]);
    assert_inert("report --format junit", &junit);
    let html = agentconf(&["report", &forged, "--format", "html"]);
    assert_inert("report --format html", &html);
    assert!(!String::from_utf8_lossy(&html.stdout).contains("<img"));
}

/// A results file from another version may name rules this build's catalogue lacks: they are
/// kept as written, as unknown. One carrying every hostile class and a `</script>` in a line's
/// rules and expected rules reaches no terminal, and no Markdown document raw: in `report diff`
/// (which reads both files without a corpus) in every format, and in the refusal of `report`,
/// whose embedded corpus expects other rules of that case.
#[test]
fn a_hostile_unknown_rule_id_reaches_no_terminal_and_no_document() {
    let scratch = TempDir::new("hostile-rule");
    let whole = path_in(&scratch, "whole.jsonl");
    let made = agentconf(&["run", "--include", "aer1/workflow/valid", "--out", &whole]);
    assert_eq!(made.status.code(), Some(0), "{made:?}");
    let mut file = parse(&std::fs::read_to_string(&whole).unwrap()).unwrap();
    let hostile = RuleRef::parse(&format!("{HOSTILE}</script><script>alert(2)</script>"));
    assert!(hostile.known().is_none());
    let line = file.results.first_mut().expect("a result");
    // A regression, so that the diff lists the case.
    line.status = Status::WrongReason;
    line.rules.push(hostile.clone());
    line.expected_rules.push(hostile);
    file.seal(1);
    let forged = path_in(&scratch, "forged.jsonl");
    write_file(std::path::Path::new(&forged), &file).unwrap();

    for format in ["text", "markdown"] {
        let diff = agentconf(&["report", "diff", &whole, &forged, "--format", format]);
        assert_eq!(diff.status.code(), Some(1), "{format}: {diff:?}");
        assert_inert(&format!("report diff --format {format}"), &diff);
        let text = String::from_utf8_lossy(&diff.stdout);
        assert!(
            text.contains("ACME"),
            "{format}: the rule is shown:\n{text}"
        );
        if format == "markdown" {
            let outside = outside_code_spans(&text);
            assert!(!outside.contains('<'), "{format}: raw HTML:\n{text}");
        }
    }
    let json = agentconf(&["report", "diff", &whole, &forged, "--format", "json"]);
    serde_json::from_slice::<serde_json::Value>(&json.stdout).expect("the JSON stays JSON");
    let refused = agentconf(&["report", &forged]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert_inert("report (refused)", &refused);
}

/// A corpus directory whose vector id carries every hostile class: `vectors diff` in every
/// format writes it escaped for that format (text and the changelog and Markdown documents: no
/// terminal control and no raw HTML).
#[test]
fn a_hostile_corpus_id_reaches_no_terminal_and_no_markdown_document() {
    let scratch = TempDir::new("hostile-corpus");
    let dir = scratch.path().join("hostile-vectors");
    agentconf_corpus::writer::write(&dir, &agentconf_corpus::corpus()).unwrap();
    // Hand-edited, as a directory from elsewhere may be: one vector's id made hostile, its file
    // and the manifest brought into agreement (so the directory is read, not refused).
    let manifest_path = dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let hostile_id = format!("aer1/receipt/valid/{HOSTILE}");
    let entry = &mut manifest["vectors"][0];
    let file = dir.join(entry["path"].as_str().unwrap());
    let mut vector: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    vector["id"] = hostile_id.clone().into();
    let bytes = serde_json::to_string_pretty(&vector).unwrap();
    std::fs::write(&file, &bytes).unwrap();
    entry["id"] = hostile_id.into();
    entry["sha256"] =
        agentconf_json::hex::lower(&agentconf_aer1::digest::sha256(bytes.as_bytes())).into();
    let mut lines: Vec<String> = manifest["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {}\n",
                e["id"].as_str().unwrap(),
                e["sha256"].as_str().unwrap()
            )
        })
        .collect();
    lines.sort();
    manifest["corpus_digest"] =
        agentconf_json::hex::lower(&agentconf_aer1::digest::sha256(lines.concat().as_bytes()))
            .into();
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let dir = dir.to_str().unwrap();
    for format in ["text", "markdown", "changelog"] {
        let out = agentconf(&["vectors", "diff", dir, "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}: {out:?}");
        assert_inert(&format!("vectors diff --format {format}"), &out);
        let text = String::from_utf8_lossy(&out.stdout);
        if format != "text" {
            let outside = outside_code_spans(&text);
            assert!(!outside.contains('<'), "{format}: raw HTML:\n{text}");
        }
    }
    let json = agentconf(&["vectors", "diff", dir, "--format", "json"]);
    let text = String::from_utf8_lossy(&json.stdout);
    serde_json::from_str::<serde_json::Value>(&text).expect("the JSON stays JSON");
}

/// `markdown` without its code spans (whose content a renderer shows as written, never as HTML),
/// as CommonMark delimits them: a run of backticks up to the next run of the same length.
fn outside_code_spans(markdown: &str) -> String {
    let chars: Vec<char> = markdown.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    break Some(j + m);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        match close {
            Some(end) => i = end,
            None => {
                // No closing run: the backticks are text.
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}
