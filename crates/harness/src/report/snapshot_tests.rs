//! Snapshots of every report format, built from a small hand-made results file that covers every
//! status, plus tests of what matters most: escaping, false accepts first, badge colours, diff
//! classification.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test -p agentconf-harness --lib
//! report::snapshot_tests` (or `cargo insta review`), then read the `.snap` diffs before
//! committing.

use crate::report::{self, RuleStatus};
use crate::results::{
    footer, now_rfc3339, Header, ImplementationInfo, ResultLine, ResultsFile, RuleRef, Selection,
    FORMAT,
};
use crate::Grading;
use crate::Status;
use agentconf_contract::vector::{Expectation, Suite};

/// A hostile standard error: markup, quotes, an ANSI escape, a bidi override, a NUL.
const HOSTILE: &str = "<script>alert(\"pwned\")</script> it's & <img src=x onerror='alert(1)'>\n\
                       \u{1b}[31mred\u{1b}[0m \u{202e}reversed\u{202c} nul\u{0}end";

#[allow(clippy::too_many_arguments)]
fn line(
    id: &str,
    suite: Suite,
    family: &str,
    rules: &[&str],
    expectation: Expectation,
    status: Status,
    detail: &str,
    stderr: &str,
    duration_ms: u64,
) -> ResultLine {
    let expected_rules = match expectation {
        Expectation::Valid => Vec::new(),
        _ => rules.iter().take(1).map(|r| RuleRef::parse(r)).collect(),
    };
    ResultLine {
        id: id.into(),
        revision: None,
        suite,
        family: family.into(),
        rules: rules.iter().map(|r| RuleRef::parse(r)).collect(),
        level: agentconf_rules::Level::Must,
        expectation,
        expected_rules,
        derived_from: None,
        status,
        detail: detail.into(),
        stderr: stderr.into(),
        duration_ms,
        failed_as: None,
        xfail_reason: None,
        broken_rules: Vec::new(),
        suite_detail: crate::SuiteDetail::None,
    }
}

fn results() -> Vec<ResultLine> {
    use Expectation::*;
    use Status::*;
    use Suite::*;
    vec![
        line(
            "aer1/receipt/id/uppercase",
            Aer1Receipt,
            "id",
            &["AER1-RC-ID"],
            Invalid,
            Pass,
            "rejected: [\"AER1-RC-ID\"]",
            "",
            3,
        ),
        line(
            "aer1/timeline/link/tampered-3",
            Aer1Timeline,
            "link",
            &["AER1-TL-LINK"],
            Invalid,
            FalseAccept,
            "accepted",
            "",
            4,
        ),
        line(
            "aer1/timeline/link/tampered-2",
            Aer1Timeline,
            "link",
            &["AER1-TL-LINK"],
            Invalid,
            FalseAccept,
            "accepted",
            HOSTILE,
            5,
        ),
        line(
            "aer1/timeline/genesis/valid-chain",
            Aer1Timeline,
            "genesis",
            &["AER1-TL-GENESIS", "AER1-TL-LINK"],
            Valid,
            FalseReject,
            "rejected: [\"AER1-TL-GENESIS\"]",
            "error: genesis digest is not 64 zeros\n",
            6,
        ),
        line(
            "aer1/receipt/hash/mismatch",
            Aer1Receipt,
            "hash",
            &["AER1-RC-HASH-MATCH"],
            Invalid,
            WrongReason,
            "rejected with [\"AER1-RC-STATUS\"], expected [\"AER1-RC-HASH-MATCH\"]",
            "",
            2,
        ),
        line(
            "aer1/workflow/root/odd-leaf",
            Aer1Workflow,
            "root",
            &["AER1-WF-ROOT"],
            Valid,
            Crash,
            "killed by signal 11",
            "Segmentation fault (core dumped)\n",
            7,
        ),
        line(
            "aer1/timeline/seq/huge",
            Aer1Timeline,
            "seq",
            &["AER1-TL-SEQ"],
            Invalid,
            Timeout,
            "no exit within 10s",
            "",
            10_000,
        ),
        line(
            "grp/admission/dedup/replay",
            GrpAdmission,
            "dedup",
            &["GRP-DUP-EVENT"],
            Invalid,
            ProtocolError,
            "decision is not JSON: expected value at line 1 column 1",
            "",
            9,
        ),
        line(
            "grp/admission/profile/durable-restart",
            GrpAdmission,
            "profile",
            &["GRP-PROFILE-DURABLE"],
            Valid,
            Unsupported,
            "needs the durable profile, which is not claimed",
            "",
            0,
        ),
        line(
            "aer1/receipt/valid/minimal",
            Aer1Receipt,
            "valid",
            &["AER1-RC-MEMBERS", "AER1-RC-ID"],
            Valid,
            Pass,
            "accepted",
            "warning: this is noise on success\n",
            1,
        ),
        line(
            "grp/admission/json/syntax",
            GrpAdmission,
            "json",
            &["GRP-JSON-SYNTAX"],
            Invalid,
            Pass,
            "every decision as expected",
            "",
            8,
        ),
        line(
            "aer1/receipt/x/<img src=x onerror=alert('id')>",
            Aer1Receipt,
            "x\"family",
            &["X-NOT-A-RULE<b>"],
            Acceptable,
            Pass,
            "accepted (acceptable) <i>",
            "",
            1,
        ),
    ]
}

/// The fixture. `fixed` gives fixed timestamps (string formats are compared byte for byte);
/// otherwise the timestamps are the real time, and the JSON snapshot's redactions must hide them.
pub(crate) fn file(fixed: bool) -> ResultsFile {
    let results = results();
    let mut foot = footer(&results, 12_345);
    let started_at = if fixed {
        foot.finished_at = "2025-06-01T12:00:13Z".into();
        "2025-06-01T12:00:00Z".to_string()
    } else {
        foot.duration_ms = std::process::id() as u64;
        now_rfc3339()
    };
    ResultsFile {
        header: Header {
            format: FORMAT.into(),
            suite_version: "0.1.0".into(),
            corpus_digest: "3f1c9a0e5b7d2c4e6a8b0d1f3e5c7a9b1d3f5e7c9a0b2d4f6e8a0c2e4b6d8f0a"
                .into(),
            vector_count: results.len(),
            case_count: None,
            implementation: ImplementationInfo {
                name: "example-impl".into(),
                argv: vec![
                    "python3".into(),
                    "impl.py".into(),
                    "--mode=it's strict".into(),
                ],
                executable_sha256: Some(
                    "9b2e4f6a8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f2a4b6c8d0e2f".into(),
                ),
                files: vec![crate::identity::FileDigest {
                    path: "impl.py".into(),
                    sha256: "5d41402abc4b2a76b9719d911017c592aaf4c1f5e2d0b3c4a6e8f0a2b4c6d8e0"
                        .into(),
                }],
                declared: None,
                interpreter_version: Some("Python 3.11.7".into()),
            },
            adapter_digest: None,
            xfail_digest: None,
            grading: Grading::Strict,
            profiles: vec!["atomic".into()],
            containment: None,
            containment_note: None,
            case_ids_sha256: None,
            selection: Some(Selection {
                include: Vec::new(),
                exclude: Vec::new(),
                corpus_case_count: results.len(),
            }),
            started_at,
        },
        results,
        footer: Some(foot),
    }
}

/// An earlier run to diff against: a different corpus, some statuses different, one vector that
/// is gone since and two that did not exist yet.
fn old_file() -> ResultsFile {
    let mut f = file(true);
    f.header.corpus_digest =
        "0000000000000000000000000000000000000000000000000000000000000001".into();
    f.results
        .retain(|r| r.id != "grp/admission/json/syntax" && !r.id.starts_with("aer1/receipt/x/"));
    for r in &mut f.results {
        match r.id.as_str() {
            // pass -> false-accept, pass -> false-reject: regressions.
            "aer1/timeline/link/tampered-2" | "aer1/timeline/genesis/valid-chain" => {
                r.status = Status::Pass
            }
            // false-reject -> false-accept: newly accepting is a regression whatever it was.
            "aer1/timeline/link/tampered-3" => r.status = Status::FalseReject,
            // crash -> pass: a fix.
            "aer1/receipt/id/uppercase" => r.status = Status::Crash,
            // false-reject -> wrong-reason: another change.
            "aer1/receipt/hash/mismatch" => r.status = Status::FalseReject,
            _ => {}
        }
    }
    f.results.push(line(
        "aer1/receipt/old/retired",
        Suite::Aer1Receipt,
        "old",
        &["AER1-RC-ID"],
        Expectation::Invalid,
        Status::Pass,
        "rejected",
        "",
        1,
    ));
    f
}

/// The same earlier run, told apart from the corpus change with both corpora's file hashes: the
/// genesis vector's expectation changed (valid under the new corpus, invalid under the old), the
/// hash-mismatch vector's content changed, one vector was added and one retired; the rest are
/// byte-identical in both corpora.
fn cross_corpus() -> (ResultsFile, report::CorpusVersions) {
    let mut old = old_file();
    for r in &mut old.results {
        if r.id == "aer1/timeline/genesis/valid-chain" {
            r.expectation = Expectation::Invalid;
            r.expected_rules = vec![RuleRef::parse("AER1-TL-GENESIS")];
        }
    }
    let sha = |f: &ResultsFile| {
        f.results
            .iter()
            .map(|r| {
                let id = report::vector_of(&r.id).to_string();
                let changed = matches!(
                    id.as_str(),
                    "aer1/timeline/genesis/valid-chain" | "aer1/receipt/hash/mismatch"
                );
                let digest = format!(
                    "{}{}",
                    if changed {
                        &f.header.corpus_digest[..4]
                    } else {
                        ""
                    },
                    id
                );
                (id, digest)
            })
            .collect()
    };
    let mut versions = report::CorpusVersions {
        old: sha(&old),
        new: sha(&file(true)),
    };
    // In both corpora, though the old run has no line for it (a case the old run left out).
    let x = "aer1/receipt/x/<img src=x onerror=alert('id')>";
    versions.old.insert(x.into(), x.into());
    (old, versions)
}

// ------------------------------------------------------------------------------------------------
// Snapshots of every format.

#[test]
fn snapshot_text() {
    insta::assert_snapshot!("text", report::text(&file(true)));
}

#[test]
fn snapshot_json() {
    // Real timestamps and a varying duration, hidden by redactions: the snapshot holds only what
    // is the same between two runs.
    let f = file(false);
    insta::assert_json_snapshot!("json", report::summary(&f), {
        ".header.started_at" => "[timestamp]",
        ".footer.finished_at" => "[timestamp]",
        ".footer.duration_ms" => "[duration]",
        ".unexpected[].duration_ms" => "[duration]",
    });
}

#[test]
fn snapshot_junit() {
    insta::assert_snapshot!("junit", report::junit(&file(true)));
}

#[test]
fn snapshot_markdown() {
    insta::assert_snapshot!("markdown", report::markdown(&file(true)));
}

#[test]
fn snapshot_html() {
    insta::assert_snapshot!("html", report::html(&file(true)));
}

#[test]
fn snapshot_badge() {
    insta::assert_snapshot!("badge", report::badge(&file(true)));
}

#[test]
fn snapshot_diff() {
    let d = report::diff(&old_file(), &file(true), None);
    insta::assert_snapshot!("diff", report::diff_text(&d));
}

/// A diff across two corpora whose manifests are known: each difference says whether the
/// implementation or the corpus made it.
#[test]
fn snapshot_diff_across_corpora() {
    let (old, versions) = cross_corpus();
    let d = report::diff(&old, &file(true), Some(&versions));
    insta::assert_snapshot!("diff-across-corpora", report::diff_text(&d));
    insta::assert_snapshot!("diff-across-corpora-markdown", report::diff_markdown(&d));
    insta::assert_snapshot!("diff-across-corpora-json", report::diff_json(&d));
}

// ------------------------------------------------------------------------------------------------
// Properties.

#[test]
fn html_escapes_everything_from_the_file() {
    let page = report::html(&file(true));
    // The only script element is the page's own.
    assert_eq!(
        page.matches("<script").count(),
        1,
        "a <script from the data leaked"
    );
    assert!(!page.contains("<img"), "markup from the data leaked");
    assert!(!page.contains("<b>"), "markup from a rule id leaked");
    assert!(!page.contains("<i>"), "markup from a detail leaked");
    assert!(page.contains("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; it&#39;s &amp;"));
    assert!(page.contains("onerror=&#39;alert(1)&#39;"));
    // Control and bidi characters are shown, not obeyed.
    assert!(!page.contains('\u{1b}') && !page.contains('\u{202e}') && !page.contains('\u{0}'));
    assert!(page.contains("\\u{1b}[31mred") && page.contains("\\u{202e}reversed"));
    // Self-contained: nothing is loaded from anywhere.
    for needle in ["http://", "https://", "@import", "url("] {
        assert!(!page.contains(needle), "the page references {needle}");
    }
    // Every tag is one the page itself writes, and none loads anything.
    const TAGS: &[&str] = &[
        "!DOCTYPE", "html", "head", "meta", "title", "style", "body", "header", "div", "h1", "h2",
        "h3", "h4", "span", "p", "main", "section", "a", "dl", "dt", "dd", "code", "strong", "ol",
        "li", "small", "table", "thead", "tbody", "tr", "th", "td", "form", "label", "select",
        "option", "input", "button", "details", "summary", "pre", "em", "footer", "script", "ul",
    ];
    for tag in page.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap();
        let (name, mut attrs) = tag
            .trim_start_matches('/')
            .split_once(' ')
            .unwrap_or((tag.trim_start_matches('/'), ""));
        assert!(TAGS.contains(&name), "unexpected tag <{tag}>");
        // Attributes: bare names or name="value" with no quote inside the value.
        while let Some(rest) = attrs
            .strip_prefix(' ')
            .or(Some(attrs))
            .filter(|a| !a.is_empty())
        {
            let end = rest.find([' ', '=']).unwrap_or(rest.len());
            let attr = &rest[..end];
            assert!(!attr.is_empty(), "a malformed attribute list in <{tag}>");
            // Only the bars carry an inline style (numbers the page computes).
            let allowed =
                !attr.starts_with("on") && attr != "src" && (attr != "style" || name == "span");
            assert!(allowed, "active attribute {attr} in <{tag}>");
            attrs = &rest[end..];
            if let Some(v) = attrs.strip_prefix("=\"") {
                let close = v.find('"').expect("a closed attribute value");
                attrs = &v[close + 1..];
            }
        }
    }
    // Usable without JavaScript: the detail is native <details>, the filters start hidden.
    assert!(page.contains("<details class=\"v"));
    assert!(page.contains("<form class=\"filters\" id=\"filters\" hidden"));
}

#[test]
fn text_and_markdown_neutralise_hostile_strings() {
    let text = report::text(&file(true));
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{0}'));
    assert!(text.contains("\\u{1b}[31m"));
    let md = report::markdown(&file(true));
    assert!(!md.contains("<img") && !md.contains("<b>") && !md.contains("<i>"));
    // A table row stays one line: no raw newline or unescaped pipe from the data.
    for row in md.lines().filter(|l| l.starts_with("| ")) {
        assert!(row.ends_with(" |"), "a broken table row: {row}");
    }
    let xml = report::junit(&file(true));
    assert!(!xml.contains("<script>") && !xml.contains('\u{1b}') && !xml.contains('\u{0}'));
    quick_junit::Report::deserialize_from_str(&xml).expect("the JUnit XML parses back");
}

#[test]
fn false_accepts_come_first_everywhere() {
    let f = file(true);
    let order: Vec<&str> = report::unexpected(&f)
        .iter()
        .map(|r| r.status.name())
        .collect();
    assert_eq!(
        order,
        [
            "false-accept",
            "false-accept",
            "false-reject",
            "wrong-reason",
            "crash",
            "timeout",
            "protocol-error"
        ]
    );
    let t = report::totals(&f);
    assert_eq!(t.by_status[0], ("false-accept".to_string(), 2));

    let text = report::text(&f);
    let unexpected_section = &text[text.find("Unexpected results").unwrap()..];
    let fa = unexpected_section.find("false-accept").unwrap();
    for later in [
        "false-reject",
        "wrong-reason",
        "crash",
        "timeout",
        "protocol-error",
    ] {
        assert!(
            fa < unexpected_section.find(later).unwrap(),
            "{later} before false-accept"
        );
    }
    let totals_section = &text[text.find("Totals").unwrap()..];
    assert!(totals_section.find("false-accept") < totals_section.find("false-reject"));

    let md = report::markdown(&f);
    let first_row = md
        .lines()
        .skip_while(|l| !l.starts_with("### Unexpected"))
        .find(|l| l.starts_with("| false") || l.starts_with("| wrong"))
        .unwrap();
    assert!(first_row.starts_with("| false-accept |"), "{first_row}");

    let json: serde_json::Value = serde_json::from_str(&report::json(&f)).unwrap();
    assert_eq!(json["unexpected"][0]["status"], "false-accept");
    assert_eq!(json["unexpected"][0]["id"], "aer1/timeline/link/tampered-2");

    let html = report::html(&f);
    let first = html.find("<details class=\"v ").unwrap();
    assert!(html[first..].starts_with("<details class=\"v s-false-accept\""));
}

#[test]
fn json_keys_in_fixed_order() {
    let json = report::json(&file(true));
    let pos = |k: &str| {
        json.find(&format!("\n  \"{k}\":"))
            .unwrap_or_else(|| panic!("{k}"))
    };
    let keys = [
        "format",
        "header",
        "footer",
        "verdict",
        "suites",
        "totals",
        "unexpected",
        "known_failures",
        "rules",
        "uncredited",
    ];
    for w in keys.windows(2) {
        assert!(pos(w[0]) < pos(w[1]), "{} after {}", w[0], w[1]);
    }
    assert_eq!(json, report::json(&file(true)), "deterministic");
}

#[test]
fn per_rule_counts_and_order() {
    let rows = report::per_rule(&file(true));
    let get = |id: &str| rows.iter().find(|r| r.rule == id).unwrap();
    let link = get("AER1-TL-LINK");
    assert_eq!(
        (link.passed, link.total, link.status),
        (0, 3, RuleStatus::Fail)
    );
    assert_eq!(link.unexpected[0], "aer1/timeline/link/tampered-2");
    let id = get("AER1-RC-ID");
    assert_eq!((id.passed, id.total, id.status), (2, 2, RuleStatus::Pass));
    assert_eq!(id.section, "3-6");
    assert_eq!(id.level, "MUST");
    let durable = get("GRP-PROFILE-DURABLE");
    assert_eq!(
        (durable.total, durable.unsupported, durable.status),
        (0, 1, RuleStatus::Untested)
    );
    let unknown = get("X-NOT-A-RULE<b>");
    assert!(!unknown.known);
    // Drafts in catalogue order, unknown last.
    let drafts: Vec<&str> = rows.iter().map(|r| r.draft.as_str()).collect();
    let mut dedup = drafts.clone();
    dedup.dedup();
    assert_eq!(
        dedup,
        ["draft-zambo-aer1", "draft-sato-soos-grp", "unknown"]
    );
}

/// A complete, strictly graded file whose result lines have these statuses.
fn with_statuses(statuses: &[Status]) -> ResultsFile {
    let mut f = file(true);
    f.results.truncate(statuses.len());
    for (r, s) in f.results.iter_mut().zip(statuses) {
        r.status = *s;
    }
    f.header.case_count = Some(statuses.len());
    if let Some(sel) = f.header.selection.as_mut() {
        sel.corpus_case_count = statuses.len();
    }
    f
}

/// The verdict's headline, the badge's message and colour, and whether the run exits 0.
fn levels(f: &ResultsFile) -> (String, String, String, bool) {
    let v: serde_json::Value = serde_json::from_str(&report::badge(f)).unwrap();
    assert_eq!(v["schemaVersion"], 1);
    let verdict = report::verdict(f);
    // Every format says the same words.
    assert!(report::text(f).starts_with(&format!(
        "agentconf conformance report: {}\n",
        verdict.headline()
    )));
    assert!(report::markdown(f).contains(&format!("{}**", verdict.headline())));
    assert!(report::html(f).contains(&format!("{}</span></h1>", verdict.headline())));
    // JUnit carries it on every testsuite (a file without results has none).
    if !f.results.is_empty() {
        assert!(report::junit(f).contains(&format!("value=\"{}\"", verdict.headline())));
    }
    (
        verdict.headline(),
        v["message"].as_str().unwrap().to_string(),
        v["color"].as_str().unwrap().to_string(),
        verdict.exit_ok(),
    )
}

#[test]
fn verdict_levels_are_the_same_in_every_format_and_only_conforms_is_green() {
    use Status::*;
    let row =
        |h: &str, m: &str, c: &str, ok: bool| (h.to_string(), m.to_string(), c.to_string(), ok);
    assert_eq!(
        levels(&with_statuses(&[Pass, Pass])),
        row("CONFORMS", "CONFORMS 2/2", "brightgreen", true)
    );
    // Expected failures: never green, and counted as failures of their rules.
    let known = with_statuses(&[Pass, Xfail]);
    assert_eq!(
        levels(&known),
        row(
            "CONFORMS WITH 1 KNOWN FAILURE",
            "CONFORMS WITH 1 KNOWN FAILURE 1/2",
            "yellow",
            true
        )
    );
    assert!(report::per_rule(&known)
        .iter()
        .all(|r| r.status != RuleStatus::Pass || r.known_failures.is_empty()));
    assert!(report::per_rule(&known)
        .iter()
        .any(|r| r.status == RuleStatus::KnownFailure));
    for partial in [
        with_statuses(&[Pass, Unsupported]),
        with_statuses(&[Pass, Skip]),
    ] {
        assert_eq!(levels(&partial).0, "PARTIAL");
        assert_eq!(levels(&partial).2, "blue");
    }
    assert_eq!(
        levels(&with_statuses(&[Pass, FalseAccept])),
        row("FAIL", "FAIL 1/2", "red", false)
    );
    assert_eq!(levels(&with_statuses(&[Pass, Timeout])).0, "FAIL");
    assert_eq!(
        levels(&with_statuses(&[Unsupported])),
        row("NOTHING TESTED", "NOTHING TESTED 0/0", "lightgrey", false)
    );
    assert_eq!(levels(&with_statuses(&[])).0, "NOTHING TESTED");
}

/// Each way a passing file can say less than "the whole corpus, strictly" makes it PARTIAL,
/// naming why.
#[test]
fn subsets_loose_grading_and_cut_files_are_partial() {
    use Status::*;
    let reasons = |f: &ResultsFile| {
        let v = report::verdict(f);
        assert_eq!(v.headline(), "PARTIAL", "{:?}", v.partial);
        v.partial.join("; ")
    };
    let mut f = with_statuses(&[Pass, Pass]);
    f.header.selection.as_mut().unwrap().include = vec!["aer1/workflow/valid".into()];
    assert!(reasons(&f).contains("--include aer1/workflow/valid"));
    let mut f = with_statuses(&[Pass, Pass]);
    f.header.grading = Grading::Loose;
    assert!(reasons(&f).contains("loose grading"));
    let mut f = with_statuses(&[Pass, Pass, Pass]);
    f.results.truncate(2);
    assert!(reasons(&f).contains("2 of the corpus's 3 cases"));
    let mut f = with_statuses(&[Pass, Pass]);
    f.footer = None;
    assert!(reasons(&f).contains("no footer"));
    let mut f = with_statuses(&[Pass, Pass]);
    f.header.selection = None;
    assert!(reasons(&f).contains("does not record"));
}

#[test]
fn diff_classification() {
    let d = report::diff(&old_file(), &file(true), None);
    let ids = |l: &[report::Change]| l.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&d.regressions),
        [
            "aer1/timeline/link/tampered-2",
            "aer1/timeline/link/tampered-3",
            "aer1/timeline/genesis/valid-chain"
        ]
    );
    assert_eq!(d.regressions[1].old, Status::FalseReject);
    assert_eq!(ids(&d.fixes), ["aer1/receipt/id/uppercase"]);
    assert_eq!(ids(&d.changed), ["aer1/receipt/hash/mismatch"]);
    let new: Vec<&str> = d.new_vectors.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        new,
        [
            "aer1/receipt/x/<img src=x onerror=alert('id')>",
            "grp/admission/json/syntax"
        ]
    );
    assert_eq!(d.removed_vectors[0].id, "aer1/receipt/old/retired");
    assert_eq!(d.unchanged, 5);
    assert!(d.has_regressions() && d.corpus_changed());
    // Without the corpora's manifests, every difference across two corpora is of unknown cause.
    let text = report::diff_text(&d);
    assert!(text.contains("across corpus"), "{text}");
    assert_eq!(d.count(report::Cause::CorpusUnknown), 8, "{text}");

    let same = report::diff(&file(true), &file(true), None);
    assert!(!same.has_regressions() && !same.corpus_changed());
    assert_eq!(same.unchanged, file(true).results.len());
    assert!(!report::diff_text(&same).contains("REGRESSIONS"));
}

#[test]
fn diff_causes_across_corpora() {
    use report::Cause;
    let (old, versions) = cross_corpus();
    let d = report::diff(&old, &file(true), Some(&versions));
    let cause = |id: &str| {
        d.regressions
            .iter()
            .chain(&d.fixes)
            .chain(&d.changed)
            .map(|c| (c.id.as_str(), c.cause))
            .chain(
                d.new_vectors
                    .iter()
                    .chain(&d.removed_vectors)
                    .map(|e| (e.id.as_str(), e.cause)),
            )
            .find(|(i, _)| *i == id)
            .map(|(_, c)| c)
    };
    assert_eq!(
        cause("aer1/timeline/genesis/valid-chain"),
        Some(Cause::Expectation)
    );
    assert_eq!(
        cause("aer1/receipt/hash/mismatch"),
        Some(Cause::VectorContent)
    );
    assert_eq!(
        cause("aer1/timeline/link/tampered-2"),
        Some(Cause::Implementation)
    );
    assert_eq!(cause("grp/admission/json/syntax"), Some(Cause::VectorAdded));
    assert_eq!(
        cause("aer1/receipt/old/retired"),
        Some(Cause::VectorRetired)
    );
    assert_eq!(
        cause("aer1/receipt/x/<img src=x onerror=alert('id')>"),
        Some(Cause::NotRun)
    );
    // A regression the corpus explains is still listed and still fails the diff.
    assert_eq!(d.regressions.len(), 3);
    assert!(d.has_regressions());
    // The Markdown escapes what the files say.
    let md = report::diff_markdown(&d);
    assert!(!md.contains("<img"), "{md}");
    let text = report::diff_text(&d);
    assert!(
        text.contains(
            "4 differences from the corpus (1 expectation, 1 content, 1 added, 1 retired)"
        ),
        "{text}"
    );
}

#[test]
fn a_run_cut_short_is_said_so() {
    let mut f = file(true);
    f.footer = None;
    f.header.vector_count = 439;
    let text = report::text(&f);
    assert!(text.contains("no footer"));
    assert!(text.contains("12 of the 439"));
    assert!(report::markdown(&f).contains("cut short"));
    assert!(report::html(&f).contains("cut short"));
    let json: serde_json::Value = serde_json::from_str(&report::json(&f)).unwrap();
    assert!(json["footer"].is_null());
}

#[test]
fn markdown_lists_at_most_fifty_unexpected() {
    let mut f = file(true);
    let template = f.results[1].clone();
    for i in 0..60 {
        let mut r = template.clone();
        r.id = format!("aer1/timeline/link/many-{i:02}");
        f.results.push(r);
    }
    let md = report::markdown(&f);
    let rows = md
        .lines()
        .skip_while(|l| !l.starts_with("### Unexpected"))
        .take_while(|l| !l.starts_with("<details>"))
        .filter(|l| l.starts_with("| ") && !l.starts_with("| status"))
        .count();
    assert_eq!(rows, 50);
    assert!(md.contains("…and 17 more."), "{md}");
}

#[test]
fn parse_round_trip_feeds_the_reports() {
    // The reports take what `results::parse` gives: write the fixture as JSON lines, read it back.
    use crate::results::{parse, Line};
    let f = file(true);
    let mut text = serde_json::to_string(&Line::Header(f.header.clone())).unwrap() + "\n";
    for r in &f.results {
        text += &(serde_json::to_string(&Line::Result(r.clone())).unwrap() + "\n");
    }
    text += &(serde_json::to_string(&Line::Footer(f.footer.clone().unwrap())).unwrap() + "\n");
    let back = parse(&text).unwrap();
    assert_eq!(back, f);
    assert_eq!(report::html(&back), report::html(&f));
}

/// A results file checks itself: its footer's totals and digest, and its header's digest of the
/// case ids, must match the lines, so an edit that keeps the totals consistent is still caught.
#[test]
fn results_files_refuse_edits_that_keep_the_totals_consistent() {
    use crate::results::{check, header_sha256, Incomplete};
    let mut f = file(true);
    f.seal(10);
    check(&f).unwrap();
    // The header edited: loose grading made strict, or a profile claimed after the run.
    let mut strict = f.clone();
    strict.header.grading = Grading::Loose;
    assert_eq!(check(&strict), Err(Incomplete::HeaderDigestMismatch));
    let mut claimed = f.clone();
    claimed.header.profiles.push("durable".into());
    assert_eq!(check(&claimed), Err(Incomplete::HeaderDigestMismatch));
    // A digest removed is no way around the check (the header's digest re-sealed where the
    // header itself was stripped, so only the missing digest is left to find).
    let mut no_lines = f.clone();
    no_lines.footer.as_mut().unwrap().results_sha256 = None;
    let mut no_header = f.clone();
    no_header.footer.as_mut().unwrap().header_sha256 = None;
    let mut no_ids = f.clone();
    no_ids.header.case_ids_sha256 = None;
    no_ids.footer.as_mut().unwrap().header_sha256 = Some(header_sha256(&no_ids.header));
    for (stripped, missing) in [
        (no_lines, Incomplete::NoResultsDigest),
        (no_header, Incomplete::NoHeaderDigest),
        (no_ids, Incomplete::NoSelectionRecord),
    ] {
        let err = check(&stripped).unwrap_err();
        assert_eq!(err, missing);
        assert!(err.to_string().contains("cannot show"), "{err}");
    }
    // A false accept turned into a pass, with the totals recomputed to match but the digest left.
    let mut edited = f.clone();
    let i = edited
        .results
        .iter()
        .position(|r| r.status == Status::FalseAccept)
        .unwrap();
    edited.results[i].status = Status::Pass;
    let mut forged = footer(&edited.results, 10);
    forged.results_sha256 = f.footer.as_ref().unwrap().results_sha256.clone();
    edited.footer = Some(forged);
    assert_eq!(check(&edited), Err(Incomplete::ResultsDigestMismatch));
    // Lines swapped and the footer rebuilt for them: the header's ids say otherwise.
    let mut swapped = f.clone();
    swapped.results.swap(0, 1);
    let mut rebuilt = footer(&swapped.results, 10);
    rebuilt.header_sha256 = Some(header_sha256(&swapped.header));
    swapped.footer = Some(rebuilt);
    assert_eq!(check(&swapped), Err(Incomplete::NotTheSelectedCases));
    // A cut file.
    let mut cut = f.clone();
    cut.footer = None;
    assert!(matches!(check(&cut), Err(Incomplete::NoFooter { .. })));
}

/// The page from `<body>` to its script: what differs from level to level. The style sheet and
/// the script are the same on every page; the full-page `html` snapshot holds them.
fn html_body(page: &str) -> &str {
    let start = page.find("<body>").expect("a body");
    let end = page[start..]
        .find("<script>")
        .map_or(page.len(), |i| start + i);
    &page[start..end]
}

/// One file per verdict level, each checked to be that level.
fn level_files() -> Vec<(&'static str, ResultsFile)> {
    use Status::*;
    let all_pass = vec![Pass; results().len()];
    let mut known = all_pass.clone();
    known[1] = Xfail;
    known[2] = Xfail;
    let mut partial = all_pass.clone();
    partial[8] = Unsupported;
    let mut partial = with_statuses(&partial);
    partial.header.selection.as_mut().unwrap().include = vec!["aer1/".into(), "grp/".into()];
    let mut fail = all_pass.clone();
    fail[1] = FalseAccept;
    fail[5] = Crash;
    let files = vec![
        ("conforms", with_statuses(&all_pass)),
        ("known-failures", {
            // One expected failure is a false accept: listed, and still shown as one.
            let mut f = with_statuses(&known);
            f.results[1].failed_as = Some(FalseAccept);
            f.results[1].xfail_reason = Some("issue #7: the last link is not checked".into());
            // A file from before the reason was recorded: the detail starts with it.
            f.results[2].failed_as = Some(FalseReject);
            f.results[2].detail =
                "expected failure (issue #9: genesis read as hex): rejected".into();
            f
        }),
        ("partial", partial),
        ("fail", with_statuses(&fail)),
        (
            "nothing-tested",
            with_statuses(&vec![Unsupported; results().len()]),
        ),
    ];
    let headlines: Vec<String> = files
        .iter()
        .map(|(_, f)| report::verdict(f).headline())
        .collect();
    assert_eq!(
        headlines,
        [
            "CONFORMS",
            "CONFORMS WITH 2 KNOWN FAILURES",
            "PARTIAL",
            "FAIL",
            "NOTHING TESTED"
        ]
    );
    files
}

/// The HTML page and the badge of each verdict level, as a reader sees them: only CONFORMS is
/// green, known failures are listed as failures of their rules, a partial run says why.
#[test]
fn snapshots_per_verdict_level() {
    for (name, f) in level_files() {
        insta::assert_snapshot!(format!("html-{name}"), html_body(&report::html(&f)));
        insta::assert_snapshot!(format!("badge-{name}"), report::badge(&f));
    }
}

/// A rejection derived from another rejection is credited only when that one is: a chain of
/// invalid vectors lends a reject-all implementation nothing.
#[test]
fn credit_follows_derivations_through_invalid_sources() {
    use Expectation::*;
    use Status::*;
    let mk = |id: &str, e: Expectation, s: Status, from: Option<&str>| {
        let mut l = line(
            id,
            Suite::Aer1Timeline,
            "t",
            &["AER1-TL-LINK"],
            e,
            s,
            "",
            "",
            1,
        );
        l.derived_from = from.map(str::to_string);
        l
    };
    let mut f = file(true);
    f.results = vec![
        mk("aer1/timeline/t/valid", Valid, FalseReject, None),
        mk(
            "aer1/timeline/t/broken",
            Invalid,
            Pass,
            Some("aer1/timeline/t/valid"),
        ),
        mk(
            "aer1/timeline/t/broken-further",
            Invalid,
            Pass,
            Some("aer1/timeline/t/broken"),
        ),
    ];
    let credit = report::Credit::of(&f);
    assert!(!credit.credited(&f.results[1]));
    assert!(
        !credit.credited(&f.results[2]),
        "credit through an uncredited source"
    );
    // The valid source accepted: both rejections are credited.
    f.results[0].status = Pass;
    let credit = report::Credit::of(&f);
    assert!(credit.credited(&f.results[1]) && credit.credited(&f.results[2]));
}

/// An implementation of a subset: a rejection whose valid source it declared unsupported is
/// paired within its suite instead (the source is absent, not a failed pair), and says so; a
/// reject-all implementation still earns nothing, and each uncredited pass says why.
#[test]
fn unsupported_sources_are_absent_and_reject_all_still_earns_nothing() {
    use Expectation::*;
    use Status::*;
    let mk = |id: &str, e: Expectation, s: Status, from: Option<&str>| {
        let mut l = line(
            id,
            Suite::Aer1Timeline,
            "t",
            &["AER1-TL-LINK"],
            e,
            s,
            "",
            "",
            1,
        );
        l.derived_from = from.map(str::to_string);
        l
    };
    let mut f = file(true);
    f.results = vec![
        mk("aer1/timeline/t/only-06", Valid, Unsupported, None),
        mk(
            "aer1/timeline/t/broken-09",
            Invalid,
            Pass,
            Some("aer1/timeline/t/only-06"),
        ),
        mk("aer1/timeline/t/valid-09", Valid, Pass, None),
    ];
    let credit = report::Credit::of(&f);
    assert!(
        credit.credited(&f.results[1]),
        "an unsupported source is absent"
    );
    assert!(report::uncredited(&f).is_empty());
    // Reject-all: the valid case is rejected too, so no rejection is credited.
    f.results[2].status = FalseReject;
    let credit = report::Credit::of(&f);
    assert!(!credit.credited(&f.results[1]));
    let listed = report::uncredited(&f);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, "aer1/timeline/t/broken-09");
    assert!(listed[0]
        .why
        .contains("no valid aer1-timeline case was accepted"));
    // Every format names the case and the reason, in one line (JSON as one object).
    let summary: serde_json::Value = serde_json::from_str(&report::json(&f)).unwrap();
    assert_eq!(summary["uncredited"][0]["id"], "aer1/timeline/t/broken-09");
    let junit = report::junit(&f);
    let case = junit.split("broken-09").nth(1).unwrap();
    let case = case.split("</testcase>").next().unwrap();
    assert!(
        case.contains("<system-out>uncredited: no valid aer1-timeline case"),
        "{junit}"
    );
    for rendered in [report::text(&f), report::markdown(&f), report::html(&f)] {
        let line = rendered
            .lines()
            .find(|l| l.contains("broken-09") && l.contains("no valid aer1-timeline case"));
        assert!(line.is_some(), "{rendered}");
    }
}

/// A false accept listed as an expected failure is still shown as a false accept: the big tile
/// counts it and is red, and the text totals say so.
#[test]
fn listed_false_accepts_are_still_false_accepts() {
    let (_, f) = level_files()
        .into_iter()
        .find(|(name, _)| *name == "known-failures")
        .unwrap();
    assert_eq!(report::totals(&f).listed_false_accepts, 1);
    let html = report::html(&f);
    assert!(html.contains("<a class=\"counter big s-false-accept hot\""));
    assert!(html.contains("1 of them listed as expected failures"));
    assert!(report::text(&f).contains("1 of them false accepts"));
}

// ------------------------------------------------------------------------------------------------
// What every format shows first: the suites, the known failures, the scope.

/// The fixture as an implementation of a subset: every receipt case unsupported.
fn without_receipts() -> ResultsFile {
    let mut f = file(true);
    for r in f
        .results
        .iter_mut()
        .filter(|r| r.suite == Suite::Aer1Receipt)
    {
        r.status = Status::Unsupported;
    }
    f
}

/// The summary row of `suite` in the text report, as numbers: ran, passed, failed, known
/// failures, unsupported.
fn text_suite_row(text: &str, suite: &str) -> Vec<usize> {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(suite))
        .unwrap_or_else(|| panic!("no summary line for {suite}:\n{text}"));
    line.split_whitespace()
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn every_format_summarises_each_suite_first() {
    let f = file(true);
    let text = report::text(&f);
    // (suite, ran, passed, failed, known failures, unsupported)
    let expected = [
        ("aer1-receipt", [4, 3, 1, 0, 0]),
        ("aer1-timeline", [4, 0, 4, 0, 0]),
        ("aer1-workflow", [1, 0, 1, 0, 0]),
        ("grp-admission", [2, 1, 1, 0, 1]),
    ];
    let suites = text.find("\nSuites").expect("a suite summary");
    for (suite, counts) in expected {
        assert_eq!(text_suite_row(&text, suite), counts, "{suite}");
        // Before everything but the verdict and its scope.
        let row = text.find(&format!("    {suite} ")).unwrap();
        assert!(
            suites < row && row < text.find("\nRun:").unwrap(),
            "{suite}"
        );
    }
    assert!(suites < text.find("Unexpected results").unwrap());

    let md = report::markdown(&f);
    assert!(
        md.contains("| `aer1-timeline` | 4 | 0 | **4** | 0 | 0 |"),
        "{md}"
    );
    assert!(md.contains("| `grp-admission` | 2 | 1 | **1** | 0 | 1 |"));
    assert!(md.find("| suite |").unwrap() < md.find("### Unexpected").unwrap());

    let html = report::html(&f);
    assert!(html.contains(
        "<tr><th><code>aer1-timeline</code></th><td>4</td><td>0</td><td class=\"hot\">4</td>\
         <td>0</td><td>0</td></tr>"
    ));
    let main = html.find("<main").unwrap();
    assert_eq!(
        html[main..].find("<section").unwrap(),
        html[main..]
            .find("<section class=\"card\" id=\"suites\"")
            .unwrap(),
        "the suites come first"
    );

    let json: serde_json::Value = serde_json::from_str(&report::json(&f)).unwrap();
    let names: Vec<&str> = json["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["suite"].as_str().unwrap())
        .collect();
    assert_eq!(names, expected.map(|(s, _)| s));
    assert_eq!(json["suites"][3]["unsupported"], 1);

    let junit = report::junit(&f);
    for (suite, [ran, ..]) in expected {
        let at = junit.find(&format!("<testsuite name=\"{suite}\"")).unwrap();
        let props = &junit[at..junit[at..].find("</properties>").unwrap() + at];
        assert!(
            props.contains(&format!("name=\"ran\" value=\"{ran}\"")),
            "{props}"
        );
    }
}

/// An implementation of a subset sees its own suites first and the untested ones folded, in
/// every format.
#[test]
fn untested_suites_and_rules_come_last_and_folded() {
    let f = without_receipts();
    let view = report::View::of(&f);
    let order: Vec<&str> = view.suites.iter().map(|s| s.suite.as_str()).collect();
    assert_eq!(
        order,
        [
            "aer1-timeline",
            "aer1-workflow",
            "grp-admission",
            "aer1-receipt"
        ]
    );
    let text = report::text(&f);
    assert!(
        text.contains(
            "not tested (every case unsupported, skipped or out of scope): aer1-receipt (4 cases)"
        ),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("    aer1-receipt ")));
    assert!(report::markdown(&f).contains("`aer1-receipt` (4 cases)"));
    let html = report::html(&f);
    assert!(html
        .contains("<summary>Not tested: 1 suite, every case unsupported, skipped or out of scope"));
    // The receipt rules no case of which ran: after every tested rule, folded.
    let untested = text.find("Untested (").expect("the untested rules");
    assert!(text[untested..].contains("AER1-RC-MEMBERS"), "{text}");
    assert!(text.rfind("    fail ").unwrap() < untested);
    let folded = html.find("<details class=\"more untested\">").unwrap();
    let end = folded + html[folded..].find("</details>").unwrap();
    assert!(html[folded..end].contains("AER1-RC-MEMBERS"));
    assert!(!html[..folded].contains(">AER1-RC-MEMBERS<"));
}

#[test]
fn known_failures_are_listed_with_their_reasons_in_every_format() {
    let (_, f) = level_files()
        .into_iter()
        .find(|(name, _)| *name == "known-failures")
        .unwrap();
    let view = report::View::of(&f);
    let listed: Vec<(&str, &str)> = view
        .known_failures
        .iter()
        .map(|k| (k.id.as_str(), k.reason.as_str()))
        .collect();
    // False accepts first; a file without the recorded reason gives the detail, which holds it.
    assert_eq!(
        listed,
        [
            (
                "aer1/timeline/link/tampered-3",
                "issue #7: the last link is not checked"
            ),
            (
                "aer1/timeline/link/tampered-2",
                "expected failure (issue #9: genesis read as hex): rejected"
            ),
        ]
    );
    let text = report::text(&f);
    assert!(text.contains(
        "  false-accept    aer1/timeline/link/tampered-3\n                  reason: issue #7: the last \
         link is not checked\n"
    ));
    assert!(text.find("Known failures (2)").unwrap() < text.find("\nRun:").unwrap());
    // Said once: not again as a scope line (the one scope line says the corpus is whole).
    assert_eq!(text.matches("scope:").count(), 1, "{text}");
    assert!(text.contains("  scope: every case of the corpus"), "{text}");
    assert!(report::markdown(&f).contains(
        "| `aer1/timeline/link/tampered-3` | false-accept | issue \\#7: the last link is not checked |"
    ));
    assert!(
        report::html(&f).contains("<p class=\"reason\">issue #7: the last link is not checked</p>")
    );
    let json: serde_json::Value = serde_json::from_str(&report::json(&f)).unwrap();
    assert_eq!(json["known_failures"][0]["failed_as"], "false-accept");
    assert_eq!(
        json["known_failures"][0]["reason"],
        "issue #7: the last link is not checked"
    );
    assert!(report::junit(&f).contains("message=\"xfail: issue #7: the last link is not checked\""));
}

/// Every colour a page's style sheet names, as red, green and blue.
fn colours(page: &str) -> Vec<(String, [u8; 3])> {
    let start = page.find("<style>").unwrap();
    let css = &page[start..page.find("</style>").unwrap()];
    css.match_indices('#')
        .filter_map(|(i, _)| {
            let hex: String = css[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            let full = match hex.len() {
                3 => hex.chars().flat_map(|c| [c, c]).collect(),
                6 => hex.clone(),
                _ => return None,
            };
            let byte = |k: usize| u8::from_str_radix(&full[k..k + 2], 16).unwrap();
            Some((hex, [byte(0), byte(2), byte(4)]))
        })
        .collect()
}

fn greens(page: &str) -> Vec<String> {
    colours(page)
        .into_iter()
        .filter(|(_, [r, g, b])| *g > r.saturating_add(4) && *g > b.saturating_add(4))
        .map(|(hex, _)| hex)
        .collect()
}

#[test]
fn a_fail_page_carries_no_green() {
    let files = level_files();
    let of = |level: &str| &files.iter().find(|(name, _)| *name == level).unwrap().1;
    // The test can tell: a CONFORMS page has its green.
    assert!(!greens(&report::html(of("conforms"))).is_empty());
    for fail in [of("fail"), &file(true)] {
        assert_eq!(report::verdict(fail).headline(), "FAIL");
        let page = report::html(fail);
        assert_eq!(greens(&page), Vec::<String>::new());
        // Passes are still marked, in grey.
        assert!(page.contains("<span class=\"pill s-pass\">pass</span>"));
        assert!(!report::markdown(fail).contains('✅'));
    }
    assert!(report::markdown(of("conforms")).contains('✅'));
}

#[test]
fn junit_counts_skipped_cases_as_skipped() {
    let suite_tag = |xml: &str, suite: &str| -> String {
        let at = xml.find(&format!("<testsuite name=\"{suite}\"")).unwrap();
        xml[at..at + xml[at..].find('>').unwrap()].to_string()
    };
    let xml = report::junit(&file(true));
    let tag = suite_tag(&xml, "grp-admission");
    assert!(
        tag.contains("disabled=\"0\"") && tag.contains("skipped=\"1\""),
        "{tag}"
    );
    assert!(suite_tag(&xml, "aer1-timeline").contains("skipped=\"0\""));
    // Nothing ran: every case of every suite is skipped.
    let (_, none) = level_files()
        .into_iter()
        .find(|(name, _)| *name == "nothing-tested")
        .unwrap();
    let xml = report::junit(&none);
    let tag = suite_tag(&xml, "aer1-receipt");
    assert!(
        tag.contains("tests=\"4\"") && tag.contains("skipped=\"4\""),
        "{tag}"
    );
    quick_junit::Report::deserialize_from_str(&xml).expect("the JUnit XML parses back");
}

#[test]
fn the_badge_label_is_short_and_fixed_and_the_scope_is_in_the_message() {
    let badge = |f: &ResultsFile| -> (String, String) {
        let v: serde_json::Value = serde_json::from_str(&report::badge(f)).unwrap();
        (
            v["label"].as_str().unwrap().to_string(),
            v["message"].as_str().unwrap().to_string(),
        )
    };
    for (name, f) in level_files() {
        assert_eq!(badge(&f).0, report::badge::BADGE_LABEL, "{name}");
    }
    assert_eq!(report::badge::BADGE_LABEL, "agentconf");
    let (_, conforms) = level_files().swap_remove(0);
    assert_eq!(badge(&conforms).1, "CONFORMS 12/12");
    // A subset names what it covers.
    let mut timeline = with_statuses(&[Status::Pass; 12]);
    timeline.results.retain(|r| r.suite == Suite::Aer1Timeline);
    timeline.header.selection.as_mut().unwrap().include = vec!["aer1/timeline/".into()];
    assert_eq!(badge(&timeline).1, "PARTIAL 4/4 · aer1-timeline");
    timeline.header.grading = Grading::Loose;
    assert_eq!(badge(&timeline).1, "PARTIAL 4/4 · aer1-timeline loose");
    assert_eq!(badge(&without_receipts()).1, "FAIL 1/7 · 3 of 7 suites");
}

#[test]
fn sections_read_as_words_and_the_run_starts_before_it_finishes() {
    let f = without_receipts();
    let (start, finish) = ("2025-06-01T12:00:00Z", "2025-06-01T12:00:13Z");
    for page in [report::text(&f), report::markdown(&f), report::html(&f)] {
        assert!(!page.to_lowercase().contains("section none"), "{page}");
        assert!(
            page.contains("Section 8.6 (added in 01)") || page.contains("Section 8.6 \\(added")
        );
        assert!(page.find(start).unwrap() < page.find(finish).unwrap());
        // Cases are counted as cases.
        assert!(!page.to_lowercase().contains("vectors passed"), "{page}");
    }
    // The untested profile rule, folded, in words too.
    assert!(
        report::html(&f).contains("<th colspan=\"4\">Capability profile (no draft section)</th>")
    );
    assert!(report::html(&f).contains("<p class=\"sub\">1 of 7 cases passed"));
}

/// A revision-09 timeline verifier right on every case of its declared scope: the cases of the
/// other suites, of revision 06 and with a commitment are out of scope, so its rules are `pass`
/// (not `partial`), the verdict is PARTIAL, every format says the scope in one line, and the
/// `in-scope` level holds. An exit 89 inside the scope, a filter or a skip takes it away.
#[test]
fn a_subset_right_in_its_declared_scope_passes_its_rules_and_meets_in_scope() {
    use Expectation::*;
    use Status::*;
    let tl = |id: &str, rules: &[&str], e: Expectation, s: Status, rev: &str| {
        let mut l = line(id, Suite::Aer1Timeline, "t", rules, e, s, "", "", 1);
        l.revision = Some(rev.into());
        l
    };
    let chain = [
        "AER1-TL-LINK",
        "AER1-TL-GENESIS",
        "AER1-TL-SEQ",
        "AER1-TL-JOB",
    ];
    let mut f = file(true);
    f.results = vec![
        tl("aer1/timeline/t/valid", &chain, Valid, Pass, "09"),
        tl(
            "aer1/timeline/t/tampered",
            &["AER1-TL-LINK"],
            Invalid,
            Pass,
            "09",
        ),
        tl(
            "aer1/timeline/t/genesis",
            &["AER1-TL-GENESIS"],
            Invalid,
            Pass,
            "09",
        ),
        tl("aer1/timeline/t/seq", &["AER1-TL-SEQ"], Invalid, Pass, "09"),
        tl("aer1/timeline/t/job", &["AER1-TL-JOB"], Invalid, Pass, "09"),
        tl(
            "aer1/timeline/t/unclosed",
            &["AER1-TL-CLOSE-LAST"],
            Invalid,
            Pass,
            "09",
        ),
        // Outside the scope: revision 06, a commitment, another suite.
        tl(
            "aer1/timeline/t/tampered@06",
            &["AER1-TL-LINK"],
            Invalid,
            OutOfScope,
            "06",
        ),
        tl(
            "aer1/timeline/t/unclosed-06",
            &["AER1-TL-CLOSE-LAST"],
            Invalid,
            OutOfScope,
            "06",
        ),
        tl(
            "aer1/timeline/t/commitment",
            &["AER1-CM-FINAL", "AER1-TL-CLOSE-LAST"],
            Invalid,
            OutOfScope,
            "09",
        ),
        line(
            "aer1/receipt/r/valid",
            Suite::Aer1Receipt,
            "r",
            &["AER1-RC-ID"],
            Valid,
            OutOfScope,
            "",
            "",
            0,
        ),
    ];
    f.header.case_count = Some(f.results.len());
    if let Some(sel) = f.header.selection.as_mut() {
        sel.corpus_case_count = f.results.len();
    }
    let rows = report::per_rule(&f);
    let status = |rule: &str| rows.iter().find(|r| r.rule == rule).map(|r| r.status);
    for rule in [
        "AER1-TL-LINK",
        "AER1-TL-GENESIS",
        "AER1-TL-SEQ",
        "AER1-TL-JOB",
        "AER1-TL-CLOSE-LAST",
    ] {
        assert_eq!(status(rule), Some(RuleStatus::Pass), "{rule}: {rows:?}");
    }
    assert_eq!(status("AER1-CM-FINAL"), Some(RuleStatus::OutOfScope));
    assert_eq!(status("AER1-RC-ID"), Some(RuleStatus::OutOfScope));
    let link = rows.iter().find(|r| r.rule == "AER1-TL-LINK").unwrap();
    assert_eq!((link.passed, link.total, link.out_of_scope), (2, 2, 1));
    let v = report::verdict(&f);
    assert_eq!(v.level, report::Level::Partial);
    assert!(v.meets_in_scope(), "{v:?}");
    assert_eq!(
        v.scope,
        "as the adapter declares it, aer1-timeline (revision 09); 4 of the 10 cases out of scope"
    );
    // Every format says it, in one line.
    let scope_line = format!("scope: {}", v.scope);
    assert!(report::text(&f).contains(&format!("  {scope_line}\n")));
    assert!(report::html(&f).contains(&format!("<li>{scope_line}</li>")));
    assert!(
        report::junit(&f).contains(&format!("<property name=\"scope\" value=\"{}\"/>", v.scope))
    );
    assert!(report::json(&f).contains(&format!("\"scope\": \"{}\"", v.scope)));
    assert!(report::markdown(&f)
        .contains("- scope: as the adapter declares it, aer1-timeline \\(revision 09\\)"));
    // The implementation's own rules first; the out-of-scope ones folded after them.
    let html = report::html(&f);
    let folded = html.find("<details class=\"more untested\">").unwrap();
    assert!(html[..folded].contains(">AER1-TL-LINK<"));
    assert!(html[folded..].contains(">AER1-RC-ID<") && !html[..folded].contains(">AER1-RC-ID<"));

    // An exit 89 inside the scope: the rule is partial, and the level is not met.
    let mut g = f.clone();
    g.results[4].status = Unsupported;
    let rows = report::per_rule(&g);
    assert_eq!(
        rows.iter()
            .find(|r| r.rule == "AER1-TL-JOB")
            .map(|r| r.status),
        Some(RuleStatus::Partial)
    );
    assert!(!report::verdict(&g).meets_in_scope());
    // A filter, or a skip, takes it away as well; a failure inside the scope is a FAIL.
    let mut g = f.clone();
    if let Some(sel) = g.header.selection.as_mut() {
        sel.include = vec!["aer1/timeline/".into()];
    }
    assert!(!report::verdict(&g).meets_in_scope());
    let mut g = f.clone();
    g.results[3].status = Skip;
    assert!(!report::verdict(&g).meets_in_scope());
    let mut g = f.clone();
    g.results[1].status = FalseAccept;
    assert_eq!(report::verdict(&g).level, report::Level::Fail);
    assert!(!report::verdict(&g).meets_in_scope());
    // Nothing out of scope: the scope line says so, and a whole CONFORMS meets the level.
    let whole = with_statuses(&[Pass; 4]);
    let v = report::verdict(&whole);
    assert_eq!(
        v.scope,
        "every case of the corpus (no narrower scope declared)"
    );
    assert_eq!(v.meets_in_scope(), v.level == report::Level::Conforms);
}
